/*
 * Fields of MAD attributes (see field.h).  IBA 1.4 vol 1, 13.4.1: bit 0 of
 * a layout is the most significant bit of byte 0; multi-byte fields are
 * big-endian.  libibmad's fields go through mad_get_field and friends; our
 * own are bit ranges read and written here.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <infiniband/mad.h>

#include "mad/field.h"

uint64_t field_bits_get(const uint8_t *buf, unsigned offs, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < len && i < 64; i++) {
		unsigned b = offs + i;
		v = v << 1 | ((buf[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

void field_bits_set(uint8_t *buf, unsigned offs, unsigned len, uint64_t v)
{
	for (unsigned i = 0; i < len && i < 64; i++) {
		unsigned b = offs + len - 1 - i;
		uint8_t bit = (uint8_t)(1u << (7 - b % 8));

		if ((v >> i) & 1)
			buf[b / 8] |= bit;
		else
			buf[b / 8] &= (uint8_t)~bit;
	}
}

/*
 * How libibmad's mad_decode_field writes field f: a uint32_t (fields of up
 * to 32 bits: 32), a uint64_t (64-bit fields: 64) or bytes (any other
 * width: 0, not a value).  libibmad does not export its table, so this
 * asks once per field: decode twice, into a buffer of zeros and one of
 * 0xff, and see which bytes were written (the same in both); the answer is
 * kept (relaxed atomics: any thread may ask, all get the same answer).
 * buf is only read.
 */
#define FIELD_W_32 1
#define FIELD_W_64 2
#define FIELD_W_BYTES 3
static _Atomic uint8_t field_ibmad_widths[IB_FIELD_LAST_];

static unsigned field_ibmad_width(const struct field *f, const uint8_t *buf)
{
	uint8_t a[64], b[64], w = 0;
	unsigned written = 0; /* bit k: byte 4 + k was written */

	if (f->ibmad < IB_FIELD_LAST_)
		w = atomic_load_explicit(&field_ibmad_widths[f->ibmad], memory_order_relaxed);
	if (!w) {
		memset(a, 0, sizeof(a));
		memset(b, 0xff, sizeof(b));
		mad_decode_field((uint8_t *)buf + f->base, (enum MAD_FIELDS)f->ibmad, a);
		mad_decode_field((uint8_t *)buf + f->base, (enum MAD_FIELDS)f->ibmad, b);
		for (unsigned k = 0; k < 8; k++)
			written |= (unsigned)(a[4 + k] == b[4 + k]) << k;
		w = !written ? FIELD_W_32 : written == 0x0f ? FIELD_W_64 : FIELD_W_BYTES;
		if (f->ibmad < IB_FIELD_LAST_)
			atomic_store_explicit(&field_ibmad_widths[f->ibmad], w,
					      memory_order_relaxed);
	}
	return w == FIELD_W_32 ? 32 : w == FIELD_W_64 ? 64 : 0;
}

uint64_t field_get(const struct field *f, const uint8_t *buf)
{
	if (f->ibmad) {
		switch (field_ibmad_width(f, buf)) {
		case 32:
			return mad_get_field((void *)buf, f->base, (enum MAD_FIELDS)f->ibmad);
		case 64:
			return mad_get_field64((void *)buf, f->base, (enum MAD_FIELDS)f->ibmad);
		default:
			return 0;
		}
	}
	return f->bit_len <= 64 ? field_bits_get(buf, f->bit_offs, f->bit_len) : 0;
}

int field_set(const struct field *f, uint8_t *buf, uint64_t v)
{
	if (f->ibmad) {
		switch (field_ibmad_width(f, buf)) {
		case 32:
			mad_set_field(buf, f->base, (enum MAD_FIELDS)f->ibmad, (uint32_t)v);
			return 0;
		case 64:
			mad_set_field64(buf, f->base, (enum MAD_FIELDS)f->ibmad, v);
			return 0;
		default:
			return -EINVAL;
		}
	}
	if (f->bit_len > 64)
		return -EINVAL;
	field_bits_set(buf, f->bit_offs, f->bit_len, v);
	return 0;
}

void field_bytes(const struct field *f, const uint8_t *buf, uint8_t out[64])
{
	memset(out, 0, 64);
	if (f->ibmad) {
		mad_decode_field((uint8_t *)buf + f->base, (enum MAD_FIELDS)f->ibmad, out);
	} else if (f->bit_len <= 64) {
		uint64_t v = field_bits_get(buf, f->bit_offs, f->bit_len);

		memcpy(out, &v, sizeof(v));
	} else {
		/* wide own fields are byte aligned (GIDs, names) */
		memcpy(out, buf + f->bit_offs / 8, f->bit_len / 8 > 64 ? 64 : f->bit_len / 8);
	}
}

/* ---- tables ---------------------------------------------------------------- */

/* A row's value from the image: libibmad's by the member's width, else our bit range. */
static uint64_t field_map_get(const struct field_map *m, const uint8_t *buf)
{
	if (!m->at.ibmad)
		return field_bits_get(buf, m->at.bit_offs, m->at.bit_len);
	if (m->kind == FIELD_U64)
		return mad_get_field64((void *)buf, m->at.base, (enum MAD_FIELDS)m->at.ibmad);
	return mad_get_field((void *)buf, m->at.base, (enum MAD_FIELDS)m->at.ibmad);
}

static void field_map_put(const struct field_map *m, uint8_t *buf, uint64_t v)
{
	if (!m->at.ibmad)
		field_bits_set(buf, m->at.bit_offs, m->at.bit_len, v);
	else if (m->kind == FIELD_U64)
		mad_set_field64(buf, m->at.base, (enum MAD_FIELDS)m->at.ibmad, v);
	else
		mad_set_field(buf, m->at.base, (enum MAD_FIELDS)m->at.ibmad, (uint32_t)v);
}

void field_map_decode(const struct field_map *map, size_t n, const uint8_t *buf, void *host)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)host + map[i].offs;
		uint64_t v = field_map_get(&map[i], buf);

		switch (map[i].kind) {
		case FIELD_BOOL:
			*(bool *)p = v != 0;
			break;
		case FIELD_U8:
			*p = (uint8_t)v;
			break;
		case FIELD_U16:
			*(uint16_t *)(void *)p = (uint16_t)v;
			break;
		case FIELD_U32:
			*(uint32_t *)(void *)p = (uint32_t)v;
			break;
		case FIELD_U64:
			*(uint64_t *)(void *)p = v;
			break;
		}
	}
}

void field_map_encode(const struct field_map *map, size_t n, const void *host, uint8_t *buf)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)host + map[i].offs;
		uint64_t v = 0;

		switch (map[i].kind) {
		case FIELD_BOOL:
			v = *(const bool *)p;
			break;
		case FIELD_U8:
			v = *p;
			break;
		case FIELD_U16:
			v = *(const uint16_t *)(const void *)p;
			break;
		case FIELD_U32:
			v = *(const uint32_t *)(const void *)p;
			break;
		case FIELD_U64:
			v = *(const uint64_t *)(const void *)p;
			break;
		}
		field_map_put(&map[i], buf, v);
	}
}

/* The bits a libibmad field covers: written by setting every bit of it in a zeroed image. */
static void field_ibmad_span(const struct field *f, unsigned *ret_first, unsigned *ret_end)
{
	uint8_t img[IB_MAD_SIZE * 2] = {0}, ones[64];

	memset(ones, 0xff, sizeof(ones));
	mad_encode_field(img + f->base, (enum MAD_FIELDS)f->ibmad, ones);
	*ret_first = *ret_end = 0;
	for (unsigned b = 0; b < sizeof(img) * 8; b++) {
		if (!((img[b / 8] >> (7 - b % 8)) & 1))
			continue;
		if (!*ret_end)
			*ret_first = b;
		*ret_end = b + 1;
	}
}

size_t field_map_extent(const struct field_map *map, size_t n)
{
	unsigned end = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned first, last;

		if (map[i].at.ibmad) {
			field_ibmad_span(&map[i].at, &first, &last);
		} else {
			first = map[i].at.bit_offs;
			last = first + map[i].at.bit_len;
		}
		if (last > end)
			end = last;
	}
	return (end + 7) / 8;
}

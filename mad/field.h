/*
 * Fields of MAD attributes, as tables: one small codec that mad/wire.c (SMP
 * attributes, traps), mad/sa_wire.c and mad/sa_wire_tables.c (SA records)
 * share.  IBA 1.4 vol 1 numbers the bits of an attribute from the most
 * significant bit of its byte 0 (13.4.1, "bit 0" of every layout table),
 * every field big-endian.
 *
 * A field is libibmad's where libibmad has it (enum MAD_FIELDS, relative to
 * a byte base in the image), else a bit range of our own read from the IBA's
 * table (bit offset, bit length).  A table of struct field_map rows binds
 * fields to the members of a host struct and drives its decode and encode:
 * adding a field the IBA defines and libibmad 44 lacks (PortInfo's
 * CapabilityMask2-era link speeds, say) is a member in the struct and one
 * FIELD_MAP_BITS row with its offset and length from the IBA table.
 *
 * Pure functions over caller buffers: no allocation, no logging.  The caller
 * checks lengths: a field past the end of its buffer is not detected here.
 */
#ifndef IBSMD_FIELD_H
#define IBSMD_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a field lies in an attribute image. */
struct field {
	uint16_t ibmad;	   /* enum MAD_FIELDS; 0: the bit range below */
	uint16_t base;	   /* ibmad: byte offset its layout is relative to */
	uint16_t bit_offs; /* own: first bit, IBA numbering */
	uint16_t bit_len;  /* own: 1..64 bits for a value; wider only byte aligned (bytes) */
};

#define FIELD_IBMAD(f, b)                                                                          \
	{                                                                                          \
		.ibmad = (f), .base = (b)                                                          \
	}
#define FIELD_BITS(offs, len)                                                                      \
	{                                                                                          \
		.bit_offs = (offs), .bit_len = (len)                                               \
	}

/* Bits [offs, offs + len) of buf as a big-endian number, len <= 64 (more: the first 64). */
uint64_t field_bits_get(const uint8_t *buf, unsigned offs, unsigned len);
/* Write the len low bits of v over bits [offs, offs + len) of buf, len <= 64. */
void field_bits_set(uint8_t *buf, unsigned offs, unsigned len, uint64_t v);

/*
 * A field's value, up to 64 bits.  A wider own field reads 0; a libibmad
 * field wider than 32 bits and not 64 (libibmad treats those as byte arrays)
 * is not a value either.
 */
uint64_t field_get(const struct field *f, const uint8_t *buf);
/* Set a field's value (the low bits of v).  0, or -EINVAL for a field wider than 64 bits. */
int field_set(const struct field *f, uint8_t *buf, uint64_t v);
/*
 * A field's content as 64 bytes that compare equal (memcmp) exactly when
 * the field's contents do, for any width (the SA matches components so).
 * Wider fields past 64 bytes are compared on their first 64.
 */
void field_bytes(const struct field *f, const uint8_t *buf, uint8_t out[64]);

/* ---- tables of fields over host structs ---------------------------------- */

enum field_kind {
	FIELD_BOOL = 1,
	FIELD_U8,
	FIELD_U16,
	FIELD_U32,
	FIELD_U64,
};

/*
 * One field of an attribute and the member of a host struct it fills.  A
 * member of type uint64_t takes a 64-bit field (libibmad's 64-bit fields are
 * read and written as such), the others up to 32 bits: a value wider than
 * its member is cut to the member's width on decode, as an assignment would.
 */
struct field_map {
	const char *name; /* the IBA's name for the field */
	struct field at;
	uint16_t offs; /* offsetof(the struct, member) */
	uint8_t kind;  /* enum field_kind: the member's type */
};

#define FIELD_KIND_OF(x)                                                                           \
	_Generic((x), bool                                                                         \
		 : FIELD_BOOL, uint8_t                                                             \
		 : FIELD_U8, uint16_t                                                              \
		 : FIELD_U16, uint32_t                                                             \
		 : FIELD_U32, uint64_t                                                             \
		 : FIELD_U64)

/* A row for member of type: libibmad's field f (its layout from byte 0 of the image). */
#define FIELD_MAP_IBMAD(type, member, name, f)                                                     \
	{                                                                                          \
		(name), FIELD_IBMAD(f, 0), (uint16_t)offsetof(type, member),                       \
		    FIELD_KIND_OF(((type *)0)->member)                                             \
	}
/* A row for member of type: bits [offs, offs + len) of the image, from the IBA's table. */
#define FIELD_MAP_BITS(type, member, name, offs, len)                                              \
	{                                                                                          \
		(name), FIELD_BITS(offs, len), (uint16_t)offsetof(type, member),                   \
		    FIELD_KIND_OF(((type *)0)->member)                                             \
	}

/* The rows of a table (an array, not a pointer). */
#define FIELD_N(map) (sizeof(map) / sizeof((map)[0]))

/* Fill the members of host that the n rows of map name from the image buf. */
void field_map_decode(const struct field_map *map, size_t n, const uint8_t *buf, void *host);
/* Write those members of host over their fields in buf (other bits of buf are kept). */
void field_map_encode(const struct field_map *map, size_t n, const void *host, uint8_t *buf);
/* The bytes of image the rows reach: the end of the last field, rounded up to a byte. */
size_t field_map_extent(const struct field_map *map, size_t n);

#endif

/*
 * Fuzz target for mad/wire.c, the decoders of bytes that arrive from the
 * fabric: wire_smp_decode, wire_mad_peek, every attribute decoder, and
 * wire_dr_path_parse (paths typed by users).
 *
 * Properties (abort on violation):
 *  - no decoder reads past the length it is given (each runs on an
 *    exactly-sized heap copy) and every one rejects a short buffer;
 *  - decode -> encode -> decode gives equal structs, and the re-encoded
 *    bytes are stable;
 *  - encoders that own every bit they write (all but VLArbitration, which
 *    zeroes its reserved bits) leave an image unchanged when they write back
 *    what was decoded from it;
 *  - wire_mad_peek agrees with wire_smp_decode.
 */
#include <errno.h>
#include <string.h>

#include "mad/wire.h"
#include "tests/fuzz/fuzz.h"

static bool smp_eq(const struct wire_smp *a, const struct wire_smp *b)
{
	return a->mgmt_class == b->mgmt_class && a->method == b->method && a->status == b->status &&
	       a->direction == b->direction && a->hop_ptr == b->hop_ptr &&
	       a->hop_cnt == b->hop_cnt && a->tid == b->tid && a->attr_id == b->attr_id &&
	       a->attr_mod == b->attr_mod && a->mkey == b->mkey && a->dr_slid == b->dr_slid &&
	       a->dr_dlid == b->dr_dlid &&
	       !memcmp(a->initial_path, b->initial_path, sizeof(a->initial_path)) &&
	       !memcmp(a->return_path, b->return_path, sizeof(a->return_path)) &&
	       !memcmp(a->data, b->data, sizeof(a->data));
}

static void fuzz_smp(const uint8_t *d, size_t len)
{
	struct wire_smp s, s2;
	uint8_t buf[WIRE_MAD_SIZE], buf2[WIRE_MAD_SIZE];
	uint8_t cls, method;
	uint64_t tid;
	int r, rp;

	rp = wire_mad_peek(d, len, &cls, &method, &tid);
	FUZZ_CHECK(rp == 0 || rp == -EBADMSG);
	FUZZ_CHECK((rp == 0) == (len >= 24));
	r = wire_smp_decode(d, len, &s);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (len < WIRE_MAD_SIZE)
		FUZZ_CHECK(r == -EBADMSG);
	if (r)
		return;
	FUZZ_CHECK(s.mgmt_class == cls && s.method == method && s.tid == tid);
	FUZZ_CHECK(wire_smp_encode(&s, buf, sizeof(buf)) == WIRE_MAD_SIZE);
	FUZZ_CHECK(wire_smp_decode(buf, sizeof(buf), &s2) == 0);
	FUZZ_CHECK(smp_eq(&s, &s2));
	FUZZ_CHECK(wire_smp_encode(&s2, buf2, sizeof(buf2)) == WIRE_MAD_SIZE);
	FUZZ_CHECK(!memcmp(buf, buf2, sizeof(buf)));
	FUZZ_CHECK(wire_smp_encode(&s, buf, WIRE_MAD_SIZE - 1) == -ENOSPC);
}

/* Copy d[0..len) into an exactly-sized buffer (NULL-safe for len 0). */
static uint8_t *dup_exact(const uint8_t *d, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	if (len)
		memcpy(p, d, len);
	return p;
}

/* An image of at least n bytes: d's first bytes, zero-padded. */
static void pad(const uint8_t *d, size_t len, uint8_t *out, size_t n)
{
	memset(out, 0, n);
	memcpy(out, d, len < n ? len : n);
}

static void fuzz_nodeinfo(const uint8_t *d, size_t len)
{
	struct wire_nodeinfo a, b;
	uint8_t img[64];
	int r = wire_nodeinfo_decode(d, len, &a);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (len < 40)
		FUZZ_CHECK(r == -EBADMSG);
	if (r)
		return;
	pad(d, len, img, sizeof(img));
	FUZZ_CHECK(wire_nodeinfo_encode(&a, img, 40) == 0);
	FUZZ_CHECK(!memcmp(img, d, 40));
	FUZZ_CHECK(wire_nodeinfo_decode(img, 40, &b) == 0);
	FUZZ_CHECK(a.base_version == b.base_version && a.class_version == b.class_version &&
		   a.node_type == b.node_type && a.nports == b.nports && a.sys_guid == b.sys_guid &&
		   a.node_guid == b.node_guid && a.port_guid == b.port_guid &&
		   a.partition_cap == b.partition_cap && a.device_id == b.device_id &&
		   a.revision == b.revision && a.local_port == b.local_port &&
		   a.vendor_id == b.vendor_id);
	FUZZ_CHECK(wire_nodeinfo_encode(&a, img, 39) == -ENOSPC);
}

static void fuzz_nodedesc(const uint8_t *d, size_t len)
{
	char a[65], b[65], small[8];
	uint8_t img[64];
	int r = wire_nodedesc_decode(d, len, a, sizeof(a));

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (len < 64)
		FUZZ_CHECK(r == -EBADMSG);
	if (r)
		return;
	FUZZ_CHECK(strlen(a) <= 64);
	FUZZ_CHECK(wire_nodedesc_encode(a, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_nodedesc_decode(img, sizeof(img), b, sizeof(b)) == 0);
	FUZZ_CHECK(!strcmp(a, b));
	/* a short output buffer truncates, NUL-terminated */
	FUZZ_CHECK(wire_nodedesc_decode(d, len, small, sizeof(small)) == 0);
	FUZZ_CHECK(strlen(small) < sizeof(small) && !strncmp(small, a, strlen(small)));
}

/* clang-format off */
#define PI_FIELDS(X)                                                                               \
	X(mkey) X(gid_prefix) X(lid) X(sm_lid) X(capmask) X(mkey_lease) X(local_port)              \
	X(width_enabled) X(width_supported) X(width_active) X(speed_supported) X(speed_active)     \
	X(speed_enabled) X(state) X(phys_state) X(down_default) X(mkey_protect) X(lmc)             \
	X(neighbor_mtu) X(sm_sl) X(vl_cap) X(vl_high_limit) X(vl_arb_high_cap)                     \
	X(vl_arb_low_cap) X(mtu_cap) X(vl_stall) X(hoq_life) X(oper_vls) X(part_enf_in)            \
	X(part_enf_out) X(client_reregister) X(subnet_timeout) X(resp_time)
#define PI_EXT_FIELDS(X)                                                                           \
	X(capmask2) X(speed_ext_active) X(speed_ext_supported) X(speed_ext_enabled)                \
	X(speed_ext2_active) X(speed_ext2_supported) X(speed_ext2_enabled)
/* clang-format on */
#define FIELD_EQ(f) FUZZ_CHECK(a.f == b.f);

static void fuzz_portinfo(const uint8_t *d, size_t len)
{
	struct wire_portinfo a, b;
	uint8_t img[64];
	int r = wire_portinfo_decode(d, len, &a);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (len < 54)
		FUZZ_CHECK(r == -EBADMSG);
	if (r)
		return;
	pad(d, len, img, sizeof(img));
	FUZZ_CHECK(wire_portinfo_encode(&a, img, sizeof(img)) == 0);
	FUZZ_CHECK(!memcmp(img, d, len < sizeof(img) ? len : sizeof(img)));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_portinfo_encode(&a, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_portinfo_decode(img, sizeof(img), &b) == 0);
	PI_FIELDS(FIELD_EQ)
	FUZZ_CHECK(wire_portinfo_encode(&a, img, 53) == -ENOSPC);
	/* the extended speeds: read from whole images only, written by encode_ext */
	if (len < 64)
		FUZZ_CHECK(!a.capmask2 && !a.speed_ext_active && !a.speed_ext_enabled &&
			   !a.speed_ext2_active && !a.speed_ext2_enabled);
	FUZZ_CHECK(wire_portinfo_encode_ext(&a, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_portinfo_decode(img, sizeof(img), &b) == 0);
	PI_FIELDS(FIELD_EQ)
	PI_EXT_FIELDS(FIELD_EQ)
	if (len >= 64) {
		pad(d, len, img, sizeof(img));
		FUZZ_CHECK(wire_portinfo_encode_ext(&a, img, sizeof(img)) == 0);
		FUZZ_CHECK(!memcmp(img, d, sizeof(img)));
	}
	FUZZ_CHECK(wire_portinfo_encode_ext(&a, img, 63) == -ENOSPC);
}

/* clang-format off */
#define SI_FIELDS(X)                                                                               \
	X(lft_cap) X(rft_cap) X(mft_cap) X(lft_top) X(def_port) X(def_mcast_prim)                  \
	X(def_mcast_not_prim) X(lifetime) X(port_state_change) X(lids_per_port)                    \
	X(partition_enf_cap) X(enhanced_port0) X(mft_top)
/* clang-format on */

static void fuzz_switchinfo(const uint8_t *d, size_t len)
{
	struct wire_switchinfo a, b;
	uint8_t img[64];
	int r = wire_switchinfo_decode(d, len, &a);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (len >= 20));
	if (r)
		return;
	pad(d, len, img, sizeof(img));
	FUZZ_CHECK(wire_switchinfo_encode(&a, img, sizeof(img)) == 0);
	FUZZ_CHECK(!memcmp(img, d, len < sizeof(img) ? len : sizeof(img)));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_switchinfo_encode(&a, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_switchinfo_decode(img, sizeof(img), &b) == 0);
	SI_FIELDS(FIELD_EQ)
	FUZZ_CHECK(wire_switchinfo_encode(&a, img, 19) == -ENOSPC);
}

static void fuzz_sminfo(const uint8_t *d, size_t len)
{
	struct wire_sminfo a, b;
	uint8_t img[64];
	int r = wire_sminfo_decode(d, len, &a);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (len >= 21));
	if (r)
		return;
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_sminfo_encode(&a, img, 21) == 0);
	FUZZ_CHECK(!memcmp(img, d, 21)); /* SMInfo has no reserved bits */
	FUZZ_CHECK(wire_sminfo_decode(img, 21, &b) == 0);
	FUZZ_CHECK(a.guid == b.guid && a.sm_key == b.sm_key && a.act_count == b.act_count &&
		   a.priority == b.priority && a.state == b.state);
	FUZZ_CHECK(wire_sminfo_encode(&a, img, 20) == -ENOSPC);
}

static void fuzz_tables(const uint8_t *d, size_t len)
{
	uint8_t ports[64], ports2[64], vl[32], w[32], vl2[32], w2[32], img[64];
	uint16_t keys[32], keys2[32], masks[32], masks2[32];
	int r;

	r = wire_lft_decode(d, len, ports);
	FUZZ_CHECK((r == 0) == (len >= 64) && (r == 0 || r == -EBADMSG));
	if (!r) {
		FUZZ_CHECK(wire_lft_encode(ports, img, sizeof(img)) == 0);
		FUZZ_CHECK(!memcmp(img, d, 64));
		FUZZ_CHECK(wire_lft_decode(img, sizeof(img), ports2) == 0);
		FUZZ_CHECK(!memcmp(ports, ports2, sizeof(ports)));
		FUZZ_CHECK(wire_lft_encode(ports, img, 63) == -ENOSPC);
	}

	r = wire_pkey_decode(d, len, keys);
	FUZZ_CHECK((r == 0) == (len >= 64) && (r == 0 || r == -EBADMSG));
	if (!r) {
		FUZZ_CHECK(wire_pkey_encode(keys, img, sizeof(img)) == 0);
		FUZZ_CHECK(!memcmp(img, d, 64));
		FUZZ_CHECK(wire_pkey_decode(img, sizeof(img), keys2) == 0);
		FUZZ_CHECK(!memcmp(keys, keys2, sizeof(keys)));
		FUZZ_CHECK(wire_pkey_encode(keys, img, 63) == -ENOSPC);
	}

	r = wire_mft_decode(d, len, masks);
	FUZZ_CHECK((r == 0) == (len >= 64) && (r == 0 || r == -EBADMSG));
	if (!r) {
		FUZZ_CHECK(wire_mft_encode(masks, img, sizeof(img)) == 0);
		FUZZ_CHECK(!memcmp(img, d, 64));
		FUZZ_CHECK(wire_mft_decode(img, sizeof(img), masks2) == 0);
		FUZZ_CHECK(!memcmp(masks, masks2, sizeof(masks)));
		FUZZ_CHECK(wire_mft_encode(masks, img, 63) == -ENOSPC);
	}

	r = wire_sl2vl_decode(d, len, vl);
	FUZZ_CHECK((r == 0) == (len >= 8) && (r == 0 || r == -EBADMSG));
	if (!r) {
		for (int i = 0; i < 16; i++)
			FUZZ_CHECK(vl[i] <= 15);
		memset(img, 0xa5, sizeof(img));
		FUZZ_CHECK(wire_sl2vl_encode(vl, img, 8) == 0);
		FUZZ_CHECK(!memcmp(img, d, 8));
		FUZZ_CHECK(img[8] == 0xa5); /* writes 8 bytes, no more */
		FUZZ_CHECK(wire_sl2vl_decode(img, 8, vl2) == 0);
		FUZZ_CHECK(!memcmp(vl, vl2, 16));
		FUZZ_CHECK(wire_sl2vl_encode(vl, img, 7) == -ENOSPC);
		vl[len % 16] = 16;
		FUZZ_CHECK(wire_sl2vl_encode(vl, img, 8) == -EINVAL);
	}

	r = wire_vlarb_decode(d, len, vl, w);
	FUZZ_CHECK((r == 0) == (len >= 64) && (r == 0 || r == -EBADMSG));
	if (!r) {
		for (int i = 0; i < 32; i++)
			FUZZ_CHECK(vl[i] <= 15);
		FUZZ_CHECK(wire_vlarb_encode(vl, w, img, sizeof(img)) == 0);
		for (int i = 0; i < 32; i++) /* only the reserved nibble may change */
			FUZZ_CHECK(img[2 * i] == (d[2 * i] & 0x0f) &&
				   img[2 * i + 1] == d[2 * i + 1]);
		FUZZ_CHECK(wire_vlarb_decode(img, sizeof(img), vl2, w2) == 0);
		FUZZ_CHECK(!memcmp(vl, vl2, 32) && !memcmp(w, w2, 32));
		FUZZ_CHECK(wire_vlarb_encode(vl, w, img, 63) == -ENOSPC);
	}
}

static void fuzz_attrs(const uint8_t *d, size_t len)
{
	fuzz_nodeinfo(d, len);
	fuzz_nodedesc(d, len);
	fuzz_portinfo(d, len);
	fuzz_switchinfo(d, len);
	fuzz_sminfo(d, len);
	fuzz_tables(d, len);
}

/* A DR path as a user types it ("0,1,3"): parse -> format -> parse is stable. */
static void fuzz_dr_path(const uint8_t *d, size_t len)
{
	uint8_t path[64], path2[64];
	uint8_t hops, hops2;
	char *s, out[64 * 4 + 8];

	if (len > 512)
		return;
	s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, d, len);
	s[len] = '\0';
	if (wire_dr_path_parse(s, path, &hops) == 0) {
		FUZZ_CHECK(hops <= WIRE_DR_MAX_HOPS && path[0] == 0);
		wire_dr_path_format(path, hops, out, sizeof(out));
		FUZZ_CHECK(wire_dr_path_parse(out, path2, &hops2) == 0);
		FUZZ_CHECK(hops == hops2 && !memcmp(path, path2, (size_t)hops + 1));
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t cuts[] = {0, 7, 8, 19, 20, 21, 39, 40, 53, 54, 63, 64, 255, 256};
	uint8_t *p, mad[WIRE_MAD_SIZE];
	size_t i;

	/* The whole input, then every boundary length, each in an exact buffer. */
	p = dup_exact(data, size);
	fuzz_smp(p, size);
	fuzz_attrs(p, size);
	free(p);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]) && cuts[i] < size; i++) {
		p = dup_exact(data, cuts[i]);
		fuzz_smp(p, cuts[i]);
		fuzz_attrs(p, cuts[i]);
		free(p);
	}
	/* The input as a whole MAD (zero-padded) and as its SMP data field. */
	pad(data, size, mad, sizeof(mad));
	fuzz_smp(mad, sizeof(mad));
	fuzz_attrs(mad + 64, WIRE_SMP_DATA_SIZE);
	fuzz_dr_path(data, size);
	return 0;
}

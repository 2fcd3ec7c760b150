/*
 * Unit tests for mad/wire.c, the MAD codec (IBA 1.4 vol 1, 13.4.2, 13.4.3,
 * 14.2.1, 14.2.5): the common MAD header of any class, header round trips
 * for LID-routed and directed-route SMPs, golden byte images written by hand
 * from the spec layout, the SM attributes, directed-route path parsing and
 * validation, and truncation at every length; the field codec (mad/field.h)
 * and golden images of PortInfo, SwitchInfo, the Notice and each SM trap's
 * details, the SA's Notice and ClassPortInfo, written from the IBA's
 * tables, decoded and encoded back to the same bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include <infiniband/mad.h>

#include "mad/field.h"
#include "mad/sa_wire.h"
#include "mad/wire.h"
#include "tests/testutil.h"

/* ---- helpers ----------------------------------------------------------- */

static void assert_smp_equal(const struct wire_smp *a, const struct wire_smp *b)
{
	CU_ASSERT_EQUAL(a->mgmt_class, b->mgmt_class);
	CU_ASSERT_EQUAL(a->method, b->method);
	CU_ASSERT_EQUAL(a->status, b->status);
	CU_ASSERT_EQUAL(a->direction, b->direction);
	CU_ASSERT_EQUAL(a->hop_ptr, b->hop_ptr);
	CU_ASSERT_EQUAL(a->hop_cnt, b->hop_cnt);
	CU_ASSERT_EQUAL(a->tid, b->tid);
	CU_ASSERT_EQUAL(a->attr_id, b->attr_id);
	CU_ASSERT_EQUAL(a->attr_mod, b->attr_mod);
	CU_ASSERT_EQUAL(a->mkey, b->mkey);
	CU_ASSERT_EQUAL(a->dr_slid, b->dr_slid);
	CU_ASSERT_EQUAL(a->dr_dlid, b->dr_dlid);
	CU_ASSERT(memcmp(a->initial_path, b->initial_path, sizeof(a->initial_path)) == 0);
	CU_ASSERT(memcmp(a->return_path, b->return_path, sizeof(a->return_path)) == 0);
	CU_ASSERT(memcmp(a->data, b->data, sizeof(a->data)) == 0);
}

static void fill_data(uint8_t *d, uint8_t seed)
{
	for (int i = 0; i < WIRE_SMP_DATA_SIZE; i++)
		d[i] = (uint8_t)(seed + 3 * i);
}

static void make_lid_smp(struct wire_smp *s)
{
	wire_smp_init_lid(s, WIRE_SET, WIRE_ATTR_PORT_INFO, 0x00000007);
	s->status = 0x001c;
	s->tid = 0xfedcba9876543210ULL;
	s->mkey = 0x0123456789abcdefULL;
	fill_data(s->data, 0x11);
}

static void make_dr_smp(struct wire_smp *s)
{
	const uint8_t path[6] = {0, 1, 3, 5, 7, 36};

	CU_ASSERT_FATAL(wire_smp_init_dr(s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0x12345678, path, 5) ==
			0);
	s->method = WIRE_GET_RESP;
	s->direction = true;
	s->status = 0x7ffe;
	s->hop_ptr = 4;
	s->tid = 0x8000000000000001ULL;
	s->mkey = 0xa1a2a3a4a5a6a7a8ULL;
	s->dr_slid = 0x0011;
	s->dr_dlid = 0x0022;
	for (int i = 1; i <= 5; i++)
		s->return_path[i] = (uint8_t)(40 + i);
	fill_data(s->data, 0x80);
}

/* ---- SMP header -------------------------------------------------------- */

static void test_smp_roundtrip_lid(void)
{
	struct wire_smp s, d, d2;
	uint8_t buf[WIRE_MAD_SIZE], buf2[WIRE_MAD_SIZE];

	make_lid_smp(&s);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	memset(&d, 0xaa, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
	assert_smp_equal(&s, &d);
	/* decode -> encode -> decode */
	CU_ASSERT_EQUAL(wire_smp_encode(&d, buf2, sizeof(buf2)), WIRE_MAD_SIZE);
	CU_ASSERT(memcmp(buf, buf2, sizeof(buf)) == 0);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf2, sizeof(buf2), &d2), 0);
	assert_smp_equal(&d, &d2);

	/* every method, with and without the response bit */
	const uint8_t methods[] = {WIRE_GET, WIRE_SET, WIRE_GET_RESP, WIRE_TRAP, WIRE_TRAP_REPRESS};
	for (size_t i = 0; i < sizeof(methods); i++) {
		s.method = methods[i];
		CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
		CU_ASSERT_EQUAL(buf[3], methods[i]);
		CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
		CU_ASSERT_EQUAL(d.method, methods[i]);
	}
}

static void test_smp_roundtrip_dr(void)
{
	struct wire_smp s, d, d2;
	uint8_t buf[WIRE_MAD_SIZE], buf2[WIRE_MAD_SIZE];

	make_dr_smp(&s);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	memset(&d, 0x55, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
	assert_smp_equal(&s, &d);
	CU_ASSERT_EQUAL(d.status, 0x7ffe); /* the D bit is not part of the status */
	CU_ASSERT(d.direction);
	CU_ASSERT_EQUAL(wire_smp_encode(&d, buf2, sizeof(buf2)), WIRE_MAD_SIZE);
	CU_ASSERT(memcmp(buf, buf2, sizeof(buf)) == 0);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf2, sizeof(buf2), &d2), 0);
	assert_smp_equal(&d, &d2);

	/* the direction bit and the status are independent */
	for (int dir = 0; dir <= 1; dir++) {
		const uint16_t statuses[] = {0, 1, 0x001c, 0x4000, 0x7fff};
		for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
			s.direction = dir;
			s.status = statuses[i];
			CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
			CU_ASSERT_EQUAL(buf[4] & 0x80, dir ? 0x80 : 0);
			CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
			CU_ASSERT_EQUAL(d.direction, (bool)dir);
			CU_ASSERT_EQUAL(d.status, statuses[i]);
		}
	}
	/* a status with bit 15 set cannot leak into the direction bit */
	s.direction = false;
	s.status = 0x8001;
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(buf[4], 0x00);
	CU_ASSERT_EQUAL(buf[5], 0x01);
}

static void test_smp_init(void)
{
	struct wire_smp s;
	uint8_t path[64];

	wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_SWITCH_INFO, 9);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI);
	CU_ASSERT_EQUAL(s.method, WIRE_GET);
	CU_ASSERT_EQUAL(s.attr_id, WIRE_ATTR_SWITCH_INFO);
	CU_ASSERT_EQUAL(s.attr_mod, 9);
	CU_ASSERT_EQUAL(s.tid, 0);
	CU_ASSERT_EQUAL(s.status, 0);

	for (int i = 0; i < 64; i++)
		path[i] = (uint8_t)(i * 2 + 1);
	CU_ASSERT_EQUAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_DESC, 0, path, 63), 0);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI_DR);
	CU_ASSERT_EQUAL(s.hop_cnt, 63);
	CU_ASSERT_EQUAL(s.hop_ptr, 0);
	CU_ASSERT_EQUAL(s.dr_slid, WIRE_PERMISSIVE_LID);
	CU_ASSERT_EQUAL(s.dr_dlid, WIRE_PERMISSIVE_LID);
	CU_ASSERT_FALSE(s.direction);
	CU_ASSERT_EQUAL(s.initial_path[0], 0); /* path[0] ignored */
	CU_ASSERT(memcmp(s.initial_path + 1, path + 1, 63) == 0);

	memset(&s, 0x77, sizeof(s));
	CU_ASSERT_EQUAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_DESC, 0, path, 64), -EINVAL);
	CU_ASSERT_EQUAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_DESC, 0, path, 255), -EINVAL);

	/* zero hops: the SM's own port */
	CU_ASSERT_EQUAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(s.hop_cnt, 0);
}

static void test_smp_encode_errors(void)
{
	struct wire_smp s;
	uint8_t buf[WIRE_MAD_SIZE + 8];

	make_lid_smp(&s);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, WIRE_MAD_SIZE - 1), -ENOSPC);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, 0), -ENOSPC);
	/* a larger buffer is fine; only the MAD is written */
	memset(buf, 0xee, sizeof(buf));
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(buf[WIRE_MAD_SIZE], 0xee);
	s.mgmt_class = WIRE_CLASS_SA;
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), -EINVAL);
	make_dr_smp(&s);
	s.hop_cnt = 64;
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), -EINVAL);
}

/* ---- golden images (IBA 1.4 vol 1, 13.4.3 and 14.2.1) -------------------- */

/* LID-routed Set(PortInfo), attr mod 7, status 0x001c */
static const uint8_t golden_lid_hdr[32] = {
    0x01, 0x01, 0x01, 0x02,			    /* base ver, class, class ver, method */
    0x00, 0x1c, 0x00, 0x00,			    /* status, class specific */
    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, /* TID */
    0x00, 0x15, 0x00, 0x00,			    /* attr id, reserved */
    0x00, 0x00, 0x00, 0x07,			    /* attr mod */
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* M_Key */
};

/* directed GetResp(NodeInfo), D bit, status 0x7ffe, hop ptr 4, hop cnt 5 */
static const uint8_t golden_dr_hdr[36] = {
    0x01, 0x81, 0x01, 0x81,			    /* base ver, class, class ver, R|Get */
    0xff, 0xfe, 0x04, 0x05,			    /* D|status, hop ptr, hop cnt */
    0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* TID */
    0x00, 0x11, 0x00, 0x00,			    /* attr id, reserved */
    0x12, 0x34, 0x56, 0x78,			    /* attr mod */
    0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, /* M_Key */
    0x00, 0x11, 0x00, 0x22,			    /* DrSLID, DrDLID */
};

static void build_golden_lid(uint8_t *img)
{
	memset(img, 0, WIRE_MAD_SIZE);
	memcpy(img, golden_lid_hdr, sizeof(golden_lid_hdr));
	fill_data(img + 64, 0x11);
}

static void build_golden_dr(uint8_t *img)
{
	static const uint8_t ipath[6] = {0, 1, 3, 5, 7, 36};
	static const uint8_t rpath[6] = {0, 41, 42, 43, 44, 45};

	memset(img, 0, WIRE_MAD_SIZE);
	memcpy(img, golden_dr_hdr, sizeof(golden_dr_hdr));
	fill_data(img + 64, 0x80);
	memcpy(img + 128, ipath, sizeof(ipath));
	memcpy(img + 192, rpath, sizeof(rpath));
}

static void test_golden_encode(void)
{
	struct wire_smp s;
	uint8_t img[WIRE_MAD_SIZE], buf[WIRE_MAD_SIZE];

	make_lid_smp(&s);
	build_golden_lid(img);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	for (int i = 0; i < WIRE_MAD_SIZE; i++)
		if (buf[i] != img[i]) {
			fprintf(stderr, "\nLID byte %d: got 0x%02x want 0x%02x", i, buf[i], img[i]);
			CU_FAIL("LID-routed SMP differs from the golden image");
		}

	make_dr_smp(&s);
	build_golden_dr(img);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	for (int i = 0; i < WIRE_MAD_SIZE; i++)
		if (buf[i] != img[i]) {
			fprintf(stderr, "\nDR byte %d: got 0x%02x want 0x%02x", i, buf[i], img[i]);
			CU_FAIL("directed SMP differs from the golden image");
		}

	/* a fresh directed Get from init_dr: permissive DrSLID/DrDLID, hop ptr 0 */
	const uint8_t path[3] = {0, 2, 9};
	CU_ASSERT_EQUAL_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_SM_INFO, 0, path, 2), 0);
	s.tid = 0x42;
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	const uint8_t want[36] = {0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0,
				  0,	0x42, 0x00, 0x20, 0,	0,    0,    0,	  0, 0, 0, 0, 0, 0,
				  0,	0,    0,    0,	  0xff, 0xff, 0xff, 0xff};
	CU_ASSERT(memcmp(buf, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL(buf[128], 0);
	CU_ASSERT_EQUAL(buf[129], 2);
	CU_ASSERT_EQUAL(buf[130], 9);
	CU_ASSERT_EQUAL(buf[131], 0);
	for (int i = 192; i < 256; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
}

static void test_golden_decode(void)
{
	struct wire_smp s;
	uint8_t img[WIRE_MAD_SIZE];

	build_golden_lid(img);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI);
	CU_ASSERT_EQUAL(s.method, WIRE_SET);
	CU_ASSERT_EQUAL(s.status, 0x001c);
	CU_ASSERT_EQUAL(s.tid, 0xfedcba9876543210ULL);
	CU_ASSERT_EQUAL(s.attr_id, WIRE_ATTR_PORT_INFO);
	CU_ASSERT_EQUAL(s.attr_mod, 7);
	CU_ASSERT_EQUAL(s.mkey, 0x0123456789abcdefULL);
	CU_ASSERT_EQUAL(s.data[0], 0x11);
	CU_ASSERT_EQUAL(s.data[63], (uint8_t)(0x11 + 3 * 63));

	build_golden_dr(img);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI_DR);
	CU_ASSERT_EQUAL(s.method, WIRE_GET_RESP);
	CU_ASSERT(s.direction);
	CU_ASSERT_EQUAL(s.status, 0x7ffe);
	CU_ASSERT_EQUAL(s.hop_ptr, 4);
	CU_ASSERT_EQUAL(s.hop_cnt, 5);
	CU_ASSERT_EQUAL(s.tid, 0x8000000000000001ULL);
	CU_ASSERT_EQUAL(s.attr_id, WIRE_ATTR_NODE_INFO);
	CU_ASSERT_EQUAL(s.attr_mod, 0x12345678);
	CU_ASSERT_EQUAL(s.mkey, 0xa1a2a3a4a5a6a7a8ULL);
	CU_ASSERT_EQUAL(s.dr_slid, 0x0011);
	CU_ASSERT_EQUAL(s.dr_dlid, 0x0022);
	CU_ASSERT_EQUAL(s.initial_path[1], 1);
	CU_ASSERT_EQUAL(s.initial_path[2], 3);
	CU_ASSERT_EQUAL(s.initial_path[3], 5);
	CU_ASSERT_EQUAL(s.initial_path[4], 7);
	CU_ASSERT_EQUAL(s.initial_path[5], 36);
	CU_ASSERT_EQUAL(s.initial_path[6], 0);
	for (int i = 1; i <= 5; i++)
		CU_ASSERT_EQUAL(s.return_path[i], 40 + i);
	CU_ASSERT_EQUAL(s.data[0], 0x80);

	/* D bit clear, status zero: a plain outgoing request */
	img[4] = 0x00;
	img[5] = 0x00;
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_FALSE(s.direction);
	CU_ASSERT_EQUAL(s.status, 0);
	/* D bit alone: a successful response */
	img[4] = 0x80;
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT(s.direction);
	CU_ASSERT_EQUAL(s.status, 0);

	/* wire_mad_peek on the same image */
	uint8_t cls = 0, method = 0;
	uint64_t tid = 0;
	CU_ASSERT_EQUAL(wire_mad_peek(img, sizeof(img), &cls, &method, &tid), 0);
	CU_ASSERT_EQUAL(cls, WIRE_CLASS_SMI_DR);
	CU_ASSERT_EQUAL(method, WIRE_GET_RESP);
	CU_ASSERT_EQUAL(tid, 0x8000000000000001ULL);
	CU_ASSERT_EQUAL(wire_mad_peek(img, 24, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(wire_mad_peek(img, 23, &cls, &method, &tid), -EBADMSG);
	CU_ASSERT_EQUAL(wire_mad_peek(NULL, 256, &cls, &method, &tid), -EBADMSG);
}

/* ---- decode validation ------------------------------------------------- */

static void test_smp_truncation(void)
{
	uint8_t img[WIRE_MAD_SIZE + 16];
	struct wire_smp s, keep;

	memset(&keep, 0x5a, sizeof(keep));
	for (int dr = 0; dr <= 1; dr++) {
		memset(img, 0, sizeof(img));
		if (dr)
			build_golden_dr(img);
		else
			build_golden_lid(img);
		for (size_t len = 0; len < WIRE_MAD_SIZE; len++) {
			s = keep;
			CU_ASSERT_EQUAL(wire_smp_decode(img, len, &s), -EBADMSG);
			CU_ASSERT(memcmp(&s, &keep, sizeof(s)) == 0); /* untouched on failure */
		}
		CU_ASSERT_EQUAL(wire_smp_decode(img, WIRE_MAD_SIZE, &s), 0);
		CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), 0);
	}
	CU_ASSERT_EQUAL(wire_smp_decode(NULL, WIRE_MAD_SIZE, &s), -EBADMSG);
}

static void test_smp_bad_header(void)
{
	uint8_t img[WIRE_MAD_SIZE];
	struct wire_smp s;

	build_golden_lid(img);
	img[0] = 2;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	img[0] = 0;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);

	const uint8_t bad_classes[] = {0x00, 0x02, 0x03, 0x04, 0x06, 0x80, 0x82, 0xff};
	for (size_t i = 0; i < sizeof(bad_classes); i++) {
		build_golden_lid(img);
		img[1] = bad_classes[i];
		CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	}

	build_golden_lid(img);
	img[2] = 2;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	build_golden_dr(img);
	img[2] = 0;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
}

static void test_smp_hop_validation(void)
{
	uint8_t img[WIRE_MAD_SIZE];
	struct wire_smp s;

	build_golden_dr(img);
	/* hop_cnt 5: pointer 0..6 is acceptable, 7 is not */
	for (int ptr = 0; ptr <= 6; ptr++) {
		img[6] = (uint8_t)ptr;
		CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), 0);
		CU_ASSERT_EQUAL(s.hop_ptr, ptr);
	}
	img[6] = 7;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	img[6] = 0xff;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);

	img[6] = 0;
	img[7] = 63;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_EQUAL(s.hop_cnt, 63);
	img[6] = 64;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), 0);
	img[6] = 65;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	img[6] = 0;
	img[7] = 64;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);
	img[7] = 0xff;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), -EBADMSG);

	/* LID-routed SMPs do not carry hop fields: bytes 6-7 are not checked */
	build_golden_lid(img);
	img[6] = 0xff;
	img[7] = 0xff;
	CU_ASSERT_EQUAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_EQUAL(s.hop_cnt, 0);
	CU_ASSERT_EQUAL(s.hop_ptr, 0);
}

static void test_smp_paths_preserved(void)
{
	struct wire_smp s, d;
	uint8_t path[64], buf[WIRE_MAD_SIZE];

	for (int i = 0; i < 64; i++)
		path[i] = (uint8_t)(200 - i);
	CU_ASSERT_EQUAL_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, 3, path, 63), 0);
	for (int i = 0; i < 64; i++)
		s.return_path[i] = (uint8_t)(i + 100);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	CU_ASSERT(memcmp(buf + 129, path + 1, 63) == 0);
	CU_ASSERT(memcmp(buf + 192, s.return_path, 64) == 0);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
	CU_ASSERT(memcmp(d.initial_path + 1, path + 1, 63) == 0);
	CU_ASSERT(memcmp(d.return_path, s.return_path, 64) == 0);
	assert_smp_equal(&s, &d);
}

/* ---- directed-route path strings ---------------------------------------- */

static void test_dr_path_parse_format(void)
{
	uint8_t path[64], hops = 0xee;
	char buf[256];

	memset(path, 0xcc, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(wire_dr_path_parse("0,1,3,5", path, &hops), 0);
	CU_ASSERT_EQUAL(hops, 3);
	CU_ASSERT_EQUAL(path[0], 0);
	CU_ASSERT_EQUAL(path[1], 1);
	CU_ASSERT_EQUAL(path[2], 3);
	CU_ASSERT_EQUAL(path[3], 5);
	CU_ASSERT_STRING_EQUAL(wire_dr_path_format(path, hops, buf, sizeof(buf)), "0,1,3,5");

	CU_ASSERT_EQUAL(wire_dr_path_parse("0", path, &hops), 0);
	CU_ASSERT_EQUAL(hops, 0);
	CU_ASSERT_STRING_EQUAL(wire_dr_path_format(path, hops, buf, sizeof(buf)), "0");

	CU_ASSERT_EQUAL(wire_dr_path_parse("0,255,254", path, &hops), 0);
	CU_ASSERT_EQUAL(hops, 2);
	CU_ASSERT_EQUAL(path[1], 255);
	CU_ASSERT_EQUAL(path[2], 254);

	/* 63 hops is the most a directed SMP carries */
	char s63[512];
	size_t off = (size_t)snprintf(s63, sizeof(s63), "0");
	for (int i = 1; i <= 63; i++)
		off += (size_t)snprintf(s63 + off, sizeof(s63) - off, ",%d", i + 100);
	CU_ASSERT_EQUAL_FATAL(wire_dr_path_parse(s63, path, &hops), 0);
	CU_ASSERT_EQUAL(hops, 63);
	CU_ASSERT_EQUAL(path[63], 163);
	CU_ASSERT_STRING_EQUAL(wire_dr_path_format(path, hops, buf, sizeof(buf)), s63);
	/* the parsed path drives init_dr as is */
	struct wire_smp s;
	CU_ASSERT_EQUAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0, path, hops), 0);
	CU_ASSERT_EQUAL(s.initial_path[63], 163);

	/* 64 hops */
	snprintf(s63 + off, sizeof(s63) - off, ",1");
	hops = 0xee;
	memset(path, 0xcc, sizeof(path));
	CU_ASSERT_EQUAL(wire_dr_path_parse(s63, path, &hops), -EINVAL);
	CU_ASSERT_EQUAL(hops, 0xee); /* untouched on failure */
	CU_ASSERT_EQUAL(path[1], 0xcc);

	const char *bad[] = {"0,1,x", "",     "0,256", "x",    "0,1,",
			     ",1",    "0,,1", "0;1",   "0,1 ", "0,99999999999999999999",
			     "0,-1",  "0,-0", "0, 1",  " 0,1", "0,+1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hops = 0xee;
		int rc = wire_dr_path_parse(bad[i], path, &hops);
		if (rc != -EINVAL)
			fprintf(stderr, "\naccepted bad path \"%s\"", bad[i]);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(hops, 0xee);
	}
	CU_ASSERT_EQUAL(wire_dr_path_parse(NULL, path, &hops), -EINVAL);

	/* formatting never overruns a short buffer */
	CU_ASSERT_EQUAL(wire_dr_path_parse("0,1,3,5", path, &hops), 0);
	memset(buf, 'Z', sizeof(buf));
	wire_dr_path_format(path, hops, buf, 6);
	CU_ASSERT_STRING_EQUAL(buf, "0,1,3");
	CU_ASSERT_EQUAL(buf[6], 'Z');
	memset(buf, 'Z', sizeof(buf));
	wire_dr_path_format(path, hops, buf, 1);
	CU_ASSERT_EQUAL(buf[0], 0);
	CU_ASSERT_EQUAL(buf[1], 'Z');
}

/* ---- attributes (IBA 1.4 vol 1, 14.2.5) --------------------------------- */

static void test_nodeinfo(void)
{
	/* NodeInfo of a 36-port switch, bytes from 14.2.5.3 */
	static const uint8_t golden[40] = {
	    0x01, 0x01, 0x02, 0x24,			    /* base, class, type, nports */
	    0x00, 0x02, 0xc9, 0x03, 0x00, 0x10, 0x00, 0x01, /* SystemImageGUID */
	    0x00, 0x02, 0xc9, 0x03, 0x00, 0x10, 0x00, 0x02, /* NodeGUID */
	    0x00, 0x02, 0xc9, 0x03, 0x00, 0x10, 0x00, 0x03, /* PortGUID */
	    0x00, 0x40, 0xc7, 0x38,			    /* PartitionCap, DeviceID */
	    0x00, 0x00, 0x00, 0xa2,			    /* Revision */
	    0x07, 0x00, 0x02, 0xc9,			    /* LocalPortNum, VendorID */
	};
	struct wire_nodeinfo ni, d;
	uint8_t data[64];

	CU_ASSERT_EQUAL_FATAL(wire_nodeinfo_decode(golden, sizeof(golden), &ni), 0);
	CU_ASSERT_EQUAL(ni.base_version, 1);
	CU_ASSERT_EQUAL(ni.class_version, 1);
	CU_ASSERT_EQUAL(ni.node_type, 2);
	CU_ASSERT_EQUAL(ni.nports, 36);
	CU_ASSERT_EQUAL(ni.sys_guid, 0x0002c90300100001ULL);
	CU_ASSERT_EQUAL(ni.node_guid, 0x0002c90300100002ULL);
	CU_ASSERT_EQUAL(ni.port_guid, 0x0002c90300100003ULL);
	CU_ASSERT_EQUAL(ni.partition_cap, 0x40);
	CU_ASSERT_EQUAL(ni.device_id, 0xc738);
	CU_ASSERT_EQUAL(ni.revision, 0xa2);
	CU_ASSERT_EQUAL(ni.local_port, 7);
	CU_ASSERT_EQUAL(ni.vendor_id, 0x0002c9);

	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_nodeinfo_encode(&ni, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, golden, sizeof(golden)) == 0);

	ni.node_type = 1;
	ni.nports = 2;
	ni.sys_guid = 0x1122334455667788ULL;
	ni.node_guid = 0x8877665544332211ULL;
	ni.port_guid = 0x0102030405060708ULL;
	ni.partition_cap = 0xfffe;
	ni.device_id = 0x1017;
	ni.revision = 0xdeadbeef;
	ni.local_port = 2;
	ni.vendor_id = 0xabcdef;
	CU_ASSERT_EQUAL(wire_nodeinfo_encode(&ni, data, 40), 0);
	CU_ASSERT_EQUAL_FATAL(wire_nodeinfo_decode(data, 40, &d), 0);
	CU_ASSERT_EQUAL(d.base_version, ni.base_version);
	CU_ASSERT_EQUAL(d.class_version, ni.class_version);
	CU_ASSERT_EQUAL(d.node_type, ni.node_type);
	CU_ASSERT_EQUAL(d.nports, ni.nports);
	CU_ASSERT_EQUAL(d.sys_guid, ni.sys_guid);
	CU_ASSERT_EQUAL(d.node_guid, ni.node_guid);
	CU_ASSERT_EQUAL(d.port_guid, ni.port_guid);
	CU_ASSERT_EQUAL(d.partition_cap, ni.partition_cap);
	CU_ASSERT_EQUAL(d.device_id, ni.device_id);
	CU_ASSERT_EQUAL(d.revision, ni.revision);
	CU_ASSERT_EQUAL(d.local_port, ni.local_port);
	CU_ASSERT_EQUAL(d.vendor_id, ni.vendor_id);

	/* nonsense from the fabric */
	uint8_t bad[40];
	memcpy(bad, golden, sizeof(bad));
	bad[2] = 0; /* node type */
	CU_ASSERT_EQUAL(wire_nodeinfo_decode(bad, sizeof(bad), &d), -EBADMSG);
	bad[2] = 4;
	CU_ASSERT_EQUAL(wire_nodeinfo_decode(bad, sizeof(bad), &d), -EBADMSG);
	memcpy(bad, golden, sizeof(bad));
	bad[3] = 0; /* no ports */
	CU_ASSERT_EQUAL(wire_nodeinfo_decode(bad, sizeof(bad), &d), -EBADMSG);
	memcpy(bad, golden, sizeof(bad));
	memset(bad + 12, 0, 8); /* NodeGUID 0 */
	CU_ASSERT_EQUAL(wire_nodeinfo_decode(bad, sizeof(bad), &d), -EBADMSG);

	for (size_t len = 0; len < 40; len++)
		CU_ASSERT_EQUAL(wire_nodeinfo_decode(golden, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodeinfo_decode(NULL, 64, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodeinfo_encode(&ni, data, 39), -ENOSPC);
}

static void test_nodedesc(void)
{
	uint8_t data[64];
	char out[80];

	memset(data, 0xee, sizeof(data));
	CU_ASSERT_EQUAL(wire_nodedesc_encode("sw-leaf-01 HCA-1", data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, "sw-leaf-01 HCA-1", 16) == 0);
	for (int i = 16; i < 64; i++)
		CU_ASSERT_EQUAL(data[i], 0);
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, sizeof(data), out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "sw-leaf-01 HCA-1");

	/* 64 characters, no NUL on the wire */
	char s64[65], s70[71];
	for (int i = 0; i < 64; i++)
		s64[i] = (char)('A' + i % 26);
	s64[64] = 0;
	CU_ASSERT_EQUAL(wire_nodedesc_encode(s64, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, s64, 64) == 0);
	memset(out, 'Z', sizeof(out));
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, sizeof(data), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(strlen(out), 64);
	CU_ASSERT_STRING_EQUAL(out, s64);
	/* longer strings are cut at 64 */
	memcpy(s70, s64, 64);
	memcpy(s70 + 64, "abcdef", 7);
	CU_ASSERT_EQUAL(wire_nodedesc_encode(s70, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, s64, 64) == 0);
	/* a short output buffer truncates and terminates */
	memset(out, 'Z', sizeof(out));
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, sizeof(data), out, 5), 0);
	CU_ASSERT_STRING_EQUAL(out, "ABCD");
	CU_ASSERT_EQUAL(out[5], 'Z');

	/* non-printables from the fabric are replaced */
	memset(data, 0, sizeof(data));
	memcpy(data, "ab\x01\x7f\xc3\xa9\tz", 8);
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, sizeof(data), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(strlen(out), 8);
	CU_ASSERT(strncmp(out, "ab", 2) == 0);
	for (int i = 2; i < 7; i++)
		CU_ASSERT(out[i] != data[i] && out[i] >= 0x20 && out[i] < 0x7f);
	CU_ASSERT_EQUAL(out[7], 'z');

	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(wire_nodedesc_decode(data, len, out, sizeof(out)), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodedesc_decode(NULL, 64, out, sizeof(out)), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, 64, NULL, sizeof(out)), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodedesc_decode(data, 64, out, 0), -EBADMSG);
	CU_ASSERT_EQUAL(wire_nodedesc_encode("x", data, 63), -ENOSPC);
}

static void fill_portinfo(struct wire_portinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->mkey = 0x0102030405060708ULL;
	pi->gid_prefix = 0xfe80000000000000ULL;
	pi->lid = 0x1234;
	pi->sm_lid = 0x0042;
	pi->capmask = 0x0251084a;
	pi->mkey_lease = 0xbeef;
	pi->local_port = 17;
	pi->width_enabled = 0x0b;
	pi->width_supported = 0x03;
	pi->width_active = 0x02;
	pi->speed_supported = 0x7;
	pi->speed_active = 0x4;
	pi->speed_enabled = 0x5;
	pi->state = 4;
	pi->phys_state = 5;
	pi->down_default = 2;
	pi->mkey_protect = 3;
	pi->lmc = 6;
	pi->neighbor_mtu = 5;
	pi->sm_sl = 9;
	pi->vl_cap = 4;
	pi->vl_high_limit = 0xa5;
	pi->vl_arb_high_cap = 8;
	pi->vl_arb_low_cap = 7;
	pi->mtu_cap = 3;
	pi->vl_stall = 6;
	pi->hoq_life = 19;
	pi->oper_vls = 3;
	pi->part_enf_in = 1;
	pi->part_enf_out = 0;
	pi->client_reregister = 1;
	pi->subnet_timeout = 18;
	pi->resp_time = 20;
}

static void assert_portinfo_equal(const struct wire_portinfo *a, const struct wire_portinfo *b)
{
#define EQ(f) CU_ASSERT_EQUAL(a->f, b->f)
	EQ(mkey);
	EQ(gid_prefix);
	EQ(lid);
	EQ(sm_lid);
	EQ(capmask);
	EQ(mkey_lease);
	EQ(local_port);
	EQ(width_enabled);
	EQ(width_supported);
	EQ(width_active);
	EQ(speed_supported);
	EQ(speed_active);
	EQ(speed_enabled);
	EQ(state);
	EQ(phys_state);
	EQ(down_default);
	EQ(mkey_protect);
	EQ(lmc);
	EQ(neighbor_mtu);
	EQ(sm_sl);
	EQ(vl_cap);
	EQ(vl_high_limit);
	EQ(vl_arb_high_cap);
	EQ(vl_arb_low_cap);
	EQ(mtu_cap);
	EQ(vl_stall);
	EQ(hoq_life);
	EQ(oper_vls);
	EQ(part_enf_in);
	EQ(part_enf_out);
	EQ(client_reregister);
	EQ(subnet_timeout);
	EQ(resp_time);
#undef EQ
}

static void test_portinfo(void)
{
	struct wire_portinfo pi, d;
	uint8_t data[64];

	fill_portinfo(&pi);
	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(data, sizeof(data), &d), 0);
	assert_portinfo_equal(&pi, &d);

	/* byte positions from 14.2.5.6 */
	CU_ASSERT(memcmp(data, "\x01\x02\x03\x04\x05\x06\x07\x08", 8) == 0); /* M_Key */
	CU_ASSERT(memcmp(data + 8, "\xfe\x80\0\0\0\0\0\0", 8) == 0);	     /* GidPrefix */
	CU_ASSERT_EQUAL(data[16], 0x12);				     /* LID */
	CU_ASSERT_EQUAL(data[17], 0x34);
	CU_ASSERT_EQUAL(data[18], 0x00); /* MasterSMLID */
	CU_ASSERT_EQUAL(data[19], 0x42);
	CU_ASSERT(memcmp(data + 20, "\x02\x51\x08\x4a", 4) == 0); /* CapabilityMask */
	CU_ASSERT_EQUAL(data[26], 0xbe);			  /* M_KeyLeasePeriod */
	CU_ASSERT_EQUAL(data[27], 0xef);
	CU_ASSERT_EQUAL(data[28], 17);	      /* LocalPortNum */
	CU_ASSERT_EQUAL(data[32] & 0x0f, 4);  /* PortState */
	CU_ASSERT_EQUAL(data[33] >> 4, 5);    /* PortPhysicalState */
	CU_ASSERT_EQUAL(data[34] & 0x07, 6);  /* LMC */
	CU_ASSERT_EQUAL(data[34] >> 6, 3);    /* M_KeyProtectBits */
	CU_ASSERT_EQUAL(data[35] >> 4, 4);    /* LinkSpeedActive */
	CU_ASSERT_EQUAL(data[35] & 0x0f, 5);  /* LinkSpeedEnabled */
	CU_ASSERT_EQUAL(data[36] >> 4, 5);    /* NeighborMTU */
	CU_ASSERT_EQUAL(data[36] & 0x0f, 9);  /* MasterSMSL */
	CU_ASSERT_EQUAL(data[51] & 0x1f, 18); /* SubnetTimeOut */
	CU_ASSERT_EQUAL(data[51] >> 7, 1);    /* ClientReregister */
	CU_ASSERT_EQUAL(data[52] & 0x1f, 20); /* RespTimeValue */

	/* other bits of the image are kept */
	memset(data, 0xa5, sizeof(data));
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL(data[24], 0xa5); /* DiagCode */
	CU_ASSERT_EQUAL(data[25], 0xa5);
	CU_ASSERT_EQUAL(data[44], 0xa5); /* M_KeyViolations */
	CU_ASSERT_EQUAL(data[49], 0xa5); /* Q_KeyViolations */
	for (int i = 54; i < 64; i++)
		CU_ASSERT_EQUAL(data[i], 0xa5);
	CU_ASSERT_EQUAL(data[16], 0x12);
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(data, sizeof(data), &d), 0);
	assert_portinfo_equal(&pi, &d);

	/* second set of values: nothing depends on one pattern */
	pi.lid = 0xbfff;
	pi.sm_lid = 1;
	pi.state = 1;
	pi.phys_state = 2;
	pi.lmc = 1;
	pi.client_reregister = 0;
	pi.part_enf_out = 1;
	pi.mkey = ~0ULL;
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, data, 54), 0);
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(data, 54, &d), 0);
	assert_portinfo_equal(&pi, &d);

	/* a PortState beyond Active-Defer is rejected */
	data[32] = (uint8_t)((data[32] & 0xf0) | 6);
	CU_ASSERT_EQUAL(wire_portinfo_decode(data, sizeof(data), &d), -EBADMSG);

	for (size_t len = 0; len < 54; len++)
		CU_ASSERT_EQUAL(wire_portinfo_decode(data, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_portinfo_decode(NULL, 64, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, data, 53), -ENOSPC);
}

static void test_switchinfo(void)
{
	struct wire_switchinfo si = {0}, d;
	uint8_t data[64];

	si.lft_cap = 0xc000;
	si.rft_cap = 0x0102;
	si.mft_cap = 0x0400;
	si.lft_top = 0x01a3;
	si.def_port = 7;
	si.def_mcast_prim = 8;
	si.def_mcast_not_prim = 9;
	si.lifetime = 0x13;
	si.port_state_change = 1;
	si.lids_per_port = 0x0203;
	si.partition_enf_cap = 0x0020;
	si.enhanced_port0 = true;
	si.mft_top = 0xc0ff;
	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_switchinfo_encode(&si, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL(data[0], 0xc0); /* LinearFDBCap */
	CU_ASSERT_EQUAL(data[1], 0x00);
	CU_ASSERT_EQUAL(data[6], 0x01); /* LinearFDBTop */
	CU_ASSERT_EQUAL(data[7], 0xa3);
	CU_ASSERT_EQUAL(data[8], 7);	 /* DefaultPort */
	CU_ASSERT_EQUAL(data[18], 0xc0); /* MulticastFDBTop */
	CU_ASSERT_EQUAL(data[19], 0xff);
	CU_ASSERT_EQUAL_FATAL(wire_switchinfo_decode(data, sizeof(data), &d), 0);
	CU_ASSERT_EQUAL(d.lft_cap, si.lft_cap);
	CU_ASSERT_EQUAL(d.rft_cap, si.rft_cap);
	CU_ASSERT_EQUAL(d.mft_cap, si.mft_cap);
	CU_ASSERT_EQUAL(d.lft_top, si.lft_top);
	CU_ASSERT_EQUAL(d.def_port, si.def_port);
	CU_ASSERT_EQUAL(d.def_mcast_prim, si.def_mcast_prim);
	CU_ASSERT_EQUAL(d.def_mcast_not_prim, si.def_mcast_not_prim);
	CU_ASSERT_EQUAL(d.lifetime, si.lifetime);
	CU_ASSERT_EQUAL(d.port_state_change, si.port_state_change);
	CU_ASSERT_EQUAL(d.lids_per_port, si.lids_per_port);
	CU_ASSERT_EQUAL(d.partition_enf_cap, si.partition_enf_cap);
	CU_ASSERT_EQUAL(d.enhanced_port0, si.enhanced_port0);
	CU_ASSERT_EQUAL(d.mft_top, si.mft_top);

	/* golden LinearFDBTop straight from bytes */
	memset(data, 0, sizeof(data));
	data[6] = 0x00;
	data[7] = 0x3f;
	CU_ASSERT_EQUAL_FATAL(wire_switchinfo_decode(data, 20, &d), 0);
	CU_ASSERT_EQUAL(d.lft_top, 63);
	CU_ASSERT_FALSE(d.enhanced_port0);

	for (size_t len = 0; len < 20; len++)
		CU_ASSERT_EQUAL(wire_switchinfo_decode(data, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_switchinfo_decode(NULL, 64, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_switchinfo_encode(&si, data, 19), -ENOSPC);
}

static void test_lft_block(void)
{
	uint8_t ports[64], back[64], data[64];

	for (int i = 0; i < 64; i++)
		ports[i] = (uint8_t)(i % 3 == 0 ? 0xff : i + 1);
	memset(data, 0xee, sizeof(data));
	CU_ASSERT_EQUAL(wire_lft_encode(ports, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, ports, 64) == 0); /* byte i is the port for LID 64b+i */
	memset(back, 0, sizeof(back));
	CU_ASSERT_EQUAL(wire_lft_decode(data, sizeof(data), back), 0);
	CU_ASSERT(memcmp(back, ports, 64) == 0);

	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(wire_lft_decode(data, len, back), -EBADMSG);
	CU_ASSERT_EQUAL(wire_lft_decode(NULL, 64, back), -EBADMSG);
	CU_ASSERT_EQUAL(wire_lft_encode(ports, data, 63), -ENOSPC);
}

/* MulticastForwardingTable block (14.2.5.11): 32 big-endian 16-bit port masks. */
static void test_mft_block(void)
{
	static const uint8_t golden[64] = {
	    0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0xff,	     0xff,
	    0x12, 0x34, 0xab, 0xcd, 0x00, 0x06, [62] = 0x40, [63] = 0x02,
	};
	uint16_t masks[32] = {0x0000, 0x0001, 0x8000, 0xffff, 0x1234, 0xabcd, 0x0006};
	uint16_t back[32];
	uint8_t data[64];

	masks[31] = 0x4002;
	memset(data, 0xee, sizeof(data));
	CU_ASSERT_EQUAL(wire_mft_encode(masks, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, golden, sizeof(golden)) == 0);
	memset(back, 0xee, sizeof(back));
	CU_ASSERT_EQUAL(wire_mft_decode(golden, sizeof(golden), back), 0);
	CU_ASSERT(memcmp(back, masks, sizeof(masks)) == 0);
	/* decode -> encode -> decode */
	CU_ASSERT_EQUAL(wire_mft_encode(back, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL(wire_mft_decode(data, sizeof(data), back), 0);
	CU_ASSERT(memcmp(back, masks, sizeof(masks)) == 0);

	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(wire_mft_decode(golden, len, back), -EBADMSG);
	CU_ASSERT_EQUAL(wire_mft_decode(NULL, 64, back), -EBADMSG);
	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(wire_mft_encode(masks, data, len), -ENOSPC);
}

static void test_pkey_block(void)
{
	uint16_t keys[32], back[32];
	uint8_t data[64];

	for (int i = 0; i < 32; i++)
		keys[i] = (uint16_t)(0x8000 | (i * 0x0101));
	keys[0] = 0xffff;
	keys[31] = 0x7fff;
	CU_ASSERT_EQUAL(wire_pkey_encode(keys, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL(data[0], 0xff);
	CU_ASSERT_EQUAL(data[1], 0xff);
	CU_ASSERT_EQUAL(data[2], 0x81); /* big-endian */
	CU_ASSERT_EQUAL(data[3], 0x01);
	CU_ASSERT_EQUAL(data[62], 0x7f);
	CU_ASSERT_EQUAL(data[63], 0xff);
	memset(back, 0, sizeof(back));
	CU_ASSERT_EQUAL(wire_pkey_decode(data, sizeof(data), back), 0);
	CU_ASSERT(memcmp(back, keys, sizeof(keys)) == 0);

	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(wire_pkey_decode(data, len, back), -EBADMSG);
	CU_ASSERT_EQUAL(wire_pkey_decode(NULL, 64, back), -EBADMSG);
	CU_ASSERT_EQUAL(wire_pkey_encode(keys, data, 63), -ENOSPC);
}

static void test_sminfo(void)
{
	static const uint8_t golden[24] = {
	    0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x1b, 0x2c, /* GUID */
	    0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, /* SM_Key */
	    0x00, 0x01, 0x02, 0x03,			    /* ActCount */
	    0xd3,					    /* Priority 13, SMState 3 */
	};
	struct wire_sminfo si, d;
	uint8_t data[64];

	CU_ASSERT_EQUAL_FATAL(wire_sminfo_decode(golden, sizeof(golden), &si), 0);
	CU_ASSERT_EQUAL(si.guid, 0x0002c903000a1b2cULL);
	CU_ASSERT_EQUAL(si.sm_key, 0x1020304050607080ULL);
	CU_ASSERT_EQUAL(si.act_count, 0x00010203);
	CU_ASSERT_EQUAL(si.priority, 13);
	CU_ASSERT_EQUAL(si.state, 3);
	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_sminfo_encode(&si, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, golden, sizeof(golden)) == 0);

	si.guid = 0xffeeddccbbaa9988ULL;
	si.sm_key = 1;
	si.act_count = 0xfffffffe;
	si.priority = 15;
	si.state = 1;
	CU_ASSERT_EQUAL(wire_sminfo_encode(&si, data, 21), 0);
	CU_ASSERT_EQUAL_FATAL(wire_sminfo_decode(data, 21, &d), 0);
	CU_ASSERT_EQUAL(d.guid, si.guid);
	CU_ASSERT_EQUAL(d.sm_key, si.sm_key);
	CU_ASSERT_EQUAL(d.act_count, si.act_count);
	CU_ASSERT_EQUAL(d.priority, si.priority);
	CU_ASSERT_EQUAL(d.state, si.state);

	for (size_t len = 0; len < 21; len++)
		CU_ASSERT_EQUAL(wire_sminfo_decode(golden, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_sminfo_decode(NULL, 64, &d), -EBADMSG);
	CU_ASSERT_EQUAL(wire_sminfo_encode(&si, data, 20), -ENOSPC);
}

/* Trap 144 from a CA port: the Notice bytes OpenSM's ntc_144 reads. */
static void test_trap144(void)
{
	static const uint8_t golden[20] = {
	    0x84,		    /* IsGeneric, Type 4 (informational) */
	    0x00, 0x00, 0x01,	    /* ProducerType: CA */
	    0x00, 0x90,		    /* TrapNumber 144 */
	    0x00, 0x05,		    /* IssuerLID */
	    0x00, 0x00,		    /* Toggle, Count */
	    0x00, 0x00,		    /* reserved */
	    0x00, 0x05,		    /* LIDADDR */
	    0x00, 0x00,		    /* reserved, local changes */
	    0x02, 0x50, 0xc0, 0x4a, /* CapabilityMask */
	};
	uint8_t data[64];

	memset(data, 0xee, sizeof(data));
	CU_ASSERT_EQUAL(wire_trap144_encode(5, 1, 0x0250c04a, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, golden, sizeof(golden)) == 0);
	for (size_t i = sizeof(golden); i < sizeof(data); i++)
		CU_ASSERT_EQUAL(data[i], 0);
	CU_ASSERT_EQUAL(wire_trap144_encode(5, 1, 0, data, 63), -ENOSPC);
}

/* An attribute carried in an SMP survives the whole trip. */
static void test_attr_in_smp(void)
{
	struct wire_smp s, d;
	struct wire_portinfo pi, got;
	uint8_t buf[WIRE_MAD_SIZE];
	const uint8_t path[3] = {0, 4, 8};

	CU_ASSERT_EQUAL_FATAL(wire_smp_init_dr(&s, WIRE_SET, WIRE_ATTR_PORT_INFO, 8, path, 2), 0);
	fill_portinfo(&pi);
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, s.data, sizeof(s.data)), 0);
	CU_ASSERT_EQUAL(wire_smp_encode(&s, buf, sizeof(buf)), WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(buf[64 + 16], 0x12); /* PortInfo.LID at data offset 16 */
	CU_ASSERT_EQUAL(buf[64 + 17], 0x34);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(buf, sizeof(buf), &d), 0);
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(d.data, sizeof(d.data), &got), 0);
	assert_portinfo_equal(&pi, &got);
}

/* ---- the common MAD header (13.4.2), any class ---------------------------- */

/* PerfMgt GetResp(PortCounters), status 0x0004, class-specific 0xbeef */
static const uint8_t golden_gsi_hdr[WIRE_MAD_HDR_SIZE] = {
    0x01, 0x04, 0x01, 0x81,			    /* base ver, class, class ver, R|Get */
    0x00, 0x04, 0xbe, 0xef,			    /* status, class specific */
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* TID */
    0x00, 0x12, 0x5a, 0xa5,			    /* attr id, reserved */
    0x01, 0x02, 0x03, 0x04,			    /* attr mod */
};

static void make_gsi_hdr(struct wire_mad_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->base_version = 1;
	h->mgmt_class = WIRE_CLASS_PERF;
	h->class_version = 1;
	h->method = WIRE_GET_RESP;
	h->status = 0x0004;
	h->class_specific = 0xbeef;
	h->tid = 0x0123456789abcdefULL;
	h->attr_id = WIRE_ATTR_PERF_PORT_COUNTERS;
	h->attr_mod = 0x01020304;
}

static void assert_hdr_equal(const struct wire_mad_hdr *a, const struct wire_mad_hdr *b)
{
	CU_ASSERT_EQUAL(a->base_version, b->base_version);
	CU_ASSERT_EQUAL(a->mgmt_class, b->mgmt_class);
	CU_ASSERT_EQUAL(a->class_version, b->class_version);
	CU_ASSERT_EQUAL(a->method, b->method);
	CU_ASSERT_EQUAL(a->status, b->status);
	CU_ASSERT_EQUAL(a->class_specific, b->class_specific);
	CU_ASSERT_EQUAL(a->tid, b->tid);
	CU_ASSERT_EQUAL(a->attr_id, b->attr_id);
	CU_ASSERT_EQUAL(a->attr_mod, b->attr_mod);
}

static void test_hdr_golden(void)
{
	struct wire_mad_hdr h, want, d2;
	uint8_t buf[WIRE_MAD_HDR_SIZE + 8];

	/* decode the golden image */
	make_gsi_hdr(&want);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(golden_gsi_hdr, sizeof(golden_gsi_hdr), &h), 0);
	assert_hdr_equal(&h, &want);

	/* encode over zeroes: the image but for the reserved bytes, and no more */
	memset(buf, 0xee, sizeof(buf));
	memset(buf, 0, WIRE_MAD_HDR_SIZE);
	CU_ASSERT_EQUAL(wire_mad_hdr_encode(&want, buf, WIRE_MAD_HDR_SIZE), 0);
	for (int i = 0; i < WIRE_MAD_HDR_SIZE; i++)
		if (buf[i] != (i == 18 || i == 19 ? 0 : golden_gsi_hdr[i])) {
			fprintf(stderr, "\nheader byte %d: got 0x%02x", i, buf[i]);
			CU_FAIL("MAD header differs from the golden image");
		}
	CU_ASSERT_EQUAL(buf[WIRE_MAD_HDR_SIZE], 0xee);
	/* encode over the image itself: unchanged, reserved bytes kept */
	memcpy(buf, golden_gsi_hdr, sizeof(golden_gsi_hdr));
	CU_ASSERT_EQUAL(wire_mad_hdr_encode(&h, buf, sizeof(buf)), 0);
	CU_ASSERT(memcmp(buf, golden_gsi_hdr, sizeof(golden_gsi_hdr)) == 0);
	/* decode -> encode -> decode */
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(buf, WIRE_MAD_HDR_SIZE, &d2), 0);
	assert_hdr_equal(&h, &d2);
	CU_ASSERT_EQUAL(wire_mad_hdr_encode(&h, buf, WIRE_MAD_HDR_SIZE - 1), -ENOSPC);
	CU_ASSERT_EQUAL(wire_mad_hdr_encode(&h, buf, 0), -ENOSPC);

	/* a request: R bit clear */
	want.method = WIRE_GET;
	CU_ASSERT_EQUAL(wire_mad_hdr_encode(&want, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[3], 0x01);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(buf, sizeof(buf), &h), 0);
	CU_ASSERT_EQUAL(h.method, WIRE_GET);
}

/* On SMPs the header agrees with the SMP codec: D bit in the status, hops in class-specific. */
static void test_hdr_smp(void)
{
	uint8_t img[WIRE_MAD_SIZE];
	struct wire_mad_hdr h;
	struct wire_smp s;
	uint8_t cls, method;
	uint64_t tid;

	build_golden_dr(img);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(img, sizeof(img), &h), 0);
	CU_ASSERT_EQUAL_FATAL(wire_smp_decode(img, sizeof(img), &s), 0);
	CU_ASSERT_EQUAL(h.base_version, 1);
	CU_ASSERT_EQUAL(h.mgmt_class, WIRE_CLASS_SMI_DR);
	CU_ASSERT_EQUAL(h.class_version, 1);
	CU_ASSERT_EQUAL(h.method, s.method);
	CU_ASSERT_EQUAL(h.status, 0x8000 | s.status);
	CU_ASSERT_EQUAL(h.class_specific, s.hop_ptr << 8 | s.hop_cnt);
	CU_ASSERT_EQUAL(h.class_specific, 0x0405);
	CU_ASSERT_EQUAL(h.tid, s.tid);
	CU_ASSERT_EQUAL(h.attr_id, WIRE_ATTR_NODE_INFO);
	CU_ASSERT_EQUAL(h.attr_mod, 0x12345678);
	CU_ASSERT_EQUAL(wire_mad_peek(img, sizeof(img), &cls, &method, &tid), 0);
	CU_ASSERT_EQUAL(cls, h.mgmt_class);
	CU_ASSERT_EQUAL(method, h.method);
	CU_ASSERT_EQUAL(tid, h.tid);

	build_golden_lid(img);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(img, sizeof(img), &h), 0);
	CU_ASSERT_EQUAL(h.mgmt_class, WIRE_CLASS_SMI);
	CU_ASSERT_EQUAL(h.method, WIRE_SET);
	CU_ASSERT_EQUAL(h.status, 0x001c);
	CU_ASSERT_EQUAL(h.class_specific, 0);
	CU_ASSERT_EQUAL(h.tid, 0xfedcba9876543210ULL);
	CU_ASSERT_EQUAL(h.attr_id, WIRE_ATTR_PORT_INFO);
	CU_ASSERT_EQUAL(h.attr_mod, 7);

	/* versions are not the header's to check */
	img[0] = 7;
	img[2] = 9;
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(img, sizeof(img), &h), 0);
	CU_ASSERT_EQUAL(h.base_version, 7);
	CU_ASSERT_EQUAL(h.class_version, 9);
}

static void test_hdr_truncation(void)
{
	uint8_t img[WIRE_MAD_SIZE];
	struct wire_mad_hdr h, keep;

	memset(img, 0, sizeof(img));
	memcpy(img, golden_gsi_hdr, sizeof(golden_gsi_hdr));
	memset(&keep, 0x5a, sizeof(keep));
	for (size_t len = 0; len < WIRE_MAD_HDR_SIZE; len++) {
		h = keep;
		CU_ASSERT_EQUAL(wire_mad_hdr_decode(img, len, &h), -EBADMSG);
		CU_ASSERT(memcmp(&h, &keep, sizeof(h)) == 0); /* untouched on failure */
	}
	for (size_t len = WIRE_MAD_HDR_SIZE; len <= WIRE_MAD_SIZE; len++)
		CU_ASSERT_EQUAL(wire_mad_hdr_decode(img, len, &h), 0);
	CU_ASSERT_EQUAL(wire_mad_hdr_decode(NULL, WIRE_MAD_SIZE, &h), -EBADMSG);
}

/* ---- the field codec (mad/field.h) -------------------------------------- */

static void test_field_bits(void)
{
	uint8_t b[16] = {0};

	/* IBA numbering: bit 0 is the most significant bit of byte 0 */
	field_bits_set(b, 0, 1, 1);
	CU_ASSERT_EQUAL(b[0], 0x80);
	field_bits_set(b, 4, 12, 0xabc);
	CU_ASSERT(b[0] == 0x8a && b[1] == 0xbc);
	CU_ASSERT_EQUAL(field_bits_get(b, 4, 12), 0xabc);
	CU_ASSERT_EQUAL(field_bits_get(b, 0, 8), 0x8a);
	/* only the len low bits of the value are written */
	field_bits_set(b, 9, 3, 0xff);
	CU_ASSERT_EQUAL(b[1], 0xfc);
	CU_ASSERT_EQUAL(b[2], 0);
	/* 64 bits across a byte boundary */
	memset(b, 0, sizeof(b));
	field_bits_set(b, 4, 64, 0x0123456789abcdefULL);
	CU_ASSERT(b[0] == 0x00 && b[1] == 0x12 && b[7] == 0xde && b[8] == 0xf0);
	CU_ASSERT_EQUAL(field_bits_get(b, 4, 64), 0x0123456789abcdefULL);
}

static void test_field_get_set(void)
{
	const struct field own = FIELD_BITS(12, 20), lid = FIELD_IBMAD(IB_PORT_LID_F, 0),
			   mkey = FIELD_IBMAD(IB_PORT_MKEY_F, 0),
			   lid4 = FIELD_IBMAD(IB_PORT_LID_F, 4),
			   gid = FIELD_IBMAD(IB_SA_PR_DGID_F, 0), wide = FIELD_BITS(64, 128);
	uint8_t b[128] = {0}, x[64], y[64];

	CU_ASSERT_EQUAL(field_set(&own, b, 0xbcdef), 0);
	CU_ASSERT(b[1] == 0x0b && b[2] == 0xcd && b[3] == 0xef);
	CU_ASSERT_EQUAL(field_get(&own, b), 0xbcdef);
	/* PortInfo LID: bytes 16-17; relative to a base */
	CU_ASSERT_EQUAL(field_set(&lid, b, 0x1234), 0);
	CU_ASSERT(b[16] == 0x12 && b[17] == 0x34);
	CU_ASSERT_EQUAL(field_get(&lid, b), 0x1234);
	CU_ASSERT_EQUAL(field_set(&lid4, b, 0x5678), 0);
	CU_ASSERT(b[20] == 0x56 && b[21] == 0x78);
	/* a 64-bit libibmad field: M_Key, bytes 0-7 */
	CU_ASSERT_EQUAL(field_set(&mkey, b, 0xfedcba9876543210ULL), 0);
	CU_ASSERT(b[0] == 0xfe && b[7] == 0x10);
	CU_ASSERT_EQUAL(field_get(&mkey, b), 0xfedcba9876543210ULL);
	/* wider than 64 bits: no value, but comparable bytes */
	CU_ASSERT_EQUAL(field_set(&gid, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(field_get(&gid, b), 0);
	CU_ASSERT_EQUAL(field_set(&wide, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(field_get(&wide, b), 0);
	memset(b + 8, 0x5a, 16);
	field_bytes(&gid, b, x);
	field_bytes(&wide, b, y);
	CU_ASSERT(memcmp(x, y, 64) == 0);
	b[23] ^= 1;
	field_bytes(&gid, b, y);
	CU_ASSERT(memcmp(x, y, 64) != 0);
}

/* A host struct with a member of every kind, for the table codec. */
struct field_test {
	bool flag;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	uint16_t lid;
};

static const struct field_map field_test_map[] = {
    FIELD_MAP_BITS(struct field_test, flag, "Flag", 0, 1),
    FIELD_MAP_BITS(struct field_test, u8, "Nibble", 4, 4),
    FIELD_MAP_BITS(struct field_test, u16, "Sixteen", 8, 16),
    FIELD_MAP_BITS(struct field_test, u32, "TwentyFour", 40, 24),
    FIELD_MAP_BITS(struct field_test, u64, "Key", 64, 64),
    FIELD_MAP_IBMAD(struct field_test, lid, "LID", IB_PORT_LID_F),
};

static void test_field_map(void)
{
	static const uint8_t golden[18] = {
	    0x8c,					    /* Flag, 3 bits kept, Nibble 0xc */
	    0x12, 0x34,					    /* Sixteen */
	    0x00, 0x00,					    /* not in the table */
	    0xab, 0xcd, 0xef,				    /* TwentyFour */
	    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* Key */
	    0xc0, 0x01,					    /* LID (PortInfo bytes 16-17) */
	};
	struct field_test t, d;
	uint8_t img[64];

	CU_ASSERT_EQUAL(field_map_extent(field_test_map, FIELD_N(field_test_map)), 18);
	CU_ASSERT_EQUAL(field_map_extent(field_test_map, 4), 8);
	memset(&t, 0, sizeof(t));
	field_map_decode(field_test_map, FIELD_N(field_test_map), golden, &t);
	CU_ASSERT(t.flag);
	CU_ASSERT_EQUAL(t.u8, 0xc);
	CU_ASSERT_EQUAL(t.u16, 0x1234);
	CU_ASSERT_EQUAL(t.u32, 0xabcdef);
	CU_ASSERT_EQUAL(t.u64, 0x0102030405060708ULL);
	CU_ASSERT_EQUAL(t.lid, 0xc001);
	memset(img, 0, sizeof(img));
	field_map_encode(field_test_map, FIELD_N(field_test_map), &t, img);
	CU_ASSERT(memcmp(img, golden, sizeof(golden)) == 0);
	/* encode writes its fields only; the bits between are kept */
	memset(img, 0xff, sizeof(img));
	field_map_encode(field_test_map, FIELD_N(field_test_map), &t, img);
	CU_ASSERT_EQUAL(img[0], 0xfc);
	CU_ASSERT(img[3] == 0xff && img[4] == 0xff && img[18] == 0xff);
	field_map_decode(field_test_map, FIELD_N(field_test_map), img, &d);
	CU_ASSERT(d.flag && d.u8 == t.u8 && d.u16 == t.u16 && d.u32 == t.u32 && d.u64 == t.u64 &&
		  d.lid == t.lid);
	/* values wider than their field are cut to it on encode */
	t.u8 = 0xf3;
	memset(img, 0, sizeof(img));
	field_map_encode(field_test_map, FIELD_N(field_test_map), &t, img);
	CU_ASSERT_EQUAL(img[0], 0x83);
}

/* ---- golden images of the attributes, from the IBA's tables -------------- */

/*
 * PortInfo (14.2.5.6) with every field struct wire_portinfo holds set, the
 * rest zero, written byte by byte from the table.
 */
static const uint8_t golden_portinfo[64] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* M_Key */
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* GidPrefix */
    0x12, 0x34,					    /* LID */
    0x00, 0x42,					    /* MasterSMLID */
    0x02, 0x51, 0x08, 0x4a,			    /* CapabilityMask */
    0x00, 0x00,					    /* DiagCode */
    0xbe, 0xef,					    /* M_KeyLeasePeriod */
    0x11,					    /* LocalPortNum 17 */
    0x03,					    /* LinkWidthEnabled */
    0x07,					    /* LinkWidthSupported */
    0x02,					    /* LinkWidthActive */
    0x74,					    /* LinkSpeedSupported 7, PortState 4 (Active) */
    0x52,	/* PortPhysicalState 5 (LinkUp), LinkDownDefaultState 2 */
    0xc6,	/* M_KeyProtectBits 3, 3 reserved bits, LMC 6 */
    0x45,	/* LinkSpeedActive 4, LinkSpeedEnabled 5 */
    0x59,	/* NeighborMTU 5, MasterSMSL 9 */
    0x40,	/* VLCap 4, InitType 0 */
    0x0a,	/* VLHighLimit */
    0x08,	/* VLArbitrationHighCap */
    0x07,	/* VLArbitrationLowCap */
    0x05,	/* InitTypeReply 0, MTUCap 5 */
    0xf3,	/* VLStallCount 7, HOQLife 19 */
    0x4b,	/* OperationalVLs 4, PartitionEnforcementInbound 1, Outbound 0, FilterRaw 1 1 */
    0x00, 0x00, /* M_KeyViolations */
    0x00, 0x00, /* P_KeyViolations */
    0x00, 0x00, /* Q_KeyViolations */
    0x00,	/* GUIDCap */
    0x92,	/* ClientReregister 1, MulticastPKeyTrapSuppressionEnabled 0, SubnetTimeOut 18 */
    0x14,	/* 3 reserved bits, RespTimeValue 20 */
};

static void test_portinfo_golden(void)
{
	struct wire_portinfo pi;
	uint8_t data[64];

	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(golden_portinfo, 64, &pi), 0);
	CU_ASSERT_EQUAL(pi.mkey, 0x0102030405060708ULL);
	CU_ASSERT_EQUAL(pi.gid_prefix, 0xfe80000000000001ULL);
	CU_ASSERT_EQUAL(pi.lid, 0x1234);
	CU_ASSERT_EQUAL(pi.sm_lid, 0x42);
	CU_ASSERT_EQUAL(pi.capmask, 0x0251084a);
	CU_ASSERT_EQUAL(pi.mkey_lease, 0xbeef);
	CU_ASSERT_EQUAL(pi.local_port, 17);
	CU_ASSERT_EQUAL(pi.width_enabled, 3);
	CU_ASSERT_EQUAL(pi.width_supported, 7);
	CU_ASSERT_EQUAL(pi.width_active, 2);
	CU_ASSERT_EQUAL(pi.speed_supported, 7);
	CU_ASSERT_EQUAL(pi.state, 4);
	CU_ASSERT_EQUAL(pi.phys_state, 5);
	CU_ASSERT_EQUAL(pi.down_default, 2);
	CU_ASSERT_EQUAL(pi.mkey_protect, 3);
	CU_ASSERT_EQUAL(pi.lmc, 6);
	CU_ASSERT_EQUAL(pi.speed_active, 4);
	CU_ASSERT_EQUAL(pi.speed_enabled, 5);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 5);
	CU_ASSERT_EQUAL(pi.sm_sl, 9);
	CU_ASSERT_EQUAL(pi.vl_cap, 4);
	CU_ASSERT_EQUAL(pi.vl_high_limit, 10);
	CU_ASSERT_EQUAL(pi.vl_arb_high_cap, 8);
	CU_ASSERT_EQUAL(pi.vl_arb_low_cap, 7);
	CU_ASSERT_EQUAL(pi.mtu_cap, 5);
	CU_ASSERT_EQUAL(pi.vl_stall, 7);
	CU_ASSERT_EQUAL(pi.hoq_life, 19);
	CU_ASSERT_EQUAL(pi.oper_vls, 4);
	CU_ASSERT_EQUAL(pi.part_enf_in, 1);
	CU_ASSERT_EQUAL(pi.part_enf_out, 0);
	CU_ASSERT_EQUAL(pi.filter_raw_in, 1);
	CU_ASSERT_EQUAL(pi.filter_raw_out, 1);
	CU_ASSERT_EQUAL(pi.client_reregister, 1);
	CU_ASSERT_EQUAL(pi.subnet_timeout, 18);
	CU_ASSERT_EQUAL(pi.resp_time, 20);
	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, data, sizeof(data)), 0);
	for (size_t i = 0; i < sizeof(data); i++) {
		if (data[i] != golden_portinfo[i]) {
			fprintf(stderr, "\n  PortInfo byte %zu: 0x%02x, the IBA's 0x%02x", i,
				data[i], golden_portinfo[i]);
			CU_FAIL("PortInfo differs from the golden image");
		}
	}
}

/*
 * PortInfo of today's ports, bytes written from the IBA 1.7 table
 * (14.2.5.6): bits 449-455 of byte 56 LinkSpeedExtActive2 (2 bits),
 * LinkSpeedExtSupported2 (2), LinkSpeedExtEnabled2 (3); bytes 57-59
 * LinkRoundTripLatency; 60-61 CapabilityMask2; 62 LinkSpeedExtActive (high
 * nibble: 1 FDR, 2 EDR, 4 HDR, 8 NDR) and LinkSpeedExtSupported; 63 three
 * reserved bits and LinkSpeedExtEnabled.
 */
static void golden_pi_base(uint8_t img[64], uint8_t width_en, uint8_t width_sup, uint8_t width_act,
			   uint8_t speed_act_en)
{
	memset(img, 0, 64);
	img[20] = 0x00; /* CapabilityMask: IsExtendedSpeedsSupported, IsCapabilityMask2Supported */
	img[21] = 0x00;
	img[22] = 0xc0;
	img[23] = 0x00;
	img[28] = 1;		/* LocalPortNum */
	img[29] = width_en;	/* LinkWidthEnabled */
	img[30] = width_sup;	/* LinkWidthSupported */
	img[31] = width_act;	/* LinkWidthActive */
	img[32] = 0x74;		/* LinkSpeedSupported 7 (SDR DDR QDR), PortState 4 */
	img[33] = 0x52;		/* LinkUp, Polling */
	img[35] = speed_act_en; /* LinkSpeedActive, LinkSpeedEnabled */
	img[41] = 0x05;		/* MTUCap 4096 */
}

static void test_portinfo_ext_golden(void)
{
	struct wire_portinfo pi;
	uint8_t ndr[64], xdr[64], out[64];

	/* an NDR port, 8x of 1x/2x/4x/8x, LinkSpeedActive 0: "see the extended field" */
	golden_pi_base(ndr, 0x06, 0x17, 0x04, 0x07);
	ndr[60] = 0x04; /* CapabilityMask2: IsLinkSpeedNDRSupported (bit 10), */
	ndr[61] = 0x30; /* IsLinkSpeedHDRSupported (5), IsLinkWidth2xSupported (4) */
	ndr[62] = 0x8c; /* LinkSpeedExtActive 8 (NDR), LinkSpeedExtSupported 0xc (HDR NDR) */
	ndr[63] = 0x0c; /* LinkSpeedExtEnabled 0xc */
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(ndr, sizeof(ndr), &pi), 0);
	CU_ASSERT_EQUAL(pi.capmask, WIRE_CAP_EXT_SPEEDS | WIRE_CAP_HAS_CAPMASK2);
	CU_ASSERT_EQUAL(pi.width_enabled, 6);
	CU_ASSERT_EQUAL(pi.width_supported, 0x17);
	CU_ASSERT_EQUAL(pi.width_active, 4); /* 8x */
	CU_ASSERT_EQUAL(pi.speed_active, 0);
	CU_ASSERT_EQUAL(pi.speed_enabled, 7);
	CU_ASSERT_EQUAL(pi.mtu_cap, 5);
	CU_ASSERT_EQUAL(pi.capmask2,
			WIRE_CAP2_SPEED_NDR | WIRE_CAP2_SPEED_HDR | WIRE_CAP2_WIDTH_2X);
	CU_ASSERT_EQUAL(pi.speed_ext_active, 8);
	CU_ASSERT_EQUAL(pi.speed_ext_supported, 0xc);
	CU_ASSERT_EQUAL(pi.speed_ext_enabled, 0xc);
	CU_ASSERT_EQUAL(pi.speed_ext2_active, 0);
	CU_ASSERT_EQUAL(pi.speed_ext2_supported, 0);
	CU_ASSERT_EQUAL(pi.speed_ext2_enabled, 0);
	memset(out, 0, sizeof(out));
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(wire_portinfo_encode_ext(&pi, out, sizeof(out)), 0);
	CU_ASSERT(memcmp(out, ndr, sizeof(out)) == 0);

	/* an XDR port, 2x of 2x/4x; the extended fields name no speed, the *2 ones XDR */
	golden_pi_base(xdr, 0x12, 0x12, 0x10, 0x07);
	xdr[56] = 0x29; /* reserved 0, LinkSpeedExtActive2 01, Supported2 01, Enabled2 001 */
	xdr[57] = 0x00; /* LinkRoundTripLatency 0x000123 */
	xdr[58] = 0x01;
	xdr[59] = 0x23;
	xdr[60] = 0x1c; /* CapabilityMask2: XDR (12), ExtSpeeds2 (11), NDR (10), */
	xdr[61] = 0x30; /* HDR, 2x */
	xdr[62] = 0x0f; /* LinkSpeedExtActive 0, LinkSpeedExtSupported FDR EDR HDR NDR */
	xdr[63] = 0xe8; /* 3 reserved bits set, LinkSpeedExtEnabled 8 (NDR) */
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(xdr, sizeof(xdr), &pi), 0);
	CU_ASSERT_EQUAL(pi.width_active, 16); /* 2x */
	CU_ASSERT_EQUAL(pi.capmask2, 0x1c30);
	CU_ASSERT(pi.capmask2 & WIRE_CAP2_EXT_SPEEDS2);
	CU_ASSERT(pi.capmask2 & WIRE_CAP2_SPEED_XDR);
	CU_ASSERT_EQUAL(pi.speed_ext_active, 0);
	CU_ASSERT_EQUAL(pi.speed_ext_supported, 0xf);
	CU_ASSERT_EQUAL(pi.speed_ext_enabled, 8);
	CU_ASSERT_EQUAL(pi.speed_ext2_active, 1);
	CU_ASSERT_EQUAL(pi.speed_ext2_supported, 1);
	CU_ASSERT_EQUAL(pi.speed_ext2_enabled, 1);
	/* encode_ext writes the fields, keeps the reserved bits and the latency */
	memcpy(out, xdr, sizeof(out));
	pi.speed_ext2_enabled = 0;
	pi.speed_ext_enabled = 0x1f;
	CU_ASSERT_EQUAL(wire_portinfo_encode_ext(&pi, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(out[56], 0x28);
	CU_ASSERT_EQUAL(out[63], 0xff);
	CU_ASSERT(memcmp(out, xdr, 56) == 0 && memcmp(out + 57, xdr + 57, 6) == 0);
	/* encode leaves bytes 54-63 alone: a Set sends back what the Get read */
	memcpy(out, xdr, sizeof(out));
	CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, out, sizeof(out)), 0);
	CU_ASSERT(memcmp(out + 54, xdr + 54, 10) == 0);
	/* a short image has no extended speeds; encode_ext wants a whole one */
	CU_ASSERT_EQUAL_FATAL(wire_portinfo_decode(xdr, 63, &pi), 0);
	CU_ASSERT_EQUAL(pi.capmask2, 0);
	CU_ASSERT_EQUAL(pi.speed_ext2_active, 0);
	CU_ASSERT_EQUAL(pi.speed_ext_supported, 0);
	CU_ASSERT_EQUAL(wire_portinfo_encode_ext(&pi, out, 63), -ENOSPC);
	CU_ASSERT_EQUAL(WIRE_PI_MOD_EXT_SPEEDS, 1u << 31);
}

/* SwitchInfo (14.2.5.4), every field struct wire_switchinfo holds. */
static void test_switchinfo_golden(void)
{
	static const uint8_t golden[20] = {
	    0xc0, 0x00, /* LinearFDBCap */
	    0x01, 0x02, /* RandomFDBCap */
	    0x04, 0x00, /* MulticastFDBCap */
	    0x01, 0xa3, /* LinearFDBTop */
	    0x07,	/* DefaultPort */
	    0x08,	/* DefaultMulticastPrimaryPort */
	    0x09,	/* DefaultMulticastNotPrimaryPort */
	    0x9c, /* LifeTimeValue 19, PortStateChange 1, OptimizedSLtoVLMappingProgramming 0 */
	    0x02, 0x03, /* LIDsPerPort */
	    0x00, 0x20, /* PartitionEnforcementCap */
	    0xa8, /* Inbound 1, Outbound 0, FilterRawInbound 1, FilterRawOutbound 0, EnhancedPort0 1
		   */
	    0x00, /* reserved */
	    0xc0, 0xff, /* MulticastFDBTop */
	};
	struct wire_switchinfo si;
	uint8_t data[64];

	CU_ASSERT_EQUAL_FATAL(wire_switchinfo_decode(golden, sizeof(golden), &si), 0);
	CU_ASSERT_EQUAL(si.lft_cap, 0xc000);
	CU_ASSERT_EQUAL(si.rft_cap, 0x0102);
	CU_ASSERT_EQUAL(si.mft_cap, 0x0400);
	CU_ASSERT_EQUAL(si.lft_top, 0x01a3);
	CU_ASSERT_EQUAL(si.def_port, 7);
	CU_ASSERT_EQUAL(si.def_mcast_prim, 8);
	CU_ASSERT_EQUAL(si.def_mcast_not_prim, 9);
	CU_ASSERT_EQUAL(si.lifetime, 19);
	CU_ASSERT_EQUAL(si.port_state_change, 1);
	CU_ASSERT_EQUAL(si.lids_per_port, 0x0203);
	CU_ASSERT_EQUAL(si.partition_enf_cap, 0x20);
	CU_ASSERT(si.enf_in_cap && !si.enf_out_cap && si.filter_raw_in_cap &&
		  !si.filter_raw_out_cap && si.enhanced_port0);
	CU_ASSERT_EQUAL(si.mft_top, 0xc0ff);
	memset(data, 0, sizeof(data));
	CU_ASSERT_EQUAL(wire_switchinfo_encode(&si, data, sizeof(data)), 0);
	CU_ASSERT(memcmp(data, golden, sizeof(golden)) == 0);
}

/* A generic Notice's fixed part (13.4.8.2): bytes 0..9. */
static void notice_hdr(uint8_t d[64], uint8_t type, uint32_t producer, uint16_t trap, uint16_t lid)
{
	memset(d, 0, 64);
	d[0] = (uint8_t)(0x80 | type); /* IsGeneric, Type */
	d[1] = (uint8_t)(producer >> 16);
	d[2] = (uint8_t)(producer >> 8);
	d[3] = (uint8_t)producer;
	d[4] = (uint8_t)(trap >> 8);
	d[5] = (uint8_t)trap;
	d[6] = (uint8_t)(lid >> 8);
	d[7] = (uint8_t)lid;
}

/* Decode the image, check, encode what was decoded: the same bytes. */
static void notice_roundtrip(const uint8_t d[64], struct wire_notice *n)
{
	uint8_t back[64];

	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, 64, n), 0);
	memset(back, 0xee, sizeof(back));
	CU_ASSERT_EQUAL(wire_notice_encode(n, back, sizeof(back)), 0);
	for (size_t i = 0; i < sizeof(back); i++) {
		if (back[i] != d[i]) {
			fprintf(stderr, "\n  trap %u byte %zu: 0x%02x, the IBA's 0x%02x",
				n->trap_num, i, back[i], d[i]);
			CU_FAIL("Notice differs from the golden image");
		}
	}
}

/*
 * The SM traps' DataDetails (14.2.5.1), from byte 10 of the Notice, as the
 * IBA lays them out (and OpenSM's ib_mad_notice_attr_t and the kernel's
 * ib_mad_notice_attr read them).
 */
static void test_notice_golden(void)
{
	struct wire_notice n;
	uint8_t d[64];

	/* 128: LIDADDR of the switch at DataDetails 0; Toggle 1 and Count 0x123 */
	notice_hdr(d, 1, 2, 128, 7);
	d[8] = 0x81;
	d[9] = 0x23;
	d[10] = 0x00;
	d[11] = 0x07;
	notice_roundtrip(d, &n);
	CU_ASSERT(n.generic && n.type == 1 && n.producer == 2 && n.trap_num == 128);
	CU_ASSERT(n.issuer_lid == 7 && n.toggle && n.count == 0x123 && n.lid == 7);

	/* 129: reserved 16, LIDADDR, PORTNO */
	notice_hdr(d, 1, 2, 129, 9);
	d[12] = 0x01;
	d[13] = 0x02;
	d[14] = 17;
	notice_roundtrip(d, &n);
	CU_ASSERT(n.lid == 0x0102 && n.port == 17);

	/* 144: reserved 16, LIDADDR, 16 bits, CAPABILITYMASK at DataDetails 6 */
	notice_hdr(d, 4, 1, 144, 0x33);
	d[12] = 0x00;
	d[13] = 0x33;
	d[16] = 0x02;
	d[17] = 0x51;
	d[18] = 0x0a;
	d[19] = 0x6a;
	notice_roundtrip(d, &n);
	CU_ASSERT(n.lid == 0x33 && n.capmask == 0x02510a6a);

	/* 145: reserved 16, LIDADDR, reserved 16, SYSTEMIMAGEGUID at DataDetails 6 */
	notice_hdr(d, 4, 1, 145, 4);
	d[13] = 4;
	for (int i = 0; i < 8; i++)
		d[16 + i] = (uint8_t)(0x11 * (i + 1));
	notice_roundtrip(d, &n);
	CU_ASSERT(n.lid == 4 && n.sys_guid == 0x1122334455667788ULL);

	/* 256: reserved 16, LIDADDR, DRSLID, METHOD, reserved 8, ATTRIBUTEID,
	 * ATTRIBUTEMODIFIER, MKEY */
	notice_hdr(d, 2, 1, 256, 5);
	d[13] = 5;
	d[15] = 9;
	d[16] = 0x02;
	d[18] = 0x00;
	d[19] = 0x15;
	d[20] = 0x12;
	d[23] = 0x03;
	d[24] = 0xde;
	d[31] = 0xad;
	notice_roundtrip(d, &n);
	CU_ASSERT(n.lid == 5 && n.lid2 == 9 && n.method == 2 && n.attr_id == 0x15);
	CU_ASSERT(n.attr_mod == 0x12000003 && n.key == 0xde000000000000adULL);

	/* 257-259: reserved 16, LIDADDR1, LIDADDR2, KEY */
	for (unsigned t = 257; t <= 259; t++) {
		notice_hdr(d, 2, 1, (uint16_t)t, 5);
		d[13] = 5;
		d[15] = 6;
		d[16] = 0x80;
		d[18] = 0x7f;
		d[19] = 0xff;
		notice_roundtrip(d, &n);
		CU_ASSERT(n.lid == 5 && n.lid2 == 6 && n.key == 0x80007fff);
	}

	/* a trap without details of ours, a vendor notice: the fixed part only */
	notice_hdr(d, 4, 1, 64, 3);
	notice_roundtrip(d, &n);
	CU_ASSERT(n.lid == 0);
	notice_hdr(d, 1, 0x0002c9, 0x1234, 5);
	d[0] = 0x01; /* not generic: VendorID, DeviceID */
	notice_roundtrip(d, &n);
	CU_ASSERT(!n.generic && n.producer == 0x0002c9 && n.trap_num == 0x1234);

	CU_ASSERT_EQUAL(wire_notice_encode(&n, d, 63), -ENOSPC);
}

/* The SA's Notice (80 bytes with the IssuerGID) and ClassPortInfo (13.4.8.1). */
static void test_sa_notice_cpi_golden(void)
{
	static const uint8_t cpi_golden[72] = {
	    0x01,	       /* BaseVersion */
	    0x02,	       /* ClassVersion */
	    0x22,	 0x00, /* CapabilityMask */
	    0x00,	 0x00,	      0x02,
	    0x12,	 /* CapabilityMask2 (27 bits) 0x10, RespTimeValue 18 */
	    [33] = 0x12, /* RedirectQP (bytes 33-35, after 8 reserved bits) */
	    [34] = 0x34, [35] = 0x56, [36] = 0x80, /* RedirectQ_Key */
	    [37] = 0x01, [68] = 0x80,		   /* TrapQ_Key */
	    [71] = 0x02,
	};
	struct sa_wire_notice sn;
	struct sa_wire_cpi cpi;
	uint8_t d[80], back[80];

	notice_hdr(d, 4, 4, 64, 1);
	memset(d + 64, 0, 16);
	d[8] = 0x7f; /* Toggle 0, Count 0x7fff */
	d[9] = 0xff;
	for (int i = 0; i < 54; i++)
		d[10 + i] = (uint8_t)i;
	for (int i = 0; i < 16; i++)
		d[64 + i] = (uint8_t)(0xf0 + i);
	CU_ASSERT_EQUAL_FATAL(sa_wire_notice_decode(d, sizeof(d), &sn), 0);
	CU_ASSERT(sn.is_generic && sn.type == 4 && sn.producer == 4 && sn.trap_num == 64);
	CU_ASSERT(sn.issuer_lid == 1 && !sn.toggle && sn.count == 0x7fff);
	CU_ASSERT(sn.data[0] == 0 && sn.data[53] == 53 && sn.issuer_gid[15] == 0xff);
	CU_ASSERT_EQUAL(sa_wire_notice_encode(&sn, back, sizeof(back)), 80);
	CU_ASSERT(memcmp(back, d, sizeof(d)) == 0);

	CU_ASSERT_EQUAL_FATAL(sa_wire_cpi_decode(cpi_golden, sizeof(cpi_golden), &cpi), 0);
	CU_ASSERT(cpi.base_version == 1 && cpi.class_version == 2 && cpi.cap_mask == 0x2200);
	CU_ASSERT(cpi.cap_mask2 == 0x10 && cpi.resp_time_value == 18);
	CU_ASSERT(cpi.redirect_qp == 0x123456 && cpi.redirect_qkey == 0x80010000);
	CU_ASSERT_EQUAL(cpi.trap_qkey, 0x80000002);
	memset(back, 0xee, sizeof(back));
	CU_ASSERT_EQUAL(sa_wire_cpi_encode(&cpi, back, sizeof(back)), 72);
	CU_ASSERT(memcmp(back, cpi_golden, sizeof(cpi_golden)) == 0);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"SMP round trip, LID-routed", test_smp_roundtrip_lid},
	    {"SMP round trip, directed", test_smp_roundtrip_dr},
	    {"SMP init", test_smp_init},
	    {"SMP encode errors", test_smp_encode_errors},
	    {"golden images, encode", test_golden_encode},
	    {"golden images, decode", test_golden_decode},
	    {"truncation at every length", test_smp_truncation},
	    {"bad version/class", test_smp_bad_header},
	    {"hop count/pointer validation", test_smp_hop_validation},
	    {"DR paths preserved", test_smp_paths_preserved},
	    {"DR path parse/format", test_dr_path_parse_format},
	    {"NodeInfo", test_nodeinfo},
	    {"NodeDescription", test_nodedesc},
	    {"PortInfo", test_portinfo},
	    {"SwitchInfo", test_switchinfo},
	    {"LinearForwardingTable", test_lft_block},
	    {"MulticastForwardingTable", test_mft_block},
	    {"P_KeyTable", test_pkey_block},
	    {"SMInfo", test_sminfo},
	    {"trap 144 notice", test_trap144},
	    {"attribute inside an SMP", test_attr_in_smp},
	    {"MAD header, golden image", test_hdr_golden},
	    {"MAD header of SMPs", test_hdr_smp},
	    {"MAD header truncation at every length", test_hdr_truncation},
	    {"field bits", test_field_bits},
	    {"field get/set/bytes", test_field_get_set},
	    {"field tables over a host struct", test_field_map},
	    {"PortInfo, golden image", test_portinfo_golden},
	    {"PortInfo extended speeds, golden images (NDR, XDR)", test_portinfo_ext_golden},
	    {"SwitchInfo, golden image", test_switchinfo_golden},
	    {"Notice and SM traps, golden images", test_notice_golden},
	    {"SA Notice and ClassPortInfo, golden images", test_sa_notice_cpi_golden},
	    {NULL, NULL},
	};

	return testutil_run("wire", cases);
}

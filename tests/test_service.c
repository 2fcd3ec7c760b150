/*
 * Unit tests of the codecs services and subscriptions use (mad/sa_wire.c):
 * ServiceRecord, InformInfo, InformInfoRecord and Notice.
 */
#include <errno.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <infiniband/mad.h>

#include "mad/sa_wire.h"
#include "tests/testutil.h"

/* ---- the codecs ------------------------------------------------------------------- */

static void test_codecs(void)
{
	const struct sa_wire_rec *sr = &sa_wire_service_record, *ii = &sa_wire_inform_info;
	const struct sa_wire_rec *iir = &sa_wire_inform_info_record;
	uint8_t r[SA_WIRE_REC_MAX] = {0}, q[SA_WIRE_REC_MAX] = {0}, buf[96];
	struct sa_wire_notice n = {0}, d;

	/* component counts of OpenSM's IB_SR_COMPMASK_* and IB_IIR_COMPMASK_* */
	CU_ASSERT_EQUAL(sr->n_comps, 37);
	CU_ASSERT_EQUAL(sr->size, 176);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(sr), 176);
	CU_ASSERT_EQUAL(ii->n_comps, 13);
	CU_ASSERT_EQUAL(ii->size, 36);
	CU_ASSERT_EQUAL(iir->n_comps, 16);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(iir), 64);
	CU_ASSERT(sa_wire_mask_valid(sr, 1ULL << 36));
	CU_ASSERT(!sa_wire_mask_valid(sr, 1ULL << 37));

	/* ServiceRecord golden offsets: ID 0, GID 8, P_Key 24, lease 28, key 32, name 48,
	 * data8 112, data16 128, data32 144, data64 160 */
	CU_ASSERT_EQUAL(sa_wire_comp_set(sr, SA_SR_ID, r, 0x1122334455667788ULL), 0);
	CU_ASSERT(r[0] == 0x11 && r[7] == 0x88);
	sa_wire_comp_set(sr, SA_SR_PKEY, r, 0xffff);
	CU_ASSERT(r[24] == 0xff && r[25] == 0xff);
	sa_wire_comp_set(sr, SA_SR_LEASE, r, 0x01020304);
	CU_ASSERT(r[28] == 1 && r[31] == 4);
	sa_wire_comp_set(sr, SA_SR_DATA8 + 15, r, 0xab);
	CU_ASSERT_EQUAL(r[127], 0xab);
	sa_wire_comp_set(sr, SA_SR_DATA16 + 7, r, 0xcdef);
	CU_ASSERT(r[142] == 0xcd && r[143] == 0xef);
	sa_wire_comp_set(sr, SA_SR_DATA32 + 3, r, 0x01020304);
	CU_ASSERT(r[156] == 1 && r[159] == 4);
	sa_wire_comp_set(sr, SA_SR_DATA64 + 1, r, 0x0102030405060708ULL);
	CU_ASSERT(r[168] == 1 && r[175] == 8);
	memcpy(r + SA_SR_NAME_OFFS, "svc", 3);
	memcpy(q, r, sizeof(q));
	CU_ASSERT(sa_wire_match(sr, q, r, 1u << SA_SR_NAME | 1ULL << (SA_SR_DATA64 + 1)));
	q[SA_SR_NAME_OFFS + 63] = 1; /* the name is all 64 bytes */
	CU_ASSERT(!sa_wire_match(sr, q, r, 1u << SA_SR_NAME));
	q[8] = 1; /* ServiceGID */
	CU_ASSERT(!sa_wire_match(sr, q, r, 1u << SA_SR_GID));
	q[26] = 1; /* the reserved component never decides */
	CU_ASSERT(sa_wire_match(sr, q, r, 1u << 3));

	/* InformInfo: QPN the top 24 bits of bytes 28..31, RespTimeValue the low 5, ProducerType
	 * bytes 33..35; in the record at byte 24 */
	memset(r, 0, sizeof(r));
	sa_wire_comp_set(ii, SA_II_QPN, r, 0x123456);
	sa_wire_comp_set(ii, SA_II_RESP_TIME, r, 0x13);
	sa_wire_comp_set(ii, SA_II_PRODUCER, r, 0xaabbcc);
	sa_wire_comp_set(ii, SA_II_TRAP, r, 65);
	sa_wire_comp_set(ii, SA_II_LID_BEGIN, r, 0xffff);
	CU_ASSERT(r[28] == 0x12 && r[29] == 0x34 && r[30] == 0x56 && r[31] == 0x13);
	CU_ASSERT(r[33] == 0xaa && r[35] == 0xcc && r[27] == 65 && r[16] == 0xff);
	memset(q, 0, sizeof(q));
	memcpy(q + SA_IIR_II_OFFS, r, SA_II_SIZE);
	CU_ASSERT_EQUAL(sa_wire_comp_get(iir, SA_IIR_II + SA_II_QPN, q), 0x123456);
	CU_ASSERT_EQUAL(sa_wire_comp_get(iir, SA_IIR_II + SA_II_TRAP, q), 65);
	CU_ASSERT_EQUAL(sa_wire_comp_get(iir, SA_IIR_II + SA_II_PRODUCER, q), 0xaabbcc);
	sa_wire_comp_set(iir, SA_IIR_ENUM, q, 7);
	CU_ASSERT_EQUAL(q[17], 7);

	/* Notice: golden bytes, round trip, truncation */
	n.is_generic = true;
	n.type = 3;
	n.producer = 4;
	n.trap_num = 65;
	n.issuer_lid = 0x0102;
	n.toggle = true;
	n.count = 0x1234;
	n.data[SA_WIRE_NOTICE_GID_OFFS] = 0xfe;
	n.data[53] = 0x99;
	n.issuer_gid[15] = 0xef;
	CU_ASSERT_EQUAL(sa_wire_notice_encode(&n, buf, sizeof(buf)), 80);
	CU_ASSERT_EQUAL(buf[0], 0x83);
	CU_ASSERT(buf[1] == 0 && buf[2] == 0 && buf[3] == 4);
	CU_ASSERT(buf[4] == 0 && buf[5] == 65 && buf[6] == 1 && buf[7] == 2);
	CU_ASSERT(buf[8] == (0x80 | 0x12) && buf[9] == 0x34);
	CU_ASSERT(buf[16] == 0xfe && buf[63] == 0x99 && buf[79] == 0xef);
	CU_ASSERT_EQUAL(sa_wire_notice_decode(buf, 80, &d), 0);
	CU_ASSERT(d.is_generic && d.type == 3 && d.producer == 4 && d.trap_num == 65);
	CU_ASSERT(d.issuer_lid == 0x0102 && d.toggle && d.count == 0x1234);
	CU_ASSERT_EQUAL(memcmp(d.data, n.data, sizeof(d.data)), 0);
	CU_ASSERT_EQUAL(memcmp(d.issuer_gid, n.issuer_gid, sizeof(d.issuer_gid)), 0);
	for (size_t len = 0; len < 80; len++)
		CU_ASSERT_EQUAL(sa_wire_notice_decode(buf, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_notice_encode(&n, buf, 79), -ENOSPC);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"codecs: ServiceRecord, InformInfo(Record), Notice", test_codecs},
	    {NULL, NULL},
	};

	return testutil_run("service", cases);
}

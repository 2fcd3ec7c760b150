/*
 * Unit tests of the SA codec (mad/sa_wire.c) and server (sa/sa.c,
 * sa/records.c): SA MADs decoded and encoded, component masks matched,
 * queries answered from a snapshot through a fake send that keeps every
 * answer, and every kind of bad query answered with its status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>
#include <infiniband/mad.h>

#include "fabric/mft.h"
#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "routing/routing.h"
#include "sa/sa.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

/* ---- the codec ------------------------------------------------------------------ */

static void test_sa_mad_round_trip(void)
{
	struct sa_wire_mad m = {0}, d;
	uint8_t buf[256];

	m.hdr.method = SA_METHOD_GET_TABLE;
	m.hdr.tid = 0x1122334455667788ULL;
	m.hdr.attr_id = SA_ATTR_NODE_RECORD;
	m.hdr.attr_mod = 7;
	m.hdr.status = 0x0300;
	m.rmpp_version = 1;
	m.rmpp_type = SA_RMPP_DATA;
	m.rmpp_resp_time = 0x12;
	m.rmpp_flags = 7;
	m.rmpp_data1 = 1;
	m.rmpp_data2 = 132;
	m.sm_key = 0xa5a5a5a5deadbeefULL;
	m.attr_offset = 14;
	m.comp_mask = 0x8001;
	for (int i = 0; i < SA_WIRE_DATA_SIZE; i++)
		m.data[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(sa_wire_encode(&m, buf, sizeof(buf)), 256);
	/* golden bytes of the headers (IBA 13.4.2, 13.6.2, 15.2.1) */
	CU_ASSERT_EQUAL(buf[0], 1);
	CU_ASSERT_EQUAL(buf[1], 0x03);
	CU_ASSERT_EQUAL(buf[2], 2);
	CU_ASSERT_EQUAL(buf[3], 0x12);
	CU_ASSERT_EQUAL(buf[4], 0x03);
	CU_ASSERT_EQUAL(buf[8], 0x11);
	CU_ASSERT_EQUAL(buf[15], 0x88);
	CU_ASSERT_EQUAL(buf[16], 0x00);
	CU_ASSERT_EQUAL(buf[17], 0x11);
	CU_ASSERT_EQUAL(buf[23], 7);
	CU_ASSERT_EQUAL(buf[24], 1);
	CU_ASSERT_EQUAL(buf[25], 1);
	CU_ASSERT_EQUAL(buf[26], 0x12 << 3 | 7);
	CU_ASSERT_EQUAL(buf[31], 1);
	CU_ASSERT_EQUAL(buf[35], 132);
	CU_ASSERT_EQUAL(buf[36], 0xa5);
	CU_ASSERT_EQUAL(buf[43], 0xef);
	CU_ASSERT_EQUAL(buf[45], 14);
	CU_ASSERT_EQUAL(buf[54], 0x80);
	CU_ASSERT_EQUAL(buf[55], 0x01);
	CU_ASSERT_EQUAL(buf[56], 0);
	CU_ASSERT_EQUAL(buf[255], 199);
	CU_ASSERT_EQUAL(sa_wire_decode(buf, sizeof(buf), &d), 0);
	CU_ASSERT_EQUAL(d.hdr.class_version, 2);
	CU_ASSERT(d.hdr.tid == m.hdr.tid && d.sm_key == m.sm_key && d.comp_mask == m.comp_mask);
	CU_ASSERT(d.rmpp_flags == 7 && d.rmpp_resp_time == 0x12 && d.rmpp_data2 == 132);
	CU_ASSERT_EQUAL(d.attr_offset, 14);
	CU_ASSERT_EQUAL(memcmp(d.data, m.data, sizeof(d.data)), 0);
	/* truncation: every length short of the SA header is refused */
	for (size_t len = 0; len < SA_WIRE_HDR_SIZE; len++)
		CU_ASSERT_EQUAL(sa_wire_decode(buf, len, &d), -EBADMSG);
	/* a short MAD with the headers: the missing data reads as zero */
	CU_ASSERT_EQUAL(sa_wire_decode(buf, 60, &d), 0);
	CU_ASSERT(d.data[3] == 3 && d.data[4] == 0 && d.data[199] == 0);
	CU_ASSERT_EQUAL(sa_wire_decode(NULL, 256, &d), -EBADMSG);
	buf[1] = 0x81; /* not the SA class */
	CU_ASSERT_EQUAL(sa_wire_decode(buf, sizeof(buf), &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_encode(&m, buf, 255), -ENOSPC);
}

static void test_bits(void)
{
	uint8_t b[8] = {0};

	sa_wire_bits_set(b, 4, 12, 0xabc);
	CU_ASSERT(b[0] == 0x0a && b[1] == 0xbc);
	CU_ASSERT_EQUAL(sa_wire_bits_get(b, 4, 12), 0xabc);
	CU_ASSERT_EQUAL(sa_wire_bits_get(b, 0, 8), 0x0a);
	sa_wire_bits_set(b, 0, 64, 0x0102030405060708ULL);
	CU_ASSERT(b[0] == 1 && b[7] == 8);
	CU_ASSERT_EQUAL(sa_wire_bits_get(b, 0, 64), 0x0102030405060708ULL);
	sa_wire_bits_set(b, 9, 3, 0);
	CU_ASSERT_EQUAL(b[1], 0x02 & ~0x70);
}

static void test_records_and_masks(void)
{
	const struct sa_wire_rec *nr = &sa_wire_node_record, *pir = &sa_wire_portinfo_record;
	uint8_t q[SA_WIRE_REC_MAX] = {0}, r[SA_WIRE_REC_MAX] = {0};

	/* component counts as the IBA (and OpenSM's IB_*_COMPMASK_*) number them */
	CU_ASSERT_EQUAL(nr->n_comps, 15);
	CU_ASSERT_EQUAL(pir->n_comps, 58);
	CU_ASSERT_EQUAL(sa_wire_link_record.n_comps, 4);
	CU_ASSERT_EQUAL(sa_wire_sminfo_record.n_comps, 7);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(nr), 112);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(pir), 72);
	CU_ASSERT(sa_wire_mask_valid(nr, 0x7fff));
	CU_ASSERT(!sa_wire_mask_valid(nr, 0x8000));
	CU_ASSERT(sa_wire_mask_valid(pir, 1ULL << 57));
	CU_ASSERT(!sa_wire_mask_valid(pir, 1ULL << 58));

	/* NodeRecord: LID (0), NodeGUID (7), NodeDescription (14) */
	mad_set_field(r, 0, IB_SA_NR_LID_F, 42);
	mad_set_field64(r, 0, IB_SA_NR_GUID_F, 0x1234);
	mad_set_array(r, 0, IB_SA_NR_NODEDESC_F, (char[64]){"host-7"});
	memcpy(q, r, nr->size);
	CU_ASSERT_EQUAL(sa_wire_comp_get(nr, 0, r), 42);
	CU_ASSERT_EQUAL(sa_wire_comp_get(nr, 7, r), 0x1234);
	CU_ASSERT(sa_wire_match(nr, q, r, 1u << 0 | 1u << 7 | 1u << 14));
	mad_set_field(q, 0, IB_SA_NR_LID_F, 43);
	CU_ASSERT(!sa_wire_match(nr, q, r, 1u << 0));
	CU_ASSERT(sa_wire_match(nr, q, r, 1u << 7)); /* LID not in the mask */
	CU_ASSERT(sa_wire_match(nr, q, r, 0));
	mad_set_array(q, 0, IB_SA_NR_NODEDESC_F, (char[64]){"host-8"});
	CU_ASSERT(!sa_wire_match(nr, q, r, 1u << 14));
	q[2] = 0xff; /* the reserved component never decides */
	CU_ASSERT(sa_wire_match(nr, q, r, 1u << 1 | 1u << 7));

	/* PortInfoRecord: own layout (EndportLID 0, PortNum 1), libibmad's PortInfo at byte 4 */
	memset(q, 0, sizeof(q));
	memset(r, 0, sizeof(r));
	CU_ASSERT_EQUAL(sa_wire_comp_set(pir, 0, r, 0x1234), 0);
	CU_ASSERT_EQUAL(sa_wire_comp_set(pir, 1, r, 5), 0);
	CU_ASSERT(r[0] == 0x12 && r[1] == 0x34 && r[2] == 5);
	mad_set_field(r, 4, IB_PORT_LID_F, 77);
	CU_ASSERT_EQUAL(sa_wire_comp_get(pir, 5, r), 77); /* BaseLID is component 5 */
	mad_set_field(r, 4, IB_PORT_STATE_F, 4);
	CU_ASSERT_EQUAL(sa_wire_comp_get(pir, 15, r), 4); /* PortState is 15 */
	/* capability masks match as sets */
	mad_set_field(r, 4, IB_PORT_CAPMASK_F, 0x0250);
	mad_set_field(q, 4, IB_PORT_CAPMASK_F, 0x0010);
	CU_ASSERT(sa_wire_match(pir, q, r, 1u << 7));
	mad_set_field(q, 4, IB_PORT_CAPMASK_F, 0x0012);
	CU_ASSERT(!sa_wire_match(pir, q, r, 1u << 7));
	CU_ASSERT_EQUAL(sa_wire_comp_set(pir, 99, r, 1), -EINVAL);
	CU_ASSERT_EQUAL(sa_wire_comp_get(pir, 99, r), 0);
}

/* ---- the server -------------------------------------------------------------- */

#define MAX_ANSWERS 16

struct fake {
	unsigned n;
	struct sa_wire_mad ans[MAX_ANSWERS];
	size_t len[MAX_ANSWERS];
	struct madio_dest to[MAX_ANSWERS];
};

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct fake *fk = ctx;

	CU_ASSERT_FATAL(fk->n < MAX_ANSWERS);
	CU_ASSERT_EQUAL(sa_wire_decode(mad, len, &fk->ans[fk->n]), 0);
	fk->len[fk->n] = len;
	fk->to[fk->n++] = *to;
	return 0;
}

static void fake_sm_info(void *ctx, struct sa_sm_info *ret)
{
	*ret = (struct sa_sm_info){
	    .port_guid = 0xabcdef, .sm_key = 0x77, .act_count = 9, .priority = 5, .state = 3};
}

static const char net[] =
    "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
    "Switch 8 \"S2\"\n[1] \"H2\"[2]\n[2] \"H3\"[1]\n[3] \"S1\"[3]\n\n"
    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 2 \"H2\"\n[1] \"S1\"[2]\n[2] \"S2\"[1]\n\n"
    "Hca 1 \"H3\"\n[1] \"S2\"[2]\n";

struct env {
	struct fake fk;
	struct sa *sa;
	struct snapshot *snap;
	struct madio_addr from;
};

static void env_init(struct env *e)
{
	struct fabric *f = testutil_load_text(net);
	struct routes *r = NULL;
	char why[128];

	memset(e, 0, sizeof(*e));
	testutil_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &e->snap), 0);
	e->sa = sa_new(NULL, &(struct sa_ops){fake_send, fake_sm_info, &e->fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->sa);
	e->from = (struct madio_addr){.slid = 1, .qpn = 1, .qkey = 0x80010000, .sl = 0};
}

static void env_fini(struct env *e)
{
	sa_free(e->sa);
	snapshot_free(e->snap);
}

/* Send a query; returns the answer (the last one sent), NULL when none. */
static struct sa_wire_mad *ask(struct env *e, uint8_t method, uint16_t attr, uint64_t mask,
			       const uint8_t *rec, size_t rec_len)
{
	struct sa_wire_mad q = {0};
	uint8_t buf[256];
	struct wire_mad_hdr h;
	unsigned before = e->fk.n;

	q.hdr.method = method;
	q.hdr.attr_id = attr;
	q.hdr.tid = 0x5000 + before;
	q.comp_mask = mask;
	if (rec)
		memcpy(q.data, rec, rec_len < sizeof(q.data) ? rec_len : sizeof(q.data));
	sa_wire_encode(&q, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e->sa, &e->from, &h, buf, sizeof(buf));
	if (e->fk.n == before)
		return NULL;
	CU_ASSERT_EQUAL(e->fk.ans[e->fk.n - 1].hdr.tid, 0x5000 + before);
	return &e->fk.ans[e->fk.n - 1];
}

static void test_server_records(void)
{
	struct env e;
	const struct fabric *f;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	struct sa_wire_mad *a;
	uint32_t h2;
	uint16_t lid;

	env_init(&e);
	/* no snapshot yet: the SA is not ready */
	a = ask(&e, SA_METHOD_GET, SA_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_NO_RESOURCES);
	sa_publish(e.sa, e.snap);
	f = e.snap->fabric;
	h2 = testutil_find_desc(f, "H2");
	lid = f->nodes[h2].ports[2].lid;

	/* Get NodeRecord by LID: H2's port 2 */
	mad_set_field(rec, 0, IB_SA_NR_LID_F, lid);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_NODE_RECORD, 1, rec, sizeof(rec));
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->attr_offset, 14);
	CU_ASSERT_EQUAL(mad_get_field(a->data, 0, IB_SA_NR_LID_F), lid);
	CU_ASSERT(mad_get_field64(a->data, 0, IB_SA_NR_GUID_F) == f->nodes[h2].guid);
	CU_ASSERT(mad_get_field64(a->data, 0, IB_SA_NR_PORT_GUID_F) == f->nodes[h2].ports[2].guid);
	CU_ASSERT_EQUAL(mad_get_field(a->data, 0, IB_SA_NR_LOCAL_PORT_F), 2);
	CU_ASSERT_STRING_EQUAL((char *)a->data + 44, "H2");
	CU_ASSERT_EQUAL(e.fk.to[e.fk.n - 1].dlid, 1);
	CU_ASSERT_EQUAL(e.fk.to[e.fk.n - 1].qpn, 1);
	CU_ASSERT_EQUAL(e.fk.to[e.fk.n - 1].qkey, 0x80010000u);
	CU_ASSERT_EQUAL(a->sm_key, 0);

	/* by NodeGUID: H2 has two ports, so Get is ambiguous and GetTable gives both */
	memset(rec, 0, sizeof(rec));
	mad_set_field64(rec, 0, IB_SA_NR_GUID_F, f->nodes[h2].guid);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_NODE_RECORD, 1u << 7, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_TOO_MANY_RECORDS);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_NODE_RECORD, 1u << 7, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_TABLE_RESP);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	/* one MAD holds one NodeRecord (112 bytes of 200): cut to it, without RMPP */
	CU_ASSERT_EQUAL(e.fk.len[e.fk.n - 1], 56 + 112);
	CU_ASSERT_EQUAL(a->rmpp_type, SA_RMPP_DATA);
	CU_ASSERT_EQUAL(a->rmpp_flags, 7);
	CU_ASSERT_EQUAL(a->rmpp_data1, 1);
	CU_ASSERT_EQUAL(a->rmpp_data2, 20 + 112);

	/* nothing matches: Get says so, GetTable answers an empty table */
	mad_set_field64(rec, 0, IB_SA_NR_GUID_F, 0x9999);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_NODE_RECORD, 1u << 7, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_NO_RECORDS);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_NODE_RECORD, 1u << 7, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->attr_offset, 0);
	CU_ASSERT_EQUAL(e.fk.len[e.fk.n - 1], 56);

	/* LinkRecords from S1 (FromLID): its 3 links, each to the right LID */
	memset(rec, 0, sizeof(rec));
	uint32_t s1 = testutil_find_desc(f, "S1");
	sa_wire_bits_set(rec, 0, 16, f->nodes[s1].ports[0].lid);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_LINK_RECORD, 1, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->attr_offset, 1);
	CU_ASSERT_EQUAL(e.fk.len[e.fk.n - 1], 56 + 3 * 8);
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *lr = a->data + 8 * i;
		uint8_t port = (uint8_t)sa_wire_bits_get(lr, 16, 8);
		const struct port *pt = &f->nodes[s1].ports[port];

		CU_ASSERT_EQUAL(sa_wire_bits_get(lr, 0, 16), f->nodes[s1].ports[0].lid);
		CU_ASSERT_EQUAL(sa_wire_bits_get(lr, 24, 8), pt->remote_port);
		CU_ASSERT_EQUAL(sa_wire_bits_get(lr, 32, 16),
				node_port_lid(&f->nodes[pt->remote_node], pt->remote_port));
	}

	/* SMInfoRecord: ours, SM_Key only to who knows it */
	a = ask(&e, SA_METHOD_GET, SA_ATTR_SMINFO_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	CU_ASSERT(mad_get_field64(a->data, 4, IB_SMINFO_GUID_F) == 0xabcdef);
	CU_ASSERT_EQUAL(mad_get_field(a->data, 4, IB_SMINFO_STATE_F), 3);
	CU_ASSERT_EQUAL(mad_get_field(a->data, 4, IB_SMINFO_PRIO_F), 5);
	CU_ASSERT(mad_get_field64(a->data, 4, IB_SMINFO_KEY_F) == 0);

	/* ClassPortInfo: Get only */
	a = ask(&e, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(mad_get_field(a->data, 0, IB_CPI_CLASSVER_F), 2);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);

	/* PortInfoRecords of a switch: every port with PortInfo (0..8) */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, f->nodes[s1].ports[0].lid);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_PORTINFO_RECORD, 1, rec, sizeof(rec));
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->attr_offset, 9);
	env_fini(&e);
}

static void test_server_bad_queries(void)
{
	struct env e;
	struct sa_wire_mad *a;
	struct sa_stats st;
	uint8_t buf[256] = {0};
	struct wire_mad_hdr h = {0};

	env_init(&e);
	sa_publish(e.sa, e.snap);
	a = ask(&e, SA_METHOD_GET, 0x0777, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);
	a = ask(&e, 0x03 /* Send */, SA_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD);
	a = ask(&e, SA_METHOD_SET, SA_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_RESP);
	a = ask(&e, SA_METHOD_DELETE, SA_ATTR_LINK_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_DELETE_RESP);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_NODE_RECORD, 1u << 15, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_REQ_INVALID);
	/* a bad class version */
	struct sa_wire_mad q = {0};
	q.hdr.method = SA_METHOD_GET;
	q.hdr.attr_id = SA_ATTR_NODE_RECORD;
	sa_wire_encode(&q, buf, sizeof(buf));
	buf[2] = 1;
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e.sa, &e.from, &h, buf, sizeof(buf));
	CU_ASSERT_EQUAL(e.fk.ans[e.fk.n - 1].hdr.status, SA_STATUS_BAD_VERSION);
	/* too short to answer, and responses to nothing: dropped, counted */
	unsigned before = e.fk.n;
	sa_recv(e.sa, &e.from, &h, buf, 40);
	buf[2] = 2;
	buf[3] = SA_METHOD_GET_RESP;
	sa_recv(e.sa, &e.from, &h, buf, sizeof(buf));
	CU_ASSERT_EQUAL(e.fk.n, before);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.malformed, 2);
	CU_ASSERT_EQUAL(st.errors, 6);
	CU_ASSERT_EQUAL(st.queries, 8);
	env_fini(&e);
}

/* A torus routed by dor uses 2 VLs: its SL2VL and VLArb records say what was programmed. */
static void test_server_vl_tables(void)
{
	struct env e;
	char *text = topogen_mesh(3, 3, 1, TOPOGEN_TORUS);
	struct fabric *f = testutil_load_text(text);
	struct routes *r = NULL;
	struct sa_wire_mad *a;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	char why[128];
	uint32_t sw;

	free(text);
	testutil_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(dor_compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(r->n_vls, 2);
	memset(&e, 0, sizeof(e));
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &e.snap), 0);
	e.sa = sa_new(NULL, &(struct sa_ops){fake_send, fake_sm_info, &e.fk});
	e.from = (struct madio_addr){.slid = 1, .qpn = 1};
	sa_publish(e.sa, e.snap);
	for (sw = 0; sw < f->n_nodes && !node_is_switch(&f->nodes[sw]); sw++)
		;
	/* one switch, output port 1, from port 0: exactly one SL2VL record, the engine's map */
	sa_wire_bits_set(rec, 0, 16, f->nodes[sw].ports[0].lid);
	sa_wire_bits_set(rec, 16, 8, 0);
	sa_wire_bits_set(rec, 24, 8, 1);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_SL2VL_RECORD, 7, rec, 16);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	for (unsigned sl = 0; sl < 16; sl++) {
		uint8_t vl = (a->data[8 + sl / 2] >> (sl % 2 ? 0 : 4)) & 0xf;
		CU_ASSERT_EQUAL(vl, r->sl2vl[sw][1 * ROUTES_MAX_SL + sl]);
	}
	/* VLArb of that port: blocks 1 (VL0, VL1 weight 64) and 3 (weights 0) */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, f->nodes[sw].ports[0].lid);
	sa_wire_bits_set(rec, 16, 8, 1);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_VLARB_RECORD, 3, rec, 16);
	CU_ASSERT_EQUAL(e.fk.len[e.fk.n - 1], 56 + 2 * 72);
	CU_ASSERT(a->data[8] == 0 && a->data[9] == 64 && a->data[10] == 1 && a->data[11] == 64);
	CU_ASSERT_EQUAL(a->data[72 + 9], 0);
	/* LFT record: block 0 of that switch is its LFT */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, f->nodes[sw].ports[0].lid);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_LFT_RECORD, 3, rec, 16);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(memcmp(a->data + 8, r->lft[sw], r->max_lid + 1 < 64 ? r->max_lid + 1 : 64),
			0);
	env_fini(&e);
}

static void fake_sm_info_key(void *ctx, struct sa_sm_info *ret)
{
	fake_sm_info(ctx, ret);
	ret->sa_key = 0x77;
}

/* A query carrying the SA key 0x77 (fake_sm_info_key's): trusted. */
static struct sa_wire_mad *ask_trusted(struct env *e, uint8_t method, uint16_t attr, uint64_t mask,
				       const uint8_t *rec, size_t rec_len)
{
	struct sa_wire_mad q = {0};
	uint8_t buf[256];
	struct wire_mad_hdr h;
	unsigned before = e->fk.n;

	q.hdr.method = method;
	q.hdr.attr_id = attr;
	q.hdr.tid = 0x6000 + before;
	q.comp_mask = mask;
	q.sm_key = 0x77;
	memcpy(q.data, rec, rec_len < sizeof(q.data) ? rec_len : sizeof(q.data));
	sa_wire_encode(&q, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e->sa, &e->from, &h, buf, sizeof(buf));
	return e->fk.n == before ? NULL : &e->fk.ans[e->fk.n - 1];
}

/* The records in the last answer (a GetTable's), by its length and stride. */
static unsigned n_recs(const struct env *e, unsigned stride)
{
	return (unsigned)((e->fk.len[e->fk.n - 1] - 56) / stride);
}

/*
 * P_KeyTableRecords for every port that has a table: a CA port with its own
 * PortNum (not 0), a switch's port 0, a switch external port whose table was
 * read (it faces a CA); none for an external port whose table is unknown.
 * GUIDInfoRecords: every block of the port's GUIDCap, the port GUID at index 0.
 */
static void test_server_pkey_guidinfo(void)
{
	struct env e;
	struct fabric *f;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	struct sa_wire_mad *a;
	uint32_t s1, h1, h2;
	uint16_t keys[32];

	env_init(&e);
	sa_free(e.sa);
	e.sa = sa_new(NULL, &(struct sa_ops){fake_send, fake_sm_info_key, &e.fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.sa);
	sa_publish(e.sa, e.snap);
	f = e.snap->fabric;
	s1 = testutil_find_desc(f, "S1");
	h1 = testutil_find_desc(f, "H1");
	h2 = testutil_find_desc(f, "H2");
	/* S1 port 1 faces H1: its table as programmed for enforcement */
	CU_ASSERT_PTR_NOT_NULL_FATAL(port_pkeys_alloc(&f->nodes[s1].ports[1]));
	f->nodes[s1].ports[1].pkeys[0] = 0xffff;
	f->nodes[s1].ports[1].pkeys[1] = 0x8001;
	f->nodes[s1].ports[1].pkey_known = 1;

	/* untrusted: refused, as before */
	sa_wire_bits_set(rec, 0, 16, f->nodes[s1].ports[0].lid);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_PKEY_RECORD, 1, rec, 72);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_REQ_INVALID);
	/* S1/1: one block, PortNum 1, the switch's LID, its keys */
	sa_wire_bits_set(rec, 32, 8, 1);
	a = ask_trusted(&e, SA_METHOD_GET, SA_ATTR_PKEY_RECORD, 1 | 4, rec, 72);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 0, 16), f->nodes[s1].ports[0].lid);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 32, 8), 1);
	CU_ASSERT_EQUAL(wire_pkey_decode(a->data + 8, 64, keys), 0);
	CU_ASSERT(keys[0] == 0xffff && keys[1] == 0x8001 && keys[2] == 0);
	/* the whole switch: port 0 (the default) and port 1; port 3 (to S2) has no known table */
	a = ask_trusted(&e, SA_METHOD_GET_TABLE, SA_ATTR_PKEY_RECORD, 1, rec, 72);
	CU_ASSERT_EQUAL(n_recs(&e, 72), 2);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 32, 8), 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data + 72, 32, 8), 1);
	sa_wire_bits_set(rec, 32, 8, 3);
	a = ask_trusted(&e, SA_METHOD_GET, SA_ATTR_PKEY_RECORD, 1 | 4, rec, 72);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_NO_RECORDS);
	/* a CA port: PortNum is its number (H2's second port: 2), found by LID and PortNum */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, f->nodes[h2].ports[2].lid);
	sa_wire_bits_set(rec, 32, 8, 2);
	a = ask_trusted(&e, SA_METHOD_GET, SA_ATTR_PKEY_RECORD, 1 | 4, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 32, 8), 2);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 0, 16), f->nodes[h2].ports[2].lid);
	sa_wire_bits_set(rec, 32, 8, 0); /* PortNum 0 is no CA port */
	a = ask_trusted(&e, SA_METHOD_GET, SA_ATTR_PKEY_RECORD, 1 | 4, rec, 72);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_NO_RECORDS);

	/* GUIDInfo: H1 with GUIDCap 32 has 4 blocks; only index 0 is assigned */
	mad_set_field(f->nodes[h1].ports[1].pi, 0, IB_PORT_GUID_CAP_F, 32);
	f->nodes[h1].ports[1].valid = true;
	memset(rec, 0, sizeof(rec));
	mad_set_field(rec, 0, IB_SA_GIR_LID_F, f->nodes[h1].ports[1].lid);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_GUIDINFO_RECORD, 1, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL_FATAL(n_recs(&e, 72), 2); /* one MAD holds two 72-byte records */
	CU_ASSERT(mad_get_field64(a->data, 0, IB_SA_GIR_GUID0_F) == f->nodes[h1].ports[1].guid);
	CU_ASSERT_EQUAL(mad_get_field(a->data + 72, 0, IB_SA_GIR_BLOCKNUM_F), 1);
	CU_ASSERT(mad_get_field64(a->data + 72, 0, IB_SA_GIR_GUID0_F) == 0);
	mad_set_field(rec, 0, IB_SA_GIR_BLOCKNUM_F, 3);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_GUIDINFO_RECORD, 3, rec, 72);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	mad_set_field(rec, 0, IB_SA_GIR_BLOCKNUM_F, 4);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_GUIDINFO_RECORD, 3, rec, 72);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_NO_RECORDS);
	/* ClassPortInfo: MultiPath (bit 10) and SendOnlyFullMember (CapabilityMask2 bit 12) */
	a = ask(&e, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0);
	CU_ASSERT(mad_get_field(a->data, 0, IB_CPI_CAPMASK_F) & 1u << 10);
	env_fini(&e);
}

/* A GetTable answer larger than one MAD goes out as RMPP segments, paced by the client's ACKs. */
static void test_server_rmpp(void)
{
	struct env e;
	struct event_base *base = event_base_new();
	struct sa_wire_mad *a, ack;
	struct wire_mad_hdr h;
	uint8_t buf[256];
	struct sa_stats st;
	unsigned nodes, segs;

	env_init(&e);
	sa_free(e.sa);
	e.sa = sa_new(base, &(struct sa_ops){fake_send, fake_sm_info, &e.fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.sa);
	sa_publish(e.sa, e.snap);
	/* every NodeRecord: 2 switches + 1 + 2 + 1 CA ports = 6 x 112 bytes = 4 segments */
	nodes = 6;
	segs = (nodes * 112 + 199) / 200;
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(e.fk.n, 1); /* window 1: the first segment alone */
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_TABLE_RESP);
	CU_ASSERT_EQUAL(a->rmpp_type, SA_RMPP_DATA);
	CU_ASSERT_EQUAL(a->rmpp_flags, SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_FIRST);
	CU_ASSERT_EQUAL(a->rmpp_data1, 1);
	CU_ASSERT_EQUAL(a->rmpp_data2, 20 * segs + nodes * 112);
	CU_ASSERT_EQUAL(a->attr_offset, 14);
	/* the client ACKs segment 1 and opens a window of 64: the rest follows */
	ack = *a;
	ack.hdr.method = SA_METHOD_GET_TABLE;
	ack.rmpp_type = SA_RMPP_ACK;
	ack.rmpp_flags = SA_RMPP_FLAG_ACTIVE;
	ack.rmpp_data1 = 1;
	ack.rmpp_data2 = 65;
	sa_wire_encode(&ack, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e.sa, &e.from, &h, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(e.fk.n, segs);
	a = &e.fk.ans[segs - 1];
	CU_ASSERT_EQUAL(a->rmpp_data1, segs);
	CU_ASSERT_EQUAL(a->rmpp_flags, SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_LAST);
	CU_ASSERT_EQUAL(a->rmpp_data2, 20 + nodes * 112 - (segs - 1) * 200);
	/* the ACK is not a query: it got no answer of its own */
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.queries, 2);
	CU_ASSERT_EQUAL(st.answered, 1);
	CU_ASSERT_EQUAL(st.rmpp_transfers, 1);
	env_fini(&e);
	event_base_free(base);
}

/* MulticastForwardingTableRecords: the blocks of the switches' MFTs that hold a group. */
static void test_server_mft(void)
{
	struct env e;
	struct mft_set *known = mft_set_new();
	struct mft *t;
	struct sa_wire_mad *a;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	uint32_t s1;

	env_init(&e);
	sa_publish(e.sa, e.snap);
	s1 = testutil_find_desc(e.snap->fabric, "S1");
	/* no MFTs known: no records */
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_MFT_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->attr_offset, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(known);
	sa_set_mfts(e.sa, &known);
	t = mft_new(e.snap->fabric->nodes[s1].nports, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC021, 3), 0); /* block 1, position 0 */
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC021, 1), 0);
	CU_ASSERT_EQUAL(mft_set_put(known, e.snap->fabric->nodes[s1].guid, t), 0);
	sa_wire_bits_set(rec, 0, 16, e.snap->fabric->nodes[s1].ports[0].lid);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_MFT_RECORD, 1, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(e.fk.len[e.fk.n - 1], 56 + 72); /* only the block holding the group */
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 16, 4), 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 23, 9), 1);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 64 + 16 * 1, 16), 1u << 3 | 1u << 1);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data, 64, 16), 0);
	env_fini(&e);
	mft_set_free(known);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"SA MAD round trip, golden bytes, truncation", test_sa_mad_round_trip},
	    {"bit ranges", test_bits},
	    {"records and component masks", test_records_and_masks},
	    {"server: records from the snapshot", test_server_records},
	    {"server: bad queries get their status", test_server_bad_queries},
	    {"server: the VL and LFT tables programmed", test_server_vl_tables},
	    {"server: P_Key records of every port with a table, GUIDInfo blocks",
	     test_server_pkey_guidinfo},
	    {"server: large answers as RMPP", test_server_rmpp},
	    {"server: MFT records", test_server_mft},
	    {NULL, NULL},
	};

	return testutil_run("sa", cases);
}

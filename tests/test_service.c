/*
 * Unit tests of the service database (sa/service.c) and of subscriptions and
 * Reports (sa/inform.c), through the SA server (sa/sa.c) with a fake send
 * that keeps every MAD and a real libevent loop for the lease timer and the
 * Report resends: the codecs of ServiceRecord, InformInfo, InformInfoRecord
 * and Notice; register, refresh, Get and GetTable, Delete, who may, leases,
 * ports leaving, the limit; subscribe, unsubscribe, the records, the
 * Reports of traps 64, 65, 66, 67 (bytes checked), resends until ReportResp,
 * giving up, subscriptions that do not select a trap, subscribers leaving.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>
#include <infiniband/mad.h>

#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "sa/inform.h"
#include "sa/sa.h"
#include "sa/service.h"
#include "tests/testutil.h"

#define PREFIX 0xfe80000000000000ULL
#define SM_GUID 0xabcdefULL
#define SM_KEY 0x77ULL

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

/* ---- the server with a fake send and a real loop -------------------------------------- */

#define MAX_SENT 512

struct fake {
	unsigned n;
	struct sa_wire_mad mad[MAX_SENT];
	struct madio_dest to[MAX_SENT];
};

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct fake *fk = ctx;

	CU_ASSERT_FATAL(fk->n < MAX_SENT);
	CU_ASSERT_EQUAL(sa_wire_decode(mad, len, &fk->mad[fk->n]), 0);
	fk->to[fk->n++] = *to;
	return 0;
}

static void fake_sm_info(void *ctx, struct sa_sm_info *ret)
{
	*ret = (struct sa_sm_info){
	    .port_guid = SM_GUID, .sm_key = SM_KEY, .sa_key = SM_KEY, .state = 3};
}

/* H1 and H3 one port each, H2 two; "less" is the fabric without H3 */
static const char net_full[] =
    "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
    "Switch 8 \"S2\"\n[1] \"H2\"[2]\n[2] \"H3\"[1]\n[3] \"S1\"[3]\n\n"
    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 2 \"H2\"\n[1] \"S1\"[2]\n[2] \"S2\"[1]\n\n"
    "Hca 1 \"H3\"\n[1] \"S2\"[2]\n";
static const char net_less[] =
    "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
    "Switch 8 \"S2\"\n[1] \"H2\"[2]\n[3] \"S1\"[3]\n\n"
    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 2 \"H2\"\n[1] \"S1\"[2]\n[2] \"S2\"[1]\n";

#define MAX_SNAPS 4

struct env {
	struct event_base *base;
	struct fake fk;
	struct sa *sa;
	struct snapshot *snaps[MAX_SNAPS];
	unsigned n_snaps;
	const struct snapshot *cur;
	uint64_t sm_key; /* what queries carry */
};

static struct snapshot *env_snap(struct env *e, const char *text)
{
	struct fabric *f = testutil_load_text(text);
	struct snapshot *s = NULL;

	testutil_assign_lids(f, 0);
	CU_ASSERT_FATAL(e->n_snaps < MAX_SNAPS);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, routes_new(f, 0), e->n_snaps + 1, &s), 0);
	e->snaps[e->n_snaps++] = s;
	return s;
}

/* Publish a new snapshot of text (the old one stays until env_fini). */
static void env_publish(struct env *e, const char *text)
{
	struct snapshot *s = env_snap(e, text);

	sa_publish(e->sa, s);
	e->cur = s;
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	e->base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->base);
	e->sa = sa_new(e->base, &(struct sa_ops){fake_send, fake_sm_info, &e->fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->sa);
	env_publish(e, net_full);
}

static void env_fini(struct env *e)
{
	sa_free(e->sa);
	for (unsigned i = 0; i < e->n_snaps; i++)
		snapshot_free(e->snaps[i]);
	event_base_free(e->base);
}

/* Run the loop for ms milliseconds. */
static void env_run(struct env *e, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_base_loopexit(e->base, &tv);
	event_base_dispatch(e->base);
}

/* A port of the current snapshot by node description: its LID and GUID. */
static uint16_t lid_of(const struct env *e, const char *desc, uint8_t port)
{
	uint32_t i = testutil_find_desc(e->cur->fabric, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return e->cur->fabric->nodes[i].ports[port].lid;
}

static uint64_t guid_of(const struct env *e, const char *desc, uint8_t port)
{
	uint32_t i = testutil_find_desc(e->cur->fabric, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return e->cur->fabric->nodes[i].ports[port].guid;
}

static void gid_put(uint8_t *at, uint64_t prefix, uint64_t guid)
{
	sa_wire_bits_set(at, 0, 64, prefix);
	sa_wire_bits_set(at, 64, 64, guid);
}

/* Send a request from LID slid, QP qpn; the answer (the last MAD sent), NULL when none. */
static struct sa_wire_mad *ask_qp(struct env *e, uint16_t slid, uint32_t qpn, uint8_t method,
				  uint16_t attr, uint64_t mask, const uint8_t *rec, size_t len)
{
	struct madio_addr from = {.slid = slid, .qpn = qpn, .qkey = 0x80010000, .sl = 0};
	struct sa_wire_mad q = {0};
	struct wire_mad_hdr h;
	uint8_t buf[256];
	unsigned before = e->fk.n;

	q.hdr.method = method;
	q.hdr.attr_id = attr;
	q.hdr.tid = 0x7000 + before;
	q.comp_mask = mask;
	q.sm_key = e->sm_key;
	if (rec)
		memcpy(q.data, rec, len);
	sa_wire_encode(&q, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e->sa, &from, &h, buf, sizeof(buf));
	if (e->fk.n == before)
		return NULL;
	CU_ASSERT_EQUAL(e->fk.mad[e->fk.n - 1].hdr.tid, 0x7000 + before);
	return &e->fk.mad[e->fk.n - 1];
}

static struct sa_wire_mad *ask(struct env *e, uint16_t slid, uint8_t method, uint16_t attr,
			       uint64_t mask, const uint8_t *rec, size_t len)
{
	return ask_qp(e, slid, 1, method, attr, mask, rec, len);
}

static uint16_t status_of(struct sa_wire_mad *a)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	return a->hdr.status;
}

/* ---- services ---------------------------------------------------------------------------- */

#define SR_RID (1u << SA_SR_ID | 1u << SA_SR_GID)

/* A ServiceRecord of port guid with that ID and name. */
static void sr_make(uint8_t *rec, uint64_t id, uint64_t guid, const char *name)
{
	memset(rec, 0, SA_SR_SIZE);
	sa_wire_comp_set(&sa_wire_service_record, SA_SR_ID, rec, id);
	gid_put(rec + SA_SR_GID_OFFS, PREFIX, guid);
	if (name)
		memcpy(rec + SA_SR_NAME_OFFS, name, strlen(name));
}

static struct sa_wire_mad *sr_set(struct env *e, uint16_t slid, uint64_t id, uint64_t guid,
				  const char *name, uint64_t extra_mask, uint32_t lease)
{
	uint8_t rec[SA_SR_SIZE];

	sr_make(rec, id, guid, name);
	sa_wire_comp_set(&sa_wire_service_record, SA_SR_LEASE, rec, lease);
	memset(rec + SA_SR_KEY_OFFS, 0x5a, 16);
	return ask(e, slid, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
		   SR_RID | 1u << SA_SR_NAME | 1u << SA_SR_KEY | extra_mask, rec, sizeof(rec));
}

static struct sa_wire_mad *sr_get_id(struct env *e, uint16_t slid, uint64_t id)
{
	uint8_t rec[SA_SR_SIZE];

	sr_make(rec, id, 0, NULL);
	return ask(e, slid, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_ID, rec,
		   sizeof(rec));
}

static uint64_t sr_comp(const struct sa_wire_mad *a, unsigned comp)
{
	return sa_wire_comp_get(&sa_wire_service_record, comp, a->data);
}

static unsigned services_now(struct env *e)
{
	struct sa_stats st;

	sa_get_stats(e->sa, &st);
	return (unsigned)st.services;
}

static void test_service_register(void)
{
	struct env e;
	struct sa_wire_mad *a;
	uint8_t rec[SA_SR_SIZE];
	uint16_t h1;
	uint64_t g1;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	g1 = guid_of(&e, "H1", 1);

	/* register: no P_Key or lease in the mask -> 0xFFFF and infinite; the key hidden */
	a = sr_set(&e, h1, 0x10, g1, "svc-a", 0, 0);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_ID), 0x10);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_PKEY), 0xffff);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_LEASE), SA_SR_LEASE_INFINITE);
	CU_ASSERT_EQUAL(a->data[SA_SR_KEY_OFFS], 0);
	CU_ASSERT_STRING_EQUAL((char *)a->data + SA_SR_NAME_OFFS, "svc-a");
	CU_ASSERT_EQUAL(services_now(&e), 1);

	/* refresh: same RID, new data: still one service, with the new data */
	sr_make(rec, 0x10, g1, "svc-a");
	rec[112] = 0x42;
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
		SR_RID | 1u << SA_SR_NAME | 1u << SA_SR_DATA8, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(services_now(&e), 1);
	a = sr_get_id(&e, h1, 0x10);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->data[112], 0x42);

	/* a second service; Get and GetTable by name and by ID */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x11, g1, "svc-b", 0, 0)), 0);
	CU_ASSERT_EQUAL(services_now(&e), 2);
	sr_make(rec, 0, 0, "svc-b");
	a = ask(&e, lid_of(&e, "H3", 1), SA_METHOD_GET, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_NAME,
		rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_ID), 0x11);
	a = ask(&e, h1, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_NAME, rec,
		sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_TABLE_RESP);
	CU_ASSERT_EQUAL(a->attr_offset, 176 / 8);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_ID), 0x11);
	a = ask(&e, h1, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD, 0, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_TOO_MANY_RECORDS);
	a = sr_get_id(&e, h1, 0x10);
	CU_ASSERT_STRING_EQUAL((char *)a->data + SA_SR_NAME_OFFS, "svc-a");
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x12)), SA_STATUS_NO_RECORDS);
	/* GetTable of a name nobody has: an empty table */
	sr_make(rec, 0, 0, "svc-c");
	a = ask(&e, h1, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_NAME, rec,
		sizeof(rec));
	CU_ASSERT(status_of(a) == 0 && a->attr_offset == 0);

	/* Delete: the answer is the deleted record; then it is gone */
	sr_make(rec, 0x10, g1, NULL);
	a = ask(&e, h1, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_DELETE_RESP);
	CU_ASSERT_STRING_EQUAL((char *)a->data + SA_SR_NAME_OFFS, "svc-a");
	CU_ASSERT_EQUAL(a->data[112], 0x42);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x10)), SA_STATUS_NO_RECORDS);
	a = ask(&e, h1, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(services_now(&e), 1);

	/* the RID must be in the mask */
	sr_make(rec, 0x13, g1, "x");
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_ID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_INSUFFICIENT_COMPS);
	a = ask(&e, h1, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, 1u << SA_SR_GID, rec,
		sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_INSUFFICIENT_COMPS);
	/* another P_Key is another service */
	sa_wire_comp_set(&sa_wire_service_record, SA_SR_PKEY, rec, 0x7fff);
	sa_wire_comp_set(&sa_wire_service_record, SA_SR_ID, rec, 0x11);
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SR_RID | 1u << SA_SR_PKEY, rec,
		sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_PKEY), 0x7fff);
	CU_ASSERT_EQUAL(services_now(&e), 2);
	env_fini(&e);
}

static void test_service_who_may(void)
{
	struct env e;
	struct sa_wire_mad *a;
	uint8_t rec[SA_SR_SIZE];
	uint16_t h1, h3;
	uint64_t g1;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h3 = lid_of(&e, "H3", 1);
	g1 = guid_of(&e, "H1", 1);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x20, g1, "mine", 0, 0)), 0);
	/* H3 may neither register for H1's GID nor delete H1's service */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h3, 0x21, g1, "theirs", 0, 0)), SA_STATUS_DENIED);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h3, 0x20, g1, "replaced", 0, 0)), SA_STATUS_DENIED);
	sr_make(rec, 0x20, g1, NULL);
	a = ask(&e, h3, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_DENIED);
	a = sr_get_id(&e, h3, 0x20);
	CU_ASSERT_STRING_EQUAL((char *)a->data + SA_SR_NAME_OFFS, "mine");
	/* H2's port 1 is not its port 2 */
	CU_ASSERT_EQUAL(
	    status_of(sr_set(&e, lid_of(&e, "H2", 1), 0x22, guid_of(&e, "H2", 2), "p2", 0, 0)),
	    SA_STATUS_DENIED);
	/* a GID no port has, of another prefix, a multicast GID */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x23, 0x999, "x", 0, 0)), SA_STATUS_INVALID_GID);
	sr_make(rec, 0x23, g1, "x");
	rec[SA_SR_GID_OFFS + 1] = 0x81;
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_INVALID_GID);
	rec[SA_SR_GID_OFFS] = 0xff;
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_INVALID_GID);
	/* prefix 0: this subnet (osmtest's ServiceRecords), kept as sent (issue 27) */
	sr_make(rec, 0x26, g1, "zero prefix");
	memset(rec + SA_SR_GID_OFFS, 0, 8);
	a = ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SR_RID, rec, sizeof(rec));
	CU_ASSERT_EQUAL_FATAL(status_of(a), 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(a->data + SA_SR_GID_OFFS, 0, 64), 0);
	CU_ASSERT_EQUAL(status_of(ask(&e, h1, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, SR_RID, rec,
				      sizeof(rec))),
			0);
	/* a requester the SA does not know */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, 999, 0x24, g1, "x", 0, 0)), SA_STATUS_REQ_INVALID);
	/* a trusted request (the SM's SM_Key) may act for any port and sees the key */
	e.sm_key = SM_KEY;
	a = sr_set(&e, h3, 0x25, g1, "by the SM", 0, 0);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->data[SA_SR_KEY_OFFS], 0x5a);
	CU_ASSERT_EQUAL(sr_get_id(&e, h3, 0x20)->data[SA_SR_KEY_OFFS], 0x5a);
	e.sm_key = 0x78; /* a wrong key is no key */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h3, 0x26, g1, "x", 0, 0)), SA_STATUS_DENIED);
	CU_ASSERT_EQUAL(sr_get_id(&e, h3, 0x20)->data[SA_SR_KEY_OFFS], 0);
	env_fini(&e);
}

/*
 * Leases run on the real clock, so the checks leave room for a loaded
 * machine: a check that a lease is still on comes at least a second before
 * its end, and its end is waited for (bounded), not timed.
 */
static void test_service_lease(void)
{
	struct env e;
	struct sa_wire_mad *a;
	uint16_t h1;
	uint64_t g1;
	int waited;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	g1 = guid_of(&e, "H1", 1);
	/*
	 * 0x30 lease 1 s; 0x31 lease 1 s, refreshed at 0.6 s for 2 s (without
	 * the refresh it would be gone at 1 s); 0x32 infinite; 0x33 lease 0
	 */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x30, g1, "short", 1u << SA_SR_LEASE, 1)), 0);
	a = sr_set(&e, h1, 0x31, g1, "refreshed", 1u << SA_SR_LEASE, 1);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_LEASE), 1);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x32, g1, "forever", 0, 0)), 0);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x33, g1, "zero", 1u << SA_SR_LEASE, 0)), 0);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x33)), SA_STATUS_NO_RECORDS);
	a = sr_get_id(&e, h1, 0x30);
	CU_ASSERT_EQUAL(sr_comp(a, SA_SR_LEASE), 1); /* what is left, rounded up */
	env_run(&e, 600);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x31, g1, "refreshed", 1u << SA_SR_LEASE, 2)), 0);
	env_run(&e, 700);
	/* 1.3 s (at least): the first is gone, the refreshed one is not */
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x30)), SA_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x31)), 0);
	CU_ASSERT_EQUAL(services_now(&e), 2);
	/* 2.6 s: the refreshed lease is over too */
	for (waited = 0; waited < 30000; waited += 100) {
		if (status_of(sr_get_id(&e, h1, 0x31)) == SA_STATUS_NO_RECORDS)
			break;
		env_run(&e, 100);
	}
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x31)), SA_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x32)), 0);
	CU_ASSERT_EQUAL(services_now(&e), 1);
	/*
	 * the timer (ticks at 0.5 s) frees it and stops with the last finite
	 * lease: the loop has nothing left to do
	 */
	for (waited = 0; waited < 30000; waited += 100) {
		if (event_base_loop(e.base, EVLOOP_NONBLOCK) == 1)
			break;
		env_run(&e, 100);
	}
	CU_ASSERT_EQUAL(event_base_loop(e.base, EVLOOP_NONBLOCK), 1);
	env_fini(&e);
}

static void test_service_port_leaves(void)
{
	struct env e;
	uint16_t h1, h3;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h3 = lid_of(&e, "H3", 1);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x40, guid_of(&e, "H1", 1), "h1", 0, 0)), 0);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h3, 0x41, guid_of(&e, "H3", 1), "h3", 0, 0)), 0);
	env_publish(&e, net_less);
	CU_ASSERT_EQUAL(services_now(&e), 1);
	h1 = lid_of(&e, "H1", 1);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x41)), SA_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x40)), 0);
	/* H3 coming back does not bring its service back */
	env_publish(&e, net_full);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x41)), SA_STATUS_NO_RECORDS);
	env_fini(&e);
}

static void test_service_limit(void)
{
	struct env e;
	uint8_t rec[SA_SR_SIZE];
	uint16_t h1;
	uint64_t g1;
	unsigned ok = 0;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	g1 = guid_of(&e, "H1", 1);
	for (unsigned i = 0; i < SERVICE_MAX; i++, e.fk.n = 0) /* the fake keeps the last answer */
		ok += status_of(sr_set(&e, h1, 0x1000 + i, g1, "many", 0, 0)) == 0;
	CU_ASSERT_EQUAL(ok, SERVICE_MAX);
	CU_ASSERT_EQUAL(services_now(&e), SERVICE_MAX);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x9999, g1, "one more", 0, 0)),
			SA_STATUS_NO_RESOURCES);
	/* a refresh still works; after a Delete there is room again */
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x1000, g1, "refreshed", 0, 0)), 0);
	sr_make(rec, 0x1001, g1, NULL);
	CU_ASSERT_EQUAL(status_of(ask(&e, h1, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, SR_RID, rec,
				      sizeof(rec))),
			0);
	CU_ASSERT_EQUAL(status_of(sr_set(&e, h1, 0x9999, g1, "one more", 0, 0)), 0);
	env_fini(&e);
}

/* ---- subscriptions ---------------------------------------------------------------------- */

/* An InformInfo: generic, trap (0xffff: all), LID range or GID (guid != 0), Type and
 * ProducerType all. */
static void ii_make(uint8_t *ii, uint16_t trap, uint16_t begin, uint16_t end, uint64_t guid,
		    bool subscribe)
{
	const struct sa_wire_rec *r = &sa_wire_inform_info;

	memset(ii, 0, SA_II_SIZE);
	if (guid)
		gid_put(ii, PREFIX, guid);
	sa_wire_comp_set(r, SA_II_LID_BEGIN, ii, begin);
	sa_wire_comp_set(r, SA_II_LID_END, ii, end);
	sa_wire_comp_set(r, SA_II_IS_GENERIC, ii, 1);
	sa_wire_comp_set(r, SA_II_SUBSCRIBE, ii, subscribe);
	sa_wire_comp_set(r, SA_II_TYPE, ii, 0xffff);
	sa_wire_comp_set(r, SA_II_TRAP, ii, trap);
	sa_wire_comp_set(r, SA_II_PRODUCER, ii, 0xffffff);
	sa_wire_comp_set(r, SA_II_QPN, ii, 0x77); /* ignored: Reports go to the Set's QP */
}

static struct sa_wire_mad *inform(struct env *e, uint16_t slid, uint32_t qpn, const uint8_t *ii)
{
	return ask_qp(e, slid, qpn, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, ii, SA_II_SIZE);
}

static uint16_t subscribe(struct env *e, uint16_t slid, uint32_t qpn, uint16_t trap, uint16_t begin,
			  uint16_t end, uint64_t guid)
{
	uint8_t ii[SA_II_SIZE];

	ii_make(ii, trap, begin, end, guid, true);
	return status_of(inform(e, slid, qpn, ii));
}

static unsigned subscriptions_now(struct env *e)
{
	struct sa_stats st;

	sa_get_stats(e->sa, &st);
	return (unsigned)st.subscriptions;
}

static void test_inform_subscribe(void)
{
	const struct sa_wire_rec *r = &sa_wire_inform_info, *rr = &sa_wire_inform_info_record;
	struct env e;
	struct sa_wire_mad *a;
	uint8_t ii[SA_II_SIZE], rec[SA_IIR_SIZE] = {0};
	uint16_t h1, h3;
	uint64_t g1;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h3 = lid_of(&e, "H3", 1);
	g1 = guid_of(&e, "H1", 1);

	/* subscribe: the answer is the request */
	ii_make(ii, 64, 0xffff, 0, 0, true);
	a = inform(&e, h1, 5, ii);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->hdr.attr_id, SA_ATTR_INFORM_INFO);
	CU_ASSERT_EQUAL(memcmp(a->data, ii, SA_II_SIZE), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 65, 0xffff, 0, 0), 0);
	/* the same again: an update, not a third */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 65, 0xffff, 0, 0), 0);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 2);
	/* from another QP of the port it is another subscription */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 6, 65, 0xffff, 0, 0), 0);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 3);

	/* InformInfoRecords: H1's three, Enum 0, 1, 2, QPN hidden */
	gid_put(rec, PREFIX, g1);
	a = ask(&e, h3, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD,
		1u << SA_IIR_SUBSCRIBER_GID, rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->attr_offset, 8);
	unsigned enums = 0;
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *x = a->data + 64 * i;

		CU_ASSERT_EQUAL(sa_wire_bits_get(x, 64, 64), g1);
		CU_ASSERT_EQUAL(sa_wire_bits_get(x, 0, 64), PREFIX);
		CU_ASSERT_EQUAL(sa_wire_comp_get(rr, SA_IIR_II + SA_II_QPN, x), 0);
		enums |= 1u << sa_wire_comp_get(rr, SA_IIR_ENUM, x);
	}
	CU_ASSERT_EQUAL(enums, 7);
	/* by trap number; trusted: the QPN the Reports go to */
	sa_wire_comp_set(rr, SA_IIR_II + SA_II_TRAP, rec, 64);
	e.sm_key = SM_KEY;
	a = ask(&e, h3, SA_METHOD_GET, SA_ATTR_INFORM_INFO_RECORD,
		1u << SA_IIR_SUBSCRIBER_GID | 1u << (SA_IIR_II + SA_II_TRAP), rec, sizeof(rec));
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(sa_wire_comp_get(rr, SA_IIR_II + SA_II_QPN, a->data), 5);
	e.sm_key = 0;

	/* unsubscribe; again: nothing to unsubscribe from (the answer keeps Subscribe 0) */
	ii_make(ii, 64, 0xffff, 0, 0, false);
	CU_ASSERT_EQUAL(status_of(inform(&e, h1, 5, ii)), 0);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 2);
	a = inform(&e, h1, 5, ii);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_II_SUBSCRIBE, a->data), 0);
	/* H3 cannot unsubscribe H1 */
	ii_make(ii, 65, 0xffff, 0, 0, false);
	CU_ASSERT_EQUAL(status_of(inform(&e, h3, 5, ii)), SA_STATUS_REQ_INVALID);

	/* refused, and answered with Subscribe 0 (o13-13.1.1) */
	ii_make(ii, 64, 0xffff, 0, 0, true);
	sa_wire_comp_set(r, SA_II_SUBSCRIBE, ii, 2);
	a = inform(&e, h1, 5, ii);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_II_SUBSCRIBE, a->data), 0);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_II_TRAP, a->data), 64);
	ii_make(ii, 256, 0xffff, 0, 0, true); /* a security trap, untrusted */
	a = inform(&e, h1, 5, ii);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_II_SUBSCRIBE, a->data), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 65, 0, 0, 0x999), SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 65, 9, 8, 0), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(subscribe(&e, 999, 5, 65, 0xffff, 0, 0), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 2);
	/* Get(InformInfo) is not a thing */
	a = ask(&e, h1, SA_METHOD_GET, SA_ATTR_INFORM_INFO, 0, ii, SA_II_SIZE);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_BAD_METHOD_ATTR);

	/* at most INFORM_PER_PORT_MAX per port */
	for (unsigned t = 0; subscriptions_now(&e) < 2 + INFORM_PER_PORT_MAX; t++)
		CU_ASSERT_EQUAL_FATAL(subscribe(&e, h3, 1, (uint16_t)(100 + t), 0xffff, 0, 0), 0);
	a = NULL;
	ii_make(ii, 99, 0xffff, 0, 0, true);
	a = inform(&e, h3, 1, ii);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_II_SUBSCRIBE, a->data), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 99, 0xffff, 0, 0), 0); /* others still can */
	env_fini(&e);
}

/* ---- Reports ------------------------------------------------------------------------------- */

/* The Reports sent since sent[from]: their indexes in e->fk, to LID dlid (0: any). */
static unsigned reports_to(const struct env *e, unsigned from, uint16_t dlid, unsigned *ret,
			   unsigned max)
{
	unsigned n = 0;

	for (unsigned i = from; i < e->fk.n; i++)
		if (e->fk.mad[i].hdr.method == SA_METHOD_REPORT &&
		    (!dlid || e->fk.to[i].dlid == dlid)) {
			if (n < max)
				ret[n] = i;
			n++;
		}
	return n;
}

/* Check Report i: a Notice of trap about GID (prefix, guid), from the SM. */
static void check_report(const struct env *e, unsigned i, uint16_t trap, const uint8_t *gid)
{
	const struct sa_wire_mad *m = &e->fk.mad[i];
	struct sa_wire_notice n;

	CU_ASSERT_EQUAL(m->hdr.method, 0x06);
	CU_ASSERT_EQUAL(m->hdr.attr_id, 0x0002);
	CU_ASSERT_EQUAL(m->hdr.class_version, 2);
	CU_ASSERT_EQUAL(e->fk.to[i].qkey, 0x80010000u);
	CU_ASSERT_EQUAL_FATAL(sa_wire_notice_decode(m->data, sizeof(m->data), &n), 0);
	CU_ASSERT(n.is_generic && n.type == 3 && n.producer == 4);
	CU_ASSERT_EQUAL(n.trap_num, trap);
	/* the raw bytes: TrapNumber at 4..5, the GID at 16..31, the SM's GID at 64..79 */
	CU_ASSERT(m->data[4] == trap >> 8 && m->data[5] == (trap & 0xff));
	CU_ASSERT_EQUAL(memcmp(m->data + 16, gid, 16), 0);
	CU_ASSERT_EQUAL(sa_wire_bits_get(m->data + 64, 64, 64), SM_GUID);
	CU_ASSERT_EQUAL(n.issuer_lid, node_port_lid(&e->cur->fabric->nodes[e->cur->fabric->sm_node],
						    e->cur->fabric->sm_port));
}

static void send_report_resp(struct env *e, uint16_t slid, uint64_t tid)
{
	struct madio_addr from = {.slid = slid, .qpn = 1};
	struct sa_wire_mad m = {0};
	struct wire_mad_hdr h;
	uint8_t buf[256];

	m.hdr.method = SA_METHOD_REPORT_RESP;
	m.hdr.attr_id = SA_ATTR_NOTICE;
	m.hdr.tid = tid;
	sa_wire_encode(&m, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e->sa, &from, &h, buf, sizeof(buf));
}

static void test_inform_reports(void)
{
	struct env e;
	struct sa_stats st;
	unsigned idx[64], n, mark, before;
	uint8_t gid3[16];
	uint16_t h1, h2a, h2b, h3;
	uint64_t g3;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h2a = lid_of(&e, "H2", 1);
	h2b = lid_of(&e, "H2", 2);
	h3 = lid_of(&e, "H3", 1);
	g3 = guid_of(&e, "H3", 1);
	gid_put(gid3, PREFIX, g3);
	/* A: H1 (QP 5), trap 65, every LID; B: H2/1, trap 65, H1's LID only; C: H2/1, trap 64;
	 * D: H2/2, trap 65 of H3's GID; E: H3, everything; F: H1, trap 66 */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 5, 65, 0xffff, 0, 0), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h2a, 1, 65, h1, 0, 0), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h2a, 1, 64, 0xffff, 0, 0), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h2b, 1, 65, 0, 0, g3), 0);
	CU_ASSERT_EQUAL(subscribe(&e, h3, 1, 0xffff, 0xffff, 0, 0), 0);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 5);

	/* H3 leaves: its subscription goes; A and D get trap 65 about it, nobody else anything */
	mark = e.fk.n;
	env_publish(&e, net_less);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 4);
	h1 = lid_of(&e, "H1", 1); /* the LIDs of the new snapshot */
	h2a = lid_of(&e, "H2", 1);
	h2b = lid_of(&e, "H2", 2);
	CU_ASSERT_EQUAL(reports_to(&e, mark, 0, idx, 64), 2);
	CU_ASSERT_EQUAL_FATAL(reports_to(&e, mark, h1, idx, 64), 1);
	check_report(&e, idx[0], 65, gid3);
	CU_ASSERT_EQUAL(e.fk.to[idx[0]].qpn, 5);
	uint64_t tid1 = e.fk.mad[idx[0]].hdr.tid;
	CU_ASSERT_EQUAL_FATAL(reports_to(&e, mark, h2b, idx, 64), 1);
	check_report(&e, idx[0], 65, gid3);
	uint64_t tid2 = e.fk.mad[idx[0]].hdr.tid;
	bool toggle = e.fk.mad[idx[0]].data[8] >> 7;
	CU_ASSERT(tid1 != tid2);
	CU_ASSERT_EQUAL(reports_to(&e, mark, h2a, idx, 64), 0);

	/* H1 answers (a wrong TID, the right one from the wrong port, then right): no more to
	 * H1; H2/2 does not answer: resent with the same TID and toggle, then given up */
	send_report_resp(&e, h1, tid1 + 1);
	send_report_resp(&e, h2a, tid1);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_acked, 0);
	send_report_resp(&e, h1, tid1);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_acked, 1);
	before = e.fk.n;
	env_run(&e, 1300);
	CU_ASSERT_EQUAL(e.fk.n - before, INFORM_REPORT_RETRIES);
	CU_ASSERT_EQUAL(reports_to(&e, before, h1, idx, 64), 0);
	n = reports_to(&e, before, h2b, idx, 64);
	CU_ASSERT_EQUAL(n, INFORM_REPORT_RETRIES);
	for (unsigned i = 0; i < n && i < 64; i++) {
		CU_ASSERT_EQUAL(e.fk.mad[idx[i]].hdr.tid, tid2);
		CU_ASSERT_EQUAL(e.fk.mad[idx[i]].data[8] >> 7, toggle);
		check_report(&e, idx[i], 65, gid3);
	}
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_sent, 2 + INFORM_REPORT_RETRIES);
	CU_ASSERT_EQUAL(st.reports_expired, 1);
	send_report_resp(&e, h2b, tid2); /* too late: nothing waits for it */
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_acked, 1);

	/* H3 comes back: trap 64 to C only, with a new toggle; answered at once */
	mark = e.fk.n;
	env_publish(&e, net_full);
	h2a = lid_of(&e, "H2", 1);
	CU_ASSERT_EQUAL(reports_to(&e, mark, 0, idx, 64), 1);
	CU_ASSERT_EQUAL_FATAL(reports_to(&e, mark, h2a, idx, 64), 1);
	check_report(&e, idx[0], 64, gid3);
	CU_ASSERT_NOT_EQUAL(e.fk.mad[idx[0]].data[8] >> 7, toggle);
	send_report_resp(&e, h2a, e.fk.mad[idx[0]].hdr.tid);
	before = e.fk.n;
	env_run(&e, 400);
	CU_ASSERT_EQUAL(e.fk.n, before);
	/* the same fabric again: nothing came or went */
	mark = e.fk.n;
	env_publish(&e, net_full);
	CU_ASSERT_EQUAL(e.fk.n, mark);
	env_fini(&e);
}

static void test_inform_mcast(void)
{
	struct env e;
	struct sa_stats st;
	uint8_t mgid[16] = {0xff, 0x12, 0x40, 0x1b}, other[16] = {0xff, 0x12, 0x40, 0x1c}, ii[36];
	unsigned idx[8], mark;
	uint16_t h1, h3;
	int rc = 0;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h3 = lid_of(&e, "H3", 1);
	mgid[15] = 1;
	/* H1: trap 66, every LID; H3: trap 67 of that MGID only */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 1, 66, 0xffff, 0, 0), 0);
	ii_make(ii, 67, 0, 0, 0, true);
	memcpy(ii, mgid, 16);
	CU_ASSERT_EQUAL(status_of(inform(&e, h3, 1, ii)), 0);
	mark = e.fk.n;
	CU_ASSERT_EQUAL(sa_inform_report_mcast(e.sa, mgid, 0xc001, true), 0);
	CU_ASSERT_EQUAL(reports_to(&e, mark, 0, idx, 8), 1);
	CU_ASSERT_EQUAL_FATAL(reports_to(&e, mark, h1, idx, 8), 1);
	check_report(&e, idx[0], 66, mgid);
	mark = e.fk.n;
	CU_ASSERT_EQUAL(sa_inform_report_mcast(e.sa, other, 0xc002, false), 0);
	CU_ASSERT_EQUAL(e.fk.n, mark);
	CU_ASSERT_EQUAL(sa_inform_report_mcast(e.sa, mgid, 0xc001, false), 0);
	CU_ASSERT_EQUAL_FATAL(reports_to(&e, mark, h3, idx, 8), 1);
	check_report(&e, idx[0], 67, mgid);

	/* nobody answers: at most INFORM_REPORTS_MAX wait, the rest are dropped */
	for (unsigned i = 0; i < INFORM_REPORTS_MAX + 10 && !rc; i++)
		rc = sa_inform_report_mcast(e.sa, other, 0xc002, true);
	CU_ASSERT_EQUAL(rc, -ENOBUFS);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_dropped, 1);
	/* the subscriber leaves: the Reports to it go with it, and there is room again */
	env_publish(&e, net_less);
	CU_ASSERT_EQUAL(subscriptions_now(&e), 1);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.reports_dropped, 1 + 1); /* H3's trap-67 Report, never answered */
	env_fini(&e);
}

/* Give port (desc, port) of the current snapshot a P_Key table (the SM programmed it). */
static void set_pkeys(struct env *e, const char *desc, uint8_t port, uint16_t a, uint16_t b)
{
	uint32_t i = testutil_find_desc(e->cur->fabric, desc);
	struct port *p = (struct port *)&e->cur->fabric->nodes[i].ports[port];

	CU_ASSERT_FATAL(port_pkeys_alloc(p) != NULL);
	memset(p->pkeys, 0, FABRIC_PKEY_BLOCKS * 32 * sizeof(*p->pkeys));
	p->pkeys[0] = a;
	p->pkeys[1] = b;
	p->pkey_known = 1;
}

/*
 * Partitions: a ServiceRecord naming a ServiceP_Key its port does not hold
 * is refused, and is not shown to a requester that does not hold it; an
 * InformInfo for the traps of a port that shares no partition with the
 * subscriber is refused (OpenSM's validate_sr, osm_physp_share_pkey).
 */
static void test_partitions(void)
{
	struct env e;
	uint16_t h1, h3;
	uint64_t g1, g3;
	uint8_t ii[SA_II_SIZE];
	struct sa_stats st;

	env_init(&e);
	h1 = lid_of(&e, "H1", 1);
	h3 = lid_of(&e, "H3", 1);
	g1 = guid_of(&e, "H1", 1);
	g3 = guid_of(&e, "H3", 1);
	set_pkeys(&e, "H1", 1, 0x7fff, 0x8001); /* Red */
	set_pkeys(&e, "H3", 1, 0x7fff, 0x8002); /* Blue */
	{
		uint8_t rec[SA_SR_SIZE];

		sr_make(rec, 0x10, g1, "red");
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0x8001);
		CU_ASSERT_EQUAL(status_of(ask(&e, h1, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					      SR_RID | 1u << SA_SR_PKEY, rec, sizeof(rec))),
				0);
		sr_make(rec, 0x11, g3, "blue-in-red");
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0x8001);
		CU_ASSERT_EQUAL(status_of(ask(&e, h3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					      SR_RID | 1u << SA_SR_PKEY, rec, sizeof(rec))),
				SA_STATUS_REQ_INVALID);
		/* a limited key of the partition will do */
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0x0002);
		CU_ASSERT_EQUAL(status_of(ask(&e, h3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					      SR_RID | 1u << SA_SR_PKEY, rec, sizeof(rec))),
				0);
	}
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h1, 0x10)), 0);
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h3, 0x10)), SA_STATUS_NO_RECORDS);
	e.sm_key = SM_KEY; /* trusted: sees it */
	CU_ASSERT_EQUAL(status_of(sr_get_id(&e, h3, 0x10)), 0);
	e.sm_key = 0;
	/* traps about H3 (Blue) for H1 (Red): they share the default, limited both: no */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 1, 64, 0, 0, g3), SA_STATUS_REQ_INVALID);
	/* about itself: yes */
	CU_ASSERT_EQUAL(subscribe(&e, h1, 1, 64, 0, 0, g1), 0);
	/* H2 (table unknown: full in the default) shares the default with H3 */
	CU_ASSERT_EQUAL(subscribe(&e, lid_of(&e, "H2", 1), 1, 64, 0, 0, g3), 0);
	/* H2 moved out of the default: it may still unsubscribe */
	set_pkeys(&e, "H2", 1, 0x8001, 0);
	ii_make(ii, 64, 0, 0, g3, false);
	CU_ASSERT_EQUAL(status_of(inform(&e, lid_of(&e, "H2", 1), 1, ii)), 0);
	sa_get_stats(e.sa, &st);
	CU_ASSERT_EQUAL(st.pkey_services, 1);
	CU_ASSERT_EQUAL(st.pkey_informs, 1);
	env_fini(&e);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"codecs: ServiceRecord, InformInfo(Record), Notice", test_codecs},
	    {"partitions: ServiceP_Key and the InformInfo GID", test_partitions},
	    {"services: register, refresh, Get, GetTable, Delete", test_service_register},
	    {"services: only the port itself (or a trusted requester)", test_service_who_may},
	    {"services: leases expire, refreshed ones later", test_service_lease},
	    {"services: removed when their port leaves", test_service_port_leaves},
	    {"services: the limit", test_service_limit},
	    {"InformInfo: subscribe, unsubscribe, records, refusals, limits",
	     test_inform_subscribe},
	    {"Reports: traps 64/65 to who selects them, resent, acked, given up",
	     test_inform_reports},
	    {"Reports: traps 66/67, in-flight limit, subscriber gone", test_inform_mcast},
	    {NULL, NULL},
	};

	return testutil_run("service", cases);
}

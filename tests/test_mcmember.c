/*
 * Unit tests of MCMemberRecord: the codec (mad/sa_wire.c) against OpenSM's
 * ib_member_rec_t layout and libibmad's IB_SA_MCM_* fields; joins, leaves
 * and queries through the SA server (sa/sa.c, sa/mcmember.c) over the group
 * database (sa/mcast.c), with a fake send that keeps every MAD, a real
 * libevent loop, and a fat tree from tests/topogen.h: creates with the
 * parameters asked for (and the MLID in the answer), more members, an MGID
 * the SA assigns, every refusal with its status, who may join for whom, the
 * last full member's leave deleting the group, Reports of traps 66 and 67,
 * what trusted and other requesters see in Get and GetTable, and 10,000
 * join/leave cycles that leave no group, member or MLID behind.
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
#include "sa/mcast.h"
#include "sa/sa.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

/* ---- the codec ------------------------------------------------------------------- */

/* A record with every field distinct. */
static void mcm_sample(struct sa_wire_mcm_rec *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 16; i++) {
		m->mgid[i] = (uint8_t)(0xf0 + i);
		m->port_gid[i] = (uint8_t)(0x10 + i);
	}
	m->mgid[0] = 0xff;
	m->qkey = 0x80010203;
	m->mlid = 0xc00d;
	m->mtu_sel = 2;
	m->mtu = 5;
	m->tclass = 0x5a;
	m->pkey = 0xfffe;
	m->rate_sel = 1;
	m->rate = 7;
	m->pkt_life_sel = 3;
	m->pkt_life = 0x12;
	m->sl = 0xa;
	m->flow_label = 0xbcdef;
	m->hop_limit = 0x3c;
	m->scope = 0x5;
	m->join_state = 0x6;
	m->proxy_join = true;
}

static void test_codec(void)
{
	const struct sa_wire_rec *r = &sa_wire_mcmember_record;
	struct sa_wire_mcm_rec m, d;
	uint8_t img[64], gold[64] = {0}, q[64];

	/* OpenSM's IB_MCR_COMPMASK_*: 18 components and a reserved one; 53 bytes, 56 apart */
	CU_ASSERT_EQUAL(r->n_comps, 19);
	CU_ASSERT_EQUAL(r->size, IB_SA_MCM_RECSZ);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(r), 56);
	CU_ASSERT(sa_wire_mask_valid(r, 1ULL << 18));
	CU_ASSERT(!sa_wire_mask_valid(r, 1ULL << 19));
	CU_ASSERT_STRING_EQUAL(r->comps[SA_MCM_PROXY_JOIN].name, "ProxyJoin");
	CU_ASSERT(r->comps[SA_MCM_RESV].reserved);

	/* golden bytes, at ib_member_rec_t's offsets */
	mcm_sample(&m);
	memset(img, 0xee, sizeof(img));
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, img, sizeof(img)), 53);
	memcpy(gold, m.mgid, 16);
	memcpy(gold + 16, m.port_gid, 16);
	gold[32] = 0x80, gold[33] = 0x01, gold[34] = 0x02, gold[35] = 0x03; /* qkey */
	gold[36] = 0xc0, gold[37] = 0x0d;				    /* mlid */
	gold[38] = 2 << 6 | 5;						    /* mtu */
	gold[39] = 0x5a;						    /* tclass */
	gold[40] = 0xff, gold[41] = 0xfe;				    /* pkey */
	gold[42] = 1 << 6 | 7;						    /* rate */
	gold[43] = 3 << 6 | 0x12;					    /* pkt_life */
	/* sl_flow_hop: ib_member_set_sl_flow_hop(0xa, 0xbcdef, 0x3c) */
	uint32_t sfh = 0xau << 28 | 0xbcdefu << 8 | 0x3c;
	gold[44] = (uint8_t)(sfh >> 24), gold[45] = (uint8_t)(sfh >> 16);
	gold[46] = (uint8_t)(sfh >> 8), gold[47] = (uint8_t)sfh;
	gold[48] = 0x5 << 4 | 0x6; /* scope_state */
	gold[49] = 0x80;	   /* ProxyJoin: bit 392, the IBA's and libibmad's */
	CU_ASSERT_EQUAL(memcmp(img, gold, 53), 0);
	CU_ASSERT_EQUAL(img[53], 0xee); /* nothing past the record */

	/* libibmad's fields read the same values */
	uint8_t gid[16];
	mad_get_array(img, 0, IB_SA_MCM_MGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, m.mgid, 16), 0);
	mad_get_array(img, 0, IB_SA_MCM_PORTGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, m.port_gid, 16), 0);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_QKEY_F), m.qkey);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_MLID_F), m.mlid);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_MTU_F), m.mtu);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_TCLASS_F), m.tclass);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_PKEY_F), m.pkey);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_RATE_F), m.rate);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_SL_F), m.sl);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_JOIN_STATE_F), m.join_state);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_FLOW_LABEL_F), m.flow_label);
	/* but it writes a value wider than 20 bits over the SL: our component does not */
	memcpy(q, img, 53);
	mad_set_field(q, 0, IB_SA_MCM_FLOW_LABEL_F, 0xffffffu);
	CU_ASSERT_EQUAL(mad_get_field(q, 0, IB_SA_MCM_SL_F), 0xf);
	memcpy(q, img, 53);
	sa_wire_comp_set(r, SA_MCM_FLOW_LABEL, q, 0xffffffu);
	CU_ASSERT_EQUAL(mad_get_field(q, 0, IB_SA_MCM_SL_F), m.sl);

	/* decode -> the same values; encode of the decoded -> the same bytes */
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(img, 53, &d), 0);
	CU_ASSERT_EQUAL(memcmp(d.mgid, m.mgid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.port_gid, m.port_gid, 16), 0);
	CU_ASSERT(
	    d.qkey == m.qkey && d.mlid == m.mlid && d.mtu_sel == m.mtu_sel && d.mtu == m.mtu &&
	    d.tclass == m.tclass && d.pkey == m.pkey && d.rate_sel == m.rate_sel &&
	    d.rate == m.rate && d.pkt_life_sel == m.pkt_life_sel && d.pkt_life == m.pkt_life &&
	    d.sl == m.sl && d.flow_label == m.flow_label && d.hop_limit == m.hop_limit &&
	    d.scope == m.scope && d.join_state == m.join_state && d.proxy_join == m.proxy_join);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&d, q, sizeof(q)), 53);
	CU_ASSERT_EQUAL(memcmp(q, img, 53), 0);

	/* components: each one's value through the table */
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_QKEY, img), m.qkey);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_MTU_SEL, img), 2);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_FLOW_LABEL, img), 0xbcdef);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_HOP_LIMIT, img), 0x3c);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_SCOPE, img), 5);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_PKT_LIFE_SEL, img), 3);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_PKT_LIFE, img), 0x12);
	/* one component changed: only that bit of the mask refuses the match */
	for (unsigned c = 0; c < SA_MCM_RESV; c++) {
		memcpy(q, img, 53);
		if (c <= SA_MCM_PORT_GID)
			q[16 * c + 15] ^= 1;
		else
			sa_wire_comp_set(r, c, q, sa_wire_comp_get(r, c, img) ^ 1);
		CU_ASSERT(!sa_wire_match(r, q, img, 1ULL << c));
		CU_ASSERT(sa_wire_match(r, q, img, ~(1ULL << c) & ((1ULL << 19) - 1)));
	}
	memcpy(q, img, 53);
	q[52] ^= 0x01; /* the reserved bits never decide */
	CU_ASSERT(sa_wire_match(r, q, img, (1ULL << 19) - 1));

	/* truncation at every length; encode needs the room */
	for (size_t len = 0; len < 53; len++)
		CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(img, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(NULL, 53, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, q, 52), -ENOSPC);
	/* out-of-range values are cut to their widths */
	m.sl = 0x1f;
	m.flow_label = 0xfffffff;
	m.join_state = 0xff;
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, q, sizeof(q)), 53);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(q, 53, &d), 0);
	CU_ASSERT(d.sl == 0xf && d.flow_label == 0xfffff && d.join_state == 0xf);
	CU_ASSERT_EQUAL(d.scope, 5);
}

/* ---- the server with a fake send, a real loop and a group database -------------------- */

#define PREFIX 0xfe80000000000000ULL
#define SM_GUID 0xabcdefULL
#define SA_KEY 0x1234ULL
#define JOIN_COMPS (MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE)
#define CREATE_COMPS                                                                               \
	(JOIN_COMPS | MCAST_C_QKEY | MCAST_C_PKEY | MCAST_C_SL | MCAST_C_FLOW | MCAST_C_TCLASS)

struct fake {
	unsigned n, cap;
	struct sa_wire_mad *mad;
	struct madio_dest *to;
};

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct fake *fk = ctx;

	if (fk->n == fk->cap) {
		fk->cap = fk->cap ? 2 * fk->cap : 256;
		fk->mad = realloc(fk->mad, fk->cap * sizeof(*fk->mad));
		fk->to = realloc(fk->to, fk->cap * sizeof(*fk->to));
		CU_ASSERT_FATAL(fk->mad && fk->to);
	}
	CU_ASSERT_EQUAL(sa_wire_decode(mad, len, &fk->mad[fk->n]), 0);
	fk->to[fk->n++] = *to;
	return 0;
}

static void fake_sm_info(void *ctx, struct sa_sm_info *ret)
{
	*ret = (struct sa_sm_info){.port_guid = SM_GUID, .sa_key = SA_KEY, .state = 3};
}

struct env {
	struct event_base *base;
	struct fake fk;
	struct sa *sa;
	struct mcast_db *db;
	struct snapshot *snap;
	uint64_t sm_key; /* what queries carry */
};

static void env_init_db(struct env *e, bool with_db)
{
	char *text = topogen_fat_tree(2, 4, 0, 0); /* ca-0 .. ca-7 on four leaves */
	struct fabric *f;
	const struct mcast_group *g;

	memset(e, 0, sizeof(*e));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	f = testutil_load_text(text);
	free(text);
	CU_ASSERT_EQUAL_FATAL(
	    snapshot_new(f, routes_new(f, testutil_assign_lids(f, 0)), 1, &e->snap), 0);
	e->base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->base);
	e->sa = sa_new(e->base, &(struct sa_ops){fake_send, fake_sm_info, &e->fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->sa);
	sa_publish(e->sa, e->snap);
	if (!with_db)
		return;
	e->db = mcast_db_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->db);
	CU_ASSERT_EQUAL(mcast_add_ipoib_broadcast(e->db, 3, 0, &g), 0);
	CU_ASSERT_EQUAL(sa_set_mcast(e->sa, e->db), 0);
}

static void env_init(struct env *e)
{
	env_init_db(e, true);
}

static void env_fini(struct env *e)
{
	CU_ASSERT_EQUAL(sa_set_mcast(e->sa, NULL), 0);
	mcast_db_free(e->db);
	sa_free(e->sa);
	snapshot_free(e->snap);
	event_base_free(e->base);
	free(e->fk.mad);
	free(e->fk.to);
}

static const struct port *port_of(const struct env *e, const char *desc)
{
	uint32_t i = testutil_find_desc(e->snap->fabric, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return &e->snap->fabric->nodes[i].ports[1];
}

static uint16_t lid_of(const struct env *e, const char *desc)
{
	return port_of(e, desc)->lid;
}

static uint64_t guid_of(const struct env *e, const char *desc)
{
	return port_of(e, desc)->guid;
}

static void gid_put(uint8_t *at, uint64_t prefix, uint64_t guid)
{
	sa_wire_bits_set(at, 0, 64, prefix);
	sa_wire_bits_set(at, 64, 64, guid);
}

/* An MGID ff15::<id> (transient, site-local). */
static void mgid_of(unsigned id, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x15;
	mgid[14] = (uint8_t)(id >> 8);
	mgid[15] = (uint8_t)id;
}

/* A request from LID slid; the answer (the last MAD sent), NULL when none. */
static struct sa_wire_mad *ask(struct env *e, uint16_t slid, uint8_t method, uint16_t attr,
			       uint64_t mask, const uint8_t *rec, size_t len)
{
	struct madio_addr from = {.slid = slid, .qpn = 1, .qkey = 0x80010000, .sl = 0};
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

static uint16_t status_of(const struct sa_wire_mad *a)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	return a->hdr.status;
}

/* The record of a join: group parameters as a create would give them, for port guid. */
static void mcr_make(struct sa_wire_mcm_rec *r, const uint8_t mgid[16], uint64_t guid,
		     uint8_t join_state)
{
	memset(r, 0, sizeof(*r));
	if (mgid)
		memcpy(r->mgid, mgid, 16);
	gid_put(r->port_gid, PREFIX, guid);
	r->qkey = 0x11223344;
	r->pkey = 0xffff;
	r->sl = 3;
	r->flow_label = 0x12345;
	r->tclass = 0x20;
	r->join_state = join_state;
}

static struct sa_wire_mad *mcr_send(struct env *e, uint16_t slid, uint8_t method,
				    const struct sa_wire_mcm_rec *r, uint64_t mask)
{
	uint8_t img[SA_MCM_SIZE];

	sa_wire_mcm_rec_encode(r, img, sizeof(img));
	return ask(e, slid, method, SA_ATTR_MCMEMBER_RECORD, mask, img, sizeof(img));
}

/* Port `who` joins mgid for itself (JoinState js), with the create components. */
static struct sa_wire_mad *join(struct env *e, const char *who, const uint8_t mgid[16], uint8_t js)
{
	struct sa_wire_mcm_rec r;

	mcr_make(&r, mgid, guid_of(e, who), js);
	return mcr_send(e, lid_of(e, who), SA_METHOD_SET, &r, CREATE_COMPS);
}

static struct sa_wire_mad *leave(struct env *e, const char *who, const uint8_t mgid[16], uint8_t js)
{
	struct sa_wire_mcm_rec r;

	mcr_make(&r, mgid, guid_of(e, who), js);
	return mcr_send(e, lid_of(e, who), SA_METHOD_DELETE, &r, JOIN_COMPS);
}

static struct sa_wire_mcm_rec answer_rec(const struct sa_wire_mad *a)
{
	struct sa_wire_mcm_rec r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(a->data, SA_MCM_SIZE, &r), 0);
	return r;
}

static void sa_counts(struct env *e, struct sa_stats *st)
{
	sa_get_stats(e->sa, st);
}

static void test_join_create(void)
{
	struct env e;
	struct sa_wire_mad *a;
	struct sa_wire_mcm_rec r;
	const struct mcast_group *g;
	struct sa_stats st;
	uint8_t mgid[16];

	env_init(&e);
	mgid_of(1, mgid);
	a = join(&e, "ca-1", mgid, MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->hdr.attr_id, SA_ATTR_MCMEMBER_RECORD);
	r = answer_rec(a);
	CU_ASSERT_EQUAL(memcmp(r.mgid, mgid, 16), 0);
	CU_ASSERT_EQUAL(r.mlid, 0xC001); /* the broadcast group has 0xC000 */
	CU_ASSERT_EQUAL(r.qkey, 0x11223344);
	CU_ASSERT_EQUAL(r.pkey, 0xffff);
	CU_ASSERT(r.sl == 3 && r.flow_label == 0x12345 && r.tclass == 0x20);
	/* the port's MTU (2048) and rate (4x SDR: 10 Gb/s), selectors "exactly" */
	CU_ASSERT(r.mtu == 4 && r.mtu_sel == 2 && r.rate == 3 && r.rate_sel == 2);
	CU_ASSERT(r.pkt_life == MCAST_DEFAULT_PKT_LIFE && r.pkt_life_sel == 2);
	CU_ASSERT(r.scope == 5 && r.hop_limit == 0xff); /* site-local */
	CU_ASSERT(r.join_state == MCAST_FULL && !r.proxy_join);
	CU_ASSERT_EQUAL(sa_wire_bits_get(r.port_gid, 64, 64), guid_of(&e, "ca-1"));
	g = mcast_find(e.db, mgid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT(g->mlid == 0xC001 && g->n_members == 1 && g->full_members == 1);
	CU_ASSERT_PTR_NOT_NULL(mcast_group_member(g, guid_of(&e, "ca-1")));

	/* a second member: the same MLID, its own JoinState; then full too: the OR */
	mcr_make(&r, mgid, guid_of(&e, "ca-6"), MCAST_NON);
	a = mcr_send(&e, lid_of(&e, "ca-6"), SA_METHOD_SET, &r, JOIN_COMPS);
	CU_ASSERT_EQUAL(status_of(a), 0);
	r = answer_rec(a);
	CU_ASSERT(r.mlid == 0xC001 && r.join_state == MCAST_NON && r.qkey == 0x11223344);
	r = answer_rec(join(&e, "ca-6", mgid, MCAST_FULL));
	CU_ASSERT_EQUAL(r.join_state, MCAST_FULL | MCAST_NON);
	CU_ASSERT(g->n_members == 2 && g->full_members == 2);
	/* a join with a default prefix (fe80::) is the subnet's; the same member */
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-6", mgid, MCAST_NON)), 0);
	CU_ASSERT_EQUAL(g->n_members, 2);

	/* an MTU and a rate asked for with selectors, on a new group */
	mcr_make(&r, NULL, guid_of(&e, "ca-2"), MCAST_FULL);
	mgid_of(2, r.mgid);
	r.mtu_sel = MCAST_SEL_EQ;
	r.mtu = 3;
	r.rate_sel = MCAST_SEL_LT;
	r.rate = 3;
	r.pkt_life = 10;
	a = mcr_send(&e, lid_of(&e, "ca-2"), SA_METHOD_SET, &r,
		     CREATE_COMPS | MCAST_C_MTU_SEL | MCAST_C_MTU | MCAST_C_RATE_SEL |
			 MCAST_C_RATE | MCAST_C_LIFE);
	CU_ASSERT_EQUAL(status_of(a), 0);
	r = answer_rec(a);
	CU_ASSERT(r.mlid == 0xC002 && r.mtu == 3 && r.rate == 5 && r.pkt_life == 10); /* 5 Gb/s */

	sa_counts(&e, &st);
	CU_ASSERT_EQUAL(st.mcast_joins, 5);
	CU_ASSERT_EQUAL(st.mcast_refused, 0);
	CU_ASSERT_EQUAL(mcast_group_count(e.db), 3);
	env_fini(&e);
}

/* SendOnlyFullMember through the SA: a Set with JoinState 0x8 creates; the last leave deletes. */
static void test_send_only_full(void)
{
	struct env e;
	struct sa_wire_mcm_rec r;
	const struct mcast_group *g;
	uint8_t mgid[16];

	env_init(&e);
	mgid_of(9, mgid);
	r = answer_rec(join(&e, "ca-1", mgid, MCAST_SEND_ONLY_FULL));
	CU_ASSERT(r.join_state == MCAST_SEND_ONLY_FULL && r.mlid == 0xC001);
	g = mcast_find(e.db, mgid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT(g->full_members == 0 && g->n_members == 1);
	/* a receiver joins as a non member; the send-only full member leaves, then the receiver:
	 * the group goes with its last member */
	mcr_make(&r, mgid, guid_of(&e, "ca-6"), MCAST_NON);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, lid_of(&e, "ca-6"), SA_METHOD_SET, &r, JOIN_COMPS)),
			0);
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", mgid, MCAST_SEND_ONLY_FULL)), 0);
	CU_ASSERT_PTR_NOT_NULL(mcast_find(e.db, mgid));
	mcr_make(&r, mgid, guid_of(&e, "ca-6"), MCAST_NON);
	CU_ASSERT_EQUAL(
	    status_of(mcr_send(&e, lid_of(&e, "ca-6"), SA_METHOD_DELETE, &r, JOIN_COMPS)), 0);
	CU_ASSERT_PTR_NULL(mcast_find(e.db, mgid));
	env_fini(&e);
}

static void test_assigned_mgid(void)
{
	struct env e;
	struct sa_wire_mcm_rec r, r2;
	uint8_t zero[16] = {0};

	env_init(&e);
	/* MGID 0: the SA picks ff12:a01b:<prefix>::<id> (link-local by default) */
	r = answer_rec(join(&e, "ca-0", zero, MCAST_FULL));
	CU_ASSERT(r.mgid[0] == 0xff && r.mgid[1] == 0x12 && r.mgid[2] == 0xa0 && r.mgid[3] == 0x1b);
	CU_ASSERT_EQUAL(sa_wire_bits_get(r.mgid, 32, 64), PREFIX);
	CU_ASSERT(r.mlid == 0xC001 && r.scope == 2 && r.hop_limit == 0);
	CU_ASSERT_PTR_NOT_NULL(mcast_find(e.db, r.mgid));
	/* another: another MGID and MLID; the assigned one can be joined by others */
	r2 = answer_rec(join(&e, "ca-1", zero, MCAST_FULL));
	CU_ASSERT(memcmp(r.mgid, r2.mgid, 16) != 0 && r2.mlid == 0xC002);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-2", r.mgid, MCAST_FULL)), 0);
	CU_ASSERT_EQUAL(mcast_find(e.db, r.mgid)->n_members, 2);
	/* with a scope: ff15:a01b */
	mcr_make(&r2, zero, guid_of(&e, "ca-3"), MCAST_FULL);
	r2.scope = 5;
	r = answer_rec(
	    mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_SET, &r2, CREATE_COMPS | MCAST_C_SCOPE));
	CU_ASSERT(r.mgid[1] == 0x15 && r.mgid[2] == 0xa0 && r.scope == 5);
	/* MGID 0 without the create components, or not full */
	mcr_make(&r2, zero, guid_of(&e, "ca-3"), MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_SET, &r2, JOIN_COMPS)),
			SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-3", zero, MCAST_NON)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_group_count(e.db), 4);
	env_fini(&e);
}

static void test_refusals(void)
{
	struct env e;
	struct sa_wire_mcm_rec r;
	struct sa_wire_mad *a;
	struct sa_stats st;
	uint8_t mgid[16], other[16];
	uint16_t h3 = 0;

	env_init(&e);
	h3 = lid_of(&e, "ca-3");
	mgid_of(7, mgid);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-1", mgid, MCAST_FULL)), 0);

	/* a component that disagrees with the group's: Q_Key, SL, TClass, P_Key, MTU */
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	r.qkey = 0x99;
	a = mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS);
	CU_ASSERT_EQUAL(status_of(a), SA_STATUS_REQ_INVALID);
	/* the answer carries the request back */
	CU_ASSERT_EQUAL(sa_wire_comp_get(&sa_wire_mcmember_record, SA_MCM_QKEY, a->data), 0x99);
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	r.sl = 4;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS | MCAST_C_SL)),
			SA_STATUS_REQ_INVALID);
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	r.mtu_sel = MCAST_SEL_GT;
	r.mtu = 4;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r,
					   JOIN_COMPS | MCAST_C_MTU_SEL | MCAST_C_MTU)),
			SA_STATUS_REQ_INVALID);
	/* codes that are no MTU or rate; a P_Key of another partition; JoinState bit 3 */
	r.mtu_sel = MCAST_SEL_EQ;
	r.mtu = 6;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r,
					   JOIN_COMPS | MCAST_C_MTU_SEL | MCAST_C_MTU)),
			SA_STATUS_REQ_INVALID);
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	r.rate_sel = MCAST_SEL_EQ;
	r.rate = 1;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r,
					   JOIN_COMPS | MCAST_C_RATE_SEL | MCAST_C_RATE)),
			SA_STATUS_REQ_INVALID);
	mgid_of(8, other);
	mcr_make(&r, other, guid_of(&e, "ca-3"), MCAST_FULL);
	r.pkey = 0x8001;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS)),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-3", mgid, 0)), SA_STATUS_REQ_INVALID);
	/* the mask: no JoinState, no PortGID; components past the record */
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	CU_ASSERT_EQUAL(
	    status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, MCAST_C_MGID | MCAST_C_PORT_GID)),
	    SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(
	    status_of(mcr_send(&e, h3, SA_METHOD_DELETE, &r, MCAST_C_MGID | MCAST_C_JOIN_STATE)),
	    SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS | 1ULL << 19)),
			SA_STATUS_REQ_INVALID);
	/* the PortGID: another prefix, GUID 0, a GUID no port has; a requester no port is */
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	gid_put(r.port_gid, 0xfe80000000000001ULL, guid_of(&e, "ca-3"));
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_INVALID_GID);
	e.sm_key = SA_KEY; /* even trusted */
	mcr_make(&r, mgid, 0, MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_INVALID_GID);
	mcr_make(&r, mgid, 0x999, MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_INVALID_GID);
	e.sm_key = 0;
	mcr_make(&r, mgid, guid_of(&e, "ca-3"), MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, 999, SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_REQ_INVALID);

	/* leaves: a group that does not exist, a port that is not a member, a bit not held */
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", other, MCAST_FULL)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-3", mgid, MCAST_FULL)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", mgid, MCAST_NON)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", mgid, 0)), SA_STATUS_REQ_INVALID);
	/* the IPoIB broadcast group cannot be left by who is not in it */
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", mcast_ipoib_broadcast_mgid, MCAST_FULL)),
			SA_STATUS_REQ_INVALID);
	/* nothing changed */
	CU_ASSERT_EQUAL(mcast_group_count(e.db), 2);
	CU_ASSERT_EQUAL(mcast_member_count(e.db), 1);
	sa_counts(&e, &st);
	CU_ASSERT_EQUAL(st.mcast_joins, 1);
	CU_ASSERT_EQUAL(st.mcast_refused, 18); /* the bad mask is the server's to refuse */
	env_fini(&e);
}

static void test_who_may(void)
{
	struct env e;
	struct sa_wire_mcm_rec r;
	uint8_t mgid[16];
	uint16_t h3;
	uint64_t g4;

	env_init(&e);
	h3 = lid_of(&e, "ca-3");
	g4 = guid_of(&e, "ca-4");
	mgid_of(9, mgid);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-1", mgid, MCAST_FULL)), 0);
	/* ca-3 joins or creates for ca-4's PortGID: denied */
	mcr_make(&r, mgid, g4, MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS)),
			SA_STATUS_DENIED);
	mgid_of(10, r.mgid);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS)),
			SA_STATUS_DENIED);
	/* a ProxyJoin bit changes nothing, a wrong key is no key */
	memcpy(r.mgid, mgid, 16);
	r.proxy_join = true;
	CU_ASSERT_EQUAL(
	    status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS | MCAST_C_PROXY)),
	    SA_STATUS_DENIED);
	e.sm_key = SA_KEY + 1;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS)),
			SA_STATUS_DENIED);
	/* nor leave for ca-1 */
	e.sm_key = 0;
	mcr_make(&r, mgid, guid_of(&e, "ca-1"), MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_DELETE, &r, JOIN_COMPS)),
			SA_STATUS_DENIED);
	CU_ASSERT_EQUAL(mcast_find(e.db, mgid)->n_members, 1);

	/* trusted: a proxy join for ca-4 (ProxyJoin 1 in the answer) */
	e.sm_key = SA_KEY;
	mcr_make(&r, mgid, g4, MCAST_FULL);
	r = answer_rec(mcr_send(&e, h3, SA_METHOD_SET, &r, CREATE_COMPS));
	CU_ASSERT(r.join_state == MCAST_FULL && r.proxy_join);
	CU_ASSERT(mcast_group_member(mcast_find(e.db, mgid), g4)->proxy);
	/* but no proxy change of a membership ca-1 made itself (o15-0.2.1) */
	mcr_make(&r, mgid, guid_of(&e, "ca-1"), MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_DELETE, &r, JOIN_COMPS)),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h3, SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_REQ_INVALID);
	/* a trusted requester joining for itself is no proxy */
	r = answer_rec(join(&e, "ca-3", mgid, MCAST_NON));
	CU_ASSERT(!r.proxy_join);
	/* the port itself may leave what a proxy made for it */
	e.sm_key = 0;
	r = answer_rec(leave(&e, "ca-4", mgid, MCAST_FULL));
	CU_ASSERT(r.join_state == 0 && r.proxy_join);
	CU_ASSERT_EQUAL(mcast_find(e.db, mgid)->n_members, 2);
	env_fini(&e);
}

/* The Reports sent since from, with their trap numbers and the MGID in the notice. */
static unsigned reports(const struct env *e, unsigned from, uint16_t trap, const uint8_t *mgid,
			uint16_t dlid)
{
	unsigned n = 0;

	for (unsigned i = from; i < e->fk.n; i++) {
		const struct sa_wire_mad *m = &e->fk.mad[i];
		struct sa_wire_notice no;

		if (m->hdr.method != SA_METHOD_REPORT || e->fk.to[i].dlid != dlid ||
		    sa_wire_notice_decode(m->data, sizeof(m->data), &no) < 0)
			continue;
		if (no.trap_num == trap && !memcmp(no.data + SA_WIRE_NOTICE_GID_OFFS, mgid, 16))
			n++;
	}
	return n;
}

static uint16_t subscribe(struct env *e, const char *who, uint16_t trap)
{
	const struct sa_wire_rec *r = &sa_wire_inform_info;
	uint8_t ii[SA_II_SIZE] = {0};

	sa_wire_comp_set(r, SA_II_LID_BEGIN, ii, 0xffff);
	sa_wire_comp_set(r, SA_II_IS_GENERIC, ii, 1);
	sa_wire_comp_set(r, SA_II_SUBSCRIBE, ii, 1);
	sa_wire_comp_set(r, SA_II_TYPE, ii, 0xffff);
	sa_wire_comp_set(r, SA_II_TRAP, ii, trap);
	sa_wire_comp_set(r, SA_II_PRODUCER, ii, 0xffffff);
	return status_of(
	    ask(e, lid_of(e, who), SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, ii, SA_II_SIZE));
}

static void test_leave_and_reports(void)
{
	struct env e;
	struct sa_wire_mcm_rec r;
	struct sa_wire_mad *a;
	struct sa_stats st;
	uint8_t mgid[16];
	uint16_t h5;
	unsigned mark;

	env_init(&e);
	h5 = lid_of(&e, "ca-5");
	CU_ASSERT_EQUAL(subscribe(&e, "ca-5", 66), 0);
	CU_ASSERT_EQUAL(subscribe(&e, "ca-5", 67), 0);
	mgid_of(0x42, mgid);

	/* the create: a Report of trap 66 with the MGID */
	mark = e.fk.n;
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-1", mgid, MCAST_FULL)), 0);
	CU_ASSERT_EQUAL(reports(&e, mark, 66, mgid, h5), 1);
	mark = e.fk.n;
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-2", mgid, MCAST_FULL | MCAST_NON)), 0);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-7", mgid, MCAST_SEND_ONLY)), 0);
	CU_ASSERT_EQUAL(reports(&e, mark, 66, mgid, h5), 0); /* joins create nothing */

	/* ca-2 gives up FullMember: a member still (NonMember); the answer says so */
	a = leave(&e, "ca-2", mgid, MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_DELETE_RESP);
	r = answer_rec(a);
	CU_ASSERT(r.join_state == MCAST_NON && r.mlid == 0xC001 && r.qkey == 0x11223344);
	/* the last full member leaves: the group goes with its other members */
	mark = e.fk.n;
	r = answer_rec(leave(&e, "ca-1", mgid, MCAST_FULL));
	CU_ASSERT(r.join_state == 0 && r.mlid == 0xC001 && !memcmp(r.mgid, mgid, 16));
	CU_ASSERT_PTR_NULL(mcast_find(e.db, mgid));
	CU_ASSERT_PTR_NULL(mcast_find_mlid(e.db, 0xC001));
	CU_ASSERT_EQUAL(mcast_member_count(e.db), 0);
	CU_ASSERT_EQUAL(mcast_mlid_count(e.db), 1);
	CU_ASSERT_EQUAL(reports(&e, mark, 67, mgid, h5), 1);
	/* gone: leaving again is refused, the MLID is taken by the next create */
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-2", mgid, MCAST_NON)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(answer_rec(join(&e, "ca-3", mgid, MCAST_FULL)).mlid, 0xC001);

	/* a group whose member's port leaves the fabric (sm/mfts.c's mcast_reconcile): 67 too */
	mark = e.fk.n;
	CU_ASSERT_EQUAL(mcast_port_gone(e.db, guid_of(&e, "ca-3")), 1);
	CU_ASSERT_EQUAL(reports(&e, mark, 67, mgid, h5), 1);
	sa_counts(&e, &st);
	CU_ASSERT_EQUAL(st.mcast_leaves, 2);
	CU_ASSERT_EQUAL(st.reports_sent, 4);
	env_fini(&e);
}

/* The records of a GetTable answer (one MAD here: no more than 3 records). */
static unsigned table_recs(const struct sa_wire_mad *a, struct sa_wire_mcm_rec *ret, unsigned max)
{
	unsigned n = 0;

	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_TABLE_RESP);
	if (!a->attr_offset)
		return 0;
	CU_ASSERT_EQUAL(a->attr_offset, 7);
	for (unsigned off = 0; off + 56 <= (a->rmpp_data2 - 20) && n < max; off += 56)
		sa_wire_mcm_rec_decode(a->data + off, SA_MCM_SIZE, &ret[n++]);
	return n;
}

static void test_queries(void)
{
	struct env e;
	struct sa_wire_mcm_rec r, got[8];
	uint8_t mgid[16], mgid2[16], zero[16] = {0};
	uint16_t h0;
	uint64_t g1, g2;
	unsigned n;

	env_init(&e);
	h0 = lid_of(&e, "ca-0");
	g1 = guid_of(&e, "ca-1");
	g2 = guid_of(&e, "ca-2");
	mgid_of(1, mgid);
	mgid_of(2, mgid2);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-1", mgid, MCAST_FULL)), 0);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-2", mgid, MCAST_NON)), 0);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-2", mgid2, MCAST_FULL)), 0);

	/* untrusted, nothing in the mask: one record per group (the empty broadcast one too),
	 * PortGID, JoinState and ProxyJoin zero */
	mcr_make(&r, zero, 0, 0);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, 0), got, 8);
	CU_ASSERT_EQUAL(n, 3);
	for (unsigned i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(memcmp(got[i].port_gid, zero, 16), 0);
		CU_ASSERT(got[i].join_state == 0 && !got[i].proxy_join);
		CU_ASSERT(got[i].mlid >= 0xC000 && got[i].mlid <= 0xC002);
	}
	/* untrusted by MGID: the group once, members hidden; a Get finds exactly it */
	mcr_make(&r, mgid, 0, 0);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_MGID), got, 8);
	CU_ASSERT(n == 1 && got[0].mlid == 0xC001 && got[0].join_state == 0);
	r = answer_rec(mcr_send(&e, h0, SA_METHOD_GET, &r, MCAST_C_MGID));
	CU_ASSERT(r.mlid == 0xC001 && r.qkey == 0x11223344 && r.sl == 3);
	/* untrusted by PortGID: the groups ca-2 is in (2), hidden as groups */
	mcr_make(&r, zero, g2, 0);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_PORT_GID), got, 8);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT(memcmp(got[0].port_gid, zero, 16) == 0 && got[0].join_state == 0);
	/* by JoinState: the groups with a NonMember */
	mcr_make(&r, zero, 0, MCAST_NON);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_JOIN_STATE), got, 8);
	CU_ASSERT(n == 1 && got[0].mlid == 0xC001);

	/* trusted, by MGID: that group's members as records */
	e.sm_key = SA_KEY;
	mcr_make(&r, mgid, 0, 0);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_MGID), got, 8);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (unsigned i = 0; i < n; i++) {
		uint64_t g = sa_wire_bits_get(got[i].port_gid, 64, 64);
		CU_ASSERT(g == g1 || g == g2);
		CU_ASSERT_EQUAL(got[i].join_state, g == g1 ? MCAST_FULL : MCAST_NON);
		CU_ASSERT_EQUAL(sa_wire_bits_get(got[i].port_gid, 0, 64), PREFIX);
	}
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h0, SA_METHOD_GET, &r, MCAST_C_MGID)),
			SA_STATUS_TOO_MANY_RECORDS);
	/* trusted, nothing: every member; the broadcast group has none, so no record (issue 27:
	 * it was listed with a phantom member of PortGID ::, OpenSM lists none) */
	mcr_make(&r, zero, 0, 0);
	n = table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, 0), got, 8);
	CU_ASSERT_EQUAL(n, 3);
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT(sa_wire_bits_get(got[i].port_gid, 64, 64) != 0);
	/* trusted Get by MGID and PortGID: that member */
	mcr_make(&r, mgid, g2, 0);
	r = answer_rec(mcr_send(&e, h0, SA_METHOD_GET, &r, MCAST_C_MGID | MCAST_C_PORT_GID));
	CU_ASSERT(r.join_state == MCAST_NON && sa_wire_bits_get(r.port_gid, 64, 64) == g2);
	e.sm_key = 0;

	/* by MLID; an MLID no group has */
	mcr_make(&r, zero, 0, 0);
	r.mlid = 0xC002;
	r = answer_rec(mcr_send(&e, h0, SA_METHOD_GET, &r, MCAST_C_MLID));
	CU_ASSERT_EQUAL(memcmp(r.mgid, mgid2, 16), 0);
	r.mlid = 0xC077;
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, h0, SA_METHOD_GET, &r, MCAST_C_MLID)),
			SA_STATUS_NO_RECORDS);
	/* selectors: MTU greater than 1024 (all three: 2048), less than 2048 (none), rate */
	mcr_make(&r, zero, 0, 0);
	r.mtu_sel = MCAST_SEL_GT;
	r.mtu = 3;
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_MTU_SEL | MCAST_C_MTU),
		       got, 8),
	    3);
	r.mtu_sel = MCAST_SEL_LT;
	r.mtu = 4;
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_MTU_SEL | MCAST_C_MTU),
		       got, 8),
	    0);
	r.mtu = 4; /* no selector: equal */
	CU_ASSERT_EQUAL(table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_MTU), got, 8),
			3);
	r.rate_sel = MCAST_SEL_GT;
	r.rate = 2; /* faster than 2.5 Gb/s */
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_RATE_SEL | MCAST_C_RATE),
		       got, 8),
	    3);
	/* by Q_Key: the two groups of the test, not the broadcast one */
	mcr_make(&r, zero, 0, 0);
	CU_ASSERT_EQUAL(table_recs(mcr_send(&e, h0, SA_METHOD_GET_TABLE, &r, MCAST_C_QKEY), got, 8),
			2);
	/* the broadcast group, found by its MGID */
	r = answer_rec(mcr_send(&e, h0, SA_METHOD_GET,
				(mcr_make(&r, mcast_ipoib_broadcast_mgid, 0, 0), &r),
				MCAST_C_MGID));
	CU_ASSERT(r.mlid == 0xC000 && r.qkey == 0x0b1b && r.pkey == 0xffff && r.mtu == 4);
	env_fini(&e);
}

/* No database: Sets and Deletes refused, queries find nothing; the ClassPortInfo bit. */
/* Give port desc of e's fabric a P_Key table (the SM programmed it). */
static void set_pkeys(struct env *e, const char *desc, uint16_t a, uint16_t b)
{
	struct port *p = (struct port *)port_of(e, desc);

	CU_ASSERT_FATAL(port_pkeys_alloc(p) != NULL);
	memset(p->pkeys, 0, FABRIC_PKEY_BLOCKS * 32 * sizeof(*p->pkeys));
	p->pkeys[0] = a;
	p->pkeys[1] = b;
	p->pkey_known = 1;
}

/* A join with P_Key pkey (create components). */
static struct sa_wire_mad *join_pkey(struct env *e, const char *who, const uint8_t mgid[16],
				     uint16_t pkey)
{
	struct sa_wire_mcm_rec r;

	mcr_make(&r, mgid, guid_of(e, who), MCAST_FULL);
	r.pkey = pkey;
	return mcr_send(e, lid_of(e, who), SA_METHOD_SET, &r, CREATE_COMPS);
}

/* A join of an existing group: MGID, PortGID, JoinState full. */
static struct sa_wire_mad *join_only(struct env *e, const char *who, const uint8_t mgid[16])
{
	struct sa_wire_mcm_rec r;

	mcr_make(&r, mgid, guid_of(e, who), MCAST_FULL);
	return mcr_send(e, lid_of(e, who), SA_METHOD_SET, &r, JOIN_COMPS);
}

/*
 * Partitions (OpenSM's osm_physp_has_pkey): a join or create needs the
 * group's P_Key in the joining port's table, full or limited; P_Key 0 is
 * none; queries show the groups of the requester's partitions only.
 */
static void test_partitions(void)
{
	struct env e;
	struct sa_wire_mcm_rec r, got[8];
	uint8_t red[16], red2[16], blue[16], zero[16] = {0};
	struct sa_stats st;

	env_init(&e);
	set_pkeys(&e, "ca-1", 0x7fff, 0x8001); /* Red full */
	set_pkeys(&e, "ca-2", 0x7fff, 0x0001); /* Red limited */
	set_pkeys(&e, "ca-3", 0x7fff, 0x8002); /* Blue full */
	set_pkeys(&e, "ca-4", 0x8003, 0);      /* not even in the default */
	mgid_of(1, red);
	mgid_of(2, blue);
	mgid_of(3, red2);
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-1", red, 0x8001)), 0);
	/* a limited member joins as a full member, and creates, as OpenSM lets it */
	CU_ASSERT_EQUAL(status_of(join_only(&e, "ca-2", red)), 0);
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-2", red2, 0x0001)), 0);
	/* another tenant: not into Red's group, nor creating one in Red */
	CU_ASSERT_EQUAL(status_of(join_only(&e, "ca-3", red)), SA_STATUS_REQ_INVALID);
	mcr_make(&r, red, guid_of(&e, "ca-3"), MCAST_FULL);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_SET, &r, JOIN_COMPS)),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-3", blue, 0x8001)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-3", blue, 0x8002)), 0);
	/* P_Key 0, and a P_Key of no partition */
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-1", zero, 0x0000)), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(status_of(join_pkey(&e, "ca-1", zero, 0x8123)), SA_STATUS_REQ_INVALID);
	/* the default partition's group: ca-4 holds no default key */
	CU_ASSERT_EQUAL(status_of(join_only(&e, "ca-3", mcast_ipoib_broadcast_mgid)), 0);
	CU_ASSERT_EQUAL(status_of(join_only(&e, "ca-4", mcast_ipoib_broadcast_mgid)),
			SA_STATUS_REQ_INVALID);
	/* a port whose table is not known counts as a full member of the default */
	CU_ASSERT_EQUAL(status_of(join_only(&e, "ca-5", mcast_ipoib_broadcast_mgid)), 0);
	sa_counts(&e, &st);
	CU_ASSERT_EQUAL(st.pkey_joins, 6);
	CU_ASSERT_EQUAL(st.mcast_refused, 6);

	/* queries: ca-3 sees the broadcast group and Blue's, ca-2 Red's two and the broadcast */
	mcr_make(&r, zero, 0, 0);
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_GET_TABLE, &r, 0), got, 8), 2);
	CU_ASSERT(!memcmp(got[0].mgid, mcast_ipoib_broadcast_mgid, 16) ||
		  !memcmp(got[1].mgid, mcast_ipoib_broadcast_mgid, 16));
	CU_ASSERT(!memcmp(got[0].mgid, blue, 16) || !memcmp(got[1].mgid, blue, 16));
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-2"), SA_METHOD_GET_TABLE, &r, 0), got, 8), 3);
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-4"), SA_METHOD_GET_TABLE, &r, 0), got, 8), 0);
	/* by MGID too */
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_GET_TABLE, &r, MCAST_C_MGID), got,
		       8),
	    0);
	memcpy(r.mgid, red, 16);
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-3"), SA_METHOD_GET_TABLE, &r, MCAST_C_MGID), got,
		       8),
	    0);
	CU_ASSERT_EQUAL(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-1"), SA_METHOD_GET_TABLE, &r, MCAST_C_MGID), got,
		       8),
	    1);
	/* a trusted requester sees every group */
	e.sm_key = SA_KEY;
	memcpy(r.mgid, zero, 16);
	CU_ASSERT(
	    table_recs(mcr_send(&e, lid_of(&e, "ca-4"), SA_METHOD_GET_TABLE, &r, 0), got, 8) >= 4);
	env_fini(&e);
}

static void test_no_db(void)
{
	struct env e;
	struct sa_wire_mcm_rec r;
	struct sa_wire_mad *a;
	struct sa_wire_cpi cpi;
	uint8_t mgid[16];

	env_init_db(&e, false);
	mgid_of(1, mgid);
	CU_ASSERT_EQUAL(status_of(join(&e, "ca-1", mgid, MCAST_FULL)), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(status_of(leave(&e, "ca-1", mgid, MCAST_FULL)), SA_STATUS_NO_RESOURCES);
	mcr_make(&r, mgid, 0, 0);
	CU_ASSERT_EQUAL(status_of(mcr_send(&e, 1, SA_METHOD_GET, &r, MCAST_C_MGID)),
			SA_STATUS_NO_RECORDS);
	a = ask(&e, lid_of(&e, "ca-1"), SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(status_of(a), 0);
	CU_ASSERT_EQUAL(sa_wire_cpi_decode(a->data, sizeof(a->data), &cpi), 0);
	/* IsUDMulticastSupported (bit 9), IsMultiPathSupported (10); IsSendOnlyFullMemberSupported
	 * (CapabilityMask2 12): served since issue 27 */
	CU_ASSERT(cpi.cap_mask & 1u << 9);
	CU_ASSERT(cpi.cap_mask & 1u << 10);
	CU_ASSERT(cpi.cap_mask2 & 1u << 12);
	env_fini(&e);
}

/*
 * 10,000 join/leave cycles through the SA: each creates a group (every third
 * with an MGID the SA assigns), a second port joins, both leave.  Nothing is
 * left behind: groups, members, MLIDs, the highest MLID, as at the start.
 */
static void test_cycles(void)
{
	static const char *const hosts[] = {"ca-0", "ca-1", "ca-2", "ca-3",
					    "ca-4", "ca-5", "ca-6", "ca-7"};
	struct env e;
	struct sa_stats st;
	uint8_t mgid[16], zero[16] = {0};
	size_t groups, members, mlids;
	uint16_t top;
	unsigned bad = 0;

	env_init(&e);
	groups = mcast_group_count(e.db);
	members = mcast_member_count(e.db);
	mlids = mcast_mlid_count(e.db);
	top = mcast_mlid_top(e.db);
	for (unsigned i = 0; i < 10000; i++) {
		const char *a = hosts[i % 8], *b = hosts[(i + 3) % 8];
		struct sa_wire_mcm_rec r;

		mgid_of(i % 500 + 1, mgid);
		e.fk.n = 0; /* keep the fake's log short */
		r = answer_rec(join(&e, a, i % 3 ? mgid : zero, MCAST_FULL));
		bad += r.mlid != 0xC001;
		bad += status_of(join(&e, b, r.mgid, i % 2 ? MCAST_NON : MCAST_FULL)) != 0;
		bad += status_of(leave(&e, b, r.mgid, i % 2 ? MCAST_NON : MCAST_FULL)) != 0;
		bad += status_of(leave(&e, a, r.mgid, MCAST_FULL)) != 0;
		bad += mcast_group_count(e.db) != groups;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(mcast_group_count(e.db), groups);
	CU_ASSERT_EQUAL(mcast_member_count(e.db), members);
	CU_ASSERT_EQUAL(mcast_mlid_count(e.db), mlids);
	CU_ASSERT_EQUAL(mcast_mlid_top(e.db), top);
	sa_counts(&e, &st);
	CU_ASSERT_EQUAL(st.mcast_joins, 20000);
	CU_ASSERT_EQUAL(st.mcast_leaves, 20000);
	CU_ASSERT_EQUAL(st.mcast_refused, 0);
	env_fini(&e);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"codec: OpenSM's layout, libibmad's fields", test_codec},
	    {"join: creates with the parameters asked for, more members", test_join_create},
	    {"join: SendOnlyFullMember creates and keeps the group", test_send_only_full},
	    {"join: MGID 0 gets an MGID the SA assigns", test_assigned_mgid},
	    {"refusals and their statuses", test_refusals},
	    {"who may join and leave for whom (trusted proxies)", test_who_may},
	    {"leave: the last full member deletes the group; Reports 66 and 67",
	     test_leave_and_reports},
	    {"Get and GetTable: trusted and other requesters", test_queries},
	    {"partitions: joins and queries within the port's", test_partitions},
	    {"no database; ClassPortInfo", test_no_db},
	    {"10,000 join/leave cycles leave nothing behind", test_cycles},
	    {NULL, NULL},
	};

	return testutil_run("mcmember", cases);
}

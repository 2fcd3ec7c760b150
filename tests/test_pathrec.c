/*
 * Unit tests of PathRecord and MultiPathRecord in the SA: the codec
 * (mad/sa_wire.c) against libibmad's fields and against the bytes OpenSM's
 * ib_path_rec_t setters give; the handlers (sa/pathrec.c) through the
 * server (sa/sa.c) with a fake send, and directly where an answer is more
 * than one MAD holds: Get by LIDs and by GIDs (the record byte for byte as
 * OpenSM builds it), a GID of another subnet, the requester as the source,
 * the selectors, LMC (Get: too many; NumbPath 1: the preferred path;
 * GetTable: the 16 pairs in path.c's order), dor's SLs on a torus, the
 * statuses of every bad query, P_Keys, the work budget of a world query,
 * and GetMulti (cross product, NumbPath, OpenSM's APM diagonal).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <infiniband/mad.h>

#include "policy/partition.h"
#include "policy/qos.h"
#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "routing/routing.h"
#include "sa/path.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

#define PR_BIT(c) (1ULL << (c))
#define PR_ENDS_LID (PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID))
#define PR_ENDS_GID (PR_BIT(SA_PR_SGID) | PR_BIT(SA_PR_DGID))

/* ---- the codec -------------------------------------------------------------------- */

static void put_be(uint8_t *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/*
 * A PathRecord as OpenSM lays it out (include/iba/ib_types.h: ib_path_rec_t
 * and its setters): hop_flow_raw = htonl(raw << 31 | flow << 8 | hop),
 * num_path = reversible << 7 | n, qos_class_sl = htons(qos << 4 | sl),
 * mtu/rate/pkt_life = selector << 6 | value.
 */
static void osm_path_rec(const struct sa_wire_path_rec *p, uint8_t b[64])
{
	memset(b, 0, 64);
	put_be(b, p->service_id, 8);
	put_be(b + 8, p->dgid.prefix, 8);
	put_be(b + 16, p->dgid.guid, 8);
	put_be(b + 24, p->sgid.prefix, 8);
	put_be(b + 32, p->sgid.guid, 8);
	put_be(b + 40, p->dlid, 2);
	put_be(b + 42, p->slid, 2);
	put_be(b + 44, (uint32_t)p->raw_traffic << 31 | p->flow_label << 8 | p->hop_limit, 4);
	b[48] = p->tclass;
	b[49] = (uint8_t)(p->reversible << 7 | p->numb_path);
	put_be(b + 50, p->pkey, 2);
	put_be(b + 52, (uint16_t)(p->qos_class << 4 | p->sl), 2);
	b[54] = (uint8_t)(p->mtu_sel << 6 | p->mtu);
	b[55] = (uint8_t)(p->rate_sel << 6 | p->rate);
	b[56] = (uint8_t)(p->pkt_life_sel << 6 | p->pkt_life);
	b[57] = p->preference;
}

static const struct sa_wire_path_rec golden_pr = {
    .service_id = 0x0102030405060708ULL,
    .dgid = {0xfe80000000000000ULL, 0x0002c90300001234ULL},
    .sgid = {0xfe80000000000000ULL, 0x0002c90300005678ULL},
    .dlid = 0x0102,
    .slid = 0x0304,
    .raw_traffic = true,
    .flow_label = 0xabcde,
    .hop_limit = 0x40,
    .tclass = 0x5a,
    .reversible = true,
    .numb_path = 0x7f,
    .pkey = 0xffff,
    .qos_class = 0xabc,
    .sl = 0xd,
    .mtu_sel = 2,
    .mtu = 4,
    .rate_sel = 1,
    .rate = 6,
    .pkt_life_sel = 3,
    .pkt_life = 18,
    .preference = 2,
};

static void test_pr_codec(void)
{
	const struct sa_wire_rec *r = &sa_wire_path_record;
	uint8_t img[SA_WIRE_REC_MAX], osm[64], gid[16], again[64];
	struct sa_wire_path_rec d;

	/* 24 components in IBA order, OpenSM's IB_PR_COMPMASK_* bits 0..21 and two more */
	CU_ASSERT_EQUAL(r->n_comps, 24);
	CU_ASSERT_EQUAL(r->size, 64);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(r), 64);
	CU_ASSERT(sa_wire_mask_valid(r, 1ULL << 23));
	CU_ASSERT(!sa_wire_mask_valid(r, 1ULL << 24));
	CU_ASSERT_STRING_EQUAL(r->comps[SA_PR_NUMB_PATH].name, "NumbPath");
	CU_ASSERT_STRING_EQUAL(r->comps[SA_PR_PKT_LIFE].name, "PacketLifeTime");
	CU_ASSERT_EQUAL(SA_PR_PKT_LIFE, 21);
	CU_ASSERT_EQUAL(SA_PR_SL, 15);

	CU_ASSERT_EQUAL(sa_wire_path_rec_encode(&golden_pr, img, sizeof(img)), 64);
	osm_path_rec(&golden_pr, osm);
	CU_ASSERT_EQUAL(memcmp(img, osm, 64), 0);
	/* libibmad's PathRecord fields read the same values */
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_PR_DLID_F), 0x0102);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_PR_SLID_F), 0x0304);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_PR_NPATH_F), 0x7f);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_PR_SL_F), 0xd);
	mad_get_array(img, 0, IB_SA_PR_DGID_F, gid);
	CU_ASSERT(gid[0] == 0xfe && gid[8] == 0x00 && gid[14] == 0x12 && gid[15] == 0x34);
	mad_get_array(img, 0, IB_SA_PR_SGID_F, gid);
	CU_ASSERT(gid[0] == 0xfe && gid[15] == 0x78);
	/* components through the table */
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_PR_FLOW_LABEL, img), 0xabcde);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_PR_HOP_LIMIT, img), 0x40);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_PR_QOS_CLASS, img), 0xabc);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_PR_RATE_SEL, img), 1);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_PR_PREFERENCE, img), 2);
	/* decode gives the values back (compared field by field through a second image) */
	CU_ASSERT_EQUAL(sa_wire_path_rec_decode(img, 64, &d), 0);
	CU_ASSERT(d.service_id == golden_pr.service_id && d.dgid.guid == golden_pr.dgid.guid &&
		  d.sgid.prefix == golden_pr.sgid.prefix && d.flow_label == golden_pr.flow_label &&
		  d.qos_class == golden_pr.qos_class && d.pkt_life_sel == 3 && d.preference == 2);
	CU_ASSERT_EQUAL(sa_wire_path_rec_encode(&d, again, sizeof(again)), 64);
	CU_ASSERT_EQUAL(memcmp(again, img, 64), 0);
	/* truncation at every length, no room to encode */
	for (size_t len = 0; len < 64; len++)
		CU_ASSERT_EQUAL(sa_wire_path_rec_decode(img, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_path_rec_encode(&golden_pr, img, 63), -ENOSPC);
	/* the mask matches on the DLID, ignores the reserved bits */
	memcpy(osm, img, 64);
	osm[60] = 0xff;
	CU_ASSERT(sa_wire_match(r, osm, img, PR_BIT(SA_PR_DLID) | PR_BIT(SA_PR_RESV1)));
	osm[41] ^= 1;
	CU_ASSERT(!sa_wire_match(r, osm, img, PR_BIT(SA_PR_DLID)));
}

static void test_mpr_codec(void)
{
	const struct sa_wire_rec *r = &sa_wire_multipath_record;
	struct sa_wire_mpath_rec m = {0}, d;
	uint8_t img[SA_WIRE_REC_MAX];

	CU_ASSERT_EQUAL(r->n_comps, 22); /* IB_MPR_COMPMASK_* bits 0..21 */
	CU_ASSERT_EQUAL(r->size, 200);
	CU_ASSERT(!sa_wire_mask_valid(r, 1ULL << 22));
	m.reversible = true;
	m.numb_path = 5;
	m.pkey = 0xffff;
	m.sl = 3;
	m.mtu_sel = 2;
	m.mtu = 4;
	m.service_id = 0xaa11223344556677ULL;
	m.independence = 2;
	m.sgid_count = 2;
	m.dgid_count = 1;
	for (int i = 0; i < 3; i++)
		m.gids[i] = (struct sa_wire_gid){0xfe80000000000000ULL, 0x100u + (unsigned)i};
	CU_ASSERT_EQUAL(sa_wire_mpath_rec_encode(&m, img, sizeof(img)), 200);
	/* OpenSM's ib_multipath_rec_t: num_path 5, pkey 6, qos_class_sl 8, mtu 10,
	 * service_id_8msb 13, independence 14, sgid_count 15, dgid_count 16, 56lsb 17, gids 24 */
	CU_ASSERT_EQUAL(img[5], 0x80 | 5);
	CU_ASSERT(img[6] == 0xff && img[7] == 0xff);
	CU_ASSERT_EQUAL(img[9], 3);
	CU_ASSERT_EQUAL(img[10], 0x80 | 4);
	CU_ASSERT_EQUAL(img[13], 0xaa);
	CU_ASSERT_EQUAL(img[14], 2 << 6);
	CU_ASSERT(img[17] == 0x11 && img[23] == 0x77);
	CU_ASSERT(img[24] == 0xfe && img[39] == 0x00 && img[24 + 15] == 0x00);
	CU_ASSERT_EQUAL(img[24 + 16 + 15], 0x01);
	/* libibmad's MultiPathRecord fields */
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MP_NPATH_F), 5);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MP_NSRC_F), 2);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MP_NDEST_F), 1);
	uint8_t gid[16];
	mad_get_array(img + 32, 0, IB_SA_MP_GID0_F, gid);
	CU_ASSERT_EQUAL(gid[15], 0x02);
	CU_ASSERT_EQUAL(sa_wire_mpath_rec_decode(img, 200, &d), 0);
	CU_ASSERT(d.service_id == m.service_id && d.numb_path == 5 && d.reversible &&
		  d.independence == 2 && d.sgid_count == 2 && d.dgid_count == 1 &&
		  d.gids[2].guid == 0x102 && d.gids[2].prefix == m.gids[2].prefix);
	uint8_t again[200];
	CU_ASSERT_EQUAL(sa_wire_mpath_rec_encode(&d, again, sizeof(again)), 200);
	CU_ASSERT_EQUAL(memcmp(again, img, 200), 0);
	/* a short image: the GID slots it holds, the rest zero */
	CU_ASSERT_EQUAL(sa_wire_mpath_rec_decode(img, 24 + 16 + 5, &d), 0);
	CU_ASSERT(d.gids[0].guid == 0x100 && d.gids[1].guid == 0 && d.sgid_count == 2);
	for (size_t len = 0; len < 24; len++)
		CU_ASSERT_EQUAL(sa_wire_mpath_rec_decode(img, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_mpath_rec_encode(&m, img, 199), -ENOSPC);
}

/* ---- the server ---------------------------------------------------------------------- */

#define MAX_ANSWERS 8

struct fake {
	unsigned n;
	struct sa_wire_mad ans[MAX_ANSWERS];
	size_t len[MAX_ANSWERS];
};

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct fake *fk = ctx;
	unsigned i = fk->n++ % MAX_ANSWERS;

	CU_ASSERT_EQUAL(sa_wire_decode(mad, len, &fk->ans[i]), 0);
	fk->len[i] = len;
	return 0;
}

struct env {
	struct fake fk;
	struct sa *sa;
	struct snapshot *snap;
	const struct fabric *f;
	struct madio_addr from;
};

/* Load text (freed), LIDs with lmc, route with engine, publish; the requester is ca-0. */
static void env_init(struct env *e, char *text, uint8_t lmc, const char *engine)
{
	struct fabric *f = testutil_load_text(text);
	const struct routing_engine *re = routing_find(engine);
	struct routes *r = NULL;
	char why[128];

	free(text);
	memset(e, 0, sizeof(*e));
	testutil_assign_lids(f, lmc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(re);
	CU_ASSERT_EQUAL_FATAL(re->compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &e->snap), 0);
	e->f = e->snap->fabric;
	e->sa = sa_new(NULL, &(struct sa_ops){fake_send, NULL, &e->fk});
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->sa);
	sa_publish(e->sa, e->snap);
	e->from = (struct madio_addr){.qpn = 1, .qkey = 0x80010000};
	e->from.slid = e->f->nodes[testutil_find_desc(e->f, "ca-0")].ports[1].lid;
}

static void env_fini(struct env *e)
{
	sa_free(e->sa);
	snapshot_free(e->snap);
}

static const struct port *port_of(const struct env *e, const char *desc)
{
	uint32_t i = testutil_find_desc(e->f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return &e->f->nodes[i].ports[1];
}

/* Send q (its header and data); the answer, NULL when none. */
static struct sa_wire_mad *ask_mad(struct env *e, struct sa_wire_mad *q)
{
	uint8_t buf[256];
	struct wire_mad_hdr h;
	unsigned before = e->fk.n;

	q->hdr.tid = 0x7000 + before;
	sa_wire_encode(q, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(e->sa, &e->from, &h, buf, sizeof(buf));
	if (e->fk.n != before + 1)
		return NULL;
	CU_ASSERT_EQUAL(e->fk.ans[before % MAX_ANSWERS].hdr.tid, 0x7000 + before);
	return &e->fk.ans[before % MAX_ANSWERS];
}

static struct sa_wire_mad *ask(struct env *e, uint8_t method, uint16_t attr, uint64_t mask,
			       const uint8_t *rec, size_t len)
{
	struct sa_wire_mad q = {0};

	q.hdr.method = method;
	q.hdr.attr_id = attr;
	q.comp_mask = mask;
	if (rec)
		memcpy(q.data, rec, len < sizeof(q.data) ? len : sizeof(q.data));
	return ask_mad(e, &q);
}

/* A PathRecord query: mask and values. */
static struct sa_wire_mad *ask_pr(struct env *e, uint8_t method, uint64_t mask,
				  const struct sa_wire_path_rec *p)
{
	uint8_t img[SA_WIRE_PR_SIZE];

	sa_wire_path_rec_encode(p, img, sizeof(img));
	return ask(e, method, SA_ATTR_PATH_RECORD, mask, img, sizeof(img));
}

/* The status of a PathRecord Get (0xffff when there was no answer). */
static uint16_t pr_status(struct env *e, uint8_t method, uint64_t mask,
			  const struct sa_wire_path_rec *p)
{
	struct sa_wire_mad *a = ask_pr(e, method, mask, p);

	return a ? a->hdr.status : 0xffff;
}

/*
 * Call an attribute's handler directly, with the server's limits, for the
 * whole answer (the server would cut it to one MAD).  Returns the status;
 * res holds the records (free res->buf).
 */
static uint16_t handler(struct env *e, uint8_t method, uint16_t attr, uint64_t mask,
			const uint8_t *qrec, size_t len, struct sa_result *res)
{
	const struct sa_attr *a = NULL;
	struct sa_wire_mad mad = {0};
	struct sa_query q;

	for (unsigned i = 0; i < sa_pathrec_n_attrs; i++)
		if (sa_pathrec_attrs[i].attr_id == attr)
			a = &sa_pathrec_attrs[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	mad.hdr.method = method;
	mad.hdr.attr_id = attr;
	mad.comp_mask = mask;
	memcpy(mad.data, qrec, len < sizeof(mad.data) ? len : sizeof(mad.data));
	q = (struct sa_query){.sa = e->sa,
			      .snap = e->snap,
			      .from = &e->from,
			      .mad = &mad,
			      .rec = a->rec,
			      .qrec = mad.data,
			      .mask = mask,
			      .req_node = FABRIC_NO_NODE};
	snapshot_find_lid(e->snap, e->from.slid, &q.req_node, &q.req_port);
	memset(res, 0, sizeof(*res));
	res->stride = sa_wire_rec_stride(a->rec);
	res->limit = method == SA_METHOD_GET ? 2 : 100000;
	return a->get(&q, res);
}

static void decode_at(const uint8_t *buf, unsigned i, struct sa_wire_path_rec *ret)
{
	CU_ASSERT_EQUAL(sa_wire_path_rec_decode(buf + 64 * i, 64, ret), 0);
}

/*
 * The PathRecord OpenSM builds for path p (osm_sa_path_record.c:
 * pr_rcv_build_pr) with this snapshot's SL, MTU, rate and packet lifetime.
 */
static void osm_expect(const struct env *e, const struct path_info *p, uint8_t img[64])
{
	struct sa_wire_path_rec r = {0};

	r.dgid = (struct sa_wire_gid){e->f->subnet_prefix,
				      e->f->nodes[p->dst_node].ports[p->dst_port].guid};
	r.sgid = (struct sa_wire_gid){e->f->subnet_prefix,
				      e->f->nodes[p->src_node].ports[p->src_port].guid};
	r.dlid = p->dlid;
	r.slid = p->slid;
	r.reversible = p->reversible; /* num_path = 0x80: only the reversible bit */
	r.pkey = 0xffff;
	r.sl = p->sl;
	r.mtu_sel = r.rate_sel = r.pkt_life_sel = 2; /* value | 0x80 */
	r.mtu = p->mtu;
	r.rate = p->rate;
	r.pkt_life = p->pkt_life;
	r.preference = p->preference;
	osm_path_rec(&r, img);
}

/* Get by LIDs and by GIDs, for every CA pair of a fat tree: OpenSM's record, byte for byte. */
static void test_get_ends(void)
{
	struct env e;
	unsigned bad = 0, n = 0;

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	for (uint32_t a = 0; a < e.f->n_nodes; a++) {
		for (uint32_t b = 0; b < e.f->n_nodes; b++) {
			const struct node *na = &e.f->nodes[a], *nb = &e.f->nodes[b];
			struct path_port pa = {a, 1, 0}, pb = {b, 1, 0};
			struct sa_wire_path_rec q = {0};
			struct sa_wire_mad *ans;
			struct path_info pi;
			uint8_t want[64];

			if (node_is_switch(na) || node_is_switch(nb))
				continue;
			n++;
			CU_ASSERT_EQUAL_FATAL(path_compute(e.snap, NULL, &pa, &pb, &pi), 0);
			osm_expect(&e, &pi, want);
			q.slid = na->ports[1].lid;
			q.dlid = nb->ports[1].lid;
			ans = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID, &q);
			if (!ans || ans->hdr.status || ans->hdr.method != SA_METHOD_GET_RESP ||
			    ans->attr_offset != 8 || memcmp(ans->data, want, 64))
				bad++;
			memset(&q, 0, sizeof(q));
			q.sgid = (struct sa_wire_gid){0xfe80000000000000ULL, na->ports[1].guid};
			q.dgid = (struct sa_wire_gid){0xfe80000000000000ULL, nb->ports[1].guid};
			ans = ask_pr(&e, SA_METHOD_GET, PR_ENDS_GID, &q);
			if (!ans || ans->hdr.status || memcmp(ans->data, want, 64))
				bad++;
			/* SGID and DLID together */
			q.dlid = nb->ports[1].lid;
			ans =
			    ask_pr(&e, SA_METHOD_GET, PR_BIT(SA_PR_SGID) | PR_BIT(SA_PR_DLID), &q);
			if (!ans || ans->hdr.status || memcmp(ans->data, want, 64))
				bad++;
		}
	}
	CU_ASSERT_EQUAL(n, 64);
	CU_ASSERT_EQUAL(bad, 0);
	/* what the record says on this tree: SDR 4x, 2048, 18 + log2 hops, SL 0, hop limit 0 */
	{
		struct sa_wire_path_rec q = {0}, r;
		struct sa_wire_mad *a;

		q.slid = port_of(&e, "ca-0")->lid;
		q.dlid = port_of(&e, "ca-7")->lid;
		a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID, &q);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		decode_at(a->data, 0, &r);
		CU_ASSERT(r.mtu == PATH_MTU_2048 && r.rate == PATH_RATE_10 && r.sl == 0);
		CU_ASSERT(r.hop_limit == 0 && r.pkey == 0xffff && r.reversible && r.numb_path == 0);
		CU_ASSERT_EQUAL(r.pkt_life, 20); /* 3 switches: 18 + 2 */
		CU_ASSERT_EQUAL(a->data[54], 0x84);
		CU_ASSERT_EQUAL(a->data[55], 0x83);
		CU_ASSERT_EQUAL(a->data[56], 0x80 | 20);
		CU_ASSERT_EQUAL(a->data[49], 0x80);
	}
	env_fini(&e);
}

/* GIDs of another subnet, unknown ports, ends that disagree; the requester as the source. */
static void test_get_gids_and_requester(void)
{
	struct env e;
	struct sa_wire_path_rec q = {0}, r;
	struct sa_wire_mad *a;
	const struct port *c0, *c2, *c6;

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	c0 = port_of(&e, "ca-0");
	c2 = port_of(&e, "ca-2");
	c6 = port_of(&e, "ca-6");
	q.sgid = (struct sa_wire_gid){0xfe80000000000000ULL, c2->guid};
	q.dgid = (struct sa_wire_gid){0xfec0000000000000ULL, c6->guid}; /* site-local: not ours */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET_TABLE, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	q.dgid.prefix = 0xfe80000000000000ULL;
	q.sgid.prefix = 0x1234000000000000ULL;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	q.sgid.prefix = 0xfe80000000000000ULL;
	q.sgid.guid = 0xdead; /* no such port */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	q.sgid.guid = c2->guid;
	q.sgid.prefix = 0xff02000000000000ULL; /* a multicast SGID */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	q.sgid.prefix = 0xfe80000000000000ULL;
	/* a multicast DGID: no groups, no records */
	q.dgid.prefix = 0xff12401bffff0000ULL;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_NO_RECORDS);
	q.dgid.prefix = 0xfe80000000000000ULL;
	/* SGID and SLID of two ports; an unknown LID */
	q.slid = c0->lid;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID | PR_BIT(SA_PR_SLID), &q),
			SA_STATUS_REQ_INVALID);
	q.slid = 999;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID | PR_BIT(SA_PR_SLID), &q),
			SA_STATUS_NO_RECORDS);

	/* the subnet's own prefix and link-local both name our ports; records carry the prefix */
	e.snap->fabric->subnet_prefix = 0xfec0000000000007ULL;
	q.dgid.prefix = 0xfec0000000000007ULL;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_GID, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.dgid.prefix == 0xfec0000000000007ULL && r.sgid.prefix == r.dgid.prefix);
	CU_ASSERT(r.sgid.guid == c2->guid && r.dgid.guid == c6->guid);
	q.dgid.prefix = 0xfec0000000000008ULL;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_INVALID_GID);
	e.snap->fabric->subnet_prefix = 0xfe80000000000000ULL;

	/* no source: the requester (ca-0's LID), by DLID and by DGID */
	memset(&q, 0, sizeof(q));
	q.dlid = c6->lid;
	a = ask_pr(&e, SA_METHOD_GET, PR_BIT(SA_PR_DLID), &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.slid == c0->lid && r.sgid.guid == c0->guid && r.dlid == c6->lid);
	q.dgid = (struct sa_wire_gid){0xfe80000000000000ULL, c6->guid};
	e.from.slid = c2->lid;
	a = ask_pr(&e, SA_METHOD_GET, PR_BIT(SA_PR_DGID), &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.slid == c2->lid && r.dlid == c6->lid);
	/* a requester the snapshot does not know */
	e.from.slid = 999;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_BIT(SA_PR_DGID), &q), SA_STATUS_NO_RECORDS);
	/* GetTable naming only the destination: the source is a wildcard, every port (OpenSM) */
	{
		struct sa_result res;
		uint8_t img[SA_WIRE_PR_SIZE];
		bool other = false;

		memset(&q, 0, sizeof(q));
		q.dlid = c6->lid;
		sa_wire_path_rec_encode(&q, img, sizeof(img));
		CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
					PR_BIT(SA_PR_DLID), img, sizeof(img), &res),
				0);
		/* 8 CAs and 6 switches (port 0), the destination itself included */
		CU_ASSERT_EQUAL(res.n, 14);
		for (unsigned k = 0; k < res.n; k++) {
			decode_at(res.buf, k, &r);
			CU_ASSERT_EQUAL(r.dlid, c6->lid);
			other |= r.slid != c0->lid && r.slid != c2->lid;
		}
		CU_ASSERT(other);
		free(res.buf);
	}
	env_fini(&e);
}

/* The selectors, the SL, Reversible: passed to path.c and answered as it says. */
static void test_selectors(void)
{
	struct env e;
	struct sa_wire_path_rec q = {0}, r;
	struct sa_wire_mad *a;
	const uint64_t mtu = PR_BIT(SA_PR_MTU_SEL) | PR_BIT(SA_PR_MTU);
	const uint64_t rate = PR_BIT(SA_PR_RATE_SEL) | PR_BIT(SA_PR_RATE);
	const uint64_t life = PR_BIT(SA_PR_PKT_LIFE_SEL) | PR_BIT(SA_PR_PKT_LIFE);

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	q.slid = port_of(&e, "ca-0")->lid;
	q.dlid = port_of(&e, "ca-1")->lid; /* same leaf: one switch, lifetime 18 */
	q.mtu_sel = PATH_SEL_LT;
	q.mtu = PATH_MTU_2048;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.mtu == PATH_MTU_1024 && r.mtu_sel == PATH_SEL_EQ);
	q.mtu_sel = PATH_SEL_GT;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q), SA_STATUS_NO_RECORDS);
	/* a selector without its value (and a value without its selector) is ignored */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_MTU_SEL), &q), 0);
	q.mtu_sel = PATH_SEL_EQ;
	q.mtu = PATH_MTU_512;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.mtu, PATH_MTU_512);
	q.mtu = 7; /* no MTU code */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q), SA_STATUS_REQ_INVALID);
	q.mtu = 0;

	q.rate_sel = PATH_SEL_EQ;
	q.rate = PATH_RATE_10;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | rate, &q), 0);
	q.rate = PATH_RATE_20;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | rate, &q), SA_STATUS_NO_RECORDS);
	q.rate_sel = PATH_SEL_LT;
	q.rate = PATH_RATE_10;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | rate, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.rate, PATH_RATE_5); /* the next slower code below 10 Gb/s */
	q.rate = 1;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | rate, &q),
			SA_STATUS_REQ_INVALID);

	q.pkt_life_sel = PATH_SEL_GT;
	q.pkt_life = 25;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | life, &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.pkt_life, 26);
	q.pkt_life_sel = PATH_SEL_LT;
	q.pkt_life = 18;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | life, &q), SA_STATUS_NO_RECORDS);
	q.pkt_life = 19;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | life, &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.pkt_life == 18 && r.pkt_life_sel == PATH_SEL_EQ);

	/* an SL from a single-VL engine is granted; Reversible 1 keeps reversible paths */
	q.sl = 5;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_SL), &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 5);
	q.reversible = true;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_REVERSIBLE), &q),
			0);
	env_fini(&e);
}

/* LMC 2: Get is ambiguous, NumbPath 1 picks the preferred path, GetTable gives 16. */
static void test_lmc(void)
{
	static const uint8_t order[16][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 1}, {0, 2},
					     {0, 3}, {1, 0}, {1, 2}, {1, 3}, {2, 0}, {2, 1},
					     {2, 3}, {3, 0}, {3, 1}, {3, 2}};
	struct env e;
	struct sa_wire_path_rec q = {0}, r;
	struct sa_wire_mad *a;
	struct sa_result res;
	uint8_t img[64];
	const struct port *c0, *c5;

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 2, "ftree");
	c0 = port_of(&e, "ca-0");
	c5 = port_of(&e, "ca-5");
	CU_ASSERT_EQUAL(c0->lmc, 2);
	q.sgid = (struct sa_wire_gid){0xfe80000000000000ULL, c0->guid};
	q.dgid = (struct sa_wire_gid){0xfe80000000000000ULL, c5->guid};
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID, &q), SA_STATUS_TOO_MANY_RECORDS);
	/* NumbPath 1, as the kernel's ib_sa asks: base LID to base LID, preference 0 */
	q.numb_path = 1;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_GID | PR_BIT(SA_PR_NUMB_PATH), &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.slid == c0->lid && r.dlid == c5->lid && r.preference == 0);
	/* one DLID of the range: 4 SLIDs, still too many; with the SLID too, one (a pair of
	 * one LID each is its own first round: preference 0, as OpenSM) */
	q.dlid = (uint16_t)(c5->lid + 2);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_GID | PR_BIT(SA_PR_DLID), &q),
			SA_STATUS_TOO_MANY_RECORDS);
	q.slid = (uint16_t)(c0->lid + 3);
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_GID | PR_ENDS_LID, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.slid == c0->lid + 3 && r.dlid == c5->lid + 2 && r.preference == 0);

	/* GetTable: the 16 pairs in path.c's (OpenSM's) order */
	sa_wire_path_rec_encode(&q, img, sizeof(img));
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD, PR_ENDS_GID, img,
				sizeof(img), &res),
			0);
	CU_ASSERT_EQUAL_FATAL(res.n, 16);
	for (unsigned k = 0; k < 16; k++) {
		decode_at(res.buf, k, &r);
		CU_ASSERT_EQUAL(r.slid, c0->lid + order[k][0]);
		CU_ASSERT_EQUAL(r.dlid, c5->lid + order[k][1]);
		CU_ASSERT_EQUAL(r.preference, k < 4 ? 0 : 2);
	}
	free(res.buf);
	/* NumbPath 6: the first 6 */
	q.numb_path = 6;
	sa_wire_path_rec_encode(&q, img, sizeof(img));
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD, PR_ENDS_GID | PR_BIT(SA_PR_NUMB_PATH),
		img, sizeof(img), &res);
	CU_ASSERT_EQUAL(res.n, 6);
	free(res.buf);
	/* through the server: one MAD, its first 3 records, as one RMPP segment */
	a = ask_pr(&e, SA_METHOD_GET_TABLE, PR_ENDS_GID, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_TABLE_RESP);
	CU_ASSERT_EQUAL(e.fk.len[(e.fk.n - 1) % MAX_ANSWERS], 56 + 3 * 64);
	CU_ASSERT(a->rmpp_type == SA_RMPP_DATA && a->rmpp_flags == 7 && a->attr_offset == 8);
	for (unsigned k = 0; k < 3; k++) {
		decode_at(a->data, k, &r);
		CU_ASSERT(r.slid == c0->lid + order[k][0] && r.dlid == c5->lid + order[k][1]);
	}
	env_fini(&e);
}

/* dor on a torus: every host pair's record carries the routing's path SL. */
static void test_dor_sl(void)
{
	struct env e;
	unsigned bad = 0, pairs = 0, sl1 = 0;

	env_init(&e, topogen_mesh(4, 3, 1, TOPOGEN_TORUS), 0, "dor");
	CU_ASSERT_EQUAL_FATAL(e.snap->routes->n_vls, 2);
	for (uint32_t a = 0; a < e.f->n_nodes; a++) {
		for (uint32_t b = 0; b < e.f->n_nodes; b++) {
			const struct node *na = &e.f->nodes[a], *nb = &e.f->nodes[b];
			struct sa_wire_path_rec q = {0}, r;
			struct sa_wire_mad *ans;
			uint8_t want;

			if (node_is_switch(na) || node_is_switch(nb) || a == b)
				continue;
			pairs++;
			q.slid = na->ports[1].lid;
			q.dlid = nb->ports[1].lid;
			want = routes_path_sl(e.snap->routes, e.f, &e.snap->lids, q.slid, q.dlid);
			ans = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID, &q);
			if (!ans || ans->hdr.status) {
				bad++;
				continue;
			}
			decode_at(ans->data, 0, &r);
			sl1 += r.sl != 0;
			if (r.sl != want)
				bad++;
			/* asking for the engine's SL finds it, another SL finds nothing */
			q.sl = want;
			if (pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_SL), &q))
				bad++;
			q.sl = want ^ 1;
			if (pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_SL), &q) !=
			    SA_STATUS_NO_RECORDS)
				bad++;
		}
	}
	CU_ASSERT_EQUAL(pairs, 12 * 11);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(sl1 > 0); /* dateline pairs exist and carry their SL */
	env_fini(&e);
}

/* Statuses of bad and unusual queries; P_Keys; Set and Delete. */
static void test_statuses(void)
{
	struct env e;
	struct sa_wire_path_rec q = {0}, r;
	struct sa_wire_mad *a;
	struct sa_result res;
	uint8_t img[64];

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	q.slid = port_of(&e, "ca-0")->lid;
	q.dlid = port_of(&e, "ca-3")->lid;
	/* a Get that names no destination */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, 0, &q), SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_BIT(SA_PR_SLID), &q),
			SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_BIT(SA_PR_SGID), &q),
			SA_STATUS_INSUFFICIENT_COMPS);
	/* half a ServiceID */
	CU_ASSERT_EQUAL(
	    pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_SERVICE_ID_MSB), &q),
	    SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(
	    pr_status(&e, SA_METHOD_GET_TABLE, PR_ENDS_LID | PR_BIT(SA_PR_SERVICE_ID_LSB), &q),
	    SA_STATUS_INSUFFICIENT_COMPS);
	q.service_id = 0x1000000000000001ULL;
	CU_ASSERT_EQUAL(
	    pr_status(&e, SA_METHOD_GET,
		      PR_ENDS_LID | PR_BIT(SA_PR_SERVICE_ID_MSB) | PR_BIT(SA_PR_SERVICE_ID_LSB),
		      &q),
	    0);
	/* components the record does not have */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | 1ULL << 24, &q),
			SA_STATUS_REQ_INVALID);
	/* P_Keys: the default partition's, full or limited; any other has no paths */
	q.pkey = 0x8001;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_PKEY), &q),
			SA_STATUS_NO_RECORDS);
	a = ask_pr(&e, SA_METHOD_GET_TABLE, PR_ENDS_LID | PR_BIT(SA_PR_PKEY), &q);
	CU_ASSERT(a->hdr.status == 0 && a->attr_offset == 0);
	q.pkey = 0x7fff;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_PKEY), &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.pkey, 0x7fff);
	/* P_Key 0 (low 15 bits) names no partition: no record, not the default's (OpenSM) */
	q.pkey = 0x8000;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_PKEY), &q),
			SA_STATUS_NO_RECORDS);
	q.pkey = 0;
	a = ask_pr(&e, SA_METHOD_GET_TABLE, PR_ENDS_LID | PR_BIT(SA_PR_PKEY), &q);
	CU_ASSERT(a->hdr.status == 0 && a->attr_offset == 0);
	/* NumbPath 0 in the mask: no path (OpenSM); without it, one */
	q.numb_path = 0;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_NUMB_PATH), &q),
			SA_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID, &q), 0);
	q.raw_traffic = true;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID | PR_BIT(SA_PR_RAW_TRAFFIC), &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.pkey, 0);
	q.raw_traffic = false;
	/* the other methods */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_SET, PR_ENDS_LID, &q), SA_STATUS_BAD_METHOD_ATTR);
	a = ask_pr(&e, SA_METHOD_DELETE, PR_ENDS_LID, &q);
	CU_ASSERT(a->hdr.status == SA_STATUS_BAD_METHOD_ATTR &&
		  a->hdr.method == SA_METHOD_DELETE_RESP);
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET_MULTI, PR_ENDS_LID, &q),
			SA_STATUS_BAD_METHOD_ATTR);
	a = ask(&e, SA_METHOD_GET, SA_ATTR_MULTIPATH_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);
	a = ask(&e, SA_METHOD_GET_TABLE, SA_ATTR_MULTIPATH_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_BAD_METHOD_ATTR);

	/* GetTable: a source alone gives every destination, nothing at all every pair */
	memset(&q, 0, sizeof(q));
	q.slid = port_of(&e, "ca-0")->lid;
	sa_wire_path_rec_encode(&q, img, sizeof(img));
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD, PR_BIT(SA_PR_SLID),
				img, 64, &res),
			0);
	CU_ASSERT_EQUAL(res.n, 8 + 6); /* every port with a LID: 8 CAs, 6 switches */
	free(res.buf);
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD, 0, img, 64, &res), 0);
	CU_ASSERT_EQUAL(res.n, 14 * 14);
	free(res.buf);
	env_fini(&e);
}

/*
 * A world query on a 6,468-node fat tree (41.8M port pairs): bounded records,
 * so bounded work (how fast: bench/ibsmd-micro sa).
 */
static void test_budget(void)
{
	struct env e;
	struct sa_result res;
	uint8_t img[64] = {0};

	env_init(&e, topogen_fat_tree(3, 28, 0, 0), 0, "minhop");
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD, 0, img, 64, &res), 0);
	CU_ASSERT(res.n > 1000 && res.n <= 8192);
	free(res.buf);
	/* and through the server: one MAD, answered */
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET_TABLE, 0, &(struct sa_wire_path_rec){0}), 0);
	env_fini(&e);
}

/* ---- MultiPathRecord ------------------------------------------------------------------- */

#define MPR_BIT(c) (1ULL << (c))
#define MPR_COUNTS (MPR_BIT(SA_MPR_SGID_COUNT) | MPR_BIT(SA_MPR_DGID_COUNT))

static void mpr_gids(const struct env *e, struct sa_wire_mpath_rec *m, const char *const *src,
		     unsigned ns, const char *const *dst, unsigned nd)
{
	m->sgid_count = (uint8_t)ns;
	m->dgid_count = (uint8_t)nd;
	for (unsigned i = 0; i < ns + nd; i++)
		m->gids[i] = (struct sa_wire_gid){0xfe80000000000000ULL,
						  port_of(e, i < ns ? src[i] : dst[i - ns])->guid};
}

/* A GetMulti; rmpp_flags != 0: with an RMPP header, a DATA segment unless the flags say
 * active alone (what osmtest sends through umad2sim: the segmentation was the kernel's). */
static struct sa_wire_mad *ask_mpr(struct env *e, uint64_t mask, const struct sa_wire_mpath_rec *m,
				   uint8_t rmpp_flags)
{
	struct sa_wire_mad q = {0};

	q.hdr.method = SA_METHOD_GET_MULTI;
	q.hdr.attr_id = SA_ATTR_MULTIPATH_RECORD;
	q.comp_mask = mask;
	if (rmpp_flags) {
		q.rmpp_version = 1;
		q.rmpp_type = rmpp_flags == SA_RMPP_FLAG_ACTIVE ? SA_RMPP_NONE : SA_RMPP_DATA;
		q.rmpp_flags = rmpp_flags;
		q.rmpp_data1 = q.rmpp_type ? 1 : 0;
	}
	sa_wire_mpath_rec_encode(m, q.data, sizeof(q.data));
	return ask_mad(e, &q);
}

static void test_multipath(void)
{
	static const char *const src[] = {"ca-0", "ca-2"}, *const dst[] = {"ca-1", "ca-5", "ca-7"};
	struct env e;
	struct sa_wire_mpath_rec m = {0};
	struct sa_wire_path_rec r;
	struct sa_wire_mad *a;
	struct sa_result res;
	uint8_t img[200];

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	/* 2 SGIDs x 3 DGIDs: 6 PathRecords, SGID major; the answer holds 3 */
	mpr_gids(&e, &m, src, 2, dst, 3);
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	CU_ASSERT_EQUAL(
	    handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD, MPR_COUNTS, img, 200, &res),
	    0);
	CU_ASSERT_EQUAL(res.attr_id, SA_ATTR_PATH_RECORD);
	CU_ASSERT_EQUAL(res.stride, 64);
	CU_ASSERT_EQUAL_FATAL(res.n, 6);
	for (unsigned k = 0; k < 6; k++) {
		decode_at(res.buf, k, &r);
		CU_ASSERT_EQUAL(r.slid, port_of(&e, src[k / 3])->lid);
		CU_ASSERT_EQUAL(r.dlid, port_of(&e, dst[k % 3])->lid);
		CU_ASSERT(r.mtu == PATH_MTU_2048 && r.mtu_sel == 2 && r.pkey == 0xffff &&
			  r.reversible);
	}
	free(res.buf);
	a = ask_mpr(&e, MPR_COUNTS, &m, 0);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT_EQUAL(a->hdr.method, SA_METHOD_GET_MULTI_RESP);
	CU_ASSERT_EQUAL(a->hdr.attr_id, SA_ATTR_PATH_RECORD);
	CU_ASSERT(a->rmpp_type == SA_RMPP_DATA && a->rmpp_flags == 7 && a->attr_offset == 8);
	CU_ASSERT_EQUAL(e.fk.len[(e.fk.n - 1) % MAX_ANSWERS], 56 + 3 * 64);
	/* a one-segment RMPP request as OpenSM wants it: the same */
	a = ask_mpr(&e, MPR_COUNTS, &m,
		    SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_FIRST | SA_RMPP_FLAG_LAST);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	a = ask_mpr(&e, MPR_COUNTS, &m, SA_RMPP_FLAG_ACTIVE);
	CU_ASSERT_EQUAL(a->hdr.status, 0);
	/* the first of several segments cannot be answered without RMPP */
	a = ask_mpr(&e, MPR_COUNTS, &m, SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_FIRST);
	CU_ASSERT_EQUAL(a->hdr.status, SA_STATUS_REQ_INVALID);
	/* NumbPath: paths in all */
	m.numb_path = 4;
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD,
		MPR_COUNTS | MPR_BIT(SA_MPR_NUMB_PATH), img, 200, &res);
	CU_ASSERT_EQUAL(res.n, 4);
	free(res.buf);
	/* statuses */
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_BIT(SA_MPR_SGID_COUNT), &m, 0)->hdr.status,
			SA_STATUS_INSUFFICIENT_COMPS);
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS | MPR_BIT(SA_MPR_SERVICE_ID_MSB), &m, 0)->hdr.status,
			SA_STATUS_INSUFFICIENT_COMPS);
	m.gids[3].prefix = 0xfec0000000000000ULL;
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS, &m, 0)->hdr.status, SA_STATUS_INVALID_GID);
	m.gids[3].prefix = 0xfe80000000000000ULL;
	m.gids[0].guid = 0xdead;
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS, &m, 0)->hdr.status, SA_STATUS_INVALID_GID);
	mpr_gids(&e, &m, src, 2, dst, 0);
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS, &m, 0)->hdr.status, SA_STATUS_REQ_INVALID);
	mpr_gids(&e, &m, src, 2, dst, 3);
	m.pkey = 0x8002;
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS | MPR_BIT(SA_MPR_PKEY), &m, 0)->hdr.status, 0);
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS | MPR_BIT(SA_MPR_PKEY), &m, 0)->attr_offset, 0);
	m.pkey = 0;
	m.mtu_sel = PATH_SEL_EQ;
	m.mtu = 9;
	CU_ASSERT_EQUAL(
	    ask_mpr(&e, MPR_COUNTS | MPR_BIT(SA_MPR_MTU_SEL) | MPR_BIT(SA_MPR_MTU), &m, 0)
		->hdr.status,
	    SA_STATUS_REQ_INVALID);
	/* counts beyond the 11 GIDs a MAD holds are cut: 11 SGIDs leave no DGID */
	m.sgid_count = 200;
	CU_ASSERT_EQUAL(ask_mpr(&e, MPR_COUNTS, &m, 0)->hdr.status, SA_STATUS_INVALID_GID);
	env_fini(&e);
}

/* LMC 1: the LMC pairs of one port pair; OpenSM's APM diagonal for 2 x 2, NumbPath 2. */
static void test_multipath_lmc_apm(void)
{
	static const char *const src[] = {"ca-2", "ca-0"}, *const dst[] = {"ca-7", "ca-4"};
	struct env e;
	struct sa_wire_mpath_rec m = {0};
	struct sa_wire_path_rec r[2];
	struct sa_result res;
	uint8_t img[200];
	const struct port *s0, *s1, *d0, *d1;
	unsigned offs, off0, off1;

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 1, "ftree");
	mpr_gids(&e, &m, src, 1, dst, 1);
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD, MPR_COUNTS, img, 200, &res);
	CU_ASSERT_EQUAL_FATAL(res.n, 4);
	decode_at(res.buf, 0, &r[0]);
	decode_at(res.buf, 1, &r[1]);
	CU_ASSERT(r[0].preference == 0 && r[1].preference == 0);
	CU_ASSERT(r[1].slid == r[0].slid + 1 && r[1].dlid == r[0].dlid + 1);
	free(res.buf);

	/* APM: ports sorted by GUID, one diagonal, the pairs at LID offsets h and h + 1 */
	mpr_gids(&e, &m, src, 2, dst, 2);
	m.numb_path = 2;
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD,
				MPR_COUNTS | MPR_BIT(SA_MPR_NUMB_PATH), img, 200, &res),
			0);
	CU_ASSERT_EQUAL_FATAL(res.n, 2);
	decode_at(res.buf, 0, &r[0]);
	decode_at(res.buf, 1, &r[1]);
	free(res.buf);
	s0 = port_of(&e, "ca-0");
	s1 = port_of(&e, "ca-2");
	d0 = port_of(&e, "ca-4");
	d1 = port_of(&e, "ca-7");
	CU_ASSERT_FATAL(s0->guid < s1->guid && d0->guid < d1->guid);
	CU_ASSERT(r[0].sgid.guid == s0->guid && r[1].sgid.guid == s1->guid);
	CU_ASSERT((r[0].dgid.guid == d0->guid && r[1].dgid.guid == d1->guid) ||
		  (r[0].dgid.guid == d1->guid && r[1].dgid.guid == d0->guid));
	/* OpenSM's hash of the base LIDs (both with LMC 1) */
	offs = ((((unsigned)s0->lid >> 1) << 4) | ((unsigned)d0->lid >> 1)) % 103;
	if (d0->lid < s0->lid)
		offs = ((((unsigned)d0->lid >> 1) << 4) | ((unsigned)s0->lid >> 1)) % 103;
	off0 = (unsigned)(r[0].slid - s0->lid);
	off1 = (unsigned)(r[1].slid - s1->lid);
	CU_ASSERT_EQUAL(off0, offs % 2);
	CU_ASSERT_EQUAL(off1, (offs + 1) % 2);
	CU_ASSERT_NOT_EQUAL(off0, off1); /* the two paths start on different LIDs */
	CU_ASSERT(r[0].preference == 0 && r[1].preference == 0);
	env_fini(&e);
}

/*
 * The QoS policy's SLs (policy/qos.h) in PathRecords and MultiPathRecords:
 * the first qos-ulps rule that matches (ServiceID, target GUID), else the
 * partition's sl=, else the policy's default; a query naming another SL
 * gets no record; with QoS off only the partition's sl= counts.
 */
static void test_qos_sl(void)
{
	static const char *const src[] = {"ca-0"}, *const dst[] = {"ca-1", "ca-5"};
	struct env e;
	struct sa_wire_mpath_rec m = {0};
	struct sa_wire_path_rec r, pr = {0};
	struct qos_policy *q = NULL;
	struct partition_config *parts = NULL;
	struct sa_result res;
	uint8_t img[200];
	char text[256], err[512];
	const uint64_t sid = PR_BIT(SA_MPR_SERVICE_ID_MSB) | PR_BIT(SA_MPR_SERVICE_ID_LSB);

	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	snprintf(text, sizeof(text),
		 "qos-ulps\n default : 2\n any, service-id 0x42 : 5\n"
		 " any, target-port-guid 0x%llx : 6\nend-qos-ulps\n",
		 (unsigned long long)port_of(&e, "ca-5")->guid);
	CU_ASSERT_EQUAL_FATAL(qos_policy_parse("q", text, strlen(text), &q, err, sizeof(err)), 0);
	q->enabled = true;
	sa_set_policies(e.sa, q, parts);

	/* MultiPathRecord: ca-0 to ca-1 the default, to ca-5 the GUID rule */
	mpr_gids(&e, &m, src, 1, dst, 2);
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	CU_ASSERT_EQUAL(
	    handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD, MPR_COUNTS, img, 200, &res),
	    0);
	CU_ASSERT_EQUAL_FATAL(res.n, 2);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 2);
	decode_at(res.buf, 1, &r);
	CU_ASSERT_EQUAL(r.sl, 6);
	free(res.buf);
	/* with ServiceID 0x42 named: the ServiceID rule comes first */
	m.service_id = 0x42;
	sa_wire_mpath_rec_encode(&m, img, sizeof(img));
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_RECORD, MPR_COUNTS | sid,
				img, 200, &res),
			0);
	CU_ASSERT_EQUAL_FATAL(res.n, 2);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 5);
	decode_at(res.buf, 1, &r);
	CU_ASSERT_EQUAL(r.sl, 5);
	free(res.buf);

	/* PathRecord ca-0 -> ca-1: SL 2; asking SL 2 one record, SL 3 none */
	pr.slid = port_of(&e, "ca-0")->lid;
	pr.dlid = port_of(&e, "ca-1")->lid;
	sa_wire_path_rec_encode(&pr, img, SA_WIRE_PR_SIZE);
	CU_ASSERT_EQUAL(handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
				PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID), img, SA_WIRE_PR_SIZE,
				&res),
			0);
	CU_ASSERT_EQUAL_FATAL(res.n, 1);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 2);
	free(res.buf);
	pr.sl = 2;
	sa_wire_path_rec_encode(&pr, img, SA_WIRE_PR_SIZE);
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
		PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID) | PR_BIT(SA_PR_SL), img, SA_WIRE_PR_SIZE,
		&res);
	CU_ASSERT_EQUAL(res.n, 1);
	free(res.buf);
	pr.sl = 3;
	sa_wire_path_rec_encode(&pr, img, SA_WIRE_PR_SIZE);
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
		PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID) | PR_BIT(SA_PR_SL), img, SA_WIRE_PR_SIZE,
		&res);
	CU_ASSERT_EQUAL(res.n, 0);
	free(res.buf);

	/* the default partition's sl=4 comes before the policy's default */
	snprintf(text, sizeof(text), "Default=0x7fff, sl=4 : ALL=full ;");
	CU_ASSERT_EQUAL_FATAL(partition_parse("p", text, strlen(text), &parts, err, sizeof(err)),
			      0);
	sa_set_policies(e.sa, q, parts);
	pr.sl = 0;
	sa_wire_path_rec_encode(&pr, img, SA_WIRE_PR_SIZE);
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
		PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID), img, SA_WIRE_PR_SIZE, &res);
	CU_ASSERT_EQUAL_FATAL(res.n, 1);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 4);
	free(res.buf);
	/* QoS off: the partition's sl= still, the rules not */
	q->enabled = false; /* (the test's own policy: a loaded one is never changed) */
	pr.dlid = port_of(&e, "ca-5")->lid;
	sa_wire_path_rec_encode(&pr, img, SA_WIRE_PR_SIZE);
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
		PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID), img, SA_WIRE_PR_SIZE, &res);
	CU_ASSERT_EQUAL_FATAL(res.n, 1);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 4);
	free(res.buf);
	/* neither: 0 */
	partition_config_free(parts);
	parts = NULL;
	sa_set_policies(e.sa, q, NULL);
	handler(&e, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
		PR_BIT(SA_PR_SLID) | PR_BIT(SA_PR_DLID), img, SA_WIRE_PR_SIZE, &res);
	CU_ASSERT_EQUAL_FATAL(res.n, 1);
	decode_at(res.buf, 0, &r);
	CU_ASSERT_EQUAL(r.sl, 0);
	free(res.buf);
	qos_policy_free(q);
	env_fini(&e);
}

/* A runtime partition's mtu_limit and rate_limit (issue 23): PathRecords in it run at most those.
 */
static void test_partition_caps(void)
{
	struct env e;
	struct sa_wire_path_rec q = {0}, r;
	struct sa_wire_mad *a;
	struct partition_config *parts = partition_default();
	const uint64_t mtu = PR_BIT(SA_PR_MTU_SEL) | PR_BIT(SA_PR_MTU);

	CU_ASSERT_PTR_NOT_NULL_FATAL(parts);
	env_init(&e, topogen_fat_tree(2, 4, 0, 0), 0, "ftree");
	q.slid = port_of(&e, "ca-0")->lid;
	q.dlid = port_of(&e, "ca-1")->lid;
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID, &q);
	decode_at(a->data, 0, &r);
	CU_ASSERT(r.mtu == PATH_MTU_2048 && r.rate == PATH_RATE_10);
	/* (the ports' tables are not known: the default partition it is) */
	parts->parts[0].path_mtu = PATH_MTU_1024; /* the built-in policy: the default alone */
	parts->parts[0].path_rate = PATH_RATE_2_5;
	sa_set_policies(e.sa, NULL, parts);
	a = ask_pr(&e, SA_METHOD_GET, PR_ENDS_LID, &q);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	decode_at(a->data, 0, &r);
	CU_ASSERT_EQUAL(r.mtu, PATH_MTU_1024);
	CU_ASSERT_EQUAL(r.rate, PATH_RATE_2_5);
	/* a query for exactly 2048: the partition's limit leaves none */
	q.mtu_sel = PATH_SEL_EQ;
	q.mtu = PATH_MTU_2048;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q), SA_STATUS_NO_RECORDS);
	/* below 2048: taken */
	q.mtu_sel = PATH_SEL_LT;
	CU_ASSERT_EQUAL(pr_status(&e, SA_METHOD_GET, PR_ENDS_LID | mtu, &q), 0);
	sa_set_policies(e.sa, NULL, NULL);
	partition_config_free(parts);
	env_fini(&e);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"a runtime partition's MTU and rate limits", test_partition_caps},
	    {"PathRecord codec: OpenSM's bytes, libibmad's fields, truncation", test_pr_codec},
	    {"MultiPathRecord codec", test_mpr_codec},
	    {"QoS policy SLs in PathRecords and MultiPathRecords", test_qos_sl},
	    {"Get by LIDs and GIDs: OpenSM's record for every CA pair", test_get_ends},
	    {"GIDs of other subnets, unknown ends; the requester as source",
	     test_get_gids_and_requester},
	    {"selectors, SL, Reversible", test_selectors},
	    {"LMC 2: Get too many, NumbPath 1, GetTable 16 in order", test_lmc},
	    {"dor torus: the record's SL is the routing's for every pair", test_dor_sl},
	    {"statuses, P_Keys, methods, half and world tables", test_statuses},
	    {"world GetTable on 6,468 nodes: bounded", test_budget},
	    {"GetMulti: cross product, NumbPath, statuses", test_multipath},
	    {"GetMulti: LMC pairs, APM diagonal", test_multipath_lmc_apm},
	    {NULL, NULL},
	};

	return testutil_run("pathrec", cases);
}

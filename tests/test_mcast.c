/*
 * Unit tests of multicast: the group database (sa/mcast.c), the spanning
 * trees (routing/mtree.c) and the MFT updates (sm/mfts.c, program_mft in
 * smp/program.c).
 *
 *  - the join/leave state machine: full, non and send-only members, proxy
 *    joins, re-joins, leaves of bits not held; creates with an MGID the SA
 *    picks; conflicting joins refused with their reason and SA status; the
 *    IPoIB broadcast group's parameters and lifetime;
 *  - no leak: 10,000 joins and leaves over many groups checked against a
 *    model after every step, every MLID taken and given back;
 *  - members dropped when their port leaves the fabric;
 *  - trees on generated fabrics (fat trees, tori, meshes, random graphs,
 *    dual-ported CAs): a packet from every member, flooded through the port
 *    masks, reaches every receiver exactly once, nobody else, and no switch
 *    twice; send-only members get a one-way branch; the same tables for the
 *    fabric in shuffled order;
 *  - programming: a fake transport on a real libevent loop applies the MFT
 *    Sets to simulated switches: a batch sends what differs and only that,
 *    a failed block makes its switch be rewritten whole, MulticastFDBTop
 *    where supported, and a join or a new snapshot reprograms through
 *    sm/mfts.c with no sweep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/mft.h"
#include "fabric/snapshot.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "routing/mtree.h"
#include "sa/mcast.h"
#include "sm/mfts.h"
#include "smp/program.h"
#include "sm/sm.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

#define PREFIX 0xfe80000000000000ULL

static void gid_of(uint64_t guid, uint8_t gid[16])
{
	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

/* An MGID ff15::<id> (transient, site-local, no signature). */
static void mgid_of(unsigned id, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x15;
	mgid[12] = (uint8_t)(id >> 24);
	mgid[13] = (uint8_t)(id >> 16);
	mgid[14] = (uint8_t)(id >> 8);
	mgid[15] = (uint8_t)id;
}

/* A join with everything a create needs. */
static struct mcast_join_req jreq(const uint8_t mgid[16], uint64_t guid, uint8_t js)
{
	struct mcast_join_req r = {0};

	r.comp = MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE | MCAST_C_QKEY |
		 MCAST_C_PKEY | MCAST_C_SL | MCAST_C_FLOW | MCAST_C_TCLASS;
	memcpy(r.mgid, mgid, 16);
	gid_of(guid, r.port_gid);
	r.join_state = js;
	r.p.qkey = 0x1234;
	r.p.pkey = 0xffff;
	r.p.sl = 1;
	r.p.tclass = 2;
	r.p.flow_label = 3;
	r.subnet_prefix = PREFIX;
	return r;
}

static int join(struct mcast_db *db, const uint8_t mgid[16], uint64_t guid, uint8_t js,
		struct mcast_result *res)
{
	struct mcast_join_req r = jreq(mgid, guid, js);

	return mcast_join(db, &r, res);
}

static int leave(struct mcast_db *db, const uint8_t mgid[16], uint64_t guid, uint8_t js, bool proxy,
		 struct mcast_result *res)
{
	uint8_t gid[16];

	gid_of(guid, gid);
	return mcast_leave(db, mgid, gid, js, proxy, res);
}

struct hook_counts {
	unsigned changed, deleted;
	uint16_t last_deleted_mlid;
};

static void count_changed(void *ctx, const void *data)
{
	((struct hook_counts *)ctx)->changed++;
}

static void count_deleted(void *ctx, const void *data)
{
	struct hook_counts *c = ctx;
	const struct mcast_group *g = data;

	c->deleted++;
	c->last_deleted_mlid = g->mlid;
}

static struct mcast_db *db_counted(struct hook_counts *c)
{
	struct mcast_db *db = mcast_db_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(hook_add(&mcast_db_hooks(db)->changed, count_changed, c), 0);
	CU_ASSERT_EQUAL(hook_add(&mcast_db_hooks(db)->deleted, count_deleted, c), 0);
	return db;
}

/* ---- the join/leave state machine ------------------------------------------------ */

static void test_states(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	struct mcast_result res;
	const struct mcast_group *g;
	uint8_t mgid[16], other[16];
	struct mcast_join_req r;

	mgid_of(7, mgid);
	mgid_of(8, other);
	/* a non-member or send-only join cannot create */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_NON, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NO_GROUP);
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_SEND_ONLY, &res), -EINVAL);
	CU_ASSERT_EQUAL(mcast_group_count(db), 0);

	/* full member A creates */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_TRUE(res.created);
	CU_ASSERT_EQUAL(res.join_state, MCAST_FULL);
	g = res.g;
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->mlid, 0xC000);
	CU_ASSERT_EQUAL(g->full_members, 1);
	CU_ASSERT_PTR_EQUAL(mcast_find(db, mgid), g);
	CU_ASSERT_PTR_EQUAL(mcast_find_mlid(db, 0xC000), g);
	CU_ASSERT_EQUAL(hc.changed, 1);

	/* B non-member, C send-only, D by proxy */
	CU_ASSERT_EQUAL(join(db, mgid, 0xb, MCAST_NON, &res), 0);
	CU_ASSERT_FALSE(res.created);
	CU_ASSERT_EQUAL(join(db, mgid, 0xc, MCAST_SEND_ONLY, &res), 0);
	r = jreq(mgid, 0xd, MCAST_FULL);
	r.proxy = true;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(g->n_members, 4);
	CU_ASSERT_EQUAL(g->full_members, 2);
	CU_ASSERT_EQUAL(mcast_member_count(db), 4);
	CU_ASSERT_TRUE(mcast_group_member(g, 0xd)->proxy);
	CU_ASSERT_FALSE(mcast_group_member(g, 0xa)->proxy);
	CU_ASSERT_EQUAL(hc.changed, 4);

	/* re-joins OR the bits; a join that adds nothing changes nothing */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_NON, &res), 0);
	CU_ASSERT_EQUAL(res.join_state, MCAST_FULL | MCAST_NON);
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(res.join_state, MCAST_FULL | MCAST_NON);
	CU_ASSERT_EQUAL(g->full_members, 2);
	CU_ASSERT_EQUAL(hc.changed, 4); /* A received before and after: the tree is the same */
	/* send-only C becomes a receiver: the tree changes */
	CU_ASSERT_EQUAL(join(db, mgid, 0xc, MCAST_NON, &res), 0);
	CU_ASSERT_EQUAL(res.join_state, MCAST_SEND_ONLY | MCAST_NON);
	CU_ASSERT_EQUAL(hc.changed, 5);

	/* bad join states */
	CU_ASSERT_EQUAL(join(db, mgid, 0xe, 0, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_JOIN);
	CU_ASSERT_EQUAL(join(db, mgid, 0xe, 0x10, &res), -EINVAL); /* past SendOnlyFullMember */
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_JOIN);
	CU_ASSERT_EQUAL(join(db, mgid, 0, MCAST_FULL, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_GID);
	CU_ASSERT_EQUAL(mcast_why_sa_status(MCAST_BAD_GID), 0x0500);
	r = jreq(mgid, 0xe, MCAST_FULL);
	r.comp &= ~MCAST_C_JOIN_STATE;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_INSUF_COMPS);

	/* a proxy may not change what a port joined by itself */
	r = jreq(mgid, 0xa, MCAST_SEND_ONLY);
	r.proxy = true;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_PROXY);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_NON, true, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_PROXY);

	/* leaves: bits must be held, all of them */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_SEND_ONLY, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NOT_HELD);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_NON | MCAST_SEND_ONLY, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NOT_HELD);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, 0, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NOT_HELD);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, 0x11, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_JOIN);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xf, MCAST_FULL, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NOT_MEMBER);
	CU_ASSERT_EQUAL(leave(db, other, 0xa, MCAST_FULL, false, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NO_GROUP);
	CU_ASSERT_EQUAL(mcast_why_sa_status(MCAST_NO_GROUP), 0x0200);
	CU_ASSERT_EQUAL(g->n_members, 4);

	/* A leaves its non-member bit: still full */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_NON, false, &res), 0);
	CU_ASSERT_EQUAL(res.join_state, MCAST_FULL);
	CU_ASSERT_PTR_EQUAL(res.g, g);
	/* C leaves send-only, still a non-member; then leaves that too and goes */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xc, MCAST_SEND_ONLY, false, &res), 0);
	CU_ASSERT_EQUAL(mcast_group_member(g, 0xc)->join_state, MCAST_NON);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xc, MCAST_NON, false, &res), 0);
	CU_ASSERT_EQUAL(res.join_state, 0);
	CU_ASSERT_PTR_NULL(mcast_group_member(g, 0xc));
	CU_ASSERT_EQUAL(g->n_members, 3);
	/* the proxy leaves for D (joined by proxy) */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xd, MCAST_FULL, true, &res), 0);
	CU_ASSERT_EQUAL(g->full_members, 1);
	CU_ASSERT_EQUAL(hc.deleted, 0);

	/* the last full member leaves: the group goes, with non-member B, and its MLID */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_FULL, false, &res), 0);
	CU_ASSERT_TRUE(res.deleted);
	CU_ASSERT_PTR_NULL(res.g);
	CU_ASSERT_EQUAL(hc.deleted, 1);
	CU_ASSERT_EQUAL(hc.last_deleted_mlid, 0xC000);
	CU_ASSERT_PTR_NULL(mcast_find(db, mgid));
	CU_ASSERT_PTR_NULL(mcast_find_mlid(db, 0xC000));
	CU_ASSERT_EQUAL(mcast_group_count(db), 0);
	CU_ASSERT_EQUAL(mcast_member_count(db), 0);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 0);
	CU_ASSERT_EQUAL(mcast_mlid_top(db), 0);
	/* and the MLID is given again */
	CU_ASSERT_EQUAL(join(db, other, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(res.g->mlid, 0xC000);
	for (int w = MCAST_OK; w <= MCAST_NOMEM; w++)
		CU_ASSERT(strlen(mcast_why_str((enum mcast_why)w)) > 1);
	mcast_db_free(db);
	mcast_db_free(NULL);
}

/* ---- creates ------------------------------------------------------------------------- */

/*
 * SendOnlyFullMember (JoinState bit 3, IBA 1.2.1): creates a group and is
 * not delivered to; as in OpenSM the group goes with its last FullMember
 * (osmtest -f m leaves a 0xF member's FullMember bit alone and expects the
 * group gone), or with its last member when none was a FullMember.
 */
static void test_send_only_full(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	struct mcast_result res;
	const struct mcast_group *g;
	uint8_t mgid[16];

	mgid_of(77, mgid);
	/* a send-only full join creates the group: not a receiver, not counted full */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_SEND_ONLY_FULL, &res), 0);
	CU_ASSERT(res.created && res.join_state == MCAST_SEND_ONLY_FULL);
	g = mcast_find(db, mgid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT(g->full_members == 0 && g->n_members == 1);
	CU_ASSERT(mcast_is_full(g->members[0].join_state));
	CU_ASSERT_FALSE(mcast_receives(g->members[0].join_state));
	/* a send-only non member does not create */
	mgid_of(78, mgid);
	CU_ASSERT_EQUAL(join(db, mgid, 0xb, MCAST_SEND_ONLY, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NO_GROUP);
	mgid_of(77, mgid);
	/* a non member joins; the send-only full member leaves: the non member keeps it */
	CU_ASSERT_EQUAL(join(db, mgid, 0xb, MCAST_NON, &res), 0);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_SEND_ONLY_FULL, false, &res), 0);
	CU_ASSERT_FALSE(res.deleted);
	CU_ASSERT_EQUAL(g->n_members, 1);
	/* the last member leaves: the group goes */
	CU_ASSERT_EQUAL(leave(db, mgid, 0xb, MCAST_NON, false, &res), 0);
	CU_ASSERT(res.deleted);
	CU_ASSERT_PTR_NULL(mcast_find(db, mgid));
	CU_ASSERT_EQUAL(hc.deleted, 1);

	/* osmtest's flow: created with JoinState 0xF, left with FullMember alone: deleted */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_JOIN_MASK, &res), 0);
	g = mcast_find(db, mgid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->full_members, 1);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_FULL, false, &res), 0);
	CU_ASSERT(res.deleted);
	CU_ASSERT_EQUAL(hc.deleted, 2);

	/* a FullMember's group: a send-only full member does not keep it after the last one */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(join(db, mgid, 0xb, MCAST_SEND_ONLY_FULL, &res), 0);
	g = mcast_find(db, mgid);
	CU_ASSERT(g && g->full_members == 1 && g->n_members == 2);
	CU_ASSERT_EQUAL(leave(db, mgid, 0xa, MCAST_FULL, false, &res), 0);
	CU_ASSERT(res.deleted);
	CU_ASSERT_PTR_NULL(mcast_find(db, mgid));
	mcast_db_free(db);
}

static void test_create(void)
{
	struct mcast_db *db = mcast_db_new();
	struct mcast_result res;
	struct mcast_join_req r;
	uint8_t zero[16] = {0}, mgid[16];
	static const uint8_t want0[16] = {0xff, 0x12, 0xa0, 0x1b, 0xfe, 0x80, 0, 0,
					  0,	0,    0,    0,	  0,	0,    0, 0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	/* MGID 0: the SA picks ff12:a01b:<prefix>:<id>, a new one each time */
	CU_ASSERT_EQUAL(join(db, zero, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_TRUE(res.created);
	CU_ASSERT(memcmp(res.g->mgid, want0, 16) == 0);
	CU_ASSERT_EQUAL(res.g->p.scope, MCAST_SCOPE_LINK_LOCAL);
	CU_ASSERT_EQUAL(res.g->p.hop_limit, 0);
	CU_ASSERT_EQUAL(res.g->p.mtu, MCAST_DEFAULT_MTU);
	CU_ASSERT_EQUAL(res.g->p.rate, MCAST_DEFAULT_RATE);
	CU_ASSERT_EQUAL(res.g->p.qkey, 0x1234);
	CU_ASSERT_EQUAL(join(db, zero, 0xa, MCAST_FULL, &res), 0);
	CU_ASSERT_TRUE(res.created);
	CU_ASSERT_EQUAL(res.g->mgid[15], 1);
	CU_ASSERT_EQUAL(res.g->mlid, 0xC001);
	/* a scope asked for */
	r = jreq(zero, 0xa, MCAST_FULL);
	r.comp |= MCAST_C_SCOPE;
	r.p.scope = 0xe;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(res.g->mgid[1], 0x1e);
	CU_ASSERT_EQUAL(res.g->p.hop_limit, 0xff); /* not link-local */
	/* an MGID 0 that cannot create */
	CU_ASSERT_EQUAL(join(db, zero, 0xa, MCAST_NON, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_NO_GROUP);

	/* insufficient components for a create */
	static const uint64_t needed[] = {MCAST_C_QKEY, MCAST_C_PKEY, MCAST_C_SL, MCAST_C_FLOW,
					  MCAST_C_TCLASS};
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		mgid_of(100, mgid);
		r = jreq(mgid, 0xa, MCAST_FULL);
		r.comp &= ~needed[i];
		CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
		CU_ASSERT_EQUAL(res.why, MCAST_INSUF_COMPS);
		CU_ASSERT_EQUAL(mcast_why_sa_status(res.why), 0x0600);
	}
	CU_ASSERT_PTR_NULL(mcast_find(db, mgid));

	/* MGIDs a client may not create */
	memcpy(mgid, want0, 16);
	mgid[15] = 0x77; /* the SA's own signature with link-local scope */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_MGID);
	mgid_of(101, mgid);
	mgid[0] = 0xfe; /* not multicast */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_MGID);
	mgid_of(102, mgid);
	mgid[1] = 0x35; /* reserved flag bits */
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_MGID);
	mgid[2] = 0x60; /* ... but IPoIB's MGIDs pass as they are */
	mgid[3] = 0x1b;
	CU_ASSERT_EQUAL(join(db, mgid, 0xa, MCAST_FULL, &res), 0);

	/* P_Key 0 / 0x8000 is no partition */
	mgid_of(103, mgid);
	r = jreq(mgid, 0xa, MCAST_FULL);
	r.p.pkey = 0x8000;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_BAD_PKEY);
	/* a limited P_Key creates a limited group */
	r.p.pkey = 0x0005;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(res.g->p.pkey, 0x0005);

	/* MTU: the port's when none is named; selectors pick what the port can do */
	static const struct {
		bool named;
		uint8_t sel, mtu, port, want; /* want 0: unrealizable; 0xff: port caps */
	} mt[] = {
	    {false, 0, 0, 5, 5},
	    {false, 0, 0, 0, MCAST_DEFAULT_MTU},
	    {true, MCAST_SEL_LARGEST, 1, 3, 3},
	    {true, MCAST_SEL_GT, 3, 5, 5},
	    {true, MCAST_SEL_GT, 3, 0, 4},
	    {true, MCAST_SEL_GT, 5, 5, 0},
	    {true, MCAST_SEL_GT, 5, 0, 0},
	    {true, MCAST_SEL_LT, 4, 0, 3},
	    {true, MCAST_SEL_LT, 5, 3, 3},
	    {true, MCAST_SEL_LT, 1, 0, 0},
	    {true, MCAST_SEL_EQ, 2, 4, 2},
	    {true, MCAST_SEL_EQ, 5, 4, 0xff},
	};
	for (size_t i = 0; i < sizeof(mt) / sizeof(mt[0]); i++) {
		mgid_of(200 + (unsigned)i, mgid);
		r = jreq(mgid, 0xa, MCAST_FULL);
		if (mt[i].named)
			r.comp |= MCAST_C_MTU | MCAST_C_MTU_SEL;
		r.mtu_sel = mt[i].sel;
		r.p.mtu = mt[i].mtu;
		r.port_mtu = mt[i].port;
		if (mt[i].want == 0) {
			CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
			CU_ASSERT_EQUAL(res.why, MCAST_UNREALIZABLE);
		} else if (mt[i].want == 0xff) {
			CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
			CU_ASSERT_EQUAL(res.why, MCAST_PORT_CAPS);
		} else {
			CU_ASSERT_EQUAL_FATAL(mcast_join(db, &r, &res), 0);
			CU_ASSERT_EQUAL(res.g->p.mtu, mt[i].want);
		}
	}
	/* rate codes are not in speed order: 5 (5 Gb/s) is below 3 (10 Gb/s) */
	static const struct {
		bool named;
		uint8_t sel, rate, port, want;
	} rt[] = {
	    {false, 0, 0, 7, 7},		  /* the port's 40 Gb/s */
	    {false, 0, 0, 0, MCAST_DEFAULT_RATE}, /* 10 Gb/s */
	    {true, MCAST_SEL_GT, 3, 0, 11},	  /* > 10 Gb/s: 14 Gb/s */
	    {true, MCAST_SEL_LT, 3, 0, 5},	  /* < 10 Gb/s: 5 Gb/s */
	    {true, MCAST_SEL_LT, 2, 0, 0},	  /* < 2.5 Gb/s: none */
	    {true, MCAST_SEL_GT, 7, 6, 0},	  /* > 40 Gb/s on a 20 Gb/s port */
	    {true, MCAST_SEL_EQ, 3, 5, 0xff},	  /* 10 Gb/s on a 5 Gb/s port */
	    {true, MCAST_SEL_EQ, 3, 11, 3},	  /* 10 Gb/s on a 14 Gb/s port */
	};
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		mgid_of(300 + (unsigned)i, mgid);
		r = jreq(mgid, 0xa, MCAST_FULL);
		if (rt[i].named)
			r.comp |= MCAST_C_RATE | MCAST_C_RATE_SEL;
		r.rate_sel = rt[i].sel;
		r.p.rate = rt[i].rate;
		r.port_rate = rt[i].port;
		if (rt[i].want == 0) {
			CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
			CU_ASSERT_EQUAL(res.why, MCAST_UNREALIZABLE);
		} else if (rt[i].want == 0xff) {
			CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
			CU_ASSERT_EQUAL(res.why, MCAST_PORT_CAPS);
		} else {
			CU_ASSERT_EQUAL_FATAL(mcast_join(db, &r, &res), 0);
			CU_ASSERT_EQUAL(res.g->p.rate, rt[i].want);
		}
	}

	/* an MLID asked for: given when free, the lowest free one otherwise */
	mgid_of(400, mgid);
	r = jreq(mgid, 0xa, MCAST_FULL);
	r.comp |= MCAST_C_MLID;
	r.mlid = 0xC123;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(res.g->mlid, 0xC123);
	CU_ASSERT_EQUAL(mcast_mlid_top(db), 0xC123);
	mgid_of(401, mgid);
	memcpy(r.mgid, mgid, 16);
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT(res.g->mlid < 0xC123);
	mcast_db_free(db);
}

/* ---- conflicts ------------------------------------------------------------------------ */

static void test_conflicts(void)
{
	struct mcast_db *db = mcast_db_new();
	struct mcast_result res;
	struct mcast_join_req r;
	uint8_t mgid[16], limited[16];
	size_t members;

	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	mgid_of(1, mgid);
	r = jreq(mgid, 0xa, MCAST_FULL);
	r.comp |= MCAST_C_HOP | MCAST_C_MTU | MCAST_C_MTU_SEL | MCAST_C_RATE | MCAST_C_RATE_SEL;
	r.mtu_sel = r.rate_sel = MCAST_SEL_EQ;
	r.p.mtu = 4;
	r.p.rate = 3;
	r.p.hop_limit = 0;
	CU_ASSERT_EQUAL_FATAL(mcast_join(db, &r, &res), 0);
	members = mcast_member_count(db);

#define REFUSED(field_stmt, comp_bits, reason)                                                     \
	do {                                                                                       \
		r = jreq(mgid, 0xb, MCAST_NON);                                                    \
		r.comp = MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE | (comp_bits);       \
		field_stmt;                                                                        \
		CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);                                \
		CU_ASSERT_EQUAL(res.why, reason);                                                  \
		CU_ASSERT_EQUAL(mcast_why_sa_status(res.why), 0x0200);                             \
	} while (0)
#define ACCEPTED(field_stmt, comp_bits)                                                            \
	do {                                                                                       \
		r = jreq(mgid, 0xb, MCAST_NON);                                                    \
		r.comp = MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE | (comp_bits);       \
		field_stmt;                                                                        \
		CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);                                      \
		CU_ASSERT_EQUAL(leave(db, mgid, 0xb, MCAST_NON, false, &res), 0);                  \
	} while (0)

	REFUSED(r.p.qkey = 0x4321, MCAST_C_QKEY, MCAST_QKEY);
	REFUSED(r.p.pkey = 0xfffe, MCAST_C_PKEY, MCAST_PKEY); /* another partition */
	REFUSED(r.p.sl = 2, MCAST_C_SL, MCAST_SL);
	REFUSED(r.p.tclass = 9, MCAST_C_TCLASS, MCAST_TCLASS);
	REFUSED(r.p.flow_label = 9, MCAST_C_FLOW, MCAST_FLOW);
	REFUSED(r.p.hop_limit = 9, MCAST_C_HOP, MCAST_HOP);
	REFUSED((r.mtu_sel = MCAST_SEL_EQ, r.p.mtu = 5), MCAST_C_MTU | MCAST_C_MTU_SEL, MCAST_MTU);
	REFUSED((r.mtu_sel = MCAST_SEL_GT, r.p.mtu = 4), MCAST_C_MTU | MCAST_C_MTU_SEL, MCAST_MTU);
	REFUSED((r.mtu_sel = MCAST_SEL_LT, r.p.mtu = 4), MCAST_C_MTU | MCAST_C_MTU_SEL, MCAST_MTU);
	REFUSED((r.rate_sel = MCAST_SEL_EQ, r.p.rate = 7), MCAST_C_RATE | MCAST_C_RATE_SEL,
		MCAST_RATE);
	REFUSED((r.rate_sel = MCAST_SEL_LT, r.p.rate = 5), MCAST_C_RATE | MCAST_C_RATE_SEL,
		MCAST_RATE); /* 10 Gb/s is not below 5 Gb/s, though code 3 < 5 */
	REFUSED(r.port_mtu = 3, 0, MCAST_PORT_CAPS);
	REFUSED(r.port_rate = 2, 0, MCAST_PORT_CAPS);
	REFUSED(r.port_rate = 5, 0, MCAST_PORT_CAPS); /* 5 Gb/s < 10 Gb/s */
	CU_ASSERT_EQUAL(mcast_member_count(db), members);

	ACCEPTED(r.p.qkey = 0x1234, MCAST_C_QKEY);
	ACCEPTED(r.p.pkey = 0x7fff, MCAST_C_PKEY); /* limited member of a full group */
	ACCEPTED((r.mtu_sel = MCAST_SEL_LT, r.p.mtu = 5), MCAST_C_MTU | MCAST_C_MTU_SEL);
	ACCEPTED((r.mtu_sel = MCAST_SEL_GT, r.p.mtu = 3), MCAST_C_MTU | MCAST_C_MTU_SEL);
	ACCEPTED((r.mtu_sel = MCAST_SEL_LARGEST, r.p.mtu = 1), MCAST_C_MTU | MCAST_C_MTU_SEL);
	ACCEPTED((r.rate_sel = MCAST_SEL_GT, r.p.rate = 5), MCAST_C_RATE | MCAST_C_RATE_SEL);
	ACCEPTED(r.port_rate = 11, 0); /* 14 Gb/s */
	ACCEPTED((r.port_mtu = 5, r.port_rate = 7), 0);
	CU_ASSERT_EQUAL(mcast_member_count(db), members);

	/* a limited group takes no limited member */
	mgid_of(2, limited);
	r = jreq(limited, 0xa, MCAST_FULL);
	r.p.pkey = 0x0005;
	CU_ASSERT_EQUAL_FATAL(mcast_join(db, &r, &res), 0);
	r = jreq(limited, 0xb, MCAST_FULL);
	r.p.pkey = 0x0005;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_PKEY);
	r.p.pkey = 0x8005;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
#undef REFUSED
#undef ACCEPTED
	mcast_db_free(db);
}

/* ---- the IPoIB broadcast group ----------------------------------------------------------- */

/*
 * Two MGIDs that fold into one index key (the fold of sa/mcast.c, copied):
 * each finds its own group, and either goes without taking the other.
 */
static uint64_t mgid_fold(const uint8_t m[16])
{
	uint64_t a, b;

	memcpy(&a, m, 8);
	memcpy(&b, m + 8, 8);
	return a ^ b * 0x9e3779b97f4a7c15ULL;
}

static void test_mgid_collision(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	struct mcast_result res;
	uint8_t m1[16], m2[16];
	uint64_t b2;

	mgid_of(7, m1);
	/* an m2 with m1's key that a client may create: ff, no reserved flag */
	for (b2 = 1;; b2++) {
		uint64_t a2 = mgid_fold(m1) ^ b2 * 0x9e3779b97f4a7c15ULL;

		memcpy(m2, &a2, 8);
		memcpy(m2 + 8, &b2, 8);
		if (m2[0] == 0xff && !(m2[1] & 0xe0) && (m2[2] != 0xa0 || m2[3] != 0x1b) &&
		    memcmp(m1, m2, 16))
			break;
	}
	CU_ASSERT_EQUAL(mgid_fold(m1), mgid_fold(m2));
	CU_ASSERT_EQUAL(join(db, m1, 0x100, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(join(db, m2, 0x200, MCAST_FULL, &res), 0);
	CU_ASSERT_TRUE(res.created);
	CU_ASSERT_EQUAL(mcast_group_count(db), 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mcast_find(db, m1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mcast_find(db, m2));
	CU_ASSERT_EQUAL(memcmp(mcast_find(db, m1)->mgid, m1, 16), 0);
	CU_ASSERT_EQUAL(memcmp(mcast_find(db, m2)->mgid, m2, 16), 0);
	CU_ASSERT_PTR_NOT_NULL(mcast_group_member(mcast_find(db, m2), 0x200));
	CU_ASSERT_PTR_NULL(mcast_group_member(mcast_find(db, m2), 0x100));
	/* the first goes: the second stays, found */
	CU_ASSERT_EQUAL(leave(db, m1, 0x100, MCAST_FULL, false, &res), 0);
	CU_ASSERT_TRUE(res.deleted);
	CU_ASSERT_PTR_NULL(mcast_find(db, m1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mcast_find(db, m2));
	CU_ASSERT_EQUAL(memcmp(mcast_find(db, m2)->mgid, m2, 16), 0);
	/* back, then the second goes */
	CU_ASSERT_EQUAL(join(db, m1, 0x100, MCAST_FULL, &res), 0);
	CU_ASSERT_TRUE(res.created);
	CU_ASSERT_EQUAL(leave(db, m2, 0x200, MCAST_FULL, false, &res), 0);
	CU_ASSERT_PTR_NULL(mcast_find(db, m2));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mcast_find(db, m1));
	CU_ASSERT_EQUAL(memcmp(mcast_find(db, m1)->mgid, m1, 16), 0);
	CU_ASSERT_EQUAL(hc.deleted, 2);
	mcast_db_free(db);
}

static void test_broadcast(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	const struct mcast_group *g, *g2;
	struct mcast_result res;
	struct mcast_join_req r;
	static const uint8_t bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
					  0,	0,    0,    0,	  0xff, 0xff, 0xff, 0xff};

	CU_ASSERT(memcmp(mcast_ipoib_broadcast_mgid, bcast, 16) == 0);
	CU_ASSERT_EQUAL_FATAL(mcast_add_ipoib_broadcast(db, 3, 0, &g), 0);
	CU_ASSERT(memcmp(g->mgid, bcast, 16) == 0);
	CU_ASSERT_EQUAL(g->mlid, 0xC000);
	CU_ASSERT_EQUAL(g->p.qkey, 0x0b1b);
	CU_ASSERT_EQUAL(g->p.pkey, 0xffff);
	CU_ASSERT_EQUAL(g->p.mtu, 4);
	CU_ASSERT_EQUAL(g->p.rate, 3);
	CU_ASSERT_EQUAL(g->p.sl, 0);
	CU_ASSERT_EQUAL(g->p.scope, MCAST_SCOPE_LINK_LOCAL);
	CU_ASSERT_EQUAL(g->p.hop_limit, 0);
	CU_ASSERT_TRUE(g->well_known);
	CU_ASSERT_EQUAL(g->n_members, 0);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 1);
	CU_ASSERT_EQUAL(hc.changed, 1);
	CU_ASSERT_EQUAL(mcast_add_ipoib_broadcast(db, 3, 0, &g2), -EEXIST);
	CU_ASSERT_PTR_EQUAL(g2, g);

	/* IPoIB joins it as a full member with the group's Q_Key and P_Key */
	r = jreq(bcast, 0xa, MCAST_FULL);
	r.p.qkey = 0x0b1b;
	r.p.sl = 0;
	r.p.tclass = 0;
	r.p.flow_label = 0;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_FALSE(res.created);
	r.port_gid[15] = 0xb;
	r.join_state = MCAST_NON;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	r.p.qkey = 0x1b1b;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.why, MCAST_QKEY);
	/* the last full member leaves: the members go, the group and its MLID stay */
	CU_ASSERT_EQUAL(leave(db, bcast, 0xa, MCAST_FULL, false, &res), 0);
	CU_ASSERT_FALSE(res.deleted);
	CU_ASSERT_PTR_EQUAL(res.g, g);
	CU_ASSERT_EQUAL(g->n_members, 0);
	CU_ASSERT_EQUAL(hc.deleted, 0);
	CU_ASSERT_PTR_EQUAL(mcast_find_mlid(db, 0xC000), g);
	/* and a port that leaves the fabric does not take it either */
	r.p.qkey = 0x0b1b;
	r.join_state = MCAST_FULL;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(mcast_port_gone(db, 0xb), 1);
	CU_ASSERT_PTR_EQUAL(mcast_find(db, bcast), g);
	CU_ASSERT_EQUAL(mcast_group_count(db), 1);
	CU_ASSERT_EQUAL(mcast_member_count(db), 0);
	mcast_db_free(db);
}

/* ---- no leak ------------------------------------------------------------------------------- */

#define NG 64
#define NP 13

/* The database against a model of join states, after every step. */
struct model {
	uint8_t js[NG][NP];
	bool exists[NG];
};

static void model_check(const struct mcast_db *db, const struct model *m, size_t extra_groups)
{
	size_t groups = extra_groups, members = 0;

	for (unsigned g = 0; g < NG; g++) {
		uint8_t mgid[16];
		const struct mcast_group *grp;

		mgid_of(1000 + g, mgid);
		grp = mcast_find(db, mgid);
		CU_ASSERT_EQUAL(grp != NULL, m->exists[g]);
		if (!grp)
			continue;
		groups++;
		CU_ASSERT_PTR_EQUAL(mcast_find_mlid(db, grp->mlid), grp);
		for (unsigned p = 0; p < NP; p++) {
			const struct mcast_member *mm = mcast_group_member(grp, 100 + p);
			CU_ASSERT_EQUAL(mm ? mm->join_state : 0, m->js[g][p]);
			members += m->js[g][p] != 0;
		}
	}
	CU_ASSERT_EQUAL(mcast_group_count(db), groups);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), groups);
	CU_ASSERT_EQUAL(mcast_member_count(db), members);
}

static void model_leave(struct model *m, unsigned g, unsigned p, uint8_t bits)
{
	bool full = false;

	m->js[g][p] &= ~bits;
	for (unsigned q = 0; q < NP; q++)
		full |= (m->js[g][q] & MCAST_FULL) != 0;
	if (!full) {
		memset(m->js[g], 0, NP);
		m->exists[g] = false;
	}
}

static void test_no_leak(void)
{
	static const uint8_t states[] = {MCAST_FULL, MCAST_NON, MCAST_SEND_ONLY,
					 MCAST_FULL | MCAST_NON, MCAST_NON | MCAST_SEND_ONLY};
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	const struct mcast_group *bc;
	struct model m;
	struct mcast_result res;
	uint8_t mgid[16], zero[16] = {0};
	unsigned x = 1, cycles = 0, deleted_expected = 0;

	memset(&m, 0, sizeof(m));
	CU_ASSERT_EQUAL_FATAL(mcast_add_ipoib_broadcast(db, 3, 0, &bc), 0);
	for (unsigned i = 0; cycles < 10000; i++) {
		unsigned g, p;
		uint8_t js;
		int rc;

		/* a join */
		x = x * 1103515245u + 12345u;
		g = (x >> 8) % NG;
		p = (x >> 16) % NP;
		js = states[(x >> 24) % 5];
		mgid_of(1000 + g, mgid);
		rc = join(db, mgid, 100 + p, js, &res);
		if (!m.exists[g] && !(js & MCAST_FULL)) {
			CU_ASSERT_EQUAL(rc, -EINVAL);
		} else {
			CU_ASSERT_EQUAL(rc, 0);
			m.exists[g] = true;
			m.js[g][p] |= js;
		}
		/* a leave of some bits some member holds */
		x = x * 1103515245u + 12345u;
		g = (x >> 8) % NG;
		p = (x >> 16) % NP;
		js = m.js[g][p] & states[(x >> 24) % 5];
		mgid_of(1000 + g, mgid);
		if (js) {
			bool was = m.exists[g];
			CU_ASSERT_EQUAL(leave(db, mgid, 100 + p, js, false, &res), 0);
			model_leave(&m, g, p, js);
			if (was && !m.exists[g])
				deleted_expected++;
			cycles++;
		}
		/* now and then a group the SA names, gone again at once */
		if (i % 97 == 0) {
			CU_ASSERT_EQUAL(join(db, zero, 7, MCAST_FULL, &res), 0);
			CU_ASSERT_TRUE(res.created);
			memcpy(mgid, res.g->mgid, 16);
			CU_ASSERT_EQUAL(leave(db, mgid, 7, MCAST_FULL, false, &res), 0);
			CU_ASSERT_TRUE(res.deleted);
			deleted_expected++;
		}
		model_check(db, &m, 1);
	}
	model_check(db, &m, 1);
	CU_ASSERT(cycles > 5000);
	CU_ASSERT_EQUAL(hc.deleted, deleted_expected);
	/* everyone leaves: nothing but the broadcast group is left */
	for (unsigned g = 0; g < NG; g++) {
		for (unsigned p = 0; p < NP; p++) {
			if (!m.js[g][p])
				continue;
			mgid_of(1000 + g, mgid);
			CU_ASSERT_EQUAL(leave(db, mgid, 100 + p, m.js[g][p], false, &res), 0);
			model_leave(&m, g, p, m.js[g][p]);
		}
	}
	model_check(db, &m, 1);
	CU_ASSERT_EQUAL(mcast_group_count(db), 1);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 1);
	CU_ASSERT_EQUAL(mcast_member_count(db), 0);
	/* the next group gets the lowest free MLID */
	mgid_of(5, mgid);
	CU_ASSERT_EQUAL(join(db, mgid, 1, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(res.g->mlid, 0xC001);
	CU_ASSERT_EQUAL(leave(db, mgid, 1, MCAST_FULL, false, &res), 0);

	/* every MLID: 16,382 groups beside the broadcast group, then none is left */
	for (unsigned i = 0; i < MCAST_N_MLIDS - 1; i++) {
		mgid_of(20000 + i, mgid);
		CU_ASSERT_EQUAL_FATAL(join(db, mgid, 1, MCAST_FULL, &res), 0);
		CU_ASSERT_EQUAL(res.g->mlid, 0xC001 + i);
	}
	CU_ASSERT_EQUAL(mcast_mlid_count(db), MCAST_N_MLIDS);
	CU_ASSERT_EQUAL(mcast_mlid_top(db), 0xFFFE);
	mgid_of(99999, mgid);
	CU_ASSERT_EQUAL(join(db, mgid, 1, MCAST_FULL, &res), -ENOSPC);
	CU_ASSERT_EQUAL(res.why, MCAST_NO_MLID);
	CU_ASSERT_EQUAL(mcast_why_sa_status(res.why), 0x0100);
	CU_ASSERT_EQUAL(join(db, zero, 1, MCAST_FULL, &res), -ENOSPC);
	/* one goes: its MLID is the one the next group gets */
	mgid_of(20000 + 0x100 - 1, mgid);
	CU_ASSERT_EQUAL(mcast_find(db, mgid)->mlid, 0xC100);
	CU_ASSERT_EQUAL(leave(db, mgid, 1, MCAST_FULL, false, &res), 0);
	mgid_of(99999, mgid);
	CU_ASSERT_EQUAL(join(db, mgid, 1, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(res.g->mlid, 0xC100);
	/* port 1 leaves the fabric: every group it held goes */
	CU_ASSERT_EQUAL(mcast_port_gone(db, 1), MCAST_N_MLIDS - 1);
	CU_ASSERT_EQUAL(mcast_group_count(db), 1);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 1);
	CU_ASSERT_EQUAL(mcast_member_count(db), 0);
	CU_ASSERT_EQUAL(mcast_mlid_top(db), 0xC000);
	mcast_db_free(db);
}

/* ---- ports that leave the fabric ------------------------------------------------------------- */

static struct snapshot *snap_text(const char *text)
{
	struct fabric *f = testutil_load_text(text);
	uint16_t max = testutil_assign_lids(f, 0);
	struct routes *r = routes_new(f, max);
	struct snapshot *s = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &s), 0);
	return s;
}

static uint64_t port_guid(const struct snapshot *s, const char *desc, uint8_t port)
{
	uint32_t n = testutil_find_desc(s->fabric, desc);

	CU_ASSERT_FATAL(n != FABRIC_NO_NODE);
	return s->fabric->nodes[n].ports[port].guid;
}

static const char net4[] = "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			   "Switch 8 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n\n"
			   "Hca 2 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			   "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";
/* the same without H3 */
static const char net3[] = "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			   "Switch 8 \"S2\"\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n\n"
			   "Hca 2 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			   "Hca 1 \"H4\"\n[1] \"S2\"[2]\n";

static void test_ports_gone(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	struct snapshot *a = snap_text(net4), *b = snap_text(net3);
	uint64_t h1 = port_guid(a, "H1", 1), h1b = port_guid(a, "H1", 2),
		 h2 = port_guid(a, "H2", 1), h3 = port_guid(a, "H3", 1), h4 = port_guid(a, "H4", 1);
	uint64_t s1 = port_guid(a, "S1", 0);
	struct mcast_result res;
	uint8_t g1[16], g2[16];
	const struct mcast_group *grp1;

	mgid_of(1, g1);
	mgid_of(2, g2);
	CU_ASSERT_EQUAL(join(db, g1, h1, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(join(db, g1, h2, MCAST_NON, &res), 0);
	CU_ASSERT_EQUAL(join(db, g1, h3, MCAST_SEND_ONLY, &res), 0);
	CU_ASSERT_EQUAL(join(db, g1, s1, MCAST_NON, &res), 0);	/* a switch port 0 */
	CU_ASSERT_EQUAL(join(db, g1, h1b, MCAST_NON, &res), 0); /* H1 port 2, not cabled */
	CU_ASSERT_EQUAL(join(db, g2, h3, MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(join(db, g2, h4, MCAST_NON, &res), 0);
	grp1 = mcast_find(db, g1);
	CU_ASSERT_EQUAL(mcast_member_count(db), 7);

	/* everything in a but H1's loose port 2 */
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 1);
	CU_ASSERT_PTR_NULL(mcast_group_member(grp1, h1b));
	CU_ASSERT_EQUAL(mcast_member_count(db), 6);
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 0);

	/* H3 left: out of g1, and g2 goes with its only full member (and H4 with it) */
	CU_ASSERT_EQUAL(mcast_reconcile(db, b), 2);
	CU_ASSERT_EQUAL(hc.deleted, 1);
	CU_ASSERT_PTR_NULL(mcast_find(db, g2));
	CU_ASSERT_PTR_EQUAL(mcast_find(db, g1), grp1);
	CU_ASSERT_PTR_NULL(mcast_group_member(grp1, h3));
	CU_ASSERT_PTR_NOT_NULL(mcast_group_member(grp1, s1));
	CU_ASSERT_EQUAL(mcast_member_count(db), 3);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 1);

	/* H1 gone: g1 loses its full member and goes */
	CU_ASSERT_EQUAL(mcast_port_gone(db, h1), 1);
	CU_ASSERT_EQUAL(mcast_port_gone(db, h1), 0);
	CU_ASSERT_EQUAL(mcast_group_count(db), 0);
	CU_ASSERT_EQUAL(mcast_member_count(db), 0);
	CU_ASSERT_EQUAL(mcast_mlid_count(db), 0);
	CU_ASSERT_EQUAL(hc.deleted, 2);
	snapshot_free(a);
	snapshot_free(b);
	mcast_db_free(db);
}

/* The P_Key table of port (desc, pn) of s as programmed: keys (0 ends), known. */
static void set_pkeys(struct snapshot *s, const char *desc, uint8_t pn, const uint16_t *keys)
{
	struct port *p = &s->fabric->nodes[testutil_find_desc(s->fabric, desc)].ports[pn];

	CU_ASSERT_FATAL(port_pkeys_alloc(p) != NULL);
	memset(p->pkeys, 0, FABRIC_PKEY_BLOCKS * 32 * sizeof(*p->pkeys));
	for (unsigned i = 0; keys[i]; i++)
		p->pkeys[i] = keys[i];
	p->pkey_known = (1u << FABRIC_PKEY_BLOCKS) - 1;
}

/* A partitions file changed: a member whose port lost the group's partition is dropped. */
static void test_partition_gone(void)
{
	struct hook_counts hc = {0};
	struct mcast_db *db = db_counted(&hc);
	struct snapshot *a = snap_text(net4);
	uint64_t h1 = port_guid(a, "H1", 1), h2 = port_guid(a, "H2", 1), h4 = port_guid(a, "H4", 1);
	static const uint16_t dflt[] = {0xffff, 0}, limited[] = {0x7fff, 0x8005, 0},
			      other[] = {0x8005, 0};
	struct mcast_result res;
	uint8_t g1[16];
	const struct mcast_group *grp;

	mgid_of(1, g1);
	CU_ASSERT_EQUAL(join(db, g1, h1, MCAST_FULL, &res), 0); /* P_Key 0xffff */
	CU_ASSERT_EQUAL(join(db, g1, h2, MCAST_NON, &res), 0);
	CU_ASSERT_EQUAL(join(db, g1, h4, MCAST_NON, &res), 0);
	grp = mcast_find(db, g1);
	/* tables not known (no SM programmed them): nothing dropped */
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 0);
	/* H1 full member, H2 a limited member (stays), H4 only in partition 5 (goes) */
	set_pkeys(a, "H1", 1, dflt);
	set_pkeys(a, "H2", 1, limited);
	set_pkeys(a, "H4", 1, other);
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 1);
	CU_ASSERT_PTR_NOT_NULL(mcast_group_member(grp, h1));
	CU_ASSERT_PTR_NOT_NULL(mcast_group_member(grp, h2));
	CU_ASSERT_PTR_NULL(mcast_group_member(grp, h4));
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 0);
	/* the full member loses it too: the group goes with it */
	set_pkeys(a, "H1", 1, other);
	CU_ASSERT_EQUAL(mcast_reconcile(db, a), 1);
	CU_ASSERT_PTR_NULL(mcast_find(db, g1));
	CU_ASSERT_EQUAL(hc.deleted, 1);
	snapshot_free(a);
	mcast_db_free(db);
}

/* ---- trees --------------------------------------------------------------------------------------
 */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	return x;
}

/*
 * Members chosen by GUID (so a shuffled fabric gets the same ones): about
 * half the CA ports receive, one in eight only sends; with switches, one
 * switch in eight receives on port 0.
 */
static size_t pick(const struct fabric *f, unsigned seed, bool switches, struct mtree_member *m)
{
	size_t n = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];
		for (unsigned p = node_first_lid_port(nd); p <= node_last_lid_port(nd); p++) {
			uint64_t g = nd->ports[p].guid, h = mix(g ^ (uint64_t)seed * 0x9e37) % 8;
			if (node_is_switch(nd)) {
				if (switches && h == 0)
					m[n++] = (struct mtree_member){g, true};
				continue;
			}
			if (h < 4)
				m[n++] = (struct mtree_member){g, true};
			else if (h == 4)
				m[n++] = (struct mtree_member){g, false};
		}
	}
	return n;
}

static size_t member_of(const struct mtree_member *m, size_t n, uint64_t guid)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].port_guid == guid)
			return i;
	return SIZE_MAX;
}

/*
 * Flood a packet of mlid from every member through the port masks: every
 * receiver but the sender gets exactly one copy, nobody else any, and no
 * switch sees it twice (a loop or two paths).  Returns how many senders
 * saw a wrong delivery; what NULL: quietly.
 */
static unsigned flood(const struct snapshot *s, const struct mft_set *want, uint16_t mlid,
		      const struct mtree_member *m, size_t n, const char *what)
{
	const struct fabric *f = s->fabric;
	uint32_t *queue = malloc((f->n_nodes + 1) * sizeof(*queue) * 2);
	unsigned *seen = calloc(f->n_nodes, sizeof(*seen)), *got = calloc(n ? n : 1, sizeof(*got));
	unsigned wrong = 0;

	CU_ASSERT_FATAL(queue && seen && got);
	for (size_t i = 0; i < n; i++) {
		uint32_t node, head = 0, tail = 0, visits = 0;
		uint8_t port, in;
		bool bad = false;

		CU_ASSERT_FATAL(snapshot_find_port_guid(s, m[i].port_guid, &node, &port));
		if (!node_is_switch(&f->nodes[node])) {
			const struct port *pp = &f->nodes[node].ports[port];
			CU_ASSERT_FATAL(port_is_linked(pp));
			in = pp->remote_port;
			node = pp->remote_node;
		} else {
			in = 0;
		}
		memset(seen, 0, f->n_nodes * sizeof(*seen));
		memset(got, 0, n * sizeof(*got));
		queue[tail++] = node;
		queue[tail++] = in;
		while (head < tail) {
			uint32_t v = queue[head++];
			uint8_t from = (uint8_t)queue[head++];
			const struct node *nd = &f->nodes[v];
			const struct mft *t = mft_set_get(want, nd->guid);

			if (seen[v]++) {
				bad = true; /* twice: a loop or a second path */
				continue;
			}
			visits++;
			for (unsigned p = 0; p <= nd->nports; p++) {
				uint64_t to;
				size_t k;

				if (p == from || !mft_has_port(t, mlid, (uint8_t)p))
					continue;
				if (p == 0) {
					to = nd->ports[0].guid;
				} else {
					const struct port *pp = &nd->ports[p];
					if (!port_is_linked(pp)) {
						bad = true;
						continue;
					}
					if (node_is_switch(&f->nodes[pp->remote_node])) {
						CU_ASSERT_FATAL(tail + 2 <= 2 * (f->n_nodes + 1));
						queue[tail++] = pp->remote_node;
						queue[tail++] = pp->remote_port;
						continue;
					}
					to = f->nodes[pp->remote_node].ports[pp->remote_port].guid;
				}
				k = member_of(m, n, to);
				if (k == SIZE_MAX || !m[k].receives)
					bad = true; /* delivered to a port that does not receive */
				else
					got[k]++;
			}
		}
		for (size_t k = 0; k < n; k++)
			if (got[k] != (m[k].receives && k != i && m[k].port_guid != m[i].port_guid))
				bad = true;
		if (bad && !wrong++ && what)
			fprintf(stderr, "\n%s: MLID 0x%x from member %zu (%s): wrong delivery\n",
				what, mlid, i, m[i].receives ? "receiver" : "send-only");
		(void)visits;
	}
	free(queue);
	free(seen);
	free(got);
	return wrong;
}

static void flood_check(const struct snapshot *s, const struct mft_set *want, uint16_t mlid,
			const struct mtree_member *m, size_t n, const char *what)
{
	if (flood(s, want, mlid, m, n, what))
		CU_FAIL("flood through the MFTs");
}

/* Route one MLID for picked members of s and check it. */
static struct mft_set *tree_run(const struct snapshot *s, unsigned seed, bool switches,
				const char *what, struct mtree_member **ret_m, size_t *ret_n)
{
	struct mtree_member *m = calloc(s->fabric->n_nodes * 3 + 1, sizeof(*m));
	struct mft_set *want = NULL;
	struct mtree *t = NULL;
	struct mtree_stats st;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	n = pick(s->fabric, seed, switches, m);
	CU_ASSERT_EQUAL_FATAL(mft_set_for_fabric(s->fabric, 2, &want), 0);
	CU_ASSERT_EQUAL_FATAL(mtree_new(s, &t), 0);
	CU_ASSERT_EQUAL(mtree_route(t, 0xC021, m, n, want, &st), 0);
	CU_ASSERT_EQUAL(st.members, n);
	CU_ASSERT_EQUAL(st.unattached, 0);
	CU_ASSERT_EQUAL(st.unreachable, 0);
	CU_ASSERT_EQUAL(st.clipped, 0);
	/* a second MLID in the same tables, members in reverse order */
	for (size_t i = 0; i < n / 2; i++) {
		struct mtree_member x = m[i];
		m[i] = m[n - 1 - i];
		m[n - 1 - i] = x;
	}
	CU_ASSERT_EQUAL(mtree_route(t, 0xC000, m, n, want, NULL), 0);
	mtree_free(t);
	flood_check(s, want, 0xC021, m, n, what);
	flood_check(s, want, 0xC000, m, n, what);
	/* same members, same masks, whatever their order */
	for (size_t pos = 0;;) {
		uint64_t g;
		const struct mft *tb;
		if (!mft_set_next(want, &pos, &g, &tb))
			break;
		for (uint8_t p = 0; p < tb->n_pos; p++)
			CU_ASSERT_EQUAL(mft_mask(tb, 0xC021, p), mft_mask(tb, 0xC000, p));
	}
	if (ret_m) {
		*ret_m = m;
		*ret_n = n;
	} else {
		free(m);
	}
	return want;
}

static void tree_text(char *text, const char *what)
{
	struct snapshot *s = snap_text(text);

	for (unsigned seed = 1; seed <= 3; seed++)
		mft_set_free(tree_run(s, seed, seed == 2, what, NULL, NULL));
	snapshot_free(s);
	free(text);
}

static void test_trees(void)
{
	char what[64];

	tree_text(topogen_fat_tree(2, 4, 0, 0), "ft2 k4");
	tree_text(topogen_fat_tree(2, 8, 13, TOPOGEN_PARALLEL), "ft2 k8 partial parallel");
	tree_text(topogen_fat_tree(3, 4, 0, 0), "ft3 k4");
	tree_text(topogen_fat_tree(3, 6, 30, 0), "ft3 k6 partial");
	tree_text(topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL), "dual k4");
	tree_text(topogen_mesh(4, 4, 2, 0), "mesh 4x4");
	tree_text(topogen_mesh(4, 4, 1, TOPOGEN_TORUS), "torus 4x4");
	tree_text(topogen_mesh(3, 3, 2, TOPOGEN_TORUS | TOPOGEN_PARALLEL), "torus 3x3 parallel");
	tree_text(topogen_mesh(1, 5, 1, 0), "line 1x5");
	for (unsigned seed = 1; seed <= 8; seed++) {
		snprintf(what, sizeof(what), "random seed %u", seed);
		tree_text(topogen_random(6 + (int)seed * 3, (int)seed * 3, 1 + (int)seed % 3, seed),
			  what);
	}
	tree_text(topogen_random(1, 0, 4, 5), "single switch");
}

/* The flood check itself rejects tables with a loop, a missing or an extra port. */
static void test_flood_rejects(void)
{
	char *text = topogen_mesh(3, 3, 1, TOPOGEN_TORUS);
	struct snapshot *s = snap_text(text);
	const struct fabric *f = s->fabric;
	struct mtree_member *m;
	size_t n;
	struct mft_set *want = tree_run(s, 1, false, "torus 3x3", &m, &n);
	bool looped = false, cut = false, extra = false;

	free(text);
	CU_ASSERT_EQUAL(flood(s, want, 0xC021, m, n, NULL), 0);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];
		struct mft *t = mft_set_find(want, nd->guid);
		for (uint8_t p = 1; node_is_switch(nd) && p <= nd->nports; p++) {
			const struct port *pp = &nd->ports[p];
			bool to_sw =
			    port_is_linked(pp) && node_is_switch(&f->nodes[pp->remote_node]);
			bool is_member = false;
			if (!port_is_linked(pp))
				continue;
			for (size_t k = 0; !to_sw && k < n; k++)
				is_member |= m[k].port_guid ==
					     f->nodes[pp->remote_node].ports[pp->remote_port].guid;
			if (mft_has_port(t, 0xC021, p)) {
				if (cut || to_sw)
					continue;
				/* a receiver's port cleared: it gets nothing */
				t->mask[(0xC021 - MFT_MLID_FIRST) * t->n_pos + p / 16] ^=
				    1u << (p % 16);
				CU_ASSERT_NOT_EQUAL(flood(s, want, 0xC021, m, n, NULL), 0);
				t->mask[(0xC021 - MFT_MLID_FIRST) * t->n_pos + p / 16] ^=
				    1u << (p % 16);
				cut = true;
			} else if (to_sw && !looped && mft_mlid_used(t, 0xC021)) {
				/* a torus link the tree does not use, both ends: a loop */
				struct mft *u = mft_set_find(want, f->nodes[pp->remote_node].guid);
				if (!mft_mlid_used(u, 0xC021) ||
				    mft_has_port(u, 0xC021, pp->remote_port))
					continue;
				mft_set_port(t, 0xC021, p);
				mft_set_port(u, 0xC021, pp->remote_port);
				CU_ASSERT_NOT_EQUAL(flood(s, want, 0xC021, m, n, NULL), 0);
				mft_clear_mlid(t, 0xC021);
				mft_clear_mlid(u, 0xC021);
				looped = true;
			} else if (!to_sw && !is_member && !extra) {
				/* a host that is no member */
				struct mft *c = mft_dup(t);
				mft_set_port(t, 0xC021, p);
				CU_ASSERT_NOT_EQUAL(flood(s, want, 0xC021, m, n, NULL), 0);
				mft_clear_mlid(t, 0xC021);
				for (uint8_t q = 0; q < t->n_pos; q++)
					t->mask[(0xC021 - MFT_MLID_FIRST) * t->n_pos + q] =
					    mft_mask(c, 0xC021, q);
				mft_free(c);
				extra = true;
			}
		}
	}
	CU_ASSERT_TRUE(looped);
	CU_ASSERT_TRUE(cut);
	CU_ASSERT_TRUE(extra);
	free(m);
	mft_set_free(want);
	snapshot_free(s);
}

/* A fat tree: one spine (the lowest GUID) carries the tree; a send-only leaf only sends up. */
static void test_tree_shape(void)
{
	char *text = topogen_fat_tree(2, 4, 0, 0);
	struct snapshot *s = snap_text(text);
	const struct fabric *f = s->fabric;
	struct mtree_member m[8];
	struct mft_set *want;
	struct mtree *t;
	struct mtree_stats st;
	uint64_t spine = UINT64_MAX;
	uint32_t leaf0 = testutil_find_desc(f, "sw-L1-0");
	size_t n = 0;

	free(text);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];
		if (!strncmp(nd->desc, "sw-L2-", 6) && nd->guid < spine)
			spine = nd->guid;
		/* every host on leaves 1..3 receives, leaf 0's hosts only send */
		if (!node_is_switch(nd)) {
			const struct node *sw = &f->nodes[nd->ports[1].remote_node];
			m[n++] =
			    (struct mtree_member){nd->ports[1].guid, strcmp(sw->desc, "sw-L1-0")};
		}
	}
	CU_ASSERT_EQUAL_FATAL(n, 8);
	CU_ASSERT_EQUAL_FATAL(mft_set_for_fabric(f, 1, &want), 0);
	CU_ASSERT_EQUAL_FATAL(mtree_new(s, &t), 0);
	CU_ASSERT_EQUAL(mtree_route(t, 0xC005, m, n, want, &st), 0);
	CU_ASSERT_EQUAL(st.root, spine);
	CU_ASSERT_EQUAL(st.depth, 1);
	CU_ASSERT_EQUAL(st.switches, 5); /* 4 leaves and one spine */
	/* leaf 0: one bit, an uplink; no switch forwards down to it */
	{
		const struct mft *tl = mft_set_get(want, f->nodes[leaf0].guid);
		unsigned bits = 0;
		for (uint8_t p = 0; p <= f->nodes[leaf0].nports; p++) {
			if (!mft_has_port(tl, 0xC005, p))
				continue;
			bits++;
			CU_ASSERT(node_is_switch(&f->nodes[f->nodes[leaf0].ports[p].remote_node]));
		}
		CU_ASSERT_EQUAL(bits, 1);
		for (uint32_t i = 0; i < f->n_nodes; i++) {
			const struct node *nd = &f->nodes[i];
			for (uint8_t p = 1; node_is_switch(nd) && p <= nd->nports; p++)
				if (nd->ports[p].remote_node == leaf0)
					CU_ASSERT_FALSE(
					    mft_has_port(mft_set_get(want, nd->guid), 0xC005, p));
		}
	}
	flood_check(s, want, 0xC005, m, n, "ft2 send-only leaf");

	/* only send-only members: nobody to deliver to, no table touched */
	for (size_t i = 0; i < n; i++)
		m[i].receives = false;
	CU_ASSERT_EQUAL(mtree_route(t, 0xC006, m, n, want, &st), 0);
	CU_ASSERT_EQUAL(st.switches, 0);
	CU_ASSERT_EQUAL(st.root, 0);
	/* a port not in the fabric; an MLID outside the range, or past the tables */
	m[0] = (struct mtree_member){0x1234, true};
	CU_ASSERT_EQUAL(mtree_route(t, 0xC007, m, 1, want, &st), 0);
	CU_ASSERT_EQUAL(st.unattached, 1);
	CU_ASSERT_EQUAL(mtree_route(t, 0xBFFF, m, 1, want, &st), -ERANGE);
	CU_ASSERT_EQUAL(mtree_route(t, 0xFFFF, m, 1, want, &st), -ERANGE);
	m[0] = (struct mtree_member){f->nodes[testutil_find_desc(f, "ca-0")].ports[1].guid, true};
	CU_ASSERT_EQUAL(mtree_route(t, 0xC020, m, 1, want, &st), 0);
	CU_ASSERT_EQUAL(st.clipped, 1); /* the tables cover one block */
	mtree_free(t);
	mft_set_free(want);
	snapshot_free(s);
}

/* The same fabric in shuffled order: the same masks in every switch. */
static void shuffled(char *text, const char *what)
{
	struct snapshot *a = snap_text(text);
	struct mft_set *wa = tree_run(a, 5, true, what, NULL, NULL);

	for (unsigned seed = 1; seed <= 3; seed++) {
		char *sh = topogen_shuffle(text, seed);
		struct snapshot *b;
		struct mft_set *wb;
		const struct mft *ta;
		uint64_t g;
		size_t pos = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
		CU_ASSERT_NOT_EQUAL(strcmp(sh, text), 0);
		b = snap_text(sh);
		free(sh);
		wb = tree_run(b, 5, true, what, NULL, NULL);
		CU_ASSERT_EQUAL(mft_set_count(wa), mft_set_count(wb));
		while (mft_set_next(wa, &pos, &g, &ta)) {
			const struct mft *tb = mft_set_get(wb, g);
			CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
			CU_ASSERT_EQUAL_FATAL(ta->n_blocks, tb->n_blocks);
			if (memcmp(ta->mask, tb->mask,
				   (size_t)ta->n_blocks * MFT_BLOCK * ta->n_pos * 2)) {
				fprintf(stderr, "\n%s: switch 0x%016llx differs (seed %u)\n", what,
					(unsigned long long)g, seed);
				CU_FAIL("shuffled fabric, other multicast tables");
			}
		}
		mft_set_free(wb);
		snapshot_free(b);
	}
	mft_set_free(wa);
	snapshot_free(a);
	free(text);
}

static void test_trees_shuffled(void)
{
	shuffled(topogen_fat_tree(2, 8, 0, TOPOGEN_PARALLEL), "ft2 k8 parallel");
	shuffled(topogen_fat_tree(3, 4, 0, 0), "ft3 k4");
	shuffled(topogen_mesh(4, 3, 2, TOPOGEN_TORUS), "torus 4x3");
	shuffled(topogen_random(20, 15, 2, 3), "random 20");
}

/* mfts_compute over a database: the broadcast group and a few more. */
static void test_compute(void)
{
	char *text = topogen_fat_tree(3, 4, 0, 0);
	struct snapshot *s = snap_text(text);
	struct mcast_db *db = mcast_db_new();
	const struct mcast_group *bc;
	struct mfts_compute_stats cs;
	struct mft_set *want = NULL;
	struct mcast_result res;
	uint8_t mgid[16];
	unsigned k = 0;

	free(text);
	CU_ASSERT_EQUAL_FATAL(mcast_add_ipoib_broadcast(db, 3, 0, &bc), 0);
	for (uint32_t i = 0; i < s->fabric->n_nodes; i++) {
		const struct node *nd = &s->fabric->nodes[i];
		struct mcast_join_req r;
		if (node_is_switch(nd))
			continue;
		r = jreq(mcast_ipoib_broadcast_mgid, nd->ports[1].guid, MCAST_FULL);
		r.p.qkey = 0x0b1b;
		r.p.sl = r.p.tclass = 0;
		r.p.flow_label = 0;
		CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
		/* every third host also in a group of its own, with the next as send-only */
		if (k++ % 3 == 0) {
			mgid_of(k, mgid);
			CU_ASSERT_EQUAL(join(db, mgid, nd->ports[1].guid, MCAST_FULL, &res), 0);
		}
	}
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, &cs), 0);
	CU_ASSERT_EQUAL(cs.groups, mcast_group_count(db));
	CU_ASSERT_EQUAL(cs.members, mcast_member_count(db));
	CU_ASSERT_EQUAL(cs.unattached + cs.unreachable + cs.clipped, 0);
	for (size_t i = 0; i < mcast_group_count(db); i++) {
		const struct mcast_group *g = mcast_group_at(db, i);
		struct mtree_member m[64];
		CU_ASSERT_FATAL(g->n_members <= 64);
		for (uint32_t j = 0; j < g->n_members; j++)
			m[j] = (struct mtree_member){mcast_gid_guid(g->members[j].port_gid),
						     mcast_receives(g->members[j].join_state)};
		flood_check(s, want, g->mlid, m, g->n_members, "mfts_compute");
	}
	mft_set_free(want);
	mcast_db_free(db);
	snapshot_free(s);
}

/* ---- programming --------------------------------------------------------------------------------
 */

/* Directed routes from node 0 (the SM's CA, port 1) by BFS, as discovery would set them. */
static void set_dr_paths(struct fabric *f)
{
	uint32_t *q = malloc(f->n_nodes * sizeof(*q)), head = 0, tail = 0;
	bool *done = calloc(f->n_nodes, sizeof(*done));

	CU_ASSERT_FATAL(q && done);
	f->sm_node = 0;
	f->sm_port = node_is_switch(&f->nodes[0]) ? 0 : 1;
	f->nodes[0].dr_hops = 0;
	done[0] = true;
	q[tail++] = 0;
	while (head < tail) {
		uint32_t v = q[head++];
		struct node *nd = &f->nodes[v];
		for (unsigned p = 1; p <= nd->nports; p++) {
			struct port *pp = &nd->ports[p];
			struct node *w;
			if (!port_is_linked(pp) || done[pp->remote_node])
				continue;
			if (!node_is_switch(nd) && !(v == 0 && p == 1))
				continue; /* only switches (and the SM port) forward SMPs */
			w = &f->nodes[pp->remote_node];
			memcpy(w->dr_path, nd->dr_path, sizeof(w->dr_path));
			w->dr_hops = nd->dr_hops + 1;
			w->dr_path[w->dr_hops] = (uint8_t)p;
			w->entry_port = pp->remote_port;
			done[pp->remote_node] = true;
			q[tail++] = pp->remote_node;
		}
	}
	free(q);
	free(done);
}

/* A simulated switch's MFT, as the Sets left it. */
struct sim_sw {
	uint16_t mask[MFT_MAX_ENTRIES + 1][4];
	uint16_t top;
	unsigned mft_sets, si_sets;
};

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	const struct fabric *f;
	struct sim_sw *sw; /* per node */
	unsigned mft_sets, si_sets, other_sets;
	uint32_t fail_node, fail_mod; /* answer this MFT block with an error */
	bool hold;		      /* answer nothing */
};

struct answer {
	struct fake *fk;
	uint8_t mad[WIRE_MAD_SIZE];
};

static void answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct answer *a = arg;

	CU_ASSERT_EQUAL(xact_input(a->fk->xe, a->mad, sizeof(a->mad)), 0);
	free(a);
}

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	struct fake *fk = ctx;
	struct timeval tv = {0, 0};
	struct answer *a = calloc(1, sizeof(*a));
	struct wire_smp s;
	uint32_t v = fk->f->sm_node;

	CU_ASSERT_FATAL(a != NULL);
	if (fk->hold) {
		free(a);
		return 0;
	}
	CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	CU_ASSERT_EQUAL(s.method, WIRE_SET);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI_DR);
	for (unsigned h = 1; h <= s.hop_cnt; h++) {
		const struct port *p = &fk->f->nodes[v].ports[s.initial_path[h]];
		CU_ASSERT_FATAL(port_is_linked(p));
		v = p->remote_node;
	}
	s.method = WIRE_GET_RESP;
	s.direction = true;
	if (s.attr_id == WIRE_ATTR_MFT) {
		uint16_t masks[32];
		unsigned pos = s.attr_mod >> 28, block = s.attr_mod & 0x1ff;
		CU_ASSERT_FATAL(node_is_switch(&fk->f->nodes[v]));
		CU_ASSERT_EQUAL(s.attr_mod & 0x0ffffe00, 0);
		CU_ASSERT_FATAL(pos < mft_positions(fk->f->nodes[v].nports));
		CU_ASSERT_EQUAL(wire_mft_decode(s.data, sizeof(s.data), masks), 0);
		fk->mft_sets++;
		if (v == fk->fail_node && s.attr_mod == fk->fail_mod) {
			s.status = 0x1c;
		} else {
			for (unsigned i = 0; i < 32; i++)
				fk->sw[v].mask[block * 32 + i][pos] = masks[i];
			fk->sw[v].mft_sets++;
		}
	} else if (s.attr_id == WIRE_ATTR_SWITCH_INFO) {
		struct wire_switchinfo si;
		CU_ASSERT_EQUAL(wire_switchinfo_decode(s.data, sizeof(s.data), &si), 0);
		fk->sw[v].top = si.mft_top;
		fk->sw[v].si_sets++;
		fk->si_sets++;
	} else {
		fk->other_sets++;
	}
	a->fk = fk;
	CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
	return 0;
}

static void fake_reset(struct fake *fk)
{
	fk->mft_sets = fk->si_sets = fk->other_sets = 0;
	for (uint32_t i = 0; i < fk->f->n_nodes; i++)
		fk->sw[i].mft_sets = fk->sw[i].si_sets = 0;
}

/* Every simulated switch holds what want says (zeros past its table). */
static void assert_switches_hold(const struct fake *fk, const struct mft_set *want)
{
	for (uint32_t i = 0; i < fk->f->n_nodes; i++) {
		const struct node *nd = &fk->f->nodes[i];
		const struct mft *t = mft_set_get(want, nd->guid);
		bool same = true;
		if (!node_is_switch(nd))
			continue;
		for (unsigned e = 0; e < 64 * 32 && same; e++)
			for (uint8_t p = 0; p < mft_positions(nd->nports); p++)
				same &= fk->sw[i].mask[e][p] ==
					mft_mask(t, (uint16_t)(MFT_MLID_FIRST + e), p);
		if (!same)
			fprintf(stderr, "\nswitch %s does not hold its table\n", nd->desc);
		CU_ASSERT_TRUE(same);
	}
}

/* One MFT batch of want against known; waits (bounded) for it. */
static struct program_stats mft_batch(struct fake *fk, struct fabric *f, const struct mft_set *want,
				      struct mft_set *known, bool force)
{
	struct testutil_batch run = {0};
	struct program *pg = program_new(fk->xe, f, testutil_batch_done, &run);

	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	fake_reset(fk);
	CU_ASSERT_EQUAL(program_mft(pg, want, known, force), 0);
	testutil_batch_run(fk->base, pg, &run, 5);
	CU_ASSERT_EQUAL(run.st.sets, fk->mft_sets + fk->si_sets + fk->other_sets);
	return run.st;
}

static struct fake *fake_new(const struct fabric *f)
{
	static const struct xact_opts xo = {8, 200, 1, false};
	struct fake *fk = calloc(1, sizeof(*fk));

	CU_ASSERT_PTR_NOT_NULL_FATAL(fk);
	fk->f = f;
	fk->fail_node = UINT32_MAX;
	fk->sw = calloc(f->n_nodes, sizeof(*fk->sw));
	fk->base = event_base_new();
	CU_ASSERT_FATAL(fk->sw && fk->base);
	fk->xe = xact_new(fk->base, &xo, fake_send, fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk->xe);
	return fk;
}

static void fake_free(struct fake *fk)
{
	xact_free(fk->xe);
	event_base_free(fk->base);
	free(fk->sw);
	free(fk);
}

static void run_loop(struct fake *fk, unsigned ms)
{
	struct timeval limit = {0, (suseconds_t)ms * 1000};

	event_base_loopexit(fk->base, &limit);
	event_base_dispatch(fk->base);
}

static void test_program(void)
{
	struct snapshot *s = snap_text(net4);
	struct fabric *f = s->fabric;
	struct mcast_db *db = mcast_db_new();
	struct mft_set *known = mft_set_new(), *want = NULL;
	struct fake *fk;
	struct program_stats st;
	const struct mcast_group *bc;
	struct mcast_result res;
	struct mcast_join_req r;
	uint32_t s1 = testutil_find_desc(f, "S1"), s2 = testutil_find_desc(f, "S2");
	uint8_t mgid[16];

	set_dr_paths(f);
	fk = fake_new(f);
	CU_ASSERT_EQUAL_FATAL(mcast_add_ipoib_broadcast(db, 3, 0, &bc), 0);
	for (const char *const *h = (const char *const[]){"H1", "H2", "H3", "H4", NULL}; *h; h++) {
		r = jreq(mcast_ipoib_broadcast_mgid, port_guid(s, *h, 1), MCAST_FULL);
		r.p.qkey = 0x0b1b;
		r.p.sl = r.p.tclass = 0;
		r.p.flow_label = 0;
		CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	}
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, NULL), 0);
	/* S1: H1, H2 and the link to S2 */
	CU_ASSERT_EQUAL(mft_mask(mft_set_get(want, f->nodes[s1].guid), 0xC000, 0), 0x000e);

	/* nothing known: every block of every switch (1 block, 1 position each) */
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT_EQUAL(st.mft_blocks, 2);
	CU_ASSERT_EQUAL(st.mft_switches, 2);
	CU_ASSERT_EQUAL(fk->mft_sets, 2);
	CU_ASSERT_EQUAL(fk->si_sets, 0); /* no switch has MulticastFDBTop */
	CU_ASSERT_EQUAL(mft_set_count(known), 2);
	assert_switches_hold(fk, want);

	/* the same tables again: nothing */
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.sets, 0);
	/* force: everything */
	st = mft_batch(fk, f, want, known, true);
	CU_ASSERT_EQUAL(st.mft_blocks, 2);

	/* H4 leaves: only S2's block changes */
	CU_ASSERT_EQUAL(
	    leave(db, mcast_ipoib_broadcast_mgid, port_guid(s, "H4", 1), MCAST_FULL, false, &res),
	    0);
	mft_set_free(want);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, NULL), 0);
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.mft_blocks, 1);
	CU_ASSERT_EQUAL(fk->sw[s2].mft_sets, 1);
	assert_switches_hold(fk, want);

	/* a second group at 0xC001 between H1 and H2: S1 only; the tables stay one block */
	mgid_of(9, mgid);
	CU_ASSERT_EQUAL(join(db, mgid, port_guid(s, "H1", 1), MCAST_FULL, &res), 0);
	CU_ASSERT_EQUAL(join(db, mgid, port_guid(s, "H2", 1), MCAST_SEND_ONLY, &res), 0);
	mft_set_free(want);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, NULL), 0);
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.mft_blocks, 1);
	CU_ASSERT_EQUAL(fk->sw[s1].mft_sets, 1);
	CU_ASSERT_EQUAL(mft_mask(mft_set_get(want, f->nodes[s1].guid), 0xC001, 0), 0x0002);
	assert_switches_hold(fk, want);

	/* a group at 0xC040: the tables grow to three blocks, block 2 goes where it is used */
	mgid_of(10, mgid);
	r = jreq(mgid, port_guid(s, "H3", 1), MCAST_FULL);
	r.comp |= MCAST_C_MLID;
	r.mlid = 0xC040;
	CU_ASSERT_EQUAL(mcast_join(db, &r, &res), 0);
	CU_ASSERT_EQUAL(join(db, mgid, port_guid(s, "H4", 1), MCAST_NON, &res), 0);
	mft_set_free(want);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, NULL), 0);
	CU_ASSERT_EQUAL(mft_set_get(want, f->nodes[s1].guid)->n_blocks, 3);
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.mft_blocks, 1);
	CU_ASSERT_EQUAL(fk->sw[s2].mft_sets, 1);
	assert_switches_hold(fk, want);
	/* ... and when it goes, the tables shrink and S2's block 2 is cleared */
	CU_ASSERT_EQUAL(leave(db, mgid, port_guid(s, "H3", 1), MCAST_FULL, false, &res), 0);
	CU_ASSERT_TRUE(res.deleted);
	mft_set_free(want);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(db, s, &want, NULL), 0);
	CU_ASSERT_EQUAL(mft_set_get(want, f->nodes[s1].guid)->n_blocks, 1);
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.mft_blocks, 1);
	CU_ASSERT_EQUAL(fk->sw[s2].mft_sets, 1);
	CU_ASSERT_EQUAL(fk->sw[s2].mask[0x40][0], 0);
	assert_switches_hold(fk, want);

	/* a block S1 refuses: counted, S1 forgotten, rewritten whole next time */
	mft_set_remove(known, f->nodes[s1].guid);
	mft_set_remove(known, f->nodes[s2].guid);
	fk->fail_node = s1;
	fk->fail_mod = mft_attr_mod(0, 0);
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.errors, 1);
	CU_ASSERT_PTR_NULL(mft_set_get(known, f->nodes[s1].guid));
	CU_ASSERT_PTR_NOT_NULL(mft_set_get(known, f->nodes[s2].guid));
	fk->fail_node = UINT32_MAX;
	st = mft_batch(fk, f, want, known, false);
	CU_ASSERT_EQUAL(st.mft_blocks, 1);
	CU_ASSERT_EQUAL(fk->sw[s1].mft_sets, 1);
	assert_switches_hold(fk, want);

	/* MulticastFDBTop on a switch that has it: set once, then left alone */
	{
		struct wire_portinfo pi;
		CU_ASSERT_EQUAL(wire_portinfo_decode(f->nodes[s1].ports[0].pi, 64, &pi), 0);
		pi.capmask |= 0x40000000u;
		CU_ASSERT_EQUAL(wire_portinfo_encode(&pi, f->nodes[s1].ports[0].pi, 64), 0);
		f->nodes[s1].lft_top = 6;
		mft_set_remove(known, f->nodes[s1].guid);
		st = mft_batch(fk, f, want, known, false);
		CU_ASSERT_EQUAL(fk->sw[s1].si_sets, 1);
		CU_ASSERT_EQUAL(fk->sw[s1].top, 0xC01F);
		CU_ASSERT_EQUAL(fk->sw[s2].si_sets, 0);
		st = mft_batch(fk, f, want, known, false);
		CU_ASSERT_EQUAL(st.sets, 0);
		/* LinearFDBTop unknown (a failed LFT): the top waits, the switch stays unknown */
		f->nodes[s1].lft_top = 0xffff;
		mft_set_remove(known, f->nodes[s1].guid);
		st = mft_batch(fk, f, want, known, false);
		CU_ASSERT_EQUAL(fk->sw[s1].si_sets, 0);
		CU_ASSERT_PTR_NULL(mft_set_get(known, f->nodes[s1].guid));
	}

	/* an aborted batch: its switches are unknown again */
	{
		struct testutil_batch run = {0};
		struct program *pg = program_new(fk->xe, f, testutil_batch_done, &run);
		mft_set_remove(known, f->nodes[s2].guid);
		CU_ASSERT_EQUAL(program_mft(pg, want, known, false), 0);
		CU_ASSERT_PTR_NOT_NULL(mft_set_get(known, f->nodes[s2].guid));
		program_start(pg);
		program_abort(pg);
		CU_ASSERT_PTR_NULL(mft_set_get(known, f->nodes[s2].guid));
		CU_ASSERT_PTR_NULL(mft_set_get(known, f->nodes[s1].guid));
		run_loop(fk, 50);
		CU_ASSERT_FALSE(run.done);
	}
	mft_set_free(want);
	mft_set_free(known);
	mcast_db_free(db);
	fake_free(fk);
	snapshot_free(s);
}

/* ---- updates through sm/mfts.c, no sweep -------------------------------------------------------
 */

static void test_updates(void)
{
	struct snapshot *a = snap_text(net4), *b = snap_text(net3), *old;
	struct fake *fk;
	struct sm sm;
	struct mcast_result res;
	uint8_t mgid[16];
	struct mcast_join_req r;
	struct mft_set *want = NULL;

	set_dr_paths(a->fabric);
	set_dr_paths(b->fabric);
	fk = fake_new(a->fabric);
	memset(&sm, 0, sizeof(sm));
	sm.base = fk->base;
	sm.xe = fk->xe;
	CU_ASSERT_EQUAL_FATAL(mfts_init(&sm), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mcast_find(sm.mcast, mcast_ipoib_broadcast_mgid));

	/* the first published snapshot: every switch gets its (empty) tables, on the bulk lane */
	sm.snap = a;
	sm.state = SM_MASTER;
	hook_run(&sm.hooks.published, NULL);
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(sm.mfts->updates, 1);
	CU_ASSERT_EQUAL(sm.mfts->blocks, 2);
	CU_ASSERT_PTR_NULL(sm.mfts->batch);

	/* joins: each hook asks for an update; they fold into few batches */
	fake_reset(fk);
	for (const char *const *h = (const char *const[]){"H1", "H2", "H3", "H4", NULL}; *h; h++) {
		r = jreq(mcast_ipoib_broadcast_mgid, port_guid(a, *h, 1), MCAST_FULL);
		r.p.qkey = 0x0b1b;
		r.p.sl = r.p.tclass = 0;
		r.p.flow_label = 0;
		CU_ASSERT_EQUAL(mcast_join(sm.mcast, &r, &res), 0);
	}
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(sm.mfts->updates, 2);	    /* four joins, one update */
	CU_ASSERT_EQUAL(sm.mfts->full_computes, 1); /* only MLID 0xC000 was computed again */
	CU_ASSERT_EQUAL(fk->mft_sets, 2);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, a, &want, NULL), 0);
	assert_switches_hold(fk, want);
	mft_set_free(want);

	/* a group of H1 and H3: both switches */
	fake_reset(fk);
	mgid_of(3, mgid);
	CU_ASSERT_EQUAL(join(sm.mcast, mgid, port_guid(a, "H1", 1), MCAST_FULL, &res), 0);
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(fk->mft_sets, 1); /* H1 alone: S1 */
	CU_ASSERT_EQUAL(join(sm.mcast, mgid, port_guid(a, "H3", 1), MCAST_NON, &res), 0);
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(fk->mft_sets, 3);
	CU_ASSERT_EQUAL(sm.mfts->full_computes, 1);
	CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, a, &want, NULL), 0);
	assert_switches_hold(fk, want); /* computing MLIDs one by one gives the same tables */
	mft_set_free(want);

	/* H3 leaves the fabric: a new snapshot drops it and reprograms, S2's block only */
	fake_reset(fk);
	fk->f = b->fabric; /* the simulated switches keep their state: same GUIDs, same paths */
	old = sm.snap;
	sm.snap = b;
	hook_run(&sm.hooks.published, old);
	run_loop(fk, 300);
	CU_ASSERT_PTR_NULL(mcast_group_member(mcast_find(sm.mcast, mgid), port_guid(a, "H3", 1)));
	/* S2 loses H3 in both groups, S1 its link to S2 in the small one */
	CU_ASSERT_EQUAL(fk->mft_sets, 2);
	CU_ASSERT_EQUAL(sm.mfts->full_computes, 2); /* a new snapshot: every MLID */
	CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, b, &want, NULL), 0);
	assert_switches_hold(fk, want);
	mft_set_free(want);

	/* a heavy sweep runs: the update waits for it to publish */
	fake_reset(fk);
	sm.sched.cur = (struct sweep *)&sm; /* any non-NULL pointer: "a sweep runs" */
	CU_ASSERT_EQUAL(join(sm.mcast, mgid, port_guid(b, "H4", 1), MCAST_NON, &res), 0);
	run_loop(fk, 200);
	CU_ASSERT_EQUAL(fk->mft_sets, 0);
	CU_ASSERT_TRUE(sm.mfts->pending);
	sm.sched.cur = NULL;
	hook_run(&sm.hooks.published, b);
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(fk->mft_sets, 2); /* H1 and H4: both switches */
	CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, b, &want, NULL), 0);
	assert_switches_hold(fk, want);
	mft_set_free(want);

	/* a batch still running when a heavy sweep begins is abandoned, its switches forgotten */
	fake_reset(fk);
	fk->hold = true;
	CU_ASSERT_EQUAL(join(sm.mcast, mgid, port_guid(b, "H2", 1), MCAST_NON, &res), 0);
	run_loop(fk, 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm.mfts->batch);
	CU_ASSERT_PTR_NOT_NULL(mft_set_get(sm.mfts->known, b->fabric->nodes[0].guid));
	hook_run(&sm.hooks.sweep_begin, "test");
	CU_ASSERT_PTR_NULL(sm.mfts->batch);
	CU_ASSERT_PTR_NULL(mft_set_get(sm.mfts->known, b->fabric->nodes[0].guid)); /* S1 */
	run_loop(fk, 600); /* the held SMPs time out into the abandoned batch */
	fk->hold = false;
	hook_run(&sm.hooks.published, b);
	run_loop(fk, 300);
	CU_ASSERT_EQUAL(fk->sw[0].mft_sets, 1); /* S1 rewritten whole: its one block */
	CU_ASSERT_EQUAL(fk->sw[1].mft_sets, 0); /* S2 got nothing from that batch: still known */
	CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, b, &want, NULL), 0);
	assert_switches_hold(fk, want);
	mft_set_free(want);

	/* an SM that is not master programs nothing and forgets */
	fake_reset(fk);
	sm.state = SM_STANDBY;
	hook_run(&sm.hooks.published, b);
	CU_ASSERT_EQUAL(join(sm.mcast, mgid, port_guid(b, "H2", 1), MCAST_NON, &res), 0);
	run_loop(fk, 200);
	CU_ASSERT_EQUAL(fk->mft_sets, 0);
	CU_ASSERT_EQUAL(mft_set_count(sm.mfts->known), 0);

	mfts_fini(&sm);
	hook_list_clear(&sm.hooks.published);
	hook_list_clear(&sm.hooks.sweep_begin);
	fake_free(fk);
	snapshot_free(a);
	snapshot_free(b);
}

/* Run the loop until no MFT update waits or runs (bounded). */
static void settle(struct fake *fk, struct sm *sm)
{
	for (int i = 0; i < 10000; i++) {
		if (!sm->mfts->batch && !evtimer_pending(sm->mfts->kick, NULL))
			return;
		event_base_loop(fk->base, EVLOOP_ONCE);
	}
	CU_FAIL("MFT updates did not settle");
}

static bool same_tables(const struct mft_set *a, const struct mft_set *b)
{
	const struct mft *ta;
	uint64_t g;
	size_t pos = 0;

	if (mft_set_count(a) != mft_set_count(b))
		return false;
	while (mft_set_next(a, &pos, &g, &ta)) {
		const struct mft *tb = mft_set_get(b, g);
		if (!tb || tb->n_blocks != ta->n_blocks || tb->nports != ta->nports ||
		    memcmp(ta->mask, tb->mask, (size_t)ta->n_blocks * MFT_BLOCK * ta->n_pos * 2))
			return false;
	}
	return true;
}

/* Joins and leaves one by one: the MLIDs computed again alone equal a full computation. */
static void test_incremental(void)
{
	char *text = topogen_fat_tree(3, 4, 0, 0);
	struct snapshot *s = snap_text(text);
	uint64_t hosts[16];
	unsigned nh = 0, x = 7, full_before;
	struct fake *fk;
	struct sm sm;

	free(text);
	/* the topogen fabric's first record is a CA: the SM's port */
	set_dr_paths(s->fabric);
	for (uint32_t i = 0; i < s->fabric->n_nodes; i++)
		if (!node_is_switch(&s->fabric->nodes[i]) && nh < 16)
			hosts[nh++] = s->fabric->nodes[i].ports[1].guid;
	fk = fake_new(s->fabric);
	memset(&sm, 0, sizeof(sm));
	sm.base = fk->base;
	sm.xe = fk->xe;
	CU_ASSERT_EQUAL_FATAL(mfts_init(&sm), 0);
	sm.snap = s;
	sm.state = SM_MASTER;
	hook_run(&sm.hooks.published, NULL);
	settle(fk, &sm);
	full_before = (unsigned)sm.mfts->full_computes;
	for (int step = 0; step < 300; step++) {
		struct mft_set *want = NULL;
		struct mcast_result res;
		uint8_t mgid[16];
		unsigned g, h;
		uint8_t js;

		x = x * 1103515245u + 12345u;
		g = (x >> 8) % 6;
		h = (x >> 12) % nh;
		js = (uint8_t[]){MCAST_FULL, MCAST_NON, MCAST_SEND_ONLY}[(x >> 20) % 3];
		mgid_of(50 + g, mgid);
		if ((x >> 24) % 3 == 0) {
			const struct mcast_group *grp = mcast_find(sm.mcast, mgid);
			const struct mcast_member *mm = mcast_group_member(grp, hosts[h]);
			if (mm)
				leave(sm.mcast, mgid, hosts[h], mm->join_state, false, &res);
		} else {
			join(sm.mcast, mgid, hosts[h], js, &res);
		}
		settle(fk, &sm);
		CU_ASSERT_EQUAL_FATAL(mfts_compute(sm.mcast, s, &want, NULL), 0);
		if (!same_tables(want, sm.mfts->want)) {
			fprintf(stderr, "\nstep %d: kept tables differ from a full computation\n",
				step);
			CU_FAIL("incremental MFT computation");
			mft_set_free(want);
			break;
		}
		assert_switches_hold(fk, want);
		mft_set_free(want);
	}
	/* the MLIDs stayed within one block: never a full computation again */
	CU_ASSERT_EQUAL(sm.mfts->full_computes, full_before);
	mfts_fini(&sm);
	hook_list_clear(&sm.hooks.published);
	hook_list_clear(&sm.hooks.sweep_begin);
	fake_free(fk);
	snapshot_free(s);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"join/leave: full, non, send-only, proxy, re-join, bits not held", test_states},
	    {"create: MGID 0, components, MTU and rate selectors, MLID asked for", test_create},
	    {"SendOnlyFullMember: creates, keeps the group, not delivered to", test_send_only_full},
	    {"conflicting joins refused with their reason", test_conflicts},
	    {"the IPoIB broadcast group", test_broadcast},
	    {"two MGIDs with one index key", test_mgid_collision},
	    {"10,000 joins and leaves, every MLID: nothing leaks", test_no_leak},
	    {"members whose port left the fabric", test_ports_gone},
	    {"members whose port left the group's partition", test_partition_gone},
	    {"trees: every receiver once, nobody else, no loop", test_trees},
	    {"the flood check rejects loops, missing and extra ports", test_flood_rejects},
	    {"trees: root, size, send-only branch, bounds", test_tree_shape},
	    {"trees: the same for a shuffled fabric", test_trees_shuffled},
	    {"mfts_compute over a database", test_compute},
	    {"MFT batches send what differs", test_program},
	    {"updates from joins and snapshots, no sweep", test_updates},
	    {"changed MLIDs computed alone equal a full computation", test_incremental},
	    {NULL, NULL},
	};

	return testutil_run("mcast", cases);
}

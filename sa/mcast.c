/*
 * The multicast group database (see mcast.h).  IBA 1.4 vol 1, 15.2.5.17
 * (MCMemberRecord), 15.4.2 (o15-0.1.x, o15-0.2.x: creating, joining and
 * leaving groups), 4.1.1 item 14 (multicast GID format).
 *
 * Rules, and where they come from (OpenSM's osm_sa_mcmember_record.c and
 * osm_multicast.c read for the same rules; the code is ours):
 *  - a create needs a FullMember join with MGID, PortGID, JoinState, Q_Key,
 *    P_Key, SL, FlowLabel and TClass (o15-0.1.8, o15-0.1.9); MTU and rate,
 *    when not given or "largest", are the joining port's, else 2048 and
 *    10 Gb/s; selectors "greater"/"less" pick the nearest value the port
 *    can do (o15-0.2.3 leaves the values to the SA);
 *  - an all-zero MGID asks the SA for one: ff1S:a01b:<subnet prefix>:<32-bit
 *    id>, S the requested scope or link-local, which no client may ask for
 *    itself (the 0xA01B signature with link-local scope is refused on a
 *    create, o15-0.1.5), so it cannot collide with a requested MGID;
 *  - a join of an existing group must agree with each component it names
 *    (o15-0.2.4 item 5): Q_Key, TClass, SL, FlowLabel, HopLimit equal, a
 *    P_Key of the same partition (not both limited), MTU and rate within
 *    their selectors; and the port must do the group's MTU and rate;
 *  - a member's JoinState is the OR of its joins (o15-0.1.11); a leave
 *    clears bits it holds, all of them held (o15-0.1.14); the member goes
 *    with its last bit; a proxy may change a membership only if that
 *    membership was made by proxy (o15-0.2.1; the partition check is the
 *    SA's);
 *  - a group goes when its last full member goes, with the members left
 *    (IBA deletes a group without full members; OpenSM's osm_mgrp_cleanup
 *    does the same), and its MLID is free again;
 *  - MLIDs 0xC000..0xFFFE, the lowest free one first: tables stay short, so
 *    switches get few MFT blocks.  A two-level bitmap finds it in O(1).
 *
 * Well-known groups (mcast_add_well_known): OpenSM creates the IPoIB
 * broadcast group of each partition marked "ipoib" in partitions.conf, and
 * of the default partition when there is no such file, at start-up
 * (osm_prtn.c: prtn_make_default, osm_prtn_add_mcgroup), and marks it
 * well_known: osm_mgrp_cleanup then drops its members when the last full
 * member leaves but keeps the group and its MLID, for as long as the
 * partition is configured.  We do the same for the default partition's
 * broadcast group, for the SM's whole life.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/partition.h"
#include "sa/mcast.h"

const uint8_t mcast_ipoib_broadcast_mgid[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,	  0,
						0,    0,    0,	  0,	0xff, 0xff, 0xff, 0xff};

#define MCAST_CREATE_COMPS                                                                         \
	(MCAST_C_QKEY | MCAST_C_PKEY | MCAST_C_SL | MCAST_C_FLOW | MCAST_C_TCLASS)
#define MCAST_JOIN_COMPS (MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE)
#define MLID_WORDS ((MCAST_N_MLIDS + 1 + 63) / 64) /* 256: bit 16383 (0xFFFF) stays used */

struct mcast_db {
	struct mcast_group **groups; /* dense */
	uint32_t n_groups, groups_cap;
	struct u64map by_mgid; /* mgid_key(MGID) -> group slot */
	struct mcast_group *by_mlid[MCAST_N_MLIDS];
	uint64_t mlid_free[MLID_WORDS];		/* bit set: free */
	uint64_t mlid_summary[MLID_WORDS / 64]; /* bit w: mlid_free[w] != 0 */
	uint32_t n_mlids;
	size_t n_members;
	uint32_t next_mgid_id;
	struct mcast_hooks hooks;
};

/* ---- names and statuses ------------------------------------------------- */

const char *mcast_why_str(enum mcast_why w)
{
	static const char *const s[] = {
	    [MCAST_OK] = "ok",
	    [MCAST_NO_GROUP] = "no such multicast group",
	    [MCAST_INSUF_COMPS] = "insufficient components",
	    [MCAST_BAD_MGID] = "invalid MGID",
	    [MCAST_BAD_GID] = "invalid port GID",
	    [MCAST_BAD_JOIN] = "invalid JoinState",
	    [MCAST_BAD_PKEY] = "invalid P_Key",
	    [MCAST_QKEY] = "Q_Key differs from the group's",
	    [MCAST_PKEY] = "P_Key is not the group's partition",
	    [MCAST_MTU] = "the group's MTU is outside the selector",
	    [MCAST_RATE] = "the group's rate is outside the selector",
	    [MCAST_SL] = "SL differs from the group's",
	    [MCAST_TCLASS] = "TClass differs from the group's",
	    [MCAST_FLOW] = "FlowLabel differs from the group's",
	    [MCAST_HOP] = "HopLimit differs from the group's",
	    [MCAST_PORT_CAPS] = "the port's MTU or rate is below the group's",
	    [MCAST_UNREALIZABLE] = "the MTU or rate asked for cannot be realized",
	    [MCAST_PROXY] = "a proxy cannot change a membership the port made itself",
	    [MCAST_NOT_MEMBER] = "the port is not a member",
	    [MCAST_NOT_HELD] = "the member does not hold that JoinState",
	    [MCAST_NO_MLID] = "no MLID available",
	    [MCAST_NO_MGID] = "no MGID available",
	    [MCAST_NOMEM] = "out of memory",
	};

	if ((unsigned)w >= sizeof(s) / sizeof(s[0]) || !s[w])
		return "unknown";
	return s[w];
}

uint16_t mcast_why_sa_status(enum mcast_why w)
{
	switch (w) {
	case MCAST_OK:
		return 0;
	case MCAST_NO_MLID:
	case MCAST_NO_MGID:
	case MCAST_NOMEM:
		return 0x0100; /* ERR_NO_RESOURCES */
	case MCAST_INSUF_COMPS:
		return 0x0600; /* ERR_REQ_INSUFFICIENT_COMPONENTS */
	case MCAST_BAD_GID:
		return 0x0500; /* ERR_REQ_INVALID_GID */
	default:
		return 0x0200; /* ERR_REQ_INVALID */
	}
}

/* ---- rates ---------------------------------------------------------------- */

/* Rate codes (PortInfo/PathRecord, Table 205 and its extensions) in Mb/s: codes are not in order.
 */
static uint32_t mcast_rate_mbps(uint8_t code)
{
	static const uint32_t mbps[] = {
	    [2] = 2500,	   [3] = 10000,	  [4] = 30000,	  [5] = 5000,	 [6] = 20000,
	    [7] = 40000,   [8] = 60000,	  [9] = 80000,	  [10] = 120000, [11] = 14000,
	    [12] = 56000,  [13] = 112000, [14] = 168000,  [15] = 25000,	 [16] = 100000,
	    [17] = 200000, [18] = 300000, [19] = 28000,	  [20] = 50000,	 [21] = 400000,
	    [22] = 600000, [23] = 800000, [24] = 1200000,
	};

	return code < sizeof(mbps) / sizeof(mbps[0]) ? mbps[code] : 0;
}

/* The valid code with the next higher (up) or lower rate than code's, 0 when none. */
static uint8_t mcast_rate_step(uint8_t code, bool up)
{
	uint32_t r = mcast_rate_mbps(code), best = 0;
	uint8_t best_code = 0;

	for (uint8_t c = 2; c <= 24; c++) {
		uint32_t v = mcast_rate_mbps(c);
		if (up ? v > r && (!best || v < best) : v < r && v > best) {
			best = v;
			best_code = c;
		}
	}
	return best_code;
}

/* ---- MLIDs ------------------------------------------------------------------ */

static void mlid_mark_free(struct mcast_db *db, uint16_t mlid)
{
	unsigned i = mlid - MCAST_MLID_FIRST;

	db->mlid_free[i / 64] |= 1ULL << (i % 64);
	db->mlid_summary[i / 64 / 64] |= 1ULL << (i / 64 % 64);
}

static bool mlid_is_free(const struct mcast_db *db, uint16_t mlid)
{
	unsigned i = mlid - MCAST_MLID_FIRST;

	if (mlid < MCAST_MLID_FIRST || mlid > MCAST_MLID_LAST)
		return false;
	return db->mlid_free[i / 64] & 1ULL << (i % 64);
}

static void mlid_take(struct mcast_db *db, uint16_t mlid)
{
	unsigned i = mlid - MCAST_MLID_FIRST;

	db->mlid_free[i / 64] &= ~(1ULL << (i % 64));
	if (!db->mlid_free[i / 64])
		db->mlid_summary[i / 64 / 64] &= ~(1ULL << (i / 64 % 64));
	db->n_mlids++;
}

/* The lowest free MLID, or 0. */
static uint16_t mlid_lowest(const struct mcast_db *db)
{
	for (unsigned s = 0; s < MLID_WORDS / 64; s++) {
		if (db->mlid_summary[s]) {
			unsigned w = s * 64 + (unsigned)__builtin_ctzll(db->mlid_summary[s]);
			unsigned b = (unsigned)__builtin_ctzll(db->mlid_free[w]);
			return (uint16_t)(MCAST_MLID_FIRST + w * 64 + b);
		}
	}
	return 0;
}

static void mlid_release(struct mcast_db *db, uint16_t mlid)
{
	mlid_mark_free(db, mlid);
	db->n_mlids--;
}

/* ---- the MGID index --------------------------------------------------------- */

/* The MGID folded into the index's key; two MGIDs may share one. */
static uint64_t mgid_key(const uint8_t mgid[16])
{
	uint64_t a, b;

	memcpy(&a, mgid, 8);
	memcpy(&b, mgid + 8, 8);
	return a ^ b * 0x9e3779b97f4a7c15ULL;
}

static struct mcast_group *mgid_lookup(const struct mcast_db *db, const uint8_t mgid[16])
{
	uint64_t key = mgid_key(mgid);
	uint32_t c, i;

	for (i = u64map_first(&db->by_mgid, key, &c); i != U64MAP_NONE;
	     i = u64map_next(&db->by_mgid, key, &c))
		if (!memcmp(db->groups[i]->mgid, mgid, 16))
			return db->groups[i];
	return NULL;
}

/* Room for one more group in groups[] and by_mgid. */
static int mgid_reserve(struct mcast_db *db)
{
	if (db->n_groups == db->groups_cap) {
		uint32_t gcap = db->groups_cap ? db->groups_cap * 2 : 8;
		struct mcast_group **g = realloc(db->groups, gcap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		db->groups = g;
		db->groups_cap = gcap;
	}
	return u64map_reserve(&db->by_mgid, db->n_groups + 1);
}

/* ---- members of a group ----------------------------------------------------- */

static long member_lookup(const struct mcast_group *g, uint64_t guid)
{
	uint32_t i = u64map_get(&g->index, guid);

	return i == U64MAP_NONE ? -1 : (long)i;
}

const struct mcast_member *mcast_group_member(const struct mcast_group *g, uint64_t port_guid)
{
	long i = g ? member_lookup(g, port_guid) : -1;

	return i < 0 ? NULL : &g->members[i];
}

static int member_add(struct mcast_db *db, struct mcast_group *g, const uint8_t gid[16],
		      uint8_t join_state, bool proxy)
{
	if (g->n_members == g->members_cap) {
		uint32_t cap = g->members_cap ? g->members_cap * 2 : 4;
		struct mcast_member *m = realloc(g->members, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		g->members = m;
		g->members_cap = cap;
	}
	if (u64map_add(&g->index, mcast_gid_guid(gid), g->n_members) < 0)
		return -ENOMEM;
	memcpy(g->members[g->n_members].port_gid, gid, 16);
	g->members[g->n_members].join_state = join_state;
	g->members[g->n_members].proxy = proxy;
	g->n_members++;
	if (join_state & MCAST_FULL)
		g->full_members++;
	db->n_members++;
	return 0;
}

/* Drop members[i] from the index and the array (the last one takes its place). */
static void member_remove(struct mcast_db *db, struct mcast_group *g, uint32_t i)
{
	uint32_t last = g->n_members - 1;

	if (g->members[i].join_state & MCAST_FULL)
		g->full_members--;
	u64map_del(&g->index, mcast_gid_guid(g->members[i].port_gid), i);
	if (i != last) {
		g->members[i] = g->members[last];
		u64map_set(&g->index, mcast_gid_guid(g->members[i].port_gid), last, i);
	}
	g->n_members--;
	db->n_members--;
}

/* ---- groups ------------------------------------------------------------------ */

static void group_free(struct mcast_group *g)
{
	if (!g)
		return;
	free(g->members);
	u64map_free(&g->index);
	free(g);
}

/* A new group at mlid (taken) with mgid and p; NULL on ENOMEM (nothing changed). */
static struct mcast_group *group_new(struct mcast_db *db, const uint8_t mgid[16], uint16_t mlid,
				     const struct mcast_params *p)
{
	struct mcast_group *g;

	if (mgid_reserve(db) < 0)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	memcpy(g->mgid, mgid, 16);
	g->mlid = mlid;
	g->p = *p;
	g->p.scope = mgid[1] & 0x0f;
	g->slot = db->n_groups;
	u64map_add(&db->by_mgid, mgid_key(mgid), g->slot);
	db->groups[db->n_groups++] = g;
	db->by_mlid[mlid - MCAST_MLID_FIRST] = g;
	mlid_take(db, mlid);
	return g;
}

/* Tell the deleted hooks, then free the group and its MLID. */
static void group_delete(struct mcast_db *db, struct mcast_group *g)
{
	uint32_t slot = g->slot;

	hook_run(&db->hooks.deleted, g);
	while (g->n_members)
		member_remove(db, g, g->n_members - 1);
	u64map_del(&db->by_mgid, mgid_key(g->mgid), slot);
	if (slot != db->n_groups - 1) {
		struct mcast_group *last = db->groups[db->n_groups - 1];
		db->groups[slot] = last;
		last->slot = slot;
		u64map_set(&db->by_mgid, mgid_key(last->mgid), db->n_groups - 1, slot);
	}
	db->n_groups--;
	db->by_mlid[g->mlid - MCAST_MLID_FIRST] = NULL;
	mlid_release(db, g->mlid);
	group_free(g);
}

/*
 * Clear bits of members[i]; the member goes with its last bit, the group
 * with its last full member (a well-known one keeps no member but stays).
 * Runs the hooks.  Returns true when the group was deleted.
 */
static bool member_clear(struct mcast_db *db, struct mcast_group *g, uint32_t i, uint8_t bits)
{
	struct mcast_member *m = &g->members[i];
	uint8_t old = m->join_state, now = old & ~bits;
	bool changed;

	if (now) {
		if ((old & MCAST_FULL) && !(now & MCAST_FULL))
			g->full_members--;
		m->join_state = now;
		changed = mcast_receives(old) != mcast_receives(now);
	} else {
		member_remove(db, g, i);
		changed = true;
	}
	if ((old & MCAST_FULL) && !(now & MCAST_FULL) && !g->full_members) {
		if (!g->well_known) {
			group_delete(db, g);
			return true;
		}
		changed |= g->n_members > 0;
		while (g->n_members)
			member_remove(db, g, g->n_members - 1);
	}
	if (changed)
		hook_run(&db->hooks.changed, g);
	return false;
}

/* ---- the database --------------------------------------------------------------- */

struct mcast_db *mcast_db_new(void)
{
	struct mcast_db *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	for (uint32_t m = MCAST_MLID_FIRST; m <= MCAST_MLID_LAST; m++)
		mlid_mark_free(db, (uint16_t)m);
	return db;
}

void mcast_db_free(struct mcast_db *db)
{
	if (!db)
		return;
	for (uint32_t i = 0; i < db->n_groups; i++)
		group_free(db->groups[i]);
	free(db->groups);
	u64map_free(&db->by_mgid);
	hook_list_clear(&db->hooks.changed);
	hook_list_clear(&db->hooks.deleted);
	free(db);
}

struct mcast_hooks *mcast_db_hooks(struct mcast_db *db)
{
	return &db->hooks;
}

const struct mcast_group *mcast_find(const struct mcast_db *db, const uint8_t mgid[16])
{
	return mgid_lookup(db, mgid);
}

const struct mcast_group *mcast_find_mlid(const struct mcast_db *db, uint16_t mlid)
{
	if (mlid < MCAST_MLID_FIRST || mlid > MCAST_MLID_LAST)
		return NULL;
	return db->by_mlid[mlid - MCAST_MLID_FIRST];
}

size_t mcast_group_count(const struct mcast_db *db)
{
	return db->n_groups;
}

const struct mcast_group *mcast_group_at(const struct mcast_db *db, size_t i)
{
	return i < db->n_groups ? db->groups[i] : NULL;
}

size_t mcast_member_count(const struct mcast_db *db)
{
	return db->n_members;
}

size_t mcast_mlid_count(const struct mcast_db *db)
{
	return db->n_mlids;
}

uint16_t mcast_mlid_top(const struct mcast_db *db)
{
	uint16_t top = 0;

	for (uint32_t i = 0; i < db->n_groups; i++)
		if (db->groups[i]->mlid > top)
			top = db->groups[i]->mlid;
	return top;
}

/* ---- join ------------------------------------------------------------------------ */

static bool mgid_is_zero(const uint8_t mgid[16])
{
	for (int i = 0; i < 16; i++)
		if (mgid[i])
			return false;
	return true;
}

/* o15-0.1.5 for an MGID a client asks to create (IPoIB's signatures pass as they are). */
static bool mgid_valid_for_create(const uint8_t mgid[16])
{
	uint16_t sig = (uint16_t)(mgid[2] << 8 | mgid[3]);

	if (mgid[0] != 0xff)
		return false;
	if (sig == 0x401b || sig == 0x601b)
		return true;
	if (mgid[1] & 0xe0) /* reserved flags */
		return false;
	if (sig == 0xa01b && (mgid[1] & 0x0f) == MCAST_SCOPE_LINK_LOCAL)
		return false; /* only the SA assigns these */
	return true;
}

/* ff1S:a01b:<prefix>:<id>, the first one not in use; false when every try is taken. */
static bool mgid_assign(struct mcast_db *db, uint8_t scope, uint64_t prefix, uint8_t ret[16])
{
	uint8_t m[16] = {0xff, (uint8_t)(0x10 | (scope & 0x0f)), 0xa0, 0x1b};

	for (int i = 0; i < 8; i++)
		m[4 + i] = (uint8_t)(prefix >> (56 - 8 * i));
	/* fewer groups than MLIDs exist, so this many tries always find one */
	for (uint32_t n = 0; n <= MCAST_N_MLIDS; n++) {
		uint32_t id = db->next_mgid_id++;
		for (int i = 0; i < 4; i++)
			m[12 + i] = (uint8_t)(id >> (24 - 8 * i));
		if (!mgid_lookup(db, m)) {
			memcpy(ret, m, 16);
			return true;
		}
	}
	return false;
}

/* MTU and rate of a new group from the request (OpenSM's mgrp_request_is_realizable rules). */
static enum mcast_why create_params(const struct mcast_join_req *req, struct mcast_params *p)
{
	uint8_t port = req->port_mtu, x = req->p.mtu, v;

	if (!(req->comp & MCAST_C_MTU) || !(req->comp & MCAST_C_MTU_SEL) ||
	    req->mtu_sel == MCAST_SEL_LARGEST) {
		v = port ? port : MCAST_DEFAULT_MTU;
	} else if (req->mtu_sel == MCAST_SEL_GT) {
		if (port && x >= port)
			return MCAST_UNREALIZABLE;
		v = port ? port : (uint8_t)(x + 1);
	} else if (req->mtu_sel == MCAST_SEL_LT) {
		v = port && x > port ? port : (uint8_t)(x - 1);
	} else {
		v = x;
	}
	if (v < 1 || v > 5)
		return MCAST_UNREALIZABLE;
	p->mtu = v;

	port = req->port_rate;
	x = req->p.rate;
	if (!(req->comp & MCAST_C_RATE) || !(req->comp & MCAST_C_RATE_SEL) ||
	    req->rate_sel == MCAST_SEL_LARGEST) {
		v = port ? port : MCAST_DEFAULT_RATE;
	} else if (req->rate_sel == MCAST_SEL_GT) {
		if (port && mcast_rate_mbps(x) >= mcast_rate_mbps(port))
			return MCAST_UNREALIZABLE;
		v = port ? port : mcast_rate_step(x, true);
	} else if (req->rate_sel == MCAST_SEL_LT) {
		v = port && mcast_rate_mbps(x) > mcast_rate_mbps(port) ? port
								       : mcast_rate_step(x, false);
	} else {
		v = x;
	}
	if (!mcast_rate_mbps(v))
		return MCAST_UNREALIZABLE;
	p->rate = v;
	return MCAST_OK;
}

/* Does sel/x admit have? (a rate compares by speed, an MTU by code) */
static bool sel_admits(uint8_t sel, uint32_t have, uint32_t x)
{
	switch (sel) {
	case MCAST_SEL_GT:
		return have > x;
	case MCAST_SEL_LT:
		return have < x;
	case MCAST_SEL_EQ:
		return have == x;
	default:
		return true;
	}
}

/* The components a join of an existing group names, against the group's. */
static enum mcast_why join_check_comps(const struct mcast_join_req *req,
				       const struct mcast_params *g)
{
	uint64_t c = req->comp;

	if ((c & MCAST_C_QKEY) && req->p.qkey != g->qkey)
		return MCAST_QKEY;
	/* the same partition, and not both limited members of it */
	if ((c & MCAST_C_PKEY) &&
	    (!((req->p.pkey | g->pkey) & 0x8000) || (req->p.pkey & 0x7fff) != (g->pkey & 0x7fff)))
		return MCAST_PKEY;
	if ((c & MCAST_C_TCLASS) && req->p.tclass != g->tclass)
		return MCAST_TCLASS;
	if ((c & MCAST_C_SL) && req->p.sl != g->sl)
		return MCAST_SL;
	if ((c & MCAST_C_FLOW) && req->p.flow_label != g->flow_label)
		return MCAST_FLOW;
	if ((c & MCAST_C_HOP) && req->p.hop_limit != g->hop_limit)
		return MCAST_HOP;
	return MCAST_OK;
}

/* The MTU and rate selectors against the group's, and the port's capabilities. */
static enum mcast_why join_check_caps(const struct mcast_join_req *req,
				      const struct mcast_params *g)
{
	uint64_t c = req->comp;

	if ((c & MCAST_C_MTU_SEL) && !sel_admits(req->mtu_sel, g->mtu, req->p.mtu))
		return MCAST_MTU;
	if ((c & MCAST_C_RATE_SEL) &&
	    !sel_admits(req->rate_sel, mcast_rate_mbps(g->rate), mcast_rate_mbps(req->p.rate)))
		return MCAST_RATE;
	if (req->port_mtu && req->port_mtu < g->mtu)
		return MCAST_PORT_CAPS;
	if (req->port_rate && mcast_rate_mbps(req->port_rate) < mcast_rate_mbps(g->rate))
		return MCAST_PORT_CAPS;
	return MCAST_OK;
}

static int refuse(struct mcast_result *ret, enum mcast_why w)
{
	ret->why = w;
	if (w == MCAST_NOMEM)
		return -ENOMEM;
	if (w == MCAST_NO_MLID || w == MCAST_NO_MGID)
		return -ENOSPC;
	return -EINVAL;
}

/* A new group from a creating join (the join itself is checked already). */
static int join_create(struct mcast_db *db, const struct mcast_join_req *req,
		       struct mcast_result *ret)
{
	struct mcast_params p = req->p;
	uint8_t mgid[16];
	enum mcast_why w;
	uint16_t mlid;
	struct mcast_group *g;
	bool assign = mgid_is_zero(req->mgid);

	if (!(req->join_state & MCAST_FULL))
		return refuse(ret, MCAST_NO_GROUP);
	if ((req->comp & MCAST_CREATE_COMPS) != MCAST_CREATE_COMPS)
		return refuse(ret, MCAST_INSUF_COMPS);
	if (!assign && !mgid_valid_for_create(req->mgid))
		return refuse(ret, MCAST_BAD_MGID);
	w = create_params(req, &p);
	if (w == MCAST_OK)
		w = join_check_caps(req, &p);
	if (w != MCAST_OK)
		return refuse(ret, w);
	if ((req->comp & MCAST_C_MLID) && mlid_is_free(db, req->mlid))
		mlid = req->mlid;
	else
		mlid = mlid_lowest(db);
	if (!mlid)
		return refuse(ret, MCAST_NO_MLID);
	if (!assign)
		memcpy(mgid, req->mgid, 16);
	else if (!mgid_assign(db,
			      (req->comp & MCAST_C_SCOPE) ? req->p.scope : MCAST_SCOPE_LINK_LOCAL,
			      req->subnet_prefix, mgid))
		return refuse(ret, MCAST_NO_MGID);
	if (!(req->comp & MCAST_C_HOP))
		p.hop_limit = (mgid[1] & 0x0f) == MCAST_SCOPE_LINK_LOCAL ? 0 : 0xff;
	if (!(req->comp & MCAST_C_LIFE))
		p.pkt_life = MCAST_DEFAULT_PKT_LIFE;
	g = group_new(db, mgid, mlid, &p);
	if (!g)
		return refuse(ret, MCAST_NOMEM);
	if (member_add(db, g, req->port_gid, req->join_state, req->proxy) < 0) {
		group_delete(db, g); /* no hook heard of it yet but deleted: harmless */
		return refuse(ret, MCAST_NOMEM);
	}
	ret->g = g;
	ret->join_state = req->join_state;
	ret->created = true;
	hook_run(&db->hooks.changed, g);
	return 0;
}

int mcast_join(struct mcast_db *db, const struct mcast_join_req *req, struct mcast_result *ret)
{
	uint64_t guid = mcast_gid_guid(req->port_gid);
	uint8_t js = req->join_state;
	struct mcast_group *g;
	struct mcast_member *m;
	enum mcast_why w;
	long i;

	memset(ret, 0, sizeof(*ret));
	if ((req->comp & MCAST_JOIN_COMPS) != MCAST_JOIN_COMPS)
		return refuse(ret, MCAST_INSUF_COMPS);
	if (!js || (js & ~MCAST_JOIN_MASK))
		return refuse(ret, MCAST_BAD_JOIN);
	if (!guid)
		return refuse(ret, MCAST_BAD_GID);
	if ((req->comp & MCAST_C_PKEY) && !(req->p.pkey & 0x7fff))
		return refuse(ret, MCAST_BAD_PKEY);
	g = mgid_is_zero(req->mgid) ? NULL : mgid_lookup(db, req->mgid);
	if (!g)
		return join_create(db, req, ret);
	w = join_check_comps(req, &g->p);
	if (w == MCAST_OK)
		w = join_check_caps(req, &g->p);
	if (w != MCAST_OK)
		return refuse(ret, w);
	i = member_lookup(g, guid);
	if (i < 0) {
		if (member_add(db, g, req->port_gid, js, req->proxy) < 0)
			return refuse(ret, MCAST_NOMEM);
		ret->g = g;
		ret->join_state = js;
		hook_run(&db->hooks.changed, g);
		return 0;
	}
	m = &g->members[i];
	if (req->proxy && !m->proxy)
		return refuse(ret, MCAST_PROXY);
	ret->g = g;
	ret->join_state = m->join_state | js;
	if ((js & MCAST_FULL) && !(m->join_state & MCAST_FULL))
		g->full_members++;
	if (ret->join_state != m->join_state) {
		bool flip = mcast_receives(ret->join_state) != mcast_receives(m->join_state);
		m->join_state = ret->join_state;
		if (flip)
			hook_run(&db->hooks.changed, g);
	}
	return 0;
}

/* ---- leave and ports that left ---------------------------------------------------- */

int mcast_leave(struct mcast_db *db, const uint8_t mgid[16], const uint8_t port_gid[16],
		uint8_t join_state, bool proxy, struct mcast_result *ret)
{
	struct mcast_group *g = mgid_lookup(db, mgid);
	struct mcast_member *m;
	long i;

	memset(ret, 0, sizeof(*ret));
	if (!g)
		return refuse(ret, MCAST_NO_GROUP);
	if (join_state & ~MCAST_JOIN_MASK)
		return refuse(ret, MCAST_BAD_JOIN);
	i = member_lookup(g, mcast_gid_guid(port_gid));
	if (i < 0)
		return refuse(ret, MCAST_NOT_MEMBER);
	m = &g->members[i];
	if (!join_state || (join_state & ~m->join_state))
		return refuse(ret, MCAST_NOT_HELD);
	if (proxy && !m->proxy)
		return refuse(ret, MCAST_PROXY);
	ret->join_state = m->join_state & ~join_state;
	if (member_clear(db, g, (uint32_t)i, join_state)) {
		ret->deleted = true;
		ret->join_state = 0;
	} else {
		ret->g = g;
		if (member_lookup(g, mcast_gid_guid(port_gid)) < 0)
			ret->join_state =
			    0; /* a well-known group dropped it with the last full member */
	}
	return 0;
}

size_t mcast_port_gone(struct mcast_db *db, uint64_t port_guid)
{
	size_t dropped = 0;

	for (uint32_t k = db->n_groups; k-- > 0;) {
		struct mcast_group *g;
		long i;

		if (k >= db->n_groups)
			continue;
		g = db->groups[k];
		i = member_lookup(g, port_guid);
		if (i < 0)
			continue;
		dropped++;
		member_clear(db, g, (uint32_t)i, MCAST_JOIN_MASK);
	}
	return dropped;
}

static bool port_present(const struct snapshot *s, uint64_t guid)
{
	uint32_t node;
	uint8_t port;
	const struct node *n;

	if (!snapshot_find_port_guid(s, guid, &node, &port))
		return false;
	n = &s->fabric->nodes[node];
	return node_is_switch(n) || port_is_linked(&n->ports[port]);
}

/*
 * Whether port guid may stay in a group of P_Key pkey: its P_Key table (as
 * programmed, port 0's for a switch) holds pkey's partition, full or
 * limited; a table the model does not know keeps it.
 */
static bool port_in_partition(const struct snapshot *s, uint64_t guid, uint16_t pkey)
{
	uint32_t node;
	uint8_t port;
	const struct node *n;
	const struct port *p;

	if (!snapshot_find_port_guid(s, guid, &node, &port))
		return false;
	n = &s->fabric->nodes[node];
	p = &n->ports[node_is_switch(n) ? 0 : port];
	return !p->pkey_known || partition_table_find(p->pkeys, FABRIC_PKEY_BLOCKS * 32, pkey) != 0;
}

size_t mcast_reconcile(struct mcast_db *db, const struct snapshot *s)
{
	size_t dropped = 0;

	for (uint32_t k = db->n_groups; k-- > 0;) {
		struct mcast_group *g;

		if (k >= db->n_groups)
			continue;
		g = db->groups[k];
		for (uint32_t j = g->n_members; j-- > 0;) {
			if (j >= g->n_members)
				continue;
			uint64_t guid = mcast_gid_guid(g->members[j].port_gid);

			if (port_present(s, guid) && port_in_partition(s, guid, g->p.pkey))
				continue;
			dropped++;
			if (member_clear(db, g, j, MCAST_JOIN_MASK))
				break; /* the group went */
		}
	}
	return dropped;
}

/* ---- well-known groups --------------------------------------------------------------- */

int mcast_add_well_known(struct mcast_db *db, const uint8_t mgid[16], const struct mcast_params *p,
			 const struct mcast_group **ret)
{
	struct mcast_group *g = mgid_lookup(db, mgid);
	uint16_t mlid;

	if (g) {
		*ret = g;
		return -EEXIST;
	}
	mlid = mlid_lowest(db);
	if (!mlid)
		return -ENOSPC;
	g = group_new(db, mgid, mlid, p);
	if (!g)
		return -ENOMEM;
	g->well_known = true;
	*ret = g;
	hook_run(&db->hooks.changed, g);
	return 0;
}

int mcast_add_ipoib_broadcast(struct mcast_db *db, uint8_t rate, uint8_t sl,
			      const struct mcast_group **ret)
{
	const struct mcast_params p = {
	    .qkey = 0x0b1b,
	    .pkey = 0xffff,
	    .mtu = 4, /* 2048 */
	    .rate = rate,
	    .pkt_life = MCAST_DEFAULT_PKT_LIFE,
	    .sl = sl,
	    .hop_limit = 0, /* link-local */
	};

	return mcast_add_well_known(db, mcast_ipoib_broadcast_mgid, &p, ret);
}

/* ---- state sync --------------------------------------------------------------------- */

int mcast_restore(struct mcast_db *db, const uint8_t mgid[16], uint16_t mlid,
		  const struct mcast_params *p, bool well_known, const struct mcast_member *members,
		  size_t n_members)
{
	struct mcast_group *g = mgid_lookup(db, mgid);
	bool full = well_known, created = false;

	if (mlid < MCAST_MLID_FIRST || mlid > MCAST_MLID_LAST || mgid[0] != 0xff)
		return -EINVAL;
	for (size_t i = 0; i < n_members; i++) {
		if (!mcast_gid_guid(members[i].port_gid) || !members[i].join_state ||
		    (members[i].join_state & ~MCAST_JOIN_MASK))
			return -EINVAL;
		full |= (members[i].join_state & MCAST_FULL) != 0;
	}
	if (g && g->mlid != mlid)
		return -EEXIST;
	if (!g) {
		if (!full)
			return -EINVAL;
		if (!mlid_is_free(db, mlid))
			return -EEXIST;
		g = group_new(db, mgid, mlid, p);
		if (!g)
			return -ENOMEM;
		g->well_known = well_known;
		created = true;
	}
	for (size_t i = 0; i < n_members; i++) {
		const struct mcast_member *m = &members[i];
		long j = member_lookup(g, mcast_gid_guid(m->port_gid));

		if (j >= 0) {
			struct mcast_member *have = &g->members[j];

			if (!(have->join_state & MCAST_FULL) && (m->join_state & MCAST_FULL))
				g->full_members++;
			have->join_state |= m->join_state;
		} else if (member_add(db, g, m->port_gid, m->join_state, m->proxy) < 0) {
			if (created && !g->n_members)
				group_delete(db, g);
			return -ENOMEM;
		}
	}
	hook_run(&db->hooks.changed, g);
	return 0;
}

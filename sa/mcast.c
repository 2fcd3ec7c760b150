/*
 * The multicast group database, the store (see mcast.h): groups by MGID and
 * by MLID, their members by port GUID, the MLID allocator, the well-known
 * groups and the groups carried from another SM.  The SA's join and leave
 * rules are built on it in mcast_join.c.  IBA 1.4 vol 1, 15.2.5.17
 * (MCMemberRecord), 4.1.1 item 14 (multicast GID format).
 *
 *  - a group goes when its last full member goes, with the members left
 *    (IBA deletes a group without full members; OpenSM's osm_mgrp_cleanup
 *    does the same), and its MLID is free again (mcast_member_clear);
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

#include "sa/mcast_int.h"

const uint8_t mcast_ipoib_broadcast_mgid[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,	  0,
						0,    0,    0,	  0,	0xff, 0xff, 0xff, 0xff};

/* ---- MLIDs ------------------------------------------------------------------ */

static void mlid_mark_free(struct mcast_db *db, uint16_t mlid)
{
	unsigned i = mlid - MCAST_MLID_FIRST;

	db->mlid_free[i / 64] |= 1ULL << (i % 64);
	db->mlid_summary[i / 64 / 64] |= 1ULL << (i / 64 % 64);
}

bool mcast_mlid_is_free(const struct mcast_db *db, uint16_t mlid)
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

uint16_t mcast_mlid_lowest(const struct mcast_db *db)
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

struct mcast_group *mcast_mgid_lookup(const struct mcast_db *db, const uint8_t mgid[16])
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

long mcast_member_lookup(const struct mcast_group *g, uint64_t guid)
{
	uint32_t i = u64map_get(&g->index, guid);

	return i == U64MAP_NONE ? -1 : (long)i;
}

const struct mcast_member *mcast_group_member(const struct mcast_group *g, uint64_t port_guid)
{
	long i = g ? mcast_member_lookup(g, port_guid) : -1;

	return i < 0 ? NULL : &g->members[i];
}

int mcast_member_add(struct mcast_db *db, struct mcast_group *g, const uint8_t gid[16],
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

struct mcast_group *mcast_group_new(struct mcast_db *db, const uint8_t mgid[16], uint16_t mlid,
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

void mcast_group_delete(struct mcast_db *db, struct mcast_group *g)
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

bool mcast_member_clear(struct mcast_db *db, struct mcast_group *g, uint32_t i, uint8_t bits)
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
	/*
	 * The last FullMember gone (OpenSM; osmtest -f m deletes a group it
	 * created with JoinState 0xF by leaving FullMember alone), or the last
	 * member of a group a SendOnlyFullMember created: the group goes.
	 */
	if (((old & MCAST_FULL) && !(now & MCAST_FULL) && !g->full_members) ||
	    (!g->n_members && !g->well_known)) {
		if (!g->well_known) {
			mcast_group_delete(db, g);
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
	return mcast_mgid_lookup(db, mgid);
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

/* ---- well-known groups --------------------------------------------------------------- */

int mcast_add_well_known(struct mcast_db *db, const uint8_t mgid[16], const struct mcast_params *p,
			 const struct mcast_group **ret)
{
	struct mcast_group *g = mcast_mgid_lookup(db, mgid);
	uint16_t mlid;

	if (g) {
		*ret = g;
		return -EEXIST;
	}
	mlid = mcast_mlid_lowest(db);
	if (!mlid)
		return -ENOSPC;
	g = mcast_group_new(db, mgid, mlid, p);
	if (!g)
		return -ENOMEM;
	g->well_known = true;
	*ret = g;
	hook_run(&db->hooks.changed, g);
	return 0;
}

int mcast_drop_group(struct mcast_db *db, const uint8_t mgid[16])
{
	struct mcast_group *g = mcast_mgid_lookup(db, mgid);

	if (!g)
		return -ENOENT;
	mcast_group_delete(db, g);
	return 0;
}

size_t mcast_port_drop_pkey(struct mcast_db *db, uint64_t port_guid, uint16_t pkey)
{
	size_t n = 0;

	/* backwards: a group that goes takes the last slot's place */
	for (uint32_t i = db->n_groups; i-- > 0;) {
		struct mcast_group *g = db->groups[i];

		if ((g->p.pkey & 0x7fff) != (pkey & 0x7fff))
			continue;
		for (uint32_t k = 0; k < g->n_members; k++) {
			if (mcast_gid_guid(g->members[k].port_gid) != port_guid)
				continue;
			mcast_member_clear(db, g, k, MCAST_JOIN_MASK);
			n++;
			break;
		}
	}
	return n;
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
	struct mcast_group *g = mcast_mgid_lookup(db, mgid);
	bool full = well_known, created = false;

	if (mlid < MCAST_MLID_FIRST || mlid > MCAST_MLID_LAST || mgid[0] != 0xff)
		return -EINVAL;
	for (size_t i = 0; i < n_members; i++) {
		if (!mcast_gid_guid(members[i].port_gid) || !members[i].join_state ||
		    (members[i].join_state & ~MCAST_JOIN_MASK))
			return -EINVAL;
		full |= mcast_is_full(members[i].join_state);
	}
	if (g && g->mlid != mlid)
		return -EEXIST;
	if (!g) {
		if (!full)
			return -EINVAL;
		if (!mcast_mlid_is_free(db, mlid))
			return -EEXIST;
		g = mcast_group_new(db, mgid, mlid, p);
		if (!g)
			return -ENOMEM;
		g->well_known = well_known;
		created = true;
	}
	for (size_t i = 0; i < n_members; i++) {
		const struct mcast_member *m = &members[i];
		long j = mcast_member_lookup(g, mcast_gid_guid(m->port_gid));

		if (j >= 0) {
			struct mcast_member *have = &g->members[j];

			if (!(have->join_state & MCAST_FULL) && (m->join_state & MCAST_FULL))
				g->full_members++;
			have->join_state |= m->join_state;
		} else if (mcast_member_add(db, g, m->port_gid, m->join_state, m->proxy) < 0) {
			if (created && !g->n_members)
				mcast_group_delete(db, g);
			return -ENOMEM;
		}
	}
	hook_run(&db->hooks.changed, g);
	return 0;
}

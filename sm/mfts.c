/*
 * Multicast forwarding updates (see mfts.h).  IBA 1.4 vol 1, 14.2.5.11
 * (MulticastForwardingTable), 15.2.5.17 (who receives a group's traffic).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "lib/log.h"
#include "mad/wire.h"
#include "policy/partition.h"
#include "routing/mtree.h"
#include "sa/sa.h"
#include "sm/mfts.h"
#include "smp/mftread.h"
#include "smp/program.h"
#include "sm/sm.h"

/*
 * The broadcast group's rate and SL: 10 Gb/s (OpenSM's OSM_DEFAULT_MGRP_RATE
 * for its IPoIB groups) is within every 4x link's reach, SL 0 is the SL
 * every port maps.
 */
#define MFTS_BCAST_RATE 3
#define MFTS_BCAST_SL 0

/* Route one group into want; buf grows as needed.  0 or -errno. */
static int mfts_route_group(struct mtree *t, const struct mcast_group *g, struct mft_set *want,
			    struct mtree_member **buf, size_t *cap, struct mfts_compute_stats *sum)
{
	struct mtree_stats ts;
	int r;

	if (g->n_members > *cap) {
		struct mtree_member *v = realloc(*buf, g->n_members * sizeof(*v));
		if (!v)
			return -ENOMEM;
		*buf = v;
		*cap = g->n_members;
	}
	for (uint32_t k = 0; k < g->n_members; k++) {
		(*buf)[k].port_guid = mcast_gid_guid(g->members[k].port_gid);
		(*buf)[k].receives = mcast_receives(g->members[k].join_state);
	}
	r = mtree_route(t, g->mlid, *buf, g->n_members, want, &ts);
	if (r < 0)
		return r;
	sum->groups++;
	sum->members += ts.members;
	sum->unattached += ts.unattached;
	sum->unreachable += ts.unreachable;
	sum->clipped += ts.clipped;
	sum->switches += ts.switches;
	return 0;
}

/* Every group of db into new tables for s, with the tree context t over s. */
static int mfts_compute_all(const struct mcast_db *db, const struct snapshot *s, struct mtree *t,
			    struct mft_set **ret, struct mfts_compute_stats *sum)
{
	struct mft_set *want = NULL;
	struct mtree_member *m = NULL;
	size_t cap = 0;
	int r = mft_set_for_fabric(s->fabric, mft_blocks_for(mcast_mlid_top(db)), &want);

	for (size_t i = 0; r == 0 && i < mcast_group_count(db); i++)
		r = mfts_route_group(t, mcast_group_at(db, i), want, &m, &cap, sum);
	free(m);
	if (r < 0) {
		mft_set_free(want);
		return r;
	}
	*ret = want;
	return 0;
}

int mfts_compute(const struct mcast_db *db, const struct snapshot *s, struct mft_set **ret,
		 struct mfts_compute_stats *st)
{
	struct mfts_compute_stats sum = {0};
	struct mtree *t = NULL;
	int r = mtree_new(s, &t);

	if (r == 0)
		r = mfts_compute_all(db, s, t, ret, &sum);
	mtree_free(t);
	if (r == 0 && st)
		*st = sum;
	return r;
}

/* Drop the tables and trees kept for a snapshot (a new one came, or memory ran out). */
static void mfts_drop_want(struct mfts *ms)
{
	mft_set_free(ms->want);
	ms->want = NULL;
	mtree_free(ms->tree);
	ms->tree = NULL;
	ms->all_dirty = true;
}

/*
 * Bring ms->want up to date for sm->snap: every MLID when all_dirty or the
 * blocks needed changed, else only the dirty ones.  0 or -ENOMEM (the kept
 * tables are dropped then).
 */
static int mfts_refresh(struct sm *sm, struct mfts_compute_stats *sum)
{
	struct mfts *ms = sm->mfts;
	uint16_t blocks = mft_blocks_for(mcast_mlid_top(sm->mcast));
	struct mtree_member *m = NULL;
	size_t cap = 0;
	int r = 0;

	if (!ms->want || !ms->tree || ms->all_dirty || blocks != ms->want_blocks) {
		mfts_drop_want(ms);
		r = mtree_new(sm->snap, &ms->tree);
		if (r == 0)
			r = mfts_compute_all(sm->mcast, sm->snap, ms->tree, &ms->want, sum);
		ms->full_computes++;
	} else {
		for (unsigned w = 0; r == 0 && w < MFTS_DIRTY_WORDS; w++) {
			while (r == 0 && ms->dirty[w]) {
				unsigned b = (unsigned)__builtin_ctzll(ms->dirty[w]);
				uint16_t mlid = (uint16_t)(MCAST_MLID_FIRST + w * 64 + b);
				const struct mcast_group *g = mcast_find_mlid(sm->mcast, mlid);

				ms->dirty[w] &= ms->dirty[w] - 1;
				mft_set_clear_mlid(ms->want, mlid);
				if (g)
					r = mfts_route_group(ms->tree, g, ms->want, &m, &cap, sum);
			}
		}
	}
	free(m);
	if (r < 0) {
		mfts_drop_want(ms);
		return r;
	}
	memset(ms->dirty, 0, sizeof(ms->dirty));
	ms->all_dirty = false;
	ms->want_blocks = blocks;
	return 0;
}

static void mfts_done(void *arg, const struct program_stats *st)
{
	struct sm *sm = arg;
	struct mfts *ms = sm->mfts;

	ms->batch = NULL;
	ms->blocks += st->mft_blocks;
	ms->errors += st->errors;
	if (st->errors)
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"multicast: %u of %u SMPs failed (those switches are rewritten on "
				"the next update)",
				st->errors, st->sets);
	else if (st->sets)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "multicast: %u MFT blocks to %u switches",
			st->mft_blocks, st->mft_switches);
	if (ms->pending)
		mfts_request(sm);
}

/* What the switches were found to hold is what this SM knows of them now. */
static void mfts_read_done(void *arg, struct mft_set *read, const struct mftread_stats *st)
{
	struct sm *sm = arg;
	struct mfts *ms = sm->mfts;
	const struct mft *t;
	uint64_t guid;
	size_t pos = 0, n = 0;

	ms->reading = NULL;
	ms->read_blocks += st->blocks;
	while (ms->known && mft_set_next(read, &pos, &guid, &t)) {
		struct mft *d = mft_dup(t);

		if (!d || mft_set_put(ms->known, guid, d) < 0) {
			mft_free(d);
			break;
		}
		n++;
	}
	mft_set_free(read);
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
		"multicast: MFTs of %zu switch%s read back (%u blocks, %u failed)", n,
		n == 1 ? "" : "es", st->blocks, st->errors);
	mfts_request(sm);
}

/* Compute the tables for sm->snap and start the batch of what differs. */
static void mfts_update(struct sm *sm)
{
	struct mfts *ms = sm->mfts;
	struct mfts_compute_stats cs = {0};
	struct program *pg;
	bool full = ms->full;
	int r;

	if (ms->batch || ms->reading || sweep_running(sm)) {
		ms->pending = true; /* after the batch or the read, or when the sweep publishes */
		return;
	}
	ms->pending = false;
	ms->full = false;
	if (!sm->snap || sm->state != SM_MASTER || !sm->xe)
		return;
	if (!ms->known && !(ms->known = mft_set_new())) {
		log_err("multicast: out of memory keeping the switches' tables");
		return;
	}
	r = mfts_refresh(sm, &cs);
	if (r < 0) {
		log_err("multicast: cannot compute the forwarding tables: %s", strerror(-r));
		return;
	}
	if (cs.clipped)
		log_ratelimited(
		    LOG_CAT_SWEEP, LOG_WARNING,
		    "multicast: %u ports of MLIDs past some switch's MulticastFDBCap are "
		    "not forwarded",
		    cs.clipped);
	if (cs.unattached || cs.unreachable)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
			"multicast: %u members not cabled to a multicast switch, %u out of reach",
			cs.unattached, cs.unreachable);
	/* switches whose tables this SM does not know: read them back first, once a snapshot */
	if (sm->conf.lft_readback && ms->read_gen != sm->snap->generation) {
		ms->read_gen = sm->snap->generation;
		if (mftread_start(sm->xe, sm->snap->fabric, ms->want, ms->known, mfts_read_done, sm,
				  &ms->reading) < 0)
			log_warn(
			    "multicast: out of memory reading the MFTs back: writing them whole");
		if (ms->reading) {
			ms->full = full; /* the update after the read is this one */
			return;		 /* mfts_read_done asks again */
		}
	}
	pg = program_new(sm->xe, sm->snap->fabric, mfts_done, sm);
	if (!pg) {
		log_err("multicast: out of memory programming the forwarding tables");
		return;
	}
	program_set_lane(pg, full ? XACT_BULK : XACT_CONTROL);
	if (program_mft(pg, ms->want, ms->known, false) < 0)
		log_err("multicast: out of memory queuing MFT blocks (retried on the next update)");
	ms->updates++;
	ms->batch = pg;
	program_start(pg); /* may finish (mfts_done) at once */
}

static void mfts_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	mfts_update(arg);
}

void mfts_request(struct sm *sm)
{
	struct timeval now = {0, 0};

	if (sm->mfts->batch) {
		sm->mfts->pending = true;
		return;
	}
	if (sm->mfts->kick)
		evtimer_add(sm->mfts->kick, &now);
	else
		mfts_update(sm);
}

/* ff1S:401b:PKEY:0000:0000:0000:ffff:ffff: IPv4 broadcast of a partition, scope S. */
static void mfts_ipoib_mgid(uint16_t pkey, unsigned scope, uint8_t mgid[16])
{
	memcpy(mgid, mcast_ipoib_broadcast_mgid, 16);
	mgid[1] = (uint8_t)(0x10 | (scope & 0xf));
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
}

size_t mfts_ipoib_add(struct sm *sm, const struct partition *p)
{
	size_t groups = 0;

	if (!sm->mcast || !p->ipoib || p->pkey == PARTITION_DEFAULT_PKEY)
		return 0; /* the default partition's group exists from the start */
	for (unsigned s = 0; s < 16; s++) {
		struct mcast_params mp = {
		    .qkey = p->qkey,
		    .pkey = (uint16_t)(p->pkey | PARTITION_FULL),
		    .mtu = p->mtu,
		    .rate = p->rate,
		    .pkt_life = MCAST_DEFAULT_PKT_LIFE,
		    .sl = p->sl,
		    .scope = (uint8_t)s,
		};
		const struct mcast_group *g;
		uint8_t mgid[16];
		int r;

		if (!(p->scopes & (1u << s)))
			continue;
		mfts_ipoib_mgid(mp.pkey, s, mgid);
		r = mcast_add_well_known(sm->mcast, mgid, &mp, &g);
		if (r == 0)
			groups++;
		else if (r != -EEXIST)
			log_warn("partition '%s' (0x%04x): no IPoIB group: %s", p->name, p->pkey,
				 strerror(-r));
	}
	return groups;
}

size_t mfts_ipoib_drop(struct sm *sm, uint16_t pkey)
{
	size_t n = 0;

	for (unsigned s = 0; sm->mcast && s < 16; s++) {
		uint8_t mgid[16];

		mfts_ipoib_mgid((uint16_t)(pkey | PARTITION_FULL), s, mgid);
		n += mcast_drop_group(sm->mcast, mgid) == 0;
	}
	return n;
}

/* A group changed or goes: its MLID's tree is computed again. */
static void mfts_on_group(void *ctx, const void *data)
{
	struct sm *sm = ctx;
	const struct mcast_group *g = data;
	unsigned i = g->mlid - MCAST_MLID_FIRST;

	sm->mfts->dirty[i / 64] |= 1ULL << (i % 64);
	mfts_request(sm);
}

/*
 * Forget switches that left, whose LinearFDBTop is not what this SM set
 * (reset), or whose MulticastFDBTop is not what this SM last gave them.
 */
static void mfts_forget(struct sm *sm, const struct snapshot *old)
{
	const struct fabric *f = sm->snap->fabric;
	struct mft_set *known = sm->mfts->known;
	uint64_t *drop = malloc((mft_set_count(known) + 1) * sizeof(*drop));
	const struct mft *t;
	uint64_t guid;
	size_t pos = 0, n = 0;

	if (!drop) {
		mft_set_free(known); /* cannot tell: forget all */
		sm->mfts->known = mft_set_new();
		return;
	}
	while (mft_set_next(known, &pos, &guid, &t)) {
		uint32_t i = fabric_find_guid(f, guid);
		uint32_t oi = old ? fabric_find_guid(old->fabric, guid) : FABRIC_NO_NODE;
		struct wire_switchinfo si;
		struct wire_portinfo pi;

		if (i == FABRIC_NO_NODE || oi == FABRIC_NO_NODE ||
		    wire_switchinfo_decode(f->nodes[i].si, sizeof(f->nodes[i].si), &si) < 0 ||
		    si.lft_top != old->fabric->nodes[oi].lft_top)
			drop[n++] = guid;
		else if (wire_portinfo_decode(f->nodes[i].ports[0].pi, 64, &pi) == 0 &&
			 (pi.capmask & PROGRAM_CAP_MCAST_FDB_TOP) && si.mft_top != mft_fdb_top(t))
			drop[n++] = guid;
	}
	for (size_t k = 0; k < n; k++)
		mft_set_remove(known, drop[k]);
	free(drop);
}

/* A heavy sweep owns the switches while it runs: no MFT batch beside its batches. */
static void mfts_on_sweep_begin(void *ctx, const void *data)
{
	struct sm *sm = ctx;

	if (sm->mfts->reading) {
		mftread_free(sm->mfts->reading); /* read again after the sweep */
		sm->mfts->reading = NULL;
		sm->mfts->read_gen = 0;
		sm->mfts->pending = true;
	}
	if (!sm->mfts->batch)
		return;
	program_abort(sm->mfts->batch); /* its switches are unknown again */
	sm->mfts->batch = NULL;
	sm->mfts->pending = true;
}

static void mfts_on_published(void *ctx, const void *data)
{
	struct sm *sm = ctx;
	const struct snapshot *old = data;
	size_t gone;

	/* a batch on the old snapshot: its switches are unknown again (program_abort) */
	program_abort(sm->mfts->batch);
	sm->mfts->batch = NULL;
	mftread_free(sm->mfts->reading);
	sm->mfts->reading = NULL;
	mfts_drop_want(sm->mfts); /* computed over the old snapshot */
	if (sm->state != SM_MASTER) {
		/* another SM programs the switches: what we knew goes stale */
		mft_set_free(sm->mfts->known);
		sm->mfts->known = NULL;
		return;
	}
	if (sm->mfts->known)
		mfts_forget(sm, old);
	gone = mcast_reconcile(sm->mcast, sm->snap);
	if (gone)
		log_info("multicast: %zu memberships dropped: their ports left the fabric or "
			 "the group's partition",
			 gone);
	sm->mfts->full = true;
	mfts_request(sm);
}

int mfts_init(struct sm *sm)
{
	struct mfts *ms = calloc(1, sizeof(*ms));
	struct mcast_hooks *h;
	const struct mcast_group *g;

	sm->mfts = ms;
	if (!ms)
		return -ENOMEM;
	sm->mcast = mcast_db_new();
	ms->known = mft_set_new();
	if (!sm->mcast || !ms->known)
		goto nomem;
	if (mcast_add_ipoib_broadcast(sm->mcast, MFTS_BCAST_RATE, MFTS_BCAST_SL, &g) < 0)
		goto nomem;
	if (sm->base && !(ms->kick = evtimer_new(sm->base, mfts_kick_cb, sm)))
		goto nomem;
	h = mcast_db_hooks(sm->mcast);
	if (hook_add(&h->changed, mfts_on_group, sm) < 0 ||
	    hook_add(&h->deleted, mfts_on_group, sm) < 0 ||
	    hook_add(&sm->hooks.published, mfts_on_published, sm) < 0 ||
	    hook_add(&sm->hooks.sweep_begin, mfts_on_sweep_begin, sm) < 0)
		goto nomem;
	return 0;
nomem:
	mfts_fini(sm);
	return -ENOMEM;
}

void mfts_stand_down(struct sm *sm)
{
	struct mfts *ms = sm->mfts;

	if (!ms)
		return;
	/* a batch in flight is abandoned: its switches are unknown again */
	program_abort(ms->batch);
	ms->batch = NULL;
	mftread_free(ms->reading);
	ms->reading = NULL;
	ms->pending = false;
	mft_set_free(ms->known);
	ms->known = NULL;
}

void mfts_fini(struct sm *sm)
{
	struct mfts *ms = sm->mfts;

	if (!ms)
		return;
	program_abort(ms->batch);
	ms->batch = NULL;
	mftread_free(ms->reading);
	ms->reading = NULL;
	mfts_drop_want(ms);
	hook_remove(&sm->hooks.published, mfts_on_published, sm);
	hook_remove(&sm->hooks.sweep_begin, mfts_on_sweep_begin, sm);
	if (ms->kick)
		event_free(ms->kick);
	ms->kick = NULL;
	mcast_db_free(sm->mcast);
	sm->mcast = NULL;
	mft_set_free(ms->known);
	free(ms);
	sm->mfts = NULL;
}

#define MS_FIELD(m, metric, kind, help) STAT_FIELD(struct mfts_status, m, #m, metric, kind, help)
static const struct stat_field mfts_stat_fields[] = {
    MS_FIELD(groups, "ibsmd_mcast_groups", STAT_GAUGE, "Multicast groups."),
    MS_FIELD(members, "ibsmd_mcast_members", STAT_GAUGE, "Multicast memberships."),
    MS_FIELD(mlids, NULL, STAT_GAUGE, NULL),
    MS_FIELD(mlid_top, NULL, STAT_GAUGE, NULL),
    MS_FIELD(mft_updates, NULL, STAT_COUNTER, NULL),
    MS_FIELD(mft_blocks, "ibsmd_mft_blocks_total", STAT_COUNTER,
	     "MFT blocks sent (those that differed)."),
    MS_FIELD(mft_read_blocks, NULL, STAT_COUNTER, NULL),
    MS_FIELD(mft_errors, NULL, STAT_COUNTER, NULL),
    MS_FIELD(sa_joins, NULL, STAT_COUNTER, NULL),
    MS_FIELD(sa_leaves, NULL, STAT_COUNTER, NULL),
    MS_FIELD(sa_refused, NULL, STAT_COUNTER, NULL),
};
#undef MS_FIELD

const struct stat_table mfts_stat_table = STAT_TABLE("multicast", mfts_stat_fields);

bool mfts_status_get(const struct sm *sm, struct mfts_status *ret)
{
	struct sa_stats sst = {0};

	memset(ret, 0, sizeof(*ret));
	if (!sm->mcast || !sm->mfts)
		return false;
	if (sm->sa)
		sa_get_stats(sm->sa, &sst);
	ret->groups = mcast_group_count(sm->mcast);
	ret->members = mcast_member_count(sm->mcast);
	ret->mlids = mcast_mlid_count(sm->mcast);
	ret->mlid_top = mcast_mlid_top(sm->mcast);
	ret->mft_updates = sm->mfts->updates;
	ret->mft_blocks = sm->mfts->blocks;
	ret->mft_read_blocks = sm->mfts->read_blocks;
	ret->mft_errors = sm->mfts->errors;
	ret->sa_joins = sst.mcast_joins;
	ret->sa_leaves = sst.mcast_leaves;
	ret->sa_refused = sst.mcast_refused;
	return true;
}

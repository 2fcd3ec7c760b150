/*
 * Re-routing that moves as few routes as it can.  After a change (a link or
 * a switch lost, a node back), the engine computes fresh routes for the new
 * fabric; routes_keep() then keeps, for every (switch, LID), the entry the
 * switch already holds when the path it starts is still intact: following
 * the old entries from that switch reaches the LID's port over links that
 * are still there and lead to the same nodes.  Only the other entries take
 * the fresh routes.  Mixing is loop-free and complete: a kept entry starts
 * an intact old path, every switch on it is intact too, and a fresh entry
 * starts a prefix of a fresh (loop-free) path that ends at the LID or on an
 * intact switch.
 *
 * With updown set (engines whose CA traffic is up*down*, ftree), every mixed
 * path to a CA's LID that starts on a switch with a CA is also checked to be up*down* over
 * the levels of the new fabric (distance from the nearest switch with a CA):
 * a LID for which one is not takes the fresh routes at every switch, so what
 * CAs send stays free of credit loops.  When some switch-to-switch link joins two switches of one
 * level nothing is kept.
 *
 * When keeping moves nothing but a switch link came back (or a switch), the
 * fresh routes are taken: nothing is broken, and the links that came back
 * carry traffic again (the re-balance).
 *
 * Balance: when keeping would make the busiest switch port carry more than
 * max_drift (e.g. 0.25) above what the fresh routes give it, the fresh
 * routes are taken whole: that is the full re-balance.  Cost: when every
 * switch was there before, only the LIDs a changed port carried are walked
 * column by column (the rest keep their entries: no changed link on any of
 * their paths) and the tables are read and written row by row, twice; else
 * two column-by-column passes of O(LIDs x switches).  No second copy of the
 * tables.
 */
#ifndef IBSMD_KEEP_H
#define IBSMD_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"

struct keep_stats {
	bool kept;		 /* the mixed routes were taken */
	uint64_t entries;	 /* (switch, LID) entries compared */
	uint64_t moved;		 /* of those, the ones whose port differs from the old one */
	uint64_t fresh_moved;	 /* how many the fresh routes alone would have moved */
	uint32_t lids_fresh;	 /* LIDs given the fresh routes whole (up*down* check) */
	uint32_t max_port_fresh; /* busiest switch port: LIDs routed out of it, fresh */
	uint32_t max_port_kept;	 /* the same with the kept routes */
	char why[128];		 /* when not kept: why */
	bool fast;		 /* decided by the fast way (only the LIDs changed ports carried) */
};

/*
 * r holds the engine's fresh routes for f; old_r the routes of old_f (the
 * fabric they were computed on: node indices may differ, nodes are matched
 * by GUID).  Rewrites r in place when keeping is taken.  Pure.
 */
void routes_keep(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		 struct routes *r, bool updown, double max_drift, struct keep_stats *st);

/*
 * The same; fast false takes the slow way (every LID column by column), which
 * must give the same tables: for the tests.
 */
void routes_keep_ex(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		    struct routes *r, bool updown, double max_drift, bool fast,
		    struct keep_stats *st);

#endif

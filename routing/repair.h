/*
 * Incremental routing: after links or nodes were lost or came back, new
 * routes only for the (switch, LID) entries that a change broke, or that
 * something new needs, starting from the tables the switches hold, instead
 * of the whole engine.
 *
 * Losses.  An entry of switch s for LID d is kept when the path it starts
 * is intact (every hop over a link that is still there, ending at d's
 * port), and with updown that path is up*down* where it must be.  The
 * others are chosen again, switch by switch, towards neighbours whose route
 * is final:
 *
 *  - locally first: a neighbour whose path, one hop longer, is no longer
 *    than the switch's old path was (so as short as it can be: losing links
 *    makes no path shorter) and, with updown, keeps the path up*down*; the
 *    entry the switch holds is taken when it qualifies, else the least
 *    loaded port (LIDs out of it, the count routes->load keeps), as ftree
 *    balances its up ports;
 *  - when that cannot give every broken switch a route, for that LID: hop
 *    distances to it over f (up*down* distances with updown, from the
 *    levels: distance from the nearest switch with a CA; plain distances for
 *    the switches that have no up*down* path, and without updown), the
 *    intact entries kept only where their path is that short, the others
 *    taken in order of distance towards a neighbour one hop nearer (least
 *    loaded first).
 *
 * Additions.  Nothing that came back breaks a route, so every entry is
 * kept, and:
 *
 *  - an end node (CA, router) that came back is a LID with a new owner:
 *    routed by distances as above;
 *  - a switch with no table before (back, or new; with updown only) gets its
 *    row LID by LID, nearest the old switches first, towards the neighbour
 *    whose final route is shortest and fits up*down* (least loaded on a
 *    tie); its own LID and its CAs' are new owners;
 *  - a link that came back between two switches that were there: with
 *    updown, an end whose route to a LID gets shorter over it takes it when
 *    the route keeps its shape (down-only stays down-only, up*down* stays
 *    up*down*), so whoever forwards to it stays up*down*; without updown
 *    (minimal routes promised) a LID for which one end is two hops nearer
 *    than the other is routed again by distances.
 *
 * The links that came back then carry less than the engine would give them:
 * the caller re-balances in the background (the engine's routes; sm/route.c)
 * while the subnet is already up.
 *
 * Both ways every new entry leads to a switch whose route was final before
 * it, so the tables stay loop-free; entries kept start intact paths that
 * cross only final switches.  A LID whose port is gone gets LFT_NO_PORT
 * everywhere.  With updown (ftree), a LID of a CA that some switch with a CA
 * cannot reach up*down* is refused (-EAGAIN): the engine decides.
 *
 * Bounds (-EAGAIN, why in st): more than max_lids_pct of the LIDs touched,
 * a new switch without updown, levels of the old switches that changed or
 * a link within a level (updown), LMC above 0, engines with more than one
 * VL, or the busiest switch port carrying more than (1 + max_drift) times
 * what the busiest carried before (balance: the full engine re-balances).
 *
 * Cost: the LIDs that a changed port carried (or whose port changed) are
 * walked at every switch, O(switches) each, plus O(switch links) for each
 * that needed distances; with additions every LID is looked at around the
 * new switches and the ends of the links that came back (a few walks each);
 * the tables are copied once (a memcpy of the matrix).  old_r->load is used
 * when counted, else counted first.  Pure.
 */
#ifndef IBSMD_REPAIR_H
#define IBSMD_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"

struct repair_stats {
	uint32_t lids;		 /* LIDs looked at (what changed ports carried, new owners) */
	uint32_t lids_local;	 /* of those, repaired hop by hop */
	uint32_t lids_distance;	 /* repaired with distances */
	uint32_t lids_gone;	 /* whose port is gone: LFT_NO_PORT everywhere */
	uint32_t lids_whole;	 /* of lids_distance, with distances over the whole fabric */
	uint32_t lids_shorter;	 /* LIDs whose route got shorter over a link that came back */
	uint32_t links_added;	 /* switch-to-switch links that came back (or are new) */
	uint32_t switches_added; /* switches with no table before, routed whole */
	uint64_t moved;		 /* (switch, LID) entries that differ from the old tables */
	uint32_t max_port_before, max_port;
	char why[128]; /* when -EAGAIN: why */
};

/*
 * old_f/old_r: the published fabric and the routes its switches hold; f the
 * new fabric (LIDs assigned).  On 0, *ret gets new routes for f with load
 * counted; the tables go into spare's block when it has one of the size
 * (may be NULL).  -EAGAIN when the change is not one it bounds (st->why),
 * -ENOMEM.
 */
int routes_repair(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		  bool updown, double max_drift, double max_lids_pct, struct routes_spare *spare,
		  struct routes **ret, struct repair_stats *st);

#endif

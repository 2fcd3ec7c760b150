/*
 * Incremental routing: after a few links or nodes were lost (or a host came
 * back), new routes only for the (switch, LID) entries that are broken,
 * starting from the tables the switches hold, instead of the whole engine.
 *
 * The new fabric f must be the old one minus links and nodes, plus end
 * nodes (CAs, routers) linked to switches that were there: every switch of f
 * was in old_f with as many ports, and no switch-to-switch link of f is new
 * (a link or a switch that comes back is the engine's: it re-balances onto
 * it).  Then an entry of switch s for LID d is kept when the path it starts
 * is intact (every hop over a link that is still there, ending at d's port),
 * and with updown that path is up*down* where it must be.  The others are
 * chosen again, switch by switch, towards neighbours whose route is final:
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
 * Both ways every new entry leads to a switch whose route was final before
 * it, so the tables stay loop-free; entries kept start intact paths that
 * cross only final switches.  A LID whose port is gone gets LFT_NO_PORT
 * everywhere.  With updown (ftree), a LID of a CA that some switch with a CA
 * cannot reach up*down* is refused (-EAGAIN): the engine decides.
 *
 * Bounds (-EAGAIN, why in st): more than max_lids_pct of the LIDs touched,
 * a switch-to-switch link or a switch new, levels that changed or a link
 * within a level (updown), LMC above 0, engines with more than one VL, or
 * the busiest switch port carrying more than (1 + max_drift) times what
 * the busiest carried before (balance: the full engine re-balances).
 *
 * Cost: the LIDs that a changed port carried (or whose port changed) are
 * walked at every switch, O(switches) each, plus O(switch links) for each
 * that needed distances; the tables are copied once (a memcpy of the
 * matrix).  old_r->load is used when counted, else counted first.  Pure.
 */
#ifndef IBSMD_REPAIR_H
#define IBSMD_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"

struct repair_stats {
	uint32_t lids;		/* LIDs looked at (what changed ports carried, new owners) */
	uint32_t lids_local;	/* of those, repaired hop by hop */
	uint32_t lids_distance; /* repaired with distances */
	uint32_t lids_gone;	/* whose port is gone: LFT_NO_PORT everywhere */
	uint32_t lids_whole;	/* of lids_distance, with distances over the whole fabric */
	uint64_t moved;		/* (switch, LID) entries that differ from the old tables */
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

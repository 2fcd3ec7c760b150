/*
 * The routing pass of a sweep: after an incremental sweep a repair of the
 * published routes where it can (routing/repair.c), else the configured
 * engine and its fallback chain (routing/chain.c) over the discovered
 * fabric, then keeping what the switches hold where it is intact
 * (routing/keep.c); with what the daemon says about it: each refusal logged
 * (a warning when new, debug while it repeats sweep after sweep) and handed
 * to the route_fallback hooks, the outcome logged at info when it changes.
 */
#ifndef IBSMD_ROUTE_H
#define IBSMD_ROUTE_H

#include <stddef.h>
#include <event2/event.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"
#include "routing/chain.h"
#include "routing/keep.h"
#include "routing/repair.h"
#include "routing/routing.h"

struct sm;
struct route_state;

/* What the last routing pass said, to tell a repeat from news. */
/* What the last routing pass did (smctl status: last_route_keep, last_route_repair). */
struct route_status {
	char last_engine[32];
	struct keep_stats last_keep; /* what the last re-route kept (routing/keep.h) */
	/* the last routing pass's time, ms: the engine, the repair, keeping, the statistics */
	double engine_ms, repair_ms, keep_ms, stats_ms;
	bool last_repaired;		 /* the last pass repaired (routing/repair.h) */
	struct repair_stats last_repair; /* what the last attempt did, or why it refused */
	/*
	 * The re-balance in the background (route_published): owed after a
	 * repair that added links or switches, until the engine's routes are
	 * published; the worker's runs.
	 */
	bool rebalance_due;
	bool rebalance_running;
	bool last_rebalanced;	    /* the last pass took the worker's routes */
	uint64_t rebalances;	    /* worker runs started */
	uint64_t rebalances_taken;  /* whose routes a sweep programmed */
	uint64_t rebalances_stale;  /* the fabric changed meanwhile: run again */
	double rebalance_engine_ms; /* the last run's engine time, on the worker */
};

/*
 * The routing state of the SM (sm->route), its worker on base: 0 or
 * -errno; free NULL-safe (waits for a running worker).
 */
int route_state_new(struct event_base *base, struct route_state **ret);
void route_state_free(struct route_state *rs);
/* The last pass's status (never NULL on an SM made by sm_init). */
const struct route_status *route_status(const struct sm *sm);
/*
 * The published tables that are being replaced keep their block for the
 * next incremental routing (routes_spare_take); drop it with clear.
 */
void route_spare_take(struct sm *sm, struct routes *old);
void route_spare_clear(struct sm *sm);

/*
 * Route f: after an incremental sweep (incremental true) by repairing the
 * published routes where the change allows it (routing/repair.h, key
 * incremental_routing), else per sm->conf (routing_engine, routing_chain,
 * max_vls, lmc) and the updn roots by the engine and its chain, then
 * keeping what is intact (routing/keep.h, key keep_routes); the engine's
 * routes get their port counts (routes_load_count), a repair's come counted.
 * 0 with *ret (the caller's), the name of the engine that routed in engine
 * and the time taken in *ret_ms; else the chain's error (no engine could
 * route; *ret_ms set, *ret untouched).
 */
int route_fabric(struct sm *sm, const struct fabric *f, bool incremental, struct routes **ret,
		 char *engine, size_t engine_len, double *ret_ms);

/*
 * A re-balance sweep (sweep_start_rebalance) routes its fabric, a copy of
 * the published one, with the worker's routes for that snapshot: true with
 * *ret (the caller's) and the engine's name; false when there are none
 * (the fabric changed since: route_fabric instead).
 */
bool route_rebalanced(struct sm *sm, const struct fabric *f, struct routes **ret, char *engine,
		      size_t engine_len, double *ret_ms);

/*
 * After a publish (sm->snap, sm->last the new ones): a repair that added
 * links or switches owes the engine's balance; the engine routes a copy of
 * the published fabric on the worker (sm/rebalance.h) while the subnet is
 * up, and when it is done with the published snapshot unchanged a
 * re-balance sweep programs its routes (sweep_start_rebalance).  A change
 * meanwhile makes it run again on the next snapshot; a pass of the engine
 * itself settles what was owed.
 */
void route_published(struct sm *sm);

#endif

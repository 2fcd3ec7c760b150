/*
 * The routing pass of a sweep (see route.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "fabric/snapshot.h"
#include "routing/keep.h"
#include "sm/rebalance.h"
#include "sm/route.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

/*
 * After a change: keep what the switches hold where its path is intact (see
 * routing/keep.h), for the engines whose routes allow it and when the
 * engine is the one that routed the published snapshot.
 */
struct route_state {
	struct route_status st;
	struct chain_refusal last_refusals[CHAIN_MAX];
	unsigned int n_last_refusals;
	struct routing_stats last_stats;
	struct routes_spare spare;     /* the tables of the snapshot before, for the next repair */
	struct sm *sm;		       /* for the worker's completion */
	struct rebalance *worker;      /* the engine in the background (sm/rebalance.h) */
	bool again;		       /* the published snapshot changed while the worker ran */
	struct rebalance_result ready; /* its routes for snapshot ready.generation */
	bool have_ready;
};

static void route_rebalance_done(void *arg);

int route_state_new(struct event_base *base, struct route_state **ret)
{
	struct route_state *rs = calloc(1, sizeof(*rs));
	int r;

	if (!rs)
		return -ENOMEM;
	r = rebalance_new(base, route_rebalance_done, rs, &rs->worker);
	if (r < 0) {
		free(rs);
		return r;
	}
	*ret = rs;
	return 0;
}

static void route_ready_clear(struct route_state *rs)
{
	if (rs->have_ready)
		chain_result_clear(&rs->ready.res);
	rs->have_ready = false;
}

void route_state_free(struct route_state *rs)
{
	if (!rs)
		return;
	rebalance_free(rs->worker);
	route_ready_clear(rs);
	routes_spare_clear(&rs->spare);
	free(rs);
}

const struct route_status *route_status(const struct sm *sm)
{
	return &sm->route->st;
}

void route_spare_take(struct sm *sm, struct routes *old)
{
	routes_spare_take(&sm->route->spare, old);
}

void route_spare_clear(struct sm *sm)
{
	if (sm->route)
		routes_spare_clear(&sm->route->spare);
}

static void route_keep(struct sm *sm, const struct fabric *f, struct routes *r, const char *engine,
		       struct keep_stats *ks)
{
	const struct snapshot *old = sm->snap;
	bool ftree = !strcmp(engine, "ftree");
	double t0 = clock_mono_ms();

	memset(ks, 0, sizeof(*ks));
	if (!sm->conf.keep_routes || sm->sched.force_lft || !old || !old->routes ||
	    !sm->last.programmed || (!ftree && strcmp(engine, "minhop")) ||
	    strcmp(sm->route->st.last_engine, engine))
		return;
	routes_keep(old->fabric, old->routes, f, r, ftree,
		    sm->conf.keep_routes_max_drift_pct / 100.0, ks);
	if (ks->kept && ks->moved == ks->fresh_moved)
		return; /* nothing changed either way */
	if (ks->kept)
		log_msg(LOG_CAT_ROUTE, LOG_INFO,
			"re-route kept what is intact: %llu of %llu forwarding entries moved "
			"(the engine alone: %llu), busiest port %u LIDs (the engine alone: %u), "
			"%u LIDs re-routed whole, %.1f ms",
			(unsigned long long)ks->moved, (unsigned long long)ks->entries,
			(unsigned long long)ks->fresh_moved, ks->max_port_kept, ks->max_port_fresh,
			ks->lids_fresh, clock_mono_ms() - t0);
	else
		log_msg(LOG_CAT_ROUTE, LOG_INFO, "re-route: the engine's routes taken whole: %s",
			ks->why);
}

/* Repairs touching more than this share of the LIDs are left to the engine (none: the cost is per
 * broken entry). */
#define ROUTE_REPAIR_MAX_LIDS_PCT 100

/*
 * After an incremental sweep: repair the published routes (see
 * routing/repair.h).  true when *ret holds them.
 */
static bool route_repair(struct sm *sm, const struct fabric *f, struct routes **ret, char *engine,
			 size_t engine_len, double *ret_ms)
{
	struct route_state *rs = sm->route;
	const struct snapshot *old = sm->snap;
	const char *last = rs->st.last_engine;
	bool ftree = !strcmp(last, "ftree");
	double t0 = clock_mono_ms();
	int r;

	rs->st.last_repaired = false;
	memset(&rs->st.last_repair, 0, sizeof(rs->st.last_repair));
	snprintf(rs->st.last_repair.why, sizeof(rs->st.last_repair.why), "not tried");
	if (!sm->conf.incremental_routing || sm->sched.force_lft || !old || !old->routes ||
	    !sm->last.programmed || (!ftree && strcmp(last, "minhop")) ||
	    strcmp(sm->conf.routing_engine, last))
		return false;
	r = routes_repair(old->fabric, old->routes, f, ftree,
			  sm->conf.keep_routes_max_drift_pct / 100.0, ROUTE_REPAIR_MAX_LIDS_PCT,
			  &rs->spare, ret, &rs->st.last_repair);
	rs->st.repair_ms = clock_mono_ms() - t0;
	if (r < 0) {
		log_msg(LOG_CAT_ROUTE, LOG_INFO,
			"incremental re-route not taken (%s): %s routes the whole fabric",
			r == -EAGAIN ? rs->st.last_repair.why : strerror(-r),
			sm->conf.routing_engine);
		return false;
	}
	rs->st.last_repaired = true;
	memset(&rs->st.last_keep, 0, sizeof(rs->st.last_keep));
	snprintf(rs->st.last_keep.why, sizeof(rs->st.last_keep.why),
		 "repaired incrementally instead");
	snprintf(engine, engine_len, "%s", last);
	*ret_ms = rs->st.repair_ms;
	log_msg(LOG_CAT_ROUTE, rs->st.last_repair.lids ? LOG_INFO : LOG_DEBUG,
		"re-routed incrementally: %u LIDs looked at (%u hop by hop, %u by distances, %u "
		"gone), %llu forwarding entries moved, busiest port %u LIDs (%u before), %.1f ms",
		rs->st.last_repair.lids, rs->st.last_repair.lids_local,
		rs->st.last_repair.lids_distance, rs->st.last_repair.lids_gone,
		(unsigned long long)rs->st.last_repair.moved, rs->st.last_repair.max_port,
		rs->st.last_repair.max_port_before, rs->st.repair_ms);
	return true;
}

/* The options a full routing pass gives the engine (route_fabric's). */
static struct routing_opts route_opts(const struct sm *sm)
{
	return (struct routing_opts){.roots = sm->policy.roots,
				     .n_roots = sm->policy.n_roots,
				     .max_vls = (uint8_t)sm->conf.max_vls,
				     .lmc = (uint8_t)sm->conf.lmc};
}

int route_fabric(struct sm *sm, const struct fabric *f, bool incremental, struct routes **ret,
		 char *engine, size_t engine_len, double *ret_ms)
{
	struct route_state *rs = sm->route;
	struct routing_opts ro = route_opts(sm);
	struct chain_result res;
	struct routing_stats st;
	double t0 = clock_mono_ms();
	bool changed;
	int r;

	rs->sm = sm;
	rs->st.engine_ms = rs->st.repair_ms = rs->st.keep_ms = rs->st.stats_ms = 0;
	rs->st.last_rebalanced = false;
	rs->st.last_repaired = false;
	if (incremental && route_repair(sm, f, ret, engine, engine_len, ret_ms)) {
		t0 = clock_mono_ms();
		routing_stats(f, *ret, &st); /* from the port counts: O(ports) */
		rs->st.stats_ms = clock_mono_ms() - t0;
		*ret_ms += rs->st.stats_ms;
		goto stats;
	}
	/*
	 * A full routing builds a table block of its own: the spare goes first,
	 * so that the published tables and the new ones are the only two.
	 */
	routes_spare_clear(&rs->spare);
	t0 = clock_mono_ms();
	r = chain_run(f, &ro, sm->conf.routing_engine, sm->conf.routing_chain, &res);
	for (unsigned int i = 0; i < res.n_refusals; i++) {
		const struct chain_refusal *x = &res.refusals[i];

		/* warn when the refusal is new; the same refusal every sweep is debug */
		log_msg(LOG_CAT_ROUTE,
			chain_has_refusal(rs->last_refusals, rs->n_last_refusals, x) ? LOG_DEBUG
										     : LOG_WARNING,
			"routing engine %s refused: %s, trying the next one", x->engine, x->reason);
		hook_run(&sm->hooks.route_fallback,
			 &(struct sm_route_fallback){x->engine, x->reason});
	}
	memcpy(rs->last_refusals, res.refusals, sizeof(rs->last_refusals));
	rs->n_last_refusals = res.n_refusals;
	*ret_ms = clock_mono_ms() - t0;
	if (r < 0) {
		chain_result_clear(&res);
		return r;
	}
	snprintf(engine, engine_len, "%s", res.engine->name);
	*ret = res.routes;
	res.routes = NULL;
	chain_result_clear(&res);

	rs->st.engine_ms = *ret_ms;
	t0 = clock_mono_ms();
	route_keep(sm, f, *ret, engine, &rs->st.last_keep);
	rs->st.keep_ms = clock_mono_ms() - t0;
	t0 = clock_mono_ms();
	{
		struct lid_map m = {0};
		int e = fabric_lid_map(f, &m);

		/* the port counts the next repair starts from, and the statistics */
		if (!e || e == -EEXIST)
			routes_load_count(*ret, f, &m);
		fabric_lid_map_clear(&m);
	}
	routing_stats(f, *ret, &st);
	rs->st.stats_ms = clock_mono_ms() - t0;
	*ret_ms += rs->st.keep_ms + rs->st.stats_ms;
	/*
	 * With no tables published yet (whose block the publish would keep for
	 * the next repair), the first repair copies into faulted-in pages too;
	 * --once repairs nothing.
	 */
	if (sm->conf.incremental_routing && !sm->once && !(sm->snap && sm->snap->routes))
		routes_spare_prepare(&rs->spare, *ret);
stats:
	/* info when the outcome changes, debug on the periodic re-route */
	changed = strcmp(rs->st.last_engine, engine) ||
		  st.max_routes_per_port != rs->last_stats.max_routes_per_port ||
		  st.unreachable != rs->last_stats.unreachable ||
		  st.mean_routes_per_port != rs->last_stats.mean_routes_per_port;
	log_msg(LOG_CAT_ROUTE, changed ? LOG_INFO : LOG_DEBUG,
		"routed with %s: %.1f ms, max %u / mean %.1f routes per port, %u unreachable",
		engine, *ret_ms, st.max_routes_per_port, st.mean_routes_per_port, st.unreachable);
	snprintf(rs->st.last_engine, sizeof(rs->st.last_engine), "%s", engine);
	rs->last_stats = st;
	return 0;
}

/* ---- the re-balance in the background ------------------------------------------- */

/* Start the worker on the published fabric, or have it run again once it is done. */
static void route_rebalance_start(struct sm *sm)
{
	struct route_state *rs = sm->route;
	struct routing_opts ro = route_opts(sm);
	double t0 = clock_mono_ms();
	int r;

	if (rebalance_running(rs->worker)) {
		rs->again = true;
		return;
	}
	route_ready_clear(rs);
	r = rebalance_start(rs->worker, sm->snap->fabric, &ro, sm->conf.routing_engine,
			    sm->conf.routing_chain, sm->snap->generation);
	if (r < 0) {
		log_warn("cannot re-balance the routes in the background (%s): the next full "
			 "routing will",
			 strerror(-r));
		rs->st.rebalance_due = false;
		return;
	}
	rs->st.rebalance_running = true;
	rs->st.rebalances++;
	log_msg(LOG_CAT_ROUTE, LOG_DEBUG,
		"re-balancing in the background: %s routes a copy of snapshot %llu (copied in "
		"%.1f ms)",
		sm->conf.routing_engine, (unsigned long long)sm->snap->generation,
		clock_mono_ms() - t0);
}

/* The worker is done (on the loop). */
static void route_rebalance_done(void *arg)
{
	struct route_state *rs = arg;
	struct sm *sm = rs->sm;
	struct rebalance_result res;

	rs->st.rebalance_running = false;
	if (!rebalance_take(rs->worker, &res) || !sm)
		return;
	rs->st.rebalance_engine_ms = res.ms;
	if (res.rc < 0 || !res.res.routes) {
		log_msg(LOG_CAT_ROUTE, LOG_INFO,
			"the background re-balance found no engine to route (%s): the routes "
			"stay as repaired",
			strerror(res.rc < 0 ? -res.rc : ENOENT));
		chain_result_clear(&res.res);
		rs->st.rebalance_due = false;
		return;
	}
	if (rs->again || !sm->snap || res.generation != sm->snap->generation) {
		/* the fabric changed meanwhile: what was owed is owed on the new one */
		rs->again = false;
		rs->st.rebalances_stale++;
		chain_result_clear(&res.res);
		if (rs->st.rebalance_due && sm->snap && sm->state == SM_MASTER)
			route_rebalance_start(sm);
		return;
	}
	route_ready_clear(rs);
	rs->ready = res;
	rs->have_ready = true;
	log_msg(LOG_CAT_ROUTE, LOG_DEBUG,
		"background re-balance: %s routed snapshot %llu in %.1f ms: programming it",
		res.res.engine ? res.res.engine->name : "?", (unsigned long long)res.generation,
		res.ms);
	sweep_start_rebalance(sm);
}

bool route_rebalanced(struct sm *sm, const struct fabric *f, struct routes **ret, char *engine,
		      size_t engine_len, double *ret_ms)
{
	struct route_state *rs = sm->route;
	struct routing_stats st;
	double t0 = clock_mono_ms();

	rs->sm = sm;
	if (!rs->have_ready || !sm->snap || rs->ready.generation != sm->snap->generation ||
	    rs->ready.res.routes->n_nodes != f->n_nodes) {
		route_ready_clear(rs);
		return false;
	}
	*ret = rs->ready.res.routes;
	rs->ready.res.routes = NULL;
	snprintf(engine, engine_len, "%s", rs->ready.res.engine->name);
	route_ready_clear(rs);
	rs->st.engine_ms = rs->st.repair_ms = rs->st.keep_ms = 0;
	rs->st.last_repaired = false;
	rs->st.last_rebalanced = true;
	rs->st.rebalances_taken++;
	memset(&rs->st.last_keep, 0, sizeof(rs->st.last_keep));
	snprintf(rs->st.last_keep.why, sizeof(rs->st.last_keep.why),
		 "re-balanced in the background: the engine's routes whole");
	routing_stats(f, *ret, &st);
	rs->st.stats_ms = clock_mono_ms() - t0;
	*ret_ms = rs->st.stats_ms;
	log_msg(LOG_CAT_ROUTE, LOG_INFO,
		"re-balanced in the background: %s's routes (%.1f ms on the worker), max %u / mean "
		"%.1f routes per port, %u unreachable",
		engine, rs->st.rebalance_engine_ms, st.max_routes_per_port, st.mean_routes_per_port,
		st.unreachable);
	snprintf(rs->st.last_engine, sizeof(rs->st.last_engine), "%s", engine);
	rs->last_stats = st;
	return true;
}

void route_published(struct sm *sm)
{
	struct route_state *rs = sm->route;
	const struct repair_stats *rp = &rs->st.last_repair;

	rs->sm = sm;
	if (!sm->conf.incremental_routing || sm->once || sm->last.standby || !sm->last.programmed) {
		rs->st.rebalance_due = false;
	} else if (rs->st.last_rebalanced || !rs->st.last_repaired) {
		rs->st.rebalance_due = false; /* the engine's routes: balanced */
	} else if (rp->links_added || rp->switches_added) {
		rs->st.rebalance_due = true;
	}
	if (!rs->st.rebalance_due) {
		route_ready_clear(rs);
		return;
	}
	if (sm->last.status != 0 || sm->state != SM_MASTER || !sm->snap)
		return; /* the next sweep that brings the subnet up */
	route_rebalance_start(sm);
}

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
#include "routing/keep.h"
#include "sm/route.h"
#include "sm/sm.h"

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
	struct routes_spare spare; /* the tables of the snapshot before, for the next repair */
};

int route_state_new(struct route_state **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void route_state_free(struct route_state *rs)
{
	if (!rs)
		return;
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

int route_fabric(struct sm *sm, const struct fabric *f, bool incremental, struct routes **ret,
		 char *engine, size_t engine_len, double *ret_ms)
{
	struct route_state *rs = sm->route;
	struct routing_opts ro = {.roots = sm->policy.roots,
				  .n_roots = sm->policy.n_roots,
				  .max_vls = (uint8_t)sm->conf.max_vls,
				  .lmc = (uint8_t)sm->conf.lmc};
	struct chain_result res;
	struct routing_stats st;
	double t0 = clock_mono_ms();
	bool changed;
	int r;

	rs->st.engine_ms = rs->st.repair_ms = rs->st.keep_ms = rs->st.stats_ms = 0;
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

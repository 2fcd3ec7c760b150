/*
 * Fabric events for `smctl events` (docs/protocol.md "Events"): a heavy sweep
 * starts or ends, an engine refuses the fabric, the SM changes state (when it
 * does, with the reason), and what
 * changed between the snapshot just published and the one it replaced
 * (fabric/diff.c): nodes, links, port states, LIDs; ports that turn unhealthy
 * or healthy again (perf/perfmgr.c); validation findings that appear or
 * clear, ports isolated for one (validate/validate.c).  Each event gets a sequence number; the
 * last API_EVENTS_KEPT are kept for `eventlog` (the web page polls it) and
 * every one is sent to the control clients that subscribed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/diff.h"
#include "fabric/names.h"
#include "perf/health.h"
#include "perf/perfmgr.h"
#include "ui/api_int.h"
#include "validate/validate.h"

static void events_emit(struct api *api, json_t *ev, uint64_t generation)
{
	if (!ev)
		return;
	json_t **slot;
	struct timespec ts;
	struct tm tm;
	char iso[80];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	json_object_set_new(ev, "time", json_string(iso));
	json_object_set_new(ev, "unix_time", json_real(ts.tv_sec + ts.tv_nsec / 1e9));
	json_object_set_new(ev, "generation", json_integer((json_int_t)generation));
	json_object_set_new(ev, "seq", json_integer((json_int_t)++api->event_seq));
	ctl_server_publish(api->srv, ev);
	slot = &api->events[api->event_seq % API_EVENTS_KEPT];
	json_decref(*slot);
	*slot = ev; /* the reference we were given */
}

static void events_sweep_begin(void *arg, const void *data)
{
	struct api *api = arg;
	const char *why = data;

	events_emit(api,
		    json_pack("{s:s, s:b, s:s}", "type", "sweep_start", "heavy",
			      !api->sm->sched.cur_incremental, "reason", why),
		    api->sm->snap ? api->sm->snap->generation : 0);
}

static void events_route_fallback(void *arg, const void *data)
{
	struct api *api = arg;
	const struct sm_route_fallback *fb = data;

	events_emit(api,
		    json_pack("{s:s, s:s, s:s}", "type", "routing_fallback", "engine", fb->engine,
			      "reason", fb->reason),
		    api->sm->snap ? api->sm->snap->generation : 0);
}

struct events_diff {
	struct api *api;
	uint64_t generation;
};

static const char *const events_diff_type[] = {
    [DIFF_NODE_REMOVED] = "node_removed", [DIFF_NODE_ADDED] = "node_added",
    [DIFF_LINK_DOWN] = "link_down",	  [DIFF_LINK_UP] = "link_up",
    [DIFF_PORT_DOWN] = "port_down",	  [DIFF_PORT_UP] = "port_up",
    [DIFF_LID_CHANGED] = "lid_changed",
};

static void events_diff_one(void *arg, const struct diff_change *c)
{
	struct events_diff *d = arg;
	const struct diff_end *n = &c->a;
	const char *type = events_diff_type[c->kind];
	json_t *ev = NULL;

	switch (c->kind) {
	case DIFF_NODE_REMOVED:
	case DIFF_NODE_ADDED:
		ev = json_pack("{s:s, s:o, s:s, s:s, s:i}", "type", type, "guid", api_guid(n->guid),
			       "desc", n->desc, "node_type", names_node_type(n->type), "lid",
			       (int)n->lid);
		break;
	case DIFF_LINK_DOWN:
	case DIFF_LINK_UP:
		ev = json_pack("{s:s, s:o, s:s, s:i, s:o, s:s, s:i, s:s}", "type", type, "guid",
			       api_guid(n->guid), "desc", n->desc, "port", c->port, "peer_guid",
			       api_guid(c->b.guid), "peer_desc", c->b.desc, "peer_port",
			       c->peer_port, "state",
			       c->kind == DIFF_LINK_UP ? names_port_state(c->state) : "DOWN");
		break;
	case DIFF_PORT_DOWN:
	case DIFF_PORT_UP:
		ev = json_pack("{s:s, s:o, s:s, s:i, s:s}", "type", type, "guid", api_guid(n->guid),
			       "desc", n->desc, "port", c->port, "state",
			       names_port_state(c->state));
		break;
	case DIFF_LID_CHANGED:
		ev = json_pack("{s:s, s:o, s:s, s:i, s:i, s:i}", "type", type, "guid",
			       api_guid(n->guid), "desc", n->desc, "port", c->port, "lid", c->lid,
			       "previous", c->old_lid);
		break;
	}
	events_emit(d->api, ev, d->generation);
}

void events_published(struct api *api, const struct snapshot *old)
{
	struct sm *sm = api->sm;
	const struct snapshot *snap = sm->snap;
	uint64_t gen = snap ? snap->generation : 0;

	if (old && snap) {
		struct events_diff d = {api, gen};

		snapshot_changes_run(snap, old, events_diff_one, &d);
	}
	if (sm->subnet_up && !api->last_subnet_up)
		events_emit(api,
			    json_pack("{s:s, s:i, s:i}", "type", "subnet_up", "nodes",
				      (int)sm->last.nodes, "ports_active",
				      (int)sm->last.ports_active),
			    gen);
	events_emit(api,
		    json_pack("{s:s, s:s, s:s, s:b, s:I, s:i, s:i, s:b}", "type", "sweep_end",
			      "status", sm->last.status ? "failed" : "ok", "reason",
			      sm->last.reason, "heavy", !sm->last.incremental, "duration_ms",
			      (json_int_t)(sm->last.ms + 0.5), "nodes", (int)sm->last.nodes, "sets",
			      (int)sm->last.sets, "changed", sm->last.sets > 0),
		    gen);
	api->last_subnet_up = sm->subnet_up;
}

/* Every role change, when it happens (not at the next publish): a takeover is an event. */
static void events_state_changed(void *arg, const void *data)
{
	struct api *api = arg;
	const struct sm_state_change *c = data;
	struct sm *sm = api->sm;
	json_t *ev =
	    json_pack("{s:s, s:s, s:s, s:s}", "type", "state", "state", names_sm_state(c->to),
		      "previous", names_sm_state(c->from), "reason", c->why);

	if (ev && c->to == SM_STANDBY && sm->master_guid)
		json_object_set_new(ev, "master", api_guid(sm->master_guid));
	events_emit(api, ev, sm->snap ? sm->snap->generation : 0);
}

/* A flapping port quarantined, or enabled again. */
static void events_quarantine(void *arg, const void *data)
{
	struct api *api = arg;
	const struct health_change *hc = data;

	events_emit(api,
		    json_pack("{s:s, s:o, s:i, s:s, s:I}", "type",
			      hc->quarantined ? "port_quarantined" : "port_released", "guid",
			      api_guid(hc->p->guid), "port", hc->p->port, "reason", hc->why,
			      "link_downs", (json_int_t)hc->p->downs_total),
		    api->sm->snap ? api->sm->snap->generation : 0);
}

/* A validation finding appeared or cleared; a port isolated for one, or released. */
static void events_validation(void *arg, const void *data)
{
	static const char *const what[] = {
	    [VALIDATE_APPEARED] = "new",
	    [VALIDATE_CLEARED] = "cleared",
	    [VALIDATE_ISOLATED] = "isolated",
	    [VALIDATE_RELEASED] = "released",
	};
	struct api *api = arg;
	const struct validate_change *c = data;
	json_t *ev = json_pack("{s:s, s:s}", "type", "validation", "state", what[c->what]);
	json_t *fd = api_finding_json(c->fd);

	if (ev && fd)
		json_object_update(ev, fd);
	json_decref(fd);
	if (ev && (c->what == VALIDATE_ISOLATED || c->what == VALIDATE_RELEASED))
		json_object_set_new(ev, "isolated_port",
				    json_pack("{s:o, s:i, s:s}", "guid", api_guid(c->guid), "port",
					      c->port, "reason", c->why));
	events_emit(api, ev, api->sm->snap ? api->sm->snap->generation : 0);
}

/* The performance manager found a port over a threshold, or clean again. */
static void events_port_health(void *arg, const void *data)
{
	struct api *api = arg;
	const struct perfmgr_health_change *hc = data;
	const struct perfmgr_port *p = hc->port;
	const struct fabric *f = api->sm->snap ? api->sm->snap->fabric : NULL;
	uint32_t ni = f ? fabric_find_guid(f, p->node_guid) : FABRIC_NO_NODE;
	json_t *reasons = json_array();

	for (unsigned b = 0; reasons && b < PERFMGR_NREASONS; b++)
		if (hc->reasons & (1u << b))
			json_array_append_new(reasons, json_string(perfmgr_reason_name(1u << b)));
	events_emit(api,
		    json_pack("{s:s, s:o, s:s, s:i, s:i, s:o, s:I}", "type",
			      hc->unhealthy ? "port_unhealthy" : "port_healthy", "guid",
			      api_guid(p->node_guid), "desc",
			      ni != FABRIC_NO_NODE ? f->nodes[ni].desc : "", "port", p->port, "lid",
			      p->lid, "reasons", reasons, "errors_last",
			      (json_int_t)api_counters_errors(p->delta)),
		    api->sm->snap ? api->sm->snap->generation : 0);
}

void events_attach(struct api *api)
{
	hook_add(&api->sm->hooks.sweep_begin, events_sweep_begin, api);
	hook_add(&api->sm->hooks.route_fallback, events_route_fallback, api);
	hook_add(&api->sm->hooks.state_changed, events_state_changed, api);
	hook_add(&api->sm->hooks.port_health, events_port_health, api);
	hook_add(&api->sm->hooks.quarantine, events_quarantine, api);
	hook_add(&api->sm->hooks.validation, events_validation, api);
}

void events_detach(struct api *api)
{
	hook_remove(&api->sm->hooks.sweep_begin, events_sweep_begin, api);
	hook_remove(&api->sm->hooks.route_fallback, events_route_fallback, api);
	hook_remove(&api->sm->hooks.state_changed, events_state_changed, api);
	hook_remove(&api->sm->hooks.port_health, events_port_health, api);
	hook_remove(&api->sm->hooks.quarantine, events_quarantine, api);
	hook_remove(&api->sm->hooks.validation, events_validation, api);
	for (size_t i = 0; i < API_EVENTS_KEPT; i++) {
		json_decref(api->events[i]);
		api->events[i] = NULL;
	}
}

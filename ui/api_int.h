/*
 * Inside the control API (ui/api*.c, ui/events.c, ui/metrics.c): the state
 * the handlers share and the helpers they all use.  Not for other rooms: the
 * daemon sees ui/api.h only.
 *
 *   api.c        the command table, start-up and shut-down
 *   api_util.c   helpers: GUIDs as JSON, argument checks, texts in memory
 *   api_ids.c    identifiers (GUID, LID, description) -> (node, port), O(1)
 *   api_views.c  read commands: status, nodes, ports, links, lids, node,
 *                route, topology, config, events
 *   api_admin.c  orders: sweep, reroute, priority, handover, port, loglevel
 *   api_pkeys.c  runtime partitions: request bodies, orders, listings (api_pkeys.h)
 *   events.c     sweep and snapshot changes -> events for subscribers
 *   metrics.c    the Prometheus text of `metrics` and of GET /metrics
 *   api_counters.c  the performance manager's port counters (`counters`)
 *   http.c       the HTTP endpoint: /metrics, /api/CMD, the web page, /ufmRest/
 *                (http_pkeys.c: UFM's routes; http_auth.c: users, Basic, rates)
 */
#ifndef IBSMD_API_INT_H
#define IBSMD_API_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>

#include "fabric/snapshot.h"
#include "sm/conf.h"
#include "sm/sm.h"
#include "ui/api.h"
#include "ui/ctl.h"

/* A client waiting for a sweep to finish: answered once sm->sweeps >= target. */
struct api_waiter {
	uint64_t client_id;
	uint64_t target;
};

#define API_EVENTS_KEPT 256 /* the last events, for `eventlog` and the web page */

struct http;

/* What the HTTP endpoint (ui/http.c) counts; kept here for metrics.c. */
struct http_stats {
	uint64_t requests;	/* answered, any status */
	uint64_t errors;	/* of those, 4xx and 5xx */
	uint64_t rejected;	/* connections refused: over http_max_clients or HTTP_MAX_QUEUED */
	uint64_t timeouts;	/* connections closed for being too slow */
	uint64_t auth_failures; /* requests with credentials that did not check */
	uint64_t rate_limited;	/* requests refused over http_rate_limit */
	uint64_t writes;	/* runtime partition writes answered 200 */
	unsigned clients;	/* open now */
	size_t queued;		/* reply bytes held: unsent replies, /metrics texts once each */
};

struct api {
	struct sm *sm;
	struct ctl_server *srv;
	struct http *http; /* NULL unless http_listen is set */
	struct http_stats http_st;
	struct http *http_sync; /* NULL unless sync_listen is set */
	struct http_stats sync_st;
	struct timespec started;
	double started_unix;		 /* CLOCK_REALTIME at start: process_start_time_seconds */
	json_t *events[API_EVENTS_KEPT]; /* ring: event seq s is at s % API_EVENTS_KEPT */
	uint64_t event_seq;		 /* seq of the newest event, 0 = none yet */
	struct api_waiter *waiters;
	size_t n_waiters, cap_waiters;
	bool in_publish; /* inside the publish hook: the running sweep is the one just finished */
	bool last_subnet_up;
};

/* ---- helpers (api_util.c) --------------------------------------------------- */

json_t *api_guid(uint64_t g);
double api_uptime(const struct api *api);
/* Reject members of args other than the names given (NULL-terminated). */
int api_check_args(json_t *args, const char *const *names, struct ctl_error *err);
/* not_ready until the first sweep has published a snapshot. */
int api_need_fabric(const struct api *api, struct ctl_error *err);
/* A text being built (open_memstream); api_text_end returns the malloc'd text or NULL. */
struct api_text {
	FILE *fp;
	char *buf;
	size_t len;
};
int api_text_begin(struct api_text *t);
char *api_text_end(struct api_text *t);
/*
 * A port's speed as the views show it (fabric/speed.h): the lane speed it
 * runs ("HDR"; "?" when unknown), and into o, when o is not NULL, rate_gbps
 * (width x lane speed, the data rate of its IBA rate code) and, for a
 * linked port, below_enabled (the link runs below what both ends enable).
 */
const char *api_port_speed(const struct fabric *f, const struct port *p, json_t *o);

/* ---- identifiers (api_ids.c) ------------------------------------------- */

/* The port that stands for a node: switch port 0, else the first linked port with a LID. */
uint8_t api_node_port(const struct node *n);
uint16_t api_node_lid(const struct node *n);
/*
 * Resolve an identifier (docs/protocol.md "Identifiers"): a JSON integer is
 * a LID; a string "0x" with more than 4 hex digits is a GUID (node or port);
 * a string number up to 0xBFFF is a LID; anything else a node description
 * (exact match).  Returns 0 or -EINVAL with err (bad_argument / not_found).
 */
int api_resolve(const struct snapshot *s, json_t *v, const char *what, uint32_t *ret_node,
		uint8_t *ret_port, struct ctl_error *err);

/*
 * What a listing (nodes, ports, links, lids) is asked for: the arguments
 * "type" (switch|ca), "state" (down|init|armed|active: the port's, or the
 * link's), "node" (an identifier: that node's items, or links touching it),
 * "offset" and "limit" (a page of the matches, in the snapshot's order).
 */
struct api_list {
	int type;	/* -1 any, else NODE_SWITCH / NODE_CA */
	int state;	/* -1 any, else a port state 1..4 */
	uint32_t node;	/* UINT32_MAX any */
	int64_t offset; /* matches skipped */
	int64_t limit;	/* matches returned at most; -1 all */
	int64_t seen;	/* matches so far */
	bool unhealthy; /* ports: quarantined or marked unhealthy only */
};
/* Parse those arguments (beside none other).  0 or -EINVAL with err. */
int api_list_parse(const struct api *api, json_t *args, struct api_list *l, struct ctl_error *err);
/* A match: whether it is on the page asked for (counts it either way). */
bool api_list_take(struct api_list *l);
/* No further match can be on the page. */
bool api_list_done(const struct api_list *l);

/* ---- command handlers ------------------------------------------------- */

ctl_handler_fn api_status, api_nodes, api_ports, api_links, api_lids, api_node, api_route,
    api_topology, api_config, api_events, api_eventlog, api_counters;
ctl_handler_fn api_sweep, api_reroute, api_priority, api_handover, api_port, api_loglevel;
ctl_handler_fn api_partitions, api_partition; /* api_pkeys.c */
ctl_handler_fn metrics_command;
ctl_handler_fn api_validate;

/* ---- validation and where hosts sit (api_validate.c) ------------------------ */

struct plan_finding;
struct fabric;
/* A finding (validate/plan.h) as the API and events show it; NULL on ENOMEM. */
json_t *api_finding_json(const struct plan_finding *fd);
/* topology.conf (yaml: topology.yaml) of f, names from node_name_map_name; NULL on ENOMEM. */
char *api_topo_slurm(const struct api *api, const struct fabric *f, bool yaml);
/* Into o: "hosts" (name -> leaf, every leaf) and "leaves" (leaf -> switches above).  0, -ENOMEM. */
int api_topo_hosts_into(const struct api *api, const struct fabric *f, json_t *o);

/* The command table: api_command_table() and api_command_find() in api.h. */

/* ---- metrics (metrics.c) ------------------------------------------------ */

/* The Prometheus text (malloc'd, *ret_len bytes), or NULL on ENOMEM. */
char *metrics_text(struct api *api, size_t *ret_len);

/* ---- counters (api_counters.c) ---------------------------------------- */

/* The performance manager's summary, as in `counters` and `status`. */
json_t *api_perfmgr_json(const struct sm *sm);
/* The sum of the error counters in v (PERFMGR_NCOUNTERS values). */
uint64_t api_counters_errors(const uint64_t *v);

/* ---- admin (api_admin.c) ----------------------------------------------- */

/* The reply of sweep/reroute: the last sweep's summary. */
json_t *api_sweep_json(const struct sm *sm);
/* Answer the clients whose sweep has finished (called when a snapshot is published). */
void api_admin_published(struct api *api);
void api_admin_free(struct api *api);

/* ---- events (events.c) ------------------------------------------------- */

/* Hook the SM's sweep and routing events; publish snapshot changes to subscribers. */
void events_attach(struct api *api);
void events_detach(struct api *api);
/* The events of one published snapshot (old is the one it replaced, NULL on the first). */
void events_published(struct api *api, const struct snapshot *old);

#endif

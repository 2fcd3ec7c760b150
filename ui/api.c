/*
 * The daemon's control API (see api.h and docs/protocol.md): the command
 * table served by ui/ctl.c, answered from the SM's published snapshot
 * (sm->fabric, sm->routes, sm->last); the orders that reach the SM (sweep,
 * reroute, priority, log levels); fabric events, made by diffing each newly
 * published snapshot against the one it replaces; Prometheus metrics; and the
 * systemd watchdog (sd_watchdog_enabled(3), sd_notify(3)).
 *
 * Everything runs on the loop thread.  Handlers only read the snapshot, which
 * nothing changes once published, so a reply is always self-consistent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "ui/api.h"
#include "lib/log.h"
#include "ui/ctl.h"

/* A client waiting for a sweep to finish: answered once sm->sweeps >= target. */
struct api_waiter {
	uint64_t client_id;
	uint64_t target;
};

struct api {
	struct sm *sm;
	struct sm_conf conf; /* as started; live values are read back from sm->opts */
	struct ctl_server *srv;
	struct event *watchdog;
	struct timespec started;
	struct api_waiter *waiters;
	size_t n_waiters, cap_waiters;
	bool in_publish; /* inside api_on_publish: sm->cur is the sweep just finished */
	enum sm_state last_state;
	bool last_subnet_up;
	void (*prev_publish)(void *arg, const struct fabric *old_f);
	void *prev_publish_arg;
};

#define API_ROUTE_MAX_HOPS 64

/* ---- small helpers ---------------------------------------------------- */

static json_t *api_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_string(buf);
}

static const char *api_state_str(enum sm_state s)
{
	switch (s) {
	case SM_MASTER:
		return "MASTER";
	case SM_STANDBY:
		return "STANDBY";
	case SM_DISCOVERING:
		return "DISCOVERING";
	case SM_NOTACTIVE:
	default:
		return "NOTACTIVE";
	}
}

static const char *api_port_state_str(uint8_t s)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "UNKNOWN";
}

static const char *api_phys_str(uint8_t s)
{
	static const char *const names[] = {"NOP",	"SLEEP",  "POLLING",	    "DISABLED",
					    "TRAINING", "LINKUP", "ERROR_RECOVERY", "PHYTEST"};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "UNKNOWN";
}

static int api_mtu_bytes(uint8_t mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128 << mtu : 0;
}

static double api_now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double api_uptime(const struct api *api)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - api->started.tv_sec) + (ts.tv_nsec - api->started.tv_nsec) / 1e9;
}

/* The port that stands for a node: switch port 0, else the first linked port (or 1). */
static uint8_t api_node_port(const struct node *n)
{
	if (node_is_switch(n))
		return 0;
	for (uint8_t pn = 1; pn <= n->nports; pn++)
		if (port_is_linked(&n->ports[pn]) && n->ports[pn].lid)
			return pn;
	for (uint8_t pn = 1; pn <= n->nports; pn++)
		if (n->ports[pn].lid)
			return pn;
	return n->nports ? 1 : 0;
}

static uint16_t api_node_lid(const struct node *n)
{
	return n->ports[api_node_port(n)].lid;
}

/* The LID of a port: a switch's ports answer to port 0's LID. */
static uint16_t api_port_lid(const struct node *n, uint8_t pn)
{
	return node_is_switch(n) ? n->ports[0].lid : n->ports[pn].lid;
}

/* Reject members of args other than the names given (NULL-terminated). */
static int api_check_args(json_t *args, const char *const *names, struct ctl_error *err)
{
	const char *key;
	json_t *v;

	if (!args)
		return 0;
	json_object_foreach (args, key, v) {
		bool known = false;

		for (size_t i = 0; names && names[i]; i++)
			if (!strcmp(key, names[i]))
				known = true;
		if (!known)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "unknown argument '%.64s'",
					     key);
	}
	return 0;
}

static int api_need_fabric(const struct api *api, struct ctl_error *err)
{
	if (!api->sm->fabric || !api->sm->routes)
		return ctl_error_set(err, CTL_ERR_NOT_READY,
				     "no fabric discovered yet: wait for the first sweep");
	return 0;
}

/* ---- identifiers ------------------------------------------------------ */

/* (node, port) owning a LID, LMC ranges included.  false when none. */
static bool api_find_lid(const struct fabric *f, unsigned lid, uint32_t *ret_node,
			 uint8_t *ret_port)
{
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = node_first_lid_port(n); pn <= node_last_lid_port(n); pn++) {
			const struct port *p = &n->ports[pn];

			if (p->lid && lid >= p->lid && lid < p->lid + (1u << p->lmc)) {
				*ret_node = i;
				*ret_port = (uint8_t)pn;
				return true;
			}
		}
	}
	return false;
}

/* A node GUID (its representative port) or a port GUID. */
static bool api_find_guid(const struct fabric *f, uint64_t guid, uint32_t *ret_node,
			  uint8_t *ret_port)
{
	uint32_t ni = fabric_find_guid(f, guid);

	if (ni != FABRIC_NO_NODE) {
		*ret_node = ni;
		*ret_port = api_node_port(&f->nodes[ni]);
		return true;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = node_first_lid_port(n); pn <= node_last_lid_port(n); pn++) {
			if (n->ports[pn].guid == guid) {
				*ret_node = i;
				*ret_port = (uint8_t)pn;
				return true;
			}
		}
	}
	return false;
}

/*
 * Resolve an identifier (docs/protocol.md "Identifiers"): a JSON integer is
 * a LID; a string "0x" with more than 4 hex digits is a GUID; a string number
 * up to 0xBFFF is a LID; anything else a node description (exact match).
 * Returns 0 or -EINVAL with err (bad_argument / not_found).
 */
static int api_resolve(const struct fabric *f, json_t *v, const char *what, uint32_t *ret_node,
		       uint8_t *ret_port, struct ctl_error *err)
{
	const char *s;
	char *end;
	unsigned long long num;
	uint32_t match = FABRIC_NO_NODE;

	if (json_is_integer(v)) {
		json_int_t lid = json_integer_value(v);

		if (lid < 1 || lid > FABRIC_MAX_UCAST_LID)
			return ctl_error_set(
			    err, CTL_ERR_BAD_ARGUMENT,
			    "%s: LID %" JSON_INTEGER_FORMAT " is not a unicast LID", what, lid);
		if (!api_find_lid(f, (unsigned)lid, ret_node, ret_port))
			return ctl_error_set(err, CTL_ERR_NOT_FOUND,
					     "%s: no port has LID %" JSON_INTEGER_FORMAT, what,
					     lid);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "%s must be a GUID, a LID or a node description", what);
	s = json_string_value(v);
	errno = 0;
	num = strtoull(s, &end, 0);
	if (!errno && end != s && !*end && s[0] != '-' && s[0] != '+' && s[0] != ' ') {
		bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

		if (hex && strlen(s) > 6) {
			if (!api_find_guid(f, num, ret_node, ret_port))
				return ctl_error_set(err, CTL_ERR_NOT_FOUND,
						     "%s: no node or port has GUID %s", what, s);
			return 0;
		}
		if (num >= 1 && num <= FABRIC_MAX_UCAST_LID) {
			if (!api_find_lid(f, (unsigned)num, ret_node, ret_port))
				return ctl_error_set(err, CTL_ERR_NOT_FOUND,
						     "%s: no port has LID %llu", what, num);
			return 0;
		}
		/* a number that is neither: maybe a description made of digits */
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		if (strcmp(f->nodes[i].desc, s))
			continue;
		if (match != FABRIC_NO_NODE)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "%s: more than one node is called \"%.64s\": use a "
					     "GUID or a LID",
					     what, s);
		match = i;
	}
	if (match == FABRIC_NO_NODE)
		return ctl_error_set(err, CTL_ERR_NOT_FOUND,
				     "%s: no node, port or LID matches \"%.64s\"", what, s);
	*ret_node = match;
	*ret_port = api_node_port(&f->nodes[match]);
	return 0;
}

/* ---- JSON views of the model ------------------------------------------ */

static json_t *api_node_json(const struct node *n)
{
	char path[FABRIC_DR_MAX_HOPS * 4 + 4];
	size_t off;

	off = (size_t)snprintf(path, sizeof(path), "0");
	for (unsigned h = 1; h <= n->dr_hops && off < sizeof(path); h++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, ",%u", n->dr_path[h]);
	return json_pack("{s:o, s:s, s:s, s:i, s:i, s:s, s:i, s:i}", "guid", api_guid(n->guid),
			 "type", node_type_str(n->type), "desc", n->desc, "ports", n->nports, "lid",
			 api_node_lid(n), "dr_path", path, "vendor_id", (int)n->vendor_id,
			 "device_id", (int)n->device_id);
}

static json_t *api_port_json(const struct fabric *f, const struct node *n, uint8_t pn)
{
	const struct port *p = &n->ports[pn];
	json_t *o;

	o = json_pack(
	    "{s:o, s:s, s:i, s:o, s:i, s:i, s:s, s:s, s:s, s:s, s:i}", "node_guid",
	    api_guid(n->guid), "node_desc", n->desc, "port", pn, "port_guid", api_guid(p->guid),
	    "lid", api_port_lid(n, pn), "lmc", node_is_switch(n) ? n->ports[0].lmc : p->lmc,
	    "state", api_port_state_str(p->state), "phys_state", api_phys_str(p->phys_state),
	    "width", fabric_width_str(p->width_active) ?: "?", "speed",
	    fabric_speed_str(p->speed_active) ?: "?", "mtu", api_mtu_bytes(p->neighbor_mtu));
	if (o && port_is_linked(p) && p->remote_node < f->n_nodes) {
		const struct node *r = &f->nodes[p->remote_node];

		json_object_set_new(o, "peer_guid", api_guid(r->guid));
		json_object_set_new(o, "peer_port", json_integer(p->remote_port));
		json_object_set_new(o, "peer_desc", json_string(r->desc));
	}
	return o;
}

static json_t *api_ports_of(const struct fabric *f, const struct node *n)
{
	json_t *a = json_array();

	for (unsigned pn = 1; a && pn <= n->nports; pn++)
		json_array_append_new(a, api_port_json(f, n, (uint8_t)pn));
	return a;
}

/* Whether (a, pa) is the end a link is reported from (once per link). */
static bool api_link_first_end(const struct fabric *f, uint32_t a, uint8_t pa)
{
	const struct port *p = &f->nodes[a].ports[pa];

	return a < p->remote_node || (a == p->remote_node && pa < p->remote_port);
}

static json_t *api_nodes_json(const struct fabric *f)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < f->n_nodes; i++)
		json_array_append_new(a, api_node_json(&f->nodes[i]));
	return a;
}

static json_t *api_links_json(const struct fabric *f)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];
			const struct node *r;
			const struct port *rp;

			if (!port_is_linked(p) || p->remote_node >= f->n_nodes ||
			    !api_link_first_end(f, i, (uint8_t)pn))
				continue;
			r = &f->nodes[p->remote_node];
			rp = &r->ports[p->remote_port];
			json_array_append_new(
			    a,
			    json_pack(
				"{s:o, s:s, s:i, s:o, s:s, s:i, s:s, s:s, s:s}", "a_guid",
				api_guid(n->guid), "a_desc", n->desc, "a_port", pn, "b_guid",
				api_guid(r->guid), "b_desc", r->desc, "b_port", p->remote_port,
				"width", fabric_width_str(p->width_active) ?: "?", "speed",
				fabric_speed_str(p->speed_active) ?: "?", "state",
				api_port_state_str(p->state < rp->state ? p->state : rp->state)));
		}
	}
	return a;
}

/* ---- read commands ---------------------------------------------------- */

static json_t *api_mad_json(const struct api *api)
{
	struct xact_stats xs = {0};

	if (api->sm->xe)
		xact_get_stats(api->sm->xe, &xs);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "sent", (json_int_t)xs.sent,
			 "received", (json_int_t)xs.received, "timeouts", (json_int_t)xs.timeouts,
			 "retries", (json_int_t)xs.retries, "errors",
			 (json_int_t)(xs.remote_errors + xs.send_errors), "unmatched",
			 (json_int_t)xs.unmatched, "malformed",
			 (json_int_t)(xs.malformed + api->sm->mad_malformed), "outstanding",
			 (int)xs.outstanding);
}

static int api_status(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		      struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm *sm = api->sm;
	const struct fabric *f = sm->fabric;
	const struct sweep_summary *s = &sm->last;
	uint16_t sm_lid = 0;
	uint32_t switches = 0, nodes = 0;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	if (f && f->sm_node < f->n_nodes)
		sm_lid = f->nodes[f->sm_node].ports[f->sm_port].lid;
	if (f) {
		nodes = f->n_nodes;
		switches = fabric_count(f, NODE_SWITCH);
	}
	*ret = json_pack(
	    "{s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:s, s:I, s:I,"
	    " s:s, s:s, s:I, s:I, s:o, s:I}",
	    "state", api_state_str(sm->state), "subnet_up", sm->subnet_up, "nodes", (int)nodes,
	    "switches", (int)switches, "cas", (int)(nodes - switches), "ports_active",
	    (int)s->ports_active, "links", (int)s->links, "lids", (int)s->lids, "sm_lid", sm_lid,
	    "sm_guid", api_guid(sm->port_guid), "priority", sm->opts.priority, "routing_engine",
	    s->engine[0] ? s->engine : sm->opts.routing, "sweeps", (json_int_t)sm->sweeps,
	    "last_sweep_ms", (json_int_t)(s->ms + 0.5), "last_sweep_status",
	    sm->sweeps ? (s->status ? "failed" : "ok") : "none", "last_sweep_reason", s->reason,
	    "generation", (json_int_t)(f ? f->generation : 0), "uptime_s",
	    (json_int_t)api_uptime(api), "mad", api_mad_json(api), "traps", (json_int_t)sm->traps);
	if (*ret)
		json_object_set_new(*ret, "light_sweeps",
				    json_integer((json_int_t)sm->light_sweeps));
	return *ret ? 0 : -ENOMEM;
}

static int api_nodes(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		     struct ctl_error *err)
{
	struct api *api = ctx;

	if (api_check_args(args, NULL, err) || api_need_fabric(api, err))
		return -EINVAL;
	*ret = api_nodes_json(api->sm->fabric);
	return *ret ? 0 : -ENOMEM;
}

static int api_ports(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		     struct ctl_error *err)
{
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	json_t *a;

	if (api_check_args(args, NULL, err) || api_need_fabric(api, err))
		return -EINVAL;
	a = json_array();
	for (uint32_t i = 0; a && i < f->n_nodes; i++)
		for (unsigned pn = 1; pn <= f->nodes[i].nports; pn++)
			json_array_append_new(a, api_port_json(f, &f->nodes[i], (uint8_t)pn));
	*ret = a;
	return a ? 0 : -ENOMEM;
}

static int api_links(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		     struct ctl_error *err)
{
	struct api *api = ctx;

	if (api_check_args(args, NULL, err) || api_need_fabric(api, err))
		return -EINVAL;
	*ret = api_links_json(api->sm->fabric);
	return *ret ? 0 : -ENOMEM;
}

static int api_lids(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		    struct ctl_error *err)
{
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	json_t *a;

	if (api_check_args(args, NULL, err) || api_need_fabric(api, err))
		return -EINVAL;
	a = json_array();
	for (uint32_t i = 0; a && i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = node_first_lid_port(n); pn <= node_last_lid_port(n); pn++) {
			const struct port *p = &n->ports[pn];

			if (!p->lid)
				continue;
			json_array_append_new(
			    a, json_pack("{s:i, s:i, s:o, s:o, s:s, s:i}", "lid", p->lid, "lmc",
					 p->lmc, "port_guid", api_guid(p->guid), "node_guid",
					 api_guid(n->guid), "desc", n->desc, "port", pn));
		}
	}
	*ret = a;
	return a ? 0 : -ENOMEM;
}

static int api_node(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		    struct ctl_error *err)
{
	static const char *const names[] = {"id", NULL};
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	uint32_t ni;
	uint8_t pn;
	json_t *o;

	if (api_check_args(args, names, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (!json_object_get(args, "id"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "missing \"id\" (GUID, LID or "
				     "node description)");
	if (api_resolve(f, json_object_get(args, "id"), "id", &ni, &pn, err))
		return -EINVAL;
	o = api_node_json(&f->nodes[ni]);
	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "ports", api_ports_of(f, &f->nodes[ni]));
	json_object_set_new(o, "nports", json_integer(f->nodes[ni].nports));
	*ret = o;
	return 0;
}

/*
 * Follow the LFTs from src to dst.  A CA source enters the fabric at the
 * switch its port is linked to; each switch forwards per lft[dlid]; the walk
 * ends at the destination port, at a dead end, or after API_ROUTE_MAX_HOPS.
 */
static int api_route(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		     struct ctl_error *err)
{
	static const char *const names[] = {"src", "dst", NULL};
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	const struct routes *r = api->sm->routes;
	const char *why = NULL;
	uint32_t sn, dn, cur;
	uint8_t sp, dp, in_port;
	uint16_t slid, dlid;
	bool complete = false;
	json_t *hops, *o;

	if (api_check_args(args, names, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (!json_object_get(args, "src") || !json_object_get(args, "dst"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "route needs \"src\" and \"dst\" (GUID, LID or description)");
	if (api_resolve(f, json_object_get(args, "src"), "src", &sn, &sp, err) ||
	    api_resolve(f, json_object_get(args, "dst"), "dst", &dn, &dp, err))
		return -EINVAL;
	slid = api_port_lid(&f->nodes[sn], sp);
	dlid = api_port_lid(&f->nodes[dn], dp);
	/* a LID given inside an LMC range routes to that LID */
	if (json_is_integer(json_object_get(args, "dst")))
		dlid = (uint16_t)json_integer_value(json_object_get(args, "dst"));
	hops = json_array();
	if (!hops)
		return -ENOMEM;
	if (!dlid) {
		why = "the destination has no LID";
		goto out;
	}
	if (sn == dn && (sp == dp || node_is_switch(&f->nodes[sn]))) {
		complete = true;
		goto out;
	}
	if (node_is_switch(&f->nodes[sn])) {
		cur = sn;
		in_port = 0;
	} else {
		const struct port *p = &f->nodes[sn].ports[sp];

		if (!port_is_linked(p) || p->remote_node >= f->n_nodes) {
			why = "the source port is not linked";
			goto out;
		}
		cur = p->remote_node;
		in_port = p->remote_port;
		if (cur == dn && in_port == dp) {
			complete = true; /* back to back */
			goto out;
		}
		if (!node_is_switch(&f->nodes[cur])) {
			why = "the source's neighbour is not a switch";
			goto out;
		}
	}
	for (unsigned h = 0;; h++) {
		const struct node *n = &f->nodes[cur];
		const struct port *op;
		uint8_t out;

		if (h >= API_ROUTE_MAX_HOPS) {
			why = "loop: the path is longer than 64 hops";
			goto out;
		}
		out = cur < r->n_nodes && r->lft[cur] && dlid <= r->max_lid ? r->lft[cur][dlid]
									    : LFT_NO_PORT;
		json_array_append_new(hops, json_pack("{s:o, s:s, s:i, s:i, s:i}", "guid",
						      api_guid(n->guid), "desc", n->desc, "lid",
						      n->ports[0].lid, "in_port", in_port,
						      "out_port", out == LFT_NO_PORT ? -1 : out));
		if (out == LFT_NO_PORT || out > n->nports) {
			why = "no route: the switch has no LFT entry for the destination";
			goto out;
		}
		if (out == 0) {
			if (cur == dn)
				complete = true;
			else
				why = "no route: the LFT delivers to port 0 of the wrong switch";
			goto out;
		}
		op = &n->ports[out];
		if (!port_is_linked(op) || op->remote_node >= f->n_nodes) {
			why = "no route: the LFT points at a port with no link";
			goto out;
		}
		if (!node_is_switch(&f->nodes[op->remote_node])) {
			if (op->remote_node != dn)
				why = "no route: the LFT delivers to the wrong end node";
			complete = op->remote_node == dn;
			goto out;
		}
		in_port = op->remote_port;
		cur = op->remote_node;
	}
out:
	o = json_pack("{s:i, s:i, s:o, s:s, s:i, s:o, s:s, s:i, s:o, s:b, s:i}", "src_lid", slid,
		      "dst_lid", dlid, "src_guid", api_guid(f->nodes[sn].guid), "src_desc",
		      f->nodes[sn].desc, "src_port", sp, "dst_guid", api_guid(f->nodes[dn].guid),
		      "dst_desc", f->nodes[dn].desc, "dst_port", dp, "hops", hops, "complete",
		      complete, "switches", (int)json_array_size(hops));
	if (!o)
		return -ENOMEM;
	if (why)
		json_object_set_new(o, "reason", json_string(why));
	*ret = o;
	return 0;
}

/* ---- topology --------------------------------------------------------- */

struct api_buf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void api_printf(struct api_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void api_printf(struct api_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if (b->s && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 65536;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->failed = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
}

/* ibnetdiscover's node name: "S-<guid>", "H-<guid>" or "R-<guid>", quoted. */
static void api_ibnd_name(const struct node *n, char *buf, size_t len)
{
	snprintf(buf, len, "\"%s-%016" PRIx64 "\"",
		 n->type == NODE_SWITCH	  ? "S"
		 : n->type == NODE_ROUTER ? "R"
					  : "H",
		 n->guid);
}

static void api_ibnd_ids(struct api_buf *b, const struct node *n)
{
	api_printf(b, "vendid=0x%x\ndevid=0x%x\n", n->vendor_id, n->device_id);
	if (n->sys_guid)
		api_printf(b, "sysimgguid=0x%" PRIx64 "\n", n->sys_guid);
}

/* The ibnetdiscover(8) topology format, as close as the model allows. */
static char *api_topo_ibnd(const struct fabric *f)
{
	struct api_buf b = {0};
	const struct node *smn = f->sm_node < f->n_nodes ? &f->nodes[f->sm_node] : NULL;
	char name[32], rname[32], date[64];
	time_t now = time(NULL);
	struct tm tm;

	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", localtime_r(&now, &tm));
	api_printf(&b, "#\n# Topology file: generated on %s\n#\n", date);
	if (smn)
		api_printf(&b, "# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n",
			   smn->guid, smn->ports[f->sm_port].guid);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < f->n_nodes; i++) {
			const struct node *n = &f->nodes[i];

			if ((pass == 0) != node_is_switch(n))
				continue;
			api_ibnd_name(n, name, sizeof(name));
			api_printf(&b, "\n");
			api_ibnd_ids(&b, n);
			if (node_is_switch(n)) {
				api_printf(&b, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->guid,
					   n->ports[0].guid);
				api_printf(&b,
					   "Switch\t%u %s\t\t# \"%s\" %s port 0 lid %u lmc %u\n",
					   n->nports, name, n->desc,
					   n->enhanced_port0 ? "enhanced" : "base", n->ports[0].lid,
					   n->ports[0].lmc);
			} else {
				api_printf(&b, "%sguid=0x%" PRIx64 "\n",
					   n->type == NODE_ROUTER ? "rt" : "ca", n->guid);
				api_printf(&b, "%s\t%u %s\t\t# \"%s\"\n",
					   n->type == NODE_ROUTER ? "Rt" : "Ca", n->nports, name,
					   n->desc);
			}
			for (unsigned pn = 1; pn <= n->nports; pn++) {
				const struct port *p = &n->ports[pn];
				const struct node *r;
				const struct port *rp;

				if (!port_is_linked(p) || p->remote_node >= f->n_nodes)
					continue;
				r = &f->nodes[p->remote_node];
				rp = &r->ports[p->remote_port];
				api_ibnd_name(r, rname, sizeof(rname));
				if (node_is_switch(n)) {
					api_printf(&b, "[%u]\t%s[%u]", pn, rname, p->remote_port);
					if (!node_is_switch(r))
						api_printf(&b, "(%" PRIx64 ") ", rp->guid);
					api_printf(&b, "\t\t# \"%s\" lid %u %s%s\n", r->desc,
						   api_port_lid(r, p->remote_port),
						   fabric_width_str(p->width_active) ?: "?",
						   fabric_speed_str(p->speed_active) ?: "?");
				} else {
					api_printf(&b, "[%u](%" PRIx64 ") \t%s[%u]", pn, p->guid,
						   rname, p->remote_port);
					if (!node_is_switch(r))
						api_printf(&b, " (%" PRIx64 ") ", rp->guid);
					api_printf(&b, "\t\t# lid %u lmc %u \"%s\" lid %u %s%s\n",
						   p->lid, p->lmc, r->desc,
						   api_port_lid(r, p->remote_port),
						   fabric_width_str(p->width_active) ?: "?",
						   fabric_speed_str(p->speed_active) ?: "?");
				}
			}
		}
	}
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* A Graphviz graph: switches as boxes, CAs as ellipses, one edge per link. */
static char *api_topo_dot(const struct fabric *f)
{
	struct api_buf b = {0};

	api_printf(&b, "graph ibfabric {\n\tnode [fontsize=10];\n");
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		char label[160];

		/* descriptions come from the fabric: keep them out of the quoting */
		size_t k = 0;
		for (const char *s = n->desc; *s && k < sizeof(label) - 1; s++)
			label[k++] =
			    (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '_' : *s;
		label[k] = '\0';
		api_printf(&b, "\t\"%016" PRIx64 "\" [shape=%s, label=\"%s\\nlid %u\"];\n", n->guid,
			   node_is_switch(n) ? "box" : "ellipse", label, api_node_lid(n));
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];

			if (!port_is_linked(p) || p->remote_node >= f->n_nodes ||
			    !api_link_first_end(f, i, (uint8_t)pn))
				continue;
			api_printf(&b,
				   "\t\"%016" PRIx64 "\" -- \"%016" PRIx64
				   "\" [taillabel=\"%u\", headlabel=\"%u\"%s];\n",
				   n->guid, f->nodes[p->remote_node].guid, pn, p->remote_port,
				   p->state == PORT_ACTIVE ? "" : ", style=dashed");
		}
	}
	api_printf(&b, "}\n");
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static int api_topology(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
			struct ctl_error *err)
{
	static const char *const names[] = {"format", NULL};
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	json_t *jfmt = json_object_get(args, "format");
	const char *fmt = "json";
	char *text;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jfmt && !json_is_string(jfmt))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "format must be \"json\", \"ibnetdiscover\" or \"dot\"");
	if (jfmt)
		fmt = json_string_value(jfmt);
	if (strcmp(fmt, "json") && strcmp(fmt, "ibnetdiscover") && strcmp(fmt, "dot"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "unknown format '%.32s': json, ibnetdiscover or dot", fmt);
	if (api_need_fabric(api, err))
		return -EINVAL;
	if (!strcmp(fmt, "json")) {
		*ret = json_pack("{s:I, s:o, s:o}", "generation", (json_int_t)f->generation,
				 "nodes", api_nodes_json(f), "links", api_links_json(f));
		return *ret ? 0 : -ENOMEM;
	}
	text = !strcmp(fmt, "dot") ? api_topo_dot(f) : api_topo_ibnd(f);
	if (!text)
		return -ENOMEM;
	*ret = json_string(text);
	free(text);
	if (!*ret)
		return ctl_error_set(err, CTL_ERR_INTERNAL,
				     "the topology text is not valid UTF-8 (node descriptions?)");
	return 0;
}

/* ---- metrics ---------------------------------------------------------- */

static void api_metric(struct api_buf *b, const char *name, const char *type, const char *help,
		       double v)
{
	api_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type, name, v);
}

static int api_metrics(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		       struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm *sm = api->sm;
	const struct fabric *f = sm->fabric;
	struct xact_stats xs = {0};
	struct madio_stats ms = {0};
	struct ctl_stats cs;
	struct api_buf b = {0};
	uint32_t sw = f ? fabric_count(f, NODE_SWITCH) : 0;
	uint32_t nodes = f ? f->n_nodes : 0;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	if (sm->xe)
		xact_get_stats(sm->xe, &xs);
	if (sm->io)
		madio_get_stats(sm->io, &ms);
	ctl_server_stats(api->srv, &cs);

	api_printf(&b, "# HELP ibsmd_state SM state (1 for the current one).\n"
		       "# TYPE ibsmd_state gauge\n");
	for (int s = SM_NOTACTIVE; s <= SM_MASTER; s++)
		api_printf(&b, "ibsmd_state{state=\"%s\"} %d\n", api_state_str(s),
			   sm->state == (enum sm_state)s);
	api_metric(&b, "ibsmd_subnet_up", "gauge",
		   "1 when the last heavy sweep brought every port up.", sm->subnet_up);
	api_metric(&b, "ibsmd_sweeps_total", "counter", "Heavy sweeps done.", (double)sm->sweeps);
	api_metric(&b, "ibsmd_light_sweeps_total", "counter",
		   "Light sweeps (SwitchInfo polls) done.", (double)sm->light_sweeps);
	api_metric(&b, "ibsmd_last_sweep_seconds", "gauge", "Duration of the last heavy sweep.",
		   sm->last.ms / 1e3);
	api_metric(&b, "ibsmd_last_sweep_ok", "gauge", "1 when the last heavy sweep succeeded.",
		   sm->sweeps && sm->last.status == 0);
	api_metric(&b, "ibsmd_generation", "gauge", "Generation of the published fabric snapshot.",
		   f ? (double)f->generation : 0);
	api_printf(&b,
		   "# HELP ibsmd_nodes Nodes in the current snapshot, by type.\n"
		   "# TYPE ibsmd_nodes gauge\n"
		   "ibsmd_nodes{type=\"switch\"} %u\nibsmd_nodes{type=\"ca\"} %u\n",
		   sw, nodes - sw);
	api_metric(&b, "ibsmd_links", "gauge", "Links between two ports.", sm->last.links);
	api_metric(&b, "ibsmd_ports_active", "gauge", "Linked ports in state ACTIVE.",
		   sm->last.ports_active);
	api_metric(&b, "ibsmd_lids", "gauge", "LIDs assigned.", sm->last.lids);
	api_metric(&b, "ibsmd_sm_priority", "gauge", "Our SM priority.", sm->opts.priority);
	api_metric(&b, "ibsmd_mads_sent_total", "counter", "SMPs sent, retries included.",
		   (double)xs.sent);
	api_metric(&b, "ibsmd_mads_received_total", "counter", "SMP responses received.",
		   (double)xs.received);
	api_metric(&b, "ibsmd_mad_timeouts_total", "counter",
		   "SMP transactions that failed after every retry.", (double)xs.timeouts);
	api_metric(&b, "ibsmd_mad_retries_total", "counter", "SMP retries.", (double)xs.retries);
	api_metric(&b, "ibsmd_mad_errors_total", "counter",
		   "SMPs answered with an error status or that could not be sent.",
		   (double)(xs.remote_errors + xs.send_errors));
	api_metric(&b, "ibsmd_mad_unmatched_total", "counter",
		   "Responses that matched no outstanding request.", (double)xs.unmatched);
	api_metric(&b, "ibsmd_mad_malformed_total", "counter", "Malformed MADs dropped.",
		   (double)(xs.malformed + sm->mad_malformed));
	api_metric(&b, "ibsmd_mads_outstanding", "gauge", "SMPs in flight now.", xs.outstanding);
	api_metric(&b, "ibsmd_umad_received_total", "counter", "MADs read from the umad port.",
		   (double)ms.received);
	api_metric(&b, "ibsmd_umad_dropped_total", "counter",
		   "MADs dropped between the receiver thread and the loop.", (double)ms.dropped);
	api_metric(&b, "ibsmd_traps_total", "counter", "Traps received.", (double)sm->traps);
	api_metric(&b, "ibsmd_ctl_requests_total", "counter", "Control socket requests.",
		   (double)cs.requests);
	api_metric(&b, "ibsmd_ctl_errors_total", "counter", "Control socket error replies.",
		   (double)cs.errors);
	api_metric(&b, "ibsmd_ctl_clients_dropped_total", "counter",
		   "Control clients dropped (too large, too slow).", (double)cs.clients_dropped);
	api_metric(&b, "ibsmd_ctl_clients", "gauge", "Control clients connected.", cs.clients);
	api_metric(&b, "ibsmd_ctl_subscribers", "gauge", "Clients subscribed to events.",
		   cs.subscribers);
	api_metric(&b, "ibsmd_events_total", "counter", "Fabric events published.",
		   (double)cs.events);
	api_metric(&b, "ibsmd_uptime_seconds", "gauge", "Seconds since the daemon started.",
		   api_uptime(api));
	if (b.failed) {
		free(b.s);
		return -ENOMEM;
	}
	*ret = json_string(b.s);
	free(b.s);
	return *ret ? 0 : -ENOMEM;
}

static int api_config(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		      struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm_conf live = api->conf;
	int lvl = log_get_level(LOG_CAT_SWEEP);

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	/* what can change at run time (smctl priority, SIGHUP) lives in sm->opts */
	live.sm_priority = api->sm->opts.priority;
	live.sweep_interval = (int)api->sm->opts.sweep_interval;
	live.mad_timeout_ms = (int)api->sm->opts.timeout_ms;
	live.mad_retries = (int)api->sm->opts.retries;
	snprintf(live.routing_engine, sizeof(live.routing_engine), "%s", api->sm->opts.routing);
	snprintf(live.routing_chain, sizeof(live.routing_chain), "%.*s",
		 (int)sizeof(live.routing_chain) - 1, api->sm->opts.routing_chain);
	if (lvl == LOG_ERR || lvl == LOG_WARNING || lvl == LOG_INFO || lvl == LOG_DEBUG)
		live.log_level = lvl;
	*ret = conf_to_json(&live);
	return *ret ? 0 : -ENOMEM;
}

static int api_events(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		      struct ctl_error *err)
{
	if (api_check_args(args, NULL, err))
		return -EINVAL;
	ctl_client_subscribe(c);
	return 0;
}

/* ---- admin commands --------------------------------------------------- */

static json_t *api_sweep_json(const struct sm *sm)
{
	const struct sweep_summary *s = &sm->last;

	return json_pack("{s:s, s:s, s:b, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:f,"
			 " s:i, s:i, s:i, s:i, s:s}",
			 "status", s->status ? "failed" : "ok", "reason", s->reason, "subnet_up",
			 sm->subnet_up, "sweeps", (json_int_t)sm->sweeps, "generation",
			 (json_int_t)(sm->fabric ? sm->fabric->generation : 0), "nodes",
			 (int)s->nodes, "switches", (int)s->switches, "cas", (int)s->cas, "links",
			 (int)s->links, "ports_active", (int)s->ports_active, "lids", (int)s->lids,
			 "ms", s->ms, "discover_ms", s->discover_ms, "route_ms", s->route_ms,
			 "sets", (int)s->sets, "set_errors", (int)s->set_errors, "lft_blocks",
			 (int)s->lft_blocks, "timeouts", (int)s->timeouts, "engine", s->engine);
}

static int api_waiter_add(struct api *api, uint64_t client_id, uint64_t target)
{
	if (api->n_waiters == api->cap_waiters) {
		size_t cap = api->cap_waiters ? api->cap_waiters * 2 : 8;
		struct api_waiter *w = realloc(api->waiters, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		api->waiters = w;
		api->cap_waiters = cap;
	}
	api->waiters[api->n_waiters++] = (struct api_waiter){client_id, target};
	return 0;
}

static int api_do_sweep(struct api *api, struct ctl_client *c, json_t *args, json_t **ret,
			struct ctl_error *err, bool reroute)
{
	static const char *const names[] = {"wait", NULL};
	struct sm *sm = api->sm;
	json_t *jwait = json_object_get(args, "wait");
	/* a sweep already running saw the fabric before the order: wait for the next */
	uint64_t target = sm->sweeps + (sm->cur && !api->in_publish ? 2 : 1);
	int r;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jwait && !json_is_boolean(jwait))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "wait must be true or false");
	if (sm->state == SM_STANDBY)
		return ctl_error_set(err, CTL_ERR_NOT_READY,
				     "this SM is STANDBY: sweep on the master");
	if ((!jwait || json_is_true(jwait)) && api_waiter_add(api, ctl_client_id(c), target) < 0)
		return -ENOMEM;
	if (reroute)
		sm->force_lft = true;
	r = sweep_start_why(sm, reroute ? "reroute over the control socket"
					: "sweep over the control socket");
	if (r < 0) {
		if (!jwait || json_is_true(jwait))
			api->n_waiters--;
		return ctl_error_set(err, CTL_ERR_INTERNAL, "cannot start a sweep: %s",
				     strerror(-r));
	}
	log_info("%s requested over the control socket (pid %d uid %u)",
		 reroute ? "reroute" : "heavy sweep", (int)ctl_client_pid(c),
		 (unsigned)ctl_client_uid(c));
	if (jwait && json_is_false(jwait)) {
		*ret = json_pack("{s:b}", "queued", 1);
		return *ret ? 0 : -ENOMEM;
	}
	return CTL_DEFERRED;
}

static int api_sweep(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		     struct ctl_error *err)
{
	return api_do_sweep(ctx, c, args, ret, err, false);
}

static int api_reroute(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		       struct ctl_error *err)
{
	return api_do_sweep(ctx, c, args, ret, err, true);
}

/* A port disable/enable waiting for its Set to complete. */
struct api_port_wait {
	struct api *api;
	uint64_t client_id;
	uint64_t guid;
	uint8_t port;
	bool enable;
};

static void api_port_done(void *arg, int status)
{
	struct api_port_wait *w = arg;
	struct ctl_error e;

	if (status == -ECANCELED) {
		free(w);
		return;
	}
	if (status < 0) {
		ctl_error_set(&e, CTL_ERR_INTERNAL, "port 0x%016llx/%u: the Set failed: %s",
			      (unsigned long long)w->guid, w->port, strerror(-status));
		ctl_server_reply(w->api->srv, w->client_id, NULL, &e);
	} else {
		ctl_server_reply(w->api->srv, w->client_id,
				 json_pack("{s:o, s:i, s:s}", "node_guid", api_guid(w->guid),
					   "port", w->port, "state",
					   w->enable ? "enabled" : "disabled"),
				 NULL);
	}
	free(w);
}

/*
 * port {"action": "disable"|"enable", "node": ID, "port": N}: set the port's
 * PortPhysicalState to Disabled or Polling; the reply comes once the switch
 * has answered, and a sweep follows.
 */
static int api_port(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		    struct ctl_error *err)
{
	static const char *const names[] = {"action", "node", "port", NULL};
	struct api *api = ctx;
	const struct fabric *f = api->sm->fabric;
	const char *action = json_string_value(json_object_get(args, "action"));
	json_t *jport = json_object_get(args, "port");
	struct api_port_wait *w;
	uint32_t ni;
	uint8_t pn;
	bool enable;
	int r;

	if (api_check_args(args, names, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (!action || (strcmp(action, "disable") && strcmp(action, "enable")))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "action must be \"disable\" or \"enable\"");
	enable = !strcmp(action, "enable");
	if (!json_object_get(args, "node"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "missing \"node\" (GUID, LID or node description)");
	if (api_resolve(f, json_object_get(args, "node"), "node", &ni, &pn, err))
		return -EINVAL;
	if (!json_is_integer(jport) || json_integer_value(jport) < 1 ||
	    json_integer_value(jport) > f->nodes[ni].nports)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "port must be an integer from 1 to %u for \"%s\"",
				     f->nodes[ni].nports, f->nodes[ni].desc);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct api_port_wait){api, ctl_client_id(c), f->nodes[ni].guid,
				    (uint8_t)json_integer_value(jport), enable};
	r = sm_port_set_enabled(api->sm, w->guid, w->port, enable, api_port_done, w);
	if (r < 0) {
		free(w);
		if (r == -EPERM)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "port 0x%016llx/%u carries the SM's own link",
					     (unsigned long long)f->nodes[ni].guid,
					     (unsigned)json_integer_value(jport));
		if (r == -ENOENT)
			return ctl_error_set(
			    err, CTL_ERR_NOT_FOUND, "no route to port %u of \"%s\"",
			    (unsigned)json_integer_value(jport), f->nodes[ni].desc);
		return ctl_error_set(err, CTL_ERR_INTERNAL, "%s", strerror(-r));
	}
	log_info("port 0x%016llx/%u: %s requested (pid %d uid %u)", (unsigned long long)w->guid,
		 w->port, action, (int)ctl_client_pid(c), (unsigned)ctl_client_uid(c));
	(void)ret;
	(void)pn;
	return CTL_DEFERRED;
}

static int api_priority(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
			struct ctl_error *err)
{
	static const char *const names[] = {"priority", NULL};
	struct api *api = ctx;
	json_t *v = json_object_get(args, "priority");
	int prev = api->sm->opts.priority;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 15)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "priority must be an integer from 0 to 15");
	api->sm->opts.priority = (uint8_t)json_integer_value(v);
	log_info("SM priority %d -> %d (pid %d uid %u)", prev, api->sm->opts.priority,
		 (int)ctl_client_pid(c), (unsigned)ctl_client_uid(c));
	*ret = json_pack("{s:i, s:i}", "priority", api->sm->opts.priority, "previous", prev);
	return *ret ? 0 : -ENOMEM;
}

static int api_loglevel(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
			struct ctl_error *err)
{
	static const char *const names[] = {"category", "level", NULL};
	const char *cat_s = json_string_value(json_object_get(args, "category"));
	const char *lvl_s = json_string_value(json_object_get(args, "level"));
	int cat, lvl, prev;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (!cat_s)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "category must be sweep, mad, route, sa, ctl or all");
	if (!strcmp(cat_s, "all")) {
		cat = -1;
	} else {
		cat = log_cat_from_str(cat_s);
		if (cat < 0)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "unknown category '%.32s': sweep, mad, route, sa, "
					     "ctl or all",
					     cat_s);
	}
	lvl = lvl_s ? log_level_from_str(lvl_s) : -1;
	if (lvl != LOG_ERR && lvl != LOG_WARNING && lvl != LOG_INFO && lvl != LOG_DEBUG)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "level must be error, warning, info or debug");
	prev = log_get_level(cat < 0 ? LOG_CAT_SWEEP : cat);
	log_set_level(cat, lvl);
	log_info("log level of %s: %s -> %s (pid %d uid %u)", cat < 0 ? "all" : log_cat_str(cat),
		 log_level_str(prev), log_level_str(lvl), (int)ctl_client_pid(c),
		 (unsigned)ctl_client_uid(c));
	*ret = json_pack("{s:s, s:s, s:s}", "category", cat < 0 ? "all" : log_cat_str(cat), "level",
			 log_level_str(lvl), "previous", log_level_str(prev));
	return *ret ? 0 : -ENOMEM;
}

static const struct ctl_command api_commands[] = {
    {"status", false, "", api_status},
    {"nodes", false, "", api_nodes},
    {"ports", false, "", api_ports},
    {"links", false, "", api_links},
    {"lids", false, "", api_lids},
    {"node", false, "{\"id\": GUID|LID|description}", api_node},
    {"route", false, "{\"src\": ID, \"dst\": ID}", api_route},
    {"topology", false, "{\"format\": \"json|ibnetdiscover|dot\"}", api_topology},
    {"events", false, "", api_events},
    {"metrics", false, "", api_metrics},
    {"config", false, "", api_config},
    {"sweep", true, "{\"wait\": bool}", api_sweep},
    {"reroute", true, "{\"wait\": bool}", api_reroute},
    {"priority", true, "{\"priority\": 0..15}", api_priority},
    {"port", true, "{\"action\": \"disable|enable\", \"node\": ID, \"port\": N}", api_port},
    {"loglevel", true,
     "{\"category\": \"sweep|mad|route|sa|ctl|all\", \"level\": "
     "\"error|warning|info|debug\"}",
     api_loglevel},
    {NULL, false, NULL, NULL},
};

/* ---- events ----------------------------------------------------------- */

static void api_emit(struct api *api, json_t *ev, uint64_t generation)
{
	if (!ev)
		return;
	json_object_set_new(ev, "time", json_real(api_now_real()));
	json_object_set_new(ev, "generation", json_integer((json_int_t)generation));
	ctl_server_publish(api->srv, ev);
	json_decref(ev);
}

static void api_on_sweep_begin(void *arg, const char *why)
{
	struct api *api = arg;

	api_emit(api,
		 json_pack("{s:s, s:b, s:s}", "type", "sweep_start", "heavy", 1, "reason", why),
		 api->sm->fabric ? api->sm->fabric->generation : 0);
}

static void api_on_route_fallback(void *arg, const char *engine, const char *reason)
{
	struct api *api = arg;

	api_emit(api,
		 json_pack("{s:s, s:s, s:s}", "type", "routing_fallback", "engine", engine,
			   "reason", reason),
		 api->sm->fabric ? api->sm->fabric->generation : 0);
}

static json_t *api_port_event(const char *type, const struct node *n, uint8_t pn,
			      const struct port *p)
{
	return json_pack("{s:s, s:o, s:s, s:i, s:s}", "type", type, "guid", api_guid(n->guid),
			 "desc", n->desc, "port", pn, "state", api_port_state_str(p->state));
}

/* Links of a whose far end differs in b (gone, or now elsewhere): type each. */
static void api_diff_links(struct api *api, const struct fabric *a, const struct fabric *b,
			   const char *type, uint64_t gen)
{
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		const struct node *n = &a->nodes[i];
		uint32_t bi = fabric_find_guid(b, n->guid);

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];
			const struct node *r;
			bool same = false;

			if (!port_is_linked(p) || p->remote_node >= a->n_nodes ||
			    !api_link_first_end(a, i, (uint8_t)pn))
				continue;
			r = &a->nodes[p->remote_node];
			if (bi != FABRIC_NO_NODE && pn <= b->nodes[bi].nports) {
				const struct port *bp = &b->nodes[bi].ports[pn];

				same = port_is_linked(bp) && bp->remote_node < b->n_nodes &&
				       b->nodes[bp->remote_node].guid == r->guid &&
				       bp->remote_port == p->remote_port;
			}
			if (same)
				continue;
			api_emit(api,
				 json_pack("{s:s, s:o, s:s, s:i, s:o, s:s, s:i, s:s}", "type", type,
					   "guid", api_guid(n->guid), "desc", n->desc, "port", pn,
					   "peer_guid", api_guid(r->guid), "peer_desc", r->desc,
					   "peer_port", p->remote_port, "state",
					   !strcmp(type, "link_up") ? api_port_state_str(p->state)
								    : "DOWN"),
				 gen);
		}
	}
}

/* Nodes of a missing from b. */
static void api_diff_nodes(struct api *api, const struct fabric *a, const struct fabric *b,
			   const char *type, uint64_t gen)
{
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		const struct node *n = &a->nodes[i];

		if (fabric_find_guid(b, n->guid) != FABRIC_NO_NODE)
			continue;
		api_emit(api,
			 json_pack("{s:s, s:o, s:s, s:s, s:i}", "type", type, "guid",
				   api_guid(n->guid), "desc", n->desc, "node_type",
				   node_type_str(n->type), "lid", api_node_lid(n)),
			 gen);
	}
}

static void api_diff(struct api *api, const struct fabric *old_f, const struct fabric *f)
{
	uint64_t gen = f->generation;

	api_diff_nodes(api, old_f, f, "node_removed", gen);
	api_diff_nodes(api, f, old_f, "node_added", gen);
	api_diff_links(api, old_f, f, "link_down", gen);
	api_diff_links(api, f, old_f, "link_up", gen);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint32_t oi = fabric_find_guid(old_f, n->guid);
		const struct node *o;

		if (oi == FABRIC_NO_NODE)
			continue;
		o = &old_f->nodes[oi];
		for (unsigned pn = 0; pn <= n->nports && pn <= o->nports; pn++) {
			const struct port *p = &n->ports[pn], *op = &o->ports[pn];
			bool lid_port = pn >= node_first_lid_port(n) && pn <= node_last_lid_port(n);

			if (pn && op->state == PORT_ACTIVE && p->state != PORT_ACTIVE)
				api_emit(api, api_port_event("port_down", n, (uint8_t)pn, p), gen);
			else if (pn && op->state != PORT_ACTIVE && p->state == PORT_ACTIVE)
				api_emit(api, api_port_event("port_up", n, (uint8_t)pn, p), gen);
			if (lid_port && op->lid && p->lid && op->lid != p->lid)
				api_emit(api,
					 json_pack("{s:s, s:o, s:s, s:i, s:i, s:i}", "type",
						   "lid_changed", "guid", api_guid(n->guid), "desc",
						   n->desc, "port", pn, "lid", p->lid, "previous",
						   op->lid),
					 gen);
		}
	}
}

static void api_on_publish(void *arg, const struct fabric *old_f)
{
	struct api *api = arg;
	struct sm *sm = api->sm;
	const struct fabric *f = sm->fabric;
	uint64_t gen = f ? f->generation : 0;
	struct ctl_stats cs;
	struct api_waiter *w = api->waiters;
	size_t i, n = api->n_waiters;

	ctl_server_stats(api->srv, &cs);
	if (cs.subscribers) {
		if (old_f && f)
			api_diff(api, old_f, f);
		if (sm->state != api->last_state)
			api_emit(api,
				 json_pack("{s:s, s:s, s:s}", "type", "state", "state",
					   api_state_str(sm->state), "previous",
					   api_state_str(api->last_state)),
				 gen);
		if (sm->subnet_up && !api->last_subnet_up)
			api_emit(api,
				 json_pack("{s:s, s:i, s:i}", "type", "subnet_up", "nodes",
					   (int)sm->last.nodes, "ports_active",
					   (int)sm->last.ports_active),
				 gen);
		api_emit(api,
			 json_pack("{s:s, s:s, s:s, s:b, s:I, s:i, s:i, s:b}", "type", "sweep_end",
				   "status", sm->last.status ? "failed" : "ok", "reason",
				   sm->last.reason, "heavy", 1, "duration_ms",
				   (json_int_t)(sm->last.ms + 0.5), "nodes", (int)sm->last.nodes,
				   "sets", (int)sm->last.sets, "changed", sm->last.sets > 0),
			 gen);
	}
	api->last_state = sm->state;
	api->last_subnet_up = sm->subnet_up;

	/*
	 * A reply lets ctl run the client's next queued request at once, which
	 * may be another sweep: take the list out before answering.
	 */
	api->waiters = NULL;
	api->n_waiters = api->cap_waiters = 0;
	api->in_publish = true;
	for (i = 0; i < n; i++) {
		if (sm->sweeps < w[i].target &&
		    api_waiter_add(api, w[i].client_id, w[i].target) < 0) {
			struct ctl_error e = {CTL_ERR_INTERNAL, "out of memory"};

			ctl_server_reply(api->srv, w[i].client_id, NULL, &e);
		}
	}
	for (i = 0; i < n; i++)
		if (sm->sweeps >= w[i].target)
			ctl_server_reply(api->srv, w[i].client_id, api_sweep_json(sm), NULL);
	api->in_publish = false;
	free(w);
	if (api->prev_publish)
		api->prev_publish(api->prev_publish_arg, old_f);
}

/* ---- life cycle ------------------------------------------------------- */

/* mkdir -p of the directory holding path (0755). */
static int api_mkdir_parent(const char *path, char *err, size_t err_len)
{
	char dir[CONF_PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			snprintf(err, err_len, "cannot create %s for the control socket: %s", dir,
				 strerror(e));
			return -e;
		}
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

int api_start(struct sm *sm, const struct sm_conf *conf, struct api **ret, char *err,
	      size_t err_len)
{
	struct ctl_opts opts;
	struct api *api;
	char cerr[256] = "";
	int r;

	*ret = NULL;
	if (!conf->socket_path[0]) {
		snprintf(err, err_len, "no control socket path (socket_path)");
		return -EINVAL;
	}
	api = calloc(1, sizeof(*api));
	if (!api) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	api->sm = sm;
	api->conf = *conf;
	api->last_state = sm->state;
	api->last_subnet_up = sm->subnet_up;
	clock_gettime(CLOCK_MONOTONIC, &api->started);
	r = api_mkdir_parent(api->conf.socket_path, err, err_len);
	if (r < 0)
		goto err_free;
	ctl_opts_init(&opts);
	opts.path = api->conf.socket_path;
	opts.socket_group = api->conf.socket_group;
	opts.admin_group = api->conf.admin_group;
	api->srv = ctl_server_new(sm->base, &opts, api_commands, api, cerr, sizeof(cerr));
	if (!api->srv) {
		snprintf(err, err_len, "control socket %s: %s", api->conf.socket_path,
			 cerr[0] ? cerr : "cannot create it");
		r = -EINVAL;
		goto err_free;
	}
	api->prev_publish = sm->on_publish;
	api->prev_publish_arg = sm->on_publish_arg;
	sm->on_publish = api_on_publish;
	sm->on_publish_arg = api;
	sm->on_sweep_begin = api_on_sweep_begin;
	sm->on_route_fallback = api_on_route_fallback;
	log_msg(LOG_CAT_CTL, LOG_DEBUG, "control socket %s", api->conf.socket_path);
	*ret = api;
	return 0;
err_free:
	free(api);
	return r;
}

static void api_watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

void api_watchdog_start(struct api *api)
{
	uint64_t usec = 0;
	struct timeval tv;

	if (!api || api->watchdog)
		return;
	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return;
	usec /= 2;
	tv.tv_sec = (time_t)(usec / 1000000);
	tv.tv_usec = (suseconds_t)(usec % 1000000);
	api->watchdog = event_new(api->sm->base, -1, EV_PERSIST, api_watchdog_cb, api);
	if (!api->watchdog || event_add(api->watchdog, &tv) < 0) {
		log_warn("cannot arm the systemd watchdog timer: systemd may restart us");
		return;
	}
	sd_notify(0, "WATCHDOG=1");
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "systemd watchdog: WATCHDOG=1 every %llu ms",
		(unsigned long long)(usec / 1000));
}

void api_free(struct api *api)
{
	if (!api)
		return;
	if (api->sm->on_publish == api_on_publish && api->sm->on_publish_arg == api) {
		api->sm->on_publish = api->prev_publish;
		api->sm->on_publish_arg = api->prev_publish_arg;
	}
	if (api->sm->on_sweep_begin == api_on_sweep_begin)
		api->sm->on_sweep_begin = NULL;
	if (api->sm->on_route_fallback == api_on_route_fallback)
		api->sm->on_route_fallback = NULL;
	if (api->watchdog)
		event_free(api->watchdog);
	ctl_server_free(api->srv);
	free(api->waiters);
	free(api);
}

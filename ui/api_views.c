/*
 * The control API's read commands (docs/protocol.md): status, nodes, ports,
 * links, lids, node, route, topology, config, events.  JSON views of the
 * published snapshot; nothing here changes the SM.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/xact.h"
#include "lib/clock.h"
#include "fabric/diff.h"
#include "fabric/names.h"
#include "fabric/topo.h"
#include "lib/log.h"
#include "sa/sa.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "perf/health.h"
#include "validate/validate.h"
#include "sm/mfts.h"
#include "sm/vltables.h"
#include "sm/route.h"
#include "sm/status.h"
#include "sm/sweep.h"
#include "tenants/tenants.h"
#include "perf/perfmgr.h"
#include "failover/smstate.h"
#include "failover/sync.h"
#include "ui/api_int.h"
#include "ui/stat.h"

#define API_ROUTE_MAX_HOPS 64

/* ---- JSON views of the model ------------------------------------------ */

static json_t *api_node_json(const struct node *n)
{
	char path[FABRIC_DR_MAX_HOPS * 4 + 4];
	size_t off;

	off = (size_t)snprintf(path, sizeof(path), "0");
	for (unsigned h = 1; h <= n->dr_hops && off < sizeof(path); h++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, ",%u", n->dr_path[h]);
	return json_pack("{s:o, s:s, s:s, s:i, s:i, s:s, s:i, s:i}", "guid", api_guid(n->guid),
			 "type", names_node_type(n->type), "desc", n->desc, "ports", n->nports,
			 "lid", api_node_lid(n), "dr_path", path, "vendor_id", (int)n->vendor_id,
			 "device_id", (int)n->device_id);
}

static json_t *api_port_json(const struct fabric *f, const struct node *n, uint8_t pn)
{
	const struct port *p = &n->ports[pn];
	json_t *o;

	o = json_pack("{s:o, s:s, s:i, s:o, s:i, s:i, s:s, s:s, s:s, s:s, s:i}", "node_guid",
		      api_guid(n->guid), "node_desc", n->desc, "port", pn, "port_guid",
		      api_guid(p->guid), "lid", node_port_lid(n, pn), "lmc",
		      node_is_switch(n) ? n->ports[0].lmc : p->lmc, "state",
		      names_port_state(p->state), "phys_state", names_phys_state(p->phys_state),
		      "width", names_width(p->width_active) ?: "?", "speed",
		      api_port_speed(f, p, NULL), "mtu", names_mtu_bytes(p->neighbor_mtu));
	if (o)
		api_port_speed(f, p, o); /* rate_gbps, below_enabled */
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

/* Whether node n (index i) is one the listing asks for. */
static bool api_list_node(const struct api_list *l, const struct fabric *f, uint32_t i)
{
	const struct node *n = &f->nodes[i];

	if (l->type >= 0 && (int)n->type != l->type)
		return false;
	return l->node == UINT32_MAX || l->node == i;
}

static json_t *api_nodes_json(const struct fabric *f, struct api_list *l)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < f->n_nodes && !api_list_done(l); i++)
		if (api_list_node(l, f, i) && api_list_take(l))
			json_array_append_new(a, api_node_json(&f->nodes[i]));
	return a;
}

static json_t *api_links_json(const struct fabric *f, struct api_list *l)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < f->n_nodes && !api_list_done(l); i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports && !api_list_done(l); pn++) {
			const struct port *p = &n->ports[pn];
			const struct node *r;
			const struct port *rp;
			uint8_t state;
			json_t *o;

			if (!port_is_linked(p) || p->remote_node >= f->n_nodes ||
			    !diff_link_first_end(f, i, (uint8_t)pn))
				continue;
			r = &f->nodes[p->remote_node];
			rp = &r->ports[p->remote_port];
			state = p->state < rp->state ? p->state : rp->state;
			/* a link matches when either end does */
			if (!api_list_node(l, f, i) && !api_list_node(l, f, p->remote_node))
				continue;
			if (l->state >= 0 && state != l->state)
				continue;
			if (!api_list_take(l))
				continue;
			o = json_pack("{s:o, s:s, s:i, s:o, s:s, s:i, s:s, s:s, s:s}", "a_guid",
				      api_guid(n->guid), "a_desc", n->desc, "a_port", pn, "b_guid",
				      api_guid(r->guid), "b_desc", r->desc, "b_port",
				      p->remote_port, "width", names_width(p->width_active) ?: "?",
				      "speed", api_port_speed(f, p, NULL), "state",
				      names_port_state(state));
			if (o)
				api_port_speed(f, p, o); /* rate_gbps, below_enabled */
			json_array_append_new(a, o);
		}
	}
	return a;
}

/* ---- read commands ---------------------------------------------------- */

/* The other SMs this SM knows, as they last answered. */
static json_t *api_peers_json(const struct smstate_status *ss)
{
	json_t *a = json_array();
	double now = clock_mono_ms();

	for (unsigned i = 0; a && i < ss->n_peers; i++) {
		const struct smstate_peer *p = &ss->peers[i];
		json_t *o = json_pack(
		    "{s:o, s:i, s:i, s:s, s:s, s:b}", "guid", api_guid(p->guid), "lid", p->lid,
		    "priority", p->priority, "state", names_sm_state(p->state), "sm_key",
		    p->foreign_key ? "other" : "same", "reachable", !p->unreachable);

		if (o)
			json_object_set_new(
			    o, "last_contact_s",
			    p->last_contact_ms
				? json_real((double)(long)((now - p->last_contact_ms) / 100) / 10)
				: json_null());
		json_array_append_new(a, o);
	}
	return a;
}

/* State sync (failover/sync.h): null when it is not attached. */
static json_t *api_sync_json(const struct sm *sm)
{
	struct sync_status st;
	json_t *o, *peers;

	if (!sync_status_get(sm, &st))
		return json_null();
	o = stat_json(&sync_stat_table, &st);
	peers = json_array();
	for (unsigned i = 0; peers && i < st.n_peers; i++) {
		const struct sync_peer_status *p = &st.peers[i];

		json_array_append_new(
		    peers, json_pack("{s:s,s:o,s:I}", "address", p->address, "last_ok",
				     p->last_ok_wall ? json_real(p->last_ok_wall) : json_null(),
				     "errors", (json_int_t)p->errors));
	}
	if (!o) {
		json_decref(peers);
		return NULL;
	}
	json_object_set_new(o, "peers", peers ? peers : json_null());
	json_object_set_new(
	    o, "held",
	    st.held
		? json_pack("{s:I,s:o,s:f,s:f,s:s,s:I,s:I,s:I}", "generation",
			    (json_int_t)st.held_generation, "master", api_guid(st.held_master),
			    "time", st.held_time, "age_ms", st.held_age_ms, "peer", st.held_peer,
			    "groups", (json_int_t)st.held_groups, "services",
			    (json_int_t)st.held_services, "informs", (json_int_t)st.held_informs)
		: json_null());
	if (st.serving)
		json_object_set_new(o, "generation", json_integer((json_int_t)st.generation));
	json_object_set_new(o, "last_error",
			    st.last_error[0] ? json_string(st.last_error) : json_null());
	json_object_set_new(o, "last_error_time",
			    st.last_error_wall ? json_real(st.last_error_wall) : json_null());
	json_object_set_new(o, "last_takeover",
			    st.last_takeover[0] ? json_string(st.last_takeover) : json_null());
	return o;
}

/* The ports named by trap 256 or that refused us (the M_Key itself is never shown). */
static json_t *api_mkey_offenders_json(const struct sm *sm)
{
	const struct mkey_offenders *t = &sm->mkey.offenders;
	json_t *a = json_array();

	for (unsigned i = 0; a && i < t->n; i++) {
		const struct mkey_offender *o = &t->e[i];
		json_array_append_new(a, json_pack("{s:o, s:i, s:I, s:I}", "guid",
						   o->guid ? api_guid(o->guid) : json_null(), "lid",
						   (int)o->lid, "traps", (json_int_t)o->traps,
						   "refused", (json_int_t)o->refused));
	}
	return a;
}

/* The control socket: who is connected, who was refused or closed and why. */
static json_t *api_ctl_json(const struct api *api)
{
	struct ctl_stats cs = {0};

	if (api->srv)
		ctl_server_stats(api->srv, &cs);
	return json_pack(
	    "{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "clients", (int)cs.clients,
	    "subscribers", (int)cs.subscribers, "accepted", (json_int_t)cs.clients_accepted,
	    "rejected", (json_int_t)cs.clients_rejected, "rejected_uid",
	    (json_int_t)cs.rejected_uid, "rejected_reserved", (json_int_t)cs.rejected_reserved,
	    "dropped", (json_int_t)cs.clients_dropped, "request_timeouts",
	    (json_int_t)cs.request_timeouts, "idle_timeouts", (json_int_t)cs.idle_timeouts);
}

/* What was done with the traps received: {"sweep": N, "refused": N, ...}. */
static json_t *api_trap_actions_json(const struct sm *sm)
{
	json_t *o = json_object();

	for (int a = 0; o && a < TRAP_NACTIONS; a++)
		json_object_set_new(o, trap_action_name(a),
				    json_integer((json_int_t)sm->trap_actions[a]));
	return o;
}

/* The QoS policy and how it met the routing engine at the last configure batch. */
static json_t *api_qos_json(const struct sm *sm, const struct sweep_summary *s)
{
	const struct qos_policy *q = sm->policy.qos;
	json_t *sls = json_array();

	for (unsigned sl = 0; sls && sl < 16; sl++)
		if (sm->policy.qos_conflict_sls & (1u << sl))
			json_array_append_new(sls, json_integer(sl));
	return json_pack("{s:b, s:I, s:b, s:o, s:I, s:I, s:I}", "enabled", q && q->enabled,
			 "ulp_rules", (json_int_t)(q ? q->n_rules : 0), "ulp_default",
			 q && q->has_default, "engine_conflict_sls", sls ? sls : json_array(),
			 "engine_conflict_ports", (json_int_t)sm->policy.qos_conflict_ports,
			 "last_sweep_sl2vl_blocks", (json_int_t)s->sl2vl_blocks,
			 "last_sweep_vlarb_blocks", (json_int_t)s->vlarb_blocks);
}

/* The last heavy sweep's phases, ms (sweep.c's order), and inside ROUTE and PUBLISH. */
static json_t *api_phases_json(const struct sm *sm)
{
	const struct sweep_summary *s = &sm->last;
	const struct route_status *rs = route_status(sm);
	json_t *ph = json_object();

	for (unsigned i = 0; ph && i < SWEEP_N_PHASES; i++)
		json_object_set_new(ph, sweep_phase_names[i], json_real(s->phase_ms[i]));
	if (ph) {
		json_object_set_new(ph, "route_engine", json_real(rs->engine_ms));
		json_object_set_new(ph, "route_repair", json_real(rs->repair_ms));
		json_object_set_new(ph, "route_keep", json_real(rs->keep_ms));
		json_object_set_new(ph, "publish_hooks", json_real(s->publish_hooks_ms));
		json_object_set_new(ph, "publish_dumps", json_real(s->publish_dump_ms));
	}
	return ph;
}

/* What the last routing pass kept of the routes before, and what its repair did. */
static void api_route_json(const struct sm *sm, json_t *o)
{
	const struct route_status *rs = route_status(sm);
	const struct keep_stats *k = &rs->last_keep;
	const struct repair_stats *r = &rs->last_repair;

	json_object_set_new(o, "last_route_keep",
			    json_pack("{s:b, s:I, s:I, s:I, s:i, s:i, s:s}", "kept", k->kept,
				      "entries", (json_int_t)k->entries, "moved",
				      (json_int_t)k->moved, "fresh_moved",
				      (json_int_t)k->fresh_moved, "max_port", (int)k->max_port_kept,
				      "max_port_fresh", (int)k->max_port_fresh, "why", k->why));
	json_object_set_new(o, "last_route_repair",
			    json_pack("{s:b, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:s}", "repaired",
				      rs->last_repaired, "lids", (int)r->lids, "lids_local",
				      (int)r->lids_local, "lids_distance", (int)r->lids_distance,
				      "lids_gone", (int)r->lids_gone, "moved", (json_int_t)r->moved,
				      "max_port", (int)r->max_port, "max_port_before",
				      (int)r->max_port_before, "why",
				      rs->last_repaired ? "" : r->why));
	json_object_set_new(
	    o, "last_route_rebalance",
	    json_pack("{s:b, s:b, s:b, s:I, s:I, s:I, s:f}", "due", rs->rebalance_due, "running",
		      rs->rebalance_running, "rebalanced", rs->last_rebalanced, "runs",
		      (json_int_t)rs->rebalances, "taken", (json_int_t)rs->rebalances_taken,
		      "stale", (json_int_t)rs->rebalances_stale, "engine_ms",
		      rs->rebalance_engine_ms));
}

/*
 * status: the core's tables (sm/status.h), then every part's (the role,
 * state sync, the health policy, the performance manager, multicast), and
 * the lists no table holds (peers, M_Key offenders, trap actions, QoS).
 */
int api_status(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm *sm = api->sm;
	struct sm_status st;
	struct sm_mad_status mad;
	struct sm_mkey_status mk;
	struct sm_penf_status pe;
	struct sm_incremental_status inc;
	struct smstate_status ss;
	struct health_stats hs;
	struct validate_stats vs;
	struct mfts_status mc;
	struct vltables_status vt;
	struct tenants_status tn;
	json_t *o;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	sm_status_get(sm, &st);
	smstate_status_get(sm, &ss);
	if (sm->state == SM_STANDBY && sm->master_guid) {
		/* the master's, as it last answered */
		for (unsigned i = 0; i < ss.n_peers; i++)
			if (ss.peers[i].guid == sm->master_guid)
				st.sm_lid = ss.peers[i].lid;
		st.sm_guid = sm->master_guid;
	}
	sm_mad_status_get(sm, &mad);
	sm_mkey_status_get(sm, &mk);
	sm_penf_status_get(sm, &pe);
	sm_incremental_status_get(sm, &inc);
	health_get_stats(sm, &hs);
	validate_get_stats(sm, &vs);
	*ret = o = json_object();
	if (!o || stat_json_section(o, &sm_stat_table, &st) < 0 ||
	    stat_json_section(o, &sm_mad_stat_table, &mad) < 0 ||
	    stat_json_section(o, &sm_penf_stat_table, &pe) < 0 ||
	    stat_json_section(o, &sm_incremental_stat_table, &inc) < 0 ||
	    stat_json_section(o, &sm_mkey_stat_table, &mk) < 0 ||
	    stat_json_section(o, &smstate_stat_table, &ss) < 0 ||
	    stat_json_section(o, &health_stat_table, &hs) < 0 ||
	    stat_json_section(o, &validate_stat_table, &vs) < 0)
		goto nomem;
	json_object_set_new(o, "uptime_s", json_integer((json_int_t)api_uptime(api)));
	json_object_set_new(json_object_get(o, "mkey"), "offenders", api_mkey_offenders_json(sm));
	json_object_set_new(o, "qos", api_qos_json(sm, &sm->last));
	json_object_set_new(o, "state_reason", json_string(ss.why));
	json_object_set_new(o, "state_since", json_real(ss.since_wall));
	json_object_set_new(o, "peers", api_peers_json(&ss));
	json_object_set_new(o, "sync", api_sync_json(sm));
	json_object_set_new(o, "trap_actions", api_trap_actions_json(sm));
	json_object_set_new(o, "last_sweep_phases_ms", api_phases_json(sm));
	json_object_set_new(o, "ctl", api_ctl_json(api));
	api_route_json(sm, o);
	json_object_set_new(o, "perfmgr", api_perfmgr_json(sm));
	if (mfts_status_get(sm, &mc) && stat_json_section(o, &mfts_stat_table, &mc) < 0)
		goto nomem;
	if (vltables_status_get(sm, &vt) && stat_json_section(o, &vltables_stat_table, &vt) < 0)
		goto nomem;
	if (tenants_status_get(sm, &tn) && stat_json_section(o, &tenants_stat_table, &tn) < 0)
		goto nomem;
	if (sm->sa) {
		struct sa_stats sst = {0};

		sa_get_stats(sm->sa, &sst);
		json_object_set_new(
		    o, "sa_partition_refused",
		    json_pack("{s:I, s:I, s:I, s:I}", "paths", (json_int_t)sst.pkey_paths, "joins",
			      (json_int_t)sst.pkey_joins, "services", (json_int_t)sst.pkey_services,
			      "informs", (json_int_t)sst.pkey_informs));
	}
	return 0;
nomem:
	json_decref(o);
	*ret = NULL;
	return -ENOMEM;
}

int api_nodes(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct api_list l;

	if (api_need_fabric(api, err) || api_list_parse(api, args, &l, err))
		return -EINVAL;
	if (l.state >= 0)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "nodes have no state: use ports");
	*ret = api_nodes_json(api->sm->snap->fabric, &l);
	return *ret ? 0 : -ENOMEM;
}

/* Quarantined for flapping (perf/health.c) or over a counter threshold (perf/perfmgr.c). */
static bool api_port_unhealthy(const struct sm *sm, uint64_t guid, uint8_t port)
{
	const struct health_port *h = health_find(sm, guid, port);
	const struct perfmgr_port *p = perfmgr_find(perfmgr_of(sm), guid, port);

	return (h && h->quarantined) || (p && p->unhealthy);
}

int api_ports(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	struct api_list l;
	json_t *a;

	if (api_need_fabric(api, err) || api_list_parse(api, args, &l, err))
		return -EINVAL;
	a = json_array();
	for (uint32_t i = 0; a && i < f->n_nodes && !api_list_done(&l); i++) {
		if (!api_list_node(&l, f, i))
			continue;
		for (unsigned pn = 1; pn <= f->nodes[i].nports && !api_list_done(&l); pn++)
			if ((l.state < 0 || f->nodes[i].ports[pn].state == l.state) &&
			    (!l.unhealthy ||
			     api_port_unhealthy(api->sm, f->nodes[i].guid, (uint8_t)pn)) &&
			    api_list_take(&l))
				json_array_append_new(a,
						      api_port_json(f, &f->nodes[i], (uint8_t)pn));
	}
	*ret = a;
	return a ? 0 : -ENOMEM;
}

int api_links(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct api_list l;

	if (api_need_fabric(api, err) || api_list_parse(api, args, &l, err))
		return -EINVAL;
	*ret = api_links_json(api->sm->snap->fabric, &l);
	return *ret ? 0 : -ENOMEM;
}

int api_lids(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	struct fabric_port_iter it;
	struct api_list l;
	json_t *a;

	if (api_need_fabric(api, err) || api_list_parse(api, args, &l, err))
		return -EINVAL;
	if (l.state >= 0)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "lids have no state: use ports");
	if (l.unhealthy)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "unhealthy: only ports have it");
	a = json_array();
	fabric_for_each_lid_port (f, &it) {
		const struct node *n = &f->nodes[it.node];
		const struct port *p = &n->ports[it.port];

		if (!a || api_list_done(&l))
			break;
		if (!api_list_node(&l, f, it.node) || !p->lid || !api_list_take(&l))
			continue;
		json_array_append_new(a, json_pack("{s:i, s:i, s:o, s:o, s:s, s:i}", "lid", p->lid,
						   "lmc", p->lmc, "port_guid", api_guid(p->guid),
						   "node_guid", api_guid(n->guid), "desc", n->desc,
						   "port", it.port));
	}
	*ret = a;
	return a ? 0 : -ENOMEM;
}

int api_node(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"id", NULL};
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	uint32_t ni;
	uint8_t pn;
	json_t *o;

	if (api_check_args(args, names, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (!json_object_get(args, "id"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "missing \"id\" (GUID, LID or "
				     "node description)");
	if (api_resolve(snap, json_object_get(args, "id"), "id", &ni, &pn, err))
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
int api_route(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"src", "dst", NULL};
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	const struct routes *r = snap ? snap->routes : NULL;
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
	if (api_resolve(snap, json_object_get(args, "src"), "src", &sn, &sp, err) ||
	    api_resolve(snap, json_object_get(args, "dst"), "dst", &dn, &dp, err))
		return -EINVAL;
	slid = node_port_lid(&f->nodes[sn], sp);
	dlid = node_port_lid(&f->nodes[dn], dp);
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

/* A Graphviz graph: switches as boxes, CAs as ellipses, one edge per link. */
static char *api_topo_dot(const struct fabric *f)
{
	struct api_text b;

	if (api_text_begin(&b) < 0)
		return NULL;

	fprintf(b.fp, "graph ibfabric {\n\tnode [fontsize=10];\n");
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		char label[160];

		/* descriptions come from the fabric: keep them out of the quoting */
		size_t k = 0;
		for (const char *s = n->desc; *s && k < sizeof(label) - 1; s++)
			label[k++] =
			    (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '_' : *s;
		label[k] = '\0';
		fprintf(b.fp, "\t\"%016" PRIx64 "\" [shape=%s, label=\"%s\\nlid %u\"];\n", n->guid,
			node_is_switch(n) ? "box" : "ellipse", label, api_node_lid(n));
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];

			if (!port_is_linked(p) || p->remote_node >= f->n_nodes ||
			    !diff_link_first_end(f, i, (uint8_t)pn))
				continue;
			fprintf(b.fp,
				"\t\"%016" PRIx64 "\" -- \"%016" PRIx64
				"\" [taillabel=\"%u\", headlabel=\"%u\"%s];\n",
				n->guid, f->nodes[p->remote_node].guid, pn, p->remote_port,
				p->state == PORT_ACTIVE ? "" : ", style=dashed");
		}
	}
	fprintf(b.fp, "}\n");
	return api_text_end(&b);
}

/* The topology in ibnetdiscover's format, as the routing dumps write it. */
static char *api_topo_ibnd(const struct fabric *f)
{
	struct api_text b;

	if (api_text_begin(&b) < 0)
		return NULL;
	if (topo_write(f, b.fp) < 0) {
		free(api_text_end(&b));
		return NULL;
	}
	return api_text_end(&b);
}

int api_topology(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"format", NULL};
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	json_t *jfmt = json_object_get(args, "format");
	const char *fmt = "json";
	char *text;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jfmt && !json_is_string(jfmt))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "format must be \"json\", \"ibnetdiscover\", \"dot\", "
				     "\"slurm\" or \"slurm-yaml\"");
	if (jfmt)
		fmt = json_string_value(jfmt);
	if (strcmp(fmt, "json") && strcmp(fmt, "ibnetdiscover") && strcmp(fmt, "dot") &&
	    strcmp(fmt, "slurm") && strcmp(fmt, "slurm-yaml"))
		return ctl_error_set(
		    err, CTL_ERR_BAD_ARGUMENT,
		    "unknown format '%.32s': json, ibnetdiscover, dot, slurm or slurm-yaml", fmt);
	if (api_need_fabric(api, err))
		return -EINVAL;
	if (!strcmp(fmt, "json")) {
		struct api_list all = {-1, -1, UINT32_MAX, 0, -1, 0, false}, all2 = all;

		*ret =
		    json_pack("{s:I, s:o, s:o}", "generation", (json_int_t)snap->generation,
			      "nodes", api_nodes_json(f, &all), "links", api_links_json(f, &all2));
		/* where hosts sit: host -> leaf, leaf -> the switches above (api_validate.c) */
		return *ret && api_topo_hosts_into(api, f, *ret) == 0 ? 0 : -ENOMEM;
	}
	if (!strncmp(fmt, "slurm", 5))
		text = api_topo_slurm(api, f, !strcmp(fmt, "slurm-yaml"));
	else
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

int api_config(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm_conf live = api->sm->conf;
	int lvl = log_get_level(LOG_CAT_SWEEP);

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	/* smctl loglevel changes the level without touching the configuration */
	if (lvl == LOG_ERR || lvl == LOG_WARNING || lvl == LOG_INFO || lvl == LOG_DEBUG)
		live.log_level = lvl;
	*ret = conf_to_json(&live);
	return *ret ? 0 : -ENOMEM;
}

int api_events(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	if (api_check_args(args, NULL, err))
		return -EINVAL;
	/* HTTP has no stream: it reads the same events through eventlog */
	if (!c)
		return ctl_error_set(err, CTL_ERR_BAD_REQUEST,
				     "events streams on the control socket only; use eventlog");
	ctl_client_subscribe(c);
	return 0;
}

int api_eventlog(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"after", NULL};
	struct api *api = ctx;
	json_t *jafter = json_object_get(args, "after"), *a;
	uint64_t after = 0, first;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jafter && (!json_is_integer(jafter) || json_integer_value(jafter) < 0))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "after must be an event sequence number (0 or more)");
	if (jafter)
		after = (uint64_t)json_integer_value(jafter);
	first = api->event_seq > API_EVENTS_KEPT ? api->event_seq - API_EVENTS_KEPT + 1 : 1;
	if (after + 1 > first)
		first = after + 1;
	a = json_array();
	for (uint64_t s = first; a && s <= api->event_seq; s++)
		json_array_append(a, api->events[s % API_EVENTS_KEPT]);
	*ret = json_pack("{s:I, s:o}", "seq", (json_int_t)api->event_seq, "events", a);
	return *ret ? 0 : -ENOMEM;
}

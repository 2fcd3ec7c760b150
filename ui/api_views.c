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

#include "lib/clock.h"
#include "fabric/diff.h"
#include "fabric/names.h"
#include "fabric/topo.h"
#include "lib/log.h"
#include "sa/sa.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "perf/health.h"
#include "sm/sweep.h"
#include "perf/perfmgr.h"
#include "failover/sync.h"
#include "ui/api_int.h"

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
		      names_speed(p->speed_active) ?: "?", "mtu", names_mtu_bytes(p->neighbor_mtu));
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
			json_array_append_new(
			    a,
			    json_pack("{s:o, s:s, s:i, s:o, s:s, s:i, s:s, s:s, s:s}", "a_guid",
				      api_guid(n->guid), "a_desc", n->desc, "a_port", pn, "b_guid",
				      api_guid(r->guid), "b_desc", r->desc, "b_port",
				      p->remote_port, "width", names_width(p->width_active) ?: "?",
				      "speed", names_speed(p->speed_active) ?: "?", "state",
				      names_port_state(state)));
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
	return json_pack(
	    "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:I}", "unsolicited",
	    (json_int_t)api->sm->mad_unexpected, "sent", (json_int_t)xs.sent, "received",
	    (json_int_t)xs.received, "timeouts", (json_int_t)xs.timeouts, "retries",
	    (json_int_t)xs.retries, "errors", (json_int_t)(xs.remote_errors + xs.send_errors),
	    "unmatched", (json_int_t)xs.unmatched, "malformed",
	    (json_int_t)(xs.malformed + api->sm->mad_malformed), "outstanding", (int)xs.outstanding,
	    "window", (int)xs.window, "max_bulk_outstanding", (int)xs.max_bulk,
	    "control_outstanding", (int)xs.ctl_outstanding, "window_in_effect", (int)xs.cwnd,
	    "window_cuts", (json_int_t)xs.window_cuts);
}

/* "default" (OpenSM's 1: no protection), "none" (0: any SM is a peer) or "set". */
static const char *api_sm_key_str(uint64_t key)
{
	return key == 1 ? "default" : key == 0 ? "none" : "set";
}

/* The other SMs this SM knows, as they last answered. */
static json_t *api_peers_json(const struct sm *sm)
{
	const struct smstate *ss = &sm->smstate;
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

/* Role, peers and the failover counters (smstate.h). */
static json_t *api_failover_json(const struct sm *sm)
{
	const struct smstate *ss = &sm->smstate;

	return json_pack(
	    "{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}", "master",
	    ss->master_guid ? api_guid(ss->master_guid) : json_null(), "handover_to",
	    ss->handover_to ? api_guid(ss->handover_to) : json_null(), "polls",
	    (json_int_t)ss->polls, "polls_failed", (json_int_t)ss->polls_failed, "takeovers",
	    (json_int_t)ss->takeovers, "handovers_sent", (json_int_t)ss->handovers_sent,
	    "handovers_received", (json_int_t)ss->handovers_received, "sets_accepted",
	    (json_int_t)ss->sets_accepted, "sets_refused", (json_int_t)ss->sets_refused,
	    "foreign_sms", (json_int_t)ss->foreign_sms, "poll_interval_ms",
	    sm->conf.sminfo_poll_interval_ms, "poll_count", sm->conf.sminfo_poll_count);
}

/*
 * M_Key: whether one is set (never the key), the refusals counted, and the
 * ports named by trap 256 or that refused us, by port.
 */
static json_t *api_mkey_json(const struct sm *sm)
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
	return json_pack("{s:b, s:i, s:i, s:I, s:I, s:I, s:o, s:I}", "set", sm->conf.m_key != 0,
			 "protect_bits", sm->conf.m_key_protect_bits, "lease_period",
			 sm->conf.m_key_lease_period, "refused", (json_int_t)sm->mkey.refused,
			 "unanswered", (json_int_t)sm->mkey.unanswered, "traps",
			 (json_int_t)sm->mkey.traps, "offenders", a, "offenders_untracked",
			 (json_int_t)t->others);
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
	const struct qos_policy *q = sm->qos.policy;
	json_t *sls = json_array();

	for (unsigned sl = 0; sls && sl < 16; sl++)
		if (sm->qos.conflict_sls & (1u << sl))
			json_array_append_new(sls, json_integer(sl));
	return json_pack("{s:b, s:I, s:b, s:o, s:I, s:I, s:I}", "enabled", q && q->enabled,
			 "ulp_rules", (json_int_t)(q ? q->n_rules : 0), "ulp_default",
			 q && q->has_default, "engine_conflict_sls", sls ? sls : json_array(),
			 "engine_conflict_ports", (json_int_t)sm->qos.conflict_ports,
			 "last_sweep_sl2vl_blocks", (json_int_t)s->sl2vl_blocks,
			 "last_sweep_vlarb_blocks", (json_int_t)s->vlarb_blocks);
}

int api_status(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm *sm = api->sm;
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	const struct sweep_summary *s = &sm->last;
	uint16_t sm_lid = 0;
	uint64_t sm_guid = sm->port_guid;
	uint32_t switches = 0, nodes = 0;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	if (f && f->sm_node < f->n_nodes)
		sm_lid = f->nodes[f->sm_node].ports[f->sm_port].lid;
	if (sm->state == SM_STANDBY && sm->smstate.master_guid) {
		/* the master's, as it last answered */
		for (unsigned i = 0; i < sm->smstate.n_peers; i++)
			if (sm->smstate.peers[i].guid == sm->smstate.master_guid)
				sm_lid = sm->smstate.peers[i].lid;
		sm_guid = sm->smstate.master_guid;
	}
	if (f) {
		nodes = f->n_nodes;
		switches = fabric_count(f, NODE_SWITCH);
	}
	*ret = json_pack(
	    "{s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:s, s:I, s:I,"
	    " s:s, s:s, s:I, s:I, s:o, s:I}",
	    "state", names_sm_state(sm->state), "subnet_up", sm->subnet_up, "nodes", (int)nodes,
	    "switches", (int)switches, "cas", (int)(nodes - switches), "ports_active",
	    (int)s->ports_active, "links", (int)s->links, "lids", (int)s->lids, "sm_lid", sm_lid,
	    "sm_guid", api_guid(sm_guid), "priority", sm->conf.sm_priority, "routing_engine",
	    s->engine[0] ? s->engine : sm->conf.routing_engine, "sweeps", (json_int_t)sm->sweeps,
	    "last_sweep_ms", (json_int_t)(s->ms + 0.5), "last_sweep_status",
	    sm->sweeps ? (s->status ? "failed" : "ok") : "none", "last_sweep_reason", s->reason,
	    "generation", (json_int_t)(sm->snap ? sm->snap->generation : 0), "uptime_s",
	    (json_int_t)api_uptime(api), "mad", api_mad_json(api), "traps", (json_int_t)sm->traps);
	if (*ret) {
		json_object_set_new(*ret, "light_sweeps",
				    json_integer((json_int_t)sm->light.sweeps));
		json_object_set_new(*ret, "last_sweep_sets", json_integer(s->sets));
		json_object_set_new(*ret, "last_sweep_lft_blocks", json_integer(s->lft_blocks));
		json_object_set_new(*ret, "last_sweep_pkey_blocks", json_integer(s->pkey_blocks));
		json_object_set_new(*ret, "partitions",
				    json_integer(sm->parts ? (json_int_t)sm->parts->n : 0));
		json_object_set_new(*ret, "partition_enforcement",
				    json_pack("{s:s, s:b, s:I, s:I}", "mode",
					      conf_enforce_str(sm->conf.part_enforce),
					      "allow_both_pkeys", sm->conf.allow_both_pkeys,
					      "blocks", (json_int_t)sm->penf.blocks, "unfit",
					      (json_int_t)sm->penf.unfit));
		json_object_set_new(*ret, "qos", api_qos_json(sm, s));
		json_object_set_new(*ret, "last_sweep_lft_reads", json_integer(s->lft_reads));
		json_object_set_new(*ret, "state_reason", json_string(sm->smstate.why));
		json_object_set_new(*ret, "state_since", json_real(sm->smstate.since_wall));
		json_object_set_new(*ret, "sm_key", json_string(api_sm_key_str(sm->conf.sm_key)));
		json_object_set_new(*ret, "peers", api_peers_json(sm));
		json_object_set_new(*ret, "failover", api_failover_json(sm));
		json_object_set_new(*ret, "sync", sync_status_json(sm));
		json_object_set_new(*ret, "guid2lid_pending", json_boolean(sm->lid_save.owed));
		json_object_set_new(*ret, "trap_actions", api_trap_actions_json(sm));
		{
			struct health_stats hs;

			health_get_stats(sm, &hs);
			json_object_set_new(*ret, "flapping",
					    json_pack("{s:I, s:I, s:I, s:I, s:i}", "link_downs",
						      (json_int_t)hs.link_downs, "port_traps",
						      (json_int_t)hs.port_traps, "quarantines",
						      (json_int_t)hs.quarantines, "releases",
						      (json_int_t)hs.releases, "quarantined",
						      (int)hs.quarantined));
		}
		json_object_set_new(
		    *ret, "last_sweep_incremental",
		    json_pack("{s:b, s:i, s:i, s:i, s:i}", "incremental", sm->last.incremental,
			      "switches_asked", (int)sm->last.reprobed, "links_down",
			      (int)sm->last.links_down, "links_up", (int)sm->last.links_up,
			      "nodes_removed", (int)sm->last.removed));
		{
			json_t *ph = json_object();

			for (unsigned i = 0; ph && i < SWEEP_N_PHASES; i++)
				json_object_set_new(ph, sweep_phase_names[i],
						    json_real(s->phase_ms[i]));
			if (ph) {
				json_object_set_new(ph, "route_engine",
						    json_real(sm->route.engine_ms));
				json_object_set_new(ph, "route_repair",
						    json_real(sm->route.repair_ms));
				json_object_set_new(ph, "route_keep", json_real(sm->route.keep_ms));
				json_object_set_new(ph, "publish_hooks",
						    json_real(s->publish_hooks_ms));
				json_object_set_new(ph, "publish_dumps",
						    json_real(s->publish_dump_ms));
			}
			json_object_set_new(*ret, "last_sweep_phases_ms", ph);
		}
		json_object_set_new(*ret, "mkey", api_mkey_json(sm));
		json_object_set_new(*ret, "ctl", api_ctl_json(api));
		json_object_set_new(
		    *ret, "last_route_keep",
		    json_pack(
			"{s:b, s:I, s:I, s:I, s:i, s:i, s:s}", "kept", sm->route.last_keep.kept,
			"entries", (json_int_t)sm->route.last_keep.entries, "moved",
			(json_int_t)sm->route.last_keep.moved, "fresh_moved",
			(json_int_t)sm->route.last_keep.fresh_moved, "max_port",
			(int)sm->route.last_keep.max_port_kept, "max_port_fresh",
			(int)sm->route.last_keep.max_port_fresh, "why", sm->route.last_keep.why));
		json_object_set_new(
		    *ret, "last_route_repair",
		    json_pack("{s:b, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:s}", "repaired",
			      sm->route.last_repaired, "lids", (int)sm->route.last_repair.lids,
			      "lids_local", (int)sm->route.last_repair.lids_local, "lids_distance",
			      (int)sm->route.last_repair.lids_distance, "lids_gone",
			      (int)sm->route.last_repair.lids_gone, "moved",
			      (json_int_t)sm->route.last_repair.moved, "max_port",
			      (int)sm->route.last_repair.max_port, "max_port_before",
			      (int)sm->route.last_repair.max_port_before, "why",
			      sm->route.last_repaired ? "" : sm->route.last_repair.why));
		json_object_set_new(*ret, "perfmgr", api_perfmgr_json(sm));
	}
	if (*ret && sm->mcast) {
		struct sa_stats sst = {0};

		if (sm->sa)
			sa_get_stats(sm->sa, &sst);
		json_object_set_new(
		    *ret, "multicast",
		    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "groups",
			      (json_int_t)mcast_group_count(sm->mcast), "members",
			      (json_int_t)mcast_member_count(sm->mcast), "mlids",
			      (json_int_t)mcast_mlid_count(sm->mcast), "mlid_top",
			      (json_int_t)mcast_mlid_top(sm->mcast), "mft_updates",
			      (json_int_t)sm->mfts.updates, "mft_blocks",
			      (json_int_t)sm->mfts.blocks, "mft_read_blocks",
			      (json_int_t)sm->mfts.read_blocks, "mft_errors",
			      (json_int_t)sm->mfts.errors, "sa_joins", (json_int_t)sst.mcast_joins,
			      "sa_leaves", (json_int_t)sst.mcast_leaves, "sa_refused",
			      (json_int_t)sst.mcast_refused));
	}
	if (*ret && sm->sa) {
		struct sa_stats sst = {0};

		sa_get_stats(sm->sa, &sst);
		json_object_set_new(
		    *ret, "sa_partition_refused",
		    json_pack("{s:I, s:I, s:I, s:I}", "paths", (json_int_t)sst.pkey_paths, "joins",
			      (json_int_t)sst.pkey_joins, "services", (json_int_t)sst.pkey_services,
			      "informs", (json_int_t)sst.pkey_informs));
	}
	return *ret ? 0 : -ENOMEM;
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
	const struct perfmgr_port *p = sm->perf ? perfmgr_find(sm->perf, guid, port) : NULL;

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
				     "format must be \"json\", \"ibnetdiscover\" or \"dot\"");
	if (jfmt)
		fmt = json_string_value(jfmt);
	if (strcmp(fmt, "json") && strcmp(fmt, "ibnetdiscover") && strcmp(fmt, "dot"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "unknown format '%.32s': json, ibnetdiscover or dot", fmt);
	if (api_need_fabric(api, err))
		return -EINVAL;
	if (!strcmp(fmt, "json")) {
		struct api_list all = {-1, -1, UINT32_MAX, 0, -1, 0, false}, all2 = all;

		*ret =
		    json_pack("{s:I, s:o, s:o}", "generation", (json_int_t)snap->generation,
			      "nodes", api_nodes_json(f, &all), "links", api_links_json(f, &all2));
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

/*
 * The SM core's status structs and their counter tables (see status.h).
 */
#include <stdio.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/names.h"
#include "fabric/snapshot.h"
#include "mad/madio.h"
#include "mad/xact.h"
#include "policy/partition.h"
#include "sm/port.h"
#include "sm/sm.h"
#include "sm/status.h"

#define F(m, key, metric, kind, help) STAT_FIELD(struct sm_status, m, key, metric, kind, help)
static const struct stat_field sm_fields[] = {
    F(state, "state", NULL, STAT_GAUGE, NULL),
    F(subnet_up, "subnet_up", "ibsmd_subnet_up", STAT_GAUGE,
      "1 when the last heavy sweep brought every port up."),
    F(nodes, "nodes", NULL, STAT_GAUGE, NULL),
    F(switches, "switches", NULL, STAT_GAUGE, NULL),
    F(cas, "cas", NULL, STAT_GAUGE, NULL),
    F(ports_active, "ports_active", "ibsmd_ports_active", STAT_GAUGE,
      "Linked ports in state ACTIVE."),
    F(links, "links", "ibsmd_links", STAT_GAUGE, "Links between two ports."),
    F(lids, "lids", "ibsmd_lids", STAT_GAUGE, "LIDs assigned."),
    F(sm_lid, "sm_lid", NULL, STAT_GAUGE, NULL),
    STAT_HEX64_FIELD(struct sm_status, sm_guid, "sm_guid"),
    F(priority, "priority", "ibsmd_sm_priority", STAT_GAUGE, "Our SM priority."),
    F(routing_engine, "routing_engine", NULL, STAT_GAUGE, NULL),
    F(sweeps, "sweeps", "ibsmd_sweeps_total", STAT_COUNTER, "Heavy sweeps done."),
    F(light_sweeps, "light_sweeps", "ibsmd_light_sweeps_total", STAT_COUNTER,
      "Light sweeps (SwitchInfo polls) done."),
    F(last_sweep_ms, "last_sweep_ms", NULL, STAT_GAUGE, NULL),
    STAT_FIELD_SCALED(struct sm_status, last_sweep_exact_ms, NULL, "ibsmd_last_sweep_seconds",
		      STAT_GAUGE, "Duration of the last heavy sweep.", 1e-3),
    F(last_sweep_status, "last_sweep_status", NULL, STAT_GAUGE, NULL),
    F(last_sweep_ok, NULL, "ibsmd_last_sweep_ok", STAT_GAUGE,
      "1 when the last heavy sweep succeeded."),
    F(last_sweep_reason, "last_sweep_reason", NULL, STAT_GAUGE, NULL),
    F(generation, "generation", "ibsmd_generation", STAT_GAUGE,
      "Generation of the published fabric snapshot."),
    F(traps, "traps", "ibsmd_traps_total", STAT_COUNTER, "Traps received."),
    F(last_sweep_sets, "last_sweep_sets", NULL, STAT_GAUGE, NULL),
    F(last_sweep_lft_blocks, "last_sweep_lft_blocks", NULL, STAT_GAUGE, NULL),
    F(last_sweep_pkey_blocks, "last_sweep_pkey_blocks", NULL, STAT_GAUGE, NULL),
    F(last_sweep_lft_reads, "last_sweep_lft_reads", NULL, STAT_GAUGE, NULL),
    F(last_sweep_ext_speed_gets, "last_sweep_ext_speed_gets", NULL, STAT_GAUGE, NULL),
    F(partitions, "partitions", NULL, STAT_GAUGE, NULL),
    F(sm_key, "sm_key", NULL, STAT_GAUGE, NULL),
    F(guid2lid_pending, "guid2lid_pending", NULL, STAT_GAUGE, NULL),
};
#undef F
const struct stat_table sm_stat_table = STAT_TABLE(NULL, sm_fields);

#define F(m, metric, kind, help) STAT_FIELD(struct sm_mad_status, m, #m, metric, kind, help)
static const struct stat_field mad_fields[] = {
    F(unsolicited, "ibsmd_mad_unsolicited_total", STAT_COUNTER,
      "Requests of a class we do not serve, and unmatched responses, dropped."),
    F(sent, "ibsmd_mads_sent_total", STAT_COUNTER, "SMPs sent, retries included."),
    F(received, "ibsmd_mads_received_total", STAT_COUNTER, "SMP responses received."),
    F(timeouts, "ibsmd_mad_timeouts_total", STAT_COUNTER,
      "SMP transactions that failed after every retry."),
    F(retries, "ibsmd_mad_retries_total", STAT_COUNTER, "SMP retries."),
    F(errors, "ibsmd_mad_errors_total", STAT_COUNTER,
      "SMPs answered with an error status or that could not be sent."),
    F(unmatched, "ibsmd_mad_unmatched_total", STAT_COUNTER,
      "Responses that matched no outstanding request."),
    F(malformed, "ibsmd_mad_malformed_total", STAT_COUNTER, "Malformed MADs dropped."),
    F(outstanding, "ibsmd_mads_outstanding", STAT_GAUGE, "SMPs in flight now."),
    F(window, NULL, STAT_GAUGE, NULL),
    F(max_bulk_outstanding, NULL, STAT_GAUGE, NULL),
    F(control_outstanding, NULL, STAT_GAUGE, NULL),
    F(window_in_effect, NULL, STAT_GAUGE, NULL),
    F(window_cuts, NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct sm_mad_status, umad_received, NULL, "ibsmd_umad_received_total", STAT_COUNTER,
	       "MADs read from the umad port."),
    STAT_FIELD(struct sm_mad_status, umad_dropped, NULL, "ibsmd_umad_dropped_total", STAT_COUNTER,
	       "MADs dropped between the receiver thread and the loop."),
    STAT_FIELD(struct sm_mad_status, umad_batches, NULL, "ibsmd_umad_batches_total", STAT_COUNTER,
	       "Hand-offs of received MADs from the receiver thread to the loop."),
    STAT_FIELD(struct sm_mad_status, umad_wakeups, NULL, "ibsmd_umad_wakeups_total", STAT_COUNTER,
	       "Hand-offs that found the loop asleep and woke it."),
    F(dr_only, NULL, STAT_GAUGE, NULL),
    F(split, NULL, STAT_GAUGE, NULL),
    F(lid_routed_smps, "ibsmd_lid_routed_smps_total", STAT_COUNTER,
      "LID-routed SMP requests sent (SMInfo, TrapRepress, checks); none with dr_only."),
    F(lid_routed_smp_replies, NULL, STAT_COUNTER, NULL),
    F(trap_repress_unrouted, NULL, STAT_COUNTER, NULL),
};
#undef F
const struct stat_table sm_mad_stat_table = STAT_TABLE("mad", mad_fields);

#define F(m, metric, kind, help) STAT_FIELD(struct sm_mkey_status, m, #m, metric, kind, help)
static const struct stat_field mkey_fields[] = {
    F(set, NULL, STAT_GAUGE, NULL),
    F(protect_bits, NULL, STAT_GAUGE, NULL),
    F(lease_period, NULL, STAT_GAUGE, NULL),
    F(refused, "ibsmd_mkey_refused_total", STAT_COUNTER,
      "PortInfo Sets not sent: the port holds another M_Key."),
    F(unanswered, "ibsmd_mkey_unanswered_total", STAT_COUNTER,
      "PortInfo Sets lost on ports whose M_Key may not be ours."),
    F(traps, "ibsmd_mkey_traps_total", STAT_COUNTER, "Traps 256 (bad M_Key) received."),
    F(offenders_untracked, NULL, STAT_COUNTER, NULL),
};
#undef F
const struct stat_table sm_mkey_stat_table = STAT_TABLE("mkey", mkey_fields);

#define F(m, metric, kind, help) STAT_FIELD(struct sm_penf_status, m, #m, metric, kind, help)
static const struct stat_field penf_fields[] = {
    F(mode, NULL, STAT_GAUGE, NULL),
    F(allow_both_pkeys, NULL, STAT_GAUGE, NULL),
    F(blocks, "ibsmd_partition_enforcement_blocks_total", STAT_COUNTER,
      "P_KeyTable blocks written to switch ports facing CAs (part_enforce)."),
    F(unfit, "ibsmd_partition_enforcement_unfit_total", STAT_COUNTER,
      "Switch ports whose CA's P_Keys did not fit: enforcement left off."),
};
#undef F
const struct stat_table sm_penf_stat_table = STAT_TABLE("partition_enforcement", penf_fields);

#define F(m) STAT_FIELD(struct sm_incremental_status, m, #m, NULL, STAT_GAUGE, NULL)
static const struct stat_field incr_fields[] = {
    F(incremental), F(switches_asked), F(links_down),
    F(links_up),    F(nodes_removed),  F(switches_held_out),
};
#undef F
const struct stat_table sm_incremental_stat_table =
    STAT_TABLE("last_sweep_incremental", incr_fields);

void sm_status_get(const struct sm *sm, struct sm_status *ret)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	const struct sweep_summary *s = &sm->last;

	memset(ret, 0, sizeof(*ret));
	ret->state = names_sm_state(sm->state);
	ret->subnet_up = sm->subnet_up;
	if (f) {
		ret->nodes = f->n_nodes;
		ret->switches = fabric_count(f, NODE_SWITCH);
		ret->cas = ret->nodes - ret->switches;
		if (f->sm_node < f->n_nodes)
			ret->sm_lid = f->nodes[f->sm_node].ports[f->sm_port].lid;
	}
	ret->sm_guid = sm->port_guid;
	ret->ports_active = s->ports_active;
	ret->links = s->links;
	ret->lids = s->lids;
	ret->priority = sm->conf.sm_priority;
	snprintf(ret->routing_engine, sizeof(ret->routing_engine), "%s",
		 s->engine[0] ? s->engine : sm->conf.routing_engine);
	ret->sweeps = sm->sweeps;
	ret->last_sweep_ms = (uint64_t)(s->ms + 0.5);
	ret->last_sweep_exact_ms = s->ms;
	ret->last_sweep_status = sm->sweeps ? (s->status ? "failed" : "ok") : "none";
	ret->last_sweep_ok = sm->sweeps && s->status == 0;
	snprintf(ret->last_sweep_reason, sizeof(ret->last_sweep_reason), "%s", s->reason);
	ret->generation = sm->snap ? sm->snap->generation : 0;
	ret->traps = sm->traps;
	ret->light_sweeps = sm->light.sweeps;
	ret->last_sweep_sets = s->sets;
	ret->last_sweep_lft_blocks = s->lft_blocks;
	ret->last_sweep_pkey_blocks = s->pkey_blocks;
	ret->last_sweep_lft_reads = s->lft_reads;
	ret->last_sweep_ext_speed_gets = s->ext_gets;
	ret->partitions = sm->policy.parts ? sm->policy.parts->n : 0;
	ret->sm_key = sm->conf.sm_key == 1 ? "default" : sm->conf.sm_key == 0 ? "none" : "set";
	ret->guid2lid_pending = sm->lid_save.owed;
}

void sm_mad_status_get(const struct sm *sm, struct sm_mad_status *ret)
{
	struct xact_stats xs = {0};
	struct madio_stats ms = {0};

	if (sm->xe)
		xact_get_stats(sm->xe, &xs);
	if (sm->io)
		madio_get_stats(sm->io, &ms);
	*ret = (struct sm_mad_status){
	    .unsolicited = sm->mad_unexpected,
	    .sent = xs.sent,
	    .received = xs.received,
	    .timeouts = xs.timeouts,
	    .retries = xs.retries,
	    .errors = xs.remote_errors + xs.send_errors,
	    .unmatched = xs.unmatched,
	    .malformed = xs.malformed + sm->mad_malformed,
	    .outstanding = xs.outstanding,
	    .window = xs.window,
	    .max_bulk_outstanding = xs.max_bulk,
	    .control_outstanding = xs.ctl_outstanding,
	    .window_in_effect = xs.cwnd,
	    .window_cuts = xs.window_cuts,
	    .umad_received = ms.received,
	    .umad_dropped = ms.dropped,
	    .umad_batches = ms.batches,
	    .umad_wakeups = ms.wakeups,
	    .dr_only = port_dr_only(sm),
	    .split = sm->io_split,
	    .lid_routed_smps = ms.smp_lid_requests,
	    .lid_routed_smp_replies = ms.smp_lid_replies,
	    .trap_repress_unrouted = sm->trap_repress_unrouted,
	};
}

void sm_mkey_status_get(const struct sm *sm, struct sm_mkey_status *ret)
{
	*ret = (struct sm_mkey_status){
	    .set = sm->conf.m_key != 0,
	    .protect_bits = sm->conf.m_key_protect_bits,
	    .lease_period = sm->conf.m_key_lease_period,
	    .refused = sm->mkey.refused,
	    .unanswered = sm->mkey.unanswered,
	    .traps = sm->mkey.traps,
	    .offenders_untracked = sm->mkey.offenders.others,
	};
}

void sm_penf_status_get(const struct sm *sm, struct sm_penf_status *ret)
{
	*ret = (struct sm_penf_status){
	    .mode = conf_enforce_str(sm->conf.part_enforce),
	    .allow_both_pkeys = sm->conf.allow_both_pkeys,
	    .blocks = sm->penf.blocks,
	    .unfit = sm->penf.unfit,
	};
}

void sm_incremental_status_get(const struct sm *sm, struct sm_incremental_status *ret)
{
	*ret = (struct sm_incremental_status){
	    .incremental = sm->last.incremental,
	    .switches_asked = sm->last.reprobed,
	    .links_down = sm->last.links_down,
	    .links_up = sm->last.links_up,
	    .nodes_removed = sm->last.removed,
	    .switches_held_out = sm->sched.n_held,
	};
}

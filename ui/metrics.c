/*
 * The `metrics` command: the SM's counters and gauges in the Prometheus text
 * exposition format (version 0.0.4), one HELP and TYPE line per family.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fabric/names.h"
#include "ui/api_int.h"

static void metrics_one(FILE *b, const char *name, const char *type, const char *help, double v)
{
	fprintf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type, name, v);
}

int metrics_command(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		    struct ctl_error *err)
{
	struct api *api = ctx;
	struct sm *sm = api->sm;
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	struct xact_stats xs = {0};
	struct madio_stats ms = {0};
	struct ctl_stats cs;
	struct api_text t;
	FILE *b;
	char *text;
	uint32_t sw = f ? fabric_count(f, NODE_SWITCH) : 0;
	uint32_t nodes = f ? f->n_nodes : 0;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	if (sm->xe)
		xact_get_stats(sm->xe, &xs);
	if (sm->io)
		madio_get_stats(sm->io, &ms);
	ctl_server_stats(api->srv, &cs);
	if (api_text_begin(&t) < 0)
		return -ENOMEM;
	b = t.fp;

	fprintf(b, "# HELP ibsmd_state SM state (1 for the current one).\n"
		   "# TYPE ibsmd_state gauge\n");
	for (int s = SM_NOTACTIVE; s <= SM_MASTER; s++)
		fprintf(b, "ibsmd_state{state=\"%s\"} %d\n", names_sm_state(s),
			sm->state == (enum sm_state)s);
	metrics_one(b, "ibsmd_subnet_up", "gauge",
		    "1 when the last heavy sweep brought every port up.", sm->subnet_up);
	metrics_one(b, "ibsmd_sweeps_total", "counter", "Heavy sweeps done.", (double)sm->sweeps);
	metrics_one(b, "ibsmd_light_sweeps_total", "counter",
		    "Light sweeps (SwitchInfo polls) done.", (double)sm->light.sweeps);
	metrics_one(b, "ibsmd_last_sweep_seconds", "gauge", "Duration of the last heavy sweep.",
		    sm->last.ms / 1e3);
	metrics_one(b, "ibsmd_last_sweep_ok", "gauge", "1 when the last heavy sweep succeeded.",
		    sm->sweeps && sm->last.status == 0);
	metrics_one(b, "ibsmd_generation", "gauge", "Generation of the published fabric snapshot.",
		    sm->snap ? (double)sm->snap->generation : 0);
	fprintf(b,
		"# HELP ibsmd_nodes Nodes in the current snapshot, by type.\n"
		"# TYPE ibsmd_nodes gauge\n"
		"ibsmd_nodes{type=\"switch\"} %u\nibsmd_nodes{type=\"ca\"} %u\n",
		sw, nodes - sw);
	metrics_one(b, "ibsmd_links", "gauge", "Links between two ports.", sm->last.links);
	metrics_one(b, "ibsmd_ports_active", "gauge", "Linked ports in state ACTIVE.",
		    sm->last.ports_active);
	metrics_one(b, "ibsmd_lids", "gauge", "LIDs assigned.", sm->last.lids);
	metrics_one(b, "ibsmd_sm_priority", "gauge", "Our SM priority.", sm->conf.sm_priority);
	metrics_one(b, "ibsmd_sm_peers", "gauge", "Other SMs known.", sm->smstate.n_peers);
	metrics_one(b, "ibsmd_sminfo_polls_failed_total", "counter",
		    "Polls of the master (by a standby) that failed.",
		    (double)sm->smstate.polls_failed);
	metrics_one(b, "ibsmd_takeovers_total", "counter", "Takeovers from a master that went.",
		    (double)sm->smstate.takeovers);
	metrics_one(b, "ibsmd_handovers_total", "counter",
		    "Handovers sent to or received from another SM.",
		    (double)(sm->smstate.handovers_sent + sm->smstate.handovers_received));
	metrics_one(b, "ibsmd_sminfo_sets_refused_total", "counter",
		    "SMInfo Sets refused (SM_Key, sender, state).",
		    (double)sm->smstate.sets_refused);
	if (sm->mcast) {
		metrics_one(b, "ibsmd_mcast_groups", "gauge", "Multicast groups.",
			    (double)mcast_group_count(sm->mcast));
		metrics_one(b, "ibsmd_mcast_members", "gauge", "Multicast memberships.",
			    (double)mcast_member_count(sm->mcast));
		metrics_one(b, "ibsmd_mft_blocks_total", "counter",
			    "MFT blocks sent (those that differed).", (double)sm->mfts.blocks);
	}
	metrics_one(b, "ibsmd_mads_sent_total", "counter", "SMPs sent, retries included.",
		    (double)xs.sent);
	metrics_one(b, "ibsmd_mads_received_total", "counter", "SMP responses received.",
		    (double)xs.received);
	metrics_one(b, "ibsmd_mad_timeouts_total", "counter",
		    "SMP transactions that failed after every retry.", (double)xs.timeouts);
	metrics_one(b, "ibsmd_mad_retries_total", "counter", "SMP retries.", (double)xs.retries);
	metrics_one(b, "ibsmd_mad_errors_total", "counter",
		    "SMPs answered with an error status or that could not be sent.",
		    (double)(xs.remote_errors + xs.send_errors));
	metrics_one(b, "ibsmd_mad_unmatched_total", "counter",
		    "Responses that matched no outstanding request.", (double)xs.unmatched);
	metrics_one(b, "ibsmd_mad_malformed_total", "counter", "Malformed MADs dropped.",
		    (double)(xs.malformed + sm->mad_malformed));
	metrics_one(b, "ibsmd_mads_outstanding", "gauge", "SMPs in flight now.", xs.outstanding);
	metrics_one(b, "ibsmd_umad_received_total", "counter", "MADs read from the umad port.",
		    (double)ms.received);
	metrics_one(b, "ibsmd_umad_dropped_total", "counter",
		    "MADs dropped between the receiver thread and the loop.", (double)ms.dropped);
	metrics_one(b, "ibsmd_traps_total", "counter", "Traps received.", (double)sm->traps);
	metrics_one(b, "ibsmd_ctl_requests_total", "counter", "Control socket requests.",
		    (double)cs.requests);
	metrics_one(b, "ibsmd_ctl_errors_total", "counter", "Control socket error replies.",
		    (double)cs.errors);
	metrics_one(b, "ibsmd_ctl_clients_dropped_total", "counter",
		    "Control clients dropped (too large, too slow).", (double)cs.clients_dropped);
	metrics_one(b, "ibsmd_ctl_clients", "gauge", "Control clients connected.", cs.clients);
	metrics_one(b, "ibsmd_ctl_subscribers", "gauge", "Clients subscribed to events.",
		    cs.subscribers);
	metrics_one(b, "ibsmd_events_total", "counter", "Fabric events published.",
		    (double)cs.events);
	metrics_one(b, "ibsmd_uptime_seconds", "gauge", "Seconds since the daemon started.",
		    api_uptime(api));
	text = api_text_end(&t);
	if (!text)
		return -ENOMEM;
	*ret = json_string(text);
	free(text);
	return *ret ? 0 : -ENOMEM;
}

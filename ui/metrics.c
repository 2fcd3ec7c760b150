/*
 * The Prometheus text exposition format (version 0.0.4) of the `metrics`
 * command and of GET /metrics: the SM's own counters and gauges
 * (ibsmd_build_info, process_start_time_seconds among them), then one series
 * per port and counter from the performance manager, and the state, width
 * and speed of every linked port of the published snapshot.  One HELP and
 * TYPE line per family, every family's samples together.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/xact.h"
#include "mad/madio.h"
#include "fabric/names.h"
#include "fabric/speed.h"
#include "sa/sa.h"
#include "perf/health.h"
#include "validate/validate.h"
#include "perf/perfmgr.h"
#include "failover/smstate.h"
#include "failover/sync.h"
#include "sm/mfts.h"
#include "sm/vltables.h"
#include "sm/status.h"
#include "tenants/tenants.h"
#include "ui/api_int.h"
#include "ui/stat.h"

static void metrics_one(FILE *b, const char *name, const char *type, const char *help, double v)
{
	fprintf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type, name, v);
}

#define METRICS_LABEL_MAX 256 /* {node_guid="0x..",node_desc="(64 chars, escaped)",port="N" */

/*
 * {node_guid="0x...",node_desc="...",port="N" into buf (then more labels, or
 * the closing brace); the description's backslashes, quotes and newlines
 * escaped.  Returns buf.
 */
static char *metrics_port_labels(char *buf, uint64_t guid, const char *desc, unsigned port)
{
	size_t k = (size_t)snprintf(buf, METRICS_LABEL_MAX,
				    "{node_guid=\"0x%016" PRIx64 "\",node_desc=\"", guid);

	for (; *desc && k < METRICS_LABEL_MAX - 24; desc++) {
		if (*desc == '\\' || *desc == '"' || *desc == '\n')
			buf[k++] = '\\';
		buf[k++] = *desc == '\n' ? 'n' : *desc;
	}
	snprintf(buf + k, METRICS_LABEL_MAX - k, "\",port=\"%u\"", port);
	return buf;
}

static const char *metrics_desc(const struct fabric *f, uint64_t guid)
{
	uint32_t ni = f ? fabric_find_guid(f, guid) : FABRIC_NO_NODE;

	return ni != FABRIC_NO_NODE ? f->nodes[ni].desc : "";
}

/* NAME LABELS} VALUE\n, the value an integer: the families of many samples. */
static void metrics_sample(FILE *b, const char *name, const char *labels, const char *more,
			   uint64_t v)
{
	char num[24];
	size_t k = sizeof(num);

	do {
		num[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fputs_unlocked(name, b);
	fputs_unlocked(labels, b);
	if (more)
		fputs_unlocked(more, b);
	fputs_unlocked("} ", b);
	fwrite_unlocked(num + k, 1, sizeof(num) - k, b);
	fputc_unlocked('\n', b);
}

/* One family over every port the performance manager read; labels[i] is port i's. */
static void metrics_port_family(FILE *b, const struct perfmgr_port *ports, size_t n,
				const char *labels, const char *name, const char *help, int counter,
				uint64_t scale)
{
	fprintf(b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (size_t i = 0; i < n; i++)
		if (ports[i].have)
			metrics_sample(b, name, labels + i * METRICS_LABEL_MAX, NULL,
				       scale * ports[i].total[counter]);
}

/* Validation: its counters, and the findings listed now by kind and severity. */
static void metrics_validation(FILE *b, const struct sm *sm)
{
	struct validate_stats vs;
	unsigned n[PLAN_NKINDS][2] = {{0}};
	const struct validate_item *it;
	size_t count;

	validate_get_stats(sm, &vs);
	stat_metrics(b, &validate_stat_table, &vs);
	it = validate_items(sm, &count);
	for (size_t i = 0; i < count; i++)
		n[it[i].fd.kind][it[i].fd.severity == PLAN_ERROR]++;
	fputs("# HELP ibsmd_validation_findings Validation findings listed now, by kind.\n"
	      "# TYPE ibsmd_validation_findings gauge\n",
	      b);
	for (unsigned k = 0; k < PLAN_NKINDS; k++)
		fprintf(b, "ibsmd_validation_findings{kind=\"%s\"} %u\n", plan_kind_name(k),
			n[k][0] + n[k][1]);
}

static void metrics_ports(FILE *b, const struct sm *sm, const struct fabric *f)
{
	const struct perfmgr_port *ports = NULL;
	struct perfmgr_stats st = {0};
	size_t n = 0;
	char *labels;

	ports = perfmgr_ports(perfmgr_of(sm), &n);
	perfmgr_get_stats(perfmgr_of(sm), &st);
	/* every port's labels once, for the 17 families that repeat them */
	labels = malloc(n ? n * METRICS_LABEL_MAX : 1);
	if (!labels) {
		n = 0;
		labels = NULL;
	}
	for (size_t i = 0; i < n; i++)
		metrics_port_labels(labels + i * METRICS_LABEL_MAX, ports[i].node_guid,
				    metrics_desc(f, ports[i].node_guid), ports[i].port);
	stat_metrics(b, &perfmgr_stat_table, &st);
	metrics_port_family(b, ports, n, labels, "ibsmd_port_xmit_bytes_total",
			    "Bytes sent (PortXmitData x 4), since the SM first read the port.",
			    PERFMGR_XMIT_DATA, 4);
	metrics_port_family(b, ports, n, labels, "ibsmd_port_rcv_bytes_total",
			    "Bytes received (PortRcvData x 4), since the SM first read the port.",
			    PERFMGR_RCV_DATA, 4);
	metrics_port_family(b, ports, n, labels, "ibsmd_port_xmit_packets_total", "Packets sent.",
			    PERFMGR_XMIT_PKTS, 1);
	metrics_port_family(b, ports, n, labels, "ibsmd_port_rcv_packets_total",
			    "Packets received.", PERFMGR_RCV_PKTS, 1);
	metrics_port_family(b, ports, n, labels, "ibsmd_port_xmit_wait_total",
			    "Ticks a packet waited to be sent (PortXmitWait).", PERFMGR_XMIT_WAIT,
			    1);
	fprintf(b, "# HELP ibsmd_port_errors_total Error counters of PortCounters, by counter.\n"
		   "# TYPE ibsmd_port_errors_total counter\n");
	for (size_t i = 0; i < n; i++) {
		if (!ports[i].have)
			continue;
		for (int c = 0; c < PERFMGR_NCOUNTERS; c++) {
			char more[64];

			if (perfmgr_counter_info[c].kind != PERFMGR_KIND_ERROR)
				continue;
			snprintf(more, sizeof(more), ",counter=\"%s\"",
				 perfmgr_counter_info[c].name);
			metrics_sample(b, "ibsmd_port_errors_total", labels + i * METRICS_LABEL_MAX,
				       more, ports[i].total[c]);
		}
	}
	fprintf(b, "# HELP ibsmd_port_unhealthy 1 while a port is over an error threshold.\n"
		   "# TYPE ibsmd_port_unhealthy gauge\n");
	for (size_t i = 0; i < n; i++)
		if (ports[i].have)
			metrics_sample(b, "ibsmd_port_unhealthy", labels + i * METRICS_LABEL_MAX,
				       NULL, ports[i].unhealthy);
	free(labels);
}

/* State, width, speed and rate of every linked port of the snapshot (fabric/speed.h). */
static void metrics_links(FILE *b, const struct fabric *f)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
	    {"ibsmd_port_state", "PortInfo:PortState (1 down, 2 init, 3 armed, 4 active)."},
	    {"ibsmd_port_width_lanes", "Lanes active (PortInfo:LinkWidthActive)."},
	    {"ibsmd_port_lane_speed_gbps",
	     "Signalling rate of a lane, Gb/s (LinkSpeedActive, LinkSpeedExtActive, XDR)."},
	    {"ibsmd_port_rate_gbps", "Data rate of the link, Gb/s: lanes x lane speed as the IBA "
				     "rate code the SA answers."},
	    {"ibsmd_port_below_enabled",
	     "1 when the link runs slower or narrower than both ends enable."},
	};
	char lab[METRICS_LABEL_MAX];

	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n", fam[k].name, fam[k].help,
			fam[k].name);
		for (uint32_t i = 0; f && i < f->n_nodes; i++) {
			const struct node *n = &f->nodes[i];

			for (unsigned pn = 1; pn <= n->nports; pn++) {
				const struct port *p = &n->ports[pn];

				if (!port_is_linked(p))
					continue;
				metrics_port_labels(lab, n->guid, n->desc, pn);
				if (k == 2)
					fprintf(b, "%s%s} %.17g\n", fam[k].name, lab,
						speed_lane_gbps(speed_port_lane(p)));
				else if (k == 3)
					fprintf(b, "%s%s} %.17g\n", fam[k].name, lab,
						speed_rate_mbps(speed_port_rate(p)) / 1000.0);
				else
					metrics_sample(
					    b, fam[k].name, lab, NULL,
					    k == 0 ? p->state
					    : k == 1
						? (uint64_t)speed_width_lanes(p->width_active)
						: (uint64_t)(p->remote_node < f->n_nodes &&
							     speed_link_below(
								 p, &f->nodes[p->remote_node]
									 .ports[p->remote_port])));
			}
		}
	}
}

char *metrics_text(struct api *api, size_t *ret_len)
{
	struct sm *sm = api->sm;
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	struct ctl_stats cs;
	struct api_text t;
	FILE *b;
	char *text;
	const struct http_stats *hs = &api->http_st;
	struct sm_status st;
	struct sm_mad_status mad;
	struct sm_mkey_status mk;
	struct sm_penf_status pe;
	struct smstate_status role;
	struct sync_status sy;
	struct mfts_status mc;
	struct vltables_status vt;
	struct tenants_status tn;

	ctl_server_stats(api->srv, &cs);
	if (api_text_begin(&t) < 0)
		return NULL;
	b = t.fp;

	fprintf(b,
		"# HELP ibsmd_build_info The ibsmd version (always 1).\n"
		"# TYPE ibsmd_build_info gauge\n"
		"ibsmd_build_info{version=\"%s\"} 1\n",
		PACKAGE_VERSION);
	metrics_one(b, "process_start_time_seconds", "gauge",
		    "Start time of the process since the epoch, in seconds.", api->started_unix);

	fprintf(b, "# HELP ibsmd_state SM state (1 for the current one).\n"
		   "# TYPE ibsmd_state gauge\n");
	for (int s = SM_NOTACTIVE; s <= SM_MASTER; s++)
		fprintf(b, "ibsmd_state{state=\"%s\"} %d\n", names_sm_state(s),
			sm->state == (enum sm_state)s);
	sm_status_get(sm, &st);
	fprintf(b,
		"# HELP ibsmd_nodes Nodes in the current snapshot, by type.\n"
		"# TYPE ibsmd_nodes gauge\n"
		"ibsmd_nodes{type=\"switch\"} %u\nibsmd_nodes{type=\"ca\"} %u\n",
		st.switches, st.cas);
	stat_metrics(b, &sm_stat_table, &st);
	smstate_status_get(sm, &role);
	stat_metrics(b, &smstate_stat_table, &role);
	sync_status_get(sm, &sy);
	stat_metrics(b, &sync_stat_table, &sy);
	if (mfts_status_get(sm, &mc))
		stat_metrics(b, &mfts_stat_table, &mc);
	if (vltables_status_get(sm, &vt))
		stat_metrics(b, &vltables_stat_table, &vt);
	if (tenants_status_get(sm, &tn))
		stat_metrics(b, &tenants_stat_table, &tn);
	sm_mad_status_get(sm, &mad);
	stat_metrics(b, &sm_mad_stat_table, &mad);
	/* security (issue 12): M_Key, partitions */
	sm_mkey_status_get(sm, &mk);
	stat_metrics(b, &sm_mkey_stat_table, &mk);
	sm_penf_status_get(sm, &pe);
	stat_metrics(b, &sm_penf_stat_table, &pe);
	if (sm->sa) {
		struct sa_stats sst = {0};

		sa_get_stats(sm->sa, &sst);
		fprintf(b,
			"# HELP ibsmd_sa_partition_refused_total SA answers withheld or requests "
			"refused: a port not in the partition.\n"
			"# TYPE ibsmd_sa_partition_refused_total counter\n"
			"ibsmd_sa_partition_refused_total{what=\"path\"} %" PRIu64 "\n"
			"ibsmd_sa_partition_refused_total{what=\"join\"} %" PRIu64 "\n"
			"ibsmd_sa_partition_refused_total{what=\"service\"} %" PRIu64 "\n"
			"ibsmd_sa_partition_refused_total{what=\"inform\"} %" PRIu64 "\n",
			sst.pkey_paths, sst.pkey_joins, sst.pkey_services, sst.pkey_informs);
	}
	fputs("# HELP ibsmd_trap_actions_total Traps received, by what was done with them.\n"
	      "# TYPE ibsmd_trap_actions_total counter\n",
	      b);
	for (int a = 0; a < TRAP_NACTIONS; a++)
		fprintf(b, "ibsmd_trap_actions_total{action=\"%s\"} %" PRIu64 "\n",
			trap_action_name(a), sm->trap_actions[a]);
	{
		struct health_stats fs;

		health_get_stats(sm, &fs);
		stat_metrics(b, &health_stat_table, &fs);
	}
	metrics_validation(b, sm);
	{
		struct sm_mem mem;

		sm_mem_get(sm, NULL, &mem);
		metrics_one(b, "process_resident_memory_bytes", "gauge", "Resident memory now.",
			    (double)mem.rss);
		fputs("# HELP ibsmd_memory_bytes Bytes held, by owner (peak_rss: the process's "
		      "peak resident set).\n"
		      "# TYPE ibsmd_memory_bytes gauge\n",
		      b);
		fprintf(b, "ibsmd_memory_bytes{owner=\"peak_rss\"} %zu\n", mem.peak_rss);
		fprintf(b, "ibsmd_memory_bytes{owner=\"heap\"} %zu\n", mem.heap);
		fprintf(b, "ibsmd_memory_bytes{owner=\"snapshot_fabric\"} %zu\n", mem.fabric);
		fprintf(b, "ibsmd_memory_bytes{owner=\"snapshot_routes\"} %zu\n", mem.routes);
		fprintf(b, "ibsmd_memory_bytes{owner=\"transaction_engine\"} %zu\n", mem.xact);
	}
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
	if (api->sm->conf.http_listen[0]) {
		metrics_one(b, "ibsmd_http_requests_total", "counter", "HTTP requests answered.",
			    (double)hs->requests);
		metrics_one(b, "ibsmd_http_errors_total", "counter",
			    "HTTP requests answered with a 4xx or 5xx status.", (double)hs->errors);
		metrics_one(b, "ibsmd_http_rejected_total", "counter",
			    "HTTP connections refused: too many at once, or replies queued.",
			    (double)hs->rejected);
		metrics_one(b, "ibsmd_http_timeouts_total", "counter",
			    "HTTP connections closed for being too slow.", (double)hs->timeouts);
		metrics_one(b, "ibsmd_http_clients", "gauge", "HTTP connections open.",
			    hs->clients);
		metrics_one(b, "ibsmd_http_queued_bytes", "gauge",
			    "Reply bytes waiting to be sent to HTTP clients.", (double)hs->queued);
		metrics_one(b, "ibsmd_http_auth_failures_total", "counter",
			    "HTTP requests whose credentials did not check.",
			    (double)hs->auth_failures);
		metrics_one(b, "ibsmd_http_rate_limited_total", "counter",
			    "HTTP requests refused over http_rate_limit.",
			    (double)hs->rate_limited);
		metrics_one(b, "ibsmd_http_writes_total", "counter",
			    "Runtime partition writes over HTTP that succeeded.",
			    (double)hs->writes);
	}
	metrics_ports(b, sm, f);
	metrics_links(b, f);
	text = api_text_end(&t);
	if (text && ret_len)
		*ret_len = t.len;
	return text;
}

int metrics_command(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		    struct ctl_error *err)
{
	struct api *api = ctx;
	char *text;

	if (api_check_args(args, NULL, err))
		return -EINVAL;
	text = metrics_text(api, NULL);
	if (!text)
		return -ENOMEM;
	*ret = json_string(text);
	free(text);
	return *ret ? 0 : -ENOMEM;
}

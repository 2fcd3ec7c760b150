/*
 * The `counters` read command (docs/protocol.md): what the performance
 * manager (perf/perfmgr.c) read of each port, joined with the published
 * snapshot for names, state, width and speed.  Without arguments one flat
 * row per port (totals, rates, health); with "node" (and "port") every
 * counter of those ports: the last raw reading (what perfquery shows), the
 * last interval's deltas and rates, and the totals since the port was first
 * read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/names.h"
#include "perf/perfmgr.h"
#include "ui/api_int.h"
#include "ui/stat.h"

/* The PERFMGR_R_* bits as an array of names. */
static json_t *api_counters_reasons(uint32_t reasons)
{
	json_t *a = json_array();

	for (unsigned b = 0; a && b < PERFMGR_NREASONS; b++)
		if (reasons & (1u << b))
			json_array_append_new(a, json_string(perfmgr_reason_name(1u << b)));
	return a;
}

/* Bytes for the data counters (4-octet units on the wire), the count for the rest. */
static double api_counters_scale(enum perfmgr_counter c)
{
	return perfmgr_counter_info[c].kind == PERFMGR_KIND_DATA ? 4.0 : 1.0;
}

uint64_t api_counters_errors(const uint64_t *v)
{
	uint64_t sum = 0;

	for (int c = 0; c < PERFMGR_NCOUNTERS; c++)
		if (perfmgr_counter_info[c].kind == PERFMGR_KIND_ERROR)
			sum += v[c];
	return sum;
}

/* Fields every view of a port has: who it is and how the snapshot sees it. */
static json_t *api_counters_head(const struct fabric *f, const struct perfmgr_port *p)
{
	uint32_t ni = f ? fabric_find_guid(f, p->node_guid) : FABRIC_NO_NODE;
	const struct node *n = ni != FABRIC_NO_NODE ? &f->nodes[ni] : NULL;
	const struct port *sp = n && p->port <= n->nports ? &n->ports[p->port] : NULL;
	json_t *o;

	o = json_pack("{s:o, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:b, s:o}", "node_guid",
		      api_guid(p->node_guid), "node_desc", n ? n->desc : "", "node_type",
		      names_node_type(p->node_type), "port", p->port, "lid", p->lid, "state",
		      sp ? names_port_state(sp->state) : "gone", "width",
		      sp ? names_width(sp->width_active) ?: "?" : "?", "speed",
		      sp ? api_port_speed(f, sp, NULL) : "?", "healthy", !p->unhealthy, "reasons",
		      api_counters_reasons(p->unhealthy_reasons));
	if (o && p->unhealthy)
		json_object_set_new(o, "unhealthy_since", json_real(p->unhealthy_since));
	return o;
}

/* One flat row: the table of `smctl counters` and of the web page. */
static json_t *api_counters_row(const struct fabric *f, const struct perfmgr_port *p)
{
	json_t *o = api_counters_head(f, p);

	if (!o)
		return NULL;
	json_object_set_new(o, "xmit_bytes",
			    json_integer((json_int_t)(4 * p->total[PERFMGR_XMIT_DATA])));
	json_object_set_new(o, "rcv_bytes",
			    json_integer((json_int_t)(4 * p->total[PERFMGR_RCV_DATA])));
	json_object_set_new(o, "xmit_pkts", json_integer((json_int_t)p->total[PERFMGR_XMIT_PKTS]));
	json_object_set_new(o, "rcv_pkts", json_integer((json_int_t)p->total[PERFMGR_RCV_PKTS]));
	json_object_set_new(o, "errors", json_integer((json_int_t)api_counters_errors(p->total)));
	json_object_set_new(o, "errors_last",
			    json_integer((json_int_t)api_counters_errors(p->delta)));
	json_object_set_new(o, "xmit_bytes_per_s", json_real(4 * p->rate[PERFMGR_XMIT_DATA]));
	json_object_set_new(o, "rcv_bytes_per_s", json_real(4 * p->rate[PERFMGR_RCV_DATA]));
	return o;
}

/* Every counter of one port. */
static json_t *api_counters_detail(const struct fabric *f, const struct perfmgr_port *p)
{
	json_t *o = api_counters_head(f, p), *raw = json_object(), *delta = json_object(),
	       *total = json_object(), *rate = json_object(), *sat = json_array();

	if (!o || !raw || !delta || !total || !rate || !sat) {
		json_decref(o);
		json_decref(raw);
		json_decref(delta);
		json_decref(total);
		json_decref(rate);
		json_decref(sat);
		return NULL;
	}
	for (int c = 0; c < PERFMGR_NCOUNTERS; c++) {
		const struct perfmgr_counter_info *ci = &perfmgr_counter_info[c];

		/* the Extended-only counters mean nothing without Extended */
		if (!ci->bits && !p->last.ext)
			continue;
		json_object_set_new(raw, ci->name, json_integer((json_int_t)p->last.v[c]));
		json_object_set_new(delta, ci->name, json_integer((json_int_t)p->delta[c]));
		json_object_set_new(total, ci->name, json_integer((json_int_t)p->total[c]));
		json_object_set_new(
		    rate, ci->name,
		    json_real(p->rate[c] * api_counters_scale((enum perfmgr_counter)c)));
		if (p->saturated & (1u << c))
			json_array_append_new(sat, json_string(ci->name));
	}
	json_object_set_new(o, "extended", json_boolean(p->last.ext));
	json_object_set_new(o, "readings", json_integer((json_int_t)p->readings));
	json_object_set_new(o, "failures", json_integer((json_int_t)p->failures));
	json_object_set_new(o, "wraps", json_integer((json_int_t)p->wraps));
	json_object_set_new(o, "resets", json_integer((json_int_t)p->resets));
	json_object_set_new(o, "clears", json_integer((json_int_t)p->clears));
	json_object_set_new(o, "interval_s", json_real(p->interval_s));
	json_object_set_new(o, "counters", raw);
	json_object_set_new(o, "delta", delta);
	json_object_set_new(o, "total", total);
	json_object_set_new(o, "rate", rate);
	json_object_set_new(o, "saturated", sat);
	return o;
}

json_t *api_perfmgr_json(const struct sm *sm)
{
	struct perfmgr_stats st;

	perfmgr_get_stats(perfmgr_of(sm), &st);
	return stat_json(&perfmgr_stat_table, &st);
}

int api_counters(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"node", "port", NULL};
	struct api *api = ctx;
	struct sm *sm = api->sm;
	const struct snapshot *snap = sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	json_t *jnode = json_object_get(args, "node"), *jport = json_object_get(args, "port");
	const struct perfmgr_port *ports = NULL;
	size_t n = 0;
	uint64_t guid = 0;
	long want_port = -1;
	json_t *o, *a;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jport && !jnode)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "\"port\" needs \"node\"");
	if (jport) {
		if (json_is_integer(jport)) {
			want_port = (long)json_integer_value(jport);
		} else if (json_is_string(jport)) {
			char *end;

			want_port = strtol(json_string_value(jport), &end, 10);
			if (*end || end == json_string_value(jport))
				want_port = -1;
		}
		if (want_port < 1 || want_port > 254)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "port must be a port number 1..254");
	}
	if (jnode) {
		uint32_t ni;
		uint8_t pn;

		if (api_need_fabric(api, err) || api_resolve(snap, jnode, "node", &ni, &pn, err))
			return -EINVAL;
		guid = f->nodes[ni].guid;
		if (want_port > f->nodes[ni].nports)
			return ctl_error_set(err, CTL_ERR_NOT_FOUND, "node %.64s has %u ports",
					     f->nodes[ni].desc, f->nodes[ni].nports);
	}
	ports = perfmgr_ports(perfmgr_of(sm), &n);
	o = api_perfmgr_json(sm);
	a = json_array();
	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct perfmgr_port *p = &ports[i];

		if (!p->have || (jnode && p->node_guid != guid) ||
		    (want_port > 0 && p->port != want_port))
			continue;
		json_array_append_new(a,
				      jnode ? api_counters_detail(f, p) : api_counters_row(f, p));
	}
	if (jport && !json_array_size(a)) {
		json_decref(o);
		json_decref(a);
		return ctl_error_set(err, CTL_ERR_NOT_FOUND,
				     "no counters for port %ld of that node (not ACTIVE, or not "
				     "read yet: is perfmgr on?)",
				     want_port);
	}
	json_object_set_new(o, "port_counters", a);
	*ret = o;
	return 0;
}

/*
 * The performance manager (see perfmgr.h).  IBA 1.4 vol 1, 16.1.3.5
 * PortCounters and 16.1.4.11 PortCountersExtended, read with LID-routed
 * PerfMgt Gets to QP1 of each port's PMA.
 *
 * Like OpenSM's PerfMgr it sweeps on its own timer and keeps a reading per
 * port.  Where we differ: OpenSM keeps a separate thread and a database
 * under a lock; here the loop owns everything, the queries share the
 * transaction engine's bulk lane with a bounded share (perfmgr_max_outstanding)
 * and hold back while a heavy sweep runs.  OpenSM clears counters when they
 * pass a threshold by default; we clear only when perfmgr_clear_counters is
 * set, so perfquery and other readers see what the port counted.
 *
 * Cost: two MADs per active port per sweep (one where Extended is refused);
 * the port table is one array with a u64map index by (node GUID, port).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "fabric/fabric.h"
#include "fabric/snapshot.h"
#include "lib/log.h"
#include "lib/u64map.h"
#include "mad/perf_wire.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "perf/perfmgr.h"
#include "sm/part.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

#define PERFMGR_CLEAR_FRACTION 0.75

const struct perfmgr_counter_info perfmgr_counter_info[PERFMGR_NCOUNTERS] = {
    [PERFMGR_SYMBOL_ERRORS] = {"symbol_errors", "SymbolErrorCounter", 16, PERFMGR_KIND_ERROR,
			       PERFMGR_R_SYMBOL},
    [PERFMGR_LINK_ERROR_RECOVERY] = {"link_error_recovery", "LinkErrorRecoveryCounter", 8,
				     PERFMGR_KIND_ERROR, PERFMGR_R_LINK_DOWNED},
    [PERFMGR_LINK_DOWNED] = {"link_downed", "LinkDownedCounter", 8, PERFMGR_KIND_ERROR,
			     PERFMGR_R_LINK_DOWNED},
    [PERFMGR_RCV_ERRORS] = {"rcv_errors", "PortRcvErrors", 16, PERFMGR_KIND_ERROR, PERFMGR_R_RCV},
    [PERFMGR_RCV_REMOTE_PHYS_ERRORS] = {"rcv_remote_phys_errors", "PortRcvRemotePhysicalErrors", 16,
					PERFMGR_KIND_ERROR, PERFMGR_R_RCV},
    [PERFMGR_RCV_SWITCH_RELAY_ERRORS] = {"rcv_switch_relay_errors", "PortRcvSwitchRelayErrors", 16,
					 PERFMGR_KIND_ERROR, PERFMGR_R_RCV},
    [PERFMGR_XMIT_DISCARDS] = {"xmit_discards", "PortXmitDiscards", 16, PERFMGR_KIND_ERROR,
			       PERFMGR_R_XMIT_DISCARDS},
    [PERFMGR_XMIT_CONSTRAINT_ERRORS] = {"xmit_constraint_errors", "PortXmitConstraintErrors", 8,
					PERFMGR_KIND_ERROR, PERFMGR_R_XMIT_DISCARDS},
    [PERFMGR_RCV_CONSTRAINT_ERRORS] = {"rcv_constraint_errors", "PortRcvConstraintErrors", 8,
				       PERFMGR_KIND_ERROR, PERFMGR_R_RCV},
    [PERFMGR_LOCAL_LINK_INTEGRITY_ERRORS] = {"local_link_integrity_errors",
					     "LocalLinkIntegrityErrors", 4, PERFMGR_KIND_ERROR,
					     PERFMGR_R_RCV},
    [PERFMGR_EXCESSIVE_BUFFER_OVERRUN] = {"excessive_buffer_overrun_errors",
					  "ExcessiveBufferOverrunErrors", 4, PERFMGR_KIND_ERROR,
					  PERFMGR_R_RCV},
    [PERFMGR_VL15_DROPPED] = {"vl15_dropped", "VL15Dropped", 16, PERFMGR_KIND_ERROR, 0},
    [PERFMGR_XMIT_WAIT] = {"xmit_wait", "PortXmitWait", 32, PERFMGR_KIND_WAIT, 0},
    [PERFMGR_XMIT_DATA] = {"xmit_data", "PortXmitData", 32, PERFMGR_KIND_DATA, 0},
    [PERFMGR_RCV_DATA] = {"rcv_data", "PortRcvData", 32, PERFMGR_KIND_DATA, 0},
    [PERFMGR_XMIT_PKTS] = {"xmit_pkts", "PortXmitPkts", 32, PERFMGR_KIND_PKTS, 0},
    [PERFMGR_RCV_PKTS] = {"rcv_pkts", "PortRcvPkts", 32, PERFMGR_KIND_PKTS, 0},
    [PERFMGR_UNICAST_XMIT_PKTS] = {"unicast_xmit_pkts", "PortUnicastXmitPkts", 0, PERFMGR_KIND_PKTS,
				   0},
    [PERFMGR_UNICAST_RCV_PKTS] = {"unicast_rcv_pkts", "PortUnicastRcvPkts", 0, PERFMGR_KIND_PKTS,
				  0},
    [PERFMGR_MULTICAST_XMIT_PKTS] = {"multicast_xmit_pkts", "PortMulticastXmitPkts", 0,
				     PERFMGR_KIND_PKTS, 0},
    [PERFMGR_MULTICAST_RCV_PKTS] = {"multicast_rcv_pkts", "PortMulticastRcvPkts", 0,
				    PERFMGR_KIND_PKTS, 0},
};

static void perfmgr_free(struct sm *sm, void *obj);

static const struct sm_part_ops perfmgr_part = {"perfmgr", perfmgr_free};

const char *perfmgr_reason_name(uint32_t bit)
{
	switch (bit) {
	case PERFMGR_R_SYMBOL:
		return "symbol_errors";
	case PERFMGR_R_LINK_DOWNED:
		return "link_downed";
	case PERFMGR_R_RCV:
		return "rcv_errors";
	case PERFMGR_R_XMIT_DISCARDS:
		return "xmit_discards";
	}
	return NULL;
}

/* ---- counter arithmetic ------------------------------------------------- */

static uint64_t perfmgr_max(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

uint64_t perfmgr_delta(uint64_t prev, uint64_t cur, unsigned bits, bool *ret_wrapped,
		       bool *ret_reset)
{
	uint64_t max = perfmgr_max(bits);
	bool wrapped = false, reset = false;
	uint64_t d;

	if (cur >= prev) {
		d = cur - prev;
	} else if (bits == 32 && prev > max / 2 && cur <= max / 2) {
		wrapped = true;
		d = (max - prev) + cur + 1;
	} else {
		reset = true;
		d = cur;
	}
	if (ret_wrapped)
		*ret_wrapped = wrapped;
	if (ret_reset)
		*ret_reset = reset;
	return d;
}

unsigned perfmgr_width(enum perfmgr_counter c, const struct perfmgr_reading *r)
{
	const struct perfmgr_counter_info *ci = &perfmgr_counter_info[c];

	if (ci->kind == PERFMGR_KIND_DATA || ci->kind == PERFMGR_KIND_PKTS)
		return r->ext ? 64 : ci->bits;
	return ci->bits;
}

void perfmgr_reading_from_wire(const struct wire_port_counters *pc,
			       const struct wire_port_counters_ext *x, struct perfmgr_reading *ret)
{
	struct perfmgr_reading r;

	memset(&r, 0, sizeof(r));
	r.v[PERFMGR_SYMBOL_ERRORS] = pc->symbol_errors;
	r.v[PERFMGR_LINK_ERROR_RECOVERY] = pc->link_error_recovery;
	r.v[PERFMGR_LINK_DOWNED] = pc->link_downed;
	r.v[PERFMGR_RCV_ERRORS] = pc->rcv_errors;
	r.v[PERFMGR_RCV_REMOTE_PHYS_ERRORS] = pc->rcv_remote_phys_errors;
	r.v[PERFMGR_RCV_SWITCH_RELAY_ERRORS] = pc->rcv_switch_relay_errors;
	r.v[PERFMGR_XMIT_DISCARDS] = pc->xmit_discards;
	r.v[PERFMGR_XMIT_CONSTRAINT_ERRORS] = pc->xmit_constraint_errors;
	r.v[PERFMGR_RCV_CONSTRAINT_ERRORS] = pc->rcv_constraint_errors;
	r.v[PERFMGR_LOCAL_LINK_INTEGRITY_ERRORS] = pc->local_link_integrity_errors;
	r.v[PERFMGR_EXCESSIVE_BUFFER_OVERRUN] = pc->excessive_buffer_overrun;
	r.v[PERFMGR_VL15_DROPPED] = pc->vl15_dropped;
	r.v[PERFMGR_XMIT_WAIT] = pc->xmit_wait;
	if (x) {
		r.ext = true;
		r.v[PERFMGR_XMIT_DATA] = x->xmit_data;
		r.v[PERFMGR_RCV_DATA] = x->rcv_data;
		r.v[PERFMGR_XMIT_PKTS] = x->xmit_pkts;
		r.v[PERFMGR_RCV_PKTS] = x->rcv_pkts;
		r.v[PERFMGR_UNICAST_XMIT_PKTS] = x->unicast_xmit_pkts;
		r.v[PERFMGR_UNICAST_RCV_PKTS] = x->unicast_rcv_pkts;
		r.v[PERFMGR_MULTICAST_XMIT_PKTS] = x->multicast_xmit_pkts;
		r.v[PERFMGR_MULTICAST_RCV_PKTS] = x->multicast_rcv_pkts;
	} else {
		r.v[PERFMGR_XMIT_DATA] = pc->xmit_data;
		r.v[PERFMGR_RCV_DATA] = pc->rcv_data;
		r.v[PERFMGR_XMIT_PKTS] = pc->xmit_pkts;
		r.v[PERFMGR_RCV_PKTS] = pc->rcv_pkts;
	}
	*ret = r;
}

bool perfmgr_needs_clear(const struct perfmgr_reading *r)
{
	for (int c = 0; c < PERFMGR_NCOUNTERS; c++) {
		const struct perfmgr_counter_info *ci = &perfmgr_counter_info[c];
		unsigned w = perfmgr_width((enum perfmgr_counter)c, r);

		/* only what PortCounters holds can be cleared by a PortCounters Set */
		if (!ci->bits || w == 64)
			continue;
		if ((double)r->v[c] >= PERFMGR_CLEAR_FRACTION * (double)perfmgr_max(w))
			return true;
	}
	return false;
}

static uint64_t perfmgr_threshold_of(const struct perfmgr_thresholds *t, uint32_t reason)
{
	switch (reason) {
	case PERFMGR_R_SYMBOL:
		return t->symbol_errors;
	case PERFMGR_R_LINK_DOWNED:
		return t->link_downed;
	case PERFMGR_R_RCV:
		return t->rcv_errors;
	case PERFMGR_R_XMIT_DISCARDS:
		return t->xmit_discards;
	}
	return 0;
}

int perfmgr_port_update(struct perfmgr_port *p, const struct perfmgr_reading *r, double now,
			const struct perfmgr_thresholds *t)
{
	uint64_t sums[PERFMGR_NREASONS] = {0};
	double dt = now - p->t_last;
	uint32_t reasons = 0, saturated = 0;
	int changed = 0;

	for (int c = 0; c < PERFMGR_NCOUNTERS; c++)
		if (perfmgr_counter_info[c].bits &&
		    r->v[c] == perfmgr_max(perfmgr_width((enum perfmgr_counter)c, r)))
			saturated |= 1u << c;
	p->readings++;
	p->saturated = saturated;
	if (!p->have || p->last.ext != r->ext) {
		/* the baseline: nothing to compare with yet */
		p->have = true;
		p->last = *r;
		p->t_last = now;
		p->interval_s = 0;
		memset(p->delta, 0, sizeof(p->delta));
		memset(p->rate, 0, sizeof(p->rate));
		p->reasons = 0;
		return 0;
	}
	for (int c = 0; c < PERFMGR_NCOUNTERS; c++) {
		unsigned w = perfmgr_width((enum perfmgr_counter)c, r);
		bool wrapped, reset;
		uint64_t d = perfmgr_delta(p->last.v[c], r->v[c], w, &wrapped, &reset);
		uint32_t reason = perfmgr_counter_info[c].reason;

		p->wraps += wrapped;
		p->resets += reset;
		p->delta[c] = d;
		p->total[c] += d;
		p->rate[c] = dt > 0 ? (double)d / dt : 0;
		for (unsigned b = 0; b < PERFMGR_NREASONS; b++)
			if (reason == 1u << b)
				sums[b] += d;
	}
	for (unsigned b = 0; b < PERFMGR_NREASONS; b++) {
		uint64_t th = perfmgr_threshold_of(t, 1u << b);

		if (th && sums[b] >= th)
			reasons |= 1u << b;
	}
	p->last = *r;
	p->interval_s = dt;
	p->t_last = now;
	p->reasons = reasons;
	if (reasons) {
		p->clean = 0;
		if (!p->unhealthy) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			p->unhealthy = true;
			p->unhealthy_reasons = reasons;
			p->unhealthy_since = ts.tv_sec + ts.tv_nsec / 1e9;
			changed = 1;
		} else {
			p->unhealthy_reasons |= reasons;
		}
	} else if (p->unhealthy && ++p->clean >= PERFMGR_CLEAN_INTERVALS) {
		p->unhealthy = false;
		p->unhealthy_reasons = 0;
		p->clean = 0;
		changed = -1;
	}
	return changed;
}

/* ---- the manager ---------------------------------------------------------- */

struct perfmgr {
	struct sm *sm;
	struct event *timer;
	struct perfmgr_port *ports;
	size_t n, cap;
	struct u64map index; /* perfmgr_key(node GUID, port) -> ports[] index */
	/* the counter sweep running */
	bool running;
	bool waiting_sweep; /* held back by a heavy sweep */
	uint32_t cycle;
	size_t next;		  /* the next port to query */
	struct xact_batch *batch; /* the queries in flight */
	double t_start;
	struct perfmgr_stats st;
};

/* One request in flight. */
struct perfmgr_req {
	struct perfmgr *pm;
	uint32_t idx;
	uint32_t cycle;
	uint16_t attr;
	uint8_t method;
};

/* (node GUID, port) folded into the index's key; two ports may share one. */
static uint64_t perfmgr_key(uint64_t guid, uint8_t port)
{
	return guid ^ ((uint64_t)port << 56 | port);
}

static size_t perfmgr_lookup(const struct perfmgr *pm, uint64_t guid, uint8_t port)
{
	uint64_t key = perfmgr_key(guid, port);
	uint32_t c, i;

	for (i = u64map_first(&pm->index, key, &c); i != U64MAP_NONE;
	     i = u64map_next(&pm->index, key, &c))
		if (pm->ports[i].node_guid == guid && pm->ports[i].port == port)
			return i;
	return SIZE_MAX;
}

/* Rebuild the index for pm->n ports.  0 or -ENOMEM (the old index stays). */
static int perfmgr_reindex(struct perfmgr *pm)
{
	struct u64map idx = {0};

	if (pm->n > U64MAP_NONE - 1 || u64map_reserve(&idx, (uint32_t)pm->n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < pm->n; i++)
		u64map_add(&idx, perfmgr_key(pm->ports[i].node_guid, pm->ports[i].port),
			   (uint32_t)i);
	u64map_free(&pm->index);
	pm->index = idx;
	return 0;
}

/*
 * The ports of this counter sweep: every ACTIVE port of the snapshot with a
 * LID to reach it by, in node order; what was known of a port is kept, ports
 * that left are dropped.  0 or -ENOMEM (the old table stays).
 */
static int perfmgr_list(struct perfmgr *pm, const struct fabric *f)
{
	struct perfmgr_port *np;
	size_t n = 0, cap = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		cap += f->nodes[i].nports;
	np = calloc(cap ? cap : 1, sizeof(*np));
	if (!np)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];

		for (unsigned pn = 1; pn <= nd->nports; pn++) {
			const struct port *p = &nd->ports[pn];
			uint16_t lid = node_port_lid(nd, (uint8_t)pn);
			size_t old;

			if (p->state != PORT_ACTIVE || !lid)
				continue;
			old = perfmgr_lookup(pm, nd->guid, (uint8_t)pn);
			if (old != SIZE_MAX)
				np[n] = pm->ports[old];
			np[n].node_guid = nd->guid;
			np[n].port = (uint8_t)pn;
			np[n].node_type = nd->type;
			np[n].lid = lid;
			np[n].cycle = pm->cycle;
			n++;
		}
	}
	struct perfmgr_port *oldp = pm->ports;
	size_t oldn = pm->n, oldcap = pm->cap;

	pm->ports = np;
	pm->n = n;
	pm->cap = cap;
	if (perfmgr_reindex(pm) < 0) {
		pm->ports = oldp;
		pm->n = oldn;
		pm->cap = oldcap;
		free(np);
		return -ENOMEM;
	}
	free(oldp);
	return 0;
}

static void perfmgr_pump(struct perfmgr *pm);

static void perfmgr_health(struct perfmgr *pm, struct perfmgr_port *p, int changed)
{
	struct perfmgr_health_change hc = {p, changed > 0, p->unhealthy_reasons};
	char why[128] = "";
	size_t off = 0;

	for (unsigned b = 0; b < PERFMGR_NREASONS && off < sizeof(why); b++)
		if (hc.reasons & (1u << b))
			off += (size_t)snprintf(why + off, sizeof(why) - off, "%s%s",
						off ? "," : "", perfmgr_reason_name(1u << b));
	if (changed > 0)
		log_port(LOG_CAT_SWEEP, LOG_WARNING, p->node_guid, p->port,
			 "port 0x%016llx/%u: unhealthy: %s over the threshold in %.1f s",
			 (unsigned long long)p->node_guid, p->port, why, p->interval_s);
	else
		log_port(LOG_CAT_SWEEP, LOG_INFO, p->node_guid, p->port,
			 "port 0x%016llx/%u: healthy again after %d clean counter sweeps",
			 (unsigned long long)p->node_guid, p->port, PERFMGR_CLEAN_INTERVALS);
	hook_run(&pm->sm->hooks.port_health, &hc);
}

static void perfmgr_done(void *arg, int status, const uint8_t *req, const struct wire_mad_hdr *hdr,
			 const uint8_t *resp, size_t len);

static int perfmgr_submit(struct perfmgr *pm, uint32_t idx, uint8_t method, uint16_t attr,
			  const struct wire_port_counters *set)
{
	struct perfmgr_port *p = &pm->ports[idx];
	struct madio_dest to = {.dlid = p->lid, .qpn = 1, .qkey = 0, .sl = 0};
	uint8_t mad[WIRE_MAD_SIZE];
	struct perfmgr_req *rq;
	int r;

	wire_perf_request(mad, sizeof(mad), method, attr, p->port, set ? set->counter_select : 0);
	if (set)
		wire_port_counters_encode(set, mad + WIRE_PERF_DATA_OFFSET,
					  sizeof(mad) - WIRE_PERF_DATA_OFFSET);
	rq = malloc(sizeof(*rq));
	if (!rq)
		return -ENOMEM;
	*rq = (struct perfmgr_req){pm, idx, pm->cycle, attr, method};
	r = xact_submit(pm->sm->xe, &(struct xact_request){.batch = pm->batch,
							   .mad = mad,
							   .len = sizeof(mad),
							   .to = &to,
							   .mad_done = perfmgr_done,
							   .arg = rq});
	if (r < 0) {
		free(rq);
		return r;
	}
	pm->st.mads++;
	return 0;
}

static struct perfmgr_thresholds perfmgr_thresholds_of(const struct sm *sm)
{
	return (struct perfmgr_thresholds){(uint64_t)sm->conf.perfmgr_threshold_symbol_errors,
					   (uint64_t)sm->conf.perfmgr_threshold_link_downed,
					   (uint64_t)sm->conf.perfmgr_threshold_rcv_errors,
					   (uint64_t)sm->conf.perfmgr_threshold_xmit_discards};
}

/* A reading is complete: fold it in, clear where configured. */
static void perfmgr_reading_done(struct perfmgr *pm, uint32_t idx,
				 const struct wire_port_counters_ext *x)
{
	struct perfmgr_port *p = &pm->ports[idx];
	struct perfmgr_thresholds t = perfmgr_thresholds_of(pm->sm);
	struct perfmgr_reading r;
	int changed;

	perfmgr_reading_from_wire(&p->pending, x, &r);
	changed = perfmgr_port_update(p, &r, clock_mono_s(), &t);
	if (changed)
		perfmgr_health(pm, p, changed);
	if (pm->sm->conf.perfmgr_clear_counters && perfmgr_needs_clear(&r)) {
		struct wire_port_counters set = {
		    .port_select = p->port, .counter_select = 0xffff, .counter_select2 = 0xff};

		if (perfmgr_submit(pm, idx, WIRE_SET, WIRE_ATTR_PERF_PC, &set) == 0) {
			pm->st.clears++;
			p->clears++;
		}
	}
}

/* The attribute data of a whole PerfMgt response (len >= WIRE_PERF_DATA_OFFSET). */
static int perfmgr_data_decode_pc(const uint8_t *mad, size_t len, struct wire_port_counters *ret)
{
	return wire_port_counters_decode(mad + WIRE_PERF_DATA_OFFSET, len - WIRE_PERF_DATA_OFFSET,
					 ret);
}

static int perfmgr_data_decode_pcx(const uint8_t *mad, size_t len,
				   struct wire_port_counters_ext *ret)
{
	return wire_port_counters_ext_decode(mad + WIRE_PERF_DATA_OFFSET,
					     len - WIRE_PERF_DATA_OFFSET, ret);
}

static void perfmgr_done(void *arg, int status, const uint8_t *req, const struct wire_mad_hdr *hdr,
			 const uint8_t *resp, size_t len)
{
	struct perfmgr_req *rq = arg;
	struct perfmgr *pm = rq->pm;
	struct perfmgr_port *p;
	bool stale;

	if (status == -ECANCELED) {
		free(rq);
		return;
	}
	/* the engine checked the header only: a response too short for data is malformed */
	if (status == 0 && len < WIRE_PERF_DATA_OFFSET)
		status = -EBADMSG;
	/* the port table was rebuilt after this was sent: drop the answer */
	stale = rq->cycle != pm->cycle || rq->idx >= pm->n;
	p = stale ? NULL : &pm->ports[rq->idx];
	if (status < 0 && !(status == -EREMOTEIO && rq->attr == WIRE_ATTR_PERF_PCX))
		pm->st.failures++;
	if (p && rq->method == WIRE_SET) {
		if (status == 0) {
			/* cleared: what PortCounters holds starts again from 0 */
			for (int c = 0; c < PERFMGR_NCOUNTERS; c++)
				if (perfmgr_counter_info[c].bits &&
				    perfmgr_width((enum perfmgr_counter)c, &p->last) < 64)
					p->last.v[c] = 0;
		}
	} else if (p && rq->attr == WIRE_ATTR_PERF_PC) {
		if (status == 0 && perfmgr_data_decode_pc(resp, len, &p->pending) == 0) {
			if (p->no_ext)
				perfmgr_reading_done(pm, rq->idx, NULL);
			else if (perfmgr_submit(pm, rq->idx, WIRE_GET, WIRE_ATTR_PERF_PCX, NULL) <
				 0)
				p->failures++;
		} else {
			p->failures++;
			log_port_ratelimited(LOG_CAT_MAD, LOG_DEBUG, p->node_guid, p->port,
					     "PortCounters: %s", strerror(-status));
		}
	} else if (p && rq->attr == WIRE_ATTR_PERF_PCX) {
		struct wire_port_counters_ext x;

		if (status == 0 && perfmgr_data_decode_pcx(resp, len, &x) == 0) {
			perfmgr_reading_done(pm, rq->idx, &x);
		} else if (status == -EREMOTEIO) {
			/* not supported: PortCounters alone from now on */
			p->no_ext = true;
			perfmgr_reading_done(pm, rq->idx, NULL);
		} else {
			p->failures++;
		}
	}
	free(rq);
	perfmgr_pump(pm);
}

static void perfmgr_cycle_end(struct perfmgr *pm)
{
	struct timespec ts;

	pm->running = false;
	pm->st.cycles++;
	pm->st.last_cycle_ms = (clock_mono_s() - pm->t_start) * 1e3;
	clock_gettime(CLOCK_REALTIME, &ts);
	pm->st.last_cycle_end = ts.tv_sec + ts.tv_nsec / 1e9;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "perfmgr: counter sweep %u: %zu ports in %.1f ms",
		pm->cycle, pm->n, pm->st.last_cycle_ms);
}

static void perfmgr_pump(struct perfmgr *pm)
{
	struct sm *sm = pm->sm;
	unsigned max = (unsigned)sm->conf.perfmgr_max_outstanding;

	if (!pm->running)
		return;
	while (pm->next < pm->n && xact_batch_pending(pm->batch) < max) {
		if (sweep_running(sm)) {
			if (!pm->waiting_sweep)
				pm->st.sweep_waits++;
			pm->waiting_sweep = true;
			return;
		}
		if (perfmgr_submit(pm, (uint32_t)pm->next, WIRE_GET, WIRE_ATTR_PERF_PC, NULL) < 0)
			pm->ports[pm->next].failures++;
		pm->next++;
	}
	pm->waiting_sweep = false;
	if (pm->next >= pm->n && !xact_batch_pending(pm->batch))
		perfmgr_cycle_end(pm);
}

static void perfmgr_cycle_start(struct perfmgr *pm)
{
	struct sm *sm = pm->sm;

	if (pm->running) {
		pm->st.skipped++;
		return;
	}
	/* a standby SM leaves the counters to the master */
	if (!sm->snap || !sm->xe || sm->state == SM_STANDBY || xact_batch_pending(pm->batch))
		return;
	pm->cycle++;
	if (perfmgr_list(pm, sm->snap->fabric) < 0) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"perfmgr: out of memory listing the ports: counter sweep skipped");
		return;
	}
	pm->running = true;
	pm->next = 0;
	pm->t_start = clock_mono_s();
	perfmgr_pump(pm);
}

static void perfmgr_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	perfmgr_cycle_start(arg);
}

/* A heavy sweep ended: go on where we held back. */
static void perfmgr_on_sweep_done(void *ctx, const void *data)
{
	struct perfmgr *pm = ctx;

	if (pm->waiting_sweep)
		perfmgr_pump(pm);
}

/* The first snapshot: no need to wait a whole interval for the first readings. */
static void perfmgr_on_published(void *ctx, const void *old)
{
	struct perfmgr *pm = ctx;

	if (pm->sm->conf.perfmgr && !pm->st.cycles && !pm->running)
		perfmgr_cycle_start(pm);
}

void perfmgr_schedule(struct sm *sm)
{
	struct perfmgr *pm = sm_part_get(sm, &perfmgr_part);
	struct timeval tv = {sm->conf.perfmgr_sweep_time_s, 0};

	if (!pm)
		return;
	if (pm->timer)
		evtimer_del(pm->timer);
	pm->st.enabled = sm->conf.perfmgr;
	if (!sm->conf.perfmgr) {
		/* what is in flight completes; nothing new starts */
		pm->running = false;
		return;
	}
	if (!pm->timer)
		pm->timer = event_new(sm->base, -1, EV_PERSIST, perfmgr_timer_cb, pm);
	if (!pm->timer || evtimer_add(pm->timer, &tv) < 0)
		log_err("perfmgr: cannot arm the counter sweep timer");
	if (sm->snap && !pm->running)
		perfmgr_cycle_start(pm);
}

/* perfmgr, perfmgr_sweep_time_s changed: start, stop or re-time the counter sweeps. */
static int perfmgr_apply(void *ctx, struct sm *sm, const char *key, const struct sm_conf *old,
			 char *err, size_t err_len)
{
	perfmgr_schedule(sm);
	return 0;
}

int perfmgr_attach(struct sm *sm, char *err, size_t err_len)
{
	struct perfmgr *pm = calloc(1, sizeof(*pm));

	if (!pm || sm_part_add(sm, &perfmgr_part, pm) < 0) {
		free(pm);
		goto fail;
	}
	pm->sm = sm;
	if ((sm->xe && !(pm->batch = xact_batch_new(sm->xe, NULL, NULL))) ||
	    hook_add(&sm->hooks.sweep_done, perfmgr_on_sweep_done, pm) < 0 ||
	    hook_add(&sm->hooks.published, perfmgr_on_published, pm) < 0 ||
	    sm_conf_applier_add(sm, "perfmgr", perfmgr_apply, NULL) < 0 ||
	    sm_conf_applier_add(sm, "perfmgr_sweep_time_s", perfmgr_apply, NULL) < 0)
		goto fail; /* the part is registered: sm_fini frees it */
	perfmgr_schedule(sm);
	return 0;
fail:
	snprintf(err, err_len, "out of memory setting up the performance manager");
	return -ENOMEM;
}

static void perfmgr_free(struct sm *sm, void *obj)
{
	struct perfmgr *pm = obj;

	if (!pm)
		return;
	hook_remove(&sm->hooks.sweep_done, perfmgr_on_sweep_done, pm);
	hook_remove(&sm->hooks.published, perfmgr_on_published, pm);
	sm_conf_applier_remove(sm, "perfmgr", perfmgr_apply, NULL);
	sm_conf_applier_remove(sm, "perfmgr_sweep_time_s", perfmgr_apply, NULL);
	if (pm->timer)
		event_free(pm->timer);
	xact_batch_free(pm->batch); /* what is still in flight is cancelled */
	free(pm->ports);
	u64map_free(&pm->index);
	free(pm);
}

const struct perfmgr *perfmgr_of(const struct sm *sm)
{
	return sm_part_get(sm, &perfmgr_part);
}

static const struct stat_field perfmgr_stat_fields[] = {
    STAT_FIELD(struct perfmgr_stats, enabled, "enabled", "ibsmd_perfmgr_enabled", STAT_GAUGE,
	       "1 when the performance manager runs."),
    STAT_FIELD(struct perfmgr_stats, running, "running", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct perfmgr_stats, sweep_time_s, "sweep_time_s", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct perfmgr_stats, cycles, "cycles", "ibsmd_perfmgr_sweeps_total", STAT_COUNTER,
	       "Counter sweeps finished."),
    STAT_FIELD_SCALED(struct perfmgr_stats, last_cycle_ms, "last_cycle_ms",
		      "ibsmd_perfmgr_last_sweep_seconds", STAT_GAUGE,
		      "Duration of the last counter sweep.", 1e-3),
    STAT_FIELD(struct perfmgr_stats, last_cycle_end, "last_cycle_end", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct perfmgr_stats, mads, "mads", "ibsmd_perfmgr_mads_total", STAT_COUNTER,
	       "PerfMgt MADs sent."),
    STAT_FIELD(struct perfmgr_stats, failures, "failures", "ibsmd_perfmgr_mad_failures_total",
	       STAT_COUNTER, "PerfMgt MADs that timed out or were answered with an error."),
    STAT_FIELD(struct perfmgr_stats, skipped, "skipped", NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct perfmgr_stats, sweep_waits, "sweep_waits", NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct perfmgr_stats, clears, "clears", NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct perfmgr_stats, ports, "ports", "ibsmd_perfmgr_ports", STAT_GAUGE,
	       "Ports whose counters are read."),
    STAT_FIELD(struct perfmgr_stats, unhealthy, "unhealthy", "ibsmd_perfmgr_unhealthy_ports",
	       STAT_GAUGE, "Ports over an error threshold (not yet clean again)."),
};

const struct stat_table perfmgr_stat_table = STAT_TABLE("perfmgr", perfmgr_stat_fields);

void perfmgr_get_stats(const struct perfmgr *pm, struct perfmgr_stats *ret)
{
	if (!pm) {
		memset(ret, 0, sizeof(*ret));
		return;
	}
	*ret = pm->st;
	ret->unhealthy = 0;
	for (size_t i = 0; i < pm->n; i++)
		ret->unhealthy += pm->ports[i].unhealthy;
	ret->running = pm->running;
	ret->ports = pm->n;
	ret->inflight = xact_batch_pending(pm->batch);
	ret->enabled = pm->sm->conf.perfmgr;
	ret->sweep_time_s = pm->sm->conf.perfmgr_sweep_time_s;
}

const struct perfmgr_port *perfmgr_ports(const struct perfmgr *pm, size_t *ret_n)
{
	*ret_n = pm ? pm->n : 0;
	return pm ? pm->ports : NULL;
}

const struct perfmgr_port *perfmgr_find(const struct perfmgr *pm, uint64_t node_guid, uint8_t port)
{
	size_t i = pm ? perfmgr_lookup(pm, node_guid, port) : SIZE_MAX;

	return i == SIZE_MAX ? NULL : &pm->ports[i];
}

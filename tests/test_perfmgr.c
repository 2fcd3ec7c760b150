/*
 * Unit tests of the performance manager: the PerfMgt codec (mad/perf_wire.c:
 * golden offsets, round trips, truncation at every length), the counter
 * arithmetic (deltas, wrap, reset, saturation, thresholds, health) and the
 * manager itself on a real event loop with a fake PMA behind the transaction
 * engine: every ACTIVE port read, never more than perfmgr_max_outstanding
 * MADs in flight, nothing sent while a heavy sweep runs, Extended refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "fabric/routes.h"
#include "fabric/snapshot.h"
#include "mad/perf_wire.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "perf/perfmgr.h"
#include "sm/sm.h"
#include "tests/testutil.h"

/* ---- codec -------------------------------------------------------------- */

static void test_pc_golden(void)
{
	uint8_t d[WIRE_PERF_DATA_SIZE] = {0};
	struct wire_port_counters pc, back;
	uint8_t again[WIRE_PERF_DATA_SIZE] = {0};

	/* IBA table 247: byte offsets of each component */
	d[1] = 7;		    /* PortSelect */
	d[2] = 0x12, d[3] = 0x34;   /* CounterSelect */
	d[4] = 0x01, d[5] = 0x02;   /* SymbolErrorCounter */
	d[6] = 3;		    /* LinkErrorRecoveryCounter */
	d[7] = 4;		    /* LinkDownedCounter */
	d[8] = 0x05, d[9] = 0x06;   /* PortRcvErrors */
	d[10] = 0x00, d[11] = 0x07; /* PortRcvRemotePhysicalErrors */
	d[12] = 0x00, d[13] = 0x08; /* PortRcvSwitchRelayErrors */
	d[14] = 0x00, d[15] = 0x09; /* PortXmitDiscards */
	d[16] = 10;		    /* PortXmitConstraintErrors */
	d[17] = 11;		    /* PortRcvConstraintErrors */
	d[18] = 0x5a;		    /* CounterSelect2 */
	d[19] = 0xcd;		    /* LocalLinkIntegrity 0xc, ExcessiveBufferOverrun 0xd */
	d[22] = 0x01, d[23] = 0x00; /* VL15Dropped */
	d[24] = 0xde, d[27] = 0x01; /* PortXmitData */
	d[28] = 0x01, d[31] = 0x02; /* PortRcvData */
	d[35] = 0x03;		    /* PortXmitPkts */
	d[39] = 0x04;		    /* PortRcvPkts */
	d[40] = 0xff, d[43] = 0xff; /* PortXmitWait */
	CU_ASSERT_EQUAL_FATAL(wire_port_counters_decode(d, sizeof(d), &pc), 0);
	CU_ASSERT_EQUAL(pc.port_select, 7);
	CU_ASSERT_EQUAL(pc.counter_select, 0x1234);
	CU_ASSERT_EQUAL(pc.symbol_errors, 0x0102);
	CU_ASSERT_EQUAL(pc.link_error_recovery, 3);
	CU_ASSERT_EQUAL(pc.link_downed, 4);
	CU_ASSERT_EQUAL(pc.rcv_errors, 0x0506);
	CU_ASSERT_EQUAL(pc.rcv_remote_phys_errors, 7);
	CU_ASSERT_EQUAL(pc.rcv_switch_relay_errors, 8);
	CU_ASSERT_EQUAL(pc.xmit_discards, 9);
	CU_ASSERT_EQUAL(pc.xmit_constraint_errors, 10);
	CU_ASSERT_EQUAL(pc.rcv_constraint_errors, 11);
	CU_ASSERT_EQUAL(pc.counter_select2, 0x5a);
	CU_ASSERT_EQUAL(pc.local_link_integrity_errors, 0xc);
	CU_ASSERT_EQUAL(pc.excessive_buffer_overrun, 0xd);
	CU_ASSERT_EQUAL(pc.vl15_dropped, 0x100);
	CU_ASSERT_EQUAL(pc.xmit_data, 0xde000001u);
	CU_ASSERT_EQUAL(pc.rcv_data, 0x01000002u);
	CU_ASSERT_EQUAL(pc.xmit_pkts, 3);
	CU_ASSERT_EQUAL(pc.rcv_pkts, 4);
	CU_ASSERT_EQUAL(pc.xmit_wait, 0xff0000ffu);
	/* encode -> the same image; decode -> the same struct */
	CU_ASSERT_EQUAL(wire_port_counters_encode(&pc, again, sizeof(again)), 0);
	CU_ASSERT_EQUAL(memcmp(again, d, WIRE_PERF_PC_SIZE), 0);
	CU_ASSERT_EQUAL(wire_port_counters_decode(again, sizeof(again), &back), 0);
	CU_ASSERT_EQUAL(memcmp(&back, &pc, sizeof(pc)), 0);
	/* truncation at every length */
	for (size_t n = 0; n < WIRE_PERF_PC_SIZE; n++) {
		CU_ASSERT_EQUAL(wire_port_counters_decode(d, n, &back), -EBADMSG);
		CU_ASSERT_EQUAL(wire_port_counters_encode(&pc, again, n), -ENOSPC);
	}
	CU_ASSERT_EQUAL(wire_port_counters_decode(NULL, sizeof(d), &back), -EBADMSG);
	pc.local_link_integrity_errors = 16;
	CU_ASSERT_EQUAL(wire_port_counters_encode(&pc, again, sizeof(again)), -EINVAL);
}

static void test_pcx_golden(void)
{
	uint8_t d[WIRE_PERF_DATA_SIZE] = {0}, again[WIRE_PERF_DATA_SIZE] = {0};
	struct wire_port_counters_ext x, back;

	d[1] = 3;
	d[3] = 0xff;
	for (int i = 0; i < 8; i++)
		d[8 + 8 * i] = (uint8_t)(0x10 + i), d[15 + 8 * i] = (uint8_t)(i + 1);
	CU_ASSERT_EQUAL_FATAL(wire_port_counters_ext_decode(d, sizeof(d), &x), 0);
	CU_ASSERT_EQUAL(x.port_select, 3);
	CU_ASSERT_EQUAL(x.counter_select, 0xff);
	CU_ASSERT(x.xmit_data == 0x1000000000000001ULL);
	CU_ASSERT(x.rcv_data == 0x1100000000000002ULL);
	CU_ASSERT(x.xmit_pkts == 0x1200000000000003ULL);
	CU_ASSERT(x.rcv_pkts == 0x1300000000000004ULL);
	CU_ASSERT(x.unicast_xmit_pkts == 0x1400000000000005ULL);
	CU_ASSERT(x.unicast_rcv_pkts == 0x1500000000000006ULL);
	CU_ASSERT(x.multicast_xmit_pkts == 0x1600000000000007ULL);
	CU_ASSERT(x.multicast_rcv_pkts == 0x1700000000000008ULL);
	CU_ASSERT_EQUAL(wire_port_counters_ext_encode(&x, again, sizeof(again)), 0);
	CU_ASSERT_EQUAL(memcmp(again, d, WIRE_PERF_PCX_SIZE), 0);
	CU_ASSERT_EQUAL(wire_port_counters_ext_decode(again, sizeof(again), &back), 0);
	CU_ASSERT_EQUAL(memcmp(&back, &x, sizeof(x)), 0);
	for (size_t n = 0; n < WIRE_PERF_PCX_SIZE; n++) {
		CU_ASSERT_EQUAL(wire_port_counters_ext_decode(d, n, &back), -EBADMSG);
		CU_ASSERT_EQUAL(wire_port_counters_ext_encode(&x, again, n), -ENOSPC);
	}
}

static void test_request(void)
{
	uint8_t mad[WIRE_MAD_SIZE];
	struct wire_mad_hdr h;

	CU_ASSERT_EQUAL(wire_perf_request(mad, sizeof(mad) - 1, WIRE_GET, WIRE_ATTR_PERF_PC, 1, 0),
			-ENOSPC);
	CU_ASSERT_EQUAL(
	    wire_perf_request(mad, sizeof(mad), WIRE_GET, WIRE_ATTR_PERF_PCX, 9, 0x1234),
	    WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(mad, sizeof(mad), &h), 0);
	CU_ASSERT_EQUAL(h.base_version, 1);
	CU_ASSERT_EQUAL(h.mgmt_class, WIRE_CLASS_PERF);
	CU_ASSERT_EQUAL(h.class_version, 1);
	CU_ASSERT_EQUAL(h.method, WIRE_GET);
	CU_ASSERT_EQUAL(h.attr_id, WIRE_ATTR_PERF_PCX);
	CU_ASSERT_EQUAL(mad[WIRE_PERF_DATA_OFFSET + 1], 9);
	CU_ASSERT_EQUAL(mad[WIRE_PERF_DATA_OFFSET + 2], 0x12);
	CU_ASSERT_EQUAL(mad[WIRE_PERF_DATA_OFFSET + 3], 0x34);
}

/* ---- arithmetic ------------------------------------------------------ */

static void test_delta(void)
{
	bool w, r;

	CU_ASSERT_EQUAL(perfmgr_delta(10, 15, 16, &w, &r), 5);
	CU_ASSERT(!w && !r);
	/* lower, 16 bits: someone cleared it */
	CU_ASSERT_EQUAL(perfmgr_delta(60000, 7, 16, &w, &r), 7);
	CU_ASSERT(!w && r);
	/* 32 bits from the upper half to the lower one: wrapped */
	CU_ASSERT_EQUAL(perfmgr_delta(0xfffffff0u, 0x10, 32, &w, &r), 0x20);
	CU_ASSERT(w && !r);
	/* 32 bits, lower but from the lower half: a reset */
	CU_ASSERT_EQUAL(perfmgr_delta(1000, 10, 32, &w, &r), 10);
	CU_ASSERT(!w && r);
	/* 4-bit counters stop at 15 */
	CU_ASSERT_EQUAL(perfmgr_delta(15, 15, 4, &w, &r), 0);
	CU_ASSERT_EQUAL(perfmgr_delta(0, UINT64_MAX, 64, NULL, NULL), UINT64_MAX);
	CU_ASSERT_EQUAL(perfmgr_delta(5, 3, 64, NULL, &r), 3);
	CU_ASSERT(r);
}

static void test_update(void)
{
	struct perfmgr_thresholds t = {.symbol_errors = 10, .link_downed = 1, .rcv_errors = 5};
	struct perfmgr_port p;
	struct perfmgr_reading r = {0};

	memset(&p, 0, sizeof(p));
	r.ext = true;
	r.v[PERFMGR_XMIT_DATA] = 1000;
	r.v[PERFMGR_SYMBOL_ERRORS] = 100; /* errors before we looked are no interval's */
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 10.0, &t), 0);
	CU_ASSERT(p.have);
	CU_ASSERT_EQUAL(p.total[PERFMGR_XMIT_DATA], 0);
	CU_ASSERT(!p.unhealthy);

	r.v[PERFMGR_XMIT_DATA] = 3000;
	r.v[PERFMGR_SYMBOL_ERRORS] = 105;
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 12.0, &t), 0);
	CU_ASSERT_EQUAL(p.delta[PERFMGR_XMIT_DATA], 2000);
	CU_ASSERT_EQUAL(p.total[PERFMGR_XMIT_DATA], 2000);
	CU_ASSERT_DOUBLE_EQUAL(p.rate[PERFMGR_XMIT_DATA], 1000.0, 1e-9);
	CU_ASSERT_EQUAL(p.delta[PERFMGR_SYMBOL_ERRORS], 5);
	CU_ASSERT(!p.unhealthy);

	/* receive-side errors add up: 3 + 2 >= 5 */
	r.v[PERFMGR_RCV_ERRORS] = 3;
	r.v[PERFMGR_LOCAL_LINK_INTEGRITY_ERRORS] = 2;
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 13.0, &t), 1);
	CU_ASSERT(p.unhealthy);
	CU_ASSERT_EQUAL(p.reasons, PERFMGR_R_RCV);
	CU_ASSERT_EQUAL(p.unhealthy_reasons, PERFMGR_R_RCV);
	/* a link down while unhealthy: no new change, one more reason */
	r.v[PERFMGR_LINK_DOWNED] = 1;
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 14.0, &t), 0);
	CU_ASSERT_EQUAL(p.unhealthy_reasons, PERFMGR_R_RCV | PERFMGR_R_LINK_DOWNED);
	/* clean for PERFMGR_CLEAN_INTERVALS intervals: healthy again */
	for (int i = 1; i < PERFMGR_CLEAN_INTERVALS; i++) {
		CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 14.0 + i, &t), 0);
		CU_ASSERT(p.unhealthy);
	}
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 20.0, &t), -1);
	CU_ASSERT(!p.unhealthy);
	CU_ASSERT_EQUAL(p.unhealthy_reasons, 0);

	/* a 0 threshold watches nothing */
	r.v[PERFMGR_XMIT_DISCARDS] = 60000;
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 21.0, &t), 0);
	CU_ASSERT(!p.unhealthy);

	/* Extended went away: a new baseline, totals kept */
	uint64_t total = p.total[PERFMGR_XMIT_DATA];
	r.ext = false;
	r.v[PERFMGR_XMIT_DATA] = 5;
	CU_ASSERT_EQUAL(perfmgr_port_update(&p, &r, 22.0, &t), 0);
	CU_ASSERT_EQUAL(p.total[PERFMGR_XMIT_DATA], total);
	/* 32-bit data counter saturated: flagged, and worth clearing */
	r.v[PERFMGR_XMIT_DATA] = 0xffffffffu;
	perfmgr_port_update(&p, &r, 23.0, &t);
	CU_ASSERT(p.saturated & (1u << PERFMGR_XMIT_DATA));
	CU_ASSERT_EQUAL(p.delta[PERFMGR_XMIT_DATA], 0xffffffffu - 5);
	CU_ASSERT(perfmgr_needs_clear(&r));
	/* then wrapped by a device that wraps */
	r.v[PERFMGR_XMIT_DATA] = 9;
	perfmgr_port_update(&p, &r, 24.0, &t);
	CU_ASSERT_EQUAL(p.delta[PERFMGR_XMIT_DATA], 10);
	CU_ASSERT_EQUAL(p.wraps, 1);
	/* with Extended the data counters are 64 bits and never need clearing */
	memset(&r, 0, sizeof(r));
	r.ext = true;
	r.v[PERFMGR_XMIT_DATA] = 0xffffffffu;
	CU_ASSERT(!perfmgr_needs_clear(&r));
	r.v[PERFMGR_SYMBOL_ERRORS] = 50000;
	CU_ASSERT(perfmgr_needs_clear(&r));
}

/* ---- the manager, with a fake PMA ---------------------------------------- */

static const char net[] = "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			  "Switch 4 \"S2\"\n[1] \"H3\"[1]\n[3] \"S1\"[3]\n\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			  "Hca 1 \"H3\"\n[1] \"S2\"[1]\n";

struct pma {
	struct sm sm;
	struct event_base *base;
	unsigned in_flight, max_in_flight, sent, sent_during_sweep;
	unsigned pc, pcx, sets;
	bool refuse_ext;  /* answer PortCountersExtended with status "unsupported attribute" */
	uint32_t errors;  /* PortRcvErrors every port reports */
	size_t reply_len; /* bytes of each answer: 0 = a whole MAD */
	uint8_t pending[64][WIRE_MAD_SIZE];
	unsigned n_pending;
};

/* Answer everything queued, as a PMA would: counters that grow with each read. */
static void pma_answer(evutil_socket_t fd, short what, void *arg)
{
	struct pma *p = arg;
	unsigned n = p->n_pending;
	uint8_t resp[WIRE_MAD_SIZE];

	p->n_pending = 0;
	for (unsigned i = 0; i < n; i++) {
		struct wire_mad_hdr h;
		uint8_t *q = p->pending[i];

		memcpy(resp, q, WIRE_MAD_SIZE);
		wire_mad_hdr_decode(q, WIRE_MAD_SIZE, &h);
		h.method = WIRE_GET_RESP;
		if (h.attr_id == WIRE_ATTR_PERF_PC) {
			struct wire_port_counters pc = {.port_select =
							    q[WIRE_PERF_DATA_OFFSET + 1]};

			pc.rcv_errors = (uint16_t)p->errors;
			pc.xmit_data = 100 * p->pc;
			wire_port_counters_encode(&pc, resp + WIRE_PERF_DATA_OFFSET,
						  WIRE_MAD_SIZE - WIRE_PERF_DATA_OFFSET);
		} else if (h.attr_id == WIRE_ATTR_PERF_PCX && p->refuse_ext) {
			h.status = 0x000c; /* unsupported method/attribute combination */
		} else if (h.attr_id == WIRE_ATTR_PERF_PCX) {
			struct wire_port_counters_ext x = {.port_select =
							       q[WIRE_PERF_DATA_OFFSET + 1]};

			x.xmit_data = 1000 * (uint64_t)p->pcx;
			wire_port_counters_ext_encode(&x, resp + WIRE_PERF_DATA_OFFSET,
						      WIRE_MAD_SIZE - WIRE_PERF_DATA_OFFSET);
		}
		wire_mad_hdr_encode(&h, resp, sizeof(resp));
		p->in_flight--;
		xact_input(p->sm.xe, resp, p->reply_len ? p->reply_len : sizeof(resp));
	}
}

static int pma_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		    unsigned timeout_ms)
{
	struct pma *p = ctx;
	struct wire_mad_hdr h;

	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_decode(mad, len, &h), 0);
	CU_ASSERT_EQUAL(h.mgmt_class, WIRE_CLASS_PERF);
	CU_ASSERT_EQUAL(to->qpn, 1);
	CU_ASSERT(to->dlid >= 1);
	CU_ASSERT_FATAL(p->n_pending < 64);
	if (h.method == WIRE_SET)
		p->sets++;
	else if (h.attr_id == WIRE_ATTR_PERF_PC)
		p->pc++;
	else
		p->pcx++;
	if (p->sm.sched.cur)
		p->sent_during_sweep++;
	p->sent++;
	if (++p->in_flight > p->max_in_flight)
		p->max_in_flight = p->in_flight;
	memcpy(p->pending[p->n_pending++], mad, WIRE_MAD_SIZE);
	if (p->n_pending == 1)
		event_base_once(p->base, -1, EV_TIMEOUT, pma_answer, p, &(struct timeval){0, 1000});
	return 0;
}

static void pma_init(struct pma *p)
{
	struct fabric *f = testutil_load_text(net);
	struct xact_opts xo = {32, 200, 1, false};
	struct routes *r;
	uint16_t max;
	char err[256];

	memset(p, 0, sizeof(*p));
	max = testutil_assign_lids(f, 0);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned pn = 1; pn <= f->nodes[i].nports; pn++)
			if (port_is_linked(&f->nodes[i].ports[pn]))
				f->nodes[i].ports[pn].state = PORT_ACTIVE;
	r = routes_new(f, max);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	p->base = event_base_new();
	p->sm.base = p->base;
	conf_defaults(&p->sm.conf);
	p->sm.conf.perfmgr = true;
	p->sm.conf.perfmgr_sweep_time_s = 3600;
	p->sm.conf.perfmgr_max_outstanding = 3;
	p->sm.conf.perfmgr_threshold_rcv_errors = 4;
	p->sm.state = SM_MASTER;
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &p->sm.snap), 0);
	p->sm.xe = xact_new(p->base, &xo, pma_send, p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->sm.xe);
	CU_ASSERT_EQUAL_FATAL(perfmgr_attach(&p->sm, err, sizeof(err)), 0);
}

static void pma_fini(struct pma *p)
{
	xact_free(p->sm.xe);
	sm_parts_free(&p->sm);
	free(p->sm.appliers);
	snapshot_free(p->sm.snap);
	hook_list_clear(&p->sm.hooks.published);
	hook_list_clear(&p->sm.hooks.sweep_done);
	hook_list_clear(&p->sm.hooks.port_health);
	event_base_free(p->base);
}

/* Run the loop until a counter sweep more has finished (bounded). */
static void pma_cycle(struct pma *p)
{
	struct perfmgr_stats st;
	uint64_t before;

	perfmgr_get_stats(perfmgr_of(&p->sm), &st);
	before = st.cycles;
	perfmgr_schedule(&p->sm); /* starts one now: the snapshot is there */
	for (int i = 0; i < 2000; i++) {
		event_base_loop(p->base, EVLOOP_ONCE);
		perfmgr_get_stats(perfmgr_of(&p->sm), &st);
		if (st.cycles > before && !st.inflight)
			return;
	}
	CU_FAIL("the counter sweep did not finish");
}

static unsigned health_changes;

static void on_health(void *ctx, const void *data)
{
	const struct perfmgr_health_change *hc = data;

	CU_ASSERT_PTR_NOT_NULL(hc->port);
	health_changes += hc->unhealthy ? 1 : 0;
}

static void test_manager(void)
{
	struct pma p;
	struct perfmgr_stats st;
	const struct perfmgr_port *port;
	size_t n;

	pma_init(&p);
	hook_add(&p.sm.hooks.port_health, on_health, NULL);
	pma_cycle(&p);
	perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	/* 8 ACTIVE ports: S1 1-3, S2 1 and 3, H1, H2, H3 */
	CU_ASSERT_EQUAL(st.ports, 8);
	CU_ASSERT_EQUAL(p.pc, 8);
	CU_ASSERT_EQUAL(p.pcx, 8);
	CU_ASSERT(p.max_in_flight <= 3);
	CU_ASSERT_EQUAL(st.mads, 16);
	CU_ASSERT_EQUAL(st.failures, 0);
	port = perfmgr_ports(perfmgr_of(&p.sm), &n);
	CU_ASSERT_EQUAL(n, 8);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(port[i].have);
		CU_ASSERT(port[i].last.ext);
	}
	/* a switch port is asked for through the switch's LID, with its number */
	port = perfmgr_find(perfmgr_of(&p.sm), p.sm.snap->fabric->nodes[0].guid, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port);
	CU_ASSERT_EQUAL(port->lid, p.sm.snap->fabric->nodes[0].ports[0].lid);
	CU_ASSERT_PTR_NULL(perfmgr_find(perfmgr_of(&p.sm), p.sm.snap->fabric->nodes[0].guid, 4));

	/* errors rise by 5 a port: over the threshold of 4, each port turns unhealthy once */
	p.errors = 5;
	pma_cycle(&p);
	perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	CU_ASSERT_EQUAL(st.unhealthy, 8);
	CU_ASSERT_EQUAL(health_changes, 8);
	port = perfmgr_find(perfmgr_of(&p.sm), p.sm.snap->fabric->nodes[0].guid, 1);
	CU_ASSERT_EQUAL(port->delta[PERFMGR_RCV_ERRORS], 5);
	CU_ASSERT(port->delta[PERFMGR_XMIT_DATA] > 0);

	/* a heavy sweep runs: nothing is sent until it is done */
	p.sm.sched.cur = (struct sweep *)&p; /* sweep_running() */
	unsigned sent = p.sent;
	perfmgr_schedule(&p.sm);
	for (int i = 0; i < 50; i++)
		event_base_loop(p.base, EVLOOP_NONBLOCK);
	CU_ASSERT_EQUAL(p.sent, sent);
	CU_ASSERT_EQUAL(p.sent_during_sweep, 0);
	perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	CU_ASSERT(st.sweep_waits >= 1);
	p.sm.sched.cur = NULL;
	hook_run(&p.sm.hooks.sweep_done, NULL);
	for (int i = 0; i < 2000 && (st.running || st.inflight); i++) {
		event_base_loop(p.base, EVLOOP_ONCE);
		perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	}
	CU_ASSERT(!st.running);
	CU_ASSERT_EQUAL(p.sent, sent + 16);
	pma_fini(&p);
}

static void test_manager_no_ext(void)
{
	struct pma p;
	struct perfmgr_stats st;
	const struct perfmgr_port *port;
	size_t n;

	pma_init(&p);
	p.refuse_ext = true;
	p.sm.conf.perfmgr_clear_counters = true;
	pma_cycle(&p);
	CU_ASSERT_EQUAL(p.pcx, 8);
	pma_cycle(&p);
	/* refused once: not asked again */
	CU_ASSERT_EQUAL(p.pcx, 8);
	CU_ASSERT_EQUAL(p.pc, 16);
	perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	CU_ASSERT_EQUAL(st.failures, 0);
	port = perfmgr_ports(perfmgr_of(&p.sm), &n);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(port[i].no_ext);
		CU_ASSERT(!port[i].last.ext);
	}
	CU_ASSERT_EQUAL(p.sets, 0);
	/* a 16-bit error counter past 3/4: cleared, where configured */
	p.errors = 60000;
	pma_cycle(&p);
	CU_ASSERT_EQUAL(p.sets, 8);
	port = perfmgr_ports(perfmgr_of(&p.sm), &n);
	CU_ASSERT_EQUAL(port[0].last.v[PERFMGR_RCV_ERRORS], 0);
	CU_ASSERT_EQUAL(port[0].clears, 1);
	pma_fini(&p);
}

/* An answer with a header but no room for the data: a failure, nothing read out of bounds. */
static void test_manager_short(void)
{
	struct pma p;
	struct perfmgr_stats st;
	const struct perfmgr_port *port;
	size_t n;

	pma_init(&p);
	p.reply_len = 40;
	pma_cycle(&p);
	perfmgr_get_stats(perfmgr_of(&p.sm), &st);
	CU_ASSERT_EQUAL(p.pc, 8);
	CU_ASSERT_EQUAL(p.pcx, 0);
	CU_ASSERT_EQUAL(st.failures, 8);
	port = perfmgr_ports(perfmgr_of(&p.sm), &n);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(!port[i].have);
		CU_ASSERT_EQUAL(port[i].failures, 1);
	}
	pma_fini(&p);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"PortCounters: golden offsets, round trip, truncation", test_pc_golden},
	    {"PortCountersExtended: golden offsets, round trip, truncation", test_pcx_golden},
	    {"a PerfMgt request", test_request},
	    {"deltas: growth, reset, wrap, saturation", test_delta},
	    {"a port: baseline, deltas, rates, thresholds, health", test_update},
	    {"the manager: every active port, a bounded window, held back by a sweep",
	     test_manager},
	    {"the manager: Extended refused, counters cleared where configured",
	     test_manager_no_ext},
	    {"the manager: an answer too short for its data", test_manager_short},
	    {NULL, NULL},
	};

	return testutil_run("perfmgr", cases);
}

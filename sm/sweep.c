/*
 * The heavy sweep (IBA 1.4 vol 1, 14.4 subnet management and 7.2 link states):
 *   1. discover the subnet by directed route (sm/discover.c);
 *   2. assign LIDs (sm/lid.c), persisting the guid->LID map;
 *   3. route with the configured engine (routing/), falling back along the
 *      chain when an engine refuses the topology;
 *   4. program: PortInfo (LID, LMC, SM LID, subnet prefix, neighbour MTU,
 *      operational VLs), P_Key index 0 = 0xFFFF, SwitchInfo LinearFDBTop and
 *      the LFT blocks that differ from what the switch was last given;
 *   5. activate: every INIT port with a live link -> ARMED, then -> ACTIVE;
 *   6. publish the snapshot.
 * Steps 4 and 5 run as batches of SMPs through the transaction engine; each
 * batch ends when its last SMP completes.  All SMPs are directed route, so
 * programming does not depend on the tables being programmed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mad/wire.h"
#include "fabric/lft.h"
#include "sm/dump.h"
#include "lib/log.h"
#include "routing/chain.h"
#include "sm/sm.h"
#include "sm/smstate.h"

enum op_kind {
	OP_PORTINFO,
	OP_PKEY,
	OP_SWITCHINFO,
	OP_LFT,
	OP_SL2VL,
	OP_VLARB,
	OP_ARM,
	OP_ACTIVATE
};

enum sweep_phase { PH_DISCOVER, PH_PROGRAM, PH_ARM, PH_ACTIVATE, PH_DONE };

struct sweep {
	struct sm *sm;
	enum sweep_phase phase;
	struct discover *disc;
	struct fabric *f;
	struct routes *routes;
	unsigned pending;
	struct sweep_summary sum;
	struct timespec t0;
	/* per-switch: LFT programming fully succeeded */
	bool *lft_ok;
	bool aborted;
};

struct sweep_op {
	struct sweep *sw;
	enum op_kind kind;
	uint32_t node;
	uint8_t port;
	uint32_t block;
};

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sweep_next_phase(struct sweep *sw);

static void sweep_destroy(struct sweep *sw)
{
	discover_free(sw->disc);
	fabric_free(sw->f);
	routes_free(sw->routes);
	free(sw->lft_ok);
	free(sw);
}

void sweep_abort(struct sm *sm)
{
	struct sweep *sw = sm->cur;

	if (!sw)
		return;
	sm->cur = NULL;
	if (sw->disc) {
		discover_free(sw->disc); /* frees itself once its SMPs are cancelled */
		sw->disc = NULL;
	}
	if (sw->pending)
		sw->aborted = true; /* the last cancelled SMP frees it */
	else
		sweep_destroy(sw);
}

static void op_done(void *arg, int status, const struct wire_smp *req, const struct wire_smp *resp)
{
	struct sweep_op *op = arg;
	struct sweep *sw = op->sw;
	struct node *n = &sw->f->nodes[op->node];

	sw->pending--;
	if (sw->aborted) {
		free(op);
		if (!sw->pending)
			sweep_destroy(sw);
		return;
	}
	if (status < 0) {
		sw->sum.set_errors++;
		if (status == -ETIMEDOUT)
			sw->sum.timeouts++;
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, op->port,
				     "node 0x%016llx \"%s\" port %u: Set attr 0x%04x mod 0x%x "
				     "failed: %s",
				     (unsigned long long)n->guid, n->desc, op->port, req->attr_id,
				     req->attr_mod, strerror(-status));
		if (op->kind == OP_LFT && sw->lft_ok)
			sw->lft_ok[op->node] = false;
	} else if (op->kind == OP_PORTINFO || op->kind == OP_ARM || op->kind == OP_ACTIVATE) {
		struct wire_portinfo pi;
		struct port *p = &n->ports[op->port];
		if (wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) == 0) {
			memcpy(p->pi, resp->data, sizeof(p->pi));
			p->state = pi.state;
			p->neighbor_mtu = pi.neighbor_mtu;
			p->oper_vls = pi.oper_vls;
		}
	}
	free(op);
	if (!sw->pending)
		sweep_next_phase(sw);
}

static void op_send(struct sweep *sw, enum op_kind kind, uint32_t node, uint8_t port,
		    uint32_t block, uint16_t attr, uint32_t mod, const uint8_t data[64])
{
	struct sweep_op *op;
	struct wire_smp smp;
	uint8_t path[FABRIC_DR_MAX_HOPS + 1];
	uint8_t hops;

	if (discover_port_path(sw->f, node, port, path, &hops) < 0 ||
	    wire_smp_init_dr(&smp, WIRE_SET, attr, mod, path, hops) < 0) {
		sw->sum.set_errors++;
		return;
	}
	memcpy(smp.data, data, sizeof(smp.data));
	op = calloc(1, sizeof(*op));
	if (!op) {
		sw->sum.set_errors++;
		return;
	}
	*op = (struct sweep_op){sw, kind, node, port, block};
	if (xact_submit(sw->sm->xe, &smp, op_done, op) < 0) {
		free(op);
		sw->sum.set_errors++;
		return;
	}
	sw->pending++;
	sw->sum.sets++;
}

static bool port_is_up(const struct port *p)
{
	return p->valid && p->phys_state == PHYS_LINKUP && p->state >= PORT_INIT;
}

static uint8_t min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* The PortInfo fields the SM sets differ between what a port holds and what we want. */
static bool portinfo_differs(const struct wire_portinfo *a, const struct wire_portinfo *b)
{
	return a->lid != b->lid || a->lmc != b->lmc || a->sm_lid != b->sm_lid ||
	       a->gid_prefix != b->gid_prefix || a->mkey != b->mkey ||
	       a->subnet_timeout != b->subnet_timeout || a->neighbor_mtu != b->neighbor_mtu ||
	       a->oper_vls != b->oper_vls;
}

/* Program one port's PortInfo when what it holds differs from what we want. */
static void program_port(struct sweep *sw, uint32_t ni, uint8_t pn)
{
	struct fabric *f = sw->f;
	struct node *n = &f->nodes[ni];
	struct port *p = &n->ports[pn];
	struct wire_portinfo cur, want;
	uint8_t data[64];
	bool lid_port = pn == 0 || !node_is_switch(n);
	const struct port *sm_port = &f->nodes[f->sm_node].ports[f->sm_port];

	if (!p->valid || wire_portinfo_decode(p->pi, sizeof(p->pi), &cur) < 0)
		return;
	want = cur;
	if (lid_port) {
		want.lid = p->lid;
		want.lmc = p->lmc;
		want.sm_lid = sm_port->lid;
		want.gid_prefix = sw->sm->conf.subnet_prefix;
		want.mkey = 0;
		want.subnet_timeout = want.subnet_timeout ? want.subnet_timeout : 18;
	}
	if (pn != 0 && port_is_linked(p)) {
		const struct port *rp = &f->nodes[p->remote_node].ports[p->remote_port];
		if (rp->valid) {
			want.neighbor_mtu = min8(p->mtu_cap, rp->mtu_cap);
			/* VLCap and OperationalVLs share an encoding (1: VL0 .. 5: VL0-14) */
			want.oper_vls = min8(p->vl_cap, rp->vl_cap);
			if (sw->routes->n_vls > 1 && want.oper_vls < 2)
				log_ratelimited(LOG_CAT_ROUTE, LOG_WARNING,
						"node 0x%016llx port %u supports only VL0 but %s "
						"routing needs %u VLs",
						(unsigned long long)n->guid, pn, sw->sum.engine,
						sw->routes->n_vls);
		}
	}
	want.state = PORT_NOP;
	want.phys_state = 0;
	cur.state = PORT_NOP;
	cur.phys_state = 0;
	/* OperationalVLs may only change while the port is not yet armed */
	if (p->state > PORT_INIT)
		want.oper_vls = cur.oper_vls;
	if (!portinfo_differs(&cur, &want))
		return;
	/*
	 * A port in INIT whose link is up can be armed by the same Set: INIT ->
	 * ARMED needs nothing from the neighbour (IBA 7.2.5), only ARMED ->
	 * ACTIVE does.  Saves one SMP per port on a fresh fabric.
	 */
	if (pn != 0 && p->state == PORT_INIT && port_is_linked(p))
		want.state = PORT_ARMED;
	memcpy(data, p->pi, sizeof(data));
	wire_portinfo_encode(&want, data, sizeof(data));
	op_send(sw, OP_PORTINFO, ni, pn, 0, WIRE_ATTR_PORT_INFO, pn, data);
}

static void program_switch(struct sweep *sw, uint32_t ni, const struct fabric *old_f,
			   const struct routes *old_r)
{
	struct node *n = &sw->f->nodes[ni];
	const uint8_t *lft = sw->routes->lft[ni];
	const uint8_t *old = NULL;
	int old_top = -1;
	int top = sw->routes->max_lid;
	uint32_t *blocks;
	size_t nb;
	struct wire_switchinfo si;
	uint8_t data[64];

	if (!lft)
		return;
	if (top >= n->lft_cap && n->lft_cap)
		top = n->lft_cap - 1;
	if (wire_switchinfo_decode(n->si, sizeof(n->si), &si) == 0 &&
	    (si.lft_top != top || si.port_state_change)) {
		si.lft_top = top;
		si.port_state_change = 1; /* writing 1 clears it */
		memcpy(data, n->si, sizeof(data));
		wire_switchinfo_encode(&si, data, sizeof(data));
		op_send(sw, OP_SWITCHINFO, ni, 0, 0, WIRE_ATTR_SWITCH_INFO, 0, data);
	}
	if (old_f && old_r && !sw->sm->force_lft) {
		uint32_t oi = fabric_find_guid(old_f, n->guid);
		if (oi != FABRIC_NO_NODE && oi < old_r->n_nodes && old_r->lft[oi] &&
		    old_f->nodes[oi].lft_top == si.lft_top) {
			old = old_r->lft[oi];
			old_top = old_r->max_lid;
		}
	}
	blocks = malloc((top / LFT_BLOCK + 1) * sizeof(*blocks));
	if (!blocks)
		return;
	nb = lft_diff(old, old_top, lft, top, blocks);
	for (size_t i = 0; i < nb; i++) {
		uint8_t ports[LFT_BLOCK];
		lft_block(lft, top, blocks[i], ports);
		wire_lft_encode(ports, data, sizeof(data));
		op_send(sw, OP_LFT, ni, 0, blocks[i], WIRE_ATTR_LFT, blocks[i], data);
		sw->sum.lft_blocks++;
	}
	free(blocks);
	n->lft_top = top;
}

/* The node's SL->VL table in routes r, or NULL when r uses a single VL. */
static const uint8_t *node_sl2vl(const struct routes *r, uint32_t ni)
{
	if (!r || r->n_vls <= 1 || !r->sl2vl || ni >= r->n_nodes)
		return NULL;
	return r->sl2vl[ni];
}

/*
 * SL2VL and VLArb (IBA 14.2.5.8, 14.2.5.9) where the engine uses more than one
 * VL.  Switch tables depend only on the output port, so every input port gets
 * the same row.  VLArb: the low-priority table round-robins the VLs in use
 * with equal weight, the high-priority table is left empty.  Skipped when
 * the node's tables equal what this SM programmed last time.
 */
static void program_vls(struct sweep *sw, uint32_t ni, const struct fabric *old_f,
			const struct routes *old_r)
{
	const struct routes *r = sw->routes;
	struct node *n = &sw->f->nodes[ni];
	const uint8_t *t = node_sl2vl(r, ni);
	const uint8_t *old_t = NULL;
	unsigned first = 1, last = n->nports;
	size_t sz = node_is_switch(n) ? (size_t)(n->nports + 1) * ROUTES_MAX_SL : ROUTES_MAX_SL;
	uint8_t data[64];

	if (!t)
		return;
	if (old_f && old_r && !sw->sm->force_lft) {
		uint32_t oi = fabric_find_guid(old_f, n->guid);
		if (oi != FABRIC_NO_NODE && old_f->nodes[oi].nports == n->nports)
			old_t = node_sl2vl(old_r, oi);
	}
	if (old_t && old_r->n_vls == r->n_vls && !memcmp(old_t, t, sz))
		return;
	for (unsigned out = first; out <= last; out++) {
		struct port *op = &n->ports[out];
		uint8_t vl[16], arb_vl[32] = {0}, arb_w[32] = {0};
		if (!port_is_up(op) || !port_is_linked(op))
			continue;
		for (int sl = 0; sl < 16; sl++)
			vl[sl] = node_is_switch(n) ? t[out * ROUTES_MAX_SL + sl] : t[sl];
		memset(data, 0, sizeof(data));
		wire_sl2vl_encode(vl, data, sizeof(data));
		if (node_is_switch(n)) {
			for (unsigned in = 0; in <= n->nports; in++) {
				if (in == out || (in && !port_is_linked(&n->ports[in])))
					continue;
				op_send(sw, OP_SL2VL, ni, 0, 0, WIRE_ATTR_SL2VL, in << 8 | out,
					data);
			}
		} else {
			op_send(sw, OP_SL2VL, ni, out, 0, WIRE_ATTR_SL2VL, 0, data);
		}
		for (unsigned v = 0; v < r->n_vls && v < 32; v++) {
			arb_vl[v] = v;
			arb_w[v] = 64;
		}
		memset(data, 0, sizeof(data));
		wire_vlarb_encode(arb_vl, arb_w, data, sizeof(data));
		/* block 1: low priority entries 0..31; attribute modifier port in 15:0 */
		op_send(sw, OP_VLARB, ni, node_is_switch(n) ? 0 : out, 0, WIRE_ATTR_VL_ARB,
			1u << 16 | (node_is_switch(n) ? out : 0), data);
		/* block 3: high priority entries 0..31, all weight 0 (unused) */
		memset(arb_w, 0, sizeof(arb_w));
		memset(data, 0, sizeof(data));
		wire_vlarb_encode(arb_vl, arb_w, data, sizeof(data));
		op_send(sw, OP_VLARB, ni, node_is_switch(n) ? 0 : out, 0, WIRE_ATTR_VL_ARB,
			3u << 16 | (node_is_switch(n) ? out : 0), data);
	}
}

static void phase_program(struct sweep *sw)
{
	struct fabric *f = sw->f;
	const struct fabric *old_f = sw->sm->snap ? sw->sm->snap->fabric : NULL;
	const struct routes *old_r = sw->sm->snap ? sw->sm->snap->routes : NULL;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];
		for (unsigned pn = node_is_switch(n) ? 0 : 1; pn <= n->nports; pn++) {
			struct port *p = &n->ports[pn];
			if (pn != 0 && !port_is_up(p))
				continue;
			program_port(sw, i, pn);
			/* a port coming up gets the default partition at index 0 */
			if (!node_is_switch(n) && p->state == PORT_INIT) {
				uint16_t keys[32] = {0xffff};
				uint8_t data[64];
				wire_pkey_encode(keys, data, sizeof(data));
				op_send(sw, OP_PKEY, i, pn, 0, WIRE_ATTR_PKEY_TABLE, 0, data);
			}
		}
		if (node_is_switch(n)) {
			sw->lft_ok[i] = true;
			program_switch(sw, i, old_f, old_r);
		}
		program_vls(sw, i, old_f, old_r);
	}
}

static void phase_state(struct sweep *sw, uint8_t from, uint8_t to, enum op_kind kind)
{
	struct fabric *f = sw->f;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];
		for (unsigned pn = 1; pn <= n->nports; pn++) {
			struct port *p = &n->ports[pn];
			struct wire_portinfo pi;
			uint8_t data[64];
			if (!port_is_up(p) || p->state != from || !port_is_linked(p))
				continue;
			if (wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
				continue;
			pi.state = to;
			pi.phys_state = 0;
			memcpy(data, p->pi, sizeof(data));
			wire_portinfo_encode(&pi, data, sizeof(data));
			op_send(sw, kind, i, pn, 0, WIRE_ATTR_PORT_INFO, pn, data);
		}
	}
}

/*
 * The routing dumps (ibnetdiscover/dump_fts/ibdmchk formats) follow every
 * routing pass that changed something.  Writing them takes about 1 us per LFT
 * entry (12 s at 9,472 LIDs x 1,280 switches), far too long for the loop that
 * answers MADs, so a forked child writes them from its copy-on-write view of
 * the snapshot.  One child at a time; skipped past dump_max_lft_entries
 * (default 2M entries, ~150 MB of text; 12M entries make 1.2 GB).
 */
static void sweep_dump(struct sm *sm)
{
	const struct snapshot *snap = sm->snap;
	uint64_t entries =
	    (uint64_t)fabric_count(snap->fabric, NODE_SWITCH) * (snap->routes->max_lid + 1);
	pid_t pid;

	sweep_dump_reap(sm, false);
	if (sm->dump_pid > 0) {
		log_msg(LOG_CAT_ROUTE, LOG_DEBUG, "routing dumps: the previous writer still runs");
		return;
	}
	if (entries > (uint64_t)sm->conf.dump_max_lft_entries) {
		if (sm->conf.dump_max_lft_entries)
			log_ratelimited(LOG_CAT_ROUTE, LOG_INFO,
					"routing dumps skipped: %llu LFT entries is more than "
					"dump_max_lft_entries (%llu)",
					(unsigned long long)entries,
					(unsigned long long)sm->conf.dump_max_lft_entries);
		return;
	}
	pid = fork();
	if (pid < 0) {
		log_warn("routing dumps: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		int e = dump_all(snap->fabric, snap->routes, sm->conf.state_dir);
		if (e < 0)
			log_warn("cannot write routing dumps to %s: %s", sm->conf.state_dir,
				 strerror(-e));
		_exit(e < 0 ? 1 : 0);
	}
	sm->dump_pid = pid;
}

void sweep_dump_reap(struct sm *sm, bool wait)
{
	int st;
	pid_t r;

	if (sm->dump_pid <= 0)
		return;
	do
		r = waitpid(sm->dump_pid, &st, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == sm->dump_pid || (r < 0 && errno == ECHILD))
		sm->dump_pid = 0;
}

static void sweep_finish(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	struct fabric *f = sw->f;
	struct sweep_summary *s = &sw->sum;

	s->nodes = f->n_nodes;
	s->switches = fabric_count(f, NODE_SWITCH);
	s->cas = fabric_count(f, NODE_CA);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];
		for (unsigned pn = 1; pn <= n->nports; pn++) {
			struct port *p = &n->ports[pn];
			if (!port_is_linked(p))
				continue;
			s->ports_linked++;
			if (p->state == PORT_ACTIVE)
				s->ports_active++;
		}
	}
	s->links = s->ports_linked / 2;
	s->ms = now_ms() - (sw->t0.tv_sec * 1e3 + sw->t0.tv_nsec / 1e6);
	if (!s->reason[0] && s->ports_active != s->ports_linked)
		snprintf(s->reason, sizeof(s->reason), "%u of %u linked ports are not ACTIVE",
			 s->ports_linked - s->ports_active, s->ports_linked);
	if (!s->reason[0] && s->set_errors)
		snprintf(s->reason, sizeof(s->reason), "%u SMPs failed while programming",
			 s->set_errors);
	s->status = s->reason[0] ? -EIO : 0;

	/* a switch whose LFT programming failed must be rewritten next time */
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (sw->lft_ok && !sw->lft_ok[i] && sw->routes->lft[i])
			f->nodes[i].lft_top = 0xffff;
	/* publish: the new snapshot replaces the old one whole */
	struct snapshot *old = sm->snap, *snap;
	if (snapshot_new(f, sw->routes, old ? old->generation + 1 : 1, &snap) < 0) {
		log_err("sweep failed: out of memory publishing the snapshot");
		abort();
	}
	sm->snap = snap;
	sw->f = NULL;
	sw->routes = NULL;
	sm->sweeps++;
	sm->last = *s;
	sm->subnet_up = s->status == 0;
	smstate_sweep_done(sm, s);
	hook_run(&sm->hooks.published, old);
	if (s->status == 0 && (s->sets || sm->sweeps == 1))
		sweep_dump(sm);
	snapshot_free(old);
	if (s->status == 0)
		log_msg(LOG_CAT_SWEEP, sm->sweeps == 1 || s->sets ? LOG_INFO : LOG_DEBUG,
			"subnet up: %u nodes (%u switches, %u CAs), %u links active, %u LIDs, "
			"%u SMPs set, %u LFT blocks, %s routing, sweep %.1f ms",
			s->nodes, s->switches, s->cas, s->links, s->lids, s->sets, s->lft_blocks,
			s->engine, s->ms);
	else
		log_warn("sweep %llu: subnet not up: %s", (unsigned long long)sm->sweeps,
			 s->reason);
	free(sw->lft_ok);
	free(sw);
	sm->cur = NULL;
	hook_run(&sm->hooks.sweep_done, &sm->last);
	if (sm->sweep_again) {
		char why[sizeof(sm->again_why)];
		snprintf(why, sizeof(why), "%s", sm->again_why);
		sm->sweep_again = false;
		sweep_start_why(sm, why);
	}
}

static void sweep_next_phase(struct sweep *sw)
{
	switch (sw->phase) {
	case PH_PROGRAM:
		sw->phase = PH_ARM;
		phase_state(sw, PORT_INIT, PORT_ARMED, OP_ARM);
		break;
	case PH_ARM:
		sw->phase = PH_ACTIVATE;
		phase_state(sw, PORT_ARMED, PORT_ACTIVE, OP_ACTIVATE);
		break;
	case PH_ACTIVATE:
		sw->phase = PH_DONE;
		break;
	default:
		return;
	}
	if (!sw->pending) {
		if (sw->phase == PH_DONE)
			sweep_finish(sw);
		else
			sweep_next_phase(sw);
	}
}

static int route(struct sweep *sw, uint16_t max_lid)
{
	struct sm *sm = sw->sm;
	struct routing_opts ro = {
	    .roots = sm->roots, .n_roots = sm->n_roots, .lmc = (uint8_t)sm->conf.lmc};
	struct chain_result res;
	double t0 = now_ms();
	unsigned int i;
	int r;

	r = chain_run(sw->f, &ro, sm->conf.routing_engine, sm->conf.routing_chain, &res);
	for (i = 0; i < res.n_refusals; i++) {
		const struct chain_refusal *x = &res.refusals[i];

		/* warn when the refusal is new; the same refusal every sweep is debug */
		log_msg(LOG_CAT_ROUTE,
			chain_has_refusal(sm->last_refusals, sm->n_last_refusals, x) ? LOG_DEBUG
										     : LOG_WARNING,
			"routing engine %s refused: %s, trying the next one", x->engine, x->reason);
		hook_run(&sm->hooks.route_fallback,
			 &(struct sm_route_fallback){x->engine, x->reason});
	}
	memcpy(sm->last_refusals, res.refusals, sizeof(sm->last_refusals));
	sm->n_last_refusals = res.n_refusals;
	if (r == 0) {
		snprintf(sw->sum.engine, sizeof(sw->sum.engine), "%s", res.engine->name);
		sw->routes = res.routes;
		res.routes = NULL;
	}
	chain_result_clear(&res);
	sw->sum.route_ms = now_ms() - t0;
	if (r == 0) {
		struct routing_stats st;
		bool changed;
		routing_stats(sw->f, sw->routes, &st);
		/* info when the outcome changes, debug on the periodic re-route */
		changed = strcmp(sm->last_route_engine, sw->sum.engine) ||
			  st.max_routes_per_port != sm->last_route_stats.max_routes_per_port ||
			  st.unreachable != sm->last_route_stats.unreachable ||
			  st.mean_routes_per_port != sm->last_route_stats.mean_routes_per_port;
		log_msg(
		    LOG_CAT_ROUTE, changed ? LOG_INFO : LOG_DEBUG,
		    "routed with %s: %.1f ms, max %u / mean %.1f routes per port, %u unreachable",
		    sw->sum.engine, sw->sum.route_ms, st.max_routes_per_port,
		    st.mean_routes_per_port, st.unreachable);
		snprintf(sm->last_route_engine, sizeof(sm->last_route_engine), "%s",
			 sw->sum.engine);
		sm->last_route_stats = st;
	}
	(void)max_lid;
	return r;
}

static void on_discovered(void *arg, int status, struct discover_result *res)
{
	struct sweep *sw = arg;
	struct sm *sm = sw->sm;
	struct lid_assign_stats ls;
	int r;

	discover_free(sw->disc);
	sw->disc = NULL;
	sw->f = res->fabric;
	sw->sum.discover_ms = res->ms;
	sw->sum.timeouts = res->timeouts;
	if (status < 0 || !sw->f || !sw->f->n_nodes) {
		snprintf(sw->sum.reason, sizeof(sw->sum.reason),
			 "discovery found nothing (%s): is the local port up?",
			 strerror(status < 0 ? -status : EHOSTUNREACH));
		goto fail;
	}
	sw->f->subnet_prefix = sm->conf.subnet_prefix;
	r = lid_assign(sm->lids, sw->f, (uint8_t)sm->conf.lmc, &ls);
	if (r < 0) {
		snprintf(sw->sum.reason, sizeof(sw->sum.reason), "LID assignment failed: %s",
			 strerror(-r));
		goto fail;
	}
	sw->sum.lids = ls.from_db + ls.from_port + ls.new_lids;
	if (ls.new_lids || ls.conflicts || sm->sweeps == 0) {
		r = lid_db_save(sm->lids, sm->lid_path);
		if (r < 0)
			log_err("cannot write %s: %s (LIDs may change on restart)", sm->lid_path,
				strerror(-r));
	}
	if (ls.conflicts)
		log_warn("%u ports had conflicting LIDs and were given new ones", ls.conflicts);
	r = route(sw, ls.max_lid);
	if (r < 0) {
		snprintf(sw->sum.reason, sizeof(sw->sum.reason),
			 "no routing engine could route: %s", strerror(-r));
		goto fail;
	}
	sw->lft_ok = calloc(sw->f->n_nodes, sizeof(*sw->lft_ok));
	if (!sw->lft_ok) {
		snprintf(sw->sum.reason, sizeof(sw->sum.reason), "out of memory");
		goto fail;
	}
	sw->phase = PH_PROGRAM;
	phase_program(sw);
	sm->force_lft = false;
	if (!sw->pending)
		sweep_next_phase(sw);
	return;
fail:
	if (!sw->f)
		sw->f = fabric_new();
	if (!sw->routes && sw->f)
		sw->routes = routes_new(sw->f, 0);
	if (!sw->f || !sw->routes) {
		log_err("sweep failed and out of memory");
		abort();
	}
	sweep_finish(sw);
}

int sweep_start(struct sm *sm)
{
	return sweep_start_why(sm, "requested");
}

int sweep_start_why(struct sm *sm, const char *why)
{
	struct sweep *sw;
	int r;

	if (sm->cur) {
		if (!sm->sweep_again)
			snprintf(sm->again_why, sizeof(sm->again_why), "%s", why);
		sm->sweep_again = true;
		return 0;
	}
	hook_run(&sm->hooks.sweep_begin, why);
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->sm = sm;
	sw->phase = PH_DISCOVER;
	clock_gettime(CLOCK_MONOTONIC, &sw->t0);
	sm->cur = sw;
	smstate_sweep_started(sm);
	r = discover_start(sm->xe, on_discovered, sw, &sw->disc);
	if (r < 0) {
		sm->cur = NULL;
		free(sw);
		return r;
	}
	return 0;
}

/*
 * The light sweep (IBA 14.4.2 "sweeping"): one SwitchInfo Get per switch of
 * the published fabric.  A switch whose PortStateChange bit is set (a port of
 * it changed state since the heavy sweep cleared the bit), that does not
 * answer, or that answers with another GUID means the topology changed, and a
 * heavy sweep follows.  A quiet fabric costs one SMP per switch per interval.
 */
struct light {
	struct sm *sm;
	unsigned pending;
	bool changed;
	char why[160];
};

struct light_op {
	struct light *l;
	uint32_t node;
};

static void light_done(void *arg, int status, const struct wire_smp *req,
		       const struct wire_smp *resp)
{
	struct light_op *op = arg;
	struct light *l = op->l;
	struct sm *sm = l->sm;
	struct wire_switchinfo si;

	l->pending--;
	if (status != -ECANCELED && !l->changed && sm->snap &&
	    op->node < sm->snap->fabric->n_nodes) {
		const struct node *n = &sm->snap->fabric->nodes[op->node];
		if (status < 0) {
			l->changed = true;
			snprintf(l->why, sizeof(l->why), "switch 0x%016llx \"%s\" did not answer",
				 (unsigned long long)n->guid, n->desc);
		} else if (wire_switchinfo_decode(resp->data, sizeof(resp->data), &si) < 0 ||
			   si.port_state_change) {
			l->changed = true;
			snprintf(l->why, sizeof(l->why),
				 "switch 0x%016llx \"%s\" reports a port state change",
				 (unsigned long long)n->guid, n->desc);
		}
	}
	free(op);
	if (l->pending)
		return;
	if (status != -ECANCELED) {
		sm->light_sweeps++;
		if (l->changed) {
			log_msg(LOG_CAT_SWEEP, LOG_INFO, "light sweep: %s: heavy sweep", l->why);
			sweep_start_why(sm, l->why);
		}
	}
	sm->light_running = false;
	free(l);
}

int sweep_light(struct sm *sm)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	struct light *l;

	if (sm->cur || sm->light_running)
		return 0;
	/*
	 * Heavy instead when there is nothing good to compare with, when the last
	 * heavy sweep missed nodes (they may answer again without any port
	 * changing state), and every 30th time as a safety net.
	 */
	if (!f || !sm->subnet_up)
		return sweep_start_why(sm, "periodic: the subnet is not up");
	if (sm->last.timeouts)
		return sweep_start_why(sm, "periodic: the last sweep missed nodes");
	if (++sm->light_count % 30 == 0)
		return sweep_start_why(sm, "periodic: every 30th sweep is heavy");
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->sm = sm;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		struct light_op *op;
		struct wire_smp smp;
		if (!node_is_switch(n) || wire_smp_init_dr(&smp, WIRE_GET, WIRE_ATTR_SWITCH_INFO, 0,
							   n->dr_path, n->dr_hops) < 0)
			continue;
		op = calloc(1, sizeof(*op));
		if (!op)
			break;
		*op = (struct light_op){l, i};
		if (xact_submit(sm->xe, &smp, light_done, op) < 0) {
			free(op);
			break;
		}
		l->pending++;
	}
	if (!l->pending) {
		/* no switches (two CAs back to back): nothing cheap to poll */
		free(l);
		return sweep_start_why(sm, "periodic: no switch to poll");
	}
	sm->light_running = true;
	return 0;
}

static void sweep_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	sweep_light(sm);
	sweep_schedule(sm);
}

void sweep_schedule(struct sm *sm)
{
	struct timeval tv = {sm->conf.sweep_interval, 0};

	if (!sm->conf.sweep_interval) {
		if (sm->sweep_timer)
			evtimer_del(sm->sweep_timer);
		return;
	}
	if (!sm->sweep_timer)
		sm->sweep_timer = evtimer_new(sm->base, sweep_timer_cb, sm);
	if (sm->sweep_timer)
		evtimer_add(sm->sweep_timer, &tv);
}

/*
 * The heavy sweep (see sweep.h); its scheduler is sweep_sched.c.  IBA 1.4
 * vol 1, 14.4 (subnet management), 7.2 (link states).
 *
 * One sweep at a time.  Each asynchronous phase (discovery and the three
 * programming batches) ends in a callback that calls sweep_step(); the
 * synchronous ones (decide, assign, route) run inside sweep_step() itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/lid.h"
#include "smp/discover.h"
#include "lib/clock.h"
#include "fabric/names.h"
#include "lib/log.h"
#include "lib/sorted.h"
#include "dump/dump.h"
#include "smp/program.h"
#include "smp/readback.h"
#include "sm/route.h"
#include "sm/sm.h"
#include "sm/sweep.h"
#include "sm/sweep_sched.h"

_Static_assert((int)CONF_ENFORCE_OFF == (int)PROGRAM_ENFORCE_OFF &&
		   (int)CONF_ENFORCE_IN == (int)PROGRAM_ENFORCE_IN &&
		   (int)CONF_ENFORCE_OUT == (int)PROGRAM_ENFORCE_OUT &&
		   (int)CONF_ENFORCE_BOTH == (int)PROGRAM_ENFORCE_BOTH,
	       "part_enforce: the configuration's values are the programmer's");

enum sweep_phase {
	SWEEP_DISCOVER,
	SWEEP_DECIDE,
	SWEEP_ASSIGN,
	SWEEP_ROUTE,
	SWEEP_READBACK,
	SWEEP_PROGRAM,
	SWEEP_ARM,
	SWEEP_ACTIVATE,
	SWEEP_PUBLISH,
};

const char *const sweep_phase_names[SWEEP_N_PHASES] = {
    "discover", "decide", "assign", "route", "readback", "program", "arm", "activate", "publish",
};

struct sweep {
	struct sm *sm;
	enum sweep_phase phase;
	struct discover *disc;	   /* DISCOVER */
	struct readback *rb;	   /* READBACK */
	struct program_held *held; /* what READBACK found the switches to hold */
	struct program *batch;	   /* PROGRAM, ARM, ACTIVATE */
	struct fabric *f;	   /* being built; published at the end */
	struct routes *routes;	   /* f's */
	uint16_t max_lid;	   /* from ASSIGN */
	uint64_t seq;		   /* sched.begun when it began */
	struct sweep_summary sum;
	double t0;
	double t_phase;		      /* when timed_phase began */
	enum sweep_phase timed_phase; /* the phase charged for the time since t_phase */
	/* incremental: the switches it was asked around (asked again if it fails) */
	uint64_t dirty[SWEEP_MAX_DIRTY];
	unsigned n_dirty;
	/* the switches whose Sets failed (program_stats.failed_sw, every batch's) */
	uint64_t failed_sw[PROGRAM_FAILED_MAX];
	unsigned n_failed_sw;
	/* PROGRAM: the policies its tables are written with (references) */
	struct qos_policy *qos;
	struct partition_config *parts;
	/* a re-balance: a copy of the published fabric, taken on the next loop turn */
	bool rebalance;
	struct event *start;
	/* incremental: the nodes discovery touched (discover.h), sorted; the rest as programmed */
	bool scoped;
	uint64_t *touched;
	size_t n_touched;
	uint8_t *scope; /* PROGRAM's (program_params.scope), NULL: every node */
};

static void sweep_step(struct sweep *sw);

static void sweep_fail(struct sweep *sw, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sweep_fail(struct sweep *sw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sw->sum.reason, sizeof(sw->sum.reason), fmt, ap);
	va_end(ap);
	sw->phase = SWEEP_PUBLISH;
}

static void sweep_destroy(struct sweep *sw)
{
	free(sw->touched);
	free(sw->scope);
	if (sw->start)
		event_free(sw->start);
	discover_free(sw->disc);
	readback_free(sw->rb);
	program_held_free(sw->held);
	program_abort(sw->batch);
	fabric_free(sw->f);
	routes_free(sw->routes);
	qos_policy_free(sw->qos);
	partition_config_free(sw->parts);
	free(sw);
}

void sweep_abort(struct sm *sm)
{
	struct sweep *sw = sm->sched.cur;

	sm->sched.pending = false;
	if (sm->sched.holddown)
		evtimer_del(sm->sched.holddown);
	if (!sw)
		return;
	sm->sched.cur = NULL;
	if (sw->phase == SWEEP_DECIDE && sm->role.ops)
		sm->role.ops->decide_abort(sm->role.ctx);
	/* discovery and a batch free themselves once their SMPs are cancelled */
	sweep_destroy(sw);
}

/* ---- phases ----------------------------------------------------------- */

static void on_discovered(void *arg, int status, struct discover_result *res)
{
	struct sweep *sw = arg;

	discover_free(sw->disc);
	sw->disc = NULL;
	if (status == -EAGAIN && !res->fabric) {
		/* the incremental discovery met something it cannot bound: all of it */
		int r;

		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"incremental sweep: %u SMPs unanswered, %u errors, %u link conflicts "
			"around the changed switches: discovering the whole fabric",
			res->timeouts, res->errors, res->link_conflicts);
		sw->sum.incremental = false;
		sweep_hold_clear(sw->sm); /* the whole fabric, as it is */
		r = discover_start(sw->sm->xe, on_discovered, sw, &sw->disc);
		if (r == 0)
			return;
		sweep_fail(sw, "cannot start discovery: %s", strerror(-r));
		sw->phase = SWEEP_PUBLISH;
		sweep_step(sw);
		return;
	}
	sw->sum.incremental = res->incremental;
	if (res->incremental && res->fabric) {
		sw->scoped = true;
		sw->touched = res->touched;
		sw->n_touched = res->n_touched;
		res->touched = NULL;
	}
	sw->sum.reprobed = res->reprobed;
	sw->sum.links_down = res->links_down;
	sw->sum.links_up = res->links_up;
	sw->sum.removed = res->removed;
	if (res->held_out || res->refused)
		log_msg(
		    LOG_CAT_SWEEP, LOG_DEBUG,
		    "incremental sweep: %u switch%s held out, %u port%s up to one taken for down",
		    res->held_out, res->held_out == 1 ? "" : "es", res->refused,
		    res->refused == 1 ? "" : "s");
	sw->f = res->fabric;
	sw->sum.discover_ms = res->ms;
	sw->sum.timeouts = res->timeouts;
	sw->sum.ext_gets = res->ext_gets;
	if (status < 0 || !sw->f || !sw->f->n_nodes)
		sweep_fail(sw, "discovery found nothing (%s): is the local port up?",
			   strerror(status < 0 ? -status : EHOSTUNREACH));
	else
		sw->phase = SWEEP_DECIDE;
	sweep_step(sw);
}

/* DECIDE is over: program, or stand by (touching no switch). */
static void on_decided(void *arg, enum role_decision d, const char *why)
{
	struct sweep *sw = arg;

	if (d == ROLE_STAND_BY) {
		sw->sum.standby = true;
		snprintf(sw->sum.reason, sizeof(sw->sum.reason), "%s: %s",
			 names_sm_state(sw->sm->state), why);
		sw->phase = SWEEP_PUBLISH;
	} else {
		sw->phase = SWEEP_ASSIGN;
	}
	sweep_step(sw);
}

static void phase_decide(struct sweep *sw)
{
	const struct sm_role *role = &sw->sm->role;
	int r = role->ops->decide_start(role->ctx, sw->f, on_decided, sw);

	if (r < 0) {
		sweep_fail(sw, "cannot ask the other SMs: %s", strerror(-r));
		sweep_step(sw);
	}
}

/* At debug: every LID decision, one line a port. */
static void lid_trace(void *ctx, const struct port *p, uint64_t port_guid, uint16_t lid,
		      uint8_t lmc, enum lid_source src, uint16_t was)
{
	static const char *const why[] = {
	    [LID_FROM_DB] = "kept from guid2lid",
	    [LID_FROM_PORT] = "kept: the port had it",
	    [LID_NEW] = "new",
	    [LID_NEW_CONFLICT] = "new: the port's own clashed",
	    [LID_NONE] = "none: the LID space is exhausted",
	};

	if (src == LID_NEW_CONFLICT)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "LID 0x%04x/%u for port 0x%016llx: %s (0x%04x)",
			lid, lmc, (unsigned long long)port_guid, why[src], was);
	else
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "LID 0x%04x/%u for port 0x%016llx: %s", lid, lmc,
			(unsigned long long)port_guid, why[src]);
}

static void phase_assign(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	struct lid_assign_stats ls;
	int r;

	sw->f->subnet_prefix = sm->conf.subnet_prefix;
	r = lid_assign_traced(sm->lids, sw->f, (uint8_t)sm->conf.lmc, &ls,
			      log_enabled(LOG_CAT_SWEEP, LOG_DEBUG) ? lid_trace : NULL, NULL);
	if (r < 0) {
		sweep_fail(sw, "LID assignment failed: %s", strerror(-r));
		return;
	}
	sw->sum.lids = ls.from_db + ls.from_port + ls.new_lids;
	sw->max_lid = ls.max_lid;
	if (ls.new_lids || ls.conflicts || sm->sweeps == 0 || sm->lid_save.owed)
		sm_save_lids(sm);
	if (ls.conflicts)
		log_warn("%u ports had conflicting LIDs and were given new ones", ls.conflicts);
	sw->phase = SWEEP_ROUTE;
}

static void phase_route(struct sweep *sw)
{
	int r = 0;

	if (!sw->rebalance || !route_rebalanced(sw->sm, sw->f, &sw->routes, sw->sum.engine,
						sizeof(sw->sum.engine), &sw->sum.route_ms)) {
		sw->sum.rebalance = false;
		r = route_fabric(sw->sm, sw->f, sw->sum.incremental, &sw->routes, sw->sum.engine,
				 sizeof(sw->sum.engine), &sw->sum.route_ms);
	}
	if (r < 0)
		sweep_fail(sw, "no routing engine could route: %s", strerror(-r));
	else
		sw->phase = SWEEP_READBACK;
}

/*
 * The published snapshot when its routes are what this SM gave the switches
 * (its sweep programmed them); NULL when it stood by or failed before
 * programming: what the switches hold is then unknown.
 */
static const struct snapshot *sweep_programmed_snapshot(const struct sm *sm)
{
	return sm->snap && sm->last.programmed ? sm->snap : NULL;
}

static void on_readback(void *arg, struct program_held *held, const struct readback_stats *st)
{
	struct sweep *sw = arg;

	sw->rb = NULL;
	sw->held = held;
	sw->sum.lft_reads = st->blocks;
	sw->sum.readback_ms = st->ms;
	if (st->errors)
		log_warn("%u of %u LFT blocks could not be read back: their switches get every "
			 "block",
			 st->errors, st->blocks);
	sw->phase = SWEEP_PROGRAM;
	sweep_step(sw);
}

/*
 * The switches the published snapshot says nothing about (this SM has just
 * started or taken over): read their LFTs so PROGRAM writes only what
 * differs.  false when the phase is over at once.
 */
static bool phase_readback(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	const struct snapshot *old = sweep_programmed_snapshot(sm);
	int r;

	sw->phase = SWEEP_PROGRAM;
	if (!sm->conf.lft_readback || sm->sched.force_lft)
		return false;
	r = readback_start(sm->xe, sw->f, sw->routes, old ? old->fabric : NULL,
			   old ? old->routes : NULL, on_readback, sw, &sw->rb);
	if (r < 0)
		log_warn("cannot read the LFTs back (%s): writing every block", strerror(-r));
	if (!sw->rb)
		return false;
	sw->phase = SWEEP_READBACK;
	return true;
}

/*
 * Where the routing engine's SL-to-VL layers overrode the QoS policy's
 * sl2vl (the engine wins: its VLs keep it deadlock free): kept for smctl
 * status, logged once per change.
 */
static void sweep_qos_conflicts(struct sm *sm, const struct program_stats *st)
{
	char sls[64] = "";
	size_t off = 0;

	sm->policy.qos_conflict_sls = st->qos_conflict_sls;
	sm->policy.qos_conflict_ports = st->qos_conflict_ports;
	if (st->qos_conflict_sls == sm->policy.qos_reported_sls)
		return;
	sm->policy.qos_reported_sls = st->qos_conflict_sls;
	if (!st->qos_conflict_sls) {
		log_info("QoS: the policy's SL-to-VL tables no longer conflict with the routing "
			 "engine's");
		return;
	}
	for (unsigned sl = 0; sl < 16; sl++)
		if (st->qos_conflict_sls & (1u << sl) && off < sizeof(sls))
			off += (size_t)snprintf(sls + off, sizeof(sls) - off, "%s%u",
						off ? "," : "", sl);
	log_warn("QoS: the routing engine needs its own VLs for SL %s on %u port%s: its "
		 "SL-to-VL mapping wins over the policy's there (smctl status: qos)",
		 sls, st->qos_conflict_ports, st->qos_conflict_ports == 1 ? "" : "s");
}

static void on_batch_done(void *arg, const struct program_stats *st)
{
	struct sweep *sw = arg;

	sw->batch = NULL;
	sw->sum.sets += st->sets;
	sw->sum.set_errors += st->errors;
	sw->sum.set_recovered += st->recovered;
	sw->sum.timeouts += st->timeouts;
	sw->sum.lft_blocks += st->lft_blocks;
	sw->sum.pkey_blocks += st->pkey_blocks; /* partitions */
	sw->sum.rereg += st->rereg;		/* failover/sync.c */
	sw->sm->mkey.refused += st->mkey_refused;
	sw->sm->mkey.unanswered += st->mkey_unanswered;
	sw->sm->penf.blocks += st->enforce_blocks;
	sw->sm->penf.unfit += st->enforce_unfit;
	sw->sum.sl2vl_blocks += st->sl2vl_blocks;
	sw->sum.vlarb_blocks += st->vlarb_blocks;
	for (unsigned i = 0; i < st->n_failed_sw; i++)
		u64_set_add(sw->failed_sw, &sw->n_failed_sw, PROGRAM_FAILED_MAX, st->failed_sw[i]);
	if (sw->phase == SWEEP_PROGRAM) {
		sweep_qos_conflicts(sw->sm, st);
		sw->sm->policy.qos_rewrite = st->vl_errors != 0;
	}
	sw->phase++;
	sweep_step(sw);
}

static int sweep_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The parameters of a configure batch that decide what its Sets are besides the nodes. */
static struct sweep_program_sig sweep_sig(const struct sweep *sw, const struct program_params *pp)
{
	const struct fabric *f = sw->f;

	return (struct sweep_program_sig){
	    .valid = true,
	    .subnet_prefix = pp->subnet_prefix,
	    .sm_lid = f->n_nodes ? f->nodes[f->sm_node].ports[f->sm_port].lid : 0,
	    .n_vls = sw->routes->n_vls,
	    .parts = pp->parts,
	    .qos = pp->qos,
	    .mkey = pp->mkey.key,
	    .mkey_protect = pp->mkey.protect,
	    .mkey_lease = pp->mkey.lease_s,
	    .part_enforce = pp->part_enforce,
	    .lifetimes = pp->lifetimes,
	    .switch_life = pp->switch_life,
	    .hoq_life = pp->hoq_life,
	    .leaf_hoq_life = pp->leaf_hoq_life,
	    .link_speed_ext = pp->link_speed_ext};
}

static bool sweep_sig_equal(const struct sweep_program_sig *a, const struct sweep_program_sig *b)
{
	return a->valid && b->valid && a->subnet_prefix == b->subnet_prefix &&
	       a->sm_lid == b->sm_lid && a->n_vls == b->n_vls && a->parts == b->parts &&
	       a->qos == b->qos && a->mkey == b->mkey && a->mkey_protect == b->mkey_protect &&
	       a->mkey_lease == b->mkey_lease && a->part_enforce == b->part_enforce &&
	       a->lifetimes == b->lifetimes && a->switch_life == b->switch_life &&
	       a->hoq_life == b->hoq_life && a->leaf_hoq_life == b->leaf_hoq_life &&
	       a->link_speed_ext == b->link_speed_ext;
}

/*
 * The nodes whose ports the configure batch looks at (program_params
 * scope): after an incremental sweep (or a re-balance) on a subnet the last
 * sweep brought up, with the batch built as the last one was, the nodes
 * discovery touched and those new to the fabric; the others are as that
 * sweep programmed them.  NULL: every node.
 */
static uint8_t *sweep_scope(struct sweep *sw, const struct snapshot *old,
			    const struct program_params *pp)
{
	struct sm *sm = sw->sm;
	struct sweep_program_sig now = sweep_sig(sw, pp);
	const struct fabric *f = sw->f;
	uint8_t *scope;

	/* (tables the runtime partitions wrote since the model's copy: looked at everywhere) */
	if (!sw->scoped || !old || sm->last.status != 0 || !sm->last.programmed || pp->force ||
	    pp->rereg_all || pp->n_rereg || pp->n_pkey_rewrite || pp->qos_old != pp->qos ||
	    !sweep_sig_equal(&sm->sched.programmed_with, &now))
		return NULL;
	scope = calloc(f->n_nodes + 1, 1);
	if (!scope)
		return NULL;
	if (sw->n_touched)
		qsort(sw->touched, sw->n_touched, sizeof(*sw->touched), sweep_u64_cmp);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		uint64_t g = f->nodes[i].guid;

		scope[i] = (sw->n_touched &&
			    bsearch(&g, sw->touched, sw->n_touched, sizeof(g), sweep_u64_cmp)) ||
			   fabric_find_guid(old->fabric, g) == FABRIC_NO_NODE;
		sw->sum.scoped_nodes += scope[i];
	}
	return scope;
}

/* Start the programming batch of the current phase; its callback moves on. */
static void phase_batch(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	const struct snapshot *old = sweep_programmed_snapshot(sm);

	sw->batch = program_new(sm->xe, sw->f, on_batch_done, sw);
	if (!sw->batch) {
		sweep_fail(sw, "out of memory");
		sweep_step(sw);
		return;
	}
	switch (sw->phase) {
	case SWEEP_PROGRAM: {
		struct program_params pp = {sm->conf.subnet_prefix,
					    sw->sum.engine,
					    sm->sched.force_lft,
					    sw->held,
					    false,
					    NULL,
					    0,
					    sm->policy.parts, /* partitions (policy/partition.h) */
					    sm->port_guid,
					    {sm->conf.m_key, (uint8_t)sm->conf.m_key_protect_bits,
					     (uint16_t)sm->conf.m_key_lease_period},
					    &sm->mkey.offenders,
					    sm->conf.part_enforce /* CONF_ENFORCE_* */,
					    NULL,
					    NULL,
					    true, /* lifetimes */
					    (uint8_t)sm->conf.packet_life_time,
					    (uint8_t)sm->conf.head_of_queue_lifetime,
					    (uint8_t)sm->conf.leaf_head_of_queue_lifetime,
					    (uint8_t)sm->conf.link_speed_ext_enabled,
					    NULL, /* pkey_rewrite: the configure hook's */
					    0,
					    NULL /* scope: sweep_scope, below */};

		hook_run(&sm->hooks.configure, &pp); /* ClientReregister after a takeover */
		pp.qos = sm->policy.qos;	     /* policy/qos.h */
		/* what old's tables were written with; unknown after a batch that failed */
		pp.qos_old = sm->policy.qos_rewrite ? NULL : sm->policy.qos_last;
		sm->policy.qos_rewrite = true; /* until this batch completes without a VL error */
		/* only the nodes the change touched, when the rest is as the last batch left it */
		sw->sum.scoped_nodes = 0;
		sw->scope = sweep_scope(sw, old, &pp);
		sw->sum.scoped = sw->scope != NULL;
		pp.scope = sw->scope;
		sm->sched.programmed_with = sweep_sig(sw, &pp);
		program_configure(sw->batch, sw->routes, old ? old->fabric : NULL,
				  old ? old->routes : NULL, &pp);
		qos_policy_free(sm->policy.qos_last);
		sm->policy.qos_last = qos_policy_ref(sm->policy.qos);
		/* the snapshot will say what it was programmed with (sm_policy.pub_*) */
		sw->qos = qos_policy_ref(sm->policy.qos);
		sw->parts = partition_config_ref(sm->policy.parts);
		if (sw->seq > sm->sched.force_begun) /* begun after the reroute was asked */
			sm->sched.force_lft = false;
		sw->sum.programmed = true;
		break;
	}
	case SWEEP_ARM:
		program_port_states(sw->batch, PORT_INIT, PORT_ARMED);
		break;
	default:
		program_port_states(sw->batch, PORT_ARMED, PORT_ACTIVE);
		break;
	}
	program_start(sw->batch); /* may finish (and step on) at once */
}

static void sweep_count(struct sweep *sw)
{
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
	s->ms = clock_mono_ms() - sw->t0;
	if (s->standby) {
		s->status = -EAGAIN; /* another SM manages the subnet */
		return;
	}
	if (!s->reason[0] && f->n_nodes && !node_is_switch(&f->nodes[f->sm_node]) &&
	    !port_is_linked(&f->nodes[f->sm_node].ports[f->sm_port]))
		snprintf(s->reason, sizeof(s->reason), "the SM's own port is down: no subnet");
	if (!s->reason[0] && s->ports_active != s->ports_linked)
		snprintf(s->reason, sizeof(s->reason), "%u of %u linked ports are not ACTIVE",
			 s->ports_linked - s->ports_active, s->ports_linked);
	if (!s->reason[0] && s->set_errors)
		snprintf(s->reason, sizeof(s->reason), "%u SMPs failed while programming",
			 s->set_errors);
	s->status = s->reason[0] ? -EIO : 0;
}

/* The new snapshot replaces the old one whole; then the hooks, the dumps, the next sweep. */
static void phase_publish(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	struct sweep_summary *s = &sw->sum;
	struct snapshot *old = sm->snap, *snap;
	char readback[256] = "";
	double t_pub = clock_mono_ms(), t_hooks, t_dump;
	bool set_failed; /* an incremental sweep whose Sets failed (a switch dying under it?) */

	if (s->lft_reads)
		snprintf(readback, sizeof(readback), " (%u LFT blocks read back in %.1f ms)",
			 s->lft_reads, s->readback_ms);
	if (!sw->f)
		sw->f = fabric_new();
	if (!sw->routes && sw->f)
		sw->routes = routes_new(sw->f, 0);
	if (!sw->f || !sw->routes) {
		log_err("sweep failed and out of memory");
		abort();
	}
	sweep_count(sw);
	set_failed = s->status != 0 && s->incremental && !s->standby && s->set_errors;
	if (snapshot_new(sw->f, sw->routes, old ? old->generation + 1 : 1, &snap) < 0) {
		log_err("sweep failed: out of memory publishing the snapshot");
		abort();
	}
	sw->f = NULL;
	sw->routes = NULL;
	sm->snap = snap;
	if (sw->qos) {
		/* what the published tables were written with: the SA answers by it */
		qos_policy_free(sm->policy.pub_qos);
		partition_config_free(sm->policy.pub_parts);
		sm->policy.pub_qos = sw->qos;
		sm->policy.pub_parts = sw->parts;
		sm->policy.pub_switch_life = sm->conf.packet_life_time + 1;
		sw->qos = NULL;
		sw->parts = NULL;
	}
	sm->sweeps++;
	sm->last = *s;
	if (sm->role.ops)
		sm->role.ops->sweep_done(sm->role.ctx, s);
	else if (sm->state == SM_DISCOVERING)
		sm->state = SM_MASTER; /* no role: nobody else programs */
	sm->subnet_up = s->status == 0 && sm->state == SM_MASTER;
	t_hooks = clock_mono_ms();
	/* what changed, once for every hook that says or acts on it (a snapshot carries it) */
	snapshot_set_changes(snap, old);
	hook_run(&sm->hooks.published, old);
	sm_log_io(sm, old); /* issue 15: memory by owner at its peak, MAD counters */
	t_dump = clock_mono_ms();
	if (s->status == 0 && (s->sets || sm->sweeps == 1))
		dump_spawn(snap, sm->conf.state_dir, (uint64_t)sm->conf.dump_max_lft_entries,
			   &sm->sched.dump_pid);
	/* a switch whose Sets failed while it lost links: going down port by port */
	if (old && set_failed)
		sweep_hold_dying(sm, old->fabric, snap->fabric, sw->failed_sw, sw->n_failed_sw);
	/* the old tables' block serves the next incremental routing (sm/route.c) */
	if (old && sm->conf.incremental_routing)
		route_spare_take(sm, old->routes);
	snapshot_free(old);
	s->publish_hooks_ms = t_dump - t_hooks;
	s->publish_dump_ms = clock_mono_ms() - t_dump;
	s->phase_ms[SWEEP_PUBLISH] = clock_mono_ms() - t_pub;
	sm->last.publish_hooks_ms = s->publish_hooks_ms;
	sm->last.publish_dump_ms = s->publish_dump_ms;
	sm->last.phase_ms[SWEEP_PUBLISH] = s->phase_ms[SWEEP_PUBLISH];
	if (log_enabled(LOG_CAT_SWEEP, LOG_DEBUG)) {
		const struct route_status *rs = route_status(sm);

		log_msg(
		    LOG_CAT_SWEEP, LOG_DEBUG,
		    "sweep %llu timing, ms: discover %.1f, decide %.1f, assign %.1f, route %.1f "
		    "(engine %.1f, repair %.1f, keep %.1f, stats %.1f), readback %.1f, program "
		    "%.1f, arm %.1f, activate %.1f, publish %.1f (snapshot %.1f, hooks %.1f, "
		    "dumps %.1f)",
		    (unsigned long long)sm->sweeps, s->phase_ms[SWEEP_DISCOVER],
		    s->phase_ms[SWEEP_DECIDE], s->phase_ms[SWEEP_ASSIGN], s->phase_ms[SWEEP_ROUTE],
		    rs->engine_ms, rs->repair_ms, rs->keep_ms, rs->stats_ms,
		    s->phase_ms[SWEEP_READBACK], s->phase_ms[SWEEP_PROGRAM], s->phase_ms[SWEEP_ARM],
		    s->phase_ms[SWEEP_ACTIVATE], s->phase_ms[SWEEP_PUBLISH], t_hooks - t_pub,
		    s->publish_hooks_ms, s->publish_dump_ms);
	}
	if (s->rebalance)
		snprintf(readback + strlen(readback), sizeof(readback) - strlen(readback),
			 " (re-balanced: the engine ran in the background)");
	else if (s->incremental && s->scoped)
		snprintf(
		    readback + strlen(readback), sizeof(readback) - strlen(readback),
		    " (incremental: %u switch%s asked again, the ports of %u node%s looked at)",
		    s->reprobed, s->reprobed == 1 ? "" : "es", s->scoped_nodes,
		    s->scoped_nodes == 1 ? "" : "s");
	else if (s->incremental)
		snprintf(readback + strlen(readback), sizeof(readback) - strlen(readback),
			 " (incremental: %u switch%s asked again)", s->reprobed,
			 s->reprobed == 1 ? "" : "es");
	if (s->status == 0)
		log_msg(
		    LOG_CAT_SWEEP, sm->sweeps == 1 || s->sets ? LOG_INFO : LOG_DEBUG,
		    "subnet up: %u nodes (%u switches, %u CAs), %u links active, %u LIDs, "
		    "%u SMPs set, %u LFT blocks, %u P_Key blocks, %s routing%s, sweep %.1f ms%s",
		    s->nodes, s->switches, s->cas, s->links, s->lids, s->sets, s->lft_blocks,
		    s->pkey_blocks, s->engine, route_status(sm)->last_repaired ? " (repaired)" : "",
		    s->ms, readback);
	else if (s->standby)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
			"sweep %llu: %u nodes seen, nothing programmed: %s",
			(unsigned long long)sm->sweeps, s->nodes, s->reason);
	else
		log_warn("sweep %llu: subnet not up: %s", (unsigned long long)sm->sweeps,
			 s->reason);
	if (s->set_recovered)
		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"%u PortInfo Sets whose answers were lost were read back: taken",
			s->set_recovered);
	/* switches reported changes while it ran (before its own are put back, below) */
	bool overtaken = sm->sched.n_dirty > 0;
	if (set_failed) {
		for (unsigned i = 0; i < sw->n_dirty; i++)
			u64_set_add(sm->sched.dirty, &sm->sched.n_dirty, SWEEP_MAX_DIRTY,
				    sw->dirty[i]);
		/*
		 * A switch whose Sets failed and that this sweep did not ask
		 * again (dying under it: a spine cut port by port, its Sets
		 * sent over a link that went meanwhile) is asked again at once
		 * like a reported change, and found gone or cut: without it the
		 * retries would fail on it again until a heavy sweep.  One this
		 * sweep asked already is a quiet failure (backoff).
		 */
		for (unsigned i = 0; i < sw->n_failed_sw; i++)
			if ((!u64_set_has(sw->dirty, sw->n_dirty, sw->failed_sw[i]) ||
			     sweep_is_held(sm, sw->failed_sw[i])) &&
			    sm->snap &&
			    fabric_find_guid(sm->snap->fabric, sw->failed_sw[i]) !=
				FABRIC_NO_NODE) {
				sweep_start_around(sm, sw->failed_sw[i],
						   "its Sets failed during the last sweep");
				overtaken = true;
			}
	}
	sm->sched.cur = NULL;
	sm->sched.last_end_ms = clock_mono_ms();
	program_held_free(sw->held); /* READBACK's, used by PROGRAM */
	if (sw->start)
		event_free(sw->start);
	free(sw->touched);
	free(sw->scope);
	free(sw);
	route_published(sm); /* a re-balance owed: the engine in the background */
	sweep_sched_retry(sm, sm->last.status != 0 && !sm->last.standby, overtaken);
	hook_run(&sm->hooks.sweep_done, &sm->last);
	sweep_sched_next(sm);
}

/* Run phases until one has to wait for the fabric (or the sweep is over). */
static void sweep_step(struct sweep *sw)
{
	for (;;) {
		if (sw->phase != sw->timed_phase) {
			double t = clock_mono_ms();

			sw->sum.phase_ms[sw->timed_phase] += t - sw->t_phase;
			sw->timed_phase = sw->phase;
			sw->t_phase = t;
		}
		switch (sw->phase) {
		case SWEEP_DISCOVER:
			return; /* on_discovered moves on */
		case SWEEP_DECIDE:
			if (!sw->sm->role.ops) {
				sw->phase = SWEEP_ASSIGN; /* no role: program */
				break;
			}
			phase_decide(sw);
			return; /* on_decided moves on */
		case SWEEP_ASSIGN:
			phase_assign(sw);
			break;
		case SWEEP_ROUTE:
			phase_route(sw);
			break;
		case SWEEP_READBACK:
			if (phase_readback(sw))
				return; /* on_readback moves on */
			break;
		case SWEEP_PROGRAM:
		case SWEEP_ARM:
		case SWEEP_ACTIVATE:
			phase_batch(sw);
			return; /* on_batch_done moves on */
		case SWEEP_PUBLISH:
			phase_publish(sw);
			return;
		}
	}
}

/* ---- starting one ------------------------------------------------------ */

/* A re-balance's discovery: the published fabric as it is, copied (no SMP). */
static void sweep_rebalance_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sweep *sw = arg;
	struct sm *sm = sw->sm;

	(void)fd;
	(void)what;
	sw->f = sm->snap ? fabric_clone(sm->snap->fabric) : NULL;
	if (!sw->f)
		sweep_fail(sw, "out of memory copying the fabric to re-balance");
	else
		sw->phase = SWEEP_DECIDE;
	sweep_step(sw);
}

/* Whether the re-balance asked for (sched.rebalance) runs now: nothing else was asked. */
static bool sweep_may_rebalance(const struct sm *sm)
{
	const struct sweep_sched *sc = &sm->sched;

	return sc->rebalance && !sc->want_heavy && !sc->n_dirty && sm->snap &&
	       sm->snap->fabric->n_nodes && sm->state == SM_MASTER && sm->last.status == 0 &&
	       !sc->force_lft;
}

/* An incremental sweep is safe: only switch changes asked for, on top of a subnet that was up. */
static bool sweep_may_be_incremental(const struct sm *sm)
{
	const struct sweep_sched *sc = &sm->sched;

	/* on a subnet that was up, or after an incremental sweep whose programming failed */
	bool base_ok = sm->last.status == 0 || (sm->last.incremental && sm->last.set_errors &&
						sweep_sched_may_retry_incremental(sc));

	return sm->conf.incremental_sweep && !sc->want_heavy && sc->n_dirty > 0 &&
	       sc->n_dirty <= SWEEP_MAX_DIRTY && sm->snap && sm->snap->fabric->n_nodes &&
	       sm->state == SM_MASTER && base_ok && !sm->last.standby && !sc->force_lft;
}

int sweep_begin(struct sm *sm, const char *why)
{
	struct sweep *sw;
	bool rebalance = sweep_may_rebalance(sm);
	bool incremental = rebalance || sweep_may_be_incremental(sm);
	int r;

	sm->sched.rebalance = false;
	/* what the hooks are told; a failing incremental start still falls back */
	sm->sched.cur_incremental = incremental;
	hook_run(&sm->hooks.sweep_begin, why);
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->sm = sm;
	sw->seq = ++sm->sched.begun;
	sw->phase = SWEEP_DISCOVER;
	sw->t0 = clock_mono_ms();
	sw->t_phase = sw->t0;
	sm->sched.cur = sw;
	if (sm->role.ops)
		sm->role.ops->sweep_started(sm->role.ctx);
	else if (sm->state == SM_NOTACTIVE)
		sm->state = SM_DISCOVERING;
	r = -ENOENT;
	if (rebalance) {
		static const struct timeval now = {0, 0};

		sw->start = evtimer_new(sm->base, sweep_rebalance_cb, sw);
		if (sw->start && evtimer_add(sw->start, &now) == 0) {
			sw->rebalance = true;
			sw->scoped = true; /* nothing discovered: only the tables may change */
			sw->sum.rebalance = true;
			sw->sum.incremental = true;
			sm->sched.want_heavy = false;
			log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "re-balance sweep (%s)", why);
			return 0;
		}
		incremental = sweep_may_be_incremental(sm);
	}
	if (incremental) {
		uint64_t held[SWEEP_MAX_HELD];
		unsigned n_held = sweep_held(sm, held, SWEEP_MAX_HELD);

		r = discover_start_around(sm->xe, sm->snap->fabric, sm->sched.dirty,
					  sm->sched.n_dirty, held, n_held, on_discovered, sw,
					  &sw->disc);
		memcpy(sw->dirty, sm->sched.dirty, sm->sched.n_dirty * sizeof(sw->dirty[0]));
		sw->n_dirty = sm->sched.n_dirty;
		if (r == 0)
			log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
				"incremental sweep around %u switch%s (%s)", sm->sched.n_dirty,
				sm->sched.n_dirty == 1 ? "" : "es", why);
	} else if (sm->sched.n_dirty)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "heavy sweep although %u switch%s changed: %s",
			sm->sched.n_dirty, sm->sched.n_dirty == 1 ? "" : "es",
			sm->sched.want_heavy	      ? "another request needs a heavy sweep"
			: !sm->conf.incremental_sweep ? "incremental_sweep is off"
			: sm->state != SM_MASTER      ? "not master"
			: sm->sched.force_lft	      ? "a reroute was ordered"
					      : "the last sweep did not bring the subnet up");
	sm->sched.n_dirty = 0;
	sm->sched.want_heavy = false;
	if (r < 0) {
		sweep_hold_clear(sm); /* the whole fabric, as it is */
		r = discover_start(sm->xe, on_discovered, sw, &sw->disc);
	}
	if (r < 0) {
		sm->sched.cur = NULL;
		free(sw);
		return r;
	}
	return 0;
}

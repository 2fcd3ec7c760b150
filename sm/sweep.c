/*
 * The heavy sweep and its scheduler (see sweep.h).  IBA 1.4 vol 1, 14.4
 * (subnet management), 7.2 (link states).
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

#include "lib/log.h"
#include "sm/dump.h"
#include "sm/program.h"
#include "sm/route.h"
#include "sm/sm.h"
#include "sm/smstate.h"
#include "sm/sweep.h"

enum sweep_phase {
	SWEEP_DISCOVER,
	SWEEP_DECIDE,
	SWEEP_ASSIGN,
	SWEEP_ROUTE,
	SWEEP_PROGRAM,
	SWEEP_ARM,
	SWEEP_ACTIVATE,
	SWEEP_PUBLISH,
};

struct sweep {
	struct sm *sm;
	enum sweep_phase phase;
	struct discover *disc; /* DISCOVER */
	struct program *batch; /* PROGRAM, ARM, ACTIVATE */
	struct fabric *f;      /* being built; published at the end */
	struct routes *routes; /* f's */
	uint16_t max_lid;      /* from ASSIGN */
	struct sweep_summary sum;
	double t0;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

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
	discover_free(sw->disc);
	program_abort(sw->batch);
	fabric_free(sw->f);
	routes_free(sw->routes);
	free(sw);
}

bool sweep_running(const struct sm *sm)
{
	return sm->sched.cur != NULL;
}

bool sweep_pending(const struct sm *sm)
{
	return sm->sched.pending;
}

void sweep_force_lft(struct sm *sm)
{
	sm->sched.force_lft = true;
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
	/* discovery and a batch free themselves once their SMPs are cancelled */
	sweep_destroy(sw);
}

/* ---- phases ----------------------------------------------------------- */

static void on_discovered(void *arg, int status, struct discover_result *res)
{
	struct sweep *sw = arg;

	discover_free(sw->disc);
	sw->disc = NULL;
	sw->f = res->fabric;
	sw->sum.discover_ms = res->ms;
	sw->sum.timeouts = res->timeouts;
	if (status < 0 || !sw->f || !sw->f->n_nodes)
		sweep_fail(sw, "discovery found nothing (%s): is the local port up?",
			   strerror(status < 0 ? -status : EHOSTUNREACH));
	else
		sw->phase = SWEEP_DECIDE;
	sweep_step(sw);
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
	int r = route_fabric(sw->sm, sw->f, &sw->routes, sw->sum.engine, sizeof(sw->sum.engine),
			     &sw->sum.route_ms);

	if (r < 0)
		sweep_fail(sw, "no routing engine could route: %s", strerror(-r));
	else
		sw->phase = SWEEP_PROGRAM;
}

static void on_batch_done(void *arg, const struct program_stats *st)
{
	struct sweep *sw = arg;

	sw->batch = NULL;
	sw->sum.sets += st->sets;
	sw->sum.set_errors += st->errors;
	sw->sum.timeouts += st->timeouts;
	sw->sum.lft_blocks += st->lft_blocks;
	sw->phase++;
	sweep_step(sw);
}

/* Start the programming batch of the current phase; its callback moves on. */
static void phase_batch(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	const struct snapshot *old = sm->snap;

	sw->batch = program_new(sm->xe, sw->f, on_batch_done, sw);
	if (!sw->batch) {
		sweep_fail(sw, "out of memory");
		sweep_step(sw);
		return;
	}
	switch (sw->phase) {
	case SWEEP_PROGRAM: {
		struct program_params pp = {sm->conf.subnet_prefix, sw->sum.engine,
					    sm->sched.force_lft};

		program_configure(sw->batch, sw->routes, old ? old->fabric : NULL,
				  old ? old->routes : NULL, &pp);
		sm->sched.force_lft = false;
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
	s->ms = now_ms() - sw->t0;
	if (!s->reason[0] && s->ports_active != s->ports_linked)
		snprintf(s->reason, sizeof(s->reason), "%u of %u linked ports are not ACTIVE",
			 s->ports_linked - s->ports_active, s->ports_linked);
	if (!s->reason[0] && s->set_errors)
		snprintf(s->reason, sizeof(s->reason), "%u SMPs failed while programming",
			 s->set_errors);
	s->status = s->reason[0] ? -EIO : 0;
}

static void sweep_arm_holddown(struct sm *sm);

/* The new snapshot replaces the old one whole; then the hooks, the dumps, the next sweep. */
static void phase_publish(struct sweep *sw)
{
	struct sm *sm = sw->sm;
	struct sweep_summary *s = &sw->sum;
	struct snapshot *old = sm->snap, *snap;

	if (!sw->f)
		sw->f = fabric_new();
	if (!sw->routes && sw->f)
		sw->routes = routes_new(sw->f, 0);
	if (!sw->f || !sw->routes) {
		log_err("sweep failed and out of memory");
		abort();
	}
	sweep_count(sw);
	if (snapshot_new(sw->f, sw->routes, old ? old->generation + 1 : 1, &snap) < 0) {
		log_err("sweep failed: out of memory publishing the snapshot");
		abort();
	}
	sw->f = NULL;
	sw->routes = NULL;
	sm->snap = snap;
	sm->sweeps++;
	sm->last = *s;
	sm->subnet_up = s->status == 0;
	smstate_sweep_done(sm, s);
	hook_run(&sm->hooks.published, old);
	if (s->status == 0 && (s->sets || sm->sweeps == 1))
		dump_spawn(snap, sm->conf.state_dir, (uint64_t)sm->conf.dump_max_lft_entries,
			   &sm->sched.dump_pid);
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
	sm->sched.cur = NULL;
	sm->sched.last_end_ms = now_ms();
	free(sw);
	hook_run(&sm->hooks.sweep_done, &sm->last);
	if (sm->sched.pending)
		sweep_arm_holddown(sm);
}

/* Run phases until one has to wait for the fabric (or the sweep is over). */
static void sweep_step(struct sweep *sw)
{
	for (;;) {
		switch (sw->phase) {
		case SWEEP_DISCOVER:
			return; /* on_discovered moves on */
		case SWEEP_DECIDE:
			if (smstate_decide(sw->sm, sw->f) == SMSTATE_STAND_BY)
				sweep_fail(sw, "another SM is master: not programming");
			else
				sw->phase = SWEEP_ASSIGN;
			break;
		case SWEEP_ASSIGN:
			phase_assign(sw);
			break;
		case SWEEP_ROUTE:
			phase_route(sw);
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

/* ---- the scheduler ------------------------------------------------------ */

static int sweep_begin(struct sm *sm, const char *why)
{
	struct sweep *sw;
	int r;

	hook_run(&sm->hooks.sweep_begin, why);
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->sm = sm;
	sw->phase = SWEEP_DISCOVER;
	sw->t0 = now_ms();
	sm->sched.cur = sw;
	smstate_sweep_started(sm);
	r = discover_start(sm->xe, on_discovered, sw, &sw->disc);
	if (r < 0) {
		sm->sched.cur = NULL;
		free(sw);
		return r;
	}
	return 0;
}

static void sweep_holddown_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	char why[sizeof(sm->sched.pending_why)];
	int r;

	if (!sm->sched.pending || sm->sched.cur)
		return;
	snprintf(why, sizeof(why), "%s", sm->sched.pending_why);
	if (sm->sched.pending_count > 1)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "%u sweep requests folded into one (first: %s)",
			sm->sched.pending_count, why);
	sm->sched.pending = false;
	sm->sched.pending_count = 0;
	r = sweep_begin(sm, why);
	if (r < 0)
		log_err("cannot start a sweep (%s): %s", why, strerror(-r));
}

/* Start the pending sweep once the hold-down since the last sweep's end is over. */
static void sweep_arm_holddown(struct sm *sm)
{
	double wait = sm->conf.sweep_holddown_ms - (now_ms() - sm->sched.last_end_ms);
	struct timeval tv = {0, 0};

	if (!sm->sched.holddown)
		sm->sched.holddown = evtimer_new(sm->base, sweep_holddown_cb, sm);
	if (!sm->sched.holddown) {
		log_err("cannot arm the sweep hold-down timer: sweeping now");
		sweep_holddown_cb(-1, 0, sm);
		return;
	}
	if (wait > 0) {
		tv.tv_sec = (time_t)(wait / 1000);
		tv.tv_usec = (suseconds_t)((wait - tv.tv_sec * 1000.0) * 1000);
	}
	evtimer_add(sm->sched.holddown, &tv);
}

int sweep_start_why(struct sm *sm, const char *why)
{
	struct sweep_sched *sc = &sm->sched;

	if (sc->cur || sc->pending) {
		if (!sc->pending)
			snprintf(sc->pending_why, sizeof(sc->pending_why), "%s", why);
		sc->pending = true;
		sc->pending_count++;
		return 0;
	}
	if (sc->last_end_ms && now_ms() - sc->last_end_ms < sm->conf.sweep_holddown_ms) {
		snprintf(sc->pending_why, sizeof(sc->pending_why), "%s", why);
		sc->pending = true;
		sc->pending_count = 1;
		sweep_arm_holddown(sm);
		return 0;
	}
	return sweep_begin(sm, why);
}

int sweep_start(struct sm *sm)
{
	return sweep_start_why(sm, "requested");
}

void sweep_sched_fini(struct sm *sm)
{
	if (sm->sched.holddown)
		event_free(sm->sched.holddown);
	sm->sched.holddown = NULL;
}

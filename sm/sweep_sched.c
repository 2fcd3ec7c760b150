/*
 * The sweep scheduler (see sweep_sched.h): requests folded behind the
 * running sweep and the hold-down, a switch's trap gathered with its
 * neighbour's, failed sweeps retried with backoff.  It starts a sweep
 * through sm->sched.begin (sweep.c's sweep_begin, set by sm.c), so every
 * part that asks for a sweep calls down into this file and never into the
 * sweep's phases.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/sorted.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

static void sweep_arm_holddown(struct sm *sm);

/* A timer's wait of ms milliseconds (0 when not positive). */
static struct timeval sweep_tv(double ms)
{
	struct timeval tv = {0, 0};

	if (ms > 0) {
		tv.tv_sec = (time_t)(ms / 1000);
		tv.tv_usec = (suseconds_t)((ms - tv.tv_sec * 1000.0) * 1000);
	}
	return tv;
}
static void sweep_holddown_cb(evutil_socket_t fd, short what, void *arg);

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
	sm->sched.force_begun = sm->sched.begun;
}

static int sweep_request(struct sm *sm, const char *why);

bool sweep_sched_may_retry_incremental(const struct sweep_sched *sc)
{
	return sc->failures_quiet <= 2 && sc->failures <= SWEEP_MAX_OVERTAKEN;
}

static void sweep_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	char why[64];

	(void)fd;
	(void)what;
	if (sm->state != SM_MASTER && sm->state != SM_DISCOVERING)
		return;
	if (sm->sched.cur || !sm->sched.failures)
		return; /* a sweep runs (it retries if it fails too), or one brought the subnet up
			 */
	snprintf(why, sizeof(why), "retry %u after a failed sweep", sm->sched.failures);
	/* an incremental sweep that failed programming is retried around the same switches */
	if (sm->sched.n_dirty && sweep_sched_may_retry_incremental(&sm->sched))
		sweep_request(sm, why);
	else
		sweep_start_why(sm, why);
}

/*
 * After a sweep: a failed one is tried again after the hold-down, then
 * twice as long each time (at most 30 s, or the sweep interval if shorter);
 * one that did not fail resets the count.
 */
void sweep_sched_retry(struct sm *sm, bool failed, bool overtaken)
{
	struct sweep_sched *sc = &sm->sched;
	double ms = sm->conf.sweep_holddown_ms > 100 ? sm->conf.sweep_holddown_ms : 100;
	double cap = 30000;
	struct timeval tv;

	if (!failed) {
		/* a retry armed by an earlier failure is moot: this one brought the subnet up */
		sc->failures = 0;
		sc->failures_quiet = 0;
		if (sc->retry)
			evtimer_del(sc->retry);
		return;
	}
	sc->failures++;
	if (!overtaken) /* no switch reported a change while it ran */
		sc->failures_quiet++;
	if (sm->conf.sweep_interval > 0 && sm->conf.sweep_interval * 1000.0 < cap)
		cap = sm->conf.sweep_interval * 1000.0;
	for (unsigned i = 1; i < sc->failures && ms < cap; i++)
		ms *= 2;
	if (ms > cap)
		ms = cap;
	if (!sc->retry)
		sc->retry = evtimer_new(sm->base, sweep_retry_cb, sm);
	if (!sc->retry) {
		log_err("cannot arm the sweep retry timer: the next sweep is the periodic one");
		return;
	}
	tv = sweep_tv(ms);
	evtimer_add(sc->retry, &tv);
	log_msg(LOG_CAT_SWEEP, LOG_INFO, "sweep failed %u time%s in a row: trying again in %.1f s",
		sc->failures, sc->failures == 1 ? "" : "s", ms / 1000);
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
	r = sm->sched.begin ? sm->sched.begin(sm, why) : -ENOSYS;
	if (r < 0)
		log_err("cannot start a sweep (%s): %s", why, strerror(-r));
}

/*
 * When the pending sweep may start: when only switches reported changes, a
 * gather after the last report (their burst over), at most the longest
 * gather after the first; else the hold-down after the last sweep's end.
 */
static double sweep_due_ms(const struct sm *sm)
{
	const struct sweep_sched *sc = &sm->sched;
	double quiet, cap;

	if (sc->want_heavy || !sc->n_dirty)
		return sc->last_end_ms + sm->conf.sweep_holddown_ms;
	quiet = sc->last_report_ms + SWEEP_TRAP_GATHER_MS;
	cap = sc->first_report_ms + SWEEP_GATHER_MAX_MS;
	return quiet < cap ? quiet : cap;
}

/* Start the pending sweep when it is due (sweep_due_ms). */
static void sweep_arm_holddown(struct sm *sm)
{
	struct timeval tv = sweep_tv(sweep_due_ms(sm) - clock_mono_ms());

	if (!sm->sched.holddown)
		sm->sched.holddown = evtimer_new(sm->base, sweep_holddown_cb, sm);
	if (!sm->sched.holddown) {
		log_err("cannot arm the sweep hold-down timer: sweeping now");
		sweep_holddown_cb(-1, 0, sm);
		return;
	}
	evtimer_add(sm->sched.holddown, &tv);
}

void sweep_sched_next(struct sm *sm)
{
	if (sm->sched.pending)
		sweep_arm_holddown(sm);
}

int sweep_start_why(struct sm *sm, const char *why)
{
	sm->sched.want_heavy = true;
	return sweep_request(sm, why);
}

int sweep_start_around(struct sm *sm, uint64_t guid, const char *why)
{
	struct sweep_sched *sc = &sm->sched;
	double now = clock_mono_ms();

	if (!sc->n_dirty)
		sc->first_report_ms = now;
	sc->last_report_ms = now;
	if (!u64_set_add(sc->dirty, &sc->n_dirty, SWEEP_MAX_DIRTY, guid))
		sc->want_heavy = true; /* too many to bound */
	if (sc->cur)
		return sweep_request(sm, why); /* due when it ends (sweep_sched_next) */
	/*
	 * Gather: both ends of a link report it (a far end reached only across
	 * the link that broke cannot be asked), and a switch that loses its
	 * links one after the other reports each: wait until the reports stop
	 * (sweep_due_ms), so that the burst is one incremental sweep.
	 */
	if (!sc->pending) {
		snprintf(sc->pending_why, sizeof(sc->pending_why), "%s", why);
		sc->pending = true;
		sc->pending_count = 0;
	}
	sc->pending_count++;
	sweep_arm_holddown(sm);
	return 0;
}

static int sweep_request(struct sm *sm, const char *why)
{
	struct sweep_sched *sc = &sm->sched;

	if (sc->cur || sc->pending) {
		if (!sc->pending)
			snprintf(sc->pending_why, sizeof(sc->pending_why), "%s", why);
		sc->pending = true;
		sc->pending_count++;
		return 0;
	}
	if (sc->last_end_ms && clock_mono_ms() - sc->last_end_ms < sm->conf.sweep_holddown_ms) {
		snprintf(sc->pending_why, sizeof(sc->pending_why), "%s", why);
		sc->pending = true;
		sc->pending_count = 1;
		sweep_arm_holddown(sm);
		return 0;
	}
	return sc->begin ? sc->begin(sm, why) : -ENOSYS;
}

int sweep_start_rebalance(struct sm *sm)
{
	sm->sched.rebalance = true;
	return sweep_request(sm, "re-balance in the background done");
}

int sweep_start(struct sm *sm)
{
	return sweep_start_why(sm, "requested");
}

static unsigned sweep_hold_ms(const struct sm *sm)
{
	return sm->conf.dying_switch_hold_ms > 0 ? (unsigned)sm->conf.dying_switch_hold_ms : 0;
}

/* The holds that ended: their neighbours asked again; the timer set for the next end. */
static void sweep_hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct sweep_sched *sc = &sm->sched;
	double now = clock_mono_ms(), next = 0;
	unsigned k = 0;

	(void)fd;
	(void)what;
	for (unsigned i = 0; i < sc->n_held; i++) {
		struct sweep_held *h = &sc->held[i];

		if (h->until_ms > now) {
			if (!next || h->until_ms < next)
				next = h->until_ms;
			sc->held[k++] = *h;
			continue;
		}
		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"switch 0x%016llx no longer held out: its %u former neighbours are asked "
			"again",
			(unsigned long long)h->guid, h->n_nbr);
		for (unsigned j = 0; sm->state == SM_MASTER && sm->snap && j < h->n_nbr; j++)
			if (fabric_find_guid(sm->snap->fabric, h->nbr[j]) != FABRIC_NO_NODE)
				sweep_start_around(sm, h->nbr[j],
						   "a switch held out is asked again");
	}
	sc->n_held = k;
	if (next) {
		struct timeval tv = sweep_tv(next - now);

		evtimer_add(sc->hold_timer, &tv);
	}
}

bool sweep_hold(struct sm *sm, uint64_t guid, const uint64_t *nbr, unsigned n_nbr)
{
	struct sweep_sched *sc = &sm->sched;
	struct sweep_held *h = NULL;
	unsigned ms = sweep_hold_ms(sm);
	struct timeval tv = sweep_tv(ms);

	for (unsigned i = 0; i < sc->n_held && !h; i++)
		if (sc->held[i].guid == guid)
			h = &sc->held[i];
	if ((!h && sc->n_held == SWEEP_MAX_HELD) || !ms)
		return false;
	if (!sc->hold_timer)
		sc->hold_timer = evtimer_new(sm->base, sweep_hold_cb, sm);
	if (!sc->hold_timer)
		return false;
	if (!h)
		h = &sc->held[sc->n_held++];
	h->guid = guid;
	h->until_ms = clock_mono_ms() + ms;
	h->n_nbr = n_nbr < SWEEP_MAX_DIRTY ? n_nbr : SWEEP_MAX_DIRTY;
	memcpy(h->nbr, nbr, h->n_nbr * sizeof(*nbr));
	/* every hold lasts as long: the one just made ends last */
	if (!evtimer_pending(sc->hold_timer, NULL))
		evtimer_add(sc->hold_timer, &tv);
	return true;
}

/*
 * Linked ports of switch x of f; *cas: of those, facing a CA; nbr (may be
 * NULL): the far ends' GUIDs, at most SWEEP_MAX_DIRTY, into *n_nbr.
 */
static unsigned sweep_links_of(const struct fabric *f, uint32_t x, unsigned *cas, uint64_t *nbr,
			       unsigned *n_nbr)
{
	unsigned n = 0;

	*cas = 0;
	for (unsigned pn = 1; pn <= f->nodes[x].nports; pn++) {
		const struct port *p = &f->nodes[x].ports[pn];

		if (!port_is_linked(p))
			continue;
		n++;
		*cas += !node_is_switch(&f->nodes[p->remote_node]);
		if (nbr && *n_nbr < SWEEP_MAX_DIRTY)
			nbr[(*n_nbr)++] = f->nodes[p->remote_node].guid;
	}
	return n;
}

/*
 * Whether every node of f but x is reached from the SM's node without
 * crossing x: holding x out cuts nobody else off (a spine of a fat tree,
 * not the only way to some leaf).  false on ENOMEM.
 */
static bool sweep_spares_the_rest(const struct fabric *f, uint32_t x)
{
	uint32_t *queue = malloc((size_t)f->n_nodes * sizeof(*queue));
	uint8_t *seen = calloc(f->n_nodes, 1);
	uint32_t head = 0, tail = 0, reached = 0;

	if (!queue || !seen) {
		free(queue);
		free(seen);
		return false;
	}
	seen[x] = 1;
	if (!seen[f->sm_node]) {
		seen[f->sm_node] = 1;
		queue[tail++] = f->sm_node;
	}
	while (head < tail) {
		const struct node *n = &f->nodes[queue[head++]];

		reached++;
		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];

			if (port_is_linked(p) && !seen[p->remote_node]) {
				seen[p->remote_node] = 1;
				queue[tail++] = p->remote_node;
			}
		}
	}
	free(queue);
	free(seen);
	return reached + 1 == f->n_nodes;
}

unsigned sweep_hold_dying(struct sm *sm, const struct fabric *before, const struct fabric *now,
			  const uint64_t *failed, unsigned n_failed)
{
	unsigned held = 0;

	if (!now->n_nodes || !sweep_hold_ms(sm))
		return 0; /* dying_switch_hold_ms 0: never */
	for (unsigned i = 0; i < n_failed; i++) {
		uint64_t g = failed[i], nbr[SWEEP_MAX_DIRTY];
		uint32_t x = fabric_find_guid(now, g), b = fabric_find_guid(before, g);
		const struct port *smp = &now->nodes[now->sm_node].ports[now->sm_port];
		unsigned cas_before, cas_now, was, is, n_nbr = 0;

		if (x == FABRIC_NO_NODE || b == FABRIC_NO_NODE || x == now->sm_node ||
		    !node_is_switch(&now->nodes[x]) ||
		    (port_is_linked(smp) && smp->remote_node == x))
			continue;
		was = sweep_links_of(before, b, &cas_before, nbr, &n_nbr);
		is = sweep_links_of(now, x, &cas_now, NULL, NULL);
		if (cas_before || was < is + SWEEP_HOLD_MIN_LINKS)
			continue;
		if (!sweep_spares_the_rest(now, x)) {
			log_msg(LOG_CAT_SWEEP, LOG_INFO,
				"switch 0x%016llx \"%s\" lost %u of its %u links while its Sets "
				"failed, but some nodes are reached only through it: not held out",
				(unsigned long long)g, now->nodes[x].desc, was - is, was);
			continue;
		}
		if (!sweep_hold(sm, g, nbr, n_nbr))
			continue;
		held++;
		log_msg(
		    LOG_CAT_SWEEP, LOG_INFO,
		    "switch 0x%016llx \"%s\" lost %u of its %u links while its Sets failed: "
		    "held out of the next incremental sweeps for %u ms (going down port by port)",
		    (unsigned long long)g, now->nodes[x].desc, was - is, was, sweep_hold_ms(sm));
	}
	return held;
}

bool sweep_is_held(const struct sm *sm, uint64_t guid)
{
	for (unsigned i = 0; i < sm->sched.n_held; i++)
		if (sm->sched.held[i].guid == guid)
			return true;
	return false;
}

unsigned sweep_held(const struct sm *sm, uint64_t *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < sm->sched.n_held && n < max; i++)
		out[n++] = sm->sched.held[i].guid;
	return n;
}

void sweep_hold_clear(struct sm *sm)
{
	sm->sched.n_held = 0;
	if (sm->sched.hold_timer)
		evtimer_del(sm->sched.hold_timer);
}

void sweep_sched_fini(struct sm *sm)
{
	if (sm->sched.hold_timer)
		event_free(sm->sched.hold_timer);
	sm->sched.hold_timer = NULL;
	sm->sched.n_held = 0;
	if (sm->sched.holddown)
		event_free(sm->sched.holddown);
	sm->sched.holddown = NULL;
	if (sm->sched.retry)
		event_free(sm->sched.retry);
	sm->sched.retry = NULL;
}

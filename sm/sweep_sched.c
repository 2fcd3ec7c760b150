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
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/sorted.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

static void sweep_arm_holddown(struct sm *sm);
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
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)((ms - tv.tv_sec * 1000.0) * 1000);
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
	double wait = sweep_due_ms(sm) - clock_mono_ms();
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

void sweep_sched_fini(struct sm *sm)
{
	if (sm->sched.holddown)
		event_free(sm->sched.holddown);
	sm->sched.holddown = NULL;
	if (sm->sched.retry)
		event_free(sm->sched.retry);
	sm->sched.retry = NULL;
}

/*
 * Unit tests of the sweep scheduler's retry rule (sm/sweep_sched.c): after
 * failed sweeps, the next stays incremental while the failures were
 * overtaken by changes (switches reporting while the sweep ran: a switch
 * losing its links one by one fails the Sets aimed at it) up to
 * SWEEP_MAX_OVERTAKEN in a row, but not after 3 failures with no change
 * reported (a stuck fabric gets a heavy sweep); a sweep that brings the
 * subnet up resets both counts.  And the hold of a switch going down port
 * by port: which switches are held (a transit switch whose Sets failed and
 * that lost two links or more), and what its end asks again.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/routes.h"
#include "fabric/snapshot.h"
#include "sm/conf.h"
#include "sm/sm.h"
#include "sm/status.h"
#include "sm/sweep_sched.h"
#include "tests/testutil.h"

static struct sm *sm_new(void)
{
	struct sm *sm = calloc(1, sizeof(*sm));

	CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
	sm->base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm->base);
	conf_defaults(&sm->conf);
	return sm;
}

static void sm_del(struct sm *sm)
{
	struct event_base *base = sm->base;

	sweep_sched_fini(sm);
	free(sm);
	event_base_free(base);
}

static void test_overtaken(void)
{
	struct sm *sm = sm_new();

	for (unsigned i = 1; i <= 3; i++) {
		sweep_sched_retry(sm, true, true);
		CU_ASSERT_EQUAL(sm->sched.failures, i);
		CU_ASSERT_EQUAL(sm->sched.failures_quiet, 0);
		CU_ASSERT_TRUE(sweep_sched_may_retry_incremental(&sm->sched));
	}
	/* a retry is armed, backing off */
	CU_ASSERT_PTR_NOT_NULL(sm->sched.retry);
	for (unsigned i = 4; i <= SWEEP_MAX_OVERTAKEN; i++)
		sweep_sched_retry(sm, true, true);
	CU_ASSERT_TRUE(sweep_sched_may_retry_incremental(&sm->sched));
	sweep_sched_retry(sm, true, true);
	CU_ASSERT_EQUAL(sm->sched.failures, SWEEP_MAX_OVERTAKEN + 1);
	CU_ASSERT_FALSE(sweep_sched_may_retry_incremental(&sm->sched));
	/* up again: both counts start over */
	sweep_sched_retry(sm, false, false);
	CU_ASSERT_EQUAL(sm->sched.failures, 0);
	CU_ASSERT_EQUAL(sm->sched.failures_quiet, 0);
	CU_ASSERT_TRUE(sweep_sched_may_retry_incremental(&sm->sched));
	sm_del(sm);
}

static int begin_stub(struct sm *sm, const char *why)
{
	(void)sm;
	(void)why;
	return 0;
}

/*
 * T1, a transit switch, links S1 and S2 twice each; T2 links S1 twice and
 * S2 once.  The SM's host H1 hangs off S1.
 */
static const char hold_net[] =
    "Switch 5 \"S1\"\n[1] \"H1\"[1]\n[2] \"T1\"[1]\n[3] \"T1\"[2]\n[4] \"T2\"[1]\n[5] "
    "\"T2\"[3]\n\n"
    "Switch 4 \"S2\"\n[1] \"H2\"[1]\n[2] \"T1\"[3]\n[3] \"T1\"[4]\n[4] \"T2\"[2]\n\n"
    "Switch 4 \"T1\"\n[1] \"S1\"[2]\n[2] \"S1\"[3]\n[3] \"S2\"[2]\n[4] \"S2\"[3]\n\n"
    "Switch 3 \"T2\"\n[1] \"S1\"[4]\n[2] \"S2\"[4]\n[3] \"S1\"[5]\n\n"
    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S2\"[1]\n";

static uint64_t guid_of(const struct fabric *f, const char *desc)
{
	uint32_t i = testutil_find_desc(f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return f->nodes[i].guid;
}

/* before, with T1's links to S1 port 2 and S2 port 2 cut, and more (then pruned, as a sweep's) */
static struct fabric *hold_now(const struct fabric *before, bool cut_t2_s2)
{
	struct fabric *now = fabric_clone(before);

	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	testutil_cut(now, "T1", 1); /* T1: two of four links gone */
	testutil_cut(now, "T1", 3);
	testutil_cut(now, "T2", 1); /* T2: one of three */
	testutil_cut(now, "S2", 1); /* S2: its host, besides T1's link, but it had a host */
	if (cut_t2_s2)
		testutil_cut(now, "T2", 2); /* then S2 is reached only through T1 */
	CU_ASSERT_EQUAL_FATAL(fabric_prune_in_place(now, NULL), 0);
	return now;
}

static void test_hold_dying(void)
{
	struct sm *sm = sm_new();
	struct fabric *before = testutil_load_lids(hold_net), *now;
	struct snapshot *snap = NULL;
	uint64_t failed[5], held[SWEEP_MAX_HELD];
	struct sm_incremental_status st;
	double t0;

	before->sm_node = testutil_find_desc(before, "H1");
	before->sm_port = 1;
	now = hold_now(before, false);
	CU_ASSERT_EQUAL(now->n_nodes, 5); /* H2 gone */
	failed[0] = guid_of(now, "T1");
	failed[1] = guid_of(now, "T2");
	failed[2] = guid_of(now, "S2");
	failed[3] = guid_of(now, "S1"); /* two gone too, but the SM's neighbour, with a host */
	failed[4] = 0x1234;		/* not in the fabric */
	sm->sched.begin = begin_stub;
	sm->conf.dying_switch_hold_ms = 0; /* never */
	CU_ASSERT_EQUAL(sweep_hold_dying(sm, before, now, failed, 5), 0);
	CU_ASSERT_EQUAL(sweep_held(sm, held, SWEEP_MAX_HELD), 0);
	sm->conf.dying_switch_hold_ms = 5;
	CU_ASSERT_EQUAL(sweep_hold_dying(sm, before, now, failed, 5), 1);
	CU_ASSERT_EQUAL_FATAL(sweep_held(sm, held, SWEEP_MAX_HELD), 1);
	CU_ASSERT_EQUAL(held[0], failed[0]);
	CU_ASSERT_EQUAL(sm->sched.held[0].n_nbr, 4); /* S1, S1, S2, S2 (as before) */
	sm_incremental_status_get(sm, &st);
	CU_ASSERT_EQUAL(st.switches_held_out, 1); /* smctl status: last_sweep_incremental */
	/* held again: still one hold */
	CU_ASSERT_EQUAL(sweep_hold_dying(sm, before, now, failed, 1), 1);
	CU_ASSERT_EQUAL(sweep_held(sm, held, SWEEP_MAX_HELD), 1);

	/* its end: its former neighbours in the published fabric are swept around */
	CU_ASSERT_EQUAL_FATAL(snapshot_new(fabric_clone(now), routes_new(now, 0), 1, &snap), 0);
	sm->snap = snap;
	sm->state = SM_MASTER;
	t0 = testutil_now_ms();
	while (sm->sched.n_held && testutil_now_ms() - t0 < 20000)
		event_base_loop(sm->base, EVLOOP_ONCE);
	CU_ASSERT_EQUAL(sweep_held(sm, held, SWEEP_MAX_HELD), 0);
	CU_ASSERT_EQUAL(sm->sched.n_dirty, 2);
	CU_ASSERT_TRUE(sm->sched.pending);

	/* a heavy sweep forgets every hold */
	CU_ASSERT_EQUAL(sweep_hold_dying(sm, before, now, failed, 1), 1);
	sweep_hold_clear(sm);
	CU_ASSERT_EQUAL(sweep_held(sm, held, SWEEP_MAX_HELD), 0);

	/* T1 the only way left to S2 and T2: not held, nobody cut off */
	fabric_free(now);
	now = hold_now(before, true);
	CU_ASSERT_EQUAL(now->n_nodes, 5);
	CU_ASSERT_EQUAL(sweep_hold_dying(sm, before, now, failed, 1), 0);
	CU_ASSERT_EQUAL(sweep_held(sm, held, SWEEP_MAX_HELD), 0);
	snapshot_free(snap);
	fabric_free(before);
	fabric_free(now);
	sm_del(sm);
}

static void test_quiet(void)
{
	struct sm *sm = sm_new();

	sweep_sched_retry(sm, true, false);
	sweep_sched_retry(sm, true, true); /* one overtaken between: not counted as quiet */
	sweep_sched_retry(sm, true, false);
	CU_ASSERT_EQUAL(sm->sched.failures, 3);
	CU_ASSERT_EQUAL(sm->sched.failures_quiet, 2);
	CU_ASSERT_TRUE(sweep_sched_may_retry_incremental(&sm->sched));
	sweep_sched_retry(sm, true, false);
	CU_ASSERT_EQUAL(sm->sched.failures_quiet, 3);
	CU_ASSERT_FALSE(sweep_sched_may_retry_incremental(&sm->sched));
	sweep_sched_retry(sm, false, true);
	CU_ASSERT_TRUE(sweep_sched_may_retry_incremental(&sm->sched));
	sm_del(sm);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"failures overtaken by changes stay incremental, up to a bound", test_overtaken},
	    {"three failures with no change: heavy", test_quiet},
	    {"a transit switch losing links while its Sets fail is held out", test_hold_dying},
	    {NULL, NULL},
	};

	return testutil_run("sweep_sched", cases);
}

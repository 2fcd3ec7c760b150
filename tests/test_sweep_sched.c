/*
 * Unit tests of the sweep scheduler's retry rule (sm/sweep_sched.c): after
 * failed sweeps, the next stays incremental while the failures were
 * overtaken by changes (switches reporting while the sweep ran: a switch
 * losing its links one by one fails the Sets aimed at it) up to
 * SWEEP_MAX_OVERTAKEN in a row, but not after 3 failures with no change
 * reported (a stuck fabric gets a heavy sweep); a sweep that brings the
 * subnet up resets both counts.
 */
#include <stdlib.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "sm/conf.h"
#include "sm/sm.h"
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
	    {NULL, NULL},
	};

	return testutil_run("sweep_sched", cases);
}

/*
 * Unit tests of the hook lists (lib/hook.c): order, removal, and changes made
 * by a hook while its list runs.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "lib/hook.h"
#include "tests/testutil.h"

struct trace {
	char calls[64];
	size_t n;
	struct hook_list *list;
};

static void hook_a(void *ctx, const void *data)
{
	struct trace *t = ctx;

	t->calls[t->n++] = 'a';
	CU_ASSERT_STRING_EQUAL(data, "data");
}

static void hook_b(void *ctx, const void *data)
{
	struct trace *t = ctx;

	t->calls[t->n++] = 'b';
}

/* Removes itself on its first call. */
static void hook_once(void *ctx, const void *data)
{
	struct trace *t = ctx;

	t->calls[t->n++] = 'o';
	CU_ASSERT_TRUE(hook_remove(t->list, hook_once, t));
}

/* Removes hook_b, which comes after it. */
static void hook_kill_b(void *ctx, const void *data)
{
	struct trace *t = ctx;

	t->calls[t->n++] = 'k';
	CU_ASSERT_TRUE(hook_remove(t->list, hook_b, t));
}

/* Adds hook_b: it runs from the next run on. */
static void hook_adder(void *ctx, const void *data)
{
	struct trace *t = ctx;

	t->calls[t->n++] = '+';
	CU_ASSERT_EQUAL(hook_add(t->list, hook_b, t), 0);
}

static void test_hook_order_and_remove(void)
{
	struct hook_list l = {0};
	struct trace t = {.list = &l}, other = {.list = &l};

	hook_run(&l, "data"); /* empty: nothing */
	CU_ASSERT_EQUAL(hook_add(&l, hook_a, &t), 0);
	CU_ASSERT_EQUAL(hook_add(&l, hook_b, &t), 0);
	CU_ASSERT_EQUAL(hook_add(&l, hook_a, &t), 0);
	hook_run(&l, "data");
	CU_ASSERT_STRING_EQUAL(t.calls, "aba");
	CU_ASSERT_EQUAL(hook_count(&l), 3);
	/* the first matching entry goes; another context does not match */
	CU_ASSERT_FALSE(hook_remove(&l, hook_a, &other));
	CU_ASSERT_TRUE(hook_remove(&l, hook_a, &t));
	memset(t.calls, 0, sizeof(t.calls));
	t.n = 0;
	hook_run(&l, "data");
	CU_ASSERT_STRING_EQUAL(t.calls, "ba");
	CU_ASSERT_TRUE(hook_remove(&l, hook_b, &t));
	CU_ASSERT_TRUE(hook_remove(&l, hook_a, &t));
	CU_ASSERT_FALSE(hook_remove(&l, hook_a, &t));
	CU_ASSERT_EQUAL(hook_count(&l), 0);
	hook_list_clear(&l);
}

static void test_hook_changes_while_running(void)
{
	struct hook_list l = {0};
	struct trace t = {.list = &l};

	CU_ASSERT_EQUAL(hook_add(&l, hook_once, &t), 0);
	CU_ASSERT_EQUAL(hook_add(&l, hook_kill_b, &t), 0);
	CU_ASSERT_EQUAL(hook_add(&l, hook_b, &t), 0);
	CU_ASSERT_EQUAL(hook_add(&l, hook_adder, &t), 0);
	hook_run(&l, "data");
	/* once ran and left, b was removed before its turn, adder's b waits */
	CU_ASSERT_STRING_EQUAL(t.calls, "ok+");
	CU_ASSERT_EQUAL(hook_count(&l), 3); /* kill_b, adder, the added b */
	hook_run(&l, "data");
	/* kill_b removes the added b before it runs; adder adds another */
	CU_ASSERT_STRING_EQUAL(t.calls, "ok+k+");
	hook_list_clear(&l);
	CU_ASSERT_EQUAL(hook_count(&l), 0);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"order and removal", test_hook_order_and_remove},
	    {"changes while running", test_hook_changes_while_running},
	    {NULL, NULL},
	};

	return testutil_run("hook", cases);
}

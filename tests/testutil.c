/*
 * Helpers shared by the unit tests; see testutil.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/topo.h"
#include "tests/testutil.h"

int testutil_run(const char *suite, const struct testutil_case *cases)
{
	const struct testutil_case *c;
	unsigned int fails;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite(suite, NULL, NULL);
	if (!s)
		goto fail;
	for (c = cases; c->name; c++)
		if (!CU_add_test(s, c->name, c->fn))
			goto fail;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;

fail:
	CU_cleanup_registry();
	return 1;
}

struct fabric *testutil_load_text(const char *text)
{
	struct fabric *f = NULL;
	char err[256];
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	rc = topo_parse(text, strlen(text), &f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\ntopo_parse: %d %s\n", rc, err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return f;
}

/* Node indices by GUID, equal GUIDs by index. */
static int testutil_cmp_guid(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	uint64_t ga = f->nodes[ia].guid, gb = f->nodes[ib].guid;

	if (ga != gb)
		return ga < gb ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

uint16_t testutil_assign_lids(struct fabric *f, uint8_t lmc)
{
	uint32_t *order = malloc((f->n_nodes + 1) * sizeof(*order)), i, next = 1;
	unsigned int p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(order);
	for (i = 0; i < f->n_nodes; i++)
		order[i] = i;
	qsort_r(order, f->n_nodes, sizeof(*order), testutil_cmp_guid, f);
	for (i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[order[i]];

		for (p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
			uint8_t l = node_is_switch(n) ? 0 : lmc;
			uint32_t size = 1u << l;

			next = (next + size - 1) & ~(size - 1);
			n->ports[p].lid = (uint16_t)next;
			n->ports[p].lmc = l;
			next += size;
		}
	}
	free(order);
	return (uint16_t)(next - 1);
}

uint32_t testutil_find_desc(const struct fabric *f, const char *desc)
{
	uint32_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return i;
	return FABRIC_NO_NODE;
}

double testutil_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void testutil_batch_done(void *arg, const struct program_stats *st)
{
	struct testutil_batch *b = arg;

	CU_ASSERT_FALSE(b->done); /* once */
	b->done = true;
	b->st = *st;
}

struct program_stats testutil_batch_run(struct event_base *base, struct program *pg,
					struct testutil_batch *b, int limit_s)
{
	struct timeval limit = {limit_s, 0};

	program_start(pg);
	event_base_loopexit(base, &limit);
	while (!b->done && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	CU_ASSERT_TRUE_FATAL(b->done);
	return b->st;
}

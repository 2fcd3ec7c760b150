/*
 * Helpers shared by the unit tests; see testutil.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/lft.h"
#include "fabric/topo.h"
#include "routing/routing.h"
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

struct fabric *testutil_load_lids(const char *text)
{
	struct fabric *f = testutil_load_text(text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FATAL(testutil_assign_lids(f, 0) > 0);
	return f;
}

void testutil_copy_lids(struct fabric *dst, const struct fabric *src)
{
	for (uint32_t i = 0; i < dst->n_nodes; i++) {
		struct node *n = &dst->nodes[i];
		uint32_t o = fabric_find_guid(src, n->guid);

		CU_ASSERT_FATAL(o != FABRIC_NO_NODE);
		for (uint8_t p = 0; p <= n->nports; p++) {
			n->ports[p].lid = src->nodes[o].ports[p].lid;
			n->ports[p].lmc = src->nodes[o].ports[p].lmc;
		}
	}
}

void testutil_cut(struct fabric *f, const char *desc, uint8_t p)
{
	uint32_t n = testutil_find_desc(f, desc);

	CU_ASSERT_FATAL(n != FABRIC_NO_NODE);
	CU_ASSERT_FATAL(port_is_linked(&f->nodes[n].ports[p]));
	fabric_unlink(f, n, p);
}

struct routes *testutil_route(const struct fabric *f, const char *engine)
{
	struct routes *r = NULL;
	char why[256] = "";
	int rc = routing_find(engine)->compute(f, NULL, &r, why, sizeof(why));

	if (rc)
		fprintf(stderr, "\n%s: %s\n", engine, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return r;
}

uint64_t testutil_blocks_changed(const struct fabric *of, const struct routes * or,
				 const struct fabric *f, const struct routes *r,
				 uint64_t *ret_total)
{
	uint64_t n = 0, total = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		uint32_t o;

		if (!node_is_switch(&f->nodes[i]) || !r->lft[i])
			continue;
		o = fabric_find_guid(of, f->nodes[i].guid);
		for (uint32_t b = 0; b <= r->max_lid / LFT_BLOCK; b++) {
			uint32_t lo = b * LFT_BLOCK, hi = lo + LFT_BLOCK;

			total++;
			for (uint32_t l = lo; l < hi && l <= r->max_lid; l++) {
				bool same = o != FABRIC_NO_NODE &&
					    (l <= or->max_lid ? or->lft[o][l] : LFT_NO_PORT) ==
						r->lft[i][l];

				if (!same) {
					n++;
					break;
				}
			}
		}
	}
	*ret_total = total;
	return n;
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

struct program_stats testutil_configure(struct event_base *base, struct xact_engine *xe,
					struct fabric *f, const struct routes *r,
					const struct fabric *old_f, const struct routes *old_r,
					const struct program_params *pp, int limit_s)
{
	struct testutil_batch run = {0};
	struct program *pg = program_new(xe, f, testutil_batch_done, &run);

	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	program_configure(pg, r, old_f, old_r, pp);
	return testutil_batch_run(base, pg, &run, limit_s);
}

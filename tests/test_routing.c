/*
 * Unit tests of the routing engines on generated topologies: every result
 * goes through the invariant checker (reachability, no loops, minimal hops),
 * the same fabric in shuffled order must give the same tables, min-hop must
 * balance a fat tree's uplinks, and broken inputs must not crash.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "routing/routing.h"
#include "fabric/topo.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

static struct routes *route(const struct fabric *f)
{
	struct routes *r = NULL;
	char why[128] = "";
	int rc;

	rc = minhop_compute(f, NULL, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\nminhop: %d %s\n", rc, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static void check(const struct fabric *f, const struct routes *r, const char *what)
{
	checker_assert_sound(f, r, CHECKER_MINIMAL, what);
}

/* Generate, parse, assign, route, check; frees the text. */
static void run_text(char *text, uint8_t lmc, const char *what)
{
	struct routing_stats rs = {0};
	struct fabric *f = testutil_load_text(text);
	struct routes *r;

	free(text);
	CU_ASSERT(testutil_assign_lids(f, lmc) > 0);
	r = route(f);
	check(f, r, what);
	routing_stats(f, r, &rs);
	CU_ASSERT_EQUAL(rs.unreachable, 0);
	CU_ASSERT(rs.max_routes_per_port > 0);
	CU_ASSERT(rs.mean_routes_per_port > 0);
	routes_free(r);
	fabric_free(f);
}

static void test_engine_table(void)
{
	const struct routing_engine *e = routing_find("minhop");

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_EQUAL(e->compute, minhop_compute);
	CU_ASSERT_PTR_NULL(routing_find("nope"));
	CU_ASSERT_PTR_NULL(routing_find(NULL));
	CU_ASSERT_STRING_EQUAL(routing_engines[0].name, "minhop");
	routes_free(NULL);
}

static void test_fat_tree2(void)
{
	run_text(topogen_fat_tree(2, 4, 0, 0), 0, "ft2 k4");
	run_text(topogen_fat_tree(2, 8, 0, 0), 0, "ft2 k8");
	run_text(topogen_fat_tree(2, 8, 5, 0), 0, "ft2 k8 partial");
	run_text(topogen_fat_tree(2, 8, 1, 0), 0, "ft2 k8 one host");
	run_text(topogen_fat_tree(2, 4, 0, TOPOGEN_PARALLEL), 0, "ft2 k4 parallel");
	run_text(topogen_fat_tree(2, 12, 50, TOPOGEN_PARALLEL), 0, "ft2 k12 partial parallel");
	run_text(topogen_fat_tree(2, 2, 0, 0), 0, "ft2 k2");
}

static void test_fat_tree3(void)
{
	run_text(topogen_fat_tree(3, 4, 0, 0), 0, "ft3 k4");
	run_text(topogen_fat_tree(3, 8, 0, 0), 0, "ft3 k8");
	run_text(topogen_fat_tree(3, 8, 37, 0), 0, "ft3 k8 partial");
	run_text(topogen_fat_tree(3, 6, 0, TOPOGEN_PARALLEL), 0, "ft3 k6 parallel");
}

static void test_mesh_torus(void)
{
	run_text(topogen_mesh(4, 4, 2, 0), 0, "mesh 4x4");
	run_text(topogen_mesh(1, 5, 1, 0), 0, "mesh 1x5");
	run_text(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0, "torus 5x4");
	run_text(topogen_mesh(3, 3, 3, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 0, "torus 3x3 par");
	run_text(topogen_mesh(2, 6, 1, TOPOGEN_TORUS), 0, "torus 2x6");
}

static void test_random(void)
{
	unsigned int seed;
	char what[32];

	for (seed = 1; seed <= 12; seed++) {
		snprintf(what, sizeof(what), "random seed %u", seed);
		run_text(topogen_random(5 + (int)seed * 3, (int)seed * 2, 1 + (int)seed % 3, seed),
			 0, what);
	}
	run_text(topogen_random(1, 0, 4, 7), 0, "random single switch");
}

static void test_dual(void)
{
	run_text(topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL), 0, "dual k4");
	run_text(topogen_fat_tree(2, 8, 0, TOPOGEN_DUAL_SAME), 0, "dual same k8");
	run_text(topogen_fat_tree(2, 8, 3, TOPOGEN_DUAL), 0, "dual k8 partial");
	run_text(topogen_fat_tree(3, 4, 0, TOPOGEN_DUAL | TOPOGEN_PARALLEL), 0, "dual ft3");
	CU_ASSERT_PTR_NULL(topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL | TOPOGEN_DUAL_SAME));
	CU_ASSERT_PTR_NULL(topogen_fat_tree(2, 4, 100, 0));
	CU_ASSERT_PTR_NULL(topogen_fat_tree(4, 4, 0, 0));
	CU_ASSERT_PTR_NULL(topogen_fat_tree(2, 5, 0, 0));
}

static void test_lmc(void)
{
	char *t = topogen_fat_tree(2, 4, 0, 0);
	struct fabric *f = testutil_load_text(t);
	struct routes *r;
	uint32_t far_leaf, ca;
	unsigned int l, used = 0;
	uint8_t seen[256] = {0};

	free(t);
	testutil_assign_lids(f, 2);
	r = route(f);
	check(f, r, "ft2 k4 lmc 2");
	/* the 4 LIDs of ca-0 leave a far leaf over both uplinks */
	far_leaf = testutil_find_desc(f, "sw-L1-3");
	ca = testutil_find_desc(f, "ca-0");
	CU_ASSERT_FATAL(far_leaf != FABRIC_NO_NODE && ca != FABRIC_NO_NODE);
	CU_ASSERT_EQUAL(f->nodes[ca].ports[1].lmc, 2);
	for (l = 0; l < 4; l++) {
		uint8_t p = r->lft[far_leaf][f->nodes[ca].ports[1].lid + l];

		if (!seen[p]++)
			used++;
	}
	CU_ASSERT_EQUAL(used, 2);
	routes_free(r);
	fabric_free(f);
}

static void test_ibsim_example(void)
{
	struct fabric *f = NULL;
	struct routes *r;
	char err[256];

	if (topo_load("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca2port", &f, err,
		      sizeof(err))) {
		CU_FAIL("ibsim example not readable");
		return;
	}
	testutil_assign_lids(f, 1);
	r = route(f);
	check(f, r, "ibsim example");
	routes_free(r);
	fabric_free(f);
}

static void compare_shuffled(char *text, const char *what)
{
	struct fabric *a = testutil_load_text(text), *b;
	struct routes *ra, *rb;
	unsigned int seed;
	uint32_t i, j;

	testutil_assign_lids(a, 0);
	ra = route(a);
	for (seed = 1; seed <= 3; seed++) {
		char *shuffled = topogen_shuffle(text, seed);

		CU_ASSERT_PTR_NOT_NULL_FATAL(shuffled);
		CU_ASSERT_NOT_EQUAL(strcmp(shuffled, text), 0);
		b = testutil_load_text(shuffled);
		free(shuffled);
		CU_ASSERT_EQUAL_FATAL(b->n_nodes, a->n_nodes);
		testutil_assign_lids(b, 0);
		rb = route(b);
		CU_ASSERT_EQUAL_FATAL(ra->max_lid, rb->max_lid);
		for (i = 0; i < a->n_nodes; i++) {
			if (!node_is_switch(&a->nodes[i]))
				continue;
			j = fabric_find_guid(b, a->nodes[i].guid);
			CU_ASSERT_FATAL(j != FABRIC_NO_NODE);
			CU_ASSERT_EQUAL(b->nodes[j].ports[0].lid, a->nodes[i].ports[0].lid);
			if (memcmp(ra->lft[i], rb->lft[j], (size_t)ra->max_lid + 1)) {
				fprintf(stderr, "\n%s: tables of %s differ (seed %u)\n", what,
					a->nodes[i].desc, seed);
				CU_FAIL("shuffled fabric routed differently");
				break;
			}
		}
		routes_free(rb);
		fabric_free(b);
	}
	routes_free(ra);
	fabric_free(a);
	free(text);
}

static void test_determinism(void)
{
	compare_shuffled(topogen_fat_tree(2, 8, 0, 0), "ft2");
	compare_shuffled(topogen_fat_tree(3, 4, 11, TOPOGEN_PARALLEL), "ft3");
	compare_shuffled(topogen_mesh(4, 3, 2, TOPOGEN_TORUS), "torus");
	compare_shuffled(topogen_random(30, 20, 2, 99), "random");
	compare_shuffled(topogen_fat_tree(2, 8, 0, TOPOGEN_DUAL), "dual");
}

/* Per leaf, the LIDs over its uplinks: max <= ceil(mean) + 1, and no port idle. */
static void check_leaf_balance(const char *text, int k)
{
	struct fabric *f = testutil_load_text(text);
	struct routes *r;
	struct routing_stats rs = {0};
	uint32_t i, l, leaves = 0;
	unsigned int p;

	testutil_assign_lids(f, 0);
	r = route(f);
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint32_t counts[256] = {0}, total = 0, max = 0, min = UINT32_MAX, up = 0;

		if (strncmp(n->desc, "sw-L1-", 6))
			continue;
		leaves++;
		for (l = 1; l <= r->max_lid; l++)
			if (r->lft[i][l] != LFT_NO_PORT)
				counts[r->lft[i][l]]++;
		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node;

			if (rn == FABRIC_NO_NODE || !node_is_switch(&f->nodes[rn]))
				continue;
			up++;
			total += counts[p];
			if (counts[p] > max)
				max = counts[p];
			if (counts[p] < min)
				min = counts[p];
		}
		CU_ASSERT_EQUAL(up, (uint32_t)k / 2);
		CU_ASSERT(min > 0);
		CU_ASSERT(max <= (uint32_t)ceil((double)total / up) + 1);
	}
	CU_ASSERT(leaves > 0);
	routing_stats(f, r, &rs);
	CU_ASSERT(rs.max_routes_per_port >= (uint32_t)ceil(rs.mean_routes_per_port));
	routes_free(r);
	fabric_free(f);
}

static void test_balance(void)
{
	char *t;

	t = topogen_fat_tree(2, 8, 0, 0);
	check_leaf_balance(t, 8);
	free(t);
	t = topogen_fat_tree(2, 16, 0, 0);
	check_leaf_balance(t, 16);
	free(t);
	t = topogen_fat_tree(3, 8, 0, 0);
	check_leaf_balance(t, 8);
	free(t);
}

static void test_disconnected(void)
{
	char *ft = topogen_fat_tree(2, 4, 0, 0), *text;
	struct routing_stats rs = {0};
	struct checker_stats st;
	struct fabric *f;
	struct routes *r;
	char msg[256];
	uint32_t island, lonely;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ft);
	CU_ASSERT_FATAL(asprintf(&text,
				 "%s\nSwitch 4 \"island\"\n[1] \"ica\"[1]\n\n"
				 "Hca 1 \"ica\"\n[1] \"island\"[1]\n\nHca 1 \"lonely\"\n",
				 ft) > 0);
	free(ft);
	f = testutil_load_text(text);
	free(text);
	testutil_assign_lids(f, 0);
	r = route(f);
	/* 6 + 1 switches; 14 LIDs in the tree, 2 on the island, 1 lonely */
	routing_stats(f, r, &rs);
	CU_ASSERT_EQUAL(rs.unreachable, 6 * 3 + 15);
	CU_ASSERT_EQUAL(checker_run(f, r, CHECKER_MINIMAL, &st, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(st.unreachable, 6 * 3 + 15);
	island = (uint32_t)(f->n_nodes - 3);
	lonely = (uint32_t)(f->n_nodes - 1);
	CU_ASSERT_STRING_EQUAL(f->nodes[island].desc, "island");
	CU_ASSERT_EQUAL(r->lft[island][f->nodes[island].ports[0].lid], 0);
	CU_ASSERT_EQUAL(r->lft[island][f->nodes[lonely].ports[1].lid], LFT_NO_PORT);
	CU_ASSERT_EQUAL(r->lft[0 + 8][f->nodes[lonely].ports[1].lid], LFT_NO_PORT);
	routes_free(r);
	fabric_free(f);
}

static void test_bad_lids(void)
{
	char *t = topogen_fat_tree(2, 4, 0, 0);
	struct fabric *f = testutil_load_text(t);
	struct routes *r = NULL;
	char why[128] = "";

	free(t);
	CU_ASSERT_EQUAL(minhop_compute(f, NULL, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no LIDs"));
	testutil_assign_lids(f, 0);
	f->nodes[1].ports[1].lid = f->nodes[0].ports[1].lid; /* two CAs, one LID */
	CU_ASSERT_EQUAL(minhop_compute(f, NULL, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	fabric_free(f);
}

static void test_checker_catches(void)
{
	char *t = topogen_fat_tree(2, 4, 0, 0);
	struct fabric *f = testutil_load_text(t);
	struct routes *r;
	char msg[256];
	uint32_t leaf = 8, spine = 12, dst;
	uint8_t up;

	free(t);
	testutil_assign_lids(f, 0);
	r = route(f);
	CU_ASSERT_STRING_EQUAL(f->nodes[leaf].desc, "sw-L1-0");
	CU_ASSERT_STRING_EQUAL(f->nodes[spine].desc, "sw-L2-0");
	CU_ASSERT_EQUAL(checker_run(f, r, CHECKER_MINIMAL, NULL, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
	/* a loop: spine sends ca-0's LID back up... to a leaf that bounces it */
	dst = f->nodes[0].ports[1].lid; /* ca-0 on sw-L1-0 port 1 */
	up = r->lft[leaf + 1][dst];	/* sw-L1-1 towards ca-0 */
	r->lft[f->nodes[leaf + 1].ports[up].remote_node][dst] =
	    f->nodes[leaf + 1].ports[up].remote_port;
	CU_ASSERT(checker_run(f, r, 0, NULL, msg, sizeof(msg)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "loop"));
	routes_free(r);
	r = route(f);
	/* a dead end */
	r->lft[spine][dst] = LFT_NO_PORT;
	CU_ASSERT(checker_run(f, r, 0, NULL, msg, sizeof(msg)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no route"));
	routes_free(r);
	r = route(f);
	/* wrong host */
	r->lft[leaf][dst] = 2;
	CU_ASSERT(checker_run(f, r, 0, NULL, msg, sizeof(msg)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ends at"));
	routes_free(r);
	r = route(f);
	/* a detour: leaf 1 -> spine 0 -> leaf 2 -> spine 1 -> leaf 0 is loop-free
	 * but not minimal */
	r->lft[spine][dst] = (uint8_t)3; /* sw-L2-0 port 3 = sw-L1-2 */
	r->lft[leaf + 2][dst] = 4;	 /* sw-L1-2 port 4 = sw-L2-1 */
	CU_ASSERT_EQUAL(checker_run(f, r, 0, NULL, msg, sizeof(msg)), 0);
	CU_ASSERT(checker_run(f, r, CHECKER_MINIMAL, NULL, msg, sizeof(msg)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "minimum"));
	routes_free(r);
	fabric_free(f);
}

/* 11,271 LIDs routed and sound (how fast: bench/ibsmd-micro routing). */
static void test_large_fat_tree(void)
{
	char *t = topogen_fat_tree(3, 34, 0, 0);
	struct fabric *f = testutil_load_text(t);
	struct routes *r;
	uint16_t max;

	free(t);
	max = testutil_assign_lids(f, 0);
	CU_ASSERT(max > 10000);
	r = route(f);
	check(f, r, "ft3 k34");
	routes_free(r);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"engine table", test_engine_table},
	    {"2-level fat trees", test_fat_tree2},
	    {"3-level fat trees", test_fat_tree3},
	    {"mesh and torus", test_mesh_torus},
	    {"random irregular", test_random},
	    {"dual-ported CAs", test_dual},
	    {"LMC", test_lmc},
	    {"ibsim example", test_ibsim_example},
	    {"shuffled order, same tables", test_determinism},
	    {"uplink balance", test_balance},
	    {"disconnected fabric", test_disconnected},
	    {"no LIDs, duplicate LIDs", test_bad_lids},
	    {"checker catches bad tables", test_checker_catches},
	    {"large 3-level fat tree", test_large_fat_tree},
	    {NULL, NULL},
	};

	return testutil_run("routing", cases);
}

/*
 * Unit tests of the updn, dnup and ftree engines on generated topologies:
 * every result goes through the invariant checker (reachability, no loops,
 * minimal hops for ftree) and the channel dependency graph check (no credit
 * loop); ftree must balance all-to-all load on full trees and refuse what
 * is not a fat tree with a reason; shuffled input gives the same tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "routing/routing.h"
#include "fabric/topo.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

struct engine {
	const char *name;
	routing_compute_fn fn;
	unsigned int check_flags;
};

static const struct engine engines[] = {
    {"updn", updn_compute, 0},
    {"dnup", dnup_compute, 0},
    {"ftree", ftree_compute, CHECKER_MINIMAL},
};

/* Route with e, run both checkers; returns the routes (caller frees) or NULL. */
static struct routes *route_check(const struct engine *e, const struct fabric *f, const char *what)
{
	struct checker_cdg_stats cs = {0};
	struct routes *r = NULL;
	char why[256] = "", msg[256] = "", label[128];
	int rc, v;

	rc = e->fn(f, NULL, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\n%s on %s: %d %s\n", e->name, what, rc, why);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		return NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(label, sizeof(label), "%s on %s", e->name, what);
	checker_assert_sound(f, r, e->check_flags, label);
	v = checker_cdg_acyclic(f, r, &cs, msg, sizeof(msg));
	if (v)
		fprintf(stderr, "\n%s on %s: %s\n", e->name, what, msg);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT(cs.deps > 0 || f->n_nodes < 4);
	return r;
}

/* Generate, parse, assign, route with every engine in mask, check; frees text. */
static void run_text(char *text, uint8_t lmc, unsigned int mask, const char *what)
{
	struct fabric *f = testutil_load_text(text);
	size_t i;

	free(text);
	CU_ASSERT(testutil_assign_lids(f, lmc) > 0);
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		struct routes *r;

		if (!(mask & (1u << i)))
			continue;
		r = route_check(&engines[i], f, what);
		routes_free(r);
	}
	fabric_free(f);
}

#define ALL 7u
#define UPDN_DNUP 3u

static void test_fat_trees(void)
{
	run_text(topogen_fat_tree(2, 4, 0, 0), 0, ALL, "ft2 k4");
	run_text(topogen_fat_tree(2, 8, 0, 0), 0, ALL, "ft2 k8");
	run_text(topogen_fat_tree(2, 8, 5, 0), 0, ALL, "ft2 k8 partial");
	run_text(topogen_fat_tree(2, 8, 1, 0), 0, ALL, "ft2 k8 one host");
	run_text(topogen_fat_tree(2, 4, 0, TOPOGEN_PARALLEL), 0, ALL, "ft2 k4 parallel");
	run_text(topogen_fat_tree(2, 12, 50, TOPOGEN_PARALLEL), 0, ALL, "ft2 k12 partial par");
	run_text(topogen_fat_tree(2, 2, 0, 0), 0, ALL, "ft2 k2");
	run_text(topogen_fat_tree(3, 4, 0, 0), 0, ALL, "ft3 k4");
	run_text(topogen_fat_tree(3, 8, 0, 0), 0, ALL, "ft3 k8");
	run_text(topogen_fat_tree(3, 8, 37, 0), 0, ALL, "ft3 k8 partial");
	run_text(topogen_fat_tree(3, 8, 3, 0), 0, ALL, "ft3 k8 3 hosts");
	run_text(topogen_fat_tree(3, 6, 0, TOPOGEN_PARALLEL), 0, ALL, "ft3 k6 parallel");
	run_text(topogen_fat_tree(3, 6, 20, TOPOGEN_PARALLEL), 0, ALL, "ft3 k6 partial par");
}

static void test_dual_lmc(void)
{
	run_text(topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL), 0, ALL, "dual k4");
	run_text(topogen_fat_tree(2, 8, 0, TOPOGEN_DUAL_SAME), 0, ALL, "dual same k8");
	run_text(topogen_fat_tree(2, 8, 3, TOPOGEN_DUAL), 0, ALL, "dual k8 partial");
	run_text(topogen_fat_tree(3, 4, 0, TOPOGEN_DUAL | TOPOGEN_PARALLEL), 0, ALL, "dual ft3");
	run_text(topogen_fat_tree(2, 4, 0, 0), 2, ALL, "ft2 k4 lmc 2");
	run_text(topogen_fat_tree(3, 4, 0, TOPOGEN_PARALLEL), 1, ALL, "ft3 k4 par lmc 1");
}

static void test_irregular(void)
{
	unsigned int seed;
	char what[48];

	run_text(topogen_mesh(4, 4, 2, 0), 0, UPDN_DNUP, "mesh 4x4");
	run_text(topogen_mesh(1, 5, 1, 0), 0, UPDN_DNUP, "mesh 1x5");
	run_text(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0, UPDN_DNUP, "torus 5x4");
	run_text(topogen_mesh(3, 3, 3, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 0, UPDN_DNUP,
		 "torus 3x3 par");
	run_text(topogen_mesh(6, 6, 1, TOPOGEN_TORUS), 0, UPDN_DNUP, "torus 6x6");
	for (seed = 1; seed <= 12; seed++) {
		snprintf(what, sizeof(what), "random seed %u", seed);
		run_text(topogen_random(5 + (int)seed * 3, (int)seed * 2, 1 + (int)seed % 3, seed),
			 0, UPDN_DNUP, what);
	}
	run_text(topogen_random(1, 0, 4, 7), 0, ALL, "random single switch");
	run_text(topogen_random(60, 40, 2, 4242), 0, UPDN_DNUP, "random 60");
}

static struct fabric *load_lids(char *text, uint8_t lmc)
{
	struct fabric *f = testutil_load_text(text);

	free(text);
	testutil_assign_lids(f, lmc);
	return f;
}

static void link_load(const struct engine *e, char *text, const char *what, double limit)
{
	struct fabric *f = load_lids(text, 0);
	struct routing_link_load ll = {0};
	struct routes *r = route_check(e, f, what);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(routing_link_load(f, r, &ll), 0);
	fprintf(stderr, "\n  %-6s %-22s max %llu mean %.1f max/mean %.3f per-tier %.3f (%u links)",
		e->name, what, (unsigned long long)ll.max, ll.mean, ll.ratio, ll.tier_ratio,
		ll.n_links);
	CU_ASSERT_EQUAL(ll.dropped, 0);
	CU_ASSERT(ll.flows > 0);
	if (limit > 0)
		CU_ASSERT(ll.tier_ratio <= limit);
	routes_free(r);
	fabric_free(f);
}

static void test_link_load(void)
{
	const struct engine *ft = &engines[2];
	const struct engine minhop = {"minhop", minhop_compute, CHECKER_MINIMAL};
	int k;
	char what[48];

	for (k = 4; k <= 8; k += 2) {
		snprintf(what, sizeof(what), "ft2 k%d", k);
		link_load(ft, topogen_fat_tree(2, k, 0, 0), what, 1.02);
		snprintf(what, sizeof(what), "ft3 k%d", k);
		link_load(ft, topogen_fat_tree(3, k, 0, 0), what, 1.02);
		/* parallel links: a leaf has fewer LIDs than down-links, reported only */
		snprintf(what, sizeof(what), "ft3 k%d parallel", k);
		link_load(ft, topogen_fat_tree(3, k, 0, TOPOGEN_PARALLEL), what, 0);
	}
	link_load(ft, topogen_fat_tree(2, 16, 0, 0), "ft2 k16", 1.02);
	link_load(ft, topogen_fat_tree(3, 12, 0, 0), "ft3 k12", 1.02);
	/* partial trees: reported, not asserted */
	link_load(ft, topogen_fat_tree(2, 8, 21, 0), "ft2 k8 21 hosts", 0);
	link_load(ft, topogen_fat_tree(3, 8, 100, 0), "ft3 k8 100 hosts", 0);
	link_load(ft, topogen_fat_tree(3, 8, 37, TOPOGEN_PARALLEL), "ft3 k8 37 par", 0);
	link_load(ft, topogen_fat_tree(3, 8, 0, TOPOGEN_DUAL), "ft3 k8 dual", 0);
	/* for comparison */
	link_load(&engines[0], topogen_fat_tree(3, 8, 0, 0), "ft3 k8", 0);
	link_load(&minhop, topogen_fat_tree(3, 8, 0, 0), "ft3 k8", 0);
	fprintf(stderr, "\n");
}

static void refuse(char *text, const char *what, const char *needle)
{
	struct fabric *f = load_lids(text, 0);
	struct routes *r = NULL;
	char why[256] = "";
	int rc;

	rc = ftree_compute(f, NULL, &r, why, sizeof(why));
	fprintf(stderr, "\n  ftree on %s: %d \"%s\"", what, rc, why);
	CU_ASSERT_EQUAL(rc, -ENOTSUP);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, needle));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "not a fat tree"));
	fabric_free(f);
}

static void test_ftree_refuses(void)
{
	refuse(topogen_mesh(4, 4, 1, TOPOGEN_TORUS), "torus 4x4", "within level");
	refuse(topogen_random(20, 10, 1, 5), "random 20", "within level");
	refuse(strdup("Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[1]\n"),
	       "two switches, no CA", "no switch has a CA");
	fprintf(stderr, "\n");
}

static void compare_shuffled(const struct engine *e, const char *text, const char *what)
{
	struct fabric *a = testutil_load_text(text), *b;
	struct routes *ra = NULL, *rb = NULL;
	char why[256];
	unsigned int seed;
	uint32_t i, j;

	testutil_assign_lids(a, 0);
	CU_ASSERT_EQUAL_FATAL(e->fn(a, NULL, &ra, why, sizeof(why)), 0);
	for (seed = 1; seed <= 3; seed++) {
		char *shuffled = topogen_shuffle(text, seed);

		CU_ASSERT_PTR_NOT_NULL_FATAL(shuffled);
		b = testutil_load_text(shuffled);
		free(shuffled);
		CU_ASSERT_EQUAL_FATAL(b->n_nodes, a->n_nodes);
		testutil_assign_lids(b, 0);
		CU_ASSERT_EQUAL_FATAL(e->fn(b, NULL, &rb, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL_FATAL(ra->max_lid, rb->max_lid);
		for (i = 0; i < a->n_nodes; i++) {
			if (!node_is_switch(&a->nodes[i]))
				continue;
			j = fabric_find_guid(b, a->nodes[i].guid);
			CU_ASSERT_FATAL(j != FABRIC_NO_NODE);
			if (memcmp(ra->lft[i], rb->lft[j], (size_t)ra->max_lid + 1)) {
				fprintf(stderr, "\n%s %s: tables of %s differ (seed %u)\n", e->name,
					what, a->nodes[i].desc, seed);
				CU_FAIL("shuffled fabric routed differently");
				break;
			}
		}
		routes_free(rb);
		rb = NULL;
		fabric_free(b);
	}
	routes_free(ra);
	fabric_free(a);
}

static void test_determinism(void)
{
	char *texts[] = {
	    topogen_fat_tree(2, 8, 0, 0),
	    topogen_fat_tree(3, 4, 11, TOPOGEN_PARALLEL),
	    topogen_fat_tree(2, 8, 0, TOPOGEN_DUAL),
	    topogen_mesh(4, 3, 2, TOPOGEN_TORUS),
	    topogen_random(30, 20, 2, 99),
	};
	const char *names[] = {"ft2", "ft3 partial par", "dual", "torus", "random"};
	size_t i, k;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		for (k = 0; k < 3; k++)
			if (k < 2 || i < 3)
				compare_shuffled(&engines[k], texts[i], names[i]);
		free(texts[i]);
	}
}

/* updn with the given roots, as the chain passes them. */
static int updn_roots(const struct fabric *f, const uint64_t *roots, size_t n, struct routes **ret,
		      char *why, size_t why_len)
{
	const struct routing_opts o = {.roots = roots, .n_roots = n};

	return updn_compute(f, &o, ret, why, why_len);
}

static void test_roots(void)
{
	struct fabric *f = load_lids(topogen_fat_tree(2, 8, 0, 0), 0);
	const struct engine e = {"updn-roots", NULL, 0};
	struct checker_cdg_stats cs;
	struct routes *r = NULL, *ra = NULL;
	uint64_t roots[8], bad;
	size_t n = 0;
	char why[256] = "", msg[256];
	uint32_t i;

	(void)e;
	for (i = 0; i < f->n_nodes; i++)
		if (!strncmp(f->nodes[i].desc, "sw-L2-", 6))
			roots[n++] = f->nodes[i].guid;
	CU_ASSERT_EQUAL_FATAL(n, 4);
	/* the spines: the same tables as automatic roots */
	CU_ASSERT_EQUAL_FATAL(updn_roots(f, roots, n, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(updn_compute(f, NULL, &ra, why, sizeof(why)), 0);
	for (i = 0; i < f->n_nodes; i++)
		if (r->lft[i])
			CU_ASSERT_EQUAL(memcmp(r->lft[i], ra->lft[i], (size_t)r->max_lid + 1), 0);
	routes_free(r);
	routes_free(ra);
	r = NULL;
	/* one leaf as root: legal, every path through it or below it */
	roots[0] = f->nodes[testutil_find_desc(f, "sw-L1-3")].guid;
	CU_ASSERT_EQUAL_FATAL(updn_roots(f, roots, 1, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(checker_run(f, r, 0, NULL, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(checker_cdg_acyclic(f, r, &cs, msg, sizeof(msg)), 0);
	routes_free(r);
	r = NULL;
	/* not a switch, not in the fabric */
	bad = f->nodes[0].guid;
	CU_ASSERT_EQUAL(updn_roots(f, &bad, 1, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "not a switch"));
	bad = 0x1234;
	CU_ASSERT_EQUAL(updn_roots(f, &bad, 1, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	fabric_free(f);

	/* a mesh with a corner as its root */
	f = load_lids(topogen_mesh(4, 4, 1, 0), 0);
	roots[0] = f->nodes[testutil_find_desc(f, "sw-0-0")].guid;
	CU_ASSERT_EQUAL_FATAL(updn_roots(f, roots, 1, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(checker_run(f, r, 0, NULL, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(checker_cdg_acyclic(f, r, &cs, msg, sizeof(msg)), 0);
	routes_free(r);
	fabric_free(f);
}

static void test_bad_input(void)
{
	char *t = topogen_fat_tree(2, 4, 0, 0);
	struct fabric *f = testutil_load_text(t);
	struct routes *r = NULL;
	char why[256];
	size_t i;

	free(t);

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(engines[i].fn(f, NULL, &r, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "no LIDs"));
	}
	CU_ASSERT_EQUAL(updn_roots(f, NULL, 0, &r, why, sizeof(why)), -EINVAL);
	testutil_assign_lids(f, 0);
	f->nodes[1].ports[1].lid = f->nodes[0].ports[1].lid;
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		CU_ASSERT_EQUAL(engines[i].fn(f, NULL, &r, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NULL(r);
	}
	fabric_free(f);
}

/* The CDG checker must be able to fail: min-hop on a torus has credit loops. */
static void test_cdg_catches(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0);
	struct checker_cdg_stats cs = {0};
	struct routes *r = NULL;
	char why[256], msg[256] = "";
	int v;

	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, NULL, &r, why, sizeof(why)), 0);
	v = checker_cdg_acyclic(f, r, &cs, msg, sizeof(msg));
	fprintf(stderr, "\n  minhop on torus 5x4: %d (%s), %llu channels, %llu deps\n", v, msg,
		(unsigned long long)cs.channels, (unsigned long long)cs.deps);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cycle"));
	routes_free(r);
	fabric_free(f);
}

/*
 * Random layered graphs: 3 to 5 levels of switches, links only between
 * adjacent levels, CAs on the bottom level (and a few above).  Many are
 * irregular trees whose switches reach some switch LIDs only by a detour,
 * some with detours that go up then down; the rest ftree must refuse.
 * Checked without CHECKER_MINIMAL: on such trees a detour joins the
 * up/down region by the shortest way, which is not always the shortest
 * path to the switch LID.
 */
static uint32_t layered_rand(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 16;
}

static struct fabric *layered_fabric(uint32_t seed)
{
	struct fabric *f = fabric_new();
	uint32_t sw[5][8], n[5], levels = 3 + layered_rand(&seed) % 3, i, j, k, idx;
	uint8_t next[64];
	uint64_t guid = 0x100;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (i = 0; i < levels; i++)
		for (n[i] = 1 + layered_rand(&seed) % (i + 1 == levels ? 4 : 8), j = 0; j < n[i];
		     j++) {
			CU_ASSERT_EQUAL_FATAL(fabric_add_node(f, guid++, NODE_SWITCH, 32, &idx), 0);
			sw[i][j] = idx;
			next[idx] = 1;
		}
	for (i = 0; i + 1 < levels; i++) {
		/* every switch a link to the level above and below, then random ones */
		k = n[i] + n[i + 1] + layered_rand(&seed) % (n[i] * n[i + 1] + 1);
		for (j = 0; j < k; j++) {
			uint32_t a = sw[i][j < n[i] ? j : layered_rand(&seed) % n[i]];
			uint32_t b = sw[i + 1][j >= n[i] && j < n[i] + n[i + 1]
						   ? j - n[i]
						   : layered_rand(&seed) % n[i + 1]];

			if (next[a] > 24 || next[b] > 24)
				continue;
			CU_ASSERT_EQUAL_FATAL(fabric_link(f, a, next[a], b, next[b]), 0);
			next[a]++;
			next[b]++;
		}
	}
	for (i = 0; i < levels; i++)
		for (j = 0; j < n[i]; j++) {
			uint32_t a = sw[i][j], h = i ? layered_rand(&seed) % 10 == 0
						     : 1 + layered_rand(&seed) % 3;

			for (; h; h--) {
				CU_ASSERT_EQUAL_FATAL(fabric_add_node(f, guid++, NODE_CA, 1, &idx),
						      0);
				CU_ASSERT_EQUAL_FATAL(fabric_link(f, a, next[a]++, idx, 1), 0);
			}
		}
	testutil_assign_lids(f, 0);
	return f;
}

static void test_ftree_layered(void)
{
	uint32_t seed, routed = 0, refused = 0, detoured = 0;

	for (seed = 1; seed <= 400; seed++) {
		struct fabric *f = layered_fabric(seed);
		struct routes *r = NULL;
		char why[256] = "";
		int rc = ftree_compute(f, NULL, &r, why, sizeof(why));

		if (rc) {
			CU_ASSERT_EQUAL(rc, -ENOTSUP);
			CU_ASSERT_PTR_NOT_NULL(strstr(why, "not a fat tree"));
			refused++;
		} else {
			struct checker_cdg_stats cs = {0};
			char msg[256] = "";
			int v;

			v = checker_run(f, r, 0, NULL, msg, sizeof(msg));
			if (v)
				fprintf(stderr, "\nftree on layered seed %u: %s\n", seed, msg);
			CU_ASSERT_EQUAL(v, 0);
			/*
			 * CA-to-CA traffic free of credit loops; a leaf cut off
			 * from a switch reaches that switch's own LID by a
			 * detour (management traffic), which may close one
			 */
			v = checker_cdg_acyclic_cas(f, r, &cs, msg, sizeof(msg));
			if (v)
				fprintf(stderr, "\nftree on layered seed %u: %s\n", seed, msg);
			CU_ASSERT_EQUAL(v, 0);
			if (checker_cdg_acyclic(f, r, NULL, msg, sizeof(msg)))
				detoured++;
			routes_free(r);
			routed++;
		}
		fabric_free(f);
	}
	fprintf(stderr,
		"\n  ftree on 400 layered graphs: %u routed, %u refused, %u with a switch-LID "
		"detour closing a credit loop\n",
		routed, refused, detoured);
	CU_ASSERT(routed > 100);
}

/* ft3 k16: minimal and balanced per tier (how fast: bench/ibsmd-micro routing). */
static void test_k16(void)
{
	struct fabric *f = load_lids(topogen_fat_tree(3, 16, 0, 0), 0);
	struct routing_link_load ll = {0};
	struct routes *r = NULL;
	char why[256];

	CU_ASSERT_EQUAL_FATAL(ftree_compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(checker_run(f, r, CHECKER_MINIMAL, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(routing_link_load(f, r, &ll), 0);
	fprintf(stderr, "\n  ftree ft3 k16 (%u nodes, %u LIDs): max/mean %.3f per-tier %.3f\n",
		f->n_nodes, r->max_lid, ll.ratio, ll.tier_ratio);
	CU_ASSERT(ll.tier_ratio <= 1.02);
	routes_free(r);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"fat trees", test_fat_trees},
	    {"dual-ported CAs and LMC", test_dual_lmc},
	    {"meshes, tori, random graphs", test_irregular},
	    {"ftree all-to-all link load", test_link_load},
	    {"ftree refuses non-trees", test_ftree_refuses},
	    {"ftree on random layered graphs", test_ftree_layered},
	    {"shuffled order, same tables", test_determinism},
	    {"updn with given roots", test_roots},
	    {"no LIDs, duplicate LIDs", test_bad_input},
	    {"CDG checker catches credit loops", test_cdg_catches},
	    {"ftree k16: minimal, balanced per tier", test_k16},
	    {NULL, NULL},
	};

	return testutil_run("engines", cases);
}

/*
 * Unit tests of dfsp (routing/dfsp.c), the deadlock-free (near-)shortest-path
 * engine, on generated fabrics: random irregular graphs (several seeds,
 * parallel links, switches without hosts), 2-D and 3-D meshes and tori,
 * fat trees.  Every result goes through the invariant checker (every LID
 * reached, no loops, paths at most one hop longer than the shortest) and the
 * channel dependency graph check
 * per VL with the engine's path SLs and SL2VL (no credit loop), and the SLs
 * must have been needed (the same tables on VL 0 alone have a cycle on the
 * fabrics that have cycles).  The all-to-all balance (busiest link over
 * routing_link_load's lower bound) is asserted against a bound and against
 * updn's on the same graph; LMC ranges must take link-disjoint paths where
 * the fabric has them (ftree and dor, the default chain's other engines, too:
 * dor only over parallel links); fewer VLs than the first-fit layers need
 * (2 or more) are met with up*-down* layers, still credit-loop free and no
 * worse than updn; VL 0 alone is refused with the numbers; a shuffled file
 * gives the same tables.
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

static struct fabric *load_lids(char *text, uint8_t lmc)
{
	struct fabric *f = testutil_load_text(text);

	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT(testutil_assign_lids(f, lmc) > 0);
	return f;
}

/* The SL2VL dfsp promises: VL 0 towards CAs, SL i -> VL i (< n_vls) between switches. */
static void check_sl2vl(const struct fabric *f, const struct routes *r, const char *what)
{
	uint32_t i;
	unsigned int p, sl, bad = 0;

	if (r->n_vls <= 1)
		return;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sl2vl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->lid_sl);
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		const uint8_t *t = r->sl2vl[i];

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		if (!node_is_switch(n)) {
			for (sl = 0; sl < ROUTES_MAX_SL; sl++)
				bad += t[sl] != 0;
			continue;
		}
		for (p = 1; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];
			bool to_sw = pt->remote_node < f->n_nodes &&
				     node_is_switch(&f->nodes[pt->remote_node]);

			if (pt->remote_node >= f->n_nodes)
				continue;
			for (sl = 0; sl < ROUTES_MAX_SL; sl++) {
				unsigned int want = to_sw && sl < r->n_vls ? sl : 0;

				bad += t[p * ROUTES_MAX_SL + sl] != want;
			}
		}
	}
	if (bad)
		fprintf(stderr, "\n%s: %u SL2VL entries not as promised\n", what, bad);
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * Route f with dfsp (opts may be NULL) and check everything; returns the
 * routes (caller frees).  need_vls: the fabric has cycles, so VL 0 alone
 * must have a credit loop with these tables (the SLs were needed).
 */
static struct routes *route_check_flags(const struct fabric *f, const struct routing_opts *o,
					bool need_vls, unsigned int flags, const char *what)
{
	struct checker_cdg_stats cs = {0};
	struct routes *r = NULL;
	char why[256] = "", msg[256] = "", label[128];
	uint8_t n_vls;
	int rc, v;

	rc = dfsp_compute(f, o, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\ndfsp on %s: %d %s\n", what, rc, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(label, sizeof(label), "dfsp on %s", what);
	checker_assert_sound(f, r, flags, label);
	v = checker_cdg_acyclic(f, r, &cs, msg, sizeof(msg));
	if (v)
		fprintf(stderr, "\ndfsp on %s (%u VLs): %s\n", what, r->n_vls, msg);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT(cs.deps > 0 || f->n_nodes < 8);
	CU_ASSERT(r->n_vls >= 1 && r->n_vls <= 8); /* topo files' ports: VLCap 4, 8 VLs */
	CU_ASSERT(!o || !o->max_vls || r->n_vls <= o->max_vls);
	CU_ASSERT_EQUAL(routes_has_path_sl(r), r->n_vls > 1);
	check_sl2vl(f, r, what);
	n_vls = r->n_vls;
	r->n_vls = 1; /* the same tables, every path on VL 0 */
	v = checker_cdg_acyclic(f, r, NULL, msg, sizeof(msg));
	r->n_vls = n_vls;
	if (need_vls) {
		if (!v)
			fprintf(stderr, "\ndfsp on %s: no cycle on VL 0 alone\n", what);
		CU_ASSERT_EQUAL(v, 1);
		CU_ASSERT(n_vls > 1);
	} else if (n_vls == 1) {
		CU_ASSERT_EQUAL(v, 0);
	}
	return r;
}

/* Paths at most one hop longer than the shortest. */
static struct routes *route_check(const struct fabric *f, const struct routing_opts *o,
				  bool need_vls, const char *what)
{
	return route_check_flags(f, o, need_vls, CHECKER_NEAR_MINIMAL, what);
}

/* Busiest link over the lower bound of dfsp, and of updn on the same fabric. */
static void balance(const struct fabric *f, const struct routes *r, double *ret_dfsp,
		    double *ret_updn)
{
	struct routing_link_load a = {0}, b = {0};
	struct routes *u = NULL;
	char why[256];

	CU_ASSERT_EQUAL_FATAL(routing_link_load(f, r, &a), 0);
	CU_ASSERT_EQUAL(a.dropped, 0);
	/* no bound: no flow has to cross a switch link (one switch with hosts) */
	CU_ASSERT(a.bound > 0 || a.max == 0);
	*ret_dfsp = a.bound ? (double)a.max / (double)a.bound : 1;
	CU_ASSERT_EQUAL_FATAL(updn_compute(f, NULL, &u, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(routing_link_load(f, u, &b), 0);
	CU_ASSERT_FATAL(b.bound == a.bound);
	*ret_updn = b.bound ? (double)b.max / (double)b.bound : 1;
	routes_free(u);
}

/*
 * Route, check, measure: the figure must be at most limit and at most
 * updn's (never worse than the deadlock-free engine we had).
 */
static void run(char *text, bool need_vls, double limit, const char *what)
{
	struct fabric *f = load_lids(text, 0);
	struct routes *r = route_check(f, NULL, need_vls, what);
	double fd, fu;

	balance(f, r, &fd, &fu);
	fprintf(stderr, "\n  %-30s %2u VLs  busiest/bound dfsp %.2f updn %.2f", what, r->n_vls, fd,
		fu);
	CU_ASSERT(fd <= limit);
	CU_ASSERT(fd <= fu + 1e-9);
	routes_free(r);
	fabric_free(f);
}

static void test_random(void)
{
	unsigned int seed;
	char what[64];

	for (seed = 1; seed <= 8; seed++) {
		snprintf(what, sizeof(what), "random 24 seed %u", seed);
		run(topogen_random(24, 12 + (int)seed * 2, 2, seed), true, 2.0, what);
	}
	run(topogen_random(40, 40, 2, 2), true, 1.2, "random 40");
	run(topogen_random(64, 64, 2, 3), true, 1.65, "random 64");
	/* a tree: nothing to break, one VL, shortest is the only way */
	run(topogen_random(20, 0, 2, 5), false, 1.0001, "random tree 20");
	run(topogen_random(1, 0, 4, 7), false, 1.0001, "one switch");
}

static void test_random_ex(void)
{
	unsigned int seed;
	char what[64];

	for (seed = 1; seed <= 6; seed++) {
		snprintf(what, sizeof(what), "random 30 par, 6 empty, seed %u", seed);
		run(topogen_random_ex(30, 20, 2, 6, TOPOGEN_PARALLEL, seed), true, 2.0, what);
	}
	run(topogen_random_ex(64, 48, 3, 8, TOPOGEN_PARALLEL, 4), true, 1.8,
	    "random 64 par 8 empty");
	run(topogen_random_ex(16, 10, 1, 15, 0, 9), false, 3.0, "random 16, one host switch");
}

static void test_grids(void)
{
	/*
	 * The bound spreads every flow's shortest hops over all links; shortest
	 * paths on a grid with parallel links or short rings cannot, so those
	 * get more room.
	 */
	run(topogen_mesh(4, 4, 2, 0), true, 1.5, "mesh 4x4");
	run(topogen_mesh(6, 5, 1, TOPOGEN_PARALLEL), true, 2.0, "mesh 6x5 parallel");
	run(topogen_mesh(5, 5, 2, TOPOGEN_TORUS), true, 1.5, "torus 5x5");
	run(topogen_mesh(6, 6, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), true, 1.5, "torus 6x6 par");
	run(topogen_grid(3, 3, 3, 1, 0), true, 1.5, "mesh 3x3x3");
	run(topogen_grid(5, 5, 3, 2, TOPOGEN_TORUS), true, 1.5, "torus 5x5x3");
	run(topogen_grid(4, 3, 3, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), true, 3.0,
	    "torus 4x3x3 par");
}

static void test_fat_trees(void)
{
	/* up*-down* shortest paths on a fat tree have no cycle: one VL */
	run(topogen_fat_tree(2, 8, 0, 0), false, 1.0001, "ft2 k8");
	run(topogen_fat_tree(3, 8, 0, 0), false, 1.05, "ft3 k8");
	run(topogen_fat_tree(3, 8, 37, 0), false, 1.5, "ft3 k8 partial");
	run(topogen_fat_tree(3, 6, 20, TOPOGEN_PARALLEL), false, 2.0, "ft3 k6 partial par");
	run(topogen_fat_tree(2, 8, 0, TOPOGEN_DUAL), false, 1.5, "ft2 k8 dual");
	fprintf(stderr, "\n");
}

/* LMC: the 2^lmc LIDs of a port over link-disjoint paths where there are any. */
static void lmc(char *text, uint8_t lmc_bits, double min_disjoint, bool all_first, const char *what)
{
	struct fabric *f = load_lids(text, lmc_bits);
	struct routing_opts o = {.lmc = lmc_bits};
	struct checker_lmc_stats sd = {0}, su = {0};
	struct routes *r = route_check(f, &o, false, what), *u = NULL;
	char why[256];
	double fd, fu;

	CU_ASSERT_EQUAL_FATAL(checker_lmc_paths(f, r, &sd), 0);
	CU_ASSERT_EQUAL_FATAL(updn_compute(f, NULL, &u, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(checker_lmc_paths(f, u, &su), 0);
	CU_ASSERT(sd.ranges > 0 && sd.pairs > 0);
	CU_ASSERT_EQUAL(sd.broken, 0);
	fd = (double)sd.disjoint / (double)sd.pairs;
	fu = su.pairs ? (double)su.disjoint / (double)su.pairs : 0;
	fprintf(stderr,
		"\n  %-26s LMC %u: dfsp %llu/%llu pairs disjoint (%.0f%%), %llu/%llu ranges all "
		"apart, %llu leave by distinct links; updn %.0f%%",
		what, lmc_bits, (unsigned long long)sd.disjoint, (unsigned long long)sd.pairs,
		100 * fd, (unsigned long long)sd.ranges_disjoint, (unsigned long long)sd.ranges,
		(unsigned long long)sd.first_distinct, 100 * fu);
	CU_ASSERT(fd >= min_disjoint);
	CU_ASSERT(fd >= fu);
	if (all_first)
		CU_ASSERT_EQUAL(sd.first_distinct, sd.ranges);
	routes_free(u);
	routes_free(r);
	fabric_free(f);
}

static void test_lmc(void)
{
	/* a 2-level k8 tree: 4 spines, each LID of a range through its own */
	lmc(topogen_fat_tree(2, 8, 0, 0), 2, 0.999, true, "ft2 k8");
	lmc(topogen_fat_tree(2, 8, 0, 0), 1, 0.999, true, "ft2 k8");
	lmc(topogen_fat_tree(3, 8, 0, 0), 2, 0.999, true, "ft3 k8");
	/* 2 uplinks a leaf: 4 LIDs cannot all leave apart, 2 can */
	lmc(topogen_fat_tree(3, 4, 0, 0), 1, 0.999, true, "ft3 k4");
	lmc(topogen_fat_tree(3, 4, 0, 0), 2, 0.3, false, "ft3 k4");
	lmc(topogen_mesh(5, 5, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 1, 0.999, true,
	    "torus 5x5 parallel");
	lmc(topogen_mesh(5, 5, 1, TOPOGEN_TORUS), 1, 0.5, false, "torus 5x5");
	lmc(topogen_random_ex(24, 24, 2, 0, TOPOGEN_PARALLEL, 3), 1, 0.4, false,
	    "random 24 parallel");
	fprintf(stderr, "\n");
}

/* The other engines of the default chain: the disjointness they get. */
static void lmc_other(routing_compute_fn fn, const char *name, char *text, uint8_t lmc_bits,
		      double min_disjoint, const char *what)
{
	struct fabric *f = load_lids(text, lmc_bits);
	struct routing_opts o = {.lmc = lmc_bits};
	struct checker_lmc_stats st = {0};
	struct routes *r = NULL;
	char why[256] = "", label[96];
	double fr;

	CU_ASSERT_EQUAL_FATAL(fn(f, &o, &r, why, sizeof(why)), 0);
	snprintf(label, sizeof(label), "%s on %s", name, what);
	checker_assert_sound(f, r, 0, label);
	CU_ASSERT_EQUAL_FATAL(checker_lmc_paths(f, r, &st), 0);
	CU_ASSERT(st.pairs > 0);
	CU_ASSERT_EQUAL(st.broken, 0);
	fr = st.pairs ? (double)st.disjoint / (double)st.pairs : 0;
	fprintf(stderr, "\n  %-6s %-20s LMC %u: %.0f%% of pairs disjoint", name, what, lmc_bits,
		100 * fr);
	CU_ASSERT(fr >= min_disjoint);
	routes_free(r);
	fabric_free(f);
}

static void test_lmc_chain(void)
{
	lmc_other(ftree_compute, "ftree", topogen_fat_tree(2, 8, 0, 0), 2, 0.999, "ft2 k8");
	lmc_other(ftree_compute, "ftree", topogen_fat_tree(3, 8, 0, 0), 2, 0.999, "ft3 k8");
	lmc_other(ftree_compute, "ftree", topogen_fat_tree(3, 8, 37, TOPOGEN_PARALLEL), 1, 0.999,
		  "ft3 k8 37 par");
	/* dor: one dimension order, so only parallel links give alternatives */
	lmc_other(dor_compute, "dor", topogen_mesh(5, 5, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 1,
		  0.999, "torus 5x5 par");
	lmc_other(dor_compute, "dor", topogen_mesh(5, 5, 1, TOPOGEN_TORUS), 1, 0, "torus 5x5");
	fprintf(stderr, "\n");
}

static void refuse(struct fabric *f, const struct routing_opts *o, const char *needle,
		   const char *what)
{
	struct routes *r = NULL;
	char why[256] = "";
	int rc;

	rc = dfsp_compute(f, o, &r, why, sizeof(why));
	fprintf(stderr, "\n  dfsp on %s: %d \"%s\"", what, rc, why);
	CU_ASSERT_EQUAL(rc, -ENOTSUP);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, needle));
	routes_free(r);
}

/*
 * Routed within fewer VLs than the first-fit layers need (dfsp's fallback:
 * an up*-down* last layer): sound, credit-loop free per VL, every VL
 * allowed used, and still no worse than updn.
 */
static void fallback(struct fabric *f, const struct routing_opts *o, const char *what)
{
	struct routes *r = route_check_flags(f, o, true, 0, what); /* up*-down*: longer */
	double fd, fu;

	CU_ASSERT_EQUAL(r->n_vls, o && o->max_vls ? o->max_vls : 2);
	balance(f, r, &fd, &fu);
	fprintf(stderr, "\n  %-30s %2u VLs  busiest/bound dfsp %.2f updn %.2f", what, r->n_vls, fd,
		fu);
	CU_ASSERT(fd <= fu + 1e-9);
	routes_free(r);
}

static void test_fallback(void)
{
	struct routing_opts o = {0};
	unsigned int seed;
	char what[64];

	for (seed = 1; seed <= 3; seed++) {
		struct fabric *f =
		    load_lids(topogen_random_ex(64, 48, 3, 8, TOPOGEN_PARALLEL, seed), 0);

		for (o.max_vls = 2; o.max_vls <= 3; o.max_vls++) {
			snprintf(what, sizeof(what), "random 64 par seed %u max_vls %u", seed,
				 o.max_vls);
			fallback(f, &o, what);
		}
		fabric_free(f);
	}
	fprintf(stderr, "\n");
}

static void test_vls(void)
{
	struct fabric *f = load_lids(topogen_grid(5, 5, 3, 2, TOPOGEN_TORUS), 0);
	struct routing_opts o = {0};
	struct routes *r;
	uint32_t s;
	uint8_t need;
	unsigned int p;
	char what[64];

	/* what it needs unconstrained */
	r = route_check(f, NULL, true, "torus 5x5x3");
	need = r->n_vls;
	routes_free(r);
	CU_ASSERT(need > 1);
	/* a limit it fits in is kept */
	o.max_vls = need;
	r = route_check(f, &o, true, "torus 5x5x3 at its VLs");
	CU_ASSERT_EQUAL(r->n_vls, need);
	routes_free(r);
	/* fewer: the LIDs that fit nowhere go up*-down* on the last VL */
	for (o.max_vls = 2; o.max_vls < need; o.max_vls++) {
		snprintf(what, sizeof(what), "torus 5x5x3 max_vls %u", o.max_vls);
		fallback(f, &o, what);
	}
	o.max_vls = 1;
	refuse(f, &o, "max_vls allows 1", "torus 5x5x3 max_vls 1");
	/* one switch port that offers 2 VLs (VLCap 2) bounds the whole fabric */
	for (s = 0; s < f->n_nodes && !node_is_switch(&f->nodes[s]); s++)
		;
	CU_ASSERT_FATAL(s < f->n_nodes);
	for (p = 1; p <= f->nodes[s].nports; p++) {
		uint32_t nb = f->nodes[s].ports[p].remote_node;

		if (nb < f->n_nodes && node_is_switch(&f->nodes[nb])) {
			f->nodes[s].ports[p].vl_cap = 2;
			break;
		}
	}
	if (need > 2)
		fallback(f, NULL, "torus 5x5x3, one port VLCap 2");
	/* an active port's OperationalVLs win over its VLCap */
	f->nodes[s].ports[p].vl_cap = 4;
	f->nodes[s].ports[p].oper_vls = 1;
	f->nodes[s].ports[p].state = PORT_ACTIVE;
	refuse(f, NULL, "offers 1", "torus 5x5x3, one active port on VL 0 only");
	fabric_free(f);
	/* a tree needs no VL at all */
	f = load_lids(topogen_random(20, 0, 2, 5), 0);
	o.max_vls = 1;
	r = route_check(f, &o, false, "random tree, max_vls 1");
	CU_ASSERT_EQUAL(r->n_vls, 1);
	CU_ASSERT_FALSE(routes_has_path_sl(r));
	routes_free(r);
	fabric_free(f);
	fprintf(stderr, "\n");
}

static void test_bad_input(void)
{
	char *text = topogen_random(6, 3, 1, 1);
	struct fabric *f = testutil_load_text(text);
	struct routes *r = NULL;
	char why[256] = "";

	/* no LIDs assigned */
	CU_ASSERT_EQUAL(dfsp_compute(f, NULL, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(why[0] != '\0');
	fabric_free(f);
	free(text);
}

static void compare_shuffled(char *text, uint8_t lmc_bits, const char *what)
{
	struct fabric *a = testutil_load_text(text), *b;
	struct routes *ra = NULL, *rb = NULL;
	char why[256];
	unsigned int seed;
	uint32_t i, j, sa, sb;

	testutil_assign_lids(a, lmc_bits);
	CU_ASSERT_EQUAL_FATAL(dfsp_compute(a, NULL, &ra, why, sizeof(why)), 0);
	for (seed = 1; seed <= 2; seed++) {
		char *shuffled = topogen_shuffle(text, seed);
		size_t row = (size_t)ra->max_lid + 1;

		CU_ASSERT_PTR_NOT_NULL_FATAL(shuffled);
		b = testutil_load_text(shuffled);
		free(shuffled);
		testutil_assign_lids(b, lmc_bits);
		CU_ASSERT_EQUAL_FATAL(dfsp_compute(b, NULL, &rb, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL_FATAL(ra->max_lid, rb->max_lid);
		CU_ASSERT_EQUAL(ra->n_vls, rb->n_vls);
		for (i = 0; i < a->n_nodes; i++) {
			if (!node_is_switch(&a->nodes[i]))
				continue;
			j = fabric_find_guid(b, a->nodes[i].guid);
			CU_ASSERT_FATAL(j != FABRIC_NO_NODE);
			if (memcmp(ra->lft[i], rb->lft[j], row)) {
				fprintf(stderr, "\ndfsp %s: tables of %s differ (seed %u)\n", what,
					a->nodes[i].desc, seed);
				CU_FAIL("shuffled fabric routed differently");
				break;
			}
			if (ra->lid_sl && rb->lid_sl) {
				sa = ra->sw_index[i];
				sb = rb->sw_index[j];
				CU_ASSERT(
				    !memcmp(&ra->lid_sl[sa * row], &rb->lid_sl[sb * row], row));
			}
		}
		routes_free(rb);
		rb = NULL;
		fabric_free(b);
	}
	routes_free(ra);
	fabric_free(a);
	free(text);
}

static void test_determinism(void)
{
	compare_shuffled(topogen_random_ex(30, 20, 2, 4, TOPOGEN_PARALLEL, 11), 0, "random 30");
	compare_shuffled(topogen_grid(4, 3, 3, 1, TOPOGEN_TORUS), 1, "torus 4x3x3 lmc 1");
	compare_shuffled(topogen_fat_tree(3, 4, 11, TOPOGEN_PARALLEL), 0, "ft3 partial par");
}

/* A larger fabric routed and near-minimal (how fast: bench/ibsmd-micro routing). */
static void large(char *text, const char *what)
{
	struct fabric *f = load_lids(text, 0);
	struct routes *r = NULL;
	char why[256] = "";
	int rc;

	rc = dfsp_compute(f, NULL, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\ndfsp on %s: %d %s\n", what, rc, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(checker_run(f, r, CHECKER_NEAR_MINIMAL, NULL, why, sizeof(why)), 0);
	routes_free(r);
	fabric_free(f);
}

static void test_large(void)
{
	large(topogen_random(160, 160, 8, 21), "random 160");
	large(topogen_fat_tree(3, 16, 0, 0), "ft3 k16");
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"random irregular", test_random},
	    {"random, parallel links, hostless switches", test_random_ex},
	    {"2-D and 3-D meshes and tori", test_grids},
	    {"fat trees", test_fat_trees},
	    {"LMC ranges over disjoint paths", test_lmc},
	    {"LMC with ftree and dor", test_lmc_chain},
	    {"VLs offered, refusals", test_vls},
	    {"fewer VLs than first-fit needs: up*-down* last layer", test_fallback},
	    {"no LIDs", test_bad_input},
	    {"shuffled order, same tables", test_determinism},
	    {"random 160 and ft3 k16", test_large},
	    {NULL, NULL},
	};

	return testutil_run("dfsp", cases);
}

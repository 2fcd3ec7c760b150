/*
 * Unit tests of dimension-order routing (routing/dor.c) on generated meshes
 * and tori: the invariant checker (every LID reachable, no loops, minimal
 * hops), dimension order and the dateline SLs hop by hop, no cycle in the
 * channel dependency graph of each VL (and a cycle once the SLs are
 * ignored, so the check can fail), refusal of fabrics that are no mesh or
 * torus, and the same tables for a shuffled file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "routing/dor.h"
#include "routing/routing.h"
#include "fabric/topo.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

static struct routes *route(const struct fabric *f, const char *what)
{
	struct routes *r = NULL;
	char why[256] = "";
	int rc;

	rc = dor_compute(f, NULL, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\n%s: dor: %d %s\n", what, rc, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/*
 * A d-dimensional grid of switches "s-a-b-c[-e]" with hosts "h-N", in the
 * net format; ring wrap-around on dimensions of size >= 3 when torus, every
 * switch-switch link mult times.  Port of a switch-switch link: after the
 * hosts, (dimension * 2 + (1 for -)) * mult + copy + 1.
 */
static char *gen_grid(unsigned int dims, const unsigned int *size, unsigned int hosts, bool torus,
		      unsigned int mult)
{
	unsigned int n = 1, i, d, h, m, n_ports = hosts + 4 * dims * mult, c[8];
	char *text = NULL, name[64], rname[64];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	for (d = 0; d < dims; d++)
		n *= size[d];
	fprintf(out, "# %u-D %s (test_dor)\n\n", dims, torus ? "torus" : "mesh");
	for (i = 0; i < n * hosts; i++)
		fprintf(out, "caguid=0x%016" PRIx64 "\nHca\t1 \"h-%u\"\n[1]\t\"s-%u\"[%u]\n\n",
			(uint64_t)0x0002c90400000000ULL + ((uint64_t)(i + 1) << 8), i, i / hosts,
			i % hosts + 1);
	for (i = 0; i < n; i++) {
		unsigned int rest = i;

		for (d = 0; d < dims; d++) {
			c[d] = rest % size[d];
			rest /= size[d];
		}
		snprintf(name, sizeof(name), "s-%u", i);
		fprintf(out, "switchguid=0x%016" PRIx64 "\nSwitch\t%u \"%s\"\n",
			(uint64_t)0x0002c90300000000ULL + ((uint64_t)(i + 1) << 8), n_ports, name);
		for (h = 0; h < hosts; h++)
			fprintf(out, "[%u]\t\"h-%u\"[1]\n", h + 1, i * hosts + h);
		for (d = 0; d < dims; d++) {
			unsigned int stride = 1, k, dir;

			for (k = 0; k < d; k++)
				stride *= size[k];
			for (dir = 0; dir < 2; dir++) {
				unsigned int nc;

				if (dir == 0 && c[d] + 1 < size[d])
					nc = c[d] + 1;
				else if (dir == 0 && torus && size[d] >= 3)
					nc = 0;
				else if (dir == 1 && c[d] > 0)
					nc = c[d] - 1;
				else if (dir == 1 && torus && size[d] >= 3)
					nc = size[d] - 1;
				else
					continue;
				snprintf(rname, sizeof(rname), "s-%u",
					 i - c[d] * stride + nc * stride);
				for (m = 0; m < mult; m++)
					fprintf(out, "[%u]\t\"%s\"[%u]\n",
						hosts + (d * 2 + dir) * mult + m + 1, rname,
						hosts + (d * 2 + !dir) * mult + m + 1);
			}
		}
		fputc('\n', out);
	}
	CU_ASSERT_EQUAL_FATAL(fclose(out), 0);
	return text;
}

/* ---- channel dependency graph ---------------------------------------- */

struct cdg {
	uint32_t *base; /* node -> first port's channel block */
	uint64_t *edge; /* from << 32 | to */
	size_t n, cap;
	uint32_t n_ch;
};

static uint32_t cdg_channel(const struct cdg *g, uint32_t node, unsigned int port, unsigned int vl)
{
	return (g->base[node] + port) * ROUTES_MAX_SL + vl;
}

static void cdg_add(struct cdg *g, uint32_t from, uint32_t to)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->edge = realloc(g->edge, g->cap * sizeof(*g->edge));
		CU_ASSERT_PTR_NOT_NULL_FATAL(g->edge);
	}
	g->edge[g->n++] = (uint64_t)from << 32 | to;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned int vl_of(const struct routes *r, const struct fabric *f, uint32_t node,
			  unsigned int port, uint8_t sl)
{
	if (r->n_vls <= 1 || !r->sl2vl)
		return 0;
	if (node_is_switch(&f->nodes[node]))
		return r->sl2vl[node][port * ROUTES_MAX_SL + sl];
	return r->sl2vl[node][sl];
}

/* Follow dst from (node, port) sending with sl; add its channel dependencies. */
static void cdg_walk(struct cdg *g, const struct fabric *f, const struct routes *r, uint32_t node,
		     unsigned int port, uint16_t dst, uint8_t sl)
{
	uint32_t prev = UINT32_MAX, hops = 0;

	if (!node_is_switch(&f->nodes[node])) {
		prev = cdg_channel(g, node, port, vl_of(r, f, node, port, sl));
		node = f->nodes[node].ports[port].remote_node;
	}
	while (node < f->n_nodes && node_is_switch(&f->nodes[node]) && hops++ <= f->n_nodes) {
		unsigned int out = r->lft[node][dst];
		uint32_t ch;

		if (out == 0 || out == LFT_NO_PORT || out > f->nodes[node].nports)
			return;
		ch = cdg_channel(g, node, out, vl_of(r, f, node, out, sl));
		if (prev != UINT32_MAX)
			cdg_add(g, prev, ch);
		prev = ch;
		node = f->nodes[node].ports[out].remote_node;
	}
}

/*
 * True when the channel dependency graph of r, channels being (node, output
 * port, VL), has no cycle.  Sources: every CA port and switch port 0 with a
 * LID; destinations: every LID.  ignore_sl sends everything with SL 0.
 */
static bool cdg_acyclic(const struct fabric *f, const struct routes *r, bool ignore_sl,
			uint64_t *ret_edges)
{
	struct cdg g = {0};
	struct lid_map map;
	uint32_t i, *indeg, *start, *queue, head = 0, tail = 0, done = 0;
	unsigned int p;
	size_t e, k;

	CU_ASSERT_EQUAL_FATAL(fabric_lid_map(f, &map), 0);
	g.base = malloc(((size_t)f->n_nodes + 1) * sizeof(*g.base));
	CU_ASSERT_PTR_NOT_NULL_FATAL(g.base);
	for (i = 0; i < f->n_nodes; i++) {
		g.base[i] = g.n_ch;
		g.n_ch += f->nodes[i].nports + 1u;
	}
	g.n_ch *= ROUTES_MAX_SL;
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
			uint16_t src = n->ports[p].lid, dst;

			if (!src || (!node_is_switch(n) && !port_is_linked(&n->ports[p])))
				continue;
			for (dst = 1; dst <= map.max_lid; dst++) {
				uint8_t sl;

				if (map.node[dst] == FABRIC_NO_NODE ||
				    (map.node[dst] == i && map.port[dst] == p))
					continue;
				sl = ignore_sl ? 0 : routes_path_sl(r, f, &map, src, dst);
				cdg_walk(&g, f, r, i, p, dst, sl);
			}
		}
	}
	qsort(g.edge, g.n, sizeof(*g.edge), cmp_u64);
	for (e = 0, k = 0; e < g.n; e++)
		if (!k || g.edge[e] != g.edge[k - 1])
			g.edge[k++] = g.edge[e];
	g.n = k;
	if (ret_edges)
		*ret_edges = g.n;

	/* Kahn: the graph is acyclic iff every channel can be removed */
	indeg = calloc(g.n_ch, sizeof(*indeg));
	start = calloc((size_t)g.n_ch + 1, sizeof(*start));
	queue = malloc((size_t)g.n_ch * sizeof(*queue));
	CU_ASSERT_FATAL(indeg && start && queue);
	for (e = 0; e < g.n; e++) {
		indeg[(uint32_t)g.edge[e]]++;
		start[(g.edge[e] >> 32) + 1]++;
	}
	for (i = 0; i < g.n_ch; i++)
		start[i + 1] += start[i];
	for (i = 0; i < g.n_ch; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail) {
		uint32_t c = queue[head++];

		done++;
		/* edges are sorted by source, so start[] indexes them directly */
		for (e = start[c]; e < start[c + 1]; e++)
			if (!--indeg[(uint32_t)g.edge[e]])
				queue[tail++] = (uint32_t)g.edge[e];
	}
	free(queue);
	free(start);
	free(indeg);
	free(g.edge);
	free(g.base);
	fabric_lid_map_clear(&map);
	return done == g.n_ch;
}

/* ---- per-fabric checks ----------------------------------------------- */

static void check_invariants(const struct fabric *f, const struct routes *r, const char *what)
{
	checker_assert_sound(f, r, CHECKER_MINIMAL, what);
}

/*
 * Hop by hop between every pair of switches: each hop moves one step in one
 * dimension, dimensions never go back to a lower one, a ring is taken the
 * short way (+ on a tie), and the path SL has the bit of a ring exactly when
 * the path crosses that ring's dateline (size - 1 <-> 0).
 */
static void check_order(const struct fabric *f, const struct routes *r, const char *what)
{
	uint32_t *coord = calloc((size_t)f->n_nodes * DOR_MAX_DIMS, sizeof(*coord));
	unsigned int wbit[DOR_MAX_DIMS] = {0}, rings = 0, d;
	struct dor_shape sh;
	char why[256];
	uint32_t a, b, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(coord);
	CU_ASSERT_EQUAL_FATAL(dor_coords(f, &sh, coord, why, sizeof(why)), 0);
	for (d = 0; d < sh.dims; d++)
		if (sh.wrap[d])
			wbit[d] = rings++;
	for (a = 0; a < f->n_nodes; a++) {
		if (!node_is_switch(&f->nodes[a]))
			continue;
		for (b = 0; b < f->n_nodes; b++) {
			uint16_t dst = f->nodes[b].ports[0].lid;
			uint32_t cur = a, last_dim = 0, hops = 0;
			uint8_t crossed = 0, sl = 0;

			if (!node_is_switch(&f->nodes[b]) || a == b)
				continue;
			if (r->path_sl)
				sl = r->path_sl[(size_t)r->sw_index[a] * r->n_sw + r->sw_index[b]];
			while (cur != b && hops++ < f->n_nodes) {
				uint8_t out = r->lft[cur][dst];
				uint32_t nx = f->nodes[cur].ports[out].remote_node, diff = 0;
				const uint32_t *cc = &coord[(size_t)cur * DOR_MAX_DIMS];
				const uint32_t *cn = &coord[(size_t)nx * DOR_MAX_DIMS];
				const uint32_t *cb = &coord[(size_t)b * DOR_MAX_DIMS];

				for (d = 0; d < sh.dims; d++) {
					uint32_t n = sh.size[d], fwd, step;

					if (cc[d] == cn[d])
						continue;
					diff++;
					if (d < last_dim)
						bad++;
					last_dim = d;
					step = (cn[d] + n - cc[d]) % n;
					fwd = (cb[d] + n - cc[d]) % n;
					if (sh.wrap[d]) {
						/* the short way, + on a tie */
						if ((fwd <= n - fwd) != (step == 1))
							bad++;
						if ((step == 1 && cn[d] == 0) ||
						    (step == n - 1 && cc[d] == 0))
							crossed |= (uint8_t)(1u << wbit[d]);
					}
					/* the route's VL on this port is the crossing bit */
					if (r->sl2vl && r->sl2vl[cur][out * ROUTES_MAX_SL + sl] !=
							    (sh.wrap[d] ? (sl >> wbit[d]) & 1 : 0))
						bad++;
				}
				if (diff != 1)
					bad++;
				cur = nx;
			}
			if (cur != b || crossed != sl)
				bad++;
		}
	}
	if (bad)
		fprintf(stderr, "\n%s: %u dimension-order violations\n", what, bad);
	CU_ASSERT_EQUAL(bad, 0);
	free(coord);
}

/* Every switch's LIDs spread over parallel links to one neighbour within 1. */
static void check_parallel_balance(const struct fabric *f, const struct routes *r)
{
	uint32_t i, l;
	unsigned int p, q;

	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint32_t counts[256] = {0};

		if (!node_is_switch(n))
			continue;
		for (l = 1; l <= r->max_lid; l++)
			if (r->lft[i][l] != LFT_NO_PORT)
				counts[r->lft[i][l]]++;
		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node;

			if (rn >= f->n_nodes || !node_is_switch(&f->nodes[rn]))
				continue;
			for (q = p + 1; q <= n->nports; q++)
				if (n->ports[q].remote_node == rn)
					CU_ASSERT(counts[p] + 1 >= counts[q] &&
						  counts[q] + 1 >= counts[p]);
		}
	}
}

enum expect { EXPECT_ONE_VL, EXPECT_TWO_VLS };

/* Route text (freed) and run every check. */
static void run_text(char *text, uint8_t lmc, enum expect vls, bool want_cycle_without_sl,
		     const char *what)
{
	struct fabric *f = testutil_load_text(text);
	struct routes *r;
	uint64_t edges = 0;
	uint32_t i;
	bool nonzero = false;

	free(text);
	CU_ASSERT(testutil_assign_lids(f, lmc) > 0);
	r = route(f, what);
	check_invariants(f, r, what);
	check_order(f, r, what);
	check_parallel_balance(f, r);
	if (vls == EXPECT_ONE_VL) {
		CU_ASSERT_EQUAL(r->n_vls, 1);
		CU_ASSERT_PTR_NULL(r->path_sl);
		CU_ASSERT_PTR_NULL(r->sl2vl);
	} else {
		CU_ASSERT_EQUAL(r->n_vls, 2);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r->path_sl);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r->sl2vl);
		for (i = 0; i < r->n_sw * r->n_sw; i++)
			nonzero |= r->path_sl[i] != 0;
		CU_ASSERT(nonzero);
		/* CAs: every SL on VL0 */
		for (i = 0; i < f->n_nodes; i++)
			if (!node_is_switch(&f->nodes[i]))
				for (unsigned int sl = 0; sl < ROUTES_MAX_SL; sl++)
					CU_ASSERT_EQUAL(r->sl2vl[i][sl], 0);
	}
	if (!cdg_acyclic(f, r, false, &edges)) {
		fprintf(stderr, "\n%s: credit loop\n", what);
		CU_FAIL("cycle in the channel dependency graph");
	}
	CU_ASSERT(edges > 0);
	if (want_cycle_without_sl && cdg_acyclic(f, r, true, NULL)) {
		fprintf(stderr, "\n%s: no cycle even without the SLs\n", what);
		CU_FAIL("the CDG check cannot fail here");
	}
	routes_free(r);
	fabric_free(f);
}

/* ---- tests ------------------------------------------------------------ */

static void test_mesh(void)
{
	run_text(topogen_mesh(3, 3, 1, 0), 0, EXPECT_ONE_VL, false, "mesh 3x3");
	run_text(topogen_mesh(4, 4, 2, 0), 0, EXPECT_ONE_VL, false, "mesh 4x4");
	run_text(topogen_mesh(5, 4, 1, 0), 0, EXPECT_ONE_VL, false, "mesh 5x4");
	run_text(topogen_mesh(6, 6, 2, 0), 0, EXPECT_ONE_VL, false, "mesh 6x6");
	run_text(topogen_mesh(5, 4, 2, TOPOGEN_PARALLEL), 0, EXPECT_ONE_VL, false,
		 "mesh 5x4 parallel");
	run_text(topogen_mesh(2, 7, 1, 0), 0, EXPECT_ONE_VL, false, "mesh 2x7");
	run_text(topogen_mesh(1, 5, 1, 0), 0, EXPECT_ONE_VL, false, "line 1x5");
	run_text(topogen_mesh(1, 1, 3, 0), 0, EXPECT_ONE_VL, false, "one switch");
	run_text(topogen_mesh(2, 2, 1, 0), 0, EXPECT_ONE_VL, false, "mesh 2x2");
	run_text(gen_grid(3, (const unsigned int[]){3, 3, 3}, 1, false, 1), 0, EXPECT_ONE_VL, false,
		 "mesh 3x3x3");
	run_text(gen_grid(3, (const unsigned int[]){2, 5, 3}, 2, false, 2), 0, EXPECT_ONE_VL, false,
		 "mesh 2x5x3 parallel");
	/* 2x2x3x3 is a 3-D grid: a ring of 4 (as 2x2) by 3 by 3 */
	run_text(gen_grid(4, (const unsigned int[]){2, 2, 3, 3}, 1, false, 1), 0, EXPECT_ONE_VL,
		 false, "mesh 2x2x3x3");
}

static void test_torus(void)
{
	run_text(topogen_mesh(3, 3, 1, TOPOGEN_TORUS), 0, EXPECT_TWO_VLS, false, "torus 3x3");
	run_text(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0, EXPECT_TWO_VLS, true, "torus 5x4");
	run_text(topogen_mesh(6, 6, 2, TOPOGEN_TORUS), 0, EXPECT_TWO_VLS, true, "torus 6x6");
	/* here the balancing happens to split 1- and 2-hop segments over the two
	 * parallel links, so even SL 0 alone has no cycle */
	run_text(topogen_mesh(5, 5, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 0, EXPECT_TWO_VLS, false,
		 "torus 5x5 parallel");
	run_text(topogen_mesh(3, 6, 2, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 0, EXPECT_TWO_VLS, true,
		 "torus 3x6 parallel");
	run_text(topogen_mesh(7, 2, 1, TOPOGEN_TORUS), 0, EXPECT_TWO_VLS, true, "torus 7x2");
	run_text(topogen_mesh(1, 8, 1, TOPOGEN_TORUS), 0, EXPECT_TWO_VLS, true, "ring of 8");
	/* rings of 4 are found as 2x2 meshes: a 4x4 torus is a 4-cube, one VL */
	run_text(topogen_mesh(4, 4, 2, TOPOGEN_TORUS), 0, EXPECT_ONE_VL, false, "torus 4x4");
	run_text(topogen_mesh(4, 4, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 0, EXPECT_ONE_VL, false,
		 "torus 4x4 parallel");
}

static void test_torus_3d(void)
{
	run_text(gen_grid(3, (const unsigned int[]){3, 4, 5}, 1, true, 1), 0, EXPECT_TWO_VLS, true,
		 "torus 3x4x5");
	run_text(gen_grid(3, (const unsigned int[]){5, 5, 5}, 1, true, 1), 0, EXPECT_TWO_VLS, true,
		 "torus 5x5x5");
	run_text(gen_grid(3, (const unsigned int[]){3, 3, 6}, 2, true, 2), 0, EXPECT_TWO_VLS, true,
		 "torus 3x3x6 parallel");
	run_text(gen_grid(3, (const unsigned int[]){4, 4, 4}, 1, true, 1), 0, EXPECT_ONE_VL, false,
		 "torus 4x4x4 (6-cube)");
	run_text(gen_grid(3, (const unsigned int[]){6, 2, 5}, 1, true, 1), 0, EXPECT_TWO_VLS, true,
		 "torus 6x2x5");
}

static void test_lmc(void)
{
	char *t = topogen_mesh(5, 5, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL);
	struct fabric *f = testutil_load_text(t);
	struct routes *r;
	uint32_t sw, ca;
	uint16_t base;
	uint8_t p0, p1;

	free(t);
	run_text(topogen_mesh(5, 5, 1, TOPOGEN_TORUS | TOPOGEN_PARALLEL), 2, EXPECT_TWO_VLS, true,
		 "torus 5x5 parallel lmc 2");
	run_text(topogen_mesh(4, 3, 2, TOPOGEN_PARALLEL), 3, EXPECT_ONE_VL, false,
		 "mesh 4x3 parallel lmc 3");
	/* the LIDs of ca-24 (on sw-4-4) leave sw-0-4 over both links to sw-4-4 */
	testutil_assign_lids(f, 2);
	r = route(f, "lmc");
	sw = testutil_find_desc(f, "sw-0-4");
	ca = testutil_find_desc(f, "ca-24");
	CU_ASSERT_FATAL(sw != FABRIC_NO_NODE && ca != FABRIC_NO_NODE);
	base = f->nodes[ca].ports[1].lid;
	CU_ASSERT_EQUAL(f->nodes[ca].ports[1].lmc, 2);
	p0 = r->lft[sw][base];
	p1 = r->lft[sw][base + 1];
	CU_ASSERT_NOT_EQUAL(p0, p1);
	CU_ASSERT_EQUAL(f->nodes[sw].ports[p0].remote_node, f->nodes[sw].ports[p1].remote_node);
	CU_ASSERT_STRING_EQUAL(f->nodes[f->nodes[sw].ports[p0].remote_node].desc, "sw-4-4");
	/* the CA's own switch reaches it over the CA's cable */
	CU_ASSERT_EQUAL(r->lft[f->nodes[ca].ports[1].remote_node][base + 3],
			f->nodes[ca].ports[1].remote_port);
	routes_free(r);
	fabric_free(f);
}

static void test_shape(void)
{
	struct {
		char *text;
		unsigned int dims;
		uint32_t size[DOR_MAX_DIMS];
		bool wrap[DOR_MAX_DIMS];
	} c[] = {
	    {topogen_mesh(4, 3, 1, 0), 2, {4, 3}, {false, false}},
	    {topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 3, {5, 2, 2}, {true, false, false}},
	    {topogen_mesh(6, 3, 1, TOPOGEN_TORUS), 2, {6, 3}, {true, true}},
	    {topogen_mesh(4, 4, 1, TOPOGEN_TORUS), 4, {2, 2, 2, 2}, {false}},
	    {topogen_mesh(1, 1, 1, 0), 0, {0}, {false}},
	};
	unsigned int i, d;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fabric *f = testutil_load_text(c[i].text);
		uint32_t *coord = calloc((size_t)f->n_nodes * DOR_MAX_DIMS, sizeof(*coord));
		uint32_t s00 = testutil_find_desc(f, "sw-0-0"),
			 s10 = testutil_find_desc(f, "sw-1-0");
		struct dor_shape sh;
		char why[256] = "";

		free(c[i].text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(coord);
		CU_ASSERT_EQUAL_FATAL(dor_coords(f, &sh, coord, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(sh.dims, c[i].dims);
		for (d = 0; d < sh.dims && d < c[i].dims; d++) {
			CU_ASSERT_EQUAL(sh.size[d], c[i].size[d]);
			CU_ASSERT_EQUAL(sh.wrap[d], c[i].wrap[d]);
		}
		/* the origin is the corner (or lowest GUID) and sw-1-0 is its + neighbour */
		CU_ASSERT_EQUAL(sh.origin, f->nodes[s00].guid);
		for (d = 0; d < DOR_MAX_DIMS; d++)
			CU_ASSERT_EQUAL(coord[(size_t)s00 * DOR_MAX_DIMS + d], 0);
		if (s10 != FABRIC_NO_NODE)
			CU_ASSERT_EQUAL(coord[(size_t)s10 * DOR_MAX_DIMS + 0], 1);
		free(coord);
		fabric_free(f);
	}
}

/* Ties go +, and the SL bit is the dateline crossing, on a 6x6 torus. */
static void test_dateline(void)
{
	char *t = topogen_mesh(6, 6, 1, TOPOGEN_TORUS);
	struct fabric *f = testutil_load_text(t);
	struct routes *r;
	struct lid_map map;
	uint32_t s[6], y2;
	unsigned int i;
	char name[16];

	free(t);
	testutil_assign_lids(f, 0);
	r = route(f, "torus 6x6");
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "sw-%u-0", i);
		s[i] = testutil_find_desc(f, name);
		CU_ASSERT_FATAL(s[i] != FABRIC_NO_NODE);
	}
	y2 = testutil_find_desc(f, "sw-0-2");
	CU_ASSERT_FATAL(y2 != FABRIC_NO_NODE);
#define NEXT(a, b) (f->nodes[a].ports[r->lft[a][f->nodes[b].ports[0].lid]].remote_node)
#define SL(a, b) (r->path_sl[(size_t)r->sw_index[a] * r->n_sw + r->sw_index[b]])
	CU_ASSERT_EQUAL(NEXT(s[0], s[3]), s[1]); /* tie: + */
	CU_ASSERT_EQUAL(NEXT(s[4], s[1]), s[5]); /* tie: +, over the dateline */
	CU_ASSERT_EQUAL(NEXT(s[0], s[5]), s[5]); /* the short way: - */
	CU_ASSERT_EQUAL(SL(s[0], s[3]), 0);
	CU_ASSERT_EQUAL(SL(s[1], s[4]), 0);
	CU_ASSERT_EQUAL(SL(s[4], s[1]), 1);
	CU_ASSERT_EQUAL(SL(s[0], s[5]), 1);
	CU_ASSERT_EQUAL(SL(s[5], s[0]), 1);
	CU_ASSERT_EQUAL(SL(s[2], s[3]), 0);
	CU_ASSERT_EQUAL(SL(y2, s[0]), 0); /* 2 -> 0 in y: - without crossing */
	CU_ASSERT_EQUAL(SL(s[0], y2), 0);
	CU_ASSERT_EQUAL(SL(s[5], y2), 1);      /* x crosses, y does not */
	CU_ASSERT_EQUAL(NEXT(s[5], y2), s[0]); /* x first */
	/* the CA path SL is its switch's: ca-5 sits on sw-5-0, ca-12 on sw-0-2 */
	CU_ASSERT_EQUAL_FATAL(fabric_lid_map(f, &map), 0);
	CU_ASSERT_EQUAL(routes_path_sl(r, f, &map,
				       f->nodes[testutil_find_desc(f, "ca-5")].ports[1].lid,
				       f->nodes[testutil_find_desc(f, "ca-12")].ports[1].lid),
			1);
	fabric_lid_map_clear(&map);
#undef NEXT
#undef SL
	routes_free(r);
	fabric_free(f);
}

static void expect_refused(char *text, const char *want, const char *what)
{
	struct fabric *f = testutil_load_text(text);
	struct routes *r = NULL;
	char why[256] = "";
	int rc;

	free(text);
	testutil_assign_lids(f, 0);
	rc = dor_compute(f, NULL, &r, why, sizeof(why));
	if (rc != -ENOTSUP || (want && !strstr(why, want)))
		fprintf(stderr, "\n%s: dor: %d \"%s\"\n", what, rc, why);
	CU_ASSERT_EQUAL(rc, -ENOTSUP);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(strlen(why) > 10);
	CU_ASSERT_PTR_NULL(strchr(why, '\n'));
	if (want)
		CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
	fabric_free(f);
}

static void test_refuse(void)
{
	unsigned int seed;
	char what[32];

	expect_refused(topogen_fat_tree(2, 4, 0, 0), "not a mesh or torus", "ft2 k4");
	expect_refused(topogen_fat_tree(2, 8, 0, 0), "switch neighbours", "ft2 k8");
	expect_refused(topogen_fat_tree(3, 4, 0, 0), "not a mesh or torus", "ft3 k4");
	expect_refused(topogen_fat_tree(2, 4, 0, TOPOGEN_PARALLEL), "not a mesh or torus",
		       "ft2 k4 parallel");
	for (seed = 1; seed <= 12; seed++) {
		snprintf(what, sizeof(what), "random seed %u", seed);
		expect_refused(topogen_random(8 + (int)seed * 2, (int)seed, 1, seed),
			       "not a mesh or torus", what);
	}
	expect_refused(gen_grid(4, (const unsigned int[]){3, 3, 3, 3}, 1, true, 1),
		       "switch neighbours", "4-D torus");
	expect_refused(gen_grid(4, (const unsigned int[]){2, 3, 3, 3}, 1, false, 1),
		       "switch neighbours", "4-D mesh");
	expect_refused(gen_grid(7, (const unsigned int[]){2, 2, 2, 2, 2, 2, 2}, 1, false, 1), NULL,
		       "7-cube");
}

/* Drop the port lines that join switches a and b (both ends are listed). */
static char *drop_link(const char *text, const char *a, const char *b)
{
	char *out = malloc(strlen(text) + 1), *o = out, qa[32], qb[32];
	const char *line = text, *name = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	snprintf(qa, sizeof(qa), "\"%s\"", a);
	snprintf(qb, sizeof(qb), "\"%s\"", b);
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		char buf[256];
		bool drop = false;

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		if (!strncmp(buf, "Switch", 6) || !strncmp(buf, "Hca", 3))
			name = strchr(line, '"');
		if (buf[0] == '[' && name)
			drop = (!strncmp(name, qa, strlen(qa)) && strstr(buf, qb)) ||
			       (!strncmp(name, qb, strlen(qb)) && strstr(buf, qa));
		if (!drop) {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	*o = '\0';
	return out;
}

/* A mesh with a link missing, with an extra switch, with an island. */
static void test_refuse_damaged(void)
{
	char *t = topogen_mesh(4, 4, 1, 0), *t2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t2 = drop_link(t, "sw-1-1", "sw-2-1");
	CU_ASSERT(strlen(t2) < strlen(t));
	free(t);
	expect_refused(t2, "not a mesh or torus", "mesh with a missing link");

	t = topogen_mesh(6, 5, 1, TOPOGEN_TORUS);
	t2 = drop_link(t, "sw-5-2", "sw-0-2");
	CU_ASSERT(strlen(t2) < strlen(t));
	free(t);
	expect_refused(t2, "not a mesh or torus", "torus with a missing wrap link");

	/* gen_grid leaves corners' outward ports free: s-0 [3], s-3 [2], s-15 [2] */
	t = gen_grid(2, (const unsigned int[]){4, 4}, 1, false, 1);
	CU_ASSERT_FATAL(asprintf(&t2,
				 "%s\nswitchguid=0x0002c901ffff0000\nSwitch 2 \"extra\"\n"
				 "[1]\t\"s-0\"[3]\n[2]\t\"s-3\"[2]\n",
				 t) > 0);
	free(t);
	expect_refused(t2, "not a mesh or torus", "mesh with an extra switch");

	t = gen_grid(2, (const unsigned int[]){4, 4}, 1, false, 1);
	/* s-15's record comes last: give it a link from [2] to s-0 [3] */
	t[strlen(t) - 1] = '\0';
	CU_ASSERT_FATAL(asprintf(&t2, "%s[2]\t\"s-0\"[3]\n", t) > 0);
	free(t);
	expect_refused(t2, "not a mesh or torus", "mesh with a long link");

	t = topogen_mesh(3, 3, 1, 0);
	CU_ASSERT_FATAL(asprintf(&t2,
				 "%s\nswitchguid=0x0002c901ffff0000\nSwitch 2 \"island\"\n"
				 "[1]\t\"ica\"[1]\n\nHca 1 \"ica\"\n[1]\t\"island\"[1]\n",
				 t) > 0);
	free(t);
	expect_refused(t2, "not connected", "disconnected");
}

static void test_bad_lids(void)
{
	char *t = topogen_mesh(3, 3, 1, TOPOGEN_TORUS);
	struct fabric *f = testutil_load_text(t);
	struct routes *r = NULL;
	char why[128] = "";

	free(t);
	CU_ASSERT_EQUAL(dor_compute(f, NULL, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no LIDs"));
	testutil_assign_lids(f, 0);
	f->nodes[1].ports[1].lid = f->nodes[0].ports[1].lid;
	CU_ASSERT_EQUAL(dor_compute(f, NULL, &r, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	fabric_free(f);
}

static void compare_shuffled(char *text, const char *what)
{
	struct fabric *a = testutil_load_text(text), *b;
	struct routes *ra, *rb;
	unsigned int seed;
	uint32_t i, j, k, m;

	testutil_assign_lids(a, 1);
	ra = route(a, what);
	for (seed = 1; seed <= 3; seed++) {
		char *shuffled = topogen_shuffle(text, seed);
		bool same = true;

		CU_ASSERT_PTR_NOT_NULL_FATAL(shuffled);
		CU_ASSERT_NOT_EQUAL(strcmp(shuffled, text), 0);
		b = testutil_load_text(shuffled);
		free(shuffled);
		CU_ASSERT_EQUAL_FATAL(b->n_nodes, a->n_nodes);
		testutil_assign_lids(b, 1);
		rb = route(b, what);
		CU_ASSERT_EQUAL_FATAL(ra->max_lid, rb->max_lid);
		CU_ASSERT_EQUAL_FATAL(ra->n_vls, rb->n_vls);
		for (i = 0; i < a->n_nodes && same; i++) {
			const struct node *n = &a->nodes[i];

			j = fabric_find_guid(b, n->guid);
			CU_ASSERT_FATAL(j != FABRIC_NO_NODE);
			if (node_is_switch(n) &&
			    memcmp(ra->lft[i], rb->lft[j], (size_t)ra->max_lid + 1))
				same = false;
			if (ra->n_vls > 1 &&
			    memcmp(ra->sl2vl[i], rb->sl2vl[j],
				   node_is_switch(n) ? (size_t)(n->nports + 1) * ROUTES_MAX_SL
						     : ROUTES_MAX_SL))
				same = false;
			if (ra->n_vls <= 1 || !node_is_switch(n))
				continue;
			for (k = 0; k < a->n_nodes; k++) {
				if (!node_is_switch(&a->nodes[k]))
					continue;
				m = fabric_find_guid(b, a->nodes[k].guid);
				if (ra->path_sl[(size_t)ra->sw_index[i] * ra->n_sw +
						ra->sw_index[k]] !=
				    rb->path_sl[(size_t)rb->sw_index[j] * rb->n_sw +
						rb->sw_index[m]])
					same = false;
			}
		}
		if (!same) {
			fprintf(stderr, "\n%s: tables differ (seed %u) at %s\n", what, seed,
				a->nodes[i - 1].desc);
			CU_FAIL("shuffled fabric routed differently");
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
	compare_shuffled(topogen_mesh(5, 4, 2, TOPOGEN_TORUS | TOPOGEN_PARALLEL), "torus 5x4");
	compare_shuffled(topogen_mesh(6, 3, 1, 0), "mesh 6x3");
	compare_shuffled(topogen_mesh(4, 4, 1, TOPOGEN_TORUS), "torus 4x4");
	compare_shuffled(gen_grid(3, (const unsigned int[]){3, 4, 5}, 1, true, 1), "torus 3x4x5");
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"2-D and 3-D meshes", test_mesh},
	    {"2-D tori", test_torus},
	    {"3-D tori", test_torus_3d},
	    {"LMC over parallel links", test_lmc},
	    {"inferred shape", test_shape},
	    {"dateline SLs", test_dateline},
	    {"refuses fat trees, random graphs, 4-D", test_refuse},
	    {"refuses damaged meshes", test_refuse_damaged},
	    {"no LIDs, duplicate LIDs", test_bad_lids},
	    {"shuffled order, same tables", test_determinism},
	    {NULL, NULL},
	};

	return testutil_run("dor", cases);
}

/*
 * Unit tests of PathRecord computation (sa/path.c) on generated fabrics
 * routed by the engines: every CA pair has a path whose hop count is the
 * checker's walk and whose MTU and rate are the minima on the way; dor's
 * SLs (dateline pairs SL 1); one slow, one narrow-MTU and one NeighborMTU
 * link; LMC pairs in OpenSM's order; broken tables (dead port, no entry,
 * loop, wrong end, a down link) and ports without LIDs give no path; the
 * selectors; paging; the same answers for a shuffled file; the time a path
 * takes (printed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/snapshot.h"
#include "fabric/speed.h"
#include "routing/dor.h"
#include "routing/routing.h"
#include "sa/path.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

#define MAX_WALK 64

/* Parse (frees text) and assign LIDs. */
static struct fabric *load(char *text, uint8_t lmc)
{
	struct fabric *f = testutil_load_text(text);

	free(text);
	CU_ASSERT(testutil_assign_lids(f, lmc) > 0);
	return f;
}

/* Route f with an engine, check the tables, publish f and them. */
static struct snapshot *publish(struct fabric *f, const char *engine, const char *what)
{
	const struct routing_engine *e = routing_find(engine);
	struct routes *r = NULL;
	struct snapshot *s = NULL;
	char why[256] = "";
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	rc = e->compute(f, NULL, &r, why, sizeof(why));
	if (rc)
		fprintf(stderr, "\n%s: %s: %d %s\n", what, engine, rc, why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	checker_assert_sound(f, r, 0, what);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &s), 0);
	return s;
}

struct ports {
	struct path_port *p;
	uint32_t n;
};

/* Every CA port with a LID, in node order. */
static struct ports ca_ports(const struct fabric *f)
{
	struct ports ps = {calloc((size_t)f->n_nodes * 2 + 1, sizeof(*ps.p)), 0};
	uint32_t i;
	unsigned int p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ps.p);
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		if (node_is_switch(n))
			continue;
		for (p = 1; p <= n->nports && p <= 2; p++)
			if (n->ports[p].lid)
				ps.p[ps.n++] = (struct path_port){i, (uint8_t)p, 0};
	}
	return ps;
}

static struct path_port port_of(const struct fabric *f, const char *desc, uint8_t port)
{
	uint32_t i = testutil_find_desc(f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return (struct path_port){i, port, 0};
}

/* The MTU the test expects of one port: MTUCap, lowered by a set NeighborMTU. */
static uint8_t want_port_mtu(const struct port *p)
{
	uint8_t m = p->mtu_cap;

	if (p->neighbor_mtu && p->neighbor_mtu < m)
		m = p->neighbor_mtu;
	return m;
}

struct expect {
	int hops;
	uint8_t mtu, rate;
	struct checker_hop links[MAX_WALK + 1]; /* every link, the source CA's first */
	int n_links;
};

/*
 * What path (a -> b, b's LID dlid) should be, from the checker's walk:
 * hops, and the MTU and rate minima over the links crossed.  hops -1 when
 * the checker finds no route.
 */
static struct expect expect_path(const struct snapshot *s, struct path_port a, struct path_port b,
				 uint16_t dlid)
{
	const struct fabric *f = s->fabric;
	const struct node *an = &f->nodes[a.node], *bn = &f->nodes[b.node];
	struct expect x = {.mtu = PATH_MTU_4096, .rate = PATH_RATE_120};
	uint32_t sw = a.node;
	int links, k;

	if (!node_is_switch(an)) {
		x.links[x.n_links++] = (struct checker_hop){a.node, a.port};
		sw = an->ports[a.port].remote_node;
	}
	links = checker_walk(f, s->routes, &s->lids, sw, dlid, x.links + x.n_links, MAX_WALK);
	if (links < 0) {
		x.hops = -1;
		return x;
	}
	x.n_links += links;
	x.hops = links + (node_is_switch(bn) ? 1 : 0);
	for (k = 0; k < x.n_links; k++) {
		const struct port *p = &f->nodes[x.links[k].node].ports[x.links[k].port];
		const struct port *q = &f->nodes[p->remote_node].ports[p->remote_port];
		uint8_t m =
		    want_port_mtu(p) < want_port_mtu(q) ? want_port_mtu(p) : want_port_mtu(q);
		uint8_t r1 = path_rate(p->width_active, p->speed_active);
		uint8_t r2 = path_rate(q->width_active, q->speed_active);

		if (m < x.mtu)
			x.mtu = m;
		if (path_rate_cmp(r1, x.rate) < 0)
			x.rate = r1;
		if (path_rate_cmp(r2, x.rate) < 0)
			x.rate = r2;
	}
	if (node_is_switch(an) && an->ports[0].mtu_cap < x.mtu)
		x.mtu = an->ports[0].mtu_cap;
	if (node_is_switch(bn) && bn->ports[0].mtu_cap < x.mtu)
		x.mtu = bn->ports[0].mtu_cap;
	return x;
}

/* One pair through path_compute(), checked against the walk. */
static void check_pair(const struct snapshot *s, struct path_port a, struct path_port b,
		       const char *what, unsigned int *bad)
{
	const struct fabric *f = s->fabric;
	struct path_info pi;
	uint16_t slid, dlid;
	bool self = a.node == b.node && a.port == b.port;
	struct expect x;
	int rc;

	rc = path_compute(s, NULL, &a, &b, &pi);
	slid = a.lid ? a.lid : node_port_lid(&f->nodes[a.node], a.port);
	dlid = b.lid ? b.lid : node_port_lid(&f->nodes[b.node], b.port);
	if (self) {
		x = (struct expect){.hops = 0,
				    .mtu = f->nodes[a.node].ports[a.port].mtu_cap,
				    .rate = path_rate(f->nodes[a.node].ports[a.port].width_active,
						      f->nodes[a.node].ports[a.port].speed_active)};
	} else {
		x = expect_path(s, a, b, dlid);
	}
	if (rc || pi.hops != x.hops || pi.mtu != x.mtu || pi.rate != x.rate || !pi.reversible ||
	    pi.slid != slid || pi.dlid != dlid ||
	    pi.sl != routes_path_sl(s->routes, f, &s->lids, slid, dlid) ||
	    pi.pkt_life != (self ? 0 : path_pkt_life(PATH_DEFAULT_SWITCH_LIFE, pi.hops)) ||
	    pi.n_paths != (1u << f->nodes[a.node].ports[a.port].lmc)
			      << f->nodes[b.node].ports[b.port].lmc) {
		if (!(*bad)++)
			fprintf(
			    stderr,
			    "\n%s: \"%s\"[%u] -> \"%s\"[%u]: rc %d hops %u (want %d) mtu %u (%u) "
			    "rate %u (%u) sl %u rev %d life %u\n",
			    what, f->nodes[a.node].desc, a.port, f->nodes[b.node].desc, b.port, rc,
			    pi.hops, x.hops, pi.mtu, x.mtu, pi.rate, x.rate, pi.sl, pi.reversible,
			    pi.pkt_life);
	}
}

/* Every CA pair, and a few with switch ends. */
static void check_all_pairs(const struct snapshot *s, const char *what)
{
	const struct fabric *f = s->fabric;
	struct ports ps = ca_ports(f);
	unsigned int bad = 0;
	uint32_t i, j, sw[3], n_sw = 0;

	CU_ASSERT(ps.n > 1);
	for (i = 0; i < ps.n; i++)
		for (j = 0; j < ps.n; j++)
			check_pair(s, ps.p[i], ps.p[j], what, &bad);
	for (i = 0; i < f->n_nodes && n_sw < 3; i++)
		if (node_is_switch(&f->nodes[i]))
			sw[n_sw++] = i;
	for (i = 0; i < n_sw; i++) {
		struct path_port a = {sw[i], 0, 0};

		for (j = 0; j < ps.n; j += 3) {
			check_pair(s, a, ps.p[j], what, &bad);
			check_pair(s, ps.p[j], a, what, &bad);
		}
		for (j = 0; j < n_sw; j++)
			check_pair(s, a, (struct path_port){sw[j], 0, 0}, what, &bad);
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(ps.p);
}

static void run(char *text, uint8_t lmc, const char *engine, const char *what)
{
	struct snapshot *s = publish(load(text, lmc), engine, what);

	check_all_pairs(s, what);
	snapshot_free(s);
}

/* ---- tests ------------------------------------------------------------ */

static void test_encodings(void)
{
	static const struct {
		uint8_t width, speed, rate;
	} t[] = {
	    {1, 1, PATH_RATE_2_5}, {2, 1, PATH_RATE_10},  {8, 1, PATH_RATE_30},
	    {1, 2, PATH_RATE_5},   {2, 2, PATH_RATE_20},  {2, 4, PATH_RATE_40},
	    {8, 2, PATH_RATE_60},  {4, 4, PATH_RATE_80},  {8, 4, PATH_RATE_120},
	    {16, 1, PATH_RATE_5},  {16, 4, PATH_RATE_20}, {4, 1, PATH_RATE_20},
	    {0, 0, PATH_RATE_2_5}, {2, 0, PATH_RATE_10},  {3, 4, PATH_RATE_10},
	};
	unsigned int i, h, last;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CU_ASSERT_EQUAL(path_rate(t[i].width, t[i].speed), t[i].rate);
	/* data rate order, not code order: 14 Gb/s (11) between 10 and 20 */
	CU_ASSERT(path_rate_cmp(PATH_RATE_14, PATH_RATE_10) > 0);
	CU_ASSERT(path_rate_cmp(PATH_RATE_14, PATH_RATE_20) < 0);
	CU_ASSERT(path_rate_cmp(PATH_RATE_5, PATH_RATE_10) < 0);
	CU_ASSERT(path_rate_cmp(PATH_RATE_30, PATH_RATE_20) > 0);
	CU_ASSERT_EQUAL(path_rate_cmp(PATH_RATE_40, PATH_RATE_40), 0);
	CU_ASSERT_EQUAL(path_rate_prev(PATH_RATE_10), PATH_RATE_5);
	CU_ASSERT_EQUAL(path_rate_prev(PATH_RATE_20), PATH_RATE_14);
	CU_ASSERT_EQUAL(path_rate_prev(PATH_RATE_5), PATH_RATE_2_5);
	CU_ASSERT_EQUAL(path_rate_prev(PATH_RATE_2_5), 0);
	CU_ASSERT_EQUAL(path_rate_prev(0), 0);
	CU_ASSERT(!path_rate_valid(0) && !path_rate_valid(1) && !path_rate_valid(25));
	CU_ASSERT(path_rate_valid(PATH_RATE_MAX));
	/* every code has a predecessor chain down to 2.5 Gb/s: 23 codes */
	for (i = PATH_RATE_MAX, h = 0; i; i = path_rate_prev((uint8_t)i), h++)
		;
	CU_ASSERT_EQUAL(h, 23);
	/* lifetime: switch_life + ceil(log2(hops)), monotone, capped */
	CU_ASSERT_EQUAL(path_pkt_life(18, 0), 18);
	CU_ASSERT_EQUAL(path_pkt_life(18, 1), 18);
	CU_ASSERT_EQUAL(path_pkt_life(18, 2), 19);
	CU_ASSERT_EQUAL(path_pkt_life(18, 3), 20);
	CU_ASSERT_EQUAL(path_pkt_life(18, 4), 20);
	CU_ASSERT_EQUAL(path_pkt_life(18, 5), 21);
	CU_ASSERT_EQUAL(path_pkt_life(18, 64), 24);
	CU_ASSERT_EQUAL(path_pkt_life(60, 64), 63);
	for (h = 0, last = 0; h <= 255; h++) {
		CU_ASSERT(path_pkt_life(10, (uint8_t)h) >= last);
		last = path_pkt_life(10, (uint8_t)h);
	}
}

static void test_fat_trees(void)
{
	run(topogen_fat_tree(2, 4, 0, 0), 0, "ftree", "ft2 k4");
	run(topogen_fat_tree(2, 8, 0, 0), 0, "ftree", "ft2 k8");
	run(topogen_fat_tree(3, 6, 0, 0), 0, "ftree", "ft3 k6");
	run(topogen_fat_tree(3, 4, 11, TOPOGEN_PARALLEL), 0, "ftree", "ft3 k4 partial parallel");
	run(topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL), 0, "ftree", "ft2 k4 dual");
	run(topogen_fat_tree(3, 4, 0, 0), 0, "minhop", "ft3 k4 minhop");
}

static void test_mesh_random(void)
{
	run(topogen_mesh(4, 4, 2, 0), 0, "dor", "mesh 4x4");
	run(topogen_mesh(5, 3, 1, 0), 0, "dor", "mesh 5x3");
	run(topogen_random(20, 15, 2, 7), 0, "updn", "random 20 updn");
	run(topogen_random(24, 30, 1, 11), 0, "minhop", "random 24 minhop");
	run(topogen_random(16, 10, 2, 3), 0, "dnup", "random 16 dnup");
}

/*
 * dor on tori: SL = routes_path_sl for every pair (run() checks it); on a
 * 5x4 torus only the 5-ring is a ring (4 is a 2x2 mesh), so SL bit 0 is its
 * dateline: SL 1 exactly for the pairs whose walk crosses 4 <-> 0.
 */
static void test_torus(void)
{
	struct snapshot *s;
	const struct fabric *f;
	struct ports ps;
	struct dor_shape sh;
	uint32_t *coord, i, j, crossing = 0, plain = 0;
	unsigned int bad = 0, d, ring = DOR_MAX_DIMS;
	char why[256];
	int k;

	run(topogen_mesh(6, 6, 2, TOPOGEN_TORUS), 0, "dor", "torus 6x6");
	run(topogen_mesh(3, 3, 1, TOPOGEN_TORUS), 0, "dor", "torus 3x3");

	s = publish(load(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0), "dor", "torus 5x4");
	f = s->fabric;
	CU_ASSERT_EQUAL_FATAL(s->routes->n_vls, 2);
	check_all_pairs(s, "torus 5x4");
	coord = calloc((size_t)f->n_nodes * DOR_MAX_DIMS, sizeof(*coord));
	CU_ASSERT_PTR_NOT_NULL_FATAL(coord);
	CU_ASSERT_EQUAL_FATAL(dor_coords(f, &sh, coord, why, sizeof(why)), 0);
	for (d = 0; d < sh.dims; d++)
		if (sh.wrap[d]) {
			CU_ASSERT_EQUAL(ring, DOR_MAX_DIMS); /* one ring only */
			ring = d;
		}
	CU_ASSERT_FATAL(ring < sh.dims);
	ps = ca_ports(f);
	for (i = 0; i < ps.n; i++) {
		for (j = 0; j < ps.n; j++) {
			uint16_t dlid = f->nodes[ps.p[j].node].ports[1].lid;
			struct expect x = expect_path(s, ps.p[i], ps.p[j], dlid);
			struct path_info pi;
			bool crossed = false;

			CU_ASSERT_FATAL(x.hops >= 0);
			/* switch-to-switch links: coordinate size-1 <-> 0 on the ring */
			for (k = 0; k < x.n_links; k++) {
				const struct checker_hop *h = &x.links[k];
				uint32_t nx = f->nodes[h->node].ports[h->port].remote_node;
				uint32_t c0, c1;

				if (!node_is_switch(&f->nodes[h->node]) ||
				    !node_is_switch(&f->nodes[nx]))
					continue;
				c0 = coord[(size_t)h->node * DOR_MAX_DIMS + ring];
				c1 = coord[(size_t)nx * DOR_MAX_DIMS + ring];
				if ((c0 == sh.size[ring] - 1 && c1 == 0) ||
				    (c0 == 0 && c1 == sh.size[ring] - 1))
					crossed = true;
			}
			CU_ASSERT_EQUAL_FATAL(path_compute(s, NULL, &ps.p[i], &ps.p[j], &pi), 0);
			if (pi.sl != (crossed ? 1 : 0))
				bad++;
			crossing += crossed;
			plain += !crossed;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(crossing > 0);
	CU_ASSERT(plain > 0);
	free(ps.p);
	free(coord);
	snapshot_free(s);
}

/* Both ends of the link on (desc, port). */
static void link_ends(struct fabric *f, const char *desc, uint8_t port, struct port **a,
		      struct port **b)
{
	uint32_t i = testutil_find_desc(f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	*a = &f->nodes[i].ports[port];
	CU_ASSERT_FATAL(port_is_linked(*a));
	*b = &f->nodes[(*a)->remote_node].ports[(*a)->remote_port];
}

/* Port of switch desc that links to node rdesc. */
static uint8_t port_to(const struct fabric *f, const char *desc, const char *rdesc)
{
	uint32_t i = testutil_find_desc(f, desc), r = testutil_find_desc(f, rdesc);
	unsigned int p;

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE && r != FABRIC_NO_NODE);
	for (p = 1; p <= f->nodes[i].nports; p++)
		if (f->nodes[i].ports[p].remote_node == r)
			return (uint8_t)p;
	CU_FAIL_FATAL("no such link");
	return 0;
}

/* Does x cross the link (node, port) in either direction? */
static bool crosses(const struct fabric *f, const struct expect *x, uint32_t node, uint8_t port)
{
	const struct port *p = &f->nodes[node].ports[port];
	int k;

	for (k = 0; k < x->n_links; k++)
		if ((x->links[k].node == node && x->links[k].port == port) ||
		    (x->links[k].node == p->remote_node && x->links[k].port == p->remote_port))
			return true;
	return false;
}

/*
 * ft2 k4 with a 1x leaf-spine link (2.5 Gb/s), a leaf-spine link with one
 * end's MTUCap 512, and one CA whose link has NeighborMTU 1024 set on both
 * ends; everything else 4x SDR (10 Gb/s), MTUCap 2048.
 */
static struct snapshot *slow_fabric(void)
{
	struct fabric *f = load(topogen_fat_tree(2, 4, 0, 0), 0);
	struct port *a, *b;
	uint32_t i;
	unsigned int p;

	link_ends(f, "sw-L1-0", port_to(f, "sw-L1-0", "sw-L2-0"), &a, &b);
	a->width_active = b->width_active = 1;
	link_ends(f, "sw-L1-1", port_to(f, "sw-L1-1", "sw-L2-1"), &a, &b);
	b->mtu_cap = PATH_MTU_512;
	link_ends(f, "ca-7", 1, &a, &b);
	a->neighbor_mtu = b->neighbor_mtu = PATH_MTU_1024;
	/* NeighborMTU as the SM programs it (the min of MTUCaps) on every
	 * other link, but none (never read) on ca-6's: no difference */
	for (i = 0; i < f->n_nodes; i++) {
		for (p = 1; p <= f->nodes[i].nports; p++) {
			struct port *x = &f->nodes[i].ports[p], *y;

			if (!port_is_linked(x) || x->neighbor_mtu)
				continue;
			y = &f->nodes[x->remote_node].ports[x->remote_port];
			x->neighbor_mtu = x->mtu_cap < y->mtu_cap ? x->mtu_cap : y->mtu_cap;
		}
	}
	link_ends(f, "ca-6", 1, &a, &b);
	a->neighbor_mtu = b->neighbor_mtu = 0;
	return publish(f, "ftree", "slow ft2 k4");
}

static void test_minima(void)
{
	struct snapshot *s = slow_fabric();
	const struct fabric *f = s->fabric;
	struct ports ps = ca_ports(f);
	uint32_t l0 = testutil_find_desc(f, "sw-L1-0"), l1 = testutil_find_desc(f, "sw-L1-1");
	uint32_t ca7 = testutil_find_desc(f, "ca-7");
	uint8_t slow = port_to(f, "sw-L1-0", "sw-L2-0"), narrow = port_to(f, "sw-L1-1", "sw-L2-1");
	unsigned int n_slow = 0, n_fast = 0, n_narrow = 0, n_wide = 0, n_ca7 = 0, bad = 0;
	uint32_t i, j;

	check_all_pairs(s, "slow ft2 k4");
	for (i = 0; i < ps.n; i++) {
		for (j = 0; j < ps.n; j++) {
			uint16_t dlid = f->nodes[ps.p[j].node].ports[1].lid;
			struct expect x;
			struct path_info pi;
			bool is_slow, is_narrow, is_ca7;

			if (i == j)
				continue;
			x = expect_path(s, ps.p[i], ps.p[j], dlid);
			CU_ASSERT_EQUAL_FATAL(path_compute(s, NULL, &ps.p[i], &ps.p[j], &pi), 0);
			is_slow = crosses(f, &x, l0, slow);
			is_narrow = crosses(f, &x, l1, narrow);
			is_ca7 = ps.p[i].node == ca7 || ps.p[j].node == ca7;
			if (pi.rate != (is_slow ? PATH_RATE_2_5 : PATH_RATE_10))
				bad++;
			if (pi.mtu != (is_narrow ? PATH_MTU_512
				       : is_ca7	 ? PATH_MTU_1024
						 : PATH_MTU_2048))
				bad++;
			n_slow += is_slow;
			n_fast += !is_slow;
			n_narrow += is_narrow;
			n_wide += !is_narrow && !is_ca7;
			n_ca7 += is_ca7 && !is_narrow;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(n_slow > 0 && n_fast > 0 && n_narrow > 0 && n_wide > 0 && n_ca7 > 0);
	free(ps.p);
	snapshot_free(s);
}

/*
 * Today's links (issue 22): ft2 k4 with every link 4x HDR (200 Gb/s) as
 * discovery records it (lane_speed from the extended fields; LinkSpeedActive
 * reads QDR, as ibsim's ports answer) and MTUCap 4096, but a leaf-spine
 * link 4x EDR (100 Gb/s) and ca-2's link 1x HDR (50 Gb/s): a path's rate is
 * the slowest of its links, its MTU 4096.
 */
static void test_ext_speeds(void)
{
	struct fabric *f = load(topogen_fat_tree(2, 4, 0, 0), 0);
	struct snapshot *s;
	struct ports ps;
	struct port *a, *b;
	uint32_t l0, ca2;
	uint8_t edr;
	unsigned int n[3] = {0}, bad = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		for (unsigned p = 0; p <= f->nodes[i].nports; p++) {
			struct port *x = &f->nodes[i].ports[p];

			x->speed_active = 4;
			x->lane_speed = SPEED_HDR;
			x->mtu_cap = PATH_MTU_4096;
		}
	}
	link_ends(f, "sw-L1-0", port_to(f, "sw-L1-0", "sw-L2-0"), &a, &b);
	a->lane_speed = b->lane_speed = SPEED_EDR;
	link_ends(f, "ca-2", 1, &a, &b);
	a->width_active = b->width_active = 1;
	s = publish(f, "ftree", "HDR ft2 k4");
	f = s->fabric;
	ps = ca_ports(f);
	l0 = testutil_find_desc(f, "sw-L1-0");
	ca2 = testutil_find_desc(f, "ca-2");
	edr = port_to(f, "sw-L1-0", "sw-L2-0");
	for (uint32_t i = 0; i < ps.n; i++) {
		for (uint32_t j = 0; j < ps.n; j++) {
			uint16_t dlid = f->nodes[ps.p[j].node].ports[1].lid;
			struct expect x;
			struct path_info pi;
			int k;

			if (i == j)
				continue;
			x = expect_path(s, ps.p[i], ps.p[j], dlid);
			CU_ASSERT_EQUAL_FATAL(path_compute(s, NULL, &ps.p[i], &ps.p[j], &pi), 0);
			k = ps.p[i].node == ca2 || ps.p[j].node == ca2 ? 0
			    : crosses(f, &x, l0, edr)		       ? 1
								       : 2;
			n[k]++;
			bad += pi.rate != (k == 0 ? 20 : k == 1 ? 16 : 17);
			bad += pi.mtu != PATH_MTU_4096;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(n[0] > 0 && n[1] > 0 && n[2] > 0);
	/* the old encoding of the classic fields alone: what the SA answered before */
	CU_ASSERT_EQUAL(path_rate(2, 4), PATH_RATE_40);
	free(ps.p);
	snapshot_free(s);
}

/* Field by field (the struct has padding). */
static bool same_info(const struct path_info *a, const struct path_info *b)
{
	return a->src_node == b->src_node && a->dst_node == b->dst_node &&
	       a->src_port == b->src_port && a->dst_port == b->dst_port && a->slid == b->slid &&
	       a->dlid == b->dlid && a->hops == b->hops && a->mtu == b->mtu && a->rate == b->rate &&
	       a->sl == b->sl && a->pkt_life == b->pkt_life && a->preference == b->preference &&
	       a->reversible == b->reversible && a->reverse_sl == b->reverse_sl &&
	       a->n_paths == b->n_paths;
}

/* All of q in one go: the records (malloc'd) and their number. */
static struct path_info *enum_all(const struct snapshot *s, const struct path_query *q,
				  uint32_t *ret_n)
{
	struct path_enum e;
	uint32_t cap = 64, n = 0;
	struct path_info *out = malloc(cap * sizeof(*out));

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL_FATAL(path_enum_init(&e, s, NULL, q), 0);
	while (!path_enum_done(&e)) {
		int got;

		if (cap - n < 1000) {
			while (cap - n < 1000)
				cap *= 2;
			out = realloc(out, cap * sizeof(*out));
			CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		}
		got = path_enum_next(&e, out + n, 1000, 100000);
		CU_ASSERT_FATAL(got >= 0);
		n += (uint32_t)got;
	}
	*ret_n = n;
	return out;
}

/* lmc 2: 4 SLIDs x 4 DLIDs per pair, in OpenSM's order. */
static void test_lmc(void)
{
	static const uint8_t order[16][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 1}, {0, 2},
					     {0, 3}, {1, 0}, {1, 2}, {1, 3}, {2, 0}, {2, 1},
					     {2, 3}, {3, 0}, {3, 1}, {3, 2}};
	struct snapshot *s =
	    publish(load(topogen_fat_tree(2, 4, 0, 0), 2), "ftree", "ft2 k4 lmc 2");
	const struct fabric *f = s->fabric;
	struct path_port a = port_of(f, "ca-0", 1), b = port_of(f, "ca-5", 1);
	uint16_t sb = f->nodes[a.node].ports[1].lid, db = f->nodes[b.node].ports[1].lid;
	struct path_query q = {.src = &a, .n_src = 1, .dst = &b, .n_dst = 1};
	struct path_info *r;
	unsigned int bad = 0;
	uint32_t n, k, i, j;

	CU_ASSERT_EQUAL(f->nodes[a.node].ports[1].lmc, 2);
	check_all_pairs(s, "ft2 k4 lmc 2");
	r = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL_FATAL(n, 16);
	for (k = 0; k < 16; k++) {
		CU_ASSERT_EQUAL(r[k].slid, sb + order[k][0]);
		CU_ASSERT_EQUAL(r[k].dlid, db + order[k][1]);
		CU_ASSERT_EQUAL(r[k].preference, k < 4 ? 0 : 2);
		CU_ASSERT_EQUAL(r[k].n_paths, 16);
	}
	free(r);
	/* every SLID x DLID through path_compute, against the walk */
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			struct path_port x = a, y = b;

			x.lid = (uint16_t)(sb + i);
			y.lid = (uint16_t)(db + j);
			check_pair(s, x, y, "lmc pair", &bad);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* NumbPath 6: the first 6 */
	q.numb_path = 6;
	r = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 6);
	for (k = 0; k < n; k++)
		CU_ASSERT(r[k].slid == sb + order[k][0] && r[k].dlid == db + order[k][1]);
	free(r);
	/* a fixed SLID: its 4 DLIDs in order */
	q.numb_path = 0;
	a.lid = (uint16_t)(sb + 2);
	r = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	for (k = 0; k < 4; k++)
		CU_ASSERT(r[k].slid == sb + 2 && r[k].dlid == db + k && r[k].n_paths == 16);
	free(r);
	/* a LID alone names its port */
	a = (struct path_port){FABRIC_NO_NODE, 0, (uint16_t)(sb + 3)};
	b = (struct path_port){FABRIC_NO_NODE, 0, (uint16_t)(db + 1)};
	r = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT(r[0].slid == sb + 3 && r[0].dlid == db + 1);
	CU_ASSERT_STRING_EQUAL(f->nodes[r[0].src_node].desc, "ca-0");
	free(r);
	/* the self pair: 16 loopback paths */
	a = b = port_of(f, "ca-3", 1);
	r = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 16);
	for (k = 0; k < n; k++)
		CU_ASSERT(r[k].hops == 0 && r[k].pkt_life == 0 && r[k].reversible);
	free(r);
	/* an SLID outside the range */
	a.lid = (uint16_t)(f->nodes[a.node].ports[1].lid + 4);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &(struct path_info){0}), -EADDRNOTAVAIL);
	snapshot_free(s);
}

/* A 3x1 line of switches, 2 hosts each (ca-0/1 on sw-0-0, ca-4/5 on sw-2-0). */
static void test_broken(void)
{
	struct snapshot *s = publish(load(topogen_mesh(3, 1, 2, 0), 0), "minhop", "line");
	struct fabric *f = s->fabric;
	struct routes *r = s->routes;
	struct path_port a = port_of(f, "ca-0", 1), b = port_of(f, "ca-4", 1);
	uint32_t s0 = testutil_find_desc(f, "sw-0-0"), s1 = testutil_find_desc(f, "sw-1-0");
	uint32_t s2 = testutil_find_desc(f, "sw-2-0");
	uint16_t la = f->nodes[a.node].ports[1].lid, lb = f->nodes[b.node].ports[1].lid;
	uint8_t keep, to_s0 = port_to(f, "sw-1-0", "sw-0-0"), free_port = 0;
	struct path_query q = {.src = &a, .n_src = 1, .dst = &b, .n_dst = 1};
	struct path_info pi, *res;
	uint32_t n;
	unsigned int p;

	CU_ASSERT_EQUAL_FATAL(path_compute(s, NULL, &a, &b, &pi), 0);
	CU_ASSERT_EQUAL(pi.hops, 3);
	CU_ASSERT(pi.reversible);
	CU_ASSERT_EQUAL(pi.pkt_life, PATH_DEFAULT_SWITCH_LIFE + 2);
	for (p = 1; p <= f->nodes[s1].nports; p++)
		if (!port_is_linked(&f->nodes[s1].ports[p]))
			free_port = (uint8_t)p;
	CU_ASSERT_FATAL(free_port != 0);

	keep = r->lft[s1][lb];
	/* an entry to a port with no cable */
	r->lft[s1][lb] = free_port;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	/* beyond the switch's ports, or no entry */
	r->lft[s1][lb] = (uint8_t)(f->nodes[s1].nports + 1);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	r->lft[s1][lb] = LFT_NO_PORT;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	/* delivered to sw-1-0 itself */
	r->lft[s1][lb] = 0;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	/* a loop: back to sw-0-0, which sends it here again */
	r->lft[s1][lb] = to_s0;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	r->lft[s1][lb] = keep;
	/* the wrong end: sw-2-0 hands ca-4's LID to ca-5 */
	keep = r->lft[s2][lb];
	r->lft[s2][lb] = port_to(f, "sw-2-0", "ca-5");
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	r->lft[s2][lb] = keep;
	/* a link that is not active */
	f->nodes[s1].ports[to_s0].state = PORT_ARMED;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	f->nodes[s1].ports[to_s0].state = PORT_ACTIVE;
	f->nodes[a.node].ports[1].state = PORT_DOWN;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -ENETUNREACH);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &a, &pi), -ENETUNREACH);
	f->nodes[a.node].ports[1].state = PORT_ACTIVE;
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), 0);

	/* only the way back broken: a path, not reversible */
	keep = r->lft[s0][la];
	r->lft[s0][la] = LFT_NO_PORT;
	CU_ASSERT_EQUAL_FATAL(path_compute(s, NULL, &a, &b, &pi), 0);
	CU_ASSERT(!pi.reversible);
	res = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 1);
	free(res);
	q.reversible = true;
	res = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 0);
	free(res);
	r->lft[s0][la] = keep;
	res = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 1);
	free(res);

	/* bad ends */
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){a.node, 0, 0}, &b, &pi), -EINVAL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){a.node, 2, 0}, &b, &pi), -EINVAL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){s1, 1, 0}, &b, &pi), -EINVAL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){f->n_nodes, 1, 0}, &b, &pi),
			-EINVAL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){FABRIC_NO_NODE, 0, 0}, &b, &pi),
			-EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &(struct path_port){FABRIC_NO_NODE, 0, 999}, &b, &pi),
			-EADDRNOTAVAIL);
	snapshot_free(s);
}

/* A port without a LID has no path, either way; "every port" passes it over. */
static void test_no_lid(void)
{
	struct fabric *f = load(topogen_fat_tree(2, 4, 0, 0), 0);
	struct snapshot *s;
	struct path_port a, b;
	struct path_query q = {0};
	struct path_info pi, *res;
	uint32_t n, k, with_lid = 0, i;

	a = port_of(f, "ca-0", 1);
	b = port_of(f, "ca-2", 1);
	f->nodes[b.node].ports[1].lid = 0;
	s = publish(f, "ftree", "ft2 k4, ca-2 without LID");
	CU_ASSERT_EQUAL(path_compute(s, NULL, &a, &b, &pi), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &b, &a, &pi), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(path_compute(s, NULL, &b, &b, &pi), -EADDRNOTAVAIL);
	/* every port to every port: all pairs of ports with a LID, self paths included */
	for (i = 0; i < f->n_nodes; i++)
		with_lid += node_is_switch(&f->nodes[i]) ? !!f->nodes[i].ports[0].lid
							 : !!f->nodes[i].ports[1].lid;
	res = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, with_lid * with_lid);
	for (k = 0; k < n; k++) {
		CU_ASSERT(res[k].src_node != b.node && res[k].dst_node != b.node);
		if (res[k].src_node == res[k].dst_node)
			CU_ASSERT(res[k].hops == 0 && res[k].pkt_life == 0);
		/* LID order, source major */
		if (k)
			CU_ASSERT(
			    res[k].slid > res[k - 1].slid ||
			    (res[k].slid == res[k - 1].slid && res[k].dlid > res[k - 1].dlid));
	}
	free(res);
	/* a list naming it yields nothing, the others still */
	q.src = &a;
	q.n_src = 1;
	q.dst = (struct path_port[]){b, a};
	q.n_dst = 2;
	res = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, 1);
	free(res);
	snapshot_free(s);
}

/* Baseline records of every CA pair, and the same query with one constraint. */
static void check_selector(const struct snapshot *s, const struct path_info *base, uint32_t n_base,
			   struct path_query q, bool (*want)(struct path_info *p), const char *what)
{
	struct path_info *r;
	uint32_t n, k, m = 0;
	unsigned int bad = 0;

	r = enum_all(s, &q, &n);
	for (k = 0; k < n_base; k++) {
		struct path_info w = base[k];

		if (!want(&w))
			continue;
		if (m >= n || !same_info(&r[m], &w))
			bad++;
		m++;
	}
	if (bad || m != n)
		fprintf(stderr, "\n%s: %u records, %u wanted, %u differ\n", what, n, m, bad);
	CU_ASSERT(bad == 0 && m == n);
	free(r);
}

static bool want_mtu_gt3(struct path_info *p)
{
	return p->mtu > PATH_MTU_1024;
}
static bool want_mtu_lt4(struct path_info *p)
{
	if (p->mtu >= PATH_MTU_2048)
		p->mtu = PATH_MTU_1024;
	return true;
}
static bool want_mtu_eq3(struct path_info *p)
{
	if (p->mtu < PATH_MTU_1024)
		return false;
	p->mtu = PATH_MTU_1024;
	return true;
}
static bool want_all(struct path_info *p)
{
	(void)p;
	return true;
}
static bool want_none(struct path_info *p)
{
	(void)p;
	return false;
}
static bool want_rate_gt2(struct path_info *p)
{
	return p->rate == PATH_RATE_10;
}
static bool want_rate_lt3(struct path_info *p)
{
	if (p->rate == PATH_RATE_10)
		p->rate = PATH_RATE_5;
	return true;
}
static bool want_rate_eq2(struct path_info *p)
{
	return p->rate == PATH_RATE_2_5;
}
static bool want_sl5(struct path_info *p)
{
	p->sl = p->reverse_sl = 5;
	return true;
}
static bool want_life_lt19(struct path_info *p)
{
	return p->pkt_life < 19;
}
static bool want_life_gt20(struct path_info *p)
{
	if (p->pkt_life <= 20)
		p->pkt_life = 21;
	return true;
}
static bool want_life_eq19(struct path_info *p)
{
	if (p->pkt_life > 19)
		return false;
	p->pkt_life = 19;
	return true;
}

static void test_selectors(void)
{
	struct snapshot *s = slow_fabric();
	struct ports ps = ca_ports(s->fabric);
	struct path_query q = {.src = ps.p, .n_src = ps.n, .dst = ps.p, .n_dst = ps.n};
	struct path_query t;
	struct path_info *base;
	struct path_enum e;
	uint32_t n, k, mtus[6] = {0};

	base = enum_all(s, &q, &n);
	CU_ASSERT_EQUAL(n, ps.n * ps.n);
	for (k = 0; k < n; k++)
		mtus[base[k].mtu < 6 ? base[k].mtu : 0]++;
	CU_ASSERT(mtus[PATH_MTU_512] && mtus[PATH_MTU_1024] && mtus[PATH_MTU_2048]);

#define SEL(field, s_, v_) (t = q, t.field = (struct path_limit){true, (s_), (v_)}, t)
	check_selector(s, base, n, SEL(mtu, PATH_SEL_GT, PATH_MTU_1024), want_mtu_gt3,
		       "mtu > 1024");
	check_selector(s, base, n, SEL(mtu, PATH_SEL_LT, PATH_MTU_2048), want_mtu_lt4,
		       "mtu < 2048");
	check_selector(s, base, n, SEL(mtu, PATH_SEL_EQ, PATH_MTU_1024), want_mtu_eq3,
		       "mtu = 1024");
	check_selector(s, base, n, SEL(mtu, PATH_SEL_BEST, 0), want_all, "mtu largest");
	check_selector(s, base, n, SEL(mtu, PATH_SEL_LT, PATH_MTU_256), want_none, "mtu < 256");
	check_selector(s, base, n, SEL(mtu, PATH_SEL_GT, PATH_MTU_4096), want_none, "mtu > 4096");
	check_selector(s, base, n, SEL(rate, PATH_SEL_GT, PATH_RATE_2_5), want_rate_gt2,
		       "rate > 2.5");
	check_selector(s, base, n, SEL(rate, PATH_SEL_LT, PATH_RATE_10), want_rate_lt3,
		       "rate < 10");
	check_selector(s, base, n, SEL(rate, PATH_SEL_EQ, PATH_RATE_2_5), want_rate_eq2,
		       "rate = 2.5");
	check_selector(s, base, n, SEL(rate, PATH_SEL_LT, PATH_RATE_2_5), want_none, "rate < 2.5");
	check_selector(s, base, n, SEL(rate, PATH_SEL_GT, PATH_RATE_10), want_none, "rate > 10");
	check_selector(s, base, n, SEL(rate, PATH_SEL_BEST, 0), want_all, "rate largest");
	check_selector(s, base, n, SEL(pkt_life, PATH_SEL_LT, 19), want_life_lt19, "life < 19");
	check_selector(s, base, n, SEL(pkt_life, PATH_SEL_GT, 20), want_life_gt20, "life > 20");
	check_selector(s, base, n, SEL(pkt_life, PATH_SEL_EQ, 19), want_life_eq19, "life = 19");
	t = q;
	t.sl_set = true;
	t.sl = 5;
	check_selector(s, base, n, t, want_sl5, "sl 5, single VL");
#undef SEL
	/* queries that can match nothing meaningful */
	t = q;
	t.mtu = (struct path_limit){true, 4, PATH_MTU_1024};
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t.mtu = (struct path_limit){true, PATH_SEL_EQ, 6};
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t.mtu = (struct path_limit){true, PATH_SEL_EQ, 0};
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t = q;
	t.rate = (struct path_limit){true, PATH_SEL_EQ, 1};
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t = q;
	t.pkt_life = (struct path_limit){true, PATH_SEL_EQ, 64};
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t = q;
	t.sl_set = true;
	t.sl = 16;
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	t = q;
	t.src = NULL;
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &t), -EINVAL);
	CU_ASSERT_EQUAL(path_enum_init(&e, s, NULL, &q), 0);
	CU_ASSERT_EQUAL(path_enum_next(&e, base, 0, 10), -EINVAL);
	CU_ASSERT_EQUAL(path_enum_next(&e, base, 10, 0), -EINVAL);
	free(base);
	free(ps.p);
	snapshot_free(s);

	/* a multi-VL engine: an SL is granted only where it is the engine's */
	s = publish(load(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0), "dor", "torus 5x4");
	ps = ca_ports(s->fabric);
	q = (struct path_query){.src = ps.p, .n_src = ps.n, .dst = ps.p, .n_dst = ps.n};
	base = enum_all(s, &q, &n);
	{
		struct path_info *r;
		uint32_t m, n1 = 0, j = 0;
		unsigned int bad = 0;

		for (k = 0; k < n; k++)
			n1 += base[k].sl == 1;
		CU_ASSERT(n1 > 0 && n1 < n);
		q.sl_set = true;
		q.sl = 1;
		r = enum_all(s, &q, &m);
		CU_ASSERT_EQUAL(m, n1);
		for (k = 0; k < n; k++)
			if (base[k].sl == 1 && (j >= m || !same_info(&r[j++], &base[k])))
				bad++;
		CU_ASSERT_EQUAL(bad, 0);
		free(r);
		q.sl = 2;
		r = enum_all(s, &q, &m);
		CU_ASSERT_EQUAL(m, 0);
		free(r);
	}
	free(base);
	free(ps.p);
	snapshot_free(s);
}

/* Small pages and budgets give the same records as one big call. */
static void test_paging(void)
{
	struct snapshot *s =
	    publish(load(topogen_fat_tree(2, 4, 0, 0), 1), "ftree", "ft2 k4 lmc 1");
	struct path_query q = {.numb_path = 3};
	struct path_info *all, page[7];
	struct path_enum e;
	uint32_t n, got = 0, calls = 0;
	unsigned int bad = 0;

	all = enum_all(s, &q, &n);
	CU_ASSERT(n > 100);
	CU_ASSERT_EQUAL_FATAL(path_enum_init(&e, s, NULL, &q), 0);
	while (!path_enum_done(&e)) {
		uint64_t walks = e.walks;
		int k, c = path_enum_next(&e, page, 7, 5);

		CU_ASSERT_FATAL(c >= 0 && c <= 5);
		CU_ASSERT(e.walks - walks <= 5);
		for (k = 0; k < c; k++)
			if (got + (uint32_t)k >= n || !same_info(&page[k], &all[got + k]))
				bad++;
		got += (uint32_t)c;
		calls++;
		CU_ASSERT_FATAL(calls < 100000);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(got, n);
	/* a budget of 1 computes at most one path a call */
	CU_ASSERT_EQUAL_FATAL(path_enum_init(&e, s, NULL, &q), 0);
	for (got = 0; !path_enum_done(&e);) {
		uint64_t walks = e.walks;
		int c = path_enum_next(&e, page, 7, 1);

		CU_ASSERT(c >= 0 && c <= 1 && e.walks - walks <= 1);
		got += (uint32_t)c;
	}
	CU_ASSERT_EQUAL(got, n);
	CU_ASSERT_EQUAL(path_enum_next(&e, page, 7, 5), 0);
	free(all);
	snapshot_free(s);
}

/* Records by GUIDs, so two fabrics in different node orders compare. */
static void compare_shuffled(char *text, uint8_t lmc, const char *engine, const char *what)
{
	char *shuffled = topogen_shuffle(text, 5);
	struct snapshot *a, *b;
	struct path_query q = {0};
	struct path_info *ra, *rb;
	uint32_t na, nb, k;
	unsigned int bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(shuffled);
	CU_ASSERT_NOT_EQUAL(strcmp(shuffled, text), 0);
	a = publish(load(text, lmc), engine, what);
	b = publish(load(shuffled, lmc), engine, what);
	ra = enum_all(a, &q, &na);
	rb = enum_all(b, &q, &nb);
	CU_ASSERT_EQUAL_FATAL(na, nb);
	CU_ASSERT(na > 0);
	for (k = 0; k < na; k++) {
		struct path_info x = ra[k], y = rb[k];

		if (a->fabric->nodes[x.src_node].guid != b->fabric->nodes[y.src_node].guid ||
		    a->fabric->nodes[x.dst_node].guid != b->fabric->nodes[y.dst_node].guid)
			bad++;
		x.src_node = x.dst_node = y.src_node = y.dst_node = 0;
		if (!same_info(&x, &y))
			bad++;
	}
	if (bad)
		fprintf(stderr, "\n%s: %u differences\n", what, bad);
	CU_ASSERT_EQUAL(bad, 0);
	free(ra);
	free(rb);
	snapshot_free(a);
	snapshot_free(b);
}

static void test_determinism(void)
{
	compare_shuffled(topogen_fat_tree(2, 4, 0, 0), 1, "ftree", "ft2 k4 lmc 1");
	compare_shuffled(topogen_mesh(5, 4, 1, TOPOGEN_TORUS), 0, "dor", "torus 5x4");
	compare_shuffled(topogen_random(12, 8, 1, 21), 0, "minhop", "random 12");
}

/*
 * 1000 paths between random CA pairs of a 10,000-node fat tree, and a page
 * of a GetTable over every pair (how fast: bench/ibsmd-micro path).
 */
static void test_large(void)
{
	struct snapshot *s = publish(load(topogen_fat_tree(3, 34, 0, 0), 0), "minhop", "ft3 k34");
	struct ports ps = ca_ports(s->fabric);
	struct path_port(*pairs)[2] = malloc(1000 * sizeof(*pairs));
	struct path_info pi, page[1000];
	struct path_query q = {0};
	struct path_enum e;
	uint32_t seed = 12345, k, ok = 0;
	int got;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pairs);
	CU_ASSERT(s->fabric->n_nodes > 10000);
	for (k = 0; k < 1000; k++) {
		seed = seed * 1103515245u + 12345u;
		pairs[k][0] = ps.p[(seed >> 8) % ps.n];
		seed = seed * 1103515245u + 12345u;
		pairs[k][1] = ps.p[(seed >> 8) % ps.n];
	}
	for (k = 0; k < 1000; k++)
		ok += !path_compute(s, NULL, &pairs[k][0], &pairs[k][1], &pi);
	CU_ASSERT_EQUAL(ok, 1000);
	/* one page of a GetTable over every pair */
	CU_ASSERT_EQUAL_FATAL(path_enum_init(&e, s, NULL, &q), 0);
	got = path_enum_next(&e, page, 1000, 1000);
	CU_ASSERT_EQUAL(got, 1000);
	free(pairs);
	free(ps.p);
	snapshot_free(s);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"rate, MTU and lifetime encodings", test_encodings},
	    {"fat trees: every pair against the walk", test_fat_trees},
	    {"meshes and random fabrics", test_mesh_random},
	    {"tori: dor SLs, dateline pairs SL 1", test_torus},
	    {"MTU and rate minima", test_minima},
	    {"extended speeds: HDR, EDR and 1x links, MTU 4096", test_ext_speeds},
	    {"LMC 2: 4 x 4 pairs in OpenSM's order", test_lmc},
	    {"broken tables and links: no path", test_broken},
	    {"a port without a LID", test_no_lid},
	    {"selectors", test_selectors},
	    {"paging and budgets", test_paging},
	    {"shuffled order, same records", test_determinism},
	    {"ft3 k34: 1000 random paths, a page of the walk", test_large},
	    {NULL, NULL},
	};

	return testutil_run("path", cases);
}

/*
 * Unit tests of routing/repair.c: after a leaf uplink, a middle uplink, a
 * spine switch or a host is lost from a 3-level fat tree routed by ftree,
 * the repaired tables are complete and loop-free (the checker), what CAs
 * send is free of credit loops (the channel dependency graph of CA
 * traffic), no entry leads over a lost link, only the broken entries moved
 * (far fewer than ftree's fresh routes move, few LFT blocks), the busiest
 * port is no busier than ftree's fresh routes make it (plus the drift) and
 * the leaf's surviving uplinks share what the lost one carried evenly; the
 * port counts kept along equal a full count; a host back gets routes to its
 * LID; links, a spine and a leaf with its hosts back are repaired too
 * (additions: every route kept, the new paths added, shorter routes over a
 * link back); a drift bound that cannot be met and too much changed are
 * refused (-EAGAIN: the engine's); minhop on random fabrics stays minimal,
 * also when a link comes back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/lft.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

/* The engine's routes with their port counts, as the SM keeps them. */
static struct routes *route(const struct fabric *f, const char *engine)
{
	struct routes *r = testutil_route(f, engine);
	struct lid_map m;

	CU_ASSERT_EQUAL_FATAL(fabric_lid_map(f, &m), 0);
	CU_ASSERT_EQUAL_FATAL(routes_load_count(r, f, &m), 0);
	fabric_lid_map_clear(&m);
	return r;
}

/* f without the node described desc and its links (pruned: a new fabric). */
static struct fabric *without(const struct fabric *f, const char *desc)
{
	struct fabric *c = fabric_clone(f), *p;
	uint32_t n = testutil_find_desc(c, desc), removed = 0;

	CU_ASSERT_FATAL(n != FABRIC_NO_NODE);
	for (uint8_t port = 1; port <= c->nodes[n].nports; port++)
		fabric_unlink(c, n, port);
	p = fabric_prune(c, &removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(removed, 1);
	fabric_free(c);
	return p;
}

/* f without the node described desc and whatever only it reached (pruned: a new fabric). */
static struct fabric *without_all(const struct fabric *f, const char *desc, uint32_t *ret_removed)
{
	struct fabric *c = fabric_clone(f), *p;
	uint32_t n = testutil_find_desc(c, desc);

	CU_ASSERT_FATAL(n != FABRIC_NO_NODE);
	*ret_removed = 0;
	for (uint8_t port = 1; port <= c->nodes[n].nports; port++)
		fabric_unlink(c, n, port);
	p = fabric_prune(c, ret_removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	fabric_free(c);
	return p;
}

static uint64_t entries_moved(const struct fabric *of, const struct routes * or,
			      const struct fabric *f, const struct routes *r)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		uint32_t o;

		if (!node_is_switch(&f->nodes[i]) || !r->lft[i])
			continue;
		o = fabric_find_guid(of, f->nodes[i].guid);
		for (uint32_t l = 1; l <= r->max_lid; l++)
			n +=
			    (l <= or->max_lid && o != FABRIC_NO_NODE ? or->lft[o][l]
								     : LFT_NO_PORT) != r->lft[i][l];
	}
	return n;
}

/* The port counts the repair kept equal a full count of its tables. */
static void assert_load(const struct fabric *f, struct routes *r)
{
	uint32_t *load = r->load, *at = r->load_at;
	uint64_t unr = r->unreachable;
	struct lid_map m;
	size_t bad = 0;

	r->load = r->load_at = NULL;
	CU_ASSERT_EQUAL_FATAL(fabric_lid_map(f, &m), 0);
	CU_ASSERT_EQUAL_FATAL(routes_load_count(r, f, &m), 0);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		if (r->load_at[i] == UINT32_MAX)
			continue;
		for (unsigned p = 0; p <= f->nodes[i].nports; p++)
			bad += r->load[r->load_at[i] + p] != load[at[i] + p];
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(unr, r->unreachable);
	fabric_lid_map_clear(&m);
	free(load);
	free(at);
}

/* No entry of r leads over a port that is not linked in f (LFT_NO_PORT and 0 aside). */
static void assert_no_dead_port(const struct fabric *f, const struct routes *r)
{
	size_t bad = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		if (!node_is_switch(n) || !r->lft[i])
			continue;
		for (uint32_t l = 1; l <= r->max_lid; l++) {
			uint8_t e = r->lft[i][l];

			bad += e && e != LFT_NO_PORT &&
			       (e > n->nports || !port_is_linked(&n->ports[e]));
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * old routes on of, then f changed: repair, and check what came out.  idle:
 * a switch back carries no traffic yet (routing/repair.h): the busiest port
 * is the repair's, which leaves its ports out, not routing_stats'.
 */
static struct routes *repair_and_check_ex(const struct fabric *of, const struct routes * or,
					  const struct fabric *f, const char *engine, bool updown,
					  const char *what, double min_ratio, double max_blocks,
					  bool idle)
{
	struct routes *fresh = route(f, engine), *r = NULL;
	struct repair_stats st;
	struct routing_stats rs_fresh, rs;
	uint64_t total, blocks, fresh_moved, moved;
	char msg[256];
	int rc = routes_repair(of, or, f, updown, 0.25, 100, NULL, &r, &st);

	if (rc)
		fprintf(stderr, "\n%s: %s\n", what, st.why);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	checker_assert_sound(f, r, updown ? 0 : CHECKER_MINIMAL, what);
	if (updown) {
		int c = checker_cdg_acyclic_cas(f, r, NULL, msg, sizeof(msg));

		if (c)
			fprintf(stderr, "\n%s: %s\n", what, msg);
		CU_ASSERT_EQUAL(c, 0);
	}
	assert_no_dead_port(f, r);
	assert_load(f, r);
	blocks = testutil_blocks_changed(of, or, f, r, &total);
	moved = entries_moved(of, or, f, r);
	fresh_moved = entries_moved(of, or, f, fresh);
	CU_ASSERT_EQUAL(moved, st.moved);
	routing_stats(f, fresh, &rs_fresh);
	routing_stats(f, r, &rs);
	printf("\n    %s: %u LIDs (%u hop by hop, %u by distances, %u gone), entries moved "
	       "%llu (fresh %llu), blocks %llu of %llu, busiest port %u (fresh %u, before %u) ",
	       what, st.lids, st.lids_local, st.lids_distance, st.lids_gone,
	       (unsigned long long)moved, (unsigned long long)fresh_moved,
	       (unsigned long long)blocks, (unsigned long long)total, st.max_port,
	       rs_fresh.max_routes_per_port, st.max_port_before);
	CU_ASSERT(moved * min_ratio <= fresh_moved);
	CU_ASSERT(blocks <= max_blocks * total);
	CU_ASSERT((idle ? st.max_port : rs.max_routes_per_port) <=
		  rs_fresh.max_routes_per_port * 1.25);
	CU_ASSERT_EQUAL(rs.unreachable, 0);
	routes_free(fresh);
	return r;
}

static struct routes *repair_and_check(const struct fabric *of, const struct routes * or,
				       const struct fabric *f, const char *engine, bool updown,
				       const char *what, double min_ratio, double max_blocks)
{
	return repair_and_check_ex(of, or, f, engine, updown, what, min_ratio, max_blocks, false);
}

/* The LIDs routed out of the up ports of leaf desc differ by at most spread. */
static void assert_uplinks_even(const struct fabric *f, const struct routes *r, const char *desc,
				uint32_t spread)
{
	uint32_t n = testutil_find_desc(f, desc), lo = UINT32_MAX, hi = 0;
	const struct node *nd = &f->nodes[n];

	for (unsigned p = 1; p <= nd->nports; p++) {
		uint32_t c;

		if (!port_is_linked(&nd->ports[p]) ||
		    !node_is_switch(&f->nodes[nd->ports[p].remote_node]))
			continue;
		c = r->load[r->load_at[n] + p];
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	printf("(%s uplinks carry %u..%u LIDs) ", desc, lo, hi);
	CU_ASSERT(hi - lo <= spread);
}

static void test_fat_tree_8(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text),
		      *f3 = testutil_load_lids(text), *f2, *f4;
	struct routes *r0 = route(f0, "ftree"), *r;
	uint32_t ca;

	/* one leaf uplink */
	testutil_cut(f1, "sw-L1-0", 5);
	r = repair_and_check(f0, r0, f1, "ftree", true, "k=8, leaf uplink lost", 10, 0.3);
	assert_uplinks_even(f1, r, "sw-L1-0", 2);
	routes_free(r);
	/* a spine switch with all its links */
	f2 = without(f0, "sw-L3-0");
	r = repair_and_check(f0, r0, f2, "ftree", true, "k=8, spine lost", 3, 0.35);
	routes_free(r);
	/* a middle switch's uplink */
	testutil_cut(f3, "sw-L2-0", 5);
	r = repair_and_check(f0, r0, f3, "ftree", true, "k=8, middle uplink lost", 5, 0.3);
	routes_free(r);
	/* a host: its LID is routed nowhere; back: routed everywhere again */
	ca = testutil_find_desc(f0, "ca-5");
	f4 = without(f0, "ca-5");
	r = repair_and_check(f0, r0, f4, "ftree", true, "k=8, host lost", 20, 0.26);
	for (uint32_t i = 0; i < f4->n_nodes; i++)
		if (r->lft[i])
			CU_ASSERT_EQUAL(r->lft[i][f0->nodes[ca].ports[1].lid], LFT_NO_PORT);
	{
		struct routes *back =
		    repair_and_check(f4, r, f0, "ftree", true, "k=8, host back", 1, 0.26);

		routes_free(back);
	}
	routes_free(r);
	/* a switch link back: repaired too now (test_additions) */
	{
		struct repair_stats st;
		struct routes *back = NULL;

		r = route(f1, "ftree");
		CU_ASSERT_EQUAL(routes_repair(f1, r, f0, true, 0.25, 100, NULL, &back, &st), 0);
		CU_ASSERT_PTR_NOT_NULL(back);
		CU_ASSERT_EQUAL(st.links_added, 1);
		routes_free(back);
		routes_free(r);
	}
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	fabric_free(f2);
	fabric_free(f3);
	fabric_free(f4);
	free(text);
}

/* At k=16 (1,024 hosts, 320 switches) one link is a small part of the tables. */
static void test_fat_tree_16(void)
{
	char *text = topogen_fat_tree(3, 16, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text), *f2;
	struct routes *r0 = route(f0, "ftree"), *r;

	testutil_cut(f1, "sw-L1-0", 9);
	r = repair_and_check(f0, r0, f1, "ftree", true, "k=16, leaf uplink lost", 20, 0.05);
	assert_uplinks_even(f1, r, "sw-L1-0", 2);
	routes_free(r);
	f2 = without(f0, "sw-L3-0");
	testutil_copy_lids(f2, f0);
	r = repair_and_check(f0, r0, f2, "ftree", true, "k=16, spine lost", 3, 0.1);
	routes_free(r);
	/* two changes at once: the spine and a leaf uplink */
	testutil_cut(f2, "sw-L1-5", 10);
	r = repair_and_check(f0, r0, f2, "ftree", true, "k=16, spine and a leaf uplink lost", 3,
			     0.15);
	routes_free(r);
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	fabric_free(f2);
	free(text);
}

/*
 * lost, then back: repair the loss from r0, then the way back from there;
 * what came back is checked as repair_and_check does.  The repaired routes
 * of the loss into *ret_mid (NULL: freed).
 */
static struct routes *lost_and_back(const struct fabric *f0, const struct routes *r0,
				    const struct fabric *f1, bool updown, const char *what,
				    double max_blocks, struct repair_stats *ret_st)
{
	struct routes *mid = NULL, *back = NULL;
	char w[128];

	CU_ASSERT_EQUAL_FATAL(routes_repair(f0, r0, f1, updown, 0.25, 100, NULL, &mid, ret_st), 0);
	snprintf(w, sizeof(w), "%s back", what);
	back =
	    repair_and_check(f1, mid, f0, updown ? "ftree" : "minhop", updown, w, 0.5, max_blocks);
	/* the statistics of the way back */
	routes_free(mid);
	mid = NULL;
	CU_ASSERT_EQUAL(routes_repair(f0, r0, f1, updown, 0.25, 100, NULL, &mid, ret_st), 0);
	routes_free(back);
	back = NULL;
	CU_ASSERT_EQUAL(routes_repair(f1, mid, f0, updown, 0.25, 100, NULL, &back, ret_st), 0);
	routes_free(mid);
	return back;
}

/*
 * Additions: a leaf uplink, a middle uplink, a spine switch, a leaf switch
 * with its hosts come back; the repair keeps every route and adds what is
 * new (sound, up*down* for CAs, balanced within the drift of a fresh
 * routing); a link back shortens the routes that cross it; minhop stays
 * minimal when a link comes back.
 */
static void test_additions(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text),
		      *f3 = testutil_load_lids(text), *f2, *f5;
	struct routes *r0 = route(f0, "ftree"), *r;
	struct repair_stats st;
	uint32_t removed, leaf, l2;
	uint8_t lp;

	/* a leaf uplink back: the L2 switch at its far end reaches the leaf's hosts over it */
	testutil_cut(f1, "sw-L1-0", 5);
	leaf = testutil_find_desc(f0, "sw-L1-0");
	l2 = f0->nodes[leaf].ports[5].remote_node;
	lp = f0->nodes[leaf].ports[5].remote_port;
	r = lost_and_back(f0, r0, f1, true, "k=8, leaf uplink", 0.1, &st);
	CU_ASSERT_EQUAL(st.links_added, 1);
	CU_ASSERT_EQUAL(st.switches_added, 0);
	CU_ASSERT(st.lids_shorter > 0);
	for (uint8_t p = 1; p <= f0->nodes[leaf].nports; p++) {
		const struct port *pp = &f0->nodes[leaf].ports[p];

		if (port_is_linked(pp) && !node_is_switch(&f0->nodes[pp->remote_node]))
			CU_ASSERT_EQUAL(r->lft[l2][f0->nodes[pp->remote_node].ports[1].lid], lp);
	}
	routes_free(r);
	/* a middle uplink back */
	testutil_cut(f3, "sw-L2-0", 5);
	r = lost_and_back(f0, r0, f3, true, "k=8, middle uplink", 0.1, &st);
	CU_ASSERT_EQUAL(st.links_added, 1);
	routes_free(r);
	/* a spine switch back: its row routed whole, nothing else moves */
	f2 = without_all(f0, "sw-L3-0", &removed);
	CU_ASSERT_EQUAL(removed, 1);
	r = lost_and_back(f0, r0, f2, true, "k=8, spine", 0.3, &st);
	CU_ASSERT_EQUAL(st.switches_added, 1);
	CU_ASSERT_EQUAL(st.links_added, 8);
	routes_free(r);
	/*
	 * the spine back with half its links (port by port), then the rest:
	 * its routes to the pods it does not reach go down and up again (no
	 * traffic enters there), and it is no load until the engine re-balances
	 */
	{
		struct fabric *half = testutil_load_lids(text);
		struct routes *gone = NULL, *h, *all;

		for (uint8_t p = 5; p <= 8; p++)
			testutil_cut(half, "sw-L3-0", p);
		CU_ASSERT_EQUAL_FATAL(routes_repair(f0, r0, f2, true, 0.25, 100, NULL, &gone, &st),
				      0);
		h = repair_and_check(f2, gone, half, "ftree", true,
				     "k=8, spine back, half its links", 0.5, 0.3);
		CU_ASSERT_EQUAL(st.switches_added, 0); /* the last call's: the loss */
		all = repair_and_check_ex(half, h, f0, "ftree", true, "k=8, spine back, the rest",
					  0.5, 0.3, true);
		routes_free(all);
		routes_free(h);
		routes_free(gone);
		fabric_free(half);
	}
	/* a leaf switch back with its hosts: new owners, a new row */
	f5 = without_all(f0, "sw-L1-9", &removed);
	CU_ASSERT_EQUAL(removed, 5);
	r = lost_and_back(f0, r0, f5, true, "k=8, leaf and its hosts", 0.6, &st);
	CU_ASSERT_EQUAL(st.switches_added, 1);
	CU_ASSERT_EQUAL(st.links_added, 4);
	routes_free(r);
	/* without updown a switch back is the engine's */
	CU_ASSERT_EQUAL(routes_repair(f2, r0, f0, false, 0.25, 100, NULL, &r, &st), -EAGAIN);
	CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "switch is new"));
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	fabric_free(f2);
	fabric_free(f3);
	fabric_free(f5);
	free(text);
	/* minhop on random fabrics: a link back, still minimal (repair_and_check) */
	for (unsigned seed = 1; seed <= 4; seed++) {
		char *t = topogen_random(12, 10, 2, seed);
		struct fabric *g0 = testutil_load_lids(t), *g1 = NULL;
		struct routes *q0 = route(g0, "minhop");
		char what[64];
		bool done = false;

		for (uint32_t i = 0; i < g0->n_nodes && !done; i++) {
			const struct node *n = &g0->nodes[i];

			for (uint8_t p = 1; node_is_switch(n) && p <= n->nports && !done; p++) {
				const struct port *pp = &n->ports[p];
				struct checker_stats cs;
				char msg[128];
				struct routes *t1;

				if (!port_is_linked(pp) ||
				    !node_is_switch(&g0->nodes[pp->remote_node]))
					continue;
				fabric_free(g1);
				g1 = fabric_clone(g0);
				CU_ASSERT_PTR_NOT_NULL_FATAL(g1);
				fabric_unlink(g1, i, p);
				t1 = route(g1, "minhop");
				done = checker_run(g1, t1, 0, &cs, msg, sizeof(msg)) == 0 &&
				       !cs.unreachable;
				routes_free(t1);
			}
		}
		CU_ASSERT_FATAL(done);
		snprintf(what, sizeof(what), "minhop, random seed %u, a link", seed);
		r = lost_and_back(g0, q0, g1, false, what, 0.7, &st);
		CU_ASSERT_EQUAL(st.links_added, 1);
		routes_free(r);
		routes_free(q0);
		fabric_free(g0);
		fabric_free(g1);
		free(t);
	}
}

/*
 * Repair (of, or) to f into the spare block sp: it is taken, and the
 * entries are those of want (the same repair without a spare).  The
 * routes, for the caller to free.
 */
static struct routes *repair_into_spare(const struct fabric *of, const struct routes * or,
					const struct fabric *f, struct routes_spare *sp,
					const struct routes *want)
{
	struct routes *e = NULL;
	struct repair_stats st;

	CU_ASSERT_PTR_NOT_NULL(sp->block);
	CU_ASSERT_EQUAL_FATAL(routes_repair(of, or, f, true, 0.25, 100, sp, &e, &st), 0);
	CU_ASSERT_PTR_NULL(sp->block); /* taken */
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (want->lft[i])
			CU_ASSERT_EQUAL(memcmp(e->lft[i], want->lft[i], want->max_lid + 1), 0);
	return e;
}

static void test_bounds(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text);
	struct routes *r0 = route(f0, "ftree"), *r = NULL;
	struct repair_stats st;

	testutil_cut(f1, "sw-L1-0", 5);
	/* a drift bound that cannot be met */
	CU_ASSERT_EQUAL(routes_repair(f0, r0, f1, true, -0.5, 100, NULL, &r, &st), -EAGAIN);
	CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "re-balanced"));
	CU_ASSERT_PTR_NULL(r);
	/* too many LIDs touched */
	CU_ASSERT_EQUAL(routes_repair(f0, r0, f1, true, 0.25, 10, NULL, &r, &st), -EAGAIN);
	CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "LIDs touched"));
	/* nothing to repair from */
	CU_ASSERT_EQUAL(routes_repair(NULL, NULL, f1, true, 0.25, 25, NULL, &r, &st), -EAGAIN);
	/* nothing changed: the same tables */
	CU_ASSERT_EQUAL(routes_repair(f0, r0, f0, true, 0.25, 25, NULL, &r, &st), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st.moved, 0);
	CU_ASSERT_EQUAL(st.lids, 0);
	for (uint32_t i = 0; i < f0->n_nodes; i++)
		if (r->lft[i])
			CU_ASSERT_EQUAL(memcmp(r->lft[i], r0->lft[i], r->max_lid + 1), 0);
	routes_free(r);
	/* old routes without port counts: counted first, the same result */
	{
		struct routes *c = route(f0, "ftree"), *a = NULL, *b = NULL;

		free(c->load);
		free(c->load_at);
		c->load = c->load_at = NULL;
		CU_ASSERT_EQUAL(routes_repair(f0, c, f1, true, 0.25, 100, NULL, &a, &st), 0);
		CU_ASSERT_EQUAL(routes_repair(f0, r0, f1, true, 0.25, 100, NULL, &b, &st), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		for (uint32_t i = 0; i < f1->n_nodes; i++)
			if (a->lft[i])
				CU_ASSERT_EQUAL(memcmp(a->lft[i], b->lft[i], a->max_lid + 1), 0);
		/* into a spare block (the last tables' bytes in it): the same result */
		{
			struct routes_spare sp = {0};

			routes_spare_take(&sp, a);
			routes_free(repair_into_spare(f0, r0, f1, &sp, b));
			routes_spare_clear(&sp);
		}
		routes_free(a);
		routes_free(b);
		routes_free(c);
	}
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	free(text);
}

/*
 * The spare (the tables before, kept for the next) serves the next tables
 * when a switch left or came back: a spine lost and back repairs into it
 * both ways, with the same entries as without it.
 */
static void test_spare_sizes(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = without(f0, "sw-L3-0");
	struct routes *r0 = route(f0, "ftree"), *a = NULL, *b = NULL, *e = NULL;
	struct routes_spare sp = {0};
	struct repair_stats st;

	assert_load(f0, r0);
	/* lost: the spare of a table one switch larger */
	CU_ASSERT_EQUAL_FATAL(routes_repair(f0, r0, f1, true, 0.25, 100, NULL, &a, &st), 0);
	{
		struct routes *big = routes_new(f0, r0->max_lid);

		CU_ASSERT_PTR_NOT_NULL_FATAL(big);
		routes_spare_take(&sp, big);
		routes_free(big);
	}
	e = repair_into_spare(f0, r0, f1, &sp, a);
	/* back: the spare of a table one switch smaller (its slack) */
	CU_ASSERT_EQUAL_FATAL(routes_repair(f1, a, f0, true, 0.25, 100, NULL, &b, &st), 0);
	routes_spare_take(&sp, e);
	routes_free(e);
	e = repair_into_spare(f1, a, f0, &sp, b);
	routes_spare_clear(&sp);
	routes_free(e);
	routes_free(a);
	routes_free(b);
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	free(text);
}

static void test_minhop_random(void)
{
	for (unsigned seed = 1; seed <= 4; seed++) {
		char *text = topogen_random(12, 10, 2, seed);
		struct fabric *f0 = testutil_load_lids(text), *f1 = NULL;
		struct routes *r0 = route(f0, "minhop"), *r;
		char what[64];
		bool done = false;

		/* cut the first switch-to-switch link whose loss keeps the fabric connected */
		for (uint32_t i = 0; i < f0->n_nodes && !done; i++) {
			const struct node *n = &f0->nodes[i];

			if (!node_is_switch(n))
				continue;
			for (uint8_t p = 1; p <= n->nports && !done; p++) {
				const struct port *pp = &n->ports[p];
				struct checker_stats cs;
				char msg[128];
				struct routes *t;

				if (!port_is_linked(pp) ||
				    !node_is_switch(&f0->nodes[pp->remote_node]))
					continue;
				fabric_free(f1);
				f1 = fabric_clone(f0);
				CU_ASSERT_PTR_NOT_NULL_FATAL(f1);
				fabric_unlink(f1, i, p);
				t = route(f1, "minhop");
				done = checker_run(f1, t, 0, &cs, msg, sizeof(msg)) == 0 &&
				       !cs.unreachable;
				routes_free(t);
			}
		}
		CU_ASSERT_FATAL(done);
		snprintf(what, sizeof(what), "minhop, random seed %u", seed);
		r = repair_and_check(f0, r0, f1, "minhop", false, what, 1, 0.7);
		routes_free(r);
		routes_free(r0);
		fabric_free(f0);
		fabric_free(f1);
		free(text);
	}
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"fat tree k=8: uplinks, a spine, a host lost and back", test_fat_tree_8},
	    {"fat tree k=16: a small part of the tables, balanced", test_fat_tree_16},
	    {"bounds: drift, LIDs touched, nothing to repair, no counts", test_bounds},
	    {"additions: links, a spine, a leaf with hosts back; minhop minimal", test_additions},
	    {"minhop on random fabrics: minimal", test_minhop_random},
	    {"the spare serves a switch lost and back", test_spare_sizes},
	    {NULL, NULL},
	};

	return testutil_run("repair", cases);
}

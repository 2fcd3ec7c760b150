/*
 * Unit tests of routing/keep.c: after a link or a spine switch is lost from
 * a 3-level fat tree (and when it comes back), the kept routes are complete,
 * loop-free and free of credit loops (the checker's channel dependency
 * graph), move a small part of what ftree's fresh routes alone move, and
 * touch few LFT blocks; a drift bound that cannot be met takes the fresh
 * routes whole; minhop on a random fabric; nothing to keep without old
 * routes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/lft.h"
#include "routing/keep.h"
#include "routing/routing.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

/*
 * The topology text without node name: its block (up to the blank line, the
 * GUID line before it included) and every link to it.  malloc'd.
 */
static char *without_node(const char *text, const char *name)
{
	char quoted[80], *out = calloc(1, strlen(text) + 1), *o = out;
	const char *line = text, *pending = NULL;
	bool skipping = false;

	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);
		bool header = !strncmp(line, "Switch", 6) || !strncmp(line, "Hca", 3);

		if (len == 1)
			skipping = false;
		if (header && memmem(line, len, quoted, strlen(quoted)) &&
		    !memmem(line, len, "\"[", 2))
			skipping = true, pending = NULL;
		if (!strncmp(line, "switchguid=", 11) || !strncmp(line, "caguid=", 7)) {
			if (pending) { /* flush the previous GUID line */
				memcpy(o, pending, (size_t)(line - pending));
				o += line - pending;
			}
			pending = line;
		} else if (!skipping &&
			   !(line[0] == '[' && memmem(line, len, quoted, strlen(quoted)))) {
			if (pending) {
				memcpy(o, pending, (size_t)(line - pending));
				o += line - pending;
				pending = NULL;
			}
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	*o = '\0';
	return out;
}

/* old routes on of, then f changed: keep, and check what came out. */
static struct keep_stats keep_and_check(const struct fabric *of, const struct routes * or,
					const struct fabric *f, const char *engine, bool updown,
					const char *what, double min_ratio, double max_blocks)
{
	struct routes *r = testutil_route(f, engine);
	struct keep_stats ks;
	uint64_t total, fresh_blocks, kept_blocks;
	char msg[256];

	fresh_blocks = testutil_blocks_changed(of, or, f, r, &total);
	/* the fast way and the slow way give the same tables */
	{
		struct routes *slow = testutil_route(f, engine);
		struct keep_stats ss;

		routes_keep_ex(of, or, f, slow, updown, 0.25, false, &ss);
		routes_keep(of, or, f, r, updown, 0.25, &ks);
		CU_ASSERT_EQUAL(ss.kept, ks.kept);
		CU_ASSERT_EQUAL(ss.moved, ks.moved);
		CU_ASSERT_EQUAL(ss.fresh_moved, ks.fresh_moved);
		for (uint32_t i = 0; i < f->n_nodes; i++)
			if (r->lft[i])
				CU_ASSERT_EQUAL(memcmp(r->lft[i], slow->lft[i], r->max_lid + 1), 0);
		routes_free(slow);
	}
	if (!ks.kept)
		fprintf(stderr, "\n%s: %s\n", what, ks.why);
	CU_ASSERT_TRUE(ks.kept);
	checker_assert_sound(f, r, 0, what);
	if (updown)
		CU_ASSERT_EQUAL(checker_cdg_acyclic(f, r, NULL, msg, sizeof(msg)), 0);
	kept_blocks = testutil_blocks_changed(of, or, f, r, &total);
	printf("\n    %s (%s way): entries moved %llu (fresh %llu) of %llu, blocks %llu (fresh "
	       "%llu) of "
	       "%llu, busiest port %u (fresh %u), %u LIDs fresh ",
	       what, ks.fast ? "fast" : "slow", (unsigned long long)ks.moved,
	       (unsigned long long)ks.fresh_moved, (unsigned long long)ks.entries,
	       (unsigned long long)kept_blocks, (unsigned long long)fresh_blocks,
	       (unsigned long long)total, ks.max_port_kept, ks.max_port_fresh, ks.lids_fresh);
	/* moves min_ratio times fewer entries than the fresh routes, at most max_blocks of the
	 * blocks */
	CU_ASSERT(ks.moved * min_ratio <= ks.fresh_moved);
	CU_ASSERT(kept_blocks <= fresh_blocks);
	CU_ASSERT(kept_blocks <= max_blocks * total);
	CU_ASSERT(ks.max_port_kept <= ks.max_port_fresh * 1.25);
	routes_free(r);
	return ks;
}

static void test_fat_tree_faults(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0), *nospine = without_node(text, "sw-L3-0");
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text),
		      *f2 = testutil_load_lids(nospine), *f3 = testutil_load_lids(text);
	struct routes *r0 = testutil_route(f0, "ftree"), *r1;

	struct keep_stats ks;

	/* one leaf uplink */
	testutil_cut(f1, "sw-L1-0", 5);
	keep_and_check(f0, r0, f1, "ftree", true, "k=8, leaf uplink lost", 5, 0.35);
	/* the link back: nothing broke, so the fresh routes are taken (re-balance) */
	r1 = testutil_route(f1, "ftree");
	{
		struct routes *r = testutil_route(f3, "ftree");

		routes_keep(f1, r1, f3, r, true, 0.25, &ks);
		CU_ASSERT_FALSE(ks.kept);
		CU_ASSERT_PTR_NOT_NULL(strstr(ks.why, "nothing broke"));
		routes_free(r);
	}
	/* a spine switch with all its links (LIDs as before: they come from the GUIDs' order) */
	CU_ASSERT_EQUAL(f2->n_nodes + 1, f0->n_nodes);
	testutil_copy_lids(f2, f0);
	keep_and_check(f0, r0, f2, "ftree", true, "k=8, spine lost", 3, 0.35);
	/* a mid switch's uplink */
	testutil_cut(f3, "sw-L2-0", 5);
	keep_and_check(f0, r0, f3, "ftree", true, "k=8, middle uplink lost", 2, 0.2);

	routes_free(r0);
	routes_free(r1);
	fabric_free(f0);
	fabric_free(f1);
	fabric_free(f2);
	fabric_free(f3);
	free(text);
	free(nospine);
}

/* At k=16 (1,344 hosts, 320 switches) one link is a small part of the tables. */
static void test_fat_tree_16(void)
{
	char *text = topogen_fat_tree(3, 16, 0, 0), *nospine = without_node(text, "sw-L3-0");
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text),
		      *f2 = testutil_load_lids(nospine);
	struct routes *r0 = testutil_route(f0, "ftree");

	testutil_cut(f1, "sw-L1-0", 9);
	keep_and_check(f0, r0, f1, "ftree", true, "k=16, leaf uplink lost", 20, 0.05);
	testutil_copy_lids(f2, f0);
	keep_and_check(f0, r0, f2, "ftree", true, "k=16, spine lost", 3, 0.2);
	routes_free(r0);
	fabric_free(f0);
	fabric_free(f1);
	fabric_free(f2);
	free(text);
	free(nospine);
}

static void test_drift_and_none(void)
{
	char *text = topogen_fat_tree(3, 8, 0, 0);
	struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text);
	struct routes *r0 = testutil_route(f0, "ftree"), *r1 = testutil_route(f1, "ftree"), *fresh;
	struct keep_stats ks;

	testutil_cut(f1, "sw-L1-0", 5);
	routes_free(r1);
	r1 = testutil_route(f1, "ftree");
	fresh = testutil_route(f1, "ftree");
	/* a bound that cannot be met: the fresh routes whole, r untouched */
	routes_keep(f0, r0, f1, r1, true, -0.5, &ks);
	CU_ASSERT_FALSE(ks.kept);
	CU_ASSERT_PTR_NOT_NULL(strstr(ks.why, "re-balanced"));
	for (uint32_t i = 0; i < f1->n_nodes; i++)
		if (r1->lft[i])
			CU_ASSERT_EQUAL(memcmp(r1->lft[i], fresh->lft[i], r1->max_lid + 1), 0);
	/* nothing to keep from */
	routes_keep(NULL, NULL, f1, r1, true, 0.25, &ks);
	CU_ASSERT_FALSE(ks.kept);
	/* the same fabric: everything kept, nothing moved */
	routes_keep(f0, r0, f0, fresh = (routes_free(fresh), testutil_route(f0, "ftree")), true,
		    0.25, &ks);
	CU_ASSERT_TRUE(ks.kept);
	CU_ASSERT_EQUAL(ks.moved, 0);
	CU_ASSERT_EQUAL(ks.lids_fresh, 0);

	routes_free(r0);
	routes_free(r1);
	routes_free(fresh);
	fabric_free(f0);
	fabric_free(f1);
	free(text);
}

static void test_minhop_random(void)
{
	for (unsigned seed = 1; seed <= 3; seed++) {
		char *text = topogen_random(12, 10, 2, seed);
		struct fabric *f0 = testutil_load_lids(text), *f1 = testutil_load_lids(text);
		struct routes *r0 = testutil_route(f0, "minhop"), *r1;
		struct keep_stats ks;
		char what[64];

		/* cut the first switch-to-switch link whose loss keeps the fabric connected */
		for (uint32_t i = 0; i < f1->n_nodes; i++) {
			struct node *n = &f1->nodes[i];
			bool done = false;

			if (!node_is_switch(n))
				continue;
			for (uint8_t p = 1; p <= n->nports && !done; p++) {
				struct port *pp = &n->ports[p];
				struct checker_stats cs;
				char msg[128];

				if (!port_is_linked(pp) ||
				    !node_is_switch(&f1->nodes[pp->remote_node]))
					continue;
				testutil_cut(f1, n->desc, p);
				r1 = testutil_route(f1, "minhop");
				done = checker_run(f1, r1, 0, &cs, msg, sizeof(msg)) == 0 &&
				       !cs.unreachable;
				routes_free(r1);
				if (!done) { /* put it back: reload */
					fabric_free(f1);
					f1 = testutil_load_lids(text);
					n = &f1->nodes[i];
				}
			}
			if (done)
				break;
		}
		snprintf(what, sizeof(what), "minhop, random seed %u", seed);
		r1 = testutil_route(f1, "minhop");
		routes_keep(f0, r0, f1, r1, false, 0.25, &ks);
		CU_ASSERT_TRUE(ks.kept);
		checker_assert_sound(f1, r1, 0, what);
		CU_ASSERT(ks.moved <= ks.fresh_moved);
		routes_free(r0);
		routes_free(r1);
		fabric_free(f0);
		fabric_free(f1);
		free(text);
	}
}

/* fabric_prune_in_place on a clone of c gives what fabric_prune(c) gives. */
static void assert_prune_in_place(const struct fabric *c, const struct fabric *p)
{
	struct fabric *q = fabric_clone(c);
	uint32_t removed = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL_FATAL(fabric_prune_in_place(q, &removed), 0);
	CU_ASSERT_EQUAL(removed, c->n_nodes - p->n_nodes);
	CU_ASSERT_EQUAL_FATAL(q->n_nodes, p->n_nodes);
	CU_ASSERT_EQUAL(q->sm_node, p->sm_node);
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		const struct node *a = &q->nodes[i], *b = &p->nodes[i];

		CU_ASSERT_EQUAL(a->guid, b->guid);
		CU_ASSERT_EQUAL(fabric_find_guid(q, a->guid), i);
		CU_ASSERT_EQUAL(a->dr_hops, b->dr_hops);
		CU_ASSERT_EQUAL(memcmp(a->dr_path, b->dr_path, sizeof(a->dr_path)), 0);
		CU_ASSERT_EQUAL(a->entry_port, b->entry_port);
		for (unsigned port = 0; port <= a->nports; port++) {
			CU_ASSERT_EQUAL(a->ports[port].remote_node, b->ports[port].remote_node);
			CU_ASSERT_EQUAL(a->ports[port].remote_port, b->ports[port].remote_port);
		}
	}
	fabric_free(q);
}

/* fabric_clone and fabric_prune, which the incremental sweep stands on. */
static void test_clone_prune(void)
{
	char *text = topogen_fat_tree(3, 4, 0, 0);
	struct fabric *f = testutil_load_lids(text), *c, *p;
	uint32_t removed, spine = testutil_find_desc(f, "sw-L3-0"), leaf;

	c = fabric_clone(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n_nodes, f->n_nodes);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		CU_ASSERT_EQUAL(fabric_find_guid(c, f->nodes[i].guid), i);
		CU_ASSERT(c->nodes[i].ports != f->nodes[i].ports);
		CU_ASSERT_EQUAL(memcmp(c->nodes[i].ports, f->nodes[i].ports,
				       (f->nodes[i].nports + 1u) * sizeof(struct port)),
				0);
	}
	/* nothing cut: everything kept, routes as they were */
	p = fabric_prune(c, &removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(removed, 0);
	CU_ASSERT_EQUAL(p->n_nodes, f->n_nodes);
	fabric_free(p);
	/* the spine's links cut: the spine is left out, every other node still reached */
	for (uint8_t port = 1; port <= c->nodes[spine].nports; port++)
		fabric_unlink(c, spine, port);
	CU_ASSERT(!port_is_linked(&c->nodes[spine].ports[1]));
	p = fabric_prune(c, &removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(removed, 1);
	assert_prune_in_place(c, p);
	CU_ASSERT_EQUAL(p->n_nodes + 1, f->n_nodes);
	CU_ASSERT_EQUAL(fabric_find_guid(p, f->nodes[spine].guid), FABRIC_NO_NODE);
	/* every node's directed route walks over links of the pruned fabric to it */
	for (uint32_t i = 0; i < p->n_nodes; i++) {
		const struct node *n = &p->nodes[i];
		uint32_t cur = p->sm_node;

		for (unsigned h = 1; h <= n->dr_hops; h++) {
			const struct port *pp = &p->nodes[cur].ports[n->dr_path[h]];

			CU_ASSERT_FATAL(port_is_linked(pp));
			cur = pp->remote_node;
		}
		CU_ASSERT_EQUAL(cur, i);
		if (i != p->sm_node)
			CU_ASSERT_EQUAL(
			    p->nodes[cur].ports[n->entry_port].remote_node != FABRIC_NO_NODE, true);
	}
	/* a leaf cut off whole: it and its hosts are left out */
	fabric_free(p);
	leaf = testutil_find_desc(c, "sw-L1-3");
	for (uint8_t port = 1; port <= c->nodes[leaf].nports; port++) {
		struct port *pp = &c->nodes[leaf].ports[port];

		if (port_is_linked(pp) && node_is_switch(&c->nodes[pp->remote_node]))
			fabric_unlink(c, leaf, port);
	}
	p = fabric_prune(c, &removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(removed, 2 + 2); /* the spine, the leaf and its two hosts */
	assert_prune_in_place(c, p);
	fabric_free(p);
	fabric_free(c);
	fabric_free(f);
	free(text);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"fat tree: links and a spine lost and back", test_fat_tree_faults},
	    {"fat tree k=16: a small part of the tables", test_fat_tree_16},
	    {"drift bound, no old routes, no change", test_drift_and_none},
	    {"minhop on random fabrics", test_minhop_random},
	    {"fabric_clone and fabric_prune", test_clone_prune},
	    {NULL, NULL},
	};

	return testutil_run("keep", cases);
}

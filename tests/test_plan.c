/*
 * Unit tests of validate/plan.c: the plan reader's errors (FILE:LINE), and
 * the check of generated fat trees against their plan with one change each:
 * a missing cable, two swapped leaf uplinks, a 1x and a slower link, an
 * extra host, a missing switch, a duplicate description, a duplicate GUID,
 * an extra SM; a plan without GUIDs matched by description; no plan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "fabric/speed.h"
#include "tests/testutil.h"
#include "tests/topogen.h"
#include "validate/plan.h"

static struct plan *plan_of(const char *text)
{
	struct plan *p = NULL;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(plan_parse(text, strlen(text), &p, err, sizeof(err)), 0);
	return p;
}

static struct fabric *fat_tree(int hosts)
{
	char *t = topogen_fat_tree(2, 4, hosts, 0);
	struct fabric *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	f = testutil_load_text(t);
	free(t);
	return f;
}

static struct plan *fat_tree_plan(int hosts)
{
	char *t = topogen_fat_tree(2, 4, hosts, 0);
	struct plan *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	p = plan_of(t);
	free(t);
	return p;
}

static void check(const struct plan *p, const struct fabric *f, struct plan_result *r)
{
	memset(r, 0, sizeof(*r));
	CU_ASSERT_EQUAL_FATAL(plan_check(p, f, NULL, r), 0);
	for (size_t i = 0; i < r->n; i++) {
		char line[600];

		plan_finding_str(&r->v[i], line, sizeof(line));
		printf("    %s\n", line);
	}
}

static uint32_t node(const struct fabric *f, const char *desc)
{
	uint32_t i = testutil_find_desc(f, desc);

	CU_ASSERT_NOT_EQUAL_FATAL(i, FABRIC_NO_NODE);
	return i;
}

static void test_parse_errors(void)
{
	static const char bad[] = "Switch 4 \"s\"\n[1] \"h\"[1]\nHca 1 \"h\"\n[1] \"s\"[9]\n";
	char path[] = "/tmp/ibsmd-plan-XXXXXX", err[256];
	struct plan *p = NULL;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, bad, sizeof(bad) - 1), (ssize_t)sizeof(bad) - 1);
	close(fd);
	CU_ASSERT_EQUAL(plan_load(path, &p, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_PTR_NULL(p);
	/* the line of the link to port 9 of a 4-port switch */
	CU_ASSERT_EQUAL(strncmp(err, path, strlen(path)), 0);
	CU_ASSERT_EQUAL(strncmp(err + strlen(path), ":4: ", 4), 0);
	printf("    %s\n", err);
	unlink(path);
	CU_ASSERT_EQUAL(plan_load("/nonexistent/plan", &p, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/plan"));
	CU_ASSERT_EQUAL(plan_parse("Hca 1 \"h\"\nbogus\n", 16, &p, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_EQUAL(strncmp(err, "2: ", 3), 0);
	/* a good one: its links and speeds counted */
	p = plan_of(
	    "Switch 4 \"s\"\n[1] \"h\"[1] # 4xHDR\n[2] \"g\"[1]\nHca 1 \"h\"\nHca 1 \"g\"\n");
	CU_ASSERT_EQUAL(p->links, 2);
	CU_ASSERT_EQUAL(p->speeds, 1);
	CU_ASSERT_FALSE(p->has_guid[0]);
	plan_free(p);
}

static void test_clean(void)
{
	struct plan *p = fat_tree_plan(0);
	struct fabric *f = fat_tree(0);
	struct plan_result r;

	check(p, f, &r);
	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_EQUAL(r.matched, f->n_nodes);
	CU_ASSERT_EQUAL(r.links_checked, p->links);
	plan_result_clear(&r);
	/* no plan: nothing either */
	check(NULL, f, &r);
	CU_ASSERT_EQUAL(r.n, 0);
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
}

static void test_missing_link(void)
{
	struct plan *p = fat_tree_plan(0);
	struct fabric *f = fat_tree(0);
	struct plan_result r;

	testutil_cut(f, "ca-3", 1);
	check(p, f, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 1);
	CU_ASSERT_EQUAL(r.v[0].kind, PLAN_MISSING_LINK);
	CU_ASSERT_EQUAL(r.v[0].severity, PLAN_ERROR);
	/* both ends named: ca-3 port 1 and the leaf port it belongs in */
	CU_ASSERT(!strcmp(r.v[0].node.desc, "ca-3") || !strcmp(r.v[0].want.desc, "ca-3"));
	CU_ASSERT(!strcmp(r.v[0].node.desc, "sw-L1-1") || !strcmp(r.v[0].want.desc, "sw-L1-1"));
	CU_ASSERT_EQUAL(r.v[0].node.port, 1 + 1 * !strcmp(r.v[0].node.desc, "sw-L1-1"));
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
}

/* Two uplinks of a leaf swapped: two miswired cables, each naming where its ends belong. */
static void test_swapped(void)
{
	struct plan *p = fat_tree_plan(0);
	struct fabric *f = fat_tree(0);
	uint32_t leaf = node(f, "sw-L1-0"), s[2];
	uint8_t lp[2], sp[2];
	unsigned n = 0;
	struct plan_result r;

	for (unsigned pn = 1; pn <= f->nodes[leaf].nports && n < 2; pn++) {
		const struct port *pt = &f->nodes[leaf].ports[pn];

		if (!port_is_linked(pt) || !node_is_switch(&f->nodes[pt->remote_node]))
			continue;
		lp[n] = (uint8_t)pn;
		s[n] = pt->remote_node;
		sp[n++] = pt->remote_port;
	}
	CU_ASSERT_EQUAL_FATAL(n, 2);
	fabric_unlink(f, leaf, lp[0]);
	fabric_unlink(f, leaf, lp[1]);
	CU_ASSERT_EQUAL_FATAL(fabric_link(f, leaf, lp[0], s[1], sp[1]), 0);
	CU_ASSERT_EQUAL_FATAL(fabric_link(f, leaf, lp[1], s[0], sp[0]), 0);
	check(p, f, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	for (unsigned i = 0; i < 2; i++) {
		const struct plan_finding *fd = &r.v[i];
		/* the leaf end: the spine it is on and the one it should be on */
		bool leaf_first = fd->node.guid == f->nodes[leaf].guid;
		const struct plan_end *le = leaf_first ? &fd->node : &fd->peer;
		const struct plan_end *lw = leaf_first ? &fd->want : &fd->other;
		const struct plan_end *se = leaf_first ? &fd->peer : &fd->node;
		const struct plan_end *sw = leaf_first ? &fd->other : &fd->want;
		unsigned k = le->port == lp[0] ? 0 : 1;

		CU_ASSERT_EQUAL(fd->kind, PLAN_MISWIRED);
		CU_ASSERT_EQUAL(le->guid, f->nodes[leaf].guid);
		CU_ASSERT_EQUAL(se->guid, f->nodes[s[1 - k]].guid);
		CU_ASSERT_EQUAL(se->port, sp[1 - k]);
		CU_ASSERT_EQUAL(lw->guid, f->nodes[s[k]].guid);
		CU_ASSERT_EQUAL(lw->port, sp[k]);
		CU_ASSERT_EQUAL(sw->guid, f->nodes[leaf].guid);
		CU_ASSERT_EQUAL(sw->port, lp[1 - k]);
	}
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
}

static void set_speeds(struct fabric *f, uint8_t width, uint8_t lane)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned pn = 1; pn <= f->nodes[i].nports; pn++) {
			f->nodes[i].ports[pn].width_active = width;
			f->nodes[i].ports[pn].lane_speed = lane;
		}
}

static void set_link(struct fabric *f, const char *desc, uint8_t pn, uint8_t width, uint8_t lane)
{
	struct port *a = &f->nodes[node(f, desc)].ports[pn];
	struct port *b = &f->nodes[a->remote_node].ports[a->remote_port];

	a->width_active = b->width_active = width;
	a->lane_speed = b->lane_speed = lane;
}

/* 4x HDR planned: a 1x link and an EDR link; with no plan, what both ends enable. */
static void test_degraded(void)
{
	struct plan *p = fat_tree_plan(0);
	struct fabric *f = fat_tree(0);
	struct plan_result r;

	set_speeds(p->f, 2, SPEED_HDR);
	set_speeds(f, 2, SPEED_HDR);
	set_link(f, "ca-5", 1, 1, SPEED_HDR);
	set_link(f, "ca-6", 1, 2, SPEED_EDR);
	check(p, f, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DEGRADED_WIDTH], 1);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DEGRADED_SPEED], 1);
	for (unsigned i = 0; i < 2; i++) {
		const struct plan_finding *fd = &r.v[i];
		const char *host = fd->kind == PLAN_DEGRADED_WIDTH ? "ca-5" : "ca-6";

		CU_ASSERT(fd->planned);
		CU_ASSERT(!strcmp(fd->node.desc, host) || !strcmp(fd->peer.desc, host));
		if (fd->kind == PLAN_DEGRADED_WIDTH) {
			CU_ASSERT_EQUAL(fd->width, 1);
			CU_ASSERT_EQUAL(fd->want_width, 2);
		} else {
			CU_ASSERT_EQUAL(fd->lane, SPEED_EDR);
			CU_ASSERT_EQUAL(fd->want_lane, SPEED_HDR);
		}
	}
	plan_result_clear(&r);
	/* no plan: below what both ends enable (4x, HDR), the same two */
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned pn = 1; pn <= f->nodes[i].nports; pn++) {
			f->nodes[i].ports[pn].width_enabled = 3; /* 1x, 4x */
			f->nodes[i].ports[pn].lanes_enabled =
			    SPEED_BIT(SPEED_EDR) | SPEED_BIT(SPEED_HDR);
		}
	check(NULL, f, &r);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DEGRADED_WIDTH], 1);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DEGRADED_SPEED], 1);
	CU_ASSERT(r.n && !r.v[0].planned);
	plan_result_clear(&r);
	/* one end enables only EDR: that link is as fast as it can be */
	f->nodes[node(f, "ca-6")].ports[1].lanes_enabled = SPEED_BIT(SPEED_EDR);
	check(NULL, f, &r);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DEGRADED_WIDTH], 1);
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
}

static void test_extra_host(void)
{
	struct plan *p = fat_tree_plan(6);
	struct fabric *f = fat_tree(7);
	struct plan_result r;

	check(p, f, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 1);
	CU_ASSERT_EQUAL(r.v[0].kind, PLAN_UNEXPECTED_NODE);
	CU_ASSERT_STRING_EQUAL(r.v[0].node.desc, "ca-6");
	CU_ASSERT_EQUAL(r.v[0].node.port, 1);
	CU_ASSERT_STRING_EQUAL(r.v[0].peer.desc, "sw-L1-3");
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
}

static void test_missing_switch(void)
{
	struct plan *p = fat_tree_plan(0);
	struct fabric *f = fat_tree(0), *g;
	uint32_t sp = node(f, "sw-L2-1"), removed = 0;
	struct plan_result r;

	for (unsigned pn = 1; pn <= f->nodes[sp].nports; pn++)
		fabric_unlink(f, sp, (uint8_t)pn);
	g = fabric_prune(f, &removed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(removed, 1);
	check(p, g, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 1);
	CU_ASSERT_EQUAL(r.v[0].kind, PLAN_MISSING_NODE);
	CU_ASSERT_STRING_EQUAL(r.v[0].node.desc, "sw-L2-1");
	CU_ASSERT_EQUAL(r.v[0].node.type, NODE_SWITCH);
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
	fabric_free(g);
}

/* A plan without GUID lines: matched by description; two nodes with one description. */
static void test_by_desc(void)
{
	char *t = topogen_fat_tree(2, 4, 0, 0), *o = strdup(t), *d = o;
	struct fabric *f = fat_tree(0);
	struct plan_result r;
	struct plan *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	/* drop every GUID line */
	for (const char *s = t; *s;) {
		size_t n = strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n');

		if (!strstr(s, "guid=") || strstr(s, "guid=") > s + n) {
			memcpy(d, s, n);
			d += n;
		}
		s += n;
	}
	*d = '\0';
	p = plan_of(o);
	CU_ASSERT_FALSE(p->has_guid[0]);
	check(p, f, &r);
	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_EQUAL(r.matched, f->n_nodes);
	plan_result_clear(&r);
	/* ca-2 now says it is ca-1: one duplicate_node_desc; ca-2 of the plan is missing */
	snprintf(f->nodes[node(f, "ca-2")].desc, sizeof(f->nodes[0].desc), "ca-1");
	check(p, f, &r);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_DUPLICATE_NODE_DESC], 1);
	CU_ASSERT_EQUAL(r.n_kind[PLAN_MISSING_NODE], 1);
	CU_ASSERT_EQUAL(r.n, 2);
	plan_result_clear(&r);
	plan_free(p);
	fabric_free(f);
	free(t);
	free(o);
}

static void test_dup_guid_and_sm(void)
{
	struct fabric *f = fat_tree(0);
	uint32_t ca = node(f, "ca-4");
	struct fabric_dup dup = {f->nodes[ca].guid,
				 1,
				 f->nodes[node(f, "sw-L1-2")].guid,
				 f->nodes[node(f, "sw-L1-3")].guid,
				 1,
				 2};
	struct plan_result r;
	struct port *pt;

	CU_ASSERT_EQUAL(fabric_dup_add(f, &dup), 0);
	CU_ASSERT_EQUAL(fabric_dup_add(f, &dup), 0); /* once */
	/* an SM on ca-7: IsSM (CapabilityMask bit 1, PortInfo bytes 20..23) */
	pt = &f->nodes[node(f, "ca-7")].ports[1];
	pt->pi[23] |= 0x02;
	check(NULL, f, &r);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	CU_ASSERT_EQUAL(r.v[0].kind, PLAN_DUPLICATE_GUID);
	CU_ASSERT_STRING_EQUAL(r.v[0].node.desc, "ca-4");
	CU_ASSERT_STRING_EQUAL(r.v[0].peer.desc, "sw-L1-2");
	CU_ASSERT_EQUAL(r.v[0].peer.port, 1);
	CU_ASSERT_STRING_EQUAL(r.v[0].other.desc, "sw-L1-3");
	CU_ASSERT_EQUAL(r.v[0].other.port, 2);
	CU_ASSERT_EQUAL(r.v[1].kind, PLAN_EXTRA_SM);
	CU_ASSERT_STRING_EQUAL(r.v[1].node.desc, "ca-7");
	plan_result_clear(&r);
	/* a known SM (our peer) is none */
	{
		struct plan_opts o = {&pt->guid, 1};

		memset(&r, 0, sizeof(r));
		CU_ASSERT_EQUAL(plan_check(NULL, f, &o, &r), 0);
		CU_ASSERT_EQUAL(r.n_kind[PLAN_EXTRA_SM], 0);
		plan_result_clear(&r);
	}
	/* a clone keeps the duplicates */
	{
		struct fabric *c = fabric_clone(f);

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(c->n_dups, 1);
		CU_ASSERT_EQUAL(c->dups[0].second_port, 2);
		fabric_free(c);
	}
	fabric_free(f);
}

static void test_keys_names(void)
{
	struct plan_finding a = {.kind = PLAN_MISSING_LINK}, b;

	a.node.guid = 1;
	a.node.port = 2;
	b = a;
	CU_ASSERT_EQUAL(plan_finding_key(&a), plan_finding_key(&b));
	b.node.port = 3;
	CU_ASSERT_NOT_EQUAL(plan_finding_key(&a), plan_finding_key(&b));
	for (int k = 0; k < PLAN_NKINDS; k++)
		CU_ASSERT_EQUAL(plan_kind_from_name(plan_kind_name((unsigned)k)), k);
	CU_ASSERT_EQUAL(plan_kind_from_name("bogus"), -1);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"plan errors: FILE:LINE", test_parse_errors},
	    {"a fabric as planned: no finding", test_clean},
	    {"one missing link", test_missing_link},
	    {"two swapped cables: miswired, both named", test_swapped},
	    {"a 1x link and a slow one: degraded", test_degraded},
	    {"an extra host: unexpected_node", test_extra_host},
	    {"a missing switch: missing_node", test_missing_switch},
	    {"a plan without GUIDs; a duplicate description", test_by_desc},
	    {"a duplicate GUID, an extra SM", test_dup_guid_and_sm},
	    {"finding keys, kind names", test_keys_names},
	    {NULL, NULL},
	};

	return testutil_run("plan", cases);
}

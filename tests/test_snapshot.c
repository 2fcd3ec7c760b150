/*
 * Unit tests of the published snapshot's indexes (fabric/snapshot.c), the
 * snapshot diff (fabric/diff.c), the ibnetdiscover writer read back by the
 * topology reader (fabric/topo_write.c) and the enum names (fabric/names.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/diff.h"
#include "fabric/names.h"
#include "fabric/snapshot.h"
#include "fabric/topo.h"
#include "tests/testutil.h"

/* Two switches, three CAs (one dual-ported, one port unlinked). */
static const char net[] = "Switch 8 \"S1\"\n"
			  "[1] \"H1\"[1]\n"
			  "[2] \"H2\"[1]\n"
			  "[3] \"S2\"[3]\n"
			  "\n"
			  "Switch 8 \"S2\"\n"
			  "[1] \"H2\"[2]\n"
			  "[2] \"H3\"[1]\n"
			  "[3] \"S1\"[3]\n"
			  "\n"
			  "Hca 1 \"H1\"\n"
			  "[1] \"S1\"[1]\n"
			  "\n"
			  "Hca 2 \"H2\"\n"
			  "[1] \"S1\"[2]\n"
			  "[2] \"S2\"[1]\n"
			  "\n"
			  "Hca 2 \"H3\"\n"
			  "[1] \"S2\"[2]\n";

static struct fabric *load(uint8_t lmc)
{
	struct fabric *f = testutil_load_text(net);

	testutil_assign_lids(f, lmc);
	return f;
}

static void test_snapshot_indexes(void)
{
	struct fabric *f = load(1);
	struct routes *r = routes_new(f, 32);
	struct snapshot *s = NULL;
	uint32_t ni, checked = 0;
	uint8_t pn;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 7, &s), 0);
	CU_ASSERT_EQUAL(s->generation, 7);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
			const struct port *pt = &n->ports[p];

			if (!pt->lid)
				continue;
			/* every LID of the LMC range, and the port GUID */
			for (unsigned l = pt->lid; l < pt->lid + (1u << pt->lmc); l++) {
				CU_ASSERT_TRUE(snapshot_find_lid(s, l, &ni, &pn));
				CU_ASSERT_EQUAL(ni, i);
				CU_ASSERT_EQUAL(pn, p);
			}
			CU_ASSERT_TRUE(snapshot_find_port_guid(s, pt->guid, &ni, &pn));
			CU_ASSERT_EQUAL(ni, i);
			CU_ASSERT_EQUAL(pn, p);
			checked++;
		}
	}
	/* 2 switch port 0s, 1 + 2 + 2 CA ports */
	CU_ASSERT_EQUAL(checked, 7);
	ni = 12345;
	pn = 9;
	CU_ASSERT_FALSE(snapshot_find_lid(s, 0, &ni, &pn));
	CU_ASSERT_FALSE(snapshot_find_lid(s, 0xBFFF, &ni, &pn));
	CU_ASSERT_FALSE(snapshot_find_lid(s, 0x10000, &ni, &pn));
	CU_ASSERT_FALSE(snapshot_find_port_guid(s, 0, &ni, &pn));
	CU_ASSERT_FALSE(snapshot_find_port_guid(s, 0xdeadbeefULL, &ni, &pn));
	CU_ASSERT_EQUAL(ni, 12345); /* untouched on failure */
	CU_ASSERT_EQUAL(pn, 9);
	CU_ASSERT_FALSE(snapshot_find_lid(NULL, 1, &ni, &pn));
	snapshot_free(s);
	snapshot_free(NULL);
}

struct recorded {
	char lines[32][200];
	unsigned n;
};

static void record(void *arg, const struct diff_change *c)
{
	static const char *const kind[] = {"node_removed", "node_added", "link_down",  "link_up",
					   "port_down",	   "port_up",	 "lid_changed"};
	struct recorded *r = arg;
	const struct node *n = &c->f->nodes[c->node];

	if (r->n >= 32)
		return;
	if (c->kind == DIFF_LINK_DOWN || c->kind == DIFF_LINK_UP)
		snprintf(r->lines[r->n++], 200, "%s %s/%u %s/%u", kind[c->kind], n->desc, c->port,
			 c->f->nodes[c->peer].desc, c->peer_port);
	else if (c->kind == DIFF_LID_CHANGED)
		snprintf(r->lines[r->n++], 200, "%s %s/%u %u<-%u", kind[c->kind], n->desc, c->port,
			 c->lid, c->old_lid);
	else if (c->kind == DIFF_PORT_DOWN || c->kind == DIFF_PORT_UP)
		snprintf(r->lines[r->n++], 200, "%s %s/%u", kind[c->kind], n->desc, c->port);
	else
		snprintf(r->lines[r->n++], 200, "%s %s", kind[c->kind], n->desc);
}

static void test_diff(void)
{
	struct fabric *a = load(0), *b = load(0);
	struct recorded rec = {0};
	char want[64];
	uint32_t h1 = testutil_find_desc(b, "H1"), s1 = testutil_find_desc(b, "S1");
	uint32_t h2 = testutil_find_desc(b, "H2"), h3 = testutil_find_desc(b, "H3");

	/* the same fabric twice: nothing changed */
	diff_fabrics(a, b, record, &rec);
	CU_ASSERT_EQUAL(rec.n, 0);

	/* H1's cable pulled, H2 port 2 leaves ACTIVE, H3 gets a new LID */
	b->nodes[s1].ports[1].remote_node = FABRIC_NO_NODE;
	b->nodes[h1].ports[1].remote_node = FABRIC_NO_NODE;
	b->nodes[h2].ports[2].state = PORT_INIT;
	b->nodes[h3].ports[1].lid = 99;
	diff_fabrics(a, b, record, &rec);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_STRING_EQUAL(rec.lines[0], "link_down S1/1 H1/1");
	CU_ASSERT_STRING_EQUAL(rec.lines[1], "port_down H2/2");
	snprintf(want, sizeof(want), "lid_changed H3/1 99<-%u", a->nodes[h3].ports[1].lid);
	CU_ASSERT_STRING_EQUAL(rec.lines[2], want);

	/* and back: the link comes up, the port too, the LID changes back */
	rec.n = 0;
	diff_fabrics(b, a, record, &rec);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_STRING_EQUAL(rec.lines[0], "link_up S1/1 H1/1");
	CU_ASSERT_STRING_EQUAL(rec.lines[1], "port_up H2/2");
	snprintf(want, sizeof(want), "lid_changed H3/1 %u<-99", a->nodes[h3].ports[1].lid);
	CU_ASSERT_STRING_EQUAL(rec.lines[2], want);
	fabric_free(b);

	/* a node missing from the new fabric: removed, its links down, in that order */
	b = testutil_load_text("Switch 8 \"S1\"\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			       "Switch 8 \"S2\"\n[1] \"H2\"[2]\n[2] \"H3\"[1]\n[3] \"S1\"[3]\n\n"
			       "Hca 2 \"H2\"\n[1] \"S1\"[2]\n[2] \"S2\"[1]\n\n"
			       "Hca 2 \"H3\"\n[1] \"S2\"[2]\n");
	testutil_assign_lids(b, 0);
	rec.n = 0;
	diff_fabrics(a, b, record, &rec);
	CU_ASSERT_TRUE_FATAL(rec.n >= 2);
	CU_ASSERT_STRING_EQUAL(rec.lines[0], "node_removed H1");
	CU_ASSERT_STRING_EQUAL(rec.lines[1], "link_down S1/1 H1/1");
	rec.n = 0;
	diff_fabrics(b, a, record, &rec);
	CU_ASSERT_TRUE_FATAL(rec.n >= 2);
	CU_ASSERT_STRING_EQUAL(rec.lines[0], "node_added H1");
	CU_ASSERT_STRING_EQUAL(rec.lines[1], "link_up S1/1 H1/1");
	/* collected once, replayed: the same changes in the same order */
	{
		struct diff_list dl = {0};
		struct recorded again = {0};

		CU_ASSERT_EQUAL(diff_collect(b, a, &dl), 0);
		CU_ASSERT_EQUAL(dl.n, rec.n);
		diff_list_run(&dl, record, &again);
		CU_ASSERT_EQUAL_FATAL(again.n, rec.n);
		for (unsigned i = 0; i < rec.n; i++)
			CU_ASSERT_STRING_EQUAL(again.lines[i], rec.lines[i]);
		CU_ASSERT_EQUAL(diff_collect(a, a, &dl), 0);
		CU_ASSERT_EQUAL(dl.n, 0);
		diff_list_clear(&dl);
		CU_ASSERT_PTR_NULL(dl.v);
	}
	fabric_free(a);
	fabric_free(b);
}

/* Records what only a change's copies say (never its fabric: that one is gone). */
static void record_copy(void *arg, const struct diff_change *c)
{
	struct recorded *r = arg;

	if (r->n >= 32)
		return;
	snprintf(r->lines[r->n++], 200, "%d %s/%u(0x%llx,%s,lid %u) %s/%u state %u linked %d",
		 c->kind, c->a.desc, c->port, (unsigned long long)c->a.guid,
		 c->a.type == NODE_SWITCH ? "sw" : "ca", c->a.lid, c->b.desc, c->peer_port,
		 c->state, c->linked);
}

/* A published snapshot carries what changed: the copies outlive the snapshot before. */
static void test_snapshot_changes(void)
{
	struct fabric *a = load(0), *b = load(0);
	struct snapshot *old = NULL, *cur = NULL;
	struct recorded rec = {0};
	uint32_t s1 = testutil_find_desc(b, "S1"), h1 = testutil_find_desc(b, "H1");
	uint32_t h2 = testutil_find_desc(b, "H2");
	char want[200];

	b->nodes[s1].ports[1].remote_node = FABRIC_NO_NODE;
	b->nodes[h1].ports[1].remote_node = FABRIC_NO_NODE;
	b->nodes[h2].ports[2].state = PORT_INIT;
	CU_ASSERT_EQUAL_FATAL(snapshot_new(a, routes_new(a, 0), 1, &old), 0);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(b, routes_new(b, 0), 2, &cur), 0);
	/* the first snapshot knows nothing of a change */
	CU_ASSERT_EQUAL(snapshot_set_changes(old, NULL), 0);
	CU_ASSERT_FALSE(old->changes_known);
	CU_ASSERT_EQUAL(snapshot_set_changes(cur, old), 0);
	CU_ASSERT_TRUE(cur->changes_known);
	CU_ASSERT_EQUAL(cur->changes.n, 2);
	snapshot_free(old);
	diff_list_run(&cur->changes, record_copy, &rec);
	CU_ASSERT_EQUAL_FATAL(rec.n, 2);
	/* the link down, told from S1's end: H1's GUID and description are copies */
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[0], "S1/1("));
	snprintf(want, sizeof(want), "(0x%llx,ca,", (unsigned long long)b->nodes[h1].guid);
	CU_ASSERT_PTR_NULL(strstr(rec.lines[0], want)); /* a: S1 */
	snprintf(want, sizeof(want), " H1/1 state %u linked 0", PORT_DOWN);
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[0], want));
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[0], ",sw,"));
	/* H2 port 2 left ACTIVE but is still cabled: its far end comes along */
	snprintf(want, sizeof(want), "%d H2/2(", DIFF_PORT_DOWN);
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[1], want));
	snprintf(want, sizeof(want), " S2/1 state %u linked 1", PORT_INIT);
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[1], want));
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.lines[1], ",ca,lid "));
	snapshot_free(cur);
}

/* What the writer prints, the reader reads back: the same nodes, links and LIDs. */
static void test_topo_write_round_trip(void)
{
	struct fabric *f = load(2), *g = NULL;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(topo_write(f, out), 0);
	fclose(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# Topology file: generated on "));
	CU_ASSERT_EQUAL_FATAL(topo_parse(text, len, &g, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(g->n_nodes, f->n_nodes);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint32_t gi = fabric_find_guid(g, n->guid);
		const struct node *m;

		CU_ASSERT_NOT_EQUAL_FATAL(gi, FABRIC_NO_NODE);
		m = &g->nodes[gi];
		CU_ASSERT_EQUAL(m->type, n->type);
		CU_ASSERT_EQUAL(m->nports, n->nports);
		CU_ASSERT_STRING_EQUAL(m->desc, n->desc);
		for (unsigned p = 0; p <= n->nports; p++) {
			const struct port *a = &n->ports[p], *b = &m->ports[p];

			CU_ASSERT_EQUAL(port_is_linked(a), port_is_linked(b));
			if (port_is_linked(a) && port_is_linked(b)) {
				CU_ASSERT_EQUAL(g->nodes[b->remote_node].guid,
						f->nodes[a->remote_node].guid);
				CU_ASSERT_EQUAL(b->remote_port, a->remote_port);
			}
			if (p >= node_first_lid_port(n) && p <= node_last_lid_port(n) &&
			    port_is_linked(a)) {
				CU_ASSERT_EQUAL(b->lid, a->lid);
				CU_ASSERT_EQUAL(b->lmc, a->lmc);
			}
		}
	}
	free(text);
	fabric_free(f);
	fabric_free(g);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(names_port_state(PORT_ACTIVE), "ACTIVE");
	CU_ASSERT_STRING_EQUAL(names_port_state(PORT_DOWN), "DOWN");
	CU_ASSERT_STRING_EQUAL(names_port_state(9), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(names_phys_state(PHYS_LINKUP), "LINKUP");
	CU_ASSERT_STRING_EQUAL(names_phys_state(3), "DISABLED");
	CU_ASSERT_STRING_EQUAL(names_phys_state(200), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(names_width(2), "4x");
	CU_ASSERT_STRING_EQUAL(names_width(8), "12x");
	CU_ASSERT_PTR_NULL(names_width(3));
	CU_ASSERT_PTR_NULL(names_width(255));
	CU_ASSERT_STRING_EQUAL(names_speed(4), "QDR");
	CU_ASSERT_PTR_NULL(names_speed(0));
	CU_ASSERT_EQUAL(names_mtu_bytes(4), 2048);
	CU_ASSERT_EQUAL(names_mtu_bytes(5), 4096);
	CU_ASSERT_EQUAL(names_mtu_bytes(6), 0);
	CU_ASSERT_STRING_EQUAL(names_sm_state(3), "MASTER");
	CU_ASSERT_STRING_EQUAL(names_sm_state(0), "NOTACTIVE");
	CU_ASSERT_STRING_EQUAL(names_sm_state(4), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(names_node_type_long(NODE_CA), "Channel Adapter");
	CU_ASSERT_STRING_EQUAL(names_node_type_long(0), "???");
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"snapshot indexes", test_snapshot_indexes},
	    {"snapshot diff", test_diff},
	    {"a snapshot carries its changes", test_snapshot_changes},
	    {"ibnetdiscover writer read back", test_topo_write_round_trip},
	    {"enum names", test_names},
	    {NULL, NULL},
	};

	return testutil_run("snapshot", cases);
}

/*
 * Unit tests of the fabric model (fabric/fabric.c) and the topology reader
 * (fabric/topo.c): ibsim's example nets, an ibnetdiscover dump with LIDs, and
 * malformed files with the line their error must name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "fabric/fabric.h"
#include "fabric/names.h"
#include "fabric/topo.h"
#include "tests/testutil.h"

#define IBSIM_EXAMPLES "/usr/share/doc/ibsim-utils/net-examples"

static int parse_str(const char *text, struct fabric **ret, char *err, size_t err_len)
{
	return topo_parse(text, strlen(text), ret, err, err_len);
}

static void test_fabric_add_find(void)
{
	struct fabric *f = fabric_new();
	uint32_t idx, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 42), FABRIC_NO_NODE);
	for (i = 0; i < 5000; i++) {
		CU_ASSERT_EQUAL(fabric_add_node(f, 0x1000 + i * 0x100,
						i % 3 ? NODE_CA : NODE_SWITCH, i % 3 ? 2 : 36,
						&idx),
				0);
		CU_ASSERT_EQUAL(idx, i);
	}
	CU_ASSERT_EQUAL(f->n_nodes, 5000);
	for (i = 0; i < 5000; i++)
		CU_ASSERT_EQUAL(fabric_find_guid(f, 0x1000 + i * 0x100), i);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 0x1001), FABRIC_NO_NODE);
	idx = 0;
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x1000 + 77 * 0x100, NODE_CA, 1, &idx), -EEXIST);
	CU_ASSERT_EQUAL(idx, 77);
	CU_ASSERT_EQUAL(f->n_nodes, 5000);
	CU_ASSERT_EQUAL(fabric_count(f, NODE_SWITCH), 1667);
	CU_ASSERT_EQUAL(fabric_count(f, NODE_CA), 3333);
	CU_ASSERT_EQUAL(fabric_count(f, NODE_ROUTER), 0);
	CU_ASSERT_EQUAL(f->nodes[3].nports, 36);
	CU_ASSERT_EQUAL(f->nodes[3].ports[36].remote_node, FABRIC_NO_NODE);
	CU_ASSERT_EQUAL(f->nodes[1].ports[2].remote_node, FABRIC_NO_NODE);
	fabric_free(f);
	fabric_free(NULL);
}

static void test_fabric_link(void)
{
	struct fabric *f = fabric_new();
	uint32_t sw, a, b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x10, NODE_SWITCH, 4, &sw), 0);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x20, NODE_CA, 2, &a), 0);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x30, NODE_CA, 1, &b), 0);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 1, a, 1), 0);
	CU_ASSERT_EQUAL(f->nodes[sw].ports[1].remote_node, a);
	CU_ASSERT_EQUAL(f->nodes[sw].ports[1].remote_port, 1);
	CU_ASSERT_EQUAL(f->nodes[a].ports[1].remote_node, sw);
	CU_ASSERT_EQUAL(f->nodes[a].ports[1].remote_port, 1);
	CU_ASSERT_EQUAL(fabric_link(f, a, 1, sw, 1), 0); /* same pair again */
	CU_ASSERT_EQUAL(fabric_link(f, sw, 1, b, 1), -EBUSY);
	CU_ASSERT_EQUAL(fabric_link(f, b, 1, a, 1), -EBUSY);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 5, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 0, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 2, 99, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 2, sw, 2), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 2, sw, 3), 0); /* loopback cable */
	CU_ASSERT_EQUAL(fabric_link(f, a, 2, sw, 4), 0);
	CU_ASSERT_TRUE(port_is_linked(&f->nodes[b].ports[0]) == false);
	CU_ASSERT_FALSE(port_is_linked(&f->nodes[b].ports[1]));
	fabric_free(f);
}

/* The LID-carrying ports, in node then port order: switch port 0, CA and router ports 1..n. */
static void test_lid_port_iter(void)
{
	static const struct {
		uint8_t type, nports;
	} nodes[] = {
	    {NODE_SWITCH, 4}, {NODE_CA, 2}, {NODE_CA, 0}, {NODE_ROUTER, 1}, {NODE_SWITCH, 2},
	};
	static const uint32_t want_node[] = {0, 1, 1, 3, 4};
	static const uint8_t want_port[] = {0, 1, 2, 1, 0};
	struct fabric *f = fabric_new();
	struct fabric_port_iter it;
	unsigned n = 0;
	uint32_t idx;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fabric_for_each_lid_port (f, &it)
		n++;
	CU_ASSERT_EQUAL(n, 0); /* an empty fabric */
	for (unsigned i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		CU_ASSERT_EQUAL_FATAL(
		    fabric_add_node(f, 0x100 + i, nodes[i].type, nodes[i].nports, &idx), 0);
	fabric_for_each_lid_port (f, &it) {
		CU_ASSERT_FATAL(n < 5);
		CU_ASSERT_EQUAL(it.node, want_node[n]);
		CU_ASSERT_EQUAL(it.port, want_port[n]);
		n++;
	}
	CU_ASSERT_EQUAL(n, 5);
	/* break and continue behave as in any loop; the walk starts over each time */
	n = 0;
	fabric_for_each_lid_port (f, &it) {
		if (it.node == 1)
			continue;
		if (it.node == 4)
			break;
		n++;
	}
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(it.node, 4);
	fabric_free(f);
}

/* P_Key tables: only where set; a clone's and a pruned fabric's are their own */
static void test_fabric_pkeys(void)
{
	struct fabric *f = fabric_new(), *c, *p;
	uint32_t sw, a, b, gone = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x10, NODE_SWITCH, 4, &sw), 0);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x20, NODE_CA, 1, &a), 0);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x30, NODE_CA, 1, &b), 0);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 1, a, 1), 0);
	CU_ASSERT_EQUAL(fabric_link(f, sw, 2, b, 1), 0);
	f->sm_node = a;
	f->sm_port = 1;
	f->nodes[sw].dr_hops = 1;
	f->nodes[sw].dr_path[1] = 1;
	f->nodes[b].dr_hops = 2;
	f->nodes[b].dr_path[1] = 1;
	f->nodes[b].dr_path[2] = 2;
	CU_ASSERT_PTR_NULL(f->nodes[sw].ports[3].pkeys);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port_pkeys_alloc(&f->nodes[a].ports[1]));
	CU_ASSERT_PTR_NOT_NULL_FATAL(port_pkeys_alloc(&f->nodes[b].ports[1]));
	CU_ASSERT_EQUAL(f->nodes[a].ports[1].pkeys[63], 0); /* zeroed */
	f->nodes[a].ports[1].pkeys[0] = 0xffff;
	f->nodes[a].ports[1].pkeys[63] = 0x8001;
	f->nodes[b].ports[1].pkeys[0] = 0x7fff;
	CU_ASSERT_EQUAL(port_pkeys_alloc(&f->nodes[a].ports[1])[0], 0xffff); /* kept */

	c = fabric_clone(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_EQUAL(c->nodes[a].ports[1].pkeys, f->nodes[a].ports[1].pkeys);
	CU_ASSERT_EQUAL(c->nodes[a].ports[1].pkeys[63], 0x8001);
	CU_ASSERT_PTR_NULL(c->nodes[sw].ports[1].pkeys);
	c->nodes[a].ports[1].pkeys[63] = 0x8002;
	CU_ASSERT_EQUAL(f->nodes[a].ports[1].pkeys[63], 0x8001);

	/* b cut off: pruned away with its table; a's copied */
	fabric_unlink(c, sw, 2);
	p = fabric_prune(c, &gone);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(gone, 1);
	CU_ASSERT_EQUAL(p->n_nodes, 2);
	CU_ASSERT_PTR_NOT_EQUAL(p->nodes[a].ports[1].pkeys, c->nodes[a].ports[1].pkeys);
	CU_ASSERT_EQUAL(p->nodes[a].ports[1].pkeys[63], 0x8002);
	CU_ASSERT_EQUAL(fabric_prune_in_place(c, &gone), 0);
	CU_ASSERT_EQUAL(c->n_nodes, 2);
	/* the GUID index follows: b's GUID is gone, the others where they moved */
	CU_ASSERT_EQUAL(fabric_find_guid(c, f->nodes[b].guid), FABRIC_NO_NODE);
	for (uint32_t i = 0; i < c->n_nodes; i++)
		CU_ASSERT_EQUAL(fabric_find_guid(c, c->nodes[i].guid), i);
	CU_ASSERT_EQUAL(c->nodes[a].ports[1].pkeys[63], 0x8002);
	CU_ASSERT(fabric_mem(c) < fabric_mem(f));
	fabric_free(p);
	fabric_free(c);
	fabric_free(f);
}

static void test_fabric_lid_map(void)
{
	struct fabric *f = fabric_new();
	struct lid_map m;
	uint32_t sw, a, l;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x10, NODE_SWITCH, 4, &sw), 0);
	CU_ASSERT_EQUAL(fabric_add_node(f, 0x20, NODE_CA, 2, &a), 0);
	CU_ASSERT_EQUAL(fabric_lid_map(f, &m), 0);
	CU_ASSERT_EQUAL(m.max_lid, 0);
	fabric_lid_map_clear(&m);

	f->nodes[sw].ports[0].lid = 1;
	f->nodes[sw].ports[3].lid = 99; /* switch external ports carry no LID */
	f->nodes[a].ports[1].lid = 4;
	f->nodes[a].ports[1].lmc = 2;
	f->nodes[a].ports[2].lid = 8;
	CU_ASSERT_EQUAL(fabric_lid_map(f, &m), 0);
	CU_ASSERT_EQUAL(m.max_lid, 8);
	CU_ASSERT_EQUAL(m.node[0], FABRIC_NO_NODE);
	CU_ASSERT_EQUAL(m.node[1], sw);
	CU_ASSERT_EQUAL(m.port[1], 0);
	for (l = 2; l <= 3; l++)
		CU_ASSERT_EQUAL(m.node[l], FABRIC_NO_NODE);
	for (l = 4; l <= 7; l++) {
		CU_ASSERT_EQUAL(m.node[l], a);
		CU_ASSERT_EQUAL(m.port[l], 1);
	}
	CU_ASSERT_EQUAL(m.node[8], a);
	CU_ASSERT_EQUAL(m.port[8], 2);
	fabric_lid_map_clear(&m);
	CU_ASSERT_PTR_NULL(m.node);

	/* port 2 inside port 1's LMC range: first wins, -EEXIST */
	f->nodes[a].ports[2].lid = 6;
	CU_ASSERT_EQUAL(fabric_lid_map(f, &m), -EEXIST);
	CU_ASSERT_EQUAL(m.max_lid, 7);
	CU_ASSERT_EQUAL(m.node[6], a);
	CU_ASSERT_EQUAL(m.port[6], 1);
	fabric_lid_map_clear(&m);
	fabric_lid_map_clear(NULL);
	fabric_free(f);
}

static void test_node_type_str(void)
{
	CU_ASSERT_STRING_EQUAL(names_node_type(NODE_CA), "CA");
	CU_ASSERT_STRING_EQUAL(names_node_type(NODE_SWITCH), "Switch");
	CU_ASSERT_STRING_EQUAL(names_node_type(NODE_ROUTER), "Router");
	CU_ASSERT_PTR_NOT_NULL(names_node_type(0));
}

static void test_topo_ibsim_example(void)
{
	struct fabric *f = NULL, *g = NULL;
	const struct node *s1, *s2, *h1, *h2;
	char err[256];
	uint32_t i1, i2, i3, i4;
	unsigned int p;

	if (access(IBSIM_EXAMPLES "/net.2sw2path4hca2port", R_OK)) {
		CU_FAIL("ibsim-utils examples not installed");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(
	    topo_load(IBSIM_EXAMPLES "/net.2sw2path4hca2port", &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f->n_nodes, 4);
	CU_ASSERT_EQUAL(fabric_count(f, NODE_SWITCH), 2);
	CU_ASSERT_EQUAL(fabric_count(f, NODE_CA), 2);
	i1 = testutil_find_desc(f, "Switch1");
	i2 = testutil_find_desc(f, "Switch2");
	i3 = testutil_find_desc(f, "Hca1");
	i4 = testutil_find_desc(f, "Hca2");
	CU_ASSERT_FATAL(i1 == 0 && i2 != FABRIC_NO_NODE && i3 != FABRIC_NO_NODE &&
			i4 != FABRIC_NO_NODE);
	s1 = &f->nodes[i1];
	s2 = &f->nodes[i2];
	h1 = &f->nodes[i3];
	h2 = &f->nodes[i4];
	CU_ASSERT_EQUAL(f->sm_node, 0);
	CU_ASSERT_EQUAL(f->sm_port, 0);
	CU_ASSERT_EQUAL(s1->nports, 8);
	CU_ASSERT_EQUAL(h1->nports, 2);
	CU_ASSERT_EQUAL(s1->lft_cap, 49152);
	/* parallel switch links 3 and 5, a dual-ported CA on each switch */
	CU_ASSERT_EQUAL(s1->ports[3].remote_node, i2);
	CU_ASSERT_EQUAL(s1->ports[3].remote_port, 3);
	CU_ASSERT_EQUAL(s1->ports[5].remote_node, i2);
	CU_ASSERT_EQUAL(s1->ports[5].remote_port, 5);
	CU_ASSERT_EQUAL(s1->ports[2].remote_node, i3);
	CU_ASSERT_EQUAL(s1->ports[2].remote_port, 2);
	CU_ASSERT_EQUAL(h2->ports[1].remote_node, i2);
	CU_ASSERT_EQUAL(s2->ports[2].remote_node, i4);
	CU_ASSERT_FALSE(port_is_linked(&s1->ports[4]));
	CU_ASSERT_EQUAL(s1->ports[4].state, PORT_DOWN);
	CU_ASSERT_EQUAL(s1->ports[4].phys_state, PHYS_POLLING);
	CU_ASSERT_EQUAL(s1->ports[3].state, PORT_ACTIVE);
	CU_ASSERT_EQUAL(s1->ports[3].phys_state, PHYS_LINKUP);
	CU_ASSERT_EQUAL(s1->ports[0].state, PORT_ACTIVE);
	for (p = 0; p <= s1->nports; p++) {
		CU_ASSERT_TRUE(s1->ports[p].valid);
		CU_ASSERT_EQUAL(s1->ports[p].guid, s1->guid);
		CU_ASSERT_EQUAL(s1->ports[p].mtu_cap, 4);
		CU_ASSERT_EQUAL(s1->ports[p].vl_cap, 4);
	}
	CU_ASSERT_EQUAL(h1->ports[1].guid, h1->guid + 1);
	CU_ASSERT_EQUAL(h1->ports[2].guid, h1->guid + 2);
	CU_ASSERT_TRUE(h1->ports[2].valid);
	/* GUIDs are a function of the names: parse again, same GUIDs */
	CU_ASSERT_EQUAL_FATAL(
	    topo_load(IBSIM_EXAMPLES "/net.2sw2path4hca2port", &g, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(g->nodes[i3].guid, h1->guid);
	CU_ASSERT_NOT_EQUAL(h1->guid, h2->guid);
	CU_ASSERT_NOT_EQUAL(s1->guid, s2->guid);
	fabric_free(g);
	fabric_free(f);
}

static void test_topo_ibsim_all_examples(void)
{
	static const char *const names[] = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca",
					    "net.2sw2path4hca2port"};
	struct fabric *f;
	char path[256], err[256];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), IBSIM_EXAMPLES "/%s", names[i]);
		f = NULL;
		CU_ASSERT_EQUAL(topo_load(path, &f, err, sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL(f);
		fabric_free(f);
	}
	/* "net": Hca2 lists only port 2; its port 1 stays down */
	f = NULL;
	CU_ASSERT_EQUAL_FATAL(topo_load(IBSIM_EXAMPLES "/net", &f, err, sizeof(err)), 0);
	i = testutil_find_desc(f, "Hca2");
	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	CU_ASSERT_FALSE(port_is_linked(&f->nodes[i].ports[1]));
	CU_ASSERT_EQUAL(f->nodes[i].ports[2].remote_node, 0);
	CU_ASSERT_EQUAL(f->nodes[i].ports[2].remote_port, 2);
	fabric_free(f);
}

static const char ibnd_dump[] =
    "#\n"
    "# Topology file: generated on Tue Jun  1 10:00:00 2021\n"
    "#\n"
    "# Initiated from node 0000000000100001 port 0000000000100002\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xb924\n"
    "sysimgguid=0x200001\n"
    "switchguid=0x200001(200001)\n"
    "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
    "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 5 4xSDR\n"
    "[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 2 4xSDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xb924\n"
    "sysimgguid=0x200000\n"
    "switchguid=0x200000(200000)\n"
    "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0\n"
    "[1]\t\"H-0000000000100001\"[1](100002) \t\t# \"Hca1\" lid 6 4xSDR\n"
    "[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x6274\n"
    "sysimgguid=0x100003\n"
    "caguid=0x100003\n"
    "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
    "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 5 lmc 0 \"Switch2\" lid 3 4xSDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x6274\n"
    "sysimgguid=0x100001\n"
    "caguid=0x100001\n"
    "Ca\t2 \"H-0000000000100001\"\t\t# \"Hca1\"\n"
    "[1](100002) \t\"S-0000000000200000\"[1]\t\t# lid 6 lmc 1 \"Switch1\" lid 2 4xSDR\n";

static void test_topo_ibnetdiscover(void)
{
	struct fabric *f = NULL;
	const struct node *s2, *s1, *h2, *h1;
	struct lid_map m;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(parse_str(ibnd_dump, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(f->n_nodes, 4);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 0x200001), 0);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 0x200000), 1);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 0x100003), 2);
	CU_ASSERT_EQUAL(fabric_find_guid(f, 0x100001), 3);
	s2 = &f->nodes[0];
	s1 = &f->nodes[1];
	h2 = &f->nodes[2];
	h1 = &f->nodes[3];
	CU_ASSERT_STRING_EQUAL(s2->desc, "Switch2");
	CU_ASSERT_STRING_EQUAL(h1->desc, "Hca1");
	CU_ASSERT_EQUAL(s2->type, NODE_SWITCH);
	CU_ASSERT_EQUAL(h2->type, NODE_CA);
	CU_ASSERT_EQUAL(s2->vendor_id, 0x2c9);
	CU_ASSERT_EQUAL(s2->device_id, 0xb924);
	CU_ASSERT_EQUAL(h2->device_id, 0x6274);
	CU_ASSERT_EQUAL(h2->sys_guid, 0x100003);
	CU_ASSERT_EQUAL(s2->ports[0].lid, 3);
	CU_ASSERT_EQUAL(s1->ports[0].lid, 2);
	CU_ASSERT_EQUAL(s1->ports[1].lid, 0); /* "lid 6" there is the remote's */
	CU_ASSERT_EQUAL(h2->ports[1].lid, 5);
	CU_ASSERT_EQUAL(h2->ports[1].guid, 0x100004);
	CU_ASSERT_EQUAL(h1->ports[1].lid, 6);
	CU_ASSERT_EQUAL(h1->ports[1].lmc, 1);
	CU_ASSERT_EQUAL(h1->ports[1].guid, 0x100002);
	CU_ASSERT_EQUAL(h1->ports[2].lid, 0);
	CU_ASSERT_FALSE(port_is_linked(&h1->ports[2]));
	CU_ASSERT_EQUAL(s2->ports[3].remote_node, 1);
	CU_ASSERT_EQUAL(s2->ports[3].remote_port, 3);
	CU_ASSERT_EQUAL(h1->ports[1].remote_node, 1);
	CU_ASSERT_EQUAL(f->sm_node, 0);
	CU_ASSERT_EQUAL(f->sm_port, 0);

	CU_ASSERT_EQUAL_FATAL(fabric_lid_map(f, &m), 0);
	CU_ASSERT_EQUAL(m.max_lid, 7);
	CU_ASSERT_EQUAL(m.node[2], 1);
	CU_ASSERT_EQUAL(m.node[3], 0);
	CU_ASSERT_EQUAL(m.node[5], 2);
	CU_ASSERT_EQUAL(m.node[6], 3);
	CU_ASSERT_EQUAL(m.node[7], 3);
	CU_ASSERT_EQUAL(m.port[7], 1);
	CU_ASSERT_EQUAL(m.node[4], FABRIC_NO_NODE);
	fabric_lid_map_clear(&m);
	fabric_free(f);
}

static void test_topo_ca_first(void)
{
	struct fabric *f = NULL;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(parse_str("Hca 2 \"h\"\n[2] \"s\"[7] w=4\n"
					"Rt 1 \"r\"\n[1] \"s\"[1]\n"
					"Switch 8 \"s\"\n",
					&f, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(f->sm_node, 0);
	CU_ASSERT_EQUAL(f->sm_port, 1);
	CU_ASSERT_EQUAL(f->nodes[1].type, NODE_ROUTER);
	CU_ASSERT_EQUAL(f->nodes[2].ports[7].remote_node, 0);
	CU_ASSERT_EQUAL(f->nodes[2].ports[7].remote_port, 2);
	CU_ASSERT_FALSE(f->nodes[0].ports[0].valid);
	fabric_free(f);
}

struct bad_case {
	const char *text;
	const char *prefix; /* err must start with this */
	const char *contains;
};

static void test_topo_errors(void)
{
	static const struct bad_case cases[] = {
	    {"Switch 8 \"A\"\n[1] \"B\"[1]\n\nHca 1 \"B\"\n[1] \"A\"[1]\nbogus line\n",
	     "6: ", "unknown"},
	    {"# c\n# c\n[1] \"A\"[1]\n", "3: ", "before"},
	    {"Switch x \"A\"\n", "1: ", "port count"},
	    {"Switch 0 \"A\"\n", "1: ", "port count"},
	    {"Switch 4 \"A\n", "1: ", "quoted"},
	    {"Switch 4 \"A\" junk\n", "1: ", "unexpected"},
	    {"Switch 4 \"A\"\n[1 \"B\"[1]\n", "2: ", "local port"},
	    {"Switch 4 \"A\"\n[1] \"B\"1\n\nHca 1 \"B\"\n", "2: ", "remote port"},
	    {"Switch 4 \"A\"\n[1] \"B\"[1] extra\nHca 1 \"B\"\n", "2: ", "unexpected"},
	    {"Switch 4 \"A\"\nswitchguid=zz\n", "2: ", "bad number"},
	    {"Switch 4 \"A\"\nfoo=1\n", "2: ", "unknown setting"},
	    {"include other.net\n", "1: ", "include"},
	    {"# empty\n", "1: ", "no nodes"},
	    /* dangling link and ports out of range */
	    {"Switch 4 \"A\"\n[1] \"B\"[1]\n[2] \"Z\"[1]\n\nHca 1 \"B\"\n",
	     "3: ", "unknown node \"Z\""},
	    {"Switch 4 \"A\"\n[5] \"B\"[1]\n\nHca 1 \"B\"\n", "2: ", "out of range"},
	    {"Switch 4 \"A\"\n[1] \"B\"[1]\n[2] \"B\"[2]\n\nHca 1 \"B\"\n",
	     "3: ", "port 2 out of range for \"B\""},
	    {"Switch 4 \"A\"\n[1] \"B\"[0]\n\nHca 1 \"B\"\n", "2: ", "port 0"},
	    /* one port, two different cables */
	    {"Switch 4 \"A\"\n[1] \"B\"[1]\n[2] \"C\"[1]\n\nHca 1 \"B\"\n[1] \"A\"[1]\n\n"
	     "Hca 1 \"C\"\n[1] \"A\"[1]\n",
	     "9: ", "already linked"},
	    {"Switch 4 \"A\"\n[1] \"B\"[1]\n\nHca 1 \"B\"\n[1] \"A\"[2]\n",
	     "5: ", "already linked"},
	    {"Switch 4 \"A\"\n[1] \"A\"[1]\n", "2: ", "itself"},
	    {"Switch 4 \"A\"\n\nHca 1 \"B\"\n\nHca 1 \"A\"\n", "5: ", "already defined"},
	    {"caguid=0x10\nHca 1 \"A\"\ncaguid=0x10\nHca 1 \"B\"\n", "4: ", "already used"},
	};
	struct fabric *f;
	char err[256];
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = NULL;
		err[0] = '\0';
		rc = parse_str(cases[i].text, &f, err, sizeof(err));
		CU_ASSERT_EQUAL(rc, -EBADMSG);
		CU_ASSERT_PTR_NULL(f);
		if (strncmp(err, cases[i].prefix, strlen(cases[i].prefix)) ||
		    !strstr(err, cases[i].contains)) {
			fprintf(stderr, "\ncase %u: got \"%s\", want \"%s...%s\"\n", i, err,
				cases[i].prefix, cases[i].contains);
			CU_FAIL("wrong error message");
		}
		fabric_free(f);
	}
	/* a NUL byte inside the text */
	f = NULL;
	CU_ASSERT_EQUAL(topo_parse("Switch 4 \"A\"\n\0x", 15, &f, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_EQUAL(strncmp(err, "2: ", 3), 0);
	/* no error buffer is fine */
	CU_ASSERT_EQUAL(parse_str("bogus\n", &f, NULL, 0), -EBADMSG);
	/* a line over the bound, even a comment, is refused with its number */
	{
		char *big = malloc(5000);

		CU_ASSERT_PTR_NOT_NULL_FATAL(big);
		memset(big, 'x', 4999);
		memcpy(big, "Switch 4 \"A\"\n#", 14);
		big[4999] = '\0';
		CU_ASSERT_EQUAL(parse_str(big, &f, err, sizeof(err)), -EBADMSG);
		CU_ASSERT_STRING_EQUAL(err, "2: line longer than 4096 bytes");
		big[4096 + 13] = '\0'; /* exactly 4096: fine */
		f = NULL;
		CU_ASSERT_EQUAL(parse_str(big, &f, err, sizeof(err)), 0);
		fabric_free(f);
		free(big);
	}
}

static void test_topo_load_errors(void)
{
	char path[] = "/tmp/test_fabric_XXXXXX", err[512], want[512];
	struct fabric *f = NULL;
	FILE *fp;
	int fd;

	CU_ASSERT_EQUAL(topo_load("/nonexistent/topo.net", &f, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/topo.net"));

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	fp = fdopen(fd, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs("Switch 4 \"A\"\n[1] \"B\"[1]\n\nHca 1 \"B\"\n[1] \"A\"[1]\n[2] \"A\"[2]\n", fp);
	fclose(fp);
	CU_ASSERT_EQUAL(topo_load(path, &f, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_PTR_NULL(f);
	snprintf(want, sizeof(want), "%s:6: ", path);
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	unlink(path);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"add/find", test_fabric_add_find},
	    {"link", test_fabric_link},
	    {"LID-carrying port iterator", test_lid_port_iter},
	    {"P_Key tables", test_fabric_pkeys},
	    {"lid map", test_fabric_lid_map},
	    {"node type names", test_node_type_str},
	    {"ibsim example net", test_topo_ibsim_example},
	    {"all ibsim examples", test_topo_ibsim_all_examples},
	    {"ibnetdiscover dump", test_topo_ibnetdiscover},
	    {"CA first, router, options", test_topo_ca_first},
	    {"syntax and link errors", test_topo_errors},
	    {"load errors", test_topo_load_errors},
	    {NULL, NULL},
	};

	return testutil_run("fabric", cases);
}

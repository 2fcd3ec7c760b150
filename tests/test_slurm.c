/*
 * Unit tests of fabric/slurm.c and fabric/nodemap.c: Slurm's hostlist
 * compression; the node name map's lines and errors (LINE); topology.conf
 * of a k=4 fat tree, named by the map and by descriptions, against a
 * hand-written file (tests/fabrics/fattree-k4.topology.conf); topology.yaml;
 * dual-ported hosts on two leaves listed once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/nodemap.h"
#include "fabric/slurm.h"
#include "lib/lines.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

static void hl(const char *want, size_t n, const char *const *names)
{
	char *got = NULL;

	CU_ASSERT_EQUAL_FATAL(slurm_hostlist(names, n, &got), 0);
	if (strcmp(got, want))
		printf("\n    hostlist: got %s, want %s\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void test_hostlist(void)
{
	static const char *const a[] = {"h3", "h0", "h1", "h2", "h5", "h7", "h4"};
	static const char *const b[] = {"h0", "h1", "h2", "h3", "h4", "h5", "h7"};
	static const char *const c[] = {"gpu02", "gpu01", "login", "gpu10", "gpu09", "h1", "h1"};
	static const char *const d[] = {"n9", "n10", "n11", "x", "n1"};
	static const char *const e[] = {"a1b2", "a1b3", "rack1-n5"};

	hl("h[0-5,7]", 7, a);
	hl("h[0-5,7]", 7, b);
	hl("gpu[01-02,09-10],h1,login", 7, c);
	hl("n[1,9-11],x", 5, d);
	hl("a1b[2-3],rack1-n5", 3, e);
	hl("", 0, a);
	hl("h3", 1, a);
}

static struct nodemap *map_of(const char *text)
{
	struct nodemap *m = NULL;
	char err[200];

	CU_ASSERT_EQUAL_FATAL(nodemap_parse(text, strlen(text), &m, err, sizeof(err)), 0);
	return m;
}

static void map_bad(const char *text, const char *want)
{
	struct nodemap *m = NULL;
	char err[200];

	CU_ASSERT_EQUAL(nodemap_parse(text, strlen(text), &m, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_PTR_NULL(m);
	if (strncmp(err, want, strlen(want)))
		printf("\n    nodemap: got '%s', want '%s...'\n", err, want);
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
}

static void test_nodemap(void)
{
	struct nodemap *m = map_of("# OpenSM's node name map\n"
				   "0x0002c90200000100 \"node 1\"\n"
				   "  0x0002c90200000200   \"gpu02\" # a comment\n"
				   "\n"
				   "0x300 plain # bare word\n"
				   "1024 \"decimal\"\n");

	CU_ASSERT_EQUAL(nodemap_count(m), 4);
	CU_ASSERT_STRING_EQUAL(nodemap_name(m, 0x0002c90200000100ULL), "node 1");
	CU_ASSERT_STRING_EQUAL(nodemap_name(m, 0x0002c90200000200ULL), "gpu02");
	CU_ASSERT_STRING_EQUAL(nodemap_name(m, 0x300), "plain");
	CU_ASSERT_STRING_EQUAL(nodemap_name(m, 1024), "decimal");
	CU_ASSERT_PTR_NULL(nodemap_name(m, 0x401));
	CU_ASSERT_PTR_NULL(nodemap_name(NULL, 0x300));
	nodemap_free(m);
	map_bad("0x1 \"a\"\nguid \"b\"\n", "2: expected a GUID");
	map_bad("0x1 \"a\"\n0x1 \"b\"\n", "2: 0x0000000000000001 named twice");
	map_bad("\n\n0x1 \"a\n", "3: unterminated");
	map_bad("0x1 \"a\" b\n", "1: unexpected text");
	map_bad("0x1\n", "1: bad GUID");
	map_bad("0 \"zero\"\n", "1: GUID 0");
	map_bad("0x1 \"\"\n", "1: empty name");
}

static char *slurp(const char *path)
{
	char *text = NULL, err[300];
	size_t len;

	CU_ASSERT_EQUAL_FATAL(lines_read_file(path, 1 << 20, 0, &text, &len, err, sizeof(err)), 0);
	return text;
}

static char *conf_of(const struct fabric *f, const struct nodemap *m, bool yaml)
{
	struct slurm_topo *t = NULL;
	char *buf = NULL;
	size_t size;
	FILE *fp = open_memstream(&buf, &size);

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL_FATAL(slurm_build(f, m, &t), 0);
	CU_ASSERT_EQUAL(yaml ? slurm_write_yaml(t, fp) : slurm_write_conf(t, fp), 0);
	fclose(fp);
	slurm_free(t);
	return buf;
}

static void test_topology_conf(void)
{
	char *text = topogen_fat_tree(2, 4, 0, 0), path[512], *want, *got, map[1024];
	const char *srcdir = getenv("top_srcdir");
	struct fabric *f = testutil_load_text(text);
	struct nodemap *m;
	size_t off = 0;

	/* hosts h00..h07 and spine 1 "spine-b" by the map; the rest by descriptions */
	for (int i = 0; i < 8; i++) {
		uint32_t ni = testutil_find_desc(f, (char[8]){'c', 'a', '-', (char)('0' + i), 0});

		off += (size_t)snprintf(map + off, sizeof(map) - off, "0x%016llx \"h%02d\"\n",
					(unsigned long long)f->nodes[ni].guid, i);
	}
	snprintf(map + off, sizeof(map) - off, "0x%016llx \"spine-b\"\n",
		 (unsigned long long)f->nodes[testutil_find_desc(f, "sw-L2-1")].guid);
	m = map_of(map);
	snprintf(path, sizeof(path), "%s/tests/fabrics/fattree-k4.topology.conf",
		 srcdir ? srcdir : ".");
	want = slurp(path);
	got = conf_of(f, m, false);
	if (strcmp(got, want))
		printf("\n%s", got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(want);
	/* without a map: by descriptions */
	got = conf_of(f, NULL, false);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "SwitchName=sw-L1-3 Nodes=ca-[6-7]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "SwitchName=sw-L2-1 Switches=sw-L1-[0-3]\n"));
	free(got);
	got = conf_of(f, m, true);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "- topology: ibsmd-tree\n  cluster_default: true\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(got, "      - switch: \"sw-L1-1\"\n        nodes: \"h[02-03]\"\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(got, "      - switch: \"spine-b\"\n        children: \"sw-L1-[0-3]\"\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(got, "      - block: \"sw-L1-3\"\n        nodes: \"h[06-07]\"\n"));
	free(got);
	nodemap_free(m);
	fabric_free(f);
	free(text);
}

/* Hosts named "host-N port" with two HCAs on two leaves, and a 3-level tree. */
static void test_dual_and_levels(void)
{
	char *text = topogen_fat_tree(2, 4, 0, TOPOGEN_DUAL);
	struct fabric *f = testutil_load_text(text);
	struct slurm_topo *t = NULL;

	CU_ASSERT_EQUAL_FATAL(slurm_build(f, NULL, &t), 0);
	CU_ASSERT_EQUAL(t->n_leaves, 4);
	for (uint32_t i = 0; i < t->n_hosts; i++) {
		CU_ASSERT_EQUAL(t->hosts[i].n_leaves, 2);
		CU_ASSERT_EQUAL(t->hosts[i].leaf, t->hosts[i].leaves[0]);
	}
	/* each host under one leaf */
	{
		uint32_t listed = 0;

		for (uint32_t k = 0; k < t->n_sw; k++)
			listed += t->sw[k].level ? 0 : t->sw[k].n_hosts;
		CU_ASSERT_EQUAL(listed, t->n_hosts);
	}
	slurm_free(t);
	fabric_free(f);
	free(text);
	text = topogen_fat_tree(3, 4, 0, 0);
	f = testutil_load_text(text);
	CU_ASSERT_EQUAL_FATAL(slurm_build(f, NULL, &t), 0);
	CU_ASSERT_EQUAL(t->n_hosts, 16);
	CU_ASSERT_EQUAL(t->n_leaves, 8);
	CU_ASSERT_EQUAL(t->n_sw, 20);
	CU_ASSERT_EQUAL(t->sw[t->n_sw - 1].level, 2); /* cores last */
	CU_ASSERT_EQUAL(t->sw[0].n_above, 2);
	slurm_free(t);
	fabric_free(f);
	free(text);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"hostlist compression", test_hostlist},
	    {"node name map: lines and errors", test_nodemap},
	    {"topology.conf and topology.yaml of a k=4 fat tree", test_topology_conf},
	    {"dual-ported hosts once; three levels", test_dual_and_levels},
	    {NULL, NULL},
	};

	return testutil_run("slurm", cases);
}

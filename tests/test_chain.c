/*
 * Unit tests of the routing fallback chain (routing/chain.c) and of the
 * options every engine takes (struct routing_opts): the first engine that
 * routes is used and nothing after it is tried, refusals come back in order
 * with names, errors and reasons, a repeated name is tried once, unknown
 * names and all-refused chains fail as documented, updn's roots from the
 * options give the tables the former updn_compute_roots() gave, dor on a
 * torus refuses one VL, and NULL options are the defaults.  Also the
 * roots file reader (daemon/offline.c) those roots come from.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "daemon/offline.h"
#include "policy/roots.h"
#include "routing/chain.h"
#include "routing/routing.h"
#include "tests/checker.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

static struct fabric *load_lids(char *text)
{
	struct fabric *f = testutil_load_text(text);

	free(text);
	CU_ASSERT(testutil_assign_lids(f, 0) > 0);
	return f;
}

/* FNV-1a over every switch's LFT, in node order. */
static uint64_t lft_hash(const struct fabric *f, const struct routes *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint32_t i;
	size_t l;

	for (i = 0; i < f->n_nodes; i++) {
		if (!r->lft[i])
			continue;
		for (l = 0; l <= r->max_lid; l++) {
			h ^= r->lft[i][l];
			h *= 0x100000001b3ULL;
		}
	}
	return h;
}

static bool same_lfts(const struct fabric *f, const struct routes *a, const struct routes *b)
{
	uint32_t i;

	if (a->max_lid != b->max_lid || a->n_vls != b->n_vls)
		return false;
	for (i = 0; i < f->n_nodes; i++)
		if (a->lft[i] && memcmp(a->lft[i], b->lft[i], (size_t)a->max_lid + 1))
			return false;
	return true;
}

static void expect_refusal(const struct chain_result *res, unsigned int i, const char *engine,
			   int rc, const char *needle)
{
	CU_ASSERT_FATAL(i < res->n_refusals);
	CU_ASSERT_STRING_EQUAL(res->refusals[i].engine, engine);
	CU_ASSERT_EQUAL(res->refusals[i].rc, rc);
	if (!strstr(res->refusals[i].reason, needle))
		fprintf(stderr, "\n  refusal %u: %s: \"%s\", wanted \"%s\"", i,
			res->refusals[i].engine, res->refusals[i].reason, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(res->refusals[i].reason, needle));
	CU_ASSERT_PTR_NULL(strchr(res->refusals[i].reason, '\n'));
}

static void test_first_wins(void)
{
	struct fabric *f = load_lids(topogen_fat_tree(2, 4, 0, 0));
	struct chain_result res;
	struct routes *r = NULL;
	char why[256];

	/* a later name that is no engine would be a refusal if it were tried */
	CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, "ftree", "nope,updn,minhop", &res), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res.engine);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "ftree");
	CU_ASSERT_EQUAL(res.n_refusals, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res.routes);
	checker_assert_sound(f, res.routes, CHECKER_MINIMAL, "chain ftree on ft2 k4");
	CU_ASSERT_EQUAL_FATAL(ftree_compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT(same_lfts(f, res.routes, r));
	routes_free(r);
	chain_result_clear(&res);
	CU_ASSERT_PTR_NULL(res.routes);
	CU_ASSERT_PTR_NULL(res.engine);

	/* first may be empty: the chain alone; and first may be a list */
	CU_ASSERT_EQUAL(chain_run(f, NULL, "", "minhop,nope", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "minhop");
	CU_ASSERT_EQUAL(res.n_refusals, 0);
	chain_result_clear(&res);
	CU_ASSERT_EQUAL(chain_run(f, NULL, " updn, nope", NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "updn");
	CU_ASSERT_EQUAL(res.n_refusals, 0);
	chain_result_clear(&res);
	chain_result_clear(NULL);
	fabric_free(f);
}

/* A 5x4 torus: ftree refuses it, dor needs 2 VLs for it, updn routes it. */
static void test_refusals_in_order(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	const struct routing_opts one_vl = {.max_vls = 1};
	struct chain_result res;

	CU_ASSERT_EQUAL_FATAL(chain_run(f, &one_vl, "ftree", "bogus, dor,updn,minhop", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "updn");
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 3);
	expect_refusal(&res, 0, "ftree", -ENOTSUP, "not a fat tree");
	expect_refusal(&res, 1, "bogus", -EINVAL, "unknown routing engine");
	expect_refusal(&res, 2, "dor", -ENOTSUP, "2 data VLs");
	CU_ASSERT_PTR_NOT_NULL(strstr(res.refusals[2].reason, "max_vls is 1"));
	checker_assert_sound(f, res.routes, 0, "chain updn on torus 5x4");
	CU_ASSERT_EQUAL(res.routes->n_vls, 1);
	chain_result_clear(&res);
	fabric_free(f);
}

static void test_repeated_names(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	struct chain_result res;

	CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, "ftree,ftree", "ftree , nope,nope,updn", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "updn");
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 2);
	expect_refusal(&res, 0, "ftree", -ENOTSUP, "not a fat tree");
	expect_refusal(&res, 1, "nope", -EINVAL, "unknown routing engine");
	chain_result_clear(&res);

	/* a name and a longer name that starts with it are different names */
	CU_ASSERT_EQUAL(chain_run(f, NULL, "ftre", "ftree,ftreex", &res), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 3);
	expect_refusal(&res, 0, "ftre", -EINVAL, "unknown routing engine");
	expect_refusal(&res, 1, "ftree", -ENOTSUP, "not a fat tree");
	expect_refusal(&res, 2, "ftreex", -EINVAL, "unknown routing engine");
	chain_result_clear(&res);
	fabric_free(f);
}

static void test_unknown(void)
{
	struct fabric *f = load_lids(topogen_fat_tree(2, 4, 0, 0));
	char longname[80], names[256];
	struct chain_result res;
	unsigned int i;
	size_t len;

	CU_ASSERT_EQUAL(chain_run(f, NULL, "nope", NULL, &res), -EINVAL);
	CU_ASSERT_PTR_NULL(res.routes);
	CU_ASSERT_PTR_NULL(res.engine);
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	expect_refusal(&res, 0, "nope", -EINVAL, "unknown routing engine");
	chain_result_clear(&res);

	/* an unknown name, then one that routes */
	CU_ASSERT_EQUAL(chain_run(f, NULL, "nope", "minhop", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "minhop");
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	expect_refusal(&res, 0, "nope", -EINVAL, "unknown routing engine");
	chain_result_clear(&res);

	/* a name longer than a refusal holds: unknown, reported truncated */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CU_ASSERT_EQUAL(chain_run(f, NULL, longname, "", &res), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	CU_ASSERT_EQUAL(strlen(res.refusals[0].engine), sizeof(res.refusals[0].engine) - 1);
	CU_ASSERT_EQUAL(strncmp(res.refusals[0].engine, longname, 31), 0);
	chain_result_clear(&res);

	/* more names than CHAIN_MAX: the rest are not tried */
	for (i = 0, len = 0; i < CHAIN_MAX; i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "e%u,", i);
	CU_ASSERT_FATAL(len < sizeof(names));
	CU_ASSERT_EQUAL(chain_run(f, NULL, names, "minhop", &res), -EINVAL);
	CU_ASSERT_EQUAL(res.n_refusals, CHAIN_MAX);
	snprintf(longname, sizeof(longname), "e%u", CHAIN_MAX - 1);
	CU_ASSERT_STRING_EQUAL(res.refusals[CHAIN_MAX - 1].engine, longname);
	CU_ASSERT_PTR_NULL(res.routes);
	chain_result_clear(&res);
	/* ... but a repeated name does not count */
	CU_ASSERT_EQUAL(chain_run(f, NULL, "e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0,e0",
				  "minhop", &res),
			0);
	CU_ASSERT_EQUAL(res.n_refusals, 1);
	chain_result_clear(&res);
	fabric_free(f);
}

static void test_all_refuse(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	const struct routing_opts one_vl = {.max_vls = 1};
	struct chain_result res;

	CU_ASSERT_EQUAL(chain_run(f, &one_vl, "ftree", "dor", &res), -ENOTSUP);
	CU_ASSERT_PTR_NULL(res.routes);
	CU_ASSERT_PTR_NULL(res.engine);
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 2);
	expect_refusal(&res, 0, "ftree", -ENOTSUP, "not a fat tree");
	expect_refusal(&res, 1, "dor", -ENOTSUP, "2 data VLs");
	chain_result_clear(&res);

	/* the last engine's error is returned */
	CU_ASSERT_EQUAL(chain_run(f, NULL, "ftree", "nope", &res), -EINVAL);
	CU_ASSERT_EQUAL(res.n_refusals, 2);
	chain_result_clear(&res);

	/* none named */
	CU_ASSERT_EQUAL(chain_run(f, NULL, NULL, NULL, &res), -ENOTSUP);
	CU_ASSERT_EQUAL(res.n_refusals, 0);
	CU_ASSERT_PTR_NULL(res.routes);
	CU_ASSERT_EQUAL(chain_run(f, NULL, "", " , \t,", &res), -ENOTSUP);
	CU_ASSERT_EQUAL(res.n_refusals, 0);
	fabric_free(f);
}

/*
 * Given roots that differ from the automatic ones; the hashes are of the
 * tables updn_compute_roots() computed for these roots before struct
 * routing_opts existed (same topogen fabric, testutil LIDs).
 */
static void roots_case(char *text, const char *root, uint64_t want, uint64_t want_auto)
{
	struct fabric *f = load_lids(text);
	uint64_t guid = f->nodes[testutil_find_desc(f, root)].guid;
	const struct routing_opts o = {.roots = &guid, .n_roots = 1};
	struct chain_result res, aut;
	struct routes *r = NULL;
	char why[256] = "", label[64];

	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "updn", NULL, &res), 0);
	CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, "updn", NULL, &aut), 0);
	if (lft_hash(f, res.routes) != want)
		fprintf(stderr, "\n  updn root %s: hash %016llx\n", root,
			(unsigned long long)lft_hash(f, res.routes));
	CU_ASSERT_EQUAL(lft_hash(f, res.routes), want);
	CU_ASSERT_EQUAL(lft_hash(f, aut.routes), want_auto);
	CU_ASSERT(!same_lfts(f, res.routes, aut.routes));
	snprintf(label, sizeof(label), "updn root %s", root);
	checker_assert_sound(f, res.routes, 0, label);
	/* the engine called directly with the same options: the same tables */
	CU_ASSERT_EQUAL_FATAL(updn_compute(f, &o, &r, why, sizeof(why)), 0);
	CU_ASSERT(same_lfts(f, res.routes, r));
	routes_free(r);
	r = NULL;
	/* engines without roots ignore them */
	chain_result_clear(&aut);
	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, &o, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, "minhop", NULL, &aut), 0);
	CU_ASSERT(same_lfts(f, aut.routes, r));
	routes_free(r);
	chain_result_clear(&aut);
	chain_result_clear(&res);
	fabric_free(f);
}

static void test_updn_roots(void)
{
	struct fabric *f;
	struct chain_result res;
	struct routing_opts o = {0};
	uint64_t bad;

	roots_case(topogen_fat_tree(2, 8, 0, 0), "sw-L1-3", 0xa51ca84874017949ULL,
		   0x4c6c6bba800d9479ULL);
	roots_case(topogen_mesh(4, 4, 1, 0), "sw-0-0", 0x19e16a8fdb840b0dULL,
		   0x927680cdea9c8c80ULL);

	/* a root that is no switch: updn refuses, the chain goes on */
	f = load_lids(topogen_fat_tree(2, 4, 0, 0));
	bad = f->nodes[0].guid;
	o.roots = &bad;
	o.n_roots = 1;
	CU_ASSERT_EQUAL(chain_run(f, &o, "updn", "minhop", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "minhop");
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	expect_refusal(&res, 0, "updn", -EINVAL, "not a switch");
	chain_result_clear(&res);
	/* a count without an array */
	o.roots = NULL;
	CU_ASSERT_EQUAL(chain_run(f, &o, "updn", NULL, &res), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	expect_refusal(&res, 0, "updn", -EINVAL, "root");
	chain_result_clear(&res);
	fabric_free(f);
}

/*
 * dnup takes the roots too: from a spine of a 2-level fat tree it routes
 * otherwise than from the leaves; from a leaf it has no legal path for every
 * CA and gives updn's tables for the same root.
 */
static void test_dnup_roots(void)
{
	struct fabric *f = load_lids(topogen_fat_tree(2, 8, 0, 0));
	uint64_t guid = f->nodes[testutil_find_desc(f, "sw-L2-0")].guid;
	const struct routing_opts o = {.roots = &guid, .n_roots = 1};
	struct checker_cdg_stats cs;
	struct chain_result res, aut, up;
	char msg[256] = "";

	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "dnup", NULL, &res), 0);
	CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, "dnup", NULL, &aut), 0);
	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "updn", NULL, &up), 0);
	CU_ASSERT(!same_lfts(f, res.routes, aut.routes));
	CU_ASSERT(!same_lfts(f, res.routes, up.routes));
	checker_assert_sound(f, res.routes, 0, "dnup root sw-L2-0");
	CU_ASSERT_EQUAL(checker_cdg_acyclic(f, res.routes, &cs, msg, sizeof(msg)), 0);
	chain_result_clear(&up);
	chain_result_clear(&res);

	guid = f->nodes[testutil_find_desc(f, "sw-L1-3")].guid;
	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "dnup", NULL, &res), 0);
	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "updn", NULL, &up), 0);
	CU_ASSERT(same_lfts(f, res.routes, up.routes));
	CU_ASSERT(!same_lfts(f, res.routes, aut.routes));
	chain_result_clear(&up);
	chain_result_clear(&aut);
	chain_result_clear(&res);
	fabric_free(f);
}

static void test_dor_vls(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	struct routing_opts o = {.max_vls = 1};
	struct chain_result res;
	struct routes *r = NULL;
	char why[256] = "";

	CU_ASSERT_EQUAL(dor_compute(f, &o, &r, why, sizeof(why)), -ENOTSUP);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "2 data VLs"));
	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "dor", "updn", &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "updn");
	CU_ASSERT_EQUAL_FATAL(res.n_refusals, 1);
	expect_refusal(&res, 0, "dor", -ENOTSUP, "2 data VLs");
	chain_result_clear(&res);
	/* 2 VLs, or no limit: dor routes the torus with both */
	for (o.max_vls = 0; o.max_vls <= 2; o.max_vls += 2) {
		CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "dor", "updn", &res), 0);
		CU_ASSERT_STRING_EQUAL(res.engine->name, "dor");
		CU_ASSERT_EQUAL(res.n_refusals, 0);
		CU_ASSERT_EQUAL(res.routes->n_vls, 2);
		chain_result_clear(&res);
	}
	fabric_free(f);

	/* a mesh needs one VL */
	f = load_lids(topogen_mesh(4, 3, 1, 0));
	o.max_vls = 1;
	CU_ASSERT_EQUAL_FATAL(chain_run(f, &o, "dor", NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(res.engine->name, "dor");
	CU_ASSERT_EQUAL(res.routes->n_vls, 1);
	chain_result_clear(&res);
	fabric_free(f);
}

/* NULL options and zeroed options are the same, for every engine. */
static void test_null_opts(void)
{
	struct fabric *ft = load_lids(topogen_fat_tree(2, 8, 5, 0));
	struct fabric *torus = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	const struct routing_opts zero = {0};
	const struct routing_engine *e;

	for (e = routing_engines; e->name; e++) {
		const struct fabric *f = strcmp(e->name, "dor") ? ft : torus;
		struct routes *a = NULL, *b = NULL;
		struct chain_result res;
		char why[256] = "";

		CU_ASSERT_EQUAL_FATAL(e->compute(f, NULL, &a, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL_FATAL(e->compute(f, &zero, &b, why, sizeof(why)), 0);
		CU_ASSERT(same_lfts(f, a, b));
		CU_ASSERT_EQUAL_FATAL(chain_run(f, NULL, e->name, NULL, &res), 0);
		CU_ASSERT_PTR_EQUAL(res.engine, e);
		CU_ASSERT(same_lfts(f, a, res.routes));
		chain_result_clear(&res);
		routes_free(a);
		routes_free(b);
	}
	fabric_free(torus);
	fabric_free(ft);
}

static void test_has_refusal(void)
{
	struct fabric *f = load_lids(topogen_mesh(5, 4, 1, TOPOGEN_TORUS));
	const struct routing_opts one_vl = {.max_vls = 1};
	struct chain_result a, b;
	struct chain_refusal x;
	unsigned int i;

	CU_ASSERT_EQUAL(chain_run(f, &one_vl, "ftree", "dor,nope", &a), -EINVAL);
	CU_ASSERT_EQUAL(chain_run(f, &one_vl, "ftree", "dor,nope", &b), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(a.n_refusals, 3);
	CU_ASSERT_EQUAL_FATAL(b.n_refusals, 3);
	for (i = 0; i < b.n_refusals; i++) {
		CU_ASSERT(chain_has_refusal(a.refusals, a.n_refusals, &b.refusals[i]));
		CU_ASSERT(!chain_has_refusal(a.refusals, 0, &b.refusals[i]));
	}
	x = a.refusals[2];
	CU_ASSERT(!chain_has_refusal(a.refusals, 2, &x));
	x = a.refusals[0];
	snprintf(x.reason, sizeof(x.reason), "something else");
	CU_ASSERT(!chain_has_refusal(a.refusals, a.n_refusals, &x));
	x = a.refusals[0];
	snprintf(x.engine, sizeof(x.engine), "updn");
	CU_ASSERT(!chain_has_refusal(a.refusals, a.n_refusals, &x));
	x = a.refusals[0];
	x.rc = -ENOMEM;
	CU_ASSERT(!chain_has_refusal(a.refusals, a.n_refusals, &x));
	/* dor with 2 VLs routes: a different outcome, one refusal fewer */
	chain_result_clear(&b);
	CU_ASSERT_EQUAL(chain_run(f, NULL, "ftree", "dor,nope", &b), 0);
	CU_ASSERT_EQUAL_FATAL(b.n_refusals, 1);
	CU_ASSERT(chain_has_refusal(a.refusals, a.n_refusals, &b.refusals[0]));
	chain_result_clear(&b);
	chain_result_clear(&a);
	fabric_free(f);
}

/* Write text (len bytes) to a new temp file; its name in path. */
static void roots_write(char *path, const char *text, size_t len)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/test_chain_roots_XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* The roots file: GUIDs, comments, blank lines; each kind of bad line with its number. */
static void test_roots_file(void)
{
	static const char good[] = "# core\n0x0002c90000000001\n\n  \t\n0x0002c90000000002 \r\n"
				   "\t0xa  # not a comment: refused below\n";
	char path[64], err[512], want[600], longline[400];
	uint64_t *g = NULL;
	size_t n = 1;

	CU_ASSERT_EQUAL(roots_load("", &g, &n, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(g);
	CU_ASSERT_EQUAL(n, 0);

	/* the first five lines only: good */
	roots_write(path, good, strlen(good) - strlen("\t0xa  # not a comment: refused below\n"));
	CU_ASSERT_EQUAL(roots_load(path, &g, &n, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(g[0], 0x0002c90000000001ULL);
	CU_ASSERT_EQUAL(g[1], 0x0002c90000000002ULL);
	free(g);
	g = NULL;
	unlink(path);

	roots_write(path, good, sizeof(good) - 1);
	CU_ASSERT_EQUAL(roots_load(path, &g, &n, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), "%s:6: expected a switch GUID like 0x0002c90000000001", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(g);
	unlink(path);

	memset(longline, ' ', sizeof(longline));
	memcpy(longline, "0x1", 3);
	roots_write(path, longline, sizeof(longline));
	CU_ASSERT_EQUAL(roots_load(path, &g, &n, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), "%s:1: line longer than 255 characters", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	unlink(path);

	roots_write(path, "0x1\n0x2\0\n", 9);
	CU_ASSERT_EQUAL(roots_load(path, &g, &n, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), "%s:2: NUL byte in line", path);
	CU_ASSERT_STRING_EQUAL(err, want);

	strcat(path, ".missing");
	CU_ASSERT_EQUAL(roots_load(path, &g, &n, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(err, want);
	path[strlen(path) - strlen(".missing")] = '\0';
	unlink(path);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"the first engine that routes wins", test_first_wins},
	    {"refusals in order", test_refusals_in_order},
	    {"a repeated name is tried once", test_repeated_names},
	    {"unknown engine names", test_unknown},
	    {"every engine refuses", test_all_refuse},
	    {"updn roots from the options", test_updn_roots},
	    {"dnup roots from the options", test_dnup_roots},
	    {"dor on a torus with one VL", test_dor_vls},
	    {"NULL options are the defaults", test_null_opts},
	    {"refusal lists compared", test_has_refusal},
	    {"the roots file", test_roots_file},
	    {NULL, NULL},
	};

	return testutil_run("chain", cases);
}

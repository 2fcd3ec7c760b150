/*
 * The runtime partitions (policy/pkeyset.c): the two-source model (the
 * file's P_Keys cannot be changed, the runtime ones can), idempotent
 * requests, limits, copy on write, the merge and the port tables it gives
 * (index0, memberships; the indexed table against a plain reference on
 * random policies), the JSON document and its checks, the API's GUID, P_Key
 * and rate syntax.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/partition.h"
#include "policy/pkeyset.h"
#include "tests/testutil.h"

/* ca-0..ca-3 behind one switch: port GUIDs 0x...0101, 0x...0201, ... */
static const char topo[] = "switchguid=0x0002c90200001000\n"
			   "Switch 4 \"sw\"\n"
			   "[1] \"ca-0\"[1]\n[2] \"ca-1\"[1]\n[3] \"ca-2\"[1]\n[4] \"ca-3\"[1]\n"
			   "caguid=0x0002c90200000100\nHca 1 \"ca-0\"\n[1] \"sw\"[1]\n"
			   "caguid=0x0002c90200000200\nHca 1 \"ca-1\"\n[1] \"sw\"[2]\n"
			   "caguid=0x0002c90200000300\nHca 1 \"ca-2\"\n[1] \"sw\"[3]\n"
			   "caguid=0x0002c90200000400\nHca 1 \"ca-3\"\n[1] \"sw\"[4]\n";
#define CA(i) (0x0002c90200000101ull + 0x100ull * (i))

static const struct pkeyset_limits lim = {16, 100};

static struct partition_config *file_policy(const char *text)
{
	struct partition_config *c = NULL;
	char err[1024];

	CU_ASSERT_EQUAL_FATAL(partition_parse("p.conf", text, strlen(text), &c, err, sizeof(err)),
			      0);
	return c;
}

/* A request: op on pkey with n GUIDs (membership m). */
static void req_of(struct pkeyset_req *r, enum pkeyset_op op, uint16_t pkey, const uint64_t *g,
		   size_t n, uint8_t m)
{
	pkeyset_req_init(r);
	r->op = op;
	r->pkey = pkey;
	r->membership = m;
	if (n) {
		r->guids = malloc(n * sizeof(*g));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r->guids);
		memcpy(r->guids, g, n * sizeof(*g));
		r->n_guids = n;
	}
}

/* Apply; the return code; *s replaced by the new set when there is one. */
static int apply(struct pkeyset **s, const struct partition_config *file, enum pkeyset_op op,
		 uint16_t pkey, const uint64_t *g, size_t n, uint8_t m, struct pkeyset_delta *d)
{
	struct pkeyset_req r;
	struct pkeyset *ns = NULL;
	char err[256];
	int rc;

	req_of(&r, op, pkey, g, n, m);
	rc = pkeyset_apply(*s, &r, file, &lim, &ns, d, err, sizeof(err));
	pkeyset_req_clear(&r);
	CU_ASSERT(rc == 0 || err[0]);
	if (ns) {
		pkeyset_free(*s);
		*s = ns;
	}
	return rc;
}

static void test_two_sources(void)
{
	struct partition_config *file = file_policy("Default=0x7fff : ALL=full;\n"
						    "Storage=0x10 : ALL_CAS=full;\n");
	struct pkeyset *s = pkeyset_new();
	struct pkeyset_delta d;
	uint64_t g[3] = {CA(1), CA(2), CA(3)};
	const struct pkeyset_pkey *p;

	/* the file's P_Keys, the default's among them, are not the API's */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x10, g, 2, PARTITION_M_FULL, &d), -EEXIST);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_REMOVE, 0x10, g, 1, 0, &d), -EEXIST);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_DELETE, 0x8010, NULL, 0, 0, &d), -EEXIST);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x7fff, g, 1, PARTITION_M_FULL, &d), -EEXIST);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0, g, 1, PARTITION_M_FULL, &d), -EINVAL);
	CU_ASSERT_EQUAL(s->n, 0);
	/* a runtime P_Key: made by its first add */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x1234, g, 2, PARTITION_M_FULL, &d), 0);
	CU_ASSERT_TRUE(d.changed && d.created);
	CU_ASSERT_EQUAL(d.added, 2);
	CU_ASSERT_EQUAL(d.n_guids, 2);
	pkeyset_delta_clear(&d);
	p = pkeyset_find(s, 0x9234); /* bit 15 ignored */
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_TRUE(p->ipoib); /* UFM's default */
	CU_ASSERT_STRING_EQUAL(p->name, "pkey_0x1234");
	CU_ASSERT_EQUAL(p->n, 2);
	/* idempotent: the same GUIDs again, a removal of what is not there, a second delete */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x1234, g, 2, PARTITION_M_FULL, &d), 0);
	CU_ASSERT_FALSE(d.changed);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_REMOVE, 0x1234, &g[2], 1, 0, &d), 0);
	CU_ASSERT_FALSE(d.changed);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_REMOVE, 0x4321, g, 1, 0, &d), 0);
	CU_ASSERT_FALSE(d.changed);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_DELETE, 0x4321, NULL, 0, 0, &d), 0);
	CU_ASSERT_FALSE(d.changed);
	/* a membership changed is an update of that GUID only */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x1234, g, 3, PARTITION_M_LIMITED, &d), 0);
	CU_ASSERT_EQUAL(d.updated, 2);
	CU_ASSERT_EQUAL(d.added, 1);
	CU_ASSERT_EQUAL(d.n_guids, 3);
	pkeyset_delta_clear(&d);
	CU_ASSERT_EQUAL(pkeyset_member_find(pkeyset_find(s, 0x1234), CA(2))->membership,
			PARTITION_M_LIMITED);
	/* shrink, then delete */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_REMOVE, 0x1234, g, 1, 0, &d), 0);
	CU_ASSERT_EQUAL(d.removed, 1);
	CU_ASSERT_EQUAL(d.n_guids, 1);
	CU_ASSERT_EQUAL(d.guids[0], CA(1));
	pkeyset_delta_clear(&d);
	CU_ASSERT_EQUAL(pkeyset_find(s, 0x1234)->n, 2);
	CU_ASSERT_EQUAL(s->members, 2);
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_DELETE, 0x1234, NULL, 0, 0, &d), 0);
	CU_ASSERT_TRUE(d.deleted);
	CU_ASSERT_EQUAL(d.n_guids, 2);
	pkeyset_delta_clear(&d);
	CU_ASSERT_EQUAL(s->n, 0);
	CU_ASSERT_EQUAL(s->members, 0);
	/* QoS of a P_Key not there */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_QOS, 0x1234, NULL, 0, 0, &d), -ENOENT);
	pkeyset_free(s);
	partition_config_free(file);
}

static void test_limits_and_sharing(void)
{
	struct partition_config *file = file_policy("Default=0x7fff : ALL=full;\n");
	struct pkeyset *s = pkeyset_new(), *before;
	struct pkeyset_delta d;
	struct pkeyset_req r;
	uint64_t g[20];
	char err[256];
	int rc;

	for (int i = 0; i < 20; i++)
		g[i] = CA(0) + (uint64_t)i;
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x1, g, 17, PARTITION_M_FULL, &d), -E2BIG);
	for (uint16_t k = 1; k <= 100; k++) {
		CU_ASSERT_EQUAL_FATAL(apply(&s, file, PKEYSET_ADD, k, g, 1, PARTITION_M_FULL, &d),
				      0);
		pkeyset_delta_clear(&d);
	}
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 101, g, 1, PARTITION_M_FULL, &d), -ENOSPC);
	/* a P_Key there takes more GUIDs past the P_Key limit */
	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 100, g, 2, PARTITION_M_FULL, &d), 0);
	pkeyset_delta_clear(&d);
	/* the same GUID twice with two memberships */
	req_of(&r, PKEYSET_ADD, 7, g, 2, PARTITION_M_FULL);
	r.guids[1] = g[0];
	r.members = malloc(2);
	r.members[0] = PARTITION_M_FULL;
	r.members[1] = PARTITION_M_LIMITED;
	rc = pkeyset_apply(s, &r, file, &lim, &before, &d, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "twice"));
	pkeyset_req_clear(&r);
	/* copy on write: the old set is untouched, the P_Keys not changed are shared */
	before = s;
	req_of(&r, PKEYSET_ADD, 50, &g[5], 1, PARTITION_M_LIMITED);
	CU_ASSERT_EQUAL(pkeyset_apply(before, &r, file, &lim, &s, &d, err, sizeof(err)), 0);
	pkeyset_req_clear(&r);
	pkeyset_delta_clear(&d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(pkeyset_find(before, 50)->n, 1);
	CU_ASSERT_EQUAL(pkeyset_find(s, 50)->n, 2);
	CU_ASSERT_PTR_EQUAL(pkeyset_find(s, 49), pkeyset_find(before, 49));
	CU_ASSERT_EQUAL(s->members, before->members + 1);
	pkeyset_free(before);
	CU_ASSERT_EQUAL(pkeyset_find(s, 49)->n, 1); /* still there after the old set went */
	pkeyset_free(s);
	partition_config_free(file);
}

/* The plain table: every member of every partition looked at (the rule before the index). */
static size_t ref_table(const struct partition_config *c, const struct fabric *f, uint32_t ni,
			uint8_t pn, uint64_t sm_guid, uint16_t *keys, size_t cap)
{
	const struct node *n = &f->nodes[ni];
	uint64_t guid = n->ports[node_is_switch(n) ? 0 : pn].guid;
	size_t first = SIZE_MAX, nk = 0;

	for (size_t i = 0; i < c->n && first == SIZE_MAX; i++) {
		const struct partition *p = &c->parts[i];

		for (size_t k = 0; p->runtime && k < p->n_members; k++)
			if (p->members[k].guid == guid &&
			    (p->members[k].flags & PARTITION_MF_INDEX0))
				first = i;
	}
	for (size_t i = 0; i < c->n && first == SIZE_MAX; i++)
		if (c->parts[i].indx0)
			first = i;
	for (size_t i = 0; i < c->n && first == SIZE_MAX; i++)
		if (c->parts[i].pkey == PARTITION_DEFAULT_PKEY)
			first = i;
	for (size_t j = 0; j <= c->n; j++) {
		size_t i = j == 0 ? first : j - 1;
		const struct partition *p;
		bool full = false, lim_ = false, both = false;

		if (i >= c->n || (j > 0 && i == first))
			continue;
		p = &c->parts[i];
		for (size_t k = 0; k < p->n_members; k++) {
			const struct partition_member *m = &p->members[k];
			bool match = m->who == PARTITION_GUID		? m->guid == guid
				     : m->who == PARTITION_ALL		? true
				     : m->who == PARTITION_ALL_CAS	? n->type == NODE_CA
				     : m->who == PARTITION_ALL_SWITCHES ? n->type == NODE_SWITCH
				     : m->who == PARTITION_SELF		? guid == sm_guid
									: n->type == NODE_ROUTER;

			if (!match)
				continue;
			full |= m->membership == PARTITION_M_FULL;
			lim_ |= m->membership == PARTITION_M_LIMITED;
			both |= m->membership == PARTITION_M_BOTH;
		}
		if (p->pkey == PARTITION_DEFAULT_PKEY && guid == sm_guid)
			full = true;
		if (both && c->allow_both) {
			if (nk < cap)
				keys[nk] = p->pkey | PARTITION_FULL;
			nk++;
			if (nk < cap)
				keys[nk] = p->pkey;
			nk++;
			continue;
		}
		full |= both;
		if (full || lim_) {
			if (nk < cap)
				keys[nk] = (uint16_t)(p->pkey | (full ? PARTITION_FULL : 0));
			nk++;
		}
	}
	return nk;
}

static void test_merge_tables(void)
{
	struct partition_config *file =
	    file_policy("Default=0x7fff : ALL=limited, SELF=full;\n"
			"Blue=0x0002, indx0 : 0x0002c90200000401=full, ALL_SWITCHES=full;\n");
	struct fabric *f = testutil_load_text(topo);
	struct partition_config *m = NULL;
	struct pkeyset *s = pkeyset_new();
	struct pkeyset_delta d;
	struct pkeyset_req r;
	uint64_t g[2] = {CA(1), CA(2)};
	uint16_t k[64];
	uint32_t ca1 = testutil_find_desc(f, "ca-1"), ca2 = testutil_find_desc(f, "ca-2"),
		 ca3 = testutil_find_desc(f, "ca-3");
	size_t shadowed = 9;
	char err[256];

	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x30, g, 2, PARTITION_M_LIMITED, &d), 0);
	pkeyset_delta_clear(&d);
	req_of(&r, PKEYSET_ADD, 0x40, g, 1, PARTITION_M_FULL);
	r.index0 = true;
	r.ipoib = 0;
	{
		struct pkeyset *ns = NULL;

		CU_ASSERT_EQUAL(pkeyset_apply(s, &r, file, &lim, &ns, &d, err, sizeof(err)), 0);
		pkeyset_free(s);
		s = ns;
	}
	pkeyset_req_clear(&r);
	pkeyset_delta_clear(&d);
	CU_ASSERT_EQUAL_FATAL(pkeyset_merge(file, s, &m, &shadowed), 0);
	CU_ASSERT_EQUAL(shadowed, 0);
	CU_ASSERT_EQUAL(m->n, 4);
	CU_ASSERT_TRUE(m->parts[2].runtime && !m->parts[1].runtime);
	CU_ASSERT_FALSE(partition_find(m, 0x40)->ipoib);
	/* ca-1: 0x40 (index0, full) first, then the default, then 0x30 limited */
	memset(k, 0, sizeof(k));
	CU_ASSERT_EQUAL(partition_port_table(m, f, ca1, 1, CA(0), k, 64), 3);
	CU_ASSERT_EQUAL(k[0], 0x8040);
	CU_ASSERT_EQUAL(k[1], 0x7fff);
	CU_ASSERT_EQUAL(k[2], 0x0030);
	/* ca-2: the file's indx0 partition goes first when it holds no runtime index0 */
	CU_ASSERT_EQUAL(partition_port_table(m, f, ca2, 1, CA(0), k, 64), 2);
	CU_ASSERT_EQUAL(k[0], 0x7fff);
	CU_ASSERT_EQUAL(k[1], 0x0030);
	CU_ASSERT_EQUAL(partition_port_table(m, f, ca3, 1, CA(0), k, 64), 2);
	CU_ASSERT_EQUAL(k[0], 0x8002);
	partition_config_free(m);
	/* the file takes a runtime P_Key over: shadowed, left out */
	partition_config_free(file);
	file = file_policy("Default=0x7fff : ALL=limited;\nX=0x30 : ALL=full;\n");
	CU_ASSERT_EQUAL_FATAL(pkeyset_merge(file, s, &m, &shadowed), 0);
	CU_ASSERT_EQUAL(shadowed, 1);
	CU_ASSERT_FALSE(partition_find(m, 0x30)->runtime);
	CU_ASSERT_EQUAL(m->n, 3);
	partition_config_free(m);
	pkeyset_free(s);
	partition_config_free(file);
	fabric_free(f);
}

/* The indexed table equals the plain one on random policies. */
static void test_tables_random(void)
{
	struct fabric *f = testutil_load_text(topo);
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		char text[2048] = "";
		struct partition_config *file, *m = NULL;
		struct pkeyset *s = pkeyset_new();
		struct pkeyset_delta d;
		int np = 1 + (int)(rand_r(&seed) % 6);

		if (rand_r(&seed) % 2)
			strcat(text, "Default=0x7fff : ALL=limited;\n");
		for (int i = 0; i < np; i++) {
			char line[256];
			static const char *const who[] = {"ALL",
							  "ALL_CAS",
							  "ALL_SWITCHES",
							  "SELF",
							  "0x0002c90200000101",
							  "0x0002c90200000201",
							  "0x0002c90200000301",
							  "0x0002c90200000401"};
			static const char *const mem[] = {"full", "limited", "both"};

			int a = (int)(rand_r(&seed) % 8),
			    b = (a + 1 + (int)(rand_r(&seed) % 7)) % 8;

			snprintf(line, sizeof(line), "P%d=0x%x%s : %s=%s, %s=%s;\n", i, 0x100 + i,
				 rand_r(&seed) % 5 == 0 ? ", indx0" : "", who[a],
				 mem[rand_r(&seed) % 3], who[b], mem[rand_r(&seed) % 3]);
			strcat(text, line);
		}
		file = file_policy(text);
		file->allow_both = rand_r(&seed) % 2;
		for (int i = 0; i < 4; i++) {
			uint64_t g[2] = {CA(rand_r(&seed) % 4), CA(rand_r(&seed) % 4)};
			struct pkeyset_req r;
			struct pkeyset *ns = NULL;
			char err[128];

			req_of(&r, PKEYSET_ADD, (uint16_t)(0x200 + rand_r(&seed) % 3), g,
			       g[0] == g[1] ? 1 : 2,
			       rand_r(&seed) % 2 ? PARTITION_M_FULL : PARTITION_M_LIMITED);
			r.index0 = rand_r(&seed) % 3 == 0;
			if (pkeyset_apply(s, &r, file, &lim, &ns, &d, err, sizeof(err)) == 0 &&
			    ns) {
				pkeyset_free(s);
				s = ns;
			}
			pkeyset_delta_clear(&d);
			pkeyset_req_clear(&r);
		}
		CU_ASSERT_EQUAL_FATAL(pkeyset_merge(file, s, &m, NULL), 0);
		m->allow_both = file->allow_both;
		for (uint32_t ni = 0; ni < f->n_nodes; ni++) {
			uint16_t a[64] = {0}, b[64] = {0};
			uint8_t pn = node_is_switch(&f->nodes[ni]) ? 0 : 1;
			size_t na = partition_port_table(m, f, ni, pn, CA(0), a, 64);
			size_t nb = ref_table(m, f, ni, pn, CA(0), b, 64);

			CU_ASSERT_EQUAL(na, nb);
			if (na != nb || memcmp(a, b, sizeof(a))) {
				fprintf(stderr, "\n  round %d node %u:\n%s", round, ni, text);
				CU_FAIL("the indexed table differs");
			}
		}
		partition_config_free(m);
		partition_config_free(file);
		pkeyset_free(s);
	}
	fabric_free(f);
}

static void test_json(void)
{
	struct partition_config *file = file_policy("Default=0x7fff : ALL=full;\n");
	struct pkeyset *s = pkeyset_new(), *back = NULL;
	struct pkeyset_delta d;
	struct pkeyset_req r;
	uint64_t g[3] = {CA(1), CA(2), CA(3)};
	char err[256], *text;
	json_t *doc;

	CU_ASSERT_EQUAL(apply(&s, file, PKEYSET_ADD, 0x1234, g, 3, PARTITION_M_FULL, &d), 0);
	pkeyset_delta_clear(&d);
	req_of(&r, PKEYSET_ADD, 0x22, g, 1, PARTITION_M_LIMITED);
	r.index0 = true;
	r.mtu = 5;
	r.rate = 7;
	r.sl = 3;
	snprintf(r.name, sizeof(r.name), "job-17");
	{
		struct pkeyset *ns = NULL;

		CU_ASSERT_EQUAL(pkeyset_apply(s, &r, file, &lim, &ns, &d, err, sizeof(err)), 0);
		pkeyset_free(s);
		s = ns;
	}
	pkeyset_req_clear(&r);
	pkeyset_delta_clear(&d);
	doc = pkeyset_to_json(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(pkeyset_from_json(doc, &back, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_EQUAL(back->n, 2);
	CU_ASSERT_EQUAL(back->members, 4);
	CU_ASSERT_STRING_EQUAL(pkeyset_find(back, 0x22)->name, "job-17");
	CU_ASSERT_EQUAL(pkeyset_find(back, 0x22)->mtu, 5);
	CU_ASSERT_EQUAL(pkeyset_find(back, 0x22)->rate, 7);
	CU_ASSERT_EQUAL(pkeyset_find(back, 0x22)->sl, 3);
	CU_ASSERT_TRUE(pkeyset_find(back, 0x22)->m[0].index0);
	CU_ASSERT_EQUAL(pkeyset_find(back, 0x22)->m[0].membership, PARTITION_M_LIMITED);
	text = json_dumps(doc, JSON_COMPACT);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"0002c90200000201:limited:index0\""));
	free(text);
	json_decref(doc);
	pkeyset_free(back);
	/* every field is checked; one bad field refuses the document */
	{
		static const struct {
			const char *doc, *why;
		} bad[] = {
		    {"[]", "not a JSON object"},
		    {"{\"version\":2,\"pkeys\":[]}", "version"},
		    {"{\"version\":1}", "pkeys: missing"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x7fff\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[]}]}",
		     "pkeys[0].pkey"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[]}]}",
		     "pkeys[0].name"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":6,\"rate\":0,\"sl\":0,\"guids\":[]}]}",
		     "pkeys[0].mtu"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":1,\"sl\":0,\"guids\":[]}]}",
		     "no rate code"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[\"0002c90200000101:full\","
		     "\"0002c90200000101:limited\"]}]}",
		     "twice"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[\"0002c90200000101:fully\"]}]}",
		     "trailing"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[\"0000000000000000:full\"]}]}",
		     "not a GUID"},
		    {"{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1\",\"name\":\"a\",\"ip_over_ib\":"
		     "true,\"mtu\":0,\"rate\":0,\"sl\":0,\"guids\":[]},{\"pkey\":\"0x8001\","
		     "\"name\":\"b\",\"ip_over_ib\":false,\"mtu\":0,\"rate\":0,\"sl\":0,"
		     "\"guids\":[]}]}",
		     "twice"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			json_t *v = json_loads(bad[i].doc, 0, NULL);

			back = NULL;
			CU_ASSERT_PTR_NOT_NULL_FATAL(v);
			CU_ASSERT_EQUAL(pkeyset_from_json(v, &back, err, sizeof(err)), -EBADMSG);
			CU_ASSERT_PTR_NULL(back);
			if (!strstr(err, bad[i].why)) {
				fprintf(stderr, "\n  case %zu: '%s', want '%s'", i, err,
					bad[i].why);
				CU_FAIL("not the error wanted");
			}
			json_decref(v);
		}
	}
	pkeyset_free(s);
	partition_config_free(file);
}

static void test_syntax(void)
{
	uint64_t g = 0;
	uint16_t k = 0;

	CU_ASSERT_TRUE(pkeyset_parse_guid("0002c903000a1b2c", &g));
	CU_ASSERT_EQUAL(g, 0x0002c903000a1b2cull);
	CU_ASSERT_TRUE(pkeyset_parse_guid("0x0002C903000A1B2D", &g));
	CU_ASSERT_EQUAL(g, 0x0002c903000a1b2dull);
	CU_ASSERT_TRUE(pkeyset_parse_guid("00:02:c9:03:00:0a:1b:2e", &g));
	CU_ASSERT_EQUAL(g, 0x0002c903000a1b2eull);
	CU_ASSERT_FALSE(pkeyset_parse_guid("0000000000000000", &g));
	CU_ASSERT_FALSE(pkeyset_parse_guid("2c903000a1b2c", &g));
	CU_ASSERT_FALSE(pkeyset_parse_guid("0002c903000a1b2c0", &g));
	CU_ASSERT_FALSE(pkeyset_parse_guid("00:02:c9:03:00:0a:1b-2e", &g));
	CU_ASSERT_FALSE(pkeyset_parse_guid("0002c903000a1b2g", &g));
	CU_ASSERT_FALSE(pkeyset_parse_guid("", &g));
	CU_ASSERT_TRUE(pkeyset_parse_pkey("0x1234", &k));
	CU_ASSERT_EQUAL(k, 0x1234);
	CU_ASSERT_TRUE(pkeyset_parse_pkey("0x8002", &k));
	CU_ASSERT_EQUAL(k, 0x0002);
	CU_ASSERT_FALSE(pkeyset_parse_pkey("0x0", &k));
	CU_ASSERT_TRUE(pkeyset_parse_pkey("0xffff", &k)); /* the default's: the file owns it */
	CU_ASSERT_EQUAL(k, 0x7fff);
	CU_ASSERT_FALSE(pkeyset_parse_pkey("0x8000", &k));
	CU_ASSERT_FALSE(pkeyset_parse_pkey("0x12345", &k));
	CU_ASSERT_FALSE(pkeyset_parse_pkey("1234", &k));
	CU_ASSERT_FALSE(pkeyset_parse_pkey("0x", &k));
	CU_ASSERT_EQUAL(pkeyset_rate_code(2.5), 2);
	CU_ASSERT_EQUAL(pkeyset_rate_code(10), 3);
	CU_ASSERT_EQUAL(pkeyset_rate_code(100), 16);
	CU_ASSERT_EQUAL(pkeyset_rate_code(7), -1);
	CU_ASSERT_EQUAL(pkeyset_rate_code(-1), -1);
	CU_ASSERT_DOUBLE_EQUAL(pkeyset_rate_gbps(3), 10.0, 0.001);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"the file's P_Keys and the runtime ones", test_two_sources},
	    {"limits, copy on write", test_limits_and_sharing},
	    {"the merge and its port tables", test_merge_tables},
	    {"indexed tables against the plain rule", test_tables_random},
	    {"the JSON document", test_json},
	    {"GUID, P_Key and rate syntax", test_syntax},
	    {NULL, NULL},
	};

	return testutil_run("pkeyset", cases);
}

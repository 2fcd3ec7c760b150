/*
 * Partitions (policy/partition.c): the partitions.conf parser, its FILE:LINE
 * errors, and the P_Key table each port gets from a policy; the common
 * partition rule PathRecords follow.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/partition.h"
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

static struct partition_config *parse_ok(const char *text)
{
	struct partition_config *c = NULL;
	char err[2048];
	int r = partition_parse("p.conf", text, strlen(text), &c, err, sizeof(err));

	if (r != 0)
		fprintf(stderr, "unexpected: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	return c;
}

/* The errors text for a bad file (asserted to be -EINVAL). */
static void parse_bad(const char *text, char *err, size_t len)
{
	struct partition_config *c = NULL;

	CU_ASSERT_EQUAL(partition_parse("p.conf", text, strlen(text), &c, err, len), -EINVAL);
	CU_ASSERT_PTR_NULL(c);
}

static void test_parse_opensm_examples(void)
{
	struct partition_config *c = parse_ok(
	    "# from opensm(8)\n"
	    "Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;\n"
	    "NewPartition=0x8123 , ipoib , mtu=5, rate=7, sl=2 : 0x123456=full, 0x3456789034=limi,"
	    "  0x2134af2306 ;\n"
	    "YetAnotherOne = 0x300 : SELF=full ;\n"
	    "YetAnotherOne = 0x300 : ALL=limited ;\n"
	    "ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;\n"
	    "ShareIO = 0x80 : 0x123453,\n  0x123454, \\\n 0x123455=full;\n"
	    "ShareIO = 0x80 : defmember=limited : 0x123456, 0x123457, 0x123458=both;\n"
	    "Empty=0x9 : ;\n");
	const struct partition *p;

	CU_ASSERT_EQUAL(c->n, 5);
	p = partition_find(c, 0x123);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(p->name, "NewPartition");
	CU_ASSERT_TRUE(p->ipoib);
	CU_ASSERT_EQUAL(p->mtu, 5);
	CU_ASSERT_EQUAL(p->rate, 7);
	CU_ASSERT_EQUAL(p->sl, 2);
	CU_ASSERT_EQUAL(p->n_members, 3);
	CU_ASSERT_EQUAL(p->members[0].membership, PARTITION_M_FULL);
	CU_ASSERT_EQUAL(p->members[1].membership, PARTITION_M_LIMITED); /* "limi" */
	CU_ASSERT_EQUAL(p->members[2].membership, PARTITION_M_LIMITED);
	CU_ASSERT_EQUAL(p->members[2].guid, 0x2134af2306ull);
	p = partition_find(c, 0x80);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->n_members, 8); /* three definitions merged */
	CU_ASSERT_EQUAL(p->members[0].membership, PARTITION_M_FULL);
	CU_ASSERT_EQUAL(p->members[2].membership, PARTITION_M_LIMITED);
	CU_ASSERT_EQUAL(p->members[2].line, 7);
	CU_ASSERT_EQUAL(p->members[3].line, 8); /* 0x123454, continued on the next line */
	CU_ASSERT_EQUAL(p->members[4].membership, PARTITION_M_FULL);
	CU_ASSERT_EQUAL(p->members[7].membership, PARTITION_M_BOTH);
	CU_ASSERT_EQUAL(partition_find(c, 0x300)->n_members, 2);
	CU_ASSERT_EQUAL(partition_find(c, 0x9)->n_members, 0);
	CU_ASSERT_FALSE(partition_find(c, 0x7fff)->ipoib);
	partition_config_free(c);
}

static void test_default_partition(void)
{
	struct partition_config *c = parse_ok("P1=0x1 : ALL_CAS=full;");
	const struct partition *d = partition_find(c, 0x7fff);

	/* no rule for the default: ALL=limited, SELF=full, as OpenSM */
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n_members, 2);
	CU_ASSERT_EQUAL(d->members[0].who, PARTITION_ALL);
	CU_ASSERT_EQUAL(d->members[0].membership, PARTITION_M_LIMITED);
	CU_ASSERT_EQUAL(d->members[1].who, PARTITION_SELF);
	partition_config_free(c);

	c = partition_default();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n, 1);
	CU_ASSERT_EQUAL(c->parts[0].members[0].membership, PARTITION_M_FULL);
	CU_ASSERT_TRUE(c->parts[0].ipoib);
	partition_config_free(c);
	CU_ASSERT_EQUAL(partition_load("", &c, NULL, 0), 0);
	CU_ASSERT_FALSE(c->from_file);
	partition_config_free(c);
}

static void test_errors_file_line(void)
{
	char err[4096];

	parse_bad("Default=0x7fff : ALL=full;\n\nP=0x1 : 0xzz12;\n", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:3: unknown port GUID syntax '0xzz12'"));
	parse_bad("P=0x10000 : ALL;\nQ=0x8000 : ALL;\nR=abc : ALL;\n", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:1: bad P_Key '0x10000'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:2: bad P_Key '0x8000'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:3: bad P_Key 'abc'"));
	parse_bad("A=0x5 : ALL;\n# c\nB=0x5 : SELF;\n", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:3: duplicate P_Key 0x0005"));
	parse_bad("A=0x5 : 0x10,\n 0x20,\n 0x10=full;\n", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:3: duplicate member 0x0000000000000010"));
	parse_bad("A=0x5 ALL;\nB=0x6 : ALL\n", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:1: no ':'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:2: definition without a closing ';'"));
	parse_bad("A=0x5,bogus : ALL=sometimes;\nB : ALL;\nC=0x7,mtu=9:ALL;\nD=0x8:mgid=ff12::1;",
		  err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:1: unknown flag 'bogus'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:2: partition 'B' has no P_Key"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:3: mtu '9'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.conf:4: mgid= multicast groups are not supported"));
	/* every error, then a count when they do not fit */
	{
		char text[8192] = "";
		for (int i = 0; i < 200; i++)
			strcat(text, "X=0x1 : nope;\n");
		parse_bad(text, err, 300);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "more errors"));
		CU_ASSERT_TRUE(strlen(err) < 300);
	}
}

static struct fabric *load_topo(void)
{
	struct fabric *f = testutil_load_text(topo);
	return f;
}

static size_t table_of(const struct partition_config *c, const struct fabric *f, int ca,
		       uint16_t *keys)
{
	char desc[16];
	uint32_t ni;

	snprintf(desc, sizeof(desc), "ca-%d", ca);
	ni = testutil_find_desc(f, desc);
	CU_ASSERT_NOT_EQUAL_FATAL(ni, FABRIC_NO_NODE);
	memset(keys, 0, 64 * sizeof(*keys));
	return partition_port_table(c, f, ni, 1, CA(0), keys, 64);
}

static void test_port_tables(void)
{
	struct fabric *f = load_topo();
	char text[512];
	struct partition_config *c;
	uint16_t k[64];
	uint32_t sw;

	snprintf(text, sizeof(text),
		 "Default=0x7fff : ALL=limited;\n"
		 "Red=0x8001, ipoib : 0x%llx=full, 0x%llx ;\n"
		 "Blue=0x0002, indx0 : 0x%llx=full, 0x%llx=both, ALL_SWITCHES=full;\n",
		 (unsigned long long)CA(1), (unsigned long long)CA(2), (unsigned long long)CA(3),
		 (unsigned long long)CA(2));
	c = parse_ok(text);
	/* ca-0 runs the SM: full in the default, nothing else */
	CU_ASSERT_EQUAL(table_of(c, f, 0, k), 1);
	CU_ASSERT_EQUAL(k[0], 0xffff);
	CU_ASSERT_EQUAL(table_of(c, f, 1, k), 2);
	CU_ASSERT_EQUAL(k[0], 0x7fff);
	CU_ASSERT_EQUAL(k[1], 0x8001);
	/* allow_both_pkeys false (OpenSM's default): `both` is a full member */
	CU_ASSERT_EQUAL(table_of(c, f, 2, k), 3);
	CU_ASSERT_EQUAL(k[0], 0x8002);
	CU_ASSERT_EQUAL(k[1], 0x7fff);
	CU_ASSERT_EQUAL(k[2], 0x0001);
	c->allow_both = true;
	/* indx0: Blue first; both: two entries */
	CU_ASSERT_EQUAL(table_of(c, f, 2, k), 4);
	CU_ASSERT_EQUAL(k[0], 0x8002);
	CU_ASSERT_EQUAL(k[1], 0x0002);
	CU_ASSERT_EQUAL(k[2], 0x7fff);
	CU_ASSERT_EQUAL(k[3], 0x0001);
	CU_ASSERT_EQUAL(table_of(c, f, 3, k), 2);
	CU_ASSERT_EQUAL(k[0], 0x8002);
	sw = testutil_find_desc(f, "sw");
	CU_ASSERT_EQUAL(partition_port_table(c, f, sw, 0, CA(0), k, 64), 2);
	CU_ASSERT_EQUAL(k[0], 0x8002);
	CU_ASSERT_EQUAL(k[1], 0x7fff);
	/* cap: counted, not written */
	k[1] = 0x1234;
	CU_ASSERT_EQUAL(table_of(c, f, 2, k), 4);
	CU_ASSERT_EQUAL(partition_port_table(c, f, testutil_find_desc(f, "ca-2"), 1, CA(0), k, 1),
			4);
	CU_ASSERT_EQUAL(k[1], 0x0002);
	partition_config_free(c);
	fabric_free(f);
}

static void test_common_partition(void)
{
	uint16_t a[] = {0x7fff, 0x8001, 0, 0x0002};
	uint16_t b[] = {0x7fff, 0x0001};
	uint16_t sm[] = {0xffff};
	uint16_t c[] = {0x8003};
	uint16_t k = 0;

	/* both limited in the default; a full in 0x0001 */
	CU_ASSERT_TRUE(partition_common(a, 4, b, 2, 0, &k));
	CU_ASSERT_EQUAL(k, 0x8001);
	CU_ASSERT_FALSE(partition_common(a, 4, b, 2, 0x7fff, &k));
	CU_ASSERT_TRUE(partition_common(b, 2, sm, 1, 0, &k));
	CU_ASSERT_EQUAL(k, 0x7fff);
	CU_ASSERT_FALSE(partition_common(a, 4, c, 1, 0, &k));
	CU_ASSERT_FALSE(partition_common(b, 2, a, 4, 0x0002, &k));
	CU_ASSERT_EQUAL(partition_table_find(a, 4, 0x0002), 0x0002);
	CU_ASSERT_EQUAL(partition_table_find(a, 4, 0x8001), 0x8001);
	CU_ASSERT_EQUAL(partition_table_find(a, 4, 0x0005), 0);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"OpenSM's examples", test_parse_opensm_examples},
	    {"the default partition", test_default_partition},
	    {"errors with FILE:LINE", test_errors_file_line},
	    {"port tables", test_port_tables},
	    {"common partition", test_common_partition},
	    {NULL, NULL},
	};

	return testutil_run("partition", cases);
}

/*
 * QoS (policy/qos.c): OpenSM's qos_ values (VLArb and SL2VL lists), the
 * qos-ulps section of its qos-policy.conf with its FILE:LINE errors, the
 * SL a path gets, and the per-port tables: the class rows, the wrap of VLs
 * a port does not run, the cap by VLArb capacity, and the merge with the
 * routing engine's SL-to-VL layers (the engine wins, conflicts counted).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "policy/qos.h"
#include "tests/testutil.h"

/* ---- conf values ---------------------------------------------------------- */

static void test_vlarb(void)
{
	struct qos_vlarb t;
	char why[160], big[800];
	size_t off = 0;

	CU_ASSERT_EQUAL(qos_parse_vlarb("0:4,1:0, 2:255,14:1,", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.n, 4);
	CU_ASSERT_EQUAL(t.vl[2], 2);
	CU_ASSERT_EQUAL(t.weight[2], 255);
	CU_ASSERT_EQUAL(t.vl[3], 14);
	CU_ASSERT_EQUAL(qos_parse_vlarb("0x1:0x10", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.weight[0], 16);
	/* every kind of bad value */
	CU_ASSERT_EQUAL(qos_parse_vlarb("", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_vlarb("15:1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "entry 1: VL must be 0..14");
	CU_ASSERT_EQUAL(qos_parse_vlarb("0:256", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "entry 1: weight must be 0..255");
	CU_ASSERT_EQUAL(qos_parse_vlarb("0:1,1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "entry 2: want VL:weight");
	CU_ASSERT_EQUAL(qos_parse_vlarb("0:1;1:2", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_vlarb("a:1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_vlarb("-1:1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_vlarb("0:99999999999999999999", &t, why, sizeof(why)), -EINVAL);
	for (int i = 0; i < 65; i++)
		off +=
		    (size_t)snprintf(big + off, sizeof(big) - off, "%s%d:1", i ? "," : "", i % 15);
	CU_ASSERT_EQUAL(qos_parse_vlarb(big, &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "more than 64 VL:weight pairs");
	*strrchr(big, ',') = '\0'; /* 64 pairs */
	CU_ASSERT_EQUAL(qos_parse_vlarb(big, &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.n, 64);
}

static void test_sl2vl(void)
{
	uint8_t t[16];
	char why[160];

	CU_ASSERT_EQUAL(
	    qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7", t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t[15], 7);
	CU_ASSERT_EQUAL(t[14], 14);
	/* OpenSM's own example: 10 VLs and a trailing comma; the rest VL 0 */
	memset(t, 9, sizeof(t));
	CU_ASSERT_EQUAL(qos_parse_sl2vl("0,1,2,3,5,5,5,12,12,0,", t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t[7], 12);
	CU_ASSERT_EQUAL(t[10], 0);
	CU_ASSERT_EQUAL(t[15], 0);
	CU_ASSERT_EQUAL(qos_parse_sl2vl("15", t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(qos_parse_sl2vl("16", t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "SL 0: VL must be 0..15");
	CU_ASSERT_EQUAL(
	    qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7,1", t, why, sizeof(why)),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "more than 16 VLs (one per SL)");
	CU_ASSERT_EQUAL(qos_parse_sl2vl("0,,1", t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_sl2vl("0 1", t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_parse_sl2vl("", t, why, sizeof(why)), -EINVAL);
	CU_ASSERT(qos_value_unset("(null)"));
	CU_ASSERT(qos_value_unset("  "));
	CU_ASSERT(!qos_value_unset("0"));
}

static void test_tables_build(void)
{
	struct qos_tables d, all, ca;
	char why[160];

	qos_tables_default(&d);
	CU_ASSERT_EQUAL(d.max_vls, 15);
	CU_ASSERT_EQUAL(d.high.weight[0], 4);
	CU_ASSERT_EQUAL(d.low.weight[0], 0);
	CU_ASSERT_EQUAL(d.low.weight[14], 4);
	CU_ASSERT_EQUAL(d.sl2vl[15], 7);
	/* the qos_ keys over the defaults, a class over those: unset takes the level above */
	CU_ASSERT_EQUAL(qos_tables_build(&all, 4, 2, "", "0:1,1:2", "(null)", &d, why, sizeof(why)),
			0);
	CU_ASSERT_EQUAL(all.max_vls, 4);
	CU_ASSERT_EQUAL(all.high_limit, 2);
	CU_ASSERT_EQUAL(all.high.n, 15);
	CU_ASSERT_EQUAL(all.low.n, 2);
	CU_ASSERT_EQUAL(all.sl2vl[15], 7);
	CU_ASSERT_EQUAL(qos_tables_build(&ca, 0, -1, "3:9", "", "1,0", &all, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(ca.max_vls, 4);
	CU_ASSERT_EQUAL(ca.high_limit, 2);
	CU_ASSERT_EQUAL(ca.high.n, 1);
	CU_ASSERT_EQUAL(ca.low.n, 2);
	CU_ASSERT_EQUAL(ca.sl2vl[0], 1);
	CU_ASSERT_EQUAL(ca.sl2vl[2], 0);
	CU_ASSERT_EQUAL(qos_tables_build(&ca, 0, -1, "3:x", "", "", &all, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "vlarb_high: entry 1: weight must be 0..255");
	CU_ASSERT_EQUAL(qos_tables_build(&ca, 16, -1, "", "", "", &all, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(qos_tables_build(&ca, 0, 0, "", "", "1,99", &all, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "sl2vl: SL 1: VL must be 0..15");
}

/* ---- the policy file ------------------------------------------------------- */

static struct qos_policy *parse_ok(const char *text)
{
	struct qos_policy *q = NULL;
	char err[2048];
	int r = qos_policy_parse("q.conf", text, strlen(text), &q, err, sizeof(err));

	if (r != 0)
		fprintf(stderr, "unexpected: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	return q;
}

/* err holds every error of a bad file (asserted -EINVAL). */
static void parse_bad(const char *text, char *err, size_t len)
{
	struct qos_policy *q = NULL;

	CU_ASSERT_EQUAL(qos_policy_parse("q.conf", text, strlen(text), &q, err, len), -EINVAL);
	CU_ASSERT_PTR_NULL(q);
}

static uint8_t sl_of(const struct qos_policy *q, bool has_sid, uint64_t sid, uint16_t pkey,
		     uint64_t src, uint64_t dst, unsigned *line)
{
	struct qos_path_query pq = {has_sid, sid, pkey, src, dst};
	uint8_t sl = 99;

	return qos_rule_sl(q, &pq, &sl, line) ? sl : 99;
}

static void test_policy_ulps(void)
{
	struct qos_policy *q = parse_ok("# OpenSM's simplified policy\n"
					"qos-ulps\n"
					"    default : 0 # the default\n"
					"    sdp, port-num 30000          : 1\n"
					"    sdp, port-num 10000-20000    : 2\n"
					"    sdp                          : 3\n"
					"    rds                          : 4\n"
					"    iser                         : 5\n"
					"    iser, port-num 900           : 13\n"
					"    ipoib, pkey 0x0001           : 6\n"
					"    ipoib                        : 7\n"
					"    any, service-id 0x6234       : 8\n"
					"    any, pkey 0x0ABC,0x100-0x1ff : 9\n"
					"    srp, target-port-guid 0x1234 : 10\n"
					"    any, target-port-guid 0x0ABC-0xFFFFF : 11\n"
					"    any, source-port-guid 0x42   : 12\n"
					"end-qos-ulps\n");
	unsigned line = 0;

	CU_ASSERT(q->from_file);
	CU_ASSERT(!q->enabled);
	CU_ASSERT(q->has_default);
	CU_ASSERT_EQUAL(q->default_sl, 0);
	CU_ASSERT_EQUAL(q->n_rules, 13);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x10000 + 30000, 0, 0, 0, &line), 1);
	CU_ASSERT_EQUAL(line, 4);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x10000 + 15000, 0, 0, 0, NULL), 2);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x10000 + 5, 0, 0, 0, NULL), 3);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x10000 + 0xffff, 0, 0, 0, NULL), 3);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x1060000 + 18634, 0, 0, 0, NULL), 4);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x1060000 + 3260, 0, 0, 0, NULL), 5);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x1060000 + 900, 0, 0, 0, NULL), 13);
	/* P_Keys match on the low 15 bits, full or limited */
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x8001, 0, 0, NULL), 6);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x0001, 0, 0, NULL), 6);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0xffff, 0, 0, NULL), 7);
	CU_ASSERT_EQUAL(sl_of(q, true, 0x6234, 0, 0, 0, NULL), 8);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x8abc, 0, 0, NULL), 9);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x0150, 0, 0, NULL), 9);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0, 1, 0x1234, NULL), 10);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0, 1, 0x5000, NULL), 11);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0, 0x42, 7, NULL), 12);
	/* a ServiceID in the mask only: not named, no service-id rule matches */
	CU_ASSERT_EQUAL(sl_of(q, false, 0x6234, 0, 0, 0, NULL), 99);
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x0777, 0, 0, NULL), 99);
	/* the first match wins: the pkey rule before the GUID rule */
	CU_ASSERT_EQUAL(sl_of(q, false, 0, 0x8001, 0, 0x1234, NULL), 6);
	qos_policy_free(q);

	/* an empty file, comments only, an empty section: no rules, no default */
	q = parse_ok("# nothing\n\n");
	CU_ASSERT_EQUAL(q->n_rules, 0);
	CU_ASSERT(!q->has_default);
	qos_policy_free(q);
	q = parse_ok("QOS-ULPS\r\nDefault : 3\r\nend-qos-ulps");
	CU_ASSERT(q->has_default);
	CU_ASSERT_EQUAL(q->default_sl, 3);
	qos_policy_free(q);
	/* no file: no rules */
	CU_ASSERT_EQUAL(qos_policy_load("", &q, NULL, 0), 0);
	CU_ASSERT(!q->from_file);
	CU_ASSERT_EQUAL(q->n_rules, 0);
	CU_ASSERT_EQUAL(q->cls[QOS_SWE].max_vls, 15);
	qos_policy_free(q);
	qos_policy_free(NULL);
}

static void test_policy_bad(void)
{
	char err[4096], longline[1200];
	struct qos_policy *q = NULL;

	parse_bad("qos-ulps\n"
		  "  default : 16\n"
		  "  any : 1\n"
		  "  any, flavour 1 : 1\n"
		  "  any, service-id : 1\n"
		  "  any, service-id 0x10-0x1 : 1\n"
		  "  any, pkey 0x10000 : 1\n"
		  "  sdp, port-num 70000 : 1\n"
		  "  sdp, port 5 : 1\n"
		  "  srp : 1\n"
		  "  ipoib, guid 1 : 1\n"
		  "  nfs : 1\n"
		  "  default, pkey 1 : 1\n"
		  "  default : 1\n"
		  "  default : 2\n"
		  "  any, service-id 1,: 1\n"
		  "  any, service-id 1 2 : 1\n"
		  "  ipoib 0x1\n"
		  "  rds : x\n"
		  "end-qos-ulps\n",
		  err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:2: SL must be 0..15"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:3: 'any' needs service-id"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:4: 'any, flavour': unknown"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:5: any rule without values"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:6: range 0x10-0x1: low end above high end"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:7: bad value"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:8: sdp port number above 65535"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:9: 'sdp, port': want 'sdp, port-num PORTS'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:10: want 'srp, target-port-guid GUIDS'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:11: 'ipoib, guid': want 'ipoib, pkey PKEYS'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:12: unknown ULP 'nfs'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:13: 'default' takes no qualifier"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:15: a second 'default'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:16: a trailing ','"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:17: unexpected '2'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:18: want 'ULP[, what VALUES] : SL'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "q.conf:19: SL must be 0..15"));
	CU_ASSERT_PTR_NULL(strstr(err, "q.conf:14:"));

	parse_bad("qos-ulps\n default : 1\n", err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "q.conf:1: qos-ulps without end-qos-ulps");
	parse_bad("default : 1\n", err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "q.conf:1: 'default : 1' outside a section (want qos-ulps)");
	/* OpenSM's full policy: named, skipped to its end, not silently dropped */
	parse_bad("port-groups\n port-group\n name: x\n end-port-group\nend-port-groups\n"
		  "qos-ulps\n default : 1\nend-qos-ulps\nqos-levels\nend-qos-levels\n",
		  err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "q.conf:1: section 'port-groups' is OpenSM's full QoS policy, "
				    "which ibsmd does not support (only qos-ulps)\n"
				    "q.conf:9: section 'qos-levels' is OpenSM's full QoS policy, "
				    "which ibsmd does not support (only qos-ulps)");
	parse_bad("qos-ulps\nend-qos-ulps\nqos-ulps\nend-qos-ulps\n", err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "q.conf:3: a second qos-ulps section");
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	parse_bad(longline, err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "q.conf:1: line longer than 1023 bytes");
	CU_ASSERT_EQUAL(
	    qos_policy_parse("q.conf", "qos-ulps\n\0\nend-qos-ulps\n", 23, &q, err, sizeof(err)),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "q.conf:2: a NUL byte");
	/* errors past the buffer are counted */
	{
		char many[8192] = "qos-ulps\n", small[200];
		for (int i = 0; i < 100; i++)
			strcat(many, " nfs : 1\n");
		strcat(many, "end-qos-ulps\n");
		parse_bad(many, small, sizeof(small));
		CU_ASSERT_PTR_NOT_NULL(strstr(small, "more"));
	}
	CU_ASSERT(qos_policy_load("/nonexistent/qos-policy.conf", &q, err, sizeof(err)) < 0);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/qos-policy.conf: No such file or directory");
}

/* ---- ports ------------------------------------------------------------------ */

/* ca-0 -- sw[1], sw[2] -- sw2[1], ca-1 -- sw2[2]; VLCap VL0-7 (4) everywhere but ca-1: VL0-3 */
static const char topo[] = "switchguid=0x1000\nSwitch 2 \"sw\"\n[1] \"ca-0\"[1]\n[2] \"sw2\"[1]\n"
			   "switchguid=0x2000\nSwitch 2 \"sw2\"\n[1] \"sw\"[2]\n[2] \"ca-1\"[1]\n"
			   "caguid=0x100\nHca 1 \"ca-0\"\n[1] \"sw\"[1]\n"
			   "caguid=0x200\nHca 1 \"ca-1\"\n[1] \"sw2\"[2]\n";

static struct fabric *fab(void)
{
	struct fabric *f = testutil_load_text(topo);
	uint32_t c1 = testutil_find_desc(f, "ca-1");

	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].nports; p++) {
			struct port *pt = &f->nodes[i].ports[p];
			pt->valid = true;
			pt->vl_cap = i == c1 ? 3 : 4;
			/* VLArbHighCap 8, LowCap 40 (two blocks) */
			mad_set_field(pt->pi, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8);
			mad_set_field(pt->pi, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 40);
		}
	return f;
}

static struct qos_policy *policy_on(void)
{
	struct qos_policy *q = NULL;
	char why[160];

	CU_ASSERT_EQUAL_FATAL(qos_policy_load("", &q, NULL, 0), 0);
	q->enabled = true;
	CU_ASSERT_EQUAL(qos_tables_build(&q->cls[QOS_CA], 0, -1, "", "",
					 "1,0,3,2,4,5,6,7,8,9,10,"
					 "11,12,13,14,15",
					 &q->cls[QOS_CA], why, sizeof(why)),
			0);
	return q;
}

static void test_oper_vls(void)
{
	struct fabric *f = fab();
	struct qos_policy *q = policy_on();
	uint32_t sw = testutil_find_desc(f, "sw"), sw2 = testutil_find_desc(f, "sw2");
	uint32_t c1 = testutil_find_desc(f, "ca-1");

	CU_ASSERT_EQUAL(qos_vls_of_code(5), 15);
	CU_ASSERT_EQUAL(qos_vls_of_code(6), 0);
	CU_ASSERT_EQUAL(qos_code_of_vls(15), 5);
	CU_ASSERT_EQUAL(qos_code_of_vls(7), 3);
	CU_ASSERT_EQUAL(qos_code_of_vls(1), 1);
	/* without QoS, the smaller VLCap; with it, max_vls caps it */
	CU_ASSERT_EQUAL(qos_want_oper_vls(NULL, f, NULL, sw, 1), 4);
	CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, NULL, sw2, 2), 3); /* ca-1's VL0-3 */
	CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, NULL, c1, 1), 3);
	q->cls[QOS_SWE].max_vls = 2;
	CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, NULL, sw, 2), 2);
	q->cls[QOS_SWE].max_vls = 1;
	CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, NULL, sw, 2), 1);
	/* an engine of 2 layers wins over max_vls 1 */
	{
		struct routes *r = routes_new(f, 8);
		CU_ASSERT_EQUAL_FATAL(routes_alloc_vls(r, f, 2), 0);
		CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, r, sw, 2), 2);
		routes_free(r);
	}
	CU_ASSERT_EQUAL(qos_want_oper_vls(q, f, NULL, sw, 0), 0);
	qos_policy_free(q);
	fabric_free(f);
}

static void test_sl2vl_merge(void)
{
	struct fabric *f = fab();
	struct qos_policy *q = policy_on();
	uint32_t sw = testutil_find_desc(f, "sw"), c0 = testutil_find_desc(f, "ca-0");
	uint32_t c1 = testutil_find_desc(f, "ca-1");
	struct routes *r = routes_new(f, 8);
	uint8_t vl[16];
	uint16_t conflicts = 0xffff, eng;

	/* QoS off, a single-VL engine: the tables are left alone */
	CU_ASSERT(!qos_want_sl2vl(NULL, f, r, 0, sw, 1, vl, NULL));
	q->enabled = false;
	CU_ASSERT(!qos_want_sl2vl(q, f, r, 0, sw, 1, vl, NULL));
	q->enabled = true;
	/* QoS on: the class rows; ca-0 runs 8 VLs: 8..14 wrap to 0..6, 15 stays */
	CU_ASSERT(qos_want_sl2vl(q, f, r, 0, c0, 1, vl, &conflicts));
	CU_ASSERT_EQUAL(conflicts, 0);
	CU_ASSERT_EQUAL(vl[0], 1);
	CU_ASSERT_EQUAL(vl[2], 3);
	CU_ASSERT_EQUAL(vl[8], 0);
	CU_ASSERT_EQUAL(vl[14], 6);
	CU_ASSERT_EQUAL(vl[15], 15);
	/* active with OperationalVLs VL0-1: that many, whatever it could run */
	f->nodes[c0].ports[1].state = PORT_ACTIVE;
	f->nodes[c0].ports[1].oper_vls = 2;
	CU_ASSERT(qos_want_sl2vl(q, f, r, 0, c0, 1, vl, NULL));
	CU_ASSERT_EQUAL(vl[2], 1);
	CU_ASSERT_EQUAL(vl[8], 0);
	CU_ASSERT_EQUAL(vl[15], 15);
	f->nodes[c0].ports[1].state = PORT_INIT; /* in INIT it is still to be set */
	CU_ASSERT(qos_want_sl2vl(q, f, r, 0, c0, 1, vl, NULL));
	CU_ASSERT_EQUAL(vl[2], 3);
	/* ca-1 runs 4: VL 7 -> 3 (OpenSM's rule) */
	CU_ASSERT(qos_want_sl2vl(q, f, r, 0, c1, 1, vl, NULL));
	CU_ASSERT_EQUAL(vl[7], 3);
	CU_ASSERT_EQUAL(vl[4], 0);
	/* a switch external port: the default row, 15 -> 7 */
	CU_ASSERT(qos_want_sl2vl(q, f, r, 0, sw, 2, vl, NULL));
	CU_ASSERT_EQUAL(vl[3], 3);
	CU_ASSERT_EQUAL(vl[15], 7);
	CU_ASSERT(!qos_want_sl2vl(q, f, r, 0, sw, 0, vl, NULL)); /* port 0: not programmed */
	CU_ASSERT(!qos_want_sl2vl(q, f, r, 0, sw, 3, vl, NULL)); /* no such port */

	/* an engine of 2 VLs (a dateline on sw port 2): path SLs 0 and 2 */
	CU_ASSERT_EQUAL_FATAL(routes_alloc_vls(r, f, 2), 0);
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sw][2 * ROUTES_MAX_SL + sl] = (uint8_t)(sl >> 1 & 1);
	r->path_sl[0 * r->n_sw + 1] = 2;
	eng = qos_engine_sls(r);
	CU_ASSERT_EQUAL(eng, 0x5); /* SLs 0 and 2 */
	CU_ASSERT(qos_want_sl2vl(q, f, r, eng, sw, 2, vl, &conflicts));
	CU_ASSERT_EQUAL(vl[0], 0); /* the engine's, as the policy's */
	CU_ASSERT_EQUAL(vl[1], 1); /* not an engine SL: the policy's */
	CU_ASSERT_EQUAL(vl[2], 1); /* the engine's over the policy's 2 */
	CU_ASSERT_EQUAL(vl[3], 3);
	CU_ASSERT_EQUAL(conflicts, 1u << 2);
	/* the CA: the engine's all-zero row wins for SLs 0 and 2 */
	CU_ASSERT(qos_want_sl2vl(q, f, r, eng, c0, 1, vl, &conflicts));
	CU_ASSERT_EQUAL(vl[0], 0);
	CU_ASSERT_EQUAL(vl[1], 0);
	CU_ASSERT_EQUAL(vl[2], 0);
	CU_ASSERT_EQUAL(conflicts, (1u << 0) | (1u << 2));
	/* QoS off: the engine's row alone, no conflict */
	q->enabled = false;
	CU_ASSERT(qos_want_sl2vl(q, f, r, eng, sw, 2, vl, &conflicts));
	CU_ASSERT_EQUAL(vl[2], 1);
	CU_ASSERT_EQUAL(vl[4], 0);
	CU_ASSERT_EQUAL(conflicts, 0);
	/* dfsp's layers by LID: SLs 0..n_vls-1 */
	CU_ASSERT_EQUAL_FATAL(routes_alloc_lid_sl(r), 0);
	CU_ASSERT_EQUAL(qos_engine_sls(r), 0x3);
	CU_ASSERT_EQUAL(qos_engine_sls(NULL), 0);
	routes_free(r);
	qos_policy_free(q);
	fabric_free(f);
}

static void test_vlarb_want(void)
{
	struct fabric *f = fab();
	struct qos_policy *q = policy_on();
	uint32_t sw = testutil_find_desc(f, "sw"), c0 = testutil_find_desc(f, "ca-0");
	struct routes *r = routes_new(f, 8);
	uint8_t vl[32], w[32];
	char why[160], big[800];
	size_t off = 0;

	for (int i = 0; i < 50; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "%s%d:%d", i ? "," : "",
					i % 15, i + 1);
	CU_ASSERT_EQUAL(qos_tables_build(&q->cls[QOS_SWE], 0, -1,
					 "1:9,2:8,3:7,4:6,5:5,6:4,7:3,8:2,"
					 "9:1",
					 big, "", &q->cls[QOS_SWE], why, sizeof(why)),
			0);
	/* low block 1: entries 0..31 of 50 */
	CU_ASSERT(qos_want_vlarb(q, f, r, sw, 1, 1, vl, w));
	CU_ASSERT_EQUAL(vl[31], 31 % 15);
	CU_ASSERT_EQUAL(w[31], 32);
	/* low block 2: entries 32..39 (LowCap 40), the rest empty */
	CU_ASSERT(qos_want_vlarb(q, f, r, sw, 1, 2, vl, w));
	CU_ASSERT_EQUAL(w[0], 33);
	CU_ASSERT_EQUAL(w[7], 40);
	CU_ASSERT_EQUAL(w[8], 0);
	/* high block 3: HighCap 8 cuts the 9th entry; block 4 is past the cap */
	CU_ASSERT(qos_want_vlarb(q, f, r, sw, 1, 3, vl, w));
	CU_ASSERT_EQUAL(vl[7], 8);
	CU_ASSERT_EQUAL(w[7], 2);
	CU_ASSERT_EQUAL(w[8], 0);
	CU_ASSERT(!qos_want_vlarb(q, f, r, sw, 1, 4, vl, w));
	/* a CA: the default tables (high 0:4, low 1..14:4) */
	CU_ASSERT(qos_want_vlarb(q, f, r, c0, 1, 3, vl, w));
	CU_ASSERT_EQUAL(w[0], 4);
	CU_ASSERT_EQUAL(w[1], 0);
	CU_ASSERT(qos_want_vlarb(q, f, r, c0, 1, 1, vl, w));
	CU_ASSERT_EQUAL(w[0], 0);
	CU_ASSERT_EQUAL(vl[1], 1);
	CU_ASSERT_EQUAL(w[1], 4);
	CU_ASSERT(!qos_want_vlarb(q, f, r, c0, 1, 5, vl, w));
	/* without QoS: nothing for a single-VL engine, equal weights for a multi-VL one */
	q->enabled = false;
	CU_ASSERT(!qos_want_vlarb(q, f, r, sw, 1, 1, vl, w));
	CU_ASSERT_EQUAL_FATAL(routes_alloc_vls(r, f, 2), 0);
	CU_ASSERT(qos_want_vlarb(q, f, r, sw, 1, 1, vl, w));
	CU_ASSERT_EQUAL(vl[1], 1);
	CU_ASSERT_EQUAL(w[0], 64);
	CU_ASSERT_EQUAL(w[1], 64);
	CU_ASSERT_EQUAL(w[2], 0);
	CU_ASSERT(qos_want_vlarb(q, f, r, sw, 1, 3, vl, w));
	CU_ASSERT_EQUAL(w[0], 0);
	CU_ASSERT(!qos_want_vlarb(q, f, r, sw, 1, 2, vl, w));
	routes_free(r);
	qos_policy_free(q);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"VLArb values", test_vlarb},
	    {"SL2VL values", test_sl2vl},
	    {"class tables over the qos_ ones", test_tables_build},
	    {"qos-ulps rules and their SLs", test_policy_ulps},
	    {"bad policy files: FILE:LINE", test_policy_bad},
	    {"OperationalVLs", test_oper_vls},
	    {"SL2VL per class, merged with the engine", test_sl2vl_merge},
	    {"VLArb blocks", test_vlarb_want},
	    {NULL, NULL},
	};

	return testutil_run("qos", cases);
}

/*
 * Unit tests for sm/conf.c: defaults, the config file, every kind of error
 * with its FILE:LINE, command-line overrides, the diff and the JSON view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "sm/conf.h"
#include "tests/testutil.h"

static char test_dir[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void test_defaults(void)
{
	struct sm_conf c;

	conf_defaults(&c);
	CU_ASSERT_STRING_EQUAL(c.ca_name, "");
	CU_ASSERT_EQUAL(c.port_num, 0);
	CU_ASSERT_STRING_EQUAL(c.state_dir, "/var/lib/ibsmd");
	CU_ASSERT_STRING_EQUAL(c.socket_path, "/run/ibsmd/ibsmd.sock");
	CU_ASSERT_STRING_EQUAL(c.socket_group, "");
	CU_ASSERT_STRING_EQUAL(c.admin_group, "");
	CU_ASSERT_STRING_EQUAL(c.routing_engine, "ftree");
	CU_ASSERT_STRING_EQUAL(c.routing_chain, "ftree,dor,dfsp,updn,minhop");
	CU_ASSERT_EQUAL(c.sm_priority, 0);
	CU_ASSERT_EQUAL(c.sweep_interval, 10);
	CU_ASSERT_EQUAL(c.mad_window, 32);
	CU_ASSERT_EQUAL(c.mad_timeout_ms, 200);
	CU_ASSERT_EQUAL(c.mad_retries, 3);
	CU_ASSERT_EQUAL(c.lmc, 0);
	CU_ASSERT(c.subnet_prefix == 0xfe80000000000000ULL);
	CU_ASSERT_EQUAL(c.log_level, LOG_INFO);
}

static void test_good_file(void)
{
	char path[128], err[256];
	struct sm_conf c;

	snprintf(path, sizeof(path), "%s/good.conf", test_dir);
	write_file(path, "# ibsmd test\n"
			 "\n"
			 "ca_name = mlx5_0\n"
			 "port_num=2\n"
			 "   state_dir   =   /srv/ibsmd   \n"
			 "socket_path = /run/x/ibsmd.sock ; inline comment\n"
			 "socket_group = ib-users\n"
			 "admin_group = ib-admin\n"
			 "routing_engine = updn\n"
			 "routing_chain = ftree,minhop\n"
			 "sm_priority = 15\n"
			 "sweep_interval = 0\n"
			 "mad_window = 1024\n"
			 "mad_timeout_ms = 10\n"
			 "mad_retries = 20\n"
			 "lmc = 7\n"
			 "subnet_prefix = 0xfe80000000000123\n"
			 "log_level = debug\n"
			 "perfmgr = yes\n"
			 "perfmgr_sweep_time_s = 2\n"
			 "perfmgr_clear_counters = on\n"
			 "perfmgr_threshold_rcv_errors = 0\n"
			 "http_listen = [::1]:9100\n"
			 "http_root = /srv/web\n"
			 "; last comment, no newline at the end");
	conf_defaults(&c);
	CU_ASSERT_EQUAL_FATAL(conf_load(&c, path, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.ca_name, "mlx5_0");
	CU_ASSERT_EQUAL(c.port_num, 2);
	CU_ASSERT_STRING_EQUAL(c.state_dir, "/srv/ibsmd");
	CU_ASSERT_STRING_EQUAL(c.socket_path, "/run/x/ibsmd.sock");
	CU_ASSERT_STRING_EQUAL(c.socket_group, "ib-users");
	CU_ASSERT_STRING_EQUAL(c.admin_group, "ib-admin");
	CU_ASSERT_STRING_EQUAL(c.routing_engine, "updn");
	CU_ASSERT_STRING_EQUAL(c.routing_chain, "ftree,minhop");
	CU_ASSERT_EQUAL(c.sm_priority, 15);
	CU_ASSERT_EQUAL(c.sweep_interval, 0);
	CU_ASSERT_EQUAL(c.mad_window, 1024);
	CU_ASSERT_EQUAL(c.mad_timeout_ms, 10);
	CU_ASSERT_EQUAL(c.mad_retries, 20);
	CU_ASSERT_EQUAL(c.lmc, 7);
	CU_ASSERT(c.subnet_prefix == 0xfe80000000000123ULL);
	CU_ASSERT_EQUAL(c.log_level, LOG_DEBUG);
	CU_ASSERT(c.perfmgr);
	CU_ASSERT_EQUAL(c.perfmgr_sweep_time_s, 2);
	CU_ASSERT(c.perfmgr_clear_counters);
	CU_ASSERT_EQUAL(c.perfmgr_threshold_rcv_errors, 0);
	CU_ASSERT_STRING_EQUAL(c.http_listen, "[::1]:9100");
	CU_ASSERT_STRING_EQUAL(c.http_root, "/srv/web");
	unlink(path);
}

/* The qos_ values as OpenSM writes them: "(null)" is unset, a class key over the qos_ one. */
static void test_qos_keys(void)
{
	struct sm_conf c;
	char err[512];

	conf_defaults(&c);
	CU_ASSERT_EQUAL(
	    conf_load_string(&c, "t.conf",
			     "qos = TRUE\nqos_policy_file = /etc/opensm/qos-policy.conf\n"
			     "qos_ca_vlarb_high = (null)\nqos_ca_max_vls = 4\n"
			     "qos_swe_sl2vl = 0,1,2,3,5,5,5,12,12,0,\n"
			     "qos_vlarb_low = 0:0,1:64\n",
			     err, sizeof(err)),
	    0);
	CU_ASSERT(c.qos);
	CU_ASSERT_STRING_EQUAL(c.qos_policy_file, "/etc/opensm/qos-policy.conf");
	CU_ASSERT_STRING_EQUAL(c.qos_ca_vlarb_high, "");
	CU_ASSERT_EQUAL(c.qos_ca_max_vls, 4);
	CU_ASSERT_STRING_EQUAL(c.qos_swe_sl2vl, "0,1,2,3,5,5,5,12,12,0,");
	CU_ASSERT_STRING_EQUAL(c.qos_vlarb_low, "0:0,1:64");
	CU_ASSERT(conf_key_live("qos_swe_sl2vl") == CONF_LIVE_APPLY);
	CU_ASSERT(conf_key_live("qos") == CONF_LIVE_APPLY);
}

static void test_shipped_example(void)
{
	/* etc/ibsmd.conf must load and equal the defaults */
	const char *srcdir = getenv("top_srcdir");
	struct sm_conf c, d;
	char path[512], err[256];
	const char *keys[32];

	snprintf(path, sizeof(path), "%s/etc/ibsmd.conf", srcdir ? srcdir : ".");
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "(skipped: %s not found)\n", path);
		return;
	}
	conf_defaults(&c);
	conf_defaults(&d);
	CU_ASSERT_EQUAL(conf_load(&c, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_diff(&c, &d, keys, 32), 0);
}

/* Each bad line, alone after two good lines, must fail with NAME:3: and the hint. */
static void test_errors(void)
{
	static const struct {
		const char *line;
		const char *want;
	} cases[] = {
	    {"frobnicate = 1", "unknown key 'frobnicate'"},
	    {"sm_priority", "expected 'key = value'"},
	    {"[main]", "sections are not used"},
	    {"sm_priority = 16", "out of range 0..15"},
	    {"sm_priority = -1", "out of range 0..15"},
	    {"sm_priority = high", "not an integer"},
	    {"sm_priority = ", "not an integer"},
	    {"sm_priority = 99999999999999999999", "not an integer"},
	    {"sweep_interval = 10s", "not an integer"},
	    {"mad_window = 0", "out of range 1..1024"},
	    {"mad_window = 1025", "out of range 1..1024"},
	    {"mad_timeout_ms = 9", "out of range 10..60000"},
	    {"mad_timeout_ms = 60001", "out of range 10..60000"},
	    {"mad_retries = 21", "out of range 0..20"},
	    {"lmc = 8", "out of range 0..7"},
	    {"sm_priority = verbose", "not an integer"},
	    {"port_num = 255", "out of range 0..254"},
	    {"subnet_prefix = fe80::", "not a 64-bit hex number"},
	    {"subnet_prefix = 0x1fe80000000000000", "not a 64-bit hex number"},
	    {"state_dir = relative/dir", "not an absolute path"},
	    {"state_dir =", "a path is required"},
	    {"routing_engine = Min Hop", "not a routing engine name"},
	    {"routing_chain = ftree,,minhop", "comma-separated"},
	    {"routing_chain = ", "at least one routing engine"},
	    {"admin_group = wheel;rm", "not a valid name"},
	    {"sm_priority = 1 # comment", "own line"},
	    {"perfmgr = maybe", "not true or false"},
	    {"perfmgr_sweep_time_s = 0", "out of range 1..86400"},
	    {"http_listen = 9100", "not ADDRESS:PORT"},
	    {"http_listen = localhost:0", "not ADDRESS:PORT"},
	    {"http_listen = localhost:65536", "not ADDRESS:PORT"},
	    {"http_listen = [::1:9100", "not ADDRESS:PORT"},
	    {"http_listen = a b:80", "not ADDRESS:PORT"},
	    {"http_root = web", "not an absolute path"},
	    {"sync_peers = 10.0.0.2:9200,10.0.0.3", "'10.0.0.3' is not ADDRESS:PORT"},
	    {"sync_peers = 10.0.0.2", "not ADDRESS:PORT"},
	    {"sync_listen = 127.0.0.1:0", "not ADDRESS:PORT"},
	    {"sync_interval_ms = 50", "out of range 100..60000"},
	    {"qos = sometimes", "not true or false"},
	    {"qos_max_vls = 16", "out of range 0..15"},
	    {"qos_ca_high_limit = -2", "out of range -1..255"},
	    {"qos_sl2vl = 0,1,16", "qos_sl2vl: SL 2: VL must be 0..15"},
	    {"qos_swe_sl2vl = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0", "more than 16 VLs"},
	    {"qos_vlarb_high = 0:4,1", "entry 2: want VL:weight"},
	    {"qos_rtr_vlarb_low = 15:4", "entry 1: VL must be 0..14"},
	    {"qos_sw0_vlarb_low = 0:300", "entry 1: weight must be 0..255"},
	    {"qos_policy_file = qos-policy.conf", "not an absolute path"},
	    {"dr_only = sometimes", "'sometimes' is not auto, true or false"},
	    {"link_speed_ext_enabled = 32", "out of range 0..31"},
	    {"log_level = debug", "duplicate key 'log_level' (first set on line 2)"},
	    {"socket_path = "
	     "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	     "longer than 107"},
	    {"ca_name = mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0mlx5_0",
	     "longer than 63"},
	};
	char text[512], err[256], want[320];
	struct sm_conf c;
	size_t i;
	int r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "# header\nlog_level = info\n%s\nlmc = 1\n",
			 cases[i].line);
		conf_defaults(&c);
		err[0] = '\0';
		r = conf_load_string(&c, "t.conf", text, err, sizeof(err));
		snprintf(want, sizeof(want), "t.conf:3: ");
		if (r != -EINVAL || strncmp(err, want, strlen(want)) || !strstr(err, cases[i].want))
			fprintf(stderr, "\ncase '%s': r=%d err='%s', want '%s'\n", cases[i].line, r,
				err, cases[i].want);
		CU_ASSERT_EQUAL(r, -EINVAL);
		CU_ASSERT(strncmp(err, want, strlen(want)) == 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
	}
}

static void test_file_errors(void)
{
	char path[128], err[256], want[160], *big;
	struct sm_conf c;
	size_t i;

	/* the real file name and line number */
	snprintf(path, sizeof(path), "%s/bad.conf", test_dir);
	write_file(path, "lmc = 1\n\n# x\nbogus_key = 3\n");
	conf_defaults(&c);
	CU_ASSERT_EQUAL(conf_load(&c, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: unknown key 'bogus_key'", path);
	CU_ASSERT_STRING_EQUAL(err, want);

	/* a line too long for the parser is an error, not a silent split */
	big = malloc(400);
	CU_ASSERT_FATAL(big != NULL);
	strcpy(big, "ca_name = ");
	for (i = strlen(big); i < 300; i++)
		big[i] = 'x';
	big[i++] = '\n';
	big[i] = '\0';
	write_file(path, big);
	free(big);
	CU_ASSERT_EQUAL(conf_load(&c, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: line longer than", path);
	CU_ASSERT(strncmp(err, want, strlen(want)) == 0);

	/* missing file: errno and the name */
	snprintf(path, sizeof(path), "%s/missing.conf", test_dir);
	CU_ASSERT_EQUAL(conf_load(&c, path, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.conf"));

	/* binary junk */
	snprintf(path, sizeof(path), "%s/bin.conf", test_dir);
	{
		FILE *f = fopen(path, "w");

		CU_ASSERT_FATAL(f != NULL);
		fwrite("lmc = 1\n\0\x01\x02", 1, 11, f);
		fclose(f);
	}
	CU_ASSERT_EQUAL(conf_load(&c, path, err, sizeof(err)), -EINVAL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.conf", test_dir);
	unlink(path);
}

static void test_set(void)
{
	struct sm_conf c;
	char err[256];

	conf_defaults(&c);
	CU_ASSERT_EQUAL(conf_set(&c, "sm_priority", "7", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.sm_priority, 7);
	CU_ASSERT_EQUAL(conf_set(&c, "routing_engine", "updn", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.routing_engine, "updn");
	CU_ASSERT_EQUAL(conf_set(&c, "socket_path", "/tmp/x.sock", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.socket_path, "/tmp/x.sock");
	CU_ASSERT_EQUAL(conf_set(&c, "log_level", "warning", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.log_level, LOG_WARNING);

	CU_ASSERT_EQUAL(conf_set(&c, "sm_priority", "16", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sm_priority: 16 is out of range 0..15");
	CU_ASSERT_EQUAL(c.sm_priority, 7); /* untouched */
	CU_ASSERT_EQUAL(conf_set(&c, "log_level", "verbose", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       "log_level: 'verbose' is not one of error, warning, info, debug");
	CU_ASSERT_EQUAL(conf_load_string(&c, "f", "\n\nlog_level = loud\n", err, sizeof(err)),
			-EINVAL);
	CU_ASSERT(strncmp(err, "f:3: log_level: ", 16) == 0);
	CU_ASSERT_EQUAL(conf_set(&c, "nope", "1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "unknown key 'nope'");

	/* the SM_Key: hex like the prefix, never echoed in an error */
	CU_ASSERT_EQUAL(conf_set(&c, "sm_key", "0xdeadbeef00c0ffee", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.sm_key, 0xdeadbeef00c0ffeeULL);
	CU_ASSERT_EQUAL(conf_set(&c, "sm_key", "s3cr3t", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strstr(err, "s3cr3t") == NULL);
	CU_ASSERT_EQUAL(c.sm_key, 0xdeadbeef00c0ffeeULL);
	CU_ASSERT_EQUAL(conf_set(&c, "sminfo_poll_interval_ms", "20", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(conf_set(&c, "sminfo_poll_count", "0", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(conf_set(&c, "lft_readback", "2", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(conf_key_live("sm_key"), CONF_LIVE_READ);

	/* the command line wins over the file: load, then set */
	CU_ASSERT_EQUAL(conf_load_string(&c, "x", "sm_priority = 3\n", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&c, "sm_priority", "9", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.sm_priority, 9);
}

/* One key copied, its value as text, unknown keys refused. */
static void test_copy_and_value(void)
{
	struct sm_conf a, b;
	char buf[64], err[128];
	const char *keys[4];

	conf_defaults(&a);
	conf_defaults(&b);
	CU_ASSERT_EQUAL(conf_set(&b, "mad_window", "64", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&b, "admin_group", "wheel", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_copy_key(&a, &b, "mad_window"), 0);
	CU_ASSERT_EQUAL(a.mad_window, 64);
	CU_ASSERT_STRING_EQUAL(a.admin_group, "");
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 4), 1);
	CU_ASSERT_STRING_EQUAL(keys[0], "admin_group");
	CU_ASSERT_EQUAL(conf_copy_key(&a, &b, "admin_group"), 0);
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 4), 0);
	CU_ASSERT_EQUAL(conf_copy_key(&a, &b, "nope"), -ENOENT);
	CU_ASSERT_EQUAL(conf_value_str(&a, "mad_window", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "64");
	CU_ASSERT_EQUAL(conf_value_str(&a, "log_level", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "info");
	CU_ASSERT_EQUAL(conf_value_str(&a, "subnet_prefix", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "0xfe80000000000000");
	CU_ASSERT_EQUAL(conf_value_str(&a, "sm_key", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "(hidden)"); /* what a reload logs */
	CU_ASSERT_EQUAL(conf_value_str(&a, "nope", buf, sizeof(buf)), -ENOENT);
}

/* The SA key: parsed like a prefix, live, never shown, not echoed in errors. */
static void test_secret(void)
{
	struct sm_conf c;
	char buf[64], err[256];
	const char *keys[4];
	json_t *j;

	conf_defaults(&c);
	CU_ASSERT(c.sa_key == 1); /* OpenSM's OSM_DEFAULT_SA_KEY */
	CU_ASSERT_EQUAL(conf_load_string(&c, "t.conf", "sa_key = 0x1234abcd\n", err, sizeof(err)),
			0);
	CU_ASSERT(c.sa_key == 0x1234abcdULL);
	CU_ASSERT(conf_key_is_secret("sa_key"));
	/* part_enforce takes OpenSM's four words and nothing else */
	CU_ASSERT_EQUAL(conf_set(&c, "part_enforce", "in", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.part_enforce, CONF_ENFORCE_IN);
	CU_ASSERT_EQUAL(conf_set(&c, "part_enforce", "inbound", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "both, in, out, off"));
	CU_ASSERT_EQUAL(c.part_enforce, CONF_ENFORCE_IN);
	CU_ASSERT(!conf_key_is_secret("subnet_prefix"));
	CU_ASSERT(!conf_key_is_secret("nope"));
	CU_ASSERT_EQUAL(conf_key_live("sa_key"), CONF_LIVE_READ);
	CU_ASSERT_EQUAL(conf_value_str(&c, "sa_key", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "(hidden)");
	j = conf_to_json(&c);
	CU_ASSERT_PTR_NULL(json_object_get(j, "sa_key"));
	json_decref(j);
	CU_ASSERT_EQUAL(conf_set(&c, "sa_key", "s3cr3t", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(strstr(err, "s3cr3t"));
	conf_defaults(&c);
	CU_ASSERT_EQUAL(conf_set(&c, "sa_key", "2", err, sizeof(err)), 0);
	struct sm_conf d;
	conf_defaults(&d);
	CU_ASSERT_EQUAL(conf_diff(&c, &d, keys, 4), 1);
	CU_ASSERT_STRING_EQUAL(keys[0], "sa_key");
}

static void test_diff_and_live(void)
{
	struct sm_conf a, b;
	const char *keys[4];

	conf_defaults(&a);
	conf_defaults(&b);
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 4), 0);
	b.sm_priority = 5;
	snprintf(b.ca_name, sizeof(b.ca_name), "mlx4_0");
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 4), 2);
	CU_ASSERT_STRING_EQUAL(keys[0], "ca_name");
	CU_ASSERT_STRING_EQUAL(keys[1], "sm_priority");
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 1), 2);

	CU_ASSERT(conf_key_is_live("sm_priority"));
	CU_ASSERT(conf_key_is_live("log_level"));
	CU_ASSERT(!conf_key_is_live("socket_path"));
	CU_ASSERT(!conf_key_is_live("ca_name"));
	CU_ASSERT(!conf_key_is_live("nope"));
	/* how live keys take effect: read where used, or applied by their owner */
	CU_ASSERT_EQUAL(conf_key_live("routing_engine"), CONF_LIVE_READ);
	CU_ASSERT_EQUAL(conf_key_live("mad_window"), CONF_LIVE_APPLY);
	CU_ASSERT_EQUAL(conf_key_live("admin_group"), CONF_LIVE_APPLY);
	CU_ASSERT_EQUAL(conf_key_live("lmc"), CONF_RESTART);
	CU_ASSERT_EQUAL(conf_key_live("nope"), CONF_RESTART);
}

static void test_json(void)
{
	struct sm_conf c;
	json_t *j;

	conf_defaults(&c);
	j = conf_to_json(&c);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_EQUAL(json_object_size(j), 105); /* 78 + QoS: qos, qos_policy_file, 5 x 5 */
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "log_file")), "");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "partition_config_file")), "");
	/* OpenSM's defaults: part_enforce both, allow_both_pkeys false */
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "part_enforce")), "both");
	CU_ASSERT(json_is_false(json_object_get(j, "allow_both_pkeys")));
	/* issue 22: extended speeds left as the ports have them, dr_only decided at run time */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "link_speed_ext_enabled")), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "dr_only")), "auto");
	json_decref(j);
	CU_ASSERT_EQUAL(
	    conf_load_string(&c, "t", "dr_only = yes\nlink_speed_ext_enabled = 31\n", NULL, 0), 0);
	CU_ASSERT_EQUAL(c.dr_only, CONF_AUTO_TRUE);
	CU_ASSERT_EQUAL(c.link_speed_ext_enabled, 31);
	j = conf_to_json(&c);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "dr_only")), "true");
	json_decref(j);
	CU_ASSERT_EQUAL(conf_load_string(&c, "u", "dr_only = off\n", NULL, 0), 0);
	CU_ASSERT_EQUAL(c.dr_only, CONF_AUTO_FALSE);
	conf_defaults(&c);
	j = conf_to_json(&c);
	/* QoS: OpenSM's defaults on the qos_ keys, the class keys unset */
	CU_ASSERT(json_is_false(json_object_get(j, "qos")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "qos_max_vls")), 15);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "qos_ca_high_limit")), -1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "qos_sl2vl")),
			       "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "qos_swe_vlarb_low")), "");
	/* m_key is a secret; its protect bits and lease are not */
	CU_ASSERT_PTR_NULL(json_object_get(j, "m_key"));
	CU_ASSERT_PTR_NOT_NULL(json_object_get(j, "m_key_protect_bits"));
	CU_ASSERT_TRUE(conf_key_is_secret("m_key"));
	/* state sync is off by default */
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "sync_listen")), "");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "sync_peers")), "");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "sync_interval_ms")), 1000);
	/* the SM_Key is never shown; the failover keys have their defaults */
	CU_ASSERT(json_object_get(j, "sm_key") == NULL);
	CU_ASSERT_EQUAL(c.sm_key, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "sminfo_poll_interval_ms")), 400);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "sminfo_poll_count")), 3);
	CU_ASSERT(json_is_true(json_object_get(j, "lft_readback")));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "subnet_prefix")),
			       "0xfe80000000000000");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "log_level")), "info");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "mad_window")), 32);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "routing_chain")),
			       "ftree,dor,dfsp,updn,minhop");
	CU_ASSERT(json_is_false(json_object_get(j, "perfmgr")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "perfmgr_sweep_time_s")), 180);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "http_listen")), "");
	json_decref(j);

	CU_ASSERT_EQUAL(conf_log_level_from_str("error"), LOG_ERR);
	CU_ASSERT_EQUAL(conf_log_level_from_str("bogus"), -1);
	CU_ASSERT_STRING_EQUAL(conf_log_level_str(LOG_WARNING), "warning");
	CU_ASSERT_PTR_NULL(conf_log_level_str(LOG_NOTICE));
}

/* Every error of a file, one per line with its FILE:LINE; the good lines applied. */
static void test_every_error(void)
{
	struct sm_conf c;
	char err[1024], *big, small[200];
	unsigned lines = 0, more = 0;

	conf_defaults(&c);
	CU_ASSERT_EQUAL(
	    conf_load_string(&c, "t.conf",
			     "lmc = 9\nsm_priority = 4\nnope = 1\n[x]\nmad_window = 0\n", err,
			     sizeof(err)),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:1: lmc: 9 is out of range 0..7\n"
				    "t.conf:3: unknown key 'nope'\n"
				    "t.conf:4: sections are not used; write 'key = value'\n"
				    "t.conf:5: mad_window: 0 is out of range 1..1024");
	CU_ASSERT_EQUAL(c.sm_priority, 4);

	/* more errors than fit: as many as fit, then how many more */
	big = malloc(300 * 16);
	CU_ASSERT_FATAL(big != NULL);
	big[0] = '\0';
	for (int i = 0; i < 300; i++)
		strcat(big, "bogus_key = 1\n");
	CU_ASSERT_EQUAL(conf_load_string(&c, "t.conf", big, small, sizeof(small)), -EINVAL);
	for (const char *l = small; (l = strchr(l, '\n')); l++)
		lines++;
	CU_ASSERT(strstr(small, "... and ") != NULL);
	if (strstr(small, "... and "))
		sscanf(strstr(small, "... and ") + 8, "%u", &more);
	CU_ASSERT_EQUAL(lines + more, 300); /* lines = shown errors + the note - 1 */
	CU_ASSERT(strlen(small) < sizeof(small));
	free(big);
}

static int refuse_bad(void *ctx, const char *key, const char *value, char *why, size_t why_len)
{
	(*(int *)ctx)++;
	if (!strcmp(key, "routing_engine") && !strcmp(value, "bad")) {
		snprintf(why, why_len, "not built in");
		return -EINVAL;
	}
	return 0;
}

/* The caller's checks run on every key that parsed, with FILE:LINE on a refusal. */
static void test_checks(void)
{
	int calls = 0;
	struct conf_checks chk = {refuse_bad, &calls};
	struct sm_conf c;
	char err[256];

	conf_defaults(&c);
	CU_ASSERT_EQUAL(conf_load_string_checked(&c, "t.conf",
						 "lmc = 2\nrouting_engine = bad\nlmc = x\n", &chk,
						 err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(calls, 2); /* lmc and routing_engine: not the duplicate */
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: routing_engine: not built in\n"
				    "t.conf:3: duplicate key 'lmc' (first set on line 1)");
}

/* --create-config: what conf_write writes reads back to the same values. */
static void test_write_round_trip(void)
{
	struct sm_conf a, b;
	char path[128], err[256], line[256];
	const char *keys[8];
	FILE *f;
	int comments = 0;

	conf_defaults(&a);
	CU_ASSERT_EQUAL(conf_set(&a, "sm_priority", "11", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&a, "ca_name", "mlx5_1", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&a, "port_guid", "0x0002c90200000101", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&a, "sa_key", "0xabc", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&a, "log_level", "debug", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_set(&a, "routing_chain", "dor,minhop", err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/written.conf", test_dir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(conf_write(f, &a, "made by a test\nsecond line"), 0);
	fclose(f);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	while (fgets(line, sizeof(line), f))
		comments += line[0] == '#';
	fclose(f);
	CU_ASSERT_EQUAL(comments, 2);
	conf_defaults(&b);
	CU_ASSERT_EQUAL(conf_load(&b, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(conf_diff(&a, &b, keys, 8), 0);
	CU_ASSERT(b.port_guid == 0x0002c90200000101ULL);
	CU_ASSERT(b.sa_key == 0xabc);
	unlink(path);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"defaults", test_defaults},
	    {"good file", test_good_file},
	    {"shipped example equals the defaults", test_shipped_example},
	    {"QoS keys as OpenSM writes them", test_qos_keys},
	    {"errors carry FILE:LINE", test_errors},
	    {"file-level errors", test_file_errors},
	    {"command-line overrides", test_set},
	    {"diff and live keys", test_diff_and_live},
	    {"copy a key, a key's value", test_copy_and_value},
	    {"JSON view", test_json},
	    {"sa_key: a secret", test_secret},
	    {"every error of a file", test_every_error},
	    {"the caller's checks", test_checks},
	    {"conf_write reads back", test_write_round_trip},
	    {NULL, NULL},
	};
	int rc;

	snprintf(test_dir, sizeof(test_dir), "/tmp/test_conf.XXXXXX");
	if (!mkdtemp(test_dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = testutil_run("conf", cases);
	rmdir(test_dir);
	return rc;
}

/*
 * The configuration file and its keys (see conf.h, man/ibsmd.conf.5).
 *
 * One table describes every key: its type, bounds, where it lives in struct
 * sm_conf and whether SIGHUP can change it.  Parsing, overrides, the diff and
 * the JSON view all walk that table, so a key cannot be half-supported; and
 * what a type means (parse and check a value, show it, compare two) is one
 * row of handlers per type (conf_types), so a type cannot be half-supported
 * either.
 *
 * libinih parses one line at a time, so every error carries the line it is
 * on, and inih's multi-line continuations cannot glue two lines together.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "lib/lines.h"
#include "sm/conf_int.h"

#define CONF_FILE_MAX (1024 * 1024)
#define CONF_LINE_MAX (INI_MAX_LINE - 2) /* inih's buffer holds the newline and NUL */

#define STR_KEY(n, t, def, live)                                                                   \
	{                                                                                          \
#n, t, offsetof(struct sm_conf, n), sizeof(((struct sm_conf *)0)->n), 0, 0, def,   \
		    live, false                                                                    \
	}
#define INT_KEY(n, lo, hi, def, live)                                                              \
	{                                                                                          \
#n, CONF_INT, offsetof(struct sm_conf, n), sizeof(int), lo, hi, def, live, false   \
	}

#define BOOL_KEY(n, def, live)                                                                     \
	{                                                                                          \
#n, CONF_BOOL, offsetof(struct sm_conf, n), sizeof(bool), 0, 0, def, live, false   \
	}

/* validate_KIND: the policy of validate/plan.h's kind i; isolate allowed when can is 1. */
#define VALIDATE_KEY(kind, i, can)                                                                 \
	{                                                                                          \
		"validate_" #kind, CONF_VALIDATE,                                                  \
		    offsetof(struct sm_conf, validate_policy) + (i) * sizeof(int), sizeof(int), 0, \
		    (can), "warn", CONF_LIVE_READ, false                                           \
	}

#define QOS_DEFAULT_VLARB_HIGH "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define QOS_DEFAULT_VLARB_LOW "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define QOS_DEFAULT_SL2VL "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

/* The five keys of one QoS class (qos_, qos_ca_, ...). */
#define QOS_KEYS(c, mv, hl, vh, vlo, s2v)                                                          \
	INT_KEY(qos_##c##max_vls, 0, 15, mv, CONF_LIVE_APPLY),                                     \
	    INT_KEY(qos_##c##high_limit, -1, 255, hl, CONF_LIVE_APPLY),                            \
	    STR_KEY(qos_##c##vlarb_high, CONF_VLARB, vh, CONF_LIVE_APPLY),                         \
	    STR_KEY(qos_##c##vlarb_low, CONF_VLARB, vlo, CONF_LIVE_APPLY),                         \
	    STR_KEY(qos_##c##sl2vl, CONF_SL2VL, s2v, CONF_LIVE_APPLY)

/*
 * Every key, its default and how it goes live: CONF_RESTART keys are read at
 * start-up only; CONF_LIVE_READ keys are read where they are used (the next
 * sweep, the next SMInfo answer), so replacing the value applies them;
 * CONF_LIVE_APPLY keys need their owner to act (a timer, the MAD window, the
 * control socket's admin group), through the appliers registered with
 * sm_conf_applier_add().
 */
static const struct conf_key conf_keys[] = {
    STR_KEY(ca_name, CONF_NAME, "", CONF_RESTART),
    INT_KEY(port_num, 0, 254, "0", CONF_RESTART),
    {"port_guid", CONF_U64, offsetof(struct sm_conf, port_guid), sizeof(uint64_t), 0, 0, "0",
     CONF_RESTART, false},
    STR_KEY(state_dir, CONF_PATH, "/var/lib/ibsmd", CONF_RESTART),
    STR_KEY(socket_path, CONF_PATH, "/run/ibsmd/ibsmd.sock", CONF_RESTART),
    STR_KEY(socket_group, CONF_NAME, "", CONF_RESTART),
    STR_KEY(admin_group, CONF_NAME, "", CONF_LIVE_APPLY),
    STR_KEY(routing_engine, CONF_ENGINE, "ftree", CONF_LIVE_READ),
    STR_KEY(routing_chain, CONF_CHAIN, "ftree,dor,dfsp,updn,minhop", CONF_LIVE_READ),
    STR_KEY(updn_roots_file, CONF_OPT_PATH, "", CONF_LIVE_APPLY),
    STR_KEY(partition_config_file, CONF_OPT_PATH, "", CONF_LIVE_APPLY),
    {"part_enforce", CONF_ENFORCE, offsetof(struct sm_conf, part_enforce), sizeof(int), 0, 0,
     "both", CONF_LIVE_READ, false},
    BOOL_KEY(allow_both_pkeys, "false", CONF_LIVE_APPLY),
    INT_KEY(pkey_max_guids, 1, 65536, "4096", CONF_LIVE_READ),
    INT_KEY(pkey_max_runtime, 0, 32767, "32767", CONF_LIVE_READ),
    INT_KEY(sm_priority, 0, 15, "0", CONF_LIVE_APPLY),
    {"sm_key", CONF_U64, offsetof(struct sm_conf, sm_key), sizeof(uint64_t), 0, 0,
     "0x0000000000000001", CONF_LIVE_READ, true},
    {"m_key", CONF_U64, offsetof(struct sm_conf, m_key), sizeof(uint64_t), 0, 0,
     "0x0000000000000000", CONF_LIVE_APPLY, true},
    INT_KEY(m_key_protect_bits, 0, 3, "0", CONF_LIVE_READ),
    INT_KEY(m_key_lease_period, 0, 65535, "0", CONF_LIVE_READ),
    INT_KEY(sminfo_poll_interval_ms, 50, 10000, "400", CONF_LIVE_READ),
    INT_KEY(sminfo_poll_count, 1, 20, "3", CONF_LIVE_READ),
    BOOL_KEY(lft_readback, "true", CONF_LIVE_READ),
    INT_KEY(sweep_interval, 0, 86400, "10", CONF_LIVE_APPLY),
    INT_KEY(sweep_holddown_ms, 0, 60000, "500", CONF_LIVE_READ),
    INT_KEY(mad_window, 1, 1024, "32", CONF_LIVE_APPLY),
    INT_KEY(mad_timeout_ms, 10, 60000, "200", CONF_LIVE_APPLY),
    INT_KEY(mad_retries, 0, 20, "3", CONF_LIVE_APPLY),
    INT_KEY(lmc, 0, 7, "0", CONF_RESTART),
    INT_KEY(max_vls, 0, 15, "0", CONF_LIVE_READ),
    INT_KEY(packet_life_time, 0, 31, "18", CONF_LIVE_READ),
    INT_KEY(head_of_queue_lifetime, 0, 31, "18", CONF_LIVE_READ),
    INT_KEY(leaf_head_of_queue_lifetime, 0, 31, "16", CONF_LIVE_READ),
    BOOL_KEY(read_vl_tables, "true", CONF_LIVE_READ),
    INT_KEY(dump_max_lft_entries, 0, 200000000, "2000000", CONF_LIVE_READ),
    BOOL_KEY(keep_routes, "true", CONF_LIVE_READ),
    BOOL_KEY(incremental_sweep, "true", CONF_LIVE_READ),
    BOOL_KEY(incremental_routing, "true", CONF_LIVE_READ),
    INT_KEY(dying_switch_hold_ms, 0, 60000, "2000", CONF_LIVE_READ),
    INT_KEY(flap_threshold, 0, 1000, "10", CONF_LIVE_READ),
    INT_KEY(flap_window_s, 1, 86400, "60", CONF_LIVE_READ),
    INT_KEY(quarantine_s, 0, 604800, "300", CONF_LIVE_READ),
    INT_KEY(trap_flood_threshold, 0, 100000, "250", CONF_LIVE_READ),
    INT_KEY(keep_routes_max_drift_pct, 0, 1000, "25", CONF_LIVE_READ),
    INT_KEY(link_speed_ext_enabled, 0, 31, "0", CONF_LIVE_READ),
    {"dr_only", CONF_AUTO_BOOL, offsetof(struct sm_conf, dr_only), sizeof(int), 0, 0, "auto",
     CONF_LIVE_READ, false},
    {"subnet_prefix", CONF_U64, offsetof(struct sm_conf, subnet_prefix), sizeof(uint64_t), 0, 0,
     "0xfe80000000000000", CONF_RESTART, false},
    {"sa_key", CONF_U64, offsetof(struct sm_conf, sa_key), sizeof(uint64_t), 0, 0,
     "0x0000000000000001", CONF_LIVE_READ, true},
    {"log_level", CONF_LEVEL, offsetof(struct sm_conf, log_level), sizeof(int), 0, 0, "info",
     CONF_LIVE_APPLY, false},
    STR_KEY(log_file, CONF_OPT_PATH, "", CONF_RESTART),
    BOOL_KEY(perfmgr, "false", CONF_LIVE_APPLY),
    INT_KEY(perfmgr_sweep_time_s, 1, 86400, "180", CONF_LIVE_APPLY),
    INT_KEY(perfmgr_max_outstanding, 1, 256, "16", CONF_LIVE_READ),
    BOOL_KEY(perfmgr_clear_counters, "false", CONF_LIVE_READ),
    INT_KEY(perfmgr_threshold_symbol_errors, 0, 1000000000, "10", CONF_LIVE_READ),
    INT_KEY(perfmgr_threshold_link_downed, 0, 1000000000, "1", CONF_LIVE_READ),
    INT_KEY(perfmgr_threshold_rcv_errors, 0, 1000000000, "10", CONF_LIVE_READ),
    INT_KEY(perfmgr_threshold_xmit_discards, 0, 1000000000, "100", CONF_LIVE_READ),
    STR_KEY(http_listen, CONF_LISTEN, "", CONF_RESTART),
    STR_KEY(http_root, CONF_PATH, PKGDATADIR "/web", CONF_RESTART),
    INT_KEY(http_max_clients, 1, 4096, "64", CONF_RESTART),
    STR_KEY(http_tls_cert, CONF_OPT_PATH, "", CONF_RESTART),
    STR_KEY(http_tls_key, CONF_OPT_PATH, "", CONF_RESTART),
    STR_KEY(http_users_file, CONF_OPT_PATH, "", CONF_RESTART),
    BOOL_KEY(http_allow_insecure_writes, "false", CONF_LIVE_READ),
    INT_KEY(http_max_body, 1024, 16777216, "1048576", CONF_LIVE_READ),
    INT_KEY(http_rate_limit, 0, 100000, "20", CONF_LIVE_READ),
    STR_KEY(sync_listen, CONF_LISTEN, "", CONF_RESTART),
    STR_KEY(sync_peers, CONF_LISTEN_LIST, "", CONF_RESTART),
    INT_KEY(sync_interval_ms, 100, 60000, "1000", CONF_LIVE_READ),
    /* fabric validation (validate/): the plan, names, what each kind of finding does */
    STR_KEY(expected_topology_file, CONF_OPT_PATH, "", CONF_LIVE_APPLY),
    STR_KEY(node_name_map_name, CONF_OPT_PATH, "", CONF_LIVE_APPLY),
    VALIDATE_KEY(missing_link, 0, 0),
    VALIDATE_KEY(miswired, 1, 1),
    VALIDATE_KEY(unexpected_node, 2, 1),
    VALIDATE_KEY(missing_node, 3, 0),
    VALIDATE_KEY(degraded_width, 4, 1),
    VALIDATE_KEY(degraded_speed, 5, 1),
    VALIDATE_KEY(duplicate_guid, 6, 1),
    VALIDATE_KEY(duplicate_node_desc, 7, 0),
    VALIDATE_KEY(extra_sm, 8, 0),
    /* QoS (policy/qos.h), OpenSM's names; class keys unset (0, -1, "") take the qos_ ones */
    BOOL_KEY(qos, "false", CONF_LIVE_APPLY),
    STR_KEY(qos_policy_file, CONF_OPT_PATH, "", CONF_LIVE_APPLY),
    QOS_KEYS(, "15", "0", QOS_DEFAULT_VLARB_HIGH, QOS_DEFAULT_VLARB_LOW, QOS_DEFAULT_SL2VL),
    QOS_KEYS(ca_, "0", "-1", "", "", ""),
    QOS_KEYS(sw0_, "0", "-1", "", "", ""),
    QOS_KEYS(swe_, "0", "-1", "", "", ""),
    QOS_KEYS(rtr_, "0", "-1", "", "", ""),
};

#define CONF_NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static const struct conf_key *conf_find(const char *name)
{
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++)
		if (!strcmp(conf_keys[i].name, name))
			return &conf_keys[i];
	return NULL;
}

bool conf_key_is_live(const char *key)
{
	return conf_key_live(key) != CONF_RESTART;
}

enum conf_live conf_key_live(const char *key)
{
	const struct conf_key *k = conf_find(key);

	return k ? k->live : CONF_RESTART;
}

bool conf_key_is_secret(const char *key)
{
	const struct conf_key *k = conf_find(key);

	return k && k->secret;
}

/* k's type's handlers (conf_defaults checks that every key's type has them all). */
static const struct conf_type_ops *conf_ops(const struct conf_key *k)
{
	return &conf_types[k->type];
}

/* Parse value for k into *c.  Returns 0 or -EINVAL with why (no key name). */
static int conf_parse_value(struct sm_conf *c, const struct conf_key *k, const char *value,
			    char *why, size_t why_len)
{
	return conf_ops(k)->parse((char *)c + k->off, k, value, strlen(value), why, why_len);
}

/* k's value in c as conf_to_json shows it (a new reference). */
static json_t *conf_key_json(const struct sm_conf *c, const struct conf_key *k)
{
	return conf_ops(k)->show((const char *)c + k->off);
}

void conf_defaults(struct sm_conf *c)
{
	char why[192];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_type_ops *ops = conf_ops(&conf_keys[i]);

		if (!ops->parse || !ops->show || !ops->same) {
			fprintf(stderr, "ibsmd: internal: %s: type %d has no handlers\n",
				conf_keys[i].name, (int)conf_keys[i].type);
			abort();
		}
		/* the table's defaults are ours: one that does not parse is a bug */
		if (conf_parse_value(c, &conf_keys[i], conf_keys[i].def, why, sizeof(why)) < 0) {
			fprintf(stderr, "ibsmd: internal: default of %s: %s\n", conf_keys[i].name,
				why);
			abort();
		}
	}
}

int conf_set(struct sm_conf *c, const char *key, const char *value, char *err, size_t err_len)
{
	const struct conf_key *k = conf_find(key);
	char why[192];

	if (!k) {
		snprintf(err, err_len, "unknown key '%s'", key);
		return -EINVAL;
	}
	if (conf_parse_value(c, k, value, why, sizeof(why)) < 0) {
		snprintf(err, err_len, "%s: %s", key, why);
		return -EINVAL;
	}
	return 0;
}

/* ---- the file --------------------------------------------------------- */

struct conf_parse {
	struct sm_conf *c;
	const struct conf_checks *chk;
	bool seen[CONF_NKEYS];
	int seen_line[CONF_NKEYS];
	int line;
	char why[256];
};

static int conf_ini_handler(void *user, const char *section, const char *name, const char *value)
{
	struct conf_parse *ps = user;
	const struct conf_key *k;
	char why[160];
	size_t idx;

	if (section && section[0]) {
		snprintf(ps->why, sizeof(ps->why), "sections are not used ('[%s]')", section);
		return 0;
	}
	k = conf_find(name);
	if (!k) {
		snprintf(ps->why, sizeof(ps->why), "unknown key '%s'", name);
		return 0;
	}
	idx = (size_t)(k - conf_keys);
	if (ps->seen[idx]) {
		snprintf(ps->why, sizeof(ps->why), "duplicate key '%s' (first set on line %d)",
			 name, ps->seen_line[idx]);
		return 0;
	}
	ps->seen[idx] = true;
	ps->seen_line[idx] = ps->line;
	if (conf_parse_value(ps->c, k, value, why, sizeof(why)) < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s: %s%s", name, why,
			 strchr(value, '#') ? " ('#' comments go on their own line)" : "");
		return 0;
	}
	if (ps->chk && ps->chk->check &&
	    ps->chk->check(ps->chk->ctx, name, value, why, sizeof(why)) < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s: %s", name, why);
		return 0;
	}
	return 1;
}

/* Errors, one per line, into err; what does not fit is counted at the end. */
struct conf_errs {
	char *buf;
	size_t len, used;
	unsigned n, dropped;
};

static void conf_err_add(struct conf_errs *e, const char *name, int line, const char *why)
{
	const size_t reserve = 48; /* room for "\n... and N more errors" */
	char one[512];
	size_t l;

	e->n++;
	if (e->dropped || !e->len) {
		e->dropped++;
		return;
	}
	snprintf(one, sizeof(one), "%s%s:%d: %s", e->used ? "\n" : "", name, line, why);
	l = strlen(one);
	if (e->used + l + reserve < e->len) {
		memcpy(e->buf + e->used, one, l + 1);
		e->used += l;
	} else if (!e->used) {
		snprintf(e->buf, e->len, "%s", one); /* the first error, cut to fit */
		e->used = strlen(e->buf);
	} else {
		e->dropped++;
	}
}

static void conf_err_done(struct conf_errs *e)
{
	if (e->dropped && e->used + 1 < e->len)
		snprintf(e->buf + e->used, e->len - e->used, "\n... and %u more error%s",
			 e->dropped, e->dropped == 1 ? "" : "s");
}

/* Every line of text (len bytes, cut in place) over *c; name in the messages. */
static int conf_parse_text(struct sm_conf *c, const char *name, char *text, size_t len,
			   const struct conf_checks *chk, char *err, size_t err_len)
{
	struct conf_parse ps = {.c = c, .chk = chk};
	struct conf_errs errs = {err, err_len, 0, 0, 0};
	struct lines l;
	const char *p;
	char *line;
	size_t n;
	int r;

	if (err_len)
		err[0] = '\0';
	lines_init(&l, text, len, CONF_LINE_MAX);
	while ((r = lines_next(&l, &line, &n)) != 0) {
		ps.line = (int)l.no;
		if (r == -E2BIG) {
			char why[64];

			snprintf(why, sizeof(why), "line longer than %d characters", CONF_LINE_MAX);
			conf_err_add(&errs, name, ps.line, why);
			continue;
		}
		for (p = line; isspace((unsigned char)*p); p++)
			;
		if (*p == '[') {
			conf_err_add(&errs, name, ps.line,
				     "sections are not used; write 'key = value'");
		} else {
			ps.why[0] = '\0';
			r = ini_parse_string(line, conf_ini_handler, &ps);
			if (r != 0)
				conf_err_add(&errs, name, ps.line,
					     ps.why[0] ? ps.why : "expected 'key = value'");
		}
	}
	conf_err_done(&errs);
	return errs.n ? -EINVAL : 0;
}

int conf_load_string_checked(struct sm_conf *c, const char *name, const char *text,
			     const struct conf_checks *chk, char *err, size_t err_len)
{
	char *copy = strdup(text);
	int r;

	if (!copy) {
		snprintf(err, err_len, "%s: out of memory", name);
		return -ENOMEM;
	}
	r = conf_parse_text(c, name, copy, strlen(copy), chk, err, err_len);
	free(copy);
	return r;
}

int conf_load_string(struct sm_conf *c, const char *name, const char *text, char *err,
		     size_t err_len)
{
	return conf_load_string_checked(c, name, text, NULL, err, err_len);
}

int conf_load(struct sm_conf *c, const char *path, char *err, size_t err_len)
{
	return conf_load_checked(c, path, NULL, err, err_len);
}

int conf_load_checked(struct sm_conf *c, const char *path, const struct conf_checks *chk, char *err,
		      size_t err_len)
{
	char *text;
	size_t n;
	int r;

	r = lines_read_file(path, CONF_FILE_MAX, 0, &text, &n, err, err_len);
	if (r == -ENOMEM)
		snprintf(err, err_len, "%s: out of memory", path);
	if (r < 0)
		return r;
	if (memchr(text, '\0', n)) {
		r = -EINVAL;
		snprintf(err, err_len, "%s: contains a NUL byte; not a text file", path);
	} else {
		r = conf_parse_text(c, path, text, n, chk, err, err_len);
	}
	free(text);
	return r;
}

/* ---- views ------------------------------------------------------------ */

json_t *conf_to_json(const struct sm_conf *c)
{
	json_t *o = json_object();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < CONF_NKEYS; i++) {
		if (conf_keys[i].secret)
			continue;
		if (json_object_set_new(o, conf_keys[i].name, conf_key_json(c, &conf_keys[i]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int conf_copy_key(struct sm_conf *dst, const struct sm_conf *src, const char *key)
{
	const struct conf_key *k = conf_find(key);

	if (!k)
		return -ENOENT;
	memcpy((char *)dst + k->off, (const char *)src + k->off, k->size);
	return 0;
}

/* k's value in c as text, as a file writes it (conf_write) and conf_value_str shows it. */
static void conf_key_text(const struct sm_conf *c, const struct conf_key *k, char *buf, size_t len)
{
	json_t *v = conf_key_json(c, k);

	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		snprintf(buf, len, "?");
	json_decref(v);
}

int conf_value_str(const struct sm_conf *c, const char *key, char *buf, size_t len)
{
	const struct conf_key *k = conf_find(key);

	if (!k)
		return -ENOENT;
	if (k->secret) {
		snprintf(buf, len, "(hidden)");
		return 0;
	}
	conf_key_text(c, k, buf, len);
	return 0;
}

int conf_write(FILE *out, const struct sm_conf *c, const char *comment)
{
	char text[CONF_QOS_VLARB_MAX + 8];

	for (const char *l = comment; l && *l;) {
		const char *nl = strchr(l, '\n');
		int n = nl ? (int)(nl - l) : (int)strlen(l);

		fprintf(out, "# %.*s\n", n, l);
		l += n + (nl != NULL);
	}
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		conf_key_text(c, &conf_keys[i], text, sizeof(text));
		fprintf(out, "%s = %s\n", conf_keys[i].name, text);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -errno;
}

size_t conf_diff(const struct sm_conf *a, const struct sm_conf *b, const char **ret_keys,
		 size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (conf_ops(k)->same((const char *)a + k->off, (const char *)b + k->off, k))
			continue;
		if (n < max)
			ret_keys[n] = k->name;
		n++;
	}
	return n;
}

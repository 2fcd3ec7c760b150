/*
 * smctl's output (see smctl.h): a reply's result as people read it, by
 * default tables (an array of objects, one column per member), "key: value"
 * lines (objects, nested keys joined by dots), the port and link listings
 * with fewer columns and units, events as "key=value" lines; with --json
 * the result as it came.  Errors go to stderr.
 *
 * People read times as ISO 8601 (UTC, milliseconds): a number under a key
 * that names a time (smctl_is_time_key) is shown so; --json keeps the unix
 * times the daemon sends.  Tables drop the columns no row has a value in.
 * `status` is a summary unless --full.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "ui/smctl_int.h"

/* ---- tables and "key: value" lines ------------------------------------ */

void smctl_die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("smctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static char *scalar_str(json_t *v)
{
	char *s = NULL;

	switch (json_typeof(v)) {
	case JSON_STRING:
		s = strdup(json_string_value(v));
		break;
	case JSON_INTEGER:
		if (asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
			s = NULL;
		break;
	case JSON_REAL:
		/* %g would print 1.79617e+09: big values with their digits */
		if (asprintf(&s, fabs(json_real_value(v)) >= 1e6 ? "%.3f" : "%g",
			     json_real_value(v)) < 0)
			s = NULL;
		break;
	case JSON_TRUE:
		s = strdup("yes");
		break;
	case JSON_FALSE:
		s = strdup("no");
		break;
	case JSON_NULL:
		s = strdup("-");
		break;
	default:
		s = json_dumps(v, JSON_COMPACT);
		break;
	}
	if (!s)
		smctl_die(EXIT_USAGE, "out of memory");
	return s;
}

bool smctl_is_time_key(const char *key)
{
	static const char *const names[] = {"time", "unix_time", "last_ok"};
	static const char *const suffixes[] = {"_since", "_time", "_end"};
	size_t l = strlen(key);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i]))
			return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (l > k && !strcmp(key + l - k, suffixes[i]))
			return true;
	}
	return false;
}

int smctl_time_iso(double t, char *buf, size_t len)
{
	time_t sec;
	long ms;
	struct tm tm;

	if (!isfinite(t) || t < 0 || t > 253402300799.0) /* year 9999 */
		return -1;
	sec = (time_t)t;
	ms = lround((t - (double)sec) * 1000);
	if (ms >= 1000) {
		sec++;
		ms -= 1000;
	}
	if (!gmtime_r(&sec, &tm))
		return -1;
	return snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms) < (int)len
		   ? 0
		   : -1;
}

/* A value as people read it: under a time's key, a unix time as ISO 8601. */
static char *value_str(const char *key, json_t *v)
{
	char iso[40];

	if (key && json_is_number(v) && smctl_is_time_key(key) && json_number_value(v) >= 1e8 &&
	    smctl_time_iso(json_number_value(v), iso, sizeof(iso)) == 0) {
		char *s = strdup(iso);

		if (!s)
			smctl_die(EXIT_USAGE, "out of memory");
		return s;
	}
	return scalar_str(v);
}

static bool is_table(json_t *v)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		return false;
	json_array_foreach (v, i, e)
		if (!json_is_object(e))
			return false;
	return true;
}

/*
 * The columns of a table: every member of any row, in order of appearance,
 * but those no row has a value in (missing or null), and unix_time where the
 * rows have their time as text already (events).
 */
static json_t *table_columns(json_t *rows)
{
	json_t *cols = json_array(), *row, *val, *c;
	const char *key;
	size_t i, j;

	json_array_foreach (rows, i, row) {
		json_object_foreach (row, key, val) {
			bool seen = false;

			if (json_is_null(val))
				continue;
			if (!strcmp(key, "unix_time") &&
			    json_is_string(json_object_get(row, "time")))
				continue;
			json_array_foreach (cols, j, c)
				if (!strcmp(json_string_value(c), key))
					seen = true;
			if (!seen)
				json_array_append_new(cols, json_string(key));
		}
	}
	return cols;
}

static void print_table(json_t *rows, const char *indent)
{
	json_t *cols = table_columns(rows), *row, *val;
	size_t i, j, ncols, *width;
	char *s;

	ncols = json_array_size(cols);
	width = calloc(ncols ? ncols : 1, sizeof(*width));
	if (!width)
		smctl_die(EXIT_USAGE, "out of memory");
	for (j = 0; j < ncols; j++)
		width[j] = strlen(json_string_value(json_array_get(cols, j)));
	json_array_foreach (rows, i, row) {
		for (j = 0; j < ncols; j++) {
			const char *k = json_string_value(json_array_get(cols, j));

			val = json_object_get(row, k);
			s = val ? value_str(k, val) : strdup("-");
			if (s && strlen(s) > width[j])
				width[j] = strlen(s);
			free(s);
		}
	}
	fputs(indent, stdout);
	for (j = 0; j < ncols; j++) {
		const char *h = json_string_value(json_array_get(cols, j));
		size_t k;

		for (k = 0; h[k]; k++)
			putchar(h[k] >= 'a' && h[k] <= 'z' ? h[k] - 'a' + 'A' : h[k]);
		if (j + 1 < ncols)
			printf("%*s", (int)(width[j] - strlen(h) + 2), "");
	}
	putchar('\n');
	json_array_foreach (rows, i, row) {
		fputs(indent, stdout);
		for (j = 0; j < ncols; j++) {
			const char *k = json_string_value(json_array_get(cols, j));

			val = json_object_get(row, k);
			s = val ? value_str(k, val) : strdup("-");
			if (!s)
				smctl_die(EXIT_USAGE, "out of memory");
			if (j + 1 < ncols)
				printf("%-*s  ", (int)width[j], s);
			else
				fputs(s, stdout);
			free(s);
		}
		putchar('\n');
	}
	free(width);
	json_decref(cols);
}

static size_t key_width(json_t *obj, const char *prefix)
{
	const char *key;
	json_t *v;
	size_t w = 0, l;

	json_object_foreach (obj, key, v) {
		if (json_is_object(v) && json_object_size(v)) {
			char p[256];

			snprintf(p, sizeof(p), "%s%s.", prefix, key);
			l = key_width(v, p);
		} else {
			l = strlen(prefix) + strlen(key);
		}
		if (l > w)
			w = l;
	}
	return w;
}

static void print_object(json_t *obj, const char *prefix, size_t width)
{
	const char *key;
	json_t *v;
	char *s;

	json_object_foreach (obj, key, v) {
		char name[256];

		snprintf(name, sizeof(name), "%s%s", prefix, key);
		if (json_is_object(v) && json_object_size(v)) {
			char p[260];

			snprintf(p, sizeof(p), "%s.", name);
			print_object(v, p, width);
		} else if (is_table(v)) {
			printf("%s:\n", name);
			print_table(v, "  ");
		} else {
			s = value_str(key, v);
			printf("%s:%*s %s\n", name, (int)(width - strlen(name)), "", s);
			free(s);
		}
	}
}

/* ---- listings an admin reads: fewer columns than the JSON, with units ---- */

static const char *jstr(json_t *row, const char *key)
{
	const char *v = json_string_value(json_object_get(row, key));

	return v ? v : "-";
}

/* The server's rate_gbps (the IBA rate the SA answers); "(below)": under what both ends enable. */
static char *cell_port_rate(json_t *row)
{
	json_t *r = json_object_get(row, "rate_gbps");
	char *s = NULL;

	if (!json_is_number(r) || strcmp(jstr(row, "speed"), "?") == 0 ||
	    asprintf(&s, "%g Gb/s%s", json_number_value(r),
		     json_is_true(json_object_get(row, "below_enabled")) ? " (below)" : "") < 0)
		s = NULL;
	return s ? s : strdup("-");
}

static char *cell_mtu(json_t *row)
{
	json_int_t m = json_integer_value(json_object_get(row, "mtu"));
	char *s = NULL;

	if (m <= 0)
		return strdup("-");
	return asprintf(&s, "%" JSON_INTEGER_FORMAT " B", m) < 0 ? NULL : s;
}

static char *cell_end(json_t *row, const char *desc, const char *port)
{
	json_t *p = json_object_get(row, port);
	char *s = NULL;

	if (!json_object_get(row, desc))
		return strdup("-");
	return asprintf(&s, "%s[%" JSON_INTEGER_FORMAT "]", jstr(row, desc),
			json_integer_value(p)) < 0
		   ? NULL
		   : s;
}

static char *cell_peer(json_t *row)
{
	return cell_end(row, "peer_desc", "peer_port");
}
static char *cell_a(json_t *row)
{
	return cell_end(row, "a_desc", "a_port");
}
static char *cell_b(json_t *row)
{
	return cell_end(row, "b_desc", "b_port");
}

struct column {
	const char *header;
	const char *key;	    /* a member shown as it is, or */
	char *(*cell)(json_t *row); /* one computed */
};

static const struct column port_columns[] = {
    {"NODE", "node_desc", NULL},  {"PORT", "port", NULL},
    {"LID", "lid", NULL},	  {"STATE", "state", NULL},
    {"PHYS", "phys_state", NULL}, {"WIDTH", "width", NULL},
    {"SPEED", "speed", NULL},	  {"RATE", NULL, cell_port_rate},
    {"MTU", NULL, cell_mtu},	  {"PEER", NULL, cell_peer},
    {NULL, NULL, NULL},
};

static const struct column link_columns[] = {
    {"A", NULL, cell_a},
    {"B", NULL, cell_b},
    {"WIDTH", "width", NULL},
    {"SPEED", "speed", NULL},
    {"RATE", NULL, cell_port_rate},
    {"STATE", "state", NULL},
    {NULL, NULL, NULL},
};

static char *column_cell(const struct column *c, json_t *row)
{
	json_t *v;

	if (c->cell)
		return c->cell(row);
	v = json_object_get(row, c->key);
	return v ? scalar_str(v) : strdup("-");
}

#define MAX_COLUMNS 16

/* The port and link listings; a column no row has a value in ("-" in every row) is left out. */
static void print_columns(json_t *rows, const struct column *cols)
{
	size_t n = 0, width[MAX_COLUMNS] = {0}, i, last = 0;
	bool used[MAX_COLUMNS] = {false};
	json_t *row;
	char *s;

	for (; cols[n].header && n < MAX_COLUMNS; n++)
		width[n] = strlen(cols[n].header);
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			s = column_cell(&cols[j], row);
			if (s && strcmp(s, "-"))
				used[j] = true;
			if (s && strlen(s) > width[j])
				width[j] = strlen(s);
			free(s);
		}
	}
	for (size_t j = 0; j < n; j++)
		if (used[j])
			last = j;
	for (size_t j = 0; j < n; j++) {
		if (!used[j])
			continue;
		if (j < last)
			printf("%-*s  ", (int)width[j], cols[j].header);
		else
			puts(cols[j].header);
	}
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			if (!used[j])
				continue;
			s = column_cell(&cols[j], row);
			if (!s)
				smctl_die(EXIT_USAGE, "out of memory");
			if (j < last)
				printf("%-*s  ", (int)width[j], s);
			else
				puts(s);
			free(s);
		}
	}
}

/* ---- smctl status: the summary an operator reads first ------------------- */

static json_int_t jint(json_t *o, const char *path)
{
	char key[64];

	while (o && strchr(path, '.')) {
		size_t n = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		o = json_object_get(o, key);
		path += n + 1;
	}
	return json_integer_value(json_object_get(o, path));
}

/* One "name: value" line of the summary. */
static void __attribute__((format(printf, 2, 3)))
summary_line(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%-12s ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The other SMs, one line each; "none". */
static void summary_peers(json_t *peers)
{
	json_t *p;
	size_t i;

	if (!json_array_size(peers)) {
		summary_line("peers:", "none");
		return;
	}
	json_array_foreach (peers, i, p)
		summary_line(i ? "" : "peers:", "%s %s, priority %" JSON_INTEGER_FORMAT "%s%s",
			     jstr(p, "guid"), jstr(p, "state"), jint(p, "priority"),
			     json_is_false(json_object_get(p, "reachable")) ? ", unreachable" : "",
			     !strcmp(jstr(p, "sm_key"), "other") ? ", another SM_Key" : "");
}

/* What a human must look at: one line each, or "none". */
static void summary_problems(json_t *r)
{
	char line[16][200];
	unsigned n = 0;
	json_t *sync = json_object_get(r, "sync"), *p;
	const char *st = jstr(r, "state");
	size_t i;

#define PROBLEM(...)                                                                               \
	do {                                                                                       \
		if (n < 16)                                                                        \
			snprintf(line[n++], sizeof(line[0]), __VA_ARGS__);                         \
	} while (0)
	if (strcmp(st, "MASTER") && strcmp(st, "STANDBY"))
		PROBLEM("neither MASTER nor STANDBY: %s", st);
	if (!strcmp(st, "MASTER") && !json_is_true(json_object_get(r, "subnet_up")))
		PROBLEM("the subnet is not up");
	if (strcmp(jstr(r, "last_sweep_status"), "ok") && strcmp(jstr(r, "last_sweep_status"), "-"))
		PROBLEM("last sweep: %s%s%s", jstr(r, "last_sweep_status"),
			*jstr(r, "last_sweep_reason") ? ": " : "", jstr(r, "last_sweep_reason"));
	if (jint(r, "perfmgr.unhealthy") > 0)
		PROBLEM("%" JSON_INTEGER_FORMAT " ports unhealthy (smctl ports --unhealthy)",
			jint(r, "perfmgr.unhealthy"));
	if (jint(r, "flapping.quarantined") > 0)
		PROBLEM("%" JSON_INTEGER_FORMAT " ports quarantined (smctl ports --state down)",
			jint(r, "flapping.quarantined"));
	json_array_foreach (json_object_get(r, "peers"), i, p)
		if (json_is_false(json_object_get(p, "reachable")))
			PROBLEM("peer %s unreachable", jstr(p, "guid"));
	if (jint(r, "failover.foreign_sms") > 0)
		PROBLEM("%" JSON_INTEGER_FORMAT " SMs with another SM_Key",
			jint(r, "failover.foreign_sms"));
	if (jint(r, "mkey.refused") > 0)
		PROBLEM("%" JSON_INTEGER_FORMAT " SMPs refused for their M_Key",
			jint(r, "mkey.refused"));
	if (json_is_true(json_object_get(r, "guid2lid_pending")))
		PROBLEM("the guid2lid file is not written yet (a full disk?)");
	if (json_is_string(json_object_get(sync, "last_error")))
		PROBLEM("state sync: %s", jstr(sync, "last_error"));
	if (!strcmp(jstr(r, "sm_key"), "default"))
		PROBLEM("sm_key is the default (1): any host may act as an SM; set your own");
#undef PROBLEM
	if (!n)
		summary_line("problems:", "none");
	for (unsigned k = 0; k < n; k++)
		summary_line(k ? "" : "problems:", "%s", line[k]);
}

/* smctl status without --full: role, subnet, counts, last sweep, peers, health, problems. */
static void print_status_summary(json_t *r)
{
	json_t *since = json_object_get(r, "state_since"), *perf = json_object_get(r, "perfmgr");
	char iso[40] = "";

	if (json_is_number(since))
		smctl_time_iso(json_number_value(since), iso, sizeof(iso));
	summary_line("state:", "%s%s%s%s%s%s", jstr(r, "state"), iso[0] ? " since " : "", iso,
		     *jstr(r, "state_reason") ? " (" : "", jstr(r, "state_reason"),
		     *jstr(r, "state_reason") ? ")" : "");
	summary_line("priority:", "%" JSON_INTEGER_FORMAT, jint(r, "priority"));
	summary_line("subnet:", "%s",
		     json_is_true(json_object_get(r, "subnet_up")) ? "up" : "NOT UP");
	summary_line("fabric:",
		     "%" JSON_INTEGER_FORMAT " nodes (%" JSON_INTEGER_FORMAT
		     " switches, %" JSON_INTEGER_FORMAT " CAs), %" JSON_INTEGER_FORMAT
		     " links, %" JSON_INTEGER_FORMAT " LIDs, %" JSON_INTEGER_FORMAT " ports active",
		     jint(r, "nodes"), jint(r, "switches"), jint(r, "cas"), jint(r, "links"),
		     jint(r, "lids"), jint(r, "ports_active"));
	summary_line("routing:", "%s", jstr(r, "routing_engine"));
	summary_line("last sweep:",
		     "%s in %" JSON_INTEGER_FORMAT " ms (%" JSON_INTEGER_FORMAT
		     " heavy, %" JSON_INTEGER_FORMAT
		     " light sweeps; generation %" JSON_INTEGER_FORMAT ")",
		     jstr(r, "last_sweep_status"), jint(r, "last_sweep_ms"), jint(r, "sweeps"),
		     jint(r, "light_sweeps"), jint(r, "generation"));
	summary_peers(json_object_get(r, "peers"));
	if (json_is_true(json_object_get(perf, "enabled")))
		summary_line("ports:",
			     "%" JSON_INTEGER_FORMAT
			     " read by the performance manager, %" JSON_INTEGER_FORMAT
			     " unhealthy, %" JSON_INTEGER_FORMAT " quarantined",
			     jint(perf, "ports"), jint(perf, "unhealthy"),
			     jint(r, "flapping.quarantined"));
	else
		summary_line(
		    "ports:", "%" JSON_INTEGER_FORMAT " quarantined (performance manager off)",
		    jint(r, "flapping.quarantined"));
	summary_problems(r);
	printf("(smctl status --full: every counter)\n");
}

static void print_human(json_t *result)
{
	size_t i;
	json_t *e;
	char *s;

	if (json_is_string(result)) {
		const char *str = json_string_value(result);
		size_t l = strlen(str);

		fputs(str, stdout);
		if (l && str[l - 1] != '\n')
			putchar('\n');
	} else if (json_is_object(result)) {
		print_object(result, "", key_width(result, ""));
	} else if (is_table(result)) {
		print_table(result, "");
	} else if (json_is_array(result)) {
		json_array_foreach (result, i, e) {
			s = scalar_str(e);
			puts(s);
			free(s);
		}
	} else {
		s = scalar_str(result);
		puts(s);
		free(s);
	}
}

static void print_json(json_t *v, size_t flags)
{
	if (json_dumpf(v, stdout, flags | JSON_ENCODE_ANY) < 0)
		smctl_die(EXIT_USAGE, "cannot write output");
	putchar('\n');
}

void smctl_print_event(json_t *event, bool json)
{
	const char *key;
	json_t *v;
	char *s;
	bool first = true;

	if (json || !json_is_object(event)) {
		print_json(event, JSON_COMPACT);
		return;
	}
	json_object_foreach (event, key, v) {
		s = scalar_str(v);
		printf("%s%s=%s", first ? "" : " ", key, s);
		free(s);
		first = false;
	}
	putchar('\n');
}

int smctl_print_reply(json_t *reply, const struct smctl_view *v)
{
	json_t *ok = json_object_get(reply, "ok"), *err, *result;
	const char *code, *msg;

	if (!json_is_boolean(ok))
		smctl_die(EXIT_USAGE, "malformed reply from ibsmd: no \"ok\"");
	if (!json_is_true(ok)) {
		err = json_object_get(reply, "error");
		code = json_string_value(json_object_get(err, "code"));
		msg = json_string_value(json_object_get(err, "message"));
		fprintf(stderr, "smctl: %s: %s\n", code ? code : "error",
			msg ? msg : "(no message)");
		return EXIT_SM_ERROR;
	}
	result = json_object_get(reply, "result");
	if (!result)
		result = json_null();
	if (v->json) {
		print_json(result, JSON_INDENT(2));
	} else if (v->detail && json_is_array(json_object_get(result, "port_counters"))) {
		json_t *p;
		size_t i;

		json_array_foreach (json_object_get(result, "port_counters"), i, p) {
			if (i)
				putchar('\n');
			print_object(p, "", key_width(p, ""));
		}
	} else if (v->cmd && !strcmp(v->cmd, "status") && !v->full && json_is_object(result)) {
		print_status_summary(result);
	} else if (v->cmd && !strcmp(v->cmd, "topology") && json_is_object(result)) {
		print_json(result, JSON_INDENT(2)); /* --format json: JSON, whatever the output */
	} else if (v->cmd && !strcmp(v->cmd, "ports") && is_table(result)) {
		print_columns(result, port_columns);
	} else if (v->cmd && !strcmp(v->cmd, "links") && is_table(result)) {
		print_columns(result, link_columns);
	} else if (v->cmd && json_is_array(result) && !json_array_size(result)) {
		fprintf(stderr, "smctl: nothing matches\n");
	} else if (!(json_is_object(result) && !json_object_size(result)) && !json_is_null(result))
		print_human(result);
	return 0;
}

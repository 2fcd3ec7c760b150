/*
 * smctl's output (see smctl.h): a reply's result as people read it, by
 * default tables (an array of objects, one column per member), "key: value"
 * lines (objects, nested keys joined by dots), the port and link listings
 * with fewer columns and units, events as "key=value" lines; with --json
 * the result as it came.  Errors go to stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		if (asprintf(&s, "%g", json_real_value(v)) < 0)
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

static void print_table(json_t *rows, const char *indent)
{
	json_t *cols = json_array(), *row, *val;
	size_t i, j, ncols, *width;
	const char *key;
	char *s;

	json_array_foreach (rows, i, row) {
		json_object_foreach (row, key, val) {
			bool seen = false;

			json_array_foreach (cols, j, val)
				if (!strcmp(json_string_value(val), key))
					seen = true;
			if (!seen)
				json_array_append_new(cols, json_string(key));
		}
	}
	ncols = json_array_size(cols);
	width = calloc(ncols ? ncols : 1, sizeof(*width));
	if (!width)
		smctl_die(EXIT_USAGE, "out of memory");
	for (j = 0; j < ncols; j++)
		width[j] = strlen(json_string_value(json_array_get(cols, j)));
	json_array_foreach (rows, i, row) {
		for (j = 0; j < ncols; j++) {
			val = json_object_get(row, json_string_value(json_array_get(cols, j)));
			s = val ? scalar_str(val) : strdup("-");
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
			val = json_object_get(row, json_string_value(json_array_get(cols, j)));
			s = val ? scalar_str(val) : strdup("-");
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
			s = scalar_str(v);
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

static void print_columns(json_t *rows, const struct column *cols)
{
	size_t n = 0, width[16] = {0}, i;
	json_t *row;
	char *s;

	for (; cols[n].header && n < 16; n++)
		width[n] = strlen(cols[n].header);
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			s = column_cell(&cols[j], row);
			if (s && strlen(s) > width[j])
				width[j] = strlen(s);
			free(s);
		}
	}
	for (size_t j = 0; j < n; j++) {
		if (j + 1 < n)
			printf("%-*s  ", (int)width[j], cols[j].header);
		else
			puts(cols[j].header);
	}
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			s = column_cell(&cols[j], row);
			if (!s)
				smctl_die(EXIT_USAGE, "out of memory");
			if (j + 1 < n)
				printf("%-*s  ", (int)width[j], s);
			else
				puts(s);
			free(s);
		}
	}
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

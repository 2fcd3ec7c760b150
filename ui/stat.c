/*
 * Counter tables (lib/stat_table.h) as JSON and as Prometheus text (0.0.4).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "ui/stat.h"

static json_t *stat_field_json(const struct stat_field *f, const void *st)
{
	const char *p = (const char *)st + f->off;
	char g[24];

	switch (f->type) {
	case STAT_U64:
		return json_integer((json_int_t) * (const uint64_t *)p);
	case STAT_U32:
		return json_integer((json_int_t) * (const uint32_t *)p);
	case STAT_INT:
		return json_integer(*(const int *)p);
	case STAT_BOOL:
		return json_boolean(*(const bool *)p);
	case STAT_DOUBLE:
		return json_real(*(const double *)p);
	case STAT_CHARS:
		return json_string(p);
	case STAT_STR:
		return *(const char *const *)p ? json_string(*(const char *const *)p) : json_null();
	case STAT_HEX64:
		snprintf(g, sizeof(g), "0x%016" PRIx64, *(const uint64_t *)p);
		return json_string(g);
	case STAT_GUID:
		if (!*(const uint64_t *)p)
			return json_null();
		snprintf(g, sizeof(g), "0x%016" PRIx64, *(const uint64_t *)p);
		return json_string(g);
	}
	return json_null();
}

int stat_json_into(json_t *o, const struct stat_table *t, const void *st)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct stat_field *f = &t->fields[i];

		if (f->key && json_object_set_new(o, f->key, stat_field_json(f, st)) < 0)
			return -ENOMEM;
	}
	return 0;
}

json_t *stat_json(const struct stat_table *t, const void *st)
{
	json_t *o = json_object();

	if (o && stat_json_into(o, t, st) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int stat_json_section(json_t *top, const struct stat_table *t, const void *st)
{
	if (!t->section)
		return stat_json_into(top, t, st);
	return json_object_set_new(top, t->section, stat_json(t, st)) < 0 ? -ENOMEM : 0;
}

void stat_metrics(FILE *b, const struct stat_table *t, const void *st)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct stat_field *f = &t->fields[i];

		if (!f->metric || f->type >= STAT_CHARS)
			continue;
		fprintf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", f->metric, f->help, f->metric,
			f->kind == STAT_COUNTER ? "counter" : "gauge", f->metric,
			stat_value(f, st) * (f->scale ? f->scale : 1));
	}
}

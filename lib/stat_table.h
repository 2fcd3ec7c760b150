/*
 * Counters as data.  A part of the SM describes the fields of its status
 * struct once, in a table: the key it has in `smctl status`, the
 * Prometheus family it is exported as, its help text.  ui/stat.c renders
 * the same table as a JSON object and as metrics, so the two views cannot
 * drift apart and nobody lists a counter twice (Redis's INFO sections).
 *
 *   static const struct stat_field f[] = {
 *	STAT_FIELD(struct health_stats, link_downs, "link_downs",
 *		   "ibsmd_link_downs_total", STAT_COUNTER, "Link downs counted."),
 *   };
 *   const struct stat_table health_stat_table = STAT_TABLE("flapping", f);
 *
 * A field's C type is found by the macro (_Generic): uint64_t, uint32_t,
 * unsigned, int, bool, double, a char array (a string in JSON, no metric)
 * or, with STAT_GUID_FIELD, a GUID (a "0x..." string or null in JSON).
 * Pure data: no I/O here.
 */
#ifndef IBSMD_STAT_TABLE_H
#define IBSMD_STAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stat_kind {
	STAT_COUNTER, /* only goes up: a *_total family */
	STAT_GAUGE,   /* goes up and down */
};

enum stat_type {
	STAT_U64,
	STAT_U32,
	STAT_INT,
	STAT_BOOL,
	STAT_DOUBLE,
	STAT_CHARS, /* char[]: JSON string, never a metric */
	STAT_STR,   /* const char *: JSON string (NULL: null), never a metric */
	STAT_GUID,  /* uint64_t shown as "0x%016x", 0 as null; never a metric */
	STAT_HEX64, /* uint64_t shown as "0x%016x", always; never a metric */
};

struct stat_field {
	const char *key;    /* in the status object; NULL: a metric only */
	const char *metric; /* Prometheus family; NULL: status only */
	const char *help;
	enum stat_kind kind;
	enum stat_type type;
	size_t off;   /* in the status struct */
	double scale; /* the metric is the value times this (ms -> s: 1e-3); 0: 1 */
};

struct stat_table {
	const char *section; /* its object in `smctl status`; NULL: the top level */
	const struct stat_field *fields;
	size_t n;
};

#define STAT_TYPE_OF(st, m)                                                                        \
	_Generic(((st *)0)->m,                                                                     \
	    uint64_t: STAT_U64,                                                                    \
	    uint32_t: STAT_U32,                                                                    \
	    int: STAT_INT,                                                                         \
	    bool: STAT_BOOL,                                                                       \
	    double: STAT_DOUBLE,                                                                   \
	    char *: STAT_CHARS,                                                                    \
	    const char *: STAT_STR)

#define STAT_FIELD(st, m, key, metric, kind, help)                                                 \
	{                                                                                          \
		(key), (metric), (help), (kind), STAT_TYPE_OF(st, m), offsetof(st, m), 0           \
	}
/* The same, the metric scaled (a duration kept in ms, exported in seconds: 1e-3). */
#define STAT_FIELD_SCALED(st, m, key, metric, kind, help, scale)                                   \
	{                                                                                          \
		(key), (metric), (help), (kind), STAT_TYPE_OF(st, m), offsetof(st, m), (scale)     \
	}
#define STAT_GUID_FIELD(st, m, key)                                                                \
	{                                                                                          \
		(key), NULL, NULL, STAT_GAUGE, STAT_GUID, offsetof(st, m), 0                       \
	}
#define STAT_HEX64_FIELD(st, m, key)                                                               \
	{                                                                                          \
		(key), NULL, NULL, STAT_GAUGE, STAT_HEX64, offsetof(st, m), 0                      \
	}
#define STAT_TABLE(section, fields)                                                                \
	{                                                                                          \
		(section), (fields), sizeof(fields) / sizeof((fields)[0])                          \
	}

/* Field f of the status struct at st, as a number (0 for strings and GUIDs). */
static inline double stat_value(const struct stat_field *f, const void *st)
{
	const char *p = (const char *)st + f->off;

	switch (f->type) {
	case STAT_U64:
		return (double)*(const uint64_t *)p;
	case STAT_U32:
		return *(const uint32_t *)p;
	case STAT_INT:
		return *(const int *)p;
	case STAT_BOOL:
		return *(const bool *)p;
	case STAT_DOUBLE:
		return *(const double *)p;
	default:
		return 0;
	}
}

#endif

/*
 * Inside the configuration (sm/conf.c, sm/conf_types.c): the key table's
 * row and the value types.  conf.c owns the key table, the file and the
 * views; conf_types.c what each type of value means.  Nothing else
 * includes this; the API is sm/conf.h.
 */
#ifndef IBSMD_CONF_INT_H
#define IBSMD_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "sm/conf.h"

#define CONF_CHAIN_ENTRIES 8 /* engines in routing_chain at most */

enum conf_type {
	CONF_STRING,   /* any text that fits */
	CONF_PATH,     /* absolute path */
	CONF_OPT_PATH, /* absolute path, or empty */
	CONF_NAME,     /* [A-Za-z0-9_.-]*, may be empty */
	CONF_ENGINE,   /* [a-z0-9_-]+ */
	CONF_CHAIN,    /* comma list of engines */
	CONF_INT,
	CONF_U64,
	CONF_LEVEL,
	CONF_ENFORCE,	  /* off|in|out|both (OpenSM's part_enforce) -> int CONF_ENFORCE_* */
	CONF_BOOL,	  /* true|false (also yes|no, on|off, 1|0) */
	CONF_AUTO_BOOL,	  /* auto|true|false (as CONF_BOOL) -> int CONF_AUTO* */
	CONF_LISTEN,	  /* "" or HOST:PORT, [IPv6]:PORT */
	CONF_LISTEN_LIST, /* "" or a comma list of CONF_LISTEN */
	CONF_VLARB,	  /* "" or OpenSM's "VL:weight,..." (policy/qos.h) */
	CONF_SL2VL,	  /* "" or OpenSM's "VL,VL,..." for SLs 0..15 */
	CONF_VALIDATE,	  /* warn|isolate (isolate only where max is 1) -> int CONF_VALIDATE_* */
	CONF_NTYPES,
};

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off;
	size_t size; /* strings: buffer size */
	long min, max;
	const char *def; /* the default, as it would be written in the file */
	enum conf_live live;
	bool secret; /* never shown: not in conf_to_json, "(hidden)" in conf_value_str */
};

/*
 * What each type does, in one table (conf_types): parse checks and stores
 * a value (0, or -EINVAL with why, no key name), show gives the value as
 * conf_to_json, conf_value_str and conf_write show it, same compares two.
 * Every operation on a key goes through its type's row.
 */
typedef int conf_parse_fn(char *p, const struct conf_key *k, const char *value, size_t len,
			  char *why, size_t why_len);
typedef json_t *conf_show_fn(const char *p);
typedef bool conf_same_fn(const char *a, const char *b, const struct conf_key *k);

struct conf_type_ops {
	conf_parse_fn *parse;
	conf_show_fn *show;
	conf_same_fn *same;
};

/* One row per enum conf_type, every handler set (conf_defaults checks the keys' types). */
extern const struct conf_type_ops conf_types[CONF_NTYPES];

#endif

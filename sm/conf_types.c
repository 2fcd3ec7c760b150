/*
 * The configuration's value types (see conf_int.h, man/ibsmd.conf.5): for
 * each, how a value is checked and stored (parse: the error messages the
 * file's readers see, byte for byte), shown (the JSON view, conf_write and
 * conf_value_str) and compared (conf_diff), as one row of conf_types; and
 * the names of the log levels and of part_enforce's values.  Pure: no
 * logging, no state.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "policy/qos.h"
#include "sm/conf_int.h"

static const struct {
	const char *name;
	int level;
} conf_levels[] = {
    {"error", LOG_ERR},
    {"warning", LOG_WARNING},
    {"info", LOG_INFO},
    {"debug", LOG_DEBUG},
};

static const char *const conf_enforce_names[] = {
    [CONF_ENFORCE_OFF] = "off",
    [CONF_ENFORCE_IN] = "in",
    [CONF_ENFORCE_OUT] = "out",
    [CONF_ENFORCE_BOTH] = "both",
};

int conf_enforce_from_str(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, conf_enforce_names[i]))
			return i;
	return -1;
}

const char *conf_enforce_str(int v)
{
	return v >= 0 && v < 4 ? conf_enforce_names[v] : "?";
}

int conf_log_level_from_str(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(conf_levels) / sizeof(conf_levels[0]); i++)
		if (!strcmp(s, conf_levels[i].name))
			return conf_levels[i].level;
	return -1;
}

const char *conf_log_level_str(int level)
{
	size_t i;

	for (i = 0; i < sizeof(conf_levels) / sizeof(conf_levels[0]); i++)
		if (conf_levels[i].level == level)
			return conf_levels[i].name;
	return NULL;
}

static bool conf_is_engine(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-')
			return false;
	return true;
}

/*
 * HOST:PORT with a host name or IPv4 address of [A-Za-z0-9.-], or an IPv6
 * address in brackets, and a port 1..65535.  Resolved when the endpoint
 * opens, not here.
 */
static bool conf_is_listen(const char *s)
{
	const char *colon, *host_end;
	char *end;
	long port;

	if (s[0] == '[') {
		host_end = strchr(s, ']');
		if (!host_end || host_end == s + 1 || host_end[1] != ':')
			return false;
		for (const char *q = s + 1; q < host_end; q++)
			if (!isxdigit((unsigned char)*q) && *q != ':' && *q != '.')
				return false;
		colon = host_end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || colon == s)
			return false;
		for (const char *q = s; q < colon; q++)
			if (!isalnum((unsigned char)*q) && *q != '.' && *q != '-')
				return false;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	return colon[1] && !*end && !errno && port >= 1 && port <= 65535 &&
	       isdigit((unsigned char)colon[1]);
}

/* Whether conf_to_json() can show s (jansson takes UTF-8 only). */
static bool conf_is_utf8(const char *s)
{
	json_t *j = json_string(s);
	bool ok = j != NULL;

	json_decref(j);
	return ok;
}

/* Whether a value of len characters fits k's char array; -EINVAL with why when not. */
static int conf_fits(const struct conf_key *k, size_t len, char *why, size_t why_len)
{
	if (len >= k->size) {
		snprintf(why, why_len, "value longer than %zu characters", k->size - 1);
		return -EINVAL;
	}
	return 0;
}

/* The tail of the string-like types: value (len characters) into k's char array at p. */
static int conf_copy(char *p, const struct conf_key *k, const char *value, size_t len, char *why,
		     size_t why_len)
{
	if (conf_fits(k, len, why, why_len) < 0)
		return -EINVAL;
	memcpy(p, value, len + 1);
	return 0;
}

static int conf_parse_string(char *p, const struct conf_key *k, const char *value, size_t len,
			     char *why, size_t why_len)
{
	if (!conf_is_utf8(value)) {
		snprintf(why, why_len, "value is not valid UTF-8");
		return -EINVAL;
	}
	return conf_copy(p, k, value, len, why, why_len);
}

static int conf_parse_path(char *p, const struct conf_key *k, const char *value, size_t len,
			   char *why, size_t why_len)
{
	if (len && value[0] != '/') {
		snprintf(why, why_len, "'%s' is not an absolute path", value);
		return -EINVAL;
	}
	if (!len) {
		snprintf(why, why_len, "a path is required");
		return -EINVAL;
	}
	return conf_parse_string(p, k, value, len, why, why_len);
}

static int conf_parse_opt_path(char *p, const struct conf_key *k, const char *value, size_t len,
			       char *why, size_t why_len)
{
	if (!len) {
		*p = '\0';
		return 0;
	}
	return conf_parse_path(p, k, value, len, why, why_len);
}

static int conf_parse_name(char *p, const struct conf_key *k, const char *value, size_t len,
			   char *why, size_t why_len)
{
	for (size_t i = 0; i < len; i++) {
		if (!isalnum((unsigned char)value[i]) && !strchr("_.-", value[i])) {
			snprintf(why, why_len, "'%s' is not a valid name", value);
			return -EINVAL;
		}
	}
	return conf_copy(p, k, value, len, why, why_len);
}

static int conf_parse_engine(char *p, const struct conf_key *k, const char *value, size_t len,
			     char *why, size_t why_len)
{
	if (!conf_is_engine(value, len)) {
		snprintf(why, why_len, "'%s' is not a routing engine name", value);
		return -EINVAL;
	}
	return conf_copy(p, k, value, len, why, why_len);
}

static int conf_parse_chain(char *p, const struct conf_key *k, const char *value, size_t len,
			    char *why, size_t why_len)
{
	const char *s, *comma;
	int n;

	if (conf_fits(k, len, why, why_len) < 0)
		return -EINVAL;
	if (!len) {
		snprintf(why, why_len, "at least one routing engine is required");
		return -EINVAL;
	}
	for (s = value, n = 0;; s = comma + 1) {
		comma = strchr(s, ',');
		if (!conf_is_engine(s, comma ? (size_t)(comma - s) : strlen(s))) {
			snprintf(why, why_len,
				 "'%s' is not a comma-separated list of engine names (e.g. "
				 "ftree,dor,dfsp,updn,minhop)",
				 value);
			return -EINVAL;
		}
		if (++n > CONF_CHAIN_ENTRIES) {
			snprintf(why, why_len, "more than %d engines", CONF_CHAIN_ENTRIES);
			return -EINVAL;
		}
		if (!comma)
			break;
	}
	memcpy(p, value, len + 1);
	return 0;
}

static int conf_parse_int(char *p, const struct conf_key *k, const char *value, size_t len,
			  char *why, size_t why_len)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (!len || *end || errno) {
		snprintf(why, why_len, "'%s' is not an integer", value);
		return -EINVAL;
	}
	if (v < k->min || v > k->max) {
		snprintf(why, why_len, "%ld is out of range %ld..%ld", v, k->min, k->max);
		return -EINVAL;
	}
	*(int *)(void *)p = (int)v;
	return 0;
}

static int conf_parse_u64(char *p, const struct conf_key *k, const char *value, size_t len,
			  char *why, size_t why_len)
{
	unsigned long long u;
	char *end;

	errno = 0;
	u = strtoull(value, &end, 16);
	if (!len || *end || errno || value[0] == '-' || isspace((unsigned char)value[0])) {
		if (k->secret)
			snprintf(why, why_len, "not a 64-bit hex number (e.g. 0x1)");
		else
			snprintf(why, why_len,
				 "'%s' is not a 64-bit hex number (e.g. 0xfe80000000000000)",
				 value);
		return -EINVAL;
	}
	*(uint64_t *)(void *)p = u;
	return 0;
}

static int conf_parse_level(char *p, const struct conf_key *k, const char *value, size_t len,
			    char *why, size_t why_len)
{
	int lvl = conf_log_level_from_str(value);

	if (lvl < 0) {
		snprintf(why, why_len, "'%s' is not one of error, warning, info, debug", value);
		return -EINVAL;
	}
	*(int *)(void *)p = lvl;
	return 0;
}

static int conf_parse_enforce(char *p, const struct conf_key *k, const char *value, size_t len,
			      char *why, size_t why_len)
{
	int e = conf_enforce_from_str(value);

	if (e < 0) {
		snprintf(why, why_len, "'%s' is not one of both, in, out, off", value);
		return -EINVAL;
	}
	*(int *)(void *)p = e;
	return 0;
}

static int conf_parse_validate(char *p, const struct conf_key *k, const char *value, size_t len,
			       char *why, size_t why_len)
{
	if (!strcmp(value, "warn")) {
		*(int *)(void *)p = CONF_VALIDATE_WARN;
		return 0;
	}
	if (!strcmp(value, "isolate") && k->max >= CONF_VALIDATE_ISOLATE) {
		*(int *)(void *)p = CONF_VALIDATE_ISOLATE;
		return 0;
	}
	if (!strcmp(value, "isolate"))
		snprintf(why, why_len, "'isolate': this kind of finding has no port to disable");
	else
		snprintf(why, why_len, "'%s' is not one of warn, isolate", value);
	return -EINVAL;
}

static json_t *conf_show_validate(const char *p)
{
	return json_string(*(const int *)(const void *)p == CONF_VALIDATE_ISOLATE ? "isolate"
										  : "warn");
}

static int conf_parse_bool(char *p, const struct conf_key *k, const char *value, size_t len,
			   char *why, size_t why_len)
{
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on") ||
	    !strcasecmp(value, "1")) {
		*(bool *)p = true;
	} else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
		   !strcasecmp(value, "off") || !strcasecmp(value, "0")) {
		*(bool *)p = false;
	} else {
		snprintf(why, why_len, "'%s' is not true or false", value);
		return -EINVAL;
	}
	return 0;
}

static int conf_parse_auto_bool(char *p, const struct conf_key *k, const char *value, size_t len,
				char *why, size_t why_len)
{
	bool b;

	if (!strcasecmp(value, "auto")) {
		*(int *)p = CONF_AUTO;
		return 0;
	}
	if (conf_parse_bool((char *)&b, k, value, len, why, why_len) < 0) {
		snprintf(why, why_len, "'%s' is not auto, true or false", value);
		return -EINVAL;
	}
	*(int *)p = b ? CONF_AUTO_TRUE : CONF_AUTO_FALSE;
	return 0;
}

static int conf_parse_listen(char *p, const struct conf_key *k, const char *value, size_t len,
			     char *why, size_t why_len)
{
	if (len && !conf_is_listen(value)) {
		snprintf(why, why_len,
			 "'%s' is not ADDRESS:PORT (e.g. 127.0.0.1:9100 or [::1]:9100)", value);
		return -EINVAL;
	}
	return conf_copy(p, k, value, len, why, why_len);
}

static int conf_parse_listen_list(char *p, const struct conf_key *k, const char *value, size_t len,
				  char *why, size_t why_len)
{
	char one[CONF_NAME_MAX];
	const char *q = value;

	if (conf_fits(k, len, why, why_len) < 0)
		return -EINVAL;
	while (len && *q) {
		size_t w = strcspn(q, ",");

		if (w >= sizeof(one)) {
			snprintf(why, why_len, "an address longer than %zu characters",
				 sizeof(one) - 1);
			return -EINVAL;
		}
		memcpy(one, q, w);
		one[w] = 0;
		if (!conf_is_listen(one)) {
			snprintf(why, why_len,
				 "'%s' is not ADDRESS:PORT (e.g. 10.0.0.2:9200 or "
				 "[fd00::2]:9200)",
				 one);
			return -EINVAL;
		}
		q += w + (q[w] == ',');
	}
	memcpy(p, value, len + 1);
	return 0;
}

/* A VLArb or SL2VL table as OpenSM writes it, or unset ("" or "(null)"). */
static int conf_parse_qos_table(char *p, const struct conf_key *k, const char *value, size_t len,
				char *why, size_t why_len)
{
	struct qos_vlarb t;
	uint8_t sl2vl[16];
	char w[160];

	if (qos_value_unset(value)) {
		*p = '\0'; /* "(null)", as opensm -c writes it: not set */
		return 0;
	}
	if ((k->type == CONF_VLARB ? qos_parse_vlarb(value, &t, w, sizeof(w))
				   : qos_parse_sl2vl(value, sl2vl, w, sizeof(w))) < 0) {
		snprintf(why, why_len, "%s", w);
		return -EINVAL;
	}
	return conf_copy(p, k, value, len, why, why_len);
}

static json_t *conf_show_string(const char *p)
{
	return json_string(p);
}

static json_t *conf_show_int(const char *p)
{
	return json_integer(*(const int *)(const void *)p);
}

static json_t *conf_show_u64(const char *p)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%016" PRIx64, *(const uint64_t *)(const void *)p);
	return json_string(hex);
}

static json_t *conf_show_level(const char *p)
{
	return json_string(conf_log_level_str(*(const int *)(const void *)p) ?: "unknown");
}

static json_t *conf_show_enforce(const char *p)
{
	return json_string(conf_enforce_str(*(const int *)(const void *)p));
}

static json_t *conf_show_bool(const char *p)
{
	return json_boolean(*(const bool *)p);
}

static json_t *conf_show_auto_bool(const char *p)
{
	int v = *(const int *)p;

	return json_string(v == CONF_AUTO ? "auto" : v ? "true" : "false");
}

static bool conf_same_string(const char *a, const char *b, const struct conf_key *k)
{
	return !strcmp(a, b);
}

static bool conf_same_bytes(const char *a, const char *b, const struct conf_key *k)
{
	return !memcmp(a, b, k->size);
}

const struct conf_type_ops conf_types[CONF_NTYPES] = {
    [CONF_STRING] = {conf_parse_string, conf_show_string, conf_same_string},
    [CONF_PATH] = {conf_parse_path, conf_show_string, conf_same_string},
    [CONF_OPT_PATH] = {conf_parse_opt_path, conf_show_string, conf_same_string},
    [CONF_NAME] = {conf_parse_name, conf_show_string, conf_same_string},
    [CONF_ENGINE] = {conf_parse_engine, conf_show_string, conf_same_string},
    [CONF_CHAIN] = {conf_parse_chain, conf_show_string, conf_same_string},
    [CONF_INT] = {conf_parse_int, conf_show_int, conf_same_bytes},
    [CONF_U64] = {conf_parse_u64, conf_show_u64, conf_same_bytes},
    [CONF_LEVEL] = {conf_parse_level, conf_show_level, conf_same_bytes},
    [CONF_ENFORCE] = {conf_parse_enforce, conf_show_enforce, conf_same_bytes},
    [CONF_BOOL] = {conf_parse_bool, conf_show_bool, conf_same_bytes},
    [CONF_AUTO_BOOL] = {conf_parse_auto_bool, conf_show_auto_bool, conf_same_bytes},
    [CONF_LISTEN] = {conf_parse_listen, conf_show_string, conf_same_string},
    [CONF_LISTEN_LIST] = {conf_parse_listen_list, conf_show_string, conf_same_string},
    [CONF_VLARB] = {conf_parse_qos_table, conf_show_string, conf_same_string},
    [CONF_SL2VL] = {conf_parse_qos_table, conf_show_string, conf_same_string},
    [CONF_VALIDATE] = {conf_parse_validate, conf_show_validate, conf_same_bytes},
};

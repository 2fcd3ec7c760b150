/*
 * QoS (see qos.h): OpenSM's QoS keys and the qos-ulps section of its
 * qos-policy.conf, and the per-port tables they ask for.
 *
 * The policy file, as OpenSM's simplified policy:
 *	qos-ulps
 *		default                           : SL
 *		any, service-id RANGES            : SL
 *		any, pkey RANGES                  : SL
 *		any, target-port-guid RANGES      : SL
 *		any, source-port-guid RANGES      : SL
 *		any, source-target-port-guid RANGES : SL
 *		sdp[, port-num RANGES]            : SL	(ServiceID 0x10000 + port)
 *		rds[, port-num RANGES]            : SL	(0x1060000 + port, default 18634)
 *		iser[, port-num RANGES]           : SL	(0x1060000 + port, default 3260)
 *		srp, target-port-guid RANGES      : SL
 *		ipoib[, pkey RANGES]              : SL	(default P_Key 0x7fff)
 *	end-qos-ulps
 * RANGES is a comma list of N or N-M (0x hex or decimal); '#' starts a
 * comment.  The ULPs, the keywords each takes and what a rule without one
 * matches are one table (qos_ulps); the parser and its messages read it.  The rules are tried in
 *file order and the first match wins, as OpenSM's match rules.  OpenSM's full policy (port-groups,
 *qos-setup, qos-levels, qos-match-rules) is not supported: its sections are errors, not silently
 *dropped.  Where we are stricter: an SL above 15, a range whose low end is above its high end, a
 *second "default", an unknown ULP or keyword are errors.
 *
 * Tables: SL2VL by the port's class; a VL above the port's data VLs is
 * taken modulo their number (OpenSM's rule: the default 0..14,7 on a port
 * of 4 VLs gives 0,1,2,3,0,1,2,3,...), VL 15 stays (drop).  The routing
 * engine's VL wins for the SLs its paths use (dor datelines, dfsp layers):
 * the VLs it needs are what keeps it deadlock free.
 *
 * Cost: one pass over the file; a path's SL is a walk of the rules (tens,
 * typically) and their ranges.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <infiniband/mad.h>

#include "lib/lines.h"
#include "policy/qos.h"
#include "policy/perr.h"

#define QOS_SDP_SID 0x0000000000010000ULL
#define QOS_RDS_SID 0x0000000001060000ULL
#define QOS_RDS_PORT 0x48CA
#define QOS_ISER_SID 0x0000000001060000ULL
#define QOS_ISER_PORT 0x0CBC

/* ---- the conf values ------------------------------------------------------- */

void qos_tables_default(struct qos_tables *t)
{
	memset(t, 0, sizeof(*t));
	t->max_vls = 15;
	t->high_limit = 0;
	t->high.n = t->low.n = 15;
	for (unsigned v = 0; v < 15; v++) {
		t->high.vl[v] = t->low.vl[v] = (uint8_t)v;
		t->high.weight[v] = v == 0 ? 4 : 0;
		t->low.weight[v] = v == 0 ? 0 : 4;
	}
	for (unsigned sl = 0; sl < 16; sl++)
		t->sl2vl[sl] = sl < 15 ? (uint8_t)sl : 7;
}

bool qos_value_unset(const char *s)
{
	while (s && isspace((unsigned char)*s))
		s++;
	return !s || !*s || !strncmp(s, "(null)", 6);
}

/* A number 0..max at *p (0x hex or decimal), spaces around it skipped. */
static int qos_num(const char **p, unsigned long long max, unsigned long long *ret)
{
	const char *s = *p;
	char *end;
	unsigned long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || v > max)
		return -ERANGE;
	while (*end == ' ' || *end == '\t')
		end++;
	*p = end;
	*ret = v;
	return 0;
}

int qos_parse_vlarb(const char *s, struct qos_vlarb *ret, char *why, size_t why_len)
{
	struct qos_vlarb t;
	const char *p = s;

	memset(&t, 0, sizeof(t));
	if (qos_value_unset(s)) {
		snprintf(why, why_len, "empty VLArb table");
		return -EINVAL;
	}
	while (*p) {
		unsigned long long vl, w;

		if (t.n == QOS_VLARB_MAX) {
			snprintf(why, why_len, "more than %u VL:weight pairs", QOS_VLARB_MAX);
			return -EINVAL;
		}
		if (qos_num(&p, 14, &vl) < 0) {
			snprintf(why, why_len, "entry %u: VL must be 0..14", t.n + 1);
			return -EINVAL;
		}
		if (*p++ != ':') {
			snprintf(why, why_len, "entry %u: want VL:weight", t.n + 1);
			return -EINVAL;
		}
		if (qos_num(&p, 255, &w) < 0) {
			snprintf(why, why_len, "entry %u: weight must be 0..255", t.n + 1);
			return -EINVAL;
		}
		t.vl[t.n] = (uint8_t)vl;
		t.weight[t.n] = (uint8_t)w;
		t.n++;
		if (*p == ',') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
		} else if (*p) {
			snprintf(why, why_len, "entry %u: unexpected '%c'", t.n, *p);
			return -EINVAL;
		}
	}
	*ret = t;
	return 0;
}

int qos_parse_sl2vl(const char *s, uint8_t ret[16], char *why, size_t why_len)
{
	uint8_t t[16] = {0};
	const char *p = s;
	unsigned n = 0;

	if (qos_value_unset(s)) {
		snprintf(why, why_len, "empty SL2VL table");
		return -EINVAL;
	}
	while (*p) {
		unsigned long long vl;

		if (n == 16) {
			snprintf(why, why_len, "more than 16 VLs (one per SL)");
			return -EINVAL;
		}
		if (qos_num(&p, 15, &vl) < 0) {
			snprintf(why, why_len, "SL %u: VL must be 0..15", n);
			return -EINVAL;
		}
		t[n++] = (uint8_t)vl;
		if (*p == ',') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
		} else if (*p) {
			snprintf(why, why_len, "SL %u: unexpected '%c'", n - 1, *p);
			return -EINVAL;
		}
	}
	memcpy(ret, t, 16);
	return 0;
}

int qos_tables_build(struct qos_tables *ret, int max_vls, int high_limit, const char *vlarb_high,
		     const char *vlarb_low, const char *sl2vl, const struct qos_tables *dflt,
		     char *why, size_t why_len)
{
	struct qos_tables t = *dflt;
	char w[160];

	if (max_vls < 0 || max_vls > 15 || high_limit < -1 || high_limit > 255) {
		snprintf(why, why_len, "max_vls must be 0..15, high_limit -1..255");
		return -EINVAL;
	}
	if (max_vls > 0)
		t.max_vls = (uint8_t)max_vls;
	if (high_limit >= 0)
		t.high_limit = (uint8_t)high_limit;
	if (!qos_value_unset(vlarb_high) &&
	    qos_parse_vlarb(vlarb_high, &t.high, w, sizeof(w)) < 0) {
		snprintf(why, why_len, "vlarb_high: %s", w);
		return -EINVAL;
	}
	if (!qos_value_unset(vlarb_low) && qos_parse_vlarb(vlarb_low, &t.low, w, sizeof(w)) < 0) {
		snprintf(why, why_len, "vlarb_low: %s", w);
		return -EINVAL;
	}
	if (!qos_value_unset(sl2vl) && qos_parse_sl2vl(sl2vl, t.sl2vl, w, sizeof(w)) < 0) {
		snprintf(why, why_len, "sl2vl: %s", w);
		return -EINVAL;
	}
	*ret = t;
	return 0;
}

/* ---- the policy file -------------------------------------------------------- */

struct parse {
	struct perr pe;
	struct qos_policy *q;
};

/* "N" or "N-M" items, comma separated, into r; 0 or -EINVAL (why in ps). */
static int qos_ranges(struct parse *ps, unsigned line, const char *s, uint64_t max,
		      struct qos_rule *r)
{
	const char *p = s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		perr_add(&ps->pe, line, "%s rule without values", r->ulp);
		return -EINVAL;
	}
	while (*p) {
		unsigned long long lo, hi;
		struct qos_range *nr;

		if (qos_num(&p, max, &lo) < 0) {
			perr_add(&ps->pe, line,
				 "bad value near '%.20s' (0x hex or decimal, at most 0x%llx)", p,
				 (unsigned long long)max);
			return -EINVAL;
		}
		hi = lo;
		if (*p == '-') {
			p++;
			if (qos_num(&p, max, &hi) < 0) {
				perr_add(&ps->pe, line, "bad range end near '%.20s'", p);
				return -EINVAL;
			}
			if (hi < lo) {
				perr_add(&ps->pe, line,
					 "range 0x%llx-0x%llx: low end above high end", lo, hi);
				return -EINVAL;
			}
		}
		if (r->n_ranges == QOS_RANGES_MAX) {
			perr_add(&ps->pe, line, "more than %u ranges in one rule", QOS_RANGES_MAX);
			return -EINVAL;
		}
		nr = realloc(r->ranges, (r->n_ranges + 1) * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		r->ranges = nr;
		r->ranges[r->n_ranges++] = (struct qos_range){lo, hi};
		if (*p == ',') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p) {
				perr_add(&ps->pe, line, "a trailing ','");
				return -EINVAL;
			}
		} else if (*p) {
			perr_add(&ps->pe, line, "unexpected '%c'", *p);
			return -EINVAL;
		}
	}
	return 0;
}

/* Trim s in place; returns it. */
static char *qos_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Add ranges [lo+base, hi+base] for port numbers of an sdp/rds/iser rule. */
static int qos_ports_to_sids(struct parse *ps, unsigned line, struct qos_rule *r, uint64_t base)
{
	for (size_t i = 0; i < r->n_ranges; i++) {
		if (r->ranges[i].hi > 0xffff) {
			perr_add(&ps->pe, line, "%s port number above 65535", r->ulp);
			return -EINVAL;
		}
		r->ranges[i].lo += base;
		r->ranges[i].hi += base;
	}
	return 0;
}

static void qos_rule_clear(struct qos_rule *r)
{
	free(r->ranges);
	r->ranges = NULL;
	r->n_ranges = 0;
}

/* ---- the qos-ulps keywords, as data ------------------------------------------- */

/* A keyword a ULP takes before its values: what the values are and what they match. */
struct qos_kw {
	const char *name;
	uint8_t match;	   /* enum qos_match */
	uint64_t max;	   /* the largest value */
	uint64_t sid_base; /* port-num: the values are ports, ServiceIDs sid_base + port */
	const char *what;  /* the values, in messages: "PORTS", "GUIDS", "PKEYS" */
};

/*
 * A ULP of the qos-ulps section: its keywords (none: 'default'), whether
 * one must be given, and what a rule without one matches.
 */
struct qos_ulp {
	const char *name;
	const struct qos_kw *kws;
	size_t n_kws;
	bool kw_required;
	uint8_t match; /* without a keyword */
	struct qos_range dflt;
};

static const struct qos_kw qos_kws_any[] = {
    {"service-id", QOS_M_SERVICE_ID, UINT64_MAX, 0, "IDS"},
    {"pkey", QOS_M_PKEY, 0xffff, 0, "PKEYS"},
    {"target-port-guid", QOS_M_TARGET_GUID, UINT64_MAX, 0, "GUIDS"},
    {"source-port-guid", QOS_M_SOURCE_GUID, UINT64_MAX, 0, "GUIDS"},
    {"source-target-port-guid", QOS_M_SOURCE_TARGET_GUID, UINT64_MAX, 0, "GUIDS"},
};
static const struct qos_kw qos_kws_sdp[] = {
    {"port-num", QOS_M_SERVICE_ID, UINT64_MAX, QOS_SDP_SID, "PORTS"},
};
static const struct qos_kw qos_kws_rds[] = {
    {"port-num", QOS_M_SERVICE_ID, UINT64_MAX, QOS_RDS_SID, "PORTS"},
};
static const struct qos_kw qos_kws_iser[] = {
    {"port-num", QOS_M_SERVICE_ID, UINT64_MAX, QOS_ISER_SID, "PORTS"},
};
static const struct qos_kw qos_kws_srp[] = {
    {"target-port-guid", QOS_M_TARGET_GUID, UINT64_MAX, 0, "GUIDS"},
};
static const struct qos_kw qos_kws_ipoib[] = {
    {"pkey", QOS_M_PKEY, 0xffff, 0, "PKEYS"},
};

#define QOS_KWS(k) k, sizeof(k) / sizeof(k[0])
static const struct qos_ulp qos_ulps[] = {
    {"default", NULL, 0, false, 0, {0, 0}},
    {"any", QOS_KWS(qos_kws_any), true, 0, {0, 0}},
    {"sdp", QOS_KWS(qos_kws_sdp), false, QOS_M_SERVICE_ID, {QOS_SDP_SID, QOS_SDP_SID + 0xffff}},
    {"rds",
     QOS_KWS(qos_kws_rds),
     false,
     QOS_M_SERVICE_ID,
     {QOS_RDS_SID + QOS_RDS_PORT, QOS_RDS_SID + QOS_RDS_PORT}},
    {"iser",
     QOS_KWS(qos_kws_iser),
     false,
     QOS_M_SERVICE_ID,
     {QOS_ISER_SID + QOS_ISER_PORT, QOS_ISER_SID + QOS_ISER_PORT}},
    {"srp", QOS_KWS(qos_kws_srp), true, 0, {0, 0}},
    {"ipoib", QOS_KWS(qos_kws_ipoib), false, QOS_M_PKEY, {0x7fff, 0x7fff}},
};
#undef QOS_KWS

/* The keywords of u, joined by ", ", the last by last. */
static void qos_kw_list(const struct qos_ulp *u, const char *last, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < u->n_kws && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 !i		     ? ""
					 : i + 1 == u->n_kws ? last
							     : ", ",
					 u->kws[i].name);
}

/* A keyword ulp does not take (or none where one is required): say what it takes. */
static void qos_kw_error(struct parse *ps, unsigned line, const struct qos_ulp *u, const char *ulp,
			 const char *kw)
{
	char list[160];

	if (u->n_kws > 1) {
		qos_kw_list(u, kw ? ", " : " or ", list, sizeof(list));
		if (kw)
			perr_add(&ps->pe, line, "'%s, %s': unknown (%s)", u->name, kw, list);
		else
			perr_add(&ps->pe, line, "'%s' needs %s", u->name, list);
	} else if (u->kw_required) {
		perr_add(&ps->pe, line, "want '%s, %s %s'", u->name, u->kws[0].name,
			 u->kws[0].what);
	} else {
		perr_add(&ps->pe, line, "'%s, %s': want '%s, %s %s'", ulp, kw, ulp, u->kws[0].name,
			 u->kws[0].what);
	}
}

/* One "ULP[, keyword RANGES] : SL" line of the qos-ulps section (qos_ulps says what is valid). */
static int qos_ulp_line(struct parse *ps, unsigned line, char *text)
{
	struct qos_policy *q = ps->q;
	struct qos_rule r = {.line = line};
	char *colon = strrchr(text, ':'), *lhs, *kw = NULL, *vals = NULL, *comma;
	const struct qos_ulp *u = NULL;
	const struct qos_kw *k = NULL;
	unsigned long long sl;
	const char *slp;
	int rc;

	if (!colon) {
		perr_add(&ps->pe, line, "want 'ULP[, what VALUES] : SL'");
		return -EINVAL;
	}
	*colon = '\0';
	slp = qos_trim(colon + 1);
	if (qos_num(&slp, 15, &sl) < 0 || *slp) {
		perr_add(&ps->pe, line, "SL must be 0..15");
		return -EINVAL;
	}
	lhs = qos_trim(text);
	comma = strchr(lhs, ',');
	if (comma) {
		*comma = '\0';
		kw = qos_trim(comma + 1);
		vals = kw + strcspn(kw, " \t");
		if (*vals)
			*vals++ = '\0';
		lhs = qos_trim(lhs);
	}
	r.sl = (uint8_t)sl;
	snprintf(r.ulp, sizeof(r.ulp), "%.7s", lhs);
	for (char *c = r.ulp; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < sizeof(qos_ulps) / sizeof(qos_ulps[0]) && !u; i++)
		if (!strcasecmp(lhs, qos_ulps[i].name))
			u = &qos_ulps[i];
	if (!u) {
		char list[96];
		size_t used = 0;

		for (size_t i = 0;
		     i < sizeof(qos_ulps) / sizeof(qos_ulps[0]) && used < sizeof(list); i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? ", " : "", qos_ulps[i].name);
		perr_add(&ps->pe, line, "unknown ULP '%s' (%s)", lhs, list);
		return -EINVAL;
	}
	if (!u->n_kws) { /* default */
		if (kw) {
			perr_add(&ps->pe, line, "'%s' takes no qualifier", u->name);
			return -EINVAL;
		}
		if (q->has_default) {
			perr_add(&ps->pe, line, "a second '%s'", u->name);
			return -EINVAL;
		}
		q->has_default = true;
		q->default_sl = r.sl;
		return 0;
	}
	for (size_t i = 0; kw && i < u->n_kws && !k; i++)
		if (!strcasecmp(kw, u->kws[i].name))
			k = &u->kws[i];
	if ((kw && !k) || (!kw && u->kw_required)) {
		qos_kw_error(ps, line, u, r.ulp, kw);
		return -EINVAL;
	}
	if (!k) {
		/* the ULP's own range */
		r.match = u->match;
		r.ranges = malloc(sizeof(*r.ranges));
		if (!r.ranges)
			return -ENOMEM;
		r.ranges[0] = u->dflt;
		r.n_ranges = 1;
		rc = 0;
	} else {
		r.match = k->match;
		rc = qos_ranges(ps, line, vals, k->max, &r);
		if (rc == 0 && k->sid_base)
			rc = qos_ports_to_sids(ps, line, &r, k->sid_base);
	}
	if (rc == 0 && r.match == QOS_M_PKEY)
		for (size_t i = 0; i < r.n_ranges; i++) {
			r.ranges[i].lo &= 0x7fff;
			r.ranges[i].hi &= 0x7fff;
			if (r.ranges[i].hi < r.ranges[i].lo)
				r.ranges[i].hi = 0x7fff; /* 0x7fff-0xffff: all from lo */
		}
	if (rc == 0 && q->n_rules == QOS_RULES_MAX) {
		perr_add(&ps->pe, line, "more than %u rules", QOS_RULES_MAX);
		rc = -EINVAL;
	}
	if (rc == 0) {
		struct qos_rule *nr = realloc(q->rules, (q->n_rules + 1) * sizeof(*nr));

		if (!nr) {
			rc = -ENOMEM;
		} else {
			q->rules = nr;
			q->rules[q->n_rules++] = r;
			return 0;
		}
	}
	qos_rule_clear(&r);
	return rc;
}

static struct qos_policy *qos_policy_new(void)
{
	struct qos_policy *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	for (int c = 0; c < QOS_N_CLASSES; c++)
		qos_tables_default(&q->cls[c]);
	return q;
}

/* Lines of qos-policy.conf: at most this long (the newline not counted). */
#define QOS_LINE_MAX 1023

int qos_policy_parse(const char *name, const char *text, size_t len, struct qos_policy **ret,
		     char *err, size_t err_len)
{
	struct parse ps = {.pe = {.name = name, .err = err, .err_len = err_len}};
	enum { OUTSIDE, ULPS } where = OUTSIDE;
	unsigned ulps_line = 0;
	bool seen_ulps = false;
	struct lines l;
	char *copy, *buf;
	size_t n;
	int rc = 0, got;

	if (err && err_len)
		err[0] = '\0';
	ps.q = qos_policy_new();
	copy = malloc(len + 1);
	if (!ps.q || !copy) {
		qos_policy_free(ps.q);
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, text, len);
	ps.q->from_file = true;
	lines_init(&l, copy, len, QOS_LINE_MAX);
	while (rc != -ENOMEM && (got = lines_next(&l, &buf, &n)) != 0) {
		char *s, *hash;

		if (got == -E2BIG) {
			perr_add(&ps.pe, l.no, "line longer than %d bytes", QOS_LINE_MAX);
			continue;
		}
		if (got == -EBADMSG) {
			perr_add(&ps.pe, l.no, "a NUL byte");
			continue;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		s = qos_trim(buf);
		if (!*s)
			continue;
		if (where == OUTSIDE) {
			if (!strcasecmp(s, "qos-ulps")) {
				if (seen_ulps)
					perr_add(&ps.pe, l.no, "a second qos-ulps section");
				where = ULPS;
				seen_ulps = true;
				ulps_line = l.no;
			} else if (!strcasecmp(s, "port-groups") || !strcasecmp(s, "qos-setup") ||
				   !strcasecmp(s, "qos-levels") ||
				   !strcasecmp(s, "qos-match-rules") ||
				   !strcasecmp(s, "vlarb-tables") ||
				   !strcasecmp(s, "sl2vl-tables")) {
				perr_add(
				    &ps.pe, l.no,
				    "section '%s' is OpenSM's full QoS policy, which ibsmd does "
				    "not "
				    "support (only qos-ulps)",
				    s);
				/* skip to its end, no more errors; a long line: its first
				 * QOS_LINE_MAX bytes */
				char end[64];
				snprintf(end, sizeof(end), "end-%s", s);
				while (lines_next(&l, &buf, &n) != 0) {
					if (n > QOS_LINE_MAX)
						buf[QOS_LINE_MAX] = '\0';
					if ((hash = strchr(buf, '#')))
						*hash = '\0';
					if (!strcasecmp(qos_trim(buf), end))
						break;
				}
			} else {
				perr_add(&ps.pe, l.no, "'%.40s' outside a section (want qos-ulps)",
					 s);
			}
			continue;
		}
		if (!strcasecmp(s, "end-qos-ulps")) {
			where = OUTSIDE;
			continue;
		}
		rc = qos_ulp_line(&ps, l.no, s);
	}
	free(copy);
	if (where == ULPS)
		perr_add(&ps.pe, ulps_line, "qos-ulps without end-qos-ulps");
	if (rc == -ENOMEM) {
		qos_policy_free(ps.q);
		return -ENOMEM;
	}
	if (ps.pe.n_err) {
		perr_finish(&ps.pe, NULL);
		qos_policy_free(ps.q);
		return -EINVAL;
	}
	*ret = ps.q;
	return 0;
}

int qos_policy_load(const char *path, struct qos_policy **ret, char *err, size_t err_len)
{
	char *text;
	size_t len;
	int r;

	if (!path || !path[0]) {
		*ret = qos_policy_new();
		return *ret ? 0 : -ENOMEM;
	}
	r = lines_read_file(path, QOS_FILE_MAX, 0, &text, &len, err, err_len);
	if (r < 0)
		return r;
	r = qos_policy_parse(path, text, len, ret, err, err_len);
	free(text);
	return r;
}

struct qos_policy *qos_policy_ref(struct qos_policy *q)
{
	if (q)
		q->refs++;
	return q;
}

void qos_policy_free(struct qos_policy *q)
{
	if (!q)
		return;
	if (q->refs) {
		q->refs--;
		return;
	}
	for (size_t i = 0; i < q->n_rules; i++)
		free(q->rules[i].ranges);
	free(q->rules);
	free(q);
}

/* ---- paths ------------------------------------------------------------------- */

static bool qos_in(const struct qos_rule *r, uint64_t v)
{
	for (size_t i = 0; i < r->n_ranges; i++)
		if (v >= r->ranges[i].lo && v <= r->ranges[i].hi)
			return true;
	return false;
}

bool qos_rule_sl(const struct qos_policy *q, const struct qos_path_query *pq, uint8_t *ret_sl,
		 unsigned *ret_line)
{
	for (size_t i = 0; q && i < q->n_rules; i++) {
		const struct qos_rule *r = &q->rules[i];
		bool m = false;

		switch (r->match) {
		case QOS_M_SERVICE_ID:
			m = pq->has_sid && qos_in(r, pq->sid);
			break;
		case QOS_M_PKEY:
			m = pq->pkey && qos_in(r, pq->pkey & 0x7fff);
			break;
		case QOS_M_TARGET_GUID:
			m = qos_in(r, pq->dst_guid);
			break;
		case QOS_M_SOURCE_GUID:
			m = qos_in(r, pq->src_guid);
			break;
		case QOS_M_SOURCE_TARGET_GUID:
			m = qos_in(r, pq->src_guid) || qos_in(r, pq->dst_guid);
			break;
		}
		if (m) {
			*ret_sl = r->sl;
			if (ret_line)
				*ret_line = r->line;
			return true;
		}
	}
	return false;
}

/* ---- ports ------------------------------------------------------------------- */

enum qos_class qos_port_class(const struct node *n, uint8_t port)
{
	if (n->type == NODE_SWITCH)
		return port == 0 ? QOS_SW0 : QOS_SWE;
	return n->type == NODE_ROUTER ? QOS_RTR : QOS_CA;
}

unsigned qos_vls_of_code(uint8_t code)
{
	static const unsigned vls[] = {0, 1, 2, 4, 8, 15};

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

uint8_t qos_code_of_vls(unsigned n)
{
	uint8_t c = 1;

	while (c < 5 && qos_vls_of_code((uint8_t)(c + 1)) <= n)
		c++;
	return c;
}

uint16_t qos_engine_sls(const struct routes *r)
{
	uint16_t m = 0;

	if (!r || r->n_vls <= 1 || !r->sl2vl)
		return 0;
	if (r->lid_sl || !r->path_sl)
		return (uint16_t)((1u << (r->n_vls < 16 ? r->n_vls : 16)) - 1);
	for (size_t i = 0; i < (size_t)r->n_sw * r->n_sw; i++)
		m |= (uint16_t)(1u << (r->path_sl[i] & 15));
	return m | 1;
}

static const uint8_t *qos_engine_row(const struct routes *r, const struct node *n, uint32_t ni,
				     uint8_t out)
{
	if (!r || r->n_vls <= 1 || !r->sl2vl || ni >= r->n_nodes || !r->sl2vl[ni])
		return NULL;
	return node_is_switch(n) ? &r->sl2vl[ni][(size_t)out * ROUTES_MAX_SL] : r->sl2vl[ni];
}

static uint8_t min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

uint8_t qos_want_oper_vls(const struct qos_policy *q, const struct fabric *f,
			  const struct routes *r, uint32_t ni, uint8_t pn)
{
	const struct node *n = &f->nodes[ni];
	const struct port *p = &n->ports[pn];
	const struct port *rp;
	uint8_t cap, want;

	if (pn == 0 || !port_is_linked(p))
		return 0;
	rp = &f->nodes[p->remote_node].ports[p->remote_port];
	if (!rp->valid)
		return 0;
	/* VLCap and OperationalVLs share an encoding (1: VL0 .. 5: VL0-14) */
	cap = min8(p->vl_cap, rp->vl_cap);
	if (!q || !q->enabled)
		return cap;
	want = qos_code_of_vls(q->cls[qos_port_class(n, pn)].max_vls);
	/* the engine's layers win: the smallest code with room for them */
	while (r && want < 5 && qos_vls_of_code(want) < r->n_vls)
		want++;
	return min8(cap, want);
}

bool qos_want_sl2vl(const struct qos_policy *q, const struct fabric *f, const struct routes *r,
		    uint16_t engine_sls, uint32_t ni, uint8_t out, uint8_t ret_vl[16],
		    uint16_t *ret_conflicts)
{
	const struct node *n = &f->nodes[ni];
	const uint8_t *eng = qos_engine_row(r, n, ni, out);
	const struct qos_tables *t;
	uint16_t conflicts = 0;
	unsigned vls;

	if (out == 0 || out > n->nports || !port_is_linked(&n->ports[out]))
		return false;
	if (!q || !q->enabled) {
		if (!eng)
			return false;
		memcpy(ret_vl, eng, 16);
		if (ret_conflicts)
			*ret_conflicts = 0;
		return true;
	}
	t = &q->cls[qos_port_class(n, out)];
	vls = qos_vls_of_code(qos_want_oper_vls(q, f, r, ni, out));
	/* an armed or active port keeps the OperationalVLs it runs (they change only in INIT) */
	if (n->ports[out].state > PORT_INIT && qos_vls_of_code(n->ports[out].oper_vls) &&
	    qos_vls_of_code(n->ports[out].oper_vls) < vls)
		vls = qos_vls_of_code(n->ports[out].oper_vls);
	if (!vls)
		vls = 1;
	for (unsigned sl = 0; sl < 16; sl++) {
		uint8_t v = t->sl2vl[sl];

		if (v != QOS_VL_DROP && v >= vls)
			v = (uint8_t)(v % vls);
		if (eng && (engine_sls & (1u << sl))) {
			if (eng[sl] != v)
				conflicts |= (uint16_t)(1u << sl);
			v = eng[sl];
		}
		ret_vl[sl] = v;
	}
	if (ret_conflicts)
		*ret_conflicts = conflicts;
	return true;
}

bool qos_want_vlarb(const struct qos_policy *q, const struct fabric *f, const struct routes *r,
		    uint32_t ni, uint8_t port, unsigned block, uint8_t ret_vl[32],
		    uint8_t ret_weight[32])
{
	const struct node *n = &f->nodes[ni];
	const struct port *p;
	const struct qos_vlarb *tab;
	unsigned cap, first;
	uint8_t low_cap = 0, high_cap = 0;

	if (block < 1 || block > 4 || port == 0 || port > n->nports)
		return false;
	p = &n->ports[port];
	if (!port_is_linked(p))
		return false;
	memset(ret_vl, 0, 32);
	memset(ret_weight, 0, 32);
	if (!q || !q->enabled) {
		/* the engine's VLs round-robin, equal weights; high priority empty */
		if (!r || r->n_vls <= 1 || !qos_engine_row(r, n, ni, port) ||
		    (block != 1 && block != 3))
			return false;
		for (unsigned v = 0; v < r->n_vls && v < 32; v++) {
			ret_vl[v] = (uint8_t)v;
			ret_weight[v] = block == 1 ? 64 : 0;
		}
		return true;
	}
	/* PortInfo VLArbitrationHighCap/LowCap as read */
	if (p->valid) {
		high_cap =
		    (uint8_t)mad_get_field((void *)p->pi, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
		low_cap =
		    (uint8_t)mad_get_field((void *)p->pi, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	}
	tab = block <= 2 ? &q->cls[qos_port_class(n, port)].low
			 : &q->cls[qos_port_class(n, port)].high;
	cap = block <= 2 ? low_cap : high_cap;
	first = (block - 1) % 2 * 32;
	if (!cap || cap <= first)
		return false;
	for (unsigned i = 0; i < 32 && first + i < cap && first + i < tab->n; i++) {
		ret_vl[i] = tab->vl[first + i];
		ret_weight[i] = tab->weight[first + i];
	}
	return true;
}

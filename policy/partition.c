/*
 * Partitions (see partition.h): OpenSM's partitions.conf and the P_Key
 * tables it asks for.
 *
 * The file is a list of definitions, each ended by ';':
 *	[Name][=PKey][,flag[=value]]... : [member[,member]...] ;
 * '#' starts a comment to the end of the line; a definition may span lines
 * (and a backslash before a newline is taken as a space).  Members are a
 * port GUID (0x hex or decimal) or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS,
 * SELF, each with an optional =full|limited|both (a prefix will do, as
 * OpenSM's "=limi"); without one the definition's defmember (limited unless
 * said).  As OpenSM: a P_Key given twice merges the definitions; only the
 * low 15 bits of a P_Key count; a file without a rule for 0x7fff gets
 * Default=0x7fff : ALL=limited, SELF=full.  Where we are stricter: every
 * P_Key is given (OpenSM generates missing ones; "Default" alone means
 * 0x7fff), one P_Key under two names, a GUID listed twice in a partition,
 * an unknown flag or a bad value are errors, and mgid= groups are not
 * supported (an error, not silently dropped).
 *
 * Cost: one pass over the file; duplicates found by sorting each
 * partition's GUIDs, so a 1 MiB file parses in milliseconds.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/lines.h"
#include "policy/partition.h"
#include "policy/perr.h"

struct parse {
	struct perr pe;
	struct partition_config *c;
};

/* A token: [s, s+len) trimmed, with the line it starts on. */
struct tok {
	const char *s;
	size_t len;
	unsigned line;
};

static struct tok tok_trim(struct tok t, const char *base, unsigned base_line)
{
	/* count the lines skipped by leading space */
	(void)base;
	(void)base_line;
	while (t.len && isspace((unsigned char)t.s[0])) {
		if (t.s[0] == '\n')
			t.line++;
		t.s++;
		t.len--;
	}
	while (t.len && isspace((unsigned char)t.s[t.len - 1]))
		t.len--;
	return t;
}

static bool tok_eq(struct tok t, const char *w)
{
	return t.len == strlen(w) && !memcmp(t.s, w, t.len);
}

static bool tok_ieq(struct tok t, const char *w)
{
	return t.len == strlen(w) && !strncasecmp(t.s, w, t.len);
}

/* Split t at the first c: *a before, *b after; false when there is none. */
static bool tok_split(struct tok t, char c, struct tok *a, struct tok *b)
{
	const char *p = memchr(t.s, c, t.len);
	unsigned line = t.line;

	if (!p)
		return false;
	*a = (struct tok){t.s, (size_t)(p - t.s), t.line};
	for (const char *q = t.s; q < p; q++)
		line += *q == '\n';
	*b = (struct tok){p + 1, t.len - (size_t)(p - t.s) - 1, line};
	*a = tok_trim(*a, NULL, 0);
	*b = tok_trim(*b, NULL, 0);
	return true;
}

/* An unsigned number (0x hex, or decimal) filling t.  false when it is not one or > max. */
static bool tok_num(struct tok t, uint64_t max, uint64_t *ret)
{
	char buf[32], *end;
	unsigned long long v;

	if (!t.len || t.len >= sizeof(buf) || t.s[0] == '-' || t.s[0] == '+')
		return false;
	memcpy(buf, t.s, t.len);
	buf[t.len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end || end == buf || v > max)
		return false;
	*ret = v;
	return true;
}

static const char *tok_show(struct tok t, char *buf, size_t len)
{
	size_t n = t.len < len - 4 ? t.len : len - 4;

	for (size_t i = 0; i < n; i++)
		buf[i] = isprint((unsigned char)t.s[i]) ? t.s[i] : '?';
	if (n < t.len)
		memcpy(buf + n, "...", 4);
	else
		buf[n] = '\0';
	return buf;
}

/* Each item of a list separated by any of seps, trimmed; fn(ctx, item) per item. */
static void tok_each(struct tok t, const char *seps, void (*fn)(void *, struct tok), void *ctx)
{
	const char *s = t.s, *end = t.s + t.len;
	unsigned line = t.line;

	while (s <= end) {
		const char *p = s;
		struct tok item;
		unsigned item_line = line;

		while (p < end && !strchr(seps, *p)) {
			line += *p == '\n';
			p++;
		}
		item = tok_trim((struct tok){s, (size_t)(p - s), item_line}, NULL, 0);
		fn(ctx, item);
		s = p + 1;
	}
}

static struct partition *part_add(struct parse *ps, const char *name, uint16_t pkey, unsigned line)
{
	struct partition_config *c = ps->c;
	struct partition *v, *p;

	if (c->n >= PARTITION_MAX) {
		perr_add(&ps->pe, line, "more than %u partitions", PARTITION_MAX);
		return NULL;
	}
	v = realloc(c->parts, (c->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->parts = v;
	p = &c->parts[c->n++];
	*p = (struct partition){
	    .pkey = pkey, .mtu = 4, .rate = 3, .scopes = 1u << 2, .qkey = 0x0B1B, .line = line};
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

static int part_member(struct partition *p, uint8_t who, uint64_t guid, uint8_t m, unsigned line)
{
	if (p->n_members == p->cap_members) {
		size_t cap = p->cap_members ? 2 * p->cap_members : 8;
		struct partition_member *v = realloc(p->members, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->members = v;
		p->cap_members = cap;
	}
	p->members[p->n_members++] = (struct partition_member){guid, who, m, line, 0};
	return 0;
}

/* One definition being parsed. */
struct def {
	struct parse *ps;
	struct partition *p;
	uint8_t defmember;
	bool first; /* the header's first item (name and P_Key) is next */
	bool bad;
	char name[64];
	uint16_t pkey;
	bool have_pkey;
	unsigned line;
	/* flags, applied once the partition is known */
	bool ipoib, indx0, have_mtu, have_rate, have_sl, have_qkey;
	uint8_t mtu, rate, sl;
	uint16_t scopes;
	uint32_t qkey;
	int nomem;
};

static bool membership_word(struct tok t, uint8_t *ret)
{
	static const struct {
		const char *w;
		uint8_t m;
	} words[] = {{"full", PARTITION_M_FULL},
		     {"limited", PARTITION_M_LIMITED},
		     {"both", PARTITION_M_BOTH}};

	if (!t.len)
		return false;
	for (size_t i = 0; i < 3; i++)
		if (t.len <= strlen(words[i].w) && !strncasecmp(t.s, words[i].w, t.len)) {
			*ret = words[i].m;
			return true;
		}
	return false;
}

static void header_item(void *ctx, struct tok t)
{
	struct def *d = ctx;
	struct parse *ps = d->ps;
	struct tok k, v;
	uint64_t x;
	char show[64];

	if (d->first) {
		d->first = false;
		if (!tok_split(t, '=', &k, &v)) {
			k = t;
			v = (struct tok){"", 0, t.line};
		} else if (!v.len) {
			perr_add(&ps->pe, t.line, "'=' without a P_Key");
			d->bad = true;
			return;
		}
		if (k.len >= sizeof(d->name)) {
			perr_add(&ps->pe, t.line, "partition name longer than %zu characters",
				 sizeof(d->name) - 1);
			d->bad = true;
			return;
		}
		for (size_t i = 0; i < k.len; i++)
			if (!isprint((unsigned char)k.s[i])) {
				perr_add(&ps->pe, t.line,
					 "partition name with a control character");
				d->bad = true;
				return;
			}
		memcpy(d->name, k.s, k.len);
		d->name[k.len] = '\0';
		if (v.len) {
			if (!tok_num(v, 0xffff, &x) || !(x & 0x7fff)) {
				perr_add(&ps->pe, v.line, "bad P_Key '%s' (want 0x0001..0x7fff)",
					 tok_show(v, show, sizeof(show)));
				d->bad = true;
				return;
			}
			d->pkey = (uint16_t)(x & 0x7fff);
			d->have_pkey = true;
		} else if (!strcmp(d->name, "Default")) {
			d->pkey = PARTITION_DEFAULT_PKEY;
			d->have_pkey = true;
		} else {
			perr_add(&ps->pe, t.line,
				 "partition '%s' has no P_Key (ibsmd does not make them up)",
				 d->name);
			d->bad = true;
		}
		return;
	}
	if (!t.len) {
		perr_add(&ps->pe, t.line, "empty flag in the partition definition");
		d->bad = true;
		return;
	}
	if (tok_eq(t, "ipoib")) {
		d->ipoib = true;
		return;
	}
	if (tok_eq(t, "indx0")) {
		d->indx0 = true;
		return;
	}
	if (!tok_split(t, '=', &k, &v)) {
		perr_add(&ps->pe, t.line, "unknown flag '%s'", tok_show(t, show, sizeof(show)));
		d->bad = true;
		return;
	}
	if (tok_eq(k, "defmember")) {
		if (!membership_word(v, &d->defmember)) {
			perr_add(&ps->pe, v.line, "defmember '%s': want full, limited or both",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		}
	} else if (tok_eq(k, "mtu")) {
		if (!tok_num(v, 5, &x) || x < 1) {
			perr_add(&ps->pe, v.line, "mtu '%s': want 1..5 (256..4096)",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} else {
			d->mtu = (uint8_t)x;
			d->have_mtu = true;
		}
	} else if (tok_eq(k, "rate")) {
		if (!tok_num(v, 63, &x) || x < 2) {
			perr_add(&ps->pe, v.line, "rate '%s': want an IBA rate code 2..63",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} else {
			d->rate = (uint8_t)x;
			d->have_rate = true;
		}
	} else if (tok_eq(k, "sl")) {
		if (!tok_num(v, 15, &x)) {
			perr_add(&ps->pe, v.line, "sl '%s': want 0..15",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} else {
			d->sl = (uint8_t)x;
			d->have_sl = true;
		}
	} else if (tok_eq(k, "scope")) {
		if (!tok_num(v, 15, &x)) {
			perr_add(&ps->pe, v.line, "scope '%s': want 0..15",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} else {
			d->scopes |= (uint16_t)(1u << x);
		}
	} else if (tok_ieq(k, "q_key")) {
		if (!tok_num(v, 0xffffffffu, &x)) {
			perr_add(&ps->pe, v.line, "Q_Key '%s': want a 32-bit number",
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} else {
			d->qkey = (uint32_t)x;
			d->have_qkey = true;
		}
	} else if (tok_ieq(k, "tclass") || tok_ieq(k, "flowlabel")) {
		if (!tok_num(v, 0xfffff, &x)) {
			perr_add(&ps->pe, v.line, "%.*s '%s': not a number", (int)k.len, k.s,
				 tok_show(v, show, sizeof(show)));
			d->bad = true;
		} /* accepted; the broadcast group keeps 0 (see ibsmd.conf(5)) */
	} else {
		perr_add(&ps->pe, k.line, "unknown flag '%s'", tok_show(k, show, sizeof(show)));
		d->bad = true;
	}
}

static void member_item(void *ctx, struct tok t)
{
	static const struct {
		const char *w;
		uint8_t who;
	} words[] = {{"ALL", PARTITION_ALL},
		     {"ALL_CAS", PARTITION_ALL_CAS},
		     {"ALL_SWITCHES", PARTITION_ALL_SWITCHES},
		     {"ALL_ROUTERS", PARTITION_ALL_ROUTERS},
		     {"SELF", PARTITION_SELF}};
	struct def *d = ctx;
	struct parse *ps = d->ps;
	struct tok k = t, v = {"", 0, t.line};
	uint8_t m = d->defmember, who = PARTITION_GUID;
	uint64_t guid = 0;
	char show[64];
	size_t i;

	if (!t.len)
		return; /* an empty list, or "a, , b" */
	if (tok_split(t, '=', &k, &v)) {
		if (tok_eq(k, "defmember")) {
			if (!membership_word(v, &d->defmember))
				perr_add(&ps->pe, v.line,
					 "defmember '%s': want full, limited or both",
					 tok_show(v, show, sizeof(show)));
			return;
		}
		if (tok_eq(k, "mgid")) {
			perr_add(&ps->pe, t.line, "mgid= multicast groups are not supported");
			return;
		}
		if (!membership_word(v, &m)) {
			perr_add(&ps->pe, v.line, "membership '%s': want full, limited or both",
				 tok_show(v, show, sizeof(show)));
			return;
		}
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok_eq(k, words[i].w))
			break;
	if (i < sizeof(words) / sizeof(words[0])) {
		who = words[i].who;
	} else if (!tok_num(k, UINT64_MAX, &guid) || !guid) {
		perr_add(&ps->pe, k.line,
			 "unknown port GUID syntax '%s' (want 0x hex, decimal, ALL, "
			 "ALL_CAS, ALL_SWITCHES, ALL_ROUTERS or SELF)",
			 tok_show(k, show, sizeof(show)));
		return;
	}
	if (d->p && part_member(d->p, who, guid, m, k.line) < 0)
		d->nomem = -ENOMEM;
}

/* One definition, ';' excluded.  -ENOMEM, else 0 (errors are in ps). */
static int parse_def(struct parse *ps, struct tok t)
{
	struct def d = {.ps = ps, .defmember = PARTITION_M_LIMITED, .first = true, .line = t.line};
	struct tok head, body;
	struct partition *p = NULL;

	if (!tok_split(t, ':', &head, &body)) {
		char show[64];
		perr_add(&ps->pe, t.line, "no ':' in the partition definition '%s'",
			 tok_show(t, show, sizeof(show)));
		return 0;
	}
	tok_each(head, ",", header_item, &d);
	if (d.bad)
		return 0;
	for (size_t i = 0; i < ps->c->n; i++)
		if (ps->c->parts[i].pkey == d.pkey) {
			p = &ps->c->parts[i];
			break;
		}
	if (p && strcmp(p->name, d.name)) {
		perr_add(&ps->pe, head.line, "duplicate P_Key 0x%04x: '%s' here, '%s' at line %u",
			 d.pkey, d.name, p->name, p->line);
		return 0;
	}
	if (!p) {
		p = part_add(ps, d.name, d.pkey, head.line);
		if (!p)
			return ps->c->n >= PARTITION_MAX ? 0 : -ENOMEM;
	}
	p->ipoib |= d.ipoib;
	p->indx0 |= d.indx0;
	if (d.have_mtu)
		p->mtu = d.mtu;
	if (d.have_rate)
		p->rate = d.rate;
	if (d.have_sl)
		p->sl = d.sl;
	if (d.have_qkey)
		p->qkey = d.qkey;
	if (d.scopes)
		p->scopes = d.scopes;
	d.p = p;
	/* the members, separated by ',' (a ':' too, for "defmember=x :" lists) */
	tok_each(body, ",:", member_item, &d);
	return d.nomem;
}

static int cmp_member(const void *a, const void *b)
{
	const struct partition_member *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* A GUID listed twice in one partition. */
static int check_dups(struct parse *ps, const struct partition *p)
{
	struct partition_member *v;
	size_t n = 0;

	if (p->n_members < 2)
		return 0;
	v = malloc(p->n_members * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_members; i++)
		if (p->members[i].who == PARTITION_GUID)
			v[n++] = p->members[i];
	qsort(v, n, sizeof(*v), cmp_member);
	for (size_t i = 1; i < n; i++)
		if (v[i].guid == v[i - 1].guid)
			perr_add(&ps->pe, v[i].line,
				 "duplicate member 0x%016llx in '%s' (first at line %u)",
				 (unsigned long long)v[i].guid, p->name, v[i - 1].line);
	free(v);
	return 0;
}

struct partition_config *partition_config_ref(struct partition_config *c)
{
	if (c)
		c->refs++;
	return c;
}

void partition_config_free(struct partition_config *c)
{
	if (!c)
		return;
	if (c->refs) {
		c->refs--;
		return;
	}
	for (size_t i = 0; i < c->n; i++)
		free(c->parts[i].members);
	free(c->parts);
	free(c->ix);
	free(c->wild);
	free(c);
}

static struct partition_config *config_with_default(struct parse *ps, bool file)
{
	struct partition *p;

	for (size_t i = 0; i < ps->c->n; i++)
		if (ps->c->parts[i].pkey == PARTITION_DEFAULT_PKEY)
			return ps->c;
	p = part_add(ps, "Default", PARTITION_DEFAULT_PKEY, 0);
	if (!p)
		return NULL;
	/* the IPoIB group of the default partition is always made (sa/mcast.c) */
	p->ipoib = true;
	if (part_member(p, PARTITION_ALL, 0, file ? PARTITION_M_LIMITED : PARTITION_M_FULL, 0) <
		0 ||
	    part_member(p, PARTITION_SELF, 0, PARTITION_M_FULL, 0) < 0)
		return NULL;
	return ps->c;
}

struct partition_config *partition_default(void)
{
	struct parse ps = {.pe = {.name = "(built in)"}};

	ps.c = calloc(1, sizeof(*ps.c));
	if (!ps.c || !config_with_default(&ps, false) || partition_config_index(ps.c) < 0) {
		partition_config_free(ps.c);
		return NULL;
	}
	return ps.c;
}

int partition_parse(const char *name, const char *text, size_t len, struct partition_config **ret,
		    char *err, size_t err_len)
{
	struct parse ps = {.pe = {.name = name, .err = err, .err_len = err_len}};
	char *buf;
	size_t start = 0;
	unsigned line = 1, start_line = 1;
	bool in_comment = false;
	int r = 0;

	if (err && err_len)
		err[0] = '\0';
	ps.c = calloc(1, sizeof(*ps.c));
	buf = malloc(len + 1);
	if (!ps.c || !buf) {
		free(buf);
		free(ps.c);
		return -ENOMEM;
	}
	ps.c->from_file = true;
	/* comments and backslash-newlines become spaces; newlines stay for the line count */
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];

		if (ch == '\n')
			in_comment = false;
		else if (ch == '#')
			in_comment = true;
		if (in_comment || ch == '\0' || (ch == '\\' && i + 1 < len && text[i + 1] == '\n'))
			ch = ' ';
		buf[i] = ch;
	}
	buf[len] = '\0';
	for (size_t i = 0; i < len && r == 0; i++) {
		if (buf[i] == '\n')
			line++;
		if (buf[i] != ';')
			continue;
		struct tok t = tok_trim((struct tok){buf + start, i - start, start_line}, NULL, 0);
		if (!t.len)
			perr_add(&ps.pe, line, "empty definition (a ';' alone)");
		else
			r = parse_def(&ps, t);
		start = i + 1;
		start_line = line;
	}
	if (r == 0) {
		struct tok t =
		    tok_trim((struct tok){buf + start, len - start, start_line}, NULL, 0);
		if (t.len)
			perr_add(&ps.pe, t.line, "definition without a closing ';'");
	}
	for (size_t i = 0; r == 0 && i < ps.c->n; i++)
		r = check_dups(&ps, &ps.c->parts[i]);
	free(buf);
	if (r == 0 && !config_with_default(&ps, true))
		r = -ENOMEM;
	if (r == 0 && !ps.pe.n_err)
		r = partition_config_index(ps.c);
	if (r == 0 && ps.pe.n_err) {
		perr_finish(&ps.pe, "error");
		r = -EINVAL;
	}
	if (r < 0) {
		partition_config_free(ps.c);
		return r;
	}
	*ret = ps.c;
	return 0;
}

int partition_load(const char *path, struct partition_config **ret, char *err, size_t err_len)
{
	char *text;
	size_t len = 0;
	int r;

	if (!path || !path[0]) {
		*ret = partition_default();
		return *ret ? 0 : -ENOMEM;
	}
	r = lines_read_file(path, PARTITION_FILE_MAX, 0, &text, &len, err, err_len);
	if (r < 0)
		return r;
	r = partition_parse(path, text, len, ret, err, err_len);
	free(text);
	return r;
}

const struct partition *partition_find(const struct partition_config *c, uint16_t pkey)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->parts[i].pkey == (pkey & 0x7fff))
			return &c->parts[i];
	return NULL;
}

/* ---- building a policy (its index: partition_tables.c) ------------------------ */

struct partition_config *partition_config_dup(const struct partition_config *c)
{
	struct partition_config *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->from_file = c->from_file;
	d->allow_both = c->allow_both;
	d->parts = calloc(c->n + 1, sizeof(*d->parts));
	if (!d->parts) {
		free(d);
		return NULL;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct partition *p = &d->parts[d->n++];

		*p = c->parts[i];
		p->members = NULL;
		p->cap_members = p->n_members;
		if (p->n_members && !(p->members = malloc(p->n_members * sizeof(*p->members)))) {
			p->n_members = 0;
			partition_config_free(d);
			return NULL;
		}
		if (p->n_members)
			memcpy(p->members, c->parts[i].members, p->n_members * sizeof(*p->members));
	}
	return d;
}

struct partition *partition_config_add(struct partition_config *c, const char *name, uint16_t pkey)
{
	struct partition *v, *p;

	if (c->n >= PARTITION_MAX + 0x7fff)
		return NULL;
	v = realloc(c->parts, (c->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->parts = v;
	p = &c->parts[c->n++];
	*p = (struct partition){
	    .pkey = pkey & 0x7fff, .mtu = 4, .rate = 3, .scopes = 1u << 2, .qkey = 0x0B1B};
	snprintf(p->name, sizeof(p->name), "%s", name);
	c->indexed = false;
	return p;
}

int partition_add_guid(struct partition *p, uint64_t guid, uint8_t membership, uint8_t flags)
{
	int r = part_member(p, PARTITION_GUID, guid, membership, 0);

	if (r == 0)
		p->members[p->n_members - 1].flags = flags;
	return r;
}

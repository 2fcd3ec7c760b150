/*
 * The topology file reader (ibnetdiscover / ibsim "net" format) into a
 * struct fabric.  See topo.h for the grammar.
 *
 * Two passes: the first reads every record and port line (so a link may name
 * a node defined further down), the second creates the nodes in file order and
 * then the links in file order, so the first conflicting line is the one
 * reported.  Strings point into a private NUL-terminated copy of the text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/speed.h"
#include "fabric/topo.h"
#include "lib/lines.h"
#include "lib/u64map.h"

#define TOPO_MAX_FILE (1u << 30)
#define TOPO_MAX_LINE 4096 /* ibnetdiscover's longest lines are some 150 bytes */

struct topo_rec {
	const char *name;
	const char *desc;
	uint32_t line;
	uint8_t type;
	uint8_t nports;
	bool has_guid;
	bool has_lid;
	uint64_t guid;
	uint64_t sys_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	uint16_t lid; /* switch port 0 */
	uint8_t lmc;
};

struct topo_pline {
	uint32_t rec;
	uint32_t line;
	uint8_t port;
	uint8_t rport;
	bool has_guid;
	bool has_lid;
	uint8_t lmc;
	uint16_t lid;
	uint64_t guid; /* local port GUID (CAs) */
	const char *rname;
	uint8_t width, lane; /* "4xHDR" in its comment: LinkWidth value, enum speed_lane; 0: none */
};

struct topo_state {
	char *buf;
	size_t len;
	struct topo_rec *recs;
	uint32_t n_recs, cap_recs;
	struct topo_pline *plines;
	uint32_t n_plines, cap_plines;
	struct u64map names; /* topo_fnv(name) -> recs[] index */
	/* pending GUID lines for the next header */
	bool pend_guid;
	uint64_t guid, sys_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	char *err;
	size_t err_len;
};

static int topo_error(struct topo_state *st, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int topo_error(struct topo_state *st, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!st->err || !st->err_len)
		return -EBADMSG;
	n = snprintf(st->err, st->err_len, "%u: ", line);
	if (n >= 0 && (size_t)n < st->err_len) {
		va_start(ap, fmt);
		vsnprintf(st->err + n, st->err_len - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static uint64_t topo_fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void topo_skip_ws(char **s)
{
	while (**s == ' ' || **s == '\t' || **s == '\r')
		(*s)++;
}

/* A "quoted" string: NUL-terminates it in place, *ret points at its start. */
static bool topo_quoted(char **s, const char **ret)
{
	char *p = *s, *q;

	if (*p != '"')
		return false;
	q = strchr(p + 1, '"');
	if (!q)
		return false;
	*q = '\0';
	*ret = p + 1;
	*s = q + 1;
	return true;
}

static bool topo_number(char **s, int base, unsigned long long max, unsigned long long *ret)
{
	unsigned long long v;
	char *end;

	if (!(**s >= '0' && **s <= '9') &&
	    !(base == 16 && ((**s >= 'a' && **s <= 'f') || (**s >= 'A' && **s <= 'F'))))
		return false;
	errno = 0;
	v = strtoull(*s, &end, base);
	if (end == *s || errno || v > max)
		return false;
	*s = end;
	*ret = v;
	return true;
}

/* "[N]" */
static bool topo_portnum(char **s, unsigned long long *ret)
{
	char *p = *s;

	if (*p != '[')
		return false;
	p++;
	if (!topo_number(&p, 10, 255, ret) || *p != ']')
		return false;
	*s = p + 1;
	return true;
}

/* Optional "(hexguid)". */
static bool topo_paren_guid(char **s, bool *has, uint64_t *ret)
{
	unsigned long long v;
	char *p = *s;

	*has = false;
	if (*p != '(')
		return true;
	p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!topo_number(&p, 16, UINT64_MAX, &v) || *p != ')')
		return false;
	*s = p + 1;
	*has = true;
	*ret = v;
	return true;
}

/*
 * The width and speed ibnetdiscover ends a port line's comment with, and
 * ibsim reads ("4xHDR", "1xQDR", "12xNDR"): the last such word outside
 * quotes.  *ret_width a LinkWidth value, *ret_lane an enum speed_lane;
 * untouched when there is none.
 */
static void topo_link_speed(const char *s, uint8_t *ret_width, uint8_t *ret_lane)
{
	static const struct {
		unsigned lanes;
		uint8_t width;
	} widths[] = {{1, 1}, {2, 16}, {4, 2}, {8, 4}, {12, 8}};
	bool quoted = false;

	for (; *s; s++) {
		char *end;
		unsigned long n;

		if (*s == '"')
			quoted = !quoted;
		if (quoted || *s < '0' || *s > '9' || (s[-1] != ' ' && s[-1] != '\t'))
			continue;
		n = strtoul(s, &end, 10);
		if (*end != 'x')
			continue;
		for (uint8_t l = SPEED_SDR; l < SPEED_LANES; l++) {
			size_t len = strlen(speed_name(l));

			if (strncmp(end + 1, speed_name(l), len) ||
			    (end[1 + len] && end[1 + len] != ' ' && end[1 + len] != '\t'))
				continue;
			for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
				if (widths[w].lanes == n) {
					*ret_width = widths[w].width;
					*ret_lane = l;
				}
			}
		}
	}
}

/* A port takes a width and lane speed a line gave its link, unless one gave it less. */
static void topo_take_speed(struct port *p, uint8_t width, uint8_t lane)
{
	if (!p->lane_speed || speed_width_lanes(width) < speed_width_lanes(p->width_active))
		p->width_active = width;
	if (!p->lane_speed || lane < p->lane_speed) {
		p->lane_speed = lane;
		/* LinkSpeedActive as a port running an extended speed shows it (ibsim: QDR) */
		p->speed_active = lane <= SPEED_QDR ? (uint8_t)(1u << (lane - SPEED_SDR)) : 4;
	}
}

/*
 * ibnetdiscover comment: optional "DESC" first (headers), "lid N" and
 * "lmc M" words.  With before_quote, stop at the first quote (CA port lines
 * put the local LID first, the remote's description and LID after).
 */
static void topo_comment(char *s, const char **desc, bool before_quote, bool *has_lid,
			 uint16_t *lid, uint8_t *lmc)
{
	unsigned long long v;

	topo_skip_ws(&s);
	if (desc && *s == '"')
		topo_quoted(&s, desc);
	while (*s) {
		topo_skip_ws(&s);
		if (*s == '"' && before_quote)
			return;
		if (!strncmp(s, "lid", 3) && (s[3] == ' ' || s[3] == '\t')) {
			s += 3;
			topo_skip_ws(&s);
			if (!*has_lid && topo_number(&s, 0, FABRIC_MAX_UCAST_LID, &v)) {
				*lid = (uint16_t)v;
				*has_lid = true;
			}
			continue;
		}
		if (!strncmp(s, "lmc", 3) && (s[3] == ' ' || s[3] == '\t')) {
			s += 3;
			topo_skip_ws(&s);
			if (topo_number(&s, 0, 7, &v))
				*lmc = (uint8_t)v;
			continue;
		}
		while (*s && *s != ' ' && *s != '\t' && *s != '"')
			s++;
		if (*s == '"' && !before_quote) {
			const char *skip;

			if (!topo_quoted(&s, &skip))
				return;
		}
	}
}

static int topo_grow(void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int topo_guid_line(struct topo_state *st, uint32_t line, char *s)
{
	static const char *const keys[] = {"switchguid", "caguid", "rtguid",
					   "sysimgguid", "vendid", "devid"};
	unsigned long long v;
	unsigned int k;
	size_t kl;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		kl = strlen(keys[k]);
		if (!strncmp(s, keys[k], kl) && s[kl] == '=')
			break;
	}
	if (k == sizeof(keys) / sizeof(keys[0]))
		return topo_error(st, line, "unknown setting '%.32s'", s);
	s += kl + 1;
	if (!topo_number(&s, 0, UINT64_MAX, &v))
		return topo_error(st, line, "bad number for %s", keys[k]);
	switch (k) {
	case 0:
	case 1:
	case 2:
		if (!v)
			return topo_error(st, line, "GUID 0 is not valid");
		st->guid = v;
		st->pend_guid = true;
		break;
	case 3:
		st->sys_guid = v;
		break;
	case 4:
		st->vendor_id = (uint32_t)(v & 0xffffff);
		break;
	case 5:
		st->device_id = (uint16_t)v;
		break;
	}
	/* switchguid=0x...(portguid): the port GUID equals the switch GUID */
	return 0;
}

static int topo_header(struct topo_state *st, uint32_t line, char *s)
{
	static const struct {
		const char *word;
		uint8_t type;
	} types[] = {
	    {"Switch", NODE_SWITCH},
	    {"Hca", NODE_CA},
	    {"Ca", NODE_CA},
	    {"Rt", NODE_ROUTER},
	};
	struct topo_rec *r;
	unsigned long long v;
	unsigned int t;
	size_t wl;
	int err;

	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		wl = strlen(types[t].word);
		if (!strncmp(s, types[t].word, wl) && (s[wl] == ' ' || s[wl] == '\t'))
			break;
	}
	if (t == sizeof(types) / sizeof(types[0]))
		return topo_error(st, line, "unknown line '%.32s'", s);
	s += wl;
	topo_skip_ws(&s);
	if (!topo_number(&s, 10, 255, &v) || v == 0)
		return topo_error(st, line, "bad port count (1-255)");
	topo_skip_ws(&s);

	err = topo_grow((void **)&st->recs, &st->cap_recs, st->n_recs, sizeof(*st->recs));
	if (err)
		return err;
	r = &st->recs[st->n_recs];
	memset(r, 0, sizeof(*r));
	if (!topo_quoted(&s, &r->name))
		return topo_error(st, line, "expected a quoted node name");
	if (!r->name[0])
		return topo_error(st, line, "empty node name");
	topo_skip_ws(&s);
	if (*s == '#')
		topo_comment(s + 1, &r->desc, false, &r->has_lid, &r->lid, &r->lmc);
	else if (*s)
		return topo_error(st, line, "unexpected text after node header");
	r->type = types[t].type;
	r->nports = (uint8_t)v;
	r->line = line;
	r->has_guid = st->pend_guid;
	r->guid = st->guid;
	r->sys_guid = st->sys_guid;
	r->vendor_id = st->vendor_id;
	r->device_id = st->device_id;
	st->pend_guid = false;
	st->guid = st->sys_guid = 0;
	st->vendor_id = 0;
	st->device_id = 0;
	st->n_recs++;
	return 0;
}

static int topo_port_line(struct topo_state *st, uint32_t line, char *s)
{
	struct topo_pline *pl;
	const struct topo_rec *r;
	unsigned long long v;
	uint64_t rguid;
	bool rhas;
	int err;

	if (!st->n_recs)
		return topo_error(st, line, "port line before any node header");
	r = &st->recs[st->n_recs - 1];
	err = topo_grow((void **)&st->plines, &st->cap_plines, st->n_plines, sizeof(*st->plines));
	if (err)
		return err;
	pl = &st->plines[st->n_plines];
	memset(pl, 0, sizeof(*pl));
	pl->rec = st->n_recs - 1;
	pl->line = line;

	if (!topo_portnum(&s, &v))
		return topo_error(st, line, "bad local port '[N]'");
	if (v == 0 || v > r->nports)
		return topo_error(st, line, "port %llu out of range for \"%s\" (1-%u)", v, r->name,
				  r->nports);
	pl->port = (uint8_t)v;
	if (!topo_paren_guid(&s, &pl->has_guid, &pl->guid))
		return topo_error(st, line, "bad port GUID");
	topo_skip_ws(&s);
	if (!topo_quoted(&s, &pl->rname))
		return topo_error(st, line, "expected a quoted remote node name");
	if (!topo_portnum(&s, &v))
		return topo_error(st, line, "bad remote port '[N]'");
	if (v == 0)
		return topo_error(st, line, "remote port 0 cannot be linked");
	pl->rport = (uint8_t)v;
	if (!topo_paren_guid(&s, &rhas, &rguid))
		return topo_error(st, line, "bad remote port GUID");
	for (;;) {
		topo_skip_ws(&s);
		if (!*s)
			break;
		if (*s == '#') {
			if (r->type != NODE_SWITCH)
				topo_comment(s + 1, NULL, true, &pl->has_lid, &pl->lid, &pl->lmc);
			topo_link_speed(s, &pl->width, &pl->lane);
			break;
		}
		/* ibsim link options such as w=4 s=2 */
		if (!((*s >= 'a' && *s <= 'z') && s[1] == '='))
			return topo_error(st, line, "unexpected text after link '%.16s'", s);
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	st->n_plines++;
	return 0;
}

static int topo_read(struct topo_state *st)
{
	struct lines l;
	char *s;
	size_t n;
	int r, err;

	/* no NUL: topo_parse refused the text before */
	lines_init(&l, st->buf, st->len, TOPO_MAX_LINE);
	while ((r = lines_next(&l, &s, &n)) != 0) {
		if (r < 0)
			return topo_error(st, l.no, "line longer than %d bytes", TOPO_MAX_LINE);
		topo_skip_ws(&s);
		if (!*s || *s == '#')
			continue;
		/* ibsim extensions: 'do CMD' is for the simulator's console */
		if (!strncmp(s, "do", 2) && (s[2] == ' ' || s[2] == '\t'))
			continue;
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t'))
			return topo_error(st, l.no, "'include' is not supported");
		if (*s == '[')
			err = topo_port_line(st, l.no, s);
		else if (strchr(s, '=') && !strchr(s, '"'))
			err = topo_guid_line(st, l.no, s);
		else
			err = topo_header(st, l.no, s);
		if (err)
			return err;
	}
	return 0;
}

static uint32_t topo_find_name(const struct topo_state *st, const char *name)
{
	uint64_t key = topo_fnv(name);
	uint32_t c, i;

	for (i = u64map_first(&st->names, key, &c); i != U64MAP_NONE;
	     i = u64map_next(&st->names, key, &c))
		if (!strcmp(st->recs[i].name, name))
			return i;
	return FABRIC_NO_NODE;
}

static int topo_index_names(struct topo_state *st)
{
	if (u64map_reserve(&st->names, st->n_recs) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < st->n_recs; i++) {
		uint32_t other = topo_find_name(st, st->recs[i].name);

		if (other != FABRIC_NO_NODE)
			return topo_error(st, st->recs[i].line,
					  "node \"%s\" already defined at line %u",
					  st->recs[i].name, st->recs[other].line);
		u64map_add(&st->names, topo_fnv(st->recs[i].name), i);
	}
	return 0;
}

static uint64_t topo_default_guid(const char *name)
{
	/* low byte left 0 so CA port GUIDs (guid + port) stay distinct */
	return (topo_fnv(name) & 0x00ffffffffffff00ULL) | 0x0200000000000000ULL;
}

static int topo_build(struct topo_state *st, struct fabric *f)
{
	uint32_t i, idx;
	unsigned int p;
	int err;

	for (i = 0; i < st->n_recs; i++) {
		const struct topo_rec *r = &st->recs[i];
		uint64_t guid = r->has_guid ? r->guid : topo_default_guid(r->name);
		struct node *n;

		err = fabric_add_node(f, guid, r->type, r->nports, &idx);
		if (err == -EEXIST)
			return topo_error(st, r->line,
					  "GUID 0x%016llx of \"%s\" already used by \"%s\"",
					  (unsigned long long)guid, r->name, st->recs[idx].name);
		if (err)
			return err;
		n = &f->nodes[idx];
		n->sys_guid = r->sys_guid ? r->sys_guid : guid;
		n->vendor_id = r->vendor_id;
		n->device_id = r->device_id;
		snprintf(n->desc, sizeof(n->desc), "%s", r->desc ? r->desc : r->name);
		for (p = 0; p <= n->nports; p++) {
			struct port *pt = &n->ports[p];

			pt->guid = node_is_switch(n) ? guid : guid + p;
			pt->mtu_cap = 4;
			pt->vl_cap = 4;
			pt->width_active = 2; /* 4x */
			pt->speed_active = 1; /* 2.5 Gb/s */
			pt->valid = node_is_switch(n) || p > 0;
		}
		if (node_is_switch(n)) {
			n->lft_cap = 49152;
			n->mft_cap = 0x3fff; /* every MLID, 0xC000..0xFFFE */
			if (r->has_lid) {
				n->ports[0].lid = r->lid;
				n->ports[0].lmc = r->lmc;
			}
		}
	}

	for (i = 0; i < st->n_plines; i++) {
		const struct topo_pline *pl = &st->plines[i];
		const struct topo_rec *r = &st->recs[pl->rec];
		uint32_t ri = topo_find_name(st, pl->rname);
		struct node *n = &f->nodes[pl->rec];
		const struct port *a, *b;

		if (ri == FABRIC_NO_NODE)
			return topo_error(st, pl->line, "\"%s\"[%u] links to unknown node \"%s\"",
					  r->name, pl->port, pl->rname);
		if (pl->rport > st->recs[ri].nports)
			return topo_error(st, pl->line, "port %u out of range for \"%s\" (1-%u)",
					  pl->rport, pl->rname, st->recs[ri].nports);
		if (n->type != NODE_SWITCH) {
			if (pl->has_guid)
				n->ports[pl->port].guid = pl->guid;
			if (pl->has_lid) {
				n->ports[pl->port].lid = pl->lid;
				n->ports[pl->port].lmc = pl->lmc;
			}
		}
		err = fabric_link(f, pl->rec, pl->port, ri, pl->rport);
		if (err == -EBUSY) {
			a = &n->ports[pl->port];
			b = &f->nodes[ri].ports[pl->rport];
			if (port_is_linked(a) &&
			    !(a->remote_node == ri && a->remote_port == pl->rport))
				return topo_error(st, pl->line,
						  "\"%s\"[%u] already linked to \"%s\"[%u]",
						  r->name, pl->port, st->recs[a->remote_node].name,
						  a->remote_port);
			return topo_error(st, pl->line, "\"%s\"[%u] already linked to \"%s\"[%u]",
					  pl->rname, pl->rport, st->recs[b->remote_node].name,
					  b->remote_port);
		}
		if (err == -EINVAL)
			return topo_error(st, pl->line, "\"%s\"[%u] cannot link to itself", r->name,
					  pl->port);
		if (err)
			return err;
	}
	/* widths and speeds from the comments: a link runs the least either end says */
	for (i = 0; i < st->n_plines; i++) {
		const struct topo_pline *pl = &st->plines[i];
		struct port *a = &f->nodes[pl->rec].ports[pl->port];

		if (!pl->width || !port_is_linked(a))
			continue;
		topo_take_speed(a, pl->width, pl->lane);
		topo_take_speed(&f->nodes[a->remote_node].ports[a->remote_port], pl->width,
				pl->lane);
	}

	for (i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];

		for (p = 0; p <= n->nports; p++) {
			struct port *pt = &n->ports[p];
			bool up = port_is_linked(pt) || (p == 0 && node_is_switch(n));

			pt->state = up ? PORT_ACTIVE : PORT_DOWN;
			pt->phys_state = up ? PHYS_LINKUP : PHYS_POLLING;
		}
	}
	if (f->n_nodes) {
		f->sm_node = 0;
		f->sm_port = node_is_switch(&f->nodes[0]) ? 0 : 1;
	}
	return 0;
}

int topo_parse_ex(const char *text, size_t len, struct fabric **ret, bool **ret_has_guid, char *err,
		  size_t err_len)
{
	struct topo_state st = {.err = err, .err_len = err_len};
	struct fabric *f = NULL;
	bool *has_guid = NULL;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (memchr(text, '\0', len)) {
		/* a NUL in the middle would silently cut the text short */
		const char *z = memchr(text, '\0', len);
		uint32_t line = 1;
		const char *p;

		for (p = text; p < z; p++)
			line += *p == '\n';
		return topo_error(&st, line, "NUL byte in text");
	}
	st.buf = malloc(len + 1);
	if (!st.buf)
		return -ENOMEM;
	memcpy(st.buf, text, len);
	st.buf[len] = '\0';
	st.len = len;

	rc = topo_read(&st);
	if (rc)
		goto out_free_state;
	if (!st.n_recs) {
		rc = topo_error(&st, 1, "no nodes");
		goto out_free_state;
	}
	rc = topo_index_names(&st);
	if (rc)
		goto out_free_state;
	f = fabric_new();
	if (!f) {
		rc = -ENOMEM;
		goto out_free_state;
	}
	rc = topo_build(&st, f);
	if (!rc && ret_has_guid) {
		/* topo_build adds the records in order: node i is recs[i] */
		has_guid = calloc(st.n_recs, sizeof(*has_guid));
		rc = has_guid ? 0 : -ENOMEM;
		for (uint32_t i = 0; has_guid && i < st.n_recs; i++)
			has_guid[i] = st.recs[i].has_guid;
	}
	if (rc) {
		fabric_free(f);
		goto out_free_state;
	}
	*ret = f;
	if (ret_has_guid)
		*ret_has_guid = has_guid;
out_free_state:
	u64map_free(&st.names);
	free(st.plines);
	free(st.recs);
	free(st.buf);
	return rc;
}

int topo_parse(const char *text, size_t len, struct fabric **ret, char *err, size_t err_len)
{
	return topo_parse_ex(text, len, ret, NULL, err, err_len);
}

int topo_load_ex(const char *path, struct fabric **ret, bool **ret_has_guid, char *err,
		 size_t err_len)
{
	char *buf;
	size_t len;
	int rc;

	rc = lines_read_file(path, TOPO_MAX_FILE, 0, &buf, &len, err, err_len);
	if (rc < 0)
		return rc;
	rc = topo_parse_ex(buf, len, ret, ret_has_guid, err, err_len);
	if (rc == -EBADMSG && err && err_len) {
		char *msg = strdup(err);

		if (msg) {
			snprintf(err, err_len, "%s:%s", path, msg);
			free(msg);
		}
	}
	free(buf);
	return rc;
}

int topo_load(const char *path, struct fabric **ret, char *err, size_t err_len)
{
	return topo_load_ex(path, ret, NULL, err, err_len);
}

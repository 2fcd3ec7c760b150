/*
 * The state document of a master/standby pair (see syncdoc.h): encode from
 * the SA databases, decode bytes from the network under bounds, merge into
 * the databases at a takeover.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hex.h"
#include "failover/syncdoc.h"
#include "lib/sorted.h"

void syncdoc_free(struct syncdoc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_groups; i++)
		free(d->groups[i].members);
	free(d->groups);
	free(d->services);
	free(d->informs);
	free(d->lids);
	pkeyset_free(d->pkeys);
	free(d);
}

/* ---- encode -------------------------------------------------------------------- */

static json_t *hex_of(const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char s[2 * SA_SR_SIZE + 1];

	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[b[i] >> 4];
		s[2 * i + 1] = digits[b[i] & 15];
	}
	s[2 * n] = 0;
	return json_string(s);
}

static json_t *guid_of(uint64_t g)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, g);
	return json_string(s);
}

/* Append v to a (stolen); false on ENOMEM. */
static bool push(json_t *a, json_t *v)
{
	return v && json_array_append_new(a, v) == 0;
}

static json_t *group_json(const struct mcast_group *g)
{
	json_t *o, *m = json_array();

	if (!m)
		return NULL;
	for (uint32_t i = 0; i < g->n_members; i++) {
		const struct mcast_member *mb = &g->members[i];

		if (!push(m, json_pack("{s:o,s:i,s:b}", "gid", hex_of(mb->port_gid, 16),
				       "join_state", mb->join_state, "proxy", mb->proxy))) {
			json_decref(m);
			return NULL;
		}
	}
	o = json_pack("{s:o,s:i,s:I,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:i,s:b,s:o}", "mgid",
		      hex_of(g->mgid, 16), "mlid", g->mlid, "qkey", (json_int_t)g->p.qkey, "pkey",
		      g->p.pkey, "mtu", g->p.mtu, "rate", g->p.rate, "pkt_life", g->p.pkt_life,
		      "sl", g->p.sl, "tclass", g->p.tclass, "flow_label",
		      (json_int_t)g->p.flow_label, "hop_limit", g->p.hop_limit, "well_known",
		      g->well_known, "members", m);
	return o;
}

json_t *syncdoc_encode(uint64_t sm_guid, uint64_t generation, const struct mcast_db *mc,
		       const struct sa_service_db *svc, const struct sa_inform_db *inf,
		       const struct syncdoc_lid *lids, size_t n_lids)
{
	json_t *groups = json_array(), *services = json_array(), *informs = json_array();
	json_t *lida = json_array(), *doc;
	size_t n;

	if (!groups || !services || !informs || !lida)
		goto nomem;
	n = mc ? mcast_group_count(mc) : 0;
	for (size_t i = 0; i < n; i++)
		if (!push(groups, group_json(mcast_group_at(mc, i))))
			goto nomem;
	n = sa_service_count(svc);
	for (size_t i = 0; i < n; i++) {
		uint8_t rec[SA_SR_SIZE];
		uint64_t left;

		if (!sa_service_export(svc, i, rec, &left))
			continue;
		if (!push(services, json_pack("{s:o,s:I}", "rec", hex_of(rec, SA_SR_SIZE),
					      "lease_left_ms", (json_int_t)left)))
			goto nomem;
	}
	n = sa_inform_count(inf);
	for (size_t i = 0; i < n; i++) {
		struct sa_inform_image im;

		sa_inform_export(inf, i, &im);
		if (!push(informs, json_pack("{s:o,s:I,s:i,s:o}", "port_guid",
					     guid_of(im.port_guid), "qpn", (json_int_t)im.qpn, "sl",
					     im.sl, "ii", hex_of(im.ii, SA_II_SIZE))))
			goto nomem;
	}
	for (size_t i = 0; i < n_lids; i++)
		if (!push(lida, json_pack("{s:o,s:i,s:i}", "guid", guid_of(lids[i].guid), "lid",
					  lids[i].lid, "lmc", lids[i].lmc)))
			goto nomem;
	doc = json_pack("{s:i,s:o,s:I,s:o,s:o,s:o,s:o}", "version", SYNCDOC_VERSION, "sm_guid",
			guid_of(sm_guid), "generation", (json_int_t)generation, "groups", groups,
			"services", services, "informs", informs, "lids", lida);
	return doc; /* json_pack steals the arrays even when it fails */
nomem:
	json_decref(groups);
	json_decref(services);
	json_decref(informs);
	json_decref(lida);
	return NULL;
}

/* ---- decode -------------------------------------------------------------------- */

struct dec {
	char *err;
	size_t err_len;
	int rc;
};

__attribute__((format(printf, 3, 4))) static bool bad(struct dec *d, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!d->rc) {
		va_start(ap, fmt);
		vsnprintf(d->err, d->err_len, fmt, ap);
		va_end(ap);
		d->rc = rc;
	}
	return false;
}

static bool get_int(struct dec *d, const json_t *o, const char *where, const char *key,
		    json_int_t lo, json_int_t hi, json_int_t *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return bad(d, -EBADMSG, "%s.%s: %s", where, key, v ? "not an integer" : "missing");
	if (json_integer_value(v) < lo || json_integer_value(v) > hi)
		return bad(d, -EBADMSG, "%s.%s: %" JSON_INTEGER_FORMAT " out of range", where, key,
			   json_integer_value(v));
	*ret = json_integer_value(v);
	return true;
}

#define GET_U(d, o, where, key, hi, dst)                                                           \
	({                                                                                         \
		json_int_t v_;                                                                     \
		bool ok_ = get_int(d, o, where, key, 0, hi, &v_);                                  \
		if (ok_)                                                                           \
			(dst) = v_;                                                                \
		ok_;                                                                               \
	})

static bool get_bool(struct dec *d, const json_t *o, const char *where, const char *key, bool *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return bad(d, -EBADMSG, "%s.%s: %s", where, key, v ? "not a boolean" : "missing");
	*ret = json_is_true(v);
	return true;
}

static bool get_hex(struct dec *d, const json_t *o, const char *where, const char *key,
		    uint8_t *out, size_t n)
{
	const json_t *v = json_object_get(o, key);
	const char *s;

	if (!json_is_string(v))
		return bad(d, -EBADMSG, "%s.%s: %s", where, key, v ? "not a string" : "missing");
	s = json_string_value(v);
	if (json_string_length(v) != 2 * n)
		return bad(d, -EBADMSG, "%s.%s: %zu hex digits, not %zu", where, key,
			   json_string_length(v), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return bad(d, -EBADMSG, "%s.%s: not hex", where, key);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static bool get_guid(struct dec *d, const json_t *o, const char *where, const char *key,
		     uint64_t *ret)
{
	const json_t *v = json_object_get(o, key);
	const char *s;
	uint64_t g = 0;

	if (!json_is_string(v))
		return bad(d, -EBADMSG, "%s.%s: %s", where, key, v ? "not a string" : "missing");
	s = json_string_value(v);
	if (json_string_length(v) != 18 || s[0] != '0' || s[1] != 'x')
		return bad(d, -EBADMSG, "%s.%s: not a GUID (0x and 16 hex digits)", where, key);
	for (int i = 2; i < 18; i++) {
		int h = hex_digit(s[i]);

		if (h < 0)
			return bad(d, -EBADMSG, "%s.%s: not a GUID (0x and 16 hex digits)", where,
				   key);
		g = g << 4 | (uint64_t)h;
	}
	*ret = g;
	return true;
}

/* The array o[key] with at most max elements; NULL (d set) otherwise. */
static const json_t *get_array(struct dec *d, const json_t *o, const char *where, const char *key,
			       size_t max)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_array(v)) {
		bad(d, -EBADMSG, "%s%s%s: %s", where, where[0] ? "." : "", key,
		    v ? "not an array" : "missing");
		return NULL;
	}
	if (json_array_size(v) > max) {
		bad(d, -EMSGSIZE, "%s%s%s: %zu entries, at most %zu", where, where[0] ? "." : "",
		    key, json_array_size(v), max);
		return NULL;
	}
	return v;
}

static bool dec_group(struct dec *d, const json_t *o, size_t gi, size_t *members_left,
		      struct syncdoc_group *g)
{
	char w[48], mw[96];
	const json_t *ma;

	snprintf(w, sizeof(w), "groups[%zu]", gi);
	if (!json_is_object(o))
		return bad(d, -EBADMSG, "%s: not an object", w);
	if (!get_hex(d, o, w, "mgid", g->mgid, 16) ||
	    !GET_U(d, o, w, "mlid", MCAST_MLID_LAST, g->mlid) ||
	    !GET_U(d, o, w, "qkey", 0xffffffff, g->p.qkey) ||
	    !GET_U(d, o, w, "pkey", 0xffff, g->p.pkey) || !GET_U(d, o, w, "mtu", 63, g->p.mtu) ||
	    !GET_U(d, o, w, "rate", 63, g->p.rate) ||
	    !GET_U(d, o, w, "pkt_life", 63, g->p.pkt_life) || !GET_U(d, o, w, "sl", 15, g->p.sl) ||
	    !GET_U(d, o, w, "tclass", 255, g->p.tclass) ||
	    !GET_U(d, o, w, "flow_label", 0xfffff, g->p.flow_label) ||
	    !GET_U(d, o, w, "hop_limit", 255, g->p.hop_limit) ||
	    !get_bool(d, o, w, "well_known", &g->well_known))
		return false;
	if (g->mgid[0] != 0xff)
		return bad(d, -EBADMSG, "%s.mgid: not a multicast GID", w);
	if (g->mlid < MCAST_MLID_FIRST)
		return bad(d, -EBADMSG, "%s.mlid: %u is not a multicast LID", w, g->mlid);
	g->p.scope = g->mgid[1] & 0x0f;
	ma = get_array(d, o, w, "members", *members_left);
	if (!ma)
		return false;
	*members_left -= json_array_size(ma);
	g->n_members = json_array_size(ma);
	if (g->n_members && !(g->members = calloc(g->n_members, sizeof(*g->members))))
		return bad(d, -ENOMEM, "out of memory");
	for (size_t i = 0; i < g->n_members; i++) {
		const json_t *m = json_array_get(ma, i);
		struct mcast_member *mb = &g->members[i];

		snprintf(mw, sizeof(mw), "%s.members[%zu]", w, i);
		if (!json_is_object(m))
			return bad(d, -EBADMSG, "%s: not an object", mw);
		if (!get_hex(d, m, mw, "gid", mb->port_gid, 16) ||
		    !GET_U(d, m, mw, "join_state", MCAST_JOIN_MASK, mb->join_state) ||
		    !get_bool(d, m, mw, "proxy", &mb->proxy))
			return false;
		if (!mb->join_state || !mcast_gid_guid(mb->port_gid))
			return bad(d, -EBADMSG, "%s: no JoinState or a GUID 0", mw);
	}
	return true;
}

static bool dec_lists(struct dec *d, const json_t *root, struct syncdoc *doc)
{
	const json_t *ga, *sa, *ia, *la;
	size_t members_left = SYNCDOC_MAX_MEMBERS;
	char w[48];

	if (!(ga = get_array(d, root, "", "groups", SYNCDOC_MAX_GROUPS)) ||
	    !(sa = get_array(d, root, "", "services", SYNCDOC_MAX_SERVICES)) ||
	    !(ia = get_array(d, root, "", "informs", SYNCDOC_MAX_INFORMS)) ||
	    !(la = get_array(d, root, "", "lids", SYNCDOC_MAX_LIDS)))
		return false;
	doc->groups = calloc(json_array_size(ga) + 1, sizeof(*doc->groups));
	doc->services = calloc(json_array_size(sa) + 1, sizeof(*doc->services));
	doc->informs = calloc(json_array_size(ia) + 1, sizeof(*doc->informs));
	doc->lids = calloc(json_array_size(la) + 1, sizeof(*doc->lids));
	if (!doc->groups || !doc->services || !doc->informs || !doc->lids)
		return bad(d, -ENOMEM, "out of memory");
	for (size_t i = 0; i < json_array_size(ga); i++) {
		doc->n_groups++; /* freed with the document even when half decoded */
		if (!dec_group(d, json_array_get(ga, i), i, &members_left, &doc->groups[i]))
			return false;
	}
	for (size_t i = 0; i < json_array_size(sa); i++) {
		const json_t *o = json_array_get(sa, i);
		struct syncdoc_service *s = &doc->services[doc->n_services++];

		snprintf(w, sizeof(w), "services[%zu]", i);
		if (!json_is_object(o))
			return bad(d, -EBADMSG, "%s: not an object", w);
		/* a lease is at most 2^32 - 2 s */
		if (!get_hex(d, o, w, "rec", s->rec, SA_SR_SIZE) ||
		    !GET_U(d, o, w, "lease_left_ms", 4294967294000LL, s->left_ms))
			return false;
		if (!sa_wire_bits_get(s->rec + SA_SR_GID_OFFS, 64, 64))
			return bad(d, -EBADMSG, "%s.rec: ServiceGID with GUID 0", w);
	}
	for (size_t i = 0; i < json_array_size(ia); i++) {
		const json_t *o = json_array_get(ia, i);
		struct sa_inform_image *im = &doc->informs[doc->n_informs++];

		snprintf(w, sizeof(w), "informs[%zu]", i);
		if (!json_is_object(o))
			return bad(d, -EBADMSG, "%s: not an object", w);
		if (!get_guid(d, o, w, "port_guid", &im->port_guid) ||
		    !GET_U(d, o, w, "qpn", 0xffffff, im->qpn) ||
		    !GET_U(d, o, w, "sl", 15, im->sl) ||
		    !get_hex(d, o, w, "ii", im->ii, SA_II_SIZE))
			return false;
		if (!im->port_guid)
			return bad(d, -EBADMSG, "%s.port_guid: 0", w);
	}
	for (size_t i = 0; i < json_array_size(la); i++) {
		const json_t *o = json_array_get(la, i);
		struct syncdoc_lid *l = &doc->lids[doc->n_lids++];

		snprintf(w, sizeof(w), "lids[%zu]", i);
		if (!json_is_object(o))
			return bad(d, -EBADMSG, "%s: not an object", w);
		if (!get_guid(d, o, w, "guid", &l->guid) ||
		    !GET_U(d, o, w, "lid", 0xbfff, l->lid) || !GET_U(d, o, w, "lmc", 7, l->lmc))
			return false;
		if (!l->guid || !l->lid)
			return bad(d, -EBADMSG, "%s: GUID or LID 0", w);
	}
	return true;
}

int syncdoc_decode(const char *buf, size_t len, struct syncdoc **ret, char *err, size_t err_len)
{
	struct dec d = {err, err_len, 0};
	struct syncdoc *doc = NULL;
	json_error_t je;
	json_t *root;
	json_int_t v;

	if (err_len)
		err[0] = 0;
	if (len > SYNCDOC_MAX_BYTES) {
		bad(&d, -EMSGSIZE, "%zu bytes, at most %u", len, SYNCDOC_MAX_BYTES);
		return d.rc;
	}
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		bad(&d, -EBADMSG, "not JSON: %s (byte %d)", je.text, je.position);
		return d.rc;
	}
	if (!json_is_object(root)) {
		bad(&d, -EBADMSG, "not a JSON object");
		goto out;
	}
	if (!get_int(&d, root, "document", "version", 0, INT32_MAX, &v))
		goto out;
	if (v != SYNCDOC_VERSION) {
		bad(&d, -EBADMSG, "version %" JSON_INTEGER_FORMAT ", this SM reads %d", v,
		    SYNCDOC_VERSION);
		goto out;
	}
	doc = calloc(1, sizeof(*doc));
	if (!doc) {
		bad(&d, -ENOMEM, "out of memory");
		goto out;
	}
	if (!get_guid(&d, root, "document", "sm_guid", &doc->sm_guid) ||
	    !get_int(&d, root, "document", "generation", 0, INT64_MAX, &v))
		goto out;
	doc->generation = (uint64_t)v;
	if (!dec_lists(&d, root, doc))
		goto out;
	if (json_object_get(root, "runtime_partitions")) {
		char why[200];
		int r = pkeyset_from_json(json_object_get(root, "runtime_partitions"), &doc->pkeys,
					  why, sizeof(why));

		if (r < 0) {
			bad(&d,
			    r == -ENOMEM     ? -ENOMEM
			    : r == -EMSGSIZE ? -EMSGSIZE
					     : -EBADMSG,
			    "runtime_partitions: %s", why);
			goto out;
		}
	}
	*ret = doc;
	doc = NULL;
out:
	syncdoc_free(doc);
	json_decref(root);
	return d.rc;
}

/* ---- merge ---------------------------------------------------------------------- */

static int guid_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool syncdoc_guid_listed(const uint64_t *sorted, size_t n, uint64_t guid)
{
	return sorted_u64_has(sorted, n, guid);
}

struct guid_list {
	uint64_t *v;
	size_t n, cap;
};

static int syncdoc_list_add(struct guid_list *l, uint64_t g)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = g;
	return 0;
}

int syncdoc_apply(const struct syncdoc *d, struct mcast_db *mc, struct sa_service_db *svc,
		  struct sa_inform_db *inf, struct syncdoc_apply_stats *ret)
{
	struct guid_list nc = {0};
	int rc = 0;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; mc && i < d->n_groups && !rc; i++) {
		const struct syncdoc_group *g = &d->groups[i];
		int r = mcast_restore(mc, g->mgid, g->mlid, &g->p, g->well_known, g->members,
				      g->n_members);

		if (r == 0) {
			ret->groups++;
			ret->members += g->n_members;
			continue;
		}
		ret->groups_failed++;
		for (size_t j = 0; j < g->n_members && !rc; j++)
			rc = syncdoc_list_add(&nc, mcast_gid_guid(g->members[j].port_gid));
		if (r == -ENOMEM)
			rc = r;
	}
	for (size_t i = 0; svc && i < d->n_services && !rc; i++) {
		const struct syncdoc_service *s = &d->services[i];
		int r = sa_service_restore(svc, s->rec, s->left_ms);

		if (r == 0 || r == -EEXIST) {
			ret->services += r == 0;
			continue;
		}
		ret->services_failed++;
		rc = syncdoc_list_add(&nc, sa_wire_bits_get(s->rec + SA_SR_GID_OFFS, 64, 64));
		if (r == -ENOMEM)
			rc = r;
	}
	for (size_t i = 0; inf && i < d->n_informs && !rc; i++) {
		int r = sa_inform_restore(inf, &d->informs[i]);

		if (r == 0 || r == -EEXIST) {
			ret->informs += r == 0;
			continue;
		}
		ret->informs_failed++;
		rc = syncdoc_list_add(&nc, d->informs[i].port_guid);
	}
	if (nc.n) {
		size_t k = 0;

		qsort(nc.v, nc.n, sizeof(*nc.v), guid_cmp);
		for (size_t i = 0; i < nc.n; i++)
			if (!k || nc.v[k - 1] != nc.v[i])
				nc.v[k++] = nc.v[i];
		nc.n = k;
	}
	ret->not_carried = nc.v;
	ret->n_not_carried = nc.n;
	return rc;
}

/*
 * The runtime partitions (see pkeyset.h): an immutable set of P_Keys and
 * their GUIDs, changed by making a new set; its merge with the file's
 * policy; its JSON document.
 *
 * Cost: a change copies the array of P_Key pointers and the one P_Key it
 * touches (O(P_Keys + that P_Key's members + the request's GUIDs, sorted));
 * the merge copies the file's policy and every runtime member once.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hex.h"
#include "fabric/speed.h"
#include "policy/pkeyset.h"

/* ---- the set ------------------------------------------------------------- */

struct pkeyset *pkeyset_new(void)
{
	return calloc(1, sizeof(struct pkeyset));
}

static void pkey_unref(struct pkeyset_pkey *p)
{
	if (!p)
		return;
	if (p->refs) {
		p->refs--;
		return;
	}
	free(p->m);
	free(p);
}

void pkeyset_free(struct pkeyset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		pkey_unref(s->v[i]);
	free(s->v);
	free(s);
}

/* The index of pkey in s, or where it would go (*found false). */
static size_t pkeyset_pos(const struct pkeyset *s, uint16_t pkey, bool *found)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid]->pkey < pkey)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < s->n && s->v[lo]->pkey == pkey;
	return lo;
}

const struct pkeyset_pkey *pkeyset_find(const struct pkeyset *s, uint16_t pkey)
{
	bool found;
	size_t i;

	if (!s)
		return NULL;
	i = pkeyset_pos(s, pkey & 0x7fff, &found);
	return found ? s->v[i] : NULL;
}

const struct pkeyset_member *pkeyset_member_find(const struct pkeyset_pkey *p, uint64_t guid)
{
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->m[mid].guid == guid)
			return &p->m[mid];
		if (p->m[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void pkeyset_req_init(struct pkeyset_req *r)
{
	memset(r, 0, sizeof(*r));
	r->membership = PARTITION_M_FULL;
	r->ipoib = r->mtu = r->rate = r->sl = -1;
}

void pkeyset_req_clear(struct pkeyset_req *r)
{
	free(r->guids);
	free(r->members);
	pkeyset_req_init(r);
}

void pkeyset_delta_clear(struct pkeyset_delta *d)
{
	free(d->guids);
	memset(d, 0, sizeof(*d));
}

/* ---- changes ----------------------------------------------------------- */

static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* A GUID of the request with its membership, for sorting. */
struct req_guid {
	uint64_t guid;
	uint8_t membership;
};

static int cmp_req_guid(const void *a, const void *b)
{
	const struct req_guid *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* The request's GUIDs sorted, each once (the same GUID twice must agree).  NULL, n 0 for none. */
static int req_sorted(const struct pkeyset_req *req, bool memberships, struct req_guid **ret,
		      size_t *ret_n, char *err, size_t err_len)
{
	struct req_guid *v;
	size_t k = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!req->n_guids)
		return 0;
	v = malloc(req->n_guids * sizeof(*v));
	if (!v)
		return fail(err, err_len, -ENOMEM, "out of memory");
	for (size_t i = 0; i < req->n_guids; i++) {
		uint8_t m = !memberships   ? PARTITION_M_FULL
			    : req->members ? req->members[i]
					   : req->membership;

		if (!req->guids[i]) {
			free(v);
			return fail(err, err_len, -EINVAL, "GUID 0 is no port");
		}
		if (m != PARTITION_M_FULL && m != PARTITION_M_LIMITED) {
			free(v);
			return fail(err, err_len, -EINVAL, "membership must be full or limited");
		}
		v[i] = (struct req_guid){req->guids[i], m};
	}
	qsort(v, req->n_guids, sizeof(*v), cmp_req_guid);
	for (size_t i = 0; i < req->n_guids; i++) {
		if (k && v[k - 1].guid == v[i].guid) {
			if (v[k - 1].membership != v[i].membership) {
				uint64_t g = v[i].guid;

				free(v);
				return fail(err, err_len, -EINVAL,
					    "GUID %016" PRIx64 " is given twice, full and limited",
					    g);
			}
			continue;
		}
		v[k++] = v[i];
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

/* A new set: s's P_Keys (one more reference each) with slot i replaced by p (or removed). */
static struct pkeyset *set_with(const struct pkeyset *s, size_t i, bool found,
				struct pkeyset_pkey *p)
{
	struct pkeyset *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->v = malloc((s->n + 1) * sizeof(*t->v));
	if (!t->v) {
		free(t);
		return NULL;
	}
	for (size_t k = 0; k < s->n; k++) {
		if (k == i) {
			if (p)
				t->v[t->n++] = p;
			if (found)
				continue; /* the old P_Key is replaced, or deleted */
		}
		s->v[k]->refs++;
		t->v[t->n++] = s->v[k];
	}
	if (i == s->n && p)
		t->v[t->n++] = p;
	t->members = s->members - (found ? s->v[i]->n : 0) + (p ? p->n : 0);
	return t;
}

static int delta_guid(struct pkeyset_delta *d, uint64_t guid, size_t *cap)
{
	if (d->n_guids == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		uint64_t *v = realloc(d->guids, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->guids = v;
		*cap = c;
	}
	d->guids[d->n_guids++] = guid;
	return 0;
}

static struct pkeyset_pkey *pkey_new(uint16_t pkey, size_t cap)
{
	struct pkeyset_pkey *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pkey = pkey;
	if (cap && !(p->m = malloc(cap * sizeof(*p->m)))) {
		free(p);
		return NULL;
	}
	return p;
}

/* p takes old's name and parameters (a new version of old). */
static void pkey_params_copy(struct pkeyset_pkey *p, const struct pkeyset_pkey *old)
{
	memcpy(p->name, old->name, sizeof(p->name));
	p->ipoib = old->ipoib;
	p->mtu = old->mtu;
	p->rate = old->rate;
	p->sl = old->sl;
}

/* The P_Key's parameters a request may set; whether any changed. */
static bool pkey_params(struct pkeyset_pkey *p, const struct pkeyset_req *req, bool created)
{
	bool changed = false;

	if (req->ipoib >= 0 || created) {
		bool v = req->ipoib != 0; /* UFM: true unless said */

		changed |= p->ipoib != v;
		p->ipoib = v;
	}
#define PKEYSET_PARAM(f)                                                                           \
	if (req->f >= 0 && p->f != (uint8_t)req->f) {                                              \
		p->f = (uint8_t)req->f;                                                            \
		changed = true;                                                                    \
	}
	PKEYSET_PARAM(mtu)
	PKEYSET_PARAM(rate)
	PKEYSET_PARAM(sl)
#undef PKEYSET_PARAM
	if (req->name[0] && strcmp(p->name, req->name)) {
		snprintf(p->name, sizeof(p->name), "%s", req->name);
		changed = true;
	}
	if (!p->name[0])
		snprintf(p->name, sizeof(p->name), "pkey_0x%04x", p->pkey);
	return changed;
}

/* ADD: the old P_Key's members merged with the request's (sorted): a new P_Key. */
static int apply_add(const struct pkeyset_pkey *old, uint16_t pkey, const struct pkeyset_req *req,
		     const struct req_guid *g, size_t ng, struct pkeyset_pkey **ret,
		     struct pkeyset_delta *d, char *err, size_t err_len)
{
	size_t on = old ? old->n : 0, i = 0, j = 0, cap = 0;
	struct pkeyset_pkey *p = pkey_new(pkey, on + ng + 1);

	if (!p)
		return fail(err, err_len, -ENOMEM, "out of memory");
	if (old)
		pkey_params_copy(p, old);
	d->group_changed = pkey_params(p, req, !old);
	while (i < on || j < ng) {
		const struct pkeyset_member *om = i < on ? &old->m[i] : NULL;
		const struct req_guid *rg = j < ng ? &g[j] : NULL;

		if (om && (!rg || om->guid < rg->guid)) {
			p->m[p->n++] = *om;
			i++;
			continue;
		}
		p->m[p->n] = (struct pkeyset_member){rg->guid, rg->membership, req->index0};
		if (om && om->guid == rg->guid) {
			i++;
			if (om->membership != rg->membership || om->index0 != req->index0) {
				d->updated++;
				if (delta_guid(d, rg->guid, &cap) < 0)
					goto nomem;
			}
		} else {
			d->added++;
			if (delta_guid(d, rg->guid, &cap) < 0)
				goto nomem;
		}
		p->n++;
		j++;
	}
	*ret = p;
	return 0;
nomem:
	pkey_unref(p);
	return fail(err, err_len, -ENOMEM, "out of memory");
}

/* REMOVE: the old P_Key without the request's GUIDs. */
static int apply_remove(const struct pkeyset_pkey *old, const struct req_guid *g, size_t ng,
			struct pkeyset_pkey **ret, struct pkeyset_delta *d, char *err,
			size_t err_len)
{
	struct pkeyset_pkey *p = pkey_new(old->pkey, old->n + 1);
	size_t j = 0, cap = 0;

	if (!p)
		return fail(err, err_len, -ENOMEM, "out of memory");
	pkey_params_copy(p, old);
	for (size_t i = 0; i < old->n; i++) {
		while (j < ng && g[j].guid < old->m[i].guid)
			j++;
		if (j < ng && g[j].guid == old->m[i].guid) {
			d->removed++;
			if (delta_guid(d, old->m[i].guid, &cap) < 0) {
				pkey_unref(p);
				return fail(err, err_len, -ENOMEM, "out of memory");
			}
			continue;
		}
		p->m[p->n++] = old->m[i];
	}
	*ret = p;
	return 0;
}

int pkeyset_apply(const struct pkeyset *s, const struct pkeyset_req *req,
		  const struct partition_config *file, const struct pkeyset_limits *lim,
		  struct pkeyset **ret, struct pkeyset_delta *delta, char *err, size_t err_len)
{
	uint16_t pkey = req->pkey & 0x7fff;
	struct pkeyset_pkey *p = NULL, *old;
	const struct partition *fp;
	struct req_guid *g = NULL;
	size_t ng = 0, i;
	bool found;
	int r;

	memset(delta, 0, sizeof(*delta));
	*ret = NULL;
	if (err && err_len)
		err[0] = '\0';
	if (!pkey || pkey == PARTITION_DEFAULT_PKEY)
		return fail(err, err_len, pkey ? -EEXIST : -EINVAL,
			    pkey
				? "P_Key 0x7fff is the default partition's: partitions.conf owns it"
				: "P_Key 0x0000 is invalid (want 0x0001..0x7ffe)");
	fp = partition_find(file, pkey);
	/* the file's P_Key is not the API's; a runtime one it shadows may still be deleted */
	if (fp && !fp->runtime && !(req->op == PKEYSET_DELETE && pkeyset_find(s, pkey)))
		return fail(err, err_len, -EEXIST,
			    "P_Key 0x%04x is defined in the partitions file ('%s'): the API cannot "
			    "change it",
			    pkey, fp->name);
	if (req->n_guids > lim->max_guids)
		return fail(err, err_len, -E2BIG, "%zu GUIDs in one request, at most %zu",
			    req->n_guids, lim->max_guids);
	i = pkeyset_pos(s, pkey, &found);
	old = found ? s->v[i] : NULL;
	switch (req->op) {
	case PKEYSET_DELETE:
		if (!old)
			return 0; /* deleting what is not there changes nothing */
		for (size_t k = 0, cap = 0; k < old->n; k++)
			if (delta_guid(delta, old->m[k].guid, &cap) < 0)
				return fail(err, err_len, -ENOMEM, "out of memory");
		delta->removed = old->n;
		delta->deleted = true;
		delta->group_changed = old->ipoib;
		break;
	case PKEYSET_QOS:
		if (!old)
			return fail(err, err_len, -ENOENT, "no runtime P_Key 0x%04x", pkey);
		p = pkey_new(pkey, old->n + 1);
		if (!p)
			return fail(err, err_len, -ENOMEM, "out of memory");
		pkey_params_copy(p, old);
		if (old->n)
			memcpy(p->m, old->m, old->n * sizeof(*p->m));
		p->n = old->n;
		delta->group_changed = pkey_params(p, req, false);
		break;
	case PKEYSET_REMOVE:
		if (!old)
			return 0; /* removing from a P_Key that is not there changes nothing */
		r = req_sorted(req, false, &g, &ng, err, err_len);
		if (r == 0)
			r = apply_remove(old, g, ng, &p, delta, err, err_len);
		free(g);
		if (r < 0)
			return r;
		break;
	case PKEYSET_ADD:
		if (!old && s->n >= lim->max_pkeys)
			return fail(err, err_len, -ENOSPC,
				    "%zu runtime P_Keys already, at most %zu (pkey_max_runtime and "
				    "the 32,767 P_Keys less the file's)",
				    s->n, lim->max_pkeys);
		r = req_sorted(req, true, &g, &ng, err, err_len);
		if (r == 0)
			r = apply_add(old, pkey, req, g, ng, &p, delta, err, err_len);
		free(g);
		if (r < 0) {
			pkeyset_delta_clear(delta);
			return r;
		}
		delta->created = !old;
		if (s->members - (old ? old->n : 0) + p->n > PKEYSET_MAX_MEMBERS) {
			pkey_unref(p);
			pkeyset_delta_clear(delta);
			return fail(err, err_len, -ENOSPC,
				    "%zu runtime memberships at most: this request would make %zu",
				    (size_t)PKEYSET_MAX_MEMBERS,
				    s->members - (old ? old->n : 0) + p->n);
		}
		break;
	}
	delta->changed =
	    delta->created || delta->deleted || delta->group_changed || delta->n_guids > 0;
	if (!delta->changed) {
		pkey_unref(p);
		return 0;
	}
	*ret = set_with(s, i, found, p);
	if (!*ret) {
		pkey_unref(p);
		pkeyset_delta_clear(delta);
		return fail(err, err_len, -ENOMEM, "out of memory");
	}
	return 0;
}

/* ---- the merge ----------------------------------------------------------- */

int pkeyset_merge(const struct partition_config *file, const struct pkeyset *s,
		  struct partition_config **ret, size_t *ret_shadowed)
{
	struct partition_config *c = partition_config_dup(file);
	size_t shadowed = 0;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; s && i < s->n; i++) {
		const struct pkeyset_pkey *rp = s->v[i];
		struct partition *p;

		if (partition_find(file, rp->pkey)) {
			shadowed++;
			continue;
		}
		p = partition_config_add(c, rp->name, rp->pkey);
		if (!p)
			goto nomem;
		p->runtime = true;
		p->ipoib = rp->ipoib;
		if (rp->mtu)
			p->mtu = p->path_mtu = rp->mtu;
		if (rp->rate)
			p->rate = p->path_rate = rp->rate;
		p->sl = rp->sl;
		if (rp->n && !(p->members = malloc(rp->n * sizeof(*p->members))))
			goto nomem;
		p->cap_members = rp->n;
		for (size_t k = 0; k < rp->n; k++)
			p->members[p->n_members++] = (struct partition_member){
			    rp->m[k].guid, PARTITION_GUID, rp->m[k].membership, 0,
			    rp->m[k].index0 ? PARTITION_MF_INDEX0 : 0};
	}
	if (partition_config_index(c) < 0)
		goto nomem;
	if (ret_shadowed)
		*ret_shadowed = shadowed;
	*ret = c;
	return 0;
nomem:
	partition_config_free(c);
	return -ENOMEM;
}

/* ---- parsing what the API takes ---------------------------------------- */

bool pkeyset_parse_guid(const char *s, uint64_t *ret)
{
	uint64_t g = 0;
	size_t len = strlen(s), digits = 0;

	if (len == 23) { /* 00:02:c9:03:00:0a:1b:2c */
		for (size_t i = 0; i < 23; i++) {
			int h = hex_digit(s[i]);

			if (i % 3 == 2) {
				if (s[i] != ':')
					return false;
				continue;
			}
			if (h < 0)
				return false;
			g = g << 4 | (uint64_t)h;
		}
		digits = 16;
	} else {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		for (; *s; s++, digits++) {
			int h = hex_digit(*s);

			if (h < 0 || digits >= 16)
				return false;
			g = g << 4 | (uint64_t)h;
		}
	}
	if (digits != 16 || !g)
		return false;
	*ret = g;
	return true;
}

bool pkeyset_parse_pkey(const char *s, uint16_t *ret)
{
	unsigned v = 0;
	size_t digits = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (s += 2; *s; s++, digits++) {
		int h = hex_digit(*s);

		if (h < 0 || digits >= 4)
			return false;
		v = v << 4 | (unsigned)h;
	}
	v &= 0x7fff;
	if (!digits || !v)
		return false;
	*ret = (uint16_t)v;
	return true;
}

int pkeyset_rate_code(double gbps)
{
	if (!(gbps > 0) || gbps > 1e6)
		return -1;
	for (int code = 2; code < 64; code++) {
		uint32_t mbps = speed_rate_mbps((uint8_t)code);

		if (mbps && fabs(mbps - gbps * 1000.0) < 0.5)
			return code;
	}
	return -1;
}

double pkeyset_rate_gbps(int code)
{
	return code > 0 && code < 64 ? speed_rate_mbps((uint8_t)code) / 1000.0 : 0;
}

/* ---- the document ---------------------------------------------------------- */

json_t *pkeyset_to_json(const struct pkeyset *s)
{
	json_t *a = json_array(), *doc;

	if (!a)
		return NULL;
	for (size_t i = 0; s && i < s->n; i++) {
		const struct pkeyset_pkey *p = s->v[i];
		json_t *g = json_array(), *o;
		char k[8];

		if (!g)
			goto nomem;
		for (size_t m = 0; m < p->n; m++) {
			char buf[48];

			snprintf(buf, sizeof(buf), "%016" PRIx64 ":%s%s", p->m[m].guid,
				 p->m[m].membership == PARTITION_M_FULL ? "full" : "limited",
				 p->m[m].index0 ? ":index0" : "");
			if (json_array_append_new(g, json_string(buf)) < 0) {
				json_decref(g);
				goto nomem;
			}
		}
		snprintf(k, sizeof(k), "0x%04x", p->pkey);
		o = json_pack("{s:s, s:s, s:b, s:i, s:i, s:i, s:o}", "pkey", k, "name", p->name,
			      "ip_over_ib", p->ipoib, "mtu", p->mtu, "rate", p->rate, "sl", p->sl,
			      "guids", g);
		if (!o || json_array_append_new(a, o) < 0)
			goto nomem;
	}
	doc = json_pack("{s:i, s:o}", "version", PKEYSET_VERSION, "pkeys", a);
	return doc;
nomem:
	json_decref(a);
	return NULL;
}

struct dec {
	char *err;
	size_t err_len;
	int rc;
};

static bool __attribute__((format(printf, 3, 4))) bad(struct dec *d, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!d->rc) {
		if (d->err && d->err_len) {
			va_start(ap, fmt);
			vsnprintf(d->err, d->err_len, fmt, ap);
			va_end(ap);
		}
		d->rc = rc;
	}
	return false;
}

static bool dec_u8(struct dec *d, const json_t *o, const char *w, const char *key, int max,
		   uint8_t *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return bad(d, -EBADMSG, "%s.%s: %s", w, key, v ? "not an integer" : "missing");
	if (json_integer_value(v) < 0 || json_integer_value(v) > max)
		return bad(d, -EBADMSG, "%s.%s: out of range (0..%d)", w, key, max);
	*ret = (uint8_t)json_integer_value(v);
	return true;
}

/* "GUID:full|limited[:index0]" */
static bool dec_member(struct dec *d, const json_t *v, const char *w, size_t k,
		       struct pkeyset_member *m)
{
	const char *s = json_string_value(v), *c;
	char guid[24];
	size_t n;

	if (!s)
		return bad(d, -EBADMSG, "%s.guids[%zu]: not a string", w, k);
	c = strchr(s, ':');
	n = c ? (size_t)(c - s) : 0;
	if (!c || n != 16)
		return bad(d, -EBADMSG, "%s.guids[%zu]: not GUID:full|limited[:index0]", w, k);
	memcpy(guid, s, n);
	guid[n] = '\0';
	if (!pkeyset_parse_guid(guid, &m->guid))
		return bad(d, -EBADMSG, "%s.guids[%zu]: not a GUID", w, k);
	c++;
	if (!strncmp(c, "full", 4)) {
		m->membership = PARTITION_M_FULL;
		c += 4;
	} else if (!strncmp(c, "limited", 7)) {
		m->membership = PARTITION_M_LIMITED;
		c += 7;
	} else {
		return bad(d, -EBADMSG, "%s.guids[%zu]: membership not full or limited", w, k);
	}
	m->index0 = !strcmp(c, ":index0");
	if (*c && !m->index0)
		return bad(d, -EBADMSG, "%s.guids[%zu]: trailing '%.16s'", w, k, c);
	return true;
}

static int cmp_member(const void *a, const void *b)
{
	const struct pkeyset_member *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkeyset_pkey *x = *(struct pkeyset_pkey *const *)a,
				  *y = *(struct pkeyset_pkey *const *)b;

	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

static bool dec_pkey(struct dec *d, const json_t *o, size_t i, size_t *members_left,
		     struct pkeyset_pkey **ret)
{
	const json_t *ga = json_object_get(o, "guids"), *v;
	const char *ks = json_string_value(json_object_get(o, "pkey"));
	const char *name = json_string_value(json_object_get(o, "name"));
	struct pkeyset_pkey *p;
	uint16_t pkey;
	char w[40];

	snprintf(w, sizeof(w), "pkeys[%zu]", i);
	if (!json_is_object(o))
		return bad(d, -EBADMSG, "%s: not an object", w);
	if (!ks || !pkeyset_parse_pkey(ks, &pkey) || pkey == PARTITION_DEFAULT_PKEY)
		return bad(d, -EBADMSG, "%s.pkey: not a P_Key 0x0001..0x7ffe", w);
	if (!name || !*name || strlen(name) >= PKEYSET_NAME_MAX)
		return bad(d, -EBADMSG, "%s.name: not a name of 1..%d bytes", w,
			   PKEYSET_NAME_MAX - 1);
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return bad(d, -EBADMSG, "%s.name: a control character", w);
	if (!json_is_boolean(json_object_get(o, "ip_over_ib")))
		return bad(d, -EBADMSG, "%s.ip_over_ib: not a boolean", w);
	if (!json_is_array(ga))
		return bad(d, -EBADMSG, "%s.guids: not an array", w);
	if (json_array_size(ga) > *members_left)
		return bad(d, -EMSGSIZE, "%s.guids: more than %d memberships in all", w,
			   PKEYSET_MAX_MEMBERS);
	*members_left -= json_array_size(ga);
	p = pkey_new(pkey, json_array_size(ga) + 1);
	if (!p)
		return bad(d, -ENOMEM, "out of memory");
	*ret = p;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->ipoib = json_is_true(json_object_get(o, "ip_over_ib"));
	if (!dec_u8(d, o, w, "mtu", 5, &p->mtu) || !dec_u8(d, o, w, "rate", 63, &p->rate) ||
	    !dec_u8(d, o, w, "sl", 15, &p->sl))
		return false;
	if (p->rate && !speed_rate_mbps(p->rate))
		return bad(d, -EBADMSG, "%s.rate: %u is no rate code", w, p->rate);
	for (size_t k = 0; k < json_array_size(ga); k++) {
		v = json_array_get(ga, k);
		if (!dec_member(d, v, w, k, &p->m[p->n]))
			return false;
		p->n++;
	}
	qsort(p->m, p->n, sizeof(*p->m), cmp_member);
	for (size_t k = 1; k < p->n; k++)
		if (p->m[k].guid == p->m[k - 1].guid)
			return bad(d, -EBADMSG, "%s.guids: %016" PRIx64 " twice", w, p->m[k].guid);
	return true;
}

int pkeyset_from_json(const json_t *v, struct pkeyset **ret, char *err, size_t err_len)
{
	struct dec d = {err, err_len, 0};
	const json_t *pa = json_object_get(v, "pkeys"), *ver = json_object_get(v, "version");
	size_t members_left = PKEYSET_MAX_MEMBERS;
	struct pkeyset *s;

	if (err && err_len)
		err[0] = '\0';
	if (!json_is_object(v))
		return bad(&d, -EBADMSG, "not a JSON object"), d.rc;
	if (!json_is_integer(ver) || json_integer_value(ver) != PKEYSET_VERSION)
		return bad(&d, -EBADMSG, "version: not %d", PKEYSET_VERSION), d.rc;
	if (!json_is_array(pa))
		return bad(&d, -EBADMSG, "pkeys: %s", pa ? "not an array" : "missing"), d.rc;
	if (json_array_size(pa) > PKEYSET_MAX_PKEYS)
		return bad(&d, -EMSGSIZE, "pkeys: more than %d", PKEYSET_MAX_PKEYS), d.rc;
	s = pkeyset_new();
	if (!s || !(s->v = calloc(json_array_size(pa) + 1, sizeof(*s->v)))) {
		pkeyset_free(s);
		return bad(&d, -ENOMEM, "out of memory"), d.rc;
	}
	for (size_t i = 0; i < json_array_size(pa); i++) {
		struct pkeyset_pkey *p = NULL;
		bool ok = dec_pkey(&d, json_array_get(pa, i), i, &members_left, &p);

		if (p) {
			s->v[s->n++] = p;
			s->members += p->n;
		}
		if (!ok) {
			pkeyset_free(s);
			return d.rc;
		}
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_pkey);
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i]->pkey == s->v[i - 1]->pkey) {
			bad(&d, -EBADMSG, "pkeys: P_Key 0x%04x twice", s->v[i]->pkey);
			pkeyset_free(s);
			return d.rc;
		}
	*ret = s;
	return 0;
}

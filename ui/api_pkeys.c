/*
 * Runtime partitions in the control API (docs/partitions-api.md): the JSON
 * bodies of the UFM-shaped requests read into a request (policy/pkeyset.h),
 * the orders given to the SM (tenants/tenants.h), and the listings, both as the
 * control socket's `partitions` / `partition` commands and as UFM's
 * /ufmRest/resources/pkeys answers (ui/http_pkeys.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tenants/tenants.h"
#include "ui/api_int.h"
#include "ui/api_pkeys.h"

/* ---- request bodies -------------------------------------------------------- */

/* An error naming the member at fault (a macro: the format stays a literal). */
#define pkeys_bad(err, code, fmt, what) ctl_error_set(err, code, fmt, what)

static bool pkeys_membership(const char *s, uint8_t *ret)
{
	if (s && !strcmp(s, "full"))
		*ret = PARTITION_M_FULL;
	else if (s && !strcmp(s, "limited"))
		*ret = PARTITION_M_LIMITED;
	else
		return false;
	return true;
}

/* The optional boolean key of body into *ret (left alone when absent).  false when not a boolean.
 */
static bool pkeys_bool(const json_t *body, const char *key, bool *ret)
{
	const json_t *v = json_object_get(body, key);

	if (!v)
		return true;
	if (!json_is_boolean(v))
		return false;
	*ret = json_is_true(v);
	return true;
}

static int pkeys_guids(const json_t *body, size_t max_guids, struct pkeyset_req *req,
		       struct ctl_error *err)
{
	const json_t *ga = json_object_get(body, "guids"),
		     *ma = json_object_get(body, "memberships");
	size_t n;

	if (!ga)
		return 0;
	if (!json_is_array(ga))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be an array of GUID strings",
				 "guids");
	n = json_array_size(ga);
	if (n > max_guids)
		return ctl_error_set(err, CTL_ERR_LIMIT,
				     "%zu GUIDs in one request, at most %zu (pkey_max_guids)", n,
				     max_guids);
	if (ma && (!json_is_array(ma) || json_array_size(ma) != n))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT,
				 "%s must be an array as long as guids, of \"full\" or \"limited\"",
				 "memberships");
	if (ma && json_object_get(body, "membership"))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s: give membership or memberships",
				 "memberships");
	req->guids = malloc((n + 1) * sizeof(*req->guids));
	req->members = ma ? malloc(n + 1) : NULL;
	if (!req->guids || (ma && !req->members))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(ga, i));

		if (!s || !pkeyset_parse_guid(s, &req->guids[i]))
			return ctl_error_set(
			    err, CTL_ERR_BAD_ARGUMENT,
			    "guids[%zu]: '%.40s' is not a port GUID (16 hex digits, "
			    "not 0)",
			    i, s ? s : "(not a string)");
		if (ma &&
		    !pkeys_membership(json_string_value(json_array_get(ma, i)), &req->members[i]))
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "memberships[%zu]: want \"full\" or \"limited\"", i);
		req->n_guids++;
	}
	return 0;
}

/* mtu_limit (UFM: KB, 1, 2 or 4), rate_limit (Gb/s), service_level: IBA codes into req. */
static int pkeys_qos(const json_t *body, struct pkeyset_req *req, struct ctl_error *err)
{
	const json_t *mtu = json_object_get(body, "mtu_limit");
	const json_t *rate = json_object_get(body, "rate_limit");
	const json_t *sl = json_object_get(body, "service_level");

	if (mtu) {
		json_int_t v = json_is_integer(mtu) ? json_integer_value(mtu) : -1;

		if (v != 1 && v != 2 && v != 4)
			return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT,
					 "%s must be 1, 2 or 4 (KB: MTU 1024, 2048, 4096)",
					 "mtu_limit");
		req->mtu = v == 1 ? 3 : v == 2 ? 4 : 5;
	}
	if (rate) {
		int code = json_is_number(rate) ? pkeyset_rate_code(json_number_value(rate)) : -1;

		if (code < 0)
			return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT,
					 "%s must be an InfiniBand data rate in Gb/s (2.5, 10, 25, "
					 "100, 200, 400, ...)",
					 "rate_limit");
		req->rate = code;
	}
	if (sl) {
		if (!json_is_integer(sl) || json_integer_value(sl) < 0 ||
		    json_integer_value(sl) > 15)
			return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be 0..15",
					 "service_level");
		req->sl = (int)json_integer_value(sl);
	}
	return 0;
}

int api_pkeys_parse(const json_t *body, enum pkeyset_op op, uint16_t path_pkey, size_t max_guids,
		    struct pkeyset_req *req, struct ctl_error *err)
{
	const json_t *jp = json_object_get(body, "pkey");
	const char *name = json_string_value(json_object_get(body, "partition_name"));
	const char *m = json_string_value(json_object_get(body, "membership"));
	bool ipoib = true;
	int r;

	pkeyset_req_init(req);
	req->op = op;
	if (body && !json_is_object(body))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s", "the body must be a JSON object");
	if (path_pkey) {
		req->pkey = path_pkey;
	} else if (!json_is_string(jp) || !pkeyset_parse_pkey(json_string_value(jp), &req->pkey)) {
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT,
				 "%s must be a string \"0x0001\"..\"0x7fff\"", "pkey");
	}
	if (op == PKEYSET_DELETE)
		return 0;
	if (op == PKEYSET_QOS)
		return pkeys_qos(body, req, err);
	r = pkeys_guids(body, max_guids, req, err);
	if (r < 0 || op == PKEYSET_REMOVE)
		return r;
	if (json_object_get(body, "membership") && !pkeys_membership(m, &req->membership))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be \"full\" or \"limited\"",
				 "membership");
	if (!pkeys_bool(body, "index0", &req->index0))
		return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be true or false", "index0");
	if (json_object_get(body, "ip_over_ib")) {
		if (!pkeys_bool(body, "ip_over_ib", &ipoib))
			return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be true or false",
					 "ip_over_ib");
		req->ipoib = ipoib;
	}
	if (json_object_get(body, "partition_name")) {
		if (!name || !*name || strlen(name) >= sizeof(req->name))
			return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT, "%s must be 1..63 bytes",
					 "partition_name");
		for (const char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return pkeys_bad(err, CTL_ERR_BAD_ARGUMENT,
						 "%s holds a control character", "partition_name");
		snprintf(req->name, sizeof(req->name), "%s", name);
	}
	return pkeys_qos(body, req, err);
}

/* ---- orders ------------------------------------------------------------------ */

int api_pkeys_order(struct api *api, const struct pkeyset_req *req, const char *who, json_t **ret,
		    struct ctl_error *err)
{
	struct pkeyset_delta d;
	char why[320] = "";
	char k[8];
	int r = tenants_request(api->sm, req, who, &d, why, sizeof(why));

	switch (r) {
	case 0:
		break;
	case -EEXIST:
	case -EOVERFLOW:
		return ctl_error_set(err, CTL_ERR_CONFLICT, "%s", why);
	case -E2BIG:
	case -ENOSPC:
		return ctl_error_set(err, CTL_ERR_LIMIT, "%s", why);
	case -ENOENT:
		return ctl_error_set(err, CTL_ERR_NOT_FOUND, "%s", why);
	case -EINVAL:
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "%s", why);
	case -EAGAIN:
	case -ENODEV:
		return ctl_error_set(err, CTL_ERR_NOT_READY, "%s", why);
	default:
		return ctl_error_set(err, CTL_ERR_INTERNAL, "%s", why[0] ? why : strerror(-r));
	}
	snprintf(k, sizeof(k), "0x%04x", req->pkey & 0x7fff);
	*ret = json_pack("{s:s, s:b, s:b, s:b, s:I, s:I, s:I}", "pkey", k, "changed", d.changed,
			 "created", d.created, "deleted", d.deleted, "added", (json_int_t)d.added,
			 "removed", (json_int_t)d.removed, "updated", (json_int_t)d.updated);
	pkeyset_delta_clear(&d);
	return *ret ? 0 : -ENOMEM;
}

/* ---- listings ------------------------------------------------------------------ */

static const char *pkeys_membership_str(uint8_t m)
{
	return m == PARTITION_M_FULL ? "full" : m == PARTITION_M_BOTH ? "both" : "limited";
}

static const char *pkeys_who_str(uint8_t who)
{
	static const char *const names[] = {
	    [PARTITION_GUID] = "GUID",
	    [PARTITION_ALL] = "ALL",
	    [PARTITION_ALL_CAS] = "ALL_CAS",
	    [PARTITION_ALL_SWITCHES] = "ALL_SWITCHES",
	    [PARTITION_ALL_ROUTERS] = "ALL_ROUTERS",
	    [PARTITION_SELF] = "SELF",
	};

	return who <= PARTITION_SELF ? names[who] : "?";
}

/* A GUID as UFM shows it: 16 lowercase hex digits, no 0x. */
static json_t *pkeys_guid_str(uint64_t g)
{
	char s[20];

	snprintf(s, sizeof(s), "%016" PRIx64, g);
	return json_string(s);
}

/*
 * One partition of the policy as the listings show it: UFM's members
 * (partition, ip_over_ib, and with guids its GUIDs as [{"guid",
 * "membership", "index0"}]) and ours (source, ready, counts, the group's
 * parameters, the file's ALL-style members).
 */
static json_t *pkeys_json(const struct api *api, const struct partition *p, bool guids)
{
	struct tenants_ready rd;
	json_t *o, *w = json_array(), *g = guids ? json_array() : NULL;
	char k[8];

	if (!w || (guids && !g))
		goto nomem;
	for (size_t i = 0; i < p->n_members; i++) {
		const struct partition_member *m = &p->members[i];
		char buf[48];

		if (m->who != PARTITION_GUID) {
			snprintf(buf, sizeof(buf), "%s=%s", pkeys_who_str(m->who),
				 pkeys_membership_str(m->membership));
			if (json_array_append_new(w, json_string(buf)) < 0)
				goto nomem;
			continue;
		}
		if (g && json_array_append_new(
			     g, json_pack("{s:o, s:s, s:b}", "guid", pkeys_guid_str(m->guid),
					  "membership", pkeys_membership_str(m->membership),
					  "index0", (m->flags & PARTITION_MF_INDEX0) != 0)) < 0)
			goto nomem;
	}
	tenants_ready(api->sm, p->pkey, &rd);
	snprintf(k, sizeof(k), "0x%04x", p->pkey);
	o = json_pack("{s:s, s:s, s:s, s:b, s:b, s:I, s:I, s:I, s:i, s:f, s:i, s:o}", "pkey", k,
		      "partition", p->name, "source", p->runtime ? "runtime" : "file", "ip_over_ib",
		      p->ipoib, "ready", rd.ready, "members", (json_int_t)rd.members, "present",
		      (json_int_t)rd.present, "holding", (json_int_t)rd.holding, "mtu_limit",
		      p->mtu == 3   ? 1
		      : p->mtu == 4 ? 2
		      : p->mtu == 5 ? 4
				    : 0,
		      "rate_limit", pkeyset_rate_gbps(p->rate), "service_level", p->sl, "wildcards",
		      w);
	w = NULL;
	if (o && g && json_object_set_new(o, "guids", g) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
nomem:
	json_decref(w);
	json_decref(g);
	return NULL;
}

json_t *api_pkeys_one(const struct api *api, uint16_t pkey, bool guids)
{
	const struct partition *p = partition_find(api->sm->policy.parts, pkey);

	return p ? pkeys_json(api, p, guids) : NULL;
}

json_t *api_pkeys_all(const struct api *api, bool guids, bool by_pkey)
{
	const struct partition_config *c = api->sm->policy.parts;
	const struct pkeyset *s = tenants_set(api->sm);
	json_t *all = by_pkey ? json_object() : json_array();

	for (size_t i = 0; all && c && i < c->n; i++) {
		json_t *o = pkeys_json(api, &c->parts[i], guids);
		char k[8];

		if (!o) {
			json_decref(all);
			return NULL;
		}
		snprintf(k, sizeof(k), "0x%04x", c->parts[i].pkey);
		if (by_pkey ? json_object_set_new(all, k, o) : json_array_append_new(all, o)) {
			json_decref(all);
			return NULL;
		}
	}
	/* runtime P_Keys the file now defines: kept, not programmed (delete them) */
	for (size_t i = 0; all && !by_pkey && s && i < s->n; i++) {
		const struct partition *fp =
		    partition_find(api->sm->policy.file_parts, s->v[i]->pkey);
		char k[8];

		if (!fp)
			continue;
		snprintf(k, sizeof(k), "0x%04x", s->v[i]->pkey);
		if (json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:b, s:I}", "pkey", k,
							 "partition", s->v[i]->name, "source",
							 "runtime", "shadowed", 1, "members",
							 (json_int_t)s->v[i]->n)) < 0) {
			json_decref(all);
			return NULL;
		}
	}
	return all;
}

/* ---- the control socket's commands ------------------------------------------ */

int api_partitions(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		   struct ctl_error *err)
{
	static const char *const names[] = {"guids", NULL};
	const struct api *api = ctx;
	json_t *g = json_object_get(args, "guids"), *all;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (g && !json_is_boolean(g))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "guids must be true or false");
	all = api_pkeys_all(api, json_is_true(g), false);
	if (!all)
		return -ENOMEM;
	*ret = json_pack("{s:o}", "partitions", all);
	return *ret ? 0 : -ENOMEM;
}

/*
 * partition {"action": "add|remove|delete|show|qos", "pkey": "0x1234", "guids": [...],
 * ...}: what the HTTP routes do, on the control socket (an admin order).
 */
int api_partition(void *ctx, struct ctl_client *c, json_t *args, json_t **ret,
		  struct ctl_error *err)
{
	static const char *const names[] = {
	    "action",	  "pkey",      "guids",	     "membership",    "memberships",	"index0",
	    "ip_over_ib", "mtu_limit", "rate_limit", "service_level", "partition_name", NULL};
	static const struct {
		const char *name;
		enum pkeyset_op op;
	} actions[] = {{"add", PKEYSET_ADD},
		       {"remove", PKEYSET_REMOVE},
		       {"delete", PKEYSET_DELETE},
		       {"qos", PKEYSET_QOS}};
	struct api *api = ctx;
	const char *action = json_string_value(json_object_get(args, "action"));
	struct pkeyset_req req;
	char who[96];
	size_t i;
	int r;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (action && !strcmp(action, "show")) {
		uint16_t pkey;
		const char *ks = json_string_value(json_object_get(args, "pkey"));

		if (!ks || !pkeyset_parse_pkey(ks, &pkey))
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "pkey must be a string \"0x0001\"..\"0x7fff\"");
		*ret = api_pkeys_one(api, pkey, true);
		if (!*ret)
			return ctl_error_set(err, CTL_ERR_NOT_FOUND, "no partition 0x%04x", pkey);
		return 0;
	}
	for (i = 0; action && i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(action, actions[i].name))
			break;
	if (!action || i == sizeof(actions) / sizeof(actions[0]))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "action must be add, remove, delete, show or qos");
	r = api_pkeys_parse(args, actions[i].op, 0, (size_t)api->sm->conf.pkey_max_guids, &req,
			    err);
	if (r == 0) {
		snprintf(who, sizeof(who), "uid %u pid %d via the control socket",
			 (unsigned)ctl_client_uid(c), (int)ctl_client_pid(c));
		r = api_pkeys_order(api, &req, who, ret, err);
	}
	pkeyset_req_clear(&req);
	return r;
}

/*
 * The UFM-shaped routes (see http_pkeys.h): the request's method, path,
 * query and JSON body read into a runtime partition request, given to the
 * control API (ui/api_pkeys.c), its answer or error as JSON with UFM's
 * statuses.
 */
#include <errno.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "ui/api_int.h"
#include "ui/api_pkeys.h"
#include "ui/http_int.h"
#include "ui/http_pkeys.h"

#define PKEYS_PATH "/ufmRest/resources/pkeys"

static int http_pkeys_error(const struct ctl_error *e, const char **ret_reason, json_t **ret_body)
{
	int status = http_conn_status_of(e->code, ret_reason);

	*ret_body = json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", e->code, "message",
			      e->message);
	return status;
}

static int http_pkeys_fail(const char *code, const char *message, const char **ret_reason,
			   json_t **ret_body)
{
	struct ctl_error e;

	ctl_error_set(&e, code, "%s", message);
	return http_pkeys_error(&e, ret_reason, ret_body);
}

/* 405: the resource is there, not for this method. */
static int http_pkeys_method(const char **ret_reason, json_t **ret_body)
{
	http_pkeys_fail(CTL_ERR_BAD_REQUEST, "this method is not served here", ret_reason,
			ret_body);
	*ret_reason = "Method Not Allowed";
	return 405;
}

bool http_pkeys_is_write(const struct http_pkeys_req *r)
{
	return strcmp(r->method, "GET") && strcmp(r->method, "HEAD");
}

/* guids_data=true in the query (UFM's flag for the GUIDs of each P_Key). */
static int http_pkeys_guids_data(const char *query, bool *ret)
{
	struct evkeyvalq kv = {NULL, NULL};
	const char *v;

	*ret = false;
	if (!query || !*query)
		return 0;
	kv.tqh_last = &kv.tqh_first;
	if (evhttp_parse_query_str(query, &kv) < 0) {
		evhttp_clear_headers(&kv);
		return -EINVAL;
	}
	v = evhttp_find_header(&kv, "guids_data");
	*ret = v && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1"));
	evhttp_clear_headers(&kv);
	return 0;
}

/* A write: the body read, the request given to the SM. */
static int http_pkeys_write(struct api *api, const struct http_pkeys_req *r, enum pkeyset_op op,
			    uint16_t path_pkey, const char **ret_reason, json_t **ret_body)
{
	struct pkeyset_req req;
	struct ctl_error e = {"", ""};
	json_t *body = NULL, *ans = NULL;
	json_error_t je;
	int rc;

	if (r->body_len) {
		body = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES, &je);
		if (!body) {
			ctl_error_set(&e, CTL_ERR_BAD_ARGUMENT, "the body is not JSON: %s",
				      je.text);
			return http_pkeys_error(&e, ret_reason, ret_body);
		}
	} else if (op != PKEYSET_DELETE) {
		return http_pkeys_fail(CTL_ERR_BAD_ARGUMENT, "a JSON body is needed", ret_reason,
				       ret_body);
	}
	rc = api_pkeys_parse(body, op, path_pkey, (size_t)api->sm->conf.pkey_max_guids, &req, &e);
	/* POST /pkeys adds GUIDs: UFM wants some; /pkeys/add makes the P_Key alone */
	if (rc == 0 && op == PKEYSET_ADD && !req.n_guids && !strstr(r->path, "/add") &&
	    !json_object_get(body, "guids"))
		rc = ctl_error_set(&e, CTL_ERR_BAD_ARGUMENT, "guids is missing");
	if (rc == 0 && op == PKEYSET_REMOVE && !json_object_get(body, "guids"))
		rc = ctl_error_set(&e, CTL_ERR_BAD_ARGUMENT, "guids is missing");
	if (rc == 0)
		rc = api_pkeys_order(api, &req, r->who, &ans, &e);
	pkeyset_req_clear(&req);
	json_decref(body);
	if (rc < 0) {
		if (!e.code[0])
			ctl_error_set(&e, CTL_ERR_INTERNAL, "%s", strerror(-rc));
		return http_pkeys_error(&e, ret_reason, ret_body);
	}
	*ret_reason = "OK";
	*ret_body = ans;
	return 200;
}

int http_pkeys_answer(struct api *api, const struct http_pkeys_req *r, const char **ret_reason,
		      json_t **ret_body)
{
	bool get = !http_pkeys_is_write(r), guids = false;
	const char *p = r->path;
	size_t n = strlen(PKEYS_PATH);
	uint16_t pkey = 0;

	if (!strcmp(p, "/ufmRest/app/ufm_version") && get) {
		*ret_reason = "OK";
		*ret_body = json_pack("{s:s}", "ufm_release_version", "ibsmd-" PACKAGE_VERSION);
		return 200;
	}
	if (!strcmp(p, "/ufmRest/actions/remove_guids_from_pkey")) {
		if (strcmp(r->method, "POST"))
			return http_pkeys_method(ret_reason, ret_body);
		return http_pkeys_write(api, r, PKEYSET_REMOVE, 0, ret_reason, ret_body);
	}
	if (strncmp(p, PKEYS_PATH, n) || (p[n] && p[n] != '/'))
		return http_pkeys_fail(CTL_ERR_NOT_FOUND, "no such resource", ret_reason, ret_body);
	p += n;
	if (*p == '/')
		p++;
	/* the collection: GET lists, POST adds */
	if (!*p) {
		if (get) {
			if (http_pkeys_guids_data(r->query, &guids) < 0)
				return http_pkeys_fail(CTL_ERR_BAD_ARGUMENT,
						       "malformed query string", ret_reason,
						       ret_body);
			*ret_body = api_pkeys_all(api, guids, true);
			*ret_reason = *ret_body ? "OK" : "Internal Server Error";
			return *ret_body ? 200 : 500;
		}
		if (!strcmp(r->method, "POST"))
			return http_pkeys_write(api, r, PKEYSET_ADD, 0, ret_reason, ret_body);
	} else if (!strcmp(p, "add")) {
		if (!strcmp(r->method, "POST"))
			return http_pkeys_write(api, r, PKEYSET_ADD, 0, ret_reason, ret_body);
	} else if (!strcmp(p, "qos_conf")) {
		if (!strcmp(r->method, "PUT") || !strcmp(r->method, "POST"))
			return http_pkeys_write(api, r, PKEYSET_QOS, 0, ret_reason, ret_body);
	} else if (pkeyset_parse_pkey(p, &pkey)) {
		if (get) {
			if (http_pkeys_guids_data(r->query, &guids) < 0)
				return http_pkeys_fail(CTL_ERR_BAD_ARGUMENT,
						       "malformed query string", ret_reason,
						       ret_body);
			*ret_body = api_pkeys_one(api, pkey, guids);
			if (*ret_body) {
				*ret_reason = "OK";
				return 200;
			}
			return http_pkeys_fail(CTL_ERR_NOT_FOUND, "no such P_Key", ret_reason,
					       ret_body);
		}
		if (!strcmp(r->method, "DELETE"))
			return http_pkeys_write(api, r, PKEYSET_DELETE, pkey, ret_reason, ret_body);
	} else {
		return http_pkeys_fail(CTL_ERR_BAD_ARGUMENT,
				       "not a P_Key (\"0x0001\"..\"0x7fff\") or a resource",
				       ret_reason, ret_body);
	}
	return http_pkeys_method(ret_reason, ret_body);
}

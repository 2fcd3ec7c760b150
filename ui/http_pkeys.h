/*
 * The UFM-shaped routes of the HTTP endpoint (ui/http.c calls down into
 * ui/http_pkeys.c): what Mellanox ib-kubernetes' UFM plugin and UFM's Slurm
 * integration call, answered from the runtime partitions
 * (docs/partitions-api.md):
 *
 *   GET    /ufmRest/app/ufm_version              the plugin's liveness check
 *   GET    /ufmRest/resources/pkeys[/]?guids_data=true   every P_Key
 *   GET    /ufmRest/resources/pkeys/0x1234[?guids_data=true]  one (404)
 *   POST   /ufmRest/resources/pkeys[/]           add GUIDs (the P_Key made if new)
 *   POST   /ufmRest/resources/pkeys/add          make a P_Key (GUIDs optional)
 *   POST   /ufmRest/actions/remove_guids_from_pkey  remove GUIDs
 *   PUT    /ufmRest/resources/pkeys/qos_conf     mtu_limit, rate_limit, service_level
 *   DELETE /ufmRest/resources/pkeys/0x1234       delete the P_Key
 */
#ifndef IBSMD_HTTP_PKEYS_H
#define IBSMD_HTTP_PKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct api;

struct http_pkeys_req {
	const char *method; /* GET, HEAD, POST, PUT, DELETE */
	const char *path;   /* decoded, under /ufmRest/ */
	const char *query;  /* raw, NULL when none */
	const char *body;   /* body_len bytes (not NUL-terminated) */
	size_t body_len;
	const char *who; /* for the audit line: "alice via https 10.0.0.5:41234" */
};

/* Whether the route is a write (POST, PUT, DELETE): it needs an admin. */
bool http_pkeys_is_write(const struct http_pkeys_req *r);

/*
 * Answer r: the HTTP status (200, 400, 404, 405, 409, 413, 500, 503) with
 * *ret_reason and *ret_body (a new reference: the answer, or
 * {"ok": false, "error": {"code", "message"}}).
 */
int http_pkeys_answer(struct api *api, const struct http_pkeys_req *r, const char **ret_reason,
		      json_t **ret_body);

#endif

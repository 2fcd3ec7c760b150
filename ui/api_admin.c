/*
 * The control API's orders (docs/protocol.md): sweep, reroute, priority,
 * handover, port disable|enable, loglevel.  Admin commands: ui/ctl.c has checked the
 * peer's credentials before a handler runs.  An order that waits for the
 * fabric (a sweep, a port Set) is answered later with ctl_server_reply().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "failover/smstate.h"
#include "perf/health.h"
#include "sm/port.h"
#include "ui/api_int.h"
#include "validate/validate.h"

json_t *api_sweep_json(const struct sm *sm)
{
	const struct sweep_summary *s = &sm->last;

	return json_pack("{s:s, s:s, s:b, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:f,"
			 " s:i, s:i, s:i, s:i, s:i, s:s}",
			 "status", s->status ? "failed" : "ok", "reason", s->reason, "subnet_up",
			 sm->subnet_up, "sweeps", (json_int_t)sm->sweeps, "generation",
			 (json_int_t)(sm->snap ? sm->snap->generation : 0), "nodes", (int)s->nodes,
			 "switches", (int)s->switches, "cas", (int)s->cas, "links", (int)s->links,
			 "ports_active", (int)s->ports_active, "lids", (int)s->lids, "ms", s->ms,
			 "discover_ms", s->discover_ms, "route_ms", s->route_ms, "sets",
			 (int)s->sets, "set_errors", (int)s->set_errors, "lft_blocks",
			 (int)s->lft_blocks, "lft_reads", (int)s->lft_reads, "timeouts",
			 (int)s->timeouts, "engine", s->engine);
}

static int api_waiter_add(struct api *api, uint64_t client_id, uint64_t target)
{
	if (api->n_waiters == api->cap_waiters) {
		size_t cap = api->cap_waiters ? api->cap_waiters * 2 : 8;
		struct api_waiter *w = realloc(api->waiters, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		api->waiters = w;
		api->cap_waiters = cap;
	}
	api->waiters[api->n_waiters++] = (struct api_waiter){client_id, target};
	return 0;
}

static int api_do_sweep(struct api *api, struct ctl_client *c, json_t *args, json_t **ret,
			struct ctl_error *err, bool reroute)
{
	static const char *const names[] = {"wait", NULL};
	struct sm *sm = api->sm;
	json_t *jwait = json_object_get(args, "wait");
	/* a sweep already running saw the fabric before the order: wait for the next */
	uint64_t target = sm->sweeps + (sweep_running(sm) && !api->in_publish ? 2 : 1);
	int r;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jwait && !json_is_boolean(jwait))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "wait must be true or false");
	if (sm->state == SM_STANDBY)
		return ctl_error_set(err, CTL_ERR_NOT_READY,
				     "this SM is STANDBY: sweep on the master");
	if ((!jwait || json_is_true(jwait)) && api_waiter_add(api, ctl_client_id(c), target) < 0)
		return -ENOMEM;
	if (reroute)
		sweep_force_lft(sm);
	r = sweep_start_why(sm, reroute ? "reroute over the control socket"
					: "sweep over the control socket");
	if (r < 0) {
		if (!jwait || json_is_true(jwait))
			api->n_waiters--;
		return ctl_error_set(err, CTL_ERR_INTERNAL, "cannot start a sweep: %s",
				     strerror(-r));
	}
	log_info("%s requested over the control socket (pid %d uid %u)",
		 reroute ? "reroute" : "heavy sweep", (int)ctl_client_pid(c),
		 (unsigned)ctl_client_uid(c));
	if (jwait && json_is_false(jwait)) {
		*ret = json_pack("{s:b}", "queued", 1);
		return *ret ? 0 : -ENOMEM;
	}
	return CTL_DEFERRED;
}

int api_sweep(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	return api_do_sweep(ctx, c, args, ret, err, false);
}

int api_reroute(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	return api_do_sweep(ctx, c, args, ret, err, true);
}

/* A port disable/enable waiting for its Set to complete. */
struct api_port_wait {
	struct api *api;
	uint64_t client_id;
	uint64_t guid;
	uint8_t port;
	bool enable;
};

static void api_port_done(void *arg, int status)
{
	struct api_port_wait *w = arg;
	struct ctl_error e;

	if (status == -ECANCELED) {
		free(w);
		return;
	}
	if (status < 0) {
		ctl_error_set(&e, CTL_ERR_INTERNAL, "port 0x%016llx/%u: the Set failed: %s",
			      (unsigned long long)w->guid, w->port, strerror(-status));
		ctl_server_reply(w->api->srv, w->client_id, NULL, &e);
	} else {
		/* an operator's enable ends a quarantine (perf/health.c) */
		if (w->enable) {
			health_forget(w->api->sm, w->guid, w->port);
			validate_forget(w->api->sm, w->guid, w->port);
		}
		ctl_server_reply(w->api->srv, w->client_id,
				 json_pack("{s:o, s:i, s:s}", "node_guid", api_guid(w->guid),
					   "port", w->port, "state",
					   w->enable ? "enabled" : "disabled"),
				 NULL);
	}
	free(w);
}

/*
 * port {"action": "disable"|"enable", "node": ID, "port": N}: set the port's
 * PortPhysicalState to Disabled or Polling; the reply comes once the switch
 * has answered, and a sweep follows.
 */
int api_port(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"action", "node", "port", NULL};
	struct api *api = ctx;
	const struct snapshot *snap = api->sm->snap;
	const struct fabric *f = snap ? snap->fabric : NULL;
	const char *action = json_string_value(json_object_get(args, "action"));
	json_t *jport = json_object_get(args, "port");
	struct api_port_wait *w;
	uint32_t ni;
	uint8_t pn;
	bool enable;
	int r;

	if (api_check_args(args, names, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (!action || (strcmp(action, "disable") && strcmp(action, "enable")))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "action must be \"disable\" or \"enable\"");
	enable = !strcmp(action, "enable");
	if (!json_object_get(args, "node"))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "missing \"node\" (GUID, LID or node description)");
	if (api_resolve(snap, json_object_get(args, "node"), "node", &ni, &pn, err))
		return -EINVAL;
	if (!json_is_integer(jport) || json_integer_value(jport) < 1 ||
	    json_integer_value(jport) > f->nodes[ni].nports)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "port must be an integer from 1 to %u for \"%s\"",
				     f->nodes[ni].nports, f->nodes[ni].desc);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct api_port_wait){api, ctl_client_id(c), f->nodes[ni].guid,
				    (uint8_t)json_integer_value(jport), enable};
	r = port_set_enabled(api->sm, w->guid, w->port, enable, api_port_done, w);
	if (r < 0) {
		free(w);
		if (r == -EPERM)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "port 0x%016llx/%u carries the SM's own link",
					     (unsigned long long)f->nodes[ni].guid,
					     (unsigned)json_integer_value(jport));
		if (r == -ENOENT)
			return ctl_error_set(
			    err, CTL_ERR_NOT_FOUND, "no route to port %u of \"%s\"",
			    (unsigned)json_integer_value(jport), f->nodes[ni].desc);
		return ctl_error_set(err, CTL_ERR_INTERNAL, "%s", strerror(-r));
	}
	log_info("port 0x%016llx/%u: %s requested (pid %d uid %u)", (unsigned long long)w->guid,
		 w->port, action, (int)ctl_client_pid(c), (unsigned)ctl_client_uid(c));
	(void)ret;
	(void)pn;
	return CTL_DEFERRED;
}

int api_priority(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"priority", NULL};
	struct api *api = ctx;
	json_t *v = json_object_get(args, "priority");
	int prev = api->sm->conf.sm_priority;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 15)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "priority must be an integer from 0 to 15");
	api->sm->conf.sm_priority = (int)json_integer_value(v);
	log_info("SM priority %d -> %d (pid %d uid %u)", prev, api->sm->conf.sm_priority,
		 (int)ctl_client_pid(c), (unsigned)ctl_client_uid(c));
	if (prev != api->sm->conf.sm_priority) {
		struct sm_conf old = api->sm->conf;
		char why[256];

		old.sm_priority = prev;
		if (sm_conf_changed(api->sm, "sm_priority", &old, why, sizeof(why)) < 0)
			log_msg(LOG_CAT_CTL, LOG_DEBUG, "priority: %s", why);
	}
	*ret = json_pack("{s:i, s:i}", "priority", api->sm->conf.sm_priority, "previous", prev);
	return *ret ? 0 : -ENOMEM;
}

/*
 * handover {"guid": GUID}: a master hands the subnet over to that standby SM
 * (without guid: the best one it knows), lowering its own priority when that
 * SM would not win the election otherwise.  Answered at once; the handover
 * itself is logged and seen in status and events.
 */
int api_handover(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"guid", NULL};
	struct api *api = ctx;
	struct sm *sm = api->sm;
	json_t *jg = json_object_get(args, "guid");
	int prev = sm->conf.sm_priority;
	uint64_t guid = 0;
	char why[256], *end;
	int r;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (jg) {
		const char *gs = json_string_value(jg);

		errno = 0;
		guid = gs ? strtoull(gs, &end, 16) : 0;
		if (!gs || !*gs || *end || errno || !guid)
			return ctl_error_set(
			    err, CTL_ERR_BAD_ARGUMENT,
			    "guid must be a port GUID like \"0x0002c90300000001\"");
	}
	r = smstate_handover_order(sm, guid, why, sizeof(why));
	if (r == -EPERM || r == -EBUSY)
		return ctl_error_set(err, CTL_ERR_NOT_READY, "%s", why);
	if (r == -ENOENT)
		return ctl_error_set(err, CTL_ERR_NOT_FOUND, "%s", why);
	if (r < 0)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "%s", why);
	log_info("handover to SM %s ordered (pid %d uid %u)", why, (int)ctl_client_pid(c),
		 (unsigned)ctl_client_uid(c));
	*ret = json_pack("{s:s, s:i, s:i}", "target", why, "priority", sm->conf.sm_priority,
			 "previous_priority", prev);
	return *ret ? 0 : -ENOMEM;
}

int api_loglevel(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	static const char *const names[] = {"category", "level", NULL};
	const char *cat_s = json_string_value(json_object_get(args, "category"));
	const char *lvl_s = json_string_value(json_object_get(args, "level"));
	int cat, lvl, prev;

	if (api_check_args(args, names, err))
		return -EINVAL;
	if (!cat_s)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "category must be sweep, mad, route, sa, ctl or all");
	if (!strcmp(cat_s, "all")) {
		cat = -1;
	} else {
		cat = log_cat_from_str(cat_s);
		if (cat < 0)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "unknown category '%.32s': sweep, mad, route, sa, "
					     "ctl or all",
					     cat_s);
	}
	lvl = lvl_s ? log_level_from_str(lvl_s) : -1;
	if (lvl != LOG_ERR && lvl != LOG_WARNING && lvl != LOG_INFO && lvl != LOG_DEBUG)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "level must be error, warning, info or debug");
	prev = log_get_level(cat < 0 ? LOG_CAT_SWEEP : cat);
	log_set_level(cat, lvl);
	log_info("log level of %s: %s -> %s (pid %d uid %u)", cat < 0 ? "all" : log_cat_str(cat),
		 log_level_str(prev), log_level_str(lvl), (int)ctl_client_pid(c),
		 (unsigned)ctl_client_uid(c));
	*ret = json_pack("{s:s, s:s, s:s}", "category", cat < 0 ? "all" : log_cat_str(cat), "level",
			 log_level_str(lvl), "previous", log_level_str(prev));
	return *ret ? 0 : -ENOMEM;
}

void api_admin_published(struct api *api)
{
	struct sm *sm = api->sm;
	struct api_waiter *w = api->waiters;
	size_t i, n = api->n_waiters;

	/*
	 * A reply lets ctl run the client's next queued request at once, which
	 * may be another sweep: take the list out before answering.
	 */
	api->waiters = NULL;
	api->n_waiters = api->cap_waiters = 0;
	api->in_publish = true;
	for (i = 0; i < n; i++) {
		if (sm->sweeps < w[i].target &&
		    api_waiter_add(api, w[i].client_id, w[i].target) < 0) {
			struct ctl_error e = {CTL_ERR_INTERNAL, "out of memory"};

			ctl_server_reply(api->srv, w[i].client_id, NULL, &e);
		}
	}
	for (i = 0; i < n; i++)
		if (sm->sweeps >= w[i].target)
			ctl_server_reply(api->srv, w[i].client_id, api_sweep_json(sm), NULL);
	api->in_publish = false;
	free(w);
}

void api_admin_free(struct api *api)
{
	free(api->waiters);
	api->waiters = NULL;
	api->n_waiters = api->cap_waiters = 0;
}

/*
 * The daemon's control API (see api.h, api_int.h and docs/protocol.md): its
 * life cycle (the command table served by ui/ctl.c is in api_commands.c).  Handlers answer
 * from the SM's published snapshot (sm->snap, sm->last), which nothing
 * changes once published, so every reply is self-consistent; they live in
 * api_views.c (read), api_admin.c (orders) and metrics.c; events.c turns
 * sweeps and snapshot changes into events.  Everything runs on the loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/log.h"
#include "ui/api.h"
#include "ui/api_int.h"
#include "ui/http.h"

/* ---- life cycle --------------------------------------------------------- */

/* SIGHUP changed admin_group: peers are judged by the new group from now on. */
static int api_apply_admin_group(void *ctx, struct sm *sm, const char *key,
				 const struct sm_conf *old, char *err, size_t err_len)
{
	struct api *api = ctx;

	return ctl_server_set_admin_group(api->srv, sm->conf.admin_group, err, err_len);
}

/* The SM published a snapshot: events first, then the clients waiting for it. */
static void api_on_publish(void *arg, const void *data)
{
	struct api *api = arg;

	events_published(api, data);
	api_admin_published(api);
}

/* mkdir -p of the directory holding path (0755). */
static int api_mkdir_parent(const char *path, char *err, size_t err_len)
{
	char dir[CONF_PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			snprintf(err, err_len, "cannot create %s for the control socket: %s", dir,
				 strerror(e));
			return -e;
		}
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

int api_start(struct sm *sm, struct api **ret, char *err, size_t err_len)
{
	struct ctl_opts opts;
	struct api *api;
	char cerr[256] = "";
	int r;

	*ret = NULL;
	if (!sm->conf.socket_path[0]) {
		snprintf(err, err_len, "no control socket path (socket_path)");
		return -EINVAL;
	}
	api = calloc(1, sizeof(*api));
	if (!api) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	api->sm = sm;
	api->last_subnet_up = sm->subnet_up;
	clock_gettime(CLOCK_MONOTONIC, &api->started);
	{
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		api->started_unix = rt.tv_sec + rt.tv_nsec / 1e9;
	}
	r = api_mkdir_parent(sm->conf.socket_path, err, err_len);
	if (r < 0)
		goto err_free;
	ctl_opts_init(&opts);
	opts.path = sm->conf.socket_path;
	opts.socket_group = sm->conf.socket_group;
	opts.admin_group = sm->conf.admin_group;
	api->srv = ctl_server_new(sm->base, &opts, api_command_table(), api, cerr, sizeof(cerr));
	if (!api->srv) {
		snprintf(err, err_len, "control socket %s: %s", sm->conf.socket_path,
			 cerr[0] ? cerr : "cannot create it");
		r = -EINVAL;
		goto err_free;
	}
	if (hook_add(&sm->hooks.published, api_on_publish, api) < 0 ||
	    sm_conf_applier_add(sm, "admin_group", api_apply_admin_group, api) < 0) {
		hook_remove(&sm->hooks.published, api_on_publish, api);
		ctl_server_free(api->srv);
		snprintf(err, err_len, "out of memory");
		r = -ENOMEM;
		goto err_free;
	}
	events_attach(api);
	r = http_start(api, err, err_len);
	if (r < 0) {
		api_free(api);
		return r;
	}
	log_msg(LOG_CAT_CTL, LOG_DEBUG, "control socket %s", sm->conf.socket_path);
	*ret = api;
	return 0;
err_free:
	free(api);
	return r;
}

void api_free(struct api *api)
{
	if (!api)
		return;
	http_free(api->http);
	api->http = NULL;
	http_free(api->http_sync);
	api->http_sync = NULL;
	hook_remove(&api->sm->hooks.published, api_on_publish, api);
	sm_conf_applier_remove(api->sm, "admin_group", api_apply_admin_group, api);
	events_detach(api);
	ctl_server_free(api->srv);
	api_admin_free(api);
	free(api);
}

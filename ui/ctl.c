/*
 * The control socket server (see ctl.h and docs/protocol.md): the listening
 * AF_UNIX socket, the command table and what one request line means
 * (parse, look up, check the peer's right, call the handler, reply), events
 * to subscribers and deferred replies.  The connections themselves, their
 * buffers, limits and deadlines, are ctl_client.c's.
 */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "lib/log.h"
#include "ui/ctl_int.h"

int ctl_error_set(struct ctl_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	snprintf(err->code, sizeof(err->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void ctl_opts_init(struct ctl_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_request = CTL_DEF_MAX_REQUEST;
	opts->max_clients = CTL_DEF_MAX_CLIENTS;
	opts->max_output = CTL_DEF_MAX_OUTPUT;
	opts->admin_uid_override = -1;
}

/* ---- requests --------------------------------------------------------- */

static const struct ctl_command *server_find(const struct ctl_server *srv, const char *name)
{
	const struct ctl_command *cmd;

	for (cmd = srv->cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, name))
			return cmd;
	return NULL;
}

/* The built-in "help" (unless the table has its own): every command. */
static json_t *server_help(const struct ctl_server *srv)
{
	const struct ctl_command *cmd;
	json_t *list = json_array();

	for (cmd = srv->cmds; list && cmd->name; cmd++)
		json_array_append_new(list, json_pack("{s:s, s:b, s:s}", "name", cmd->name, "admin",
						      cmd->admin, "args",
						      cmd->args_help ? cmd->args_help : ""));
	return list;
}

void ctl_server_handle_line(struct ctl_client *c, const char *line, size_t len)
{
	struct ctl_server *srv = c->srv;
	const struct ctl_command *cmd;
	struct ctl_error err = {"", ""};
	json_t *req, *jcmd, *args, *id = NULL, *result = NULL;
	json_error_t jerr;
	const char *key;
	json_t *val;
	char msg[256];
	int r;

	srv->stats.requests++;
	req = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!req) {
		snprintf(msg, sizeof(msg), "column %d: %s", jerr.column, jerr.text);
		ctl_client_send_error(c, NULL, CTL_ERR_BAD_JSON, msg);
		return;
	}
	if (!json_is_object(req)) {
		ctl_client_send_error(c, NULL, CTL_ERR_BAD_REQUEST,
				      "request must be a JSON object");
		goto out_req;
	}
	id = json_object_get(req, "id");
	json_object_foreach (req, key, val) {
		if (strcmp(key, "cmd") && strcmp(key, "args") && strcmp(key, "id")) {
			snprintf(msg, sizeof(msg), "unknown request member '%.64s'", key);
			ctl_client_send_error(c, id, CTL_ERR_BAD_REQUEST, msg);
			goto out_req;
		}
	}
	jcmd = json_object_get(req, "cmd");
	if (!json_is_string(jcmd)) {
		ctl_client_send_error(c, id, CTL_ERR_BAD_REQUEST, "\"cmd\" must be a string");
		goto out_req;
	}
	args = json_object_get(req, "args");
	if (json_is_null(args))
		args = NULL;
	if (args && !json_is_object(args)) {
		ctl_client_send_error(c, id, CTL_ERR_BAD_REQUEST, "\"args\" must be an object");
		goto out_req;
	}
	cmd = server_find(srv, json_string_value(jcmd));
	if (!cmd && !strcmp(json_string_value(jcmd), "help")) {
		ctl_client_send_result(c, id, server_help(srv));
		goto out_req;
	}
	if (!cmd) {
		snprintf(msg, sizeof(msg), "no command '%.64s' (try \"help\")",
			 json_string_value(jcmd));
		ctl_client_send_error(c, id, CTL_ERR_UNKNOWN_COMMAND, msg);
		goto out_req;
	}
	if (cmd->admin && !c->admin) {
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: refused '%s' to pid %d uid %u: not an admin", cmd->name,
				(int)c->pid, (unsigned)c->uid);
		snprintf(
		    msg, sizeof(msg),
		    "'%s' changes the fabric: run it as root or as a member of the admin group",
		    cmd->name);
		ctl_client_send_error(c, id, CTL_ERR_PERMISSION_DENIED, msg);
		goto out_req;
	}
	log_debug(LOG_CAT_CTL, "ctl: pid %d uid %u: %s", (int)c->pid, (unsigned)c->uid, cmd->name);
	r = cmd->fn(srv->ctx, c, args, &result, &err);
	if (r == CTL_DEFERRED) {
		json_decref(result);
		c->pending = true;
		c->pending_id = json_incref(id);
	} else if (r < 0) {
		json_decref(result);
		if (!err.code[0]) {
			snprintf(err.code, sizeof(err.code), "%s", CTL_ERR_INTERNAL);
			snprintf(err.message, sizeof(err.message), "%s: %s", cmd->name,
				 strerror(r < -1 ? -r : EIO));
		}
		ctl_client_send_error(c, id, err.code, err.message);
	} else {
		ctl_client_send_result(c, id, result); /* steals result */
	}
out_req:
	json_decref(req);
}

static void listener_error_cb(struct evconnlistener *lev, void *arg)
{
	int e = EVUTIL_SOCKET_ERROR();

	/* EMFILE and friends: keep listening, the next accept may succeed. */
	log_ratelimited(LOG_CAT_CTL, LOG_WARNING, "ctl: accept: %s", strerror(e));
}

/* ---- socket setup ----------------------------------------------------- */

/* 0 if nothing answers at path (stale or absent), -EADDRINUSE if something does. */
static int socket_probe(const struct sockaddr_un *sun)
{
	int fd, r;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	return r == 0 ? -EADDRINUSE : 0;
}

static int server_listen(struct ctl_server *srv, const struct ctl_opts *opts, char *err,
			 size_t err_len)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	gid_t sock_gid = (gid_t)-1;
	mode_t old_mask;
	int fd, r;

	if (opts->socket_group && opts->socket_group[0]) {
		struct group gr, *grp = NULL;
		char buf[4096];

		if (getgrnam_r(opts->socket_group, &gr, buf, sizeof(buf), &grp) || !grp) {
			snprintf(err, err_len, "socket group '%s' does not exist",
				 opts->socket_group);
			return -ENOENT;
		}
		sock_gid = grp->gr_gid;
	}
	memcpy(sun.sun_path, srv->path, strlen(srv->path) + 1);
	if (socket_probe(&sun) == -EADDRINUSE) {
		snprintf(err, err_len,
			 "%s: another process is serving this socket (is ibsmd already running?)",
			 srv->path);
		return -EADDRINUSE;
	}
	/* replace only a stale socket: never a file, a directory or a link someone named */
	{
		struct stat st;

		if (lstat(srv->path, &st) == 0) {
			if (!S_ISSOCK(st.st_mode)) {
				snprintf(err, err_len,
					 "%s exists and is not a socket: not replacing it (choose "
					 "another socket_path or remove it)",
					 srv->path);
				return -EEXIST;
			}
			if (unlink(srv->path) < 0 && errno != ENOENT) {
				r = -errno;
				snprintf(err, err_len, "cannot remove the stale socket %s: %s",
					 srv->path, strerror(errno));
				return r;
			}
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return r;
	}
	old_mask = umask(0117); /* born 0660: no window with a wider mode */
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old_mask);
	if (r < 0) {
		r = -errno;
		snprintf(err, err_len, "bind %s: %s", srv->path, strerror(errno));
		goto err_close;
	}
	if (sock_gid != (gid_t)-1 && chown(srv->path, (uid_t)-1, sock_gid) < 0) {
		r = -errno;
		snprintf(err, err_len, "chgrp %s %s: %s", opts->socket_group, srv->path,
			 strerror(errno));
		goto err_unlink;
	}
	if (chmod(srv->path, 0660) < 0) {
		r = -errno;
		snprintf(err, err_len, "chmod %s: %s", srv->path, strerror(errno));
		goto err_unlink;
	}
	srv->listener = evconnlistener_new(srv->base, ctl_client_accept_cb, srv,
					   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 64, fd);
	if (!srv->listener) {
		r = errno ? -errno : -ENOMEM;
		snprintf(err, err_len, "listen %s: %s", srv->path, strerror(-r));
		goto err_unlink;
	}
	evconnlistener_set_error_cb(srv->listener, listener_error_cb);
	return 0;
err_unlink:
	unlink(srv->path);
err_close:
	close(fd);
	return r;
}

struct ctl_server *ctl_server_new(struct event_base *base, const struct ctl_opts *opts,
				  const struct ctl_command *cmds, void *ctx, char *err,
				  size_t err_len)
{
	struct ctl_server *srv;

	if (!opts->path || !opts->path[0]) {
		snprintf(err, err_len, "no control socket path");
		return NULL;
	}
	if (strlen(opts->path) >= sizeof(srv->path)) {
		snprintf(err, err_len, "%s: socket path longer than %zu bytes", opts->path,
			 sizeof(srv->path) - 1);
		return NULL;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	srv->base = base;
	srv->cmds = cmds;
	srv->ctx = ctx;
	srv->handle_line = ctl_server_handle_line;
	snprintf(srv->path, sizeof(srv->path), "%s", opts->path);
	srv->max_request = opts->max_request ? opts->max_request : CTL_DEF_MAX_REQUEST;
	srv->max_clients = opts->max_clients ? opts->max_clients : CTL_DEF_MAX_CLIENTS;
	srv->max_output = opts->max_output ? opts->max_output : CTL_DEF_MAX_OUTPUT;
	srv->stall_ms = opts->stall_ms ? opts->stall_ms : CTL_DEF_STALL_MS;
	srv->max_message = opts->max_message ? opts->max_message : CTL_MAX_MESSAGE;
	srv->admin_uid_override = opts->admin_uid_override;
	srv->request_ms = opts->request_ms ? opts->request_ms : CTL_DEF_REQUEST_MS;
	srv->idle_ms = opts->idle_ms ? opts->idle_ms : CTL_DEF_IDLE_MS;
	srv->max_per_uid = opts->max_per_uid ? opts->max_per_uid : CTL_DEF_MAX_PER_UID;
	srv->admin_reserved = opts->admin_reserved ? opts->admin_reserved : CTL_DEF_ADMIN_RESERVED;
	if (srv->admin_reserved >= srv->max_clients)
		srv->admin_reserved = srv->max_clients - 1;
	if (ctl_server_set_admin_group(srv, opts->admin_group, err, err_len) < 0)
		goto err_free;
	srv->reaper = event_new(base, -1, 0, ctl_client_reap_cb, srv);
	if (!srv->reaper) {
		snprintf(err, err_len, "out of memory");
		goto err_free;
	}
	if (server_listen(srv, opts, err, err_len) < 0)
		goto err_reaper;
	return srv;
err_reaper:
	event_free(srv->reaper);
err_free:
	free(srv);
	return NULL;
}

int ctl_server_set_admin_group(struct ctl_server *srv, const char *group, char *err, size_t err_len)
{
	struct group gr, *grp = NULL;
	char buf[4096];

	if (!group || !group[0]) {
		srv->have_admin_gid = false;
	} else {
		if (getgrnam_r(group, &gr, buf, sizeof(buf), &grp) || !grp) {
			snprintf(err, err_len, "admin group '%s' does not exist", group);
			return -ENOENT;
		}
		srv->admin_gid = grp->gr_gid;
		srv->have_admin_gid = true;
	}
	/* connected peers are judged again by the new rule */
	for (struct ctl_client *c = srv->clients; c; c = c->next)
		c->admin = ctl_client_peer_is_admin(srv, c->pid, c->uid, c->gid);
	return 0;
}

void ctl_server_free(struct ctl_server *srv)
{
	if (!srv)
		return;
	if (srv->listener) {
		evconnlistener_free(srv->listener);
		unlink(srv->path); /* ours: we bound it */
	}
	ctl_client_free_all(&srv->clients);
	ctl_client_free_all(&srv->dead);
	event_free(srv->reaper);
	free(srv);
}

/* ---- events and deferred replies ------------------------------------- */

int ctl_server_publish(struct ctl_server *srv, json_t *event)
{
	struct ctl_client *c, *next;
	json_t *msg;
	int n = 0;

	if (!srv->stats.subscribers)
		return 0;
	msg = json_pack("{s:O}", "event", event);
	if (!msg)
		return -ENOMEM;
	srv->stats.events++;
	for (c = srv->clients; c; c = next) {
		next = c->next; /* ctl_client_send may move c to the dead list */
		if (c->subscribed && !c->closing && ctl_client_send(c, msg) == 0)
			n++;
	}
	json_decref(msg);
	return n;
}

int ctl_server_reply(struct ctl_server *srv, uint64_t client_id, json_t *result,
		     const struct ctl_error *err)
{
	struct ctl_client *c;
	json_t *id;

	for (c = srv->clients; c; c = c->next)
		if (c->id == client_id)
			break;
	if (!c || !c->pending) {
		json_decref(result);
		return -ENOENT;
	}
	id = c->pending_id;
	c->pending_id = NULL;
	c->pending = false;
	if (err) {
		json_decref(result);
		ctl_client_send_error(c, id, err->code[0] ? err->code : CTL_ERR_INTERNAL,
				      err->message);
	} else {
		ctl_client_send_result(c, id, result);
	}
	json_decref(id);
	if (c->eof)
		ctl_client_finish(c);
	else
		ctl_client_process(c); /* requests that queued up meanwhile */
	ctl_client_arm(c);
	return 0;
}

void ctl_server_stats(const struct ctl_server *srv, struct ctl_stats *ret_stats)
{
	*ret_stats = srv->stats;
}
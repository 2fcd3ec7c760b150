/*
 * The control socket server (see ctl.h and docs/protocol.md).
 *
 * Owns the listening AF_UNIX socket and one bufferevent per client.  Reads are
 * bounded by a high read watermark of max_request + 1 bytes, so a client can
 * never make us buffer more than one request; output is bounded by
 * max_output, past which the client is dropped, so a client that stops
 * reading never blocks the loop nor grows our memory.  The limit is on what
 * was still unread when a message is added, so one reply larger than it (the
 * counters or ports of a large fabric) goes out whole, up to
 * CTL_MAX_MESSAGE; past that the client gets a reply_too_large error.  A
 * client that reads nothing of its queued output for stall_ms is dropped.
 *
 * A client is never freed from inside a callback that may still touch it:
 * client_drop() marks it dead and detaches it, and a reaper event frees it on
 * the next loop iteration.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/log.h"
#include "ui/ctl.h"
#include "ui/peer.h"

#define CTL_DEF_MAX_REQUEST (64 * 1024)
#define CTL_DEF_MAX_CLIENTS 64
#define CTL_DEF_MAX_OUTPUT (1024 * 1024)
#define CTL_CLOSE_TIMEOUT_S 5
#define CTL_DEF_STALL_MS 60000		     /* no reading progress with output queued */
#define CTL_MAX_MESSAGE (256u * 1024 * 1024) /* one encoded message at most */
#define CTL_DEF_REQUEST_MS 5000
#define CTL_DEF_IDLE_MS 60000
#define CTL_DEF_MAX_PER_UID 16
#define CTL_DEF_ADMIN_RESERVED 8

struct ctl_client {
	struct ctl_server *srv;
	struct ctl_client *prev, *next; /* srv->clients or srv->dead */
	struct bufferevent *bev;
	uint64_t id;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool admin;
	bool subscribed;
	bool pending; /* a deferred reply is outstanding */
	json_t *pending_id;
	bool eof;     /* the peer shut down its side: answer, flush, close */
	bool closing; /* flush output, then close */
	bool dead;    /* detached, waiting for the reaper */
	/* the one deadline a client has: its request's (in_request) or its idleness */
	struct event *timer;
	bool in_request; /* bytes of a request buffered: the request deadline runs */
};

struct ctl_server {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *reaper;
	const struct ctl_command *cmds;
	void *ctx;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t max_request;
	unsigned max_clients;
	size_t max_output;
	unsigned stall_ms;
	size_t max_message;
	unsigned request_ms, idle_ms, max_per_uid, admin_reserved;
	bool have_admin_gid;
	gid_t admin_gid;
	long admin_uid_override;
	struct ctl_client *clients;
	struct ctl_client *dead;
	uint64_t next_id;
	struct ctl_stats stats;
};

static void client_process(struct ctl_client *c);

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

/* ---- client list ------------------------------------------------------ */

static void list_add(struct ctl_client **head, struct ctl_client *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

static void list_del(struct ctl_client **head, struct ctl_client *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void client_free(struct ctl_client *c)
{
	if (!c)
		return;
	if (c->bev)
		bufferevent_free(c->bev);
	if (c->timer)
		event_free(c->timer);
	json_decref(c->pending_id);
	free(c);
}

/* Detach c now, free it from the reaper.  Safe from any callback. */
static void client_drop(struct ctl_client *c, const char *why)
{
	struct ctl_server *srv = c->srv;

	if (c->dead)
		return;
	log_debug(LOG_CAT_CTL, "ctl: client %llu (pid %d uid %u): closing: %s",
		  (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid, why);
	c->dead = true;
	if (c->timer)
		evtimer_del(c->timer);
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	srv->stats.clients--;
	if (c->subscribed)
		srv->stats.subscribers--;
	list_del(&srv->clients, c);
	list_add(&srv->dead, c);
	event_active(srv->reaper, EV_TIMEOUT, 0);
}

static void reaper_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_server *srv = arg;
	struct ctl_client *c;

	while ((c = srv->dead)) {
		list_del(&srv->dead, c);
		client_free(c);
	}
}

/* ---- output ----------------------------------------------------------- */

struct dump_ctx {
	struct evbuffer *buf;
	size_t limit;
	bool over;
};

static int dump_cb(const char *buffer, size_t size, void *data)
{
	struct dump_ctx *d = data;

	if (evbuffer_get_length(d->buf) + size > d->limit) {
		d->over = true;
		return -1;
	}
	return evbuffer_add(d->buf, buffer, size);
}

/*
 * Queue one JSON line.  A reply may be as large as it needs to be (up to
 * CTL_MAX_MESSAGE): it is encoded straight into buffers that are then moved,
 * not copied, onto the client's output.  What bounds memory is what a client
 * leaves unread: one that has more than max_output queued when another
 * message comes (a subscriber that stopped reading), or makes no progress
 * reading for stall_timeout, is dropped.
 */
static int client_send(struct ctl_client *c, json_t *msg)
{
	struct dump_ctx d = {NULL, c->srv->max_message, false};
	struct evbuffer *out;
	size_t unread;
	int r;

	if (c->dead)
		return -ENOTCONN;
	out = bufferevent_get_output(c->bev);
	unread = evbuffer_get_length(out);
	if (unread > c->srv->max_output) {
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: client pid %d uid %u: dropped, %zu bytes unread", (int)c->pid,
				(unsigned)c->uid, unread);
		c->srv->stats.clients_dropped++;
		client_drop(c, "output over limit");
		return -ENOBUFS;
	}
	d.buf = evbuffer_new();
	if (!d.buf) {
		client_drop(c, "out of memory");
		c->srv->stats.clients_dropped++;
		return -ENOMEM;
	}
	r = json_dump_callback(msg, dump_cb, &d, JSON_COMPACT | JSON_ENCODE_ANY);
	if (r < 0 && d.over) {
		/* too large to send: say so instead (the caller's id is in msg) */
		json_t *err = json_pack(
		    "{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", CTL_ERR_TOO_LARGE, "message",
		    "the reply is larger than the control socket sends: ask for "
		    "less (filters, offset and limit)");

		evbuffer_free(d.buf);
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: client pid %d uid %u: a reply over %zu bytes was not sent",
				(int)c->pid, (unsigned)c->uid, c->srv->max_message);
		if (!err)
			return -ENOMEM;
		if (json_object_get(msg, "id"))
			json_object_set(err, "id", json_object_get(msg, "id"));
		c->srv->stats.errors++;
		r = client_send(c, err);
		json_decref(err);
		return r < 0 ? r : -EMSGSIZE;
	}
	if (r < 0 || evbuffer_add(d.buf, "\n", 1) < 0 || evbuffer_add_buffer(out, d.buf) < 0) {
		evbuffer_free(d.buf);
		client_drop(c, "out of memory");
		c->srv->stats.clients_dropped++;
		return -ENOMEM;
	}
	evbuffer_free(d.buf);
	return 0;
}

static void client_send_error(struct ctl_client *c, json_t *id, const char *code,
			      const char *message)
{
	json_t *msg;
	char ascii[512];
	size_t i;

	c->srv->stats.errors++;
	msg = json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", code, "message", message);
	if (!msg) {
		/* message quotes the client's bytes, not always whole UTF-8 characters */
		snprintf(ascii, sizeof(ascii), "%s", message);
		for (i = 0; ascii[i]; i++)
			if ((unsigned char)ascii[i] >= 0x80)
				ascii[i] = '?';
		msg = json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", code, "message",
				ascii);
	}
	if (!msg) {
		client_drop(c, "out of memory");
		return;
	}
	if (id)
		json_object_set(msg, "id", id);
	client_send(c, msg);
	json_decref(msg);
}

static void client_send_result(struct ctl_client *c, json_t *id, json_t *result)
{
	json_t *msg;

	msg = json_pack("{s:b, s:o}", "ok", 1, "result", result ? result : json_object());
	if (!msg) {
		client_drop(c, "out of memory");
		return;
	}
	if (id)
		json_object_set(msg, "id", id);
	client_send(c, msg);
	json_decref(msg);
}

/* Send a last error and close once it is flushed (or after a timeout). */
static void client_close_with_error(struct ctl_client *c, const char *code, const char *message)
{
	struct timeval tv = {CTL_CLOSE_TIMEOUT_S, 0};

	client_send_error(c, NULL, code, message);
	if (c->dead)
		return;
	c->closing = true;
	c->srv->stats.clients_dropped++;
	if (c->timer)
		evtimer_del(c->timer);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_set_timeouts(c->bev, NULL, &tv);
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

static void client_handle_line(struct ctl_client *c, const char *line, size_t len)
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
		client_send_error(c, NULL, CTL_ERR_BAD_JSON, msg);
		return;
	}
	if (!json_is_object(req)) {
		client_send_error(c, NULL, CTL_ERR_BAD_REQUEST, "request must be a JSON object");
		goto out_req;
	}
	id = json_object_get(req, "id");
	json_object_foreach (req, key, val) {
		if (strcmp(key, "cmd") && strcmp(key, "args") && strcmp(key, "id")) {
			snprintf(msg, sizeof(msg), "unknown request member '%.64s'", key);
			client_send_error(c, id, CTL_ERR_BAD_REQUEST, msg);
			goto out_req;
		}
	}
	jcmd = json_object_get(req, "cmd");
	if (!json_is_string(jcmd)) {
		client_send_error(c, id, CTL_ERR_BAD_REQUEST, "\"cmd\" must be a string");
		goto out_req;
	}
	args = json_object_get(req, "args");
	if (json_is_null(args))
		args = NULL;
	if (args && !json_is_object(args)) {
		client_send_error(c, id, CTL_ERR_BAD_REQUEST, "\"args\" must be an object");
		goto out_req;
	}
	cmd = server_find(srv, json_string_value(jcmd));
	if (!cmd && !strcmp(json_string_value(jcmd), "help")) {
		client_send_result(c, id, server_help(srv));
		goto out_req;
	}
	if (!cmd) {
		snprintf(msg, sizeof(msg), "no command '%.64s' (try \"help\")",
			 json_string_value(jcmd));
		client_send_error(c, id, CTL_ERR_UNKNOWN_COMMAND, msg);
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
		client_send_error(c, id, CTL_ERR_PERMISSION_DENIED, msg);
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
		client_send_error(c, id, err.code, err.message);
	} else {
		client_send_result(c, id, result); /* steals result */
	}
out_req:
	json_decref(req);
}

/* Handle every complete line buffered, unless a reply is pending. */
static void client_process(struct ctl_client *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct evbuffer_ptr eol;
	size_t len;
	char *line;

	while (!c->dead && !c->closing && !c->pending) {
		eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			if (evbuffer_get_length(in) > c->srv->max_request)
				goto too_large;
			return;
		}
		len = (size_t)eol.pos;
		if (len > c->srv->max_request)
			goto too_large;
		line = malloc(len + 1);
		if (!line) {
			client_drop(c, "out of memory");
			return;
		}
		evbuffer_remove(in, line, len + 1);
		c->in_request = false; /* what follows the newline is a new request */
		line[len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len)
			client_handle_line(c, line, len);
		free(line);
	}
	return;
too_large:
	log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
			"ctl: client pid %d uid %u: request over %zu bytes", (int)c->pid,
			(unsigned)c->uid, c->srv->max_request);
	c->srv->stats.requests++;
	evbuffer_drain(in, evbuffer_get_length(in));
	client_close_with_error(c, CTL_ERR_REQUEST_TOO_LARGE,
				"request line too long; the connection is closed");
}

static void ms_timeval(unsigned ms, struct timeval *tv)
{
	tv->tv_sec = (time_t)(ms / 1000);
	tv->tv_usec = (suseconds_t)(ms % 1000) * 1000;
}

/*
 * The client's deadline after whatever just happened.  Bytes of a request
 * buffered: the request deadline, from its first byte, so a request dripped
 * a byte at a time loses its slot; nothing buffered, nothing pending, not
 * subscribed: the idle deadline, from now.  A deferred reply, a subscriber
 * between requests, or a client already closing has none.
 */
static void client_arm(struct ctl_client *c)
{
	struct ctl_server *srv = c->srv;
	struct timeval tv;

	if (c->dead || !c->timer)
		return;
	if (c->closing || c->eof || c->pending) {
		evtimer_del(c->timer);
		return;
	}
	if (evbuffer_get_length(bufferevent_get_input(c->bev))) {
		if (!c->in_request) {
			c->in_request = true;
			ms_timeval(srv->request_ms, &tv);
			evtimer_add(c->timer, &tv);
		}
		return;
	}
	c->in_request = false;
	if (c->subscribed) {
		evtimer_del(c->timer);
		return;
	}
	ms_timeval(srv->idle_ms, &tv);
	evtimer_add(c->timer, &tv);
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_client *c = arg;
	struct ctl_server *srv = c->srv;
	char msg[96];

	if (c->dead || c->closing)
		return;
	if (c->in_request) {
		srv->stats.request_timeouts++;
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: client pid %d uid %u: request not complete within %u ms: "
				"closed",
				(int)c->pid, (unsigned)c->uid, srv->request_ms);
		snprintf(msg, sizeof(msg), "request not complete within %u ms; closed",
			 srv->request_ms);
	} else {
		srv->stats.idle_timeouts++;
		log_debug(LOG_CAT_CTL, "ctl: client %llu (pid %d uid %u): idle for %u ms: closed",
			  (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid, srv->idle_ms);
		snprintf(msg, sizeof(msg), "idle for %u ms; closed", srv->idle_ms);
	}
	evbuffer_drain(bufferevent_get_input(c->bev),
		       evbuffer_get_length(bufferevent_get_input(c->bev)));
	client_close_with_error(c, CTL_ERR_TIMEOUT, msg);
}

static void client_read_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *c = arg;

	if (c->dead)
		return;
	client_process(c);
	client_arm(c);
}

static void client_write_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *c = arg;

	if (!c->dead && c->closing)
		client_drop(c, "closed after error");
}

/* After EOF: answer what is buffered, then close once the output is flushed. */
static void client_finish(struct ctl_client *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct timeval tv = {CTL_CLOSE_TIMEOUT_S, 0};
	size_t len;
	char *line;

	client_process(c);
	if (c->dead || c->closing || c->pending)
		return;
	len = evbuffer_get_length(in);
	if (len > 0) {
		/* A last request without its newline (the input's end is frozen: copy it). */
		line = malloc(len + 1);
		if (!line) {
			client_drop(c, "out of memory");
			return;
		}
		evbuffer_remove(in, line, len);
		line[len] = '\0';
		if (line[len - 1] == '\r')
			line[--len] = '\0';
		if (len)
			client_handle_line(c, line, len);
		free(line);
		if (c->dead || c->closing || c->pending)
			return;
	}
	if (!evbuffer_get_length(bufferevent_get_output(c->bev))) {
		client_drop(c, "peer closed");
		return;
	}
	c->closing = true;
	bufferevent_set_timeouts(c->bev, NULL, &tv);
}

static void client_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_client *c = arg;

	if (c->dead)
		return;
	if (what & BEV_EVENT_EOF) {
		c->eof = true;
		bufferevent_disable(c->bev, EV_READ);
		client_finish(c);
	} else if (what & BEV_EVENT_TIMEOUT) {
		size_t unread = evbuffer_get_length(bufferevent_get_output(c->bev));

		c->srv->stats.clients_dropped++;
		if (!c->closing)
			log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
					"ctl: client pid %d uid %u: dropped, read nothing of %zu "
					"bytes for %u ms",
					(int)c->pid, (unsigned)c->uid, unread, c->srv->stall_ms);
		client_drop(c, c->closing ? "timeout" : "stalled reader");
	} else if (what & BEV_EVENT_ERROR) {
		client_drop(c, strerror(EVUTIL_SOCKET_ERROR()));
	}
}

/* ---- credentials ------------------------------------------------------ */

static bool server_peer_is_admin(const struct ctl_server *srv, pid_t pid, uid_t uid, gid_t gid)
{
	if (srv->admin_uid_override >= 0)
		return (long)uid == srv->admin_uid_override;
	if (uid == 0)
		return true;
	return srv->have_admin_gid && peer_in_group(pid, uid, gid, srv->admin_gid);
}

/* ---- accept ----------------------------------------------------------- */

static void reject_client(evutil_socket_t fd, const char *code, const char *message);

/*
 * A non-admin peer is refused when only the admin_reserved slots are left
 * (so a read-only user holding connections cannot lock root out) or when
 * its uid holds max_per_uid already.  true when fd was refused (and closed).
 */
static bool server_refuse_user(struct ctl_server *srv, uid_t uid, evutil_socket_t fd)
{
	unsigned mine = 0;

	if (srv->stats.clients + srv->admin_reserved >= srv->max_clients) {
		srv->stats.clients_rejected++;
		srv->stats.rejected_reserved++;
		log_ratelimited(
		    LOG_CAT_CTL, LOG_WARNING,
		    "ctl: %u clients, the last %u slots are for admins: refusing uid %u",
		    srv->stats.clients, srv->admin_reserved, (unsigned)uid);
		reject_client(fd, CTL_ERR_TOO_MANY_CLIENTS, "too many clients, try again later");
		return true;
	}
	for (const struct ctl_client *c = srv->clients; c; c = c->next)
		mine += c->uid == uid;
	if (mine >= srv->max_per_uid) {
		srv->stats.clients_rejected++;
		srv->stats.rejected_uid++;
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: uid %u holds %u connections already: refusing another",
				(unsigned)uid, mine);
		reject_client(fd, CTL_ERR_TOO_MANY_CLIENTS,
			      "too many connections of this user, try again later");
		return true;
	}
	return false;
}

static void reject_client(evutil_socket_t fd, const char *code, const char *message)
{
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "{\"ok\":false,\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}\n", code,
		     message);
	if (n > 0 && send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* nothing to do: the peer will see the close */
	}
	evutil_closesocket(fd);
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct ctl_server *srv = arg;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ctl_client *c;

	bool admin;

	if (srv->stats.clients >= srv->max_clients) {
		srv->stats.clients_rejected++;
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"ctl: too many clients (%u), refusing one", srv->stats.clients);
		reject_client(fd, CTL_ERR_TOO_MANY_CLIENTS, "too many clients, try again later");
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING, "ctl: SO_PEERCRED: %s", strerror(errno));
		reject_client(fd, CTL_ERR_INTERNAL, "cannot read peer credentials");
		return;
	}
	admin = server_peer_is_admin(srv, cred.pid, cred.uid, cred.gid);
	if (!admin && server_refuse_user(srv, cred.uid, fd))
		return;
	evutil_make_socket_nonblocking(fd);
	c = calloc(1, sizeof(*c));
	if (!c)
		goto err_close;
	c->bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		goto err_free;
	c->timer = evtimer_new(srv->base, client_timer_cb, c);
	if (!c->timer)
		goto err_bev;
	c->srv = srv;
	c->id = ++srv->next_id;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->admin = admin;
	bufferevent_setcb(c->bev, client_read_cb, client_write_cb, client_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, srv->max_request + 1);
	{
		/* the write timeout runs only while output waits: a reader that stalls */
		struct timeval stall = {(time_t)(srv->stall_ms / 1000),
					(suseconds_t)(srv->stall_ms % 1000) * 1000};

		bufferevent_set_timeouts(c->bev, NULL, &stall);
	}
	if (bufferevent_enable(c->bev, EV_READ | EV_WRITE) < 0)
		goto err_bev;
	list_add(&srv->clients, c);
	srv->stats.clients++;
	srv->stats.clients_accepted++;
	client_arm(c);
	log_debug(LOG_CAT_CTL, "ctl: client %llu: pid %d uid %u gid %u%s",
		  (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid, (unsigned)c->gid,
		  c->admin ? " (admin)" : "");
	return;
err_bev:
	if (c->timer)
		event_free(c->timer);
	bufferevent_free(c->bev); /* closes fd */
	free(c);
	return;
err_free:
	free(c);
err_close:
	evutil_closesocket(fd);
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
	srv->listener = evconnlistener_new(srv->base, accept_cb, srv,
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
	srv->reaper = event_new(base, -1, 0, reaper_cb, srv);
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
		c->admin = server_peer_is_admin(srv, c->pid, c->uid, c->gid);
	return 0;
}

void ctl_server_free(struct ctl_server *srv)
{
	struct ctl_client *c;

	if (!srv)
		return;
	if (srv->listener) {
		evconnlistener_free(srv->listener);
		unlink(srv->path); /* ours: we bound it */
	}
	while ((c = srv->clients)) {
		list_del(&srv->clients, c);
		client_free(c);
	}
	while ((c = srv->dead)) {
		list_del(&srv->dead, c);
		client_free(c);
	}
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
		next = c->next; /* client_send may move c to the dead list */
		if (c->subscribed && !c->closing && client_send(c, msg) == 0)
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
		client_send_error(c, id, err->code[0] ? err->code : CTL_ERR_INTERNAL, err->message);
	} else {
		client_send_result(c, id, result);
	}
	json_decref(id);
	if (c->eof)
		client_finish(c);
	else
		client_process(c); /* requests that queued up meanwhile */
	client_arm(c);
	return 0;
}

void ctl_server_stats(const struct ctl_server *srv, struct ctl_stats *ret_stats)
{
	*ret_stats = srv->stats;
}

void ctl_client_subscribe(struct ctl_client *c)
{
	if (c->subscribed || c->dead)
		return;
	c->subscribed = true;
	c->srv->stats.subscribers++;
	client_arm(c); /* no idle deadline for a subscriber */
}

uint64_t ctl_client_id(const struct ctl_client *c)
{
	return c->id;
}

uid_t ctl_client_uid(const struct ctl_client *c)
{
	return c->uid;
}

pid_t ctl_client_pid(const struct ctl_client *c)
{
	return c->pid;
}

bool ctl_client_is_admin(const struct ctl_client *c)
{
	return c->admin;
}

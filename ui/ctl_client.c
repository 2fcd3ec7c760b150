/*
 * The control socket's connections (see ctl.h, ctl_int.h and
 * docs/protocol.md): admission, one bufferevent per client, its limits and
 * deadlines, line framing, replies on the wire and closing.
 *
 * Admission: past max_clients every peer is refused, past max_clients -
 * admin_reserved every non-admin one, and a non-admin uid holding
 * max_per_uid connections gets no more.  Reads are bounded by a high read
 * watermark of max_request + 1 bytes, so a client can never make us buffer
 * more than one request; output is bounded by max_output, past which the
 * client is dropped, so a client that stops reading never blocks the loop
 * nor grows our memory.  The limit is on what was still unread when a
 * message is added, so one reply larger than it (the counters or ports of a
 * large fabric) goes out whole, up to max_message; past that the client
 * gets a reply_too_large error.  A client that reads nothing of its queued
 * output for stall_ms is dropped; one whose request takes longer than
 * request_ms from its first byte, or that sends nothing for idle_ms, is
 * closed with a timeout error.
 *
 * A client is never freed from inside a callback that may still touch it:
 * client_drop() marks it dead and detaches it, and a reaper event frees it on
 * the next loop iteration.  What a complete line means is the server's
 * (the server's handle_line: ctl_server_handle_line in ctl.c, so this file
 * calls nothing of ctl.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/log.h"
#include "ui/ctl_int.h"
#include "ui/peer.h"

/* ---- client list ------------------------------------------------------ */

static void ctl_client_list_add(struct ctl_client **head, struct ctl_client *c)
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
	ctl_client_list_add(&srv->dead, c);
	event_active(srv->reaper, EV_TIMEOUT, 0);
}

void ctl_client_reap_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_server *srv = arg;
	struct ctl_client *c;

	while ((c = srv->dead)) {
		list_del(&srv->dead, c);
		client_free(c);
	}
}

void ctl_client_free_all(struct ctl_client **head)
{
	struct ctl_client *c;

	while ((c = *head)) {
		list_del(head, c);
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
int ctl_client_send(struct ctl_client *c, json_t *msg)
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
		r = ctl_client_send(c, err);
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

void ctl_client_send_error(struct ctl_client *c, json_t *id, const char *code, const char *message)
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
	ctl_client_send(c, msg);
	json_decref(msg);
}

void ctl_client_send_result(struct ctl_client *c, json_t *id, json_t *result)
{
	json_t *msg;

	msg = json_pack("{s:b, s:o}", "ok", 1, "result", result ? result : json_object());
	if (!msg) {
		client_drop(c, "out of memory");
		return;
	}
	if (id)
		json_object_set(msg, "id", id);
	ctl_client_send(c, msg);
	json_decref(msg);
}

/* Send a last error and close once it is flushed (or after a timeout). */
static void client_close_with_error(struct ctl_client *c, const char *code, const char *message)
{
	struct timeval tv = {CTL_CLOSE_TIMEOUT_S, 0};

	ctl_client_send_error(c, NULL, code, message);
	if (c->dead)
		return;
	c->closing = true;
	c->srv->stats.clients_dropped++;
	if (c->timer)
		evtimer_del(c->timer);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_set_timeouts(c->bev, NULL, &tv);
}

/* Handle every complete line buffered, unless a reply is pending. */
void ctl_client_process(struct ctl_client *c)
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
			c->srv->handle_line(c, line, len);
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
void ctl_client_arm(struct ctl_client *c)
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
	ctl_client_process(c);
	ctl_client_arm(c);
}

static void client_write_cb(struct bufferevent *bev, void *arg)
{
	struct ctl_client *c = arg;

	if (!c->dead && c->closing)
		client_drop(c, "closed after error");
}

/* After EOF: answer what is buffered, then close once the output is flushed. */
void ctl_client_finish(struct ctl_client *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct timeval tv = {CTL_CLOSE_TIMEOUT_S, 0};
	size_t len;
	char *line;

	ctl_client_process(c);
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
			c->srv->handle_line(c, line, len);
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
		ctl_client_finish(c);
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

bool ctl_client_peer_is_admin(const struct ctl_server *srv, pid_t pid, uid_t uid, gid_t gid)
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

void ctl_client_accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
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
	admin = ctl_client_peer_is_admin(srv, cred.pid, cred.uid, cred.gid);
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
	ctl_client_list_add(&srv->clients, c);
	srv->stats.clients++;
	srv->stats.clients_accepted++;
	ctl_client_arm(c);
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

void ctl_client_subscribe(struct ctl_client *c)
{
	if (c->subscribed || c->dead)
		return;
	c->subscribed = true;
	c->srv->stats.subscribers++;
	ctl_client_arm(c); /* no idle deadline for a subscriber */
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
/*
 * The HTTP connections (see http_int.h): accepted up to http_max_clients,
 * plain or TLS (libevent's OpenSSL bufferevents), a request head read
 * whole within HTTP_HEAD_TIMEOUT_S and HTTP_MAX_HEAD bytes, a body of the
 * length its head gave (the site checked it against http_max_body), one
 * whole reply sent within HTTP_CONN_TIMEOUT_S, then closed; reply bytes
 * held for every client together capped (HTTP_MAX_QUEUED).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/log.h"
#include "ui/ctl_errors.h"
#include "ui/http_int.h"

void http_conn_blob_unref(struct http_blob *b)
{
	if (b && !--b->refs) {
		b->h->st->queued -= b->len;
		free(b->data);
		free(b);
	}
}

/* evbuffer_add_reference's cleanup: one reference less. */
static void http_blob_cleanup(const void *data, size_t len, void *arg)
{
	http_conn_blob_unref(arg);
}

static void http_conn_free(struct http_conn *c)
{
	struct http *h = c->h;

	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	h->st->clients--;
	h->st->queued -= c->queued;
	if (c->deadline)
		event_free(c->deadline);
	if (c->slow)
		event_free(c->slow);
	free(c->head);
	/* now, not when libevent finalizes the bufferevent: blob references go while h is there */
	evbuffer_drain(bufferevent_get_output(c->bev),
		       evbuffer_get_length(bufferevent_get_output(c->bev)));
	bufferevent_free(c->bev);
	free(c);
}

void http_conn_arm(struct http_conn *c, int seconds)
{
	struct timeval tv = {seconds, 0};

	evtimer_add(c->deadline, &tv);
}

void http_conn_reply(struct http_conn *c, int status, const char *reason, const char *ctype,
		     const char *extra, const char *body, size_t len, struct http_blob *blob)
{
	struct http *h = c->h;
	struct evbuffer *out = bufferevent_get_output(c->bev);

	if (c->replied)
		return;
	c->replied = true;
	h->st->requests++;
	if (status >= 400)
		h->st->errors++;
	evbuffer_add_printf(out,
			    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			    "Connection: close\r\nCache-Control: no-store\r\n"
			    "X-Content-Type-Options: nosniff\r\n%s\r\n",
			    status, reason, ctype, len, extra ? extra : "");
	if (!c->head_only && len) {
		if (blob) {
			blob->refs++;
			if (evbuffer_add_reference(out, blob->data, len, http_blob_cleanup, blob) <
			    0)
				blob->refs--;
		} else {
			evbuffer_add(out, body, len);
			c->queued = len;
			h->st->queued += len;
		}
	}
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_enable(c->bev, EV_WRITE);
	http_conn_arm(c, HTTP_CONN_TIMEOUT_S);
}

void http_conn_error(struct http_conn *c, int status, const char *reason, const char *msg)
{
	char body[320];
	int n = snprintf(body, sizeof(body), "%d %s: %s\n", status, reason, msg);

	http_conn_reply(c, status, reason, "text/plain; charset=utf-8",
			status == 405 ? "Allow: GET, HEAD\r\n"
			: status == 401
			    ? "WWW-Authenticate: Basic realm=\"ibsmd\", charset=\"UTF-8\"\r\n"
			: status == 429 ? "Retry-After: 1\r\n"
					: NULL,
			body, (size_t)n, NULL);
}

void http_conn_json(struct http_conn *c, int status, const char *reason, json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);

	json_decref(reply);
	if (!text) {
		http_conn_error(c, 500, "Internal Server Error", "the reply does not encode");
		return;
	}
	if (c->h->st->queued + strlen(text) > HTTP_MAX_QUEUED) {
		c->h->st->rejected++;
		free(text);
		http_conn_error(c, 503, "Service Unavailable",
				"too many replies waiting to be sent");
		return;
	}
	http_conn_reply(c, status, reason, "application/json", NULL, text, strlen(text), NULL);
	free(text);
}

/* The body of the request whose head c holds: dispatched once all of it is in. */
static void http_read_body(struct http_conn *c, struct evbuffer *in)
{
	size_t n = c->hh.body_len;
	char *body;

	if (evbuffer_get_length(in) < n)
		return;
	body = malloc(n + 1);
	if (!body) {
		http_conn_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	evbuffer_remove(in, body, n);
	body[n] = '\0';
	evtimer_del(c->deadline);
	c->h->on_body(c, body, n);
	free(body);
}

static void http_read_cb(struct bufferevent *bev, void *arg)
{
	struct http_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	size_t n, have = evbuffer_get_length(in);
	char *head;

	if (c->replied || c->slow)
		return;
	if (c->head) {
		http_read_body(c, in);
		return;
	}
	if (end.pos >= 0) {
		n = (size_t)end.pos + 4;
	} else {
		end = evbuffer_search(in, "\n\n", 2, NULL);
		n = end.pos >= 0 ? (size_t)end.pos + 2 : 0;
	}
	if ((!n && have > HTTP_MAX_HEAD) || n > HTTP_MAX_HEAD) {
		http_conn_error(c, 431, "Request Header Fields Too Large",
				"the request head is too large");
		return;
	}
	if (!n)
		return;
	head = malloc(n + 1);
	if (!head) {
		http_conn_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	evbuffer_remove(in, head, n);
	head[n] = '\0';
	evtimer_del(c->deadline);
	if (!c->h->on_head(c, head, n)) {
		free(head);
		memset(&c->hh, 0, sizeof(c->hh)); /* it pointed into head */
	} else if (c->head)
		http_read_body(c, in); /* some of it may be in already */
}

static void http_write_cb(struct bufferevent *bev, void *arg)
{
	struct http_conn *c = arg;

	if (c->replied && !evbuffer_get_length(bufferevent_get_output(bev)))
		http_conn_free(c);
}

static void http_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct http_conn *c = arg;

	if (what == BEV_EVENT_CONNECTED)
		return; /* a TLS handshake done: the request follows */
	if (what & BEV_EVENT_TIMEOUT)
		c->h->st->timeouts++;
	http_conn_free(c);
}

static void http_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http_conn *c = arg;

	c->h->st->timeouts++;
	http_conn_free(c);
}

int http_conn_status_of(const char *code, const char **ret_reason)
{
	static const struct {
		const char *code;
		int status;
		const char *reason;
	} map[] = {
	    {CTL_ERR_BAD_ARGUMENT, 400, "Bad Request"},
	    {CTL_ERR_BAD_REQUEST, 400, "Bad Request"},
	    {CTL_ERR_NOT_FOUND, 404, "Not Found"},
	    {CTL_ERR_UNKNOWN_COMMAND, 404, "Not Found"},
	    {CTL_ERR_PERMISSION_DENIED, 403, "Forbidden"},
	    {CTL_ERR_CONFLICT, 409, "Conflict"},
	    {CTL_ERR_LIMIT, 413, "Content Too Large"},
	    {CTL_ERR_NOT_READY, 503, "Service Unavailable"},
	    {CTL_ERR_BUSY, 503, "Service Unavailable"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(code, map[i].code)) {
			*ret_reason = map[i].reason;
			return map[i].status;
		}
	*ret_reason = "Internal Server Error";
	return 500;
}

bool http_conn_is_loopback(const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static void http_accept_cb(struct evconnlistener *lis, evutil_socket_t fd, struct sockaddr *sa,
			   int salen, void *arg)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\nRetry-After: 1\r\n\r\n";
	struct http *h = arg;
	struct timeval idle = {HTTP_IDLE_TIMEOUT_S, 0};
	struct http_conn *c;
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (h->st->clients >= h->max_clients || h->st->queued >= HTTP_MAX_QUEUED) {
		h->st->rejected++;
		/* best effort, never blocking: the socket is non-blocking */
		if (send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			log_msg(LOG_CAT_CTL, LOG_DEBUG, "http: 503 not sent: %s", strerror(errno));
		evutil_closesocket(fd);
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"http: refused a connection: %u open (http_max_clients), %zu reply "
				"bytes queued",
				h->st->clients, h->st->queued);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		evutil_closesocket(fd);
		return;
	}
	c->h = h;
	c->loopback = http_conn_is_loopback(sa);
	if (getnameinfo(sa, (socklen_t)salen, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, serv);
	else
		snprintf(c->peer, sizeof(c->peer), "?");
	if (h->ssl) {
		SSL *ssl = SSL_new(h->ssl);

		c->bev = ssl ? bufferevent_openssl_socket_new(h->base, fd, ssl,
							      BUFFEREVENT_SSL_ACCEPTING,
							      BEV_OPT_CLOSE_ON_FREE)
			     : NULL;
		if (!c->bev) {
			SSL_free(ssl);
			evutil_closesocket(fd);
			free(c);
			return;
		}
		/* a client that closes without close_notify is no error of ours */
		bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 1);
	} else {
		c->bev = bufferevent_socket_new(h->base, fd, BEV_OPT_CLOSE_ON_FREE);
	}
	c->deadline = c->bev ? evtimer_new(h->base, http_deadline_cb, c) : NULL;
	if (!c->deadline) {
		if (c->bev)
			bufferevent_free(c->bev);
		else
			evutil_closesocket(fd);
		free(c);
		return;
	}
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	h->st->clients++;
	bufferevent_setcb(c->bev, http_read_cb, http_write_cb, http_event_cb, c);
	bufferevent_set_timeouts(c->bev, &idle, &idle);
	/* stop reading once more than a head's worth waits */
	bufferevent_setwatermark(c->bev, EV_READ, 0, HTTP_MAX_HEAD + 1);
	bufferevent_enable(c->bev, EV_READ);
	http_conn_arm(c, HTTP_HEAD_TIMEOUT_S);
}

int http_conn_listen(struct http *h, const char *key, const char *addr, char *err, size_t err_len)
{
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL, *ai;
	char host[CONF_NAME_MAX], *port;
	int r;

	snprintf(host, sizeof(host), "%s", addr);
	if (host[0] == '[') {
		char *close = strchr(host, ']');

		if (!close || close[1] != ':') {
			snprintf(err, err_len, "%s: '%s' is not [ADDRESS]:PORT", key, addr);
			return -EINVAL;
		}
		*close = '\0';
		port = close + 2;
		memmove(host, host + 1, strlen(host));
	} else {
		port = strrchr(host, ':');
		if (!port) {
			snprintf(err, err_len, "%s: '%s' is not ADDRESS:PORT", key, addr);
			return -EINVAL;
		}
		*port++ = '\0';
	}
	r = getaddrinfo(host, port, &hints, &res);
	if (r) {
		snprintf(err, err_len, "%s %s: %s", key, addr, gai_strerror(r));
		return -EINVAL;
	}
	errno = EADDRNOTAVAIL;
	for (ai = res; ai && !h->lis; ai = ai->ai_next)
		h->lis = evconnlistener_new_bind(h->base, http_accept_cb, h,
						 LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
						     LEV_OPT_CLOSE_ON_EXEC,
						 128, ai->ai_addr, (int)ai->ai_addrlen);
	freeaddrinfo(res);
	if (!h->lis) {
		r = -errno;
		snprintf(err, err_len, "%s %s: cannot listen: %s", key, addr, strerror(errno));
		return r;
	}
	return 0;
}

void http_conn_close_all(struct http *h)
{
	while (h->conns)
		http_conn_free(h->conns);
	if (h->lis)
		evconnlistener_free(h->lis);
	h->lis = NULL;
}

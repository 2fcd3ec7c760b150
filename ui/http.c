/*
 * The read-only HTTP endpoint (see http.h): RFC 9112 requests, one per
 * connection (every reply says Connection: close), on the daemon's loop.
 *
 * It reads the request head with a bufferevent of its own rather than
 * libevent 2.1's evhttp server: evhttp has no cap on connections (2.1 has
 * no hook where one could be kept) and its timeouts start again with every
 * byte, so a client sending one byte a second would hold a connection for
 * ever.  Here a connection is refused beyond http_max_clients, the request
 * head must arrive whole within HTTP_HEAD_TIMEOUT_S and fit in
 * HTTP_MAX_HEAD bytes, the reply must be taken within HTTP_CONN_TIMEOUT_S,
 * no request may carry a body, and reply bytes held for all clients are
 * capped (HTTP_MAX_QUEUED), so memory is bounded whatever the clients do.
 * evhttp's URI parser and decoders are used for the request target.
 *
 * The JSON API calls the control socket's handlers through the command
 * table (ui/api.c) with no client: the same code answers both, and orders
 * (admin commands) are refused here.  Scrapes of /metrics within
 * HTTP_METRICS_CACHE_MS share one text, referenced, not copied.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "failover/sync.h"
#include "ui/api_int.h"
#include "ui/http.h"

#define HTTP_MAX_ARGS 16
#define HTTP_IDLE_TIMEOUT_S 10 /* no progress reading or writing */

/*
 * A reply body shared by several connections (the /metrics text): counted
 * once in h->st->queued while any connection (or the cache) holds it.
 */
struct http_blob {
	struct http *h;
	char *data;
	size_t len;
	unsigned refs;
};

struct http_conn {
	struct http *h;
	char peer[NI_MAXHOST + NI_MAXSERV + 2]; /* "ADDRESS:PORT", for the log */
	struct bufferevent *bev;
	struct event *deadline;
	struct http_conn *prev, *next;
	size_t queued; /* this reply's bytes counted in h->st->queued (not a blob's) */
	bool replied;
	bool head_only;
};

struct http {
	struct api *api;
	enum http_site site;
	struct event_base *base;
	struct evconnlistener *lis;
	struct http_conn *conns;
	unsigned max_clients;
	struct http_stats *st;	   /* api->http_st: counted where metrics.c reads it */
	struct http_blob *metrics; /* the cached text, one reference held here */
	double metrics_at;	   /* CLOCK_MONOTONIC ms it was made */
	char root[CONF_PATH_MAX];
	char listen[CONF_NAME_MAX];
};

static void http_blob_unref(struct http_blob *b)
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
	http_blob_unref(arg);
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
	/* now, not when libevent finalizes the bufferevent: blob references go while h is there */
	evbuffer_drain(bufferevent_get_output(c->bev),
		       evbuffer_get_length(bufferevent_get_output(c->bev)));
	bufferevent_free(c->bev);
	free(c);
}

static void http_arm(struct http_conn *c, int seconds)
{
	struct timeval tv = {seconds, 0};

	evtimer_add(c->deadline, &tv);
}

/*
 * Queue a whole reply and close once it is sent.  body is copied, unless
 * blob is given: then it is referenced (body = blob->data).
 */
static void http_reply(struct http_conn *c, int status, const char *reason, const char *ctype,
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
	http_arm(c, HTTP_CONN_TIMEOUT_S);
}

static void http_error(struct http_conn *c, int status, const char *reason, const char *msg)
{
	char body[320];
	int n = snprintf(body, sizeof(body), "%d %s: %s\n", status, reason, msg);

	http_reply(c, status, reason, "text/plain; charset=utf-8",
		   status == 405 ? "Allow: GET, HEAD\r\n" : NULL, body, (size_t)n, NULL);
}

/* ---- GET /metrics ------------------------------------------------------- */

static void http_metrics(struct http_conn *c)
{
	struct http *h = c->h;
	double now = clock_mono_ms();

	if (!h->metrics || now - h->metrics_at >= HTTP_METRICS_CACHE_MS) {
		struct http_blob *b = calloc(1, sizeof(*b));

		if (b)
			b->data = metrics_text(h->api, &b->len);
		if (!b || !b->data) {
			free(b);
			http_error(c, 500, "Internal Server Error", "out of memory");
			return;
		}
		if (h->st->queued + b->len > HTTP_MAX_QUEUED) {
			/* older texts are still being sent to slow readers */
			free(b->data);
			free(b);
			h->st->rejected++;
			http_error(c, 503, "Service Unavailable",
				   "too many replies waiting to be sent");
			return;
		}
		b->h = h;
		b->refs = 1;
		h->st->queued += b->len;
		http_blob_unref(h->metrics);
		h->metrics = b;
		h->metrics_at = now;
	}
	http_reply(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", NULL, h->metrics->data,
		   h->metrics->len, h->metrics);
}

/* ---- GET /api/CMD ----------------------------------------------------- */

static int http_status_of(const char *code, const char **ret_reason)
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
	    {CTL_ERR_NOT_READY, 503, "Service Unavailable"},
	    {CTL_ERR_BUSY, 503, "Service Unavailable"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(code, map[i].code)) {
			*ret_reason = map[i].reason;
			return map[i].status;
		}
	}
	*ret_reason = "Internal Server Error";
	return 500;
}

static void http_json(struct http_conn *c, int status, const char *reason, json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);

	json_decref(reply);
	if (!text) {
		http_error(c, 500, "Internal Server Error", "the reply does not encode");
		return;
	}
	if (c->h->st->queued + strlen(text) > HTTP_MAX_QUEUED) {
		c->h->st->rejected++;
		free(text);
		http_error(c, 503, "Service Unavailable", "too many replies waiting to be sent");
		return;
	}
	http_reply(c, status, reason, "application/json", NULL, text, strlen(text), NULL);
	free(text);
}

static void http_json_error(struct http_conn *c, const struct ctl_error *e)
{
	const char *reason;
	int status = http_status_of(e->code, &reason);

	http_json(c, status, reason,
		  json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", e->code, "message",
			    e->message));
}

/* "12" -> 12, "true"/"false" -> booleans, anything else a string. */
static json_t *http_arg_value(const char *v)
{
	char *end;
	long long n;

	if (!strcmp(v, "true") || !strcmp(v, "false"))
		return json_boolean(!strcmp(v, "true"));
	if (*v && (isdigit((unsigned char)v[0]) || (v[0] == '-' && v[1]))) {
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*end && !errno)
			return json_integer(n);
	}
	return json_string(v);
}

static void http_api(struct http_conn *c, const char *name, const char *query)
{
	struct api *api = c->h->api;
	const struct ctl_command *cmd;
	struct ctl_error e = {"", ""};
	json_t *args = NULL, *result = NULL;
	int r;

	if (!*name) {
		json_t *a = json_array();

		for (cmd = api_command_table(); a && cmd->name; cmd++)
			if (!cmd->admin && strcmp(cmd->name, "events"))
				json_array_append_new(a, json_pack("{s:s, s:s}", "name", cmd->name,
								   "args", cmd->args_help));
		http_json(c, 200, "OK",
			  json_pack("{s:b, s:{s:o}}", "ok", 1, "result", "commands", a));
		return;
	}
	cmd = api_command_find(name);
	if (!cmd) {
		ctl_error_set(&e, CTL_ERR_UNKNOWN_COMMAND,
			      "no command '%.64s' (GET /api/ lists them)", name);
		http_json_error(c, &e);
		return;
	}
	if (cmd->admin) {
		ctl_error_set(&e, CTL_ERR_PERMISSION_DENIED,
			      "%s changes the fabric: it is served on the control socket only",
			      cmd->name);
		http_json_error(c, &e);
		return;
	}
	if (query && *query) {
		struct evkeyvalq kv;
		struct evkeyval *p;
		int n = 0;

		kv.tqh_first = NULL;
		kv.tqh_last = &kv.tqh_first;
		if (evhttp_parse_query_str(query, &kv) < 0) {
			evhttp_clear_headers(&kv);
			http_error(c, 400, "Bad Request", "malformed query string");
			return;
		}
		args = json_object();
		for (p = kv.tqh_first; p; p = p->next.tqe_next) {
			json_t *v = ++n <= HTTP_MAX_ARGS ? http_arg_value(p->value) : NULL;

			if (!v || json_object_set_new(args, p->key, v) < 0) {
				evhttp_clear_headers(&kv);
				json_decref(args);
				http_error(c, 400, "Bad Request",
					   n > HTTP_MAX_ARGS ? "too many arguments"
							     : "an argument is not valid UTF-8");
				return;
			}
		}
		evhttp_clear_headers(&kv);
	}
	r = cmd->fn(api, NULL, args, &result, &e);
	json_decref(args);
	if (r == CTL_DEFERRED) {
		/* no read command defers; a client-less one must not */
		ctl_error_set(&e, CTL_ERR_INTERNAL, "%s cannot answer over HTTP", cmd->name);
		http_json_error(c, &e);
		return;
	}
	if (r < 0) {
		if (!e.code[0])
			ctl_error_set(&e, CTL_ERR_INTERNAL, "%s", strerror(-r));
		json_decref(result);
		http_json_error(c, &e);
		return;
	}
	http_json(c, 200, "OK",
		  json_pack("{s:b, s:o}", "ok", 1, "result", result ? result : json_object()));
}

/* ---- static files ------------------------------------------------------- */

static const char *http_ctype(const char *name)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
	    {".html", "text/html; charset=utf-8"},
	    {".js", "text/javascript; charset=utf-8"},
	    {".css", "text/css; charset=utf-8"},
	    {".svg", "image/svg+xml"},
	    {".png", "image/png"},
	    {".txt", "text/plain; charset=utf-8"},
	};
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return NULL;
}

/* A file directly under http_root: [A-Za-z0-9_-][A-Za-z0-9_.-]* with a known type. */
static void http_file(struct http_conn *c, const char *name)
{
	static const char csp[] =
	    "Content-Security-Policy: default-src 'self'; img-src 'self' data:; "
	    "frame-ancestors 'none'\r\n";
	const char *ctype = http_ctype(name);
	char path[CONF_PATH_MAX + 80];
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			ctype = NULL;
	if (!ctype || name[0] == '.' || strlen(name) > 64) {
		http_error(c, 404, "Not Found", "no such page");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", c->h->root, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > HTTP_MAX_FILE) {
		if (fd >= 0)
			close(fd);
		http_error(c, 404, "Not Found", "no such page");
		return;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		free(buf);
		http_error(c, 500, "Internal Server Error", "cannot read the page");
		return;
	}
	http_reply(c, 200, "OK", ctype, csp, buf, (size_t)n, NULL);
	free(buf);
}

/* ---- requests ------------------------------------------------------------ */

static void http_route(struct http_conn *c, const char *target)
{
	struct evhttp_uri *uri;
	const char *raw;
	char *path;
	size_t len = 0;

	if (target[0] != '/') {
		http_error(c, 400, "Bad Request", "the target must be a path");
		return;
	}
	uri = evhttp_uri_parse(target);
	if (!uri) {
		http_error(c, 400, "Bad Request", "malformed request target");
		return;
	}
	raw = evhttp_uri_get_path(uri);
	path = evhttp_uridecode(raw ? raw : "/", 0, &len);
	if (!path || strlen(path) != len || strstr(path, "..") || strstr(path, "//")) {
		http_error(c, 404, "Not Found", "no such page");
	} else if (!strcmp(path, "/metrics")) {
		http_metrics(c);
	} else if (!strcmp(path, "/api") || !strcmp(path, "/api/")) {
		http_api(c, "", NULL);
	} else if (!strncmp(path, "/api/", 5)) {
		http_api(c, path + 5, evhttp_uri_get_query(uri));
	} else if (!strcmp(path, "/")) {
		http_file(c, "index.html");
	} else if (!strchr(path + 1, '/')) {
		http_file(c, path + 1);
	} else {
		http_error(c, 404, "Not Found", "no such page");
	}
	free(path);
	evhttp_uri_free(uri);
}

int http_parse_head(char *head, size_t len, struct http_head *ret, const char **ret_why)
{
	char *line_end, *sp1, *sp2, *p;
	const char *method, *target, *version;

#define HTTP_REFUSE(status, why)                                                                   \
	do {                                                                                       \
		*ret_why = why;                                                                    \
		return status;                                                                     \
	} while (0)
	if (memchr(head, '\0', len) || head[len] != '\0')
		HTTP_REFUSE(400, "NUL in the request");
	/* RFC 9112 2.2: a bare CR (not before LF) is invalid; refused, never passed on */
	for (const char *cr = memchr(head, '\r', len); cr;
	     cr = memchr(cr + 1, '\r', len - (size_t)(cr + 1 - head)))
		if (cr[1] != '\n')
			HTTP_REFUSE(400, "a bare CR in the request");
	line_end = strchr(head, '\n');
	if (!line_end)
		HTTP_REFUSE(400, "no request line");
	if (line_end > head && line_end[-1] == '\r')
		line_end[-1] = '\0';
	*line_end = '\0';
	sp1 = strchr(head, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strchr(sp2 + 1, ' '))
		HTTP_REFUSE(400, "malformed request line");
	*sp1 = *sp2 = '\0';
	method = head;
	target = sp1 + 1;
	version = sp2 + 1;
	if (strcmp(version, "HTTP/1.1") && strcmp(version, "HTTP/1.0")) {
		if (strncmp(version, "HTTP/", 5))
			HTTP_REFUSE(400, "not HTTP/1.x");
		HTTP_REFUSE(505, "HTTP/1.0 or HTTP/1.1 only");
	}
	if (!*method)
		HTTP_REFUSE(400, "malformed method");
	for (p = (char *)method; *p; p++)
		if (*p < 'A' || *p > 'Z')
			HTTP_REFUSE(400, "malformed method");
	if (strlen(target) > HTTP_MAX_TARGET)
		HTTP_REFUSE(414, "the request target is too long");
	/* the headers: a body is never taken */
	for (p = line_end + 1; *p && *p != '\r' && *p != '\n';) {
		char *eol = strchr(p, '\n'), *colon = strchr(p, ':');

		if (!eol || !colon || colon > eol || colon == p)
			HTTP_REFUSE(400, "malformed header");
		if ((colon - p == 14 && !strncasecmp(p, "Content-Length", 14) &&
		     strtoul(colon + 1, NULL, 10) != 0) ||
		    (colon - p == 17 && !strncasecmp(p, "Transfer-Encoding", 17)))
			HTTP_REFUSE(413, "requests take no body");
		p = eol + 1;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		HTTP_REFUSE(405, "read-only: GET and HEAD");
#undef HTTP_REFUSE
	ret->target = target;
	ret->head_only = !strcmp(method, "HEAD");
	ret->headers = line_end + 1;
	return 0;
}

const char *http_header(const char *headers, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = headers; *p && *p != '\r' && *p != '\n';) {
		const char *eol = strchr(p, '\n'), *v;
		size_t k;

		if (!eol)
			break;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			for (v = p + n + 1; *v == ' ' || *v == '\t'; v++)
				;
			for (k = (size_t)(eol - v);
			     k && (v[k - 1] == '\r' || v[k - 1] == ' ' || v[k - 1] == '\t'); k--)
				;
			snprintf(buf, len, "%.*s", (int)k, v);
			return buf;
		}
		p = eol + 1;
	}
	return NULL;
}

static const char *http_reason(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Error";
}

/* ---- the sync site: the master's state for its standby (failover/sync.h) ---- */

static void http_sync(struct http_conn *c, const struct http_head *hh)
{
	char key[80];
	const char *k = http_header(hh->headers, SYNC_KEY_HEADER, key, sizeof(key));
	struct sync_reply r;

	sync_answer(c->h->api->sm, hh->target, k, c->peer, &r);
	if (!r.body) {
		http_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	http_reply(c, r.status, r.reason, r.ctype, NULL, r.body, r.len, NULL);
	free(r.body);
}

/* The request head in head[0..len) (NUL-terminated): check it, then route. */
static void http_request(struct http_conn *c, char *head, size_t len)
{
	struct http_head hh;
	const char *why = "";
	int status = http_parse_head(head, len, &hh, &why);

	if (status) {
		http_error(c, status, http_reason(status), why);
		return;
	}
	c->head_only = hh.head_only;
	if (c->h->site == HTTP_SITE_SYNC)
		http_sync(c, &hh);
	else
		http_route(c, hh.target);
}

static void http_read_cb(struct bufferevent *bev, void *arg)
{
	struct http_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	size_t n, have = evbuffer_get_length(in);
	char *head;

	if (c->replied)
		return;
	if (end.pos >= 0) {
		n = (size_t)end.pos + 4;
	} else {
		end = evbuffer_search(in, "\n\n", 2, NULL);
		n = end.pos >= 0 ? (size_t)end.pos + 2 : 0;
	}
	if ((!n && have > HTTP_MAX_HEAD) || n > HTTP_MAX_HEAD) {
		http_error(c, 431, "Request Header Fields Too Large",
			   "the request head is too large");
		return;
	}
	if (!n)
		return;
	head = malloc(n + 1);
	if (!head) {
		http_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	evbuffer_remove(in, head, n);
	head[n] = '\0';
	evtimer_del(c->deadline);
	http_request(c, head, n);
	free(head);
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
	if (getnameinfo(sa, (socklen_t)salen, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, serv);
	else
		snprintf(c->peer, sizeof(c->peer), "?");
	c->bev = bufferevent_socket_new(h->base, fd, BEV_OPT_CLOSE_ON_FREE);
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
	http_arm(c, HTTP_HEAD_TIMEOUT_S);
}

/* ---- life cycle -------------------------------------------------------- */

/*
 * Listen on addr (the value of key, "ADDRESS:PORT" or "[ADDRESS]:PORT") and
 * serve site there, counting in st.  0 with *ret, or -errno with err.
 */
static int http_bind_site(struct api *api, const char *key, const char *addr, enum http_site site,
			  struct http_stats *st, struct http **ret, char *err, size_t err_len)
{
	const struct sm_conf *conf = &api->sm->conf;
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL, *ai;
	char host[CONF_NAME_MAX], *port;
	struct http *h;
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
	h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(res);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	h->api = api;
	h->site = site;
	h->st = st;
	h->base = api->sm->base;
	h->max_clients = (unsigned)conf->http_max_clients;
	snprintf(h->root, sizeof(h->root), "%s", conf->http_root);
	snprintf(h->listen, sizeof(h->listen), "%s", addr);
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
		free(h);
		return r;
	}
	*ret = h;
	return 0;
}

/* The web page must be there to be served: a missing one is said once, at start. */
static void http_check_root(const char *root)
{
	char index[CONF_PATH_MAX + 16];
	struct stat st;

	snprintf(index, sizeof(index), "%s/index.html", root);
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		log_err("http_root %s: %s: the web page cannot be served (GET / answers 404); "
			"set http_root to the directory holding index.html",
			root, stat(root, &st) < 0 ? strerror(errno) : "not a directory");
	else if (access(index, R_OK) < 0)
		log_err("http_root %s: no readable index.html (%s): the web page cannot be served "
			"(GET / answers 404)",
			root, strerror(errno));
}

int http_start(struct api *api, char *err, size_t err_len)
{
	const struct sm_conf *conf = &api->sm->conf;
	int r;

	if (conf->http_listen[0]) {
		r = http_bind_site(api, "http_listen", conf->http_listen, HTTP_SITE_MAIN,
				   &api->http_st, &api->http, err, err_len);
		if (r < 0)
			return r;
		log_info("HTTP on %s (metrics, read-only API, web page from %s)", conf->http_listen,
			 conf->http_root);
		http_check_root(conf->http_root);
	}
	if (conf->sync_listen[0]) {
		r = http_bind_site(api, "sync_listen", conf->sync_listen, HTTP_SITE_SYNC,
				   &api->sync_st, &api->http_sync, err, err_len);
		if (r < 0)
			return r;
		log_info("sync: serving the SA state on %s (not encrypted: keep it on a "
			 "management network)",
			 conf->sync_listen);
	}
	return 0;
}

void http_free(struct http *h)
{
	if (!h)
		return;
	while (h->conns)
		http_conn_free(h->conns);
	evconnlistener_free(h->lis);
	http_blob_unref(h->metrics);
	free(h);
}

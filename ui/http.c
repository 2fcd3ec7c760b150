/*
 * The HTTP endpoint (see http.h): RFC 9112 requests, one per connection
 * (every reply says Connection: close), on the daemon's loop, over TLS
 * when configured (libevent's OpenSSL bufferevents).
 *
 * The sites, their routes and who may use them; the connections are
 * ui/http_conn.c's.  It reads the request head with a bufferevent of its
 * own rather than libevent 2.1's evhttp server: evhttp has no cap on connections (2.1 has
 * no hook where one could be kept) and its timeouts start again with every
 * byte, so a client sending one byte a second would hold a connection for
 * ever.  Here a connection is refused beyond http_max_clients, the request
 * head must arrive whole within HTTP_HEAD_TIMEOUT_S and fit in
 * HTTP_MAX_HEAD bytes, the reply must be taken within HTTP_CONN_TIMEOUT_S,
 * no request may carry a body but a write under /ufmRest/ (Content-Length,
 * at most http_max_body, arriving within HTTP_HEAD_TIMEOUT_S too), and
 * reply bytes held for all clients are capped (HTTP_MAX_QUEUED), so memory
 * is bounded whatever the clients do.
 *
 * With http_users_file every request is authenticated (HTTP Basic, checked
 * by ui/http_auth.c) before it is routed: no or bad credentials are
 * answered 401, a failed login after HTTP_AUTH_FAIL_DELAY_MS (counted,
 * logged rate-limited); a user over http_rate_limit gets 429.  Writes need
 * an admin user and TLS (or http_allow_insecure_writes).
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
#include <inttypes.h>
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
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "failover/sync.h"
#include "ui/api_int.h"
#include "ui/http_int.h"
#include "ui/http_pkeys.h"

#define HTTP_MAX_ARGS 16

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
			http_conn_error(c, 500, "Internal Server Error", "out of memory");
			return;
		}
		if (h->st->queued + b->len > HTTP_MAX_QUEUED) {
			/* older texts are still being sent to slow readers */
			free(b->data);
			free(b);
			h->st->rejected++;
			http_conn_error(c, 503, "Service Unavailable",
					"too many replies waiting to be sent");
			return;
		}
		b->h = h;
		b->refs = 1;
		h->st->queued += b->len;
		http_conn_blob_unref(h->metrics);
		h->metrics = b;
		h->metrics_at = now;
	}
	http_conn_reply(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", NULL,
			h->metrics->data, h->metrics->len, h->metrics);
}

/* ---- GET /api/CMD ----------------------------------------------------- */

static void http_json_error(struct http_conn *c, const struct ctl_error *e)
{
	const char *reason;
	int status = http_conn_status_of(e->code, &reason);

	http_conn_json(c, status, reason,
		       json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", e->code,
				 "message", e->message));
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
		http_conn_json(c, 200, "OK",
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
			http_conn_error(c, 400, "Bad Request", "malformed query string");
			return;
		}
		args = json_object();
		for (p = kv.tqh_first; p; p = p->next.tqe_next) {
			json_t *v = ++n <= HTTP_MAX_ARGS ? http_arg_value(p->value) : NULL;

			if (!v || json_object_set_new(args, p->key, v) < 0) {
				evhttp_clear_headers(&kv);
				json_decref(args);
				http_conn_error(c, 400, "Bad Request",
						n > HTTP_MAX_ARGS
						    ? "too many arguments"
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
	http_conn_json(c, 200, "OK",
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
		http_conn_error(c, 404, "Not Found", "no such page");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", c->h->root, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > HTTP_MAX_FILE) {
		if (fd >= 0)
			close(fd);
		http_conn_error(c, 404, "Not Found", "no such page");
		return;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		free(buf);
		http_conn_error(c, 500, "Internal Server Error", "cannot read the page");
		return;
	}
	http_conn_reply(c, 200, "OK", ctype, csp, buf, (size_t)n, NULL);
	free(buf);
}

/* ---- requests ------------------------------------------------------------ */

/* ---- /ufmRest/: the runtime partitions (ui/http_pkeys.h) ------------------------ */

/*
 * Refuse who asks (401, 403, 429): JSON for the APIs (/api/, /ufmRest/: a
 * client reads {"ok": false, "error": {"code", "message"}} there), text
 * elsewhere; 401 asks for Basic, 429 says Retry-After.
 */
static void http_deny(struct http_conn *c, int status, const char *reason, const char *msg)
{
	const char *code = status == 401   ? "unauthorized"
			   : status == 429 ? "rate_limited"
					   : CTL_ERR_PERMISSION_DENIED;
	json_t *j;
	char *text;

	if (!c->json_errors) {
		http_conn_error(c, status, reason, msg);
		return;
	}
	j = json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code", code, "message", msg);
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!text) {
		http_conn_error(c, status, reason, msg);
		return;
	}
	http_conn_reply(c, status, reason, "application/json",
			status == 401
			    ? "WWW-Authenticate: Basic realm=\"ibsmd\", charset=\"UTF-8\"\r\n"
			: status == 429 ? "Retry-After: 1\r\n"
					: NULL,
			text, strlen(text), NULL);
	free(text);
}

/*
 * A write may go: an admin user, over TLS, or with http_allow_insecure_writes
 * over plain HTTP from a loopback address.  Else 403.
 */
static bool http_write_allowed(struct http_conn *c)
{
	const struct sm_conf *conf = &c->h->api->sm->conf;
	char msg[160];

	if (!c->h->users) {
		http_deny(c, 403, "Forbidden",
			  "writes need users (http_users_file) and an admin among them");
		return false;
	}
	if (c->role != HTTP_ROLE_ADMIN) {
		snprintf(msg, sizeof(msg), "user '%s' may read only (role read)", c->user);
		http_deny(c, 403, "Forbidden", msg);
		return false;
	}
	if (!c->h->ssl && !conf->http_allow_insecure_writes) {
		http_deny(c, 403, "Forbidden",
			  "writes need TLS (http_tls_cert, http_tls_key): the password would "
			  "cross the network in clear");
		return false;
	}
	if (!c->h->ssl && !c->loopback) {
		http_deny(c, 403, "Forbidden",
			  "writes without TLS (http_allow_insecure_writes) are taken from this "
			  "host only (a loopback address)");
		return false;
	}
	return true;
}

static void http_ufm(struct http_conn *c, const char *path, const char *query, const char *body,
		     size_t body_len)
{
	char who[HTTP_AUTH_NAME_MAX + NI_MAXHOST + NI_MAXSERV + 32];
	struct http_pkeys_req r = {c->hh.method, path, query, body, body_len, who};
	const char *reason = "Internal Server Error";
	json_t *ans = NULL;
	int status;

	snprintf(who, sizeof(who), "%s via %s %s", c->user[0] ? c->user : "(no user)",
		 c->h->ssl ? "https" : "http", c->peer);
	if (http_pkeys_is_write(&r) && !http_write_allowed(c))
		return;
	status = http_pkeys_answer(c->h->api, &r, &reason, &ans);
	if (!ans) {
		http_conn_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	if (http_pkeys_is_write(&r) && status == 200)
		c->h->st->writes++;
	http_conn_json(c, status, reason, ans);
}

static void http_route(struct http_conn *c, const char *body, size_t body_len)
{
	const char *target = c->hh.target;
	struct evhttp_uri *uri;
	const char *raw;
	char *path;
	size_t len = 0;

	if (target[0] != '/') {
		http_conn_error(c, 400, "Bad Request", "the target must be a path");
		return;
	}
	uri = evhttp_uri_parse(target);
	if (!uri) {
		http_conn_error(c, 400, "Bad Request", "malformed request target");
		return;
	}
	raw = evhttp_uri_get_path(uri);
	path = evhttp_uridecode(raw ? raw : "/", 0, &len);
	if (!path || strlen(path) != len || strstr(path, "..") || strstr(path, "//")) {
		http_conn_error(c, 404, "Not Found", "no such page");
	} else if (!strcmp(path, "/metrics")) {
		http_metrics(c);
	} else if (!strcmp(path, "/api") || !strcmp(path, "/api/")) {
		http_api(c, "", NULL);
	} else if (!strncmp(path, "/api/", 5)) {
		http_api(c, path + 5, evhttp_uri_get_query(uri));
	} else if (!strncmp(path, HTTP_WRITE_PREFIX, strlen(HTTP_WRITE_PREFIX))) {
		http_ufm(c, path, evhttp_uri_get_query(uri), body, body_len);
	} else if (!strcmp(path, "/")) {
		http_file(c, "index.html");
	} else if (!strchr(path + 1, '/')) {
		http_file(c, path + 1);
	} else {
		http_conn_error(c, 404, "Not Found", "no such page");
	}
	free(path);
	evhttp_uri_free(uri);
}

int http_parse_head(char *head, size_t len, struct http_head *ret, const char **ret_why)
{
	return http_parse_request(head, len, false, ret, ret_why);
}

int http_parse_request(char *head, size_t len, bool writes, struct http_head *ret,
		       const char **ret_why)
{
	char *line_end, *sp1, *sp2, *p;
	const char *method, *target, *version;
	bool write_target, has_length = false;
	size_t body_len = 0;

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
	write_target = writes && !strncmp(target, HTTP_WRITE_PREFIX, strlen(HTTP_WRITE_PREFIX));
	/* the headers: a body only for a write, of Content-Length bytes */
	for (p = line_end + 1; *p && *p != '\r' && *p != '\n';) {
		char *eol = strchr(p, '\n'), *colon = strchr(p, ':');

		if (!eol || !colon || colon > eol || colon == p)
			HTTP_REFUSE(400, "malformed header");
		if (colon - p == 17 && !strncasecmp(p, "Transfer-Encoding", 17))
			HTTP_REFUSE(413, "requests take no chunked body");
		if (colon - p == 14 && !strncasecmp(p, "Content-Length", 14)) {
			const char *v = colon + 1;
			size_t n = 0;

			while (*v == ' ' || *v == '\t')
				v++;
			if (!write_target) {
				if (strtoul(colon + 1, NULL, 10) != 0)
					HTTP_REFUSE(413, "requests take no body");
			} else {
				if (has_length)
					HTTP_REFUSE(400, "Content-Length twice");
				if (*v < '0' || *v > '9')
					HTTP_REFUSE(400, "malformed Content-Length");
				for (; *v >= '0' && *v <= '9'; v++) {
					if (n > (SIZE_MAX - 9) / 10)
						HTTP_REFUSE(413, "the body is too large");
					n = n * 10 + (size_t)(*v - '0');
				}
				while (*v == ' ' || *v == '\t' || *v == '\r')
					v++;
				if (*v != '\n')
					HTTP_REFUSE(400, "malformed Content-Length");
				has_length = true;
				body_len = n;
			}
		}
		p = eol + 1;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD") &&
	    (!write_target ||
	     (strcmp(method, "POST") && strcmp(method, "PUT") && strcmp(method, "DELETE"))))
		HTTP_REFUSE(405, write_target ? "GET, HEAD, POST, PUT, DELETE"
					      : "read-only: GET and HEAD");
#undef HTTP_REFUSE
	ret->method = method;
	ret->target = target;
	ret->head_only = !strcmp(method, "HEAD");
	ret->headers = line_end + 1;
	ret->body_len = body_len;
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
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 429:
		return "Too Many Requests";
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
		http_conn_error(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	http_conn_reply(c, r.status, r.reason, r.ctype, NULL, r.body, r.len, NULL);
	free(r.body);
}

static void http_slow_cb(evutil_socket_t fd, short what, void *arg)
{
	struct http_conn *c = arg;

	http_deny(c, 401, "Unauthorized", "bad user or password");
}

/*
 * Who asks (http_users_file): true to go on, with c->user and c->role set;
 * false when answered (401 at once without credentials, after
 * HTTP_AUTH_FAIL_DELAY_MS with bad ones; 429 over http_rate_limit).
 */
static bool http_authenticate(struct http_conn *c)
{
	struct http *h = c->h;
	double now = clock_mono_ms() / 1000.0;
	char auth[1024], err[512];
	const char *v;
	struct http_user *u;
	int r;

	if (!h->users)
		return true; /* no users: reads are open, writes refused */
	r = http_auth_refresh(&h->users, err, sizeof(err));
	if (r > 0)
		log_info("http: %s read again: %zu users", h->users->path, h->users->n);
	else if (r < 0)
		log_err("http: %s; keeping the users as they were", err);
	v = http_header(c->hh.headers, "Authorization", auth, sizeof(auth));
	u = http_auth_check(h->users, v, now);
	if (!u) {
		struct timeval tv = {HTTP_AUTH_FAIL_DELAY_MS / 1000,
				     (HTTP_AUTH_FAIL_DELAY_MS % 1000) * 1000};

		if (!v) {
			http_deny(c, 401, "Unauthorized", "authentication needed (HTTP Basic)");
			return false;
		}
		h->st->auth_failures++;
		log_ratelimited(LOG_CAT_CTL, LOG_WARNING,
				"http: failed login from %s (%" PRIu64 " failed logins in all)",
				c->peer, h->st->auth_failures);
		/* slowed: the answer waits; the connection reads nothing meanwhile */
		bufferevent_disable(c->bev, EV_READ);
		c->slow = evtimer_new(h->base, http_slow_cb, c);
		if (!c->slow || evtimer_add(c->slow, &tv) < 0)
			http_deny(c, 401, "Unauthorized", "bad user or password");
		return false;
	}
	if (!http_auth_rate(u, h->api->sm->conf.http_rate_limit, now)) {
		h->st->rate_limited++;
		log_ratelimited(LOG_CAT_CTL, LOG_NOTICE,
				"http: user '%s' over http_rate_limit (%d requests a second)",
				u->name, h->api->sm->conf.http_rate_limit);
		http_deny(c, 429, "Too Many Requests", "over http_rate_limit: slow down");
		return false;
	}
	snprintf(c->user, sizeof(c->user), "%s", u->name);
	c->role = u->role;
	return true;
}

/* The request is in (its body too): the sync site's, or authenticated and routed. */
static void http_dispatch(struct http_conn *c, const char *body, size_t body_len)
{
	if (c->h->site == HTTP_SITE_SYNC)
		http_sync(c, &c->hh);
	else if (http_authenticate(c))
		http_route(c, body, body_len);
}

/*
 * The request head in head[0..len) (NUL-terminated, malloc'd): check it,
 * then dispatch, or keep it (true: c owns it now) while its body arrives.
 */
static bool http_request(struct http_conn *c, char *head, size_t len)
{
	const char *why = "";
	int status = http_parse_request(head, len, c->h->site == HTTP_SITE_MAIN, &c->hh, &why);
	size_t max = (size_t)c->h->api->sm->conf.http_max_body;

	if (status) {
		http_conn_error(c, status, http_reason(status), why);
		return false;
	}
	c->head_only = c->hh.head_only;
	/* decided now: a failed login is answered after the head is freed */
	c->json_errors = !strncmp(c->hh.target, "/api", 4) ||
			 !strncmp(c->hh.target, HTTP_WRITE_PREFIX, strlen(HTTP_WRITE_PREFIX));
	if (c->hh.body_len > max) {
		char msg[96];

		snprintf(msg, sizeof(msg), "a body of %zu bytes, at most %zu (http_max_body)",
			 c->hh.body_len, max);
		http_conn_error(c, 413, "Content Too Large", msg);
		return false;
	}
	if (c->hh.body_len) {
		c->head = head;
		bufferevent_setwatermark(c->bev, EV_READ, 0, c->hh.body_len + 1);
		http_conn_arm(c, HTTP_HEAD_TIMEOUT_S);
		return true;
	}
	http_dispatch(c, NULL, 0);
	return false;
}

/* ---- life cycle -------------------------------------------------------- */

static void http_body(struct http_conn *c, const char *body, size_t len)
{
	http_dispatch(c, body, len);
}

/* Serve site on addr (the value of key), counting in st.  0 with *ret, or -errno with err. */
static int http_bind_site(struct api *api, const char *key, const char *addr, enum http_site site,
			  struct http_stats *st, struct http **ret, char *err, size_t err_len)
{
	const struct sm_conf *conf = &api->sm->conf;
	struct http *h = calloc(1, sizeof(*h));
	int r;

	if (!h) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	h->api = api;
	h->site = site;
	h->st = st;
	h->base = api->sm->base;
	h->max_clients = (unsigned)conf->http_max_clients;
	h->on_head = http_request;
	h->on_body = http_body;
	snprintf(h->root, sizeof(h->root), "%s", conf->http_root);
	snprintf(h->listen, sizeof(h->listen), "%s", addr);
	r = http_conn_listen(h, key, addr, err, err_len);
	if (r < 0) {
		free(h);
		return r;
	}
	*ret = h;
	return 0;
}

/* http_tls_cert, http_tls_key: HTTPS on the main site.  0 or -errno with err. */
static int http_tls_setup(struct http *h, const struct sm_conf *conf, char *err, size_t err_len)
{
	SSL_CTX *ctx;
	char why[256];

	if (!conf->http_tls_cert[0] && !conf->http_tls_key[0])
		return 0;
	if (!conf->http_tls_cert[0] || !conf->http_tls_key[0]) {
		snprintf(err, err_len, "http_tls_cert and http_tls_key: both, or neither");
		return -EINVAL;
	}
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx) {
		snprintf(err, err_len, "TLS: out of memory");
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
				     SSL_OP_CIPHER_SERVER_PREFERENCE);
	if (SSL_CTX_use_certificate_chain_file(ctx, conf->http_tls_cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, conf->http_tls_key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		ERR_error_string_n(ERR_get_error(), why, sizeof(why));
		snprintf(err, err_len, "http_tls_cert %s, http_tls_key %s: %s", conf->http_tls_cert,
			 conf->http_tls_key, why);
		ERR_clear_error();
		SSL_CTX_free(ctx);
		return -EINVAL;
	}
	h->ssl = ctx;
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
		r = http_tls_setup(api->http, conf, err, err_len);
		if (r == 0 && conf->http_users_file[0])
			r = http_auth_load(conf->http_users_file, &api->http->users, err, err_len);
		if (r < 0)
			return r;
		log_info("HTTP%s on %s (metrics, API, runtime partitions, web page from %s)%s",
			 api->http->ssl ? "S" : "", conf->http_listen, conf->http_root,
			 api->http->users ? "; users from http_users_file"
					  : "; no users: read-only");
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
	http_conn_close_all(h);
	http_conn_blob_unref(h->metrics);
	SSL_CTX_free(h->ssl);
	http_auth_free(h->users);
	free(h);
}

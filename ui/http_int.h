/*
 * Inside the HTTP endpoint: the site and connection objects the two files
 * share.  ui/http.c (the sites: routes, users, the start) calls down into
 * ui/http_conn.c (the connections: accept, plain or TLS, bounded reads of a
 * head and a body, whole replies, timeouts), which calls back through the
 * site's on_head / on_body.  Not for other files: they see ui/http.h.
 */
#ifndef IBSMD_HTTP_INT_H
#define IBSMD_HTTP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <netdb.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "ui/api_int.h"
#include "ui/http.h"
#include "ui/http_auth.h"

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
	bool loopback;				/* the peer is this host (127/8, ::1) */
	struct bufferevent *bev;
	struct event *deadline;
	struct http_conn *prev, *next;
	size_t queued; /* this reply's bytes counted in h->st->queued (not a blob's) */
	bool replied;
	bool head_only;
	char *head; /* the request head, kept while its body arrives (hh points into it) */
	struct http_head hh;
	struct event *slow; /* a failed login's 401, held back */
	bool json_errors; /* an API target (/api, /ufmRest/): refusals are JSON (hh may be gone) */
	char user[HTTP_AUTH_NAME_MAX + 1]; /* authenticated, "" when not */
	enum http_role role;
};

/*
 * The request head of c (head[0..len), NUL-terminated, malloc'd) has come:
 * check and answer it (false: the caller frees head), or keep head in
 * c->head (true) while its c->hh.body_len bytes of body arrive.
 */
typedef bool http_head_fn(struct http_conn *c, char *head, size_t len);
/* The body of c->head's request has come (len bytes, NUL-terminated): answer it. */
typedef void http_body_fn(struct http_conn *c, const char *body, size_t len);

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
	SSL_CTX *ssl;		  /* http_tls_*: HTTPS here; NULL: plain */
	struct http_users *users; /* http_users_file; NULL: no authentication */
	http_head_fn *on_head;	  /* the site's (ui/http.c) */
	http_body_fn *on_body;
};

/* ---- http_conn.c ------------------------------------------------------------ */

/* One reference of b less; the last frees it (and uncounts its bytes).  NULL ok. */
void http_conn_blob_unref(struct http_blob *b);
/*
 * Queue a whole reply and close once it is sent.  body is copied, unless
 * blob is given: then it is referenced (body = blob->data).  extra: header
 * lines ("Name: value\r\n"...) or NULL.  Once per connection: a second is
 * ignored.
 */
void http_conn_reply(struct http_conn *c, int status, const char *reason, const char *ctype,
		     const char *extra, const char *body, size_t len, struct http_blob *blob);
/* A text/plain error reply, "STATUS REASON: msg" (401 asks for Basic, 429 says Retry-After). */
void http_conn_error(struct http_conn *c, int status, const char *reason, const char *msg);
/* A JSON reply (reply stolen), 503 when HTTP_MAX_QUEUED would be passed. */
void http_conn_json(struct http_conn *c, int status, const char *reason, json_t *reply);
/* The connection's deadline: closed after seconds unless re-armed or answered. */
void http_conn_arm(struct http_conn *c, int seconds);
/*
 * Listen on addr (the value of key, "ADDRESS:PORT" or "[ADDRESS]:PORT") for
 * site h (filled by the caller: api, site, st, base, max_clients, ssl,
 * on_head, on_body).  0 or -errno with err.
 */
int http_conn_listen(struct http *h, const char *key, const char *addr, char *err, size_t err_len);
/* Close every connection and the listener (h itself stays). */
void http_conn_close_all(struct http *h);
/*
 * The HTTP status (and reason) of a control error code (ui/ctl_errors.h),
 * for /api/ and /ufmRest/ alike; 500 for a code not listed.
 */
int http_conn_status_of(const char *code, const char **ret_reason);
/* Whether sa is a loopback address: 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104. */
bool http_conn_is_loopback(const struct sockaddr *sa);

#endif

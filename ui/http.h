/*
 * The HTTP endpoint (ui/http.c), inside the control API: off unless
 * http_listen (--http ADDR:PORT) is set; HTTPS with http_tls_cert and
 * http_tls_key; with http_users_file every request needs HTTP Basic
 * authentication (ui/http_auth.h).
 *
 *   GET /metrics      the Prometheus text (ui/metrics.c)
 *   GET /api/         the read commands served, as JSON
 *   GET /api/CMD?k=v  a read command of the control socket's table, its
 *                     reply as on the socket ({"ok":...}); orders are
 *                     refused (403): they stay on the peer-checked socket
 *   GET /, /FILE      the web page: static files under http_root
 *   /ufmRest/...      the runtime partitions, UFM's REST shape (ui/http_pkeys.h):
 *                     GET, and POST, PUT, DELETE with a JSON body for an admin
 *                     user, over TLS (or http_allow_insecure_writes)
 *
 * and, on sync_listen, GET /ibsmd/sync/v1 for the standby SM (failover/sync.h)
 * with the same request reader and limits.
 */
#ifndef IBSMD_HTTP_H
#define IBSMD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct api;
struct http;

#define HTTP_MAX_HEAD 8192	     /* request line and headers, bytes */
#define HTTP_MAX_TARGET 2048	     /* the request target */
#define HTTP_HEAD_TIMEOUT_S 10	     /* the whole request head must arrive within */
#define HTTP_CONN_TIMEOUT_S 30	     /* a connection's whole life, reply included */
#define HTTP_MAX_QUEUED (64u << 20)  /* reply bytes held for every client together */
#define HTTP_MAX_FILE (1u << 20)     /* a static file */
#define HTTP_METRICS_CACHE_MS 1000   /* scrapes within this share one text */
#define HTTP_AUTH_FAIL_DELAY_MS 1000 /* a failed login's 401 waits this long */

/* What a listener serves. */
enum http_site {
	HTTP_SITE_MAIN, /* http_listen: the routes above */
	HTTP_SITE_SYNC, /* sync_listen: the master's state for its standby (failover/sync.h) */
};

#define HTTP_WRITE_PREFIX "/ufmRest/" /* the only targets that take a method and a body */

/* A request head that passed http_parse_head. */
struct http_head {
	const char *method;  /* inside the head given */
	const char *target;  /* inside the head given */
	bool head_only;	     /* HEAD: no body in the reply */
	const char *headers; /* the header lines, up to the empty line */
	size_t body_len;     /* Content-Length: the body that follows (writes only) */
};

/*
 * Check a request head: head[0..len) the request line and headers up to the
 * empty line, with head[len] == '\0'; modified in place.  0 with *ret for a
 * GET or HEAD that carries no body, else the status to answer (400, 405,
 * 413, 414, 505) with *ret_why saying why.  Pure: no I/O.
 */
int http_parse_head(char *head, size_t len, struct http_head *ret, const char **ret_why);
/*
 * The same, with writes: a target under HTTP_WRITE_PREFIX may also be a
 * POST, PUT or DELETE, with a body of Content-Length bytes (chunked bodies
 * are refused, 413); every other target is as http_parse_head says.
 */
int http_parse_request(char *head, size_t len, bool writes, struct http_head *ret,
		       const char **ret_why);

/*
 * The value of header name (case-insensitive) among headers (struct
 * http_head's), blanks trimmed, copied into buf; NULL when absent.  Pure.
 */
const char *http_header(const char *headers, const char *name, char *buf, size_t len);

/*
 * Listen on api->sm->conf.http_listen (the main site: api->http) and on
 * sync_listen (the sync site: api->http_sync), where set, and serve on the
 * SM's loop.  0, or -errno with err (bad address, bind failure).
 */
int http_start(struct api *api, char *err, size_t err_len);
/* Close every connection and the listener.  NULL ok. */
void http_free(struct http *h);

#endif

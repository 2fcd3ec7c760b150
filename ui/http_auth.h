/*
 * Who is asking over HTTP (ui/http.c): the users of http_users_file and
 * HTTP Basic authentication (RFC 7617), checked with crypt(3), and a
 * request rate per user.
 *
 * The file: one user a line, NAME:HASH:ROLE, '#' comments and blank lines
 * allowed; NAME of [A-Za-z0-9_.@-] (at most 64), HASH a crypt(3) hash
 * ("$6$..." as `openssl passwd -6` or `mkpasswd` make them; "$y$",
 * "$2b$", "$5$" work too, whatever libcrypt takes), ROLE "admin" (reads
 * and writes) or "read".  A name twice, a bad hash or role, a file others
 * may read or write: refused whole, with FILE:LINE.  The file is stat()ed
 * at every request and read again when it changed (a file that no longer
 * reads keeps the users as they were, logged).
 *
 * A check costs one crypt(3) of the password (milliseconds for SHA-512 at
 * 5000 rounds); a name, password and hash checked good within
 * HTTP_AUTH_CACHE_S are not checked again (the password is kept only as its
 * SHA-256).  An unknown name costs a crypt(3) too, so its answer takes as
 * long.
 */
#ifndef IBSMD_HTTP_AUTH_H
#define IBSMD_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_AUTH_MAX_USERS 1024
#define HTTP_AUTH_NAME_MAX 64
#define HTTP_AUTH_HASH_MAX 256
#define HTTP_AUTH_FILE_MAX (256u << 10)
#define HTTP_AUTH_CACHE_S 60

enum http_role {
	HTTP_ROLE_NONE, /* not authenticated */
	HTTP_ROLE_READ,
	HTTP_ROLE_ADMIN,
};

struct http_user {
	char name[HTTP_AUTH_NAME_MAX + 1];
	char hash[HTTP_AUTH_HASH_MAX + 1];
	enum http_role role;
	/* a good check kept: SHA-256 of the password, when */
	uint8_t good[32];
	double good_at; /* CLOCK_MONOTONIC s, 0: none */
	/* the request rate: a token bucket */
	double tokens, filled_at;
};

struct http_users {
	struct http_user *v;
	size_t n;
	char path[4096];
	/* the file as read: changed when one of these differs */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/*
 * Parse a users file's text (name stands for FILE in messages).  0 with
 * *ret (NULL-safe free), or -EINVAL with every error, "FILE:LINE: what",
 * or -ENOMEM.  Pure.
 */
int http_auth_parse(const char *name, const char *text, size_t len, struct http_users **ret,
		    char *err, size_t err_len);
/*
 * Read and parse path: -EPERM when others may read or write it (or it is
 * not a regular file), else as http_auth_parse (or -errno of open/read).
 */
int http_auth_load(const char *path, struct http_users **ret, char *err, size_t err_len);
void http_auth_free(struct http_users *u);

/*
 * Read the file again when it changed since *u was read: 1 when *u was
 * replaced (the rates and the cache start again), 0 when it is as it was,
 * -errno (with err) when it changed but does not read (*u kept).
 */
int http_auth_refresh(struct http_users **u, char *err, size_t err_len);

/*
 * The user an Authorization header value names ("Basic BASE64(name:password)"),
 * checked: the user, or NULL (no header, not Basic, malformed, unknown
 * name, wrong password).  now: CLOCK_MONOTONIC seconds (the cache).
 */
struct http_user *http_auth_check(struct http_users *u, const char *authorization, double now);

/*
 * One request of user at time now, with at most rate a second (a burst of
 * 2 * rate): whether it may go (false: too many, answer 429).  rate 0: always.
 */
bool http_auth_rate(struct http_user *user, int rate, double now);

/*
 * Base64 (RFC 4648, padding required, no whitespace) of s into out (at most
 * len - 1 bytes, NUL-terminated): the bytes decoded, or -1.  Pure.
 */
int http_auth_b64decode(const char *s, char *out, size_t len);

#endif

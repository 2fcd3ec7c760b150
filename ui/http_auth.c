/*
 * HTTP users (see http_auth.h): the users file, HTTP Basic checked with
 * crypt(3), a token bucket per user.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "lib/lines.h"
#include "ui/http_auth.h"

/* ---- the file -------------------------------------------------------------- */

struct auth_err {
	const char *name;
	char *err;
	size_t len, used;
	unsigned n;
};

static void __attribute__((format(printf, 3, 4)))
auth_err_add(struct auth_err *e, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int k;

	e->n++;
	if (!e->err || e->used + 1 >= e->len)
		return;
	k = snprintf(e->err + e->used, e->len - e->used, "%s%s:%u: ", e->used ? "\n" : "", e->name,
		     line);
	if (k < 0 || (size_t)k >= e->len - e->used) {
		e->used = e->len - 1;
		return;
	}
	e->used += (size_t)k;
	va_start(ap, fmt);
	k = vsnprintf(e->err + e->used, e->len - e->used, fmt, ap);
	va_end(ap);
	e->used = k < 0 || (size_t)k >= e->len - e->used ? e->len - 1 : e->used + (size_t)k;
}

static bool auth_name_ok(const char *s, size_t n)
{
	if (!n || n > HTTP_AUTH_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("_.@-", s[i])))
			return false;
	return true;
}

/* A crypt(3) hash: "$id$...", of the characters crypt's alphabet and '$' (no ':'). */
static bool auth_hash_ok(const char *s, size_t n)
{
	if (n < 4 || n > HTTP_AUTH_HASH_MAX || s[0] != '$')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("./$=,-", s[i])))
			return false;
	return true;
}

int http_auth_parse(const char *name, const char *text, size_t len, struct http_users **ret,
		    char *err, size_t err_len)
{
	struct auth_err e = {name, err, err_len, 0, 0};
	struct http_users *u = calloc(1, sizeof(*u));
	char *buf = malloc(len + 1), *line;
	struct lines l;
	size_t ll;
	int r;

	if (err && err_len)
		err[0] = '\0';
	if (!u || !buf || !(u->v = calloc(HTTP_AUTH_MAX_USERS, sizeof(*u->v)))) {
		free(buf);
		http_auth_free(u);
		return -ENOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	lines_init(&l, buf, len, 1024);
	while ((r = lines_next(&l, &line, &ll)) != 0) {
		const char *c1, *c2;
		struct http_user *w;
		size_t nl, hl;

		if (r < 0) {
			auth_err_add(&e, l.no, r == -E2BIG ? "line too long" : "a NUL byte");
			continue;
		}
		while (ll && (line[ll - 1] == ' ' || line[ll - 1] == '\t' || line[ll - 1] == '\r'))
			line[--ll] = '\0';
		while (*line == ' ' || *line == '\t')
			line++, ll--;
		if (!ll || line[0] == '#')
			continue;
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strchr(c2 + 1, ':')) {
			auth_err_add(&e, l.no, "not NAME:HASH:ROLE");
			continue;
		}
		nl = (size_t)(c1 - line);
		hl = (size_t)(c2 - c1 - 1);
		if (!auth_name_ok(line, nl)) {
			auth_err_add(&e, l.no, "a name of 1..%d of [A-Za-z0-9_.@-]",
				     HTTP_AUTH_NAME_MAX);
			continue;
		}
		if (!auth_hash_ok(c1 + 1, hl)) {
			auth_err_add(&e, l.no,
				     "not a crypt(3) hash (\"$6$...\": openssl passwd -6)");
			continue;
		}
		if (strcmp(c2 + 1, "admin") && strcmp(c2 + 1, "read")) {
			auth_err_add(&e, l.no, "role '%.16s': want admin or read", c2 + 1);
			continue;
		}
		for (size_t i = 0; i < u->n; i++)
			if (strlen(u->v[i].name) == nl && !memcmp(u->v[i].name, line, nl)) {
				auth_err_add(&e, l.no, "user '%.*s' twice", (int)nl, line);
				nl = 0;
				break;
			}
		if (!nl)
			continue;
		if (u->n == HTTP_AUTH_MAX_USERS) {
			auth_err_add(&e, l.no, "more than %d users", HTTP_AUTH_MAX_USERS);
			break;
		}
		w = &u->v[u->n++];
		memcpy(w->name, line, nl);
		memcpy(w->hash, c1 + 1, hl);
		w->role = strcmp(c2 + 1, "admin") ? HTTP_ROLE_READ : HTTP_ROLE_ADMIN;
	}
	free(buf);
	if (e.n) {
		http_auth_free(u);
		return -EINVAL;
	}
	*ret = u;
	return 0;
}

void http_auth_free(struct http_users *u)
{
	if (!u)
		return;
	if (u->v)
		OPENSSL_cleanse(u->v, HTTP_AUTH_MAX_USERS * sizeof(*u->v));
	free(u->v);
	free(u);
}

int http_auth_load(const char *path, struct http_users **ret, char *err, size_t err_len)
{
	struct http_users *u = NULL;
	struct stat st;
	char *text;
	size_t len;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s: not a regular file", path);
		return -EPERM;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		snprintf(err, err_len,
			 "%s: others may %s it (mode %03o): chmod o-rwx, it holds password hashes",
			 path, st.st_mode & S_IROTH ? "read" : "write", st.st_mode & 0777);
		return -EPERM;
	}
	r = lines_read_file(path, HTTP_AUTH_FILE_MAX, LINES_REGULAR, &text, &len, err, err_len);
	if (r < 0)
		return r;
	r = http_auth_parse(path, text, len, &u, err, err_len);
	OPENSSL_cleanse(text, len);
	free(text);
	if (r < 0)
		return r;
	snprintf(u->path, sizeof(u->path), "%s", path);
	u->dev = st.st_dev;
	u->ino = st.st_ino;
	u->size = st.st_size;
	u->mtime = st.st_mtim;
	*ret = u;
	return 0;
}

int http_auth_refresh(struct http_users **u, char *err, size_t err_len)
{
	struct http_users *nu = NULL;
	struct stat st;
	int r;

	if (stat((*u)->path, &st) == 0 && st.st_dev == (*u)->dev && st.st_ino == (*u)->ino &&
	    st.st_size == (*u)->size && st.st_mtim.tv_sec == (*u)->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == (*u)->mtime.tv_nsec)
		return 0;
	r = http_auth_load((*u)->path, &nu, err, err_len);
	if (r < 0) {
		/* once per change: the next look sees the same file and says nothing */
		if (stat((*u)->path, &st) == 0) {
			(*u)->dev = st.st_dev;
			(*u)->ino = st.st_ino;
			(*u)->size = st.st_size;
			(*u)->mtime = st.st_mtim;
		}
		return r;
	}
	http_auth_free(*u);
	*u = nu;
	return 1;
}

/* ---- checking ---------------------------------------------------------------- */

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int http_auth_b64decode(const char *s, char *out, size_t len)
{
	size_t n = strlen(s), o = 0;

	if (!len || n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;

		for (int k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == n && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = b64val(s[i + k]);
			if (v[k] < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
			     (uint32_t)v[3];
		for (int k = 0; k < 3 - pad; k++) {
			if (o + 1 >= len)
				return -1;
			out[o++] = (char)(w >> (16 - 8 * k));
		}
	}
	out[o] = '\0';
	return (int)o;
}

/* crypt(3) of pw with hash's setting equals hash (in constant time). */
static bool auth_crypt_ok(const char *pw, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;
	bool ok = false;

	if (!cd)
		return false;
	h = crypt_r(pw, hash, cd);
	if (h && h[0] != '*' && strlen(h) == strlen(hash))
		ok = CRYPTO_memcmp(h, hash, strlen(hash)) == 0;
	OPENSSL_cleanse(cd, sizeof(*cd));
	free(cd);
	return ok;
}

static bool auth_sha256(const char *s, uint8_t out[32])
{
	unsigned n = 0;

	return EVP_Digest(s, strlen(s), out, &n, EVP_sha256(), NULL) == 1 && n == 32;
}

struct http_user *http_auth_check(struct http_users *u, const char *authorization, double now)
{
	/* a hash to spend the same time on for a name that is not there */
	static const char dummy[] =
	    "$6$ibsmdnouser$dummydummydummydummydummydummydummydummydummydum"
	    "mydummydummydummydummydummydummydummydummyd";
	char cred[512], *colon;
	struct http_user *user = NULL;
	uint8_t sum[32];
	int n;

	if (!u || !authorization || strncasecmp(authorization, "Basic ", 6))
		return NULL;
	authorization += 6;
	while (*authorization == ' ')
		authorization++;
	n = http_auth_b64decode(authorization, cred, sizeof(cred));
	colon = n > 0 ? memchr(cred, ':', (size_t)n) : NULL;
	if (!colon || (int)strlen(cred) != n) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return NULL;
	}
	*colon = '\0';
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].name, cred))
			user = &u->v[i];
	if (!user) {
		auth_crypt_ok(colon + 1, dummy);
		OPENSSL_cleanse(cred, sizeof(cred));
		return NULL;
	}
	if (!auth_sha256(colon + 1, sum)) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return NULL;
	}
	if (user->good_at && now - user->good_at < HTTP_AUTH_CACHE_S &&
	    CRYPTO_memcmp(sum, user->good, sizeof(sum)) == 0) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return user;
	}
	if (!auth_crypt_ok(colon + 1, user->hash))
		user = NULL;
	else {
		memcpy(user->good, sum, sizeof(sum));
		user->good_at = now;
	}
	OPENSSL_cleanse(cred, sizeof(cred));
	OPENSSL_cleanse(sum, sizeof(sum));
	return user;
}

bool http_auth_rate(struct http_user *user, int rate, double now)
{
	double burst = 2.0 * rate;

	if (rate <= 0 || !user)
		return true;
	if (!user->filled_at)
		user->tokens = burst;
	else
		user->tokens += (now - user->filled_at) * rate;
	if (user->tokens > burst)
		user->tokens = burst;
	user->filled_at = now;
	if (user->tokens < 1.0)
		return false;
	user->tokens -= 1.0;
	return true;
}

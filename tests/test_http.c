/*
 * Unit tests of the HTTP request head reader (ui/http.c) as the sync site
 * uses it: http_parse_head hands out the header lines, http_header finds
 * one (the standby's X-Ibsmd-SM-Key) by name, case-insensitive, trimmed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "tests/testutil.h"
#include "ui/http.h"
#include "ui/http_int.h"
#include "ui/http_auth.h"

/* Parse a copy of text; 0 with hh and the copy (freed by the caller) kept in *ret_copy. */
static int parse(const char *text, struct http_head *hh, char **ret_copy)
{
	const char *why = NULL;

	*ret_copy = strdup(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*ret_copy);
	return http_parse_head(*ret_copy, strlen(text), hh, &why);
}

static void test_header_found(void)
{
	struct http_head hh;
	char *copy, buf[80];

	CU_ASSERT_EQUAL_FATAL(parse("GET /ibsmd/sync/v1 HTTP/1.1\r\nHost: a\r\n"
				    "x-ibsmd-sm-key:   0x1234 \t\r\nAccept: */*\r\n\r\n",
				    &hh, &copy),
			      0);
	CU_ASSERT_STRING_EQUAL(hh.target, "/ibsmd/sync/v1");
	CU_ASSERT_PTR_EQUAL(http_header(hh.headers, "X-Ibsmd-SM-Key", buf, sizeof(buf)), buf);
	CU_ASSERT_STRING_EQUAL(buf, "0x1234");
	CU_ASSERT_PTR_NOT_NULL(http_header(hh.headers, "accept", buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "*/*");
	free(copy);
	/* bare LF line ends (HTTP/1.0 clients), an empty value */
	CU_ASSERT_EQUAL_FATAL(parse("GET / HTTP/1.0\nX-Ibsmd-SM-Key:\n\n", &hh, &copy), 0);
	CU_ASSERT_PTR_NOT_NULL(http_header(hh.headers, "X-Ibsmd-SM-Key", buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "");
	free(copy);
}

static void test_header_absent(void)
{
	struct http_head hh;
	char *copy, buf[8];

	/* no headers at all; a name that only starts another header's; the request line */
	CU_ASSERT_EQUAL_FATAL(parse("GET /X-Ibsmd-SM-Key:1 HTTP/1.1\r\n\r\n", &hh, &copy), 0);
	CU_ASSERT_PTR_NULL(http_header(hh.headers, "X-Ibsmd-SM-Key", buf, sizeof(buf)));
	free(copy);
	CU_ASSERT_EQUAL_FATAL(parse("GET / HTTP/1.1\r\nX-Ibsmd-SM-Key-Old: 1\r\n\r\n", &hh, &copy),
			      0);
	CU_ASSERT_PTR_NULL(http_header(hh.headers, "X-Ibsmd-SM-Key", buf, sizeof(buf)));
	/* a value longer than the buffer is cut, never overrun */
	CU_ASSERT_PTR_NOT_NULL(http_header(hh.headers, "X-Ibsmd-SM-Key-Old", buf, 2));
	CU_ASSERT_STRING_EQUAL(buf, "1");
	free(copy);
	CU_ASSERT_EQUAL_FATAL(parse("GET / HTTP/1.1\r\nLong: 0123456789abcdef\r\n\r\n", &hh, &copy),
			      0);
	CU_ASSERT_PTR_NOT_NULL(http_header(hh.headers, "long", buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "0123456");
	free(copy);
}

/* A CR not followed by LF anywhere in the head: refused (RFC 9112 2.2), never a header value. */
static void test_bare_cr(void)
{
	struct http_head hh;
	char *copy;

	CU_ASSERT_EQUAL(parse("GET / HTTP/1.1\r\nX-Ibsmd-SM-Key: 0x1\r2\r\n\r\n", &hh, &copy), 400);
	free(copy);
	CU_ASSERT_EQUAL(parse("GET /\r HTTP/1.1\r\n\r\n", &hh, &copy), 400);
	free(copy);
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.1\r\nA: b\r\n\r\n", &hh, &copy), 0);
	free(copy);
}

/* http_parse_request with writes on: status, method and the body's length. */
static int parse_w(const char *text, struct http_head *hh, size_t *ret_body)
{
	const char *why = NULL;
	char *copy = strdup(text);
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	r = http_parse_request(copy, strlen(text), true, hh, &why);
	CU_ASSERT(r == 0 || (why && *why));
	*ret_body = r == 0 ? hh->body_len : 0;
	free(copy);
	return r;
}

/* Writes (issue 23): a method and a body only under /ufmRest/, Content-Length only. */
static void test_writes(void)
{
	struct http_head hh;
	size_t n = 0;
	char *copy;

	CU_ASSERT_EQUAL(parse_w("POST /ufmRest/resources/pkeys HTTP/1.1\r\nContent-Length: 42\r\n"
				"\r\n",
				&hh, &n),
			0);
	CU_ASSERT_EQUAL(n, 42);
	CU_ASSERT_EQUAL(parse_w("DELETE /ufmRest/resources/pkeys/0x12 HTTP/1.1\r\n\r\n", &hh, &n),
			0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(parse_w("PUT /ufmRest/resources/pkeys/qos_conf HTTP/1.1\r\n"
				"Content-Length:7\r\n\r\n",
				&hh, &n),
			0);
	CU_ASSERT_EQUAL(n, 7);
	/* elsewhere, as before: 405 and 413 */
	CU_ASSERT_EQUAL(parse_w("DELETE /api/status HTTP/1.1\r\n\r\n", &hh, &n), 405);
	CU_ASSERT_EQUAL(parse_w("POST /api/sweep HTTP/1.1\r\nContent-Length: 5\r\n\r\n", &hh, &n),
			413);
	CU_ASSERT_EQUAL(parse_w("PATCH /ufmRest/resources/pkeys HTTP/1.1\r\n\r\n", &hh, &n), 405);
	CU_ASSERT_EQUAL(
	    parse_w("POST /ufmRest/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &hh, &n),
	    413);
	CU_ASSERT_EQUAL(parse_w("POST /ufmRest/x HTTP/1.1\r\nContent-Length: 1\r\n"
				"Content-Length: 1\r\n\r\n",
				&hh, &n),
			400);
	CU_ASSERT_EQUAL(parse_w("POST /ufmRest/x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &hh, &n),
			400);
	CU_ASSERT_EQUAL(parse_w("POST /ufmRest/x HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &hh, &n),
			400);
	CU_ASSERT_EQUAL(parse_w("POST /ufmRest/x HTTP/1.1\r\nContent-Length: "
				"99999999999999999999999\r\n\r\n",
				&hh, &n),
			413);
	/* without writes (the sync site, http_parse_head): a POST is refused */
	CU_ASSERT_EQUAL(parse("POST /ufmRest/resources/pkeys HTTP/1.1\r\n\r\n", &hh, &copy), 405);
	free(copy);
}

/* A users file: NAME:HASH:ROLE, every error with FILE:LINE. */
static void test_users_file(void)
{
	/* openssl passwd -6 -salt abcdefgh secret */
	static const char h[] = "$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2"
				"CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.";
	char text[1024], err[1024], auth[256], b64[128];
	struct http_users *u = NULL;
	struct http_user *w;
	FILE *p;

	snprintf(text, sizeof(text), "# users\n\nalice:%s:admin\n  bob:%s:read  \n", h, h);
	CU_ASSERT_EQUAL_FATAL(http_auth_parse("u", text, strlen(text), &u, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(u->n, 2);
	CU_ASSERT_EQUAL(u->v[0].role, HTTP_ROLE_ADMIN);
	CU_ASSERT_EQUAL(u->v[1].role, HTTP_ROLE_READ);
	/* Basic alice:secret, then the wrong password, an unknown user, malformed headers */
	p = popen("printf 'alice:secret' | base64", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(fgets(b64, sizeof(b64), p));
	pclose(p);
	b64[strcspn(b64, "\n")] = '\0';
	snprintf(auth, sizeof(auth), "Basic %s", b64);
	w = http_auth_check(u, auth, 100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_STRING_EQUAL(w->name, "alice");
	CU_ASSERT_PTR_EQUAL(http_auth_check(u, auth, 101), w);		       /* the cache */
	CU_ASSERT_PTR_NULL(http_auth_check(u, "Basic YWxpY2U6c2VjcmV4", 102)); /* alice:secrex */
	CU_ASSERT_PTR_NULL(http_auth_check(u, "Basic Y2Fyb2w6c2VjcmV0", 102)); /* carol:secret */
	CU_ASSERT_PTR_NULL(http_auth_check(u, "Bearer abc", 102));
	CU_ASSERT_PTR_NULL(http_auth_check(u, "Basic !!!!", 102));
	CU_ASSERT_PTR_NULL(http_auth_check(u, "Basic YWxpY2U=", 102)); /* "alice": no colon */
	CU_ASSERT_PTR_NULL(http_auth_check(u, NULL, 102));
	/* the rate: a burst of 2 x 2, then one every half second */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_TRUE(http_auth_rate(w, 2, 200));
	CU_ASSERT_FALSE(http_auth_rate(w, 2, 200));
	CU_ASSERT_TRUE(http_auth_rate(w, 2, 200.6));
	CU_ASSERT_FALSE(http_auth_rate(w, 2, 200.7));
	CU_ASSERT_TRUE(http_auth_rate(w, 0, 200.7));
	http_auth_free(u);
	snprintf(text, sizeof(text),
		 "alice:%s:admin\nalice:%s:read\nbob:nohash:read\ncarol:%s:root\nd e:%s:read\n"
		 "justaname\n",
		 h, h, h, h);
	u = NULL;
	CU_ASSERT_EQUAL(http_auth_parse("u", text, strlen(text), &u, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(u);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "u:2: user 'alice' twice"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "u:3: not a crypt(3) hash"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "u:4: role 'root'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "u:5: a name"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "u:6: not NAME:HASH:ROLE"));
}

/* A users file others may read is refused; read again when it changes. */
static void test_users_load(void)
{
	char dir[] = "/tmp/ibsmd-test-http.XXXXXX", path[64], err[512];
	struct http_users *u = NULL;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/users", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("a:$6$x$y:read\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(chmod(path, 0644), 0);
	CU_ASSERT_EQUAL(http_auth_load(path, &u, err, sizeof(err)), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "others may read it"));
	CU_ASSERT_EQUAL(chmod(path, 0640), 0);
	CU_ASSERT_EQUAL_FATAL(http_auth_load(path, &u, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(u->n, 1);
	CU_ASSERT_EQUAL(http_auth_refresh(&u, err, sizeof(err)), 0);
	f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("b:$6$x$y:admin\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(http_auth_refresh(&u, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(u->n, 2);
	f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("b:$6$x$y:admin\n", f); /* twice: the file no longer reads */
	fclose(f);
	CU_ASSERT_EQUAL(http_auth_refresh(&u, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(u->n, 2); /* kept */
	CU_ASSERT_EQUAL(http_auth_refresh(&u, err, sizeof(err)), 0);
	http_auth_free(u);
	unlink(path);
	rmdir(dir);
}

static void test_base64(void)
{
	char out[16];

	CU_ASSERT_EQUAL(http_auth_b64decode("YTpi", out, sizeof(out)), 3);
	CU_ASSERT_STRING_EQUAL(out, "a:b");
	CU_ASSERT_EQUAL(http_auth_b64decode("YTpiYw==", out, sizeof(out)), 4);
	CU_ASSERT_STRING_EQUAL(out, "a:bc");
	CU_ASSERT_EQUAL(http_auth_b64decode("YTpiYwE=", out, sizeof(out)), 5);
	CU_ASSERT_EQUAL(http_auth_b64decode("YTpiY", out, sizeof(out)), -1);
	CU_ASSERT_EQUAL(http_auth_b64decode("YT=i", out, sizeof(out)), -1);
	CU_ASSERT_EQUAL(http_auth_b64decode("YTpi YTpi", out, sizeof(out)), -1);
	CU_ASSERT_EQUAL(http_auth_b64decode("YWFhYWFhYWFhYWFhYWFhYWFh", out, sizeof(out)), -1);
	CU_ASSERT_EQUAL(http_auth_b64decode("", out, sizeof(out)), 0);
}

/* Whether the text address a is loopback (http_allow_insecure_writes: from this host only). */
static bool loopback(const char *a)
{
	struct sockaddr_in v4 = {.sin_family = AF_INET};
	struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};

	if (inet_pton(AF_INET, a, &v4.sin_addr) == 1)
		return http_conn_is_loopback((struct sockaddr *)&v4);
	CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, a, &v6.sin6_addr), 1);
	return http_conn_is_loopback((struct sockaddr *)&v6);
}

static void test_loopback(void)
{
	struct sockaddr_un {
		sa_family_t f;
		char path[8];
	} un = {AF_UNIX, "x"};

	CU_ASSERT_TRUE(loopback("127.0.0.1"));
	CU_ASSERT_TRUE(loopback("127.200.3.4"));
	CU_ASSERT_TRUE(loopback("::1"));
	CU_ASSERT_TRUE(loopback("::ffff:127.0.0.1"));
	CU_ASSERT_FALSE(loopback("128.0.0.1"));
	CU_ASSERT_FALSE(loopback("10.0.0.127"));
	CU_ASSERT_FALSE(loopback("0.0.0.0"));
	CU_ASSERT_FALSE(loopback("::"));
	CU_ASSERT_FALSE(loopback("::2"));
	CU_ASSERT_FALSE(loopback("fe80::1"));
	CU_ASSERT_FALSE(loopback("::ffff:10.0.0.1"));
	CU_ASSERT_FALSE(loopback("::7f00:1")); /* IPv4-compatible, not mapped */
	CU_ASSERT_FALSE(http_conn_is_loopback((struct sockaddr *)&un));
	CU_ASSERT_FALSE(http_conn_is_loopback(NULL));
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"a header found", test_header_found},
	    {"a header absent or cut", test_header_absent},
	    {"a bare CR refused", test_bare_cr},
	    {"writes: methods and bodies under /ufmRest/", test_writes},
	    {"a users file", test_users_file},
	    {"a users file's mode, read again", test_users_load},
	    {"base64", test_base64},
	    {"loopback peers (insecure writes)", test_loopback},
	    {NULL, NULL},
	};

	return testutil_run("http", cases);
}

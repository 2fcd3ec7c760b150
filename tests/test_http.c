/*
 * Unit tests of the HTTP request head reader (ui/http.c) as the sync site
 * uses it: http_parse_head hands out the header lines, http_header finds
 * one (the standby's X-Ibsmd-SM-Key) by name, case-insensitive, trimmed.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "tests/testutil.h"
#include "ui/http.h"

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

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"a header found", test_header_found},
	    {"a header absent or cut", test_header_absent},
	    {"a bare CR refused", test_bare_cr},
	    {NULL, NULL},
	};

	return testutil_run("http", cases);
}

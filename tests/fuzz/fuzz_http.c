/*
 * Fuzz target for what the HTTP endpoint reads from a client
 * (ui/http.c): the request head check (http_parse_head) on an exactly-sized
 * NUL-terminated copy, then, for a head it accepts, libevent's parsers the
 * endpoint runs on the target (evhttp_uri_parse, evhttp_uridecode,
 * evhttp_parse_query_str).
 *
 * Properties (abort on violation):
 *  - http_parse_head returns 0 or one of 400, 405, 413, 414, 505, with a reason;
 *  - on 0 the target lies inside the head, is at most HTTP_MAX_TARGET bytes
 *    and the request line was a GET or a HEAD of HTTP/1.0 or 1.1;
 *  - the same input always gives the same answer;
 *  - with writes (http_parse_request, the main site): 0 or one of the
 *    statuses above; a method other than GET or HEAD, or a body, only for
 *    a target under HTTP_WRITE_PREFIX;
 *  - a header value found by http_header (the sync site's X-Ibsmd-SM-Key)
 *    is NUL-terminated within its buffer and carries no line end.
 */
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "tests/fuzz/fuzz.h"
#include "ui/http.h"

static int parse(const uint8_t *data, size_t size, struct http_head *hh, char **ret_copy)
{
	char *copy = malloc(size + 1);
	const char *why = NULL;
	int r;

	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	r = http_parse_head(copy, size, hh, &why);
	FUZZ_CHECK(r == 0 || r == 400 || r == 405 || r == 413 || r == 414 || r == 505);
	FUZZ_CHECK(r == 0 || (why && *why));
	*ret_copy = copy;
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_head hh, hh2;
	char *copy, *copy2;
	int r, r2;

	if (size > HTTP_MAX_HEAD)
		return 0;
	{
		char *w = malloc(size + 1);
		const char *why = NULL;
		struct http_head hw;
		int rw;

		FUZZ_CHECK(w != NULL);
		memcpy(w, data, size);
		w[size] = '\0';
		rw = http_parse_request(w, size, true, &hw, &why);
		FUZZ_CHECK(rw == 0 || rw == 400 || rw == 405 || rw == 413 || rw == 414 ||
			   rw == 505);
		if (rw == 0 &&
		    ((strcmp(hw.method, "GET") && strcmp(hw.method, "HEAD")) || hw.body_len))
			FUZZ_CHECK(
			    !strncmp(hw.target, HTTP_WRITE_PREFIX, strlen(HTTP_WRITE_PREFIX)));
		free(w);
	}
	r = parse(data, size, &hh, &copy);
	r2 = parse(data, size, &hh2, &copy2);
	FUZZ_CHECK(r == r2);
	if (r == 0) {
		struct evhttp_uri *uri;

		FUZZ_CHECK(hh.target > copy && hh.target < copy + size);
		FUZZ_CHECK(strlen(hh.target) <= HTTP_MAX_TARGET);
		FUZZ_CHECK(hh.head_only == hh2.head_only);
		FUZZ_CHECK(!strncmp(copy, hh.head_only ? "HEAD" : "GET", hh.head_only ? 4 : 3));
		{
			char key[80];
			const char *v = http_header(hh.headers, "X-Ibsmd-SM-Key", key, sizeof(key));

			FUZZ_CHECK(
			    !v || (v == key && strlen(key) < sizeof(key) && !strpbrk(key, "\r\n")));
		}
		uri = evhttp_uri_parse(hh.target);
		if (uri) {
			const char *path = evhttp_uri_get_path(uri),
				   *query = evhttp_uri_get_query(uri);
			size_t n = 0;
			char *dec = evhttp_uridecode(path ? path : "/", 0, &n);

			FUZZ_CHECK(dec != NULL);
			free(dec);
			if (query) {
				struct evkeyvalq kv;

				kv.tqh_first = NULL;
				kv.tqh_last = &kv.tqh_first;
				evhttp_parse_query_str(query, &kv);
				evhttp_clear_headers(&kv);
			}
			evhttp_uri_free(uri);
		}
	}
	free(copy);
	free(copy2);
	return 0;
}

/*
 * The updn/dnup roots file (OpenSM's root_guid_file format, see roots.h),
 * read with lib/lines.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lines.h"
#include "policy/roots.h"

#define ROOTS_FILE_MAX (16u << 20) /* 49,151 switch GUIDs take under 1 MB */
#define ROOTS_LINE_MAX 255

int roots_load(const char *path, uint64_t **ret, size_t *ret_n, char *err, size_t err_len)
{
	uint64_t *g = NULL;
	size_t n = 0, cap = 0, len;
	struct lines l;
	char *text, *s, *end;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (!path || !*path)
		return 0;
	r = lines_read_file(path, ROOTS_FILE_MAX, 0, &text, &len, err, err_len);
	if (r < 0)
		return r;
	lines_init(&l, text, len, ROOTS_LINE_MAX);
	while ((r = lines_next(&l, &s, &len)) != 0) {
		unsigned long long v;

		if (r < 0) {
			snprintf(err, err_len, "%s:%u: %s", path, l.no,
				 r == -E2BIG ? "line longer than 255 characters"
					     : "NUL byte in line");
			r = -EBADMSG;
			goto fail;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\0')
			continue;
		errno = 0;
		v = strtoull(s, &end, 16);
		while (*end == ' ' || *end == '\t' || *end == '\r')
			end++;
		if (errno || end == s || *end || v == 0 || strncmp(s, "0x", 2)) {
			snprintf(err, err_len,
				 "%s:%u: expected a switch GUID like 0x0002c90000000001", path,
				 l.no);
			r = -EBADMSG;
			goto fail;
		}
		if (n == cap) {
			uint64_t *ng = realloc(g, (cap = cap ? cap * 2 : 16) * sizeof(*g));
			if (!ng) {
				r = -ENOMEM;
				goto fail;
			}
			g = ng;
		}
		g[n++] = v;
	}
	free(text);
	*ret = g;
	*ret_n = n;
	return 0;

fail:
	free(g);
	free(text);
	return r;
}

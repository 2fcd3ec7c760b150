/*
 * The updn/dnup roots file (OpenSM's root_guid_file format, see roots.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/roots.h"

int roots_load(const char *path, uint64_t **ret, size_t *ret_n, char *err, size_t err_len)
{
	uint64_t *g = NULL;
	size_t n = 0, cap = 0;
	char line[256];
	unsigned lineno = 0;
	FILE *fp;

	*ret = NULL;
	*ret_n = 0;
	if (!path || !*path)
		return 0;
	fp = fopen(path, "r");
	if (!fp) {
		int e = errno;
		snprintf(err, err_len, "%s: %s", path, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *s = line, *end;
		unsigned long long v;
		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\0')
			continue;
		errno = 0;
		v = strtoull(s, &end, 16);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (errno || end == s || *end || v == 0 || strncmp(s, "0x", 2)) {
			snprintf(err, err_len,
				 "%s:%u: expected a switch GUID like 0x0002c90000000001", path,
				 lineno);
			free(g);
			fclose(fp);
			return -EBADMSG;
		}
		if (n == cap) {
			uint64_t *ng = realloc(g, (cap = cap ? cap * 2 : 16) * sizeof(*g));
			if (!ng) {
				free(g);
				fclose(fp);
				return -ENOMEM;
			}
			g = ng;
		}
		g[n++] = v;
	}
	fclose(fp);
	*ret = g;
	*ret_n = n;
	return 0;
}

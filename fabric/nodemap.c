/*
 * OpenSM's node name map (see nodemap.h).  Names live in one buffer, the
 * GUID index (lib/u64map.h) points at them by entry.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/nodemap.h"
#include "lib/lines.h"
#include "lib/u64map.h"

#define NODEMAP_MAX_FILE (64u << 20)
#define NODEMAP_MAX_LINE 1024
#define NODEMAP_MAX_NAME 255

struct nodemap_entry {
	uint64_t guid;
	char *name; /* into the copy of the text */
};

struct nodemap {
	char *text;
	struct nodemap_entry *v;
	size_t n, cap;
	struct u64map index; /* guid -> v[] */
};

static int nodemap_error(char *err, size_t err_len, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int nodemap_error(char *err, size_t err_len, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !err_len)
		return -EBADMSG;
	n = snprintf(err, err_len, "%u: ", line);
	if (n >= 0 && (size_t)n < err_len) {
		va_start(ap, fmt);
		vsnprintf(err + n, err_len - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

void nodemap_free(struct nodemap *m)
{
	if (!m)
		return;
	u64map_free(&m->index);
	free(m->v);
	free(m->text);
	free(m);
}

/* One line: "GUID NAME [# comment]"; *ret_name NULL for a blank or comment line. */
static int nodemap_line(char *s, unsigned no, uint64_t *ret_guid, char **ret_name, char *err,
			size_t err_len)
{
	unsigned long long v;
	char *end, *name;

	*ret_name = NULL;
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	if (!*s || *s == '#')
		return 0;
	if (*s < '0' || *s > '9')
		return nodemap_error(err, err_len, no, "expected a GUID (0x...)");
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || (*end != ' ' && *end != '\t'))
		return nodemap_error(err, err_len, no, "bad GUID '%.24s'", s);
	if (!v)
		return nodemap_error(err, err_len, no, "GUID 0 is no node");
	s = end;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"') {
		name = ++s;
		s = strchr(s, '"');
		if (!s)
			return nodemap_error(err, err_len, no, "unterminated \"name\"");
		*s++ = '\0';
	} else {
		char c;

		name = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#')
			s++;
		c = *s;
		*s = '\0';
		/* past a blank; at a '#' the rest is a comment: stay on the NUL */
		if (c && c != '#')
			s++;
	}
	if (!*name)
		return nodemap_error(err, err_len, no, "empty name for 0x%016llx", v);
	if (strlen(name) > NODEMAP_MAX_NAME)
		return nodemap_error(err, err_len, no, "name longer than %d bytes",
				     NODEMAP_MAX_NAME);
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return nodemap_error(err, err_len, no, "control character in the name");
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	if (*s && *s != '#')
		return nodemap_error(err, err_len, no, "unexpected text after the name: '%.24s'",
				     s);
	*ret_guid = v;
	*ret_name = name;
	return 0;
}

int nodemap_parse(const char *text, size_t len, struct nodemap **ret, char *err, size_t err_len)
{
	struct nodemap *m = calloc(1, sizeof(*m));
	struct lines l;
	char *s;
	size_t n;
	int r;

	if (err && err_len)
		err[0] = '\0';
	if (!m || !(m->text = malloc(len + 1))) {
		free(m);
		return -ENOMEM;
	}
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	lines_init(&l, m->text, len, NODEMAP_MAX_LINE);
	while ((r = lines_next(&l, &s, &n)) != 0) {
		uint64_t guid;
		char *name;

		if (r == -E2BIG) {
			r = nodemap_error(err, err_len, l.no, "line longer than %d bytes",
					  NODEMAP_MAX_LINE);
			goto fail;
		}
		if (r < 0) {
			r = nodemap_error(err, err_len, l.no, "NUL byte in the line");
			goto fail;
		}
		if ((r = nodemap_line(s, l.no, &guid, &name, err, err_len)) < 0)
			goto fail;
		if (!name)
			continue;
		if (u64map_get(&m->index, guid) != U64MAP_NONE) {
			r = nodemap_error(err, err_len, l.no, "0x%016llx named twice",
					  (unsigned long long)guid);
			goto fail;
		}
		if (m->n == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 64;
			struct nodemap_entry *v = realloc(m->v, cap * sizeof(*v));

			if (!v)
				goto nomem;
			m->v = v;
			m->cap = cap;
		}
		if (u64map_add(&m->index, guid, (uint32_t)m->n) < 0)
			goto nomem;
		m->v[m->n++] = (struct nodemap_entry){guid, name};
	}
	*ret = m;
	return 0;
nomem:
	r = -ENOMEM;
fail:
	nodemap_free(m);
	return r;
}

int nodemap_load(const char *path, struct nodemap **ret, char *err, size_t err_len)
{
	char *buf;
	size_t len;
	int r = lines_read_file(path, NODEMAP_MAX_FILE, 0, &buf, &len, err, err_len);

	if (r < 0)
		return r;
	r = nodemap_parse(buf, len, ret, err, err_len);
	if (r == -EBADMSG && err && err_len) {
		char *msg = strdup(err);

		if (msg) {
			snprintf(err, err_len, "%s:%s", path, msg);
			free(msg);
		}
	}
	free(buf);
	return r;
}

const char *nodemap_name(const struct nodemap *m, uint64_t guid)
{
	uint32_t i = m ? u64map_get(&m->index, guid) : U64MAP_NONE;

	return i == U64MAP_NONE ? NULL : m->v[i].name;
}

size_t nodemap_count(const struct nodemap *m)
{
	return m ? m->n : 0;
}

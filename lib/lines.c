/*
 * Bounded file and line reading (see lines.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/lines.h"

#define LINES_FIRST_READ 65536 /* the first buffer when the size is not known */

static int lines_fail(int r, char *err, size_t err_len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int lines_fail(int r, char *err, size_t err_len, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !err_len)
		return r;
	n = snprintf(err, err_len, "%s: ", path);
	if (n >= 0 && (size_t)n < err_len) {
		va_start(ap, fmt);
		vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return r;
}

/*
 * Read fd to its end into a buffer of at most max + 1 bytes (the NUL), first
 * cap bytes.  0, -EFBIG past max, -errno of read, -ENOMEM.
 */
static int lines_read_fd(int fd, size_t max, size_t cap, char **ret_text, size_t *ret_len)
{
	char *buf = malloc(cap + 1), *tmp;
	size_t len = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap > max / 2 ? max + 1 : cap * 2;
			tmp = realloc(buf, cap + 1);
			if (!tmp) {
				free(buf);
				return -ENOMEM;
			}
			buf = tmp;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int r = -errno;

			if (r == -EINTR)
				continue;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*ret_text = buf;
	*ret_len = len;
	return 0;
}

int lines_read_file(const char *path, size_t max, unsigned flags, char **ret_text, size_t *ret_len,
		    char *err, size_t err_len)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
	size_t cap = LINES_FIRST_READ;
	struct stat sb;
	int fd, r;

	if (max >= SIZE_MAX / 2)
		return lines_fail(-EINVAL, err, err_len, path, "%s", strerror(EINVAL));
	if (flags & LINES_REGULAR)
		oflags |= O_NONBLOCK; /* opening a FIFO must not hang the caller */
	fd = open(path, oflags);
	if (fd < 0) {
		r = -errno;
		return lines_fail(r, err, err_len, path, "%s", strerror(-r));
	}
	if (fstat(fd, &sb) < 0) {
		r = -errno;
		goto fail;
	}
	if ((flags & LINES_REGULAR) && !S_ISREG(sb.st_mode)) {
		close(fd);
		if (S_ISDIR(sb.st_mode))
			return lines_fail(-EISDIR, err, err_len, path, "%s", strerror(EISDIR));
		return lines_fail(-EINVAL, err, err_len, path, "not a regular file");
	}
	/* a regular file: its size, plus one byte to see the end without growing */
	if (S_ISREG(sb.st_mode) && sb.st_size >= 0)
		cap = (uint64_t)sb.st_size < max ? (size_t)sb.st_size + 1 : max + 1;
	else if (cap > max + 1)
		cap = max + 1;
	r = lines_read_fd(fd, max, cap, ret_text, ret_len);
	if (r < 0)
		goto fail;
	close(fd);
	return 0;

fail:
	close(fd);
	if (r == -EFBIG)
		return lines_fail(r, err, err_len, path, "larger than %zu bytes", max);
	return lines_fail(r, err, err_len, path, "%s", strerror(-r));
}

void lines_init(struct lines *l, char *text, size_t len, size_t max)
{
	*l = (struct lines){.text = text, .len = len, .max = max};
}

int lines_next(struct lines *l, char **ret_line, size_t *ret_len)
{
	char *s, *nl;
	size_t n;

	if (l->off >= l->len)
		return 0;
	s = l->text + l->off;
	nl = memchr(s, '\n', l->len - l->off);
	n = nl ? (size_t)(nl - s) : l->len - l->off;
	s[n] = '\0';
	l->off += n + 1;
	l->no++;
	*ret_line = s;
	*ret_len = n;
	if (n > l->max)
		return -E2BIG;
	if (memchr(s, '\0', n))
		return -EBADMSG;
	return 1;
}

/*
 * Bounded reading of the text files an operator or another program wrote
 * (ibsmd.conf, partitions.conf, qos-policy.conf, guid2lid, the roots file,
 * topology files): a whole file of at most a given size read into memory,
 * then handed out line by line with its number, no line longer than a
 * given bound.  The bytes are untrusted: a file over its size, a line over
 * its bound and a NUL byte inside a line are reported, never truncated
 * silently (bgpd's and ospfd's parsers read their files the same way).
 *
 * What a parser says about a bad line is its own (each keeps its words):
 * lines_next reports the line's number and what is wrong with it, and
 * hands the line out anyway for a parser that wants to look.  Library
 * code: no logging.
 */
#ifndef IBSMD_LINES_H
#define IBSMD_LINES_H

#include <stddef.h>

/* lines_read_file flags */
#define LINES_REGULAR 0x1 /* refuse anything but a regular file; open O_NONBLOCK (a FIFO) */

/*
 * Read all of path, at most max bytes, into a new buffer: *ret_text (the
 * caller frees it; NUL-terminated, so it has *ret_len + 1 bytes) and
 * *ret_len.  Returns 0; -errno of open or read; -EFBIG for a file over max
 * bytes; with LINES_REGULAR, -EISDIR for a directory and -EINVAL for any
 * other file that is not a regular one; -ENOMEM.  On failure err (when not
 * NULL) gets "path: why" (strerror's words, "larger than MAX bytes", "not a
 * regular file") and the outputs are untouched.
 */
int lines_read_file(const char *path, size_t max, unsigned flags, char **ret_text, size_t *ret_len,
		    char *err, size_t err_len);

/* A walk over the lines of a text; the fields are private. */
struct lines {
	char *text;
	size_t len, off, max;
	unsigned no; /* the number of the line last handed out, from 1 */
};

/*
 * Walk text[0, len) (text[len] must be writable: lines_read_file's buffers
 * are), lines of at most max bytes, the newline not counted.  Lines are cut
 * in place: each one's newline becomes a NUL.
 */
void lines_init(struct lines *l, char *text, size_t len, size_t max);

/*
 * The next line in *ret_line (NUL-terminated in place) and *ret_len, its
 * number in l->no.  Returns 1 for a good line; 0 when there is none left (a
 * last line without a newline is a line when it is not empty); -E2BIG for a
 * line longer than max; -EBADMSG for a line holding a NUL byte (a line
 * both too long and holding a NUL is -E2BIG).  On either error the line is
 * handed out all the same, and the next call goes on after it.
 */
int lines_next(struct lines *l, char **ret_line, size_t *ret_len);

#endif

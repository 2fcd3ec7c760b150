/*
 * Unit tests of the bounded file and line reader (lib/lines.c): lines and
 * their numbers, the last line without a newline, over-long lines and NUL
 * bytes (reported, handed out, skipped past), and reading files: exact
 * size, over the bound, missing, a directory, a FIFO and /dev/null with and
 * without LINES_REGULAR, a file whose size stat does not tell (/proc).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "lib/lines.h"
#include "tests/testutil.h"

/* Walk text (len bytes, copied) with max; the results as "no:rc:line|..." */
static void walk(const char *text, size_t len, size_t max, char *out, size_t out_len)
{
	char *copy = malloc(len + 1), *line;
	struct lines l;
	size_t n, used = 0;
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, text, len);
	out[0] = '\0';
	lines_init(&l, copy, len, max);
	while ((r = lines_next(&l, &line, &n)) != 0) {
		CU_ASSERT_EQUAL(line[n], '\0');
		used += (size_t)snprintf(out + used, out_len - used, "%u:%s:%s|", l.no,
					 r == 1	       ? "ok"
					 : r == -E2BIG ? "long"
						       : "nul",
					 line);
		if (used >= out_len)
			break;
	}
	CU_ASSERT_EQUAL(lines_next(&l, &line, &n), 0); /* and stays at the end */
	free(copy);
}

static void test_lines(void)
{
	char out[256];

	walk("", 0, 8, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "");
	walk("\n", 1, 8, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:ok:|");
	walk("a\nbb\n\nccc", 9, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:ok:a|2:ok:bb|3:ok:|4:ok:ccc|");
	walk("a\nbb\n", 5, 3, out, sizeof(out)); /* the last newline ends the text */
	CU_ASSERT_STRING_EQUAL(out, "1:ok:a|2:ok:bb|");
	/* max is the longest accepted, the newline not counted */
	walk("abc\nabcd\nx", 10, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:ok:abc|2:long:abcd|3:ok:x|");
	walk("abcd", 4, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:long:abcd|");
	/* a NUL: reported, the line handed out (up to its NUL) */
	walk("a\0b\nc\n", 6, 8, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:nul:a|2:ok:c|");
	/* both too long and a NUL: too long */
	walk("ok\nab\0cd\n", 9, 3, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:ok:ok|2:long:ab|");
	/* CRs are ordinary bytes */
	walk("a\r\nb", 4, 8, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "1:ok:a\r|2:ok:b|");
}

static char dir[] = "/tmp/test_lines_XXXXXX";

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void test_read_file(void)
{
	char path[300], fifo[300], err[512], want[600], *text = NULL;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, "0123\n5678\n", 10);

	/* exactly max bytes: read, NUL-terminated */
	CU_ASSERT_EQUAL(lines_read_file(path, 10, 0, &text, &len, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(len, 10);
	CU_ASSERT_STRING_EQUAL(text, "0123\n5678\n");
	free(text);
	text = NULL;
	CU_ASSERT_EQUAL(lines_read_file(path, 10, LINES_REGULAR, &text, &len, NULL, 0), 0);
	free(text);
	text = NULL;

	/* one byte over */
	CU_ASSERT_EQUAL(lines_read_file(path, 9, 0, &text, &len, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 9 bytes", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_NULL(text);

	/* missing */
	snprintf(path, sizeof(path), "%s/missing", dir);
	CU_ASSERT_EQUAL(lines_read_file(path, 10, 0, &text, &len, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(err, want);

	/* a directory: read(2) refuses it; LINES_REGULAR refuses it first */
	CU_ASSERT_EQUAL(lines_read_file(dir, 10, 0, &text, &len, err, sizeof(err)), -EISDIR);
	CU_ASSERT_EQUAL(lines_read_file(dir, 10, LINES_REGULAR, &text, &len, err, sizeof(err)),
			-EISDIR);
	snprintf(want, sizeof(want), "%s: %s", dir, strerror(EISDIR));
	CU_ASSERT_STRING_EQUAL(err, want);

	/* a FIFO with no writer: LINES_REGULAR neither hangs nor reads it */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	CU_ASSERT_EQUAL(lines_read_file(fifo, 10, LINES_REGULAR, &text, &len, err, sizeof(err)),
			-EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", fifo);
	CU_ASSERT_STRING_EQUAL(err, want);
	unlink(fifo);

	/* /dev/null: empty without the flag, refused with it */
	CU_ASSERT_EQUAL(lines_read_file("/dev/null", 10, 0, &text, &len, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
	text = NULL;
	CU_ASSERT_EQUAL(
	    lines_read_file("/dev/null", 10, LINES_REGULAR, &text, &len, err, sizeof(err)),
	    -EINVAL);

	/* stat says 0 bytes: the buffer grows as the reads go */
	CU_ASSERT_EQUAL(
	    lines_read_file("/proc/self/status", 1 << 20, 0, &text, &len, err, sizeof(err)), 0);
	CU_ASSERT(len > 64);
	CU_ASSERT_EQUAL(strlen(text), len);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Name:"));
	free(text);
	text = NULL;
	CU_ASSERT_EQUAL(lines_read_file("/proc/self/status", 16, 0, &text, &len, err, sizeof(err)),
			-EFBIG);
	CU_ASSERT_PTR_NULL(text);

	snprintf(path, sizeof(path), "%s/f", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"lines, numbers, too long, NUL", test_lines},
	    {"whole files, bounded", test_read_file},
	    {NULL, NULL},
	};

	return testutil_run("lines", cases);
}

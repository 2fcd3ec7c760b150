/*
 * Unit tests of lib/atomic_file.c: a committed file replaces the old one
 * whole, an aborted one leaves it alone, and a write that fails reports its
 * own errno (here EFBIG from RLIMIT_FSIZE, as ENOSPC would be on a full
 * disk) with the old file kept and no temporary file left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "lib/atomic_file.h"
#include "tests/testutil.h"

static char dir[64];

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in dir besides the target: temporary files left behind. */
static int leftovers(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

static void test_commit_abort(void)
{
	struct atomic_file af;
	char path[128];

	snprintf(path, sizeof(path), "%s/f", dir);
	CU_ASSERT_EQUAL_FATAL(atomic_file_open(&af, path, 0644), 0);
	fputs("one\n", af.fp);
	CU_ASSERT_EQUAL(atomic_file_commit(&af, true), 0);
	CU_ASSERT_STRING_EQUAL(slurp(path), "one\n");

	CU_ASSERT_EQUAL_FATAL(atomic_file_open(&af, path, 0644), 0);
	fputs("two\n", af.fp);
	atomic_file_abort(&af);
	CU_ASSERT_STRING_EQUAL(slurp(path), "one\n");
	CU_ASSERT_EQUAL(leftovers(), 0);
}

static void test_write_error_errno(void)
{
	struct rlimit old, lim = {4096, 4096};
	struct atomic_file af;
	char path[128], line[100];
	int r;

	snprintf(path, sizeof(path), "%s/f", dir);
	memset(line, 'x', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_EQUAL_FATAL(atomic_file_open(&af, path, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 1000; i++)
		fputs(line, af.fp);
	r = atomic_file_commit(&af, true);
	setrlimit(RLIMIT_FSIZE, &old);
	CU_ASSERT_EQUAL(r, -EFBIG);
	CU_ASSERT_STRING_EQUAL(slurp(path), "one\n"); /* the old file stays */
	CU_ASSERT_EQUAL(leftovers(), 0);
	unlink(path);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"commit replaces, abort keeps", test_commit_abort},
	    {"a failed write reports its errno", test_write_error_errno},
	    {NULL, NULL},
	};
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/test_atomic.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = testutil_run("atomic_file", cases);
	rmdir(dir);
	return rc;
}

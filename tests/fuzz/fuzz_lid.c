/*
 * Fuzz target for fabric/lid.c's guid2lid reader: the state file survives across
 * restarts and may be damaged or edited by hand, so its bytes are untrusted.
 *
 * Properties: lid_db_load gives 0 or -EBADMSG (with a "FILE:LINE: why"
 * message) and a database either way; saving it and loading the result
 * succeeds with the same count, and saving that gives the same bytes.
 * Files live in one private directory (under $TMPDIR, else /dev/shm when it
 * exists, for speed), removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric/lid.h"
#include "tests/fuzz/fuzz.h"

static char dir[256], in_path[300], out1[300], out2[300];

static void cleanup(void)
{
	unlink(in_path);
	unlink(out1);
	unlink(out2);
	rmdir(dir);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat sb;

	if (!tmp || !*tmp)
		tmp = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) &&
			      access("/dev/shm", W_OK) == 0
			  ? "/dev/shm"
			  : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz_lid.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror(dir);
		abort();
	}
	snprintf(in_path, sizeof(in_path), "%s/in", dir);
	snprintf(out1, sizeof(out1), "%s/guid2lid", dir);
	snprintf(out2, sizeof(out2), "%s/guid2lid.2", dir);
	atexit(cleanup);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;
	ssize_t n;

	if (fd < 0)
		abort();
	while (off < size) {
		n = write(fd, data + off, size - off);
		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	close(fd);
}

static char *read_file(const char *path, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		abort();
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0)
			abort();
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*ret_len = len;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lid_db *db = NULL, *db2 = NULL;
	char err[512], err2[512], *a, *b;
	size_t alen, blen;
	int r;

	if (!dir[0])
		setup();
	if (size > 1 << 20)
		return 0;
	write_file(in_path, data, size);
	r = lid_db_load(in_path, &db, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (r == -ENOMEM)
		return 0;
	FUZZ_CHECK(db != NULL);
	if (r == -EBADMSG)
		FUZZ_CHECK(!strncmp(err, in_path, strlen(in_path)) && err[strlen(in_path)] == ':' &&
			   strchr(err + strlen(in_path) + 1, ':'));

	FUZZ_CHECK(lid_db_save(db, out1) == 0);
	r = lid_db_load(out1, &db2, err2, sizeof(err2));
	if (r != 0)
		fprintf(stderr, "reload: %s\n", err2);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(lid_db_count(db2) == lid_db_count(db));
	FUZZ_CHECK(lid_db_save(db2, out2) == 0);
	a = read_file(out1, &alen);
	b = read_file(out2, &blen);
	FUZZ_CHECK(alen == blen && !memcmp(a, b, alen));
	free(a);
	free(b);
	lid_db_free(db);
	lid_db_free(db2);
	return 0;
}

/*
 * The plain replayer: runs a fuzz target's LLVMFuzzerTestOneInput over saved
 * inputs, so every corpus is replayed by `make check` under gcc without
 * libFuzzer.  Arguments are files or directories (each directory's regular
 * files, one level down, in name order so runs are reproducible).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

static unsigned long replayed;

/* Run one file; its bytes go in an exactly-sized heap buffer so ASan sees overreads. */
static int replay_file(const char *path)
{
	struct stat sb;
	uint8_t *buf;
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc(sb.st_size ? (size_t)sb.st_size : 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (len < (size_t)sb.st_size) {
		n = read(fd, buf + len, (size_t)sb.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == 0) { /* an empty input: hand over a 0-byte allocation */
		free(buf);
		buf = malloc(1);
		if (!buf)
			return -1;
	}
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	replayed++;
	return 0;
}

static int replay_dir(const char *path)
{
	struct dirent **ents;
	struct stat sb;
	char *file;
	int n, i, r = 0;

	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] == '.' ||
		    asprintf(&file, "%s/%s", path, ents[i]->d_name) < 0) {
			free(ents[i]);
			continue;
		}
		if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode) && replay_file(file) < 0)
			r = -1;
		free(file);
		free(ents[i]);
	}
	free(ents);
	return r;
}

int main(int argc, char **argv)
{
	struct stat sb;
	int i, r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			r = 1;
		} else if (S_ISDIR(sb.st_mode) ? replay_dir(argv[i]) < 0
					       : replay_file(argv[i]) < 0) {
			r = 1;
		}
	}
	printf("replayed %lu inputs\n", replayed);
	return r;
}

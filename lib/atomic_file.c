/*
 * Files replaced whole (see atomic_file.h): mkostemp beside the target,
 * rename(2) over it, fsync of the file and the directory when durable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"

static void atomic_file_release(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	af->fp = NULL;
}

int atomic_file_open(struct atomic_file *af, const char *path, mode_t mode)
{
	int fd, r;

	memset(af, 0, sizeof(*af));
	if (!path || !*path)
		return -EINVAL;
	af->path = strdup(path);
	if (!af->path || asprintf(&af->tmp, "%s.tmp.XXXXXX", path) < 0) {
		af->tmp = NULL;
		r = -ENOMEM;
		goto release;
	}
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto release;
	}
	if (fchmod(fd, mode) < 0 || !(af->fp = fdopen(fd, "w"))) {
		r = -errno;
		close(fd);
		goto unlink_tmp;
	}
	return 0;

unlink_tmp:
	unlink(af->tmp);
release:
	atomic_file_release(af);
	return r;
}

/* fsync the directory holding path, so a rename into it is durable. */
static int atomic_file_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, r = 0;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		r = -errno;
	else if (fsync(fd) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return r;
}

int atomic_file_commit(struct atomic_file *af, bool durable)
{
	int r = 0;

	if (!af->fp)
		return -EINVAL;
	errno = 0;
	if (fflush(af->fp) != 0 || ferror(af->fp))
		r = errno ? -errno : -EIO;
	else if (durable && fsync(fileno(af->fp)) < 0)
		r = -errno;
	if (fclose(af->fp) != 0 && !r)
		r = errno ? -errno : -EIO;
	af->fp = NULL;
	if (!r && rename(af->tmp, af->path) < 0)
		r = -errno;
	if (r)
		unlink(af->tmp);
	else if (durable)
		r = atomic_file_sync_dir(af->path);
	atomic_file_release(af);
	return r;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->fp) {
		fclose(af->fp);
		unlink(af->tmp);
	}
	atomic_file_release(af);
}

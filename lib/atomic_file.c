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

/*
 * The stream writes through these so that the errno of a failed write
 * (ENOSPC, EDQUOT, EFBIG) is kept for commit to report: stdio only keeps
 * "an error happened".
 */
static ssize_t af_write(void *cookie, const char *buf, size_t size)
{
	struct atomic_file *af = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(af->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!af->write_err)
				af->write_err = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int af_close(void *cookie)
{
	struct atomic_file *af = cookie;
	int r = close(af->fd);

	af->fd = -1;
	return r;
}

int atomic_file_open(struct atomic_file *af, const char *path, mode_t mode)
{
	int fd, r;

	memset(af, 0, sizeof(*af));
	af->fd = -1;
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
	af->fd = fd;
	if (fchmod(fd, mode) < 0 ||
	    !(af->fp =
		  fopencookie(af, "w", (cookie_io_functions_t){NULL, af_write, NULL, af_close}))) {
		r = -errno;
		close(fd);
		af->fd = -1;
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
		r = af->write_err ? -af->write_err : errno ? -errno : -EIO;
	else if (durable && fsync(af->fd) < 0)
		r = -errno;
	if (fclose(af->fp) != 0 && !r)
		r = af->write_err ? -af->write_err : errno ? -errno : -EIO;
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

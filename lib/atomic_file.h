/*
 * Files replaced whole: written to a temporary file beside the target
 * ("PATH.tmp.XXXXXX"), then renamed over it, so a reader (or a crash) sees
 * the old file or the new one, never half of one.  A durable commit also
 * fsyncs the file and its directory (the guid->LID map must survive a power
 * cut; the routing dumps need not).  Library code: no logging.
 */
#ifndef IBSMD_ATOMIC_FILE_H
#define IBSMD_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct atomic_file {
	FILE *fp; /* write here between open and commit/abort */
	char *path;
	char *tmp;
	int fd;	       /* under fp */
	int write_err; /* errno of the first failed write, for commit */
};

/* Create the temporary file (mode, e.g. 0644).  0 or -errno (*af then needs no cleanup). */
int atomic_file_open(struct atomic_file *af, const char *path, mode_t mode);
/*
 * Flush, (durable: fsync), close and rename over the target (durable: then
 * fsync the directory).  0, or -errno with the temporary file removed; a
 * failed write reports its own errno (-ENOSPC, -EDQUOT, -EFBIG), not -EIO.
 * Either way *af is released.
 */
int atomic_file_commit(struct atomic_file *af, bool durable);
/* Close and remove the temporary file, release *af.  A released or zeroed *af is fine. */
void atomic_file_abort(struct atomic_file *af);

#endif

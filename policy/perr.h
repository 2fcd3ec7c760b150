/*
 * A collector of "FILE:LINE: message" errors for the parsers of hand-written
 * files (partitions.conf, qos-policy.conf): every error is counted, as many
 * as fit are kept in the caller's buffer one a line, and room is kept at
 * its end for a closing "... and N more".  Library code: no logging.
 */
#ifndef IBSMD_PERR_H
#define IBSMD_PERR_H

#include <stddef.h>

struct perr {
	const char *name; /* the file's name, before each ":LINE: " */
	char *err;	  /* the caller's buffer (NULL: count only) */
	size_t err_len, err_used;
	unsigned n_err, n_dropped; /* errors in all; those that did not fit */
};

/* Count one error at line and keep "name:line: fmt..." when it fits. */
void perr_add(struct perr *pe, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * After the last perr_add: when errors were dropped, append
 * "\n... and N more" to the buffer, followed by " noun" (plural "s" when
 * N > 1) when noun is not NULL.
 */
void perr_finish(struct perr *pe, const char *noun);

#endif

/*
 * "FILE:LINE: message" error collector (see perr.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/perr.h"

void perr_add(struct perr *pe, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	pe->n_err++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!pe->err || !pe->err_len)
		return;
	/* room for "... and N more errors" is kept at the end */
	n = snprintf(NULL, 0, "%s%s:%u: %s", pe->err_used ? "\n" : "", pe->name, line, msg);
	if (pe->n_dropped || pe->err_used + (size_t)n + 48 >= pe->err_len) {
		pe->n_dropped++;
		return;
	}
	snprintf(pe->err + pe->err_used, pe->err_len - pe->err_used, "%s%s:%u: %s",
		 pe->err_used ? "\n" : "", pe->name, line, msg);
	pe->err_used += (size_t)n;
}

void perr_finish(struct perr *pe, const char *noun)
{
	if (!pe->n_dropped || !pe->err || pe->err_len <= pe->err_used)
		return;
	snprintf(pe->err + pe->err_used, pe->err_len - pe->err_used, "\n... and %u more%s%s%s",
		 pe->n_dropped, noun ? " " : "", noun ? noun : "",
		 noun && pe->n_dropped != 1 ? "s" : "");
}

int perr_read_file(const char *path, size_t max, char **ret_text, size_t *ret_len, char *err,
		   size_t err_len)
{
	char *text;
	size_t len;
	FILE *fp;
	int r;

	fp = fopen(path, "re");
	if (!fp) {
		r = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return r;
	}
	text = malloc(max + 1);
	if (!text) {
		fclose(fp);
		return -ENOMEM;
	}
	len = fread(text, 1, max + 1, fp);
	r = ferror(fp) ? -EIO : 0;
	fclose(fp);
	if (r == 0 && len > max) {
		snprintf(err, err_len, "%s: larger than %zu bytes", path, max);
		r = -EFBIG;
	} else if (r < 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(-r));
	}
	if (r < 0) {
		free(text);
		return r;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}

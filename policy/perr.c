/*
 * "FILE:LINE: message" error collector (see perr.h).
 */
#include <stdarg.h>
#include <stdio.h>

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

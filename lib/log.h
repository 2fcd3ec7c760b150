/*
 * The daemon's log: stderr, or the journal with structured fields when
 * running under systemd, or a file (log_file, OpenSM's -f) that logrotate
 * renames: log_reopen() opens the name again (SIGUSR1, SIGHUP).  The daemon's parts log (daemon/,
 * ui/, sm/, smp/, sa/, failover/, perf/); library code (mad/, routing/, fabric/, policy/ and the
 * rest of lib/) does not: it returns codes and counts.
 *
 * Levels follow syslog.  Errors and warnings are always printed; notice, info
 * and debug lines pass by their category's level (info by default), which
 * can be changed at run time (smctl loglevel).  Remote errors go through
 * log_ratelimited() so a misbehaving fabric cannot flood the journal.
 */
#ifndef IBSMD_LOG_H
#define IBSMD_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_cat {
	LOG_CAT_SWEEP,
	LOG_CAT_MAD,
	LOG_CAT_ROUTE,
	LOG_CAT_SA,
	LOG_CAT_CTL,
	LOG_CAT_MAX,
};

void log_init(const char *ident, bool to_journal);
/*
 * Log to the file at path from now on (appended, created 0640), in the
 * stderr format, in place of stderr or the journal.  0 or -errno (nothing
 * changes then).
 */
int log_open_file(const char *path);
/*
 * Open the log file's name again (after logrotate renamed it); the old one
 * is closed once the new one is open.  0 (also without a log file), or
 * -errno with the old file kept.
 */
int log_reopen(void);
/* Back to stderr or the journal; the file is closed.  Safe without one. */
void log_close_file(void);
/*
 * The most verbose level printed (clamped to LOG_ERR..LOG_DEBUG) for a
 * category, or for every one if cat < 0.
 */
void log_set_level(int cat, int level);
int log_get_level(int cat);
bool log_enabled(int cat, int level);
int log_level_from_str(const char *s);
const char *log_level_str(int level);
int log_cat_from_str(const char *s);
const char *log_cat_str(int cat);

/* Now as ISO 8601 local time with milliseconds and offset: 2026-12-01T11:22:35.743+00:00. */
void log_time_iso(char *buf, size_t len);
void log_msg(int cat, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * A message about one port: the journal gets NODE_GUID= and PORT= fields
 * (port < 0: none); stderr gets the text only, which should name the object.
 */
void log_port(int cat, int level, uint64_t node_guid, int port, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/*
 * At most 10 lines per 10 s from this call site; the rest are counted and
 * reported in one warning ("N similar messages suppressed") when the next
 * window opens.
 */
#define log_ratelimited(cat, level, ...)                                                           \
	do {                                                                                       \
		static struct log_rl log_rl_site_;                                                 \
		if (log_rl_pass(&log_rl_site_))                                                    \
			log_msg(cat, level, __VA_ARGS__);                                          \
	} while (0)
#define log_port_ratelimited(cat, level, guid, port, ...)                                          \
	do {                                                                                       \
		static struct log_rl log_rl_site_;                                                 \
		if (log_rl_pass(&log_rl_site_))                                                    \
			log_port(cat, level, guid, port, __VA_ARGS__);                             \
	} while (0)

struct log_rl {
	long window_start;
	unsigned count;
	unsigned suppressed;
};
bool log_rl_pass(struct log_rl *rl);

#define log_err(...) log_msg(LOG_CAT_SWEEP, LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_CAT_SWEEP, LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_CAT_SWEEP, LOG_INFO, __VA_ARGS__)
#define log_debug(cat, ...) log_msg(cat, LOG_DEBUG, __VA_ARGS__)

#endif

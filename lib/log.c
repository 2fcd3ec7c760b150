/*
 * The daemon's log (see log.h): stderr with a level prefix, or the systemd
 * journal with PRIORITY, SYSLOG_IDENTIFIER and IBSMD_CATEGORY fields, or a
 * file in the stderr format, line-buffered so that a line is whole on disk
 * (OpenSM's -f; its -d2 flush is what this always does).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "lib/log.h"

static const char *log_ident = "ibsmd";
static bool log_journal;
static FILE *log_fp;	    /* log_file, or NULL */
static char log_path[4096]; /* its name, for log_reopen */
static int log_levels[LOG_CAT_MAX] = {LOG_INFO, LOG_INFO, LOG_INFO, LOG_INFO, LOG_INFO};

static const char *const cat_names[LOG_CAT_MAX] = {"sweep", "mad", "route", "sa", "ctl"};
static const char *const level_names[] = {"emerg",   "alert",  "crit", "error",
					  "warning", "notice", "info", "debug"};

void log_init(const char *ident, bool to_journal)
{
	if (ident)
		log_ident = ident;
	log_journal = to_journal;
}

static FILE *log_fopen(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
	FILE *fp;

	if (fd < 0)
		return NULL;
	fp = fdopen(fd, "a");
	if (!fp) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}

int log_open_file(const char *path)
{
	FILE *fp;

	if (!path || !*path || strlen(path) >= sizeof(log_path))
		return -EINVAL;
	fp = log_fopen(path);
	if (!fp)
		return -errno;
	if (log_fp)
		fclose(log_fp);
	log_fp = fp;
	snprintf(log_path, sizeof(log_path), "%s", path);
	return 0;
}

int log_reopen(void)
{
	FILE *fp;

	if (!log_fp)
		return 0;
	fp = log_fopen(log_path);
	if (!fp)
		return -errno;
	fclose(log_fp);
	log_fp = fp;
	return 0;
}

void log_close_file(void)
{
	if (log_fp)
		fclose(log_fp);
	log_fp = NULL;
	log_path[0] = '\0';
}

void log_set_level(int cat, int level)
{
	if (level < LOG_ERR)
		level = LOG_ERR;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	if (cat < 0) {
		for (int i = 0; i < LOG_CAT_MAX; i++)
			log_levels[i] = level;
	} else if (cat < LOG_CAT_MAX) {
		log_levels[cat] = level;
	}
}

int log_get_level(int cat)
{
	return cat >= 0 && cat < LOG_CAT_MAX ? log_levels[cat] : LOG_INFO;
}

bool log_enabled(int cat, int level)
{
	if (level <= LOG_WARNING)
		return true;
	return level <= log_get_level(cat);
}

int log_level_from_str(const char *s)
{
	if (!s)
		return -1;
	if (!strcasecmp(s, "warn"))
		return LOG_WARNING;
	if (!strcasecmp(s, "err"))
		return LOG_ERR;
	for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (!strcasecmp(s, level_names[i]))
			return i;
	return -1;
}

const char *log_level_str(int level)
{
	return level >= 0 && level <= LOG_DEBUG ? level_names[level] : "?";
}

int log_cat_from_str(const char *s)
{
	for (int i = 0; s && i < LOG_CAT_MAX; i++)
		if (!strcasecmp(s, cat_names[i]))
			return i;
	return -1;
}

const char *log_cat_str(int cat)
{
	return cat >= 0 && cat < LOG_CAT_MAX ? cat_names[cat] : "?";
}

static void log_emit(int cat, int level, uint64_t guid, int port, const char *line)
{
	if (log_journal && !log_fp) {
		if (port >= 0)
			sd_journal_send("MESSAGE=%s", line, "PRIORITY=%d", level,
					"SYSLOG_IDENTIFIER=%s", log_ident, "IBSMD_CATEGORY=%s",
					log_cat_str(cat), "NODE_GUID=0x%016llx",
					(unsigned long long)guid, "PORT=%d", port, NULL);
		else
			sd_journal_send("MESSAGE=%s", line, "PRIORITY=%d", level,
					"SYSLOG_IDENTIFIER=%s", log_ident, "IBSMD_CATEGORY=%s",
					log_cat_str(cat), NULL);
		return;
	}
	char when[80];

	log_time_iso(when, sizeof(when));
	fprintf(log_fp ? log_fp : stderr, "%s %s %s: %s\n", when, log_ident, log_level_str(level),
		line);
}

void log_time_iso(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	long off;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	off = tm.tm_gmtoff / 60;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ld%c%02ld:%02ld", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		 off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
}

void log_msg(int cat, int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!log_enabled(cat, level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_emit(cat, level, 0, -1, line);
}

void log_port(int cat, int level, uint64_t guid, int port, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!log_enabled(cat, level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_emit(cat, level, guid, port, line);
}

bool log_rl_pass(struct log_rl *rl)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ts.tv_sec - rl->window_start >= 10) {
		if (rl->suppressed)
			log_msg(LOG_CAT_SWEEP, LOG_WARNING, "%u similar messages suppressed",
				rl->suppressed);
		rl->window_start = ts.tv_sec;
		rl->count = 0;
		rl->suppressed = 0;
	}
	if (rl->count < 10) {
		rl->count++;
		return true;
	}
	rl->suppressed++;
	return false;
}

/*
 * What the SM object (struct sm, sm.h) does for every part of the SM, below
 * them all: the registry of parts (sm/part.h), the registry of live-key appliers, the guid2lid file
 * written (and retried), the debug lines of MAD and memory use.  sm.c, above every part, makes and
 * frees the object and wires the parts together; the parts call down into this file, never up into
 * sm.c.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fabric/lid.h"
#include "mad/xact.h"
#include "mad/madio.h"
#include "lib/log.h"
#include "sm/sm.h"

/* ---- parts (sm/part.h) ------------------------------------------------------ */

int sm_part_add(struct sm *sm, const struct sm_part_ops *ops, void *obj)
{
	if (sm_part_get(sm, ops))
		return -EEXIST;
	if (sm->n_registry == SM_MAX_PARTS)
		return -ENOSPC;
	sm->registry[sm->n_registry++] = (struct sm_part){ops, obj};
	return 0;
}

void *sm_part_get(const struct sm *sm, const struct sm_part_ops *ops)
{
	for (unsigned i = 0; i < sm->n_registry; i++)
		if (sm->registry[i].ops == ops)
			return sm->registry[i].obj;
	return NULL;
}

void *sm_part_named(const struct sm *sm, const char *name)
{
	for (unsigned i = 0; i < sm->n_registry; i++)
		if (!strcmp(sm->registry[i].ops->name, name))
			return sm->registry[i].obj;
	return NULL;
}

void sm_parts_free(struct sm *sm)
{
	/* a part being freed still finds itself (sm_part_get) */
	while (sm->n_registry) {
		const struct sm_part *p = &sm->registry[sm->n_registry - 1];

		p->ops->free(sm, p->obj);
		sm->n_registry--;
	}
}

/* ---- live-key appliers ---------------------------------------------------- */

int sm_conf_applier_add(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx)
{
	struct sm_conf_applier *a;

	if (conf_key_live(key) != CONF_LIVE_APPLY)
		return -EINVAL;
	a = realloc(sm->appliers, (sm->n_appliers + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	sm->appliers = a;
	sm->appliers[sm->n_appliers++] = (struct sm_conf_applier){key, fn, ctx};
	return 0;
}

void sm_conf_applier_remove(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx)
{
	for (size_t i = 0; i < sm->n_appliers; i++) {
		struct sm_conf_applier *a = &sm->appliers[i];

		if (a->fn == fn && a->ctx == ctx && !strcmp(a->key, key)) {
			memmove(a, a + 1, (sm->n_appliers - i - 1) * sizeof(*a));
			sm->n_appliers--;
			return;
		}
	}
}

/* ---- guid2lid -------------------------------------------------------------- */

static void sm_lids_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	sm_save_lids(arg);
}

int sm_save_lids(struct sm *sm)
{
	int r = lid_db_save(sm->lids, sm->lid_path);

	if (r == 0) {
		if (sm->lid_save.owed)
			log_info("wrote %s after %u failed attempt%s", sm->lid_path,
				 sm->lid_save.failures, sm->lid_save.failures == 1 ? "" : "s");
		sm->lid_save.owed = false;
		sm->lid_save.failures = 0;
		if (sm->lid_save.retry)
			evtimer_del(sm->lid_save.retry);
		return 0;
	}
	if (!sm->lid_save.failures)
		log_err("cannot write %s: %s (LIDs may change on restart); trying again",
			sm->lid_path, strerror(-r));
	else
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "%s still cannot be written: %s", sm->lid_path,
			strerror(-r));
	sm->lid_save.owed = true;
	sm->lid_save.failures++;
	if (!sm->lid_save.retry)
		sm->lid_save.retry = evtimer_new(sm->base, sm_lids_retry_cb, sm);
	if (sm->lid_save.retry) {
		unsigned shift = sm->lid_save.failures - 1 < 6 ? sm->lid_save.failures - 1 : 6;
		long sec = 5L << shift;
		struct timeval tv = {sec > 300 ? 300 : sec, 0};

		evtimer_add(sm->lid_save.retry, &tv);
	}
	return r;
}

/* ---- debug lines ----------------------------------------------------------- */

static double mb(size_t bytes)
{
	return bytes / (1024.0 * 1024.0);
}

/* Resident set now, from /proc/self/statm; 0 when unreadable. */
static size_t rss_now(void)
{
	unsigned long size, resident;
	FILE *fp = fopen("/proc/self/statm", "r");
	int n;

	if (!fp)
		return 0;
	n = fscanf(fp, "%lu %lu", &size, &resident);
	fclose(fp);
	return n == 2 ? resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

void sm_mem_get(const struct sm *sm, const struct snapshot *prev, struct sm_mem *ret)
{
	struct mallinfo2 mi = mallinfo2();
	struct rusage ru;

	memset(ret, 0, sizeof(*ret));
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		ret->peak_rss = (size_t)ru.ru_maxrss * 1024;
	ret->rss = rss_now();
	ret->heap = mi.uordblks + mi.hblkhd;
	ret->snapshot = snapshot_mem(sm->snap);
	ret->fabric = sm->snap ? fabric_mem(sm->snap->fabric) : 0;
	ret->routes = sm->snap ? routes_mem(sm->snap->routes) : 0;
	ret->prev_snapshot = snapshot_mem(prev);
	ret->xact = xact_mem(sm->xe);
}

void sm_log_io(struct sm *sm, const struct snapshot *prev)
{
	struct madio_stats ms = {0};
	struct xact_stats xs = {0};
	struct sm_mem m;
	struct rusage ru;

	if (!log_enabled(LOG_CAT_MAD, LOG_DEBUG))
		return;
	if (sm->io)
		madio_get_stats(sm->io, &ms);
	if (sm->xe)
		xact_get_stats(sm->xe, &xs);
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		memset(&ru, 0, sizeof(ru));
	sm_mem_get(sm, prev, &m);
	log_msg(LOG_CAT_MAD, LOG_DEBUG,
		"mad: %llu sent (%llu retries, %llu timeouts), %llu received in %llu hand-offs "
		"(%llu wake-ups), %llu dropped; cpu %.2f s user %.2f s system",
		(unsigned long long)ms.sent, (unsigned long long)xs.retries,
		(unsigned long long)xs.timeouts, (unsigned long long)ms.received,
		(unsigned long long)ms.batches, (unsigned long long)ms.wakeups,
		(unsigned long long)ms.dropped, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	log_msg(LOG_CAT_MAD, LOG_DEBUG,
		"memory: peak RSS %.1f MB, now %.1f MB, heap in use %.1f MB; published snapshot "
		"%.1f MB (fabric %.1f, routes %.1f), previous snapshot %.1f MB, transaction "
		"engine %.1f MB",
		mb(m.peak_rss), mb(m.rss), mb(m.heap), mb(m.snapshot), mb(m.fabric), mb(m.routes),
		mb(m.prev_snapshot), mb(m.xact));
}

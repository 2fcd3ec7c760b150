/*
 * Inside the runtime partitions part (tenants/tenants.c calls down into
 * tenants/tenants_batch.c): the P_KeyTable batches between sweeps, the view of
 * what the ports answered, the readiness of a P_Key.  tenants.c owns the
 * set, its file and the requests; it marks the end ports whose tables may
 * change (tenants_batch_mark) and asks for a batch (tenants_batch_request).
 * Not for other files.
 */
#ifndef IBSMD_TENANTS_BATCH_H
#define IBSMD_TENANTS_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/pkeyview.h"
#include "lib/u64map.h"
#include "tenants/tenants.h"

struct sm;
struct program;
struct event;

/* A set of port GUIDs: a hash map for membership, an array for the walk. */
struct tenants_gset {
	struct u64map ix;
	uint64_t *v;
	size_t n, cap;
};

struct tenants_batch {
	struct sm *sm;
	struct pkeyview view; /* what the batches found the ports to hold since the publish */
	struct program *pg;   /* the batch running, or NULL */
	struct tenants_gset batch_ports; /* the end ports it writes (marked again when abandoned) */
	struct tenants_gset dirty;	 /* end ports whose tables must be looked at */
	struct tenants_gset touched;	 /* end ports written since the last programmed publish */
	uint64_t *rewrite;		 /* touched, sorted, for the configure hook */
	struct event *kick, *retry;
	unsigned retry_s;
	bool pending;
	uint64_t batches, blocks, errors;
};

/* Timers and hooks (sm->hooks: sweep_begin, published, configure, state_changed).  0 or -ENOMEM. */
int tenants_batch_init(struct tenants_batch *t, struct sm *sm);
/* Unhook, abandon the batch, free what it holds.  NULL-safe state. */
void tenants_batch_fini(struct tenants_batch *t);
/* The end port guid's table must be looked at.  0 or -ENOMEM (a sweep is asked for then). */
int tenants_batch_mark(struct tenants_batch *t, uint64_t guid);
/* A batch for the marked ports, from the loop (after the batch running, or the sweep). */
void tenants_batch_request(struct tenants_batch *t);
/* tenants_ready (tenants/tenants.h) with this view (t may be NULL: the snapshot's tables). */
bool tenants_batch_ready(const struct tenants_batch *t, const struct sm *sm, uint16_t pkey,
			 struct tenants_ready *ret);

#endif

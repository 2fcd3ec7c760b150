/*
 * The routing worker: the full engine over a copy of a published fabric, on
 * a thread of its own, while the loop goes on (DESIGN.md: "a routing worker
 * routes a large fabric over an immutable snapshot and hands the result back
 * to the loop").  sm/route.c uses it to re-balance in the background after a
 * repair that kept every route and added what came back (routing/repair.h):
 * the subnet is up at once, the engine's balance follows.
 *
 * One job at a time.  The thread owns the job's copy of the fabric, its
 * options and its result until it ends; then it writes an eventfd the loop
 * watches, and the loop joins it and runs done.  Nothing else is shared.
 * The engines are pure (routing/), so running one on a thread needs no lock.
 */
#ifndef IBSMD_REBALANCE_H
#define IBSMD_REBALANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>

#include "fabric/fabric.h"
#include "routing/chain.h"
#include "routing/routing.h"

struct rebalance;

/* What a finished job hands back (rebalance_take). */
struct rebalance_result {
	struct chain_result res; /* the engine's routes (counted loads) or its refusals */
	int rc;			 /* chain_run's */
	uint64_t generation;	 /* of the snapshot whose fabric was routed */
	double ms;		 /* the engine, on the thread */
};

/* Runs on the loop once the job is over (its result waits in rb). */
typedef void rebalance_done_fn(void *arg);

/* A worker on base's loop (no thread yet).  0 or -errno; free NULL-safe. */
int rebalance_new(struct event_base *base, rebalance_done_fn *done, void *arg,
		  struct rebalance **ret);
/* Waits for a running job (its result is dropped), then frees. */
void rebalance_free(struct rebalance *rb);

/*
 * Route a copy of f (taken now: f may change or go once this returns) with
 * the engine named first and the chain (chain_run's), o copied (its roots
 * too), on the thread; generation names f's snapshot.  A result not taken
 * is dropped.  0, -EBUSY while a job runs, -ENOMEM, or pthread_create's
 * error.
 */
int rebalance_start(struct rebalance *rb, const struct fabric *f, const struct routing_opts *o,
		    const char *first, const char *chain, uint64_t generation);
/* Whether a job runs (started, done not yet run). */
bool rebalance_running(const struct rebalance *rb);
/*
 * The finished job's result (the caller's: chain_result_clear), when there
 * is one; false otherwise.
 */
bool rebalance_take(struct rebalance *rb, struct rebalance_result *ret);

#endif

/*
 * The routing fallback chain (routing/chain.c): try engines in order until
 * one routes the fabric, and say why each one before it refused.  Pure, like
 * the engines: the caller (sm/) logs the refusals.
 */
#ifndef IBSMD_CHAIN_H
#define IBSMD_CHAIN_H

#include <stdbool.h>

#include "routing/routing.h"

/*
 * At most this many names are tried in one run: more than there are engines,
 * and more than a configuration names (routing_engine + 8 of routing_chain).
 */
#define CHAIN_MAX 16

/* One engine that did not route the fabric, or a name that is no engine. */
struct chain_refusal {
	char engine[32];  /* the name as given (truncated) */
	int rc;		  /* the engine's error; -EINVAL for an unknown name */
	char reason[256]; /* one line: the engine's why, else strerror(-rc) */
};

struct chain_result {
	struct routes *routes;			  /* NULL unless an engine routed; the caller's */
	const struct routing_engine *engine;	  /* the engine that routed, NULL if none */
	struct chain_refusal refusals[CHAIN_MAX]; /* in the order tried */
	unsigned int n_refusals;
};

/*
 * Route f with the engines named in first, then those in chain (both
 * comma-separated lists, NULL or empty allowed), passing o (NULL = defaults)
 * to each, until one succeeds.  A name already tried is skipped, so each
 * refusal is reported once; a name that is no engine is a refusal "unknown
 * routing engine" with -EINVAL; after CHAIN_MAX refusals no more names are
 * tried.
 *
 * *ret is overwritten whatever the outcome (clear an earlier result first):
 * the refusals in order, and on success the routes (free them with
 * chain_result_clear() or take them and set ret->routes to NULL) and the
 * engine.  Returns 0; else the last engine's error (-ENOTSUP when every
 * engine refused or none was named; -EINVAL, -ENOMEM as the last one said).
 */
int chain_run(const struct fabric *f, const struct routing_opts *o, const char *first,
	      const char *chain, struct chain_result *ret);

/* Free r's routes and empty it.  NULL is fine. */
void chain_result_clear(struct chain_result *r);

/*
 * Whether list[0..n) holds x: the same engine refused with the same error
 * and reason (for logging a refusal that repeats pass after pass once).
 */
bool chain_has_refusal(const struct chain_refusal *list, unsigned int n,
		       const struct chain_refusal *x);

#endif

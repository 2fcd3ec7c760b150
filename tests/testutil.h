/*
 * Helpers shared by the unit tests (tests/test_*.c): the CUnit main
 * boilerplate, and for the routing tests loading a topology text, assigning
 * LIDs in GUID order, finding a node by description, cutting a link,
 * routing with an engine, counting changed LFT blocks, and a clock.
 */
#ifndef IBSMD_TESTUTIL_H
#define IBSMD_TESTUTIL_H

#include <stdint.h>

#include <CUnit/CUnit.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"
#include "smp/program.h"

struct event_base;

struct testutil_case {
	const char *name;
	CU_TestFunc fn;
};

/*
 * Run the cases (terminated by a {NULL, NULL} entry) as one suite in verbose
 * mode.  Returns 0 when every test passed, non-zero when the registry could
 * not be set up or any assertion or test failed.
 */
int testutil_run(const char *suite, const struct testutil_case *cases);

/* Parse a topology text (fabric/topo.h); a parse error fails the test (fatal). */
struct fabric *testutil_load_text(const char *text);

/*
 * LIDs in node GUID order (so a shuffled file gets the same LIDs): switch
 * port 0 one LID, every CA port a block of 2^lmc.  Returns the highest LID.
 */
uint16_t testutil_assign_lids(struct fabric *f, uint8_t lmc);

/* testutil_load_text, then LIDs as testutil_assign_lids with lmc 0 (fatal failures). */
struct fabric *testutil_load_lids(const char *text);

/* The LIDs src gave the same ports (matched by node GUID; a GUID not in src is fatal). */
void testutil_copy_lids(struct fabric *dst, const struct fabric *src);

/* Index of the node with that description, or FABRIC_NO_NODE. */
uint32_t testutil_find_desc(const struct fabric *f, const char *desc);

/* Cut the link on port p of the node described desc (both ends; it must be there, linked). */
void testutil_cut(struct fabric *f, const char *desc, uint8_t p);

/* The routes of engine (routing/routing.h) on f; a failure is fatal, its why on stderr. */
struct routes *testutil_route(const struct fabric *f, const char *engine);

/*
 * LFT blocks of f's switches whose content differs between the old routes
 * (or on fabric of, switches matched by GUID; a switch new in f: all its
 * blocks) and r; *ret_total gets the number of blocks.
 */
uint64_t testutil_blocks_changed(const struct fabric *of, const struct routes * or,
				 const struct fabric *f, const struct routes *r,
				 uint64_t *ret_total);

/*
 * A programming batch (smp/program.h) waited for: give testutil_batch_done
 * and a zeroed struct testutil_batch to program_new, configure the batch,
 * then testutil_batch_run starts it and runs base's loop until it is done,
 * at most limit_s seconds (not done: a fatal failure); the batch's stats.
 * Done twice fails the test.
 */
struct testutil_batch {
	bool done;
	struct program_stats st;
};
void testutil_batch_done(void *arg, const struct program_stats *st);
struct program_stats testutil_batch_run(struct event_base *base, struct program *pg,
					struct testutil_batch *b, int limit_s);
/*
 * The whole of one configure batch: program_new on xe and f,
 * program_configure(r, old_f, old_r, pp), then testutil_batch_run on base
 * (at most limit_s seconds); the batch's stats.
 */
struct program_stats testutil_configure(struct event_base *base, struct xact_engine *xe,
					struct fabric *f, const struct routes *r,
					const struct fabric *old_f, const struct routes *old_r,
					const struct program_params *pp, int limit_s);

/*
 * CLOCK_MONOTONIC in milliseconds.  Never for an upper bound in a test (a
 * loaded machine makes anything slow; speeds are measured in bench/), at
 * most for a lower one.
 */
double testutil_now_ms(void);

#endif

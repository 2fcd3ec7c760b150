/*
 * The SL2VL and VLArb tables every port holds (fabric/vlt.h), read in the
 * background (smp/vlread.h) and handed to the SA (sa_set_vlt), which answers
 * SLtoVLMappingTableRecords and VLArbitrationTableRecords from them for the
 * ports the SM does not program itself.
 *
 * When: after each published snapshot of a master whose subnet is up
 * (read_vl_tables, default on), the nodes the set lacks -- all of them the
 * first time, then the new ones and those with newly linked ports -- on
 * the bulk lane; a switch holds its tables until something sets them, so
 * what was read is kept by node GUID across sweeps, and forgotten when the
 * node leaves the fabric.  Reading is not in the sweep because it costs
 * (n + 1)^2 Gets a switch of n linked ports (k=24 fat tree: 3.5x the
 * bring-up's SMPs), and it must not delay the subnet coming up.  A heavy
 * sweep that begins cancels the read (what was read stays, the rest is read
 * after it publishes).  A sweep that wrote SL2VL or VLArb tables (QoS, an
 * engine's layers) makes the whole set be read again.  An SM that stands
 * down forgets it.
 */
#ifndef IBSMD_VLTABLES_H
#define IBSMD_VLTABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/vlt.h"
#include "lib/stat_table.h"

struct sm;
struct vlread;

/* Inside struct sm. */
struct vltables {
	struct vlt_set *set;	/* never NULL after vltables_init */
	struct vlread *reading; /* the read under way, or NULL */
	uint64_t reads;		/* reads started */
	uint64_t reads_done;	/* and finished */
	uint64_t nodes_read;	/* nodes read whole, over all reads */
	uint64_t gets;		/* Gets sent (SL2VL and VLArb) */
	uint64_t errors;	/* Gets that failed */
	double started_ms;	/* CLOCK_MONOTONIC start of the read under way */
	double last_ms;		/* how long the last finished read took */
	uint32_t last_nodes;	/* nodes it read */
};

/* Set up (sm_init, after the SA): the hooks, the set handed to the SA.  0 or -ENOMEM. */
int vltables_init(struct sm *sm);
/* NULL-safe on sm->vlt. */
void vltables_fini(struct sm *sm);

struct vltables_status {
	uint64_t nodes;	  /* nodes whose tables are held */
	uint64_t reading; /* 1 while a read is under way */
	uint64_t reads, nodes_read, gets, errors;
	uint64_t mem_bytes; /* the set's memory */
	double last_read_ms;
};
/* ret: the status; false (zeroed) when there is no set. */
bool vltables_status_get(const struct sm *sm, struct vltables_status *ret);
extern const struct stat_table vltables_stat_table;

#endif

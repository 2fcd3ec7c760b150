/*
 * A published snapshot: one discovered fabric with its routes, the indexes
 * every reader needs (LID -> port, port GUID -> port; node GUIDs are indexed
 * by the fabric itself) and a generation number.  Built once when a sweep
 * publishes, then read by everyone (control replies, events, dumps, later the
 * SA) and changed by no one: a reader never sees a sweep in progress.
 */
#ifndef IBSMD_SNAPSHOT_H
#define IBSMD_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/diff.h"
#include "fabric/routes.h"

struct snapshot {
	struct fabric *fabric;
	struct routes *routes;
	uint64_t generation;
	struct lid_map lids; /* LID -> (node, port), LMC ranges included */
	/* port GUID -> node index (the port: the node's first LID port with that GUID) */
	struct u64map ports;
	/*
	 * What changed from the snapshot before (fabric/diff.h), set once by
	 * the publisher (snapshot_set_changes); changes_known false: not
	 * computed (the first snapshot, or out of memory).
	 */
	struct diff_list changes;
	bool changes_known;
};

/*
 * Build the indexes and take ownership of f and r (both freed by
 * snapshot_free).  0, or -ENOMEM with f and r left to the caller.  Two ports
 * claiming one LID, or one port GUID, keep the first in node order (the LID
 * manager prevents both).
 */
int snapshot_new(struct fabric *f, struct routes *r, uint64_t generation, struct snapshot **ret);
/* NULL is fine. */
void snapshot_free(struct snapshot *s);
/*
 * Record in s what changed from prev (NULL: nothing known), before s is
 * published.  0 or -ENOMEM (changes_known then false).
 */
int snapshot_set_changes(struct snapshot *s, const struct snapshot *prev);
/*
 * fn for every change from prev to s: s's list when known, else computed
 * now from the two fabrics (prev must still be there).  Nothing when prev is NULL.
 */
void snapshot_changes_run(const struct snapshot *s, const struct snapshot *prev, diff_fn *fn,
			  void *arg);
/* Bytes held: the fabric, its routes and the indexes; 0 for NULL. */
size_t snapshot_mem(const struct snapshot *s);

/* (node, port) that owns a LID (LMC ranges included).  false when none. */
bool snapshot_find_lid(const struct snapshot *s, uint32_t lid, uint32_t *ret_node,
		       uint8_t *ret_port);
/* (node, port) of a port GUID (CA/router ports, switch port 0).  false when none. */
bool snapshot_find_port_guid(const struct snapshot *s, uint64_t guid, uint32_t *ret_node,
			     uint8_t *ret_port);

#endif

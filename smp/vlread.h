/*
 * Reading every port's SL-to-VL mapping and VL arbitration tables (IBA 1.4
 * vol 1, 14.2.5.8 SLtoVLMappingTable, 14.2.5.9 VLArbitrationTable, SubnGet)
 * into a fabric/vlt.h set, for the SA's records of ports the SM does not
 * program.
 *
 * What is read, for each node the set lacks (or holds without a port it
 * has now, or with another port count): a switch's SL2VL row of every
 * (input, output) pair of its ports (port 0 and every port whose PortInfo
 * was read, linked or not), in == out included (IBA: the attribute
 * modifier's pair; OpenSM's records cover every pair of every port it
 * knows); each linked CA or router port's one row (modifier 0, through that
 * port); the VLArb blocks of every output port the port's VLArbLowCap and
 * VLArbHighCap give entries for (blocks 1-2, 3-4).  A switch of n ports
 * costs (n + 1)^2 SL2VL Gets: there is no Get for all pairs at once.
 *
 * The Gets go on the bulk lane from a producer, node after node, so the
 * engine holds only what fits its window.  A node whose Gets all answer
 * is put into the set as it completes (vlt_set_put); one with a Get that
 * failed is left out (asked again by the next read).  f must stay as it is
 * until the read is done or freed (the owner frees it before a sweep
 * changes anything).
 */
#ifndef IBSMD_VLREAD_H
#define IBSMD_VLREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/vlt.h"
#include "mad/xact.h"

struct vlread;

struct vlread_stats {
	uint32_t nodes;	 /* nodes to read */
	uint32_t read;	 /* of those, read whole and kept */
	uint32_t sl2vl;	 /* SL2VL Gets sent */
	uint32_t vlarb;	 /* VLArb Gets sent */
	uint32_t errors; /* Gets that failed (their node is left out) */
};

/* Runs from the loop once every Get has completed (never from vlread_start). */
typedef void vlread_done_fn(void *arg, const struct vlread_stats *st);

/* Whether node ni of f is to be read: set has no tables of it, or not of its linked ports. */
bool vlread_wanted(const struct vlt_set *set, const struct fabric *f, uint32_t ni);

/*
 * Start reading the nodes of f vlread_wanted says, into set (which must
 * outlive the read).  0 with *ret NULL when there is nothing to read, 0
 * with *ret set when Gets are under way, -ENOMEM.
 */
int vlread_start(struct xact_engine *xe, const struct fabric *f, struct vlt_set *set,
		 vlread_done_fn *done, void *arg, struct vlread **ret);

/* What was sent and read so far. */
void vlread_get_stats(const struct vlread *vr, struct vlread_stats *ret);

/* Abort: the Gets in flight are cancelled, done is not called; what was kept stays.  NULL ok. */
void vlread_free(struct vlread *vr);

#endif

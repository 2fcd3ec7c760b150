/*
 * Multicast spanning trees (IBA 1.4 vol 1, 14.2.5.11 MulticastForwardingTable,
 * 15.2.5.17 JoinState; OpenSM's osm_mcast_mgr.c read for what an SM does):
 * for one MLID and its member ports over a published snapshot, the port
 * mask of every switch, written into a set of MFT tables.  Pure: no I/O, no
 * logging, no globals.
 *
 * The tree, per MLID:
 *  - members: full and non members receive (their switch port is in the
 *    mask); send-only members only send: their traffic must reach the tree,
 *    but nothing is delivered to them (JoinState, 15.2.5.17).  A member is
 *    a CA or router port (its switch is the one it is cabled to, the port
 *    that switch's port facing it) or a switch port 0 (bit 0 of its own
 *    switch);
 *  - root: the switch with the smallest largest hop count to the members
 *    (+1 for a member behind a CA link), as OpenSM's
 *    mcast_mgr_find_optimal_switch; ties to the lowest node GUID;
 *  - tree: a BFS tree of the switches from the root; each switch's parent
 *    is, among its neighbours one hop nearer the root, the one with the
 *    lowest node GUID, over the lowest port number of that neighbour.  The
 *    receivers' switches and the switches between them and the root form
 *    the tree: each of its switches has the ports of its tree links and of
 *    its receivers in the mask.  A tree is loop free and, from the root,
 *    minimal; it depends on GUIDs and port numbers only, not on node order;
 *  - send-only members whose switch is not in the tree get a one-way
 *    branch: every switch from theirs up to the first tree switch forwards
 *    towards the root only (its parent port), and no tree switch forwards
 *    into a branch.  So their packets reach every receiver and tree traffic
 *    never flows down to them.  (OpenSM puts send-only members in the tree
 *    like receivers, and so delivers to them.)
 * Switches whose MulticastFDBCap is 0 carry no multicast and are left out.
 */
#ifndef IBSMD_MTREE_H
#define IBSMD_MTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/mft.h"
#include "fabric/snapshot.h"

struct mtree_member {
	uint64_t port_guid;
	bool receives; /* full or non member; false: send-only */
};

struct mtree_stats {
	uint32_t members;     /* given */
	uint32_t unattached;  /* port not in the snapshot, or not cabled to a multicast switch */
	uint32_t unreachable; /* attached, but no path from the root */
	uint32_t clipped;     /* mask bits that could not be set: MLID past a switch's table */
	uint32_t switches;    /* switches forwarding the MLID (tree and branches) */
	uint64_t root;	      /* node GUID of the root switch, 0 when no tree */
	uint32_t depth;	      /* hops from the root to the farthest member switch */
};

/* The switch graph of one snapshot, with a cache of hop distances between switches. */
struct mtree;

/* s must outlive the tree.  0 or -ENOMEM. */
int mtree_new(const struct snapshot *s, struct mtree **ret);
void mtree_free(struct mtree *t);

/*
 * Set the port bits of mlid in out's tables (looked up by switch node GUID;
 * a switch with no table counts as clipped) for members m[0..n).  Bits are
 * only added: start from tables without mlid.  Members may repeat; order
 * does not matter.  ret_stats may be NULL.  0, -ERANGE (mlid not in
 * 0xC000..0xFFFE), -ENOMEM.
 */
int mtree_route(struct mtree *t, uint16_t mlid, const struct mtree_member *m, size_t n,
		struct mft_set *out, struct mtree_stats *ret_stats);

#endif

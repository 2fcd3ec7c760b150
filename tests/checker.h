/*
 * Invariant checker for routing results: from every switch, for every LID a
 * port owns, follow the LFTs hop by hop and check the packet reaches the
 * owning port (switch port 0 or a CA/router port) without a loop, a dead
 * end or a wrong turn into a host; optionally that the path is as short as
 * the topology allows.
 */
#ifndef IBSMD_CHECKER_H
#define IBSMD_CHECKER_H

#include <stddef.h>
#include <stdint.h>

#include "routing/routing.h"

#define CHECKER_MINIMAL (1u << 0)      /* path length must equal the minimal hop count */
#define CHECKER_NEAR_MINIMAL (1u << 1) /* at most one hop more than the minimal */

struct checker_stats {
	uint64_t checked;     /* (switch, LID) pairs walked */
	uint64_t unreachable; /* pairs with no physical path: skipped, not violations */
	uint64_t max_hops;    /* longest path walked, in links */
};

/*
 * Check r against f.  Returns the number of violations (0 = all good) or
 * -ENOMEM; msg gets a description of the first violation ("" if none).
 * ret_stats may be NULL.
 */
int checker_run(const struct fabric *f, const struct routes *r, unsigned int flags,
		struct checker_stats *ret_stats, char *msg, size_t msg_len);

struct checker_cdg_stats {
	uint64_t channels; /* (node, egress port, VL) channels that exist */
	uint64_t deps;	   /* distinct channel dependencies */
	uint64_t walks;	   /* (source switch, LID) walks */
};

/*
 * Channel dependency graph of r: for every CA port with a LID and every LID
 * (its own excepted), the channels (node, egress port, VL) the packet takes
 * from the CA port to the destination, following the LFTs; with r->n_vls >
 * 1 the VL on each hop comes from the path SL (routes_path_sl) and sl2vl,
 * else everything is VL 0.  Consecutive channels make a dependency.
 * Returns 0 when the graph is acyclic (no credit loop), 1 when it has a
 * cycle (msg names a channel on it), -ENOMEM.  Walks that hit no route or a
 * loop just stop (checker_run reports those).  ret_stats may be NULL.
 */
/*
 * CUnit assertions over checker_run(): no violation, no unreachable LID, and
 * something was checked.  Prints the first violation, prefixed with what.
 */
void checker_assert_sound(const struct fabric *f, const struct routes *r, unsigned int flags,
			  const char *what);

int checker_cdg_acyclic(const struct fabric *f, const struct routes *r,
			struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len);
/*
 * The same for the traffic between CAs only (destinations that are CA
 * ports): what must be free of credit loops when an engine routes switch
 * LIDs (management traffic) by a documented detour.
 */
int checker_cdg_acyclic_cas(const struct fabric *f, const struct routes *r,
			    struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len);

/* One link of a walk: the node the packet leaves and its egress port. */
struct checker_hop {
	uint32_t node;
	uint8_t port;
};

/*
 * The walk checker_run() does, for one (switch, LID): follow lid's LFT
 * entries from switch sw to the port that owns lid (map: fabric_lid_map()).
 * Returns the links crossed (0 when sw owns lid), or -1 on a dead end, a
 * loop or a packet delivered to another port.  The first max entries of
 * ret_hops (may be NULL) get the links in order.
 */
int checker_walk(const struct fabric *f, const struct routes *r, const struct lid_map *map,
		 uint32_t sw, uint16_t lid, struct checker_hop *ret_hops, size_t max);

/*
 * How far apart the paths to the LIDs of one port run (LMC > 0): for every
 * switch with a CA port (the source) and every CA port with LMC > 0 cabled
 * to another switch, the paths from the source to each of the port's LIDs.
 * Two of them are disjoint when they share no switch-to-switch link.
 */
struct checker_lmc_stats {
	uint64_t ranges;	  /* (source switch, destination port) pairs walked */
	uint64_t pairs;		  /* pairs of LIDs of one range */
	uint64_t disjoint;	  /* of those, pairs whose paths share no link */
	uint64_t ranges_disjoint; /* ranges whose paths are pairwise disjoint */
	uint64_t first_distinct;  /* ranges whose paths leave the source by 2^LMC links */
	uint64_t broken;	  /* walks that did not arrive */
};

/* 0 or -ENOMEM. */
int checker_lmc_paths(const struct fabric *f, const struct routes *r,
		      struct checker_lmc_stats *ret);

#endif

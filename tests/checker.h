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

#define CHECKER_MINIMAL (1u << 0) /* path length must equal the minimal hop count */

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

#endif

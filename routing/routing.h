/*
 * Routing engines: pure functions from a frozen fabric to forwarding tables.
 *
 * An engine reads a const struct fabric (LIDs already assigned) and fills a
 * struct routes: for every switch, the egress port for every LID.  Engines do
 * no I/O, keep no globals and do not log; when they refuse a topology they
 * return -ENOTSUP with a one-line reason, and the caller (sm/) logs it and
 * tries the next engine of its fallback chain.
 */
#ifndef IBSMD_ROUTING_H
#define IBSMD_ROUTING_H

#include "sm/fabric.h"

#define ROUTES_MAX_SL 16

struct routes {
	uint16_t max_lid; /* tables cover LIDs 0..max_lid */
	uint32_t n_nodes;
	uint8_t **lft; /* lft[node] NULL for non-switches, else max_lid + 1 ports */
	/*
	 * Engines that need more than one VL (dor on a torus) also fill these;
	 * single-VL engines leave n_vls = 1 and the pointers NULL (SL 0, VL 0).
	 *  - path_sl[src_sw * n_sw + dst_sw]: the SL for traffic that enters the
	 *    fabric at switch src_sw and leaves it at dst_sw (dense switch
	 *    indices from sw_index[node]; a CA uses the switch its port links to);
	 *  - sl2vl[node]: for a switch, (nports + 1) * ROUTES_MAX_SL entries, the
	 *    VL for (output port, SL), the same for every input port; for a CA
	 *    or router, ROUTES_MAX_SL entries for its ports.
	 */
	uint8_t n_vls;
	uint32_t n_sw;
	uint32_t *sw_index; /* n_nodes entries; UINT32_MAX for non-switches */
	uint8_t *path_sl;
	uint8_t **sl2vl;
};

/* Allocate sw_index/path_sl/sl2vl for f (all SL 0 / VL 0).  0 or -ENOMEM. */
int routes_alloc_vls(struct routes *r, const struct fabric *f, uint8_t n_vls);
/* SL for traffic from src_lid's port to dst_lid's port (0 when no path SLs). */
uint8_t routes_path_sl(const struct routes *r, const struct fabric *f, const struct lid_map *m,
		       uint16_t src_lid, uint16_t dst_lid);

/* Tables for every switch of f, all entries LFT_NO_PORT; NULL on ENOMEM. */
struct routes *routes_new(const struct fabric *f, uint16_t max_lid);
void routes_free(struct routes *r);

struct routing_stats {
	double ms;
	uint32_t max_routes_per_port; /* LIDs routed out of the busiest switch port */
	double mean_routes_per_port;  /* over switch ports linked to a switch or CA */
	uint32_t unreachable;         /* (switch, LID) pairs without a route */
};

/*
 * Compute routes.  Returns 0, -ENOTSUP (topology refused; why filled),
 * -EINVAL (e.g. no LIDs) or -ENOMEM.  *ret is owned by the caller.
 */
typedef int (*routing_compute_fn)(const struct fabric *f, struct routes **ret, char *why,
				  size_t why_len);

struct routing_engine {
	const char *name;
	routing_compute_fn compute;
};

/* NULL-terminated table of engines. */
extern const struct routing_engine routing_engines[];
const struct routing_engine *routing_find(const char *name);

/* Statistics of a routing result (no timing: the caller fills ms). */
void routing_stats(const struct fabric *f, const struct routes *r, struct routing_stats *ret);

int minhop_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len);
int updn_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len);
int dnup_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len);
int ftree_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len);
int dor_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len);

#endif

/*
 * Forwarding tables: what a routing engine computes for a fabric and what the
 * SM programs into the switches.  For every switch, the egress port of every
 * LID; for engines that use more than one VL, the SL of each switch-to-switch
 * path and each port's SL-to-VL map.  A data model, like struct fabric: the
 * engines (routing/) fill it, sm/ programs and publishes it, nothing changes
 * a published one.
 */
#ifndef IBSMD_ROUTES_H
#define IBSMD_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

#define ROUTES_MAX_SL 16

struct routes {
	uint16_t max_lid; /* tables cover LIDs 0..max_lid */
	uint32_t n_nodes;
	uint8_t **lft;	 /* lft[node] NULL for non-switches, else max_lid + 1 ports */
	void *lft_block; /* the rows of lft, one mapping (routes_new owns it) */
	size_t lft_block_size;
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
	/*
	 * Instead of path_sl, for engines whose SL depends on the destination
	 * LID (dfsp: one LID's paths are not another's): lid_sl[src_sw *
	 * (max_lid + 1) + dst_lid], path_sl then NULL.
	 */
	uint8_t *lid_sl;
	/*
	 * Optional (routes_load_count, then kept up to date by whoever changes
	 * entries, routing/repair.c): per switch, how many LIDs 1..max_lid
	 * each port carries: load[load_at[node] + port], ports 0..nports;
	 * load_at[node] UINT32_MAX for non-switches.  unreachable: (switch, LID
	 * with an owner) entries that are LFT_NO_PORT.  NULL when not counted.
	 */
	uint32_t *load;
	uint32_t *load_at;
	uint64_t unreachable;
};

/*
 * Count r->load and r->unreachable over the whole tables (O(switches x
 * LIDs)); m is f's LID map (owners).  0 or -ENOMEM (load left NULL).
 */
int routes_load_count(struct routes *r, const struct fabric *f, const struct lid_map *m);

/* Allocate sw_index/path_sl/sl2vl for f (all SL 0 / VL 0).  0 or -ENOMEM. */
int routes_alloc_vls(struct routes *r, const struct fabric *f, uint8_t n_vls);
/* After routes_alloc_vls(): path SLs by destination LID (lid_sl, all 0) instead. */
int routes_alloc_lid_sl(struct routes *r);
/* Whether the engine chose path SLs (the SA must answer with them). */
static inline bool routes_has_path_sl(const struct routes *r)
{
	return r && (r->path_sl || r->lid_sl);
}
/* SL for traffic from src_lid's port to dst_lid's port (0 when no path SLs). */
uint8_t routes_path_sl(const struct routes *r, const struct fabric *f, const struct lid_map *m,
		       uint16_t src_lid, uint16_t dst_lid);

/* Tables for every switch of f, all entries LFT_NO_PORT; NULL on ENOMEM. */
struct routes *routes_new(const struct fabric *f, uint16_t max_lid);
/* The same for the switches i with want[i] only (the others' lft[i] NULL). */
struct routes *routes_new_for(const struct fabric *f, uint16_t max_lid, const bool *want);
/*
 * A table block kept from routes freed before (routes_spare_take), so the
 * next table costs no page faults and no zeroing: one of the same size or
 * smaller, or larger within the block's slack (a block maps 1/32 more than
 * its tables: a switch or some LIDs back).  At most one; its pages are
 * MADV_FREE meanwhile (the kernel may reclaim them).
 */
struct routes_spare {
	void *block;
	size_t size;
};
/* Take r's block into sp (r's tables are gone; routes_free(r) after). */
void routes_spare_take(struct routes_spare *sp, struct routes *r);
void routes_spare_clear(struct routes_spare *sp);
/* A spare of r's block size, its pages faulted in now (none kept yet): 0 or -ENOMEM. */
int routes_spare_prepare(struct routes_spare *sp, const struct routes *r);
/*
 * routes_new with the entries left as they come (zero, or the spare's old
 * bytes: the caller writes every one); sp may be NULL.
 */
struct routes *routes_new_unfilled(const struct fabric *f, uint16_t max_lid,
				   struct routes_spare *sp);
void routes_free(struct routes *r);
/* Bytes the tables hold on the heap (LFT matrix, path SLs, SL2VL); 0 for NULL. */
size_t routes_mem(const struct routes *r);

#endif

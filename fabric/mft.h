/*
 * Multicast forwarding tables as a data model, and their block diff (IBA 1.4
 * vol 1, 14.2.5.11 MulticastForwardingTable; 14.2.5.4 SwitchInfo
 * MulticastFDBCap/MulticastFDBTop).
 *
 * A switch forwards a packet for MLID m out of every port whose bit is set
 * in m's port mask, except the port it came in by.  The table is sent in
 * blocks: an attribute modifier names a PortMask position (bits 31..28:
 * ports 16 * position .. 16 * position + 15) and a block (bits 8..0: MLIDs
 * 0xC000 + 32 * block .. + 31); each block carries 32 16-bit masks.  A
 * switch with nports ports has (nports + 16) / 16 positions (ports 0..nports).
 *
 * struct mft is one switch's table; struct mft_set holds tables by switch
 * node GUID (what routing wants for a fabric, or what each switch was last
 * given).  Pure: no I/O, no logging.
 */
#ifndef IBSMD_MFT_H
#define IBSMD_MFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

#define MFT_MLID_FIRST 0xC000
#define MFT_MLID_LAST 0xFFFE /* 0xFFFF is the permissive LID */
#define MFT_MAX_ENTRIES (MFT_MLID_LAST - MFT_MLID_FIRST + 1)
#define MFT_BLOCK 32 /* MLIDs per block */
#define MFT_MAX_BLOCKS ((MFT_MAX_ENTRIES + MFT_BLOCK - 1) / MFT_BLOCK)
#define MFT_POSITION_PORTS 16 /* ports per PortMask position */
#define MFT_MAX_POSITIONS 16

/* One switch's table: masks for MLIDs 0xC000 .. 0xC000 + 32 * n_blocks - 1. */
struct mft {
	uint8_t nports;	   /* ports 0..nports */
	uint8_t n_pos;	   /* positions, mft_positions(nports) */
	uint16_t n_blocks; /* 0..MFT_MAX_BLOCKS */
	uint16_t *mask;	   /* mask[(mlid - 0xC000) * n_pos + position] */
};

/* One block of the diff. */
struct mft_ref {
	uint16_t block;
	uint8_t position;
};

/* PortMask positions of a switch with nports ports (0..nports). */
static inline uint8_t mft_positions(uint8_t nports)
{
	return (uint8_t)((nports + MFT_POSITION_PORTS) / MFT_POSITION_PORTS);
}

/* The attribute modifier of (position, block). */
static inline uint32_t mft_attr_mod(uint8_t position, uint16_t block)
{
	return (uint32_t)position << 28 | (block & 0x1ff);
}

/* Blocks that cover MLIDs 0xC000 .. top (0 when top < 0xC000). */
static inline uint16_t mft_blocks_for(uint16_t top)
{
	return top < MFT_MLID_FIRST ? 0 : (uint16_t)((top - MFT_MLID_FIRST) / MFT_BLOCK + 1);
}

/* A zeroed table; NULL on ENOMEM or n_blocks > MFT_MAX_BLOCKS.  mft_free(NULL) is a no-op. */
struct mft *mft_new(uint8_t nports, uint16_t n_blocks);
void mft_free(struct mft *t);
/* A copy of t (NULL on ENOMEM). */
struct mft *mft_dup(const struct mft *t);

/* Set port's bit for mlid.  -ERANGE when mlid is outside the table or port > nports. */
int mft_set_port(struct mft *t, uint16_t mlid, uint8_t port);
bool mft_has_port(const struct mft *t, uint16_t mlid, uint8_t port);
/* The mask of mlid at position (0 outside the table). */
uint16_t mft_mask(const struct mft *t, uint16_t mlid, uint8_t position);
/* Whether any port forwards mlid. */
bool mft_mlid_used(const struct mft *t, uint16_t mlid);
/* Clear every port of mlid (no-op outside the table). */
void mft_clear_mlid(struct mft *t, uint16_t mlid);

/* The 32 masks of (block, position), zeros past the table (t NULL: all zeros). */
void mft_block(const struct mft *t, uint16_t block, uint8_t position, uint16_t ret[MFT_BLOCK]);

/*
 * SwitchInfo:MulticastFDBTop for t: the last MLID the table covers, 0xBFFF
 * (no MLID) for an empty one.
 */
uint16_t mft_fdb_top(const struct mft *t);

/* Room mft_diff needs in ret: max(old, new) blocks times new's positions. */
size_t mft_diff_room(const struct mft *old, const struct mft *new_t);
/*
 * The (block, position) pairs in which new_t differs from old, block by
 * block and position by position in increasing order, into ret (room
 * mft_diff_room); returns how many.  Entries past a table's n_blocks count as
 * 0, so blocks the old table used and the new one no longer covers are
 * cleared.  old NULL, or for a switch of a different port count, is unknown:
 * every block of new_t differs.
 */
size_t mft_diff(const struct mft *old, const struct mft *new_t, struct mft_ref *ret);

/* ---- tables by switch GUID ------------------------------------------- */

struct mft_set;

/* NULL on ENOMEM; mft_set_free(NULL) is a no-op (frees every table). */
struct mft_set *mft_set_new(void);
void mft_set_free(struct mft_set *s);
size_t mft_set_count(const struct mft_set *s);
/* The table of a switch, or NULL. */
struct mft *mft_set_find(struct mft_set *s, uint64_t guid);
const struct mft *mft_set_get(const struct mft_set *s, uint64_t guid);
/*
 * Store t (the set owns it from now on) for guid, freeing the table it
 * replaces.  0, or -ENOMEM with t still the caller's.  -EINVAL for GUID 0.
 */
int mft_set_put(struct mft_set *s, uint64_t guid, struct mft *t);
/* Drop (and free) the table of guid; false when there was none. */
bool mft_set_remove(struct mft_set *s, uint64_t guid);
/* Clear mlid in every table of the set. */
void mft_set_clear_mlid(struct mft_set *s, uint16_t mlid);
/*
 * Iterate: *pos starts at 0; fills the next (guid, table) and returns true,
 * false at the end.  The set must not change during the walk.
 */
bool mft_set_next(const struct mft_set *s, size_t *pos, uint64_t *ret_guid,
		  const struct mft **ret_t);

/*
 * A zeroed table of n_blocks for every switch of f that supports multicast
 * (MulticastFDBCap > 0), clipped to the blocks its MulticastFDBCap holds.
 * 0 or -ENOMEM (*ret untouched).
 */
int mft_set_for_fabric(const struct fabric *f, uint16_t n_blocks, struct mft_set **ret);

#endif

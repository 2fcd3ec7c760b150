/*
 * LFT programming as a diff (IBA 1.4 vol 1, 14.2.5.10 LinearForwardingTable):
 * a pure function turns the table a switch holds (as far as we know) and the
 * table routing wants into the 64-LID blocks to send.
 */
#ifndef IBSMD_LFT_H
#define IBSMD_LFT_H

#include <stdint.h>
#include <stddef.h>

#define LFT_BLOCK 64

/*
 * Blocks that differ between old (old_top + 1 entries, NULL = unknown: every
 * block differs) and new (new_top + 1 entries).  Entries past a table's top
 * count as LFT_NO_PORT.  Writes block numbers in increasing order to
 * ret_blocks (room for new_top / 64 + 1) and returns how many.
 */
size_t lft_diff(const uint8_t *old, int old_top, const uint8_t *new_lft, int new_top,
		uint32_t *ret_blocks);

/* The 64 entries of block b of table (top + 1 entries), padded with LFT_NO_PORT. */
void lft_block(const uint8_t *table, int top, uint32_t b, uint8_t ret[LFT_BLOCK]);

#endif

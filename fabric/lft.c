/* LFT block diff (see lft.h). */
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/lft.h"

void lft_block(const uint8_t *table, int top, uint32_t b, uint8_t ret[LFT_BLOCK])
{
	for (int i = 0; i < LFT_BLOCK; i++) {
		long lid = (long)b * LFT_BLOCK + i;
		ret[i] = table && lid <= top ? table[lid] : LFT_NO_PORT;
	}
}

size_t lft_diff(const uint8_t *old, int old_top, const uint8_t *new_lft, int new_top,
		uint32_t *ret_blocks)
{
	size_t n = 0;

	if (new_top < 0)
		return 0;
	/* the same table: one memcmp (most switches after a small change) */
	if (old && new_lft && old_top == new_top && !memcmp(old, new_lft, (size_t)new_top + 1))
		return 0;
	for (uint32_t b = 0; b <= (uint32_t)new_top / LFT_BLOCK; b++) {
		uint8_t a[LFT_BLOCK], c[LFT_BLOCK];
		long hi = (long)b * LFT_BLOCK + LFT_BLOCK - 1;

		/* a block inside both tables: compared where it lies */
		if (old && new_lft && hi <= new_top && hi <= old_top) {
			if (memcmp(old + (size_t)b * LFT_BLOCK, new_lft + (size_t)b * LFT_BLOCK,
				   LFT_BLOCK))
				ret_blocks[n++] = b;
			continue;
		}
		lft_block(new_lft, new_top, b, a);
		if (old) {
			lft_block(old, old_top, b, c);
			if (!memcmp(a, c, LFT_BLOCK))
				continue;
		}
		ret_blocks[n++] = b;
	}
	return n;
}

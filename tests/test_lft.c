/*
 * Unit tests for fabric/lft.c: the LinearForwardingTable diff (IBA 1.4 vol 1,
 * 14.2.5.10).  Unknown old tables, identical tables, single changes, tops
 * that grow and shrink (entries past a top count as LFT_NO_PORT), block
 * boundaries, and the padding of lft_block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "fabric/fabric.h"
#include "fabric/lft.h"
#include "tests/testutil.h"

#define MAX_LIDS 49152 /* unicast LIDs 0..0xBFFF */
#define MAX_BLOCKS (MAX_LIDS / LFT_BLOCK)

static uint8_t old_t[MAX_LIDS], new_t[MAX_LIDS];
static uint32_t blocks[MAX_BLOCKS + 1];

/* a table where every entry is a real port, varying with the LID */
static void fill(uint8_t *t, int top, unsigned seed)
{
	for (int lid = 0; lid <= top; lid++)
		t[lid] = (uint8_t)(1 + (lid * 7 + seed) % 36);
}

/* The blocks lft_diff returns, with a guard after the room promised. */
static size_t diff(const uint8_t *o, int old_top, const uint8_t *n, int new_top)
{
	size_t room = new_top >= 0 ? (size_t)new_top / LFT_BLOCK + 1 : 0;
	size_t cnt;

	for (size_t i = 0; i <= MAX_BLOCKS; i++)
		blocks[i] = 0xdeadbeef;
	cnt = lft_diff(o, old_top, n, new_top, blocks);
	CU_ASSERT(cnt <= room);
	if (room <= MAX_BLOCKS)
		CU_ASSERT_EQUAL(blocks[room], 0xdeadbeef);
	for (size_t i = 1; i < cnt; i++)
		CU_ASSERT(blocks[i - 1] < blocks[i]); /* increasing */
	return cnt;
}

static void test_unknown_old(void)
{
	const int tops[] = {0, 1, 62, 63, 64, 127, 128, 1000, MAX_LIDS - 1};

	for (size_t k = 0; k < sizeof(tops) / sizeof(tops[0]); k++) {
		int top = tops[k];
		fill(new_t, top, 3);
		size_t n = diff(NULL, -1, new_t, top);
		CU_ASSERT_EQUAL(n, (size_t)top / LFT_BLOCK + 1);
		for (size_t i = 0; i < n; i++)
			CU_ASSERT_EQUAL(blocks[i], i);
		/* an unknown table with a stated top is unknown all the same */
		CU_ASSERT_EQUAL(diff(NULL, top, new_t, top), (size_t)top / LFT_BLOCK + 1);
	}
	/* even a new table that is all LFT_NO_PORT */
	memset(new_t, LFT_NO_PORT, 200);
	CU_ASSERT_EQUAL(diff(NULL, -1, new_t, 199), 4);
}

static void test_identical(void)
{
	const int tops[] = {0, 63, 64, 300, MAX_LIDS - 1};

	for (size_t k = 0; k < sizeof(tops) / sizeof(tops[0]); k++) {
		fill(old_t, tops[k], 5);
		fill(new_t, tops[k], 5);
		CU_ASSERT_EQUAL(diff(old_t, tops[k], new_t, tops[k]), 0);
		/* the same buffer on both sides */
		CU_ASSERT_EQUAL(diff(new_t, tops[k], new_t, tops[k]), 0);
	}
	/* nothing wanted */
	CU_ASSERT_EQUAL(diff(old_t, 100, new_t, -1), 0);
	CU_ASSERT_EQUAL(diff(NULL, -1, new_t, -1), 0);
}

static void test_one_change(void)
{
	const int top = 64 * 10 + 17; /* 11 blocks, the last one partial */
	const int lids[] = {0, 1, 63, 64, 65, 127, 128, 300, 639, 640, top};

	for (size_t k = 0; k < sizeof(lids) / sizeof(lids[0]); k++) {
		int lid = lids[k];
		fill(old_t, top, 9);
		fill(new_t, top, 9);
		new_t[lid] = (uint8_t)(new_t[lid] % 36 + 1); /* another real port */
		CU_ASSERT_NOT_EQUAL_FATAL(new_t[lid], old_t[lid]);
		size_t n = diff(old_t, top, new_t, top);
		CU_ASSERT_EQUAL(n, 1);
		CU_ASSERT_EQUAL(blocks[0], (uint32_t)lid / LFT_BLOCK);
		/* a port that becomes unreachable is a change too */
		new_t[lid] = LFT_NO_PORT;
		CU_ASSERT_EQUAL(diff(old_t, top, new_t, top), 1);
		CU_ASSERT_EQUAL(blocks[0], (uint32_t)lid / LFT_BLOCK);
	}

	/* two changes in distant blocks, one in between untouched */
	fill(old_t, top, 1);
	fill(new_t, top, 1);
	new_t[5] = LFT_NO_PORT;
	new_t[600] = (uint8_t)(new_t[600] % 36 + 1);
	CU_ASSERT_EQUAL(diff(old_t, top, new_t, top), 2);
	CU_ASSERT_EQUAL(blocks[0], 0);
	CU_ASSERT_EQUAL(blocks[1], 9);
}

/* LID 63 is the last of block 0, LID 64 the first of block 1. */
static void test_block_boundary(void)
{
	fill(old_t, 200, 2);
	fill(new_t, 200, 2);
	new_t[63] = LFT_NO_PORT;
	CU_ASSERT_EQUAL(diff(old_t, 200, new_t, 200), 1);
	CU_ASSERT_EQUAL(blocks[0], 0);
	new_t[63] = old_t[63];
	new_t[64] = LFT_NO_PORT;
	CU_ASSERT_EQUAL(diff(old_t, 200, new_t, 200), 1);
	CU_ASSERT_EQUAL(blocks[0], 1);
	new_t[63] = LFT_NO_PORT;
	CU_ASSERT_EQUAL(diff(old_t, 200, new_t, 200), 2);
	CU_ASSERT_EQUAL(blocks[0], 0);
	CU_ASSERT_EQUAL(blocks[1], 1);

	/* new top exactly 63 and 64 */
	fill(old_t, 63, 4);
	fill(new_t, 64, 4);
	CU_ASSERT_EQUAL(diff(old_t, 63, new_t, 63), 0);
	CU_ASSERT_EQUAL(diff(old_t, 63, new_t, 64), 1); /* LID 64 appears */
	CU_ASSERT_EQUAL(blocks[0], 1);
}

static void test_top_grows(void)
{
	/* old knows LIDs 0..99, new 0..299, shared part equal */
	fill(old_t, 99, 6);
	fill(new_t, 299, 6);
	size_t n = diff(old_t, 99, new_t, 299);
	/* block 1 holds 64..127: 100..127 are new; blocks 2, 3, 4 are new */
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(blocks[0], 1);
	CU_ASSERT_EQUAL(blocks[1], 2);
	CU_ASSERT_EQUAL(blocks[2], 3);
	CU_ASSERT_EQUAL(blocks[3], 4);

	/* old top at the end of a block: block 1 unchanged */
	fill(old_t, 127, 6);
	CU_ASSERT_EQUAL(diff(old_t, 127, new_t, 299), 3);
	CU_ASSERT_EQUAL(blocks[0], 2);

	/* the new entries past the old top are LFT_NO_PORT: nothing to send */
	fill(old_t, 99, 6);
	memcpy(new_t, old_t, 100);
	memset(new_t + 100, LFT_NO_PORT, 200);
	CU_ASSERT_EQUAL(diff(old_t, 99, new_t, 299), 0);
	/* ... unless one of them is a port */
	new_t[250] = 3;
	CU_ASSERT_EQUAL(diff(old_t, 99, new_t, 299), 1);
	CU_ASSERT_EQUAL(blocks[0], 3);
}

static void test_top_shrinks(void)
{
	/* old knows 0..299, new only 0..99, shared part equal */
	fill(old_t, 299, 8);
	fill(new_t, 99, 8);
	size_t n = diff(old_t, 299, new_t, 99);
	/* block 1: old has ports at 100..127, new has LFT_NO_PORT there */
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(blocks[0], 1);

	/* old entries past the new top already LFT_NO_PORT: nothing to send */
	memset(old_t + 100, LFT_NO_PORT, 200);
	CU_ASSERT_EQUAL(diff(old_t, 299, new_t, 99), 0);

	/* shrinking to the end of a block leaves no partial block */
	fill(old_t, 299, 8);
	fill(new_t, 127, 8);
	CU_ASSERT_EQUAL(diff(old_t, 299, new_t, 127), 0);

	/* new top 0: only block 0, and only if it differs */
	fill(old_t, 299, 8);
	fill(new_t, 0, 8);
	CU_ASSERT_EQUAL(diff(old_t, 299, new_t, 0), 1);
	CU_ASSERT_EQUAL(blocks[0], 0);
	memset(old_t + 1, LFT_NO_PORT, 299);
	CU_ASSERT_EQUAL(diff(old_t, 299, new_t, 0), 0);
}

/* Entries past the tops are never read: bytes there are poison. */
static void test_past_top_not_read(void)
{
	fill(old_t, 99, 11);
	fill(new_t, 99, 11);
	memset(old_t + 100, 0x42, 100);
	memset(new_t + 100, 0x17, 100);
	CU_ASSERT_EQUAL(diff(old_t, 99, new_t, 99), 0);
	/* new entries 100..150 are port 0x17, old ones past 99 count as none */
	CU_ASSERT_EQUAL(diff(old_t, 99, new_t, 150), 2);
	CU_ASSERT_EQUAL(blocks[0], 1);
	CU_ASSERT_EQUAL(blocks[1], 2);
	fill(new_t, 99, 11);
	memset(new_t + 100, LFT_NO_PORT, 28);
	CU_ASSERT_EQUAL(diff(old_t, 99, new_t, 127), 0);
}

static void test_lft_block(void)
{
	uint8_t blk[LFT_BLOCK];

	fill(new_t, 150, 13);
	/* a full block */
	memset(blk, 0, sizeof(blk));
	lft_block(new_t, 150, 1, blk);
	CU_ASSERT(memcmp(blk, new_t + 64, LFT_BLOCK) == 0);
	/* the partial last block: 128..150 then padding */
	memset(new_t + 151, 0x33, 64);
	lft_block(new_t, 150, 2, blk);
	CU_ASSERT(memcmp(blk, new_t + 128, 23) == 0);
	for (int i = 23; i < LFT_BLOCK; i++)
		CU_ASSERT_EQUAL(blk[i], LFT_NO_PORT);
	/* a block wholly past the top */
	memset(blk, 0, sizeof(blk));
	lft_block(new_t, 150, 3, blk);
	for (int i = 0; i < LFT_BLOCK; i++)
		CU_ASSERT_EQUAL(blk[i], LFT_NO_PORT);
	/* top at a block's last entry, and a top of 0 */
	lft_block(new_t, 63, 0, blk);
	CU_ASSERT(memcmp(blk, new_t, LFT_BLOCK) == 0);
	lft_block(new_t, 0, 0, blk);
	CU_ASSERT_EQUAL(blk[0], new_t[0]);
	for (int i = 1; i < LFT_BLOCK; i++)
		CU_ASSERT_EQUAL(blk[i], LFT_NO_PORT);
	/* no table at all, or an empty one */
	memset(blk, 0, sizeof(blk));
	lft_block(NULL, 150, 0, blk);
	for (int i = 0; i < LFT_BLOCK; i++)
		CU_ASSERT_EQUAL(blk[i], LFT_NO_PORT);
	memset(blk, 0, sizeof(blk));
	lft_block(new_t, -1, 0, blk);
	for (int i = 0; i < LFT_BLOCK; i++)
		CU_ASSERT_EQUAL(blk[i], LFT_NO_PORT);
	/* the last unicast block */
	fill(new_t, MAX_LIDS - 1, 17);
	lft_block(new_t, MAX_LIDS - 1, MAX_BLOCKS - 1, blk);
	CU_ASSERT(memcmp(blk, new_t + MAX_LIDS - LFT_BLOCK, LFT_BLOCK) == 0);
}

/* Applying the diff's blocks to the old table yields the new one. */
static void test_diff_applies(void)
{
	static uint8_t sw[MAX_LIDS];
	const int old_top = 777, new_top = 1500;
	uint8_t blk[LFT_BLOCK];

	srand(12345);
	for (int round = 0; round < 50; round++) {
		fill(old_t, old_top, (unsigned)round);
		memcpy(new_t, old_t, old_top + 1);
		fill(new_t + old_top + 1, new_top - old_top - 1, (unsigned)round);
		for (int c = 0; c < round % 7; c++)
			new_t[rand() % (new_top + 1)] = (uint8_t)(rand() % 37);
		/* the switch: old entries, LFT_NO_PORT past the old top */
		memset(sw, LFT_NO_PORT, sizeof(sw));
		memcpy(sw, old_t, old_top + 1);
		size_t n = diff(old_t, old_top, new_t, new_top);
		for (size_t i = 0; i < n; i++) {
			lft_block(new_t, new_top, blocks[i], blk);
			memcpy(sw + blocks[i] * LFT_BLOCK, blk, LFT_BLOCK);
		}
		CU_ASSERT(memcmp(sw, new_t, new_top + 1) == 0);
		for (int lid = new_top + 1; lid < (new_top / LFT_BLOCK + 1) * LFT_BLOCK; lid++)
			CU_ASSERT_EQUAL(sw[lid], LFT_NO_PORT);
	}
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"unknown old table", test_unknown_old},
	    {"identical tables", test_identical},
	    {"one entry changed", test_one_change},
	    {"block boundary 63/64", test_block_boundary},
	    {"new top larger", test_top_grows},
	    {"new top smaller", test_top_shrinks},
	    {"entries past top not read", test_past_top_not_read},
	    {"lft_block padding", test_lft_block},
	    {"diff applied gives new table", test_diff_applies},
	    {NULL, NULL},
	};

	return testutil_run("lft", cases);
}

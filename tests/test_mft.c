/*
 * Unit tests for fabric/mft.c: the MulticastForwardingTable model and its
 * block diff (IBA 1.4 vol 1, 14.2.5.11).  Positions and attribute modifiers,
 * bits and ranges, unknown old tables, identical tables, single changes in
 * one position, tables that grow and shrink (entries past a table count as
 * 0), the padding of mft_block, and the GUID-keyed set under many inserts
 * and removals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "fabric/mft.h"
#include "tests/testutil.h"

static struct mft_ref refs[MFT_MAX_BLOCKS * MFT_MAX_POSITIONS + 1];

/* The pairs mft_diff returns, with a guard after the room promised. */
static size_t diff(const struct mft *o, const struct mft *n)
{
	size_t room = mft_diff_room(o, n), cnt;

	CU_ASSERT_FATAL(room <= MFT_MAX_BLOCKS * MFT_MAX_POSITIONS);
	for (size_t i = 0; i <= room; i++)
		refs[i] = (struct mft_ref){0xdead, 0xee};
	cnt = mft_diff(o, n, refs);
	CU_ASSERT(cnt <= room);
	CU_ASSERT_EQUAL(refs[room].block, 0xdead);
	for (size_t i = 1; i < cnt; i++) {
		/* increasing by block, then position */
		CU_ASSERT(refs[i - 1].block < refs[i].block ||
			  (refs[i - 1].block == refs[i].block &&
			   refs[i - 1].position < refs[i].position));
	}
	for (size_t i = 0; i < cnt; i++)
		CU_ASSERT(refs[i].position < n->n_pos);
	return cnt;
}

/* Some bits in every block and position, varying with seed. */
static void fill(struct mft *t, unsigned seed)
{
	for (unsigned e = 0; e < (unsigned)t->n_blocks * MFT_BLOCK; e++)
		for (unsigned k = 0; k < 3; k++)
			mft_set_port(t, (uint16_t)(MFT_MLID_FIRST + e),
				     (uint8_t)((e * 7 + seed + k * 13) % (t->nports + 1)));
}

static void test_positions(void)
{
	static const struct {
		uint8_t nports, pos;
	} c[] = {{0, 1},  {1, 1},  {15, 1}, {16, 2},   {31, 2},	 {32, 3},
		 {36, 3}, {47, 3}, {48, 4}, {254, 16}, {255, 16}};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CU_ASSERT_EQUAL(mft_positions(c[i].nports), c[i].pos);
	CU_ASSERT_EQUAL(mft_attr_mod(0, 0), 0);
	CU_ASSERT_EQUAL(mft_attr_mod(2, 5), 0x20000005);
	CU_ASSERT_EQUAL(mft_attr_mod(15, 511), 0xf00001ff);
	CU_ASSERT_EQUAL(mft_blocks_for(0xBFFF), 0);
	CU_ASSERT_EQUAL(mft_blocks_for(0xC000), 1);
	CU_ASSERT_EQUAL(mft_blocks_for(0xC01F), 1);
	CU_ASSERT_EQUAL(mft_blocks_for(0xC020), 2);
	CU_ASSERT_EQUAL(mft_blocks_for(0xFFFE), MFT_MAX_BLOCKS);
	CU_ASSERT_EQUAL(MFT_MAX_BLOCKS, 512);
}

static void test_bits(void)
{
	struct mft *t = mft_new(36, 2), *c;
	uint16_t b[MFT_BLOCK];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->n_pos, 3);
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC000, 0), 0);
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC000, 17), 0);
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC03F, 36), 0);
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC03F, 37), -ERANGE); /* past nports */
	CU_ASSERT_EQUAL(mft_set_port(t, 0xC040, 1), -ERANGE);  /* past the table */
	CU_ASSERT_EQUAL(mft_set_port(t, 0xBFFF, 1), -ERANGE);  /* unicast */
	CU_ASSERT_EQUAL(mft_set_port(t, 0xFFFF, 1), -ERANGE);  /* permissive */
	CU_ASSERT_TRUE(mft_has_port(t, 0xC000, 0));
	CU_ASSERT_TRUE(mft_has_port(t, 0xC000, 17));
	CU_ASSERT_FALSE(mft_has_port(t, 0xC000, 16));
	CU_ASSERT_EQUAL(mft_mask(t, 0xC000, 0), 0x0001);
	CU_ASSERT_EQUAL(mft_mask(t, 0xC000, 1), 0x0002);
	CU_ASSERT_EQUAL(mft_mask(t, 0xC03F, 2), 0x0010); /* port 36 = 32 + 4 */
	CU_ASSERT_EQUAL(mft_mask(t, 0xC03F, 3), 0);	 /* no such position */
	CU_ASSERT_TRUE(mft_mlid_used(t, 0xC03F));
	CU_ASSERT_FALSE(mft_mlid_used(t, 0xC001));
	CU_ASSERT_FALSE(mft_mlid_used(t, 0xC040));

	mft_block(t, 1, 2, b);
	CU_ASSERT_EQUAL(b[31], 0x0010);
	CU_ASSERT_EQUAL(b[0], 0);
	mft_block(t, 2, 0, b); /* past the table: zeros */
	for (int i = 0; i < MFT_BLOCK; i++)
		CU_ASSERT_EQUAL(b[i], 0);
	mft_block(NULL, 0, 0, b);
	CU_ASSERT_EQUAL(b[0], 0);

	c = mft_dup(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(diff(t, c), 0);
	mft_clear_mlid(c, 0xC000);
	CU_ASSERT_FALSE(mft_mlid_used(c, 0xC000));
	CU_ASSERT_TRUE(mft_mlid_used(t, 0xC000));
	mft_clear_mlid(c, 0xC040); /* outside: no-op */

	CU_ASSERT_EQUAL(mft_fdb_top(t), 0xC03F);
	CU_ASSERT_EQUAL(mft_fdb_top(NULL), 0xBFFF);
	mft_free(c);
	c = mft_new(8, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(mft_fdb_top(c), 0xBFFF);
	mft_free(c);
	c = mft_new(8, MFT_MAX_BLOCKS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(mft_fdb_top(c), 0xFFFE);
	CU_ASSERT_EQUAL(mft_set_port(c, 0xFFFE, 8), 0);
	CU_ASSERT_EQUAL(mft_set_port(c, 0xFFFF, 8), -ERANGE);
	mft_free(c);
	CU_ASSERT_PTR_NULL(mft_new(8, MFT_MAX_BLOCKS + 1));
	mft_free(t);
	mft_free(NULL);
}

static void test_unknown_old(void)
{
	const uint16_t nbs[] = {0, 1, 2, 17, MFT_MAX_BLOCKS};
	const uint8_t nps[] = {0, 8, 16, 36, 254};

	for (size_t k = 0; k < sizeof(nbs) / sizeof(nbs[0]); k++) {
		for (size_t q = 0; q < sizeof(nps) / sizeof(nps[0]); q++) {
			struct mft *n = mft_new(nps[q], nbs[k]), *o;
			size_t cnt, want = (size_t)nbs[k] * mft_positions(nps[q]);

			CU_ASSERT_PTR_NOT_NULL_FATAL(n);
			fill(n, (unsigned)k);
			cnt = diff(NULL, n);
			CU_ASSERT_EQUAL(cnt, want);
			for (size_t i = 0; i < cnt; i++) {
				CU_ASSERT_EQUAL(refs[i].block, i / n->n_pos);
				CU_ASSERT_EQUAL(refs[i].position, i % n->n_pos);
			}
			/* even an all-zero table is sent whole when the old one is unknown */
			if (n->n_blocks) /* mask is NULL for a table of no blocks */
				memset(n->mask, 0, (size_t)n->n_blocks * MFT_BLOCK * n->n_pos * 2);
			CU_ASSERT_EQUAL(diff(NULL, n), want);
			/* a table of another port count is unknown too */
			o = mft_new((uint8_t)(nps[q] + 1), nbs[k]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(o);
			CU_ASSERT_EQUAL(diff(o, n), want);
			mft_free(o);
			mft_free(n);
		}
	}
}

static void test_identical_and_single(void)
{
	struct mft *o = mft_new(36, 20), *n = mft_new(36, 20);

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	fill(o, 3);
	fill(n, 3);
	CU_ASSERT_EQUAL(diff(o, n), 0);
	CU_ASSERT_EQUAL(diff(n, n), 0);

	/* one port of one MLID: its block, its position only */
	n->mask[(5 * 32 + 31) * 3 + 2] ^= 1u << 1; /* port 33 = 32 + 1 */
	CU_ASSERT_NOT_EQUAL(mft_has_port(n, 0xC000 + 5 * 32 + 31, 33),
			    mft_has_port(o, 0xC000 + 5 * 32 + 31, 33));
	CU_ASSERT_EQUAL_FATAL(diff(o, n), 1);
	CU_ASSERT_EQUAL(refs[0].block, 5);
	CU_ASSERT_EQUAL(refs[0].position, 2);

	/* a change at each end of the table */
	fill(n, 3);
	memcpy(n->mask, o->mask, 20 * MFT_BLOCK * 3 * 2);
	n->mask[0] ^= 0x8000;
	n->mask[20 * MFT_BLOCK * 3 - 1] ^= 1;
	CU_ASSERT_EQUAL_FATAL(diff(o, n), 2);
	CU_ASSERT(refs[0].block == 0 && refs[0].position == 0);
	CU_ASSERT(refs[1].block == 19 && refs[1].position == 2);
	mft_free(o);
	mft_free(n);
}

static void test_grow_shrink(void)
{
	struct mft *o = mft_new(8, 4), *n = mft_new(8, 2), *z;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	/* old uses blocks 0 and 3; the new table covers 2 blocks: block 3 is cleared */
	mft_set_port(o, 0xC000, 1);
	mft_set_port(o, 0xC000 + 3 * 32 + 4, 2);
	mft_set_port(n, 0xC000, 1);
	CU_ASSERT_EQUAL(mft_diff_room(o, n), 4);
	CU_ASSERT_EQUAL_FATAL(diff(o, n), 1);
	CU_ASSERT_EQUAL(refs[0].block, 3);
	/* blocks the old table covered but held no port need nothing */
	mft_clear_mlid(o, 0xC000 + 3 * 32 + 4);
	CU_ASSERT_EQUAL(diff(o, n), 0);
	/* growing: new blocks that hold nothing need nothing either (old counts as 0) */
	CU_ASSERT_EQUAL(diff(n, o), 0);
	mft_set_port(o, 0xC000 + 2 * 32, 8);
	CU_ASSERT_EQUAL_FATAL(diff(n, o), 1);
	CU_ASSERT_EQUAL(refs[0].block, 2);
	/* nothing wanted any more: every block that held a port */
	z = mft_new(8, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	CU_ASSERT_EQUAL(mft_diff_room(o, z), 4);
	CU_ASSERT_EQUAL_FATAL(diff(o, z), 2);
	CU_ASSERT(refs[0].block == 0 && refs[1].block == 2);
	CU_ASSERT_EQUAL(diff(NULL, z), 0);
	mft_free(o);
	mft_free(n);
	mft_free(z);
}

static void test_set(void)
{
	enum { N = 5000 };
	struct mft_set *s = mft_set_new();
	static bool in[N];
	uint64_t guid;
	const struct mft *t;
	size_t pos = 0, seen = 0, live = 0;
	unsigned x = 12345;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(mft_set_put(s, 0, NULL), -EINVAL);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < N; i++) {
			x = x * 1103515245u + 12345u;
			/* GUIDs that collide in the low bits exercise the probe chains */
			uint64_t g = 0x0002c90300000000ULL + ((uint64_t)i << 20);
			if ((x >> 16) % 3 == 0) {
				CU_ASSERT_EQUAL(mft_set_remove(s, g), in[i]);
				live -= in[i];
				in[i] = false;
			} else {
				struct mft *m = mft_new((uint8_t)(i % 40), 1);
				CU_ASSERT_FATAL(m != NULL);
				mft_set_port(m, 0xC000, 0);
				CU_ASSERT_EQUAL(mft_set_put(s, g, m), 0); /* replaces and frees */
				live += !in[i];
				in[i] = true;
			}
		}
		CU_ASSERT_EQUAL(mft_set_count(s), live);
		for (int i = 0; i < N; i++) {
			uint64_t g = 0x0002c90300000000ULL + ((uint64_t)i << 20);
			const struct mft *m = mft_set_get(s, g);
			CU_ASSERT_EQUAL(m != NULL, in[i]);
			if (m)
				CU_ASSERT_EQUAL(m->nports, i % 40);
			CU_ASSERT_EQUAL(mft_set_find(s, g) == m, true);
		}
	}
	while (mft_set_next(s, &pos, &guid, &t)) {
		CU_ASSERT_PTR_EQUAL(mft_set_get(s, guid), t);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, live);
	CU_ASSERT_PTR_NULL(mft_set_get(s, 1));
	CU_ASSERT_FALSE(mft_set_remove(s, 1));
	/* every table loses an MLID at once */
	mft_set_clear_mlid(s, 0xC000);
	pos = 0;
	while (mft_set_next(s, &pos, &guid, &t))
		CU_ASSERT_FALSE(mft_mlid_used(t, 0xC000));
	mft_set_free(s);
	mft_set_free(NULL);
	CU_ASSERT_EQUAL(mft_set_count(NULL), 0);
}

static void test_for_fabric(void)
{
	static const char net[] = "Switch 36 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\n"
				  "Switch 8 \"S2\"\n[1] \"H2\"[1]\n[2] \"S1\"[2]\n\n"
				  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S2\"[1]\n";
	struct fabric *f = testutil_load_text(net);
	uint32_t s1 = testutil_find_desc(f, "S1"), s2 = testutil_find_desc(f, "S2");
	struct mft_set *set = NULL;
	const struct mft *t;

	CU_ASSERT_EQUAL_FATAL(mft_set_for_fabric(f, 3, &set), 0);
	CU_ASSERT_EQUAL(mft_set_count(set), 2);
	t = mft_set_get(set, f->nodes[s1].guid);
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(t->nports, 36);
	CU_ASSERT_EQUAL(t->n_pos, 3);
	CU_ASSERT_EQUAL(t->n_blocks, 3);
	mft_set_free(set);

	/* MulticastFDBCap clips the table; a switch without multicast gets none */
	f->nodes[s1].mft_cap = 40;
	f->nodes[s2].mft_cap = 0;
	CU_ASSERT_EQUAL_FATAL(mft_set_for_fabric(f, 3, &set), 0);
	CU_ASSERT_EQUAL(mft_set_count(set), 1);
	t = mft_set_get(set, f->nodes[s1].guid);
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(t->n_blocks, 2);
	CU_ASSERT_PTR_NULL(mft_set_get(set, f->nodes[s2].guid));
	mft_set_free(set);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"positions, attribute modifiers, block counts", test_positions},
	    {"bits, ranges, blocks, top", test_bits},
	    {"unknown old table: every block", test_unknown_old},
	    {"identical tables, single changes", test_identical_and_single},
	    {"tables that grow and shrink", test_grow_shrink},
	    {"tables by switch GUID", test_set},
	    {"a zeroed table per multicast switch", test_for_fabric},
	    {NULL, NULL},
	};

	return testutil_run("mft", cases);
}

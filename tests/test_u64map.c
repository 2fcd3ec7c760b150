/*
 * Unit tests of the u64 hash map (lib/u64map.c): add, look up, walk the
 * values of one key, delete, growth, keys that share a home slot (runs that
 * wrap around the table's end), deletion in the middle of a probe run, and
 * many random operations checked against a plain array.  After every change
 * the table's invariant is checked from outside: every entry is reachable
 * from its home slot without crossing an empty one, and the count is right.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "lib/u64map.h"
#include "tests/testutil.h"

/* The map's slot function, copied: the tests build keys that collide on purpose. */
static uint32_t home(uint64_t key, uint32_t cap)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (uint32_t)key & (cap - 1);
}

/* Every entry reachable from its home, the count right, at most 3/4 full. */
static bool invariant(const struct u64map *m)
{
	uint32_t n = 0;

	if (!m->cap)
		return m->n == 0;
	if ((m->cap & (m->cap - 1)) || m->n > m->cap / 4 * 3)
		return false;
	for (uint32_t j = 0; j < m->cap; j++) {
		if (!m->vals[j])
			continue;
		n++;
		for (uint32_t i = home(m->keys[j], m->cap); i != j; i = (i + 1) & (m->cap - 1))
			if (!m->vals[i])
				return false;
	}
	return n == m->n;
}

/* Keys whose home in a table of cap slots is h: the first n found from *next. */
static void keys_at(uint32_t h, uint32_t cap, uint64_t *next, uint64_t *ret, unsigned n)
{
	for (unsigned k = 0; k < n; (*next)++)
		if (home(*next, cap) == h)
			ret[k++] = *next;
}

/* How many values key holds, and whether val is one of them. */
static unsigned values_of(const struct u64map *m, uint64_t key, uint32_t val, bool *ret_has)
{
	unsigned n = 0;
	uint32_t c, v;

	*ret_has = false;
	for (v = u64map_first(m, key, &c); v != U64MAP_NONE; v = u64map_next(m, key, &c)) {
		n++;
		*ret_has |= v == val;
	}
	return n;
}

static void test_basic(void)
{
	struct u64map m = {0};
	bool has;

	CU_ASSERT_EQUAL(u64map_get(&m, 1), U64MAP_NONE);
	CU_ASSERT_EQUAL(u64map_get(NULL, 1), U64MAP_NONE);
	CU_ASSERT_EQUAL(u64map_count(NULL), 0);
	CU_ASSERT_EQUAL(u64map_mem(&m), 0);
	CU_ASSERT_EQUAL(u64map_del(&m, 1, 0), -ENOENT);
	CU_ASSERT_EQUAL(u64map_set(&m, 1, 0, 1), -ENOENT);
	CU_ASSERT_EQUAL(u64map_add(&m, 1, U64MAP_NONE), -EINVAL);
	CU_ASSERT_EQUAL(m.cap, 0); /* nothing allocated for a refused add */
	CU_ASSERT_EQUAL(u64map_reserve(&m, 0), 0);
	CU_ASSERT_EQUAL(m.cap, 0); /* nor for room for nothing */

	CU_ASSERT_EQUAL(u64map_add(&m, 0x0002c90300000001ULL, 7), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, 0, 0), 0); /* key 0 and value 0 are ordinary */
	CU_ASSERT_EQUAL(u64map_add(&m, UINT64_MAX, U64MAP_NONE - 1), 0);
	CU_ASSERT_EQUAL(u64map_count(&m), 3);
	CU_ASSERT_EQUAL(u64map_mem(&m), 16 * 12);
	CU_ASSERT_EQUAL(u64map_get(&m, 0x0002c90300000001ULL), 7);
	CU_ASSERT_EQUAL(u64map_get(&m, 0), 0);
	CU_ASSERT_EQUAL(u64map_get(&m, UINT64_MAX), U64MAP_NONE - 1);
	CU_ASSERT_EQUAL(u64map_get(&m, 0x0002c90300000002ULL), U64MAP_NONE);

	/* duplicates: one key, several values, each found by the walk */
	CU_ASSERT_EQUAL(u64map_add(&m, 0, 1), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, 0, 2), 0);
	CU_ASSERT_EQUAL(values_of(&m, 0, 2, &has), 3);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(u64map_set(&m, 0, 1, 11), 0);
	CU_ASSERT_EQUAL(values_of(&m, 0, 11, &has), 3);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(values_of(&m, 0, 1, &has), 3);
	CU_ASSERT_FALSE(has);
	CU_ASSERT_EQUAL(u64map_set(&m, 0, 11, U64MAP_NONE), -EINVAL);
	CU_ASSERT_EQUAL(u64map_del(&m, 0, 11), 0);
	CU_ASSERT_EQUAL(u64map_del(&m, 0, 11), -ENOENT);
	CU_ASSERT_EQUAL(u64map_del(&m, 0, 5), -ENOENT);
	CU_ASSERT_EQUAL(values_of(&m, 0, 0, &has), 2);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(u64map_count(&m), 4);
	CU_ASSERT_TRUE(invariant(&m));

	/* freed: empty, and usable again */
	u64map_free(&m);
	u64map_free(NULL);
	CU_ASSERT_EQUAL(m.cap, 0);
	CU_ASSERT_EQUAL(u64map_count(&m), 0);
	CU_ASSERT_EQUAL(u64map_get(&m, 0), U64MAP_NONE);
	CU_ASSERT_EQUAL(u64map_add(&m, 5, 5), 0);
	CU_ASSERT_EQUAL(u64map_get(&m, 5), 5);
	u64map_free(&m);
}

/* Growth keeps every entry; reserve makes room up front; copy is a deep copy. */
static void test_grow_reserve_copy(void)
{
	struct u64map m = {0}, c = {0};
	const uint32_t n = 100000;
	uint64_t *keys_before;

	for (uint32_t i = 0; i < n; i++) {
		/* GUID-like keys: only the low bits differ */
		CU_ASSERT_EQUAL_FATAL(u64map_add(&m, 0x0002c90300000000ULL + i, i), 0);
		if ((i & (i - 1)) == 0)
			CU_ASSERT_TRUE(invariant(&m));
	}
	CU_ASSERT_TRUE(invariant(&m));
	CU_ASSERT_EQUAL(u64map_count(&m), n);
	CU_ASSERT_EQUAL(m.cap, 262144); /* 100,000 > 3/4 of 131,072 */
	CU_ASSERT_EQUAL(u64map_mem(&m), (size_t)262144 * 12);
	for (uint32_t i = 0; i < n; i++)
		if (u64map_get(&m, 0x0002c90300000000ULL + i) != i)
			CU_FAIL("lost after growth");
	CU_ASSERT_EQUAL(u64map_get(&m, 0x0002c90300000000ULL + n), U64MAP_NONE);

	CU_ASSERT_EQUAL(u64map_copy(&c, &m), 0);
	CU_ASSERT_EQUAL(u64map_del(&m, 0x0002c90300000000ULL, 0), 0);
	CU_ASSERT_EQUAL(u64map_get(&c, 0x0002c90300000000ULL), 0);
	CU_ASSERT_EQUAL(u64map_count(&c), n);
	CU_ASSERT_TRUE(invariant(&c));
	u64map_free(&m);
	CU_ASSERT_EQUAL(u64map_copy(&c, &m), 0); /* an empty source: an empty copy */
	CU_ASSERT_EQUAL(c.cap, 0);
	CU_ASSERT_EQUAL(u64map_count(&c), 0);

	/* 12 entries fit 16 slots, the 13th doubles; reserve(n) means no growth up to n */
	for (uint32_t i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(u64map_add(&m, i, i), 0);
	CU_ASSERT_EQUAL(m.cap, 16);
	CU_ASSERT_EQUAL(u64map_add(&m, 12, 12), 0);
	CU_ASSERT_EQUAL(m.cap, 32);
	CU_ASSERT_EQUAL(u64map_reserve(&m, 1000), 0);
	CU_ASSERT_EQUAL(m.cap, 2048);
	keys_before = m.keys;
	for (uint32_t i = 13; i < 1000; i++)
		CU_ASSERT_EQUAL(u64map_add(&m, i, i), 0);
	CU_ASSERT_PTR_EQUAL(m.keys, keys_before);
	CU_ASSERT_EQUAL(u64map_reserve(&m, 10), 0); /* never shrinks */
	CU_ASSERT_EQUAL(m.cap, 2048);
	CU_ASSERT_EQUAL(u64map_reserve(&m, UINT32_MAX), -ENOMEM);
	CU_ASSERT_EQUAL(m.cap, 2048);
	CU_ASSERT_TRUE(invariant(&m));
	u64map_free(&m);
}

/*
 * Keys sharing a home slot, with the run wrapping from the last slot to the
 * first, and deletes at the run's start, middle and end: what stays is still
 * found, and entries from other homes caught in the run are too.
 */
static void test_collisions(void)
{
	struct u64map m = {0};
	uint64_t next = 1, a[5], b[2];
	bool has;

	/* 16 slots: a[] all at home 14, b[] at home 15 and 0 (inside a[]'s run) */
	keys_at(14, 16, &next, a, 5);
	keys_at(15, 16, &next, b, 1);
	keys_at(0, 16, &next, b + 1, 1);
	for (unsigned i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(u64map_add(&m, a[i], i), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, b[0], 10), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, b[1], 11), 0);
	CU_ASSERT_EQUAL(m.cap, 16);
	/* a[0] a[1] a[2] a[3] a[4] b[0] b[1] at slots 14 15 0 1 2 3 4 */
	CU_ASSERT_TRUE(m.vals[14] && m.vals[15] && m.vals[0] && m.vals[4] && !m.vals[5]);
	CU_ASSERT_TRUE(invariant(&m));

	/* the middle of the run (slot 0, past the wrap) */
	CU_ASSERT_EQUAL(u64map_del(&m, a[2], 2), 0);
	CU_ASSERT_TRUE(invariant(&m));
	CU_ASSERT_EQUAL(u64map_get(&m, a[2]), U64MAP_NONE);
	for (unsigned i = 0; i < 5; i++)
		if (i != 2)
			CU_ASSERT_EQUAL(u64map_get(&m, a[i]), i);
	CU_ASSERT_EQUAL(u64map_get(&m, b[0]), 10);
	CU_ASSERT_EQUAL(u64map_get(&m, b[1]), 11);

	/* its start (slot 14): the shift crosses the table's end */
	CU_ASSERT_EQUAL(u64map_del(&m, a[0], 0), 0);
	CU_ASSERT_TRUE(invariant(&m));
	CU_ASSERT_EQUAL(u64map_get(&m, a[1]), 1);
	CU_ASSERT_EQUAL(u64map_get(&m, a[3]), 3);
	CU_ASSERT_EQUAL(u64map_get(&m, a[4]), 4);
	CU_ASSERT_EQUAL(u64map_get(&m, b[0]), 10);
	CU_ASSERT_EQUAL(u64map_get(&m, b[1]), 11);

	/* its end */
	CU_ASSERT_EQUAL(u64map_del(&m, b[1], 11), 0);
	CU_ASSERT_TRUE(invariant(&m));
	CU_ASSERT_EQUAL(u64map_get(&m, b[0]), 10);
	CU_ASSERT_EQUAL(u64map_count(&m), 4);

	/* duplicates of one key inside another key's run */
	CU_ASSERT_EQUAL(u64map_add(&m, b[0], 20), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, a[1], 21), 0);
	CU_ASSERT_EQUAL(u64map_add(&m, b[0], 22), 0);
	CU_ASSERT_EQUAL(values_of(&m, b[0], 22, &has), 3);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(u64map_del(&m, b[0], 20), 0);
	CU_ASSERT_EQUAL(values_of(&m, b[0], 10, &has), 2);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(values_of(&m, a[1], 21, &has), 2);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_TRUE(invariant(&m));
	u64map_free(&m);
}

struct ref {
	uint64_t key;
	uint32_t val;
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Every key of the reference holds exactly the values the reference has. */
static bool same_as(const struct u64map *m, const struct ref *r, size_t n, uint64_t key)
{
	unsigned want = 0, got = 0;
	uint32_t c, v;

	for (size_t i = 0; i < n; i++)
		want += r[i].key == key;
	for (v = u64map_first(m, key, &c); v != U64MAP_NONE; v = u64map_next(m, key, &c)) {
		size_t i;

		for (i = 0; i < n && !(r[i].key == key && r[i].val == v); i++)
			;
		if (i == n)
			return false;
		got++;
	}
	return got == want;
}

/*
 * Random adds (from a small key space, so keys repeat and collide), deletes,
 * value changes and look-ups against a plain array, with the table's
 * invariant checked all along.
 */
static void test_random(void)
{
	enum { OPS = 100000, KEYS = 1000, MAXN = 1500 };
	struct ref *ref = calloc(MAXN, sizeof(*ref));
	struct u64map m = {0};
	size_t n = 0, bad = 0;
	uint32_t next_val = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
	for (unsigned op = 0; op < OPS; op++) {
		uint64_t key = rnd() % KEYS * 0x100000001ULL; /* equal low words for some */
		unsigned what = (unsigned)(rnd() % 10);

		if (what < 4 && n < MAXN) {
			uint32_t val = next_val++;

			if (u64map_add(&m, key, val) != 0)
				bad++;
			ref[n++] = (struct ref){key, val};
		} else if (what < 7 && n) {
			size_t i = rnd() % n;

			if (u64map_del(&m, ref[i].key, ref[i].val) != 0)
				bad++;
			ref[i] = ref[--n];
		} else if (what < 8 && n) {
			size_t i = rnd() % n;
			uint32_t val = next_val++;

			if (u64map_set(&m, ref[i].key, ref[i].val, val) != 0)
				bad++;
			ref[i].val = val;
		} else if (what < 9) {
			/* a delete of a pair that is not there */
			if (u64map_del(&m, key, next_val) != -ENOENT)
				bad++;
		}
		if (!same_as(&m, ref, n, key) || (n && !same_as(&m, ref, n, ref[rnd() % n].key)))
			bad++;
		if (u64map_count(&m) != n)
			bad++;
		if (op % 997 == 0 && !invariant(&m))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_TRUE(invariant(&m));
	/* drain: every pair deletes once */
	while (n) {
		if (u64map_del(&m, ref[n - 1].key, ref[n - 1].val) != 0)
			bad++;
		n--;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(u64map_count(&m), 0);
	CU_ASSERT_TRUE(invariant(&m));
	u64map_free(&m);
	free(ref);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"add, get, walk, set, del, free", test_basic},
	    {"growth, reserve, copy", test_grow_reserve_copy},
	    {"collisions and deletes inside a run", test_collisions},
	    {"random operations against a reference", test_random},
	    {NULL, NULL},
	};

	return testutil_run("u64map", cases);
}

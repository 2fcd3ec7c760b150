/*
 * The u64 -> u32 hash map (see u64map.h): linear probing, backward-shift
 * deletion (Knuth vol. 3, 6.4, algorithm R), at most 3/4 full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/u64map.h"

#define U64MAP_MIN_CAP 16u
#define U64MAP_MAX_CAP (1u << 31)
#define U64MAP_SLOT (sizeof(uint64_t) + sizeof(uint32_t))

/* splitmix64's finaliser: every key bit moves every slot bit */
static uint32_t u64map_home(const struct u64map *m, uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (uint32_t)key & (m->cap - 1);
}

/* Entries a table of cap slots may hold. */
static uint32_t u64map_limit(uint32_t cap)
{
	return cap / 4 * 3;
}

void u64map_free(struct u64map *m)
{
	if (!m)
		return;
	free(m->keys);
	memset(m, 0, sizeof(*m));
}

uint32_t u64map_count(const struct u64map *m)
{
	return m ? m->n : 0;
}

size_t u64map_mem(const struct u64map *m)
{
	return m ? (size_t)m->cap * U64MAP_SLOT : 0;
}

/* Move every entry into a new table of cap slots.  0 or -ENOMEM (m unchanged). */
static int u64map_rehash(struct u64map *m, uint32_t cap)
{
	struct u64map t = {.cap = cap, .n = m->n};

	t.keys = malloc((size_t)cap * U64MAP_SLOT);
	if (!t.keys)
		return -ENOMEM;
	t.vals = (uint32_t *)(t.keys + cap);
	memset(t.vals, 0, (size_t)cap * sizeof(*t.vals));
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->vals[i])
			continue;
		for (j = u64map_home(&t, m->keys[i]); t.vals[j]; j = (j + 1) & (cap - 1))
			;
		t.keys[j] = m->keys[i];
		t.vals[j] = m->vals[i];
	}
	free(m->keys);
	*m = t;
	return 0;
}

int u64map_reserve(struct u64map *m, uint32_t n)
{
	uint32_t cap = m->cap ? m->cap : U64MAP_MIN_CAP;

	if (!n)
		return 0; /* an empty map stays without storage */
	while (u64map_limit(cap) < n) {
		if (cap == U64MAP_MAX_CAP)
			return -ENOMEM;
		cap *= 2;
	}
	return cap == m->cap ? 0 : u64map_rehash(m, cap);
}

int u64map_add(struct u64map *m, uint64_t key, uint32_t val)
{
	uint32_t i;
	int r;

	if (val == U64MAP_NONE)
		return -EINVAL;
	r = u64map_reserve(m, m->n + 1);
	if (r < 0)
		return r;
	for (i = u64map_home(m, key); m->vals[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = key;
	m->vals[i] = val + 1;
	m->n++;
	return 0;
}

/* The first slot at or after i (in probe order) holding key, or U64MAP_NONE. */
static uint32_t u64map_scan(const struct u64map *m, uint64_t key, uint32_t i)
{
	for (; m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return i;
	return U64MAP_NONE;
}

uint32_t u64map_first(const struct u64map *m, uint64_t key, uint32_t *cursor)
{
	uint32_t i;

	if (!m || !m->n)
		return U64MAP_NONE;
	i = u64map_scan(m, key, u64map_home(m, key));
	if (i == U64MAP_NONE)
		return U64MAP_NONE;
	*cursor = i;
	return m->vals[i] - 1;
}

uint32_t u64map_next(const struct u64map *m, uint64_t key, uint32_t *cursor)
{
	uint32_t i;

	if (!m || !m->n)
		return U64MAP_NONE;
	i = u64map_scan(m, key, (*cursor + 1) & (m->cap - 1));
	if (i == U64MAP_NONE)
		return U64MAP_NONE;
	*cursor = i;
	return m->vals[i] - 1;
}

uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	uint32_t c;

	return u64map_first(m, key, &c);
}

/* The slot of the entry (key, val), or U64MAP_NONE. */
static uint32_t u64map_slot(const struct u64map *m, uint64_t key, uint32_t val)
{
	uint32_t c;

	for (uint32_t v = u64map_first(m, key, &c); v != U64MAP_NONE; v = u64map_next(m, key, &c))
		if (v == val)
			return c;
	return U64MAP_NONE;
}

int u64map_del(struct u64map *m, uint64_t key, uint32_t val)
{
	uint32_t mask, i = u64map_slot(m, key, val), j;

	if (i == U64MAP_NONE)
		return -ENOENT;
	/*
	 * Empty slot i, then walk the rest of its probe run: an entry whose
	 * home lies cyclically in (i, j] is still reachable and stays; any
	 * other moves back into the hole, which moves to where it was.
	 */
	mask = m->cap - 1;
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		uint32_t k = u64map_home(m, m->keys[j]);

		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
	m->vals[i] = 0;
	m->n--;
	return 0;
}

int u64map_set(struct u64map *m, uint64_t key, uint32_t old, uint32_t val)
{
	uint32_t i;

	if (val == U64MAP_NONE)
		return -EINVAL;
	i = u64map_slot(m, key, old);
	if (i == U64MAP_NONE)
		return -ENOENT;
	m->vals[i] = val + 1;
	return 0;
}

int u64map_copy(struct u64map *dst, const struct u64map *src)
{
	struct u64map t = {.cap = src->cap, .n = src->n};

	if (src->cap) {
		t.keys = malloc((size_t)src->cap * U64MAP_SLOT);
		if (!t.keys)
			return -ENOMEM;
		t.vals = (uint32_t *)(t.keys + t.cap);
		memcpy(t.keys, src->keys, (size_t)src->cap * U64MAP_SLOT);
	}
	free(dst->keys);
	*dst = t;
	return 0;
}

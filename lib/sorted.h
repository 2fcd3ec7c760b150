/*
 * Arrays of 64-bit keys (GUIDs): whether a sorted one holds a key, and small
 * unsorted sets of a bounded size (a few dozen switches).  Small enough to
 * be inline; for large sets that change, lib/ has a hash map.
 */
#ifndef IBSMD_SORTED_H
#define IBSMD_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether v[0..n) (ascending) holds key; v may be NULL when n is 0. */
static inline bool sorted_u64_has(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == key)
			return true;
		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Whether v[0..n) holds key (any order; a linear search: small sets only). */
static inline bool u64_set_has(const uint64_t *v, size_t n, uint64_t key)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == key)
			return true;
	return false;
}

/* Add key to the set v[0..*n) of at most max keys: whether it is in v now (false: full). */
static inline bool u64_set_add(uint64_t *v, unsigned *n, unsigned max, uint64_t key)
{
	if (u64_set_has(v, *n, key))
		return true;
	if (*n >= max)
		return false;
	v[(*n)++] = key;
	return true;
}

#endif

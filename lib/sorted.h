/*
 * Sorted arrays of 64-bit keys (GUIDs): whether one holds a key.  Small
 * enough to be inline; for sets that change, lib/ has a hash map.
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

#endif

/*
 * A hash map from 64-bit keys to 32-bit values: the one index behind every
 * "find it by GUID" in ibsmd (nodes and ports by GUID, the LID file, MFTs by
 * switch, multicast groups and members, the performance manager's ports, RMPP
 * transfers, topology names).
 *
 * The value is usually an index into the caller's own array (or anything
 * else that fits in 32 bits but U64MAP_NONE).  A key may be held more than
 * once: a caller whose real key is wider than 64 bits (an MGID, a (GUID,
 * port) pair, a name) folds it into a u64 key, adds (key, index), and on a
 * look-up walks the values held under that key (u64map_first/u64map_next)
 * comparing its full key in its own array.  A caller whose key is the u64
 * itself checks with u64map_get before adding and so holds each key once.
 *
 * Inside: linear probing over a power-of-two table at most 3/4 full (the key
 * is mixed, so GUIDs that differ only in their low bits spread), deletion by
 * backward shift (no tombstones: a probe run never holds a dead slot), the
 * table doubled when an insert would pass the bound.  Keys and values are
 * kept in two arrays of one allocation: 12 bytes a slot.
 *
 * A zeroed struct u64map is an empty map (no storage until the first add);
 * u64map_free gives the storage back.  Not thread-safe; no logging.  The
 * fields are private: use the functions.
 */
#ifndef IBSMD_U64MAP_H
#define IBSMD_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define U64MAP_NONE UINT32_MAX /* "no value": never stored */

struct u64map {
	uint64_t *keys; /* cap keys, then (the same allocation) cap values */
	uint32_t *vals; /* value + 1; 0 marks an empty slot */
	uint32_t cap;	/* 0 or a power of two */
	uint32_t n;
};

/*
 * Free the storage (not m: a map is a member of something else) and leave m
 * an empty map, ready for use again.  NULL is fine.
 */
void u64map_free(struct u64map *m);

/* Entries held; 0 for NULL. */
uint32_t u64map_count(const struct u64map *m);
/* Bytes of storage held (12 a slot); 0 for NULL. */
size_t u64map_mem(const struct u64map *m);

/*
 * Room for n entries in all, so that adding up to n never allocates (and
 * so cannot fail).  0 or -ENOMEM (m unchanged).
 */
int u64map_reserve(struct u64map *m, uint32_t n);

/*
 * Add (key, val), even when key is already held (see above).  0, -EINVAL
 * for val U64MAP_NONE, -ENOMEM (m unchanged).
 */
int u64map_add(struct u64map *m, uint64_t key, uint32_t val);

/* A value held under key (the first one a walk finds), or U64MAP_NONE.  m may be NULL. */
uint32_t u64map_get(const struct u64map *m, uint64_t key);

/*
 * Walk the values held under key: u64map_first returns the first one (or
 * U64MAP_NONE) and sets *cursor, u64map_next the next one after *cursor.
 * In no particular order; the map must not change during the walk.
 *
 *	for (v = u64map_first(m, key, &c); v != U64MAP_NONE; v = u64map_next(m, key, &c))
 *		if (same_full_key(v))
 *			...
 */
uint32_t u64map_first(const struct u64map *m, uint64_t key, uint32_t *cursor);
uint32_t u64map_next(const struct u64map *m, uint64_t key, uint32_t *cursor);

/* Remove the entry (key, val).  0 or -ENOENT. */
int u64map_del(struct u64map *m, uint64_t key, uint32_t val);

/*
 * Change the value of the entry (key, old) to val in place (a caller whose
 * array moved an element).  0, -ENOENT, -EINVAL for val U64MAP_NONE.
 */
int u64map_set(struct u64map *m, uint64_t key, uint32_t old, uint32_t val);

/*
 * dst becomes a copy of src (dst's old storage is freed).  0 or -ENOMEM
 * (dst unchanged).
 */
int u64map_copy(struct u64map *dst, const struct u64map *src);

#endif

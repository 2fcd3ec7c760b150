/*
 * Multicast forwarding tables and their block diff (see mft.h).  A set is a
 * dense array of (GUID, table) with a u64map index by GUID; removal moves
 * the last entry into the hole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/mft.h"
#include "lib/u64map.h"

struct mft *mft_new(uint8_t nports, uint16_t n_blocks)
{
	struct mft *t;
	uint8_t n_pos = mft_positions(nports);

	if (n_blocks > MFT_MAX_BLOCKS)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	*t = (struct mft){nports, n_pos, n_blocks, NULL};
	if (n_blocks) {
		t->mask = calloc((size_t)n_blocks * MFT_BLOCK * n_pos, sizeof(*t->mask));
		if (!t->mask) {
			free(t);
			return NULL;
		}
	}
	return t;
}

void mft_free(struct mft *t)
{
	if (!t)
		return;
	free(t->mask);
	free(t);
}

struct mft *mft_dup(const struct mft *t)
{
	struct mft *c = mft_new(t->nports, t->n_blocks);

	if (c && t->n_blocks)
		memcpy(c->mask, t->mask,
		       (size_t)t->n_blocks * MFT_BLOCK * t->n_pos * sizeof(*t->mask));
	return c;
}

/* Entry index of mlid, or -1 outside the table. */
static long mft_entry(const struct mft *t, uint16_t mlid)
{
	if (!t || mlid < MFT_MLID_FIRST || mlid > MFT_MLID_LAST)
		return -1;
	if ((unsigned)(mlid - MFT_MLID_FIRST) >= (unsigned)t->n_blocks * MFT_BLOCK)
		return -1;
	return mlid - MFT_MLID_FIRST;
}

int mft_set_port(struct mft *t, uint16_t mlid, uint8_t port)
{
	long e = mft_entry(t, mlid);

	if (e < 0 || port > t->nports)
		return -ERANGE;
	t->mask[e * t->n_pos + port / MFT_POSITION_PORTS] |= 1u << (port % MFT_POSITION_PORTS);
	return 0;
}

bool mft_has_port(const struct mft *t, uint16_t mlid, uint8_t port)
{
	long e = mft_entry(t, mlid);

	if (e < 0 || port > t->nports)
		return false;
	return t->mask[e * t->n_pos + port / MFT_POSITION_PORTS] &
	       1u << (port % MFT_POSITION_PORTS);
}

uint16_t mft_mask(const struct mft *t, uint16_t mlid, uint8_t position)
{
	long e = mft_entry(t, mlid);

	if (e < 0 || position >= t->n_pos)
		return 0;
	return t->mask[e * t->n_pos + position];
}

bool mft_mlid_used(const struct mft *t, uint16_t mlid)
{
	long e = mft_entry(t, mlid);

	for (unsigned p = 0; e >= 0 && p < t->n_pos; p++)
		if (t->mask[e * t->n_pos + p])
			return true;
	return false;
}

void mft_clear_mlid(struct mft *t, uint16_t mlid)
{
	long e = mft_entry(t, mlid);

	if (e >= 0)
		memset(&t->mask[e * t->n_pos], 0, t->n_pos * sizeof(*t->mask));
}

void mft_block(const struct mft *t, uint16_t block, uint8_t position, uint16_t ret[MFT_BLOCK])
{
	for (unsigned i = 0; i < MFT_BLOCK; i++) {
		bool in = t && block < t->n_blocks && position < t->n_pos;
		ret[i] = in ? t->mask[((size_t)block * MFT_BLOCK + i) * t->n_pos + position] : 0;
	}
}

uint16_t mft_fdb_top(const struct mft *t)
{
	if (!t || !t->n_blocks)
		return MFT_MLID_FIRST - 1;
	if (t->n_blocks >= MFT_MAX_BLOCKS)
		return MFT_MLID_LAST;
	return (uint16_t)(MFT_MLID_FIRST + t->n_blocks * MFT_BLOCK - 1);
}

static bool mft_comparable(const struct mft *old, const struct mft *new_t)
{
	return old && old->nports == new_t->nports;
}

size_t mft_diff_room(const struct mft *old, const struct mft *new_t)
{
	unsigned nb = new_t->n_blocks;

	if (mft_comparable(old, new_t) && old->n_blocks > nb)
		nb = old->n_blocks;
	return (size_t)nb * new_t->n_pos;
}

size_t mft_diff(const struct mft *old, const struct mft *new_t, struct mft_ref *ret)
{
	bool known = mft_comparable(old, new_t);
	unsigned nb = new_t->n_blocks;
	size_t n = 0;

	if (known && old->n_blocks > nb)
		nb = old->n_blocks;
	for (unsigned b = 0; b < nb; b++) {
		for (unsigned p = 0; p < new_t->n_pos; p++) {
			uint16_t a[MFT_BLOCK], c[MFT_BLOCK];

			if (known) {
				mft_block(new_t, (uint16_t)b, (uint8_t)p, a);
				mft_block(old, (uint16_t)b, (uint8_t)p, c);
				if (!memcmp(a, c, sizeof(a)))
					continue;
			}
			ret[n++] = (struct mft_ref){(uint16_t)b, (uint8_t)p};
		}
	}
	return n;
}

/* ---- tables by switch GUID ------------------------------------------- */

struct mft_set_entry {
	uint64_t guid;
	struct mft *t;
};

struct mft_set {
	struct mft_set_entry *v; /* [0, n), in no particular order */
	size_t n, cap;
	struct u64map index; /* switch GUID -> v[] index */
};

struct mft_set *mft_set_new(void)
{
	return calloc(1, sizeof(struct mft_set));
}

void mft_set_free(struct mft_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		mft_free(s->v[i].t);
	free(s->v);
	u64map_free(&s->index);
	free(s);
}

size_t mft_set_count(const struct mft_set *s)
{
	return s ? s->n : 0;
}

static long mft_set_lookup(const struct mft_set *s, uint64_t guid)
{
	uint32_t i;

	if (!s || !guid)
		return -1;
	i = u64map_get(&s->index, guid);
	return i == U64MAP_NONE ? -1 : (long)i;
}

struct mft *mft_set_find(struct mft_set *s, uint64_t guid)
{
	long i = mft_set_lookup(s, guid);

	return i < 0 ? NULL : s->v[i].t;
}

const struct mft *mft_set_get(const struct mft_set *s, uint64_t guid)
{
	long i = mft_set_lookup(s, guid);

	return i < 0 ? NULL : s->v[i].t;
}

/* Room for one more entry in v and the index. */
static int mft_set_grow(struct mft_set *s)
{
	if (s->n == s->cap) {
		size_t vcap = s->cap ? s->cap * 2 : 8;
		struct mft_set_entry *v = realloc(s->v, vcap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = vcap;
	}
	return u64map_reserve(&s->index, (uint32_t)s->n + 1);
}

int mft_set_put(struct mft_set *s, uint64_t guid, struct mft *t)
{
	long i = mft_set_lookup(s, guid);

	if (!guid)
		return -EINVAL;
	if (i >= 0) {
		mft_free(s->v[i].t);
		s->v[i].t = t;
		return 0;
	}
	if (mft_set_grow(s) < 0)
		return -ENOMEM;
	u64map_add(&s->index, guid, (uint32_t)s->n);
	s->v[s->n++] = (struct mft_set_entry){guid, t};
	return 0;
}

bool mft_set_remove(struct mft_set *s, uint64_t guid)
{
	long i = mft_set_lookup(s, guid);
	size_t last;

	if (i < 0)
		return false;
	mft_free(s->v[i].t);
	u64map_del(&s->index, guid, (uint32_t)i);
	/* the last entry takes the freed dense place */
	last = s->n - 1;
	if ((size_t)i != last) {
		s->v[i] = s->v[last];
		u64map_set(&s->index, s->v[i].guid, (uint32_t)last, (uint32_t)i);
	}
	s->n--;
	return true;
}

void mft_set_clear_mlid(struct mft_set *s, uint16_t mlid)
{
	for (size_t i = 0; s && i < s->n; i++)
		mft_clear_mlid(s->v[i].t, mlid);
}

bool mft_set_next(const struct mft_set *s, size_t *pos, uint64_t *ret_guid,
		  const struct mft **ret_t)
{
	if (!s || *pos >= s->n)
		return false;
	*ret_guid = s->v[*pos].guid;
	*ret_t = s->v[*pos].t;
	(*pos)++;
	return true;
}

int mft_set_for_fabric(const struct fabric *f, uint16_t n_blocks, struct mft_set **ret)
{
	struct mft_set *s = mft_set_new();

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint16_t nb = n_blocks;
		struct mft *t;

		if (!node_is_switch(n) || !n->mft_cap)
			continue;
		if (nb > (n->mft_cap + MFT_BLOCK - 1) / MFT_BLOCK)
			nb = (uint16_t)((n->mft_cap + MFT_BLOCK - 1) / MFT_BLOCK);
		t = mft_new(n->nports, nb);
		if (!t || mft_set_put(s, n->guid, t) < 0) {
			mft_free(t);
			mft_set_free(s);
			return -ENOMEM;
		}
	}
	*ret = s;
	return 0;
}

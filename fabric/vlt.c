/*
 * SL2VL and VLArb tables by node GUID, compacted (see vlt.h).  The pools
 * only grow: a row or block stays once seen (a fabric holds a handful of
 * distinct ones), so a number a node holds never goes stale.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/vlt.h"

#define VLT_POOL_MAX 0xfffe /* numbers are 16 bits, VLT_NONE excluded */

struct vlt_set {
	struct vlt_node *nodes;
	uint32_t n, cap;
	struct u64map by_guid; /* node GUID -> nodes[] index */
	uint8_t (*rows)[VLT_SL2VL_SIZE];
	uint32_t n_rows, cap_rows;
	struct u64map row_index; /* the row's 8 bytes -> its number (exact key) */
	uint8_t (*blocks)[VLT_VLARB_SIZE];
	uint32_t n_blocks, cap_blocks;
	struct u64map block_index; /* folded 64 bytes -> numbers (compared in blocks[]) */
};

int vlt_read_init(struct vlt_read *r, uint8_t nports, bool is_switch)
{
	size_t pairs = ((size_t)nports + 1) * ((size_t)nports + 1);
	size_t blocks = ((size_t)nports + 1) * VLT_VLARB_BLOCKS;

	memset(r, 0, sizeof(*r));
	r->nports = nports;
	r->is_switch = is_switch;
	r->sl2vl = calloc(pairs, sizeof(*r->sl2vl));
	r->sl2vl_has = calloc(pairs, sizeof(*r->sl2vl_has));
	r->vlarb = calloc(blocks, sizeof(*r->vlarb));
	r->vlarb_has = calloc(blocks, sizeof(*r->vlarb_has));
	if (!r->sl2vl || !r->sl2vl_has || !r->vlarb || !r->vlarb_has) {
		vlt_read_clear(r);
		return -ENOMEM;
	}
	return 0;
}

void vlt_read_clear(struct vlt_read *r)
{
	if (!r)
		return;
	free(r->sl2vl);
	free(r->sl2vl_has);
	free(r->vlarb);
	free(r->vlarb_has);
	r->sl2vl = NULL;
	r->sl2vl_has = NULL;
	r->vlarb = NULL;
	r->vlarb_has = NULL;
}

struct vlt_set *vlt_set_new(void)
{
	return calloc(1, sizeof(struct vlt_set));
}

static void vlt_node_clear(struct vlt_node *n)
{
	free(n->sl2vl);
	free(n->vlarb);
}

void vlt_set_free(struct vlt_set *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		vlt_node_clear(&s->nodes[i]);
	free(s->nodes);
	free(s->rows);
	free(s->blocks);
	u64map_free(&s->by_guid);
	u64map_free(&s->row_index);
	u64map_free(&s->block_index);
	free(s);
}

uint32_t vlt_set_count(const struct vlt_set *s)
{
	return s ? s->n : 0;
}

size_t vlt_set_mem(const struct vlt_set *s)
{
	size_t m;

	if (!s)
		return 0;
	m = sizeof(*s) + (size_t)s->cap * sizeof(*s->nodes) +
	    (size_t)s->cap_rows * sizeof(*s->rows) + (size_t)s->cap_blocks * sizeof(*s->blocks) +
	    u64map_mem(&s->by_guid) + u64map_mem(&s->row_index) + u64map_mem(&s->block_index);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct vlt_node *n = &s->nodes[i];
		size_t np = (size_t)n->nports + 1;

		if (n->sl2vl)
			m += np * np * sizeof(*n->sl2vl);
		if (n->vlarb)
			m += np * VLT_VLARB_BLOCKS * sizeof(*n->vlarb);
	}
	return m;
}

static uint64_t vlt_row_key(const uint8_t row[VLT_SL2VL_SIZE])
{
	uint64_t k = 0;

	for (int i = 0; i < VLT_SL2VL_SIZE; i++)
		k = k << 8 | row[i];
	return k;
}

static uint64_t vlt_block_key(const uint8_t b[VLT_VLARB_SIZE])
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (int i = 0; i < VLT_VLARB_SIZE; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int vlt_grow(void **p, uint32_t *cap, size_t elem, uint32_t want)
{
	uint32_t c = *cap ? *cap : 8;
	void *np;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	np = realloc(*p, (size_t)c * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = c;
	return 0;
}

/* The number of row in the pool, added when new; VLT_NONE on ENOMEM or a full pool. */
static uint16_t vlt_row(struct vlt_set *s, const uint8_t row[VLT_SL2VL_SIZE])
{
	uint64_t k = vlt_row_key(row);
	uint32_t v = u64map_get(&s->row_index, k);

	if (v != U64MAP_NONE)
		return (uint16_t)v;
	if (s->n_rows >= VLT_POOL_MAX ||
	    vlt_grow((void **)&s->rows, &s->cap_rows, sizeof(*s->rows), s->n_rows + 1) < 0 ||
	    u64map_add(&s->row_index, k, s->n_rows) < 0)
		return VLT_NONE;
	memcpy(s->rows[s->n_rows], row, VLT_SL2VL_SIZE);
	return (uint16_t)s->n_rows++;
}

static uint16_t vlt_block(struct vlt_set *s, const uint8_t b[VLT_VLARB_SIZE])
{
	uint64_t k = vlt_block_key(b);
	uint32_t c, v;

	for (v = u64map_first(&s->block_index, k, &c); v != U64MAP_NONE;
	     v = u64map_next(&s->block_index, k, &c))
		if (!memcmp(s->blocks[v], b, VLT_VLARB_SIZE))
			return (uint16_t)v;
	if (s->n_blocks >= VLT_POOL_MAX ||
	    vlt_grow((void **)&s->blocks, &s->cap_blocks, sizeof(*s->blocks), s->n_blocks + 1) <
		0 ||
	    u64map_add(&s->block_index, k, s->n_blocks) < 0)
		return VLT_NONE;
	memcpy(s->blocks[s->n_blocks], b, VLT_VLARB_SIZE);
	return (uint16_t)s->n_blocks++;
}

static bool vlt_pair_known(const struct vlt_node *n, unsigned in, unsigned out)
{
	if (in > n->nports || out > n->nports)
		return false;
	if (n->is_switch)
		return vlt_port_read(n, in) && vlt_port_read(n, out);
	return in == 0 && out >= 1 && vlt_port_read(n, out);
}

/* The compact form of r into n (n's arrays allocated only where pairs or ports differ). */
static int vlt_compact(struct vlt_set *s, struct vlt_node *n, const struct vlt_read *r)
{
	size_t np = (size_t)r->nports + 1;
	uint16_t first = VLT_NONE;
	bool differ = false;

	n->sl2vl_def = VLT_NONE;
	for (size_t i = 0; i < np * np && !differ; i++) {
		uint16_t row;

		if (!vlt_pair_known(n, (unsigned)(i / np), (unsigned)(i % np)))
			continue;
		if (!r->sl2vl_has[i])
			return -EINVAL; /* a pair of the ports read was not read */
		row = vlt_row(s, r->sl2vl[i]);
		if (row == VLT_NONE)
			return -ENOMEM;
		if (first == VLT_NONE)
			first = row;
		differ = row != first;
	}
	if (!differ) {
		n->sl2vl_def = first;
	} else {
		n->sl2vl = malloc(np * np * sizeof(*n->sl2vl));
		if (!n->sl2vl)
			return -ENOMEM;
		for (size_t i = 0; i < np * np; i++) {
			n->sl2vl[i] = VLT_NONE;
			if (vlt_pair_known(n, (unsigned)(i / np), (unsigned)(i % np)) &&
			    (n->sl2vl[i] = vlt_row(s, r->sl2vl[i])) == VLT_NONE)
				return -ENOMEM;
		}
	}
	for (unsigned b = 0; b < VLT_VLARB_BLOCKS; b++) {
		bool seen = false;

		n->vlarb_def[b] = VLT_NONE;
		for (size_t p = 0; p < np; p++) {
			uint16_t blk = VLT_NONE;

			if (!vlt_port_read(n, (unsigned)p) || (n->is_switch && p == 0))
				continue;
			if (r->vlarb_has[p * VLT_VLARB_BLOCKS + b] &&
			    (blk = vlt_block(s, r->vlarb[p * VLT_VLARB_BLOCKS + b])) == VLT_NONE)
				return -ENOMEM;
			if (!seen)
				n->vlarb_def[b] = blk;
			else if (blk != n->vlarb_def[b])
				n->vlarb_differ |= 1u << b;
			seen = true;
		}
	}
	if (n->vlarb_differ) {
		n->vlarb = malloc(np * VLT_VLARB_BLOCKS * sizeof(*n->vlarb));
		if (!n->vlarb)
			return -ENOMEM;
		for (size_t i = 0; i < np * VLT_VLARB_BLOCKS; i++) {
			n->vlarb[i] = VLT_NONE;
			if (vlt_port_read(n, (unsigned)(i / VLT_VLARB_BLOCKS)) &&
			    !(n->is_switch && i < VLT_VLARB_BLOCKS) && r->vlarb_has[i] &&
			    (n->vlarb[i] = vlt_block(s, r->vlarb[i])) == VLT_NONE)
				return -ENOMEM;
		}
	}
	return 0;
}

int vlt_set_put(struct vlt_set *s, uint64_t guid, const struct vlt_read *r)
{
	struct vlt_node n = {.guid = guid, .nports = r->nports, .is_switch = r->is_switch};
	int rc;

	memcpy(n.ports, r->ports, sizeof(n.ports));
	rc = vlt_compact(s, &n, r);
	if (rc < 0) {
		vlt_node_clear(&n);
		return rc;
	}
	vlt_set_remove(s, guid);
	if (vlt_grow((void **)&s->nodes, &s->cap, sizeof(*s->nodes), s->n + 1) < 0 ||
	    u64map_add(&s->by_guid, guid, s->n) < 0) {
		vlt_node_clear(&n);
		return -ENOMEM;
	}
	s->nodes[s->n++] = n;
	return 0;
}

static void vlt_remove_at(struct vlt_set *s, uint32_t i)
{
	uint32_t last = s->n - 1;

	u64map_del(&s->by_guid, s->nodes[i].guid, i);
	vlt_node_clear(&s->nodes[i]);
	if (i != last) {
		u64map_del(&s->by_guid, s->nodes[last].guid, last);
		s->nodes[i] = s->nodes[last];
		u64map_add(&s->by_guid, s->nodes[i].guid, i); /* a slot was just freed */
	}
	s->n--;
}

void vlt_set_remove(struct vlt_set *s, uint64_t guid)
{
	uint32_t i = s ? u64map_get(&s->by_guid, guid) : U64MAP_NONE;

	if (i != U64MAP_NONE)
		vlt_remove_at(s, i);
}

void vlt_set_prune(struct vlt_set *s, bool (*keep)(void *arg, uint64_t guid), void *arg)
{
	for (uint32_t i = s ? s->n : 0; i-- > 0;)
		if (!keep(arg, s->nodes[i].guid))
			vlt_remove_at(s, i);
}

const struct vlt_node *vlt_set_get(const struct vlt_set *s, uint64_t guid)
{
	uint32_t i = s ? u64map_get(&s->by_guid, guid) : U64MAP_NONE;

	return i == U64MAP_NONE ? NULL : &s->nodes[i];
}

bool vlt_sl2vl(const struct vlt_set *s, const struct vlt_node *n, unsigned in, unsigned out,
	       uint8_t ret[VLT_SL2VL_SIZE])
{
	uint16_t row;

	if (!vlt_pair_known(n, in, out))
		return false;
	row = n->sl2vl ? n->sl2vl[in * ((unsigned)n->nports + 1) + out] : n->sl2vl_def;
	if (row == VLT_NONE || row >= s->n_rows)
		return false;
	memcpy(ret, s->rows[row], VLT_SL2VL_SIZE);
	return true;
}

bool vlt_vlarb(const struct vlt_set *s, const struct vlt_node *n, unsigned p, unsigned block,
	       uint8_t ret[VLT_VLARB_SIZE])
{
	uint16_t blk;

	if (block < 1 || block > VLT_VLARB_BLOCKS || p > n->nports || !vlt_port_read(n, p) ||
	    (n->is_switch && p == 0))
		return false;
	blk = (n->vlarb_differ >> (block - 1) & 1) ? n->vlarb[p * VLT_VLARB_BLOCKS + block - 1]
						   : n->vlarb_def[block - 1];
	if (blk == VLT_NONE || blk >= s->n_blocks)
		return false;
	memcpy(ret, s->blocks[blk], VLT_VLARB_SIZE);
	return true;
}

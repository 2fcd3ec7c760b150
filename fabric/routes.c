/*
 * Forwarding tables (see routes.h): allocation of the LFT matrix, path SLs and
 * SL-to-VL tables, and the path SL lookup.  IBA 1.4 vol 1, 18.2.4.3.2 (linear
 * forwarding tables) and 7.6.6 (SL to VL mapping).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fabric/routes.h"

/*
 * The mapping for size bytes of tables: 1/32 more (at least 64 KiB), so
 * that the spare of a table can hold the next one when a switch or a few
 * LIDs came back (a fresh table touches only what it uses).
 */
static size_t routes_block_size(size_t size)
{
	size_t slack = size / 32 > (64u << 10) ? size / 32 : (64u << 10);

	return size + slack;
}

static struct routes *routes_alloc(const struct fabric *f, uint16_t max_lid, bool fill,
				   struct routes_spare *sp, const bool *want);

struct routes *routes_new(const struct fabric *f, uint16_t max_lid)
{
	return routes_alloc(f, max_lid, true, NULL, NULL);
}

struct routes *routes_new_for(const struct fabric *f, uint16_t max_lid, const bool *want)
{
	return routes_alloc(f, max_lid, true, NULL, want);
}

struct routes *routes_new_unfilled(const struct fabric *f, uint16_t max_lid,
				   struct routes_spare *sp)
{
	return routes_alloc(f, max_lid, false, sp, NULL);
}

void routes_spare_take(struct routes_spare *sp, struct routes *r)
{
	if (!sp || !r || !r->lft_block)
		return;
	routes_spare_clear(sp);
	/* kept for the next table of this size; the kernel may take the pages back meanwhile */
	madvise(r->lft_block, r->lft_block_size, MADV_FREE);
	sp->block = r->lft_block;
	sp->size = r->lft_block_size;
	r->lft_block = NULL;
	r->lft_block_size = 0;
}

int routes_spare_prepare(struct routes_spare *sp, const struct routes *r)
{
	void *block;

	if (!r || !r->lft_block_size || (sp->block && sp->size == r->lft_block_size))
		return 0;
	routes_spare_clear(sp);
	block = mmap(NULL, r->lft_block_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (block == MAP_FAILED)
		return -ENOMEM;
	if (r->lft_block_size >= (2u << 20))
		madvise(block, r->lft_block_size, MADV_HUGEPAGE);
	memset(block, LFT_NO_PORT, r->lft_block_size); /* the page faults, paid now */
	madvise(block, r->lft_block_size, MADV_FREE);
	sp->block = block;
	sp->size = r->lft_block_size;
	return 0;
}

void routes_spare_clear(struct routes_spare *sp)
{
	if (sp && sp->block)
		munmap(sp->block, sp->size);
	if (sp) {
		sp->block = NULL;
		sp->size = 0;
	}
}

static struct routes *routes_alloc(const struct fabric *f, uint16_t max_lid, bool fill,
				   struct routes_spare *sp, const bool *want)
{
	struct routes *r = calloc(1, sizeof(*r));
	size_t row = (size_t)max_lid + 1, n_sw = 0, size;
	uint32_t i;
	uint8_t *block;

	if (!r)
		return NULL;
	r->max_lid = max_lid;
	r->n_nodes = f->n_nodes;
	r->n_vls = 1;
	r->lft = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*r->lft));
	if (!r->lft)
		goto out_free;
	for (i = 0; i < f->n_nodes; i++)
		n_sw += node_is_switch(&f->nodes[i]) && (!want || want[i]);
	/*
	 * One block for every switch's table (k=56: 190 MB).  Mapped with
	 * transparent huge pages where the kernel allows: first-touch page faults
	 * on 4 KiB pages cost more than the routing itself on some VMs.
	 */
	size = n_sw * row;
	if (size && sp && sp->block && sp->size >= size &&
	    sp->size <= 2 * routes_block_size(size)) {
		/*
		 * The last table's pages: no page faults, no zeroing by the
		 * kernel.  Its slack takes a switch or a LID more (a spine
		 * back, a host), fewer leave some unused.
		 */
		block = sp->block;
		r->lft_block_size = sp->size;
		sp->block = NULL;
		sp->size = 0;
		if (fill)
			memset(block, LFT_NO_PORT, size);
		r->lft_block = block;
	} else if (size) {
		size_t map = routes_block_size(size);

		block = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (block == MAP_FAILED)
			goto out_free;
		if (map >= (2u << 20))
			madvise(block, map, MADV_HUGEPAGE);
		if (fill)
			memset(block, LFT_NO_PORT, size);
		r->lft_block = block;
		r->lft_block_size = map;
	}
	for (i = 0, block = r->lft_block; i < f->n_nodes; i++) {
		if (!node_is_switch(&f->nodes[i]) || (want && !want[i]))
			continue;
		r->lft[i] = block;
		block += row;
	}
	return r;

out_free:
	routes_free(r);
	return NULL;
}

size_t routes_mem(const struct routes *r)
{
	size_t n, lids;

	if (!r)
		return 0;
	lids = (size_t)r->max_lid + 1;
	n = sizeof(*r) + r->lft_block_size + (size_t)r->n_nodes * sizeof(*r->lft);
	if (r->sw_index)
		n += (size_t)r->n_nodes * sizeof(*r->sw_index);
	if (r->path_sl)
		n += (size_t)r->n_sw * r->n_sw;
	if (r->lid_sl)
		n += (size_t)r->n_sw * lids;
	if (r->sl2vl)
		n += (size_t)r->n_nodes * sizeof(*r->sl2vl); /* the rows are small */
	if (r->load_at)
		n += (size_t)r->n_nodes * sizeof(*r->load_at);
	return n;
}

void routes_free(struct routes *r)
{
	uint32_t i;

	if (!r)
		return;
	if (r->lft_block)
		munmap(r->lft_block, r->lft_block_size);
	free(r->lft);
	if (r->sl2vl)
		for (i = 0; i < r->n_nodes; i++)
			free(r->sl2vl[i]);
	free(r->sl2vl);
	free(r->path_sl);
	free(r->lid_sl);
	free(r->sw_index);
	free(r->load);
	free(r->load_at);
	free(r);
}

int routes_load_count(struct routes *r, const struct fabric *f, const struct lid_map *m)
{
	size_t n = 0;
	uint32_t *at, *load;

	free(r->load);
	free(r->load_at);
	r->load = r->load_at = NULL;
	at = malloc((r->n_nodes ? r->n_nodes : 1) * sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_nodes; i++) {
		at[i] = UINT32_MAX;
		if (i < f->n_nodes && r->lft[i]) {
			at[i] = (uint32_t)n;
			n += (size_t)f->nodes[i].nports + 1;
		}
	}
	load = calloc(n ? n : 1, sizeof(*load));
	if (!load) {
		free(at);
		return -ENOMEM;
	}
	r->unreachable = 0;
	for (uint32_t i = 0; i < r->n_nodes; i++) {
		uint32_t counts[256] = {0};
		const uint8_t *lft = r->lft[i];

		if (at[i] == UINT32_MAX)
			continue;
		for (uint32_t l = 1; l <= r->max_lid; l++)
			counts[lft[l]]++;
		for (unsigned p = 0; p <= f->nodes[i].nports; p++)
			load[at[i] + p] = counts[p];
		if (!counts[LFT_NO_PORT])
			continue;
		for (uint32_t l = 1; l <= r->max_lid && l <= m->max_lid; l++)
			r->unreachable += lft[l] == LFT_NO_PORT && m->node[l] != FABRIC_NO_NODE;
	}
	r->load = load;
	r->load_at = at;
	return 0;
}

int routes_alloc_vls(struct routes *r, const struct fabric *f, uint8_t n_vls)
{
	uint32_t i;

	r->n_vls = n_vls;
	r->n_sw = 0;
	r->sw_index = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*r->sw_index));
	r->sl2vl = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*r->sl2vl));
	if (!r->sw_index || !r->sl2vl)
		return -ENOMEM;
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		size_t sz =
		    node_is_switch(n) ? (size_t)(n->nports + 1) * ROUTES_MAX_SL : ROUTES_MAX_SL;
		r->sw_index[i] = node_is_switch(n) ? r->n_sw++ : UINT32_MAX;
		r->sl2vl[i] = calloc(sz, 1);
		if (!r->sl2vl[i])
			return -ENOMEM;
	}
	size_t n_pairs = (size_t)r->n_sw * r->n_sw;
	r->path_sl = calloc(n_pairs ? n_pairs : 1, 1);
	return r->path_sl ? 0 : -ENOMEM;
}

static uint32_t lid_switch(const struct fabric *f, const struct lid_map *m, uint16_t lid)
{
	uint32_t ni;
	const struct node *n;
	const struct port *p;

	if (lid == 0 || lid > m->max_lid || (ni = m->node[lid]) == FABRIC_NO_NODE)
		return FABRIC_NO_NODE;
	n = &f->nodes[ni];
	if (node_is_switch(n))
		return ni;
	p = &n->ports[m->port[lid]];
	return port_is_linked(p) ? p->remote_node : FABRIC_NO_NODE;
}

int routes_alloc_lid_sl(struct routes *r)
{
	free(r->path_sl);
	r->path_sl = NULL;
	r->lid_sl = calloc((size_t)r->n_sw * ((size_t)r->max_lid + 1) + 1, 1);
	return r->lid_sl ? 0 : -ENOMEM;
}

uint8_t routes_path_sl(const struct routes *r, const struct fabric *f, const struct lid_map *m,
		       uint16_t src_lid, uint16_t dst_lid)
{
	uint32_t a, b;

	if (!routes_has_path_sl(r) || !r->sw_index)
		return 0;
	a = lid_switch(f, m, src_lid);
	if (r->lid_sl) {
		if (a == FABRIC_NO_NODE || r->sw_index[a] == UINT32_MAX || dst_lid > r->max_lid)
			return 0;
		return r->lid_sl[(size_t)r->sw_index[a] * ((size_t)r->max_lid + 1) + dst_lid];
	}
	b = lid_switch(f, m, dst_lid);
	if (a == FABRIC_NO_NODE || b == FABRIC_NO_NODE || r->sw_index[a] == UINT32_MAX ||
	    r->sw_index[b] == UINT32_MAX)
		return 0;
	return r->path_sl[(size_t)r->sw_index[a] * r->n_sw + r->sw_index[b]];
}

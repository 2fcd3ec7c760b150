/*
 * Routing engines' common part: the forwarding tables (struct routes), the
 * engine table and statistics over a result.  IBA 1.4 vol 1, 18.2.4.3.2
 * (linear forwarding tables).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

const struct routing_engine routing_engines[] = {
	{"minhop", minhop_compute},
	{"updn", updn_compute},
	{"dnup", dnup_compute},
	{"ftree", ftree_compute},
	{"dor", dor_compute},
	{NULL, NULL},
};

const struct routing_engine *routing_find(const char *name)
{
	const struct routing_engine *e;

	if (!name)
		return NULL;
	for (e = routing_engines; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

struct routes *routes_new(const struct fabric *f, uint16_t max_lid)
{
	struct routes *r = calloc(1, sizeof(*r));
	uint32_t i;

	if (!r)
		return NULL;
	r->max_lid = max_lid;
	r->n_nodes = f->n_nodes;
	r->n_vls = 1;
	r->lft = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*r->lft));
	if (!r->lft)
		goto out_free;
	for (i = 0; i < f->n_nodes; i++) {
		if (!node_is_switch(&f->nodes[i]))
			continue;
		r->lft[i] = malloc((size_t)max_lid + 1);
		if (!r->lft[i])
			goto out_free;
		memset(r->lft[i], LFT_NO_PORT, (size_t)max_lid + 1);
	}
	return r;

out_free:
	routes_free(r);
	return NULL;
}

void routes_free(struct routes *r)
{
	uint32_t i;

	if (!r)
		return;
	if (r->lft)
		for (i = 0; i < r->n_nodes; i++)
			free(r->lft[i]);
	free(r->lft);
	if (r->sl2vl)
		for (i = 0; i < r->n_nodes; i++)
			free(r->sl2vl[i]);
	free(r->sl2vl);
	free(r->path_sl);
	free(r->sw_index);
	free(r);
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
		size_t sz = node_is_switch(n) ? (size_t)(n->nports + 1) * ROUTES_MAX_SL
					      : ROUTES_MAX_SL;
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

uint8_t routes_path_sl(const struct routes *r, const struct fabric *f, const struct lid_map *m,
		       uint16_t src_lid, uint16_t dst_lid)
{
	uint32_t a, b;

	if (!r->path_sl || !r->sw_index)
		return 0;
	a = lid_switch(f, m, src_lid);
	b = lid_switch(f, m, dst_lid);
	if (a == FABRIC_NO_NODE || b == FABRIC_NO_NODE || r->sw_index[a] == UINT32_MAX ||
	    r->sw_index[b] == UINT32_MAX)
		return 0;
	return r->path_sl[(size_t)r->sw_index[a] * r->n_sw + r->sw_index[b]];
}

void routing_stats(const struct fabric *f, const struct routes *r, struct routing_stats *ret)
{
	struct routing_stats st = {.ms = ret->ms};
	uint32_t counts[256];
	uint64_t total = 0, n_ports = 0;
	struct lid_map map;
	bool have_map;
	uint32_t i, l;
	unsigned int p;
	int err;

	err = fabric_lid_map(f, &map);
	have_map = !err || err == -EEXIST;
	for (i = 0; i < f->n_nodes && i < r->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		const uint8_t *lft = r->lft[i];

		if (!node_is_switch(n) || !lft)
			continue;
		memset(counts, 0, sizeof(counts));
		for (l = 1; l <= r->max_lid; l++)
			counts[lft[l]]++;
		for (p = 1; p <= n->nports; p++) {
			if (!port_is_linked(&n->ports[p]))
				continue;
			n_ports++;
			total += counts[p];
			if (counts[p] > st.max_routes_per_port)
				st.max_routes_per_port = counts[p];
		}
		if (!have_map)
			continue;
		for (l = 1; l <= map.max_lid; l++) {
			if (map.node[l] == FABRIC_NO_NODE)
				continue;
			if (l > r->max_lid || lft[l] == LFT_NO_PORT)
				st.unreachable++;
		}
	}
	if (n_ports)
		st.mean_routes_per_port = (double)total / (double)n_ports;
	if (have_map)
		fabric_lid_map_clear(&map);
	*ret = st;
}

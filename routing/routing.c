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
	free(r);
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

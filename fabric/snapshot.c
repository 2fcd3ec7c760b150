/*
 * Published snapshots (see snapshot.h).  The port GUID index is a linear
 * probing table at most half full; the LID index is the fabric's LID map.
 */
#include <errno.h>
#include <stdlib.h>

#include "fabric/snapshot.h"

static uint32_t snapshot_hash(uint64_t guid)
{
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (uint32_t)guid;
}

static int snapshot_index_ports(struct snapshot *s)
{
	const struct fabric *f = s->fabric;
	uint32_t cap = 16, n = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		n += node_last_lid_port(&f->nodes[i]) - node_first_lid_port(&f->nodes[i]) + 1;
	while (cap < 2 * n)
		cap *= 2;
	s->ports = calloc(cap, sizeof(*s->ports));
	if (!s->ports)
		return -ENOMEM;
	s->ports_cap = cap;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];

		for (unsigned p = node_first_lid_port(nd); p <= node_last_lid_port(nd); p++) {
			uint64_t g = nd->ports[p].guid;
			uint32_t h;

			if (!g)
				continue;
			for (h = snapshot_hash(g) & (cap - 1);
			     s->ports[h].guid && s->ports[h].guid != g; h = (h + 1) & (cap - 1))
				;
			if (s->ports[h].guid)
				continue; /* a duplicate port GUID: the first one stays */
			s->ports[h] = (struct snapshot_port_slot){g, i, (uint8_t)p};
		}
	}
	return 0;
}

int snapshot_new(struct fabric *f, struct routes *r, uint64_t generation, struct snapshot **ret)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->fabric = f;
	s->routes = r;
	s->generation = generation;
	err = fabric_lid_map(f, &s->lids);
	if (err && err != -EEXIST)
		goto fail;
	err = snapshot_index_ports(s);
	if (err)
		goto fail;
	*ret = s;
	return 0;
fail:
	s->fabric = NULL;
	s->routes = NULL;
	snapshot_free(s);
	return err;
}

size_t snapshot_mem(const struct snapshot *s)
{
	if (!s)
		return 0;
	return sizeof(*s) + fabric_mem(s->fabric) + routes_mem(s->routes) +
	       ((size_t)s->lids.max_lid + 1) * (sizeof(uint32_t) + 1) +
	       (size_t)s->ports_cap * sizeof(struct snapshot_port_slot) +
	       s->changes.cap * sizeof(struct diff_change);
}

int snapshot_set_changes(struct snapshot *s, const struct snapshot *prev)
{
	int r;

	diff_list_clear(&s->changes);
	s->changes_known = false;
	if (!prev)
		return 0;
	r = diff_collect(prev->fabric, s->fabric, &s->changes);
	s->changes_known = r == 0;
	return r;
}

void snapshot_changes_run(const struct snapshot *s, const struct snapshot *prev, diff_fn *fn,
			  void *arg)
{
	if (!prev || !s)
		return;
	if (s->changes_known)
		diff_list_run(&s->changes, fn, arg);
	else
		diff_fabrics(prev->fabric, s->fabric, fn, arg);
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	fabric_lid_map_clear(&s->lids);
	diff_list_clear(&s->changes);
	free(s->ports);
	fabric_free(s->fabric);
	routes_free(s->routes);
	free(s);
}

bool snapshot_find_lid(const struct snapshot *s, uint32_t lid, uint32_t *ret_node,
		       uint8_t *ret_port)
{
	if (!s || lid == 0 || lid > s->lids.max_lid || s->lids.node[lid] == FABRIC_NO_NODE)
		return false;
	*ret_node = s->lids.node[lid];
	*ret_port = s->lids.port[lid];
	return true;
}

bool snapshot_find_port_guid(const struct snapshot *s, uint64_t guid, uint32_t *ret_node,
			     uint8_t *ret_port)
{
	uint32_t h;

	if (!s || !guid || !s->ports_cap)
		return false;
	for (h = snapshot_hash(guid) & (s->ports_cap - 1); s->ports[h].guid;
	     h = (h + 1) & (s->ports_cap - 1)) {
		if (s->ports[h].guid == guid) {
			*ret_node = s->ports[h].node;
			*ret_port = s->ports[h].port;
			return true;
		}
	}
	return false;
}

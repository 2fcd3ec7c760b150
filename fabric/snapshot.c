/*
 * Published snapshots (see snapshot.h).  The port GUID index maps a GUID to
 * its node (lib/u64map.h); the port is the node's first LID-carrying port
 * with that GUID.  The LID index is the fabric's LID map.
 */
#include <errno.h>
#include <stdlib.h>

#include "fabric/snapshot.h"

static int snapshot_index_ports(struct snapshot *s)
{
	const struct fabric *f = s->fabric;
	struct fabric_port_iter it;
	uint32_t n = 0;
	int err;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		n += node_last_lid_port(&f->nodes[i]) - node_first_lid_port(&f->nodes[i]) + 1;
	err = u64map_reserve(&s->ports, n);
	if (err)
		return err;
	fabric_for_each_lid_port (f, &it) {
		uint64_t g = f->nodes[it.node].ports[it.port].guid;

		/* a duplicate port GUID: the first one stays */
		if (g && u64map_get(&s->ports, g) == U64MAP_NONE)
			u64map_add(&s->ports, g, it.node);
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
	       ((size_t)s->lids.max_lid + 1) * (sizeof(uint32_t) + 1) + u64map_mem(&s->ports) +
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
	u64map_free(&s->ports);
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
	const struct node *n;
	uint32_t ni;

	if (!s || !guid)
		return false;
	ni = u64map_get(&s->ports, guid);
	if (ni == U64MAP_NONE)
		return false;
	n = &s->fabric->nodes[ni];
	for (unsigned p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
		if (n->ports[p].guid == guid) {
			*ret_node = ni;
			*ret_port = (uint8_t)p;
			return true;
		}
	}
	return false; /* not reached: the index holds only what the node has */
}

/*
 * The fabric model: a growable array of nodes, each with its ports, a
 * u64map from node GUID to node index, links as (node, port)
 * pairs on both ends, and the LID map built from the LIDs in the model.
 * IBA 1.4 vol 1, 14.2.5 (NodeInfo, PortInfo, SwitchInfo) defines the fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

#define FABRIC_MIN_NODES 16

_Static_assert(U64MAP_NONE == FABRIC_NO_NODE, "a missing GUID is FABRIC_NO_NODE");

struct fabric *fabric_new(void)
{
	struct fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->sm_node = FABRIC_NO_NODE;
	f->subnet_prefix = 0xfe80000000000000ULL;
	return f;
}

size_t fabric_mem(const struct fabric *f)
{
	size_t n;

	if (!f)
		return 0;
	n = sizeof(*f) + (size_t)f->cap_nodes * sizeof(struct node) + u64map_mem(&f->guid_index) +
	    (size_t)f->cap_dups * sizeof(struct fabric_dup);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		n += ((size_t)f->nodes[i].nports + 1) * sizeof(struct port);
		for (unsigned p = 0; p <= f->nodes[i].nports; p++)
			if (f->nodes[i].ports[p].pkeys)
				n += FABRIC_PKEY_BLOCKS * 32 * sizeof(uint16_t);
	}
	return n;
}

uint16_t *port_pkeys_alloc(struct port *p)
{
	if (!p->pkeys)
		p->pkeys = calloc(FABRIC_PKEY_BLOCKS * 32, sizeof(*p->pkeys));
	return p->pkeys;
}

/* A node's ports and their P_Key tables. */
static void node_ports_free(struct node *n)
{
	for (unsigned p = 0; n->ports && p <= n->nports; p++)
		free(n->ports[p].pkeys);
	free(n->ports);
	n->ports = NULL;
}

/*
 * Copy n ports from src to dst (allocated), each P_Key table its own.
 * -ENOMEM leaves dst's tables NULL (dst then frees as nothing to free).
 */
static int ports_copy(struct port *dst, const struct port *src, size_t n)
{
	memcpy(dst, src, n * sizeof(*dst));
	for (size_t i = 0; i < n; i++) {
		if (!src[i].pkeys)
			continue;
		dst[i].pkeys = malloc(FABRIC_PKEY_BLOCKS * 32 * sizeof(*dst[i].pkeys));
		if (!dst[i].pkeys) {
			for (size_t j = 0; j < i; j++)
				free(dst[j].pkeys);
			for (size_t j = 0; j < n; j++)
				dst[j].pkeys = NULL;
			return -ENOMEM;
		}
		memcpy(dst[i].pkeys, src[i].pkeys, FABRIC_PKEY_BLOCKS * 32 * sizeof(*dst[i].pkeys));
	}
	return 0;
}

void fabric_free(struct fabric *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_nodes; i++)
		node_ports_free(&f->nodes[i]);
	free(f->nodes);
	u64map_free(&f->guid_index);
	free(f->dups);
	free(f);
}

int fabric_dup_add(struct fabric *f, const struct fabric_dup *d)
{
	for (uint32_t i = 0; i < f->n_dups; i++) {
		const struct fabric_dup *o = &f->dups[i];

		if (o->guid == d->guid && o->port == d->port && o->first_guid == d->first_guid &&
		    o->first_port == d->first_port && o->second_guid == d->second_guid &&
		    o->second_port == d->second_port)
			return 0;
	}
	if (f->n_dups == FABRIC_MAX_DUPS) {
		f->dups_lost++;
		return 0;
	}
	if (f->n_dups == f->cap_dups) {
		uint32_t cap = f->cap_dups ? 2 * f->cap_dups : 4;
		struct fabric_dup *v = realloc(f->dups, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->dups = v;
		f->cap_dups = cap;
	}
	f->dups[f->n_dups] = (struct fabric_dup){0};
	f->dups[f->n_dups].guid = d->guid;
	f->dups[f->n_dups].port = d->port;
	f->dups[f->n_dups].first_guid = d->first_guid;
	f->dups[f->n_dups].first_port = d->first_port;
	f->dups[f->n_dups].second_guid = d->second_guid;
	f->dups[f->n_dups].second_port = d->second_port;
	f->n_dups++;
	return 0;
}

uint32_t fabric_find_guid(const struct fabric *f, uint64_t guid)
{
	/* U64MAP_NONE is FABRIC_NO_NODE */
	return f ? u64map_get(&f->guid_index, guid) : FABRIC_NO_NODE;
}

int fabric_add_node(struct fabric *f, uint64_t guid, uint8_t type, uint8_t nports,
		    uint32_t *ret_idx)
{
	struct node *n;
	struct port *ports;
	uint32_t idx;
	unsigned int i;
	int err;

	idx = fabric_find_guid(f, guid);
	if (idx != FABRIC_NO_NODE) {
		*ret_idx = idx;
		return -EEXIST;
	}
	if (f->n_nodes == FABRIC_NO_NODE - 1)
		return -ENOMEM;
	/* room in the index first: the add below cannot fail */
	err = u64map_reserve(&f->guid_index, f->n_nodes + 1);
	if (err)
		return err;
	if (f->n_nodes == f->cap_nodes) {
		uint32_t cap = f->cap_nodes ? f->cap_nodes * 2 : FABRIC_MIN_NODES;
		struct node *nodes = realloc(f->nodes, (size_t)cap * sizeof(*nodes));

		if (!nodes)
			return -ENOMEM;
		f->nodes = nodes;
		f->cap_nodes = cap;
	}
	ports = calloc((size_t)nports + 1, sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	for (i = 0; i <= nports; i++)
		ports[i].remote_node = FABRIC_NO_NODE;

	idx = f->n_nodes++;
	n = &f->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = type;
	n->nports = nports;
	n->ports = ports;
	u64map_add(&f->guid_index, guid, idx);
	*ret_idx = idx;
	return 0;
}

int fabric_link(struct fabric *f, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb)
{
	struct port *x, *y;

	if (a >= f->n_nodes || b >= f->n_nodes)
		return -EINVAL;
	if (pa == 0 || pb == 0 || pa > f->nodes[a].nports || pb > f->nodes[b].nports)
		return -EINVAL;
	if (a == b && pa == pb)
		return -EINVAL;
	x = &f->nodes[a].ports[pa];
	y = &f->nodes[b].ports[pb];
	if (x->remote_node == b && x->remote_port == pb && y->remote_node == a &&
	    y->remote_port == pa)
		return 0;
	if (port_is_linked(x) || port_is_linked(y))
		return -EBUSY;
	x->remote_node = b;
	x->remote_port = pb;
	y->remote_node = a;
	y->remote_port = pa;
	return 0;
}

int fabric_lid_map(const struct fabric *f, struct lid_map *ret)
{
	struct lid_map m = {0};
	struct fabric_port_iter it;
	uint32_t max = 0, l;
	int err = 0;

	fabric_for_each_lid_port (f, &it) {
		const struct port *pt = &f->nodes[it.node].ports[it.port];
		uint32_t top;

		if (!pt->lid)
			continue;
		top = pt->lid + (1u << (pt->lmc & 7)) - 1;
		if (top > max)
			max = top;
	}
	if (max > FABRIC_MAX_UCAST_LID)
		max = FABRIC_MAX_UCAST_LID;

	m.max_lid = (uint16_t)max;
	m.node = malloc(((size_t)max + 1) * sizeof(*m.node));
	m.port = calloc((size_t)max + 1, sizeof(*m.port));
	if (!m.node || !m.port) {
		fabric_lid_map_clear(&m);
		return -ENOMEM;
	}
	for (l = 0; l <= max; l++)
		m.node[l] = FABRIC_NO_NODE;

	fabric_for_each_lid_port (f, &it) {
		const struct port *pt = &f->nodes[it.node].ports[it.port];
		uint32_t top;

		if (!pt->lid)
			continue;
		top = pt->lid + (1u << (pt->lmc & 7)) - 1;
		for (l = pt->lid; l <= top && l <= max; l++) {
			if (m.node[l] != FABRIC_NO_NODE) {
				err = -EEXIST;
				continue;
			}
			m.node[l] = it.node;
			m.port[l] = it.port;
		}
	}
	*ret = m;
	return err;
}

void fabric_lid_map_clear(struct lid_map *m)
{
	if (!m)
		return;
	free(m->node);
	free(m->port);
	m->node = NULL;
	m->port = NULL;
	m->max_lid = 0;
}

uint32_t fabric_count(const struct fabric *f, uint8_t type)
{
	uint32_t i, c = 0;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].type == type)
			c++;
	return c;
}

struct fabric *fabric_clone(const struct fabric *f)
{
	struct fabric *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *f;
	c->guid_index = (struct u64map){0};
	c->dups = NULL;
	c->cap_dups = c->n_dups = 0;
	c->nodes = calloc(f->cap_nodes ? f->cap_nodes : 1, sizeof(*c->nodes));
	if (!c->nodes || u64map_copy(&c->guid_index, &f->guid_index) < 0) {
		free(c->nodes);
		free(c);
		return NULL;
	}
	if (f->n_dups) {
		c->dups = malloc(f->n_dups * sizeof(*c->dups));
		if (!c->dups) {
			c->n_nodes = 0;
			fabric_free(c);
			return NULL;
		}
		memcpy(c->dups, f->dups, f->n_dups * sizeof(*c->dups));
		c->n_dups = c->cap_dups = f->n_dups;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		c->nodes[i] = f->nodes[i];
		c->nodes[i].ports = malloc(((size_t)f->nodes[i].nports + 1) * sizeof(struct port));
		if (!c->nodes[i].ports) {
			c->n_nodes = i;
			fabric_free(c);
			return NULL;
		}
		if (ports_copy(c->nodes[i].ports, f->nodes[i].ports,
			       (size_t)f->nodes[i].nports + 1) < 0) {
			c->n_nodes = i + 1;
			fabric_free(c);
			return NULL;
		}
	}
	return c;
}

void fabric_unlink(struct fabric *f, uint32_t a, uint8_t pa)
{
	struct port *p, *q;

	if (a >= f->n_nodes || pa > f->nodes[a].nports)
		return;
	p = &f->nodes[a].ports[pa];
	if (!port_is_linked(p))
		return;
	q = &f->nodes[p->remote_node].ports[p->remote_port];
	q->remote_node = FABRIC_NO_NODE;
	q->remote_port = 0;
	p->remote_node = FABRIC_NO_NODE;
	p->remote_port = 0;
}

/* Whether n's directed route still walks over links of f from the SM's node to n. */
static bool fabric_path_intact(const struct fabric *f, uint32_t ni)
{
	const struct node *n = &f->nodes[ni];
	uint32_t cur = f->sm_node;

	for (unsigned h = 1; h <= n->dr_hops; h++) {
		const struct node *c = &f->nodes[cur];
		uint8_t p = n->dr_path[h];

		if (p == 0 || p > c->nports || !port_is_linked(&c->ports[p]))
			return false;
		if (h < n->dr_hops && !node_is_switch(&f->nodes[c->ports[p].remote_node]))
			return false;
		cur = c->ports[p].remote_node;
	}
	return cur == ni;
}

/*
 * What fabric_prune and fabric_prune_in_place learn from f: the nodes
 * reachable from the SM's node over directed routes (seen), and for each
 * its BFS parent, the parent's port out (pport) and its own port in
 * (inport).  Indexed by f's node indexes.
 */
struct fabric_walk {
	uint32_t *parent;
	uint8_t *pport, *inport;
	bool *seen;
};

static void fabric_walk_free(struct fabric_walk *w)
{
	free(w->parent);
	free(w->pport);
	free(w->inport);
	free(w->seen);
}

/* Breadth first, lowest port first: the shortest routes, deterministic.  0 or -ENOMEM. */
static int fabric_walk(const struct fabric *f, struct fabric_walk *w)
{
	uint32_t n = f->n_nodes, *q, head = 0, tail = 0;

	q = malloc((n + 1) * sizeof(*q));
	w->parent = malloc((n + 1) * sizeof(*w->parent));
	w->pport = calloc(n + 1, 1);
	w->inport = calloc(n + 1, 1);
	w->seen = calloc(n + 1, sizeof(*w->seen));
	if (!q || !w->parent || !w->pport || !w->inport || !w->seen) {
		free(q);
		fabric_walk_free(w);
		return -ENOMEM;
	}
	if (n) {
		w->seen[f->sm_node] = true;
		w->parent[f->sm_node] = FABRIC_NO_NODE;
		q[tail++] = f->sm_node;
	}
	while (head < tail) {
		uint32_t x = q[head++];
		const struct node *xn = &f->nodes[x];

		/* only the SM's own node or a switch passes SMPs on */
		if (x != f->sm_node && !node_is_switch(xn))
			continue;
		for (unsigned p = 1; p <= xn->nports; p++) {
			const struct port *pp = &xn->ports[p];

			if (x == f->sm_node && !node_is_switch(xn) && p != f->sm_port)
				continue;
			if (!port_is_linked(pp) || w->seen[pp->remote_node])
				continue;
			w->seen[pp->remote_node] = true;
			w->parent[pp->remote_node] = x;
			w->pport[pp->remote_node] = (uint8_t)p;
			w->inport[pp->remote_node] = pp->remote_port;
			q[tail++] = pp->remote_node;
		}
	}
	free(q);
	return 0;
}

/* dn gets the walk's route to f's node i: the BFS parents back to the SM's node. */
static void fabric_walk_route(const struct fabric *f, const struct fabric_walk *w, uint32_t i,
			      struct node *dn)
{
	uint32_t hops = 0, x = i;

	while (x != f->sm_node && hops < FABRIC_DR_MAX_HOPS) {
		x = w->parent[x];
		hops++;
	}
	dn->dr_hops = (uint8_t)hops;
	memset(dn->dr_path, 0, sizeof(dn->dr_path));
	x = i;
	for (uint32_t h = hops; h >= 1; h--) {
		dn->dr_path[h] = w->pport[x];
		x = w->parent[x];
	}
	dn->entry_port = w->inport[i];
}

struct fabric *fabric_prune(const struct fabric *f, uint32_t *ret_removed)
{
	uint32_t n = f->n_nodes, *map = NULL, kept = 0;
	struct fabric_walk w;
	struct fabric *out = NULL;

	if (ret_removed)
		*ret_removed = 0;
	if (fabric_walk(f, &w) < 0)
		return NULL;
	map = malloc((n + 1) * sizeof(*map));
	out = fabric_new();
	if (!map || !out)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		const struct node *src = &f->nodes[i];
		uint32_t idx;
		struct port *ports;

		map[i] = FABRIC_NO_NODE;
		if (!w.seen[i])
			continue;
		if (fabric_add_node(out, src->guid, src->type, src->nports, &idx) < 0)
			goto fail;
		ports = out->nodes[idx].ports;
		out->nodes[idx] = *src;
		out->nodes[idx].ports = ports;
		if (ports_copy(ports, src->ports, (size_t)src->nports + 1) < 0)
			goto fail;
		map[i] = idx;
		kept++;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct node *dn;

		if (map[i] == FABRIC_NO_NODE)
			continue;
		dn = &out->nodes[map[i]];
		for (unsigned p = 0; p <= dn->nports; p++) {
			struct port *pp = &dn->ports[p];

			if (port_is_linked(pp))
				pp->remote_node =
				    map[pp->remote_node]; /* linked to reachable only */
		}
		if (i != f->sm_node && !fabric_path_intact(f, i))
			fabric_walk_route(f, &w, i, dn);
	}
	out->sm_node = n ? map[f->sm_node] : 0;
	out->sm_port = f->sm_port;
	out->subnet_prefix = f->subnet_prefix;
	if (ret_removed)
		*ret_removed = n - kept;
	free(map);
	fabric_walk_free(&w);
	return out;
fail:
	free(map);
	fabric_walk_free(&w);
	fabric_free(out);
	return NULL;
}

int fabric_prune_in_place(struct fabric *f, uint32_t *ret_removed)
{
	uint32_t n = f->n_nodes, *map, k = 0;
	struct fabric_walk w;

	if (ret_removed)
		*ret_removed = 0;
	if (fabric_walk(f, &w) < 0)
		return -ENOMEM;
	map = malloc((n + 1) * sizeof(*map));
	if (!map) {
		fabric_walk_free(&w);
		return -ENOMEM;
	}
	/* routes first, over f as it is: each node's own route is rewritten only */
	for (uint32_t i = 0; i < n; i++)
		if (w.seen[i] && i != f->sm_node && !fabric_path_intact(f, i))
			fabric_walk_route(f, &w, i, &f->nodes[i]);
	/* the reachable nodes move down, in order; the links and the index follow */
	for (uint32_t i = 0; i < n; i++) {
		map[i] = FABRIC_NO_NODE;
		if (!w.seen[i]) {
			u64map_del(&f->guid_index, f->nodes[i].guid, i);
			node_ports_free(&f->nodes[i]);
			continue;
		}
		if (k != i) {
			u64map_set(&f->guid_index, f->nodes[i].guid, i, k);
			f->nodes[k] = f->nodes[i];
		}
		map[i] = k++;
	}
	for (uint32_t i = 0; i < k; i++) {
		struct node *dn = &f->nodes[i];

		for (unsigned p = 0; p <= dn->nports; p++) {
			struct port *pp = &dn->ports[p];

			if (!port_is_linked(pp))
				continue;
			pp->remote_node = map[pp->remote_node];
			if (pp->remote_node == FABRIC_NO_NODE)
				pp->remote_port = 0;
		}
	}
	f->sm_node = n ? map[f->sm_node] : 0;
	f->n_nodes = k;
	if (ret_removed)
		*ret_removed = n - k;
	free(map);
	fabric_walk_free(&w);
	return 0;
}

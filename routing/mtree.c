/*
 * Multicast spanning trees (see mtree.h for the rules and where they come
 * from).
 *
 * Cost per MLID: one BFS per distinct member switch (cached across MLIDs
 * of the same snapshot, up to MTREE_CACHE_BYTES of distance vectors) and
 * O(member switches x switches) to pick the root, then O(tree) to mark it.
 * Switch indices are in node GUID order (routing_switch_index), so every
 * tie broken by the lower index is broken by the lower GUID, whatever the
 * order discovery found the nodes in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/mtree.h"
#include "routing/routing.h"

#define MTREE_CACHE_BYTES (64u << 20)
#define MTREE_FAR 0xff /* no path */

struct mtree_attach {
	uint32_t sw;
	uint8_t port;
	bool receives;
};

struct mtree {
	const struct snapshot *s;
	const struct fabric *f;
	uint32_t n_sw;
	uint32_t *sw_node, *sw_of;
	uint32_t *adj_start;
	struct routing_adj *adj;
	bool *mcast;	/* switch carries multicast */
	uint8_t **dist; /* dist[src]: hops from switch src, cached */
	size_t cached;	/* bytes in dist */
	uint8_t *scratch;
	uint32_t *queue;
	/* per mtree_route call, marks compared with stamp */
	uint32_t stamp;
	uint32_t *member_mark, *tree_mark, *branch_mark, *touch_mark;
	uint8_t *extra; /* a member switch's members include one behind a CA link */
	uint32_t *cost_max, *cost_miss;
	uint32_t *msw; /* distinct member switches */
	struct mtree_attach *att;
	size_t att_cap;
};

void mtree_free(struct mtree *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->dist && i < t->n_sw; i++)
		free(t->dist[i]);
	free(t->dist);
	free(t->sw_node);
	free(t->sw_of);
	free(t->adj_start);
	free(t->adj);
	free(t->mcast);
	free(t->scratch);
	free(t->queue);
	free(t->member_mark);
	free(t->tree_mark);
	free(t->branch_mark);
	free(t->touch_mark);
	free(t->extra);
	free(t->cost_max);
	free(t->cost_miss);
	free(t->msw);
	free(t->att);
	free(t);
}

int mtree_new(const struct snapshot *s, struct mtree **ret)
{
	struct mtree *t = calloc(1, sizeof(*t));
	uint32_t n_links, n;

	if (!t)
		return -ENOMEM;
	t->s = s;
	t->f = s->fabric;
	if (routing_switch_index(t->f, &t->sw_node, &t->sw_of, &t->n_sw) < 0)
		goto nomem;
	if (routing_switch_adj(t->f, t->sw_node, t->sw_of, t->n_sw, &t->adj_start, &t->adj,
			       &n_links) < 0)
		goto nomem;
	n = t->n_sw ? t->n_sw : 1;
	t->mcast = calloc(n, sizeof(*t->mcast));
	t->dist = calloc(n, sizeof(*t->dist));
	t->scratch = malloc(n);
	t->queue = malloc(n * sizeof(*t->queue));
	t->member_mark = calloc(n, sizeof(uint32_t));
	t->tree_mark = calloc(n, sizeof(uint32_t));
	t->branch_mark = calloc(n, sizeof(uint32_t));
	t->touch_mark = calloc(n, sizeof(uint32_t));
	t->extra = calloc(n, 1);
	t->cost_max = malloc(n * sizeof(uint32_t));
	t->cost_miss = malloc(n * sizeof(uint32_t));
	t->msw = malloc(n * sizeof(uint32_t));
	if (!t->mcast || !t->dist || !t->scratch || !t->queue || !t->member_mark || !t->tree_mark ||
	    !t->branch_mark || !t->touch_mark || !t->extra || !t->cost_max || !t->cost_miss ||
	    !t->msw)
		goto nomem;
	for (uint32_t i = 0; i < t->n_sw; i++)
		t->mcast[i] = t->f->nodes[t->sw_node[i]].mft_cap > 0;
	*ret = t;
	return 0;
nomem:
	mtree_free(t);
	return -ENOMEM;
}

/* Hops from switch src to every switch over multicast switches (MTREE_FAR: none). */
static const uint8_t *mtree_dist(struct mtree *t, uint32_t src)
{
	uint8_t *d = t->dist[src];
	uint32_t head = 0, tail = 0;

	if (d)
		return d;
	if (t->cached + t->n_sw <= MTREE_CACHE_BYTES && (d = malloc(t->n_sw))) {
		t->dist[src] = d;
		t->cached += t->n_sw;
	} else {
		d = t->scratch; /* valid until the next uncached call */
	}
	memset(d, MTREE_FAR, t->n_sw);
	d[src] = 0;
	t->queue[tail++] = src;
	while (head < tail) {
		uint32_t v = t->queue[head++];
		for (uint32_t e = t->adj_start[v]; e < t->adj_start[v + 1]; e++) {
			uint32_t w = t->adj[e].nbr;
			if (!t->mcast[w] || d[w] != MTREE_FAR)
				continue;
			d[w] = d[v] + 1 < MTREE_FAR ? (uint8_t)(d[v] + 1) : MTREE_FAR - 1;
			t->queue[tail++] = w;
		}
	}
	return d;
}

/*
 * v's parent towards the root (d: hops from the root, d[v] >= 1): the
 * neighbour one hop nearer with the lowest index, over its lowest port.
 */
static void mtree_parent(const struct mtree *t, const uint8_t *d, uint32_t v, uint32_t *ret_u,
			 uint8_t *ret_up, uint8_t *ret_down)
{
	const struct node *n = &t->f->nodes[t->sw_node[v]];
	uint32_t best = UINT32_MAX;
	uint8_t up = 0, down = 0;

	for (uint32_t e = t->adj_start[v]; e < t->adj_start[v + 1]; e++) {
		uint32_t w = t->adj[e].nbr;
		uint8_t rp = n->ports[t->adj[e].port].remote_port;
		if (!t->mcast[w] || d[w] + 1 != d[v])
			continue;
		if (w < best || (w == best && rp < down)) {
			best = w;
			up = t->adj[e].port;
			down = rp;
		}
	}
	*ret_u = best;
	*ret_up = up;
	*ret_down = down;
}

static void mtree_set(struct mtree *t, struct mft_set *out, uint32_t sw, uint16_t mlid,
		      uint8_t port, struct mtree_stats *st)
{
	struct mft *tbl = mft_set_find(out, t->f->nodes[t->sw_node[sw]].guid);

	if (!tbl || mft_set_port(tbl, mlid, port) < 0) {
		st->clipped++;
		return;
	}
	if (t->touch_mark[sw] != t->stamp) {
		t->touch_mark[sw] = t->stamp;
		st->switches++;
	}
}

/* Where member m enters the fabric; false when it does not (or not at a multicast switch). */
static bool mtree_attach(const struct mtree *t, const struct mtree_member *m,
			 struct mtree_attach *ret)
{
	uint32_t node, sw;
	uint8_t port;
	const struct node *n;

	if (!snapshot_find_port_guid(t->s, m->port_guid, &node, &port))
		return false;
	n = &t->f->nodes[node];
	if (node_is_switch(n)) {
		sw = t->sw_of[node];
		port = 0;
	} else {
		const struct port *p = &n->ports[port];
		if (!port_is_linked(p) || !node_is_switch(&t->f->nodes[p->remote_node]))
			return false;
		sw = t->sw_of[p->remote_node];
		port = p->remote_port;
	}
	if (sw == FABRIC_NO_NODE || !t->mcast[sw])
		return false;
	*ret = (struct mtree_attach){sw, port, m->receives};
	return true;
}

/* The switch with the smallest (members out of reach, largest hop count), lowest index. */
static uint32_t mtree_root(struct mtree *t, uint32_t n_msw)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t c = 0; c < t->n_sw; c++) {
		t->cost_max[c] = 0;
		t->cost_miss[c] = 0;
	}
	for (uint32_t k = 0; k < n_msw; k++) {
		uint32_t m = t->msw[k];
		const uint8_t *d = mtree_dist(t, m);
		for (uint32_t c = 0; c < t->n_sw; c++) {
			if (d[c] == MTREE_FAR)
				t->cost_miss[c]++;
			else if (d[c] + t->extra[m] > t->cost_max[c])
				t->cost_max[c] = d[c] + t->extra[m];
		}
	}
	for (uint32_t c = 0; c < t->n_sw; c++) {
		if (!t->mcast[c])
			continue;
		if (best == UINT32_MAX || t->cost_miss[c] < t->cost_miss[best] ||
		    (t->cost_miss[c] == t->cost_miss[best] && t->cost_max[c] < t->cost_max[best]))
			best = c;
	}
	return best;
}

int mtree_route(struct mtree *t, uint16_t mlid, const struct mtree_member *m, size_t n,
		struct mft_set *out, struct mtree_stats *ret_stats)
{
	struct mtree_stats st = {.members = (uint32_t)n};
	uint32_t n_att = 0, n_msw = 0, root;
	bool receivers = false;
	const uint8_t *d;

	if (mlid < MFT_MLID_FIRST || mlid > MFT_MLID_LAST)
		return -ERANGE;
	if (n > t->att_cap) {
		struct mtree_attach *a = realloc(t->att, n * sizeof(*a));
		if (!a)
			return -ENOMEM;
		t->att = a;
		t->att_cap = n;
	}
	if (++t->stamp == 0) { /* wrapped: marks from 2^32 calls ago would look current */
		memset(t->member_mark, 0, t->n_sw * sizeof(uint32_t));
		memset(t->tree_mark, 0, t->n_sw * sizeof(uint32_t));
		memset(t->branch_mark, 0, t->n_sw * sizeof(uint32_t));
		memset(t->touch_mark, 0, t->n_sw * sizeof(uint32_t));
		t->stamp = 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct mtree_attach a;
		if (!mtree_attach(t, &m[i], &a)) {
			st.unattached++;
			continue;
		}
		t->att[n_att++] = a;
		if (t->member_mark[a.sw] != t->stamp) {
			t->member_mark[a.sw] = t->stamp;
			t->extra[a.sw] = 0;
			t->msw[n_msw++] = a.sw;
		}
		if (a.port)
			t->extra[a.sw] = 1;
	}
	if (!n_msw)
		goto done;
	root = mtree_root(t, n_msw);
	if (root == UINT32_MAX)
		goto done;
	d = mtree_dist(t, root);
	t->tree_mark[root] = t->stamp;
	/* receivers: their ports, and the tree links up to the root */
	for (uint32_t i = 0; i < n_att; i++) {
		uint32_t v = t->att[i].sw;
		if (!t->att[i].receives)
			continue;
		if (d[v] == MTREE_FAR) {
			st.unreachable++;
			continue;
		}
		receivers = true;
		if (d[v] > st.depth)
			st.depth = d[v];
		mtree_set(t, out, v, mlid, t->att[i].port, &st);
		while (t->tree_mark[v] != t->stamp) {
			uint32_t u;
			uint8_t up, down;
			t->tree_mark[v] = t->stamp;
			mtree_parent(t, d, v, &u, &up, &down);
			mtree_set(t, out, v, mlid, up, &st);
			mtree_set(t, out, u, mlid, down, &st);
			v = u;
		}
	}
	/* send-only members: a one-way branch from their switch to the tree */
	for (uint32_t i = 0; i < n_att; i++) {
		uint32_t v = t->att[i].sw;
		if (t->att[i].receives)
			continue;
		if (d[v] == MTREE_FAR) {
			st.unreachable++;
			continue;
		}
		if (d[v] > st.depth)
			st.depth = d[v];
		if (!receivers)
			continue; /* nobody to deliver to */
		while (t->tree_mark[v] != t->stamp && t->branch_mark[v] != t->stamp) {
			uint32_t u;
			uint8_t up, down;
			t->branch_mark[v] = t->stamp;
			mtree_parent(t, d, v, &u, &up, &down);
			mtree_set(t, out, v, mlid, up, &st);
			v = u;
		}
	}
	if (receivers)
		st.root = t->f->nodes[t->sw_node[root]].guid;
done:
	if (ret_stats)
		*ret_stats = st;
	return 0;
}

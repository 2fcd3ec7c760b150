/*
 * Up/down routing (and its mirror, down/up): deadlock-free routing on any
 * topology.  IBA 1.4 vol 1, 18.2.4.3.2 (linear forwarding tables); the
 * algorithm is Schroeder et al., "Autonet" (1991), as in OpenSM's updn.
 *
 * Every switch gets a rank: its BFS distance from a set of root switches.
 * Switches are totally ordered by (rank, GUID); a hop towards a lower key is
 * "up", towards a higher key "down".  A legal path is up* down* (never down
 * then up), so the channel dependencies follow an acyclic orientation and
 * there is no credit loop.  dnup uses the reversed order (down* up*).
 *
 * Roots.  Given by GUID (struct routing_opts), or chosen per connected
 * component: the switches whose greatest distance to a switch with a CA is
 * smallest (for a fat tree: its top level; for a mesh: its centre).  With
 * several roots, two roots may share no common ancestor; that is harmless as
 * long as every switch with a CA has a legal path to every LID.  When one
 * does not, the component falls back to a single root (the lowest GUID of
 * the candidates), with which every switch has a legal path to every other.
 * dnup ranks from the given roots too, and where none are given from the
 * switches with CAs (so on a fat tree it routes leaf, up to a spine, down to
 * a leaf, like updn from the spines); where that leaves a switch with a CA
 * without a legal path (meshes, irregular graphs, some given roots) dnup
 * gives the updn result for the same roots.
 *
 * Routes.  For each destination switch d: D[y] is the length of the
 * shortest all-down path from y to d, A[y] the length of the path y takes:
 * D[y] when finite (a packet that may already have turned down must keep
 * going down, so a switch with a down path always uses it), else one more
 * than the best up-neighbour's A.  Among the ports that achieve it, the one
 * that carries the fewest LIDs so far (ties: lowest port), LID by LID, as in
 * minhop.  Unlike OpenSM, switches without any legal path to d (roots of a
 * multi-root tree, towards each other) still get the shortest route that
 * joins a legal one: only traffic that starts at such a switch (never a
 * CA's) can take a down-then-up turn.
 *
 * Cost: O(switches x (links + LIDs x candidate ports)).  Pure: no I/O, no
 * globals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

#define UPDN_INF UINT32_MAX

struct updn {
	const struct fabric *f;
	bool reverse; /* dnup */
	struct lid_map map;
	uint32_t n_sw;
	uint32_t *sw_node; /* dense index (GUID order) -> node */
	uint32_t *sw_of;   /* node -> dense index or FABRIC_NO_NODE */
	uint32_t *adj_start;
	struct routing_adj *adj;
	uint32_t n_adj;
	uint32_t *tgt_sw; /* per LID: dense switch index or FABRIC_NO_NODE */
	uint8_t *tgt_port;
	uint32_t *lid_start; /* LIDs grouped by switch: CSR */
	uint16_t *lid_list;
	bool *has_ca;
	uint32_t *comp; /* component id */
	uint32_t n_comp;
	bool *root;
	uint32_t *ord;	  /* position in the (rank, GUID) order */
	uint32_t *by_ord; /* inverse */
	/* scratch */
	uint32_t *d, *a, *queue, *cand_start, *bucket_next, *bucket_head;
	uint8_t *cand_port;
	uint32_t *counts; /* per switch, 256 ports */
	bool *comp_failed;
	bool comp_failed_any;
};

static void updn_clear(struct updn *u)
{
	fabric_lid_map_clear(&u->map);
	free(u->sw_node);
	free(u->sw_of);
	free(u->adj_start);
	free(u->adj);
	free(u->tgt_sw);
	free(u->tgt_port);
	free(u->lid_start);
	free(u->lid_list);
	free(u->has_ca);
	free(u->comp);
	free(u->root);
	free(u->ord);
	free(u->by_ord);
	free(u->d);
	free(u->a);
	free(u->queue);
	free(u->cand_start);
	free(u->cand_port);
	free(u->bucket_next);
	free(u->bucket_head);
	free(u->counts);
	free(u->comp_failed);
}

static int updn_setup(struct updn *u, const struct fabric *f, char *why, size_t why_len)
{
	uint32_t i, s, l, n = f->n_nodes;
	unsigned int p;
	int err;

	u->f = f;
	err = routing_lid_map(f, &u->map, why, why_len);
	if (!err)
		err = routing_switch_index(f, &u->sw_node, &u->sw_of, &u->n_sw);
	if (err)
		return err;

	err =
	    routing_switch_adj(f, u->sw_node, u->sw_of, u->n_sw, &u->adj_start, &u->adj, &u->n_adj);
	if (err)
		return err;
	u->has_ca = calloc((size_t)u->n_sw + 1, sizeof(*u->has_ca));
	if (!u->has_ca)
		return -ENOMEM;
	for (s = 0; s < u->n_sw; s++) {
		const struct node *nd = &f->nodes[u->sw_node[s]];

		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;

			if (rn < n && !node_is_switch(&f->nodes[rn]))
				u->has_ca[s] = true;
		}
	}

	err = routing_lid_targets(f, &u->map, u->sw_of, &u->tgt_sw, &u->tgt_port);
	if (err)
		return err;
	u->lid_start = calloc((size_t)u->n_sw + 2, sizeof(*u->lid_start));
	u->lid_list = malloc(((size_t)u->map.max_lid + 1) * sizeof(*u->lid_list));
	if (!u->lid_start || !u->lid_list)
		return -ENOMEM;
	for (l = 1; l <= u->map.max_lid; l++)
		if (u->tgt_sw[l] != FABRIC_NO_NODE)
			u->lid_start[u->tgt_sw[l] + 1]++;
	for (s = 0; s < u->n_sw; s++)
		u->lid_start[s + 1] += u->lid_start[s];
	{
		uint32_t *fill = calloc((size_t)u->n_sw + 1, sizeof(*fill));

		if (!fill)
			return -ENOMEM;
		for (l = 1; l <= u->map.max_lid; l++) {
			s = u->tgt_sw[l];
			if (s != FABRIC_NO_NODE)
				u->lid_list[u->lid_start[s] + fill[s]++] = (uint16_t)l;
		}
		free(fill);
	}

	i = u->n_sw + 1;
	u->comp = malloc(i * sizeof(*u->comp));
	u->root = calloc(i, sizeof(*u->root));
	u->ord = malloc(i * sizeof(*u->ord));
	u->by_ord = malloc(i * sizeof(*u->by_ord));
	u->d = malloc(i * sizeof(*u->d));
	u->a = malloc(i * sizeof(*u->a));
	u->queue = malloc(i * sizeof(*u->queue));
	u->cand_start = malloc((i + 1) * sizeof(*u->cand_start));
	u->bucket_next = malloc(i * sizeof(*u->bucket_next));
	u->bucket_head = malloc((i + 1) * sizeof(*u->bucket_head));
	u->cand_port = malloc((size_t)u->n_adj + 1);
	u->counts = malloc((size_t)i * 256 * sizeof(*u->counts));
	u->comp_failed = calloc(i, sizeof(*u->comp_failed));
	if (!u->comp || !u->root || !u->ord || !u->by_ord || !u->d || !u->a || !u->queue ||
	    !u->cand_start || !u->bucket_next || !u->bucket_head || !u->cand_port || !u->counts ||
	    !u->comp_failed)
		return -ENOMEM;

	/* connected components of the switch graph */
	for (s = 0; s < u->n_sw; s++)
		u->comp[s] = UPDN_INF;
	for (s = 0; s < u->n_sw; s++) {
		uint32_t head = 0, tail = 0;

		if (u->comp[s] != UPDN_INF)
			continue;
		u->comp[s] = u->n_comp;
		u->queue[tail++] = s;
		while (head < tail) {
			uint32_t x = u->queue[head++], e;

			for (e = u->adj_start[x]; e < u->adj_start[x + 1]; e++)
				if (u->comp[u->adj[e].nbr] == UPDN_INF) {
					u->comp[u->adj[e].nbr] = u->n_comp;
					u->queue[tail++] = u->adj[e].nbr;
				}
		}
		u->n_comp++;
	}
	return 0;
}

/* BFS hop counts from src over switch links into dist (UPDN_INF = none). */
static void updn_bfs(struct updn *u, uint32_t src, uint32_t *dist)
{
	uint32_t head = 0, tail = 0, s;

	for (s = 0; s < u->n_sw; s++)
		dist[s] = UPDN_INF;
	dist[src] = 0;
	u->queue[tail++] = src;
	while (head < tail) {
		uint32_t x = u->queue[head++], e;

		for (e = u->adj_start[x]; e < u->adj_start[x + 1]; e++) {
			uint32_t v = u->adj[e].nbr;

			if (dist[v] == UPDN_INF) {
				dist[v] = dist[x] + 1;
				u->queue[tail++] = v;
			}
		}
	}
}

/*
 * Candidate roots of every component without a root yet: the switches with
 * the smallest greatest distance to a switch with a CA (all switches of a
 * component without CAs).  ecc is scratch of n_sw entries.
 */
static void updn_auto_roots(struct updn *u, const bool *has_root, uint32_t *ecc)
{
	uint32_t s, y, c;
	uint32_t *best = u->bucket_head; /* per component: smallest ecc */

	for (s = 0; s < u->n_sw; s++)
		ecc[s] = 0;
	for (s = 0; s < u->n_sw; s++) {
		if (!u->has_ca[s] || has_root[u->comp[s]])
			continue;
		updn_bfs(u, s, u->d);
		for (y = 0; y < u->n_sw; y++)
			if (u->d[y] != UPDN_INF && u->d[y] > ecc[y])
				ecc[y] = u->d[y];
	}
	for (c = 0; c < u->n_comp; c++)
		best[c] = UPDN_INF;
	for (s = 0; s < u->n_sw; s++)
		if (ecc[s] < best[u->comp[s]])
			best[u->comp[s]] = ecc[s];
	for (s = 0; s < u->n_sw; s++)
		if (!has_root[u->comp[s]] && ecc[s] == best[u->comp[s]])
			u->root[s] = true;
}

/* Ranks by BFS from the roots, then the (rank, GUID) order (dense index is GUID order). */
static void updn_rank(struct updn *u)
{
	uint32_t head = 0, tail = 0, s, max_rank = 0, *cnt = u->bucket_head, *rank = u->a;

	for (s = 0; s < u->n_sw; s++) {
		rank[s] = UPDN_INF;
		if (u->root[s]) {
			rank[s] = 0;
			u->queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t x = u->queue[head++], e;

		for (e = u->adj_start[x]; e < u->adj_start[x + 1]; e++) {
			uint32_t v = u->adj[e].nbr;

			if (rank[v] == UPDN_INF) {
				rank[v] = rank[x] + 1;
				if (rank[v] > max_rank)
					max_rank = rank[v];
				u->queue[tail++] = v;
			}
		}
	}
	/* counting sort by rank, stable in GUID order */
	for (s = 0; s <= max_rank + 1; s++)
		cnt[s] = 0;
	for (s = 0; s < u->n_sw; s++)
		cnt[(rank[s] == UPDN_INF ? 0 : rank[s]) + 1]++;
	for (s = 1; s <= max_rank + 1; s++)
		cnt[s] += cnt[s - 1];
	for (s = 0; s < u->n_sw; s++) {
		uint32_t pos = cnt[rank[s] == UPDN_INF ? 0 : rank[s]]++;

		u->ord[s] = u->reverse ? u->n_sw - 1 - pos : pos;
	}
	for (s = 0; s < u->n_sw; s++)
		u->by_ord[u->ord[s]] = s;
}

static uint8_t updn_pick(const uint8_t *ports, uint32_t n, const uint32_t *counts)
{
	uint8_t best = LFT_NO_PORT;
	uint32_t best_count = UPDN_INF, i;

	for (i = 0; i < n; i++)
		if (counts[ports[i]] < best_count ||
		    (counts[ports[i]] == best_count && ports[i] < best)) {
			best_count = counts[ports[i]];
			best = ports[i];
		}
	return best;
}

/*
 * Hop counts towards destination switch t and the candidate ports of every
 * switch (cand_start/cand_port).  Returns false when a switch with a CA in
 * t's component has no legal path (its component is then marked failed).
 */
static bool updn_dest(struct updn *u, uint32_t t)
{
	uint32_t *d = u->d, *a = u->a, head = 0, tail = 0, s, i, e, n_cand = 0, max_p = 0;
	bool ok = true, any_inf = false;

	for (s = 0; s < u->n_sw; s++)
		d[s] = a[s] = UPDN_INF;
	/* D: reverse of down moves, i.e. from t towards lower order */
	d[t] = 0;
	u->queue[tail++] = t;
	while (head < tail) {
		uint32_t x = u->queue[head++];

		for (e = u->adj_start[x]; e < u->adj_start[x + 1]; e++) {
			uint32_t v = u->adj[e].nbr;

			if (u->ord[v] < u->ord[x] && d[v] == UPDN_INF) {
				d[v] = d[x] + 1;
				u->queue[tail++] = v;
			}
		}
	}
	/* A, in increasing order: up-neighbours come first */
	for (i = 0; i < u->n_sw; i++) {
		s = u->by_ord[i];
		if (d[s] != UPDN_INF) {
			a[s] = d[s];
			continue;
		}
		if (u->comp[s] != u->comp[t])
			continue;
		for (e = u->adj_start[s]; e < u->adj_start[s + 1]; e++) {
			uint32_t v = u->adj[e].nbr;

			if (u->ord[v] < u->ord[s] && a[v] != UPDN_INF && a[v] + 1 < a[s])
				a[s] = a[v] + 1;
		}
		if (a[s] == UPDN_INF) {
			any_inf = true;
			if (u->has_ca[s])
				ok = false;
		}
	}
	if (!ok) {
		u->comp_failed[u->comp[t]] = true;
		u->comp_failed_any = true;
		return false;
	}
	if (any_inf) {
		/* shortest route into the legal region: Dial's buckets over a */
		for (i = 0; i <= u->n_sw; i++)
			u->bucket_head[i] = UPDN_INF;
		for (s = 0; s < u->n_sw; s++)
			if (a[s] != UPDN_INF) {
				u->bucket_next[s] = u->bucket_head[a[s]];
				u->bucket_head[a[s]] = s;
				if (a[s] > max_p)
					max_p = a[s];
			}
		for (i = 0; i <= max_p && i < u->n_sw; i++) {
			for (s = u->bucket_head[i]; s != UPDN_INF; s = u->bucket_next[s]) {
				for (e = u->adj_start[s]; e < u->adj_start[s + 1]; e++) {
					uint32_t v = u->adj[e].nbr;

					if (a[v] != UPDN_INF)
						continue;
					a[v] = i + 1;
					d[v] = UPDN_INF - 1; /* marks a detour switch */
					u->bucket_next[v] = u->bucket_head[i + 1];
					u->bucket_head[i + 1] = v;
					if (i + 1 > max_p)
						max_p = i + 1;
				}
			}
		}
	}
	/* candidates */
	for (s = 0; s < u->n_sw; s++) {
		u->cand_start[s] = n_cand;
		if (s == t || a[s] == UPDN_INF)
			continue;
		for (e = u->adj_start[s]; e < u->adj_start[s + 1]; e++) {
			uint32_t v = u->adj[e].nbr;
			bool take;

			if (d[s] == UPDN_INF - 1) /* detour: any neighbour one closer */
				take = a[v] + 1 == a[s];
			else if (d[s] != UPDN_INF) /* has a down path: down only */
				take = u->ord[v] > u->ord[s] && d[v] + 1 == d[s];
			else
				take = u->ord[v] < u->ord[s] && a[v] + 1 == a[s];
			if (take)
				u->cand_port[n_cand++] = u->adj[e].port;
		}
	}
	u->cand_start[u->n_sw] = n_cand;
	return true;
}

/* Route every LID; false when a component failed the legality check. */
static bool updn_route(struct updn *u, struct routes *r)
{
	uint32_t t, s, i;
	bool ok = true;

	memset(u->counts, 0, (size_t)u->n_sw * 256 * sizeof(*u->counts));
	for (t = 0; t < u->n_sw; t++) {
		if (u->lid_start[t] == u->lid_start[t + 1])
			continue;
		if (!updn_dest(u, t)) {
			ok = false;
			continue;
		}
		if (!ok)
			continue;
		for (i = u->lid_start[t]; i < u->lid_start[t + 1]; i++) {
			uint16_t l = u->lid_list[i];

			r->lft[u->sw_node[t]][l] = u->tgt_port[l];
			for (s = 0; s < u->n_sw; s++) {
				uint32_t c0 = u->cand_start[s], c1 = u->cand_start[s + 1];
				uint8_t p;

				if (c0 == c1)
					continue;
				p = c1 - c0 == 1 ? u->cand_port[c0]
						 : updn_pick(&u->cand_port[c0], c1 - c0,
							     &u->counts[(size_t)s * 256]);
				r->lft[u->sw_node[s]][l] = p;
				u->counts[(size_t)s * 256 + p]++;
			}
		}
	}
	return ok;
}

static int updn_run(const struct fabric *f, bool reverse, const uint64_t *root_guids,
		    size_t n_roots, struct routes **ret, char *why, size_t why_len)
{
	struct updn u = {.reverse = reverse};
	struct routes *r = NULL;
	bool *has_root = NULL;
	uint32_t *ecc = NULL, s, c;
	size_t i;
	int err;

	err = updn_setup(&u, f, why, why_len);
	if (err)
		goto out;
	err = -ENOMEM;
	has_root = calloc((size_t)u.n_comp + 1, sizeof(*has_root));
	ecc = malloc(((size_t)u.n_sw + 1) * sizeof(*ecc));
	if (!has_root || !ecc)
		goto out;
	for (i = 0; i < n_roots; i++) {
		uint32_t ni = fabric_find_guid(f, root_guids[i]);

		if (ni == FABRIC_NO_NODE || !node_is_switch(&f->nodes[ni])) {
			routing_why(why, why_len,
				    "root 0x%016" PRIx64 " is not a switch of the fabric",
				    root_guids[i]);
			err = -EINVAL;
			goto out;
		}
		u.root[u.sw_of[ni]] = true;
		has_root[u.comp[u.sw_of[ni]]] = true;
	}
	if (reverse) /* dnup: rank from the switches with CAs */
		for (s = 0; s < u.n_sw; s++)
			if (u.has_ca[s] && !has_root[u.comp[s]])
				u.root[s] = true;
	for (s = 0; s < u.n_sw; s++)
		if (u.root[s])
			has_root[u.comp[s]] = true;
	updn_auto_roots(&u, has_root, ecc);
	updn_rank(&u);
	r = routes_new(f, u.map.max_lid);
	if (!r)
		goto out;
	if (!updn_route(&u, r) && reverse) {
		/*
		 * dnup leaves a switch with a CA without a legal path (a mesh,
		 * an irregular graph): route up/down instead, which always can.
		 */
		routes_free(r);
		free(ecc);
		free(has_root);
		updn_clear(&u);
		return updn_run(f, false, root_guids, n_roots, ret, why, why_len);
	} else if (u.comp_failed_any) {
		/* failed components: one root, the lowest GUID of the candidates */
		for (c = 0; c < u.n_comp; c++)
			has_root[c] = false;
		for (s = 0; s < u.n_sw; s++) {
			c = u.comp[s];
			if (!u.comp_failed[c] || !u.root[s])
				continue;
			if (has_root[c] || n_roots)
				u.root[s] = false;
			has_root[c] = true;
		}
		if (n_roots) {
			/* explicit roots: do not second-guess them */
			for (s = 0; s < u.n_sw && !u.comp_failed[u.comp[s]]; s++)
				;
			routing_why(
			    why, why_len,
			    "%s: a switch with a CA has no legal path to switch 0x%016" PRIx64
			    " with the given roots",
			    reverse ? "dnup" : "updn", f->nodes[u.sw_node[s]].guid);
			err = -ENOTSUP;
			goto out;
		}
		for (c = 0; c < u.n_comp; c++)
			u.comp_failed[c] = false;
		u.comp_failed_any = false;
		updn_rank(&u);
		routes_free(r);
		r = routes_new(f, u.map.max_lid);
		if (!r)
			goto out;
		if (!updn_route(&u, r)) {
			for (s = 0; s < u.n_sw && !u.comp_failed[u.comp[s]]; s++)
				;
			routing_why(why, why_len,
				    "%s: no root gives every CA a legal path (component of switch "
				    "0x%016" PRIx64 ")",
				    reverse ? "dnup" : "updn", f->nodes[u.sw_node[s]].guid);
			err = -ENOTSUP;
			goto out;
		}
	}
	*ret = r;
	r = NULL;
	err = 0;
out:
	routes_free(r);
	free(ecc);
	free(has_root);
	updn_clear(&u);
	return err;
}

int updn_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len)
{
	if (o && o->n_roots && !o->roots) {
		routing_why(why, why_len, "%zu root GUIDs and no array", o->n_roots);
		return -EINVAL;
	}
	return updn_run(f, false, o ? o->roots : NULL, o ? o->n_roots : 0, ret, why, why_len);
}

int dnup_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len)
{
	if (o && o->n_roots && !o->roots) {
		routing_why(why, why_len, "%zu root GUIDs and no array", o->n_roots);
		return -EINVAL;
	}
	return updn_run(f, true, o ? o->roots : NULL, o ? o->n_roots : 0, ret, why, why_len);
}

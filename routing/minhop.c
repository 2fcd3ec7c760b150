/*
 * Min-hop routing: every switch forwards every LID out of a port on a
 * shortest path (in switch-to-switch hops) to the switch the LID sits on,
 * choosing among the equally short ports the one that carries the fewest
 * LIDs so far (ties: lowest port number).  LIDs are taken in increasing
 * order, LMC ranges LID by LID, so the LIDs of one port spread over paths.
 *
 * Like OpenSM's minhop, but instead of a per-switch hop table to every LID
 * (O(switches x LIDs x ports) to fill) we run one BFS per source switch that
 * carries, for every other switch, the set of the source's ports that start
 * a shortest path to it (a 256-bit mask).  A LID then costs one look-up of
 * its switch and a scan of that mask.  Cost: O(switches x (links + LIDs)).
 * Pure: no I/O, no globals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

#define MINHOP_MASK_WORDS 4 /* 256 ports */

struct minhop_adj {
	uint32_t nbr; /* switch index */
	uint8_t port;
};

static void minhop_why(char *why, size_t why_len, const char *msg)
{
	if (why && why_len)
		snprintf(why, why_len, "%s", msg);
}

static uint8_t minhop_pick(const uint64_t *mask, unsigned int words, const uint32_t *counts)
{
	uint8_t best = LFT_NO_PORT;
	uint32_t best_count = UINT32_MAX;
	unsigned int w;

	for (w = 0; w < words; w++) {
		uint64_t bits = mask[w];

		while (bits) {
			unsigned int p = w * 64 + (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (counts[p] < best_count) {
				best_count = counts[p];
				best = (uint8_t)p;
			}
		}
	}
	return best;
}

int minhop_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len)
{
	uint32_t *sw_of = NULL, *sw_node = NULL, *adj_start = NULL, *tgt_sw = NULL;
	uint32_t *queue = NULL, n_sw = 0, n_adj = 0, i, s, l;
	struct minhop_adj *adj = NULL;
	uint8_t *tgt_port = NULL;
	uint64_t *mask = NULL;
	int32_t *dist = NULL;
	struct routes *r = NULL;
	struct lid_map map;
	uint32_t counts[256];
	unsigned int p;
	int err;

	err = fabric_lid_map(f, &map);
	if (err == -EEXIST) {
		fabric_lid_map_clear(&map);
		minhop_why(why, why_len, "two ports claim one LID");
		return -EINVAL;
	}
	if (err)
		return err;
	if (!map.max_lid) {
		fabric_lid_map_clear(&map);
		minhop_why(why, why_len, "no LIDs assigned");
		return -EINVAL;
	}

	err = -ENOMEM;
	sw_of = malloc(((size_t)f->n_nodes + 1) * sizeof(*sw_of));
	sw_node = malloc(((size_t)f->n_nodes + 1) * sizeof(*sw_node));
	adj_start = calloc((size_t)f->n_nodes + 2, sizeof(*adj_start));
	tgt_sw = malloc(((size_t)map.max_lid + 1) * sizeof(*tgt_sw));
	tgt_port = calloc((size_t)map.max_lid + 1, 1);
	if (!sw_of || !sw_node || !adj_start || !tgt_sw || !tgt_port)
		goto out_free;

	for (i = 0; i < f->n_nodes; i++) {
		sw_of[i] = FABRIC_NO_NODE;
		if (!node_is_switch(&f->nodes[i]))
			continue;
		sw_of[i] = n_sw;
		sw_node[n_sw++] = i;
	}

	/* switch-to-switch adjacency, CSR by switch index */
	for (s = 0; s < n_sw; s++) {
		const struct node *n = &f->nodes[sw_node[s]];

		adj_start[s] = n_adj;
		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node;

			if (rn < f->n_nodes && sw_of[rn] != FABRIC_NO_NODE && sw_of[rn] != s)
				n_adj++;
		}
	}
	adj_start[n_sw] = n_adj;
	adj = malloc(((size_t)n_adj + 1) * sizeof(*adj));
	queue = malloc(((size_t)n_sw + 1) * sizeof(*queue));
	dist = malloc(((size_t)n_sw + 1) * sizeof(*dist));
	mask = malloc(((size_t)n_sw + 1) * MINHOP_MASK_WORDS * sizeof(*mask));
	if (!adj || !queue || !dist || !mask)
		goto out_free;
	for (s = 0, n_adj = 0; s < n_sw; s++) {
		const struct node *n = &f->nodes[sw_node[s]];

		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node;

			if (rn < f->n_nodes && sw_of[rn] != FABRIC_NO_NODE && sw_of[rn] != s) {
				adj[n_adj].nbr = sw_of[rn];
				adj[n_adj++].port = (uint8_t)p;
			}
		}
	}

	/* where each LID sits: (switch index, port on that switch) */
	for (l = 0; l <= map.max_lid; l++) {
		uint32_t owner = map.node[l];
		const struct node *n;
		const struct port *pt;

		tgt_sw[l] = FABRIC_NO_NODE;
		if (owner == FABRIC_NO_NODE)
			continue;
		n = &f->nodes[owner];
		if (node_is_switch(n)) {
			tgt_sw[l] = sw_of[owner];
			tgt_port[l] = 0;
			continue;
		}
		pt = &n->ports[map.port[l]];
		if (pt->remote_node < f->n_nodes && sw_of[pt->remote_node] != FABRIC_NO_NODE) {
			tgt_sw[l] = sw_of[pt->remote_node];
			tgt_port[l] = pt->remote_port;
		}
	}

	r = routes_new(f, map.max_lid);
	if (!r)
		goto out_free;

	for (s = 0; s < n_sw; s++) {
		uint8_t *lft = r->lft[sw_node[s]];
		/* mask words this switch's port numbers need: stride of mask[] */
		unsigned int words = f->nodes[sw_node[s]].nports / 64 + 1;
		uint32_t head = 0, tail = 0, e;

		for (i = 0; i < n_sw; i++)
			dist[i] = -1;
		memset(mask, 0, (size_t)n_sw * words * sizeof(*mask));
		dist[s] = 0;
		for (e = adj_start[s]; e < adj_start[s + 1]; e++) {
			uint32_t v = adj[e].nbr;

			if (dist[v] < 0) {
				dist[v] = 1;
				queue[tail++] = v;
			}
			mask[v * words + adj[e].port / 64] |= 1ULL << (adj[e].port % 64);
		}
		while (head < tail) {
			uint32_t u = queue[head++];
			const uint64_t *mu = &mask[u * words];

			for (e = adj_start[u]; e < adj_start[u + 1]; e++) {
				uint32_t v = adj[e].nbr;
				uint64_t *mv = &mask[v * words];
				unsigned int w;

				if (dist[v] < 0) {
					dist[v] = dist[u] + 1;
					queue[tail++] = v;
				} else if (dist[v] != dist[u] + 1) {
					continue;
				}
				for (w = 0; w < words; w++)
					mv[w] |= mu[w];
			}
		}

		memset(counts, 0, sizeof(counts));
		for (l = 1; l <= map.max_lid; l++) {
			uint32_t t = tgt_sw[l];
			uint8_t port;

			if (t == FABRIC_NO_NODE)
				continue;
			if (t == s)
				port = tgt_port[l];
			else if (dist[t] < 0)
				continue;
			else
				port = minhop_pick(&mask[t * words], words, counts);
			if (port == LFT_NO_PORT)
				continue;
			lft[l] = port;
			counts[port]++;
		}
	}
	*ret = r;
	r = NULL;
	err = 0;

out_free:
	routes_free(r);
	free(mask);
	free(dist);
	free(queue);
	free(adj);
	free(tgt_port);
	free(tgt_sw);
	free(adj_start);
	free(sw_node);
	free(sw_of);
	fabric_lid_map_clear(&map);
	return err;
}

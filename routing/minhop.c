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
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

#define MINHOP_MASK_WORDS 4 /* 256 ports */

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

int minhop_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		   char *why, size_t why_len)
{
	uint32_t *sw_of = NULL, *sw_node = NULL, *adj_start = NULL, *tgt_sw = NULL;
	uint32_t *queue = NULL, n_sw = 0, n_adj = 0, i, s, l;
	struct routing_adj *adj = NULL;
	uint8_t *tgt_port = NULL;
	uint64_t *mask = NULL;
	int32_t *dist = NULL;
	struct routes *r = NULL;
	struct lid_map map;
	uint32_t counts[256];
	int err;

	err = routing_lid_map(f, &map, why, why_len);
	if (err)
		return err;
	err = routing_switch_index(f, &sw_node, &sw_of, &n_sw);
	if (!err)
		err = routing_switch_adj(f, sw_node, sw_of, n_sw, &adj_start, &adj, &n_adj);
	if (!err)
		err = routing_lid_targets(f, &map, sw_of, &tgt_sw, &tgt_port);
	if (err)
		goto out_free;
	err = -ENOMEM;
	queue = malloc(((size_t)n_sw + 1) * sizeof(*queue));
	dist = malloc(((size_t)n_sw + 1) * sizeof(*dist));
	mask = malloc(((size_t)n_sw + 1) * MINHOP_MASK_WORDS * sizeof(*mask));
	if (!queue || !dist || !mask)
		goto out_free;

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

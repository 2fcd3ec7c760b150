/*
 * Routing engines' common part: the forwarding tables (struct routes), the
 * engine table and statistics over a result.  IBA 1.4 vol 1, 18.2.4.3.2
 * (linear forwarding tables).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "routing/routing.h"

const struct routing_engine routing_engines[] = {
    {"minhop", minhop_compute},
    {"updn", updn_compute},
    {"dnup", dnup_compute},
    {"ftree", ftree_compute},
    {"dor", dor_compute},
    {"dfsp", dfsp_compute},
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

void routing_why(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

int routing_lid_map(const struct fabric *f, struct lid_map *ret, char *why, size_t why_len)
{
	struct lid_map m = {0};
	int err;

	err = fabric_lid_map(f, &m);
	if (err == -EEXIST) {
		routing_why(why, why_len, "two ports claim one LID");
		err = -EINVAL;
	} else if (!err && !m.max_lid) {
		routing_why(why, why_len, "no LIDs assigned");
		err = -EINVAL;
	}
	if (err) {
		fabric_lid_map_clear(&m);
		return err;
	}
	*ret = m;
	return 0;
}

/* Sort node indices by GUID: a merge sort (qsort would need a global context). */
static void routing_sort_by_guid(const struct fabric *f, uint32_t *idx, uint32_t *tmp, uint32_t n)
{
	uint32_t w, i;

	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			uint32_t lo = i, mid = i + w < n ? i + w : n,
				 hi = i + 2 * w < n ? i + 2 * w : n;
			uint32_t x = lo, y = mid, k = lo;

			while (x < mid && y < hi)
				tmp[k++] = f->nodes[idx[y]].guid < f->nodes[idx[x]].guid ? idx[y++]
											 : idx[x++];
			while (x < mid)
				tmp[k++] = idx[x++];
			while (y < hi)
				tmp[k++] = idx[y++];
		}
		memcpy(idx, tmp, (size_t)n * sizeof(*idx));
	}
}

int routing_switch_index(const struct fabric *f, uint32_t **ret_node, uint32_t **ret_of,
			 uint32_t *ret_n)
{
	size_t size = ((size_t)f->n_nodes + 1) * sizeof(uint32_t);
	uint32_t *node = malloc(size), *of = malloc(size), *tmp = malloc(size);
	uint32_t i, n_sw = 0;

	if (!node || !of || !tmp) {
		free(node);
		free(of);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < f->n_nodes; i++) {
		of[i] = FABRIC_NO_NODE;
		if (node_is_switch(&f->nodes[i]))
			node[n_sw++] = i;
	}
	routing_sort_by_guid(f, node, tmp, n_sw);
	free(tmp);
	for (i = 0; i < n_sw; i++)
		of[node[i]] = i;
	*ret_node = node;
	*ret_of = of;
	*ret_n = n_sw;
	return 0;
}

int routing_lid_targets(const struct fabric *f, const struct lid_map *m, const uint32_t *sw_of,
			uint32_t **ret_sw, uint8_t **ret_port)
{
	uint32_t *tgt_sw = malloc(((size_t)m->max_lid + 1) * sizeof(*tgt_sw)), l;
	uint8_t *tgt_port = calloc((size_t)m->max_lid + 1, 1);

	if (!tgt_sw || !tgt_port) {
		free(tgt_sw);
		free(tgt_port);
		return -ENOMEM;
	}
	for (l = 0; l <= m->max_lid; l++) {
		uint32_t owner = m->node[l];
		const struct port *pt;

		tgt_sw[l] = FABRIC_NO_NODE;
		if (owner == FABRIC_NO_NODE)
			continue;
		if (node_is_switch(&f->nodes[owner])) {
			tgt_sw[l] = sw_of[owner];
			continue;
		}
		pt = &f->nodes[owner].ports[m->port[l]];
		if (pt->remote_node < f->n_nodes && sw_of[pt->remote_node] != FABRIC_NO_NODE) {
			tgt_sw[l] = sw_of[pt->remote_node];
			tgt_port[l] = pt->remote_port;
		}
	}
	*ret_sw = tgt_sw;
	*ret_port = tgt_port;
	return 0;
}

int routing_switch_adj(const struct fabric *f, const uint32_t *sw_node, const uint32_t *sw_of,
		       uint32_t n_sw, uint32_t **ret_start, struct routing_adj **ret_adj,
		       uint32_t *ret_n)
{
	uint32_t *start = calloc((size_t)n_sw + 2, sizeof(*start)), s, n_adj = 0;
	struct routing_adj *adj;
	unsigned int p;

	if (!start)
		return -ENOMEM;
	for (s = 0; s < n_sw; s++) {
		const struct node *nd = &f->nodes[sw_node[s]];

		start[s] = n_adj;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;

			if (rn < f->n_nodes && sw_of[rn] != FABRIC_NO_NODE && sw_of[rn] != s)
				n_adj++;
		}
	}
	start[n_sw] = n_adj;
	adj = malloc(((size_t)n_adj + 1) * sizeof(*adj));
	if (!adj) {
		free(start);
		return -ENOMEM;
	}
	for (s = 0, n_adj = 0; s < n_sw; s++) {
		const struct node *nd = &f->nodes[sw_node[s]];

		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;

			if (rn < f->n_nodes && sw_of[rn] != FABRIC_NO_NODE && sw_of[rn] != s) {
				adj[n_adj].nbr = sw_of[rn];
				adj[n_adj++].port = (uint8_t)p;
			}
		}
	}
	*ret_start = start;
	*ret_adj = adj;
	*ret_n = n_adj;
	return 0;
}

void routing_stats(const struct fabric *f, const struct routes *r, struct routing_stats *ret)
{
	struct routing_stats st = {0};
	uint32_t counts[256];
	uint64_t total = 0, n_ports = 0;
	struct lid_map map;
	bool have_map;
	uint32_t i, l;
	unsigned int p;
	int err;

	if (r->load && r->load_at) {
		/* counted already (routes_load_count, kept by routing/repair.c) */
		for (i = 0; i < f->n_nodes && i < r->n_nodes; i++) {
			const struct node *n = &f->nodes[i];

			if (r->load_at[i] == UINT32_MAX)
				continue;
			for (p = 1; p <= n->nports; p++) {
				uint32_t c = r->load[r->load_at[i] + p];

				if (!port_is_linked(&n->ports[p]))
					continue;
				n_ports++;
				total += c;
				if (c > st.max_routes_per_port)
					st.max_routes_per_port = c;
			}
		}
		st.unreachable = (uint32_t)r->unreachable;
		if (n_ports)
			st.mean_routes_per_port = (double)total / (double)n_ports;
		*ret = st;
		return;
	}
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

static uint64_t routing_div_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/*
 * Bridges of the switch graph (parallel links as one with their count m):
 * the flows from one side to the other all cross those m links, so
 * max >= flows / m.  Tarjan's low-link, iteratively; w[] CA ports and
 * lids[] CA LIDs per node.  Raises *best; 0 or -ENOMEM.
 */
static int routing_bridge_bound(const struct fabric *f, const uint32_t *w, const uint32_t *lids,
				uint64_t *best)
{
	uint32_t n = f->n_nodes, i, t = 0;
	uint32_t *disc = malloc(((size_t)n + 1) * sizeof(*disc));
	uint32_t *low = malloc(((size_t)n + 1) * sizeof(*low));
	uint32_t *parent = malloc(((size_t)n + 1) * sizeof(*parent));
	uint32_t *stack = malloc(((size_t)n + 1) * sizeof(*stack));
	uint32_t *comp = malloc(((size_t)n + 1) * sizeof(*comp));
	uint64_t *sw = calloc((size_t)n + 1, sizeof(*sw)), *sl = calloc((size_t)n + 1, sizeof(*sl));
	uint8_t *it = calloc((size_t)n + 1, 1);
	int err = -ENOMEM;

	if (!disc || !low || !parent || !stack || !comp || !sw || !sl || !it)
		goto out;
	for (i = 0; i < n; i++)
		disc[i] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		uint32_t sp = 0, root = i;

		if (!node_is_switch(&f->nodes[i]) || disc[i] != UINT32_MAX)
			continue;
		disc[i] = low[i] = t++;
		parent[i] = FABRIC_NO_NODE;
		stack[sp++] = i;
		while (sp) {
			uint32_t u = stack[sp - 1];
			const struct node *nd = &f->nodes[u];

			comp[u] = root;
			if (it[u] < nd->nports) {
				uint32_t v = nd->ports[++it[u]].remote_node;

				if (v >= n || v == u || v == parent[u] ||
				    !node_is_switch(&f->nodes[v]))
					continue;
				if (disc[v] == UINT32_MAX) {
					disc[v] = low[v] = t++;
					parent[v] = u;
					stack[sp++] = v;
				} else if (disc[v] < low[u]) {
					low[u] = disc[v];
				}
				continue;
			}
			sp--;
			sw[u] += w[u];
			sl[u] += lids[u];
			if (parent[u] != FABRIC_NO_NODE) {
				uint32_t pu = parent[u];

				sw[pu] += sw[u];
				sl[pu] += sl[u];
				if (low[u] < low[pu])
					low[pu] = low[u];
			}
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t pu = node_is_switch(&f->nodes[i]) ? parent[i] : FABRIC_NO_NODE, m = 0;
		const struct node *nd = &f->nodes[i];
		uint64_t rw, rl, b;
		unsigned int p;

		if (pu == FABRIC_NO_NODE || low[i] <= disc[pu])
			continue;
		for (p = 1; p <= nd->nports; p++)
			m += nd->ports[p].remote_node == pu;
		rw = sw[comp[i]] - sw[i];
		rl = sl[comp[i]] - sl[i];
		b = routing_div_up(sw[i] * rl > rw * sl[i] ? sw[i] * rl : rw * sl[i], m);
		if (b > *best)
			*best = b;
	}
	err = 0;
out:
	free(it);
	free(sl);
	free(sw);
	free(comp);
	free(stack);
	free(parent);
	free(low);
	free(disc);
	return err;
}

/*
 * routing_link_load's bound: w[] CA ports per node, dst[] the CA LIDs.
 * Every flow crosses at least its shortest hop count of links, and those
 * leaving (entering) a switch share its links.  0 or -ENOMEM.
 */
static int routing_load_bound(const struct fabric *f, const struct lid_map *map, const uint32_t *w,
			      const uint16_t *dst, uint32_t n_dst, uint32_t n_links, uint64_t *ret)
{
	uint32_t n = f->n_nodes, i, d, *lids = calloc((size_t)n + 1, sizeof(*lids));
	uint32_t *dist = malloc(((size_t)n + 1) * sizeof(*dist));
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof(*queue));
	uint64_t n_src = 0, hops = 0, best = 0;
	unsigned int p;
	int err = -ENOMEM;

	if (!lids || !dist || !queue)
		goto out;
	for (d = 0; d < n_dst; d++) {
		const struct port *op = &f->nodes[map->node[dst[d]]].ports[map->port[dst[d]]];

		if (op->remote_node < n)
			lids[op->remote_node]++;
	}
	for (i = 0; i < n; i++)
		n_src += w[i];
	for (i = 0; i < n; i++) {
		const struct node *nd = &f->nodes[i];
		uint32_t head = 0, tail = 0, deg = 0, x;
		uint64_t b;

		if (!node_is_switch(nd) || (!w[i] && !lids[i]))
			continue;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t v = nd->ports[p].remote_node;

			deg += v < n && v != i && node_is_switch(&f->nodes[v]);
		}
		b = routing_div_up((uint64_t)w[i] * (n_dst - lids[i]), deg);
		if (b > best)
			best = b;
		b = routing_div_up((n_src - w[i]) * lids[i], deg);
		if (b > best)
			best = b;
		if (!w[i])
			continue;
		for (x = 0; x < n; x++)
			dist[x] = UINT32_MAX;
		dist[i] = 0;
		queue[tail++] = i;
		while (head < tail) {
			const struct node *u = &f->nodes[queue[head]];
			uint32_t du = dist[queue[head++]];

			for (p = 1; p <= u->nports; p++) {
				uint32_t v = u->ports[p].remote_node;

				if (v < n && node_is_switch(&f->nodes[v]) &&
				    dist[v] == UINT32_MAX) {
					dist[v] = du + 1;
					queue[tail++] = v;
				}
			}
		}
		for (x = 0; x < n; x++)
			if (lids[x] && dist[x] != UINT32_MAX)
				hops += (uint64_t)w[i] * lids[x] * dist[x];
	}
	if (routing_div_up(hops, n_links) > best)
		best = routing_div_up(hops, n_links);
	err = routing_bridge_bound(f, w, lids, &best);
	if (!err)
		*ret = best;
out:
	free(queue);
	free(dist);
	free(lids);
	return err;
}

int routing_link_load(const struct fabric *f, const struct routes *r, struct routing_link_load *ret)
{
	return routing_link_load_stride(f, r, 1, ret);
}

int routing_link_load_stride(const struct fabric *f, const struct routes *r, uint32_t stride,
			     struct routing_link_load *ret)
{
	struct routing_link_load st = {0};
	uint32_t *w = NULL, *dl = NULL, *queue = NULL, *pbase = NULL, *tier_n = NULL;
	uint16_t *dst = NULL;
	uint64_t *load = NULL, *tier_max = NULL, *tier_sum = NULL, total = 0;
	uint32_t n = f->n_nodes, i, n_dst = 0, head = 0, tail = 0, max_dl = 0, n_tiers, k,
		 src_seen = 0;
	struct lid_map map;
	unsigned int p;
	int err;

	if (!stride)
		stride = 1;
	err = fabric_lid_map(f, &map);
	if (err && err != -EEXIST)
		return err;
	err = -ENOMEM;
	w = calloc((size_t)n + 1, sizeof(*w));
	dl = malloc(((size_t)n + 1) * sizeof(*dl));
	queue = malloc(((size_t)n + 1) * sizeof(*queue));
	pbase = malloc(((size_t)n + 1) * sizeof(*pbase));
	dst = malloc(((size_t)map.max_lid + 1) * sizeof(*dst));
	if (!w || !dl || !queue || !pbase || !dst)
		goto out;
	for (i = 0, k = 0; i < n; i++) {
		pbase[i] = k;
		k += f->nodes[i].nports + 1u;
	}
	load = calloc((size_t)k + 1, sizeof(*load));
	if (!load)
		goto out;
	/* sources per switch, destinations, distance from CA switches */
	for (i = 0; i < n; i++) {
		const struct node *nd = &f->nodes[i];

		dl[i] = UINT32_MAX;
		if (node_is_switch(nd))
			continue;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;

			if (rn < n && node_is_switch(&f->nodes[rn]) && nd->ports[p].lid)
				w[rn]++;
		}
	}
	for (i = 0; i < n; i++)
		if (w[i]) {
			dl[i] = 0;
			queue[tail++] = i;
		}
	while (head < tail) {
		uint32_t u = queue[head++];
		const struct node *nd = &f->nodes[u];

		for (p = 1; p <= nd->nports; p++) {
			uint32_t v = nd->ports[p].remote_node;

			if (v < n && node_is_switch(&f->nodes[v]) && dl[v] == UINT32_MAX) {
				dl[v] = dl[u] + 1;
				if (dl[v] > max_dl)
					max_dl = dl[v];
				queue[tail++] = v;
			}
		}
	}
	for (i = 1; i <= map.max_lid; i++) {
		uint32_t o = map.node[i];

		if (o != FABRIC_NO_NODE && !node_is_switch(&f->nodes[o]))
			dst[n_dst++] = (uint16_t)i;
	}

	for (i = 0; i < n; i++) {
		uint32_t d;

		if (!w[i] || !node_is_switch(&f->nodes[i]) || i >= r->n_nodes || !r->lft[i])
			continue;
		if (src_seen++ % stride)
			continue;
		for (d = 0; d < n_dst; d++) {
			uint16_t l = dst[d];
			uint32_t owner = map.node[l], cur = i, hops = 0;
			uint8_t oport = map.port[l];
			const struct port *op = &f->nodes[owner].ports[oport];

			st.flows += w[i] - (op->remote_node == i ? 1u : 0u);
			for (;;) {
				uint8_t out =
				    l <= r->max_lid && r->lft[cur] ? r->lft[cur][l] : LFT_NO_PORT;
				const struct port *pt;

				if (out == LFT_NO_PORT || out == 0 || out > f->nodes[cur].nports ||
				    hops++ > n) {
					st.dropped += w[i];
					break;
				}
				pt = &f->nodes[cur].ports[out];
				if (pt->remote_node >= n) {
					st.dropped += w[i];
					break;
				}
				if (!node_is_switch(&f->nodes[pt->remote_node])) {
					if (pt->remote_node != owner || pt->remote_port != oport)
						st.dropped += w[i];
					break;
				}
				load[pbase[cur] + out] += w[i];
				cur = pt->remote_node;
			}
		}
	}

	n_tiers = (max_dl + 1) * 3;
	tier_n = calloc(n_tiers, sizeof(*tier_n));
	tier_max = calloc(n_tiers, sizeof(*tier_max));
	tier_sum = calloc(n_tiers, sizeof(*tier_sum));
	if (!tier_n || !tier_max || !tier_sum)
		goto out;
	for (i = 0; i < n; i++) {
		const struct node *nd = &f->nodes[i];

		if (!node_is_switch(nd))
			continue;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t v = nd->ports[p].remote_node, t;
			uint64_t x = load[pbase[i] + p];

			if (v >= n || !node_is_switch(&f->nodes[v]) || v == i)
				continue;
			st.n_links++;
			total += x;
			if (x > st.max)
				st.max = x;
			if (dl[i] == UINT32_MAX || dl[v] == UINT32_MAX)
				continue;
			t = (dl[i] < dl[v] ? dl[i] : dl[v]) * 3 + (dl[v] > dl[i]   ? 0
								   : dl[v] < dl[i] ? 1
										   : 2);
			tier_n[t]++;
			tier_sum[t] += x;
			if (x > tier_max[t])
				tier_max[t] = x;
		}
	}
	if (stride == 1 && st.n_links &&
	    routing_load_bound(f, &map, w, dst, n_dst, st.n_links, &st.bound))
		goto out;
	if (st.n_links) {
		st.mean = (double)total / st.n_links;
		st.ratio = st.mean > 0 ? (double)st.max / st.mean : 0;
	}
	for (i = 0; i < n_tiers; i++) {
		double mean, ratio;

		if (!tier_n[i])
			continue;
		st.n_tiers++;
		mean = (double)tier_sum[i] / tier_n[i];
		ratio = mean > 0 ? (double)tier_max[i] / mean : 0;
		if (ratio > st.tier_ratio)
			st.tier_ratio = ratio;
	}
	*ret = st;
	err = 0;
out:
	free(tier_sum);
	free(tier_max);
	free(tier_n);
	free(load);
	free(dst);
	free(pbase);
	free(queue);
	free(dl);
	free(w);
	fabric_lid_map_clear(&map);
	return err;
}

/*
 * Routing invariant checker (see checker.h).  Hop counts come from a BFS
 * over switch-to-switch links from each switch; a LID on a CA port is one
 * link further than the switch that port is cabled to.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "tests/checker.h"

struct checker_ctx {
	const struct fabric *f;
	int violations;
	char *msg;
	size_t msg_len;
};

static void checker_fail(struct checker_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void checker_fail(struct checker_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->violations++ && c->msg && c->msg_len) {
		va_start(ap, fmt);
		vsnprintf(c->msg, c->msg_len, fmt, ap);
		va_end(ap);
	}
}

/* Hops from switch node src to every node (switches only), -1 if none. */
static void checker_bfs(const struct fabric *f, uint32_t src, int32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, i;
	unsigned int p;

	for (i = 0; i < f->n_nodes; i++)
		dist[i] = -1;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t u = queue[head++];
		const struct node *n = &f->nodes[u];

		for (p = 1; p <= n->nports; p++) {
			uint32_t v = n->ports[p].remote_node;

			if (v >= f->n_nodes || !node_is_switch(&f->nodes[v]) || dist[v] >= 0)
				continue;
			dist[v] = dist[u] + 1;
			queue[tail++] = v;
		}
	}
}

int checker_run(const struct fabric *f, const struct routes *r, unsigned int flags,
		struct checker_stats *ret_stats, char *msg, size_t msg_len)
{
	struct checker_ctx c = {.f = f, .msg = msg, .msg_len = msg_len};
	struct checker_stats st = {0};
	struct lid_map map;
	uint32_t *queue = NULL;
	int32_t *dist = NULL;
	uint32_t s, l;
	int err;

	if (msg && msg_len)
		msg[0] = '\0';
	err = fabric_lid_map(f, &map);
	if (err == -ENOMEM)
		return err;
	if (err == -EEXIST)
		checker_fail(&c, "two ports claim one LID");
	dist = malloc(((size_t)f->n_nodes + 1) * sizeof(*dist));
	queue = malloc(((size_t)f->n_nodes + 1) * sizeof(*queue));
	if (!dist || !queue) {
		err = -ENOMEM;
		goto out_free;
	}
	if (r->n_nodes != f->n_nodes)
		checker_fail(&c, "routes for %u nodes, fabric has %u", r->n_nodes, f->n_nodes);

	for (s = 0; s < f->n_nodes && s < r->n_nodes; s++) {
		const struct node *sn = &f->nodes[s];

		if (!node_is_switch(sn))
			continue;
		if (!r->lft[s]) {
			checker_fail(&c, "switch \"%s\" has no LFT", sn->desc);
			continue;
		}
		checker_bfs(f, s, dist, queue);
		for (l = 1; l <= map.max_lid; l++) {
			uint32_t owner = map.node[l], att, cur = s, hops = 0;
			uint8_t oport = map.port[l];
			int32_t want;

			if (owner == FABRIC_NO_NODE)
				continue;
			/* the switch the owning port sits on, and the hops to it */
			if (node_is_switch(&f->nodes[owner])) {
				att = owner;
				want = dist[att];
			} else {
				att = f->nodes[owner].ports[oport].remote_node;
				if (att >= f->n_nodes || !node_is_switch(&f->nodes[att]) ||
				    dist[att] < 0) {
					st.unreachable++;
					continue;
				}
				want = dist[att] + 1;
			}
			if (want < 0) {
				st.unreachable++;
				continue;
			}
			st.checked++;
			if (l > r->max_lid) {
				checker_fail(&c, "LID %u beyond the tables (max %u)", l,
					     r->max_lid);
				continue;
			}
			for (;;) {
				const struct node *cn = &f->nodes[cur];
				uint8_t out = r->lft[cur] ? r->lft[cur][l] : LFT_NO_PORT;
				const struct port *pt;
				uint32_t next;

				if (out == LFT_NO_PORT) {
					checker_fail(&c,
						     "switch \"%s\" -> LID %u: no route at \"%s\"",
						     sn->desc, l, cn->desc);
					break;
				}
				if (out == 0) {
					if (cur != owner)
						checker_fail(&c,
							     "switch \"%s\" -> LID %u: \"%s\" "
							     "delivers to itself, LID is on \"%s\"",
							     sn->desc, l, cn->desc,
							     f->nodes[owner].desc);
					else if (((flags & CHECKER_MINIMAL) &&
						  (int32_t)hops != want) ||
						 ((flags & CHECKER_NEAR_MINIMAL) &&
						  (int32_t)hops > want + 1))
						checker_fail(&c,
							     "switch \"%s\" -> LID %u: %u hops, "
							     "minimum %d",
							     sn->desc, l, hops, want);
					break;
				}
				if (out > cn->nports || !port_is_linked(&cn->ports[out])) {
					checker_fail(&c,
						     "switch \"%s\" -> LID %u: \"%s\" port %u "
						     "is not linked",
						     sn->desc, l, cn->desc, out);
					break;
				}
				pt = &cn->ports[out];
				next = pt->remote_node;
				hops++;
				if (!node_is_switch(&f->nodes[next])) {
					if (next != owner || pt->remote_port != oport)
						checker_fail(&c,
							     "switch \"%s\" -> LID %u: ends at "
							     "\"%s\"[%u], LID is on \"%s\"[%u]",
							     sn->desc, l, f->nodes[next].desc,
							     pt->remote_port, f->nodes[owner].desc,
							     oport);
					else if (((flags & CHECKER_MINIMAL) &&
						  (int32_t)hops != want) ||
						 ((flags & CHECKER_NEAR_MINIMAL) &&
						  (int32_t)hops > want + 1))
						checker_fail(&c,
							     "switch \"%s\" -> LID %u: %u hops, "
							     "minimum %d",
							     sn->desc, l, hops, want);
					break;
				}
				if (hops > f->n_nodes) {
					checker_fail(&c,
						     "switch \"%s\" -> LID %u: loop through \"%s\"",
						     sn->desc, l, cn->desc);
					break;
				}
				cur = next;
			}
			if (hops > st.max_hops)
				st.max_hops = hops;
		}
	}
	err = c.violations;
	if (ret_stats)
		*ret_stats = st;
out_free:
	free(queue);
	free(dist);
	fabric_lid_map_clear(&map);
	return err;
}

/* ---- channel dependency graph ---- */

struct checker_depset {
	uint64_t *slot; /* (from << 32 | to) + 1; 0 = empty */
	size_t cap, n;
};

static int checker_dep_add(struct checker_depset *d, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from << 32 | to) + 1, h;
	size_t i;

	if ((d->n + 1) * 2 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024, j;
		uint64_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (j = 0; j < d->cap; j++) {
			uint64_t k = d->slot[j];

			if (!k)
				continue;
			h = (k * 0x9E3779B97F4A7C15ULL) >> 17;
			for (i = h & (cap - 1); slot[i]; i = (i + 1) & (cap - 1))
				;
			slot[i] = k;
		}
		free(d->slot);
		d->slot = slot;
		d->cap = cap;
	}
	h = (key * 0x9E3779B97F4A7C15ULL) >> 17;
	for (i = h & (d->cap - 1); d->slot[i]; i = (i + 1) & (d->cap - 1))
		if (d->slot[i] == key)
			return 0;
	d->slot[i] = key;
	d->n++;
	return 0;
}

static int checker_cdg(const struct fabric *f, const struct routes *r, int ca_only,
		       struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len);

int checker_cdg_acyclic(const struct fabric *f, const struct routes *r,
			struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len)
{
	return checker_cdg(f, r, 0, ret_stats, msg, msg_len);
}

int checker_cdg_acyclic_cas(const struct fabric *f, const struct routes *r,
			    struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len)
{
	return checker_cdg(f, r, 1, ret_stats, msg, msg_len);
}

static int checker_cdg(const struct fabric *f, const struct routes *r, int ca_only,
		       struct checker_cdg_stats *ret_stats, char *msg, size_t msg_len)
{
	struct checker_cdg_stats st = {0};
	struct checker_depset deps = {0};
	struct lid_map map;
	uint32_t *pbase = NULL, *start = NULL, *to = NULL, *stack = NULL, *edge = NULL;
	uint8_t *color = NULL;
	uint32_t n = f->n_nodes, i, n_ch, nvl = r->n_vls > 1 ? r->n_vls : 1, l;
	unsigned int p;
	size_t j;
	int err, cycles = 0;

	if (msg && msg_len)
		msg[0] = '\0';
	err = fabric_lid_map(f, &map);
	if (err && err != -EEXIST)
		return err;
	err = -ENOMEM;
	pbase = malloc(((size_t)n + 1) * sizeof(*pbase));
	if (!pbase)
		goto out;
	for (i = 0, n_ch = 0; i < n; i++) {
		pbase[i] = n_ch;
		n_ch += (f->nodes[i].nports + 1u) * nvl;
	}
	for (i = 0; i < n; i++) {
		const struct node *nd = &f->nodes[i];

		for (p = 1; p <= nd->nports; p++)
			if (port_is_linked(&nd->ports[p]))
				st.channels += nvl;
	}

	/* walks from every switch with a CA port, once per source SL class */
	for (i = 0; i < n && i < r->n_nodes; i++) {
		const struct node *sw = &f->nodes[i];
		uint16_t rep_lid = 0;

		if (!node_is_switch(sw) || !r->lft[i])
			continue;
		for (p = 1; p <= sw->nports; p++) {
			const struct port *pt = &sw->ports[p];

			if (pt->remote_node < n && !node_is_switch(&f->nodes[pt->remote_node]) &&
			    f->nodes[pt->remote_node].ports[pt->remote_port].lid) {
				rep_lid = f->nodes[pt->remote_node].ports[pt->remote_port].lid;
				break;
			}
		}
		if (!rep_lid)
			continue;
		for (l = 1; l <= map.max_lid && l <= r->max_lid; l++) {
			uint32_t cur = i, hops = 0, first = UINT32_MAX, prev = UINT32_MAX;
			uint8_t sl = 0;

			if (map.node[l] == FABRIC_NO_NODE ||
			    (ca_only && node_is_switch(&f->nodes[map.node[l]])))
				continue;
			if (nvl > 1)
				sl = routes_path_sl(r, f, &map, rep_lid, (uint16_t)l);
			st.walks++;
			for (;;) {
				const struct node *cn = &f->nodes[cur];
				uint8_t out = r->lft[cur] ? r->lft[cur][l] : LFT_NO_PORT, vl = 0;
				uint32_t ch;

				if (out == LFT_NO_PORT || out == 0 || out > cn->nports ||
				    !port_is_linked(&cn->ports[out]) || hops++ > n)
					break;
				if (nvl > 1 && r->sl2vl && r->sl2vl[cur])
					vl = r->sl2vl[cur][out * ROUTES_MAX_SL + sl];
				ch = pbase[cur] + out * nvl + (vl < nvl ? vl : 0);
				if (first == UINT32_MAX)
					first = ch;
				else if (checker_dep_add(&deps, prev, ch))
					goto out;
				prev = ch;
				cur = cn->ports[out].remote_node;
				if (!node_is_switch(&f->nodes[cur]))
					break;
			}
			if (first == UINT32_MAX)
				continue;
			/* the CA ports on this switch inject into the first channel */
			for (p = 1; p <= sw->nports; p++) {
				const struct port *pt = &sw->ports[p];
				const struct node *ca;
				uint8_t vl = 0;

				if (pt->remote_node >= n)
					continue;
				ca = &f->nodes[pt->remote_node];
				if (node_is_switch(ca) || !ca->ports[pt->remote_port].lid)
					continue;
				if (map.node[l] == pt->remote_node &&
				    map.port[l] == pt->remote_port)
					continue; /* its own LID */
				if (nvl > 1 && r->sl2vl && r->sl2vl[pt->remote_node])
					vl = r->sl2vl[pt->remote_node][sl];
				if (checker_dep_add(&deps,
						    pbase[pt->remote_node] + pt->remote_port * nvl +
							(vl < nvl ? vl : 0),
						    first))
					goto out;
			}
		}
	}
	st.deps = deps.n;

	/* CSR, then an iterative DFS looking for a back edge */
	start = calloc((size_t)n_ch + 2, sizeof(*start));
	to = malloc((deps.n + 1) * sizeof(*to));
	color = calloc((size_t)n_ch + 1, 1);
	stack = malloc(((size_t)n_ch + 1) * sizeof(*stack));
	edge = malloc(((size_t)n_ch + 1) * sizeof(*edge));
	if (!start || !to || !color || !stack || !edge)
		goto out;
	for (j = 0; j < deps.cap; j++)
		if (deps.slot[j])
			start[((deps.slot[j] - 1) >> 32) + 1]++;
	for (i = 0; i < n_ch; i++)
		start[i + 1] += start[i];
	{
		uint32_t *fill = calloc((size_t)n_ch + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (j = 0; j < deps.cap; j++) {
			uint64_t k;

			if (!deps.slot[j])
				continue;
			k = deps.slot[j] - 1;
			to[start[k >> 32] + fill[k >> 32]++] = (uint32_t)k;
		}
		free(fill);
	}
	for (i = 0; i < n_ch && !cycles; i++) {
		uint32_t sp = 0;

		if (color[i] || start[i] == start[i + 1])
			continue;
		color[i] = 1;
		stack[sp] = i;
		edge[sp++] = start[i];
		while (sp && !cycles) {
			uint32_t x = stack[sp - 1];

			if (edge[sp - 1] == start[x + 1]) {
				color[x] = 2;
				sp--;
				continue;
			}
			{
				uint32_t y = to[edge[sp - 1]++];

				if (color[y] == 1) {
					uint32_t node, port, k;

					for (k = 0; k < n && pbase[k] <= y; k++)
						;
					node = k - 1;
					port = (y - pbase[node]) / nvl;
					cycles = 1;
					if (msg && msg_len)
						snprintf(msg, msg_len,
							 "credit loop: channel \"%s\"[%u] VL %u "
							 "is on a cycle",
							 f->nodes[node].desc, port,
							 (y - pbase[node]) % nvl);
				} else if (!color[y]) {
					color[y] = 1;
					stack[sp] = y;
					edge[sp++] = start[y];
				}
			}
		}
	}
	err = cycles;
	if (ret_stats)
		*ret_stats = st;
out:
	free(edge);
	free(stack);
	free(color);
	free(to);
	free(start);
	free(deps.slot);
	free(pbase);
	fabric_lid_map_clear(&map);
	return err;
}

void checker_assert_sound(const struct fabric *f, const struct routes *r, unsigned int flags,
			  const char *what)
{
	struct checker_stats st = {0};
	char msg[256] = "";
	int v;

	v = checker_run(f, r, flags, &st, msg, sizeof(msg));
	if (v)
		fprintf(stderr, "\n%s: %d violations, first: %s\n", what, v, msg);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(st.unreachable, 0);
	CU_ASSERT(st.checked > 0);
}

int checker_walk(const struct fabric *f, const struct routes *r, const struct lid_map *map,
		 uint32_t sw, uint16_t lid, struct checker_hop *ret_hops, size_t max)
{
	uint32_t owner, cur = sw;
	uint8_t oport;
	int hops = 0;

	if (lid == 0 || lid > map->max_lid || lid > r->max_lid ||
	    (owner = map->node[lid]) == FABRIC_NO_NODE)
		return -1;
	oport = map->port[lid];
	for (;;) {
		const struct node *cn = &f->nodes[cur];
		uint8_t out = cur < r->n_nodes && r->lft[cur] ? r->lft[cur][lid] : LFT_NO_PORT;
		const struct port *pt;

		if (out == 0)
			return cur == owner ? hops : -1;
		if (out == LFT_NO_PORT || out > cn->nports || !port_is_linked(&cn->ports[out]))
			return -1;
		if (ret_hops && (size_t)hops < max)
			ret_hops[hops] = (struct checker_hop){cur, out};
		pt = &cn->ports[out];
		hops++;
		if (!node_is_switch(&f->nodes[pt->remote_node]))
			return pt->remote_node == owner && pt->remote_port == oport ? hops : -1;
		if ((uint32_t)hops > f->n_nodes)
			return -1;
		cur = pt->remote_node;
	}
}

int checker_lmc_paths(const struct fabric *f, const struct routes *r, struct checker_lmc_stats *ret)
{
	struct checker_lmc_stats st = {0};
	struct checker_hop *hops = NULL;
	struct lid_map map;
	size_t max = (size_t)f->n_nodes + 1;
	int *len = NULL, err;
	uint32_t s, c;
	unsigned int p;

	err = fabric_lid_map(f, &map);
	if (err && err != -EEXIST)
		return err;
	err = -ENOMEM;
	hops = malloc(128 * max * sizeof(*hops));
	len = malloc(128 * sizeof(*len));
	if (!hops || !len)
		goto out;
	for (s = 0; s < f->n_nodes; s++) {
		const struct node *sn = &f->nodes[s];
		bool has_ca = false;

		if (!node_is_switch(sn) || s >= r->n_nodes || !r->lft[s])
			continue;
		for (p = 1; p <= sn->nports; p++)
			if (sn->ports[p].remote_node < f->n_nodes &&
			    !node_is_switch(&f->nodes[sn->ports[p].remote_node]))
				has_ca = true;
		if (!has_ca)
			continue;
		for (c = 0; c < f->n_nodes; c++) {
			const struct node *cn = &f->nodes[c];

			if (node_is_switch(cn))
				continue;
			for (p = 1; p <= cn->nports; p++) {
				const struct port *cp = &cn->ports[p];
				unsigned int n = 1u << cp->lmc, i, j, a, b, firsts = 0;
				bool all = true;

				if (!cp->lmc || !cp->lid || cp->remote_node == s || n > 128)
					continue;
				st.ranges++;
				for (i = 0; i < n; i++) {
					len[i] =
					    checker_walk(f, r, &map, s, (uint16_t)(cp->lid + i),
							 &hops[i * max], max);
					if (len[i] < 0) {
						st.broken++;
						len[i] = 0;
					}
					/* the last hop goes to the CA: not a switch link */
					if (len[i] > 0)
						len[i]--;
				}
				for (i = 0; i < n; i++) {
					bool first_new = len[i] > 0;

					for (j = 0; j < n; j++) {
						bool shared = false;

						if (j < i && len[i] && len[j] &&
						    hops[i * max].node == hops[j * max].node &&
						    hops[i * max].port == hops[j * max].port)
							first_new = false;
						if (j <= i)
							continue;
						for (a = 0; a < (unsigned int)len[i] && !shared;
						     a++)
							for (b = 0; b < (unsigned int)len[j]; b++)
								if (hops[i * max + a].node ==
									hops[j * max + b].node &&
								    hops[i * max + a].port ==
									hops[j * max + b].port) {
									shared = true;
									break;
								}
						st.pairs++;
						if (!shared)
							st.disjoint++;
						else
							all = false;
					}
					firsts += first_new;
				}
				st.ranges_disjoint += all;
				st.first_distinct += firsts == n;
			}
		}
	}
	*ret = st;
	err = 0;
out:
	free(len);
	free(hops);
	fabric_lid_map_clear(&map);
	return err;
}

/*
 * Routing invariant checker (see checker.h).  Hop counts come from a BFS
 * over switch-to-switch links from each switch; a LID on a CA port is one
 * link further than the switch that port is cabled to.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
					else if ((flags & CHECKER_MINIMAL) && (int32_t)hops != want)
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
					else if ((flags & CHECKER_MINIMAL) && (int32_t)hops != want)
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

/*
 * Snapshot diff (see diff.h).  O(nodes x ports) with the GUID index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/diff.h"

bool diff_link_first_end(const struct fabric *f, uint32_t a, uint8_t pa)
{
	const struct port *p = &f->nodes[a].ports[pa];

	return a < p->remote_node || (a == p->remote_node && pa < p->remote_port);
}

static void diff_end_of(const struct fabric *f, uint32_t ni, uint8_t pn, struct diff_end *ret)
{
	const struct node *n = &f->nodes[ni];
	uint8_t lp = node_is_switch(n) ? 0 : n->nports ? 1 : 0;

	/* the node's representative port (as smctl shows it): linked with a LID, else with one */
	for (int pass = 0; !node_is_switch(n) && pass < 2; pass++)
		for (uint8_t p = 1; p <= n->nports; p++)
			if (n->ports[p].lid && (pass || port_is_linked(&n->ports[p]))) {
				lp = p;
				pass = 2;
				break;
			}
	ret->guid = n->guid;
	ret->lid = n->ports[lp].lid;
	ret->type = (uint8_t)n->type;
	ret->sm = ni == f->sm_node && pn == f->sm_port;
	memcpy(ret->desc, n->desc, sizeof(ret->desc));
}

/* c's copies of its ends out of f (c->f). */
static void diff_fill(struct diff_change *c)
{
	const struct fabric *f = c->f;
	const struct port *p = &f->nodes[c->node].ports[c->port];

	diff_end_of(f, c->node, c->port, &c->a);
	c->state = c->kind == DIFF_LINK_DOWN || c->kind == DIFF_NODE_REMOVED ? PORT_DOWN : p->state;
	if (c->kind == DIFF_PORT_DOWN && port_is_linked(p) && p->remote_node < f->n_nodes) {
		c->linked = true;
		c->peer = p->remote_node;
		c->peer_port = p->remote_port;
	}
	if (c->kind == DIFF_LINK_DOWN || c->kind == DIFF_LINK_UP || c->linked)
		diff_end_of(f, c->peer, c->peer_port, &c->b);
}

static void diff_emit(diff_fn *fn, void *arg, struct diff_change *c)
{
	diff_fill(c);
	fn(arg, c);
}

/* Nodes of a missing from b. */
static void diff_nodes(const struct fabric *a, const struct fabric *b, enum diff_kind kind,
		       diff_fn *fn, void *arg)
{
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		if (fabric_find_guid(b, a->nodes[i].guid) != FABRIC_NO_NODE)
			continue;
		diff_emit(fn, arg, &(struct diff_change){.kind = kind, .f = a, .node = i});
	}
}

/* Links of a whose far end differs in b (gone, or now elsewhere). */
static void diff_links(const struct fabric *a, const struct fabric *b, enum diff_kind kind,
		       diff_fn *fn, void *arg)
{
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		const struct node *n = &a->nodes[i];
		uint32_t bi = fabric_find_guid(b, n->guid);

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn];
			bool same = false;

			if (!port_is_linked(p) || p->remote_node >= a->n_nodes ||
			    !diff_link_first_end(a, i, (uint8_t)pn))
				continue;
			if (bi != FABRIC_NO_NODE && pn <= b->nodes[bi].nports) {
				const struct port *bp = &b->nodes[bi].ports[pn];

				same = port_is_linked(bp) && bp->remote_node < b->n_nodes &&
				       b->nodes[bp->remote_node].guid ==
					   a->nodes[p->remote_node].guid &&
				       bp->remote_port == p->remote_port;
			}
			if (same)
				continue;
			diff_emit(fn, arg,
				  &(struct diff_change){.kind = kind,
							.f = a,
							.node = i,
							.port = (uint8_t)pn,
							.peer = p->remote_node,
							.peer_port = p->remote_port});
		}
	}
}

void diff_fabrics(const struct fabric *old, const struct fabric *new, diff_fn *fn, void *arg)
{
	diff_nodes(old, new, DIFF_NODE_REMOVED, fn, arg);
	diff_nodes(new, old, DIFF_NODE_ADDED, fn, arg);
	diff_links(old, new, DIFF_LINK_DOWN, fn, arg);
	diff_links(new, old, DIFF_LINK_UP, fn, arg);
	for (uint32_t i = 0; i < new->n_nodes; i++) {
		const struct node *n = &new->nodes[i];
		uint32_t oi = fabric_find_guid(old, n->guid);
		const struct node *o;

		if (oi == FABRIC_NO_NODE)
			continue;
		o = &old->nodes[oi];
		for (unsigned pn = 0; pn <= n->nports && pn <= o->nports; pn++) {
			const struct port *p = &n->ports[pn], *op = &o->ports[pn];
			bool lid_port = pn >= node_first_lid_port(n) && pn <= node_last_lid_port(n);
			struct diff_change c = {.f = new, .node = i, .port = (uint8_t)pn};

			if (pn && op->state == PORT_ACTIVE && p->state != PORT_ACTIVE) {
				c.kind = DIFF_PORT_DOWN;
				diff_emit(fn, arg, &c);
			} else if (pn && op->state != PORT_ACTIVE && p->state == PORT_ACTIVE) {
				c.kind = DIFF_PORT_UP;
				diff_emit(fn, arg, &c);
			}
			if (lid_port && op->lid && p->lid && op->lid != p->lid) {
				c = (struct diff_change){.kind = DIFF_LID_CHANGED,
							 .f = new,
							 .node = i,
							 .port = (uint8_t)pn,
							 .lid = p->lid,
							 .old_lid = op->lid};
				diff_emit(fn, arg, &c);
			}
		}
	}
}

struct diff_collector {
	struct diff_list *l;
	int err;
};

static void diff_collect_one(void *arg, const struct diff_change *c)
{
	struct diff_collector *dc = arg;
	struct diff_list *l = dc->l;

	if (dc->err)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct diff_change *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			dc->err = -ENOMEM;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *c;
}

int diff_collect(const struct fabric *old, const struct fabric *new, struct diff_list *ret)
{
	struct diff_collector dc = {ret, 0};

	ret->n = 0;
	diff_fabrics(old, new, diff_collect_one, &dc);
	if (dc.err)
		diff_list_clear(ret);
	return dc.err;
}

void diff_list_run(const struct diff_list *l, diff_fn *fn, void *arg)
{
	for (size_t i = 0; i < l->n; i++)
		fn(arg, &l->v[i]);
}

void diff_list_clear(struct diff_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

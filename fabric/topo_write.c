/*
 * The topology writer: a fabric in ibnetdiscover(8)'s format, node for node
 * and line for line as infiniband-diags 45 prints it (matched against the
 * real ibnetdiscover on ibsim), and the discovery order that format and
 * dump_fts follow.  Used by the routing dumps and by `smctl topology`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/names.h"
#include "fabric/speed.h"
#include "fabric/topo.h"

void topo_order_clear(struct topo_order *c)
{
	free(c->order);
	free(c->parent);
	free(c->via);
	free(c->from_sm);
	c->order = c->parent = NULL;
	c->via = NULL;
	c->from_sm = NULL;
}

/*
 * Discovery order as libibnetdisc sees it: BFS from the SM's port; only
 * switches forward, a CA start node only through the SM's port.  Nodes out
 * of reach follow, each unreached one starting a BFS of its own.
 */
int topo_order_build(const struct fabric *f, struct topo_order *c)
{
	uint32_t n = f->n_nodes, head = 0, tail = 0, start;
	bool *seen;

	c->order = malloc((n ? n : 1) * sizeof(*c->order));
	c->parent = malloc((n ? n : 1) * sizeof(*c->parent));
	c->via = calloc(n ? n : 1, 1);
	c->from_sm = calloc(n ? n : 1, sizeof(*c->from_sm));
	seen = calloc(n ? n : 1, sizeof(*seen));
	if (!c->order || !c->parent || !c->via || !c->from_sm || !seen) {
		free(seen);
		topo_order_clear(c);
		return -ENOMEM;
	}
	for (start = 0; start <= n; start++) {
		uint32_t root = start == 0 ? f->sm_node : start - 1;

		if (root >= n || seen[root])
			continue;
		seen[root] = true;
		c->parent[root] = FABRIC_NO_NODE;
		c->from_sm[root] = start == 0;
		c->order[tail++] = root;
		while (head < tail) {
			uint32_t ni = c->order[head++];
			const struct node *nd = &f->nodes[ni];
			unsigned int p, lo = 1, hi = nd->nports;

			if (!node_is_switch(nd)) {
				if (ni != root)
					continue;
				if (start == 0 && f->sm_port >= 1 && f->sm_port <= nd->nports)
					lo = hi = f->sm_port;
			}
			for (p = lo; p <= hi; p++) {
				uint32_t rn = nd->ports[p].remote_node;

				if (!port_is_linked(&nd->ports[p]) || rn >= n || seen[rn])
					continue;
				seen[rn] = true;
				c->parent[rn] = ni;
				c->via[rn] = (uint8_t)p;
				c->from_sm[rn] = start == 0;
				c->order[tail++] = rn;
			}
		}
	}
	free(seen);
	return 0;
}

/* ibnetdiscover's clean_nodedesc: control characters become spaces. */
void topo_clean_desc(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = (in[i] > 0 && in[i] < 0x20) || in[i] == 0x7f ? ' ' : in[i];
	out[i] = '\0';
}

static const char *topo_prefix(const struct node *n)
{
	switch (n->type) {
	case NODE_SWITCH:
		return "S";
	case NODE_CA:
		return "H";
	case NODE_ROUTER:
		return "R";
	}
	return "?";
}

static void topo_ids(FILE *out, const struct node *n)
{
	fprintf(out, "\nvendid=0x%x\ndevid=0x%x\n", n->vendor_id, n->device_id);
	if (n->sys_guid)
		fprintf(out, "sysimgguid=0x%" PRIx64 "\n", n->sys_guid);
}

static void topo_remote(FILE *out, const struct fabric *f, const struct port *pt,
			const char *tail_ws)
{
	const struct node *rn = &f->nodes[pt->remote_node];

	fprintf(out, "\t\"%s-%016" PRIx64 "\"[%u]", topo_prefix(rn), rn->guid, pt->remote_port);
	if (!node_is_switch(rn))
		fprintf(out, "%s(%" PRIx64 ") ", tail_ws, rn->ports[pt->remote_port].guid);
}

/* The tail of a port line: the far end's description, LID, width and speed. */
static void topo_peer(FILE *out, const struct fabric *f, const struct port *pt)
{
	const struct node *rn = &f->nodes[pt->remote_node];
	char rdesc[sizeof(rn->desc)];

	topo_clean_desc(rn->desc, rdesc, sizeof(rdesc));
	fprintf(out, "\"%s\" lid %u %s%s\n", rdesc, node_port_lid(rn, pt->remote_port),
		names_width(pt->width_active) ?: "undefined",
		speed_name(speed_port_lane(pt)) ?: "undefined");
}

static void topo_switch(FILE *out, const struct fabric *f, const struct node *n)
{
	char desc[sizeof(n->desc)];
	unsigned int p;

	topo_ids(out, n);
	topo_clean_desc(n->desc, desc, sizeof(desc));
	fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->guid, n->ports[0].guid);
	fprintf(out, "Switch\t%u \"S-%016" PRIx64 "\"\t\t# \"%s\" %s port 0 lid %u lmc %u\n",
		n->nports, n->guid, desc, n->enhanced_port0 ? "enhanced" : "base", n->ports[0].lid,
		n->ports[0].lmc);
	for (p = 1; p <= n->nports; p++) {
		const struct port *pt = &n->ports[p];

		if (!port_is_linked(pt) || pt->remote_node >= f->n_nodes)
			continue;
		fprintf(out, "[%u]", p);
		topo_remote(out, f, pt, "");
		fprintf(out, "\t\t# ");
		topo_peer(out, f, pt);
	}
}

static void topo_ca(FILE *out, const struct fabric *f, const struct node *n)
{
	char desc[sizeof(n->desc)];
	const char *lc = n->type == NODE_ROUTER ? "rt" : "ca";
	const char *uc = n->type == NODE_ROUTER ? "Rt" : "Ca";
	unsigned int p;

	topo_ids(out, n);
	topo_clean_desc(n->desc, desc, sizeof(desc));
	fprintf(out, "%sguid=0x%" PRIx64 "\n", lc, n->guid);
	fprintf(out, "%s\t%u \"%s-%016" PRIx64 "\"\t\t# \"%s\"\n", uc, n->nports, topo_prefix(n),
		n->guid, desc);
	for (p = 1; p <= n->nports; p++) {
		const struct port *pt = &n->ports[p];

		if (!port_is_linked(pt) || pt->remote_node >= f->n_nodes)
			continue;
		fprintf(out, "[%u](%" PRIx64 ") ", p, pt->guid);
		topo_remote(out, f, pt, " ");
		fprintf(out, "\t\t# lid %u lmc %u ", pt->lid, pt->lmc);
		topo_peer(out, f, pt);
	}
}

int topo_write(const struct fabric *f, FILE *out)
{
	struct topo_order c;
	time_t t = time(NULL);
	char tbuf[64];
	int err, type;
	uint32_t i;

	err = topo_order_build(f, &c);
	if (err)
		return err;
	fprintf(out, "#\n# Topology file: generated on %s#\n", ctime_r(&t, tbuf));
	if (f->sm_node < f->n_nodes) {
		const struct node *sm = &f->nodes[f->sm_node];
		fprintf(out, "# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n", sm->guid,
			sm->ports[node_is_switch(sm) ? 0 : f->sm_port].guid);
	}
	/* libibnetdisc prepends each node it finds to its type's list */
	for (type = NODE_SWITCH; type != 0; type = type == NODE_SWITCH ? NODE_CA
						   : type == NODE_CA   ? NODE_ROUTER
								       : 0) {
		for (i = f->n_nodes; i-- > 0;) {
			const struct node *n = &f->nodes[c.order[i]];
			if (n->type != type)
				continue;
			if (type == NODE_SWITCH)
				topo_switch(out, f, n);
			else
				topo_ca(out, f, n);
		}
	}
	topo_order_clear(&c);
	return ferror(out) ? -EIO : 0;
}

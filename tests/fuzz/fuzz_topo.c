/*
 * Fuzz target for fabric/topo.c, the reader of topology files (ibnetdiscover /
 * ibsim "net" text that comes from outside ibsmd), and fabric_lid_map() over
 * what it builds.
 *
 * Properties: topo_parse returns 0 with a fabric, or -EBADMSG with a
 * "LINE: what" message, or -ENOMEM; a parsed fabric is consistent (links are
 * symmetric, in range, never to the same port; the SM node exists); the LID
 * map covers exactly the LIDs the ports carry.  Everything is freed.
 */
#include <errno.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/topo.h"
#include "tests/fuzz/fuzz.h"

static void check_fabric(const struct fabric *f)
{
	uint32_t i;
	unsigned int p;

	FUZZ_CHECK(f->n_nodes > 0 && f->sm_node < f->n_nodes);
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		FUZZ_CHECK(n->type >= NODE_CA && n->type <= NODE_ROUTER && n->nports > 0);
		FUZZ_CHECK(fabric_find_guid(f, n->guid) == i);
		FUZZ_CHECK(memchr(n->desc, '\0', sizeof(n->desc)));
		for (p = 0; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];
			const struct port *rp;

			if (!port_is_linked(pt))
				continue;
			FUZZ_CHECK(p > 0 && pt->remote_node < f->n_nodes);
			FUZZ_CHECK(pt->remote_port > 0 &&
				   pt->remote_port <= f->nodes[pt->remote_node].nports);
			FUZZ_CHECK(!(pt->remote_node == i && pt->remote_port == p));
			rp = &f->nodes[pt->remote_node].ports[pt->remote_port];
			FUZZ_CHECK(rp->remote_node == i && rp->remote_port == p);
			FUZZ_CHECK(pt->state == PORT_ACTIVE);
		}
	}
}

static void check_lid_map(const struct fabric *f)
{
	struct lid_map m = {0};
	uint32_t i, l;
	unsigned int p;
	int r;

	r = fabric_lid_map(f, &m);
	FUZZ_CHECK(r == 0 || r == -EEXIST || r == -ENOMEM);
	if (r == -ENOMEM)
		return;
	FUZZ_CHECK(m.max_lid <= FABRIC_MAX_UCAST_LID);
	for (l = 1; l <= m.max_lid; l++) {
		if (m.node[l] == FABRIC_NO_NODE)
			continue;
		FUZZ_CHECK(m.node[l] < f->n_nodes);
		const struct node *n = &f->nodes[m.node[l]];
		FUZZ_CHECK(m.port[l] >= node_first_lid_port(n) &&
			   m.port[l] <= node_last_lid_port(n));
		const struct port *pt = &n->ports[m.port[l]];
		FUZZ_CHECK(pt->lid && l >= pt->lid && l < pt->lid + (1u << (pt->lmc & 7)));
	}
	/* every port's base LID is mapped (to it, or to an earlier claimant) */
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (p = node_first_lid_port(n); p <= node_last_lid_port(n); p++)
			if (n->ports[p].lid && n->ports[p].lid <= m.max_lid)
				FUZZ_CHECK(m.node[n->ports[p].lid] != FABRIC_NO_NODE);
	}
	fabric_lid_map_clear(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric *f = NULL;
	char err[256];
	int r;

	if (size > 1 << 20) /* a topology is text; keep each run fast */
		return 0;
	r = topo_parse((const char *)data, size, &f, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (r) {
		FUZZ_CHECK(f == NULL);
		if (r == -EBADMSG)
			FUZZ_CHECK(err[0] && strchr(err, ':'));
		return 0;
	}
	FUZZ_CHECK(f != NULL);
	check_fabric(f);
	check_lid_map(f);
	fabric_free(f);
	return 0;
}

/*
 * Deadlock-free shortest paths (dfsp): balanced routing for any topology,
 * free of credit loops by layering paths onto virtual lanes.  IBA 1.4 vol
 * 1, 18.2.4.3.2 (linear forwarding tables), 7.6.6 and 14.2.5.8 (SL to VL
 * mapping).
 *
 * Paths, after Domke, Hoefler and Nagel, "Deadlock-Free Oblivious Routing
 * for Arbitrary Topologies" (IPDPS 2011; OpenSM's dfsssp): one routing tree
 * per destination LID, every switch-to-switch link (each parallel link on
 * its own) weighted by the CA-to-CA routes already laid over it, so that
 * all-to-all traffic spreads.  DFSSSP runs Dijkstra from each destination
 * with an initial weight of P^2 per link (P the number of LIDs) and adds the
 * routes to the weights after each tree; P^2 makes its paths shortest in
 * hops first and lightest second in all but degenerate fabrics.  Here:
 *  - that is explicit: a BFS per destination switch gives the shortest-path
 *    DAG, and each LID's tree is the lightest in-tree of the DAG, one pass
 *    in BFS order, no heap;
 *  - a path's weight is the sum of the cubes of its links' route counts,
 *    not the counts (a busy link costs more than two half-busy ones: the
 *    busiest link is what we minimise), and after the first pass every CA
 *    LID is routed once more with its own routes taken out of the weights
 *    (rip-up and reroute), when every other LID's routes are known;
 *  - LMC: the 2^LMC LIDs of a port follow one another, and each first
 *    avoids (fewest, before any weight) the links the trees of the port's
 *    other LIDs use, so that among the shortest paths the alternatives are
 *    as link-disjoint as the topology allows; DFSSSP separates them only
 *    through the weights;
 *  - then near-shortest rounds (as many as DFSP_DETOUR_WORK allows for
 *    the fabric's size, at most DFSP_DETOUR_ROUNDS, while each lowers the
 *    busiest link; the best tables stay): every single-LID CA port is
 *    routed again by Dijkstra from its switch over paths at most
 *    DFSP_SLACK hop longer than the shortest, a link costing
 *    (routes / busiest link's routes)^DFSP_EXP and every hop DFSP_HOP more,
 *    so a path leaves the shortest ones only around the busiest links.
 *    DFSSSP's P^2 keeps it on shortest paths, and on a random 64-switch
 *    fabric its busiest link is then 1.9x the lower bound where ours is
 *    1.5x (bench/deadlockfree.sh);
 *  - switch LIDs (management traffic) are routed last and add no weight,
 *    as in DFSSSP; CA LIDs go destination switch by destination switch
 *    (GUID order), ports by port number.
 *
 * Layers, after Skeie, Lysne and Theiss, "Layered Shortest Path (LASH)
 * Routing in Irregular System Area Networks" (IPDPS 2002), rather than
 * DFSSSP's way: each path (source switch, destination LID) goes into the
 * first layer whose channel dependency graph stays acyclic with its
 * dependencies added, paths destination switch by destination switch; a
 * second pass takes the paths that went highest first, and passes go on
 * while that saves a layer.  A dynamic topological order per layer (Pearce
 * and Kelly, "A dynamic topological sort algorithm for directed acyclic
 * graphs", 2006) keeps the cycle check local; a dependency that closes a
 * cycle with a layer's own is blocked there for the pass, and a walk stops
 * at the first switch whose path to the LID is already in the layer.
 * When that needs more layers than the VLs allow (or takes more than
 * DFSP_MAX_STEPS search steps) and at least 2 VLs are offered, one more
 * pass lays the paths first-fit onto the first VLs with the searches capped
 * (past DFSP_MAX_STEPS a dependency against a layer's order is refused,
 * which is always safe), and every LID one of whose paths fits none is
 * routed again, whole, over an up*-down* tree (Schroeder et al.,
 * "Autonet", 1991, as updn.c: the lightest among the legal paths of
 * fewest hops) on the last VLs, one root and orientation per such VL
 * (root 0 the most central switch, the next ones central and far from the
 * roots before), each LID on the VL whose tree is lightest: up*-down*
 * paths of one orientation have no cycle among themselves, so those layers
 * need no search.  Half the VLs, rounded up, go to such layers (measured:
 * one of 8 left a random 640-switch fabric at 19.6x the lower bound, 4 of
 * 8 at 4.3x; updn 30x).  So dfsp refuses only when a switch link offers VL 0 alone.
 * DFSSSP puts every (source LID, destination LID) path on VL 0, breaks
 * each cycle at its weakest dependency by moving that dependency's paths
 * one layer up, and spreads the paths over the VLs left unused (the SL
 * drawn at random among them at query time); Nue (Domke, Hoefler and
 * Matsuoka, "Routing on the Dependency Graph", HPDC 2016; OpenSM's nue)
 * routes inside the dependency graph, so it never needs more VLs than it is
 * given, at the price of longer and less balanced paths.  Layer i is SL i
 * (path SLs by destination LID: struct routes' lid_sl); every switch port
 * towards a switch maps SL i to VL i and SLs past the layers to VL 0, CA
 * ports and switch ports towards CAs map every SL to VL 0 (nothing depends
 * on a CA's link).  VLs the layers do not need stay unused, for QoS.  A
 * switch without CAs is the source of paths to CA LIDs only (its traps and
 * answers); paths from one to another switch's LID are not layered (nothing
 * sends such traffic on a data VL), as updn leaves them.
 *
 * VLs offered: the fewest over switch-to-switch ports of OperationalVLs
 * where the port is armed or active (it cannot change then) and of VLCap
 * elsewhere (the SM sets OperationalVLs from it, smp/program.c), and
 * routing_opts' max_vls when set.  The paths are layered as if every
 * port had 15 data VLs and the layers then compared with that, so the
 * tables and the SLs do not depend on the limit as long as they fit: a
 * fabric that fits in n VLs fits any limit of n or more.  -ENOTSUP with
 * the numbers when they do not fit and only VL 0 is offered, or when the
 * fabric is larger than DFSP_MAX_WORK (LIDs x switch links).  Every count
 * depends on the fabric alone, so a fabric always gets the same answer.
 *
 * Cost: O(rounds x LIDs x switch links) for the trees; the layers walk
 * O(switches x LIDs) paths a pass, most of one step, plus the searches.
 * Memory: the tables, a byte per (switch, LID) for the layers (twice while
 * a pass runs), a bit per (link, next link) pair and O(links) per layer.
 * Measured on the shared 2-core VM at load 13-15 (ibsmd --offline, route
 * time, README's table): 3-level fat tree k=34 (1,445 switches, 11,271
 * LIDs) 5-11 s, one layer, the same busiest link as ftree (0.7-1.0 s);
 * random 320 switches / 9,920 LIDs 14 s, 8 layers, busiest link at the
 * lower bound (updn: 10x it); random 320 / 10,560 LIDs 10-21 s, 8 VLs of
 * which 4 up*-down*, 1.6x the bound (updn 9.7x); random 640 switches /
 * 10,880 LIDs 17-18 s, 4.3x (updn 30x).  Pure: no I/O, no globals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

#define DFSP_NONE UINT32_MAX
#define DFSP_MAX_LAYERS 15 /* data VLs an IBA port can have */
#define DFSP_ROUNDS 1	   /* passes that route each CA LID again over shortest paths */
/* then rounds over near-shortest paths, while they lower the busiest link */
#define DFSP_DETOUR_ROUNDS 4
#define DFSP_DETOUR_WORK 30000000ULL /* CA LIDs x switch links a detour round may cost */
#define DFSP_SLACK 1		     /* hops a path may take beyond the shortest */
#define DFSP_HOP 0.1		     /* cost of a hop: a tenth of a busiest link's */
#define DFSP_EXP 4.0		     /* a link's cost: (routes / busiest)^4 */
#include <math.h>
#define DFSP_PASSES 4 /* layering passes at most */
/* links the layering's cycle searches may visit: a few seconds */
#define DFSP_MAX_STEPS 50000000ULL
/* trees x links past which routing would take more than seconds */
#define DFSP_MAX_WORK 1000000000ULL

struct dfsp_layer {
	uint64_t *bits;	   /* dependency (c, j): dep_base[c] + j, j = index of the next link */
	uint64_t *blocked; /* dependencies that close a cycle with the layer's alone */
	uint32_t *ord;	   /* topological position of each link */
	uint32_t *at;	   /* the link at each position */
};

struct dfsp {
	const struct fabric *f;
	struct lid_map map;
	uint32_t n_sw;
	uint32_t *sw_node, *sw_of;
	uint32_t *adj_start; /* switch links (channels) in CSR, port order */
	struct routing_adj *adj;
	uint32_t n_ch;
	uint32_t *tail;	       /* channel -> its switch */
	uint32_t *rev;	       /* channel -> the other direction of its link */
	uint32_t *pbase, *pch; /* (switch, port) -> channel, DFSP_NONE for others */
	uint32_t *tgt_sw;
	uint8_t *tgt_port;
	uint32_t *lid_start; /* LIDs per destination switch: CA LIDs by port, own LID last */
	uint16_t *lid_list;
	uint32_t *n_ca_lids; /* the CA LIDs among them */
	uint32_t *src;	     /* CA ports with a LID per switch */
	uint8_t **lft;	     /* per switch index */
	/* per destination switch */
	uint32_t *dist, *order, n_order;
	uint32_t *tord, n_tord; /* the last tree's switches, each after its next hop */
	uint32_t *dorder, *heap, *hpos, *depth;
	double lnorm, lexp, hop; /* link cost (w / lnorm)^lexp, hop cost in Dijkstra rounds */
	bool detour;
	uint32_t slack;
	uint32_t *cand_start, *cand;
	/* per LID */
	uint64_t *w, *sub;
	double *lcost, *cost; /* per link: w^3; per switch: the path's sum of them */
	uint32_t *next;
	uint16_t *shared; /* per link: trees of the port's other LIDs using it */
	/* layers */
	uint32_t *dep_base;
	uint64_t n_dep;
	struct dfsp_layer layer[DFSP_MAX_LAYERS];
	unsigned int n_layers;
	unsigned int limit; /* layers the VLs allow */
	uint64_t steps;	    /* links the layering's searches visited */
	bool overflow;	    /* a unit fit in no layer */
	/* the up*-down* layer of a fallback pass (DFSP_NONE: none) */
	unsigned int ud_layer;
	bool capped;	/* past DFSP_MAX_STEPS a dependency out of order is refused */
	uint8_t *ud;	/* per LID: routed up*-down* on ud_layer */
	uint32_t *rank; /* the up*-down* layer in use: BFS hops from its root */
	uint32_t *ranks[DFSP_MAX_LAYERS], *ud_orders[DFSP_MAX_LAYERS]; /* per up*-down* layer */
	unsigned int n_udl;					       /* up*-down* layers */
	uint32_t *ud_a;		  /* per switch: the up*-down* path's hops to the destination */
	uint32_t *ud_dn;	  /* per switch: the shortest all-down path's hops */
	uint32_t n_ud;		  /* LIDs routed up*-down* */
	uint32_t *ud_order;	  /* the layer in use: switches by (rank, index) */
	uint8_t *unit_layer;	  /* [s * (max_lid + 1) + LID]: the layer of the path from s */
	uint64_t *added, *marked; /* a path's new dependencies (u << 32 | v), done marks */
	uint32_t n_added, cap_added, n_marked, cap_marked;
	uint32_t max_h; /* LIDs on one switch at most */
	uint64_t *done; /* [(layer * n_sw + switch) * max_h + LID index]: path in the layer */
	uint32_t *stamp, *in_b, epoch; /* searches: visited, visited backwards */
	uint32_t *stack, *fwd, *bwd;
	uint64_t *keys;
};

static void dfsp_clear(struct dfsp *d)
{
	unsigned int i;

	fabric_lid_map_clear(&d->map);
	free(d->sw_node);
	free(d->sw_of);
	free(d->adj_start);
	free(d->adj);
	free(d->tail);
	free(d->rev);
	free(d->pbase);
	free(d->pch);
	free(d->tgt_sw);
	free(d->tgt_port);
	free(d->lid_start);
	free(d->lid_list);
	free(d->n_ca_lids);
	free(d->src);
	free(d->lft);
	free(d->dist);
	free(d->order);
	free(d->dorder);
	free(d->heap);
	free(d->hpos);
	free(d->depth);
	free(d->cand_start);
	free(d->cand);
	free(d->w);
	free(d->lcost);
	free(d->cost);
	free(d->sub);
	free(d->next);
	free(d->shared);
	free(d->dep_base);
	for (i = 0; i < DFSP_MAX_LAYERS; i++) {
		free(d->layer[i].bits);
		free(d->layer[i].blocked);
		free(d->layer[i].ord);
		free(d->layer[i].at);
	}
	free(d->unit_layer);
	free(d->ud);
	for (i = 0; i < DFSP_MAX_LAYERS; i++) {
		free(d->ranks[i]);
		free(d->ud_orders[i]);
	}
	free(d->ud_a);
	free(d->ud_dn);

	free(d->added);
	free(d->marked);
	free(d->done);
	free(d->stamp);
	free(d->in_b);
	free(d->stack);
	free(d->fwd);
	free(d->bwd);
	free(d->keys);
}

/* IBA VLCap / OperationalVLs encoding (1: VL0 .. 5: VL0-14) to data VLs. */
static unsigned int dfsp_vls_of(uint8_t code)
{
	static const unsigned int vls[] = {1, 1, 2, 4, 8, 15};

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 1;
}

static unsigned int dfsp_port_vls(const struct port *p)
{
	return dfsp_vls_of(p->state >= PORT_ARMED && p->oper_vls ? p->oper_vls : p->vl_cap);
}

/*
 * The data VLs every switch-to-switch port offers; the first port with that
 * few in ret_node, ret_port (FABRIC_NO_NODE when there is no such link).
 */
static unsigned int dfsp_vls_offered(const struct dfsp *d, uint32_t *ret_node, uint8_t *ret_port)
{
	unsigned int best = DFSP_MAX_LAYERS, v;
	uint32_t s, e;

	*ret_node = FABRIC_NO_NODE;
	*ret_port = 0;
	for (s = 0; s < d->n_sw; s++) {
		const struct node *nd = &d->f->nodes[d->sw_node[s]];

		for (e = d->adj_start[s]; e < d->adj_start[s + 1]; e++) {
			v = dfsp_port_vls(&nd->ports[d->adj[e].port]);
			if (v < best) {
				best = v;
				*ret_node = d->sw_node[s];
				*ret_port = d->adj[e].port;
			}
		}
	}
	return best;
}

static int dfsp_setup(struct dfsp *d, const struct fabric *f, char *why, size_t why_len)
{
	uint32_t s, e, l, n_slots = 0, *fill;
	size_t nn;
	unsigned int p;
	int err;

	d->f = f;
	err = routing_lid_map(f, &d->map, why, why_len);
	if (!err)
		err = routing_switch_index(f, &d->sw_node, &d->sw_of, &d->n_sw);
	if (!err)
		err = routing_switch_adj(f, d->sw_node, d->sw_of, d->n_sw, &d->adj_start, &d->adj,
					 &d->n_ch);
	if (!err)
		err = routing_lid_targets(f, &d->map, d->sw_of, &d->tgt_sw, &d->tgt_port);
	if (err)
		return err;

	nn = (size_t)d->n_sw + 1;
	d->pbase = malloc(nn * sizeof(*d->pbase));
	d->tail = malloc(((size_t)d->n_ch + 1) * sizeof(*d->tail));
	d->rev = malloc(((size_t)d->n_ch + 1) * sizeof(*d->rev));
	d->src = calloc(nn, sizeof(*d->src));
	d->lft = calloc(nn, sizeof(*d->lft));
	if (!d->pbase || !d->tail || !d->rev || !d->src || !d->lft)
		return -ENOMEM;
	for (s = 0; s < d->n_sw; s++) {
		d->pbase[s] = n_slots;
		n_slots += f->nodes[d->sw_node[s]].nports + 1u;
	}
	d->pch = malloc(((size_t)n_slots + 1) * sizeof(*d->pch));
	if (!d->pch)
		return -ENOMEM;
	memset(d->pch, 0xff, ((size_t)n_slots + 1) * sizeof(*d->pch));
	for (s = 0; s < d->n_sw; s++) {
		const struct node *nd = &f->nodes[d->sw_node[s]];

		for (e = d->adj_start[s]; e < d->adj_start[s + 1]; e++) {
			d->tail[e] = s;
			d->pch[d->pbase[s] + d->adj[e].port] = e;
		}
		for (p = 1; p <= nd->nports; p++) {
			const struct port *pt = &nd->ports[p];

			if (pt->remote_node < f->n_nodes &&
			    !node_is_switch(&f->nodes[pt->remote_node]) &&
			    f->nodes[pt->remote_node].ports[pt->remote_port].lid)
				d->src[s]++;
		}
	}
	for (e = 0; e < d->n_ch; e++) {
		const struct port *pt = &f->nodes[d->sw_node[d->tail[e]]].ports[d->adj[e].port];

		d->rev[e] = d->pch[d->pbase[d->adj[e].nbr] + pt->remote_port];
	}

	/* destination LIDs per switch: CA ports by port number (LMC ranges in order), own LID */
	d->lid_start = calloc(nn + 1, sizeof(*d->lid_start));
	d->n_ca_lids = calloc(nn, sizeof(*d->n_ca_lids));
	d->lid_list = malloc(((size_t)d->map.max_lid + 1) * sizeof(*d->lid_list));
	fill = calloc(nn, sizeof(*fill));
	if (!d->lid_start || !d->n_ca_lids || !d->lid_list || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (l = 1; l <= d->map.max_lid; l++)
		if (d->tgt_sw[l] != FABRIC_NO_NODE)
			d->lid_start[d->tgt_sw[l] + 1]++;
	for (s = 0; s < d->n_sw; s++)
		d->lid_start[s + 1] += d->lid_start[s];
	for (s = 0; s < d->n_sw; s++) {
		const struct node *nd = &f->nodes[d->sw_node[s]];
		uint32_t *o = &fill[s];

		for (p = 1; p <= nd->nports; p++) {
			const struct port *pt = &nd->ports[p];
			const struct port *cp;
			uint32_t l0, l1;

			if (pt->remote_node >= f->n_nodes ||
			    node_is_switch(&f->nodes[pt->remote_node]))
				continue;
			cp = &f->nodes[pt->remote_node].ports[pt->remote_port];
			l0 = cp->lid;
			l1 = l0 + (1u << cp->lmc);
			for (l = l0; l && l < l1 && l <= d->map.max_lid; l++)
				if (d->map.node[l] == pt->remote_node &&
				    d->map.port[l] == pt->remote_port && d->tgt_sw[l] == s)
					d->lid_list[d->lid_start[s] + (*o)++] = (uint16_t)l;
		}
		d->n_ca_lids[s] = *o;
		l = nd->ports[0].lid;
		if (l && l <= d->map.max_lid && d->map.node[l] == d->sw_node[s])
			d->lid_list[d->lid_start[s] + (*o)++] = (uint16_t)l;
	}
	/* anything else that leaves at s (a router port, a LID of an odd range) */
	for (l = 1; l <= d->map.max_lid; l++) {
		uint32_t t = d->tgt_sw[l], i;

		if (t == FABRIC_NO_NODE)
			continue;
		for (i = d->lid_start[t]; i < d->lid_start[t] + fill[t]; i++)
			if (d->lid_list[i] == l)
				break;
		if (i == d->lid_start[t] + fill[t])
			d->lid_list[d->lid_start[t] + fill[t]++] = (uint16_t)l;
	}
	free(fill);

	d->dist = malloc(nn * sizeof(*d->dist));
	d->order = malloc(nn * sizeof(*d->order));
	d->dorder = malloc(nn * sizeof(*d->dorder));
	d->heap = malloc(nn * sizeof(*d->heap));
	d->hpos = malloc(nn * sizeof(*d->hpos));
	d->depth = malloc(nn * sizeof(*d->depth));
	if (!d->dorder || !d->heap || !d->hpos || !d->depth)
		return -ENOMEM;
	d->cand_start = malloc((nn + 1) * sizeof(*d->cand_start));
	d->cand = malloc(((size_t)d->n_ch + 1) * sizeof(*d->cand));
	d->cost = malloc(nn * sizeof(*d->cost));
	d->sub = malloc(nn * sizeof(*d->sub));
	d->next = malloc(nn * sizeof(*d->next));
	d->w = calloc((size_t)d->n_ch + 1, sizeof(*d->w));
	d->lcost = calloc((size_t)d->n_ch + 1, sizeof(*d->lcost));
	d->shared = calloc((size_t)d->n_ch + 1, sizeof(*d->shared));
	if (!d->dist || !d->order || !d->cand_start || !d->cand || !d->cost || !d->sub ||
	    !d->next || !d->w || !d->lcost || !d->shared)
		return -ENOMEM;
	return 0;
}

/* BFS hop counts to destination switch t, the BFS order and each switch's links one hop closer. */
static void dfsp_dest(struct dfsp *d, uint32_t t)
{
	uint32_t head = 0, tail = 0, i, e, n_cand = 0;

	for (i = 0; i < d->n_sw; i++)
		d->dist[i] = DFSP_NONE;
	d->dist[t] = 0;
	d->order[tail++] = t;
	while (head < tail) {
		uint32_t x = d->order[head++];

		for (e = d->adj_start[x]; e < d->adj_start[x + 1]; e++) {
			uint32_t v = d->adj[e].nbr;

			if (d->dist[v] == DFSP_NONE) {
				d->dist[v] = d->dist[x] + 1;
				d->order[tail++] = v;
			}
		}
	}
	d->n_order = tail;
	/* candidates in BFS order: cand_start is indexed by position in order[] */
	for (i = 0; i < tail; i++) {
		uint32_t x = d->order[i];

		d->cand_start[i] = n_cand;
		if (x == t)
			continue;
		for (e = d->adj_start[x]; e < d->adj_start[x + 1]; e++)
			if (d->dist[d->adj[e].nbr] + 1 == d->dist[x])
				d->cand[n_cand++] = e;
	}
	d->cand_start[tail] = n_cand;
}

/*
 * The lightest shortest-path tree towards LID l on t (dfsp_dest(t) done):
 * next[] and the LFT column.  Links the port's other LIDs use come first
 * (fewest), then the sum of the cubes of the links' weights (cost[]).
 */
static void dfsp_tree(struct dfsp *d, uint32_t t, uint16_t l)
{
	const double *const lc = d->lcost;
	const uint16_t *const shared = d->shared;
	const struct routing_adj *const adj = d->adj;
	double *const cost = d->cost;
	uint32_t *const next = d->next;
	uint32_t i, k;

	cost[t] = 0;
	next[t] = DFSP_NONE;
	d->lft[t][l] = d->tgt_port[l];
	for (i = 1; i < d->n_order; i++) {
		uint32_t x = d->order[i], best = DFSP_NONE, best_s = UINT32_MAX;
		double best_c = 0;

		for (k = d->cand_start[i]; k < d->cand_start[i + 1]; k++) {
			uint32_t e = d->cand[k];
			double c = lc[e] + cost[adj[e].nbr];

			if (shared[e] < best_s || (shared[e] == best_s && c < best_c)) {
				best_s = shared[e];
				best_c = c;
				best = e;
			}
		}
		cost[x] = best_c;
		next[x] = best;
		d->lft[x][l] = adj[best].port;
	}
	d->tord = d->order;
	d->n_tord = d->n_order;
}

static void dfsp_hswap(struct dfsp *d, uint32_t a, uint32_t b)
{
	uint32_t x = d->heap[a];

	d->heap[a] = d->heap[b];
	d->heap[b] = x;
	d->hpos[d->heap[a]] = a;
	d->hpos[d->heap[b]] = b;
}

static bool dfsp_hless(const struct dfsp *d, uint32_t a, uint32_t b)
{
	uint32_t x = d->heap[a], y = d->heap[b];

	return d->cost[x] < d->cost[y] || (d->cost[x] == d->cost[y] && x < y);
}

static void dfsp_hup(struct dfsp *d, uint32_t i)
{
	while (i && dfsp_hless(d, i, (i - 1) / 2)) {
		dfsp_hswap(d, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void dfsp_hdown(struct dfsp *d, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t m = i, c = 2 * i + 1;

		if (c < n && dfsp_hless(d, c, m))
			m = c;
		if (c + 1 < n && dfsp_hless(d, c + 1, m))
			m = c + 1;
		if (m == i)
			return;
		dfsp_hswap(d, i, m);
		i = m;
	}
}

/*
 * The lightest tree towards LID l on t over any paths: Dijkstra from t with
 * a hop cost plus each link's cost.
 */
static void dfsp_dijkstra(struct dfsp *d, uint32_t t, uint16_t l)
{
	double *const cost = d->cost;
	uint32_t *const next = d->next;
	uint32_t n = 0, n_set = 0, i, e;

	for (i = 0; i < d->n_sw; i++) {
		cost[i] = HUGE_VAL;
		d->hpos[i] = DFSP_NONE;
	}
	cost[t] = 0;
	next[t] = DFSP_NONE;
	d->depth[t] = 0;
	d->heap[n] = t;
	d->hpos[t] = n++;
	while (n) {
		uint32_t y = d->heap[0];

		dfsp_hswap(d, 0, n - 1);
		n--;
		dfsp_hdown(d, 0, n);
		d->hpos[y] = DFSP_NONE - 1; /* settled */
		d->dorder[n_set++] = y;
		for (e = d->adj_start[y]; e < d->adj_start[y + 1]; e++) {
			uint32_t x = d->adj[e].nbr, c = d->rev[e];
			double nc;

			if (c == DFSP_NONE || d->hpos[x] == DFSP_NONE - 1 ||
			    d->depth[y] + 1 > d->dist[x] + d->slack)
				continue;
			nc = cost[y] + d->hop + d->lcost[c];
			if (nc >= cost[x])
				continue;
			cost[x] = nc;
			next[x] = c;
			d->depth[x] = d->depth[y] + 1;
			if (d->hpos[x] == DFSP_NONE) {
				d->heap[n] = x;
				d->hpos[x] = n++;
			}
			dfsp_hup(d, d->hpos[x]);
		}
	}
	d->lft[t][l] = d->tgt_port[l];
	for (i = 1; i < n_set; i++)
		d->lft[d->dorder[i]][l] = d->adj[next[d->dorder[i]]].port;
	d->tord = d->dorder;
	d->n_tord = n_set;
}

/* next[] of LID l's tree as the tables have it, and its order (dfsp_dest(t) done). */
static void dfsp_tree_of(struct dfsp *d, uint32_t t, uint16_t l)
{
	uint32_t i, n, *const depth = d->depth, max_depth = 0;

	if (!d->detour) {
		for (i = 1; i < d->n_order; i++) {
			uint32_t x = d->order[i];

			d->next[x] = d->pch[d->pbase[x] + d->lft[x][l]];
		}
		d->tord = d->order;
		d->n_tord = d->n_order;
		return;
	}
	for (i = 0; i < d->n_order; i++)
		depth[d->order[i]] = DFSP_NONE;
	depth[t] = 0;
	d->next[t] = DFSP_NONE;
	for (i = 1; i < d->n_order; i++) {
		uint32_t x = d->order[i], y, sp = 0;

		/* walk up to a switch of known depth, then number the walk back */
		for (y = x; depth[y] == DFSP_NONE; y = d->adj[d->next[y]].nbr) {
			d->next[y] = d->pch[d->pbase[y] + d->lft[y][l]];
			d->heap[sp++] = y;
		}
		while (sp) {
			uint32_t z = d->heap[--sp];

			depth[z] = depth[d->adj[d->next[z]].nbr] + 1;
			if (depth[z] > max_depth)
				max_depth = depth[z];
		}
	}
	/* counting sort by depth into dorder */
	for (i = 0; i <= max_depth + 1; i++)
		d->hpos[i] = 0;
	for (i = 0; i < d->n_order; i++)
		d->hpos[depth[d->order[i]] + 1]++;
	for (i = 1; i <= max_depth + 1; i++)
		d->hpos[i] += d->hpos[i - 1];
	for (i = 0; i < d->n_order; i++) {
		n = d->hpos[depth[d->order[i]]]++;
		d->dorder[n] = d->order[i];
	}
	d->tord = d->dorder;
	d->n_tord = d->n_order;
}

/* Add (sign 1) or take out (-1) the CA ports' routes over next[]'s links. */
static void dfsp_weigh(struct dfsp *d, int sign)
{
	uint32_t i;

	for (i = 0; i < d->n_tord; i++)
		d->sub[d->tord[i]] = d->src[d->tord[i]];
	for (i = d->n_tord; i-- > 1;) {
		uint32_t x = d->tord[i], e = d->next[x];

		if (!d->sub[x])
			continue;
		if (sign > 0)
			d->w[e] += d->sub[x];
		else
			d->w[e] -= d->sub[x];
		d->lcost[e] = pow((double)d->w[e] / d->lnorm, d->lexp);
		d->sub[d->adj[e].nbr] += d->sub[x];
	}
}

/* Count (sign 1) or forget (-1) next[]'s links for the port's other LIDs. */
static void dfsp_share(struct dfsp *d, int sign)
{
	uint32_t i;

	for (i = 1; i < d->n_tord; i++)
		d->shared[d->next[d->tord[i]]] += (uint16_t)sign;
}

/* Every link's cost again (after lnorm or lexp changed). */
static void dfsp_lcost_all(struct dfsp *d)
{
	uint32_t e;

	for (e = 0; e < d->n_ch; e++)
		d->lcost[e] = pow((double)d->w[e] / d->lnorm, d->lexp);
}

/* The busiest link's routes. */
static uint64_t dfsp_busiest(const struct dfsp *d)
{
	uint64_t m = 0;
	uint32_t e;

	for (e = 0; e < d->n_ch; e++)
		if (d->w[e] > m)
			m = d->w[e];
	return m;
}

/* The weights of the CA LIDs' trees as the tables have them. */
static void dfsp_reweigh(struct dfsp *d)
{
	uint32_t t, i;

	memset(d->w, 0, (size_t)d->n_ch * sizeof(*d->w));
	for (t = 0; t < d->n_sw; t++) {
		if (!d->n_ca_lids[t])
			continue;
		dfsp_dest(d, t);
		for (i = d->lid_start[t]; i < d->lid_start[t] + d->n_ca_lids[t]; i++) {
			dfsp_tree_of(d, t, d->lid_list[i]);
			dfsp_weigh(d, 1);
		}
	}
}

/*
 * One round over the CA LIDs: each routed (round 0) or routed again with its
 * own routes taken out of the weights; detour: over any paths (Dijkstra)
 * for ports with one LID.
 */
static void dfsp_round(struct dfsp *d, bool again, bool detour)
{
	uint32_t t, i, j, k;
	bool multi;

	for (t = 0; t < d->n_sw; t++) {
		uint32_t i1 = d->lid_start[t] + d->n_ca_lids[t];

		if (!d->n_ca_lids[t])
			continue;
		dfsp_dest(d, t);
		for (i = d->lid_start[t]; i < i1; i = j) {
			uint16_t l = d->lid_list[i];

			/* one port's LIDs: i .. j - 1 */
			for (j = i + 1; j < i1 && d->map.node[d->lid_list[j]] == d->map.node[l] &&
					d->map.port[d->lid_list[j]] == d->map.port[l];
			     j++)
				;
			multi = j - i > 1;
			for (k = i; multi && again && k < j; k++) {
				dfsp_tree_of(d, t, d->lid_list[k]);
				dfsp_share(d, 1);
			}
			for (k = i; k < j; k++) {
				if (again) {
					dfsp_tree_of(d, t, d->lid_list[k]);
					dfsp_weigh(d, -1);
					if (multi)
						dfsp_share(d, -1);
				}
				if (detour && !multi)
					dfsp_dijkstra(d, t, d->lid_list[k]);
				else
					dfsp_tree(d, t, d->lid_list[k]);
				dfsp_weigh(d, 1);
				if (multi)
					dfsp_share(d, 1);
			}
			for (k = i; multi && k < j; k++) {
				dfsp_tree_of(d, t, d->lid_list[k]);
				dfsp_share(d, -1);
			}
		}
	}
}

/*
 * Route every LID: CA LIDs destination by destination, a port's LIDs one
 * after another, then (DFSP_ROUNDS times) each CA LID again with its own
 * routes taken out of the weights, then rounds over near-shortest paths
 * (as many as DFSP_DETOUR_WORK allows, at most DFSP_DETOUR_ROUNDS) while
 * they lower the busiest link; the best tables stay.  Switch LIDs last.
 * 0 or -ENOMEM.
 */
static int dfsp_route(struct dfsp *d)
{
	size_t row = (size_t)d->map.max_lid + 1;
	uint64_t best_max, m, work = (uint64_t)d->map.max_lid * d->n_ch;
	unsigned int round, n_det = 0;
	uint8_t *best = NULL;
	uint32_t t, i;

	d->lnorm = 1;
	d->lexp = 3;
	for (round = 0; round <= DFSP_ROUNDS; round++)
		dfsp_round(d, round > 0, false);
	best_max = dfsp_busiest(d);
	if (work)
		n_det = DFSP_DETOUR_WORK / work < DFSP_DETOUR_ROUNDS
			    ? (unsigned int)(DFSP_DETOUR_WORK / work)
			    : DFSP_DETOUR_ROUNDS;
	if (n_det && best_max) {
		best = malloc((size_t)d->n_sw * row);
		if (!best)
			return -ENOMEM;
		for (t = 0; t < d->n_sw; t++)
			memcpy(best + t * row, d->lft[t], row);
		d->detour = true;
		d->lexp = DFSP_EXP;
		d->hop = DFSP_HOP;
		d->slack = DFSP_SLACK;
		for (round = 0; round < n_det; round++) {
			d->lnorm = (double)best_max;
			dfsp_lcost_all(d);
			dfsp_round(d, true, true);
			m = dfsp_busiest(d);
			if (m >= best_max)
				break;
			best_max = m;
			for (t = 0; t < d->n_sw; t++)
				memcpy(best + t * row, d->lft[t], row);
		}
		if (round < n_det) { /* the last round did not help: back to the best */
			for (t = 0; t < d->n_sw; t++)
				memcpy(d->lft[t], best + t * row, row);
			dfsp_reweigh(d);
		}
		free(best);
	}
	for (t = 0; t < d->n_sw; t++) {
		uint32_t i0 = d->lid_start[t] + d->n_ca_lids[t];

		if (i0 == d->lid_start[t + 1])
			continue;
		dfsp_dest(d, t);
		for (i = i0; i < d->lid_start[t + 1]; i++)
			dfsp_tree(d, t, d->lid_list[i]);
	}
	return 0;
}

/* ---- layers ------------------------------------------------------------ */

/* Size of unit_layer: a path per (source switch, destination LID). */
static size_t dfsp_units(const struct dfsp *d)
{
	return (size_t)d->n_sw * ((size_t)d->map.max_lid + 1) + 1;
}

static int dfsp_layers_setup(struct dfsp *d)
{
	uint32_t c;

	d->dep_base = malloc(((size_t)d->n_ch + 1) * sizeof(*d->dep_base));
	if (!d->dep_base)
		return -ENOMEM;
	for (c = 0; c < d->n_ch; c++) {
		uint32_t h = d->adj[c].nbr;

		d->dep_base[c] = (uint32_t)d->n_dep;
		d->n_dep += d->adj_start[h + 1] - d->adj_start[h];
		if (d->n_dep > UINT32_MAX)
			return -ENOMEM;
	}
	d->dep_base[d->n_ch] = (uint32_t)d->n_dep;
	for (c = 0; c < d->n_sw; c++)
		if (d->lid_start[c + 1] - d->lid_start[c] > d->max_h)
			d->max_h = d->lid_start[c + 1] - d->lid_start[c];
	d->done = calloc((uint64_t)DFSP_MAX_LAYERS * d->n_sw * d->max_h / 64 + 1, sizeof(*d->done));
	d->unit_layer = calloc(dfsp_units(d), 1);
	d->stamp = calloc((size_t)d->n_ch + 1, sizeof(*d->stamp));
	d->in_b = calloc((size_t)d->n_ch + 1, sizeof(*d->in_b));
	d->stack = malloc(((size_t)d->n_ch + 1) * sizeof(*d->stack));
	d->fwd = malloc(((size_t)d->n_ch + 1) * sizeof(*d->fwd));
	d->bwd = malloc(((size_t)d->n_ch + 1) * sizeof(*d->bwd));
	d->keys = malloc(((size_t)d->n_ch * 2 + 2) * sizeof(*d->keys));
	if (!d->done || !d->unit_layer || !d->stamp || !d->in_b || !d->stack || !d->fwd ||
	    !d->bwd || !d->keys)
		return -ENOMEM;
	return 0;
}

static int dfsp_layer_new(struct dfsp *d)
{
	struct dfsp_layer *ly = &d->layer[d->n_layers];
	uint32_t c;

	/*
	 * The order starts as the one this layer had in the last pass, or as
	 * the layer below's: the searches stay short when it already fits
	 * most of the dependencies the paths bring.
	 */
	if (!ly->bits) {
		ly->bits = calloc(d->n_dep / 64 + 1, sizeof(*ly->bits));
		ly->blocked = calloc(d->n_dep / 64 + 1, sizeof(*ly->blocked));
		ly->ord = malloc(((size_t)d->n_ch + 1) * sizeof(*ly->ord));
		ly->at = malloc(((size_t)d->n_ch + 1) * sizeof(*ly->at));
		if (!ly->bits || !ly->blocked || !ly->ord || !ly->at)
			return -ENOMEM;
		for (c = 0; c < d->n_ch; c++)
			ly->ord[c] = ly->at[c] = c;
		if (d->n_layers) {
			memcpy(ly->ord, ly[-1].ord, (size_t)d->n_ch * sizeof(*ly->ord));
			memcpy(ly->at, ly[-1].at, (size_t)d->n_ch * sizeof(*ly->at));
		}
	} else {
		memset(ly->bits, 0, (d->n_dep / 64 + 1) * sizeof(*ly->bits));
		memset(ly->blocked, 0, (d->n_dep / 64 + 1) * sizeof(*ly->blocked));
	}
	d->n_layers++;
	return 0;
}

static bool dfsp_bit(const uint64_t *bits, uint64_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

static int dfsp_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Add dependency u -> v (v leaves the switch u enters) to layer ly, keeping
 * its topological order (Pearce-Kelly).  Returns false, adding nothing,
 * when it would close a cycle.
 */
static bool dfsp_dep_add(struct dfsp *d, struct dfsp_layer *ly, uint32_t u, uint32_t v)
{
	uint32_t *const ord = ly->ord, *const stamp = d->stamp;
	uint32_t lb = ord[v], ub = ord[u], n_f = 0, n_b = 0, sp, i, ep, n;
	uint64_t bit = d->dep_base[u] + (v - d->adj_start[d->adj[u].nbr]);

	d->steps++;
	if (lb > ub)
		goto add;
	if (d->capped && d->steps > DFSP_MAX_STEPS)
		return false;
	ep = ++d->epoch;
	if (!ep) { /* wrapped: clear the stamps */
		memset(stamp, 0, ((size_t)d->n_ch + 1) * sizeof(*stamp));
		memset(d->in_b, 0, ((size_t)d->n_ch + 1) * sizeof(*d->in_b));
		ep = d->epoch = 1;
	}
	/* forward from v through links ordered below u: reaching u closes a cycle */
	sp = 0;
	d->stack[sp++] = v;
	stamp[v] = ep;
	while (sp) {
		uint32_t x = d->stack[--sp], h = d->adj[x].nbr, j,
			 deg = d->adj_start[h + 1] - d->adj_start[h];

		d->fwd[n_f++] = x;
		if (++d->steps > DFSP_MAX_STEPS && d->capped)
			return false;
		for (j = 0; j < deg; j++) {
			uint32_t y = d->adj_start[h] + j;

			if (!dfsp_bit(ly->bits, (uint64_t)d->dep_base[x] + j))
				continue;
			if (y == u)
				return false;
			if (stamp[y] != ep && ord[y] < ub) {
				stamp[y] = ep;
				d->stack[sp++] = y;
			}
		}
	}
	/* backward from u through links ordered above v */
	sp = 0;
	d->stack[sp++] = u;
	stamp[u] = ep;
	while (sp) {
		uint32_t x = d->stack[--sp], t = d->tail[x], e;
		uint32_t j = x - d->adj_start[t];

		d->in_b[x] = ep;
		d->bwd[n_b++] = x;
		if (++d->steps > DFSP_MAX_STEPS && d->capped)
			return false;
		for (e = d->adj_start[t]; e < d->adj_start[t + 1]; e++) {
			uint32_t y = d->rev[e];

			if (y == DFSP_NONE || !dfsp_bit(ly->bits, (uint64_t)d->dep_base[y] + j))
				continue;
			if (stamp[y] != ep && ord[y] > lb) {
				stamp[y] = ep;
				d->stack[sp++] = y;
			}
		}
	}
	/*
	 * The backward set before the forward set, each in its old order, on
	 * the positions both held: by a scan of the positions when the sets
	 * fill the region well, else by sorting.
	 */
	n = n_b + n_f;
	if ((uint64_t)n * 16 >= (uint64_t)(ub - lb + 1)) {
		uint32_t pos, nb = 0, nf = n_b, np = 0;

		for (pos = lb; pos <= ub; pos++) {
			uint32_t c = ly->at[pos];

			if (stamp[c] != ep)
				continue;
			d->keys[np++] = pos;
			if (d->in_b[c] == ep)
				d->stack[nb++] = c;
			else
				d->stack[nf++] = c;
		}
	} else {
		for (i = 0; i < n_b; i++)
			d->keys[i] = (uint64_t)ord[d->bwd[i]] << 32 | d->bwd[i];
		qsort(d->keys, n_b, sizeof(*d->keys), dfsp_cmp_u64);
		for (i = 0; i < n_f; i++)
			d->keys[n_b + i] = (uint64_t)ord[d->fwd[i]] << 32 | d->fwd[i];
		qsort(d->keys + n_b, n_f, sizeof(*d->keys), dfsp_cmp_u64);
		for (i = 0; i < n; i++)
			d->stack[i] = (uint32_t)d->keys[i];
		for (i = 0; i < n; i++)
			d->keys[i] = d->keys[i] >> 32;
		qsort(d->keys, n, sizeof(*d->keys), dfsp_cmp_u64);
	}
	for (i = 0; i < n; i++) {
		ord[d->stack[i]] = (uint32_t)d->keys[i];
		ly->at[d->keys[i]] = d->stack[i];
	}
add:
	ly->bits[bit / 64] |= 1ULL << (bit % 64);
	return true;
}

static int dfsp_push(uint64_t **a, uint32_t *n, uint32_t *cap, uint64_t x)
{
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 1024;
		uint64_t *na = realloc(*a, (size_t)c * sizeof(*na));

		if (!na)
			return -ENOMEM;
		*a = na;
		*cap = c;
	}
	(*a)[(*n)++] = x;
	return 0;
}

static void dfsp_bit_clear(uint64_t *bits, uint64_t i)
{
	bits[i / 64] &= ~(1ULL << (i % 64));
}

static void dfsp_bit_set(uint64_t *bits, uint64_t i)
{
	bits[i / 64] |= 1ULL << (i % 64);
}

/*
 * Try the path from switch s to the LID lid_list[i] of t in layer k.  The
 * walk stops at the first switch whose path to that LID is already in the
 * layer (done, kept per destination switch).  A dependency that closes a
 * cycle with the layer's own is blocked for the rest of the pass, so the
 * next path with it fails without a search.  1 when the path fits (its new
 * dependencies stay, its switches are done), 0 when not (the layer is as it
 * was), -ENOMEM.
 */
static int dfsp_try(struct dfsp *d, unsigned int k, uint32_t s, uint32_t t, uint32_t i)
{
	struct dfsp_layer *ly = &d->layer[k];
	uint64_t row = ((uint64_t)k * d->n_sw) * d->max_h + (i - d->lid_start[t]);
	uint16_t l = d->lid_list[i];
	uint32_t x = s, prev = DFSP_NONE, hops = 0, j, n;
	int err;

	/* the new dependencies and the switches to mark, none blocked */
	d->n_added = 0;
	d->n_marked = 0;
	while (x != t && hops++ <= d->n_sw) {
		uint8_t p = d->lft[x][l];
		uint64_t mark = row + (uint64_t)x * d->max_h;
		uint32_t e;

		if (p == LFT_NO_PORT || (e = d->pch[d->pbase[x] + p]) == DFSP_NONE)
			break;
		if (prev != DFSP_NONE) {
			uint64_t bit = d->dep_base[prev] + (e - d->adj_start[x]);

			if (!dfsp_bit(ly->bits, bit)) {
				if (dfsp_bit(ly->blocked, bit))
					return 0;
				err = dfsp_push(&d->added, &d->n_added, &d->cap_added,
						(uint64_t)prev << 32 | e);
				if (err)
					return err;
			}
		}
		if (dfsp_bit(d->done, mark))
			break;
		err = dfsp_push(&d->marked, &d->n_marked, &d->cap_marked, mark);
		if (err)
			return err;
		prev = e;
		x = d->adj[e].nbr;
	}
	for (n = 0; n < d->n_added; n++) {
		uint32_t u = (uint32_t)(d->added[n] >> 32), v = (uint32_t)d->added[n];

		if (dfsp_dep_add(d, ly, u, v))
			continue;
		for (j = 0; j < n; j++) {
			uint32_t a = (uint32_t)(d->added[j] >> 32), b = (uint32_t)d->added[j];

			dfsp_bit_clear(ly->bits,
				       d->dep_base[a] + (b - d->adj_start[d->adj[a].nbr]));
		}
		/* a cycle with the layer's own alone: there will always be one */
		if (!n)
			dfsp_bit_set(ly->blocked,
				     d->dep_base[u] + (v - d->adj_start[d->adj[u].nbr]));
		return 0;
	}
	for (j = 0; j < d->n_marked; j++)
		dfsp_bit_set(d->done, d->marked[j]);
	return 1;
}

/*
 * The path from s to lid_list[i] of t into the first layer it fits; one
 * that fits in none of the limit is marked limit and the pass overflows.
 * 0 or -ENOMEM.
 */
static int dfsp_place(struct dfsp *d, uint32_t s, uint32_t t, uint32_t i)
{
	unsigned int k;
	int rc;

	for (k = 0; k < d->limit; k++) {
		if (k == d->n_layers) {
			rc = dfsp_layer_new(d);
			if (rc)
				return rc;
		}
		rc = dfsp_try(d, k, s, t, i);
		if (rc < 0)
			return rc;
		if (rc)
			break;
	}
	if (k == d->limit && d->ud_layer != DFSP_NONE) {
		d->ud[d->lid_list[i]] = 1; /* the whole LID goes up*-down* */
		return 0;
	}
	if (k == d->limit)
		d->overflow = true;
	d->unit_layer[(size_t)s * (d->map.max_lid + 1u) + d->lid_list[i]] = (uint8_t)k;
	return 0;
}

/* Layers a pass needed; limit + 1 when it overflowed. */
static unsigned int dfsp_need(const struct dfsp *d)
{
	return d->overflow ? d->limit + 1 : d->n_layers;
}

/*
 * One first-fit pass over every path: destination switch by destination
 * switch, sources in order, LIDs in order (CA LIDs only from a switch
 * without CAs: such a switch sends nothing to another switch on a data VL);
 * given prev (an earlier pass's layers, prev_need of them), the paths that
 * went highest first.  The pass stops at the first path that fits in no
 * layer (overflow).  0, -ETIME past DFSP_MAX_STEPS, -ENOMEM.
 */
static int dfsp_layer_pass(struct dfsp *d, const uint8_t *prev, unsigned int prev_need)
{
	size_t row = (size_t)d->map.max_lid + 1;
	uint32_t s, t, i;
	unsigned int k;
	int rc;

	d->n_layers = 0;
	d->overflow = false;
	rc = dfsp_layer_new(d);
	for (k = prev ? prev_need : 1; !rc && k-- > 0;)
		for (t = 0; t < d->n_sw && !rc; t++) {
			uint32_t i0 = d->lid_start[t], i_ca = i0 + d->n_ca_lids[t];

			if (i0 == d->lid_start[t + 1])
				continue;
			/* done marks are per destination switch */
			memset(d->done, 0,
			       ((uint64_t)d->limit * d->n_sw * d->max_h / 64 + 1) *
				   sizeof(*d->done));
			for (s = 0; s < d->n_sw && !rc; s++) {
				uint32_t i1 = d->src[s] ? d->lid_start[t + 1] : i_ca;

				if (s == t)
					continue;
				for (i = i0; i < i1 && !rc; i++) {
					if (prev && prev[s * row + d->lid_list[i]] != k)
						continue;
					if (d->ud && d->ud[d->lid_list[i]])
						continue;
					rc = dfsp_place(d, s, t, i);
					if (!rc && d->overflow)
						return 0;
					if (!rc && d->steps > DFSP_MAX_STEPS && !d->capped)
						rc = -ETIME;
				}
			}
		}
	return rc;
}

/*
 * Every path into the first layer it fits, then again with the paths that
 * went highest first (those of a pass that overflowed before all) while
 * that needs fewer layers, DFSP_PASSES passes at most; the best pass's
 * layers stay (d->overflow when none fit).  0, -ETIME when the first pass
 * takes more than DFSP_MAX_STEPS (a later one that does is dropped),
 * -ENOMEM.
 */
static int dfsp_layer_all(struct dfsp *d)
{
	size_t n = dfsp_units(d);
	unsigned int best, pass;
	uint8_t *prev;
	int rc;

	rc = dfsp_layers_setup(d);
	if (!rc)
		rc = dfsp_layer_pass(d, NULL, 0);
	if (rc || dfsp_need(d) <= 1)
		return rc;
	prev = malloc(n);
	if (!prev)
		return -ENOMEM;
	best = dfsp_need(d);
	for (pass = 1; pass < DFSP_PASSES; pass++) {
		memcpy(prev, d->unit_layer, n);
		rc = dfsp_layer_pass(d, prev, best);
		if (rc || (dfsp_need(d) >= best && best <= d->limit))
			break;
		best = dfsp_need(d) < best ? dfsp_need(d) : best;
	}
	if (rc == -ETIME || (!rc && dfsp_need(d) > best)) {
		memcpy(d->unit_layer, prev, n);
		d->overflow = best > d->limit;
		d->n_layers = d->overflow ? d->limit : best;
		rc = 0;
	}
	free(prev);
	return rc;
}

/* ---- the up*-down* layer ---------------------------------------------- */

/* BFS hops from x over switch links into dist (DFSP_NONE: not reached); the farthest. */
static uint32_t dfsp_bfs(struct dfsp *d, uint32_t x, uint32_t *dist, uint32_t *queue,
			 uint32_t *ret_n)
{
	uint32_t head = 0, tail = 0, e, far = 0;

	dist[x] = 0;
	queue[tail++] = x;
	while (head < tail) {
		uint32_t y = queue[head++];

		if (dist[y] > far)
			far = dist[y];
		for (e = d->adj_start[y]; e < d->adj_start[y + 1]; e++)
			if (dist[d->adj[e].nbr] == DFSP_NONE) {
				dist[d->adj[e].nbr] = dist[y] + 1;
				queue[tail++] = d->adj[e].nbr;
			}
	}
	*ret_n = tail;
	return far;
}

/*
 * Up*-down* ranks of layer j: per connected component, BFS hops from its
 * root j.  Root 0 is the switch nearest to all others (smallest
 * eccentricity, then lowest index); root j > 0, among the switches at most
 * one hop less central, the farthest from the roots before it, so that the
 * up*-down* layers do not all crowd the same switches.  Switches are
 * ordered by (rank, index); a hop to a higher one is down.  0 or -ENOMEM.
 */
static int dfsp_ranks(struct dfsp *d, unsigned int n_ud)
{
	uint32_t n = d->n_sw, x, i, n_comp, c, *tmp, *queue, *members, *ecc, *mind;
	unsigned int j;
	int err = -ENOMEM;

	tmp = malloc(((size_t)n + 1) * sizeof(*tmp));
	queue = malloc(((size_t)n + 1) * sizeof(*queue));
	members = malloc(((size_t)n + 1) * sizeof(*members));
	ecc = malloc(((size_t)n + 1) * sizeof(*ecc));
	mind = malloc(((size_t)n + 1) * sizeof(*mind));
	if (!tmp || !queue || !members || !ecc || !mind)
		goto out;
	for (j = 0; j < n_ud; j++) {
		d->ranks[j] = malloc(((size_t)n + 1) * sizeof(*d->ranks[j]));
		d->ud_orders[j] = malloc(((size_t)n + 1) * sizeof(*d->ud_orders[j]));
		if (!d->ranks[j] || !d->ud_orders[j])
			goto out;
		for (x = 0; x < n; x++)
			d->ranks[j][x] = DFSP_NONE;
	}
	for (x = 0; x < n; x++)
		tmp[x] = DFSP_NONE;
	for (x = 0; x < n; x++) {
		uint32_t best_ecc = DFSP_NONE;

		if (d->ranks[0][x] != DFSP_NONE)
			continue;
		dfsp_bfs(d, x, tmp, queue, &n_comp);
		memcpy(members, queue, (size_t)n_comp * sizeof(*members));
		for (i = 0; i < n_comp; i++) {
			uint32_t k;

			for (k = 0; k < n_comp; k++)
				tmp[members[k]] = DFSP_NONE;
			ecc[members[i]] = dfsp_bfs(d, members[i], tmp, queue, &c);
			if (ecc[members[i]] < best_ecc)
				best_ecc = ecc[members[i]];
			mind[members[i]] = DFSP_NONE;
		}
		for (j = 0; j < n_ud; j++) {
			uint32_t root = DFSP_NONE;

			for (i = 0; i < n_comp; i++) {
				uint32_t y = members[i];

				if (ecc[y] > best_ecc + (j ? 1 : 0))
					continue;
				if (root == DFSP_NONE || mind[y] > mind[root] ||
				    (mind[y] == mind[root] && ecc[y] < ecc[root]) ||
				    (mind[y] == mind[root] && ecc[y] == ecc[root] && y < root))
					root = y;
			}
			for (i = 0; i < n_comp; i++)
				tmp[members[i]] = DFSP_NONE;
			dfsp_bfs(d, root, tmp, queue, &c);
			for (i = 0; i < n_comp; i++) {
				d->ranks[j][members[i]] = tmp[members[i]];
				if (tmp[members[i]] < mind[members[i]])
					mind[members[i]] = tmp[members[i]];
			}
		}
		for (i = 0; i < n_comp; i++)
			tmp[members[i]] = DFSP_NONE;
	}
	/* (rank, index) orders: counting sort by rank, stable in index */
	for (j = 0; j < n_ud; j++) {
		memset(tmp, 0, ((size_t)n + 1) * sizeof(*tmp));
		for (x = 0; x < n; x++)
			tmp[d->ranks[j][x] + 1]++;
		for (x = 1; x <= n; x++)
			tmp[x] += tmp[x - 1];
		for (x = 0; x < n; x++)
			d->ud_orders[j][tmp[d->ranks[j][x]]++] = x;
	}
	err = 0;
out:
	free(tmp);
	free(queue);
	free(members);
	free(ecc);
	free(mind);
	return err;
}

static bool dfsp_down(const struct dfsp *d, uint32_t from, uint32_t to)
{
	return d->rank[to] > d->rank[from] || (d->rank[to] == d->rank[from] && to > from);
}

/*
 * The lightest up*-down* tree towards LID l on t (dfsp_dest(t) done), as
 * updn.c routes (a switch with an all-down path takes its shortest, any
 * other goes up towards the switches that have one), choosing among the
 * ports that achieve it by the links' costs as dfsp_tree does.
 */
static void dfsp_ud_tree(struct dfsp *d, uint32_t t, uint16_t l)
{
	uint32_t *const dn = d->ud_dn, *const a = d->ud_a, *const q = d->dorder;
	uint32_t head = 0, tail = 0, i, e, max_a = 0, n = 0;

	for (i = 0; i < d->n_sw; i++)
		dn[i] = a[i] = DFSP_NONE;
	/* all-down hops to t: backwards from t over links taken downwards */
	dn[t] = 0;
	q[tail++] = t;
	while (head < tail) {
		uint32_t z = q[head++];

		for (e = d->adj_start[z]; e < d->adj_start[z + 1]; e++) {
			uint32_t y = d->adj[e].nbr;

			if (dn[y] == DFSP_NONE && dfsp_down(d, y, z)) {
				dn[y] = dn[z] + 1;
				q[tail++] = y;
			}
		}
	}
	/* the rest go up: in (rank, index) order, their up neighbours come first */
	for (i = 0; i < d->n_sw; i++) {
		uint32_t y = d->ud_order[i];

		if (d->dist[y] == DFSP_NONE || dn[y] != DFSP_NONE) {
			a[y] = dn[y];
			continue;
		}
		for (e = d->adj_start[y]; e < d->adj_start[y + 1]; e++) {
			uint32_t u = d->adj[e].nbr;

			if (!dfsp_down(d, y, u) && a[u] != DFSP_NONE && a[u] + 1 < a[y])
				a[y] = a[u] + 1;
		}
	}
	for (i = 0; i < d->n_order; i++)
		if (a[d->order[i]] != DFSP_NONE && a[d->order[i]] > max_a)
			max_a = a[d->order[i]];
	/* order by hops (counting sort), then the lightest port that achieves them */
	for (i = 0; i <= max_a + 1; i++)
		d->hpos[i] = 0;
	for (i = 0; i < d->n_order; i++)
		if (a[d->order[i]] != DFSP_NONE)
			d->hpos[a[d->order[i]] + 1]++;
	for (i = 1; i <= max_a + 1; i++)
		d->hpos[i] += d->hpos[i - 1];
	for (i = 0; i < d->n_order; i++)
		if (a[d->order[i]] != DFSP_NONE)
			q[d->hpos[a[d->order[i]]]++] = d->order[i];
	n = d->hpos[max_a];
	d->cost[t] = 0;
	d->next[t] = DFSP_NONE;
	d->lft[t][l] = d->tgt_port[l];
	for (i = 1; i < n; i++) {
		uint32_t y = q[i], best = DFSP_NONE;
		double best_c = 0;

		for (e = d->adj_start[y]; e < d->adj_start[y + 1]; e++) {
			uint32_t z = d->adj[e].nbr;
			bool ok = dn[y] != DFSP_NONE ? dfsp_down(d, y, z) && dn[z] + 1 == dn[y]
						     : !dfsp_down(d, y, z) && a[z] + 1 == a[y];
			double c;

			if (!ok)
				continue;
			c = d->lcost[e] + d->cost[z];
			if (best == DFSP_NONE || c < best_c) {
				best = e;
				best_c = c;
			}
		}
		d->cost[y] = best_c;
		d->next[y] = best;
		d->lft[y][l] = d->adj[best].port;
	}
	d->tord = q;
	d->n_tord = n;
}

/*
 * The fallback when the paths need more layers than the VLs allow (or the
 * first-fit layering takes more than DFSP_MAX_STEPS): paths first-fit on
 * layers 0 .. allowed - 2 with the cycle searches capped at DFSP_MAX_STEPS
 * (past it a dependency against a layer's order is refused, which is always
 * safe), and every LID one of whose paths fits none is routed again,
 * whole, over an up*-down* tree on the last layer: up*-down* paths have no
 * cycle among themselves (Autonet), so that layer needs no search.
 * 0 or -ENOMEM.
 */
static int dfsp_layer_fallback(struct dfsp *d, unsigned int allowed)
{
	size_t row = (size_t)d->map.max_lid + 1;
	unsigned int j, best_j = 0;
	double best_c = 0;
	uint32_t t, i, s, k;
	int rc;

	d->ud = calloc(row, sizeof(*d->ud));
	d->ud_a = malloc(((size_t)d->n_sw + 1) * sizeof(*d->ud_a));
	d->ud_dn = malloc(((size_t)d->n_sw + 1) * sizeof(*d->ud_dn));
	if (!d->ud || !d->ud_a || !d->ud_dn)
		return -ENOMEM;
	d->n_udl = (allowed + 1) / 2;
	rc = dfsp_ranks(d, d->n_udl);
	if (rc)
		return rc;
	d->limit = allowed - d->n_udl;
	d->ud_layer = d->limit;
	d->capped = true;
	d->steps = 0;
	memset(d->unit_layer, 0, dfsp_units(d));
	rc = dfsp_layer_pass(d, NULL, 0);
	if (rc)
		return rc;
	d->n_ud = 0;
	for (t = 0; t < d->n_sw; t++) {
		bool any = false;

		for (i = d->lid_start[t]; i < d->lid_start[t + 1]; i++)
			any |= d->ud[d->lid_list[i]];
		if (!any)
			continue;
		dfsp_dest(d, t);
		for (i = d->lid_start[t]; i < d->lid_start[t + 1]; i++) {
			uint16_t l = d->lid_list[i];
			bool ca = i < d->lid_start[t] + d->n_ca_lids[t];

			if (!d->ud[l])
				continue;
			d->n_ud++;
			if (ca) {
				dfsp_tree_of(d, t, l);
				dfsp_weigh(d, -1);
			}
			/* the up*-down* layer whose lightest tree is lightest */
			for (j = 0; j < d->n_udl; j++) {
				double c = 0;

				d->rank = d->ranks[j];
				d->ud_order = d->ud_orders[j];
				dfsp_ud_tree(d, t, l);
				for (k = 1; k < d->n_tord; k++)
					c += (double)(d->src[d->tord[k]] + 1) * d->cost[d->tord[k]];
				if (!j || c < best_c) {
					best_c = c;
					best_j = j;
				}
			}
			if (best_j != d->n_udl - 1) {
				d->rank = d->ranks[best_j];
				d->ud_order = d->ud_orders[best_j];
				dfsp_ud_tree(d, t, l);
			}
			if (ca)
				dfsp_weigh(d, 1);
			for (s = 0; s < d->n_sw; s++)
				d->unit_layer[s * row + l] = (uint8_t)(d->ud_layer + best_j);
		}
	}
	if (d->n_ud)
		d->n_layers = allowed;
	return 0;
}

/* Path SLs by destination LID and SL2VL tables (only when more than one layer is used). */
static int dfsp_vls(struct dfsp *d, struct routes *r)
{
	const struct fabric *f = d->f;
	size_t row = (size_t)d->map.max_lid + 1;
	uint32_t s, e;
	unsigned int sl;
	int err;

	if (d->n_layers <= 1)
		return 0;
	err = routes_alloc_vls(r, f, (uint8_t)d->n_layers);
	if (!err)
		err = routes_alloc_lid_sl(r);
	if (err)
		return err;
	for (s = 0; s < d->n_sw; s++) {
		uint8_t *t2v = r->sl2vl[d->sw_node[s]];

		memcpy(&r->lid_sl[(size_t)r->sw_index[d->sw_node[s]] * row],
		       &d->unit_layer[s * row], row);
		for (e = d->adj_start[s]; e < d->adj_start[s + 1]; e++)
			for (sl = 0; sl < ROUTES_MAX_SL; sl++)
				t2v[d->adj[e].port * ROUTES_MAX_SL + sl] =
				    sl < d->n_layers ? (uint8_t)sl : 0;
	}
	return 0;
}

int dfsp_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len)
{
	struct dfsp d = {0};
	struct routes *r = NULL;
	uint32_t s, lim_node;
	uint64_t work;
	unsigned int offered, allowed;
	uint8_t lim_port;
	bool by_opts;
	int err;

	err = dfsp_setup(&d, f, why, why_len);
	if (err)
		goto out;
	work = (uint64_t)d.map.max_lid * (d.n_ch ? d.n_ch : 1);
	if (work > DFSP_MAX_WORK) {
		routing_why(why, why_len,
			    "%u LIDs x %" PRIu32 " switch links is more than dfsp routes in "
			    "seconds (%llu)",
			    d.map.max_lid, d.n_ch, DFSP_MAX_WORK);
		err = -ENOTSUP;
		goto out;
	}
	offered = dfsp_vls_offered(&d, &lim_node, &lim_port);
	by_opts = o && o->max_vls && o->max_vls < offered;
	allowed = by_opts ? o->max_vls : offered;
	/*
	 * Layered as if every port had all 15 data VLs, then checked against
	 * what is allowed: a pass that stopped at the limit would order the
	 * next one differently, and the answer must not depend on the limit
	 * (whatever fits unconstrained fits any limit at least that large).
	 */
	d.limit = DFSP_MAX_LAYERS;
	err = -ENOMEM;
	r = routes_new(f, d.map.max_lid);
	if (!r)
		goto out;
	for (s = 0; s < d.n_sw; s++)
		d.lft[s] = r->lft[d.sw_node[s]];
	d.ud_layer = DFSP_NONE;
	err = dfsp_route(&d);
	if (!err)
		err = dfsp_layer_all(&d);
	if ((err == -ETIME || (!err && (d.overflow || d.n_layers > allowed))) && allowed >= 2)
		err = dfsp_layer_fallback(&d, allowed);
	if (err == -ETIME) {
		routing_why(why, why_len,
			    "laying %" PRIu32
			    " switches' paths to %u LIDs onto VLs takes more than "
			    "%llu search steps",
			    d.n_sw, d.map.max_lid, DFSP_MAX_STEPS);
		err = -ENOTSUP;
	}
	if (err)
		goto out;
	if (d.overflow) {
		routing_why(why, why_len,
			    "the paths need more than %u VLs to be free of credit loops",
			    DFSP_MAX_LAYERS);
		err = -ENOTSUP;
		goto out;
	}
	if (d.n_layers > allowed && by_opts) {
		routing_why(
		    why, why_len,
		    "the paths need %u VLs to be free of credit loops (2 with the up*-down* "
		    "fallback), max_vls allows %u",
		    d.n_layers, allowed);
		err = -ENOTSUP;
		goto out;
	}
	if (d.n_layers > allowed) {
		routing_why(
		    why, why_len,
		    "the paths need %u VLs to be free of credit loops (2 with the up*-down* "
		    "fallback), switch 0x%016" PRIx64 " port %u offers %u",
		    d.n_layers, f->nodes[lim_node].guid, lim_port, allowed);
		err = -ENOTSUP;
		goto out;
	}
	err = dfsp_vls(&d, r);
	if (err)
		goto out;
	*ret = r;
	r = NULL;
out:
	routes_free(r);
	dfsp_clear(&d);
	return err;
}

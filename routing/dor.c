/*
 * Dimension-order routing (DOR) on meshes and tori, with path SLs and
 * SL-to-VL tables that make it free of credit loops on a torus.  IBA 1.4
 * vol 1: 18.2.4.3.2 (linear forwarding tables), 14.2.5.8 (SLtoVLMappingTable).
 *
 * Shape, without coordinates given by hand: the switch graph (CAs ignored,
 * parallel links collapsed) must be a Cartesian product of paths and rings.
 * From a switch of least degree (lowest GUID among them: a corner of a mesh)
 * each neighbour, in GUID order, starts a line: walk straight on, where the
 * step prev -> cur -> next is straight when prev and next have no common
 * neighbour but cur (turning into another dimension always closes a square).
 * A line that comes back to the start is a ring.  Every other switch gets its
 * coordinates by completing a square: the switch at c is the second common
 * neighbour of the switches at c - e_i and c - e_j.  Then every link must
 * join grid neighbours and the link count must be the grid's, so whatever is
 * accepted is the grid.  A ring of 4 switches is also a 2x2 mesh and is found
 * as such (the factorisation into paths and rings is unique only with that
 * choice), so a 4x4 torus is routed as a 4-cube, which needs no second VL.
 *
 * Routes: correct dimension 0, then 1, then 2, ...; on a ring the shorter
 * way round, + on a tie.  Parallel links to the next switch share the LIDs
 * (fewest LIDs so far, lowest port on a tie), LIDs in increasing order.
 *
 * Credit loops, by Dally and Seitz's dateline: in ring dimension d the link
 * between coordinates size - 1 and 0 is the dateline.  A path whose
 * dimension-d segment crosses it gets SL bit w(d) (w numbers the ring
 * dimensions); a switch port in dimension d maps an SL to VL = bit w(d) of
 * the SL, every other port and every CA maps all SLs to VL0.  Dimension order
 * makes dependencies go from lower to higher dimensions only; within a ring
 * no VL0 segment uses the dateline, and every VL1 segment contains it and is
 * at most size/2 hops long, so neither closes a cycle around the ring.  A
 * mesh needs one VL and gets no VL tables; a torus is refused when the
 * caller allows a single VL (routing_opts.max_vls 1).
 *
 * OpenSM's dor is min-hop preferring low port numbers (it trusts the cabling)
 * and has no VL scheme; its torus-2QoS takes the axes by hand.  Here the
 * coordinates are inferred and the VL scheme comes with the routes.
 * Pure: no I/O, no globals.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/dor.h"
#include "routing/routing.h"

#define DOR_MAX_DEGREE 6 /* 2 per dimension of a 3-D torus */
#define DOR_MAX_NOMINAL_DIMS 3
#define DOR_NONE FABRIC_NO_NODE /* as routing_switch_index() leaves it */

_Static_assert(DOR_MAX_DEGREE <= DOR_MAX_DIMS, "a line per neighbour of the start");

/* Switches by rank (GUID order), their simple switch graph and the grid. */
struct dor_grid {
	const struct fabric *f;
	uint32_t n_sw;
	uint32_t *node; /* rank -> node index */
	uint32_t *rank; /* node index -> rank, DOR_NONE for non-switches */
	uint32_t *adj;	/* rank * DOR_MAX_DEGREE + i, ascending ranks */
	uint8_t *deg;
	struct dor_shape shape;
	uint32_t stride[DOR_MAX_DIMS];
	uint32_t *cell;	 /* grid index -> rank */
	uint32_t *coord; /* rank * DOR_MAX_DIMS + d */
};

static uint64_t dor_guid(const struct dor_grid *g, uint32_t rank)
{
	return g->f->nodes[g->node[rank]].guid;
}

static void dor_grid_clear(struct dor_grid *g)
{
	free(g->node);
	free(g->rank);
	free(g->adj);
	free(g->deg);
	free(g->cell);
	free(g->coord);
	memset(g, 0, sizeof(*g));
}

static bool dor_adjacent(const struct dor_grid *g, uint32_t a, uint32_t b)
{
	unsigned int i;

	for (i = 0; i < g->deg[a]; i++)
		if (g->adj[a * DOR_MAX_DEGREE + i] == b)
			return true;
	return false;
}

/* Common neighbours of a and b other than skip, up to 2 in ret[]; count. */
static unsigned int dor_common(const struct dor_grid *g, uint32_t a, uint32_t b, uint32_t skip,
			       uint32_t ret[2])
{
	unsigned int i, n = 0;

	for (i = 0; i < g->deg[a]; i++) {
		uint32_t w = g->adj[a * DOR_MAX_DEGREE + i];

		if (w == skip || !dor_adjacent(g, b, w))
			continue;
		if (n < 2)
			ret[n] = w;
		n++;
	}
	return n;
}

/* Ranks, and the simple switch graph; -ENOTSUP past DOR_MAX_DEGREE. */
static int dor_graph(struct dor_grid *g, char *why, size_t why_len)
{
	const struct fabric *f = g->f;
	uint32_t r;
	unsigned int p, k;
	int err;

	err = routing_switch_index(f, &g->node, &g->rank, &g->n_sw);
	if (err)
		return err;

	g->adj = malloc(((size_t)g->n_sw + 1) * DOR_MAX_DEGREE * sizeof(*g->adj));
	g->deg = calloc((size_t)g->n_sw + 1, 1);
	if (!g->adj || !g->deg)
		return -ENOMEM;
	for (r = 0; r < g->n_sw; r++) {
		const struct node *n = &f->nodes[g->node[r]];
		uint32_t *a = &g->adj[r * DOR_MAX_DEGREE];
		unsigned int distinct = 0;

		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node, v;

			if (rn >= f->n_nodes || g->rank[rn] == DOR_NONE || rn == g->node[r])
				continue;
			v = g->rank[rn];
			for (k = 0; k < distinct && k < DOR_MAX_DEGREE && a[k] != v; k++)
				;
			if (k < distinct)
				continue;
			if (++distinct > DOR_MAX_DEGREE)
				continue; /* counted for the message only */
			/* insertion, ascending */
			for (k = distinct - 1; k > 0 && a[k - 1] > v; k--)
				a[k] = a[k - 1];
			a[k] = v;
		}
		if (distinct > DOR_MAX_DEGREE) {
			routing_why(why, why_len,
				    "switch 0x%016" PRIx64 " has more than %u switch neighbours: "
				    "not a mesh or torus of up to %u dimensions",
				    n->guid, DOR_MAX_DEGREE, DOR_MAX_NOMINAL_DIMS);
			return -ENOTSUP;
		}
		g->deg[r] = (uint8_t)distinct;
	}
	return 0;
}

/* -ENOTSUP unless every switch is reachable from rank 0 over switches. */
static int dor_connected(const struct dor_grid *g, char *why, size_t why_len)
{
	uint32_t *queue, head = 0, tail = 0, r;
	uint8_t *seen;
	int err = 0;

	if (g->n_sw < 2)
		return 0;
	queue = malloc((size_t)g->n_sw * sizeof(*queue));
	seen = calloc(g->n_sw, 1);
	if (!queue || !seen) {
		err = -ENOMEM;
		goto out_free;
	}
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t u = queue[head++];
		unsigned int i;

		for (i = 0; i < g->deg[u]; i++) {
			uint32_t v = g->adj[u * DOR_MAX_DEGREE + i];

			if (!seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	for (r = 0; r < g->n_sw; r++) {
		if (!seen[r]) {
			routing_why(why, why_len,
				    "switch 0x%016" PRIx64
				    " is not connected to switch 0x%016" PRIx64 " over switches",
				    dor_guid(g, r), dor_guid(g, 0));
			err = -ENOTSUP;
			break;
		}
	}
out_free:
	free(seen);
	free(queue);
	return err;
}

/*
 * Walk the line that leaves s through u: line[0] = s, line[1] = u, ...
 * Sets *ret_len and *ret_ring (the walk came back to s).
 */
static int dor_walk(const struct dor_grid *g, uint32_t s, uint32_t u, uint32_t *line,
		    uint8_t *on_line, uint32_t *ret_len, bool *ret_ring, char *why, size_t why_len)
{
	uint32_t prev = s, cur = u, len = 2, i, scratch[2];
	bool ring = false;
	int err = 0;

	line[0] = s;
	line[1] = u;
	on_line[s] = on_line[u] = 1;
	for (;;) {
		uint32_t next = DOR_NONE;
		unsigned int k, found = 0;

		for (k = 0; k < g->deg[cur]; k++) {
			uint32_t w = g->adj[cur * DOR_MAX_DEGREE + k];

			if (w == prev || dor_common(g, prev, w, cur, scratch))
				continue;
			if (!found++)
				next = w;
		}
		if (!found)
			break;
		if (found > 1) {
			routing_why(why, why_len,
				    "switch 0x%016" PRIx64
				    ": %u ways straight on from switch 0x%016" PRIx64
				    ": not a mesh or torus",
				    dor_guid(g, cur), found, dor_guid(g, prev));
			err = -ENOTSUP;
			goto out;
		}
		if (next == s) {
			ring = true;
			break;
		}
		if (on_line[next]) {
			routing_why(why, why_len,
				    "the line from switch 0x%016" PRIx64 " through 0x%016" PRIx64
				    " runs into itself at 0x%016" PRIx64 ": not a mesh or torus",
				    dor_guid(g, s), dor_guid(g, u), dor_guid(g, next));
			err = -ENOTSUP;
			goto out;
		}
		on_line[next] = 1;
		line[len++] = next;
		prev = cur;
		cur = next;
	}
	*ret_len = len;
	*ret_ring = ring;
out:
	for (i = 0; i < len; i++)
		on_line[line[i]] = 0;
	return err;
}

static void dor_shape_str(const struct dor_shape *sh, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int d;

	buf[0] = '\0';
	for (d = 0; d < sh->dims && o < len; d++) {
		int n = snprintf(buf + o, len - o, "%s%" PRIu32 "%s", d ? "x" : "", sh->size[d],
				 sh->wrap[d] ? "(ring)" : "");
		if (n < 0)
			break;
		o += (size_t)n;
	}
	if (!sh->dims)
		snprintf(buf, len, "1");
}

/* Lines from the start switch: dimensions, sizes, and the axes' switches. */
static int dor_lines(struct dor_grid *g, uint32_t **lines, char *why, size_t why_len)
{
	struct dor_shape *sh = &g->shape;
	uint32_t s = 0, r, used[DOR_MAX_DEGREE], n_used = 0;
	uint8_t *on_line;
	unsigned int i, k;
	int err = 0;

	for (r = 1; r < g->n_sw; r++)
		if (g->deg[r] < g->deg[s])
			s = r;
	sh->origin = dor_guid(g, s);
	on_line = calloc((size_t)g->n_sw + 1, 1);
	if (!on_line)
		return -ENOMEM;
	for (i = 0; i < g->deg[s]; i++) {
		uint32_t u = g->adj[s * DOR_MAX_DEGREE + i], len = 0;
		unsigned int d = sh->dims;
		bool ring = false;

		for (k = 0; k < n_used && used[k] != u; k++)
			;
		if (k < n_used)
			continue;
		/* deg[s] <= DOR_MAX_DEGREE = DOR_MAX_DIMS and each line takes one */
		lines[d] = malloc((size_t)g->n_sw * sizeof(**lines));
		if (!lines[d]) {
			err = -ENOMEM;
			goto out_free;
		}
		err = dor_walk(g, s, u, lines[d], on_line, &len, &ring, why, why_len);
		if (err)
			goto out_free;
		used[n_used++] = u;
		for (k = 0; ring && k < n_used && used[k] != lines[d][len - 1]; k++)
			;
		if (ring && k == n_used && n_used < DOR_MAX_DEGREE)
			used[n_used++] = lines[d][len - 1];
		sh->size[d] = len;
		sh->wrap[d] = ring;
		sh->dims++;
	}
out_free:
	free(on_line);
	return err;
}

/* Coordinates of every switch by completing squares; then the links. */
static int dor_fill(struct dor_grid *g, uint32_t **lines, char *why, size_t why_len)
{
	struct dor_shape *sh = &g->shape;
	uint64_t prod = 1, links = 0, want = 0;
	uint8_t *placed = NULL;
	uint32_t idx, r, c[DOR_MAX_DIMS];
	unsigned int d, i, nominal = 0, twos = 0;
	char shape[96];
	int err = 0;

	for (d = 0; d < sh->dims; d++) {
		g->stride[d] = (uint32_t)prod;
		prod *= sh->size[d];
		if (prod > g->n_sw)
			break;
	}
	if (prod != g->n_sw) {
		dor_shape_str(sh, shape, sizeof(shape));
		routing_why(why, why_len,
			    "the lines from switch 0x%016" PRIx64
			    " span a %s grid, not the %" PRIu32
			    " switches of the fabric: not a mesh or torus",
			    sh->origin, shape, g->n_sw);
		return -ENOTSUP;
	}
	g->cell = malloc(((size_t)g->n_sw + 1) * sizeof(*g->cell));
	g->coord = calloc(((size_t)g->n_sw + 1) * DOR_MAX_DIMS, sizeof(*g->coord));
	placed = calloc((size_t)g->n_sw + 1, 1);
	if (!g->cell || !g->coord || !placed) {
		err = -ENOMEM;
		goto out_free;
	}
	memset(c, 0, sizeof(c));
	for (idx = 0; idx < g->n_sw; idx++) {
		unsigned int nz = 0, first = 0, last = 0;
		uint32_t w, two[2];

		for (d = 0; d < sh->dims; d++) {
			if (!c[d])
				continue;
			if (!nz++)
				first = d;
			last = d;
		}
		if (nz == 0) {
			w = lines[0] ? lines[0][0] : 0;
		} else if (nz == 1) {
			w = lines[first][c[first]];
		} else {
			uint32_t a = g->cell[idx - g->stride[first]];
			uint32_t b = g->cell[idx - g->stride[last]];
			uint32_t base = g->cell[idx - g->stride[first] - g->stride[last]];

			if (dor_common(g, a, b, base, two) != 1) {
				routing_why(why, why_len,
					    "switches 0x%016" PRIx64 " and 0x%016" PRIx64
					    " do not close a single square: not a mesh or torus",
					    dor_guid(g, a), dor_guid(g, b));
				err = -ENOTSUP;
				goto out_free;
			}
			w = two[0];
		}
		if (placed[w]) {
			routing_why(why, why_len,
				    "switch 0x%016" PRIx64
				    " falls on two grid points: not a mesh or torus",
				    dor_guid(g, w));
			err = -ENOTSUP;
			goto out_free;
		}
		placed[w] = 1;
		g->cell[idx] = w;
		memcpy(&g->coord[(size_t)w * DOR_MAX_DIMS], c, sizeof(c));
		for (d = 0; d < sh->dims && ++c[d] == sh->size[d]; d++)
			c[d] = 0;
	}

	/* every link joins grid neighbours, and the grid has no more links */
	for (r = 0; r < g->n_sw; r++) {
		const uint32_t *cr = &g->coord[(size_t)r * DOR_MAX_DIMS];

		for (i = 0; i < g->deg[r]; i++) {
			uint32_t v = g->adj[r * DOR_MAX_DEGREE + i];
			const uint32_t *cv = &g->coord[(size_t)v * DOR_MAX_DIMS];
			unsigned int diff = 0, ok = 0;

			if (v < r)
				continue;
			links++;
			for (d = 0; d < sh->dims; d++) {
				uint32_t delta = cr[d] > cv[d] ? cr[d] - cv[d] : cv[d] - cr[d];

				if (!delta)
					continue;
				diff++;
				if (delta == 1 || (sh->wrap[d] && delta == sh->size[d] - 1))
					ok++;
			}
			if (diff != 1 || ok != 1) {
				routing_why(why, why_len,
					    "the link between switches 0x%016" PRIx64
					    " and 0x%016" PRIx64
					    " is not between grid neighbours: not a mesh or torus",
					    dor_guid(g, r), dor_guid(g, v));
				err = -ENOTSUP;
				goto out_free;
			}
		}
	}
	for (d = 0; d < sh->dims; d++) {
		want += (uint64_t)(g->n_sw / sh->size[d]) *
			(sh->wrap[d] ? sh->size[d] : sh->size[d] - 1);
		if (sh->size[d] == 2)
			twos++;
		else
			nominal++;
	}
	dor_shape_str(sh, shape, sizeof(shape));
	if (links != want) {
		routing_why(why, why_len,
			    "the switches form a %s grid with %" PRIu64 " of its %" PRIu64
			    " links: not a mesh or torus",
			    shape, links, want);
		err = -ENOTSUP;
		goto out_free;
	}
	/* two dimensions of size 2 make one ring of 4 */
	nominal += (twos + 1) / 2;
	if (nominal > DOR_MAX_NOMINAL_DIMS) {
		routing_why(why, why_len, "the switches form a %s grid: more than %u dimensions",
			    shape, DOR_MAX_NOMINAL_DIMS);
		err = -ENOTSUP;
	}
out_free:
	free(placed);
	return err;
}

static int dor_grid_build(struct dor_grid *g, const struct fabric *f, char *why, size_t why_len)
{
	uint32_t *lines[DOR_MAX_DIMS] = {NULL};
	unsigned int d;
	int err;

	memset(g, 0, sizeof(*g));
	g->f = f;
	err = dor_graph(g, why, why_len);
	if (!err)
		err = dor_connected(g, why, why_len);
	if (!err && g->n_sw) {
		err = dor_lines(g, lines, why, why_len);
		if (!err)
			err = dor_fill(g, lines, why, why_len);
	}
	for (d = 0; d < DOR_MAX_DIMS; d++)
		free(lines[d]);
	return err;
}

int dor_coords(const struct fabric *f, struct dor_shape *ret_shape, uint32_t *ret_coord, char *why,
	       size_t why_len)
{
	struct dor_grid g;
	uint32_t r;
	int err;

	err = dor_grid_build(&g, f, why, why_len);
	if (!err) {
		for (r = 0; r < g.n_sw; r++)
			memcpy(&ret_coord[(size_t)g.node[r] * DOR_MAX_DIMS],
			       &g.coord[(size_t)r * DOR_MAX_DIMS],
			       DOR_MAX_DIMS * sizeof(*ret_coord));
		*ret_shape = g.shape;
	}
	dor_grid_clear(&g);
	return err;
}

/*
 * The first dimension where a and b differ (DOR_MAX_DIMS when none) and the
 * direction to take in it: +1 or -1.
 */
static unsigned int dor_step(const struct dor_grid *g, uint32_t a, uint32_t b, int *ret_dir)
{
	const uint32_t *ca = &g->coord[(size_t)a * DOR_MAX_DIMS];
	const uint32_t *cb = &g->coord[(size_t)b * DOR_MAX_DIMS];
	unsigned int d;

	for (d = 0; d < g->shape.dims; d++) {
		uint32_t n = g->shape.size[d], fwd;

		if (ca[d] == cb[d])
			continue;
		if (!g->shape.wrap[d]) {
			*ret_dir = cb[d] > ca[d] ? 1 : -1;
			return d;
		}
		fwd = (cb[d] + n - ca[d]) % n;
		*ret_dir = fwd <= n - fwd ? 1 : -1;
		return d;
	}
	return DOR_MAX_DIMS;
}

/* Rank of the switch one step from a in dimension d, direction dir. */
static uint32_t dor_next(const struct dor_grid *g, uint32_t a, unsigned int d, int dir)
{
	uint32_t n = g->shape.size[d], cd = g->coord[(size_t)a * DOR_MAX_DIMS + d];
	uint32_t idx = 0, nd = dir > 0 ? (cd + 1) % n : (cd + n - 1) % n;
	unsigned int k;

	for (k = 0; k < g->shape.dims; k++)
		idx += (k == d ? nd : g->coord[(size_t)a * DOR_MAX_DIMS + k]) * g->stride[k];
	return g->cell[idx];
}

/* SL of the path from switch a to switch b: a bit per ring it crosses the dateline of. */
static uint8_t dor_path_sl(const struct dor_grid *g, const unsigned int *wbit, uint32_t a,
			   uint32_t b)
{
	const uint32_t *ca = &g->coord[(size_t)a * DOR_MAX_DIMS];
	const uint32_t *cb = &g->coord[(size_t)b * DOR_MAX_DIMS];
	uint8_t sl = 0;
	unsigned int d;

	for (d = 0; d < g->shape.dims; d++) {
		uint32_t n = g->shape.size[d], fwd;
		bool cross;

		if (!g->shape.wrap[d] || ca[d] == cb[d])
			continue;
		fwd = (cb[d] + n - ca[d]) % n;
		cross = fwd <= n - fwd ? cb[d] < ca[d] : cb[d] > ca[d];
		if (cross)
			sl |= (uint8_t)(1u << wbit[d]);
	}
	return sl;
}

/* Some dimension is a ring: the routing needs the dateline's second VL. */
static bool dor_is_torus(const struct dor_shape *shape)
{
	unsigned int d;

	for (d = 0; d < shape->dims; d++)
		if (shape->wrap[d])
			return true;
	return false;
}

/* Path SLs for every switch pair and SL2VL tables on every port. */
static int dor_vls(const struct dor_grid *g, struct routes *r)
{
	const struct fabric *f = g->f;
	unsigned int wbit[DOR_MAX_DIMS] = {0}, rings = 0, d, p, sl;
	uint32_t a, b;
	int err;

	for (d = 0; d < g->shape.dims; d++)
		if (g->shape.wrap[d])
			wbit[d] = rings++;
	if (!rings)
		return 0;
	err = routes_alloc_vls(r, f, 2);
	if (err)
		return err;
	for (a = 0; a < g->n_sw; a++) {
		uint32_t sa = r->sw_index[g->node[a]];
		const struct node *n = &f->nodes[g->node[a]];

		for (b = 0; b < g->n_sw; b++)
			r->path_sl[(size_t)sa * r->n_sw + r->sw_index[g->node[b]]] =
			    dor_path_sl(g, wbit, a, b);
		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node, v;
			int dir;

			if (rn >= f->n_nodes || (v = g->rank[rn]) == DOR_NONE || v == a)
				continue;
			d = dor_step(g, a, v, &dir);
			if (d >= g->shape.dims || !g->shape.wrap[d])
				continue;
			for (sl = 0; sl < ROUTES_MAX_SL; sl++)
				r->sl2vl[g->node[a]][p * ROUTES_MAX_SL + sl] = (sl >> wbit[d]) & 1;
		}
	}
	return 0;
}

int dor_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		char *why, size_t why_len)
{
	uint32_t *tgt = NULL, l, a, counts[256], isl_nbr[256];
	uint8_t *tgt_port = NULL, isl_port[256];
	struct routes *r = NULL;
	struct dor_grid g;
	struct lid_map map;
	int err;

	memset(&g, 0, sizeof(g));
	err = routing_lid_map(f, &map, why, why_len);
	if (err)
		return err;
	err = dor_grid_build(&g, f, why, why_len);
	if (err)
		goto out_free;
	if (o && o->max_vls == 1 && dor_is_torus(&g.shape)) {
		routing_why(why, why_len,
			    "a torus needs 2 data VLs for its dateline, max_vls is 1");
		err = -ENOTSUP;
		goto out_free;
	}

	/* where each LID sits: (switch rank, port on that switch) */
	err = routing_lid_targets(f, &map, g.rank, &tgt, &tgt_port);
	if (err)
		goto out_free;
	err = -ENOMEM;
	r = routes_new(f, map.max_lid);
	if (!r)
		goto out_free;
	for (a = 0; a < g.n_sw; a++) {
		const struct node *n = &f->nodes[g.node[a]];
		uint8_t *lft = r->lft[g.node[a]];
		unsigned int n_isl = 0, p;

		for (p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node;

			if (rn < f->n_nodes && g.rank[rn] != DOR_NONE && g.rank[rn] != a) {
				isl_port[n_isl] = (uint8_t)p;
				isl_nbr[n_isl++] = g.rank[rn];
			}
		}
		memset(counts, 0, sizeof(counts));
		for (l = 1; l <= map.max_lid; l++) {
			uint32_t t = tgt[l], next;
			uint32_t best_count = UINT32_MAX;
			uint8_t best = LFT_NO_PORT;
			unsigned int d, i;
			int dir;

			if (t == DOR_NONE)
				continue;
			if (t == a) {
				lft[l] = tgt_port[l];
				counts[tgt_port[l]]++;
				continue;
			}
			d = dor_step(&g, a, t, &dir);
			/* t != a and ranks are coordinates: some dimension differs */
			assert(d < g.shape.dims);
			next = dor_next(&g, a, d, dir);
			for (i = 0; i < n_isl; i++) {
				if (isl_nbr[i] == next && counts[isl_port[i]] < best_count) {
					best_count = counts[isl_port[i]];
					best = isl_port[i];
				}
			}
			/* a grid neighbour is linked: dor_fill checked every grid link */
			lft[l] = best;
			if (best != LFT_NO_PORT)
				counts[best]++;
		}
	}
	err = dor_vls(&g, r);
	if (err)
		goto out_free;
	*ret = r;
	r = NULL;

out_free:
	routes_free(r);
	free(tgt_port);
	free(tgt);
	dor_grid_clear(&g);
	fabric_lid_map_clear(&map);
	return err;
}

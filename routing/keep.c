/*
 * Keeping intact routes across a re-route (see keep.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/keep.h"

#define KEEP_NONE UINT32_MAX
#define KEEP_TERM (UINT32_MAX - 1) /* the path reached the LID's port */

enum { ST_BROKEN = 1, ST_OK = 2, ST_VISITING = 3 };

struct keep {
	const struct fabric *of, *f;
	const struct routes * or ;
	struct routes *r;
	struct lid_map map, omap;
	uint32_t n_sw;
	uint32_t *sw;	 /* dense switch index -> node of f */
	uint32_t *dense; /* node of f -> dense switch index, KEEP_NONE */
	uint32_t *old;	 /* dense -> node of old_f with that GUID and port count, KEEP_NONE */
	uint32_t *level; /* dense -> distance from the nearest switch with a CA */
	/* per LID, stamped with it */
	uint32_t *stamp;
	uint8_t *state; /* ST_* of the old path from the switch */
	uint32_t *gstamp;
	uint8_t *good; /* bit 0: the mixed path is up*down*, bit 1: all down */
	uint32_t *stack;
	uint32_t *counts; /* dense * 256: LIDs out of each port, kept routes */
	bool updown;
};

/* The node the entry port of dense switch s leads to in f, or KEEP_NONE. */
static uint32_t keep_next(const struct keep *k, uint32_t s, uint8_t port, uint8_t *ret_rport)
{
	const struct node *n = &k->f->nodes[k->sw[s]];
	const struct port *p;

	if (port == 0 || port > n->nports)
		return KEEP_NONE;
	p = &n->ports[port];
	if (!port_is_linked(p))
		return KEEP_NONE;
	*ret_rport = p->remote_port;
	return p->remote_node;
}

/* Whether old entry port of s leads over a link that is the same in both fabrics. */
static bool keep_same_link(const struct keep *k, uint32_t s, uint8_t port)
{
	const struct node *n = &k->f->nodes[k->sw[s]], *on = &k->of->nodes[k->old[s]];
	const struct port *p = &n->ports[port], *op = &on->ports[port];

	return port <= on->nports && port_is_linked(op) &&
	       k->of->nodes[op->remote_node].guid == k->f->nodes[p->remote_node].guid &&
	       op->remote_port == p->remote_port;
}

/* One step of the old path from s towards d: the next dense switch, KEEP_TERM or KEEP_NONE. */
static uint32_t keep_old_step(const struct keep *k, uint32_t s, uint16_t d)
{
	uint32_t owner = k->map.node[d], nx;
	uint8_t port, rport = 0;

	if (k->old[s] == KEEP_NONE)
		return KEEP_NONE;
	port = k->or->lft[k->old[s]][d];
	if (port == 0)
		return k->sw[s] == owner && k->map.port[d] == 0 ? KEEP_TERM : KEEP_NONE;
	if (port == LFT_NO_PORT)
		return KEEP_NONE;
	nx = keep_next(k, s, port, &rport);
	if (nx == KEEP_NONE || !keep_same_link(k, s, port))
		return KEEP_NONE;
	if (k->dense[nx] != KEEP_NONE)
		return k->dense[nx];
	return nx == owner && rport == k->map.port[d] ? KEEP_TERM : KEEP_NONE;
}

/* Whether the old path from s to d is intact (memoized for this d). */
static bool keep_intact(struct keep *k, uint32_t s, uint16_t d)
{
	uint32_t top = 0, x = s, nx;
	uint8_t res;

	for (;;) {
		if (k->stamp[x] == d) {
			res = k->state[x] == ST_OK ? ST_OK : ST_BROKEN; /* VISITING: a loop */
			break;
		}
		k->stamp[x] = d;
		k->state[x] = ST_VISITING;
		k->stack[top++] = x;
		nx = keep_old_step(k, x, d);
		if (nx == KEEP_TERM) {
			res = ST_OK;
			break;
		}
		if (nx == KEEP_NONE) {
			res = ST_BROKEN;
			break;
		}
		x = nx;
	}
	while (top)
		k->state[k->stack[--top]] = res;
	return k->state[s] == ST_OK;
}

/* The mixed entry of s for d (keep_intact known for s). */
static uint8_t keep_entry(const struct keep *k, uint32_t s, uint16_t d)
{
	return k->state[s] == ST_OK ? k->or->lft[k->old[s]][d] : k->r->lft[k->sw[s]][d];
}

/* Next dense switch of the mixed path, KEEP_TERM (left the switches), KEEP_NONE (no port). */
static uint32_t keep_mixed_step(struct keep *k, uint32_t s, uint16_t d)
{
	uint8_t port, rport;
	uint32_t nx;

	keep_intact(k, s, d);
	port = keep_entry(k, s, d);
	if (port == 0)
		return KEEP_TERM;
	nx = keep_next(k, s, port, &rport);
	if (nx == KEEP_NONE)
		return KEEP_NONE;
	return k->dense[nx] != KEEP_NONE ? k->dense[nx] : KEEP_TERM;
}

/* Whether the mixed path from s to d is up*down* (memoized for this d). */
static bool keep_updown(struct keep *k, uint32_t s, uint16_t d)
{
	uint32_t top = 0, x = s, nx;
	uint8_t g;

	while (k->gstamp[x] != d) {
		k->gstamp[x] = d;
		k->good[x] = 0;
		k->stack[top++] = x;
		nx = keep_mixed_step(k, x, d);
		if (nx == KEEP_TERM || nx == KEEP_NONE) {
			k->good[x] = 3; /* the path ends: up*down* and all down */
			top--;
			break;
		}
		x = nx;
	}
	/* a switch met again before its answer is known is a loop: good[] 0 there */
	while (top) {
		uint32_t y = k->stack[--top], z = keep_mixed_step(k, y, d);

		if (k->level[z] > k->level[y])
			g = k->good[z] & 1; /* up: the rest must be up*down* */
		else
			g = (k->good[z] >> 1) & 1 ? 3 : 0; /* down: the rest must be all down */
		k->good[y] = g;
	}
	return k->good[s] & 1;
}

/*
 * LID d: decide for every switch; count (apply false) or write (apply true).
 * Returns whether d was mixed (false: fresh whole).
 */
static bool keep_lid(struct keep *k, uint16_t d, bool apply, struct keep_stats *st)
{
	uint32_t owner = k->map.node[d];
	bool mixed = true;

	if (owner == FABRIC_NO_NODE || d > k->or->max_lid || k->omap.max_lid < d ||
	    k->omap.node[d] == FABRIC_NO_NODE ||
	    k->of->nodes[k->omap.node[d]].guid != k->f->nodes[owner].guid ||
	    k->omap.port[d] != k->map.port[d])
		mixed = false;
	for (uint32_t s = 0; mixed && s < k->n_sw; s++)
		keep_intact(k, s, d);
	/*
	 * What CAs send to CAs must be up*down*: the paths to a CA's LID that
	 * start on a leaf.  A switch's own LID gets management traffic only,
	 * which the engine itself may route by a detour.
	 */
	if (mixed && k->updown && !node_is_switch(&k->f->nodes[owner]))
		for (uint32_t s = 0; s < k->n_sw; s++)
			if (k->level[s] == 0 && !keep_updown(k, s, d)) {
				mixed = false;
				break;
			}
	for (uint32_t s = 0; s < k->n_sw; s++) {
		uint32_t node = k->sw[s];
		uint8_t fresh = k->r->lft[node][d];
		uint8_t e = mixed ? keep_entry(k, s, d) : fresh;
		int old =
		    k->old[s] != KEEP_NONE && d <= k->or->max_lid ? k->or->lft[k->old[s]][d] : -1;

		if (apply) {
			k->r->lft[node][d] = e;
			continue;
		}
		k->counts[(size_t)s * 256 + e]++;
		st->entries++;
		st->moved += e != old;
		st->fresh_moved += fresh != old;
	}
	return mixed;
}

/* LID d's owner is the same port in both fabrics. */
static bool keep_same_owner(const struct keep *k, uint16_t d)
{
	uint32_t owner = k->map.node[d];

	return owner != FABRIC_NO_NODE && d <= k->or->max_lid && d <= k->omap.max_lid &&
							k->omap.node[d] != FABRIC_NO_NODE &&
							k->of->nodes[k->omap.node[d]].guid ==
							    k->f->nodes[owner].guid &&
							k->omap.port[d] == k->map.port[d];
}

/* LID d's mixed entry at every switch into col[n_sw]; whether it was mixed (else fresh). */
static bool keep_decide(struct keep *k, uint16_t d, uint8_t *col)
{
	uint32_t owner = k->map.node[d];
	bool mixed = keep_same_owner(k, d);

	for (uint32_t s = 0; mixed && s < k->n_sw; s++)
		keep_intact(k, s, d);
	if (mixed && k->updown && !node_is_switch(&k->f->nodes[owner]))
		for (uint32_t s = 0; s < k->n_sw; s++)
			if (k->level[s] == 0 && !keep_updown(k, s, d)) {
				mixed = false;
				break;
			}
	for (uint32_t s = 0; s < k->n_sw; s++)
		col[s] = mixed ? keep_entry(k, s, d) : k->r->lft[k->sw[s]][d];
	return mixed;
}

/* Whether port p of dense switch s leads elsewhere than it did (or only in one fabric). */
static bool keep_port_changed(const struct keep *k, uint32_t s, uint8_t p)
{
	const struct node *n = &k->f->nodes[k->sw[s]], *on = &k->of->nodes[k->old[s]];
	bool nl = port_is_linked(&n->ports[p]),
	     ol = p <= on->nports && port_is_linked(&on->ports[p]);

	if (nl != ol)
		return true;
	return nl && !keep_same_link(k, s, p);
}

/* Levels: distance from the nearest switch with a CA over switch links.  false: a link within a
 * level. */
static bool keep_levels(struct keep *k)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct node *n = &k->f->nodes[k->sw[s]];

		k->level[s] = KEEP_NONE;
		for (unsigned p = 1; p <= n->nports; p++)
			if (port_is_linked(&n->ports[p]) &&
			    !node_is_switch(&k->f->nodes[n->ports[p].remote_node])) {
				k->level[s] = 0;
				k->stack[tail++] = s;
				break;
			}
	}
	while (head < tail) {
		uint32_t s = k->stack[head++];
		const struct node *n = &k->f->nodes[k->sw[s]];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t rn = n->ports[p].remote_node, rs;

			if (!port_is_linked(&n->ports[p]) || (rs = k->dense[rn]) == KEEP_NONE)
				continue;
			if (k->level[rs] == KEEP_NONE) {
				k->level[rs] = k->level[s] + 1;
				k->stack[tail++] = rs;
			}
		}
	}
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct node *n = &k->f->nodes[k->sw[s]];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t rs;

			if (!port_is_linked(&n->ports[p]) ||
			    (rs = k->dense[n->ports[p].remote_node]) == KEEP_NONE)
				continue;
			if (k->level[rs] == k->level[s])
				return false;
		}
	}
	return true;
}

/* Whether f has a switch-to-switch link old_f had not (a link or a switch came back). */
static bool keep_links_added(const struct keep *k)
{
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct node *n = &k->f->nodes[k->sw[s]];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct port *np = &n->ports[p];

			if (!port_is_linked(np) || k->dense[np->remote_node] == KEEP_NONE)
				continue;
			if (k->old[s] == KEEP_NONE || !keep_same_link(k, s, (uint8_t)p))
				return true;
		}
	}
	return false;
}

static void keep_free(struct keep *k)
{
	fabric_lid_map_clear(&k->map);
	fabric_lid_map_clear(&k->omap);
	free(k->sw);
	free(k->dense);
	free(k->old);
	free(k->level);
	free(k->stamp);
	free(k->state);
	free(k->gstamp);
	free(k->good);
	free(k->stack);
	free(k->counts);
}

static uint32_t keep_max_port(const struct keep *k, const uint32_t *counts)
{
	uint32_t best = 0;

	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct node *n = &k->f->nodes[k->sw[s]];

		for (unsigned p = 1; p <= n->nports; p++)
			if (port_is_linked(&n->ports[p]) && counts[(size_t)s * 256 + p] > best)
				best = counts[(size_t)s * 256 + p];
	}
	return best;
}

/* LIDs decided column by column at most (the rest row by row); beyond, the slow path. */
#define KEEP_MAX_COLS 8192

/* The levels of old_f by the GUIDs of k's switches equal k's: false when not, or on ENOMEM. */
static bool keep_same_levels(const struct keep *k, const struct fabric *old_f)
{
	struct keep ko = {.f = old_f};
	bool same = true;

	ko.sw = calloc(old_f->n_nodes + 1, sizeof(*ko.sw));
	ko.dense = calloc(old_f->n_nodes + 1, sizeof(*ko.dense));
	ko.level = calloc(old_f->n_nodes + 1, sizeof(*ko.level));
	ko.stack = calloc(old_f->n_nodes + 1, sizeof(*ko.stack));
	if (!ko.sw || !ko.dense || !ko.level || !ko.stack) {
		same = false;
		goto out;
	}
	for (uint32_t i = 0; i < old_f->n_nodes; i++) {
		ko.dense[i] = KEEP_NONE;
		if (node_is_switch(&old_f->nodes[i]))
			ko.sw[ko.n_sw++] = i;
	}
	for (uint32_t s = 0; s < ko.n_sw; s++)
		ko.dense[ko.sw[s]] = s;
	keep_levels(&ko);
	for (uint32_t s = 0; same && s < k->n_sw; s++)
		same = ko.level[ko.dense[k->old[s]]] == k->level[s];
out:
	free(ko.sw);
	free(ko.dense);
	free(ko.level);
	free(ko.stack);
	return same;
}

/*
 * The fast way, when every switch of f was in old_f (and, with updown, on
 * the same level): only the LIDs some changed port carried (or whose owner
 * changed, or that a switch could not reach and now can) are decided
 * column by column; every other LID keeps its old entries at every switch
 * (no changed link on any of its paths: all intact).  The counts and the
 * writes go row by row.  0 when done (st filled, r written or not), -1 when
 * the slow way must be taken.
 */
static int keep_fast(struct keep *k, const struct fabric *old_f, bool updown, double max_drift,
		     struct keep_stats *st)
{
	uint16_t top = k->r->max_lid;
	uint32_t *col_of = NULL, n_aff = 0, *fresh_counts = NULL;
	uint8_t *cols = NULL, *aff = NULL;
	int rc = -1;

	for (uint32_t s = 0; s < k->n_sw; s++)
		if (k->old[s] == KEEP_NONE)
			return -1; /* a new switch: its neighbours' paths change in ways not seen
				      here */
	if (updown && !keep_same_levels(k, old_f))
		return -1;
	aff = calloc((size_t)top + 1, 1);
	col_of = malloc(((size_t)top + 1) * sizeof(*col_of));
	fresh_counts = calloc((size_t)(k->n_sw + 1) * 256, sizeof(*fresh_counts));
	if (!aff || !col_of || !fresh_counts)
		goto out;
	for (uint32_t d = 1; d <= top; d++)
		aff[d] = !keep_same_owner(k, (uint16_t)d);
	/* the LIDs a changed port carried, and the entries that went nowhere */
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const struct node *n = &k->f->nodes[k->sw[s]];
		const uint8_t *orow = k->or->lft[k->old[s]], *nrow = k->r->lft[k->sw[s]];
		uint16_t otop = k->or->max_lid < top ? k->or->max_lid : top;

		for (unsigned p = 1; p <= n->nports; p++) {
			if (!keep_port_changed(k, s, (uint8_t)p))
				continue;
			for (uint32_t d = 1; d <= otop; d++)
				if (orow[d] == p)
					aff[d] = 1;
		}
		for (uint32_t d = 1; d <= otop; d++)
			if (orow[d] == LFT_NO_PORT && nrow[d] != LFT_NO_PORT)
				aff[d] = 1;
	}
	for (uint32_t d = 1; d <= top; d++) {
		col_of[d] = aff[d] ? n_aff++ : KEEP_NONE;
		if (n_aff > KEEP_MAX_COLS)
			goto out; /* too much changed for columns: the slow way */
	}
	cols = malloc((size_t)(n_aff ? n_aff : 1) * k->n_sw);
	if (!cols)
		goto out;
	for (uint32_t d = 1; d <= top; d++)
		if (col_of[d] != KEEP_NONE &&
		    !keep_decide(k, (uint16_t)d, cols + (size_t)col_of[d] * k->n_sw))
			st->lids_fresh++;
	/* counts, row by row */
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const uint8_t *orow = k->or->lft[k->old[s]], *nrow = k->r->lft[k->sw[s]];

		for (uint32_t d = 1; d <= top; d++) {
			int old = d <= k->or->max_lid ? orow[d] : -1;
			uint8_t fresh = nrow[d], e = col_of[d] == KEEP_NONE
							 ? orow[d]
							 : cols[(size_t)col_of[d] * k->n_sw + s];

			k->counts[(size_t)s * 256 + e]++;
			fresh_counts[(size_t)s * 256 + fresh]++;
			st->entries++;
			st->moved += e != old;
			st->fresh_moved += fresh != old;
		}
	}
	rc = 0;
	st->max_port_fresh = keep_max_port(k, fresh_counts);
	st->max_port_kept = keep_max_port(k, k->counts);
	if (st->max_port_kept > st->max_port_fresh * (1.0 + max_drift)) {
		snprintf(
		    st->why, sizeof(st->why),
		    "the busiest port would carry %u LIDs where the engine gives %u: re-balanced",
		    st->max_port_kept, st->max_port_fresh);
		goto out;
	}
	if (st->moved == 0 && st->fresh_moved && keep_links_added(k)) {
		snprintf(st->why, sizeof(st->why),
			 "nothing broke: re-balanced onto what came back");
		goto out;
	}
	for (uint32_t s = 0; s < k->n_sw; s++) {
		const uint8_t *orow = k->or->lft[k->old[s]];
		uint8_t *nrow = k->r->lft[k->sw[s]];

		for (uint32_t d = 1; d <= top; d++)
			nrow[d] = col_of[d] == KEEP_NONE ? orow[d]
							 : cols[(size_t)col_of[d] * k->n_sw + s];
	}
	st->kept = true;
out:
	free(aff);
	free(col_of);
	free(cols);
	free(fresh_counts);
	return rc;
}

void routes_keep(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		 struct routes *r, bool updown, double max_drift, struct keep_stats *st)
{
	routes_keep_ex(old_f, old_r, f, r, updown, max_drift, true, st);
}

void routes_keep_ex(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		    struct routes *r, bool updown, double max_drift, bool fast,
		    struct keep_stats *st)
{
	struct keep k = {.of = old_f, .f = f, .or = old_r, .r = r, .updown = updown};
	uint32_t *fresh_counts = NULL;
	uint16_t top;

	memset(st, 0, sizeof(*st));
	if (!old_f || !old_r || !f || !r || r->n_vls > 1 || old_r->n_vls > 1) {
		snprintf(st->why, sizeof(st->why), "no routes to keep");
		return;
	}
	if (fabric_lid_map(f, &k.map) < 0 || fabric_lid_map(old_f, &k.omap) < 0) {
		snprintf(st->why, sizeof(st->why), "LIDs not unique");
		keep_free(&k);
		return;
	}
	k.sw = calloc(f->n_nodes + 1, sizeof(*k.sw));
	k.dense = calloc(f->n_nodes + 1, sizeof(*k.dense));
	for (uint32_t i = 0; k.sw && k.dense && i < f->n_nodes; i++) {
		k.dense[i] = KEEP_NONE;
		if (node_is_switch(&f->nodes[i]) && i < r->n_nodes && r->lft[i])
			k.sw[k.n_sw++] = i;
	}
	for (uint32_t s = 0; k.sw && k.dense && s < k.n_sw; s++)
		k.dense[k.sw[s]] = s;
	k.old = calloc(k.n_sw + 1, sizeof(*k.old));
	k.level = calloc(k.n_sw + 1, sizeof(*k.level));
	k.stamp = calloc(k.n_sw + 1, sizeof(*k.stamp));
	k.state = calloc(k.n_sw + 1, 1);
	k.gstamp = calloc(k.n_sw + 1, sizeof(*k.gstamp));
	k.good = calloc(k.n_sw + 1, 1);
	k.stack = calloc(k.n_sw + 1, sizeof(*k.stack));
	k.counts = calloc((size_t)(k.n_sw + 1) * 256, sizeof(*k.counts));
	fresh_counts = calloc((size_t)(k.n_sw + 1) * 256, sizeof(*fresh_counts));
	if (!k.sw || !k.dense || !k.old || !k.level || !k.stamp || !k.state || !k.gstamp ||
	    !k.good || !k.stack || !k.counts || !fresh_counts) {
		snprintf(st->why, sizeof(st->why), "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < k.n_sw; s++) {
		const struct node *n = &f->nodes[k.sw[s]];
		uint32_t o = fabric_find_guid(old_f, n->guid);

		k.old[s] = o != FABRIC_NO_NODE && o < old_r->n_nodes && old_r->lft[o] &&
				   old_f->nodes[o].nports == n->nports
			       ? o
			       : KEEP_NONE;
	}
	if (updown && !keep_levels(&k)) {
		snprintf(st->why, sizeof(st->why), "a switch link within a level: not kept");
		goto out;
	}
	top = r->max_lid;
	if (fast && keep_fast(&k, old_f, updown, max_drift, st) == 0) {
		st->fast = true;
		goto out;
	}
	/* stamps are LIDs: 0 is never one */
	for (uint32_t d = 1; d <= top; d++)
		if (!keep_lid(&k, (uint16_t)d, false, st))
			st->lids_fresh++;
	for (uint32_t s = 0; s < k.n_sw; s++)
		for (uint32_t d = 1; d <= top; d++)
			fresh_counts[(size_t)s * 256 + r->lft[k.sw[s]][d]]++;
	st->max_port_fresh = keep_max_port(&k, fresh_counts);
	st->max_port_kept = keep_max_port(&k, k.counts);
	if (st->max_port_kept > st->max_port_fresh * (1.0 + max_drift)) {
		snprintf(st->why, sizeof(st->why),
			 "the busiest port would carry %u LIDs where the engine gives %u: "
			 "re-balanced",
			 st->max_port_kept, st->max_port_fresh);
		goto out;
	}
	if (st->moved == 0 && st->fresh_moved && keep_links_added(&k)) {
		snprintf(st->why, sizeof(st->why),
			 "nothing broke: re-balanced onto what came back");
		goto out;
	}
	memset(k.stamp, 0, (k.n_sw + 1) * sizeof(*k.stamp));
	memset(k.gstamp, 0, (k.n_sw + 1) * sizeof(*k.gstamp));
	for (uint32_t d = 1; d <= top; d++)
		keep_lid(&k, (uint16_t)d, true, st);
	st->kept = true;
out:
	free(fresh_counts);
	keep_free(&k);
}

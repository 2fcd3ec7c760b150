/*
 * Incremental routing (see repair.h): new entries for what a change broke,
 * the rest of the tables as the switches hold them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/repair.h"

#define RP_NONE UINT32_MAX
#define RP_TERM (UINT32_MAX - 1) /* the entry ends the path: the LID's port */
#define RP_INF UINT16_MAX

/* a switch's state for the LID of the round */
enum {
	RP_FINAL = 1, /* its route is decided (kept or chosen again) */
	RP_VALID = 2, /* that route is up*down* (always set without updown) */
	RP_DOWN = 4,  /* that route goes only down (always set without updown) */
};

struct rp_target {
	uint32_t t; /* dense switch the LID leaves the switches at */
	uint8_t fp; /* its entry there: 0 (the switch's own LID) or the port to the CA */
	bool ca;
};

struct repair {
	const struct fabric *of, *f;
	const struct routes * or ;
	struct routes *r;
	struct lid_map map, omap;
	bool updown;
	uint32_t n_sw;
	uint32_t *sw;	  /* dense -> node of f */
	uint32_t *dense;  /* node of f -> dense, RP_NONE */
	uint32_t *old;	  /* dense -> node of old_f */
	uint32_t *level;  /* dense -> distance from the nearest switch with a CA */
	uint32_t *olevel; /* node of old_f -> the same in old_f */
	uint32_t *poff;	  /* dense -> first (switch, port) index in chg */
	uint8_t *chg;	  /* (switch, port): the link is not what it was */
	uint32_t *adj;	  /* (switch, port): the dense switch it leads to, RP_NONE */
	uint8_t *rport;	  /* (switch, port): the port it leads to */
	uint8_t *np;	  /* dense: ports */
	/* per LID: stamped with a round number */
	uint32_t round;
	uint32_t *stamp;
	uint8_t *st;
	uint16_t *len; /* switch hops of the route to the target switch */
	uint32_t *ostamp;
	uint16_t *olen; /* by node of old_f: the old route's length there */
	uint32_t *stack, *todo, *queue, *order, *bucket;
	uint32_t n_todo;
	uint16_t *dd, *ud, *bd; /* down-only, up*down* and plain distances to the target */
	uint32_t *by_level;	/* switches by level, highest first */
	uint8_t *touched;	/* dense: some entry of it changed */
	uint32_t *ustamp;	/* dense: in the set rp_distance_around works on (round) */
	uint32_t *chsw;		/* dense switches with a changed port */
	uint32_t n_chsw;
	/* additions: switches with no table before (nearest the old ones first), new links */
	uint32_t *newsw;
	uint32_t n_new;
	/*
	 * A new switch with no CA (idle: no traffic enters there, and until
	 * its row is chosen nobody forwards through it): its row follows the
	 * hop distances of its neighbours (nslot[v]: v's row of ndist, the
	 * distance from v to every switch; RP_NONE when not computed).
	 */
	uint8_t *idle;
	uint32_t *nslot;
	uint16_t *ndist;
	/*
	 * A new switch's twin: an old switch at its level linked to the same
	 * switches (a sibling spine, a leaf of the same pod), RP_NONE when none;
	 * tport[i * 256 + q]: the port of newsw[i] to where the twin's port q
	 * leads (0: none).  Its row follows the twin's, one walk a LID.
	 */
	uint32_t *twin;
	uint8_t *tport;
	struct rp_link {
		uint32_t a, b; /* dense switches, both there before */
		uint8_t pa, pb;
	} * added;
	uint32_t n_added;
	/* the LID of the column being repaired: what rp_set counts */
	bool same_owner;   /* owned by the same port before and now: rp_set keeps unreachable */
	uint64_t moved;	   /* entries that differ from the old tables */
	int64_t unr_delta; /* change of the unreachable count */
};

static uint8_t *rp_row(const struct repair *rp, uint32_t s)
{
	return rp->r->lft[rp->sw[s]];
}

static const struct node *rp_node(const struct repair *rp, uint32_t s)
{
	return &rp->f->nodes[rp->sw[s]];
}

/* Entry e for LID d at switch s, the port counts kept. */
static void rp_set(struct repair *rp, uint32_t s, uint16_t d, uint8_t e)
{
	uint8_t *row = rp_row(rp, s);
	uint32_t at = rp->r->load_at[rp->sw[s]];
	unsigned np = rp->np[s];

	uint8_t was = row[d], o;

	if (was == e)
		return;
	o = d <= rp->or->max_lid && rp->old[s] != RP_NONE ? rp->or->lft[rp->old[s]][d]
							  : LFT_NO_PORT;
	if (was == o)
		rp->moved++; /* e differs from the old entry now */
	else if (e == o)
		rp->moved--;
	if (rp->same_owner && rp->map.node[d] != FABRIC_NO_NODE)
		rp->unr_delta += (e == LFT_NO_PORT) - (was == LFT_NO_PORT);
	if (row[d] <= np)
		rp->r->load[at + row[d]]--;
	if (e <= np)
		rp->r->load[at + e]++;
	row[d] = e;
	rp->touched[s] = 1;
}

/* The dense switch behind port p of s, or RP_NONE. */
static uint32_t rp_peer(const struct repair *rp, uint32_t s, unsigned p)
{
	return p && p <= rp->np[s] ? rp->adj[rp->poff[s] + p] : RP_NONE;
}

/* The next switch of s's route to d, RP_TERM, or RP_NONE (broken). */
static uint32_t rp_next(const struct repair *rp, uint32_t s, uint16_t d, const struct rp_target *tg)
{
	uint8_t p = rp_row(rp, s)[d];

	if (s == tg->t)
		return p == tg->fp ? RP_TERM : RP_NONE;
	if (p == 0 || p > rp->np[s] || rp->chg[rp->poff[s] + p])
		return RP_NONE;
	return rp_peer(rp, s, p);
}

/*
 * The metric a route of s must match in the distance pass: the up*down*
 * distance where there is one (updown), else the plain one; RP_INF none.
 */
static uint16_t rp_metric(const struct repair *rp, uint32_t s, bool *ret_updown)
{
	*ret_updown = rp->updown && rp->ud[s] != RP_INF;
	if (*ret_updown)
		return rp->ud[s];
	return rp->updown ? RP_INF : rp->bd[s];
}

/* y's state from its successor z (y's entry leads to z). */
static void rp_derive(struct repair *rp, uint32_t y, uint32_t z, const struct rp_target *tg,
		      bool dist)
{
	uint8_t sz = rp->st[z], s = 0;

	rp->len[y] = rp->len[z] == RP_INF ? RP_INF : rp->len[z] + 1;
	if (!rp->updown)
		s = RP_VALID | RP_DOWN;
	else if (rp->level[z] > rp->level[y])
		s = sz & RP_VALID ? RP_VALID : 0; /* up: the rest must be up*down* */
	else if (rp->level[z] < rp->level[y])
		s = sz & RP_DOWN ? RP_VALID | RP_DOWN : 0; /* down: the rest must be down */
	if (!(sz & RP_FINAL)) {
		rp->st[y] = s;
		return;
	}
	/* a CA's traffic enters at a switch with a CA: its route must be up*down* */
	if (rp->updown && tg->ca && rp->level[y] == 0 && !(s & RP_VALID)) {
		rp->st[y] = s;
		return;
	}
	if (dist) {
		bool ud;
		uint16_t m = rp_metric(rp, y, &ud);

		if (m != RP_INF && (rp->len[y] != m || (ud && !(s & RP_VALID)))) {
			rp->st[y] = s;
			return;
		}
	}
	rp->st[y] = s | RP_FINAL;
}

/* Follow s's entries towards d; every switch met gets its state for this round. */
static void rp_walk(struct repair *rp, uint32_t s, uint16_t d, const struct rp_target *tg,
		    bool dist)
{
	uint32_t top = 0, x = s, nx;

	for (;;) {
		if (rp->stamp[x] == rp->round)
			break; /* known; a switch of this walk: a loop, st 0 */
		rp->stamp[x] = rp->round;
		rp->st[x] = 0;
		rp->len[x] = RP_INF;
		nx = rp_next(rp, x, d, tg);
		if (nx == RP_TERM) {
			rp->st[x] = RP_FINAL | RP_VALID | RP_DOWN;
			rp->len[x] = 0;
			break;
		}
		if (nx == RP_NONE)
			break;
		rp->stack[top++] = x;
		x = nx;
	}
	while (top) {
		uint32_t y = rp->stack[--top];

		rp_derive(rp, y, x, tg, dist);
		x = y;
	}
}

/* Length of the old route from node o of old_f to LID d there (RP_INF: none). */
static uint16_t rp_old_len(struct repair *rp, uint32_t o, uint16_t d)
{
	uint32_t top = 0, x = o, owner = rp->omap.node[d];
	uint16_t res = RP_INF;

	for (;;) {
		const struct node *n = &rp->of->nodes[x];
		const struct port *p;
		uint8_t e;

		if (rp->ostamp[x] == rp->round) {
			res = rp->olen[x];
			break;
		}
		rp->ostamp[x] = rp->round;
		rp->olen[x] = RP_INF; /* met again before known: a loop */
		e = d <= rp->or->max_lid && rp->or->lft[x] ? rp->or->lft[x][d] : LFT_NO_PORT;
		if (e == 0) {
			res = x == owner && rp->omap.port[d] == 0 ? 0 : RP_INF;
			rp->olen[x] = res;
			break;
		}
		if (e > n->nports || !port_is_linked(&n->ports[e])) {
			res = RP_INF;
			break;
		}
		p = &n->ports[e];
		if (!node_is_switch(&rp->of->nodes[p->remote_node])) {
			res = p->remote_node == owner && p->remote_port == rp->omap.port[d]
				  ? 0
				  : RP_INF;
			rp->olen[x] = res;
			break;
		}
		rp->stack[top++] = x;
		x = p->remote_node;
	}
	while (top) {
		uint32_t y = rp->stack[--top];

		res = res == RP_INF ? RP_INF : res + 1;
		rp->olen[y] = res;
	}
	return rp->olen[o];
}

/* Whether the route of v (FINAL) may follow a hop s -> v, and how long it is then. */
static bool rp_fits(const struct repair *rp, uint32_t s, uint32_t v)
{
	if (!(rp->st[v] & RP_FINAL))
		return false;
	if (!rp->updown)
		return true;
	if (rp->level[v] > rp->level[s])
		return rp->st[v] & RP_VALID;
	return rp->level[v] < rp->level[s] && (rp->st[v] & RP_DOWN);
}

static uint32_t rp_load(const struct repair *rp, uint32_t s, unsigned p)
{
	return rp->r->load[rp->r->load_at[rp->sw[s]] + p];
}

/*
 * One candidate port p of s in the choice of a next hop: the current port
 * cur (0: none) wins outright, true: stop looking; else p becomes *best
 * when there is none yet or it carries less load (the lowest port wins a
 * tie, as ports are tried in order).
 */
static bool rp_pick(const struct repair *rp, uint32_t s, unsigned p, uint8_t cur, uint32_t *best,
		    uint32_t *best_load)
{
	uint32_t l;

	if (p == cur) {
		*best = p;
		return true;
	}
	l = rp_load(rp, s, p);
	if (*best == RP_NONE || l < *best_load) {
		*best = p;
		*best_load = l;
	}
	return false;
}

static void rp_take(struct repair *rp, uint32_t s, uint16_t d, uint8_t p,
		    const struct rp_target *tg, bool dist)
{
	uint32_t v = rp_peer(rp, s, p);

	rp_set(rp, s, d, p);
	rp_derive(rp, s, v, tg, dist);
	rp->st[s] |= RP_FINAL; /* chosen to fit: final even where the shape rule is loose */
}

/*
 * With updown, a hop from s down to w cannot fit when w is a switch with
 * no switch below it (level 0) and not where the LID leaves: its route
 * starts up, so it is not down-only (rp_fits would say so after a walk).
 */
static bool rp_hopeless(const struct repair *rp, uint32_t s, uint32_t w, const struct rp_target *tg)
{
	return rp->updown && rp->level[w] == 0 && rp->level[s] > 0 && w != tg->t;
}

/*
 * Hop by hop: every broken switch towards a final neighbour no longer than
 * its old route allowed.  Whether every one got a route.
 */
static bool rp_local(struct repair *rp, uint16_t d, const struct rp_target *tg, bool same_owner)
{
	uint32_t left = 0;
	bool strict = true;

	for (uint32_t i = 0; i < rp->n_todo; i++) {
		uint32_t s = rp->todo[i];

		/* the bound: the old route's length (a new owner: none, distances decide) */
		rp->queue[i] =
		    same_owner && rp->old[s] != RP_NONE ? rp_old_len(rp, rp->old[s], d) : RP_INF;
		if (rp->queue[i] == RP_INF)
			return false;
		left++;
	}
	while (left) {
		uint32_t done = 0;

		for (uint32_t i = 0; i < rp->n_todo; i++) {
			uint32_t s = rp->todo[i], v, best = RP_NONE, best_load = 0;
			uint8_t cur = rp_row(rp, s)[d];
			const struct node *n;

			if (rp->st[s] & RP_FINAL)
				continue;
			if (s == tg->t) {
				rp_set(rp, s, d, tg->fp);
				rp->st[s] = RP_FINAL | RP_VALID | RP_DOWN;
				rp->len[s] = 0;
				done++;
				continue;
			}
			v = cur && cur != LFT_NO_PORT && !rp->chg[rp->poff[s] + cur]
				? rp_peer(rp, s, cur)
				: RP_NONE;
			if (v != RP_NONE && rp->stamp[v] != rp->round)
				rp_walk(rp, v, d, tg, false); /* an intact neighbour, not yet met */
			if (v != RP_NONE && rp_fits(rp, s, v) && rp->len[v] + 1u <= rp->queue[i]) {
				rp_take(rp, s, d, cur, tg, false);
				done++;
				continue;
			}
			if (strict && v != RP_NONE && !(rp->st[v] & RP_FINAL))
				continue; /* its next hop may yet be repaired: wait for it */
			n = rp_node(rp, s);
			for (unsigned p = 1; p <= n->nports; p++) {
				uint32_t w = rp_peer(rp, s, p);

				if (w == RP_NONE || rp_hopeless(rp, s, w, tg))
					continue;
				if (rp->stamp[w] != rp->round)
					rp_walk(rp, w, d, tg, false);
				if (w == RP_NONE || !rp_fits(rp, s, w) ||
				    rp->len[w] + 1u > rp->queue[i])
					continue;
				rp_pick(rp, s, p, 0, &best, &best_load);
			}
			if (best == RP_NONE)
				continue;
			rp_take(rp, s, d, (uint8_t)best, tg, false);
			done++;
		}
		left -= done;
		if (!done) {
			if (!strict)
				return false;
			strict = false;
		}
	}
	return true;
}

/*
 * Breadth first from the target: dist (all RP_INF on entry) gets
 * every switch's hop distance over any link, or when from_above only over
 * hops that go down towards the target (the down-only distance).
 */
static void rp_bfs(struct repair *rp, const struct rp_target *tg, uint16_t *dist, bool from_above)
{
	uint32_t head = 0, tail = 0;

	dist[tg->t] = 0;
	rp->queue[tail++] = tg->t;
	while (head < tail) {
		uint32_t s = rp->queue[head++];
		const uint32_t *adj = rp->adj + rp->poff[s];

		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t v = adj[p];

			if (v != RP_NONE && (!from_above || rp->level[v] > rp->level[s]) &&
			    dist[v] == RP_INF) {
				dist[v] = dist[s] + 1;
				rp->queue[tail++] = v;
			}
		}
	}
}

/* Plain and (updown) up*down* hop distances of every switch to the target. */
static void rp_distances(struct repair *rp, const struct rp_target *tg)
{
	for (uint32_t s = 0; s < rp->n_sw; s++)
		rp->bd[s] = rp->dd[s] = rp->ud[s] = RP_INF;
	rp_bfs(rp, tg, rp->bd, false);
	if (!rp->updown)
		return;
	/* down-only: the target reached from above */
	rp_bfs(rp, tg, rp->dd, true);
	/* up*down*: up to some switch, then down; highest level first */
	for (uint32_t i = 0; i < rp->n_sw; i++) {
		uint32_t s = rp->by_level[i];
		const uint32_t *adj = rp->adj + rp->poff[s];
		uint16_t best = rp->dd[s];

		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t u = adj[p];

			if (u != RP_NONE && rp->level[u] > rp->level[s] && rp->ud[u] != RP_INF &&
			    rp->ud[u] + 1 < best)
				best = rp->ud[u] + 1;
		}
		rp->ud[s] = best;
	}
}

/* Whether neighbour v of s is one hop nearer the target by s's metric. */
static bool rp_nearer(const struct repair *rp, uint32_t s, uint32_t v)
{
	if (rp->updown && rp->ud[s] != RP_INF) {
		if (rp->dd[s] == rp->ud[s])
			return rp->level[v] < rp->level[s] && rp->dd[v] + 1 == rp->dd[s];
		return rp->level[v] > rp->level[s] && rp->ud[v] != RP_INF &&
		       rp->ud[v] + 1 == rp->ud[s];
	}
	return rp->bd[v] != RP_INF && rp->bd[v] + 1 == rp->bd[s];
}

/* By distances: 0, or -EAGAIN when a switch with a CA has no up*down* route to a CA's LID. */
static int rp_distance(struct repair *rp, uint16_t d, const struct rp_target *tg)
{
	uint32_t nkeys = 2 * rp->n_sw + 2, n = 0;

	rp_distances(rp, tg);
	rp->round++;
	for (uint32_t s = 0; s < rp->n_sw; s++)
		rp_walk(rp, s, d, tg, true);
	memset(rp->bucket, 0, (nkeys + 1) * sizeof(*rp->bucket));
	rp->n_todo = 0;
	for (uint32_t s = 0; s < rp->n_sw; s++) {
		uint32_t key;

		if (rp->st[s] & RP_FINAL)
			continue;
		if (rp->bd[s] == RP_INF) {
			rp_set(rp, s, d, LFT_NO_PORT); /* cut off from it: no route */
			continue;
		}
		if (rp->updown && tg->ca && rp->level[s] == 0 && rp->ud[s] == RP_INF)
			return -EAGAIN;
		key = rp->updown && rp->ud[s] != RP_INF ? rp->ud[s] : rp->n_sw + 1 + rp->bd[s];
		rp->todo[rp->n_todo++] = s;
		rp->queue[s] = key;
		rp->bucket[key + 1]++;
	}
	for (uint32_t k = 1; k <= nkeys; k++)
		rp->bucket[k] += rp->bucket[k - 1];
	for (uint32_t i = 0; i < rp->n_todo; i++)
		rp->order[rp->bucket[rp->queue[rp->todo[i]]]++] = rp->todo[i];
	n = rp->n_todo;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rp->order[i], best = RP_NONE, best_load = 0;
		uint8_t cur = rp_row(rp, s)[d];
		const struct node *nd = rp_node(rp, s);

		if (s == tg->t) {
			rp_set(rp, s, d, tg->fp);
			rp->st[s] = RP_FINAL | RP_VALID | RP_DOWN;
			rp->len[s] = 0;
			continue;
		}
		for (unsigned p = 1; p <= nd->nports; p++) {
			uint32_t v = rp_peer(rp, s, p);

			if (v == RP_NONE || !rp_nearer(rp, s, v) || !(rp->st[v] & RP_FINAL))
				continue;
			if (rp_pick(rp, s, p, cur, &best, &best_load))
				break;
		}
		if (best == RP_NONE) {
			rp_set(rp, s, d,
			       LFT_NO_PORT); /* cannot happen: distances have a next hop */
			continue;
		}
		rp_take(rp, s, d, (uint8_t)best, tg, true);
	}
	return 0;
}

/*
 * What a route from a neighbour v offers in rp_distance_around: v's
 * distance when v is in the set, else v's final route's length when its
 * shape fits (need: RP_VALID, RP_DOWN or 0 for any), else RP_INF.
 */
static uint16_t rp_offer(struct repair *rp, uint32_t v, const uint16_t *dist, uint8_t need,
			 uint16_t d, const struct rp_target *tg)
{
	if (rp->ustamp[v] == rp->round)
		return dist[v];
	if (rp->stamp[v] != rp->round)
		rp_walk(rp, v, d, tg, false);
	if (!(rp->st[v] & RP_FINAL) || (rp->st[v] & need) != need)
		return RP_INF;
	return rp->len[v];
}

/*
 * By distances, around the broken switches only (rp->todo, the ones not
 * final yet): their distances to the target over each other and into the
 * final switches around them (whose routes, intact or chosen to fit, are
 * as short as they can be), then each towards a neighbour one hop nearer,
 * nearest first.  O(broken x ports); 0 or -EAGAIN as rp_distance.
 */
static int rp_distance_around(struct repair *rp, uint16_t d, const struct rp_target *tg)
{
	uint32_t n = 0, nkeys = 2 * rp->n_sw + 2, top = 0;
	uint32_t *u = rp->order; /* the set, by level */
	bool changed = true;

	for (uint32_t i = 0; i < rp->n_todo; i++) {
		uint32_t s = rp->todo[i];

		if (rp->st[s] & RP_FINAL)
			continue;
		rp->ustamp[s] = rp->round;
		rp->todo[n++] = s;
		if (rp->updown && rp->level[s] > top)
			top = rp->level[s];
	}
	rp->n_todo = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rp->todo[i];

		rp->dd[s] = rp->ud[s] = rp->bd[s] = s == tg->t ? 0 : RP_INF;
	}
	if (rp->updown) {
		uint32_t k = 0;

		/* by level, lowest first: down-only distances */
		for (uint32_t l = 0; l <= top; l++)
			for (uint32_t i = 0; i < n; i++)
				if (rp->level[rp->todo[i]] == l)
					u[k++] = rp->todo[i];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = u[i];

			for (unsigned p = 1; p <= rp->np[s] && s != tg->t; p++) {
				uint32_t v = rp->adj[rp->poff[s] + p];
				uint16_t o;

				if (v == RP_NONE || rp->level[v] >= rp->level[s])
					continue;
				o = rp_offer(rp, v, rp->dd, RP_DOWN, d, tg);
				if (o != RP_INF && o + 1 < rp->dd[s])
					rp->dd[s] = o + 1;
			}
		}
		/* highest first: up*down* */
		for (uint32_t i = n; i-- > 0;) {
			uint32_t s = u[i];
			uint16_t best = rp->dd[s];

			for (unsigned p = 1; p <= rp->np[s] && s != tg->t; p++) {
				uint32_t v = rp->adj[rp->poff[s] + p];
				uint16_t o;

				if (v == RP_NONE || rp->level[v] <= rp->level[s])
					continue;
				o = rp_offer(rp, v, rp->ud, RP_VALID, d, tg);
				if (o != RP_INF && o + 1 < best)
					best = o + 1;
			}
			rp->ud[s] = best;
		}
	}
	/* plain distances: relaxed until nothing changes (the set is small, its depth smaller) */
	while (changed) {
		changed = false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = rp->todo[i];

			for (unsigned p = 1; p <= rp->np[s] && s != tg->t; p++) {
				uint32_t v = rp->adj[rp->poff[s] + p];
				uint16_t o;

				if (v == RP_NONE)
					continue;
				o = rp_offer(rp, v, rp->bd, 0, d, tg);
				if (o != RP_INF && o + 1 < rp->bd[s]) {
					rp->bd[s] = o + 1;
					changed = true;
				}
			}
		}
	}
	memset(rp->bucket, 0, (nkeys + 1) * sizeof(*rp->bucket));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rp->todo[i], key;

		if (rp->bd[s] == RP_INF) {
			rp_set(rp, s, d, LFT_NO_PORT); /* cut off from it */
			rp->queue[s] = RP_NONE;
			continue;
		}
		if (rp->updown && tg->ca && rp->level[s] == 0 && rp->ud[s] == RP_INF)
			return -EAGAIN;
		key = rp->updown && rp->ud[s] != RP_INF ? rp->ud[s] : rp->n_sw + 1 + rp->bd[s];
		rp->queue[s] = key;
		rp->bucket[key + 1]++;
	}
	for (uint32_t k = 1; k <= nkeys; k++)
		rp->bucket[k] += rp->bucket[k - 1];
	for (uint32_t i = 0; i < n; i++)
		if (rp->queue[rp->todo[i]] != RP_NONE)
			u[rp->bucket[rp->queue[rp->todo[i]]]++] = rp->todo[i];
	n = rp->bucket[nkeys];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = u[i], best = RP_NONE, best_load = 0;
		uint8_t cur = rp_row(rp, s)[d];
		bool ud = rp->updown && rp->ud[s] != RP_INF, down = ud && rp->dd[s] == rp->ud[s];

		if (s == tg->t) {
			rp_set(rp, s, d, tg->fp);
			rp->st[s] = RP_FINAL | RP_VALID | RP_DOWN;
			rp->len[s] = 0;
			continue;
		}
		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t v = rp->adj[rp->poff[s] + p];
			uint16_t o;

			if (v == RP_NONE)
				continue;
			if (down && rp->level[v] < rp->level[s])
				o = rp_offer(rp, v, rp->dd, RP_DOWN, d, tg),
				o = o == rp->dd[s] - 1 ? o : RP_INF;
			else if (ud && !down && rp->level[v] > rp->level[s])
				o = rp_offer(rp, v, rp->ud, RP_VALID, d, tg),
				o = o == rp->ud[s] - 1 ? o : RP_INF;
			else if (!ud)
				o = rp_offer(rp, v, rp->bd, 0, d, tg),
				o = o == rp->bd[s] - 1 ? o : RP_INF;
			else
				continue;
			/* a neighbour of the set is final already; one in it was taken before s */
			if (o == RP_INF || !(rp->st[v] & RP_FINAL))
				continue;
			if (rp_pick(rp, s, p, cur, &best, &best_load))
				break;
		}
		if (best == RP_NONE)
			return -EDOM; /* no neighbour nearer: the caller takes the whole way */
		rp_take(rp, s, d, (uint8_t)best, tg, false);
	}
	return 0;
}

/* LID d's target in f; false when no switch leads to its port. */
static bool rp_target(const struct repair *rp, uint16_t d, struct rp_target *tg)
{
	uint32_t o = d <= rp->map.max_lid ? rp->map.node[d] : FABRIC_NO_NODE;
	const struct node *n;
	const struct port *p;

	if (o == FABRIC_NO_NODE)
		return false;
	n = &rp->f->nodes[o];
	if (node_is_switch(n)) {
		*tg = (struct rp_target){rp->dense[o], 0, false};
		return tg->t != RP_NONE;
	}
	p = &n->ports[rp->map.port[d]];
	if (!port_is_linked(p) || rp->dense[p->remote_node] == RP_NONE)
		return false;
	*tg = (struct rp_target){rp->dense[p->remote_node], p->remote_port, true};
	return true;
}

/* LID d's owner is the same port in both fabrics. */
static bool rp_same_owner(const struct repair *rp, uint16_t d)
{
	uint32_t o = d <= rp->map.max_lid ? rp->map.node[d] : FABRIC_NO_NODE;
	uint32_t oo = d <= rp->omap.max_lid ? rp->omap.node[d] : FABRIC_NO_NODE;

	if (o == FABRIC_NO_NODE || oo == FABRIC_NO_NODE)
		return o == oo;
	return rp->f->nodes[o].guid == rp->of->nodes[oo].guid &&
	       rp->map.port[d] == rp->omap.port[d];
}

static uint32_t rp_unreachable(const struct repair *rp, uint16_t d, const struct lid_map *m)
{
	uint32_t n = 0;

	if (d > m->max_lid || m->node[d] == FABRIC_NO_NODE)
		return 0;
	for (uint32_t s = 0; s < rp->n_sw; s++)
		n += rp_row(rp, s)[d] == LFT_NO_PORT;
	return n;
}

static void rp_mark(struct repair *rp, uint32_t x)
{
	rp->stamp[x] = rp->round;
	rp->st[x] = 0;
	rp->len[x] = RP_INF;
	rp->todo[rp->n_todo++] = x;
}

/*
 * The switches whose route to d (owned by the same port as before) is
 * broken: where it crosses a changed port, then back along the switches
 * that forward d to a broken one.  Everything else is intact: a route that
 * crosses no changed port ends where it did.  Into rp->todo, not final.
 */
static void rp_broken(struct repair *rp, uint16_t d, const struct rp_target *tg)
{
	rp->round++;
	rp->n_todo = 0;
	for (uint32_t i = 0; i < rp->n_chsw; i++) {
		uint32_t c = rp->chsw[i];
		uint8_t e = rp_row(rp, c)[d];

		if (c == tg->t ? e != tg->fp
			       : e && e <= rp_node(rp, c)->nports && rp->chg[rp->poff[c] + e])
			rp_mark(rp, c);
	}
	if (rp->stamp[tg->t] != rp->round && rp_row(rp, tg->t)[d] != tg->fp)
		rp_mark(rp, tg->t);
	for (uint32_t i = 0; i < rp->n_todo; i++) {
		uint32_t x = rp->todo[i];

		for (unsigned q = 1; q <= rp->np[x]; q++) {
			uint32_t y = rp->adj[rp->poff[x] + q];

			if (y != RP_NONE && rp->stamp[y] != rp->round &&
			    rp_row(rp, y)[d] == rp->rport[rp->poff[x] + q])
				rp_mark(rp, y);
		}
	}
}

/*
 * The switches that had no table (rp->newsw, nearest the old ones first):
 * each towards the neighbour whose final route is shortest and fits the
 * shape (up*down*), least loaded on a tie.  Whether every one got a route.
 */
/*
 * An idle new switch s (rp->idle): towards the neighbour nearest the
 * target by hop distance whose route is final, whatever its shape (no
 * traffic enters at s and nobody forwards through it for d: a route that
 * reaches d loop-free is all it needs), least loaded among the nearest.
 * Whether one was found.
 */
static bool rp_fill_idle(struct repair *rp, uint32_t s, uint16_t d, const struct rp_target *tg)
{
	uint16_t near = RP_INF;

	for (unsigned p = 1; p <= rp->np[s]; p++) {
		uint32_t v = rp_peer(rp, s, p);
		uint16_t dv;

		if (v == RP_NONE || rp->nslot[v] == RP_NONE)
			continue;
		dv = rp->ndist[(size_t)rp->nslot[v] * rp->n_sw + tg->t];
		near = dv < near ? dv : near;
	}
	while (near != RP_INF) {
		uint32_t best = RP_NONE, best_load = 0;
		uint16_t next = RP_INF;

		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t v = rp_peer(rp, s, p), l;
			uint16_t dv;

			if (v == RP_NONE || rp->nslot[v] == RP_NONE)
				continue;
			dv = rp->ndist[(size_t)rp->nslot[v] * rp->n_sw + tg->t];
			if (dv > near) {
				next = dv < next ? dv : next;
				continue;
			}
			if (dv < near)
				continue;
			if (rp->stamp[v] != rp->round)
				rp_walk(rp, v, d, tg, false);
			if (!(rp->st[v] & RP_FINAL) || rp->len[v] == RP_INF)
				continue;
			l = rp_load(rp, s, p);
			if (best == RP_NONE || l < best_load) {
				best = p;
				best_load = l;
			}
		}
		if (best != RP_NONE) {
			rp_take(rp, s, d, (uint8_t)best, tg, false);
			return true;
		}
		near = next;
	}
	return false;
}

/*
 * The i-th new switch as its twin: through the port that leads where the
 * twin's entry for d leads, when that neighbour's route is final and fits
 * (any shape when the switch is idle).  Whether it was taken.
 */
static bool rp_fill_twin(struct repair *rp, uint32_t i, uint16_t d, const struct rp_target *tg)
{
	uint32_t s = rp->newsw[i], t = rp->twin[s], v;
	uint8_t q, p;

	if (t == RP_NONE)
		return false;
	q = rp_row(rp, t)[d];
	if (!q || q > rp->np[t] || !(p = rp->tport[(size_t)i * 256 + q]))
		return false;
	v = rp_peer(rp, s, p);
	if (v == RP_NONE)
		return false;
	if (rp->stamp[v] != rp->round)
		rp_walk(rp, v, d, tg, false);
	if (!(rp->st[v] & RP_FINAL) || rp->len[v] == RP_INF || (!rp->idle[s] && !rp_fits(rp, s, v)))
		return false;
	rp_take(rp, s, d, p, tg, false);
	return true;
}

static bool rp_fill_new(struct repair *rp, uint16_t d, const struct rp_target *tg)
{
	bool all = true;

	for (uint32_t i = 0; i < rp->n_new; i++) {
		uint32_t s = rp->newsw[i], best = RP_NONE, best_load = 0;
		uint16_t best_len = RP_INF;

		if (rp->stamp[s] == rp->round && (rp->st[s] & RP_FINAL))
			continue;
		rp->stamp[s] = rp->round;
		rp->st[s] = 0;
		rp->len[s] = RP_INF;
		if (s == tg->t) {
			rp_set(rp, s, d, tg->fp);
			rp->st[s] = RP_FINAL | RP_VALID | RP_DOWN;
			rp->len[s] = 0;
			continue;
		}
		if (rp_fill_twin(rp, i, d, tg))
			continue;
		if (rp->idle[s] && rp_fill_idle(rp, s, d, tg))
			continue;
		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t v = rp_peer(rp, s, p), l;

			if (v == RP_NONE || rp_hopeless(rp, s, v, tg))
				continue;
			if (rp->stamp[v] != rp->round)
				rp_walk(rp, v, d, tg, false);
			if (!rp_fits(rp, s, v) || rp->len[v] == RP_INF)
				continue;
			l = rp_load(rp, s, p);
			if (rp->len[v] < best_len || (rp->len[v] == best_len && l < best_load)) {
				best = p;
				best_len = rp->len[v];
				best_load = l;
			}
		}
		if (best == RP_NONE) {
			all = false;
			continue;
		}
		rp_take(rp, s, d, (uint8_t)best, tg, false);
	}
	return all;
}

/* The shape (RP_VALID, RP_DOWN) of a route from x that steps to y, whose route is final. */
static uint8_t rp_shape_via(const struct repair *rp, uint32_t x, uint32_t y)
{
	if (!rp->updown)
		return RP_VALID | RP_DOWN;
	if (rp->level[y] > rp->level[x])
		return rp->st[y] & RP_VALID ? RP_VALID : 0;
	if (rp->level[y] < rp->level[x])
		return rp->st[y] & RP_DOWN ? RP_VALID | RP_DOWN : 0;
	return 0;
}

/*
 * A link that came back between x (port px) and y: x's route to d takes it
 * when that is shorter and keeps the shape x's route had (whoever forwards
 * to x stays up*down*; a CA's traffic entering at x stays up*down*).
 * Whether it did.
 */
static bool rp_shorten(struct repair *rp, uint32_t x, uint8_t px, uint32_t y, uint16_t d,
		       const struct rp_target *tg)
{
	uint8_t now, was;
	uint16_t lx;

	if (x == tg->t || !(rp->st[y] & RP_FINAL) || rp->len[y] == RP_INF)
		return false;
	lx = rp->st[x] & RP_FINAL ? rp->len[x] : RP_INF;
	if (lx != RP_INF && rp->len[y] + 1u >= lx)
		return false;
	now = rp_shape_via(rp, x, y);
	was = rp->st[x] & RP_FINAL ? rp->st[x] & (RP_VALID | RP_DOWN) : 0;
	if (was & ~now)
		return false;
	if (rp->updown && tg->ca && rp->level[x] == 0 && !(now & RP_VALID))
		return false;
	rp_set(rp, x, d, px);
	return true;
}

/*
 * The links that came back between switches that were there: with updown,
 * an end whose route to d gets shorter over the link takes it (rp_shorten:
 * loop-free, as the other end's route is shorter than its own and so does
 * not cross it; the re-balance is the engine's, in the background).
 * Without updown (minimal routes promised): when one end is two hops or
 * more nearer d than the other, d is routed again by distances (a switch
 * whose shortest path now crosses the link reaches d through one of its
 * ends).  The number of switches whose entry moved; -1 when d was routed
 * again by distances.
 */
static int rp_improve(struct repair *rp, uint16_t d, const struct rp_target *tg)
{
	int n = 0;

	for (uint32_t i = 0; i < rp->n_added; i++) {
		const struct rp_link *l = &rp->added[i];

		rp->round++;
		rp_walk(rp, l->a, d, tg, false);
		rp_walk(rp, l->b, d, tg, false);
		if (!rp->updown) {
			uint16_t la = rp->st[l->a] & RP_FINAL ? rp->len[l->a] : RP_INF;
			uint16_t lb = rp->st[l->b] & RP_FINAL ? rp->len[l->b] : RP_INF;

			if ((la != RP_INF || lb != RP_INF) &&
			    (la == RP_INF || lb == RP_INF || la > lb + 1 || lb > la + 1)) {
				rp_distance(rp, d, tg);
				return -1;
			}
			continue;
		}
		if (rp_shorten(rp, l->a, l->pa, l->b, d, tg)) {
			n++;
			continue; /* b's route does not cross a (it is shorter) */
		}
		n += rp_shorten(rp, l->b, l->pb, l->a, d, tg);
	}
	return n;
}

/*
 * One LID's column: aff, what a change broke (or a new owner); else only
 * the switches that had no table, and the links that came back.
 */
static int rp_lid(struct repair *rp, uint16_t d, bool aff, struct repair_stats *st)
{
	struct rp_target tg;
	bool same = rp_same_owner(rp, d);
	uint32_t before = same ? 0 : rp_unreachable(rp, d, &rp->omap);
	int r = 0, imp;

	if (aff)
		st->lids++;
	rp->same_owner = same;
	rp->unr_delta = 0;
	if (!rp_target(rp, d, &tg)) {
		for (uint32_t s = 0; aff && s < rp->n_sw; s++)
			rp_set(rp, s, d, LFT_NO_PORT);
		st->lids_gone += aff;
		goto out;
	}
	if (!aff) {
		rp->round++;
		rp->n_todo = 0;
	} else if (same) {
		rp_broken(rp, d, &tg);
	} else {
		rp->round++;
		rp->n_todo = 0;
		for (uint32_t s = 0; s < rp->n_sw; s++) {
			rp_walk(rp, s, d, &tg, false);
			if (!(rp->st[s] & RP_FINAL))
				rp->todo[rp->n_todo++] = s;
		}
	}
	if (!rp->n_todo)
		goto added;
	if (rp_local(rp, d, &tg, same)) {
		st->lids_local++;
		goto added;
	}
	r = same ? rp_distance_around(rp, d, &tg) : -EDOM;
	if (r == -EDOM) {
		st->lids_whole++;
		r = rp_distance(rp, d, &tg);
	}
	st->lids_distance++;
	if (r < 0)
		goto out;
added:
	if (rp->n_new && !rp_fill_new(rp, d, &tg)) {
		/* a new switch with no neighbour to follow yet: all of it by distances */
		st->lids_whole++;
		r = rp_distance(rp, d, &tg);
		if (r < 0)
			goto out;
	}
	imp = rp->n_added ? rp_improve(rp, d, &tg) : 0;
	if (imp)
		st->lids_shorter++;
out:
	if (same) {
		rp->r->unreachable += (uint64_t)rp->unr_delta;
	} else {
		uint64_t after = rp_unreachable(rp, d, &rp->map);

		rp->r->unreachable =
		    rp->r->unreachable + after >= before ? rp->r->unreachable + after - before : 0;
	}
	return r;
}

/* Levels of the switches of fabric f (dense sw/dense given); false: a link within a level. */
static bool rp_levels(const struct fabric *f, const uint32_t *sw, const uint32_t *dense,
		      uint32_t n_sw, uint32_t *level, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < n_sw; s++) {
		const struct node *n = &f->nodes[sw[s]];

		level[s] = RP_NONE;
		for (unsigned p = 1; p <= n->nports; p++)
			if (port_is_linked(&n->ports[p]) &&
			    !node_is_switch(&f->nodes[n->ports[p].remote_node])) {
				level[s] = 0;
				queue[tail++] = s;
				break;
			}
	}
	while (head < tail) {
		uint32_t s = queue[head++];
		const struct node *n = &f->nodes[sw[s]];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t v;

			if (!port_is_linked(&n->ports[p]) ||
			    (v = dense[n->ports[p].remote_node]) == RP_NONE)
				continue;
			if (level[v] == RP_NONE) {
				level[v] = level[s] + 1;
				queue[tail++] = v;
			}
		}
	}
	for (uint32_t s = 0; s < n_sw; s++) {
		const struct node *n = &f->nodes[sw[s]];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t v;

			if (port_is_linked(&n->ports[p]) &&
			    (v = dense[n->ports[p].remote_node]) != RP_NONE && level[v] == level[s])
				return false;
		}
	}
	return true;
}

/* The levels of old_f's switches into rp->olevel (by node); false as rp_levels. */
static int rp_old_levels(struct repair *rp, bool *ret_ok)
{
	const struct fabric *of = rp->of;
	uint32_t *sw = malloc((of->n_nodes + 1) * sizeof(*sw));
	uint32_t *dense = malloc((of->n_nodes + 1) * sizeof(*dense));
	uint32_t *level = malloc((of->n_nodes + 1) * sizeof(*level));
	uint32_t *queue = malloc((of->n_nodes + 1) * sizeof(*queue));
	uint32_t n = 0;
	int r = -ENOMEM;

	if (!sw || !dense || !level || !queue)
		goto out;
	for (uint32_t i = 0; i < of->n_nodes; i++) {
		dense[i] = RP_NONE;
		if (node_is_switch(&of->nodes[i])) {
			dense[i] = n;
			sw[n++] = i;
		}
	}
	*ret_ok = rp_levels(of, sw, dense, n, level, queue);
	for (uint32_t i = 0; i < of->n_nodes; i++)
		rp->olevel[i] = dense[i] == RP_NONE ? RP_NONE : level[dense[i]];
	r = 0;
out:
	free(sw);
	free(dense);
	free(level);
	free(queue);
	return r;
}

static void rp_free(struct repair *rp)
{
	fabric_lid_map_clear(&rp->map);
	fabric_lid_map_clear(&rp->omap);
	free(rp->sw);
	free(rp->dense);
	free(rp->old);
	free(rp->level);
	free(rp->olevel);
	free(rp->poff);
	free(rp->chg);
	free(rp->adj);
	free(rp->rport);
	free(rp->np);
	free(rp->stamp);
	free(rp->st);
	free(rp->len);
	free(rp->ostamp);
	free(rp->olen);
	free(rp->stack);
	free(rp->todo);
	free(rp->queue);
	free(rp->order);
	free(rp->bucket);
	free(rp->dd);
	free(rp->ud);
	free(rp->bd);
	free(rp->by_level);
	free(rp->touched);
	free(rp->chsw);
	free(rp->ustamp);
	free(rp->newsw);
	free(rp->added);
	free(rp->idle);
	free(rp->nslot);
	free(rp->ndist);
	free(rp->twin);
	free(rp->tport);
}

static int rp_refuse(struct repair_stats *st, const char *why)
{
	snprintf(st->why, sizeof(st->why), "%s", why);
	return -EAGAIN;
}

/*
 * Node i of f is an idle switch: no CA, and no neighbour forwards anything
 * through it but its own LID (a switch back, before the engine re-balances
 * onto it): no traffic crosses it, so what its row sends out of its ports
 * is no load.
 */
static bool rp_idle(const struct repair *rp, uint32_t i)
{
	uint32_t s = rp->dense[i];
	const struct node *n;

	if (s == RP_NONE || !rp->updown)
		return false;
	n = rp_node(rp, s);
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct port *pp = &n->ports[p];
		uint32_t v;

		if (!port_is_linked(pp))
			continue;
		v = rp->dense[pp->remote_node];
		if (v == RP_NONE || rp_load(rp, v, pp->remote_port) > 1)
			return false;
	}
	return true;
}

/* Busiest linked switch port of routes x over fabric g (rp: of f, idle switches left out). */
static uint32_t rp_max_port(const struct fabric *g, const struct routes *x, const struct repair *rp)
{
	uint32_t best = 0;

	for (uint32_t i = 0; i < g->n_nodes && i < x->n_nodes; i++) {
		const struct node *n = &g->nodes[i];

		if (x->load_at[i] == UINT32_MAX || (rp && rp_idle(rp, i)))
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			if (port_is_linked(&n->ports[p]) && x->load[x->load_at[i] + p] > best)
				best = x->load[x->load_at[i] + p];
	}
	return best;
}

/*
 * The most a switch link of a changed switch would carry were its switch
 * links sharing what they carry evenly (a lost uplink's share goes to the
 * others: the drift bound is measured from there).
 */
static uint32_t rp_even_share(const struct repair *rp)
{
	uint32_t best = 0;

	for (uint32_t s = 0; s < rp->n_sw; s++) {
		const struct node *n = rp_node(rp, s);
		uint64_t sum = 0, cnt = 0;

		if (!rp->touched[s] || rp_idle(rp, rp->sw[s]))
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			if (rp_peer(rp, s, p) != RP_NONE) {
				sum += rp_load(rp, s, p);
				cnt++;
			}
		if (cnt && (sum + cnt - 1) / cnt > best)
			best = (uint32_t)((sum + cnt - 1) / cnt);
	}
	return best;
}

/* Hop distances from switch v to every switch, into dist (n_sw entries). */
static void rp_bfs_from(struct repair *rp, uint32_t v, uint16_t *dist)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < rp->n_sw; s++)
		dist[s] = RP_INF;
	dist[v] = 0;
	rp->queue[tail++] = v;
	while (head < tail) {
		uint32_t x = rp->queue[head++];

		for (unsigned p = 1; p <= rp->np[x]; p++) {
			uint32_t y = rp->adj[rp->poff[x] + p];

			if (y != RP_NONE && dist[y] == RP_INF) {
				dist[y] = dist[x] + 1;
				rp->queue[tail++] = y;
			}
		}
	}
}

/* The switches s links to, sorted, each once, into out (256 entries); how many. */
static unsigned rp_nbrs(const struct repair *rp, uint32_t s, uint32_t *out)
{
	unsigned n = 0;

	for (unsigned p = 1; p <= rp->np[s]; p++) {
		uint32_t v = rp_peer(rp, s, p), j;

		if (v == RP_NONE)
			continue;
		for (j = n; j > 0 && out[j - 1] > v; j--)
			out[j] = out[j - 1];
		if (j > 0 && out[j - 1] == v) {
			memmove(out + j, out + j + 1, (n - j) * sizeof(*out));
			continue;
		}
		out[j] = v;
		n++;
	}
	return n;
}

/* A twin for every new switch that has one (rp->twin, rp->tport).  0 or -ENOMEM. */
static int rp_setup_twins(struct repair *rp)
{
	uint32_t a[256], b[256];

	rp->twin = malloc((rp->n_sw + 1) * sizeof(*rp->twin));
	rp->tport = calloc((size_t)rp->n_new * 256 + 1, 1);
	if (!rp->twin || !rp->tport)
		return -ENOMEM;
	for (uint32_t s = 0; s < rp->n_sw; s++)
		rp->twin[s] = RP_NONE;
	for (uint32_t i = 0; i < rp->n_new; i++) {
		uint32_t s = rp->newsw[i], t = RP_NONE;
		unsigned na = rp_nbrs(rp, s, a);

		/* a twin shares every neighbour: look among the first one's */
		for (unsigned p = 1; na && p <= rp->np[a[0]] && t == RP_NONE; p++) {
			uint32_t u = rp_peer(rp, a[0], p);

			if (u == RP_NONE || u == s || rp->old[u] == RP_NONE ||
			    (rp->updown && rp->level[u] != rp->level[s]) ||
			    rp_nbrs(rp, u, b) != na || memcmp(a, b, na * sizeof(*a)))
				continue;
			t = u;
		}
		if (t == RP_NONE)
			continue;
		rp->twin[s] = t;
		for (unsigned q = 1; q <= rp->np[t]; q++) {
			uint32_t v = rp_peer(rp, t, q);

			for (unsigned p = 1; v != RP_NONE && p <= rp->np[s]; p++)
				if (rp_peer(rp, s, p) == v) {
					rp->tport[(size_t)i * 256 + q] = (uint8_t)p;
					break;
				}
		}
	}
	return 0;
}

/* At most this many neighbours get a row of hop distances (rp->ndist) for the idle new switches. */
#define RP_IDLE_MAX_SLOTS 4096

/* Which new switches are idle (no CA), and their neighbours' hop distances.  0 or -ENOMEM. */
static int rp_setup_idle(struct repair *rp)
{
	uint32_t n_slots = 0;

	rp->idle = calloc(rp->n_sw + 1, 1);
	rp->nslot = malloc((rp->n_sw + 1) * sizeof(*rp->nslot));
	if (!rp->idle || !rp->nslot)
		return -ENOMEM;
	for (uint32_t s = 0; s < rp->n_sw; s++)
		rp->nslot[s] = RP_NONE;
	for (uint32_t i = 0; i < rp->n_new; i++) {
		uint32_t s = rp->newsw[i];
		const struct node *n = rp_node(rp, s);
		bool ca = false;

		for (unsigned p = 1; p <= n->nports && !ca; p++)
			ca = port_is_linked(&n->ports[p]) &&
			     !node_is_switch(&rp->f->nodes[n->ports[p].remote_node]);
		if (ca)
			continue;
		rp->idle[s] = 1;
		for (unsigned p = 1; p <= rp->np[s]; p++) {
			uint32_t v = rp_peer(rp, s, p);

			if (v != RP_NONE && rp->nslot[v] == RP_NONE && n_slots < RP_IDLE_MAX_SLOTS)
				rp->nslot[v] = n_slots++;
		}
	}
	if (rp_setup_twins(rp) < 0)
		return -ENOMEM;
	if (!n_slots)
		return 0;
	rp->ndist = malloc((size_t)n_slots * rp->n_sw * sizeof(*rp->ndist));
	if (!rp->ndist)
		return -ENOMEM;
	for (uint32_t v = 0; v < rp->n_sw; v++)
		if (rp->nslot[v] != RP_NONE)
			rp_bfs_from(rp, v, rp->ndist + (size_t)rp->nslot[v] * rp->n_sw);
	return 0;
}

/* Switches, their old selves, the changed ports; -EAGAIN when f is not old_f minus a few things. */
static int rp_setup(struct repair *rp, struct repair_stats *st)
{
	const struct fabric *f = rp->f, *of = rp->of;
	size_t n_ports = 0;
	uint32_t n = f->n_nodes + 1;

	rp->sw = malloc(n * sizeof(*rp->sw));
	rp->dense = malloc(n * sizeof(*rp->dense));
	if (!rp->sw || !rp->dense)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		rp->dense[i] = RP_NONE;
		if (node_is_switch(&f->nodes[i])) {
			rp->dense[i] = rp->n_sw;
			rp->sw[rp->n_sw++] = i;
		}
	}
	n = rp->n_sw + 1;
	rp->old = malloc(n * sizeof(*rp->old));
	rp->level = malloc(n * sizeof(*rp->level));
	rp->poff = malloc(n * sizeof(*rp->poff));
	rp->stamp = calloc(n, sizeof(*rp->stamp));
	rp->st = calloc(n, 1);
	rp->len = calloc(n, sizeof(*rp->len));
	rp->stack = malloc(((size_t)n + of->n_nodes) * sizeof(*rp->stack));
	rp->todo = malloc(n * sizeof(*rp->todo));
	rp->queue = malloc(n * sizeof(*rp->queue));
	rp->order = malloc(n * sizeof(*rp->order));
	rp->bucket = malloc((2 * (size_t)n + 3) * sizeof(*rp->bucket));
	rp->dd = malloc(n * sizeof(*rp->dd));
	rp->ud = malloc(n * sizeof(*rp->ud));
	rp->bd = malloc(n * sizeof(*rp->bd));
	rp->by_level = malloc(n * sizeof(*rp->by_level));
	rp->touched = calloc(n, 1);
	rp->chsw = malloc(n * sizeof(*rp->chsw));
	rp->ustamp = calloc(n, sizeof(*rp->ustamp));
	rp->ostamp = calloc(of->n_nodes + 1, sizeof(*rp->ostamp));
	rp->olen = calloc(of->n_nodes + 1, sizeof(*rp->olen));
	rp->olevel = malloc((of->n_nodes + 1) * sizeof(*rp->olevel));
	rp->newsw = malloc(n * sizeof(*rp->newsw));
	if (!rp->old || !rp->level || !rp->poff || !rp->stamp || !rp->st || !rp->len ||
	    !rp->stack || !rp->todo || !rp->queue || !rp->order || !rp->bucket || !rp->dd ||
	    !rp->ud || !rp->bd || !rp->by_level || !rp->touched || !rp->chsw || !rp->ustamp ||
	    !rp->ostamp || !rp->olen || !rp->olevel || !rp->newsw)
		return -ENOMEM;
	for (uint32_t s = 0; s < rp->n_sw; s++) {
		const struct node *nd = rp_node(rp, s);
		uint32_t o = fabric_find_guid(of, nd->guid);

		/* a switch with no table before (new, or back): its row is routed whole */
		if (o == FABRIC_NO_NODE || !node_is_switch(&of->nodes[o]) ||
		    of->nodes[o].nports != nd->nports || o >= rp->or->n_nodes || !rp->or->lft[o])
			o = RP_NONE;
		rp->old[s] = o;
		rp->poff[s] = (uint32_t)n_ports;
		n_ports += (size_t)nd->nports + 1;
	}
	rp->chg = calloc(n_ports + 1, 1);
	rp->adj = malloc((n_ports + 1) * sizeof(*rp->adj));
	rp->rport = calloc(n_ports + 1, 1);
	rp->np = malloc(rp->n_sw + 1);
	rp->added = malloc((n_ports / 2 + 1) * sizeof(*rp->added));
	if (!rp->chg || !rp->adj || !rp->rport || !rp->np || !rp->added)
		return -ENOMEM;
	for (uint32_t s = 0; s < rp->n_sw; s++) {
		const struct node *nd = rp_node(rp, s);
		const struct node *on = rp->old[s] == RP_NONE ? NULL : &of->nodes[rp->old[s]];

		rp->np[s] = nd->nports;
		rp->adj[rp->poff[s]] = RP_NONE;
		for (unsigned p = 1; p <= nd->nports; p++) {
			const struct port *np = &nd->ports[p], *op = on ? &on->ports[p] : NULL;
			bool nl = port_is_linked(np), ol = op && port_is_linked(op);
			uint32_t v;

			rp->adj[rp->poff[s] + p] = nl ? rp->dense[np->remote_node] : RP_NONE;
			rp->rport[rp->poff[s] + p] = nl ? np->remote_port : 0;

			if (on && nl == ol &&
			    (!nl ||
			     (of->nodes[op->remote_node].guid == f->nodes[np->remote_node].guid &&
			      op->remote_port == np->remote_port)))
				continue;
			if (!rp->n_chsw || rp->chsw[rp->n_chsw - 1] != s)
				rp->chsw[rp->n_chsw++] = s;
			rp->chg[rp->poff[s] + p] = 1;
			v = nl ? rp->dense[np->remote_node] : RP_NONE;
			if (v == RP_NONE)
				continue;
			st->links_added += s < v || (s == v && p < np->remote_port);
			/* between two switches that were there: it may shorten routes */
			if (on && rp->old[v] != RP_NONE &&
			    (s < v || (s == v && p < np->remote_port)))
				rp->added[rp->n_added++] =
				    (struct rp_link){s, v, (uint8_t)p, np->remote_port};
		}
	}
	for (uint32_t s = 0; s < rp->n_sw; s++)
		st->switches_added += rp->old[s] == RP_NONE;
	if (st->switches_added && !rp->updown)
		return rp_refuse(st, "a switch is new (minimal routes: the engine's)");
	if (st->switches_added) {
		/* the new switches, breadth first from the old ones */
		uint32_t head = 0;

		for (uint32_t s = 0; s < rp->n_sw; s++) {
			bool near = false;

			rp->ustamp[s] = 0;
			for (unsigned p = 1; rp->old[s] == RP_NONE && p <= rp->np[s] && !near;
			     p++) {
				uint32_t v = rp_peer(rp, s, p);

				near = v != RP_NONE && rp->old[v] != RP_NONE;
			}
			if (near) {
				rp->ustamp[s] = 1;
				rp->newsw[rp->n_new++] = s;
			}
		}
		while (head < rp->n_new) {
			uint32_t s = rp->newsw[head++];

			for (unsigned p = 1; p <= rp->np[s]; p++) {
				uint32_t v = rp_peer(rp, s, p);

				if (v != RP_NONE && rp->old[v] == RP_NONE && !rp->ustamp[v]) {
					rp->ustamp[v] = 1;
					rp->newsw[rp->n_new++] = v;
				}
			}
		}
		for (uint32_t s = 0; s < rp->n_sw; s++) {
			if (rp->old[s] == RP_NONE && !rp->ustamp[s])
				rp->newsw[rp->n_new++] = s; /* no switch leads to it: cut off */
			rp->ustamp[s] = 0;
		}
		if (rp_setup_idle(rp) < 0)
			return -ENOMEM;
	}
	if (rp->updown) {
		bool ok = true;
		uint32_t top = 0, n_lv;

		if (!rp_levels(f, rp->sw, rp->dense, rp->n_sw, rp->level, rp->queue))
			return rp_refuse(st, "a switch link within a level");
		if (rp_old_levels(rp, &ok) < 0)
			return -ENOMEM;
		for (uint32_t s = 0; ok && s < rp->n_sw; s++)
			ok = rp->old[s] == RP_NONE || rp->olevel[rp->old[s]] == rp->level[s];
		if (!ok)
			return rp_refuse(st, "the levels of the switches changed");
		for (uint32_t s = 0; s < rp->n_sw; s++)
			if (rp->level[s] != RP_NONE && rp->level[s] > top)
				top = rp->level[s];
		n_lv = 0;
		for (uint32_t l = top + 1; l-- > 0;)
			for (uint32_t s = 0; s < rp->n_sw; s++)
				if (rp->level[s] == l)
					rp->by_level[n_lv++] = s;
		for (uint32_t s = 0; s < rp->n_sw; s++)
			if (rp->level[s] == RP_NONE) {
				rp->level[s] = 0; /* no CA below it at all: as a leaf */
				rp->by_level[n_lv++] = s;
			}
	}
	return 0;
}

int routes_repair(const struct fabric *old_f, const struct routes *old_r, const struct fabric *f,
		  bool updown, double max_drift, double max_lids_pct, struct routes_spare *spare,
		  struct routes **ret, struct repair_stats *st)
{
	struct repair rp = {.of = old_f, .f = f, .or = old_r, .updown = updown};
	uint8_t *aff = NULL;
	uint32_t owned = 0, n_aff = 0, bound;
	uint16_t max_lid;
	int r;

	memset(st, 0, sizeof(*st));
	if (!old_f || !old_r || !f || old_r->n_vls > 1 || old_r->lid_sl || old_r->path_sl)
		return rp_refuse(st, "no single-VL routes to repair");
	if (fabric_lid_map(f, &rp.map) < 0 || fabric_lid_map(old_f, &rp.omap) < 0) {
		rp_free(&rp);
		return rp_refuse(st, "LIDs not unique");
	}
	r = rp_setup(&rp, st);
	if (r < 0)
		goto out;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].nports; p++)
			if (f->nodes[i].ports[p].lmc) {
				r = rp_refuse(st, "LMC above 0");
				goto out;
			}
	max_lid = rp.map.max_lid > old_r->max_lid ? rp.map.max_lid : old_r->max_lid;
	/* the LIDs to look at: whose port changed, and what a changed port carried */
	aff = calloc((size_t)max_lid + 1, 1);
	if (!aff) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t d = 1; d <= max_lid; d++) {
		aff[d] = !rp_same_owner(&rp, (uint16_t)d);
		owned += d <= rp.map.max_lid && rp.map.node[d] != FABRIC_NO_NODE;
	}
	for (uint32_t s = 0; s < rp.n_sw; s++) {
		const uint8_t *orow = rp.old[s] == RP_NONE ? NULL : old_r->lft[rp.old[s]];
		unsigned np = rp_node(&rp, s)->nports;
		bool any = false;
		uint8_t c[256] = {0};

		for (unsigned p = 1; orow && p <= np; p++)
			any |= c[p] = rp.chg[rp.poff[s] + p];
		if (!any)
			continue;
		for (uint32_t d = 1; d <= old_r->max_lid; d++)
			if (c[orow[d]])
				aff[d] = 1;
	}
	for (uint32_t d = 1; d <= max_lid; d++)
		n_aff += aff[d];
	if (n_aff > max_lids_pct / 100.0 * (owned ? owned : 1)) {
		snprintf(st->why, sizeof(st->why), "%u of %u LIDs touched: more than %.0f %%",
			 n_aff, owned, max_lids_pct);
		r = -EAGAIN;
		goto out;
	}
	/* the tables the switches hold, and their port counts */
	rp.r = routes_new_unfilled(f, max_lid, spare);
	if (!rp.r) {
		r = -ENOMEM;
		goto out;
	}
	rp.r->load_at = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*rp.r->load_at));
	rp.r->load = malloc((rp.poff && rp.n_sw
				 ? rp.poff[rp.n_sw - 1] + rp_node(&rp, rp.n_sw - 1)->nports + 1
				 : 1) *
			    sizeof(*rp.r->load));
	if (!rp.r->load_at || !rp.r->load) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++)
		rp.r->load_at[i] = rp.dense[i] == RP_NONE ? UINT32_MAX : rp.poff[rp.dense[i]];
	for (uint32_t s = 0; s < rp.n_sw; s++) {
		uint8_t *row = rp_row(&rp, s);

		if (rp.old[s] == RP_NONE) {
			memset(row, LFT_NO_PORT, (size_t)max_lid + 1);
			continue;
		}
		memcpy(row, old_r->lft[rp.old[s]], (size_t)old_r->max_lid + 1);
		if (max_lid > old_r->max_lid)
			memset(row + old_r->max_lid + 1, LFT_NO_PORT, max_lid - old_r->max_lid);
	}
	if (old_r->load && old_r->load_at) {
		uint32_t oowned = 0;

		for (uint32_t s = 0; s < rp.n_sw; s++) {
			size_t np = (size_t)rp_node(&rp, s)->nports + 1;

			if (rp.old[s] == RP_NONE)
				memset(rp.r->load + rp.poff[s], 0, np * sizeof(*rp.r->load));
			else
				memcpy(rp.r->load + rp.poff[s],
				       old_r->load + old_r->load_at[rp.old[s]],
				       np * sizeof(*rp.r->load));
		}
		/* a new switch's row: every LID with an owner unreachable, until routed */
		for (uint32_t d = 1; rp.n_new && d <= max_lid && d <= rp.omap.max_lid; d++)
			oowned += rp.omap.node[d] != FABRIC_NO_NODE;
		rp.r->unreachable = old_r->unreachable + (uint64_t)oowned * rp.n_new;
		st->max_port_before = rp_max_port(old_f, old_r, NULL);
	} else {
		struct routes *tmp = rp.r;
		uint32_t *at = tmp->load_at;

		tmp->load_at = NULL;
		free(tmp->load);
		tmp->load = NULL;
		free(at);
		if (routes_load_count(tmp, f, &rp.omap) < 0) {
			r = -ENOMEM;
			goto out;
		}
		st->max_port_before = rp_max_port(f, tmp, NULL);
	}
	for (uint32_t d = 1; d <= max_lid; d++) {
		if (!aff[d] && !rp.n_new && !rp.n_added)
			continue;
		r = rp_lid(&rp, (uint16_t)d, aff[d], st);
		if (r == -EAGAIN) {
			snprintf(st->why, sizeof(st->why),
				 "LID %u: a switch with a CA has no up*down* route to it", d);
			goto out;
		}
	}
	st->moved = rp.moved;
	st->max_port = rp_max_port(f, rp.r, &rp);
	bound = rp_even_share(&rp);
	if (bound < st->max_port_before)
		bound = st->max_port_before;
	if (st->max_port > bound * (1.0 + max_drift)) {
		snprintf(st->why, sizeof(st->why),
			 "the busiest port would carry %u LIDs where %u would be even: re-balanced",
			 st->max_port, bound);
		r = -EAGAIN;
		goto out;
	}
	*ret = rp.r;
	rp.r = NULL;
	r = 0;
out:
	free(aff);
	routes_free(rp.r);
	rp_free(&rp);
	return r;
}

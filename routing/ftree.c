/*
 * Fat-tree routing.  IBA 1.4 vol 1, 18.2.4.3.2 (linear forwarding tables);
 * the algorithm follows Zahavi et al., "Optimized InfiniBand fat-tree
 * routing for shift all-to-all communication patterns" (2009), as OpenSM's
 * ftree does, with these differences:
 *  - levels come from the topology alone: leaves are the switches with CAs,
 *    a switch's level is its distance from the nearest leaf, and every
 *    switch-to-switch link must join adjacent levels (else -ENOTSUP with
 *    the offending link); partly populated trees, parallel links and
 *    dual-ported CAs need no special case;
 *  - every switch, spines included, gets a route to every LID, switch LIDs
 *    too, and every route is minimal;
 *  - a tree OpenSM would call irregular is routed, not refused, as long as
 *    every leaf has an up/down path to every other leaf; a leaf without one
 *    to a switch above the leaves (a missing link: a leaf cut off from one
 *    middle switch of its pod) reaches that switch's own LID by a detour.
 *    That is management traffic only, and the one place where a route
 *    turns down then up from a leaf: with CA traffic it may close a credit
 *    loop on VL 0 (test_engines counts how often on random layered graphs:
 *    2 in 400).  CA-to-CA traffic stays up*down*.
 *
 * For each destination switch t (in GUID order), U[y] is the length of the
 * shortest up*down* path from y to t: level(y) - level(t) for t's ancestors
 * (switches with an all-down path to t), else one more than the best
 * up-neighbour's.  Then for each LID on t (CA LIDs by t's port number, then
 * t's own LID, which uses separate load counters so it does not disturb the
 * balance of CA traffic):
 *  1. the "down chain": from t upwards to the top level, each step takes the
 *     up-link whose parent has routed the fewest CA LIDs down that very link
 *     so far (parallel links count separately).  The chain's switches route
 *     the LID down along it;
 *  2. going down from the chain, level by level: a switch not yet routed,
 *     not an ancestor of t, and one hop further from t than the switch above
 *     it, routes up to that switch (among parallel links, the least loaded).
 *     So all traffic to the LID converges on its chain as early as possible,
 *     and since every leaf spreads its LIDs over its uplinks and every chain
 *     step balances the next level, all-to-all load is even;
 *  3. other ancestors route down (least-loaded candidate), other switches up
 *     (round-robin over candidates).  Those carry no CA-to-CA traffic to this
 *     LID in a full tree; they keep every entry valid.
 *  4. switches without any up/down path to t (top switches, towards another
 *     switch's LID) take the shortest route that joins the up/down region.
 *     Only traffic that starts on such a switch turns down then up: every
 *     CA's traffic is up*down*, so there is no credit loop.
 *
 * Levels are first taken from the leaves; when that leaves a leaf without
 * an up/down path (the empty leaves of a partly populated 3-level tree then
 * look like tops), they are taken from the top instead (see ftree_levels).
 * When tops sit on several levels, up/down paths are checked against true
 * hop counts: a leaf that would need a longer path refuses the tree, other
 * switches take a shortest detour.
 *
 * Cost: O(switches x links) for the hop counts plus O(LIDs x switches) for
 * the tables; memory: the tables plus O(switch ports) counters.  Most
 * destinations need far less than a pass over the links: the hop counts
 * of a leaf stop at a lower bound, those of a switch above the leaves are
 * pushed down from the few switches with an up/down path, and detours in
 * a tree with all tops on the top level are counted from below (Dial's
 * buckets only when that is not the shortest way).  Each LID's routes go
 * to a column buffer written into the tables 64 LIDs at a time.  3-level
 * k=56 tree (3,920 switches, 47,824 LIDs): about 1.2 s plus 0.5 s for
 * allocating the 190 MB of tables (routes_new), 240 MB peak.  Pure: no
 * I/O, no globals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"

#define FTREE_INF UINT32_MAX
#define FTREE_BATCH 64

struct ftree_link {
	uint32_t nbr; /* dense switch index */
	uint8_t port; /* local port */
	uint8_t rport;
};

struct ftree {
	const struct fabric *f;
	struct lid_map map;
	uint32_t n_sw;
	uint32_t *sw_node; /* dense index (GUID order) -> node */
	uint32_t *sw_of;   /* node -> dense index */
	uint8_t **lft;	   /* per dense index */
	/*
	 * Routes are computed one LID at a time, for every switch: a column of
	 * the tables.  Columns go to a buffer (a byte per switch, LFT_NO_PORT
	 * while not routed) and are written out FTREE_BATCH at a time, row by
	 * row: writing them straight into the tables touches a page per switch
	 * per LID.
	 */
	uint8_t *cols;
	uint16_t batch_lid[FTREE_BATCH];
	uint32_t n_batch;
	uint32_t *level, max_level;
	bool clean;	       /* every switch without up-links is on the top level */
	bool leaf_detours_ok;  /* a leaf may reach a switch's LID by a detour (last attempt) */
	uint32_t leaf_detours; /* (leaf, switch LID) pairs routed by a detour (a damaged tree) */
	uint32_t *dist;	       /* true hop counts to t, when !clean */
	bool *has_ca;
	/* links: up[] then down[] per switch */
	uint32_t *up_start, *dn_start;
	struct ftree_link *up, *dn;
	uint32_t *all_start; /* every switch link, for detours */
	struct ftree_link *all;
	uint32_t *pbase; /* per switch: first slot of its ports in per-port arrays */
	uint32_t n_slots;
	uint8_t *par_next;  /* [pbase[s] + p]: next port of s to the same neighbour */
	uint32_t *by_level; /* switches by decreasing level */
	/* per destination */
	uint32_t *u;   /* hop counts to t */
	uint32_t *key; /* u of the switches step 2 may claim, else FTREE_INF */
	uint32_t *anc; /* stamp: ancestor of t (or t) when == t_epoch */
	uint32_t t_epoch;
	uint32_t *anc_list, n_anc; /* t first, then by BFS */
	uint32_t *anc_idx;	   /* switch -> index in anc_list, for ancestors */
	uint32_t *anc_cand;	   /* [n_anc + 1]: ancestor i's down candidates */
	uint32_t *cand_cur;	   /* scratch for the counting sort */
	uint32_t *pair_anc;	   /* scratch: (ancestor index, port) pairs */
	uint8_t *pair_port;
	uint8_t *cand_port;
	bool *detour;
	uint32_t *rest, n_rest;	     /* non-ancestors with an up/down path */
	uint32_t *detours, n_detour; /* switches without one, each with... */
	uint32_t *det_cand;	     /* [n_detour + 1]: ...its ports one hop closer */
	uint8_t *det_port;
	uint32_t *det_ucand; /* the same, up-links (ftree_detours_up only) */
	uint8_t *det_uport;
	uint32_t *inf, *lvl_min; /* scratch of ftree_detours_up */
	uint32_t *bucket_head, *bucket_next;
	/* per LID */
	uint32_t *front, *next_front;
	uint32_t *chain_at; /* chain switch per level */
	/* load counters: [0] CA LIDs, [1] switch LIDs */
	uint16_t *chain_cnt[2], *port_cnt[2]; /* a port carries at most 49151 LIDs */
	uint16_t *rr;
};

static void ftree_clear(struct ftree *ft)
{
	fabric_lid_map_clear(&ft->map);
	free(ft->sw_node);
	free(ft->sw_of);
	free(ft->lft);
	free(ft->level);
	free(ft->dist);
	free(ft->has_ca);
	free(ft->up_start);
	free(ft->dn_start);
	free(ft->up);
	free(ft->dn);
	free(ft->all_start);
	free(ft->all);
	free(ft->par_next);
	free(ft->pbase);
	free(ft->by_level);
	free(ft->u);
	free(ft->anc);
	free(ft->anc_list);
	free(ft->key);
	free(ft->anc_idx);
	free(ft->anc_cand);
	free(ft->cand_cur);
	free(ft->pair_anc);
	free(ft->pair_port);
	free(ft->cand_port);
	free(ft->det_cand);
	free(ft->det_port);
	free(ft->det_ucand);
	free(ft->det_uport);
	free(ft->inf);
	free(ft->lvl_min);
	free(ft->detour);
	free(ft->rest);
	free(ft->detours);
	free(ft->bucket_head);
	free(ft->bucket_next);
	free(ft->front);
	free(ft->next_front);
	free(ft->chain_at);
	free(ft->chain_cnt[0]);
	free(ft->chain_cnt[1]);
	free(ft->port_cnt[0]);
	free(ft->port_cnt[1]);
	free(ft->rr);
	free(ft->cols);
}

static uint64_t ftree_guid(const struct ftree *ft, uint32_t s)
{
	return ft->f->nodes[ft->sw_node[s]].guid;
}

/* Index switches, find levels, check the layering.  0, -ENOTSUP, -ENOMEM. */
static int ftree_setup(struct ftree *ft, const struct fabric *f, char *why, size_t why_len)
{
	uint32_t n = f->n_nodes, i, s, n_all = 0;
	size_t nn;
	unsigned int p;
	int err;

	ft->f = f;
	err = routing_lid_map(f, &ft->map, why, why_len);
	if (!err)
		err = routing_switch_index(f, &ft->sw_node, &ft->sw_of, &ft->n_sw);
	if (err)
		return err;

	nn = (size_t)ft->n_sw + 2;
	ft->level = malloc(nn * sizeof(*ft->level));
	ft->has_ca = calloc(nn, sizeof(*ft->has_ca));
	ft->up_start = calloc(nn, sizeof(*ft->up_start));
	ft->dn_start = calloc(nn, sizeof(*ft->dn_start));
	ft->all_start = calloc(nn, sizeof(*ft->all_start));
	ft->by_level = malloc(nn * sizeof(*ft->by_level));
	ft->u = malloc(nn * sizeof(*ft->u));
	ft->dist = malloc(nn * sizeof(*ft->dist));
	ft->anc = calloc(nn, sizeof(*ft->anc));
	ft->anc_list = malloc(nn * sizeof(*ft->anc_list));
	ft->key = malloc(nn * sizeof(*ft->key));
	ft->anc_idx = malloc(nn * sizeof(*ft->anc_idx));
	ft->anc_cand = malloc((nn + 1) * sizeof(*ft->anc_cand));
	ft->cand_cur = malloc((nn + 1) * sizeof(*ft->cand_cur));
	ft->det_cand = malloc((nn + 1) * sizeof(*ft->det_cand));
	ft->det_ucand = malloc((nn + 1) * sizeof(*ft->det_ucand));
	ft->inf = malloc(nn * sizeof(*ft->inf));
	ft->lvl_min = malloc(nn * sizeof(*ft->lvl_min));
	if (!ft->key || !ft->anc_idx || !ft->anc_cand || !ft->cand_cur || !ft->det_cand ||
	    !ft->det_ucand || !ft->inf || !ft->lvl_min)
		return -ENOMEM;
	ft->detour = calloc(nn, sizeof(*ft->detour));
	ft->rest = malloc(nn * sizeof(*ft->rest));
	ft->detours = malloc(nn * sizeof(*ft->detours));
	if (!ft->rest || !ft->detours)
		return -ENOMEM;
	ft->bucket_head = malloc(nn * sizeof(*ft->bucket_head));
	ft->bucket_next = malloc(nn * sizeof(*ft->bucket_next));
	ft->front = malloc(nn * sizeof(*ft->front));
	ft->next_front = malloc(nn * sizeof(*ft->next_front));
	ft->chain_at = malloc(nn * sizeof(*ft->chain_at));
	ft->rr = calloc(nn, sizeof(*ft->rr));
	ft->lft = calloc(nn, sizeof(*ft->lft));
	ft->cols = malloc(nn * FTREE_BATCH);
	ft->pbase = malloc(nn * sizeof(*ft->pbase));
	if (!ft->pbase)
		return -ENOMEM;
	for (s = 0; s < ft->n_sw; s++) {
		ft->pbase[s] = ft->n_slots;
		ft->n_slots += f->nodes[ft->sw_node[s]].nports + 1u;
	}
	ft->par_next = calloc((size_t)ft->n_slots + 1, 1);
	for (i = 0; i < 2; i++) {
		ft->chain_cnt[i] = calloc((size_t)ft->n_slots + 1, sizeof(uint16_t));
		ft->port_cnt[i] = calloc((size_t)ft->n_slots + 1, sizeof(uint16_t));
		if (!ft->chain_cnt[i] || !ft->port_cnt[i])
			return -ENOMEM;
	}
	if (!ft->level || !ft->has_ca || !ft->up_start || !ft->dn_start || !ft->all_start ||
	    !ft->by_level || !ft->u || !ft->dist || !ft->anc || !ft->anc_list || !ft->detour ||
	    !ft->bucket_head || !ft->bucket_next || !ft->front || !ft->next_front ||
	    !ft->chain_at || !ft->rr || !ft->lft || !ft->cols || !ft->par_next)
		return -ENOMEM;

	for (s = 0; s < ft->n_sw; s++) {
		const struct node *nd = &f->nodes[ft->sw_node[s]];

		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;

			if (rn >= n)
				continue;
			if (!node_is_switch(&f->nodes[rn]))
				ft->has_ca[s] = true;
			else
				n_all++;
		}
	}
	ft->up = malloc(((size_t)n_all + 1) * sizeof(*ft->up));
	ft->dn = malloc(((size_t)n_all + 1) * sizeof(*ft->dn));
	ft->all = malloc(((size_t)n_all + 1) * sizeof(*ft->all));
	ft->pair_anc = malloc(((size_t)n_all + 1) * sizeof(*ft->pair_anc));
	ft->pair_port = malloc((size_t)n_all + 1);
	ft->cand_port = malloc((size_t)n_all + 1);
	ft->det_port = malloc((size_t)n_all + 1);
	ft->det_uport = malloc((size_t)n_all + 1);
	if (!ft->up || !ft->dn || !ft->all || !ft->pair_anc || !ft->pair_port || !ft->cand_port ||
	    !ft->det_port || !ft->det_uport)
		return -ENOMEM;
	return 0;
}

/* BFS over switch links from the switches with src[] set; dist gets hops or FTREE_INF. */
static uint32_t ftree_bfs(struct ftree *ft, uint32_t *queue, uint32_t tail, uint32_t *dist)
{
	const struct fabric *f = ft->f;
	uint32_t head = 0, max = 0;
	unsigned int p;

	while (head < tail) {
		uint32_t x = queue[head++];
		const struct node *nd = &f->nodes[ft->sw_node[x]];

		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node, v;

			if (rn >= f->n_nodes || !node_is_switch(&f->nodes[rn]))
				continue;
			v = ft->sw_of[rn];
			if (dist[v] == FTREE_INF) {
				dist[v] = dist[x] + 1;
				if (dist[v] > max)
					max = dist[v];
				queue[tail++] = v;
			}
		}
	}
	return max;
}

/*
 * Levels.  By default a switch's level is its distance from the nearest
 * switch with a CA.  That makes the empty leaves of a partly populated
 * 3-level tree look like top switches; so when routing on those levels
 * fails, levels are taken from the top instead: the top switches are those
 * whose greatest distance to a switch with a CA is smallest (none of them
 * may have a CA), and every switch with a CA must be equally far from them.
 * Then the links are sorted into up and down, checking that each joins
 * adjacent levels.  0, -ENOTSUP (why filled).
 */
static int ftree_levels(struct ftree *ft, bool from_top, char *why, size_t why_len)
{
	const struct fabric *f = ft->f;
	uint32_t n = f->n_nodes, i, s, tail = 0, n_up = 0, n_dn = 0, n_all = 0;
	uint32_t *queue = ft->front, *tmp = ft->next_front;
	unsigned int p;

	for (s = 0; s < ft->n_sw; s++)
		ft->level[s] = FTREE_INF;
	if (!from_top) {
		for (s = 0; s < ft->n_sw; s++)
			if (ft->has_ca[s]) {
				ft->level[s] = 0;
				queue[tail++] = s;
			}
		if (!tail) {
			routing_why(why, why_len, "no switch has a CA: not a fat tree");
			return -ENOTSUP;
		}
		ft->max_level = ftree_bfs(ft, queue, tail, ft->level);
	} else {
		uint32_t *ecc = ft->u, best = FTREE_INF, h = 0;

		for (s = 0; s < ft->n_sw; s++)
			ecc[s] = 0;
		for (i = 0; i < ft->n_sw; i++) {
			if (!ft->has_ca[i])
				continue;
			for (s = 0; s < ft->n_sw; s++)
				tmp[s] = FTREE_INF;
			tmp[i] = 0;
			queue[0] = i;
			ftree_bfs(ft, queue, 1, tmp);
			for (s = 0; s < ft->n_sw; s++)
				if (tmp[s] > ecc[s])
					ecc[s] = tmp[s];
		}
		for (s = 0; s < ft->n_sw; s++)
			if (ecc[s] < best)
				best = ecc[s];
		for (s = 0; s < ft->n_sw; s++)
			if (ecc[s] == best) {
				if (ft->has_ca[s])
					return -ENOTSUP;
				ft->level[s] = 0;
				queue[tail++] = s;
			}
		ftree_bfs(ft, queue, tail, ft->level);
		for (s = 0; s < ft->n_sw; s++)
			if (ft->has_ca[s] && ft->level[s] > h)
				h = ft->level[s];
		for (s = 0; s < ft->n_sw; s++) {
			if (ft->level[s] == FTREE_INF)
				continue;
			if (ft->level[s] > h || (ft->has_ca[s] && ft->level[s] != h)) {
				routing_why(
				    why, why_len,
				    "switch 0x%016" PRIx64 " is %s the leaves: not a fat tree",
				    ftree_guid(ft, s), ft->level[s] > h ? "below" : "above");
				return -ENOTSUP;
			}
			ft->level[s] = h - ft->level[s];
		}
		ft->max_level = h;
	}
	for (s = 0; s < ft->n_sw; s++)
		if (ft->level[s] == FTREE_INF) {
			routing_why(why, why_len,
				    "switch 0x%016" PRIx64
				    " is not connected to any CA: not a fat tree",
				    ftree_guid(ft, s));
			return -ENOTSUP;
		}
	/* switches by decreasing level (counting sort, stable in GUID order) */
	for (i = 0; i <= ft->max_level + 1; i++)
		tmp[i] = 0;
	for (s = 0; s < ft->n_sw; s++)
		tmp[ft->max_level - ft->level[s] + 1]++;
	for (i = 1; i <= ft->max_level + 1; i++)
		tmp[i] += tmp[i - 1];
	for (s = 0; s < ft->n_sw; s++)
		ft->by_level[tmp[ft->max_level - ft->level[s]]++] = s;

	for (s = 0; s < ft->n_sw; s++) {
		const struct node *nd = &f->nodes[ft->sw_node[s]];
		uint8_t *par = &ft->par_next[ft->pbase[s]];
		uint32_t e0 = n_all, e, e2;

		ft->up_start[s] = n_up;
		ft->dn_start[s] = n_dn;
		ft->all_start[s] = n_all;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t rn = nd->ports[p].remote_node;
			struct ftree_link lk;

			if (rn >= n || !node_is_switch(&f->nodes[rn]))
				continue;
			lk.nbr = ft->sw_of[rn];
			lk.port = (uint8_t)p;
			lk.rport = nd->ports[p].remote_port;
			if (lk.nbr == s || ft->level[lk.nbr] == ft->level[s]) {
				routing_why(
				    why, why_len,
				    "switch 0x%016" PRIx64 " has a link within level %u (port %u "
				    "to 0x%016" PRIx64 "): not a fat tree",
				    ftree_guid(ft, s), ft->level[s], p, ftree_guid(ft, lk.nbr));
				return -ENOTSUP;
			}
			ft->all[n_all++] = lk;
			if (ft->level[lk.nbr] > ft->level[s])
				ft->up[n_up++] = lk;
			else
				ft->dn[n_dn++] = lk;
		}
		/* parallel-link rings */
		for (e = e0; e < n_all; e++) {
			uint8_t nxt = ft->all[e].port;

			for (e2 = e + 1; e2 < n_all; e2++)
				if (ft->all[e2].nbr == ft->all[e].nbr) {
					nxt = ft->all[e2].port;
					break;
				}
			if (e2 == n_all)
				for (e2 = e0; e2 < e; e2++)
					if (ft->all[e2].nbr == ft->all[e].nbr) {
						nxt = ft->all[e2].port;
						break;
					}
			par[ft->all[e].port] = nxt;
		}
	}
	ft->up_start[ft->n_sw] = n_up;
	ft->dn_start[ft->n_sw] = n_dn;
	ft->all_start[ft->n_sw] = n_all;
	ft->clean = true;
	for (s = 0; s < ft->n_sw; s++)
		if (ft->up_start[s] == ft->up_start[s + 1] && ft->level[s] != ft->max_level)
			ft->clean = false;
	return 0;
}

/*
 * Detours when every switch without an up/down path to t has only such
 * switches above it (levels from the leaves, tops all on the top level):
 * then a detour's neighbours one hop closer are below it, unless the
 * switches above are as close as that.  So take the counts from below,
 * level by level upwards, and check that no switch above is closer; that
 * is the shortest way into the up/down region, the same as Dial's buckets
 * give.  False (u restored) when the check fails: then the caller runs
 * Dial's buckets.
 */
static bool ftree_detours_up(struct ftree *ft)
{
	const uint32_t n_sw = ft->n_sw, *const level = ft->level;
	const uint32_t *const up_start = ft->up_start, *const dn_start = ft->dn_start;
	const struct ftree_link *const up = ft->up, *const dn = ft->dn;
	uint32_t *const u = ft->u, *const inf = ft->inf, *const mn = ft->lvl_min;
	uint32_t i, e, n_inf = 0, n_port = 0, n_uport = 0;

	for (i = 0; i <= ft->max_level; i++)
		mn[i] = FTREE_INF;
	for (i = n_sw; i-- > 0;)
		if (u[ft->by_level[i]] == FTREE_INF)
			inf[n_inf++] = ft->by_level[i];
	/* from below: one more than the closest down-neighbours, which are the candidates */
	for (i = 0; i < n_inf; i++) {
		uint32_t v = inf[i], best = FTREE_INF, k0 = n_port;

		ft->det_cand[i] = n_port;
		for (e = dn_start[v]; e < dn_start[v + 1]; e++) {
			uint32_t uw = u[dn[e].nbr];

			if (uw < best) {
				best = uw;
				n_port = k0;
			}
			if (uw == best)
				ft->det_port[n_port++] = dn[e].port;
		}
		if (best >= n_sw - 1)
			goto fail; /* unreachable from below, or past Dial's last bucket */
		u[v] = best + 1;
		if (u[v] < mn[level[v]])
			mn[level[v]] = u[v];
	}
	ft->det_cand[n_inf] = n_port;
	/* no switch above closer; as close: more candidates */
	for (i = 0; i < n_inf; i++) {
		uint32_t v = inf[i], m = level[v] < ft->max_level ? mn[level[v] + 1] : FTREE_INF;

		ft->det_ucand[i] = n_uport;
		if (m == FTREE_INF || u[v] < m + 1)
			continue;
		if (u[v] > m + 1)
			goto fail;
		for (e = up_start[v]; e < up_start[v + 1]; e++)
			if (u[up[e].nbr] == m)
				ft->det_uport[n_uport++] = up[e].port;
	}
	ft->det_ucand[n_inf] = n_uport;
	for (i = 0; i < n_inf; i++) {
		ft->detour[inf[i]] = true;
		ft->detours[i] = inf[i];
	}
	ft->n_detour = n_inf;
	return true;
fail:
	for (i = 0; i < n_inf; i++)
		u[inf[i]] = FTREE_INF;
	return false;
}

/*
 * Hop counts towards t, ancestors and their down candidates, detours and
 * their candidates (the ports one hop closer).  Returns 0 or -ENOTSUP when a
 * leaf has no up/down path to t.
 */
static int ftree_dest(struct ftree *ft, uint32_t t, char *why, size_t why_len)
{
	const uint32_t n_sw = ft->n_sw, lt = ft->level[t];
	const uint32_t *const level = ft->level, *const up_start = ft->up_start;
	const struct ftree_link *const up = ft->up;
	uint32_t *const u = ft->u, *const anc = ft->anc;
	uint32_t i, s, e, head = 0, max_p = 0, n_pairs = 0, n_det_ports = 0, ep;
	bool any_inf = false;

	ep = ++ft->t_epoch;
	for (s = 0; s < n_sw; s++)
		u[s] = FTREE_INF;
	memset(ft->detour, 0, (size_t)n_sw * sizeof(*ft->detour));
	/* ancestors: BFS upwards; collect each one's down links towards t */
	u[t] = 0;
	anc[t] = ep;
	ft->anc_idx[t] = 0;
	ft->anc_list[0] = t;
	ft->n_anc = 1;
	while (head < ft->n_anc) {
		uint32_t x = ft->anc_list[head++];

		for (e = up_start[x]; e < up_start[x + 1]; e++) {
			uint32_t z = up[e].nbr;

			if (anc[z] != ep) {
				anc[z] = ep;
				u[z] = u[x] + 1;
				ft->anc_idx[z] = ft->n_anc;
				ft->anc_list[ft->n_anc++] = z;
			}
			ft->pair_anc[n_pairs] = ft->anc_idx[z];
			ft->pair_port[n_pairs++] = up[e].rport;
		}
	}
	for (i = 0; i <= ft->n_anc; i++)
		ft->anc_cand[i] = 0;
	for (i = 0; i < n_pairs; i++)
		ft->anc_cand[ft->pair_anc[i] + 1]++;
	for (i = 1; i <= ft->n_anc; i++)
		ft->anc_cand[i] += ft->anc_cand[i - 1];
	memcpy(ft->cand_cur, ft->anc_cand, (size_t)ft->n_anc * sizeof(*ft->cand_cur));
	for (i = 0; i < n_pairs; i++)
		ft->cand_port[ft->cand_cur[ft->pair_anc[i]]++] = ft->pair_port[i];
	/*
	 * Others, from the top level down: one more than the best up-neighbour.
	 * For a leaf nearly every switch has an up/down path: each takes the
	 * minimum over its up-links, stopping at a lower bound (an up path
	 * from s to an ancestor a is level(a) - level(s) long, so u(s) >=
	 * level(s) - level(t) + 2 from t's level up, level(t) - level(s)
	 * below).  Above the leaves few switches have one: they push their
	 * count down instead.  Either way the same counts.
	 */
	if (lt == 0) {
		for (i = 0; i < n_sw; i++) {
			uint32_t best = FTREE_INF, lb;

			s = ft->by_level[i];
			if (anc[s] == ep)
				continue;
			lb = level[s] - lt + 1;
			for (e = up_start[s]; e < up_start[s + 1]; e++)
				if (u[up[e].nbr] < best) {
					best = u[up[e].nbr];
					if (best == lb)
						break;
				}
			if (best != FTREE_INF)
				u[s] = best + 1;
		}
	} else {
		const struct ftree_link *const dn = ft->dn;
		const uint32_t *const dn_start = ft->dn_start;

		for (i = 0; i < n_sw; i++) {
			uint32_t us;

			s = ft->by_level[i];
			us = u[s] + 1;
			if (us == 0) /* FTREE_INF */
				continue;
			for (e = dn_start[s]; e < dn_start[s + 1]; e++)
				if (us < u[dn[e].nbr] && anc[dn[e].nbr] != ep)
					u[dn[e].nbr] = us;
		}
	}
	for (i = 0; i < n_sw; i++) {
		s = ft->by_level[i];
		if (u[s] != FTREE_INF)
			continue;
		/*
		 * CA-to-CA traffic must be up*down*; traffic from a leaf to a
		 * switch's own LID (management only) may take a detour when a
		 * missing link leaves none (a leaf cut off from one middle
		 * switch of its pod).
		 */
		if (ft->has_ca[s] && (ft->has_ca[t] || !ft->leaf_detours_ok)) {
			routing_why(why, why_len,
				    "leaf 0x%016" PRIx64
				    " has no up/down path to switch 0x%016" PRIx64
				    ": not a fat tree",
				    ftree_guid(ft, s), ftree_guid(ft, t));
			return -ENOTSUP;
		}
		if (ft->has_ca[s])
			ft->leaf_detours++;
		any_inf = true;
	}
	if (!ft->clean) {
		/*
		 * Tops on several levels (a partly populated tree seen from its
		 * leaves): an up/down path may be longer than the shortest one.
		 * A leaf must not need that; other switches take a detour.
		 */
		uint32_t *q = ft->bucket_next, qh = 0, qt = 0;

		for (s = 0; s < n_sw; s++)
			ft->dist[s] = FTREE_INF;
		ft->dist[t] = 0;
		q[qt++] = t;
		while (qh < qt) {
			uint32_t x = q[qh++];

			for (e = ft->all_start[x]; e < ft->all_start[x + 1]; e++)
				if (ft->dist[ft->all[e].nbr] == FTREE_INF) {
					ft->dist[ft->all[e].nbr] = ft->dist[x] + 1;
					q[qt++] = ft->all[e].nbr;
				}
		}
		for (s = 0; s < n_sw; s++) {
			if (u[s] == FTREE_INF || u[s] <= ft->dist[s])
				continue;
			if (ft->has_ca[s] && (ft->has_ca[t] || !ft->leaf_detours_ok)) {
				routing_why(why, why_len,
					    "leaf 0x%016" PRIx64 " has no shortest up/down path to "
					    "switch 0x%016" PRIx64 ": not a fat tree",
					    ftree_guid(ft, s), ftree_guid(ft, t));
				return -ENOTSUP;
			}
			if (ft->has_ca[s])
				ft->leaf_detours++;
			u[s] = FTREE_INF;
			any_inf = true;
		}
	}
	ft->n_detour = 0;
	ft->det_cand[0] = 0;
	if (!any_inf || (ft->clean && ftree_detours_up(ft)))
		goto lists;
	/*
	 * Detours: shortest way into the up/down region (Dial's buckets).  When
	 * a detour leaves its bucket, every neighbour one hop closer has its
	 * final count: those are its candidates.
	 */
	for (i = 0; i <= n_sw; i++)
		ft->bucket_head[i] = FTREE_INF;
	for (s = 0; s < n_sw; s++)
		if (u[s] != FTREE_INF) {
			ft->bucket_next[s] = ft->bucket_head[u[s]];
			ft->bucket_head[u[s]] = s;
			if (u[s] > max_p)
				max_p = u[s];
		}
	for (i = 0; i <= max_p && i < n_sw; i++)
		for (s = ft->bucket_head[i]; s != FTREE_INF; s = ft->bucket_next[s]) {
			bool d = ft->detour[s];

			for (e = ft->all_start[s]; e < ft->all_start[s + 1]; e++) {
				uint32_t v = ft->all[e].nbr;

				if (u[v] != FTREE_INF) {
					if (d && u[v] + 1 == i)
						ft->det_port[n_det_ports++] = ft->all[e].port;
					continue;
				}
				u[v] = i + 1;
				ft->detour[v] = true;
				ft->bucket_next[v] = ft->bucket_head[i + 1];
				ft->bucket_head[i + 1] = v;
				if (i + 1 > max_p)
					max_p = i + 1;
			}
			if (d) {
				ft->det_ucand[ft->n_detour] = 0;
				ft->detours[ft->n_detour++] = s;
				ft->det_cand[ft->n_detour] = n_det_ports;
			}
		}
	/* (only on absurdly long detours: the buckets stop at n_sw) */
	for (s = max_p >= n_sw ? ft->bucket_head[n_sw] : FTREE_INF; s != FTREE_INF;
	     s = ft->bucket_next[s]) {
		if (!ft->detour[s])
			continue;
		for (e = ft->all_start[s]; e < ft->all_start[s + 1]; e++)
			if (u[ft->all[e].nbr] + 1 == u[s])
				ft->det_port[n_det_ports++] = ft->all[e].port;
		ft->det_ucand[ft->n_detour] = 0;
		ft->detours[ft->n_detour++] = s;
		ft->det_cand[ft->n_detour] = n_det_ports;
	}
	ft->det_ucand[ft->n_detour] = 0;
lists:
	ft->n_rest = 0;
	for (s = 0; s < n_sw; s++) {
		ft->key[s] = FTREE_INF;
		if (!ft->detour[s] && u[s] != FTREE_INF && anc[s] != ep) {
			ft->rest[ft->n_rest++] = s;
			ft->key[s] = u[s];
		}
	}
	return 0;
}

/* Among the parallel links of s starting at port p, the least loaded. */
static uint8_t ftree_par_pick(const uint8_t *par, const uint16_t *c, uint8_t p)
{
	uint8_t best = p, q = par[p];

	while (q != p) {
		if (c[q] < c[best])
			best = q;
		q = par[q];
	}
	return best;
}

/* Write the buffered columns into the tables, FTREE_BATCH switches at a time. */
static void ftree_flush(struct ftree *ft)
{
	const uint32_t n_sw = ft->n_sw, nb = ft->n_batch;
	const uint16_t *const lid = ft->batch_lid;
	uint8_t tile[FTREE_BATCH][FTREE_BATCH], seg[FTREE_BATCH];
	bool runs = true;
	uint32_t s0, s, j, w;

	for (j = 1; j < nb; j++)
		if (lid[j] != lid[0] + j)
			runs = false;
	for (s0 = 0; s0 < n_sw; s0 += FTREE_BATCH) {
		w = n_sw - s0 < FTREE_BATCH ? n_sw - s0 : FTREE_BATCH;
		for (j = 0; j < nb; j++)
			memcpy(tile[j], ft->cols + (size_t)j * n_sw + s0, w);
		for (s = 0; s < w; s++) {
			uint8_t *row = ft->lft[s0 + s];

			if (runs) {
				for (j = 0; j < nb; j++)
					seg[j] = tile[j][s];
				memcpy(row + lid[0], seg, nb);
			} else {
				for (j = 0; j < nb; j++)
					row[lid[j]] = tile[j][s];
			}
		}
	}
	memset(ft->cols, LFT_NO_PORT, (size_t)n_sw * FTREE_BATCH);
	ft->n_batch = 0;
}

/*
 * Route LID l, which sits on t at port tport (0: t's own LID).  Everything
 * the loops need is copied into locals: the stores into the tables are
 * uint8_t and would otherwise make the compiler reload every field.
 */
static void ftree_lid(struct ftree *ft, uint32_t t, uint16_t l, uint8_t tport, int set)
{
	uint16_t *const ccnt = ft->chain_cnt[set], *const pcnt = ft->port_cnt[set];
	const uint32_t *const u = ft->u, *const pbase = ft->pbase, *const level = ft->level;
	const uint32_t *const up_start = ft->up_start, *const dn_start = ft->dn_start;
	const struct ftree_link *const up = ft->up, *const dn = ft->dn;
	const uint32_t *const key = ft->key;
	const uint8_t *const par_next = ft->par_next;
	const bool *const detour = ft->detour;
	uint32_t *const chain_at = ft->chain_at;
	uint8_t *col;
	uint32_t *front = ft->front, *next_front = ft->next_front;
	uint32_t cur = t, top = level[t], n_front = 0, n_next, i, s, e, m;

	if (ft->n_batch == FTREE_BATCH)
		ftree_flush(ft);
	col = ft->cols + (size_t)ft->n_batch * ft->n_sw;
	ft->batch_lid[ft->n_batch++] = l;
#define FTREE_SET(sw, port) (col[sw] = (port))

	chain_at[level[t]] = t;
	FTREE_SET(t, tport);
	pcnt[pbase[t] + tport]++;
	/* 1. the down chain */
	while (up_start[cur] < up_start[cur + 1]) {
		uint64_t best_c = UINT64_MAX;
		uint32_t best_e = FTREE_INF;

		/* the least used parent first, then its least used link to us */
		for (e = up_start[cur]; e < up_start[cur + 1]; e++) {
			uint32_t z = up[e].nbr;
			const uint8_t *par = &par_next[pbase[z]];
			const uint16_t *zc = &ccnt[pbase[z]];
			uint8_t q0 = up[e].rport, q = par[q0];
			uint64_t group = zc[q0], c;

			while (q != q0) {
				group += zc[q];
				q = par[q];
			}
			c = group << 32 | zc[q0];
			if (c < best_c) {
				best_c = c;
				best_e = e;
			}
		}
		s = up[best_e].nbr;
		ccnt[pbase[s] + up[best_e].rport]++;
		pcnt[pbase[s] + up[best_e].rport]++;
		FTREE_SET(s, up[best_e].rport);
		top = level[s];
		chain_at[top] = s;
		cur = s;
	}
	/* 2. down from the chain, level by level: chain switch first, then the claimed */
	for (m = top;; m--) {
		uint32_t *tmp;
		int64_t j;

		n_next = 0;
		for (j = m >= level[t] ? -1 : 0; j < (int64_t)n_front; j++) {
			uint32_t x = j < 0 ? chain_at[m] : front[j], ux = u[x] + 1;

			for (e = dn_start[x]; e < dn_start[x + 1]; e++) {
				uint32_t y = dn[e].nbr;
				uint8_t p;

				if (key[y] != ux || col[y] != LFT_NO_PORT)
					continue;
				p = ftree_par_pick(&par_next[pbase[y]], &pcnt[pbase[y]],
						   dn[e].rport);
				FTREE_SET(y, p);
				pcnt[pbase[y] + p]++;
				next_front[n_next++] = y;
			}
		}
		if (m == 0)
			break;
		tmp = front;
		front = next_front;
		next_front = tmp;
		n_front = n_next;
	}
	/* 3. other ancestors: down, least loaded (then the lowest port) */
	for (i = 1; i < ft->n_anc; i++) {
		uint32_t a = ft->anc_list[i], k;
		const uint16_t *ac = &pcnt[pbase[a]];
		uint8_t best;

		if (col[a] != LFT_NO_PORT)
			continue;
		k = ft->anc_cand[i];
		best = ft->cand_port[k];
		for (k++; k < ft->anc_cand[i + 1]; k++) {
			uint8_t q = ft->cand_port[k];

			if (ac[q] < ac[best] || (ac[q] == ac[best] && q < best))
				best = q;
		}
		FTREE_SET(a, best);
		pcnt[pbase[a] + best]++;
	}
	/* 3b. the rest: up, round-robin over the candidates */
	for (i = 0; i < ft->n_rest; i++) {
		uint32_t e0, n_e, k, j;

		s = ft->rest[i];
		if (col[s] != LFT_NO_PORT)
			continue;
		e0 = up_start[s];
		n_e = up_start[s + 1] - e0;
		for (k = 0, j = ft->rr[s]; k < n_e; k++) {
			uint32_t z = up[e0 + j].nbr;

			if (++j == n_e)
				j = 0;
			if (u[z] + 1 == u[s] && !detour[z]) {
				ft->rr[s] = (uint16_t)j;
				FTREE_SET(s, up[e0 + (j ? j : n_e) - 1].port);
				break;
			}
		}
	}
	/* 4. detours: the least loaded port one hop closer (then the lowest) */
	for (i = 0; i < ft->n_detour; i++) {
		uint32_t k = ft->det_cand[i], k1 = ft->det_cand[i + 1];
		uint32_t h = ft->det_ucand[i], h1 = ft->det_ucand[i + 1];
		const uint16_t *c;
		uint16_t best_c = UINT16_MAX;
		uint8_t best = LFT_NO_PORT;

		if (k == k1 && h == h1)
			continue;
		s = ft->detours[i];
		c = &pcnt[pbase[s]];
		for (; k < k1; k++) {
			uint8_t q = ft->det_port[k];

			if (c[q] < best_c || (c[q] == best_c && q < best)) {
				best_c = c[q];
				best = q;
			}
		}
		for (; h < h1; h++) {
			uint8_t q = ft->det_uport[h];

			if (c[q] < best_c || (c[q] == best_c && q < best)) {
				best_c = c[q];
				best = q;
			}
		}
		FTREE_SET(s, best);
		pcnt[pbase[s] + best]++;
	}
	ft->front = front;
	ft->next_front = next_front;
#undef FTREE_SET
}

/* Route every LID on the current levels into r.  0 or -ENOTSUP. */
static int ftree_route(struct ftree *ft, struct routes *r, bool again, char *why, size_t why_len)
{
	const struct fabric *f = ft->f;
	uint32_t t, s, i;
	unsigned int p;
	int err;

	for (i = 0; i < 2; i++) {
		memset(ft->chain_cnt[i], 0, ((size_t)ft->n_slots + 1) * sizeof(uint16_t));
		memset(ft->port_cnt[i], 0, ((size_t)ft->n_slots + 1) * sizeof(uint16_t));
	}
	for (s = 0; s < ft->n_sw; s++) {
		ft->rr[s] = 0;
		ft->lft[s] = r->lft[ft->sw_node[s]];
		if (again)
			memset(ft->lft[s], LFT_NO_PORT, (size_t)r->max_lid + 1);
	}
	memset(ft->cols, LFT_NO_PORT, (size_t)ft->n_sw * FTREE_BATCH);
	ft->n_batch = 0;
	for (t = 0; t < ft->n_sw; t++) {
		const struct node *nd = &f->nodes[ft->sw_node[t]];

		if (!ft->has_ca[t])
			continue;
		err = ftree_dest(ft, t, why, why_len);
		if (err)
			return err;
		for (p = 1; p <= nd->nports; p++) {
			const struct port *pt = &nd->ports[p];
			const struct node *ca;
			const struct port *cp;
			uint32_t l, l0, l1;

			if (pt->remote_node >= f->n_nodes)
				continue;
			ca = &f->nodes[pt->remote_node];
			if (node_is_switch(ca) || pt->remote_port > ca->nports)
				continue;
			cp = &ca->ports[pt->remote_port];
			l0 = cp->lid;
			l1 = l0 + (1u << cp->lmc);
			for (l = l0; l < l1 && l <= ft->map.max_lid; l++)
				if (l && ft->map.node[l] == pt->remote_node &&
				    ft->map.port[l] == pt->remote_port)
					ftree_lid(ft, t, (uint16_t)l, (uint8_t)p, 0);
		}
	}
	/* switch LIDs in a second pass: they are contiguous, so are the writes */
	for (t = 0; t < ft->n_sw; t++) {
		uint16_t sl = f->nodes[ft->sw_node[t]].ports[0].lid;

		if (!sl || sl > ft->map.max_lid || ft->map.node[sl] != ft->sw_node[t])
			continue;
		err = ftree_dest(ft, t, why, why_len);
		if (err)
			return err;
		ftree_lid(ft, t, sl, 0, 1);
	}
	ftree_flush(ft);
	return 0;
}

int ftree_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		  char *why, size_t why_len)
{
	struct ftree ft = {0};
	struct routes *r = NULL;
	char why2[160];
	int err;

	err = ftree_setup(&ft, f, why, why_len);
	if (err)
		goto out;
	err = -ENOMEM;
	r = routes_new(f, ft.map.max_lid);
	if (!r)
		goto out;
	err = ftree_levels(&ft, false, why, why_len);
	if (!err)
		err = ftree_route(&ft, r, false, why, why_len);
	if (err == -ENOTSUP && ftree_levels(&ft, true, why2, sizeof(why2)) == 0 &&
	    ftree_route(&ft, r, true, why2, sizeof(why2)) == 0)
		err = 0;
	/* last: a damaged tree, whose leaves may reach some switch LIDs only by a detour */
	if (err == -ENOTSUP) {
		ft.leaf_detours_ok = true;
		if (ftree_levels(&ft, false, why2, sizeof(why2)) == 0 &&
		    ftree_route(&ft, r, true, why2, sizeof(why2)) == 0)
			err = 0;
	}
	if (err)
		goto out;
	*ret = r;
	r = NULL;
out:
	routes_free(r);
	ftree_clear(&ft);
	return err;
}

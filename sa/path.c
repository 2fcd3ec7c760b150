/*
 * PathRecord parameters from a published snapshot (see path.h); IBA 1.4
 * vol 1, 15.2.5.16 (PathRecord) and 15.2.5.20 (MultiPathRecord).
 *
 * A path is what the LFTs make of it: from the source port along the
 * entries of the DLID until the packet leaves the fabric, at most
 * PATH_MAX_HOPS switches (OpenSM's MAX_HOPS).  A packet that meets a switch
 * twice meets it forever (an LFT has one entry per LID), so the bounded
 * walk finds every loop; a loop-free path that long is refused, as OpenSM
 * does.  Every link crossed must have both ends linked and ACTIVE (IBA
 * 7.2: only an active link carries data packets).  The rules:
 *
 *  - MTU: per link, the smaller MTUCap of its two ends, lowered by either
 *    end's NeighborMTU where one is set (1..5); at a switch end of the path
 *    also port 0's MTUCap.  The SM programs NeighborMTU to exactly that
 *    minimum of MTUCaps (smp/program.c), so on a programmed fabric both
 *    give one answer; MTUCap is there in every snapshot (a topology file
 *    has no NeighborMTU), and a NeighborMTU the SM could not raise (a Set
 *    that failed) is what the port really sends with, so it lowers the
 *    answer.  OpenSM takes the MTUCaps of every port on the way, the same
 *    minimum on a programmed fabric.  An MTUCap that is no valid code
 *    counts as 256, which every port supports.
 *  - Rate: per link, the slower end's LinkWidthActive x the lane speed it
 *    runs (fabric/speed.h: XDR, then the extended LinkSpeedExtActive read
 *    with SMSupportExtendedSpeeds, then LinkSpeedActive) in PathRecord's
 *    encoding, speed_rate(): 2 = 2.5 Gb/s ... 24 = 1200, as OpenSM's
 *    ib_port_info_compute_rate with extended speeds; an unknown width or
 *    speed counts as 1x or 2.5 Gb/s, as there.  The codes are not in speed
 *    order, so minima and selectors compare by data rate (OpenSM's
 *    ordered_rates[], the FDR/EDR/HDR/NDR codes 11..24 by their signalling
 *    rate).  path_rate() is the same for the classic fields alone.
 *  - SL: routes_path_sl() of (SLID, DLID): the engine's SL where it uses
 *    several VLs (dor on a torus: the dateline bits), else 0 (sa/pathrec.c
 *    then puts the QoS policy's or the partition's SL in the record).  A query
 *    with an SL gets it from a single-VL engine (the SL does not steer
 *    anything there; OpenSM without QoS does the same) and only paths whose
 *    engine SL is that SL from a multi-VL engine.
 *  - Hops: the switches the packets cross, a switch at either end included;
 *    0 for a self path and for two CAs cabled to each other.
 *  - Packet lifetime: each switch may hold a packet for its lifetime
 *    (SwitchInfo:LifeTimeValue, 4.096 us * 2^v) before it drops it, so a
 *    packet dies within hops x 2^v; the path's PacketLifeTime is the
 *    smallest encoding at least that: switch_life + ceil(log2(hops)), 0
 *    hops like 1, capped at 63; non-decreasing in hops.  OpenSM answers its
 *    subnet_timeout (default 18) for every path whatever its length; with
 *    the default switch_life of 18 a path through one switch gets the same.
 *    A self path gets 0 (IBA 1.2 Table 205, as OpenSM cites it).
 *  - Reversible: the walk DLID -> SLID from the destination port reaches
 *    the source port (OpenSM: the reverse path parameters exist).  The
 *    record's other fields describe the forward path; reverse_sl is the
 *    reverse path's engine SL, which on a torus may differ.
 *  - LMC: a pair of ports has 2^lmc(src) x 2^lmc(dst) SLID/DLID pairs.  The
 *    enumerator returns them in OpenSM's order (pr_rcv_get_port_pair_paths):
 *    first base+i to base+i (preference 0: with LMC-spread routes these
 *    share the least), then the others SLID-major (preference 2).
 *  - Selectors (IBA 15.2.5.16), as OpenSM's pr_rcv_get_path_parms for MTU
 *    and rate: greater than: the path's value must exceed it; less than: a
 *    lower path value stands, a higher one is answered as the next value
 *    below the limit (a path that carries a 4096 MTU carries 2048; a
 *    source may send slower with static rate control); exactly: MTU
 *    at least the value, answered as the value; rate the same rate; largest
 *    available: anything.  Packet lifetime is an upper bound, so the other
 *    way round (here we differ from OpenSM, which copies the MTU rules):
 *    greater than raises it above the value, less than needs it below,
 *    exactly needs it at most the value and answers the value.
 *
 * Ports of "every port" are taken in LID order: the snapshot's LID map is
 * that index already, a cursor is a LID, and LIDs do not depend on the
 * order discovery met the nodes (OpenSM walks its port GUID map instead).
 *
 * Cost: a path is two walks of at most ~10 hops (forward, reverse), two
 * path SL lookups, no allocation; the time goes to cache misses on the LFT
 * rows and ports.  On a 3-level fat tree of 11,271 nodes (k = 34, minhop)
 * 1000 paths between random CA pairs take 0.85-1.6 ms on the shared 2-core
 * VM, about 1 us a path; a 1000-record page of an every-port GetTable
 * about 1 ms (tests/test_path.c prints both).
 */
#include <errno.h>
#include <string.h>

#include "fabric/speed.h"
#include "sa/path.h"

/* Rank of each rate code by data rate (OpenSM's ordered_rates), 0 = no code. */
static const uint8_t path_rate_rank[PATH_RATE_MAX + 1] = {
    [2] = 1,   /* 2.5 */
    [5] = 2,   /* 5 */
    [3] = 3,   /* 10 */
    [11] = 4,  /* 14 (FDR 1x) */
    [6] = 5,   /* 20 */
    [4] = 6,   /* 30 */
    [15] = 7,  /* 25 (EDR 1x) */
    [19] = 8,  /* 28 (FDR 2x) */
    [7] = 9,   /* 40 */
    [8] = 10,  /* 60 */
    [20] = 11, /* 50 */
    [12] = 12, /* 56 */
    [9] = 13,  /* 80 */
    [10] = 14, /* 120 */
    [16] = 15, /* 100 */
    [13] = 16, /* 112 */
    [14] = 17, /* 168 */
    [17] = 18, /* 200 */
    [18] = 19, /* 300 */
    [21] = 20, /* 400 */
    [22] = 21, /* 600 */
    [23] = 22, /* 800 */
    [24] = 23, /* 1200 */
};

static const uint8_t path_rate_by_rank[] = {0,	2, 5,  3,  11, 6,  4,  15, 19, 7,  8,  20,
					    12, 9, 10, 16, 13, 14, 17, 18, 21, 22, 23, 24};

bool path_rate_valid(uint8_t rate)
{
	return rate <= PATH_RATE_MAX && path_rate_rank[rate];
}

int path_rate_cmp(uint8_t a, uint8_t b)
{
	int ra = a <= PATH_RATE_MAX ? path_rate_rank[a] : 0;
	int rb = b <= PATH_RATE_MAX ? path_rate_rank[b] : 0;

	return ra - rb;
}

uint8_t path_rate_prev(uint8_t rate)
{
	if (!path_rate_valid(rate))
		return 0;
	return path_rate_by_rank[path_rate_rank[rate] - 1];
}

uint8_t path_rate(uint8_t width_active, uint8_t speed_active)
{
	return speed_rate(width_active, speed_classic(speed_active));
}

uint8_t path_pkt_life(uint8_t switch_life, uint8_t hops)
{
	unsigned int v = switch_life, h = 1;

	while (h < hops) {
		h <<= 1;
		v++;
	}
	return v > 63 ? 63 : (uint8_t)v;
}

/* ---- the walk --------------------------------------------------------- */

struct path_walk {
	uint8_t hops;
	uint8_t mtu;
	uint8_t rate;
};

static bool path_mtu_valid(uint8_t mtu)
{
	return mtu >= PATH_MTU_256 && mtu <= PATH_MTU_4096;
}

/* The MTU a physical port sends and takes: MTUCap, lowered by a set NeighborMTU. */
static uint8_t path_port_mtu(const struct port *p)
{
	uint8_t mtu = path_mtu_valid(p->mtu_cap) ? p->mtu_cap : PATH_MTU_256;

	if (path_mtu_valid(p->neighbor_mtu) && p->neighbor_mtu < mtu)
		mtu = p->neighbor_mtu;
	return mtu;
}

static void path_take_port(struct path_walk *w, const struct port *p)
{
	uint8_t mtu = path_port_mtu(p), rate = speed_port_rate(p);

	if (mtu < w->mtu)
		w->mtu = mtu;
	if (path_rate_cmp(rate, w->rate) < 0)
		w->rate = rate;
}

/* A switch's port 0 at an end of the path: its MTUCap, where it has one. */
static void path_take_port0(struct path_walk *w, const struct port *p0)
{
	if (path_mtu_valid(p0->mtu_cap) && p0->mtu_cap < w->mtu)
		w->mtu = p0->mtu_cap;
}

/* The far end of p's link when the link can carry data, else NULL. */
static const struct port *path_link(const struct fabric *f, const struct port *p)
{
	const struct node *rn;
	const struct port *q;

	if (!port_is_linked(p) || p->remote_node >= f->n_nodes || p->state != PORT_ACTIVE)
		return NULL;
	rn = &f->nodes[p->remote_node];
	if (p->remote_port > rn->nports)
		return NULL;
	q = &rn->ports[p->remote_port];
	return q->state == PORT_ACTIVE ? q : NULL;
}

/*
 * Follow dlid from (sn, sp); true when the packet leaves the fabric at
 * (dn, dp).  Both ports are valid path ends (path_resolve).
 */
static bool path_walk(const struct fabric *f, const struct routes *r, uint32_t sn, uint8_t sp,
		      uint32_t dn, uint8_t dp, uint16_t dlid, struct path_walk *w)
{
	const struct node *n = &f->nodes[sn];
	const struct port *p, *q;
	uint32_t cur = sn;

	w->hops = 0;
	w->mtu = PATH_MTU_4096;
	w->rate = PATH_RATE_MAX;
	if (sn == dn && sp == dp) {
		/* loopback: the packet never leaves the port */
		p = &n->ports[sp];
		if (!node_is_switch(n) && p->state != PORT_ACTIVE)
			return false;
		w->mtu = path_mtu_valid(p->mtu_cap) ? p->mtu_cap : PATH_MTU_256;
		w->rate = speed_port_rate(p);
		return true;
	}
	if (node_is_switch(n)) {
		path_take_port0(w, &n->ports[0]);
	} else {
		p = &n->ports[sp];
		q = path_link(f, p);
		if (!q)
			return false;
		path_take_port(w, p);
		path_take_port(w, q);
		cur = p->remote_node;
		if (!node_is_switch(&f->nodes[cur]))
			return cur == dn && p->remote_port == dp;
	}
	for (;;) {
		const struct node *c = &f->nodes[cur];
		uint8_t out;

		if (++w->hops > PATH_MAX_HOPS || !r || cur >= r->n_nodes || !r->lft[cur] ||
		    dlid > r->max_lid)
			return false;
		out = r->lft[cur][dlid];
		if (out == 0) {
			if (cur != dn || dp != 0)
				return false;
			path_take_port0(w, &c->ports[0]);
			return true;
		}
		if (out == LFT_NO_PORT || out > c->nports)
			return false;
		p = &c->ports[out];
		q = path_link(f, p);
		if (!q)
			return false;
		path_take_port(w, p);
		path_take_port(w, q);
		cur = p->remote_node;
		if (!node_is_switch(&f->nodes[cur]))
			return cur == dn && p->remote_port == dp;
	}
}

/* ---- path ends -------------------------------------------------------- */

struct path_end {
	uint32_t node;
	uint8_t port;
	uint8_t lmc;
	uint16_t lo; /* first LID to use */
	uint16_t n;  /* LIDs to use: lo .. lo + n - 1 */
};

static int path_resolve(const struct snapshot *s, const struct path_port *pp, struct path_end *ret)
{
	const struct fabric *f = s->fabric;
	const struct node *nd;
	const struct port *pt;
	uint32_t node = pp->node, size;
	uint8_t port = pp->port;

	if (node == FABRIC_NO_NODE && !snapshot_find_lid(s, pp->lid, &node, &port))
		return -EADDRNOTAVAIL;
	if (node >= f->n_nodes)
		return -EINVAL;
	nd = &f->nodes[node];
	if (port < node_first_lid_port(nd) || port > node_last_lid_port(nd))
		return -EINVAL;
	pt = &nd->ports[port];
	if (!pt->lid)
		return -EADDRNOTAVAIL;
	ret->node = node;
	ret->port = port;
	ret->lmc = pt->lmc & 7;
	size = 1u << ret->lmc;
	if (!pp->lid) {
		ret->lo = pt->lid;
		ret->n = (uint16_t)size;
		return 0;
	}
	if (pp->lid < pt->lid || pp->lid >= pt->lid + size)
		return -EADDRNOTAVAIL;
	ret->lo = pp->lid;
	ret->n = 1;
	return 0;
}

static int path_fill(const struct snapshot *s, uint8_t switch_life, uint32_t sn, uint8_t sp,
		     uint32_t dn, uint8_t dp, uint16_t slid, uint16_t dlid, struct path_info *ret)
{
	const struct fabric *f = s->fabric;
	const struct routes *r = s->routes;
	struct path_walk w, rw;
	bool self = sn == dn && sp == dp;

	if (!path_walk(f, r, sn, sp, dn, dp, dlid, &w))
		return -ENETUNREACH;
	ret->src_node = sn;
	ret->src_port = sp;
	ret->dst_node = dn;
	ret->dst_port = dp;
	ret->slid = slid;
	ret->dlid = dlid;
	ret->hops = w.hops;
	ret->mtu = w.mtu;
	ret->rate = w.rate;
	ret->sl = r ? routes_path_sl(r, f, &s->lids, slid, dlid) : 0;
	ret->reverse_sl = r ? routes_path_sl(r, f, &s->lids, dlid, slid) : 0;
	ret->pkt_life = self ? 0 : path_pkt_life(switch_life, w.hops);
	ret->reversible = self || path_walk(f, r, dn, dp, sn, sp, slid, &rw);
	ret->preference = 0;
	ret->n_paths = 1;
	return 0;
}

int path_compute(const struct snapshot *s, const struct path_opts *o, const struct path_port *src,
		 const struct path_port *dst, struct path_info *ret)
{
	struct path_end a, b;
	struct path_info info;
	int err;

	err = path_resolve(s, src, &a);
	if (err)
		return err;
	err = path_resolve(s, dst, &b);
	if (err)
		return err;
	err = path_fill(s, o ? o->switch_life : PATH_DEFAULT_SWITCH_LIFE, a.node, a.port, b.node,
			b.port, a.lo, b.lo, &info);
	if (err)
		return err;
	info.n_paths = (1u << a.lmc) << b.lmc;
	*ret = info;
	return 0;
}

/* ---- constraints ------------------------------------------------------ */

static bool path_limit_mtu(const struct path_limit *l, uint8_t *mtu)
{
	switch (l->sel) {
	case PATH_SEL_GT:
		return *mtu > l->value;
	case PATH_SEL_LT:
		if (*mtu < l->value)
			return true;
		if (l->value <= PATH_MTU_256)
			return false;
		*mtu = l->value - 1;
		return true;
	case PATH_SEL_EQ:
		if (*mtu < l->value)
			return false;
		*mtu = l->value;
		return true;
	default:
		return true;
	}
}

static bool path_limit_rate(const struct path_limit *l, uint8_t *rate)
{
	int c = path_rate_cmp(*rate, l->value);

	switch (l->sel) {
	case PATH_SEL_GT:
		return c > 0;
	case PATH_SEL_LT:
		if (c < 0)
			return true;
		*rate = path_rate_prev(l->value);
		return *rate != 0;
	case PATH_SEL_EQ:
		return c == 0;
	default:
		return true;
	}
}

static bool path_limit_life(const struct path_limit *l, uint8_t *life)
{
	switch (l->sel) {
	case PATH_SEL_GT:
		if (l->value >= 63)
			return false;
		if (*life <= l->value)
			*life = l->value + 1;
		return true;
	case PATH_SEL_LT:
		return *life < l->value;
	case PATH_SEL_EQ:
		if (*life > l->value)
			return false;
		*life = l->value;
		return true;
	default:
		return true;
	}
}

bool path_query_takes(const struct path_query *q, struct path_info *p)
{
	if (q->mtu.set && !path_limit_mtu(&q->mtu, &p->mtu))
		return false;
	return !q->rate.set || path_limit_rate(&q->rate, &p->rate);
}

/* Apply q's constraints to p: false when p is left out (p may be changed then). */
static bool path_keep(const struct path_enum *e, struct path_info *p)
{
	const struct path_query *q = &e->q;

	if (q->reversible && !p->reversible)
		return false;
	if (q->sl_set) {
		if (routes_has_path_sl(e->s->routes)) {
			if (p->sl != q->sl)
				return false;
		} else {
			p->sl = q->sl;
			p->reverse_sl = q->sl;
		}
	}
	if (q->mtu.set && !path_limit_mtu(&q->mtu, &p->mtu))
		return false;
	if (q->rate.set && !path_limit_rate(&q->rate, &p->rate))
		return false;
	if (q->pkt_life.set && !path_limit_life(&q->pkt_life, &p->pkt_life))
		return false;
	return true;
}

static bool path_limit_ok(const struct path_limit *l, bool (*valid)(uint8_t))
{
	if (!l->set)
		return true;
	if (l->sel > PATH_SEL_BEST)
		return false;
	return l->sel == PATH_SEL_BEST || valid(l->value);
}

static bool path_life_valid(uint8_t life)
{
	return life <= 63;
}

/* ---- the enumerator --------------------------------------------------- */

/* First LID >= from that is the base LID of a port, 0 when none is left. */
static uint32_t path_next_base(const struct snapshot *s, uint32_t from)
{
	const struct lid_map *m = &s->lids;
	uint32_t l;

	for (l = from ? from : 1; l <= m->max_lid; l++) {
		uint32_t n = m->node[l];

		if (n != FABRIC_NO_NODE && n < s->fabric->n_nodes &&
		    node_port_lid(&s->fabric->nodes[n], m->port[l]) == l)
			return l;
	}
	return 0;
}

/* The end at cursor position pos of list (NULL: every port, pos a LID). */
static int path_enum_end(const struct path_enum *e, const struct path_port *list, uint32_t pos,
			 struct path_end *ret)
{
	struct path_port pp;

	if (list)
		return path_resolve(e->s, &list[pos], ret);
	pp.node = e->s->lids.node[pos];
	pp.port = e->s->lids.port[pos];
	pp.lid = 0;
	return path_resolve(e->s, &pp, ret);
}

/* Set up the port pair at the cursor (si, di), both in range. */
static void path_enum_pair(struct path_enum *e)
{
	struct path_end a, b;

	e->i = 0;
	e->j = 0;
	e->found = 0;
	e->walked = false;
	e->phase = 2;
	if (path_enum_end(e, e->q.src, e->si, &a) || path_enum_end(e, e->q.dst, e->di, &b))
		return;
	e->src_node = a.node;
	e->src_port = a.port;
	e->src_lo = a.lo;
	e->ns = a.n;
	e->dst_node = b.node;
	e->dst_port = b.port;
	e->dst_lo = b.lo;
	e->nd = b.n;
	e->n_paths = (1u << a.lmc) << b.lmc;
	e->phase = 0;
}

/* The first position of an end's cursor; false when there is none. */
static bool path_enum_first(const struct path_enum *e, const struct path_port *list, uint32_t n,
			    uint32_t *ret)
{
	if (list) {
		*ret = 0;
		return n > 0;
	}
	*ret = path_next_base(e->s, 1);
	return *ret != 0;
}

static bool path_enum_advance(const struct path_enum *e, const struct path_port *list, uint32_t n,
			      uint32_t *pos)
{
	if (list)
		return ++*pos < n;
	*pos = path_next_base(e->s, *pos + 1);
	return *pos != 0;
}

/* On to the next port pair, or done. */
static void path_enum_next_pair(struct path_enum *e)
{
	const struct path_query *q = &e->q;

	if (!path_enum_advance(e, q->dst, q->n_dst, &e->di)) {
		if (!path_enum_advance(e, q->src, q->n_src, &e->si) ||
		    !path_enum_first(e, q->dst, q->n_dst, &e->di)) {
			e->done = true;
			return;
		}
	}
	path_enum_pair(e);
}

/* On to the next SLID/DLID pair of this port pair (phase 2 when none is left). */
static void path_enum_step(struct path_enum *e)
{
	uint16_t m = e->ns < e->nd ? e->ns : e->nd;

	if (e->phase == 0) {
		if (++e->i < m) {
			e->j = e->i;
			return;
		}
		e->phase = 1;
		e->i = 0;
		e->j = 0;
	}
	do {
		if (++e->j == e->nd) {
			e->j = 0;
			if (++e->i == e->ns) {
				e->phase = 2;
				return;
			}
		}
	} while (e->i == e->j);
}

int path_enum_init(struct path_enum *e, const struct snapshot *s, const struct path_opts *o,
		   const struct path_query *q)
{
	if ((q->n_src && !q->src) || (q->n_dst && !q->dst) || (q->sl_set && q->sl > 15) ||
	    !path_limit_ok(&q->mtu, path_mtu_valid) || !path_limit_ok(&q->rate, path_rate_valid) ||
	    !path_limit_ok(&q->pkt_life, path_life_valid))
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->s = s;
	e->q = *q;
	e->switch_life = o ? o->switch_life : PATH_DEFAULT_SWITCH_LIFE;
	if (!path_enum_first(e, q->src, q->n_src, &e->si) ||
	    !path_enum_first(e, q->dst, q->n_dst, &e->di)) {
		e->done = true;
		return 0;
	}
	path_enum_pair(e);
	return 0;
}

int path_enum_next(struct path_enum *e, struct path_info *ret, uint32_t max, uint32_t budget)
{
	uint32_t n = 0;

	if (!max || !budget)
		return -EINVAL;
	while (!e->done && n < max && budget) {
		struct path_info p;

		if (e->phase == 2 || (e->q.numb_path && e->found >= e->q.numb_path)) {
			if (!e->walked)
				budget--;
			path_enum_next_pair(e);
			continue;
		}
		budget--;
		e->walked = true;
		e->walks++;
		if (!path_fill(e->s, e->switch_life, e->src_node, e->src_port, e->dst_node,
			       e->dst_port, (uint16_t)(e->src_lo + e->i),
			       (uint16_t)(e->dst_lo + e->j), &p)) {
			p.preference = e->phase == 0 ? 0 : 2;
			p.n_paths = e->n_paths;
			if (path_keep(e, &p)) {
				ret[n++] = p;
				e->found++;
			}
		}
		path_enum_step(e);
	}
	return (int)n;
}

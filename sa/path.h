/*
 * What a PathRecord says about a path (IBA 1.4 vol 1, 15.2.5.16 PathRecord,
 * 15.2.5.20 MultiPathRecord), computed from a published snapshot: walk the
 * LFTs from the source port to the destination LID as the packets go, and
 * take the path's hop count, MTU, rate, SL, packet lifetime and
 * reversibility from the ports and tables on the way.  An enumerator yields
 * the paths of a GetTable or MultiPathRecord query in a fixed order, a
 * bounded number per call.  The wire format (component masks, the record's
 * bytes) is the SA server's business; this module is pure: no I/O, no
 * logging, no allocation.
 */
#ifndef IBSMD_PATH_H
#define IBSMD_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/snapshot.h"

/* PathRecord:MTU encoding (IBA 15.2.5.16, Table 205; = PortInfo:MTUCap's). */
#define PATH_MTU_256 1
#define PATH_MTU_512 2
#define PATH_MTU_1024 3
#define PATH_MTU_2048 4
#define PATH_MTU_4096 5

/* PathRecord:Rate encoding (IBA 15.2.5.16; OpenSM ib_types.h), the ones we name. */
#define PATH_RATE_2_5 2
#define PATH_RATE_10 3
#define PATH_RATE_30 4
#define PATH_RATE_5 5
#define PATH_RATE_20 6
#define PATH_RATE_40 7
#define PATH_RATE_60 8
#define PATH_RATE_80 9
#define PATH_RATE_120 10
#define PATH_RATE_14 11
#define PATH_RATE_MAX 24 /* 1200 Gb/s, the highest code defined */

/* MTUSelector, RateSelector, PacketLifeTimeSelector (IBA 15.2.5.16). */
enum path_selector {
	PATH_SEL_GT = 0,   /* greater than the value */
	PATH_SEL_LT = 1,   /* less than */
	PATH_SEL_EQ = 2,   /* exactly */
	PATH_SEL_BEST = 3, /* largest MTU/rate, smallest lifetime available */
};

/* Switches a walk may cross before it is called a loop (OpenSM's MAX_HOPS). */
#define PATH_MAX_HOPS 64
/*
 * Default time a switch may hold a packet, encoded 4.096 us * 2^v: OpenSM's
 * default packet_life_time (0x12), which it also answers as every path's
 * PacketLifeTime; here it is the lifetime of a path through one switch.
 */
#define PATH_DEFAULT_SWITCH_LIFE 18

struct path_opts {
	uint8_t switch_life; /* per switch, 4.096 us * 2^v; 0..63 */
};

/*
 * One end of a path: a port (node, port: a CA or router port 1..n, or a
 * switch's port 0) and the LID to use.  lid 0 is the port's base LID for
 * path_compute() and its whole LMC range for the enumerator; any other lid
 * must lie in the port's range.  node FABRIC_NO_NODE: the port that owns lid.
 */
struct path_port {
	uint32_t node;
	uint8_t port;
	uint16_t lid;
};

struct path_info {
	uint32_t src_node, dst_node;
	uint8_t src_port, dst_port;
	uint16_t slid, dlid;
	uint8_t hops;	    /* switches the packets cross, 0 on a self path */
	uint8_t mtu;	    /* PATH_MTU_*: the smallest on the path */
	uint8_t rate;	    /* PATH_RATE_*: the slowest link on the path */
	uint8_t sl;	    /* the routing engine's SL (or the one asked for) */
	uint8_t pkt_life;   /* 4.096 us * 2^pkt_life; 0 on a self path */
	uint8_t preference; /* 0: a SLID/DLID pair of the first round, 2: the rest */
	bool reversible;    /* the path DLID -> SLID exists too */
	uint8_t reverse_sl; /* the engine's SL of that reverse path */
	uint32_t n_paths;   /* SLID x DLID pairs of the two ports: 2^lmc x 2^lmc */
};

/*
 * The path from src to dst as the packets take it: from the source port
 * (through its cable, or from a switch's port 0) along the LFT entries of
 * dst's LID, switch by switch, until the packet leaves the fabric at dst's
 * port (switch port 0: the LFT entry 0 on dst's switch).  Every link on the
 * way must have both ends linked and ACTIVE.
 *
 * Returns 0 with *ret filled; -EINVAL for a node or port that is not a path
 * end (a switch port other than 0, a CA port 0, out of range);
 * -EADDRNOTAVAIL when a port has no LID or a lid is outside its LMC range;
 * -ENETUNREACH when there is no path (a dead end: no entry, a port not
 * linked or not active; a loop or more than PATH_MAX_HOPS switches; a
 * packet delivered to another port).  *ret is untouched on failure.  o may
 * be NULL (defaults).  O(hops), twice (the reverse walk).
 */
int path_compute(const struct snapshot *s, const struct path_opts *o, const struct path_port *src,
		 const struct path_port *dst, struct path_info *ret);

/* A constraint on MTU, rate or packet lifetime: a selector and a value. */
struct path_limit {
	bool set;
	uint8_t sel; /* enum path_selector */
	uint8_t value;
};

/*
 * A GetTable / MultiPathRecord query.  src and dst are lists of ports
 * (borrowed: they must stay valid while the enumeration runs) or NULL for
 * every port with a LID (CA and router ports, switch ports 0), in LID
 * order.  Self paths (the same port at both ends) are included.
 */
struct path_query {
	const struct path_port *src, *dst;
	uint32_t n_src, n_dst;
	bool sl_set;
	uint8_t sl;
	struct path_limit mtu, rate, pkt_life;
	bool reversible;    /* only paths whose reverse exists */
	uint32_t numb_path; /* at most this many per port pair; 0 = all */
};

/*
 * An enumeration's state, in the open so a caller can keep one without an
 * allocation (in a paged SA answer); read only walks, change nothing.
 */
struct path_enum {
	const struct snapshot *s;
	struct path_query q;
	uint8_t switch_life;
	/* cursor: src and dst (list index, or LID for "every port") */
	uint32_t si, di;
	uint32_t src_node, dst_node;
	uint8_t src_port, dst_port;
	uint16_t src_lo, dst_lo, ns, nd; /* LIDs to use: lo .. lo + n - 1 */
	uint32_t n_paths;
	uint16_t i, j;	/* the SLID/DLID pair within the ranges */
	uint8_t phase;	/* 0 first round (i, i), 1 the others, 2 pair done */
	uint32_t found; /* records of this pair so far */
	bool walked;	/* a path of this pair was computed */
	bool done;
	uint64_t walks; /* paths computed so far, for statistics */
};

/*
 * Start an enumeration of q over s (o may be NULL).  Returns 0, or -EINVAL
 * for a query that can match nothing meaningful: a selector above 3, an
 * MTU or rate value that is no valid code (unless the selector is
 * PATH_SEL_BEST), a pkt_life value above 63, an SL above 15, a list with
 * entries but a NULL pointer.
 *
 * Order: source ports (list order, or LID order), then destination ports
 * likewise, then within the pair the SLID/DLID pairs as OpenSM returns them:
 * first (lo+i, lo+i) for i < min of the two range sizes (preference 0),
 * then every other pair row by row, SLID major (preference 2).  Each pair
 * is computed as path_compute() would, then the query's constraints apply:
 * a path that fails one is left out, a path the selector allows with
 * another value (MTU or rate "less than", MTU "exactly": a lower one;
 * packet lifetime "greater than", "exactly": a higher one) is answered with
 * that value; an SL is granted by a single-VL engine and must be the
 * engine's own otherwise (see path.c for where each rule comes from).
 */
int path_enum_init(struct path_enum *e, const struct snapshot *s, const struct path_opts *o,
		   const struct path_query *q);

/*
 * Up to max paths into ret[], doing at most budget units of work (one unit
 * per SLID/DLID pair computed and per port pair passed over without one),
 * so one call is bounded whatever the query.  Returns the number written
 * (0 is not the end: see path_enum_done), or -EINVAL when max or budget is
 * 0.  The snapshot must not be freed while the enumeration runs.
 */
int path_enum_next(struct path_enum *e, struct path_info *ret, uint32_t max, uint32_t budget);

/* No path left. */
static inline bool path_enum_done(const struct path_enum *e)
{
	return e->done;
}

/*
 * The encodings.  path_rate(): PathRecord rate of a link from
 * PortInfo:LinkWidthActive and the classic LinkSpeedActive alone (IBA
 * 14.2.5.6; fabric/speed.h's speed_rate, which paths take with the lane
 * speed a port runs, extended speeds included: speed_port_rate); an unknown
 * width or speed counts as 1x or 2.5 Gb/s.
 * path_rate_cmp(): <0, 0, >0 as a is slower, as fast as, faster than b
 * (data rate, not code order: 14 Gb/s FDR 1x, code 11, is between 10 and 20).
 * path_rate_prev(): the next slower code, 0 below 2.5 Gb/s.
 * path_pkt_life(): the lifetime rule (see path.c).
 */
uint8_t path_rate(uint8_t width_active, uint8_t speed_active);
bool path_rate_valid(uint8_t rate);
int path_rate_cmp(uint8_t a, uint8_t b);
/*
 * Whether q's MTU and rate selectors still take p once its MTU or rate was
 * lowered after the enumeration (a runtime partition's limits,
 * sa/pathrec.c); p's values may be set as the selectors ask.
 */
bool path_query_takes(const struct path_query *q, struct path_info *p);
uint8_t path_rate_prev(uint8_t rate);
uint8_t path_pkt_life(uint8_t switch_life, uint8_t hops);

#endif

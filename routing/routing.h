/*
 * Routing engines: pure functions from a frozen fabric to forwarding tables.
 *
 * An engine reads a const struct fabric (LIDs already assigned) and options
 * (struct routing_opts) and fills a struct routes: for every switch, the
 * egress port for every LID.  Engines do no I/O, keep no globals and do not
 * log; when they refuse a topology they return -ENOTSUP with a one-line
 * reason, and the fallback chain (routing/chain.h) tries the next engine and
 * hands the refusals to its caller (sm/), which logs them.
 */
#ifndef IBSMD_ROUTING_H
#define IBSMD_ROUTING_H

#include "fabric/fabric.h"
#include "fabric/routes.h"

struct routing_stats {
	double ms;
	uint32_t max_routes_per_port; /* LIDs routed out of the busiest switch port */
	double mean_routes_per_port;  /* over switch ports linked to a switch or CA */
	uint32_t unreachable;	      /* (switch, LID) pairs without a route */
};

/*
 * What the caller asks of every engine.  Each engine reads the fields that
 * concern it and ignores the rest; a NULL pointer or a zeroed struct is the
 * defaults (automatic roots, no VL limit, LMC 0).
 */
struct routing_opts {
	/*
	 * Root switches (node GUIDs) for updn and dnup; n_roots 0 = automatic
	 * roots.  A GUID that is not a switch of the fabric is -EINVAL.
	 */
	const uint64_t *roots;
	size_t n_roots;
	/*
	 * Data VLs the engine may use, 0 = no limit.  An engine that needs more
	 * (dor on a torus needs 2) refuses with -ENOTSUP and says so.
	 */
	uint8_t max_vls;
	/*
	 * The LMC the LIDs were assigned with.  Carried for engines that will
	 * spread an LMC range over paths on purpose; none reads it yet (each
	 * routes every LID of a range on its own, from the fabric's LIDs).
	 */
	uint8_t lmc;
};

/*
 * Compute routes with options o (NULL = defaults).  Returns 0, -ENOTSUP
 * (topology refused, or it needs more than o->max_vls VLs; why filled),
 * -EINVAL (e.g. no LIDs, a root that is not a switch; why filled) or
 * -ENOMEM.  *ret is owned by the caller and left untouched on failure.
 */
typedef int (*routing_compute_fn)(const struct fabric *f, const struct routing_opts *o,
				  struct routes **ret, char *why, size_t why_len);

struct routing_engine {
	const char *name;
	routing_compute_fn compute;
};

/* NULL-terminated table of engines. */
extern const struct routing_engine routing_engines[];
const struct routing_engine *routing_find(const char *name);

/* Statistics of a routing result; ms is left 0 (the caller times the engine). */
void routing_stats(const struct fabric *f, const struct routes *r, struct routing_stats *ret);

int minhop_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		   char *why, size_t why_len);
/*
 * updn and dnup rank from o->roots where given; components of the fabric
 * without a given root get automatic roots.  -ENOTSUP when with the given
 * roots some switch with a CA has no up/down path to some LID (the routing
 * would not be deadlock-free).
 */
int updn_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len);
int dnup_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len);
int ftree_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		  char *why, size_t why_len);
int dor_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		char *why, size_t why_len);
/*
 * dfsp: balanced shortest paths on any topology, free of credit loops by
 * layers (path SLs, SL2VL).  -ENOTSUP when the layers need more VLs than the
 * switch links offer or o->max_vls allows, or the fabric is too large to
 * route in seconds.
 */
int dfsp_compute(const struct fabric *f, const struct routing_opts *o, struct routes **ret,
		 char *why, size_t why_len);

/*
 * Helpers shared by the engines (routing/), not meant for sm/.
 */

/* printf into why (one-line refusal reason); why may be NULL or why_len 0. */
void routing_why(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * fabric_lid_map() for an engine: 0, -EINVAL with why filled when two ports
 * claim one LID or no LID is assigned, or -ENOMEM.  On success the caller
 * clears *ret with fabric_lid_map_clear(); on failure *ret is untouched.
 */
int routing_lid_map(const struct fabric *f, struct lid_map *ret, char *why, size_t why_len);

/*
 * Dense switch indices in node GUID order: (*ret_node)[s] is the node of
 * switch s, (*ret_of)[node] the index of a switch node and FABRIC_NO_NODE for
 * any other node, *ret_n the number of switches.  Both arrays have
 * f->n_nodes + 1 entries and belong to the caller.  0 or -ENOMEM (outputs
 * untouched).
 */
int routing_switch_index(const struct fabric *f, uint32_t **ret_node, uint32_t **ret_of,
			 uint32_t *ret_n);

/*
 * Where each LID 0..m->max_lid leaves the fabric: (*ret_sw)[l] is sw_of[] of
 * the switch that owns l or that the CA port owning l is cabled to
 * (FABRIC_NO_NODE when neither), (*ret_port)[l] the port of that switch to
 * take (0 for the switch's own LID).  sw_of maps nodes to the engine's switch
 * indices, FABRIC_NO_NODE for non-switches.  Both arrays belong to the
 * caller.  0 or -ENOMEM (outputs untouched).
 */
int routing_lid_targets(const struct fabric *f, const struct lid_map *m, const uint32_t *sw_of,
			uint32_t **ret_sw, uint8_t **ret_port);

/* A switch-to-switch link seen from one end. */
struct routing_adj {
	uint32_t nbr; /* the other end's switch index */
	uint8_t port; /* local port */
};

/*
 * The switch graph in CSR form, for switch indices from sw_node/sw_of (as
 * routing_switch_index() gives them): the links of switch s, in port order,
 * are (*ret_adj)[(*ret_start)[s] .. (*ret_start)[s + 1] - 1]; links to the
 * switch itself are left out, parallel links are not.  *ret_n the number
 * of links.  Both arrays belong to the caller.  0 or -ENOMEM (outputs
 * untouched).
 */
int routing_switch_adj(const struct fabric *f, const uint32_t *sw_node, const uint32_t *sw_of,
		       uint32_t n_sw, uint32_t **ret_start, struct routing_adj **ret_adj,
		       uint32_t *ret_n);

/*
 * All-to-all link load: every CA port sends one flow to every CA LID (LMC
 * ranges LID by LID) but its own, along the LFTs from the switch the port is
 * cabled to; flows are counted per directed switch-to-switch link (each
 * parallel link on its own).  Links are grouped into tiers by their ends'
 * distance from the nearest switch with a CA (min of the two, and the
 * direction: away from CAs, towards them, or level); tier_ratio is the worst
 * max/mean within one tier (on a 3-level fat tree the edge tier carries
 * intra-pod flows the core tier does not, so the overall ratio cannot reach
 * 1 with minimal routes).
 */
struct routing_link_load {
	uint64_t flows;	   /* flows walked (sampled sources only) */
	uint64_t dropped;  /* flows that hit no route, a loop or a wrong end */
	uint64_t max;	   /* flows on the busiest switch-to-switch link */
	double mean;	   /* over every directed switch-to-switch link */
	double ratio;	   /* max / mean (0 when no links) */
	double tier_ratio; /* worst max / mean within one tier */
	uint32_t n_links;  /* directed switch-to-switch links */
	uint32_t n_tiers;
	/*
	 * A lower bound on max for any routing of these flows (0 when sampled):
	 * the larger of the flows a switch's CA ports send out (or receive)
	 * spread evenly over its switch links, the flows across a bridge of the
	 * switch graph spread over its parallel links, and the flows' shortest
	 * hop counts spread evenly over every link.
	 */
	uint64_t bound;
};

/* routing_link_load_stride() with stride 1.  0, -EINVAL (no LIDs) or -ENOMEM. */
int routing_link_load(const struct fabric *f, const struct routes *r,
		      struct routing_link_load *ret);
/*
 * The same with sources sampled: only every stride-th switch with CAs (in
 * node order) sends.  Cost O(sampled CA switches x CA LIDs x hops).
 */
int routing_link_load_stride(const struct fabric *f, const struct routes *r, uint32_t stride,
			     struct routing_link_load *ret);

#endif

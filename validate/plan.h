/*
 * The cabling plan and the check of a fabric against it (docs/validation.md).
 *
 * A plan is a topology file in ibnetdiscover's (and ibsim's) format, read by
 * the one topology reader (fabric/topo.c): every node the fabric should
 * have, every cable (which port of which node to which port of which), and
 * where a port line's comment ends with one ("4xHDR"), the width and speed
 * the link should train at.  A plan node with a GUID line is matched by its
 * node GUID, one without by its node description (for ibsim's files and
 * hand-written plans, the quoted name).
 *
 * plan_check compares a fabric with a plan (or with no plan: then only the
 * checks that need none) and lists findings, each of a kind:
 *
 *   missing_link        a planned cable is not there (both its ports free)
 *   miswired            a cable between two planned nodes that the plan does
 *                       not have: which ports it is on, and where the plan
 *                       puts each of its ends
 *   unexpected_node     a node the plan does not have (and where it hangs)
 *   missing_node        a planned node not found
 *   degraded_width      a link with fewer lanes than planned, or than the
 *   degraded_speed      widest width both ends enable (no planned width);
 *                       the same for the lane speed
 *   duplicate_guid      a node GUID discovery reached at two places
 *                       (struct fabric_dup): both places
 *   duplicate_node_desc two nodes with one description (a plan matches by
 *                       description: such nodes are not matched)
 *   extra_sm            a port with IsSM that is not a known SM of ours
 *
 * Every finding names the node and port on both ends and has a severity
 * (errors: a missing or wrong cable or node, a duplicate GUID; warnings: the
 * rest).  Pure: no I/O but plan_load's read, no logging, no globals.
 */
#ifndef IBSMD_PLAN_H
#define IBSMD_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

enum plan_kind {
	PLAN_MISSING_LINK,
	PLAN_MISWIRED,
	PLAN_UNEXPECTED_NODE,
	PLAN_MISSING_NODE,
	PLAN_DEGRADED_WIDTH,
	PLAN_DEGRADED_SPEED,
	PLAN_DUPLICATE_GUID,
	PLAN_DUPLICATE_NODE_DESC,
	PLAN_EXTRA_SM,
	PLAN_NKINDS
};

enum plan_severity {
	PLAN_WARNING,
	PLAN_ERROR,
};

struct plan {
	struct fabric *f; /* the planned fabric (topo_parse's model) */
	bool *has_guid;	  /* by plan node: matched by GUID, else by description */
	uint32_t links;	  /* cables in the plan */
	uint32_t speeds;  /* ... of them with a width and speed */
};

/* One end of a finding: a port of the fabric, or of the plan when it is not there. */
struct plan_end {
	uint64_t guid; /* node GUID; 0: none (no such end, or a plan node without one) */
	uint8_t port;  /* 0: the node as a whole (or a switch's port 0) */
	uint8_t type;  /* enum node_type; 0 when there is no end */
	char desc[65];
};

struct plan_finding {
	uint8_t kind;	  /* enum plan_kind */
	uint8_t severity; /* enum plan_severity */
	/*
	 * node: the port the finding is about (missing_node: the planned
	 * node; duplicate_guid: the GUID and its port).  peer: its far end as
	 * cabled (none when unlinked).  want: where the plan puts node's cable
	 * (miswired, missing_link).  other: miswired, where the plan puts
	 * peer's cable; duplicate_guid, the second place (peer is the first);
	 * duplicate_node_desc, the second node.
	 */
	struct plan_end node, peer, want, other;
	/* degraded_*: as the link runs, and as planned or as both ends enable */
	uint8_t width, lane, want_width, want_lane;
	bool planned; /* degraded_*: want_* comes from the plan */
};

struct plan_result {
	struct plan_finding *v;
	size_t n, cap;
	uint32_t n_kind[PLAN_NKINDS];
	uint32_t matched;	/* plan nodes found in the fabric */
	uint32_t links_checked; /* fabric links looked at */
};

/* What plan_check takes besides the two fabrics. */
struct plan_opts {
	const uint64_t *sm_guids; /* port GUIDs of the SMs that belong (ours, our peers) */
	size_t n_sm_guids;
};

/*
 * Read a plan from text (need not be NUL-terminated) or a file.  0 and *ret
 * (plan_free); -EBADMSG with err "LINE: ..." (plan_load: "FILE:LINE: ..."),
 * -errno of the read with "FILE: ...", -ENOMEM.
 */
int plan_parse(const char *text, size_t len, struct plan **ret, char *err, size_t err_len);
int plan_load(const char *path, struct plan **ret, char *err, size_t err_len);
void plan_free(struct plan *p);

/*
 * Check f against plan (NULL: no plan: only degraded links by what both
 * ends enable, duplicate GUIDs and descriptions, extra SMs).  Findings in a
 * fixed order (nodes, links, then the fabric-wide kinds) into ret, which
 * the caller zeroes first and clears with plan_result_clear.  0 or -ENOMEM
 * (ret then holds what was found so far).
 */
int plan_check(const struct plan *plan, const struct fabric *f, const struct plan_opts *o,
	       struct plan_result *ret);
void plan_result_clear(struct plan_result *r);

/* "missing_link" ... "extra_sm"; "unknown" past the last. */
const char *plan_kind_name(unsigned kind);
/* The kind named name, or -1. */
int plan_kind_from_name(const char *name);
/* "error" or "warning". */
const char *plan_severity_name(unsigned severity);
/*
 * A key that says which finding this is across two checks (kind, both
 * ends, where the plan wants them), for telling new findings from old.
 */
uint64_t plan_finding_key(const struct plan_finding *fd);
/* One line: "miswired: switch "L1" port 10 is on "S2"[1], planned "S1"[1]". */
void plan_finding_str(const struct plan_finding *fd, char *buf, size_t len);

#endif

/*
 * What changed between two fabric snapshots: nodes that came and went, links
 * that went down or came up (or now lead elsewhere), ports that left or
 * reached ACTIVE, LIDs that changed.  Pure: the caller gets one callback per
 * change, in a fixed order (nodes removed, nodes added, links down, links up,
 * then port states and LIDs node by node), and turns them into events, log
 * lines or incremental work.  Nodes are matched by node GUID, so the two
 * fabrics may index their nodes differently.
 */
#ifndef IBSMD_DIFF_H
#define IBSMD_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"

enum diff_kind {
	DIFF_NODE_REMOVED, /* node of old */
	DIFF_NODE_ADDED,   /* node of new */
	DIFF_LINK_DOWN,	   /* (node, port) -- (peer, peer_port) of old */
	DIFF_LINK_UP,	   /* (node, port) -- (peer, peer_port) of new */
	DIFF_PORT_DOWN,	   /* (node, port) of new: was ACTIVE, is not */
	DIFF_PORT_UP,	   /* (node, port) of new: is ACTIVE, was not */
	DIFF_LID_CHANGED,  /* (node, port) of new: lid, was old_lid */
};

/* One end of a change, copied out of its fabric: it outlives both fabrics. */
struct diff_end {
	uint64_t guid; /* node GUID */
	uint16_t lid;  /* the node's: port 0's on a switch, its first LID port's on a CA */
	uint8_t type;  /* enum node_type */
	bool sm;       /* this end's port is the SM's own (f->sm_node, f->sm_port) */
	char desc[65]; /* NodeDescription */
};

struct diff_change {
	enum diff_kind kind;
	/*
	 * Where the change was seen: f and the indexes node and peer are valid
	 * only while that fabric is (diff_fabrics' callbacks); the rest is a
	 * copy, valid as long as the change (a snapshot's list, snapshot.h).
	 */
	const struct fabric *f;
	uint32_t node;
	uint8_t port;
	uint32_t peer;
	uint8_t peer_port;
	uint16_t lid, old_lid;
	uint8_t state;	      /* the port's PortState in the new fabric (DOWN when gone) */
	bool linked;	      /* PORT_DOWN: the port is still linked (b is its far end) */
	struct diff_end a, b; /* node, and peer (links; PORT_DOWN when linked) */
};

typedef void diff_fn(void *arg, const struct diff_change *c);

/* Report every change from old to new through fn. */
void diff_fabrics(const struct fabric *old, const struct fabric *new, diff_fn *fn, void *arg);

/*
 * The same changes collected once, for several readers (a published
 * snapshot carries them for the publish hooks: sm/changes.c, perf/health.c,
 * ui/events.c).  Read a change's a, b, state and linked, not f (valid only
 * while both fabrics are).  0 or -ENOMEM (the list then empty).
 */
struct diff_list {
	struct diff_change *v;
	size_t n, cap;
};
int diff_collect(const struct fabric *old, const struct fabric *new, struct diff_list *ret);
/* fn for every change of l, in diff_fabrics' order. */
void diff_list_run(const struct diff_list *l, diff_fn *fn, void *arg);
void diff_list_clear(struct diff_list *l);

/* Whether (a, pa) is the end a link is reported from: each link once, from its lower end. */
bool diff_link_first_end(const struct fabric *f, uint32_t a, uint8_t pa);

#endif

/*
 * The fabric model: every node, port and link the SM knows of, by index.
 *
 * A fabric is built by discovery (smp/discover.c) or by the topology parser
 * (fabric/topo.c), then frozen: routing engines and the SA read it through a
 * const pointer and nothing changes a published snapshot.  Nodes are kept in
 * an array; links are (node index, port number) pairs on both ends; a GUID
 * index finds a node by its node GUID.  IBA 1.4 vol 1, ch. 14.2.5 (NodeInfo,
 * PortInfo, SwitchInfo) gives the meaning of the fields.
 */
#ifndef IBSMD_FABRIC_H
#define IBSMD_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u64map.h"

#define FABRIC_MAX_UCAST_LID 0xBFFF
#define FABRIC_NO_NODE UINT32_MAX
#define FABRIC_DR_MAX_HOPS 63
#define LFT_NO_PORT 0xFF     /* LFT entry that drops the packet */
#define FABRIC_PKEY_BLOCKS 2 /* P_KeyTable blocks of 32 the model keeps per port */

enum node_type {
	NODE_CA = 1,
	NODE_SWITCH = 2,
	NODE_ROUTER = 3,
};

/* IBA PortState values (PortInfo:PortState). */
enum port_state {
	PORT_NOP = 0,
	PORT_DOWN = 1,
	PORT_INIT = 2,
	PORT_ARMED = 3,
	PORT_ACTIVE = 4,
};

/* PortInfo:PortPhysicalState, the ones we test for. */
#define PHYS_POLLING 2
#define PHYS_LINKUP 5

struct port {
	uint64_t guid; /* port GUID; switch ports carry the switch port 0 GUID */
	uint16_t lid;  /* base LID (CA/router ports, switch port 0) */
	uint8_t lmc;
	uint8_t state; /* enum port_state */
	uint8_t phys_state;
	uint8_t width_active, speed_active; /* LinkWidthActive, LinkSpeedActive as read */
	/*
	 * The speeds (fabric/speed.h) as discovery worked them out from
	 * PortInfo's classic, extended and XDR fields: the lane speed the link
	 * runs (SPEED_NONE: not known, see speed_port_lane), those the port
	 * supports and has enabled (SPEED_BIT masks), and LinkWidthEnabled.
	 */
	uint8_t lane_speed;
	uint8_t width_enabled;
	uint16_t lanes_supported, lanes_enabled;
	uint8_t mtu_cap, vl_cap;	/* as read */
	uint8_t neighbor_mtu, oper_vls; /* as read, then as set */
	uint32_t remote_node;		/* FABRIC_NO_NODE when not connected */
	uint8_t remote_port;
	bool valid;	/* PortInfo was read for this port */
	bool pi_ext;	/* ... with SMSupportExtendedSpeeds (attribute modifier bit 31) */
	uint8_t pi[64]; /* PortInfo image as read; Set starts from it */
	/*
	 * P_KeyTable blocks as read by discovery, then as programmed: bit b of
	 * pkey_known says pkeys[32b..32b+31] is known.  End ports (CA and
	 * router ports, switch port 0) and switch ports facing a CA (partition
	 * enforcement, smp/program.c); the other switch ports hold none, so the
	 * table (FABRIC_PKEY_BLOCKS * 32 keys) is allocated on first use
	 * (port_pkeys_alloc): NULL while pkey_known is 0.
	 */
	uint8_t pkey_known;
	uint16_t *pkeys;
};

/* The port's P_Key table, allocated zeroed on first use; NULL on ENOMEM. */
uint16_t *port_pkeys_alloc(struct port *p);

struct node {
	uint64_t guid;
	uint64_t sys_guid;
	uint8_t type;	/* enum node_type */
	uint8_t nports; /* physical ports; ports[] has nports + 1 entries */
	uint16_t device_id;
	uint32_t vendor_id;
	uint32_t revision;
	uint16_t partition_cap;
	char desc[65];
	/* how discovery reached it: directed route from the SM port */
	uint8_t dr_hops;
	uint8_t dr_path[FABRIC_DR_MAX_HOPS + 1]; /* dr_path[1..dr_hops] egress ports */
	uint8_t entry_port;			 /* port the first SMP entered by */
	/* switches only */
	uint16_t lft_cap;
	uint16_t lft_top;
	uint16_t mft_cap;
	bool enhanced_port0;
	uint8_t si[64]; /* SwitchInfo image as read */
	struct port *ports;
};

/*
 * A node GUID discovery reached at two places (smp/discover.c): behind a
 * link its port cannot have (that port already linked elsewhere), or
 * answering with another type or port count.  The model keeps the first
 * place; both are recorded by the port the node hangs off there, so the
 * duplicate is reported, not merged silently.  Copied with the fabric.
 */
struct fabric_dup {
	uint64_t guid; /* the node GUID seen twice */
	uint8_t port;  /* its port: linked at the first place, entered at the second */
	uint64_t first_guid, second_guid; /* node GUIDs of the two far ends (0: none) */
	uint8_t first_port, second_port;
};

#define FABRIC_MAX_DUPS 1024 /* duplicates recorded at most; more are counted */

struct fabric {
	struct node *nodes;
	uint32_t n_nodes;
	uint32_t cap_nodes;
	struct u64map guid_index; /* node GUID -> node index */
	uint32_t sm_node;	  /* node the SM runs on */
	uint8_t sm_port;	  /* its port number (0 on a switch) */
	uint64_t subnet_prefix;
	struct fabric_dup *dups; /* GUIDs seen at two places (FABRIC_MAX_DUPS kept) */
	uint32_t n_dups, cap_dups;
	uint32_t dups_lost; /* more than FABRIC_MAX_DUPS */
};

/* Allocate an empty fabric; NULL on ENOMEM.  fabric_free(NULL) is a no-op. */
struct fabric *fabric_new(void);
void fabric_free(struct fabric *f);
/* Bytes the model holds on the heap (nodes, ports, GUID index); 0 for NULL. */
size_t fabric_mem(const struct fabric *f);

/*
 * Add a node with nports physical ports (ports[0..nports] zeroed, remote
 * FABRIC_NO_NODE).  Returns its index in *ret_idx.  -EEXIST if the GUID is
 * already present (*ret_idx then names the existing node), -ENOMEM.
 */
int fabric_add_node(struct fabric *f, uint64_t guid, uint8_t type, uint8_t nports,
		    uint32_t *ret_idx);

/* Node index for a node GUID, or FABRIC_NO_NODE. */
uint32_t fabric_find_guid(const struct fabric *f, uint64_t guid);

/*
 * Connect (a, pa) with (b, pb).  -EINVAL on a bad index/port, -EBUSY when one
 * end is already linked elsewhere.  Linking the same pair twice is a no-op.
 */
int fabric_link(struct fabric *f, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb);

/*
 * Record a GUID seen at two places (the second place of an existing
 * record for the same GUID, port and places is not added twice).  0 or
 * -ENOMEM; past FABRIC_MAX_DUPS only dups_lost counts.
 */
int fabric_dup_add(struct fabric *f, const struct fabric_dup *d);

/* A deep copy of f; NULL on ENOMEM. */
struct fabric *fabric_clone(const struct fabric *f);

/* Undo a link: both ends of (a, pa) become unconnected.  No-op when not linked. */
void fabric_unlink(struct fabric *f, uint32_t a, uint8_t pa);

/*
 * After links went away: a new fabric with only the nodes still reachable
 * from the SM's node (in f's order), and the directed route of every node
 * whose route crosses a link that is gone replaced by a shortest one (lowest
 * port first).  *ret_removed (may be NULL) gets the number of nodes left
 * out.  NULL on ENOMEM; f is left alone.
 */
struct fabric *fabric_prune(const struct fabric *f, uint32_t *ret_removed);
/*
 * The same on f itself (no copy: the nodes kept move down in order, their
 * links and the GUID index follow).  0, or -ENOMEM with f untouched.
 */
int fabric_prune_in_place(struct fabric *f, uint32_t *ret_removed);

static inline bool node_is_switch(const struct node *n)
{
	return n->type == NODE_SWITCH;
}

/* First and last port numbers that carry a LID: 0..0 on switches, 1..n else. */
static inline uint8_t node_first_lid_port(const struct node *n)
{
	return node_is_switch(n) ? 0 : 1;
}
static inline uint8_t node_last_lid_port(const struct node *n)
{
	return node_is_switch(n) ? 0 : n->nports;
}

/*
 * Every LID-carrying port of a fabric (each CA and router port 1..nports,
 * each switch's port 0: node_first_lid_port..node_last_lid_port), in node
 * order, then port order:
 *
 *	struct fabric_port_iter it;
 *
 *	fabric_for_each_lid_port(f, &it) {
 *		const struct node *n = &f->nodes[it.node];
 *		const struct port *p = &n->ports[it.port];
 *		...
 *	}
 *
 * The body may change ports but not the number of nodes or a node's nports;
 * break and continue work as in any loop.
 */
struct fabric_port_iter {
	uint32_t node;
	uint8_t port;
	bool started;
};

/* Move it to the next LID-carrying port; false past the last one. */
static inline bool fabric_lid_port_next(const struct fabric *f, struct fabric_port_iter *it)
{
	if (it->started) {
		if (it->port < node_last_lid_port(&f->nodes[it->node])) {
			it->port++;
			return true;
		}
		it->node++;
	}
	it->started = true;
	for (; it->node < f->n_nodes; it->node++) {
		const struct node *n = &f->nodes[it->node];

		if (node_first_lid_port(n) <= node_last_lid_port(n)) {
			it->port = node_first_lid_port(n);
			return true;
		}
	}
	return false;
}

#define fabric_for_each_lid_port(f, it)                                                            \
	for (*(it) = (struct fabric_port_iter){0}; fabric_lid_port_next((f), (it));)

/* The LID a port answers to: a switch's ports all answer to port 0's. */
static inline uint16_t node_port_lid(const struct node *n, uint8_t port)
{
	return node_is_switch(n) ? n->ports[0].lid : n->ports[port].lid;
}

static inline bool port_is_linked(const struct port *p)
{
	return p->remote_node != FABRIC_NO_NODE;
}

/*
 * A LID map: for each LID 1..max_lid the (node, port) that owns it, LMC
 * ranges included.  Built from the LIDs in the model; 0 entries are unused.
 */
struct lid_map {
	uint16_t max_lid;
	uint32_t *node; /* FABRIC_NO_NODE where no port owns the LID */
	uint8_t *port;
};

/* -EEXIST when two ports claim one LID (the first one wins in the map). */
int fabric_lid_map(const struct fabric *f, struct lid_map *ret);
void fabric_lid_map_clear(struct lid_map *m);

/* Number of nodes of a type. */
uint32_t fabric_count(const struct fabric *f, uint8_t type);

#endif

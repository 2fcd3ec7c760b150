/*
 * Programming the subnet: desired state versus what the nodes hold, turned
 * into the Set SMPs that make them equal, as one batch with a completion
 * callback (IBA 1.4 vol 1, 14.2.5: PortInfo, P_KeyTable, SwitchInfo,
 * LinearForwardingTable, SLtoVLMappingTable, VLArbitrationTable; 7.2 link
 * states).  A batch works on a fabric that is not published: the answers to
 * its PortInfo Sets update that fabric's copies of the ports.  A heavy sweep
 * runs three batches (configure, arm, activate); anything else that must
 * change a few tables (a port order, the multicast tables, later
 * partitions) runs a batch of its own without a sweep.  All SMPs are directed route, so
 * programming does not depend on the tables being programmed.
 */
#ifndef IBSMD_PROGRAM_H
#define IBSMD_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/mft.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "fabric/routes.h"
#include "mad/xact.h"
#include "smp/mkey.h"

struct program;

#define PROGRAM_FAILED_MAX 8

struct program_stats {
	uint32_t sets;		     /* SMPs sent */
	uint32_t errors;	     /* that failed (error status, timeout, could not be sent) */
	uint32_t timeouts;	     /* of those, unanswered */
	uint32_t lft_blocks;	     /* LFT blocks among the sets */
	uint32_t lft_skipped;	     /* of a switch whose block failed: not sent (among errors) */
	uint32_t mft_blocks;	     /* MFT blocks among the sets */
	uint32_t mft_switches;	     /* switches that got MFT blocks */
	uint32_t readbacks;	     /* PortInfo Gets after a PortInfo Set failed */
	uint32_t recovered;	     /* of those, the port held what was set: done after all */
	uint32_t rereg;		     /* PortInfo Sets with ClientReregister */
	uint32_t pkey_blocks;	     /* P_KeyTable blocks among the sets */
	uint32_t pkey_dropped;	     /* P_Keys a port's PartitionCap had no room for */
	uint32_t mkey_refused;	     /* PortInfo Sets not sent: the port holds another M_Key */
	uint32_t mkey_unanswered;    /* PortInfo Sets lost on a port whose M_Key may not be ours */
	uint32_t enforce_blocks;     /* of pkey_blocks: switch ports facing a CA (part_enforce) */
	uint32_t enforce_unfit;	     /* such ports whose table does not fit: enforcement off */
	uint32_t sl2vl_blocks;	     /* SLtoVLMappingTable Sets */
	uint32_t vlarb_blocks;	     /* VLArbitrationTable Sets */
	uint32_t vl_errors;	     /* of those two, failed */
	uint16_t qos_conflict_sls;   /* SLs where the engine's VL overrode the QoS policy's */
	uint32_t qos_conflict_ports; /* output ports where it did */
	/*
	 * The switches whose Sets failed (a CA port's: the switch it links
	 * to), the first PROGRAM_FAILED_MAX: an incremental sweep asks them
	 * again (sm/sweep.c), a switch dying under it is found gone.
	 */
	uint64_t failed_sw[PROGRAM_FAILED_MAX];
	unsigned n_failed_sw;
};

/* part_enforce (OpenSM's names and values): on switch external ports facing a CA. */
enum program_enforce {
	PROGRAM_ENFORCE_OFF,
	PROGRAM_ENFORCE_IN,
	PROGRAM_ENFORCE_OUT,
	PROGRAM_ENFORCE_BOTH,
};

/*
 * The P_Key table a switch port facing a CA port should hold, from the CA
 * port's (ca, n entries, 0 = empty), as OpenSM's pkey_mgr_update_peer_port:
 * the CA's keys in order, a limited key left out where the CA holds the
 * same partition full too, packed.  At most cap keys are written to out;
 * returns how many there are (more than cap: the table does not fit).
 */
size_t program_peer_pkeys(const uint16_t *ca, size_t n, uint16_t *out, size_t cap);

/*
 * What the switches' LFTs hold, as read back (smp/readback.c), indexed like
 * the batch's fabric: r->lft[node] for a switch read, top[node] its last
 * entry that counts (entries past it are empty), -1 for a switch not read.
 */
struct program_held {
	struct routes *r;
	int32_t *top;
	uint32_t n_nodes;
};

/* NULL ok. */
void program_held_free(struct program_held *h);

/* What the desired state depends on besides the routes. */
struct program_params {
	uint64_t subnet_prefix;
	const char *engine;		 /* the routing engine, for log lines */
	bool force;			 /* rewrite every LFT block and VL table (reroute) */
	const struct program_held *held; /* NULL: switches not in old_r get every block */
	/* ClientReregister in the PortInfo Set of CA ports (failover/sync.c, a takeover) */
	bool rereg_all;		     /* every CA port */
	const uint64_t *rereg_guids; /* else these port GUIDs (sorted) */
	size_t n_rereg;
	/*
	 * The partition policy (policy/partition.h): every end port (CA ports,
	 * switch port 0) gets the P_KeyTable blocks that differ from what it
	 * holds (struct port's pkeys).  NULL: the old rule, P_Key 0xFFFF at
	 * index 0 of CA ports coming up.
	 */
	const struct partition_config *parts;
	uint64_t sm_guid;		  /* the SM's port GUID (SELF) */
	struct mkey_policy mkey;	  /* M_Key, protect bits, lease written into each port */
	struct mkey_offenders *offenders; /* NULL, or where M_Key refusals are counted by port */
	/*
	 * With parts: switch external ports facing a CA get the CA port's
	 * table (the blocks that differ, within the switch's
	 * PartitionEnforcementCap) and PartitionEnforcementInbound/Outbound
	 * as asked (where the switch's SwitchInfo says it can); ports between
	 * switches have enforcement cleared, as OpenSM.  enum program_enforce.
	 */
	int part_enforce;
	/*
	 * The QoS policy (policy/qos.h): SL2VL, VLArb, VLHighLimit and the
	 * OperationalVLs cap per port class, merged with the engine's layers.
	 * NULL or not enabled: the engine's layers alone, as before QoS.
	 */
	const struct qos_policy *qos;
	/* the policy the last batch wrote (old_r's), NULL: unknown, every table is written */
	const struct qos_policy *qos_old;
	/*
	 * With lifetimes: SwitchInfo:LifeTimeValue of every switch (switch_life)
	 * and PortInfo:HOQLife of switch external ports (hoq_life toward a
	 * switch, leaf_hoq_life toward a CA or router), each set where it
	 * differs (OpenSM's packet_life_time, head_of_queue_lifetime,
	 * leaf_head_of_queue_lifetime).  false: left as the ports hold them.
	 */
	bool lifetimes;
	uint8_t switch_life, hoq_life, leaf_hoq_life;
	/*
	 * LinkSpeedExtEnabled for every port read with SMSupportExtendedSpeeds
	 * whose far end was too (link_speed_ext_enabled: 1 FDR, 2 EDR, 4 HDR,
	 * 8 NDR or a sum, 30 off, 31 all supported); 0: what each port has.
	 */
	uint8_t link_speed_ext;
	/*
	 * End ports (by port GUID, sorted) whose P_KeyTable, and that of the
	 * switch port facing them, is written whole whatever the model says:
	 * the runtime partitions changed them since the snapshot the model
	 * was copied from (tenants/tenants.c).
	 */
	const uint64_t *pkey_rewrite;
	size_t n_pkey_rewrite;
	/*
	 * NULL: every node.  Else, per node of the batch's fabric, whether its
	 * ports (PortInfo, P_Keys, VL tables) are looked at: the caller knows
	 * the others hold what the last batch, with the same parameters, gave
	 * them (an incremental sweep: nodes discovery did not touch).  Every
	 * switch's SwitchInfo and LFT are diffed whatever the scope.
	 */
	const uint8_t *scope;
};

/*
 * The LFT the published snapshot (old_f, old_r) says switch n was last
 * given, when it still holds it (same LinearFDBTop as discovery read), with
 * its top; NULL when unknown.
 */
const uint8_t *program_old_lft(const struct fabric *old_f, const struct routes *old_r,
			       const struct node *n, int *ret_top);

/*
 * Runs once, when every SMP of the batch has completed and the batch has been
 * started (program_start); the batch is freed right after.
 */
typedef void program_done_fn(void *arg, const struct program_stats *st);

/* A new, empty batch on f (which must outlive it).  NULL on ENOMEM. */
struct program *program_new(struct xact_engine *xe, struct fabric *f, program_done_fn *done,
			    void *arg);

/*
 * Queue what makes every node of f match routes r: PortInfo (LID, LMC, SM
 * LID, subnet prefix, neighbour MTU, operational VLs; a port in INIT is armed
 * by the same Set), P_Key index 0 = 0xFFFF on CA ports coming up, SwitchInfo
 * LinearFDBTop, the LFT blocks that differ from old_r (what the switch was
 * last given) or else from pp->held (what it was read to hold; every block
 * when neither knows, or with force), and SL2VL/VLArb
 * where r uses more than one VL and the tables changed.  A switch whose LFT
 * blocks do not all succeed is marked (lft_top = 0xffff) so the next batch
 * rewrites it.
 */
void program_configure(struct program *p, const struct routes *r, const struct fabric *old_f,
		       const struct routes *old_r, const struct program_params *pp);

/*
 * Queue, for every switch of the batch's fabric that has a table in want,
 * the MulticastForwardingTable blocks (14.2.5.11) in which want differs
 * from what known says the switch was last given (every block when known
 * has no table for it, or with force; fabric/mft.h's diff), and SwitchInfo
 * MulticastFDBTop when the switch supports it (CapabilityMask
 * IsMulticastFDBTopSupported on port 0) and it changes.  Blocks past the
 * switch's MulticastFDBCap are not sent.  known (by switch GUID, owned by
 * the caller, outliving the batch) takes a copy of each switch's table as
 * its blocks are queued; a switch with a block that fails, or whose batch
 * is aborted, is dropped from known, so the next batch rewrites it whole.
 * The fabric is left alone: the batch may run on a published snapshot.
 * 0, or -ENOMEM (what was queued stays queued; the switch is dropped from
 * known).
 */
int program_mft(struct program *p, const struct mft_set *want, struct mft_set *known, bool force);

/* PortInfo:CapabilityMask.IsMulticastFDBTopSupported (14.2.5.6). */
#define PROGRAM_CAP_MCAST_FDB_TOP 0x40000000u

/* Send the batch's SMPs on lane (default XACT_BULK); before queuing any. */
void program_set_lane(struct program *p, enum xact_lane lane);

/* Queue PortState from -> to on every port of f that is up, linked and in state from. */
void program_port_states(struct program *p, uint8_t from, uint8_t to);

/*
 * Queue one Set of attr/mod with data to (node, port) along the node's
 * directed route (discover_port_path).  The answer does not update the
 * model, so such a batch may run on a published fabric.  0 or -errno
 * (counted as an error).
 */
int program_set(struct program *p, uint32_t node, uint8_t port, uint16_t attr, uint32_t mod,
		const uint8_t data[64]);

/*
 * Where the answers to program_pkey_block's Sets go: status 0 with the
 * block the port answered (32 keys, host order), or -errno with keys NULL.
 * (node, port) of the batch's fabric; mod the Set's attribute modifier.
 */
typedef void program_pkey_fn(void *arg, uint32_t node, uint8_t port, uint32_t mod, int status,
			     const uint16_t *keys);

/*
 * The P_KeyTable answers of this batch go to fn instead of the model (the
 * batch may then run on a published fabric).  Before queuing any.
 */
void program_set_pkey_sink(struct program *p, program_pkey_fn *fn, void *arg);

/*
 * Queue a P_KeyTable Set of one block (mod: the block number; on a switch
 * external port, port << 16 | block) with keys (32, host order) to (node,
 * port).  Counted in pkey_blocks (and enforce_blocks on a switch external
 * port).  0 or -errno (counted as an error).
 */
int program_pkey_block(struct program *p, uint32_t node, uint8_t port, uint32_t mod,
		       const uint16_t keys[32]);

/* No more SMPs: done runs when the last completes (before this returns if none is left). */
void program_start(struct program *p);

/* Give up: its SMPs are cancelled (xact_batch_cancel), done is not called; frees.  NULL ok. */
void program_abort(struct program *p);

#endif

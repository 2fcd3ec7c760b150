/*
 * What the SM core shows of itself (smctl status's top level, "mad",
 * "mkey", "partition_enforcement", "last_sweep_incremental", and their
 * metrics), each a status struct filled from the SM and described by a
 * counter table (lib/stat_table.h): ui/ reads these, not struct sm's fields.
 * The parts show theirs the same way (failover/, perf/, sm/mfts.h).
 */
#ifndef IBSMD_SM_STATUS_H
#define IBSMD_SM_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/stat_table.h"

struct sm;

/* The top level: role, fabric size, the last heavy sweep. */
struct sm_status {
	const char *state; /* NOTACTIVE ... MASTER */
	bool subnet_up;
	uint32_t nodes, switches, cas, ports_active, links, lids;
	uint32_t sm_lid;  /* ours, or the master's as it last answered (STANDBY) */
	uint64_t sm_guid; /* the same */
	int priority;
	char routing_engine[64];
	uint64_t sweeps;	/* heavy sweeps done */
	uint64_t last_sweep_ms; /* rounded */
	double last_sweep_exact_ms;
	const char *last_sweep_status; /* "none", "ok", "failed" */
	bool last_sweep_ok;
	char last_sweep_reason[256];
	uint64_t generation; /* of the published snapshot */
	uint64_t traps;	     /* received */
	uint64_t light_sweeps;
	uint32_t last_sweep_sets, last_sweep_lft_blocks, last_sweep_pkey_blocks;
	uint32_t last_sweep_lft_reads;
	uint32_t last_sweep_ext_speed_gets; /* PortInfo asked again with bit 31 (smp/discover.h) */
	uint64_t partitions;
	const char *sm_key; /* "default" (1), "none" (0) or "set" */
	bool guid2lid_pending;
};

/* MADs: the transaction engine, the umad port and what the dispatch dropped ("mad"). */
struct sm_mad_status {
	uint64_t unsolicited, sent, received, timeouts, retries, errors, unmatched, malformed;
	uint32_t outstanding, window, max_bulk_outstanding, control_outstanding, window_in_effect;
	uint64_t window_cuts;
	uint64_t umad_received, umad_dropped; /* metrics only */
	uint64_t umad_batches, umad_wakeups;  /* metrics only */
	bool dr_only;			      /* in effect (sm/port.h) */
	bool split;			      /* SMI and GSI are separate devices (mad/smigsi.h) */
	uint64_t lid_routed_smps;	      /* LID-routed SMP requests sent (dr_only: none) */
	uint64_t lid_routed_smp_replies;      /* answers to LID-routed requests */
	uint64_t trap_repress_unrouted;	      /* dr_only: traps from a port with no route */
};

/* M_Key ("mkey"; its offenders are listed by sm->mkey.offenders). */
struct sm_mkey_status {
	bool set; /* a key is configured (never the key) */
	int protect_bits, lease_period;
	uint64_t refused, unanswered, traps, offenders_untracked;
};

/* Partition enforcement on switch ports facing CAs ("partition_enforcement"). */
struct sm_penf_status {
	const char *mode; /* part_enforce */
	bool allow_both_pkeys;
	uint64_t blocks, unfit;
};

/* What the last heavy sweep's discovery did ("last_sweep_incremental"). */
struct sm_incremental_status {
	bool incremental;
	uint32_t switches_asked, links_down, links_up, nodes_removed;
	uint32_t switches_held_out; /* now: going down port by port (dying_switch_hold_ms) */
};

void sm_status_get(const struct sm *sm, struct sm_status *ret);
void sm_mad_status_get(const struct sm *sm, struct sm_mad_status *ret);
void sm_mkey_status_get(const struct sm *sm, struct sm_mkey_status *ret);
void sm_penf_status_get(const struct sm *sm, struct sm_penf_status *ret);
void sm_incremental_status_get(const struct sm *sm, struct sm_incremental_status *ret);

extern const struct stat_table sm_stat_table, sm_mad_stat_table, sm_mkey_stat_table,
    sm_penf_stat_table, sm_incremental_stat_table;

#endif

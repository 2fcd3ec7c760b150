/*
 * The sweep scheduler (sm/sweep_sched.c), in front of the heavy sweep
 * (sm/sweep.h): what a sweep did, and how the parts of the SM ask for one.
 *
 * The scheduler folds requests: one that arrives while a sweep runs, or
 * within sweep_holddown_ms of the last one's end, waits for that hold-down
 * and joins every other request made meanwhile, so a burst of traps costs
 * one sweep after the running one (like an OSPF SPF hold timer).  The first
 * request after a quiet spell starts at once.  Reports of changed switches
 * alone (traps, the light sweep's PortStateChange) are gathered instead:
 * their sweep waits until they stop (SWEEP_TRAP_GATHER_MS without one, at
 * most SWEEP_GATHER_MAX_MS), not for the hold-down: a switch that loses its
 * links one after the other is one incremental sweep.
 */
#ifndef IBSMD_SWEEP_SCHED_H
#define IBSMD_SWEEP_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

struct fabric;

struct sm;
struct sweep;

/* The phases (sweep.c's order): DISCOVER DECIDE ASSIGN ROUTE READBACK PROGRAM ARM ACTIVATE PUBLISH.
 */
#define SWEEP_N_PHASES 9

/* What a heavy sweep did; sm->last holds the last one's. */
struct sweep_summary {
	int status;	  /* 0 when the subnet came up; -EAGAIN standing by */
	bool standby;	  /* DECIDE: another SM is (or becomes) master, nothing programmed */
	bool programmed;  /* PROGRAM ran: the snapshot's routes are what the switches got */
	char reason[256]; /* why not, one line */
	uint32_t nodes, switches, cas;
	uint32_t links, ports_active, ports_linked;
	uint32_t lids;
	uint32_t timeouts;
	uint32_t sets, set_errors;
	uint32_t set_recovered; /* failed PortInfo Sets the port, read back, had taken */
	bool incremental;	/* discovery re-probed only around changed switches */
	bool rebalance;		/* programmed the engine's routes, run in the background */
	bool scoped;		/* PROGRAM looked only at the ports of scoped_nodes nodes */
	uint32_t scoped_nodes;
	uint32_t reprobed, links_down, links_up, removed; /* what it did (discover.h) */
	uint32_t lft_blocks;
	uint32_t pkey_blocks;  /* P_KeyTable blocks among the sets (partitions) */
	uint32_t sl2vl_blocks; /* SLtoVLMappingTable blocks among the sets (QoS, engine layers) */
	uint32_t vlarb_blocks; /* VLArbitrationTable blocks among the sets */
	uint32_t rereg;	    /* PortInfo Sets with ClientReregister (a takeover, failover/sync.c) */
	uint32_t lft_reads; /* LFT blocks read back (a switch this SM knew nothing of) */
	uint32_t ext_gets;  /* PortInfo Gets asked again with SMSupportExtendedSpeeds */
	double ms, discover_ms, route_ms, readback_ms;
	char engine[32];
	/* where the time went, ms by phase (enum order of sweep.c), and inside PUBLISH */
	double phase_ms[SWEEP_N_PHASES];
	double publish_hooks_ms, publish_dump_ms;
};

/* The scheduler's state, inside struct sm. */
/*
 * A switch's change waits until the reports have stopped for this long (the
 * other end's, the next port's) before sweeping, at most SWEEP_GATHER_MAX_MS
 * after the first (a report storm still sweeps that often).  Measured with
 * bench/faults.sh spine_ports (a spine cut a port every ~12 ms): k=16 in
 * one incremental sweep, 262 ms from the first Unlink (the cut itself ~200
 * ms; with the old 500 ms hold-down between sweeps: 800 ms, or heavy);
 * k=32 574 ms in one (the cut ~480 ms).  Both ends of an ISL report within
 * a few ms: 20 ms costs a single fault little.
 */
#define SWEEP_TRAP_GATHER_MS 20
#define SWEEP_GATHER_MAX_MS 300

/*
 * An incremental sweep whose programming failed is retried incrementally
 * after at most 2 failures in a row with no change reported meanwhile, and
 * at most this many in all (then heavy).  Measured with bench/faults.sh -k
 * 56 spine_ports (56 ports cut 10 ms apart, a failed sweep 0.4-1.1 s):
 * 2-3 sweeps fail on the dying spine's Sets while its far ends keep
 * reporting; at 3 the old rule (2 failures in all) went heavy, 16.5 s.
 */
#define SWEEP_MAX_OVERTAKEN 8

/* Switches an incremental sweep re-probes at most; more and it is heavy. */
#define SWEEP_MAX_DIRTY 64

/*
 * A switch going down port by port (a reboot, a line card): an incremental
 * sweep whose Sets to a switch failed while that switch lost links
 * (SWEEP_HOLD_MIN_LINKS or more, no CA on it) takes it for gone for
 * dying_switch_hold_ms (2 s; 0: never): the next sweeps route around it whole instead of through
 * its last links, and do not program it (its Sets would time out, failing
 * the sweep again).  Then its former neighbours are asked again: one still
 * linked finds it, and it comes back like any switch.  Measured with
 * bench/faults.sh -k 56 spine_ports: without, three sweeps after the cut
 * began (two failing on the spine's Sets), 1.3 s from the last port to the
 * subnet up.
 */
#define SWEEP_MAX_HELD 8
#define SWEEP_HOLD_MIN_LINKS 2

struct sweep_sched {
	/* starts a sweep now (sweep.c's sweep_begin, set by sm.c): 0 or -errno */
	int (*begin)(struct sm *sm, const char *why);
	struct sweep *cur;	/* the sweep running, or NULL */
	bool pending;		/* a sweep was asked for and waits */
	char pending_why[160];	/* the first reason asked for */
	unsigned pending_count; /* requests folded into the pending sweep */
	struct event *holddown; /* fires when a pending sweep may start */
	double last_end_ms;	/* CLOCK_MONOTONIC end of the last sweep, 0 = none yet */
	bool force_lft;		/* the next sweep rewrites every LFT block (reroute) */
	/*
	 * Sweeps begun so far, and how many had begun when force_lft was
	 * asked: only a sweep begun after that clears it (one running then
	 * may be past its routing: the reroute is the next one's).
	 */
	uint64_t begun, force_begun;
	struct event *retry; /* a failed sweep is tried again (backoff) */
	/* the next sweep may be incremental: only around these switches */
	uint64_t dirty[SWEEP_MAX_DIRTY];
	unsigned n_dirty;
	bool want_heavy;      /* some request since the last sweep began needs a heavy one */
	bool cur_incremental; /* the sweep that began last began incremental */
	bool rebalance;	      /* the next sweep programs the background re-balance */
	/* the reports of changed switches since the last sweep began: first, last */
	double first_report_ms, last_report_ms;
	/*
	 * What the last configure batch was built with (sweep.c): a sweep
	 * whose are the same, after one that brought the subnet up, looks only
	 * at the ports of the nodes its discovery touched (program_params
	 * scope).  valid false: nothing known.
	 */
	struct sweep_program_sig {
		bool valid;
		uint64_t subnet_prefix;
		uint16_t sm_lid;
		uint8_t n_vls;
		const void *parts, *qos;
		uint64_t mkey;
		uint8_t mkey_protect;
		uint16_t mkey_lease;
		int part_enforce;
		bool lifetimes;
		uint8_t switch_life, hoq_life, leaf_hoq_life, link_speed_ext;
	} programmed_with;
	unsigned failures; /* failed sweeps in a row */
	/*
	 * Of those, the ones during which no switch reported a change: a sweep
	 * whose Sets failed while the fabric kept changing under it (a switch
	 * losing its links one by one, its Sets timing out) was overtaken, not
	 * stuck, and is retried incrementally (SWEEP_MAX_OVERTAKEN at most).
	 */
	unsigned failures_quiet;
	pid_t dump_pid; /* child writing the routing dumps, 0 if none */
	/* switches held out of incremental sweeps (dying_switch_hold_ms), their former neighbours
	 */
	struct sweep_held {
		uint64_t guid;
		double until_ms; /* CLOCK_MONOTONIC */
		unsigned n_nbr;
		uint64_t nbr[SWEEP_MAX_DIRTY];
	} held[SWEEP_MAX_HELD];
	unsigned n_held;
	struct event *hold_timer; /* the first hold's end */
};

/*
 * Ask for a heavy sweep, saying why (logged at debug, published by the
 * sweep_begin hooks when it starts): now, or after the hold-down (above).
 * 0 or -errno.
 */
int sweep_start_why(struct sm *sm, const char *why);
/*
 * Ask for a sweep because switch guid changed (its trap 128, its
 * PortStateChange): an incremental one that re-probes only the switches so
 * named (smp/discover.h, discover_start_around) when nothing else asked for a
 * heavy one meanwhile, the last sweep brought the subnet up and the key
 * incremental_sweep allows; else heavy.
 */
int sweep_start_around(struct sm *sm, uint64_t guid, const char *why);
/*
 * Ask for a re-balance sweep (sm/route.h, route_published): no SMP to
 * discover (a copy of the published fabric), the worker's routes, the
 * blocks that differ programmed.  Heavy or around switches instead when
 * something else asked meanwhile (the re-balance then waits for the next
 * snapshot).  0 or -errno.
 */
int sweep_start_rebalance(struct sm *sm);
/* sweep_start_why(sm, "requested"). */
int sweep_start(struct sm *sm);
/* Whether a heavy sweep runs now. */
bool sweep_running(const struct sm *sm);
/* Whether a requested heavy sweep waits (behind the running one or the hold-down). */
bool sweep_pending(const struct sm *sm);
/* The next sweep rewrites every LFT block and VL table (smctl reroute). */
void sweep_force_lft(struct sm *sm);
/*
 * Hold switch guid out of incremental sweeps for dying_switch_hold_ms (above);
 * nbr: its switch neighbours, asked again when the hold ends.  false when
 * SWEEP_MAX_HELD are held already.
 */
bool sweep_hold(struct sm *sm, uint64_t guid, const uint64_t *nbr, unsigned n_nbr);
/*
 * After an incremental sweep whose Sets failed (failed: the switches whose
 * Sets did, program_stats.failed_sw): hold each that lost
 * SWEEP_HOLD_MIN_LINKS links or more from before (the last published
 * fabric) to now (this sweep's), has no CA on it, is not the SM's own
 * node or neighbour, and is not the only way to any other node of now.
 * How many it held.
 */
unsigned sweep_hold_dying(struct sm *sm, const struct fabric *before, const struct fabric *now,
			  const uint64_t *failed, unsigned n_failed);
/* Whether switch guid is held now. */
bool sweep_is_held(const struct sm *sm, uint64_t guid);
/* The GUIDs held now into out (at most max); how many. */
unsigned sweep_held(const struct sm *sm, uint64_t *out, unsigned max);
/* Forget every hold (a heavy sweep sees the fabric as it is). */
void sweep_hold_clear(struct sm *sm);
/* Free the scheduler's timers (sm_fini). */
void sweep_sched_fini(struct sm *sm);
/*
 * For sweep.c at the end of a sweep: a failed one is tried again after the
 * hold-down, then twice as long each time (at most 30 s, or the sweep
 * interval if shorter); one that did not fail resets the count.  Then
 * sweep_sched_next starts what was asked for meanwhile (after the hold-down).
 * overtaken: switches reported changes while the sweep ran.
 */
void sweep_sched_retry(struct sm *sm, bool failed, bool overtaken);
/*
 * After failed sweeps (sc->failures in a row), whether the next may still be
 * incremental: at most 2 failed with no change reported meanwhile, at most
 * SWEEP_MAX_OVERTAKEN in all.
 */
bool sweep_sched_may_retry_incremental(const struct sweep_sched *sc);
void sweep_sched_next(struct sm *sm);

#endif

/*
 * The performance manager: port counters by LID-routed PerfMgt MADs (IBA 1.4
 * vol 1, 16.1: PortCounters 16.1.3.5, PortCountersExtended 16.1.4.11).
 *
 * Every perfmgr_sweep_time_s seconds (config `perfmgr`, OpenSM's names), one
 * counter sweep reads PortCounters and then PortCountersExtended of every
 * ACTIVE port of the published snapshot: switch ports through the switch's
 * LID, CA and router ports through their own.  At most
 * perfmgr_max_outstanding PerfMgt MADs are in flight, on the transaction
 * engine's bulk lane, and none is submitted while a heavy sweep runs: a
 * sweep waits behind at most that many, answered in one round trip.
 *
 * Per port it keeps the last raw reading, the deltas and rates of the last
 * interval and totals since the port was first read (what the metrics count).
 * The data and packet counters come from PortCountersExtended where the port
 * answers it (64 bits), else from PortCounters (32 bits).  IBA counters stop
 * at all ones: a counter at its maximum is reported saturated (its delta a
 * lower bound); a value lower than the last is a reset by someone else
 * (delta = the new value), except a 32-bit counter that was in its upper half
 * and is now in its lower one, which is taken as wrapped (devices that wrap
 * do exist).  Counters are cleared (a PortCounters Set) only when
 * perfmgr_clear_counters is set, once one is past 3/4 of its range.
 *
 * Error thresholds (per interval: symbol errors; link downed and link error
 * recovery; receive errors; transmit discards) mark a port unhealthy; it is
 * healthy again after PERFMGR_CLEAN_INTERVALS intervals under every
 * threshold.  Each change runs the SM's port_health hooks (events, metrics).
 * This file owns the set of unhealthy ports.
 */
#ifndef IBSMD_PERFMGR_H
#define IBSMD_PERFMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"
#include "mad/perf_wire.h"

struct sm;
struct perfmgr;

#define PERFMGR_CLEAN_INTERVALS 3

enum perfmgr_counter {
	PERFMGR_SYMBOL_ERRORS,
	PERFMGR_LINK_ERROR_RECOVERY,
	PERFMGR_LINK_DOWNED,
	PERFMGR_RCV_ERRORS,
	PERFMGR_RCV_REMOTE_PHYS_ERRORS,
	PERFMGR_RCV_SWITCH_RELAY_ERRORS,
	PERFMGR_XMIT_DISCARDS,
	PERFMGR_XMIT_CONSTRAINT_ERRORS,
	PERFMGR_RCV_CONSTRAINT_ERRORS,
	PERFMGR_LOCAL_LINK_INTEGRITY_ERRORS,
	PERFMGR_EXCESSIVE_BUFFER_OVERRUN,
	PERFMGR_VL15_DROPPED,
	PERFMGR_XMIT_WAIT,
	PERFMGR_XMIT_DATA, /* units of 4 octets, as on the wire */
	PERFMGR_RCV_DATA,
	PERFMGR_XMIT_PKTS,
	PERFMGR_RCV_PKTS,
	PERFMGR_UNICAST_XMIT_PKTS, /* Extended only */
	PERFMGR_UNICAST_RCV_PKTS,
	PERFMGR_MULTICAST_XMIT_PKTS,
	PERFMGR_MULTICAST_RCV_PKTS,
	PERFMGR_NCOUNTERS,
};

/* Which threshold a counter feeds (bits of perfmgr_port.reasons). */
enum perfmgr_reason {
	PERFMGR_R_SYMBOL = 1u << 0,	   /* SymbolErrorCounter */
	PERFMGR_R_LINK_DOWNED = 1u << 1,   /* LinkDowned + LinkErrorRecovery */
	PERFMGR_R_RCV = 1u << 2,	   /* PortRcvErrors and the other receive-side errors */
	PERFMGR_R_XMIT_DISCARDS = 1u << 3, /* PortXmitDiscards + XmitConstraintErrors */
	PERFMGR_NREASONS = 4,
};

enum perfmgr_kind {
	PERFMGR_KIND_ERROR,
	PERFMGR_KIND_WAIT,
	PERFMGR_KIND_DATA,
	PERFMGR_KIND_PKTS,
};

struct perfmgr_counter_info {
	const char *name; /* smctl counters, the metrics, the page: "symbol_errors" */
	const char *iba;  /* the attribute component, as perfquery prints it */
	uint8_t bits;	  /* width in PortCounters; 0: PortCountersExtended only */
	enum perfmgr_kind kind;
	uint32_t reason; /* the threshold it feeds, 0 for none */
};

extern const struct perfmgr_counter_info perfmgr_counter_info[PERFMGR_NCOUNTERS];
/* "symbol_errors" ... for a PERFMGR_R_* bit; NULL for anything else. */
const char *perfmgr_reason_name(uint32_t reason_bit);

/* One reading of a port. */
struct perfmgr_reading {
	uint64_t v[PERFMGR_NCOUNTERS];
	bool ext; /* data, packet and cast counters are PortCountersExtended's (64 bits) */
};

/* Thresholds per interval; 0 = not watched. */
struct perfmgr_thresholds {
	uint64_t symbol_errors, link_downed, rcv_errors, xmit_discards;
};

struct perfmgr_port {
	uint64_t node_guid;
	uint8_t port;
	uint8_t node_type;
	uint16_t lid; /* queried at: the switch's LID for switch ports */
	bool have;    /* a first reading exists (the baseline) */
	bool no_ext;  /* PortCountersExtended refused: not asked again */
	struct perfmgr_reading last;
	uint64_t total[PERFMGR_NCOUNTERS]; /* deltas summed since first read */
	uint64_t delta[PERFMGR_NCOUNTERS]; /* the last interval */
	double rate[PERFMGR_NCOUNTERS];	   /* the last interval, per second */
	uint32_t saturated;		   /* bit per counter at its maximum in the last reading */
	double t_last;			   /* CLOCK_MONOTONIC seconds of the last reading */
	double interval_s;		   /* between the last two readings */
	uint32_t reasons;		   /* thresholds crossed in the last interval */
	bool unhealthy;
	uint32_t unhealthy_reasons; /* every threshold crossed since it turned unhealthy */
	unsigned clean;		    /* clean intervals while unhealthy */
	uint64_t readings, failures, wraps, resets, clears;
	double unhealthy_since; /* CLOCK_REALTIME seconds */
	/* the reading being assembled (PortCounters, then Extended) */
	struct wire_port_counters pending;
	uint32_t cycle; /* the last counter sweep that listed the port */
};

/* What the port_health hooks get. */
struct perfmgr_health_change {
	const struct perfmgr_port *port;
	bool unhealthy;	  /* the new state */
	uint32_t reasons; /* PERFMGR_R_* crossed (when it turned unhealthy) */
};

struct perfmgr_stats {
	bool enabled, running;
	uint64_t cycles;       /* counter sweeps finished */
	uint64_t mads;	       /* PerfMgt MADs sent (completed or failed) */
	uint64_t failures;     /* of those, timeouts and error statuses */
	uint64_t skipped;      /* ticks that found the last sweep still running */
	uint64_t sweep_waits;  /* times it held back for a heavy sweep */
	uint64_t clears;       /* PortCounters Sets sent */
	double last_cycle_ms;  /* wall time of the last counter sweep */
	double last_cycle_end; /* CLOCK_REALTIME seconds, 0 = none */
	size_t ports;	       /* ports known */
	size_t unhealthy;
	unsigned inflight;
	int sweep_time_s; /* perfmgr_sweep_time_s */
};

/* ---- pure: counter arithmetic (unit-tested) ----------------------------- */

/*
 * The increase from prev to cur of a counter `bits` wide (1..64), by the
 * rules above; *ret_wrapped / *ret_reset say which rule applied (either may
 * be NULL).
 */
uint64_t perfmgr_delta(uint64_t prev, uint64_t cur, unsigned bits, bool *ret_wrapped,
		       bool *ret_reset);
/* The width in bits of counter c in reading r. */
unsigned perfmgr_width(enum perfmgr_counter c, const struct perfmgr_reading *r);
/* PortCounters (and Extended when x is not NULL) -> a reading. */
void perfmgr_reading_from_wire(const struct wire_port_counters *pc,
			       const struct wire_port_counters_ext *x, struct perfmgr_reading *ret);

/*
 * Fold reading r taken at now (CLOCK_MONOTONIC s) into p: deltas, rates,
 * totals, saturation, thresholds t.  Returns 1 when p turned unhealthy, -1
 * when it turned healthy, 0 otherwise.  The first reading is the baseline.
 * A reading whose width differs from the last (Extended came or went) is a
 * new baseline too.
 */
int perfmgr_port_update(struct perfmgr_port *p, const struct perfmgr_reading *r, double now,
			const struct perfmgr_thresholds *t);
/* Whether a counter of r is past 3/4 of its range (time to clear, where configured). */
bool perfmgr_needs_clear(const struct perfmgr_reading *r);

/* ---- the manager ---------------------------------------------------------- */

/*
 * Attach the manager to the SM (a part, sm/part.h): its hooks, the perfmgr
 * appliers, the timer (armed when sm->conf.perfmgr).  0 or -ENOMEM with err.
 */
int perfmgr_attach(struct sm *sm, char *err, size_t err_len);
/* The manager, or NULL when it is not attached. */
const struct perfmgr *perfmgr_of(const struct sm *sm);
/* perfmgr or perfmgr_sweep_time_s changed: start, stop or re-arm. */
void perfmgr_schedule(struct sm *sm);

/* ret: the manager's counters (zeros for pm NULL). */
void perfmgr_get_stats(const struct perfmgr *pm, struct perfmgr_stats *ret);
/* Its fields (status "perfmgr", metrics), lib/stat_table.h. */
extern const struct stat_table perfmgr_stat_table;
/* The ports known, in node order of the snapshot that listed them; *ret_n of them (0: pm NULL). */
const struct perfmgr_port *perfmgr_ports(const struct perfmgr *pm, size_t *ret_n);
/* A port by node GUID and number; NULL when not read. */
const struct perfmgr_port *perfmgr_find(const struct perfmgr *pm, uint64_t node_guid, uint8_t port);

#endif

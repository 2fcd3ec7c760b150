/*
 * The unhealthy-port policy for links that flap or ports that babble: every link that goes down
 * (seen in the published snapshot's diff) is counted against its switch end
 * (the lower GUID's when both ends are switches; never the SM's own link).
 * A port whose link went down flap_threshold times within flap_window_s is
 * quarantined: disabled (PortPhysicalState = Disabled, sm/port.c), so it
 * stops dragging sweeps and routes around, logged with both ends and sent as
 * an event.  After quarantine_s it is enabled again (0: only by the
 * operator, `smctl port enable NODE PORT`, which also clears its history).
 * A port that floods the SM with port-error traps (129-131) is quarantined
 * the same way (health_port_error).
 * `smctl ports --unhealthy` lists quarantined ports beside those the
 * performance manager marks unhealthy.
 */
#ifndef IBSMD_HEALTH_H
#define IBSMD_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"

struct sm;

#define HEALTH_MAX_DOWNS 64 /* link-down times kept per port */

struct health_port {
	uint64_t guid;
	uint8_t port;
	unsigned n_downs;
	double downs[HEALTH_MAX_DOWNS]; /* CLOCK_MONOTONIC seconds, oldest first */
	uint64_t downs_total;
	double traps_since; /* CLOCK_MONOTONIC seconds: the trap window's start */
	unsigned n_traps;   /* port-error traps (129-131) about it in that window */
	uint64_t traps_total;
	bool quarantined;
	double since;	   /* CLOCK_REALTIME seconds, when quarantined */
	double release_at; /* CLOCK_MONOTONIC seconds; 0 = by the operator only */
};

/* An event for the state_changed-like hook sm->hooks.quarantine. */
struct health_change {
	const struct health_port *p;
	bool quarantined; /* false: released */
	const char *why;
};

struct health_stats {
	uint64_t link_downs;  /* counted */
	uint64_t port_traps;  /* port-error traps (129-131) counted */
	uint64_t quarantines; /* ports quarantined so far */
	uint64_t releases;    /* and enabled again (timer or operator) */
	unsigned quarantined; /* now */
};

/*
 * Attach the policy to the SM (a part, sm/part.h): the published and
 * port_error hooks, a 1 s timer for releases.  0 or -ENOMEM with err.
 */
int health_attach(struct sm *sm, char *err, size_t err_len);

/*
 * A link of (guid, port) went down at now (monotonic seconds): count it,
 * and 1 when the port is to be quarantined now (the caller disables it).
 * Pure but for the table: exposed for the tests.
 */
int health_link_down(struct sm *sm, uint64_t guid, uint8_t port, double now);

/*
 * A port-error trap (129-131) from slid about the port (lid, port) of the
 * published fabric, at now (monotonic seconds); only a node's trap about
 * its own port counts (a CA's LID names its port).  Counted
 * against the switch end of that port's link (as a flap is), and once
 * trap_flood_threshold of them came within flap_window_s the port is
 * quarantined like a flapping one (a babbling port: OpenSM's
 * babbling_port_policy disables one after 250).  Master only.  1 when it
 * was quarantined now, else 0.
 */
int health_port_error(struct sm *sm, uint16_t slid, uint16_t lid, uint8_t port, double now);

/* The port was enabled by an order: it is no longer quarantined and its history is cleared. */
void health_forget(struct sm *sm, uint64_t guid, uint8_t port);

/* The record of (guid, port), NULL when none. */
const struct health_port *health_find(const struct sm *sm, uint64_t guid, uint8_t port);

void health_get_stats(const struct sm *sm, struct health_stats *ret);
/* Its fields (status "flapping", metrics), lib/stat_table.h. */
extern const struct stat_table health_stat_table;

#endif

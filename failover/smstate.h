/*
 * The SM's state and the election among SMs (IBA 1.4 vol 1, 14.4.1: the SM
 * state machine NOTACTIVE, DISCOVERING, STANDBY, MASTER; 14.2.5.13 SMInfo;
 * 14.4.1.2 SubnSet(SMInfo) and its attribute modifiers) have one owner: this
 * file.  Sweeps report what they found; smstate decides what the SM is, and
 * tells the state_changed hooks (with the reason) whenever that changes.
 *
 * Election: the better SM has the higher priority, then the lower port GUID.
 * A heavy sweep stops between discovery and programming (DECIDE): every port
 * with IsSM in its CapabilityMask (and every port some port names as its
 * master SM LID, or an SM we already know) is asked for its SMInfo on the
 * control lane.  Then:
 *   - DISCOVERING, another SM is MASTER: STANDBY, polling it (and, when we
 *     are the better one, trap 144 so the master hands over);
 *   - DISCOVERING, a better SM is DISCOVERING or STANDBY: STANDBY, polling it;
 *   - DISCOVERING, none better: MASTER, and the sweep programs;
 *   - MASTER, a better SM is MASTER too (a healed partition): HANDOVER to it,
 *     and STANDBY as soon as it answers as master;
 *   - MASTER, a worse SM is MASTER too: program, and tell it DISCOVER so it
 *     finds us and stands by within its next sweep;
 *   - MASTER, a better SM is STANDBY: HANDOVER to it; this SM stays master,
 *     programming nothing, until the ACKNOWLEDGE comes (or the new SM answers
 *     as master: OpenSM sends no ACKNOWLEDGE); the new SM steps up once its
 *     ACKNOWLEDGE is answered, so the two are never master at once.  A better
 *     SM still DISCOVERING is left to find us, stand by and send trap 144.
 * A STAND_BY decision touches no switch.
 *
 * A standby polls its master's SMInfo every sminfo_poll_interval_ms (a poll
 * not answered within the interval has failed; one poll at a time); after
 * sminfo_poll_count failed polls in a row it takes over: DISCOVERING and a
 * heavy sweep, whose DECIDE finds the master gone (or alive: STANDBY again).
 *
 * SMInfo Set is obeyed only when the payload carries our SM_Key and the
 * sender's port is an SM: its NodeInfo and PortInfo are read back along the
 * route the request came by (IsSM set, and the GUID the payload claims is
 * the port's); anything else is refused with a MAD status, counted and
 * logged (rate-limited).  SMInfo:SM_Key goes only to a requester that gives
 * it in its Get, or whose port is an SM (OpenSM's Gets carry no key, and it
 * ignores an SM that answers with another).  An SM answering with another
 * SM_Key is not a peer and is ignored, as OpenSM does.
 */
#ifndef IBSMD_SMSTATE_H
#define IBSMD_SMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"
#include "mad/madio.h"
#include "mad/wire.h"
#include "sm/role.h"

struct sm;

#define SMSTATE_MAX_PEERS 16
#define SMSTATE_CHECKS_MAX 16 /* requester checks in flight at once */

/* Another SM of the subnet, as it last answered. */
struct smstate_peer {
	uint64_t guid; /* its port GUID */
	uint16_t lid;
	uint8_t priority;
	uint8_t state; /* enum sm_state */
	uint32_t act_count;
	uint8_t path[64]; /* directed route to its port */
	uint8_t hops;
	bool foreign_key;	  /* answers with another SM_Key: not a peer */
	bool unreachable;	  /* did not answer the last query */
	double last_contact_ms;	  /* CLOCK_MONOTONIC of the last answer, 0 = never */
	double last_contact_wall; /* the same, wall clock (seconds) */
};

/* What the role shows (smctl status: "peers", "failover", "state_reason"). */
struct smstate_status {
	struct smstate_peer peers[SMSTATE_MAX_PEERS];
	unsigned n_peers;
	uint64_t master;		  /* STANDBY: the master polled (sm->master_guid) */
	uint64_t handover_to;		  /* MASTER: the SM handed over to, waiting for it */
	int poll_interval_ms, poll_count; /* sminfo_poll_interval_ms, sminfo_poll_count */
	char why[160];			  /* the reason of the last state change */
	double since_wall;		  /* when the state last changed (wall clock) */
	uint64_t polls, polls_failed, takeovers, handovers_sent, handovers_received;
	uint64_t handovers; /* sent + received */
	uint64_t sets_accepted, sets_refused, gets_answered, foreign_sms;
};

/*
 * Attach the role to the SM (a part, sm/part.h): its timers, the SMInfo and
 * TrapRepress dispatch rows, the sm_priority applier and sm->role.  0 or
 * -errno with err.
 */
int smstate_attach(struct sm *sm, char *err, size_t err_len);

/* ret: the role's status (zeros when it is not attached). */
void smstate_status_get(const struct sm *sm, struct smstate_status *ret);
/* Its counters (status "failover", metrics), lib/stat_table.h. */
extern const struct stat_table smstate_stat_table;

/* Set the state: logs "SM state A -> B: why" and runs the state_changed hooks. */
void smstate_set(struct sm *sm, enum sm_state to, const char *why);

/*
 * smctl handover: hand the subnet to the SM of port GUID target (0: the best
 * other SM we know); when that SM would not win the election, our priority
 * (sm->conf.sm_priority) is lowered so that it does.  0, or -errno with a
 * reason in why: -EPERM not master, -ENOENT no such SM (or none), -EBUSY a
 * handover runs, -ERANGE it cannot win (priority 0 and a higher GUID).
 */
int smstate_handover_order(struct sm *sm, uint64_t target, char *why, size_t why_len);

/* ---- pure rules, for the tests -------------------------------------------- */

/* Whether SM (pa, ga) wins the election against (pb, gb). */
bool smstate_better(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb);

/*
 * The state an SM in state `ours` goes to when an SM in state `sender`
 * (the payload's SMState) sends SubnSet(SMInfo) with modifier mod, or
 * -EINVAL when the Set is not legal (IBA table 185, OpenSM's checks):
 * HANDOVER/DISABLE/STANDBY/DISCOVER only from a master, ACKNOWLEDGE only
 * from a standby; HANDOVER to a STANDBY (-> MASTER), MASTER (stays) or
 * DISCOVERING (stays: its sweep decides),
 * ACKNOWLEDGE to a STANDBY or MASTER (MASTER: -> STANDBY, when it handed
 * over to the sender), DISABLE to a STANDBY (-> NOTACTIVE), STANDBY to a
 * NOTACTIVE (-> STANDBY), DISCOVER to a STANDBY or MASTER (-> DISCOVERING).
 */
int smstate_set_transition(int ours, int sender, uint32_t mod);

/*
 * The directed route back to the sender of a DR request that came from the
 * permissive LID: its return path reversed (ret_path[1..hops]).  0, or
 * -EINVAL (hop count 0 or out of range).
 */
int smstate_reverse_path(const struct wire_smp *req, uint8_t *ret_path, uint8_t *ret_hops);

#endif

/*
 * The SM's state (IBA 1.4 vol 1, 14.4.1: NOTACTIVE, DISCOVERING, STANDBY,
 * MASTER) has one owner: this file.  Sweeps report what they did; smstate
 * decides what the SM is, and tells the state_changed hooks when that
 * changes.  Today an SM that sweeps becomes MASTER; the election among SMs
 * (SMInfo polling, handover) lands here too, between discovery and
 * programming (smstate_decide).
 */
#ifndef IBSMD_SMSTATE_H
#define IBSMD_SMSTATE_H

#include "mad/wire.h"
#include "sm/sm.h"

/* Set the state; logs and runs the state_changed hooks when it changes. */
void smstate_set(struct sm *sm, enum sm_state to);

/* A heavy sweep starts: a NOTACTIVE SM is now DISCOVERING. */
void smstate_sweep_started(struct sm *sm);

enum smstate_decision {
	SMSTATE_PROGRAM, /* we are (or become) master: assign, route, program */
	SMSTATE_STAND_BY /* another SM is master: touch no switch */
};
/* Discovery found f: may this SM program the subnet? */
enum smstate_decision smstate_decide(struct sm *sm, const struct fabric *f);

/* A heavy sweep published its result. */
void smstate_sweep_done(struct sm *sm, const struct sweep_summary *s);

/*
 * SubnGet(SMInfo) from another SM or a diagnostic tool, LID-routed or
 * directed (a dispatch handler, ctx the SM): answer with our GUID, priority,
 * ActCount and state.
 */
void smstate_recv_sminfo(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
			 const uint8_t *buf, size_t len);

#endif

/*
 * The heavy sweep (IBA 1.4 vol 1, 14.4 subnet management; 7.2 link states)
 * as a small state machine.
 *
 * Phases, in order; a failure goes straight to PUBLISH with the reason:
 *   DISCOVER  directed-route BFS into a new fabric (smp/discover.c)
 *   DECIDE    smstate_decide_start(): the other SMs' SMInfo; may this SM
 *             program the subnet?  When not (STANDBY, or a handover runs),
 *             straight to PUBLISH: no switch is touched
 *   ASSIGN    LIDs (fabric/lid.c), the guid->LID map saved when it changed
 *   ROUTE     the engine and its fallback chain (sm/route.c)
 *   READBACK  the LFTs of switches the last snapshot says nothing about (a
 *             new or taking-over SM) are read back (smp/readback.c)
 *   PROGRAM   a batch of Sets: PortInfo, P_Key, SwitchInfo, LFT, SL2VL, VLArb
 *             that differ (smp/program.c)
 *   ARM       a batch: INIT -> ARMED where the PROGRAM batch left a port in INIT
 *   ACTIVATE  a batch: ARMED -> ACTIVE
 *   PUBLISH   the fabric, its routes and indexes become the published
 *             snapshot (fabric/snapshot.h); hooks run; routing dumps follow
 *
 * Requests for a sweep go to the scheduler (sm/sweep_sched.h).
 */
#ifndef IBSMD_SWEEP_H
#define IBSMD_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

#include "sm/sweep_sched.h"

struct sm;
struct sweep;

/* The phases' names, in SWEEP_N_PHASES order ("discover", ...). */
extern const char *const sweep_phase_names[SWEEP_N_PHASES];

/*
 * Start a sweep now (the scheduler's sm->sched.begin): incremental when
 * only switch changes were asked for on a subnet that was up, else heavy.
 * 0 or -errno.
 */
int sweep_begin(struct sm *sm, const char *why);
/* Abandon the running sweep and any pending one (shutdown); safe before xact_free. */
void sweep_abort(struct sm *sm);

#endif

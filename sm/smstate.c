/*
 * The SM state owner (see smstate.h).  IBA 1.4 vol 1, 14.4.1 (SM state
 * machine).
 */
#include "fabric/names.h"
#include "lib/log.h"
#include "sm/smstate.h"

void smstate_set(struct sm *sm, enum sm_state to)
{
	struct sm_state_change c = {sm->state, to};

	if (sm->state == to)
		return;
	sm->state = to;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "SM state %s -> %s", names_sm_state(c.from),
		names_sm_state(to));
	hook_run(&sm->hooks.state_changed, &c);
}

void smstate_sweep_started(struct sm *sm)
{
	if (sm->state == SM_NOTACTIVE)
		smstate_set(sm, SM_DISCOVERING);
}

enum smstate_decision smstate_decide(struct sm *sm, const struct fabric *f)
{
	/* no election yet: every SM that discovers a subnet manages it */
	return SMSTATE_PROGRAM;
}

void smstate_sweep_done(struct sm *sm, const struct sweep_summary *s)
{
	smstate_set(sm, SM_MASTER);
}

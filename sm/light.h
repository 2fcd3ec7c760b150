/*
 * The light sweep (IBA 14.4.2 "sweeping"): one SwitchInfo Get per switch of
 * the published fabric.  A switch whose PortStateChange bit is set (a port of
 * it changed state since the heavy sweep cleared the bit) or that does not
 * answer (gone, or a link on its path is) is swept around: an incremental
 * sweep asks it and its ports again (smp/discover.h).  One that answers
 * malformed means a heavy sweep.  A quiet fabric costs one SMP per switch per
 * interval.
 *
 * Heavy instead when there is nothing good to compare with (no published
 * subnet), when the last heavy sweep missed nodes (they may answer again
 * without any port changing state), and every 30th tick as a safety net.
 */
#ifndef IBSMD_LIGHT_H
#define IBSMD_LIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>

struct sm;

struct light_state {
	uint64_t sweeps; /* light sweeps done */
	uint64_t ticks;	 /* periodic ticks, for the every-30th heavy sweep */
	bool running;
	struct event *timer; /* the periodic tick */
	struct light *cur;   /* the light sweep running */
};

/* One light sweep (or a heavy one, see above).  0 or -errno. */
int light_sweep(struct sm *sm);
/* Arm the periodic tick (a light sweep) per conf.sweep_interval; 0 stops it. */
void light_schedule(struct sm *sm);
/* Free the timer (sm_fini). */
void light_fini(struct sm *sm);

#endif

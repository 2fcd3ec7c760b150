/*
 * Traps from switches and CAs (IBA 14.2.5.1 Notice; 13.4.9 TrapRepress).
 * Every trap that decodes is repressed; what it does then depends on its
 * number and its sender (trap_classify, pure):
 *
 *   128 link state change        sweep; only from a switch of the fabric
 *   144 capability/local change  sweep (a new SM, a port's IsSM); any known port
 *   145 system image GUID        sweep; any known port
 *   129-131 port error thresholds   counted and logged against the port
 *   256-259 M_Key/P_Key/Q_Key violations  logged with the offender, counted
 *   anything else (vendor traps, other numbers)   counted, logged, ignored
 *
 * A trap whose sender (the packet's SLID) is no port of the published fabric,
 * or a 128 from a port that is not a switch, is refused: nothing is done but
 * the count and a rate-limited log line, so a host cannot make the SM sweep.
 * Before the first snapshot every sweeping trap is taken (the SM is bringing
 * the subnet up anyway).  The scheduler's hold-down folds a burst into one
 * sweep.
 */
#ifndef IBSMD_TRAP_H
#define IBSMD_TRAP_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/snapshot.h"
#include "mad/madio.h"
#include "mad/wire.h"

enum trap_action {
	TRAP_SWEEP,	    /* the topology may have changed */
	TRAP_PORT_ERROR,    /* 129-131 */
	TRAP_KEY_VIOLATION, /* 256-259 */
	TRAP_REFUSED,	    /* an unknown sender, or one that may not send it */
	TRAP_IGNORED,	    /* nothing the SM acts on */
	TRAP_NACTIONS,
};

/* The name of an action as in `smctl status` and the metrics ("sweep", ...). */
const char *trap_action_name(enum trap_action a);

/* What a trap number is about ("link state change"), or NULL when not an SM trap. */
const char *trap_name(unsigned trap_num);

/*
 * What to do with notice n that came from LID slid, judged against the
 * published snapshot snap (NULL before the first one).  why gets the reason
 * of a refusal or an ignore.
 */
enum trap_action trap_classify(const struct wire_notice *n, uint16_t slid,
			       const struct snapshot *snap, char *why, size_t why_len);

/* The dispatch handler of SubnTrap; ctx is the SM. */
void trap_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	       const uint8_t *buf, size_t len);

#endif

/*
 * Traps (see trap.h).  IBA 1.4 vol 1, 14.2.5.1 (Notice), 13.4.9 (Trap,
 * TrapRepress).
 */
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "sm/sm.h"
#include "sm/sweep.h"
#include "sm/trap.h"

void trap_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	       const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_smp req, rep;
	uint8_t out[WIRE_MAD_SIZE];
	unsigned trap_num;

	if (wire_smp_decode(buf, len, &req) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "dropped a malformed trap from LID %u",
				from->slid);
		return;
	}
	sm->traps++;
	/* Notice: IsGeneric(1) Type(7) ProducerType/VendorID(24) TrapNumber(16) */
	trap_num = req.data[4] << 8 | req.data[5];
	log_msg(LOG_CAT_SWEEP, LOG_INFO, "trap %u from LID %u: sweeping", trap_num, from->slid);
	rep = req;
	rep.method = WIRE_TRAP_REPRESS;
	rep.status = 0;
	if (wire_smp_encode(&rep, out, sizeof(out)) == WIRE_MAD_SIZE)
		madio_send_lid(sm->io, WIRE_CLASS_SMI, out, sizeof(out), from->slid, 0, 0);
	if (sm->state == SM_MASTER || sm->state == SM_DISCOVERING) {
		char why[64];
		snprintf(why, sizeof(why), "trap %u from LID %u", trap_num, from->slid);
		sweep_start_why(sm, why);
	}
}

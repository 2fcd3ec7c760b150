/*
 * Traps from switches and CAs (IBA 14.2.5.1 Notice; 13.4.9 TrapRepress): repress it, and since
 * most SM traps mean the topology changed (128: link state change, 64/65:
 * GID in/out of service), start a sweep; one in progress runs again after.
 *
 * A dispatch handler; ctx is the SM.  Today every trap asks for a heavy
 * sweep (the scheduler's hold-down folds a burst into one); classifying
 * them and sweeping only what changed is the living-fabric work.
 */
#ifndef IBSMD_TRAP_H
#define IBSMD_TRAP_H

#include <stddef.h>
#include <stdint.h>

#include "mad/madio.h"
#include "mad/wire.h"

void trap_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	       const uint8_t *buf, size_t len);

#endif

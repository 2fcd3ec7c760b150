/*
 * Port orders: disable a port or enable it again (smctl port).
 */
#ifndef IBSMD_PORT_H
#define IBSMD_PORT_H

#include <stdbool.h>
#include <stdint.h>

struct sm;

/*
 * Disable a port (PortPhysicalState = Disabled) or enable it again
 * (= Polling), then sweep.  The SM's own link is refused (-EPERM); an
 * unknown node/port is -ENOENT.  done(arg, status) runs when the Set
 * completes (status 0 or -errno).  0 when the Set was sent.
 */
int port_set_enabled(struct sm *sm, uint64_t node_guid, uint8_t port, bool enable,
		     void (*done)(void *arg, int status), void *arg);

#endif

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

/*
 * dr_only (sm_conf.dr_only): every SMP this SM sends goes directed-route.
 * auto is on when the SM's port is planarized: its SMI and GSI are
 * separate devices sharing the port GUID (mad/smigsi.h; rdma-core calls
 * such a port planarized), as on ConnectX-8 XDR hosts, whose planes take
 * directed-route SMPs only.
 */
bool port_dr_only(const struct sm *sm);
/*
 * A directed route from the SM's port to the port that has LID lid in the
 * published snapshot (smp/discover.h: discover_port_path).  0, or -ENOENT
 * (no snapshot, no such LID, no route known).
 */
int port_dr_path_to_lid(const struct sm *sm, uint16_t lid, uint8_t *ret_path, uint8_t *ret_hops);

#endif

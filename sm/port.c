/*
 * Port orders from the operator (see port.h): PortInfo Set of
 * PortPhysicalState, IBA 1.4 vol 1, 14.2.5.6.  On the control lane, so an
 * order does not wait behind a sweep's LFT blocks.  And where the SM's own
 * SMPs may go LID-routed at all (dr_only), with the directed route that
 * replaces a LID.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/snapshot.h"
#include "lib/log.h"
#include "mad/wire.h"
#include "smp/discover.h"
#include "smp/portinfo.h"
#include "sm/port.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

bool port_dr_only(const struct sm *sm)
{
	return sm->conf.dr_only == CONF_AUTO ? sm->io_split : sm->conf.dr_only == CONF_AUTO_TRUE;
}

int port_dr_path_to_lid(const struct sm *sm, uint16_t lid, uint8_t *ret_path, uint8_t *ret_hops)
{
	uint32_t ni;
	uint8_t pn;

	if (!sm->snap || !snapshot_find_lid(sm->snap, lid, &ni, &pn))
		return -ENOENT;
	return discover_port_path(sm->snap->fabric, ni, pn, ret_path, ret_hops);
}

struct port_op {
	struct sm *sm;
	void (*done)(void *arg, int status);
	void *arg;
	uint64_t guid;
	uint8_t port;
	bool enable;
};

static void port_resweep(evutil_socket_t fd, short what, void *arg)
{
	sweep_start_why(arg, "port enabled a second ago");
}

static void port_op_done(void *arg, int status, const struct wire_smp *req,
			 const struct wire_smp *resp)
{
	struct port_op *op = arg;

	if (status == 0)
		log_port(LOG_CAT_SWEEP, LOG_INFO, op->guid, op->port, "port 0x%016llx/%u %s",
			 (unsigned long long)op->guid, op->port,
			 op->enable ? "enabled (polling)" : "disabled");
	else if (status != -ECANCELED)
		log_port(LOG_CAT_SWEEP, LOG_WARNING, op->guid, op->port,
			 "port 0x%016llx/%u: cannot %s it: %s", (unsigned long long)op->guid,
			 op->port, op->enable ? "enable" : "disable", strerror(-status));
	if (op->done)
		op->done(op->arg, status);
	if (status == 0) {
		sweep_start_why(op->sm, op->enable ? "port enabled" : "port disabled");
		/* an enabled link needs a moment to train: look again in a second */
		if (op->enable) {
			struct timeval tv = {1, 0};
			event_base_once(op->sm->base, -1, EV_TIMEOUT, port_resweep, op->sm, &tv);
		}
	}
	free(op);
}

int port_set_enabled(struct sm *sm, uint64_t node_guid, uint8_t port, bool enable,
		     void (*done)(void *arg, int status), void *arg)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	uint8_t path[FABRIC_DR_MAX_HOPS + 1], hops;
	struct wire_portinfo pi;
	struct wire_smp smp;
	struct port_op *op;
	const struct node *n;
	const struct port *p;
	uint32_t ni;
	int r;

	if (!f || (ni = fabric_find_guid(f, node_guid)) == FABRIC_NO_NODE)
		return -ENOENT;
	n = &f->nodes[ni];
	if (port == 0 || port > n->nports || !n->ports[port].valid)
		return -ENOENT;
	p = &n->ports[port];
	/* our own link: disabling it would cut the SM off its subnet */
	if ((ni == f->sm_node && port == f->sm_port) ||
	    (p->remote_node == f->sm_node && p->remote_port == f->sm_port))
		return -EPERM;
	/* through the node's own path, so the SMP does not cross the port itself */
	r = node_is_switch(n) ? discover_port_path(f, ni, 0, path, &hops)
			      : discover_port_path(f, ni, port, path, &hops);
	if (r < 0)
		return r;
	if (wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
		return -EIO;
	pi.state = PORT_NOP;
	pi.phys_state = enable ? PHYS_POLLING : 3 /* Disabled */;
	if (wire_smp_init_dr(&smp, WIRE_SET, WIRE_ATTR_PORT_INFO, portinfo_set_mod(p, port), path,
			     hops) < 0)
		return -EINVAL;
	portinfo_set_image(p, smp.data);
	wire_portinfo_encode(&pi, smp.data, sizeof(smp.data));
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	*op = (struct port_op){sm, done, arg, node_guid, port, enable};
	r = xact_submit(sm->xe,
			&(struct xact_request){
			    .lane = XACT_CONTROL, .smp = &smp, .done = port_op_done, .arg = op});
	if (r < 0)
		free(op);
	return r;
}

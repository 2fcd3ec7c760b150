/*
 * A port's PortInfo image in the model and the extended link speeds (see
 * portinfo.h; IBA 1.7, 14.2.5.6).  Pure functions over the model.
 */
#include <string.h>

#include "fabric/speed.h"
#include "mad/wire.h"
#include "smp/portinfo.h"

/*
 * The PortInfo image whose CapabilityMask speaks for (node, port): a
 * switch's external ports have none of their own, port 0's counts (as
 * OpenSM reads it); NULL while that image is not known.
 */
static const struct port *portinfo_cap_port(const struct fabric *f, uint32_t node, uint8_t port)
{
	const struct node *n = &f->nodes[node];
	const struct port *p = &n->ports[node_is_switch(n) ? 0 : port];

	return p->valid ? p : NULL;
}

uint32_t portinfo_get_mod(const struct fabric *f, uint32_t node, uint8_t port)
{
	const struct port *c;
	struct wire_portinfo pi;

	if (node >= f->n_nodes || port > f->nodes[node].nports ||
	    (port == 0 && node_is_switch(&f->nodes[node])))
		return port; /* a switch's port 0 has no link: no speed to ask for */
	c = portinfo_cap_port(f, node, port);
	if (c && wire_portinfo_decode(c->pi, sizeof(c->pi), &pi) == 0 &&
	    (pi.capmask & WIRE_CAP_EXT_SPEEDS))
		return port | WIRE_PI_MOD_EXT_SPEEDS;
	return port;
}

uint32_t portinfo_set_mod(const struct port *p, uint8_t port)
{
	return p->pi_ext ? port | WIRE_PI_MOD_EXT_SPEEDS : port;
}

void portinfo_set_image(const struct port *p, uint8_t data[64])
{
	struct wire_portinfo pi;

	memcpy(data, p->pi, sizeof(p->pi));
	if (p->pi_ext || wire_portinfo_decode(data, WIRE_PORTINFO_FULL_SIZE, &pi) < 0)
		return;
	/* read without bit 31: the extended fields are not the port's to write back */
	pi.speed_ext_enabled = 0;  /* no state change */
	pi.speed_ext2_enabled = 0; /* no state change */
	wire_portinfo_encode_ext(&pi, data, WIRE_PORTINFO_FULL_SIZE);
}

void portinfo_speeds(struct port *p, const struct wire_portinfo *pi, uint32_t capmask,
		     uint16_t capmask2)
{
	struct speed_fields s = {
	    .active = pi->speed_active,
	    .supported = pi->speed_supported,
	    .enabled = pi->speed_enabled,
	    .ext_active = pi->speed_ext_active,
	    .ext_supported = pi->speed_ext_supported,
	    .ext_enabled = pi->speed_ext_enabled,
	    .ext2_active = pi->speed_ext2_active,
	    .ext2_supported = pi->speed_ext2_supported,
	    .ext2_enabled = pi->speed_ext2_enabled,
	    .ext = (capmask & WIRE_CAP_EXT_SPEEDS) != 0,
	    .ext2 = (capmask & WIRE_CAP_HAS_CAPMASK2) && (capmask2 & WIRE_CAP2_EXT_SPEEDS2),
	};

	p->width_active = pi->width_active;
	p->speed_active = pi->speed_active;
	p->width_enabled = pi->width_enabled;
	p->lane_speed = speed_active(&s);
	p->lanes_supported = speed_supported(&s);
	p->lanes_enabled = speed_enabled(&s);
}

void portinfo_take(struct fabric *f, uint32_t node, uint8_t port, const struct wire_portinfo *pi,
		   const uint8_t *data, bool ext)
{
	struct node *n = &f->nodes[node];
	struct port *p = &n->ports[port];
	const struct port *c;
	struct wire_portinfo cpi = *pi;

	p->valid = true;
	p->pi_ext = ext;
	memcpy(p->pi, data, sizeof(p->pi));
	p->lid = pi->lid;
	p->lmc = pi->lmc;
	p->state = pi->state;
	p->phys_state = pi->phys_state;
	p->mtu_cap = pi->mtu_cap;
	p->vl_cap = pi->vl_cap;
	p->neighbor_mtu = pi->neighbor_mtu;
	p->oper_vls = pi->oper_vls;
	c = portinfo_cap_port(f, node, port);
	if (c && c != p && wire_portinfo_decode(c->pi, sizeof(c->pi), &cpi) < 0)
		cpi = *pi;
	portinfo_speeds(p, pi, cpi.capmask, cpi.capmask2);
}

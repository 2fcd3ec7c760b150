/*
 * Programming the subnet (see program.h): the configure pass over every
 * node, and the PortInfo each port should hold (IBA 1.4 vol 1, 14.2.5.6),
 * field by field against what discovery read.  The top of the three
 * program files: it calls program_tables.c (the table blocks) and
 * program.c (the batch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/sorted.h"
#include "mad/wire.h"
#include "policy/qos.h"
#include "smp/discover.h"
#include "smp/portinfo.h"
#include "smp/program.h"
#include "smp/program_int.h"

static uint8_t min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* The PortInfo fields the SM sets differ between what a port holds and what we want. */
static bool portinfo_differs(const struct wire_portinfo *a, const struct wire_portinfo *b)
{
	return a->lid != b->lid || a->lmc != b->lmc || a->sm_lid != b->sm_lid ||
	       a->gid_prefix != b->gid_prefix || mkey_differs(a, b) ||
	       a->subnet_timeout != b->subnet_timeout || a->neighbor_mtu != b->neighbor_mtu ||
	       a->oper_vls != b->oper_vls || a->part_enf_in != b->part_enf_in ||
	       a->part_enf_out != b->part_enf_out || a->hoq_life != b->hoq_life;
}

/*
 * The policy's LinkSpeedExtEnabled (program_params.link_speed_ext, 0: leave
 * it) into want, when port pn of node ni was read with SMSupportExtendedSpeeds
 * and its link's far end supports extended speeds too (as OpenSM's
 * force_link_speed_ext): true when it differs from what the port has.
 */
static bool program_ext_speed(const struct fabric *f, uint32_t ni, uint8_t pn, uint8_t value,
			      struct wire_portinfo *want)
{
	const struct port *p = &f->nodes[ni].ports[pn], *rp;

	if (!value || pn == 0 || !p->pi_ext || !port_is_linked(p) || p->remote_node >= f->n_nodes)
		return false;
	rp = &f->nodes[p->remote_node].ports[p->remote_port];
	if (!rp->pi_ext || want->speed_ext_enabled == value)
		return false;
	want->speed_ext_enabled = value;
	return true;
}

/* Program one port's PortInfo when what it holds differs from what we want. */
static void program_port(struct program *pg, const struct routes *r,
			 const struct program_params *pp, uint32_t ni, uint8_t pn, int enforce)
{
	struct fabric *f = pg->f;
	struct node *n = &f->nodes[ni];
	struct port *p = &n->ports[pn];
	struct wire_portinfo cur, want;
	uint8_t data[64];
	bool lid_port = pn == 0 || !node_is_switch(n), ext_set;
	const struct port *sm_port = &f->nodes[f->sm_node].ports[f->sm_port];

	if (!p->valid || wire_portinfo_decode(p->pi, sizeof(p->pi), &cur) < 0)
		return;
	want = cur;
	if (lid_port) {
		want.lid = p->lid;
		want.lmc = p->lmc;
		want.sm_lid = sm_port->lid;
		want.gid_prefix = pp->subnet_prefix;
		mkey_apply(&pp->mkey, &want);
		want.subnet_timeout = want.subnet_timeout ? want.subnet_timeout : 18;
	}
	if (pn != 0 && port_is_linked(p)) {
		const struct port *rp = &f->nodes[p->remote_node].ports[p->remote_port];
		if (rp->valid) {
			want.neighbor_mtu = min8(p->mtu_cap, rp->mtu_cap);
			/* the smaller VLCap, capped by the QoS policy's max_vls (policy/qos.h) */
			want.oper_vls = qos_want_oper_vls(pp->qos, f, r, ni, pn);
			if (r->n_vls > 1 && want.oper_vls < 2)
				log_ratelimited(LOG_CAT_ROUTE, LOG_WARNING,
						"node 0x%016llx port %u supports only VL0 but %s "
						"routing needs %u VLs",
						(unsigned long long)n->guid, pn,
						pp->engine ? pp->engine : "the", r->n_vls);
		}
	}
	/* HOQLife of a switch external port: toward a CA (a leaf) or toward a switch */
	if (pp->lifetimes && pn != 0 && node_is_switch(n) && port_is_linked(p))
		want.hoq_life =
		    node_is_switch(&f->nodes[p->remote_node]) ? pp->hoq_life : pp->leaf_hoq_life;
	if (enforce >= 0) {
		want.part_enf_in = (enforce & 2) != 0;
		want.part_enf_out = (enforce & 1) != 0;
	}
	/* VLHighLimit of the port's class (IBA 7.6.9.1): data ports */
	if (pp->qos && pp->qos->enabled && pn != 0)
		want.vl_high_limit = pp->qos->cls[qos_port_class(n, pn)].high_limit;
	/* LinkSpeedExtEnabled where the policy sets one (link_speed_ext_enabled) */
	ext_set = program_ext_speed(f, ni, pn, pp->link_speed_ext, &want);
	want.state = PORT_NOP;
	want.phys_state = 0;
	cur.state = PORT_NOP;
	cur.phys_state = 0;
	/* OperationalVLs may only change while the port is not yet armed */
	if (p->state > PORT_INIT)
		want.oper_vls = cur.oper_vls;
	/* a takeover that could not carry the port's SA state: its host registers again */
	want.client_reregister = 0;
	if (pn != 0 && !node_is_switch(n) &&
	    (pp->rereg_all || sorted_u64_has(pp->rereg_guids, pp->n_rereg, p->guid)))
		want.client_reregister = 1;
	/*
	 * VLHighLimit alone is written when the policy changed: an SMA that
	 * does not keep it (ibsim) must not get a Set every sweep.  Otherwise
	 * it goes with the Sets sent for the rest (a port coming up).
	 */
	if (!want.client_reregister && !portinfo_differs(&cur, &want) && !ext_set &&
	    !(pp->qos && cur.vl_high_limit != want.vl_high_limit && pn != 0 &&
	      (!pp->qos_old || pp->qos_old->enabled != pp->qos->enabled ||
	       pp->qos_old->cls[qos_port_class(n, pn)].high_limit != want.vl_high_limit)))
		return;
	/* a port holding another non-zero M_Key drops our Set (14.2.4.2): do not send it */
	if (lid_port && !mkey_set_may_pass(mkey_port_classify(&cur, pp->mkey.key))) {
		struct mkey_offender *o =
		    pp->offenders ? mkey_offender_get(pp->offenders, p->guid, p->lid) : NULL;

		pg->st.mkey_refused++;
		if (o)
			o->refused++;
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, pn,
				     "node 0x%016llx \"%s\" port %u holds another M_Key (protect "
				     "bits %u): not programmed; set m_key to the subnet's",
				     (unsigned long long)n->guid, n->desc, pn, cur.mkey_protect);
		return;
	}
	pg->st.rereg += want.client_reregister;
	/*
	 * A port in INIT whose link is up can be armed by the same Set: INIT ->
	 * ARMED needs nothing from the neighbour (IBA 7.2.5), only ARMED ->
	 * ACTIVE does.  Saves one SMP per port on a fresh fabric.
	 */
	if (pn != 0 && p->state == PORT_INIT && port_is_linked(p))
		want.state = PORT_ARMED;
	portinfo_set_image(p, data);
	wire_portinfo_encode(&want, data, sizeof(data));
	if (ext_set)
		wire_portinfo_encode_ext(&want, data, sizeof(data));
	program_send(pg, OP_PORTINFO, ni, pn, WIRE_ATTR_PORT_INFO, portinfo_set_mod(p, pn), data);
}

void program_configure(struct program *pg, const struct routes *r, const struct fabric *old_f,
		       const struct routes *old_r, const struct program_params *pp)
{
	struct fabric *f = pg->f;
	bool trace = log_enabled(LOG_CAT_SWEEP, LOG_DEBUG);

	uint16_t eng_sls = qos_engine_sls(r), old_eng_sls = qos_engine_sls(old_r);

	memset(pg->by_kind, 0, sizeof(pg->by_kind));
	pg->offenders = pp->offenders;
	pg->mkey = pp->mkey.key;
	pg->switch_life = pp->lifetimes ? pp->switch_life : -1;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];

		if (pp->scope && !pp->scope[i]) {
			if (node_is_switch(n))
				program_switch(pg, r, i, old_f, old_r, pp->force, pp->held);
			continue;
		}
		for (unsigned pn = node_is_switch(n) ? 0 : 1; pn <= n->nports; pn++) {
			struct port *p = &n->ports[pn];
			if (pn != 0 && !program_port_is_up(p))
				continue;
			bool fits = true;

			/* a switch port facing a CA: its table first, the bits by its fit */
			if (pp->parts && pn != 0 && node_is_switch(n) &&
			    pp->part_enforce != PROGRAM_ENFORCE_OFF && program_enforce_cap(n) &&
			    program_faces_ca(f, i, pn))
				fits = program_enforce_pkeys(pg, pp, i, pn);
			program_port(pg, r, pp, i, pn, program_enforce_bits(pg, pp, i, pn, fits));
			if (pp->parts) {
				if (pn == 0 || !node_is_switch(n))
					program_pkeys(pg, pp, i, pn);
				continue;
			}
			/* a port coming up gets the default partition at index 0 */
			if (!node_is_switch(n) && p->state == PORT_INIT) {
				uint16_t keys[32] = {0xffff};
				uint8_t data[64];
				wire_pkey_encode(keys, data, sizeof(data));
				program_send(pg, OP_PKEY, i, pn, WIRE_ATTR_PKEY_TABLE, 0, data);
			}
		}
		if (node_is_switch(n))
			program_switch(pg, r, i, old_f, old_r, pp->force, pp->held);
		program_vls(pg, r, i, old_f, old_r, pp, eng_sls, old_eng_sls);
		if (trace)
			program_trace_node(pg, i, "configure");
	}
}

/* Queue the state Sets of node i's ports (program_port_states). */

/*
 * Subnet discovery by directed route (see discover.h).
 *
 * Every NodeInfo answer names the node (GUID) and the port the SMP entered by.
 * A new GUID becomes a node: we ask for its description, every PortInfo and,
 * on a switch, SwitchInfo; every switch port whose physical link is up is then
 * probed with NodeInfo one hop further.  A GUID seen before only adds a link.
 * Like OpenSM we walk only through switches; a CA answers for itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/sorted.h"
#include "mad/wire.h"
#include "smp/discover.h"
#include "smp/discover_int.h"
#include "smp/portinfo.h"

static void discover_touch(struct discover *d, uint32_t idx);

/* ---- extended speeds (SMSupportExtendedSpeeds, smp/portinfo.h) ------------------ */

/*
 * After a PortInfo answer to a Get without bit 31: whether to ask again
 * with it (the port advertises extended speeds), and ask.
 */
static bool discover_ask_ext(struct discover *d, struct probe *p, const struct wire_smp *req)
{
	if ((req->attr_mod & WIRE_PI_MOD_EXT_SPEEDS) ||
	    !(portinfo_get_mod(d->f, p->node, p->port) & WIRE_PI_MOD_EXT_SPEEDS))
		return false;
	if (discover_send_flags(d, PROBE_PORTINFO, req->initial_path, req->hop_cnt,
				WIRE_ATTR_PORT_INFO, req->attr_mod | WIRE_PI_MOD_EXT_SPEEDS, 0, 0,
				p->node, p->port, PROBE_EXT) < 0)
		return false;
	d->res.ext_gets++;
	return true;
}

/* A switch's port 0 is known (or could not be read): ask its other ports. */
static void switch_probe_ports(struct discover *d, uint32_t idx)
{
	struct node *n = &d->f->nodes[idx];

	for (unsigned p = 1; p <= n->nports; p++)
		discover_send(d, PROBE_PORTINFO, n->dr_path, n->dr_hops, WIRE_ATTR_PORT_INFO,
			      portinfo_get_mod(d->f, idx, (uint8_t)p), 0, 0, idx, (uint8_t)p);
}

/* ---- P_Key tables (partitions) ---------------------------------------------- */

/*
 * The P_KeyTable blocks of an end port (a CA's port, a switch's port 0), so
 * that programming writes only the blocks that differ: as many as its
 * PartitionCap holds, up to the FABRIC_PKEY_BLOCKS the model keeps.  The
 * attribute modifier is the block (a switch's port 0: port number 0 in
 * bits 31:16).
 */
static void probe_pkeys(struct discover *d, uint32_t idx, uint8_t port, const uint8_t *path,
			uint8_t hops)
{
	const struct node *n = &d->f->nodes[idx];
	unsigned blocks = (n->partition_cap + 31u) / 32u;

	if (blocks > FABRIC_PKEY_BLOCKS)
		blocks = FABRIC_PKEY_BLOCKS;
	for (unsigned b = 0; b < blocks; b++)
		discover_send(d, PROBE_PKEY, path, hops, WIRE_ATTR_PKEY_TABLE, b, 0, 0, idx, port);
}

/*
 * The P_KeyTable of switch port sp of switch si (reached by path, hops),
 * which faces a CA: partition enforcement (program.c) gives it the CA
 * port's table, so read as many blocks as the CA's PartitionCap and the
 * switch's PartitionEnforcementCap hold.  The modifier's bits 31:16 are the
 * port.  A switch whose SwitchInfo says it enforces nothing is not asked;
 * one whose SwitchInfo has not come yet is (an error answer is no error).
 */
static void probe_switch_pkeys(struct discover *d, uint32_t si, uint8_t sp, const uint8_t *path,
			       uint8_t hops, uint16_t ca_cap)
{
	const struct node *n = &d->f->nodes[si];
	unsigned cap = ca_cap, blocks;
	struct wire_switchinfo swi;

	if (n->lft_cap && wire_switchinfo_decode(n->si, sizeof(n->si), &swi) == 0 &&
	    swi.partition_enf_cap < cap) /* SwitchInfo known */
		cap = swi.partition_enf_cap;
	blocks = (cap + 31u) / 32u;
	if (blocks > FABRIC_PKEY_BLOCKS)
		blocks = FABRIC_PKEY_BLOCKS;
	for (unsigned b = 0; b < blocks; b++)
		discover_send(d, PROBE_PKEY, path, hops, WIRE_ATTR_PKEY_TABLE,
			      (uint32_t)sp << 16 | b, 0, 0, si, sp);
}

static void on_pkeys(struct discover *d, struct probe *p, const struct wire_smp *req,
		     const struct wire_smp *resp)
{
	struct port *port = &d->f->nodes[p->node].ports[p->port];
	unsigned b = req->attr_mod & 0xffff;

	if (b >= FABRIC_PKEY_BLOCKS || !port_pkeys_alloc(port) ||
	    wire_pkey_decode(resp->data, sizeof(resp->data), &port->pkeys[b * 32]) < 0) {
		d->res.errors++;
		return;
	}
	port->pkey_known |= (uint8_t)(1u << b);
}

static void node_probe_all(struct discover *d, uint32_t idx)
{
	struct node *n = &d->f->nodes[idx];

	/*
	 * A switch's port 0 first: its CapabilityMask says how to ask the
	 * other ports (with SMSupportExtendedSpeeds or not), which go when it
	 * answers (switch_probe_ports).
	 */
	if (node_is_switch(n))
		discover_send_flags(d, PROBE_PORTINFO, n->dr_path, n->dr_hops, WIRE_ATTR_PORT_INFO,
				    0, 0, 0, idx, 0, PROBE_THEN_PORTS);
	discover_send(d, PROBE_NODEDESC, n->dr_path, n->dr_hops, WIRE_ATTR_NODE_DESC, 0, 0, 0, idx,
		      0);
	if (!node_is_switch(n))
		return; /* a CA's ports are asked for through the port each is reached by */
	discover_send(d, PROBE_SWITCHINFO, n->dr_path, n->dr_hops, WIRE_ATTR_SWITCH_INFO, 0, 0, 0,
		      idx, 0);
	probe_pkeys(d, idx, 0, n->dr_path, n->dr_hops);
}

/*
 * The node GUID of idx answered at a second place: behind (parent,
 * parent_port) of p, entered by port.  Recorded in the fabric with both
 * places (fabric_dup_add), not merged silently.  A full discovery only: an
 * incremental one starts from links that may be stale.
 */
static void discover_dup(struct discover *d, uint32_t idx, uint8_t port, const struct probe *p,
			 uint8_t hops)
{
	const struct node *n = &d->f->nodes[idx];
	struct fabric_dup dup = {.guid = n->guid, .port = port};

	if (d->incremental || !hops)
		return;
	if (port <= n->nports && port_is_linked(&n->ports[port])) {
		dup.first_guid = d->f->nodes[n->ports[port].remote_node].guid;
		dup.first_port = n->ports[port].remote_port;
	}
	dup.second_guid = d->f->nodes[p->parent].guid;
	dup.second_port = p->parent_port;
	if (fabric_dup_add(d->f, &dup) < 0)
		d->res.errors++;
}

/* Port (node, port) found up to a switch held out: taken for down (and touched). */
static void discover_refuse(struct discover *d, uint32_t node, uint8_t port)
{
	struct port *pp = &d->f->nodes[node].ports[port];

	pp->state = PORT_DOWN;
	pp->phys_state = PHYS_POLLING;
	discover_touch(d, node);
	d->res.refused++;
}

/* Whether port (guid, port) linked a switch held out (discover_hold_out). */
static bool discover_is_held_far(const struct discover *d, uint64_t guid, uint8_t port)
{
	for (size_t i = 0; i < d->n_held_far; i++)
		if (d->held_far[i].guid == guid && d->held_far[i].port == port)
			return true;
	return false;
}

static void on_nodeinfo(struct discover *d, struct probe *p, const struct wire_smp *req,
			const struct wire_smp *resp)
{
	struct wire_nodeinfo ni;
	uint32_t idx;
	struct node *n;
	bool existed;
	int r;

	if (wire_nodeinfo_decode(resp->data, sizeof(resp->data), &ni) < 0 ||
	    ni.local_port > ni.nports) {
		d->res.errors++;
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"malformed NodeInfo from DR path of %u hops: ignored",
				req->hop_cnt);
		return;
	}
	if (d->incremental && req->hop_cnt > 0 && u64_set_has(d->held, d->n_held, ni.node_guid)) {
		/* a switch held out (dying port by port): the port to it counts as down */
		discover_refuse(d, p->parent, p->parent_port);
		return;
	}
	r = fabric_add_node(d->f, ni.node_guid, ni.node_type, ni.nports, &idx);
	if (r == -ENOMEM) {
		d->res.errors++;
		return;
	}
	existed = r == -EEXIST;
	n = &d->f->nodes[idx];
	discover_touch(d, idx);
	if (req->hop_cnt > 0)
		discover_touch(d, p->parent);
	if (!existed) {
		n->sys_guid = ni.sys_guid;
		n->device_id = ni.device_id;
		n->vendor_id = ni.vendor_id;
		n->revision = ni.revision;
		n->partition_cap = ni.partition_cap;
		n->dr_hops = req->hop_cnt;
		memcpy(n->dr_path, req->initial_path, sizeof(n->dr_path));
		n->entry_port = ni.local_port;
		if (req->hop_cnt == 0) {
			d->f->sm_node = idx;
			d->f->sm_port = node_is_switch(n) ? 0 : ni.local_port;
		}
		if (log_enabled(LOG_CAT_SWEEP, LOG_DEBUG)) {
			char path[FABRIC_DR_MAX_HOPS * 4 + 4];
			size_t off = (size_t)snprintf(path, sizeof(path), "0");

			for (unsigned h = 1; h <= req->hop_cnt && off < sizeof(path); h++)
				off += (size_t)snprintf(path + off, sizeof(path) - off, ",%u",
							req->initial_path[h]);
			log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
				"discovered %s 0x%016llx (%u ports) at DR path %s, entered by "
				"port %u",
				node_is_switch(n) ? "switch" : "CA", (unsigned long long)n->guid,
				ni.nports, path, ni.local_port);
		}
	} else if (n->type != ni.node_type || n->nports != ni.nports) {
		d->res.errors++;
		discover_dup(d, idx, ni.local_port, p, req->hop_cnt);
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"node 0x%016llx answers with a different type/port count: ignored",
				(unsigned long long)ni.node_guid);
		return;
	}
	if (node_is_switch(n))
		for (unsigned i = 0; i <= n->nports; i++)
			n->ports[i].guid = ni.port_guid;
	else if (ni.local_port)
		n->ports[ni.local_port].guid = ni.port_guid;

	if (req->hop_cnt > 0) {
		r = fabric_link(d->f, p->parent, p->parent_port, idx, ni.local_port);
		if (r == -EBUSY) {
			d->res.link_conflicts++;
			discover_dup(d, idx, ni.local_port, p, req->hop_cnt);
			log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
					"node 0x%016llx port %u: seen through two different links",
					(unsigned long long)ni.node_guid, ni.local_port);
		}
	}
	/* a CA (or router) answers PortInfo for the port the SMP came in by */
	if (!node_is_switch(n) && ni.local_port &&
	    (!n->ports[ni.local_port].valid || (d->incremental && existed))) {
		discover_send(d, PROBE_PORTINFO, req->initial_path, req->hop_cnt,
			      WIRE_ATTR_PORT_INFO, portinfo_get_mod(d->f, idx, ni.local_port), 0, 0,
			      idx, ni.local_port);
		if (!n->ports[ni.local_port].pkey_known)
			probe_pkeys(d, idx, ni.local_port, req->initial_path, req->hop_cnt);
	}
	/* a switch next to the SM's CA: its port facing that CA (the other way round below) */
	if (node_is_switch(n) && !existed && req->hop_cnt == 1 &&
	    !node_is_switch(&d->f->nodes[p->parent]))
		probe_switch_pkeys(d, idx, ni.local_port, req->initial_path, req->hop_cnt,
				   d->f->nodes[p->parent].partition_cap);
	/* the switch port it hangs off: its table, for partition enforcement */
	if (!node_is_switch(n) && ni.local_port && req->hop_cnt > 0 &&
	    node_is_switch(&d->f->nodes[p->parent]) &&
	    !d->f->nodes[p->parent].ports[p->parent_port].pkey_known)
		probe_switch_pkeys(d, p->parent, p->parent_port, req->initial_path,
				   (uint8_t)(req->hop_cnt - 1), ni.partition_cap);
	/* incremental: a known switch at the new link's other end: what its port is now */
	if (d->incremental && existed && node_is_switch(n) && req->hop_cnt > 0) {
		d->res.links_up++;
		if (discover_asked_once(d, idx, ni.local_port))
			discover_send(
			    d, PROBE_PORTINFO, n->dr_path, n->dr_hops, WIRE_ATTR_PORT_INFO,
			    portinfo_get_mod(d->f, idx, ni.local_port), 0, 0, idx, ni.local_port);
	} else if (d->incremental && existed && req->hop_cnt > 0) {
		d->res.links_up++;
	}
	if (existed)
		return;
	node_probe_all(d, idx);
	/* the SM runs on a CA: step out through its port */
	if (req->hop_cnt == 0 && !node_is_switch(n)) {
		uint8_t path[64] = {0};
		path[1] = ni.local_port;
		discover_send(d, PROBE_NODEINFO, path, 1, WIRE_ATTR_NODE_INFO, 0, idx,
			      ni.local_port, 0, 0);
	}
}

static void on_portinfo(struct discover *d, struct probe *p, const struct wire_smp *req,
			const struct wire_smp *resp)
{
	struct wire_portinfo pi;
	struct node *n = &d->f->nodes[p->node];
	struct port *port = &n->ports[p->port];

	if (wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) < 0) {
		d->res.errors++;
		return;
	}
	portinfo_take(d->f, p->node, p->port, &pi, resp->data,
		      (req->attr_mod & WIRE_PI_MOD_EXT_SPEEDS) != 0);
	if (p->flags & PROBE_EXT)
		return; /* the second read of a port: the model is all it changes */
	discover_ask_ext(d, p, req);
	if (p->port == 0 && node_is_switch(n)) {
		/* switch port 0 carries the switch's LID; its answer opens the others */
		if (p->flags & PROBE_THEN_PORTS)
			switch_probe_ports(d, p->node);
		return;
	}
	if (d->incremental && node_is_switch(n) && port_is_linked(port)) {
		uint32_t rn = port->remote_node;
		uint8_t rp = port->remote_port;
		struct node *r = &d->f->nodes[rn];
		bool up = pi.phys_state == PHYS_LINKUP && pi.state >= PORT_INIT;

		if (!up) {
			/* the link is gone: so is the far end's port, as far as we know */
			discover_touch(d, rn);
			fabric_unlink(d->f, p->node, p->port);
			d->res.links_down++;
			r->ports[rp].state = PORT_DOWN;
			r->ports[rp].phys_state = PHYS_POLLING;
			if (node_is_switch(r))
				discover_later_add(d, r->guid, PROBE_PORTINFO, rp,
						   0); /* its route may cross this link */
		} else if (pi.state != PORT_ACTIVE) {
			/* retrained (a flap): the far end's port is not what we knew either */
			uint8_t path[64];
			uint8_t hops;

			if (!discover_asked_once(d, rn, rp))
				; /* asked already */
			else if (node_is_switch(r))
				discover_send(d, PROBE_PORTINFO, r->dr_path, r->dr_hops,
					      WIRE_ATTR_PORT_INFO, portinfo_get_mod(d->f, rn, rp),
					      0, 0, rn, rp);
			else if (discover_port_path(d->f, rn, rp, path, &hops) == 0)
				discover_send(d, PROBE_PORTINFO, path, hops, WIRE_ATTR_PORT_INFO,
					      portinfo_get_mod(d->f, rn, rp), 0, 0, rn, rp);
		}
		return; /* a link that stays up leads where it did */
	}
	if (d->n_held_far && node_is_switch(n) && discover_is_held_far(d, n->guid, p->port)) {
		/* up to a switch held out: taken for down, not asked across */
		discover_refuse(d, p->node, p->port);
		return;
	}
	/* walk on through switch ports with a live link */
	if (node_is_switch(n) && p->port != 0 && pi.phys_state == PHYS_LINKUP &&
	    pi.state >= PORT_INIT && !(n->dr_hops > 0 && p->port == n->entry_port) &&
	    n->dr_hops < FABRIC_DR_MAX_HOPS) {
		uint8_t path[64];
		memcpy(path, n->dr_path, sizeof(path));
		path[n->dr_hops + 1] = p->port;
		discover_send(d, PROBE_NODEINFO, path, n->dr_hops + 1, WIRE_ATTR_NODE_INFO, 0,
			      p->node, p->port, 0, 0);
	}
}

/* Incremental: node idx's model changed (discover_result.touched). */
static void discover_touch(struct discover *d, uint32_t idx)
{
	struct discover_result *r = &d->res;

	if (!d->incremental)
		return;
	if ((r->n_touched & (r->n_touched - 1)) == 0 && r->n_touched >= 16) {
		uint64_t *v = realloc(r->touched, 2 * r->n_touched * sizeof(*v));

		if (!v) {
			r->errors++; /* the scope would be wrong: discover everything */
			return;
		}
		r->touched = v;
	} else if (!r->touched) {
		r->touched = malloc(16 * sizeof(*r->touched));
		if (!r->touched) {
			r->errors++;
			return;
		}
	}
	r->touched[r->n_touched++] = d->f->nodes[idx].guid;
}

/* Note that switch idx answered (heard) or did not in this stage. */
static void discover_note(struct discover *d, uint32_t idx, bool heard)
{
	uint64_t guid = d->f->nodes[idx].guid;
	size_t i;

	for (i = 0; i < d->n_silent && d->silent[i].guid != guid; i++)
		;
	if (i == d->n_silent) {
		if (heard)
			return; /* only a switch that did not answer something matters */
		if (d->n_silent == d->cap_silent) {
			size_t cap = d->cap_silent ? 2 * d->cap_silent : 16;
			struct silent *v = realloc(d->silent, cap * sizeof(*v));

			if (!v) {
				d->res.errors++;
				return;
			}
			d->silent = v;
			d->cap_silent = cap;
		}
		d->silent[d->n_silent++] = (struct silent){guid, false};
	}
	d->silent[i].heard |= heard;
}

/*
 * Cut every link of node x in the model: the far ends' ports taken for down
 * (and touched).  A far end switch's port is asked in the next stage
 * (later), or with held noted in held_far (discover_hold_out asks it).
 * 0, or -ENOMEM (held_far could not grow; the cut is done all the same).
 */
static int discover_cut_links(struct discover *d, uint32_t x, bool held)
{
	struct node *n = &d->f->nodes[x];
	int r = 0;

	for (unsigned pn = 1; pn <= n->nports; pn++) {
		struct port *pp = &n->ports[pn];
		struct node *y;

		if (!port_is_linked(pp))
			continue;
		y = &d->f->nodes[pp->remote_node];
		discover_touch(d, pp->remote_node);
		if (node_is_switch(y) && !held) {
			discover_later_add(d, y->guid, PROBE_PORTINFO, pp->remote_port, 0);
		} else if (node_is_switch(y)) {
			struct held_far *v = d->held_far;

			if ((d->n_held_far & (d->n_held_far - 1)) == 0) /* 0, 1, 2, 4, ...: full */
				v = realloc(d->held_far,
					    (d->n_held_far ? 2 * d->n_held_far : 1) * sizeof(*v));
			if (v) {
				d->held_far = v;
				d->held_far[d->n_held_far++] =
				    (struct held_far){y->guid, pp->remote_port};
			} else {
				r = -ENOMEM;
			}
		}
		y->ports[pp->remote_port].state = PORT_DOWN;
		y->ports[pp->remote_port].phys_state = PHYS_POLLING;
		fabric_unlink(d->f, x, (uint8_t)pn);
		d->res.links_down++;
	}
	return r;
}

/*
 * The end of a stage: every switch that answered nothing in it (not the
 * SM's own node) has its links cut and their far end switches asked in the
 * next stage (gone, or found again from there).
 */
static void discover_cut_silent(struct discover *d)
{
	for (size_t i = 0; i < d->n_silent; i++) {
		uint32_t x = fabric_find_guid(d->f, d->silent[i].guid);

		if (d->silent[i].heard || x == FABRIC_NO_NODE || x == d->f->sm_node)
			continue;
		discover_cut_links(d, x, false);
		d->res.silent++;
	}
	d->n_silent = 0;
}

/* The batch is empty: every probe asked was answered or given up on. */
static void discover_finish(void *arg)
{
	struct discover *d = arg;
	struct discover_result res = d->res;
	int status;

	if (d->finishing)
		return;
	while (d->incremental && d->f && d->stage < DISCOVER_STAGES &&
	       (d->n_later || d->stage == 1)) {
		uint32_t gone = 0;
		bool pruned;

		discover_cut_silent(d);
		pruned = fabric_prune_in_place(d->f, &gone) == 0;
		d->stage++;
		d->res.removed += gone;
		if (!pruned)
			d->res.errors++;
		for (size_t i = 0; pruned && i < d->n_later; i++) {
			const struct later *l = &d->later[i];
			uint32_t ni = fabric_find_guid(d->f, l->guid);
			struct node *n;

			if (ni == FABRIC_NO_NODE)
				continue; /* no longer reachable: nothing to ask */
			n = &d->f->nodes[ni];
			if (l->kind == PROBE_NODEINFO) {
				uint8_t path[64];

				if (!node_is_switch(n) || n->dr_hops >= FABRIC_DR_MAX_HOPS ||
				    port_is_linked(&n->ports[l->port]))
					continue;
				memcpy(path, n->dr_path, sizeof(path));
				path[n->dr_hops + 1] = l->port;
				discover_send(d, PROBE_NODEINFO, path, n->dr_hops + 1,
					      WIRE_ATTR_NODE_INFO, 0, ni, l->port, 0, 0);
			} else {
				discover_send_flags(d, l->kind, n->dr_path, n->dr_hops,
						    l->kind == PROBE_SWITCHINFO
							? WIRE_ATTR_SWITCH_INFO
							: WIRE_ATTR_PORT_INFO,
						    l->kind == PROBE_SWITCHINFO
							? 0
							: portinfo_get_mod(d->f, ni, l->port),
						    0, 0, ni, l->port, l->flags & ~PROBE_EXT);
			}
		}
		d->n_later = 0;
		if (xact_batch_pending(d->batch) || !discover_frontier_empty(d))
			return; /* the next stage runs; the batch's next emptying finishes */
		res = d->res;
	}
	if (d->incremental && d->f) {
		/* anything unexpected: the caller discovers the whole fabric */
		if (res.timeouts || res.errors || res.link_conflicts) {
			res.fabric = NULL;
			res.ms = clock_mono_ms() - d->t0_ms;
			d->finishing = true;
			d->done(d->arg, -EAGAIN, &res);
			return;
		}
		uint32_t gone = 0;

		if (fabric_prune_in_place(d->f, &gone) == 0)
			res.removed += gone;
		res.incremental = true;
	}
	res.fabric = d->f;
	res.ms = clock_mono_ms() - d->t0_ms;
	res.touched = d->res.touched; /* the receiver's, with the fabric */
	d->res.touched = NULL;
	d->res.n_touched = 0;
	d->f = NULL;
	d->finishing = true;
	status = res.fabric->n_nodes ? 0 : -EHOSTUNREACH;
	d->done(d->arg, status, &res);
}

static void probe_done(void *arg, int status, const struct wire_smp *req,
		       const struct wire_smp *resp)
{
	struct probe *p = arg;
	struct discover *d = p->d;

	if (status == -ECANCELED) {
		free(p); /* discover_free */
		return;
	}
	if (status < 0 && (p->flags & PROBE_EXT)) {
		/*
		 * The port advertised extended speeds and did not answer the
		 * Get that asks for them: its first answer stands (and is never
		 * written back as if read with bit 31).  Not an error of the
		 * sweep.
		 */
		d->res.ext_failed++;
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"node 0x%016llx port %u advertises extended speeds but answers no "
				"PortInfo Get with SMSupportExtendedSpeeds (%s): its speed is the "
				"classic field's",
				(unsigned long long)d->f->nodes[p->node].guid, p->port,
				strerror(-status));
		free(p);
		return;
	}
	if (status == -ETIMEDOUT && d->incremental && d->stage < DISCOVER_STAGES &&
	    (p->kind == PROBE_NODEINFO || p->kind == PROBE_PORTINFO ||
	     p->kind == PROBE_SWITCHINFO)) {
		/* maybe behind a link that is gone, or gone itself: asked again over new routes */
		if (p->kind == PROBE_NODEINFO) {
			/*
			 * Across a port found up: the port is asked again (over
			 * the new routes) and followed only if it is still up.
			 * A link that went down meanwhile (a switch cut port by
			 * port) is then found down, not asked across until the
			 * last stage and a heavy sweep.
			 */
			discover_later_add(d, d->f->nodes[p->parent].guid, PROBE_PORTINFO,
					   p->parent_port, 0);
		} else {
			discover_later_add(d, d->f->nodes[p->node].guid, p->kind, p->port,
					   p->flags);
			if (node_is_switch(&d->f->nodes[p->node]))
				discover_note(d, p->node, false);
		}
		free(p);
		return;
	}
	if (status == -ETIMEDOUT && p->round < DISCOVER_EXTRA_ROUNDS && !d->incremental) {
		struct wire_smp smp;

		if (wire_smp_init_dr(&smp, WIRE_GET, req->attr_id, req->attr_mod, req->initial_path,
				     req->hop_cnt) == 0 &&
		    xact_submit(d->xe, &(struct xact_request){.batch = d->batch,
							      .smp = &smp,
							      .done = probe_done,
							      .arg = p}) == 0) {
			p->round++;
			d->res.asked_again++;
			return;
		}
	}
	if (status < 0 && (p->flags & PROBE_THEN_PORTS))
		switch_probe_ports(d, p->node); /* port 0 did not answer: ask the others plainly */
	if (status == -ETIMEDOUT) {
		char path[256];
		d->res.timeouts++;
		log_ratelimited(
		    LOG_CAT_SWEEP, LOG_WARNING,
		    "no answer to attr 0x%04x mod %u on DR path %s after retries: "
		    "carrying on without it",
		    req->attr_id, req->attr_mod,
		    wire_dr_path_format(req->initial_path, req->hop_cnt, path, sizeof(path)));
	} else if (status < 0 && p->kind == PROBE_PKEY && p->port &&
		   node_is_switch(&d->f->nodes[p->node])) {
		/* a switch port that keeps no P_Key table: it does not enforce */
	} else if (status < 0) {
		d->res.errors++;
		if (status == -EREMOTEIO)
			log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
					"attr 0x%04x mod %u: MAD status 0x%04x", req->attr_id,
					req->attr_mod, resp ? resp->status : 0);
	} else {
		if (d->incremental && p->kind != PROBE_NODEINFO && d->n_silent)
			discover_note(d, p->node, true);
		if (p->kind != PROBE_NODEINFO)
			discover_touch(d, p->node);
		switch (p->kind) {
		case PROBE_NODEINFO:
			on_nodeinfo(d, p, req, resp);
			break;
		case PROBE_NODEDESC:
			wire_nodedesc_decode(resp->data, sizeof(resp->data),
					     d->f->nodes[p->node].desc,
					     sizeof(d->f->nodes[p->node].desc));
			break;
		case PROBE_PORTINFO:
			on_portinfo(d, p, req, resp);
			break;
		case PROBE_PKEY:
			on_pkeys(d, p, req, resp);
			break;
		case PROBE_SWITCHINFO: {
			struct wire_switchinfo si;
			struct node *n = &d->f->nodes[p->node];
			if (wire_switchinfo_decode(resp->data, sizeof(resp->data), &si) == 0) {
				n->lft_cap = si.lft_cap;
				n->lft_top = si.lft_top;
				n->mft_cap = si.mft_cap;
				n->enhanced_port0 = si.enhanced_port0;
				memcpy(n->si, resp->data, sizeof(n->si));
			} else {
				d->res.errors++;
			}
			break;
		}
		}
	}
	free(p);
}

/* A discovery with its batch, not started.  NULL on ENOMEM. */
static struct discover *discover_new(struct xact_engine *xe, discover_done_fn done, void *arg)
{
	struct discover *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->xe = xe;
	d->probe_done = probe_done;
	d->done = done;
	d->arg = arg;
	d->batch = xact_batch_new(xe, discover_finish, d);
	if (!d->batch) {
		free(d);
		return NULL;
	}
	xact_batch_set_producer(d->batch, XACT_BULK, discover_produce, d);
	d->t0_ms = clock_mono_ms();
	return d;
}

/* Whether anything was asked (or waits to be). */
static bool discover_busy(const struct discover *d)
{
	return xact_batch_pending(d->batch) || !discover_frontier_empty(d);
}

int discover_start(struct xact_engine *xe, discover_done_fn done, void *arg, struct discover **ret)
{
	struct discover *d = discover_new(xe, done, arg);
	int r;

	if (!d)
		return -ENOMEM;
	d->f = fabric_new();
	r = d->f ? discover_send(d, PROBE_NODEINFO, NULL, 0, WIRE_ATTR_NODE_INFO, 0, 0, 0, 0, 0)
		 : -ENOMEM;
	if (r == 0 && !discover_busy(d))
		r = -ENOMEM; /* the first probe could not be submitted */
	if (r < 0) {
		discover_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

/*
 * The switches held out that base has: their links cut (the far ends' ports
 * taken for down, as discover_cut_silent does), the fabric pruned, then the
 * far end switches' ports asked over the new routes: one still up is
 * refused there (on_portinfo), not asked across (a held switch may not
 * answer).  0 or -ENOMEM.
 */
static int discover_hold_out(struct discover *d)
{
	uint32_t gone = 0;

	for (size_t h = 0; h < d->n_held; h++) {
		uint32_t x = fabric_find_guid(d->f, d->held[h]);

		if (x == FABRIC_NO_NODE || x == d->f->sm_node)
			continue;
		if (discover_cut_links(d, x, true) < 0)
			return -ENOMEM;
		d->res.held_out++;
	}
	if (!d->res.held_out)
		return 0;
	if (fabric_prune_in_place(d->f, &gone) < 0)
		return -ENOMEM;
	d->res.removed += gone;
	for (size_t i = 0; i < d->n_held_far; i++) {
		uint32_t y = fabric_find_guid(d->f, d->held_far[i].guid);
		uint8_t port = d->held_far[i].port;
		struct node *n;

		if (y == FABRIC_NO_NODE || !discover_asked_once(d, y, port))
			continue;
		n = &d->f->nodes[y];
		discover_send(d, PROBE_PORTINFO, n->dr_path, n->dr_hops, WIRE_ATTR_PORT_INFO,
			      portinfo_get_mod(d->f, y, port), 0, 0, y, port);
	}
	return 0;
}

int discover_start_around(struct xact_engine *xe, const struct fabric *base, const uint64_t *dirty,
			  size_t n_dirty, const uint64_t *held, size_t n_held,
			  discover_done_fn done, void *arg, struct discover **ret)
{
	struct discover *d;

	for (size_t i = 0; i < n_dirty; i++) {
		uint32_t ni = fabric_find_guid(base, dirty[i]);

		if (ni == FABRIC_NO_NODE || !node_is_switch(&base->nodes[ni]))
			return -ENOENT;
	}
	d = discover_new(xe, done, arg);
	if (!d)
		return -ENOMEM;
	d->incremental = true;
	d->stage = 1;
	d->f = fabric_clone(base);
	if (n_held) {
		d->held = malloc(n_held * sizeof(*d->held));
		if (d->held) {
			memcpy(d->held, held, n_held * sizeof(*d->held));
			d->n_held = n_held;
		}
	}
	if (!d->f || (n_held && !d->held) || discover_hold_out(d) < 0) {
		discover_free(d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_dirty; i++) {
		uint32_t ni = fabric_find_guid(d->f, dirty[i]);
		struct node *n;

		if (ni == FABRIC_NO_NODE || u64_set_has(d->held, d->n_held, dirty[i]))
			continue; /* held out, or only reachable through one */
		n = &d->f->nodes[ni];
		d->res.reprobed++;
		discover_send(d, PROBE_SWITCHINFO, n->dr_path, n->dr_hops, WIRE_ATTR_SWITCH_INFO, 0,
			      0, 0, ni, 0);
		for (unsigned p = 1; p <= n->nports; p++)
			if (discover_asked_once(d, ni, (uint8_t)p))
				discover_send(
				    d, PROBE_PORTINFO, n->dr_path, n->dr_hops, WIRE_ATTR_PORT_INFO,
				    portinfo_get_mod(d->f, ni, (uint8_t)p), 0, 0, ni, (uint8_t)p);
	}
	if (!discover_busy(d)) {
		discover_free(d);
		return -EIO;
	}
	*ret = d;
	return 0;
}

void discover_free(struct discover *d)
{
	if (!d)
		return;
	/* cancelled: the probes in flight free themselves, done is not called */
	xact_batch_free(d->batch);
	fabric_free(d->f);
	free(d->frontier);
	free(d->later);
	free(d->asked);
	free(d->held);
	free(d->held_far);
	free(d->silent);
	free(d->res.touched);
	free(d);
}

int discover_port_path(const struct fabric *f, uint32_t node, uint8_t port, uint8_t *ret_path,
		       uint8_t *ret_hops)
{
	const struct node *n, *r;
	const struct port *p;

	if (node >= f->n_nodes)
		return -ENOENT;
	n = &f->nodes[node];
	if (port > n->nports)
		return -ENOENT;
	if (node_is_switch(n) || port == n->entry_port ||
	    (node == f->sm_node && n->dr_hops == 0 && port == f->sm_port)) {
		if (node == f->sm_node && !node_is_switch(n) && port != f->sm_port)
			goto via_link;
		memcpy(ret_path, n->dr_path, FABRIC_DR_MAX_HOPS + 1);
		*ret_hops = n->dr_hops;
		return 0;
	}
via_link:
	p = &n->ports[port];
	if (!port_is_linked(p))
		return -ENOENT;
	r = &f->nodes[p->remote_node];
	if (!node_is_switch(r) || r->dr_hops >= FABRIC_DR_MAX_HOPS)
		return -ENOENT;
	memcpy(ret_path, r->dr_path, FABRIC_DR_MAX_HOPS + 1);
	ret_path[r->dr_hops + 1] = p->remote_port;
	*ret_hops = r->dr_hops + 1;
	return 0;
}

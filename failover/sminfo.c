/*
 * The SMInfo requests other SMs send us (IBA 1.4 vol 1, 14.2.5.13 SMInfo,
 * 14.4.1.2 SubnSet(SMInfo) and its modifiers, table 185): a part of its own
 * beside the role (failover/smstate.c), whose state it reads and changes
 * through smstate_int.h; the role never calls here.
 *
 * A Get is answered with our SMInfo, the SM_Key only to a requester that
 * gives it or whose port is an SM.  A Set is obeyed only when the payload
 * carries our SM_Key, the sender's port is an SM and its GUID is the one
 * the payload claims: the sender's NodeInfo and PortInfo are read back
 * along the route the request came by (a check, at most SMSTATE_CHECKS_MAX
 * at once) before anything changes.  Anything else is refused with a MAD
 * status, counted and logged (rate-limited).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failover/sminfo.h"
#include "failover/smstate_int.h"
#include "fabric/names.h"
#include "fabric/snapshot.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "mad/dispatch.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "sm/port.h"
#include "sm/part.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"
#include "smp/discover.h"

/* The part's object: the requesters being checked. */
struct sminfo {
	struct sminfo_check *checks;
	unsigned n_checks;
};

static void sminfo_free(struct sm *sm, void *obj);

static const struct sm_part_ops sminfo_part = {"sminfo", sminfo_free};

static struct sminfo *sminfo_of(const struct sm *sm)
{
	return sm_part_get(sm, &sminfo_part);
}

/* A requester being checked: is its port an SM, and which port is it? */
struct sminfo_check {
	struct sminfo_check *next;
	struct sm *sm;
	struct madio_addr from;
	struct wire_smp req; /* the Get or Set to answer */
	bool dr;	     /* the route back is a directed route (path), else from.slid */
	uint8_t path[64];
	uint8_t hops;
	int step; /* 0: NodeInfo, 1: PortInfo */
	uint8_t node_type;
	uint8_t local_port;
	uint64_t port_guid;
};

/* Answer req with our SMInfo, status and (for an authenticated requester) the key. */
static void sminfo_answer(struct sm *sm, const struct madio_addr *from, const struct wire_smp *req,
			  uint16_t status, bool with_key)
{
	struct wire_smp resp = *req;
	struct wire_sminfo si;
	uint8_t out[WIRE_MAD_SIZE];

	resp.method = WIRE_GET_RESP;
	resp.status = status;
	if (req->mgmt_class == WIRE_CLASS_SMI_DR)
		resp.direction = true;
	memset(resp.data, 0, sizeof(resp.data));
	smstate_our_info(sm, with_key, &si);
	wire_sminfo_encode(&si, resp.data, sizeof(resp.data));
	if (wire_smp_encode(&resp, out, sizeof(out)) < 0)
		return;
	if (madio_send_lid(sm->io, req->mgmt_class, out, sizeof(out), from->slid, 0, 0) < 0)
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "cannot answer SMInfo from LID %u",
				from->slid);
	smstate_of(sm)->gets_answered += req->method == WIRE_GET;
}

static void sminfo_check_free(struct sm *sm, struct sminfo_check *c)
{
	struct sminfo_check **pp;

	for (pp = &sminfo_of(sm)->checks; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			sminfo_of(sm)->n_checks--;
			break;
		}
	}
	free(c);
}

/* Who sent req, for a log line: "LID 5" or "DR path 0,1,3". */
static const char *sminfo_who(const struct sminfo_check *c, char *buf, size_t len)
{
	if (c->dr) {
		char p[256];

		wire_dr_path_format(c->path, c->hops, p, sizeof(p));
		snprintf(buf, len, "port 0x%016" PRIx64 " (DR path %s)", c->port_guid, p);
	} else {
		snprintf(buf, len, "port 0x%016" PRIx64 " (LID %u)", c->port_guid, c->from.slid);
	}
	return buf;
}

static void sminfo_refuse(struct sm *sm, struct sminfo_check *c, const char *why)
{
	char who[320];

	smstate_of(sm)->sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "refused SMInfo Set %s from %s: %s",
			smstate_mod_name(c->req.attr_mod), sminfo_who(c, who, sizeof(who)), why);
	sminfo_answer(sm, &c->from, &c->req, WIRE_STATUS_INVALID_FIELD, false);
}

/* A Set from a port we have checked: obey it or refuse it. */
static void sminfo_handle_set(struct sm *sm, struct sminfo_check *c, bool is_sm)
{
	struct smstate *ss = smstate_of(sm);
	uint32_t mod = c->req.attr_mod;
	struct smstate_peer *p;
	struct wire_sminfo si;
	char why[200];
	uint32_t node;
	uint8_t port;
	int to;

	if (wire_sminfo_decode(c->req.data, sizeof(c->req.data), &si) < 0) {
		sminfo_refuse(sm, c, "malformed SMInfo");
		return;
	}
	if (!is_sm) {
		sminfo_refuse(sm, c, "its port is not an SM (IsSM clear)");
		return;
	}
	if (sm->conf.sm_key && si.sm_key != sm->conf.sm_key) {
		sminfo_refuse(sm, c, "wrong SM_Key");
		return;
	}
	if (si.guid != c->port_guid) {
		snprintf(why, sizeof(why), "it claims to be SM 0x%016" PRIx64, si.guid);
		sminfo_refuse(sm, c, why);
		return;
	}
	to = smstate_set_transition(sm->state, si.state, mod);
	if (to < 0) {
		snprintf(why, sizeof(why), "not legal from a %s SM while this SM is %s",
			 names_sm_state(si.state), names_sm_state(sm->state));
		sminfo_refuse(sm, c, why);
		return;
	}
	ss->sets_accepted++;
	/* the sender is a peer: remember how to reach it */
	p = smstate_peer_get(sm, si.guid);
	p->priority = si.priority;
	p->state = si.state;
	p->act_count = si.act_count;
	p->foreign_key = false;
	p->unreachable = false;
	p->last_contact_ms = clock_mono_ms();
	p->last_contact_wall = clock_wall_s();
	if (c->from.slid && c->from.slid < 0xc000)
		p->lid = c->from.slid;
	else if (sm->snap && snapshot_find_port_guid(sm->snap, si.guid, &node, &port))
		p->lid = node_port_lid(&sm->snap->fabric->nodes[node], port);
	memcpy(p->path, c->path, sizeof(p->path));
	p->hops = c->dr ? c->hops : 0;
	log_info("SMInfo Set %s from SM 0x%016" PRIx64 " (priority %u, %s)", smstate_mod_name(mod),
		 si.guid, si.priority, names_sm_state(si.state));
	switch (mod) {
	case WIRE_SMINFO_HANDOVER:
		sminfo_answer(sm, &c->from, &c->req, 0, true);
		if (sm->state == SM_DISCOVERING)
			break; /* our DECIDE finds whether the sender still is master */
		if (sm->state == SM_MASTER) {
			/* a lower master gives up its part of a healed subnet */
			snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " handed its part over",
				 si.guid);
			sweep_start_why(sm, why);
			break;
		}
		/*
		 * Acknowledge first: the old master steps down when it has our
		 * ACKNOWLEDGE, and we step up when it has answered, so the two
		 * are never master at once.  Its polls no longer matter.
		 */
		sm->master_guid = 0;
		if (smstate_send_peer(sm, Q_ACK, WIRE_SET, WIRE_SMINFO_ACKNOWLEDGE, p, 0, 1) < 0)
			smstate_become_master_after_ack(
			    sm, &(struct smstate_query){.sm = sm, .guid = p->guid, .lid = p->lid});
		break;
	case WIRE_SMINFO_ACKNOWLEDGE:
		if (sm->state == SM_MASTER && ss->handover_to == si.guid) {
			smstate_step_down(sm, p, "the SM handed over to acknowledged");
		}
		sminfo_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_DISABLE:
		smstate_set(sm, SM_NOTACTIVE, "disabled by the master");
		sminfo_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_STANDBY:
		smstate_go_standby(sm, p, "told to stand by by the master");
		sminfo_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_DISCOVER:
		sminfo_answer(sm, &c->from, &c->req, 0, true);
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " asked for DISCOVER", si.guid);
		smstate_set(sm, SM_DISCOVERING, why);
		sweep_start_why(sm, why);
		break;
	}
}

static void sminfo_check_finish(struct sm *sm, struct sminfo_check *c, bool is_sm)
{
	if (c->req.method == WIRE_GET)
		sminfo_answer(sm, &c->from, &c->req, 0, is_sm);
	else
		sminfo_handle_set(sm, c, is_sm);
	sminfo_check_free(sm, c);
}

static int sminfo_check_step(struct sminfo_check *c);

static void sminfo_check_answer(struct sminfo_check *c, int status, const struct wire_smp *resp)
{
	struct sm *sm = c->sm;
	struct wire_nodeinfo ni;
	struct wire_portinfo pi;

	if (status == -ECANCELED) {
		sminfo_check_free(sm, c);
		return;
	}
	if (status < 0 || !resp) {
		sminfo_check_finish(sm, c, false);
		return;
	}
	if (c->step == 0) {
		if (wire_nodeinfo_decode(resp->data, sizeof(resp->data), &ni) < 0) {
			sminfo_check_finish(sm, c, false);
			return;
		}
		c->node_type = ni.node_type;
		c->local_port = ni.local_port;
		c->port_guid = ni.port_guid;
		c->step = 1;
		if (sminfo_check_step(c) < 0)
			sminfo_check_finish(sm, c, false);
		return;
	}
	sminfo_check_finish(sm, c,
			    wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) == 0 &&
				(pi.capmask & WIRE_CAP_IS_SM));
}

static void sminfo_check_dr_done(void *arg, int status, const struct wire_smp *req,
				 const struct wire_smp *resp)
{
	sminfo_check_answer(arg, status, resp);
}

static void sminfo_check_lid_done(void *arg, int status, const uint8_t *req,
				  const struct wire_mad_hdr *hdr, const uint8_t *resp, size_t len)
{
	struct wire_smp smp;

	if (resp && wire_smp_decode(resp, len, &smp) == 0)
		sminfo_check_answer(arg, status, &smp);
	else
		sminfo_check_answer(arg, status < 0 ? status : -EBADMSG, NULL);
}

/* Ask the requester's port for its NodeInfo (step 0) or PortInfo (step 1). */
static int sminfo_check_step(struct sminfo_check *c)
{
	struct sm *sm = c->sm;
	uint16_t attr = c->step == 0 ? WIRE_ATTR_NODE_INFO : WIRE_ATTR_PORT_INFO;
	uint32_t mod = c->step == 0 || c->node_type == NODE_SWITCH ? 0 : c->local_port;
	struct wire_smp smp;
	uint8_t mad[WIRE_MAD_SIZE];

	/* dr_only: a requester that came LID-routed is checked along the route to its LID */
	if (!c->dr && port_dr_only(sm)) {
		if (port_dr_path_to_lid(sm, c->from.slid, c->path, &c->hops) < 0 || !c->hops)
			return -EHOSTUNREACH;
		c->dr = true;
	}
	if (c->dr) {
		if (wire_smp_init_dr(&smp, WIRE_GET, attr, mod, c->path, c->hops) < 0)
			return -EINVAL;
		return xact_submit(sm->xe, &(struct xact_request){.lane = XACT_CONTROL,
								  .smp = &smp,
								  .done = sminfo_check_dr_done,
								  .arg = c,
								  .tries = 2});
	}
	wire_smp_init_lid(&smp, WIRE_GET, attr, mod);
	if (wire_smp_encode(&smp, mad, sizeof(mad)) < 0)
		return -EINVAL;
	return xact_submit(sm->xe,
			   &(struct xact_request){.lane = XACT_CONTROL,
						  .mad = mad,
						  .len = sizeof(mad),
						  .to = &(struct madio_dest){.dlid = c->from.slid},
						  .mad_done = sminfo_check_lid_done,
						  .arg = c});
}

/* Check the requester of req, then answer (Get) or obey (Set). */
static void sminfo_check_start(struct sm *sm, const struct madio_addr *from,
			       const struct wire_smp *req)
{
	struct smstate *ss = smstate_of(sm);
	struct sminfo *si = sminfo_of(sm);
	struct sminfo_check *c;
	uint32_t node;
	uint8_t port;

	if (si->n_checks >= SMSTATE_CHECKS_MAX || !sm->xe)
		goto busy;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto busy;
	c->sm = sm;
	c->from = *from;
	c->req = *req;
	if (req->mgmt_class == WIRE_CLASS_SMI_DR && req->dr_slid == WIRE_PERMISSIVE_LID) {
		c->dr = true;
		if (smstate_reverse_path(req, c->path, &c->hops) < 0) {
			/* from our own port: no other SM */
			free(c);
			goto local;
		}
	} else if (!from->slid || from->slid >= 0xc000) {
		free(c);
		goto local;
	} else if (sm->snap && snapshot_find_lid(sm->snap, from->slid, &node, &port) &&
		   discover_port_path(sm->snap->fabric, node, port, c->path, &c->hops) == 0 &&
		   c->hops) {
		/* a directed route to that LID's port: it does not depend on the LFTs */
		c->dr = true;
	}
	c->next = si->checks;
	si->checks = c;
	si->n_checks++;
	if (sminfo_check_step(c) < 0)
		sminfo_check_finish(sm, c, false);
	return;
busy:
	if (req->method == WIRE_GET) {
		sminfo_answer(sm, from, req, 0, false);
		return;
	}
	ss->sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
			"refused SMInfo Set %s from LID %u: too many requests being checked",
			smstate_mod_name(req->attr_mod), from->slid);
	sminfo_answer(sm, from, req, WIRE_STATUS_INVALID_FIELD, false);
	return;
local:
	if (req->method == WIRE_GET) {
		sminfo_answer(sm, from, req, 0, false);
		return;
	}
	ss->sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
			"refused SMInfo Set %s from LID %u: no route back to the sender",
			smstate_mod_name(req->attr_mod), from->slid);
	sminfo_answer(sm, from, req, WIRE_STATUS_INVALID_FIELD, false);
}

static void sminfo_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
			const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_smp req;
	struct wire_sminfo si;

	if (wire_smp_decode(buf, len, &req) < 0 ||
	    wire_sminfo_decode(req.data, sizeof(req.data), &si) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING,
				"dropped a malformed SMInfo request from LID %u", from->slid);
		return;
	}
	if (req.method == WIRE_GET && sm->conf.sm_key && si.sm_key == sm->conf.sm_key) {
		/* the requester gives our key: it may see it */
		sminfo_answer(sm, from, &req, 0, true);
		return;
	}
	if (req.method == WIRE_GET && !sm->conf.sm_key) {
		sminfo_answer(sm, from, &req, 0, false);
		return;
	}
	sminfo_check_start(sm, from, &req);
}

static void sminfo_recv_trap_repress(void *ctx, const struct madio_addr *from,
				     const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	/* the master had our trap 144 */
}

/* ---- life cycle ------------------------------------------------------------------- */

static void sminfo_free(struct sm *sm, void *obj)
{
	struct sminfo *si = obj;

	if (!si)
		return;
	/* checks whose Gets were cancelled have freed themselves; any left go now */
	while (si->checks) {
		struct sminfo_check *c = si->checks;

		si->checks = c->next;
		free(c);
	}
	free(si);
}

int sminfo_attach(struct sm *sm, char *err, size_t err_len)
{
	static const struct {
		uint8_t mgmt_class;
		unsigned method;
		unsigned attr;
		dispatch_fn fn;
	} rows[] = {
	    {WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, sminfo_recv},
	    {WIRE_CLASS_SMI_DR, WIRE_GET, WIRE_ATTR_SM_INFO, sminfo_recv},
	    {WIRE_CLASS_SMI, WIRE_SET, WIRE_ATTR_SM_INFO, sminfo_recv},
	    {WIRE_CLASS_SMI_DR, WIRE_SET, WIRE_ATTR_SM_INFO, sminfo_recv},
	    /* TrapRepress of our trap 144: nothing to do */
	    {WIRE_CLASS_SMI, WIRE_TRAP_REPRESS, DISPATCH_ANY_ATTR, sminfo_recv_trap_repress},
	};
	struct sminfo *si = calloc(1, sizeof(*si));

	if (!smstate_of(sm)) {
		free(si);
		snprintf(err, err_len, "SMInfo requests need the SM state (attach it first)");
		return -EINVAL;
	}
	if (!si || sm_part_add(sm, &sminfo_part, si) < 0) {
		free(si);
		goto nomem;
	}
	for (size_t i = 0; sm->disp && i < sizeof(rows) / sizeof(rows[0]); i++)
		if (dispatch_register(sm->disp, rows[i].mgmt_class, rows[i].method, rows[i].attr,
				      rows[i].fn, sm) < 0)
			goto nomem; /* the part is registered: sm_fini frees it */
	return 0;
nomem:
	snprintf(err, err_len, "out of memory setting up SMInfo requests");
	return -ENOMEM;
}

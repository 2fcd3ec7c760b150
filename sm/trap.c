/*
 * Traps (see trap.h).  IBA 1.4 vol 1, 13.4.8.2 (Notice), 14.2.5.1 (the SM's
 * traps), 13.4.9 (Trap, TrapRepress).
 */
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "sm/port.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"
#include "sm/trap.h"

const char *trap_action_name(enum trap_action a)
{
	static const char *const names[TRAP_NACTIONS] = {
	    [TRAP_SWEEP] = "sweep",
	    [TRAP_PORT_ERROR] = "port_error",
	    [TRAP_KEY_VIOLATION] = "key_violation",
	    [TRAP_REFUSED] = "refused",
	    [TRAP_IGNORED] = "ignored",
	};
	return a < TRAP_NACTIONS ? names[a] : "?";
}

const char *trap_name(unsigned trap_num)
{
	switch (trap_num) {
	case 128:
		return "link state change";
	case 129:
		return "local link integrity errors";
	case 130:
		return "excessive buffer overruns";
	case 131:
		return "flow control update watchdog";
	case 144:
		return "capability mask or local change";
	case 145:
		return "system image GUID change";
	case 256:
		return "bad M_Key";
	case 257:
		return "bad P_Key";
	case 258:
		return "bad Q_Key";
	case 259:
		return "bad P_Key at a switch external port";
	}
	return NULL;
}

enum trap_action trap_classify(const struct wire_notice *n, uint16_t slid,
			       const struct snapshot *snap, char *why, size_t why_len)
{
	uint32_t ni;
	uint8_t pn;
	bool known;

	why[0] = '\0';
	if (!n->generic) {
		snprintf(why, why_len, "a vendor trap (device 0x%04x)", n->trap_num);
		return TRAP_IGNORED;
	}
	if (!trap_name(n->trap_num)) {
		snprintf(why, why_len, "trap %u is not one the SM acts on", n->trap_num);
		return TRAP_IGNORED;
	}
	/* before the first snapshot nothing is known: a sweep is due anyway */
	known = !snap || !snap->fabric->n_nodes || snapshot_find_lid(snap, slid, &ni, &pn);
	if (!known) {
		snprintf(why, why_len, "LID %u is no port of the fabric", slid);
		return TRAP_REFUSED;
	}
	switch (n->trap_num) {
	case 128:
		if (snap && snap->fabric->n_nodes && !node_is_switch(&snap->fabric->nodes[ni])) {
			snprintf(why, why_len, "LID %u is a CA: only switches send trap 128", slid);
			return TRAP_REFUSED;
		}
		return TRAP_SWEEP;
	case 144:
	case 145:
		return TRAP_SWEEP;
	case 129:
	case 130:
	case 131:
		return TRAP_PORT_ERROR;
	default: /* 256-259 */
		return TRAP_KEY_VIOLATION;
	}
}

/* "switch 0x0008f10400411a08 "desc" (LID 7)" or "LID 7" when not in the snapshot. */
static void trap_who(const struct sm *sm, uint16_t lid, char *buf, size_t len)
{
	uint32_t ni;
	uint8_t pn;

	if (sm->snap && snapshot_find_lid(sm->snap, lid, &ni, &pn)) {
		const struct node *n = &sm->snap->fabric->nodes[ni];

		snprintf(buf, len, "%s 0x%016llx \"%s\" (LID %u)",
			 node_is_switch(n) ? "switch" : "CA", (unsigned long long)n->guid, n->desc,
			 lid);
	} else {
		snprintf(buf, len, "LID %u", lid);
	}
}

/*
 * Trap 256's LIDADDR is the requester whose SMP carried the bad M_Key; a
 * directed-route SMP has no LID of its own there (permissive), its DRSLID is
 * where it came from (14.2.5.1, table 120).
 */
static uint16_t trap_mkey_requester(const struct wire_notice *n)
{
	return n->lid && n->lid != 0xffff ? n->lid : n->lid2;
}

/* Count a trap 256 against the requester it names (sm->mkey, bounded). */
static void trap_count_mkey(struct sm *sm, const struct wire_notice *n)
{
	uint16_t lid = trap_mkey_requester(n);
	uint64_t guid = 0;
	struct mkey_offender *o;
	uint32_t ni;
	uint8_t pn;

	sm->mkey.traps++;
	if (sm->snap && snapshot_find_lid(sm->snap, lid, &ni, &pn))
		guid = sm->snap->fabric->nodes[ni].ports[pn].guid;
	o = mkey_offender_get(&sm->mkey.offenders, guid, lid);
	if (o) {
		o->traps++;
		o->last_key = n->key;
	}
}

static void trap_log(struct sm *sm, const struct wire_notice *n, uint16_t slid, enum trap_action a,
		     const char *why)
{
	char who[200], about[200];
	const char *name = trap_name(n->trap_num);

	trap_who(sm, slid, who, sizeof(who));
	switch (a) {
	case TRAP_SWEEP:
		log_ratelimited(LOG_CAT_SWEEP, LOG_INFO, "trap %u (%s) from %s: sweeping",
				n->trap_num, name, who);
		break;
	case TRAP_PORT_ERROR:
		trap_who(sm, n->lid, about, sizeof(about));
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "trap %u from %s: %s on %s port %u",
				n->trap_num, who, name, about, n->port);
		break;
	case TRAP_KEY_VIOLATION:
		trap_who(sm, n->lid, about, sizeof(about));
		if (n->trap_num == 256) {
			trap_who(sm, trap_mkey_requester(n), about, sizeof(about));
			log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
					"trap 256 from %s: bad M_Key 0x%016llx from %s (method "
					"0x%02x, attribute 0x%04x, modifier 0x%x, DR SLID %u)",
					who, (unsigned long long)n->key, about, n->method,
					n->attr_id, n->attr_mod, n->lid2);
		} else
			log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
					"trap %u from %s: %s 0x%llx between LID %u and LID %u",
					n->trap_num, who, name, (unsigned long long)n->key, n->lid,
					n->lid2);
		break;
	case TRAP_REFUSED:
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "trap %u from %s refused: %s",
				n->trap_num, who, why);
		break;
	default:
		log_ratelimited(LOG_CAT_SWEEP, LOG_INFO, "trap from %s ignored: %s", who, why);
		break;
	}
}

/*
 * TrapRepress (13.4.9): the trap back with method TrapRepress, to its
 * sender's LID, or with dr_only (sm/port.h) along the directed route to it;
 * a sender with no route known is not answered then (it sends again).
 */
static void trap_repress(struct sm *sm, const struct madio_addr *from, const struct wire_smp *req)
{
	uint8_t out[WIRE_MAD_SIZE], path[FABRIC_DR_MAX_HOPS + 1];
	struct wire_smp rep = *req;
	uint8_t hops;

	if (port_dr_only(sm)) {
		if (port_dr_path_to_lid(sm, from->slid, path, &hops) < 0 ||
		    wire_smp_init_dr(&rep, WIRE_TRAP_REPRESS, req->attr_id, req->attr_mod, path,
				     hops) < 0) {
			sm->trap_repress_unrouted++;
			return;
		}
		rep.tid = req->tid;
		memcpy(rep.data, req->data, sizeof(rep.data));
	}
	rep.method = WIRE_TRAP_REPRESS;
	rep.status = 0;
	/* the SMA checks a TrapRepress's M_Key like a Set's (14.2.4.2) */
	rep.mkey = sm->conf.m_key ? sm->conf.m_key : req->mkey;
	if (wire_smp_encode(&rep, out, sizeof(out)) != WIRE_MAD_SIZE)
		return;
	if (rep.mgmt_class == WIRE_CLASS_SMI_DR)
		madio_send_lid(sm->io, WIRE_CLASS_SMI_DR, out, sizeof(out), 0, 0, 0);
	else
		madio_send_lid(sm->io, WIRE_CLASS_SMI, out, sizeof(out), from->slid, 0, 0);
}

void trap_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	       const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_smp req;
	struct wire_notice n;
	enum trap_action a;
	char why[160];

	(void)hdr;
	if (wire_smp_decode(buf, len, &req) < 0 ||
	    wire_notice_decode(req.data, sizeof(req.data), &n) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "dropped a malformed trap from LID %u",
				from->slid);
		return;
	}
	sm->traps++;
	a = trap_classify(&n, from->slid, sm->snap, why, sizeof(why));
	sm->trap_actions[a]++;
	if (a == TRAP_KEY_VIOLATION && n.trap_num == 256)
		trap_count_mkey(sm, &n);
	trap_log(sm, &n, from->slid, a, why);
	if (a == TRAP_PORT_ERROR)
		hook_run(&sm->hooks.port_error,
			 &(struct sm_port_error){from->slid, n.lid, n.port, clock_mono_s()});
	trap_repress(sm, from, &req);
	if (a == TRAP_SWEEP && (sm->state == SM_MASTER || sm->state == SM_DISCOVERING)) {
		uint32_t ni;
		uint8_t pn;

		snprintf(why, sizeof(why), "trap %u from LID %u", n.trap_num, from->slid);
		/* a switch's link state change: re-probe around it */
		if (n.trap_num == 128 && sm->snap &&
		    snapshot_find_lid(sm->snap, from->slid, &ni, &pn) &&
		    node_is_switch(&sm->snap->fabric->nodes[ni]))
			sweep_start_around(sm, sm->snap->fabric->nodes[ni].guid, why);
		else
			sweep_start_why(sm, why);
	}
}

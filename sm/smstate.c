/*
 * The SM state owner (see smstate.h).  IBA 1.4 vol 1, 14.4.1 (SM state
 * machine).
 */
#include <string.h>

#include "fabric/names.h"
#include "mad/wire.h"
#include "lib/log.h"
#include "sm/smstate.h"

void smstate_set(struct sm *sm, enum sm_state to)
{
	struct sm_state_change c = {sm->state, to};

	if (sm->state == to)
		return;
	sm->state = to;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "SM state %s -> %s", names_sm_state(c.from),
		names_sm_state(to));
	hook_run(&sm->hooks.state_changed, &c);
}

void smstate_sweep_started(struct sm *sm)
{
	if (sm->state == SM_NOTACTIVE)
		smstate_set(sm, SM_DISCOVERING);
}

enum smstate_decision smstate_decide(struct sm *sm, const struct fabric *f)
{
	/* no election yet: every SM that discovers a subnet manages it */
	return SMSTATE_PROGRAM;
}

void smstate_sweep_done(struct sm *sm, const struct sweep_summary *s)
{
	smstate_set(sm, SM_MASTER);
}

/* SubnGet(SMInfo) from another SM or a diagnostic tool (IBA 14.4.1): answer it. */
void smstate_recv_sminfo(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
			 const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_smp req, resp;
	struct wire_sminfo si = {0};
	uint8_t out[WIRE_MAD_SIZE];

	if (wire_smp_decode(buf, len, &req) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING,
				"dropped a malformed SMInfo request from LID %u", from->slid);
		return;
	}
	resp = req;
	resp.method = WIRE_GET_RESP;
	resp.status = 0;
	if (req.mgmt_class == WIRE_CLASS_SMI_DR)
		resp.direction = true;
	si.guid = sm->port_guid;
	si.priority = (uint8_t)sm->conf.sm_priority;
	si.act_count = (uint32_t)sm->sweeps;
	si.state = sm->state; /* enum sm_state has SMInfo:SMState's values */
	memset(resp.data, 0, sizeof(resp.data));
	wire_sminfo_encode(&si, resp.data, sizeof(resp.data));
	if (wire_smp_encode(&resp, out, sizeof(out)) < 0)
		return;
	if (madio_send_lid(sm->io, req.mgmt_class, out, sizeof(out), from->slid, 0, 0) < 0)
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "cannot answer SMInfo from LID %u",
				from->slid);
}

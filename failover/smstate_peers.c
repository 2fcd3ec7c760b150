/*
 * The role's state and its peers (see smstate.h and smstate_int.h): the
 * state and its changes, the table of other SMs as they answered, our
 * SMInfo requests to them and what their answers do (polls of the master,
 * HANDOVER, ACKNOWLEDGE, DISCOVER, a master's light-sweep Gets), trap 144.
 * The election and the role's life cycle (smstate.c) call down here; this
 * file calls nothing above it.  IBA 1.4 vol 1, 14.4.1, 14.2.5.13, 14.2.5.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "failover/smstate.h"
#include "failover/smstate_int.h"
#include "fabric/names.h"
#include "fabric/snapshot.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "mad/madio.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "sm/mfts.h"
#include "sm/part.h"
#include "sm/port.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

struct smstate *smstate_of(const struct sm *sm)
{
	return sm_part_named(sm, SMSTATE_PART_NAME);
}

/* ---- pure rules ------------------------------------------------------------ */

bool smstate_better(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb)
{
	return pa > pb || (pa == pb && ga < gb);
}

int smstate_set_transition(int ours, int sender, uint32_t mod)
{
	switch (mod) {
	case WIRE_SMINFO_HANDOVER:
		if (sender != SM_MASTER)
			return -EINVAL;
		if (ours == SM_STANDBY || ours == SM_MASTER)
			return SM_MASTER;
		if (ours == SM_DISCOVERING)
			return SM_DISCOVERING; /* the sweep under way decides */
		return -EINVAL;
	case WIRE_SMINFO_ACKNOWLEDGE:
		if (sender != SM_STANDBY)
			return -EINVAL;
		if (ours == SM_MASTER)
			return SM_STANDBY; /* when it is the SM we handed over to */
		if (ours == SM_STANDBY)
			return SM_STANDBY;
		return -EINVAL;
	case WIRE_SMINFO_DISABLE:
		if (sender != SM_MASTER || ours != SM_STANDBY)
			return -EINVAL;
		return SM_NOTACTIVE;
	case WIRE_SMINFO_STANDBY:
		if (sender != SM_MASTER || ours != SM_NOTACTIVE)
			return -EINVAL;
		return SM_STANDBY;
	case WIRE_SMINFO_DISCOVER:
		if (sender != SM_MASTER || (ours != SM_STANDBY && ours != SM_MASTER))
			return -EINVAL;
		return SM_DISCOVERING;
	default:
		return -EINVAL;
	}
}

int smstate_reverse_path(const struct wire_smp *req, uint8_t *ret_path, uint8_t *ret_hops)
{
	uint8_t n = req->hop_cnt;

	if (n == 0 || n > WIRE_DR_MAX_HOPS)
		return -EINVAL;
	memset(ret_path, 0, 64);
	/* return_path[i] is the port hop i entered by: walk them back from us */
	for (uint8_t i = 1; i <= n; i++)
		ret_path[i] = req->return_path[n + 1 - i];
	*ret_hops = n;
	return 0;
}

/* ---- state ------------------------------------------------------------------- */

const char *smstate_mod_name(uint32_t mod)
{
	static const char *const tab[] = {"?",	     "HANDOVER", "ACKNOWLEDGE",
					  "DISABLE", "STANDBY",	 "DISCOVER"};

	return mod < sizeof(tab) / sizeof(tab[0]) ? tab[mod] : "?";
}

static void smstate_poll_schedule(struct sm *sm, double delay_ms);

void smstate_set(struct sm *sm, enum sm_state to, const char *why)
{
	struct smstate *ss = smstate_of(sm);
	struct sm_state_change c = {sm->state, to, why ? why : ""};

	if (sm->state == to)
		return;
	snprintf(ss->why, sizeof(ss->why), "%s", c.why);
	ss->taking_over = false;
	ss->since_wall = clock_wall_s();
	sm->state = to;
	log_msg(LOG_CAT_SWEEP, LOG_INFO, "SM state %s -> %s%s%s", names_sm_state(c.from),
		names_sm_state(to), c.why[0] ? ": " : "", c.why);
	if (c.from == SM_MASTER) {
		/* another SM programs the switches now */
		sm->subnet_up = false;
		mfts_stand_down(sm);
	}
	if (to != SM_STANDBY)
		sm->master_guid = 0;
	if (to != SM_MASTER)
		ss->handover_to = 0;
	hook_run(&sm->hooks.state_changed, &c);
}

void smstate_sweep_started(struct sm *sm)
{
	if (sm->state == SM_NOTACTIVE)
		smstate_set(sm, SM_DISCOVERING, "a heavy sweep starts");
}

void smstate_sweep_done(struct sm *sm, const struct sweep_summary *s)
{
	/* discovery found nothing (our port is down): we are alone, so master */
	if (sm->state == SM_DISCOVERING)
		smstate_set(sm, SM_MASTER, s->reason[0] ? s->reason : "no other SM");
}

/* Our SMInfo: the key only for an authenticated requester. */
void smstate_our_info(const struct sm *sm, bool with_key, struct wire_sminfo *ret)
{
	struct xact_stats xs = {0};

	if (sm->xe)
		xact_get_stats(sm->xe, &xs);
	*ret = (struct wire_sminfo){.guid = sm->port_guid,
				    .sm_key = with_key ? sm->conf.sm_key : 0,
				    .act_count = (uint32_t)xs.sent,
				    .priority = (uint8_t)sm->conf.sm_priority,
				    .state = (uint8_t)sm->state};
}

/* ---- peers ------------------------------------------------------------------- */

struct smstate_peer *smstate_peer_find(struct sm *sm, uint64_t guid)
{
	struct smstate *ss = smstate_of(sm);

	for (unsigned i = 0; i < ss->n_peers; i++)
		if (ss->peers[i].guid == guid)
			return &ss->peers[i];
	return NULL;
}

/* The peer of that GUID, made (evicting the one heard from least recently) when new. */
struct smstate_peer *smstate_peer_get(struct sm *sm, uint64_t guid)
{
	struct smstate *ss = smstate_of(sm);
	struct smstate_peer *p = smstate_peer_find(sm, guid);

	if (p)
		return p;
	if (ss->n_peers < SMSTATE_MAX_PEERS) {
		p = &ss->peers[ss->n_peers++];
	} else {
		p = &ss->peers[0];
		for (unsigned i = 1; i < ss->n_peers; i++) {
			struct smstate_peer *q = &ss->peers[i];

			if (q->guid != sm->master_guid && q->guid != ss->handover_to &&
			    q->last_contact_ms < p->last_contact_ms)
				p = q;
		}
	}
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	return p;
}

bool smstate_peer_counts(const struct smstate_peer *p)
{
	return !p->foreign_key && !p->unreachable && p->last_contact_ms > 0 &&
	       p->state != SM_NOTACTIVE;
}

/*
 * An SMInfo answer from the port of GUID expect (0: any) reached by path:
 * the peer, updated, or NULL (ourselves, a GUID that is not the port's, or
 * an answer that does not decode).
 */
static struct smstate_peer *smstate_note(struct sm *sm, const struct wire_smp *resp,
					 uint64_t expect, uint16_t lid, const uint8_t *path,
					 uint8_t hops)
{
	struct smstate *ss = smstate_of(sm);
	struct smstate_peer *p;
	struct wire_sminfo si;
	bool foreign;

	if (!resp || wire_sminfo_decode(resp->data, sizeof(resp->data), &si) < 0)
		return NULL;
	if (si.guid == sm->port_guid || si.state > SM_MASTER)
		return NULL;
	if (expect && si.guid != expect) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"the SM at port 0x%016" PRIx64 " answers SMInfo as 0x%016" PRIx64
				": ignored",
				expect, si.guid);
		return NULL;
	}
	p = smstate_peer_get(sm, si.guid);
	foreign = sm->conf.sm_key && si.sm_key != sm->conf.sm_key;
	if (foreign && !p->foreign_key) {
		ss->foreign_sms++;
		log_warn("SM 0x%016" PRIx64 " (LID %u) answers with another SM_Key: not a peer, "
			 "ignored (set the same sm_key on both)",
			 si.guid, lid);
	}
	p->foreign_key = foreign;
	p->priority = si.priority;
	p->state = si.state;
	p->act_count = si.act_count;
	if (lid)
		p->lid = lid;
	if (path) {
		memcpy(p->path, path, sizeof(p->path));
		p->hops = hops;
	}
	p->unreachable = false;
	p->last_contact_ms = clock_mono_ms();
	p->last_contact_wall = clock_wall_s();
	return p;
}

/* ---- sending ------------------------------------------------------------------- */

static void smstate_query_done(void *arg, int status, const struct wire_smp *req,
			       const struct wire_smp *resp);

static void smstate_query_lid_done(void *arg, int status, const uint8_t *req,
				   const struct wire_mad_hdr *hdr, const uint8_t *resp, size_t len)
{
	struct wire_smp smp;

	if (resp && wire_smp_decode(resp, len, &smp) == 0)
		smstate_query_done(arg, status, NULL, &smp);
	else
		smstate_query_done(arg, status < 0 ? status : -EBADMSG, NULL, NULL);
}

/*
 * An SMInfo Get or Set of ours, with our SMInfo (and key), to the SM at path
 * (hops > 0) or, when we know no route to it, LID-routed to lid.
 */
int smstate_send(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
		 uint64_t guid, uint16_t lid, const uint8_t *path, uint8_t hops,
		 unsigned timeout_ms, int retries, struct xact_batch *batch)
{
	struct smstate_query *q;
	struct wire_sminfo si;
	struct wire_smp smp;
	uint8_t mad[WIRE_MAD_SIZE], dr[FABRIC_DR_MAX_HOPS + 1];
	int r;

	if (!sm->xe || (!hops && (!lid || lid >= 0xc000)))
		return -EINVAL;
	/* dr_only: a peer we know by LID alone is asked along the route to that LID */
	if (!hops && port_dr_only(sm)) {
		if (port_dr_path_to_lid(sm, lid, dr, &hops) < 0 || !hops)
			return -EHOSTUNREACH;
		path = dr;
	}
	if (hops) {
		if (wire_smp_init_dr(&smp, method, WIRE_ATTR_SM_INFO, mod, path, hops) < 0)
			return -EINVAL;
	} else {
		wire_smp_init_lid(&smp, method, WIRE_ATTR_SM_INFO, mod);
	}
	smstate_our_info(sm, true, &si);
	wire_sminfo_encode(&si, smp.data, sizeof(smp.data));
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (struct smstate_query){.sm = sm, .kind = kind, .guid = guid, .lid = lid, .hops = hops};
	memcpy(q->path, path, sizeof(q->path));
	if (hops) {
		r = xact_submit(sm->xe, &(struct xact_request){
					    .lane = XACT_CONTROL,
					    .batch = batch,
					    .smp = &smp,
					    .done = smstate_query_done,
					    .arg = q,
					    .timeout_ms = timeout_ms,
					    .tries = retries < 0 ? 0 : (unsigned)retries + 1});
	} else if (wire_smp_encode(&smp, mad, sizeof(mad)) < 0) {
		r = -EINVAL;
	} else {
		r = xact_submit(sm->xe, &(struct xact_request){
					    .lane = XACT_CONTROL,
					    .batch = batch,
					    .mad = mad,
					    .len = sizeof(mad),
					    .to = &(struct madio_dest){.dlid = lid},
					    .mad_done = smstate_query_lid_done,
					    .arg = q,
					    .timeout_ms = timeout_ms,
					    .tries = retries < 0 ? 0 : (unsigned)retries + 1});
	}
	if (r < 0)
		free(q);
	return r;
}

int smstate_send_peer(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
		      const struct smstate_peer *p, unsigned timeout_ms, int retries)
{
	return smstate_send(sm, kind, method, mod, p->guid, p->lid, p->path, p->hops, timeout_ms,
			    retries, NULL);
}

/* Our port in f: its LID, CapabilityMask and node type (for trap 144). */
static bool smstate_own_port(const struct fabric *f, uint16_t *ret_lid, uint32_t *ret_cap,
			     uint8_t *ret_type)
{
	const struct node *n;
	const struct port *p;
	struct wire_portinfo pi;

	if (!f || f->sm_node >= f->n_nodes)
		return false;
	n = &f->nodes[f->sm_node];
	p = &n->ports[f->sm_port];
	if (!p->valid || wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
		return false;
	*ret_lid = pi.lid;
	*ret_cap = pi.capmask;
	*ret_type = n->type;
	return true;
}

/* Trap 144 to the master: a better SM is here (the master hands over). */
void smstate_send_trap144(struct sm *sm, const struct fabric *f, const struct smstate_peer *master)
{
	struct wire_smp smp;
	uint8_t out[WIRE_MAD_SIZE], dr[FABRIC_DR_MAX_HOPS + 1], hops;
	uint16_t lid;
	uint32_t cap;
	uint8_t type;

	if (!smstate_own_port(f, &lid, &cap, &type) || !lid || !master->lid)
		return;
	if (!port_dr_only(sm)) {
		wire_smp_init_lid(&smp, WIRE_TRAP, WIRE_ATTR_NOTICE, 0);
	} else if (master->hops) {
		wire_smp_init_dr(&smp, WIRE_TRAP, WIRE_ATTR_NOTICE, 0, master->path, master->hops);
	} else if (port_dr_path_to_lid(sm, master->lid, dr, &hops) < 0 || !hops ||
		   wire_smp_init_dr(&smp, WIRE_TRAP, WIRE_ATTR_NOTICE, 0, dr, hops) < 0) {
		return; /* dr_only and no route to the master: it learns of us when it polls */
	}
	smp.tid = (uint64_t)sm->port_guid << 16 ^ (uint64_t)clock_mono_ms();
	if (wire_trap144_encode(lid, type, cap, smp.data, sizeof(smp.data)) < 0 ||
	    wire_smp_encode(&smp, out, sizeof(out)) < 0)
		return;
	if (madio_send_lid(sm->io, smp.mgmt_class, out, sizeof(out),
			   smp.mgmt_class == WIRE_CLASS_SMI ? master->lid : 0, 0, 0) == 0)
		log_info("told master SM 0x%016" PRIx64 " (LID %u) that an SM of priority %d is "
			 "here (trap 144)",
			 master->guid, master->lid, sm->conf.sm_priority);
}

/* ---- standby, polling, takeover -------------------------------------------------- */

void smstate_go_standby(struct sm *sm, const struct smstate_peer *master, const char *why)
{
	struct smstate *ss = smstate_of(sm);

	sm->master_guid = master->guid; /* first: the state_changed hooks name it */
	smstate_set(sm, SM_STANDBY, why);
	ss->poll_failures = 0;
	smstate_poll_schedule(sm, sm->conf.sminfo_poll_interval_ms);
}

static void smstate_takeover(struct sm *sm, const char *why)
{
	struct smstate *ss = smstate_of(sm);
	int r;

	ss->takeovers++;
	smstate_set(sm, SM_DISCOVERING, why);
	ss->taking_over = true;
	r = sweep_start_why(sm, why);
	if (r < 0)
		log_err("cannot start the takeover sweep: %s", strerror(-r));
}

static void smstate_handover_abort(struct sm *sm, const char *why)
{
	struct smstate *ss = smstate_of(sm);

	log_warn("handover to SM 0x%016" PRIx64 " failed: %s; staying master", ss->handover_to,
		 why);
	ss->handover_refused = ss->handover_to;
	ss->handover_refused_until = clock_mono_ms() + SMSTATE_REFUSED_MS;
	ss->handover_to = 0;
	/* the sweep that handed over programmed nothing */
	sweep_start_why(sm, "handover failed");
}

/* The SM we handed over to is master now: stand by, polling it. */
void smstate_step_down(struct sm *sm, const struct smstate_peer *p, const char *why)
{
	smstate_of(sm)->handover_to = 0;
	smstate_go_standby(sm, p, why);
}

void smstate_start_handover(struct sm *sm, const struct smstate_peer *p, const char *why)
{
	struct smstate *ss = smstate_of(sm);
	double wait = 3.0 * sm->conf.sminfo_poll_count * sm->conf.sminfo_poll_interval_ms;

	ss->handover_to = p->guid;
	ss->handover_deadline =
	    clock_mono_ms() + (wait > SMSTATE_HANDOVER_MIN_MS ? wait : SMSTATE_HANDOVER_MIN_MS);
	ss->handovers_sent++;
	ss->poll_failures = 0;
	log_info("handing the subnet over to SM 0x%016" PRIx64 " (LID %u, priority %u, %s): %s",
		 p->guid, p->lid, p->priority, names_sm_state(p->state), why);
	if (smstate_send_peer(sm, Q_HANDOVER, WIRE_SET, WIRE_SMINFO_HANDOVER, p, 0, -1) < 0) {
		smstate_handover_abort(sm, "cannot send HANDOVER");
		return;
	}
	smstate_poll_schedule(sm, sm->conf.sminfo_poll_interval_ms);
}

/* Whom we poll: our master (STANDBY) or the SM we hand over to (MASTER); 0 none. */
static uint64_t smstate_poll_target(const struct sm *sm)
{
	if (sm->state == SM_STANDBY)
		return sm->master_guid;
	if (sm->state == SM_MASTER)
		return smstate_of(sm)->handover_to;
	return 0;
}

void smstate_poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct smstate *ss = smstate_of(sm);
	uint64_t target = smstate_poll_target(sm);
	struct smstate_peer *p = target ? smstate_peer_find(sm, target) : NULL;
	int r;

	if (!target || ss->poll_inflight)
		return;
	if (!p) {
		if (sm->state == SM_STANDBY)
			smstate_takeover(sm, "the master is no longer known");
		return;
	}
	ss->poll_sent_ms = clock_mono_ms();
	r = smstate_send_peer(sm, Q_POLL, WIRE_GET, 0, p,
			      (unsigned)sm->conf.sminfo_poll_interval_ms, 0);
	if (r < 0) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "cannot poll SM 0x%016" PRIx64 ": %s",
				target, strerror(-r));
		smstate_poll_schedule(sm, sm->conf.sminfo_poll_interval_ms);
		return;
	}
	ss->poll_inflight = true;
	ss->polls++;
}

static void smstate_poll_schedule(struct sm *sm, double delay_ms)
{
	struct smstate *ss = smstate_of(sm);
	struct timeval tv;

	if (!ss->poll_timer)
		return;
	if (delay_ms < 0)
		delay_ms = 0;
	tv.tv_sec = (time_t)(delay_ms / 1000);
	tv.tv_usec = (suseconds_t)((delay_ms - tv.tv_sec * 1000.0) * 1000);
	evtimer_add(ss->poll_timer, &tv);
}

static void smstate_poll_done(struct sm *sm, struct smstate_query *q, int status,
			      const struct wire_smp *resp)
{
	struct smstate *ss = smstate_of(sm);
	uint64_t target = smstate_poll_target(sm);
	struct smstate_peer *p = NULL;
	char why[160];

	ss->poll_inflight = false;
	if (q->guid != target) {
		/* the state changed meanwhile: poll whom we poll now */
		if (target)
			smstate_poll_schedule(sm, 0);
		return;
	}
	if (status == 0)
		p = smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops);
	if (p && !p->foreign_key) {
		ss->poll_failures = 0;
		if (sm->state == SM_STANDBY && p->state != SM_MASTER &&
		    p->state != SM_DISCOVERING) {
			snprintf(why, sizeof(why),
				 "master SM 0x%016" PRIx64 " is %s now: looking for the master",
				 p->guid, names_sm_state(p->state));
			smstate_takeover(sm, why);
			return;
		}
		if (sm->state == SM_MASTER && p->state == SM_MASTER) {
			snprintf(why, sizeof(why),
				 "SM 0x%016" PRIx64 " took the subnet over (it answers as master)",
				 p->guid);
			smstate_step_down(sm, p, why);
			return;
		}
	} else {
		ss->polls_failed++;
		ss->poll_failures++;
		if ((p = smstate_peer_find(sm, q->guid)) != NULL && status != 0)
			p->unreachable = ss->poll_failures >= (unsigned)sm->conf.sminfo_poll_count;
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
			"poll of SM 0x%016" PRIx64 " failed (%u of %d): %s", q->guid,
			ss->poll_failures, sm->conf.sminfo_poll_count,
			status ? strerror(-status) : "bad answer");
		if (ss->poll_failures >= (unsigned)sm->conf.sminfo_poll_count) {
			snprintf(why, sizeof(why),
				 "SM 0x%016" PRIx64 " (LID %u) stopped answering: %u polls in a "
				 "row failed",
				 q->guid, q->lid, ss->poll_failures);
			if (sm->state == SM_STANDBY)
				smstate_takeover(sm, why);
			else
				smstate_handover_abort(sm, why);
			return;
		}
	}
	if (sm->state == SM_MASTER && clock_mono_ms() > ss->handover_deadline) {
		smstate_handover_abort(sm, "no ACKNOWLEDGE in time");
		return;
	}
	smstate_poll_schedule(sm, ss->poll_sent_ms + sm->conf.sminfo_poll_interval_ms -
				      clock_mono_ms());
}

/* ---- answers to our requests ------------------------------------------------------ */

void smstate_become_master_after_ack(struct sm *sm, struct smstate_query *q)
{
	char why[160];

	if (sm->state != SM_STANDBY)
		return; /* something else happened meanwhile */
	snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u) handed the subnet over", q->guid,
		 q->lid);
	smstate_of(sm)->handovers_received++;
	smstate_set(sm, SM_MASTER, why);
	sweep_start_why(sm, why);
}

static void smstate_light_done(struct sm *sm, struct smstate_query *q, int status,
			       const struct wire_smp *resp)
{
	struct smstate_peer *p = status == 0
				     ? smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops)
				     : smstate_peer_find(sm, q->guid);
	char why[160];

	if (smstate_of(sm)->light_pending)
		smstate_of(sm)->light_pending--;
	if (!p)
		return;
	if (status != 0) {
		p->unreachable = true;
		return;
	}
	if (p->foreign_key || sm->state != SM_MASTER || smstate_of(sm)->handover_to)
		return;
	if (p->state == SM_MASTER) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u) is master too", p->guid,
			 p->lid);
		log_warn("%s: deciding", why);
		sweep_start_why(sm, why);
	} else if (p->state == SM_STANDBY &&
		   smstate_better(p->priority, p->guid, (uint8_t)sm->conf.sm_priority,
				  sm->port_guid) &&
		   !(p->guid == smstate_of(sm)->handover_refused &&
		     clock_mono_ms() < smstate_of(sm)->handover_refused_until)) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (priority %u) ranks higher",
			 p->guid, p->priority);
		sweep_start_why(sm, why);
	}
}

static void smstate_query_done(void *arg, int status, const struct wire_smp *req,
			       const struct wire_smp *resp)
{
	struct smstate_query *q = arg;
	struct sm *sm = q->sm;
	struct smstate_peer *p;
	struct wire_sminfo si;

	if (status == -ECANCELED) {
		if (q->kind == Q_POLL)
			smstate_of(sm)->poll_inflight = false;
		free(q);
		return;
	}
	switch (q->kind) {
	case Q_DECIDE:
		/* the last one decides (the batch's on_empty) */
		if (status == 0)
			smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops);
		break;
	case Q_LIGHT:
		smstate_light_done(sm, q, status, resp);
		break;
	case Q_POLL:
		smstate_poll_done(sm, q, status, resp);
		break;
	case Q_HANDOVER:
		if (sm->state != SM_MASTER || smstate_of(sm)->handover_to != q->guid)
			break;
		if (status < 0) {
			smstate_handover_abort(sm, status == -EREMOTEIO
						       ? "it refused the HANDOVER"
						       : "no answer to the HANDOVER");
			break;
		}
		p = smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops);
		if (p && p->state == SM_MASTER)
			smstate_step_down(sm, p, "the SM handed over to is master");
		/* else wait for its ACKNOWLEDGE, polling it */
		break;
	case Q_ACK:
		if (status == -EREMOTEIO) {
			/* the old master did not step down: stay standby, polling it */
			log_warn("SM 0x%016" PRIx64 " refused our ACKNOWLEDGE: staying standby",
				 q->guid);
			if (sm->state == SM_STANDBY && !sm->master_guid) {
				sm->master_guid = q->guid;
				smstate_poll_schedule(sm, 0);
			}
			break;
		}
		/* it had our ACKNOWLEDGE (and stood down), or it is gone */
		smstate_become_master_after_ack(sm, q);
		break;
	case Q_DISCOVER:
		if (status < 0)
			log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
					"SM 0x%016" PRIx64 " did not take DISCOVER: %s", q->guid,
					strerror(-status));
		else if (resp && wire_sminfo_decode(resp->data, sizeof(resp->data), &si) == 0)
			smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops);
		break;
	}
	free(q);
}

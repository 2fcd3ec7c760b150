/*
 * The SM state owner and the election among SMs (see smstate.h).  IBA 1.4
 * vol 1, 14.4.1 (SM state machine, table 185 transitions), 14.2.5.13
 * (SMInfo), 14.4.1.2 (SubnSet(SMInfo) modifiers), 14.2.5.1 (trap 144).
 *
 * Where we differ from OpenSM 3.3: the master steps down only after the
 * ACKNOWLEDGE (or once the new master answers as one), not right after
 * sending HANDOVER, so there is no moment with two masters between two
 * ibsmd; a Set is checked against the SM_Key and the sender's port (IsSM,
 * GUID), not only against the sender's claimed state; polls count failures,
 * not polls sent; a master that finds a lower master tells it DISCOVER
 * instead of only waiting for its handover; a master also polls the SMs it
 * knows at every light sweep, so a second master (a healed partition, a
 * master that was hung) is found within one sweep interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "fabric/names.h"
#include "lib/log.h"
#include "mad/wire.h"
#include "smp/discover.h"
#include "sm/mfts.h"
#include "sm/sm.h"
#include "failover/smstate.h"
#include "sm/sweep_sched.h"

#define SMSTATE_MAX_QUERIES 64	     /* SMInfo Gets of one DECIDE */
#define SMSTATE_REFUSED_MS 30000     /* after a failed handover, leave that SM alone */
#define SMSTATE_HANDOVER_MIN_MS 2000 /* a handover waits at least this for its ACK */

enum smstate_qkind {
	Q_DECIDE,   /* SMInfo Get of DECIDE */
	Q_LIGHT,    /* SMInfo Get of a master's light sweep */
	Q_POLL,	    /* standby -> master, or master -> handover target */
	Q_HANDOVER, /* Set HANDOVER */
	Q_ACK,	    /* Set ACKNOWLEDGE, after a HANDOVER we obeyed */
	Q_DISCOVER, /* Set DISCOVER to a lower master */
};

struct smstate_decide {
	struct sm *sm;
	const struct fabric *f;
	smstate_decide_fn *done;
	void *arg;
	unsigned pending;
	bool aborted;
};

/* One SMInfo request of ours and what it is for. */
struct smstate_query {
	struct sm *sm;
	struct smstate_decide *dc; /* Q_DECIDE */
	enum smstate_qkind kind;
	uint64_t guid; /* the port GUID expected to answer */
	uint16_t lid;
	uint8_t path[64];
	uint8_t hops;
};

/* A requester being checked: is its port an SM, and which port is it? */
struct smstate_check {
	struct smstate_check *next;
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

static const char *smstate_mod_name(uint32_t mod)
{
	static const char *const tab[] = {"?",	     "HANDOVER", "ACKNOWLEDGE",
					  "DISABLE", "STANDBY",	 "DISCOVER"};

	return mod < sizeof(tab) / sizeof(tab[0]) ? tab[mod] : "?";
}

static void smstate_poll_schedule(struct sm *sm, double delay_ms);

void smstate_set(struct sm *sm, enum sm_state to, const char *why)
{
	struct smstate *ss = &sm->smstate;
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
		ss->master_guid = 0;
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
static void smstate_our_info(const struct sm *sm, bool with_key, struct wire_sminfo *ret)
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

static struct smstate_peer *smstate_peer_find(struct sm *sm, uint64_t guid)
{
	struct smstate *ss = &sm->smstate;

	for (unsigned i = 0; i < ss->n_peers; i++)
		if (ss->peers[i].guid == guid)
			return &ss->peers[i];
	return NULL;
}

/* The peer of that GUID, made (evicting the one heard from least recently) when new. */
static struct smstate_peer *smstate_peer_get(struct sm *sm, uint64_t guid)
{
	struct smstate *ss = &sm->smstate;
	struct smstate_peer *p = smstate_peer_find(sm, guid);

	if (p)
		return p;
	if (ss->n_peers < SMSTATE_MAX_PEERS) {
		p = &ss->peers[ss->n_peers++];
	} else {
		p = &ss->peers[0];
		for (unsigned i = 1; i < ss->n_peers; i++) {
			struct smstate_peer *q = &ss->peers[i];

			if (q->guid != ss->master_guid && q->guid != ss->handover_to &&
			    q->last_contact_ms < p->last_contact_ms)
				p = q;
		}
	}
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	return p;
}

static bool smstate_peer_counts(const struct smstate_peer *p)
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
	struct smstate *ss = &sm->smstate;
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
static int smstate_send(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
			uint64_t guid, uint16_t lid, const uint8_t *path, uint8_t hops,
			unsigned timeout_ms, int retries, struct smstate_decide *dc)
{
	struct smstate_query *q;
	struct wire_sminfo si;
	struct wire_smp smp;
	uint8_t mad[WIRE_MAD_SIZE];
	int r;

	if (!sm->xe || (!hops && (!lid || lid >= 0xc000)))
		return -EINVAL;
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
	*q = (struct smstate_query){
	    .sm = sm, .dc = dc, .kind = kind, .guid = guid, .lid = lid, .hops = hops};
	memcpy(q->path, path, sizeof(q->path));
	if (hops) {
		r = xact_submit_timed(sm->xe, XACT_CONTROL, &smp, timeout_ms, retries,
				      smstate_query_done, q);
	} else if (wire_smp_encode(&smp, mad, sizeof(mad)) < 0) {
		r = -EINVAL;
	} else {
		r = xact_submit_mad_timed(sm->xe, XACT_CONTROL, &(struct madio_dest){.dlid = lid},
					  mad, sizeof(mad), timeout_ms, retries,
					  smstate_query_lid_done, q);
	}
	if (r < 0)
		free(q);
	return r;
}

static int smstate_send_peer(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
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
static void smstate_send_trap144(struct sm *sm, const struct fabric *f,
				 const struct smstate_peer *master)
{
	struct wire_smp smp;
	uint8_t out[WIRE_MAD_SIZE];
	uint16_t lid;
	uint32_t cap;
	uint8_t type;

	if (!smstate_own_port(f, &lid, &cap, &type) || !lid || !master->lid)
		return;
	wire_smp_init_lid(&smp, WIRE_TRAP, WIRE_ATTR_NOTICE, 0);
	smp.tid = (uint64_t)sm->port_guid << 16 ^ (uint64_t)clock_mono_ms();
	if (wire_trap144_encode(lid, type, cap, smp.data, sizeof(smp.data)) < 0 ||
	    wire_smp_encode(&smp, out, sizeof(out)) < 0)
		return;
	if (madio_send_lid(sm->io, WIRE_CLASS_SMI, out, sizeof(out), master->lid, 0, 0) == 0)
		log_info("told master SM 0x%016" PRIx64 " (LID %u) that an SM of priority %d is "
			 "here (trap 144)",
			 master->guid, master->lid, sm->conf.sm_priority);
}

/* ---- standby, polling, takeover -------------------------------------------------- */

static void smstate_go_standby(struct sm *sm, const struct smstate_peer *master, const char *why)
{
	struct smstate *ss = &sm->smstate;

	ss->master_guid = master->guid; /* first: the state_changed hooks name it */
	smstate_set(sm, SM_STANDBY, why);
	ss->poll_failures = 0;
	smstate_poll_schedule(sm, sm->conf.sminfo_poll_interval_ms);
}

static void smstate_takeover(struct sm *sm, const char *why)
{
	struct smstate *ss = &sm->smstate;
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
	struct smstate *ss = &sm->smstate;

	log_warn("handover to SM 0x%016" PRIx64 " failed: %s; staying master", ss->handover_to,
		 why);
	ss->handover_refused = ss->handover_to;
	ss->handover_refused_until = clock_mono_ms() + SMSTATE_REFUSED_MS;
	ss->handover_to = 0;
	/* the sweep that handed over programmed nothing */
	sweep_start_why(sm, "handover failed");
}

/* The SM we handed over to is master now: stand by, polling it. */
static void smstate_step_down(struct sm *sm, const struct smstate_peer *p, const char *why)
{
	sm->smstate.handover_to = 0;
	smstate_go_standby(sm, p, why);
}

static void smstate_start_handover(struct sm *sm, const struct smstate_peer *p, const char *why)
{
	struct smstate *ss = &sm->smstate;
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
		return sm->smstate.master_guid;
	if (sm->state == SM_MASTER)
		return sm->smstate.handover_to;
	return 0;
}

static void smstate_poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct smstate *ss = &sm->smstate;
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
	struct smstate *ss = &sm->smstate;
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
	struct smstate *ss = &sm->smstate;
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

/* ---- DECIDE ---------------------------------------------------------------------- */

/* What to do with the SMs that answered this DECIDE (see smstate.h). */
static enum smstate_decision smstate_elect(struct sm *sm, const struct fabric *f)
{
	struct smstate *ss = &sm->smstate;
	uint8_t prio = (uint8_t)sm->conf.sm_priority;
	uint64_t guid = sm->port_guid;
	struct smstate_peer *master = NULL, *best = NULL;
	char why[200];

	for (unsigned i = 0; i < ss->n_peers; i++) {
		struct smstate_peer *p = &ss->peers[i];

		if (!smstate_peer_counts(p))
			continue;
		if (p->state == SM_MASTER &&
		    (!master ||
		     smstate_better(p->priority, p->guid, master->priority, master->guid)))
			master = p;
		if (smstate_better(p->priority, p->guid, prio, guid) &&
		    (!best || smstate_better(p->priority, p->guid, best->priority, best->guid)))
			best = p;
	}
	if (sm->state == SM_MASTER) {
		if (ss->handover_to)
			return SMSTATE_STAND_BY; /* a handover is under way */
		if (master && smstate_better(master->priority, master->guid, prio, guid)) {
			snprintf(why, sizeof(why),
				 "SM 0x%016" PRIx64 " is master too and ranks higher",
				 master->guid);
			smstate_start_handover(sm, master, why);
			return SMSTATE_STAND_BY;
		}
		if (master) {
			log_info("SM 0x%016" PRIx64
				 " (LID %u, priority %u) is master too and ranks "
				 "lower: telling it to DISCOVER",
				 master->guid, master->lid, master->priority);
			smstate_send_peer(sm, Q_DISCOVER, WIRE_SET, WIRE_SMINFO_DISCOVER, master, 0,
					  1);
			return SMSTATE_PROGRAM;
		}
		/*
		 * Hand over to a better standby only: a better SM still
		 * DISCOVERING finds us master, stands by and sends trap 144.
		 */
		if (best && best->state == SM_STANDBY &&
		    !(best->guid == ss->handover_refused &&
		      clock_mono_ms() < ss->handover_refused_until)) {
			smstate_start_handover(sm, best, "it ranks higher");
			return SMSTATE_STAND_BY;
		}
		return SMSTATE_PROGRAM;
	}
	if (sm->state != SM_DISCOVERING)
		return SMSTATE_STAND_BY;
	if (master) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u, priority %u) is master",
			 master->guid, master->lid, master->priority);
		smstate_go_standby(sm, master, why);
		if (smstate_better(prio, guid, master->priority, master->guid))
			smstate_send_trap144(sm, f, master);
		return SMSTATE_STAND_BY;
	}
	if (best) {
		snprintf(why, sizeof(why),
			 "SM 0x%016" PRIx64 " (LID %u, priority %u, %s) ranks higher", best->guid,
			 best->lid, best->priority, names_sm_state(best->state));
		smstate_go_standby(sm, best, why);
		return SMSTATE_STAND_BY;
	}
	if (ss->taking_over) {
		snprintf(why, sizeof(why), "no better SM answers (%s)", ss->why);
		smstate_set(sm, SM_MASTER, why);
	} else {
		smstate_set(sm, SM_MASTER, "no better SM answers");
	}
	return SMSTATE_PROGRAM;
}

static void smstate_decide_finish(struct smstate_decide *dc)
{
	struct sm *sm = dc->sm;
	enum smstate_decision d;

	sm->smstate.decide = NULL;
	d = smstate_elect(sm, dc->f);
	dc->done(dc->arg, d);
	free(dc);
}

static void smstate_decide_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct smstate_decide *dc = sm->smstate.decide;

	if (dc && !dc->pending)
		smstate_decide_finish(dc);
}

/* Whether the port (node, pn) of f says it is an SM. */
static bool smstate_port_is_sm(const struct fabric *f, uint32_t ni, uint8_t pn)
{
	const struct port *p = &f->nodes[ni].ports[pn];
	struct wire_portinfo pi;

	return p->valid && wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) == 0 &&
	       (pi.capmask & WIRE_CAP_IS_SM);
}

struct smstate_cand {
	uint64_t guid;
	uint16_t lid;
	uint32_t node;
	uint8_t port;
};

static void smstate_cand_add(struct smstate_cand *c, unsigned *n, const struct fabric *f,
			     uint32_t ni, uint8_t pn, uint64_t self)
{
	const struct node *nd = &f->nodes[ni];
	uint64_t guid = nd->ports[pn].guid;

	if (!guid || guid == self || *n >= SMSTATE_MAX_QUERIES)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (c[i].guid == guid)
			return;
	c[(*n)++] = (struct smstate_cand){guid, node_port_lid(nd, pn), ni, pn};
}

/*
 * The ports to ask: IsSM ports, the ports other ports name as their master
 * SM (ibsim clears IsSM on a port it relinks), and the SMs we already know.
 */
static unsigned smstate_candidates(struct sm *sm, const struct fabric *f, struct smstate_cand *c)
{
	struct fabric_port_iter it;
	uint16_t sm_lids[8];
	unsigned n = 0, n_lids = 0;

	fabric_for_each_lid_port (f, &it) {
		const struct port *p = &f->nodes[it.node].ports[it.port];
		struct wire_portinfo pi;

		if (!p->valid || wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
			continue;
		if (pi.capmask & WIRE_CAP_IS_SM)
			smstate_cand_add(c, &n, f, it.node, it.port, sm->port_guid);
		if (pi.sm_lid && pi.sm_lid < 0xc000 && n_lids < 8) {
			unsigned k;

			for (k = 0; k < n_lids && sm_lids[k] != pi.sm_lid; k++)
				;
			if (k == n_lids)
				sm_lids[n_lids++] = pi.sm_lid;
		}
	}
	fabric_for_each_lid_port (f, &it) {
		const struct node *nd = &f->nodes[it.node];
		uint16_t lid = node_port_lid(nd, it.port);

		if (!n_lids)
			break;
		if (!nd->ports[it.port].valid || !lid)
			continue;
		for (unsigned k = 0; k < n_lids; k++)
			if (sm_lids[k] == lid)
				smstate_cand_add(c, &n, f, it.node, it.port, sm->port_guid);
	}
	for (unsigned i = 0; i < sm->smstate.n_peers; i++) {
		uint64_t g = sm->smstate.peers[i].guid;

		fabric_for_each_lid_port (f, &it) {
			const struct port *p = &f->nodes[it.node].ports[it.port];

			if (p->guid == g && p->valid)
				smstate_cand_add(c, &n, f, it.node, it.port, sm->port_guid);
		}
	}
	return n;
}

int smstate_decide_start(struct sm *sm, const struct fabric *f, smstate_decide_fn *done, void *arg)
{
	struct smstate *ss = &sm->smstate;
	struct smstate_cand *c;
	struct smstate_decide *dc;
	unsigned n;

	smstate_decide_abort(sm);
	c = calloc(SMSTATE_MAX_QUERIES, sizeof(*c));
	dc = calloc(1, sizeof(*dc));
	if (!c || !dc) {
		free(c);
		free(dc);
		return -ENOMEM;
	}
	*dc = (struct smstate_decide){.sm = sm, .f = f, .done = done, .arg = arg};
	/* ibsim clears IsSM on a port it relinks while we hold it: set it again */
	if (f->sm_node < f->n_nodes && !smstate_port_is_sm(f, f->sm_node, f->sm_port) &&
	    f->nodes[f->sm_node].ports[f->sm_port].valid && sm->io &&
	    madio_reassert_issm(sm->io) == 0)
		log_info("our port had lost IsSM (its link was reset): set again");
	/* peers not heard from in this DECIDE do not count */
	for (unsigned i = 0; i < ss->n_peers; i++)
		ss->peers[i].unreachable = true;
	n = sm->state == SM_DISCOVERING || sm->state == SM_MASTER ? smstate_candidates(sm, f, c)
								  : 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t path[FABRIC_DR_MAX_HOPS + 1];
		uint8_t hops;

		if (discover_port_path(f, c[i].node, c[i].port, path, &hops) < 0)
			continue;
		if (smstate_send(sm, Q_DECIDE, WIRE_GET, 0, c[i].guid, c[i].lid, path, hops, 0, 1,
				 dc) == 0)
			dc->pending++;
	}
	free(c);
	ss->decide = dc;
	if (!dc->pending && ss->decide_timer) {
		struct timeval now = {0, 0};

		evtimer_add(ss->decide_timer, &now);
	}
	return 0;
}

void smstate_decide_abort(struct sm *sm)
{
	struct smstate_decide *dc = sm->smstate.decide;

	if (!dc)
		return;
	sm->smstate.decide = NULL;
	if (sm->smstate.decide_timer)
		evtimer_del(sm->smstate.decide_timer);
	if (dc->pending)
		dc->aborted = true; /* freed by its last query */
	else
		free(dc);
}

/* ---- answers to our requests ------------------------------------------------------ */

static void smstate_become_master_after_ack(struct sm *sm, struct smstate_query *q)
{
	char why[160];

	if (sm->state != SM_STANDBY)
		return; /* something else happened meanwhile */
	snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u) handed the subnet over", q->guid,
		 q->lid);
	sm->smstate.handovers_received++;
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

	if (sm->smstate.light_pending)
		sm->smstate.light_pending--;
	if (!p)
		return;
	if (status != 0) {
		p->unreachable = true;
		return;
	}
	if (p->foreign_key || sm->state != SM_MASTER || sm->smstate.handover_to)
		return;
	if (p->state == SM_MASTER) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u) is master too", p->guid,
			 p->lid);
		log_warn("%s: deciding", why);
		sweep_start_why(sm, why);
	} else if (p->state == SM_STANDBY &&
		   smstate_better(p->priority, p->guid, (uint8_t)sm->conf.sm_priority,
				  sm->port_guid) &&
		   !(p->guid == sm->smstate.handover_refused &&
		     clock_mono_ms() < sm->smstate.handover_refused_until)) {
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
	struct smstate_decide *dc = q->dc;
	struct smstate_peer *p;
	struct wire_sminfo si;

	if (status == -ECANCELED) {
		if (dc && !--dc->pending && dc->aborted)
			free(dc);
		if (q->kind == Q_POLL)
			sm->smstate.poll_inflight = false;
		free(q);
		return;
	}
	switch (q->kind) {
	case Q_DECIDE:
		if (status == 0)
			smstate_note(sm, resp, q->guid, q->lid, q->path, q->hops);
		if (!--dc->pending) {
			if (dc->aborted)
				free(dc);
			else
				smstate_decide_finish(dc);
		}
		break;
	case Q_LIGHT:
		smstate_light_done(sm, q, status, resp);
		break;
	case Q_POLL:
		smstate_poll_done(sm, q, status, resp);
		break;
	case Q_HANDOVER:
		if (sm->state != SM_MASTER || sm->smstate.handover_to != q->guid)
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
			if (sm->state == SM_STANDBY && !sm->smstate.master_guid) {
				sm->smstate.master_guid = q->guid;
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

/* ---- a master's light sweep, orders ------------------------------------------------ */

void smstate_light(struct sm *sm)
{
	struct smstate *ss = &sm->smstate;

	if (sm->state != SM_MASTER || ss->handover_to || ss->light_pending)
		return;
	for (unsigned i = 0; i < ss->n_peers; i++) {
		const struct smstate_peer *p = &ss->peers[i];

		if (p->foreign_key || !p->last_contact_ms)
			continue;
		if (smstate_send_peer(sm, Q_LIGHT, WIRE_GET, 0, p, 0, 1) == 0)
			ss->light_pending++;
	}
}

void smstate_priority_changed(struct sm *sm)
{
	struct smstate_peer *m;

	if (sm->state == SM_MASTER) {
		sweep_start_why(sm, "the SM priority changed");
		return;
	}
	if (sm->state != SM_STANDBY || !(m = smstate_peer_find(sm, sm->smstate.master_guid)))
		return;
	if (smstate_better((uint8_t)sm->conf.sm_priority, sm->port_guid, m->priority, m->guid))
		smstate_send_trap144(sm, sm->snap ? sm->snap->fabric : NULL, m);
}

int smstate_handover_order(struct sm *sm, uint64_t target, char *why, size_t why_len)
{
	struct smstate *ss = &sm->smstate;
	struct smstate_peer *t = NULL;
	int prio = sm->conf.sm_priority;

	if (sm->state != SM_MASTER) {
		snprintf(why, why_len, "this SM is %s, not master", names_sm_state(sm->state));
		return -EPERM;
	}
	if (ss->handover_to) {
		snprintf(why, why_len, "a handover to SM 0x%016" PRIx64 " is under way",
			 ss->handover_to);
		return -EBUSY;
	}
	for (unsigned i = 0; i < ss->n_peers; i++) {
		struct smstate_peer *p = &ss->peers[i];

		if (!smstate_peer_counts(p) || p->state != SM_STANDBY ||
		    (target && p->guid != target))
			continue;
		if (!t || smstate_better(p->priority, p->guid, t->priority, t->guid))
			t = p;
	}
	if (!t) {
		if (target)
			snprintf(why, why_len,
				 "SM 0x%016" PRIx64 " is not a standby this SM knows and reaches",
				 target);
		else
			snprintf(why, why_len, "no standby SM is known");
		return -ENOENT;
	}
	if (!smstate_better(t->priority, t->guid, (uint8_t)prio, sm->port_guid)) {
		/* lower ours so that it wins: equal priority with its lower GUID, else one less */
		int np = t->guid < sm->port_guid ? t->priority : t->priority - 1;

		if (np < 0) {
			snprintf(why, why_len,
				 "SM 0x%016" PRIx64 " has priority 0 and a higher port GUID: it "
				 "cannot win; raise its priority",
				 t->guid);
			return -ERANGE;
		}
		log_info("SM priority %d -> %d so that SM 0x%016" PRIx64 " wins the election", prio,
			 np, t->guid);
		sm->conf.sm_priority = np;
	}
	ss->handover_refused = 0;
	if (sweep_running(sm)) {
		/* the running sweep may be programming: its successor's DECIDE hands over */
		sweep_start_why(sm, "handover ordered");
	} else {
		smstate_start_handover(sm, t, "ordered over the control socket");
	}
	snprintf(why, why_len, "0x%016" PRIx64, t->guid);
	return 0;
}

/* ---- requests to us: SubnGet/SubnSet(SMInfo) -------------------------------------- */

/* Answer req with our SMInfo, status and (for an authenticated requester) the key. */
static void smstate_answer(struct sm *sm, const struct madio_addr *from, const struct wire_smp *req,
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
	sm->smstate.gets_answered += req->method == WIRE_GET;
}

static void smstate_check_free(struct sm *sm, struct smstate_check *c)
{
	struct smstate_check **pp;

	for (pp = &sm->smstate.checks; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			sm->smstate.n_checks--;
			break;
		}
	}
	free(c);
}

/* Who sent req, for a log line: "LID 5" or "DR path 0,1,3". */
static const char *smstate_who(const struct smstate_check *c, char *buf, size_t len)
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

static void smstate_refuse(struct sm *sm, struct smstate_check *c, const char *why)
{
	char who[320];

	sm->smstate.sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "refused SMInfo Set %s from %s: %s",
			smstate_mod_name(c->req.attr_mod), smstate_who(c, who, sizeof(who)), why);
	smstate_answer(sm, &c->from, &c->req, WIRE_STATUS_INVALID_FIELD, false);
}

/* A Set from a port we have checked: obey it or refuse it. */
static void smstate_handle_set(struct sm *sm, struct smstate_check *c, bool is_sm)
{
	struct smstate *ss = &sm->smstate;
	uint32_t mod = c->req.attr_mod;
	struct smstate_peer *p;
	struct wire_sminfo si;
	char why[200];
	uint32_t node;
	uint8_t port;
	int to;

	if (wire_sminfo_decode(c->req.data, sizeof(c->req.data), &si) < 0) {
		smstate_refuse(sm, c, "malformed SMInfo");
		return;
	}
	if (!is_sm) {
		smstate_refuse(sm, c, "its port is not an SM (IsSM clear)");
		return;
	}
	if (sm->conf.sm_key && si.sm_key != sm->conf.sm_key) {
		smstate_refuse(sm, c, "wrong SM_Key");
		return;
	}
	if (si.guid != c->port_guid) {
		snprintf(why, sizeof(why), "it claims to be SM 0x%016" PRIx64, si.guid);
		smstate_refuse(sm, c, why);
		return;
	}
	to = smstate_set_transition(sm->state, si.state, mod);
	if (to < 0) {
		snprintf(why, sizeof(why), "not legal from a %s SM while this SM is %s",
			 names_sm_state(si.state), names_sm_state(sm->state));
		smstate_refuse(sm, c, why);
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
		smstate_answer(sm, &c->from, &c->req, 0, true);
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
		ss->master_guid = 0;
		if (smstate_send_peer(sm, Q_ACK, WIRE_SET, WIRE_SMINFO_ACKNOWLEDGE, p, 0, 1) < 0)
			smstate_become_master_after_ack(
			    sm, &(struct smstate_query){.sm = sm, .guid = p->guid, .lid = p->lid});
		break;
	case WIRE_SMINFO_ACKNOWLEDGE:
		if (sm->state == SM_MASTER && ss->handover_to == si.guid) {
			smstate_step_down(sm, p, "the SM handed over to acknowledged");
		}
		smstate_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_DISABLE:
		smstate_set(sm, SM_NOTACTIVE, "disabled by the master");
		smstate_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_STANDBY:
		smstate_go_standby(sm, p, "told to stand by by the master");
		smstate_answer(sm, &c->from, &c->req, 0, true);
		break;
	case WIRE_SMINFO_DISCOVER:
		smstate_answer(sm, &c->from, &c->req, 0, true);
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " asked for DISCOVER", si.guid);
		smstate_set(sm, SM_DISCOVERING, why);
		sweep_start_why(sm, why);
		break;
	}
}

static void smstate_check_finish(struct sm *sm, struct smstate_check *c, bool is_sm)
{
	if (c->req.method == WIRE_GET)
		smstate_answer(sm, &c->from, &c->req, 0, is_sm);
	else
		smstate_handle_set(sm, c, is_sm);
	smstate_check_free(sm, c);
}

static int smstate_check_step(struct smstate_check *c);

static void smstate_check_answer(struct smstate_check *c, int status, const struct wire_smp *resp)
{
	struct sm *sm = c->sm;
	struct wire_nodeinfo ni;
	struct wire_portinfo pi;

	if (status == -ECANCELED) {
		smstate_check_free(sm, c);
		return;
	}
	if (status < 0 || !resp) {
		smstate_check_finish(sm, c, false);
		return;
	}
	if (c->step == 0) {
		if (wire_nodeinfo_decode(resp->data, sizeof(resp->data), &ni) < 0) {
			smstate_check_finish(sm, c, false);
			return;
		}
		c->node_type = ni.node_type;
		c->local_port = ni.local_port;
		c->port_guid = ni.port_guid;
		c->step = 1;
		if (smstate_check_step(c) < 0)
			smstate_check_finish(sm, c, false);
		return;
	}
	smstate_check_finish(sm, c,
			     wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) == 0 &&
				 (pi.capmask & WIRE_CAP_IS_SM));
}

static void smstate_check_dr_done(void *arg, int status, const struct wire_smp *req,
				  const struct wire_smp *resp)
{
	smstate_check_answer(arg, status, resp);
}

static void smstate_check_lid_done(void *arg, int status, const uint8_t *req,
				   const struct wire_mad_hdr *hdr, const uint8_t *resp, size_t len)
{
	struct wire_smp smp;

	if (resp && wire_smp_decode(resp, len, &smp) == 0)
		smstate_check_answer(arg, status, &smp);
	else
		smstate_check_answer(arg, status < 0 ? status : -EBADMSG, NULL);
}

/* Ask the requester's port for its NodeInfo (step 0) or PortInfo (step 1). */
static int smstate_check_step(struct smstate_check *c)
{
	struct sm *sm = c->sm;
	uint16_t attr = c->step == 0 ? WIRE_ATTR_NODE_INFO : WIRE_ATTR_PORT_INFO;
	uint32_t mod = c->step == 0 || c->node_type == NODE_SWITCH ? 0 : c->local_port;
	struct wire_smp smp;
	uint8_t mad[WIRE_MAD_SIZE];

	if (c->dr) {
		if (wire_smp_init_dr(&smp, WIRE_GET, attr, mod, c->path, c->hops) < 0)
			return -EINVAL;
		return xact_submit_timed(sm->xe, XACT_CONTROL, &smp, 0, 1, smstate_check_dr_done,
					 c);
	}
	wire_smp_init_lid(&smp, WIRE_GET, attr, mod);
	if (wire_smp_encode(&smp, mad, sizeof(mad)) < 0)
		return -EINVAL;
	return xact_submit_mad(sm->xe, XACT_CONTROL, &(struct madio_dest){.dlid = c->from.slid},
			       mad, sizeof(mad), smstate_check_lid_done, c);
}

/* Check the requester of req, then answer (Get) or obey (Set). */
static void smstate_check_start(struct sm *sm, const struct madio_addr *from,
				const struct wire_smp *req)
{
	struct smstate *ss = &sm->smstate;
	struct smstate_check *c;
	uint32_t node;
	uint8_t port;

	if (ss->n_checks >= SMSTATE_CHECKS_MAX || !sm->xe)
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
	c->next = ss->checks;
	ss->checks = c;
	ss->n_checks++;
	if (smstate_check_step(c) < 0)
		smstate_check_finish(sm, c, false);
	return;
busy:
	if (req->method == WIRE_GET) {
		smstate_answer(sm, from, req, 0, false);
		return;
	}
	ss->sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
			"refused SMInfo Set %s from LID %u: too many requests being checked",
			smstate_mod_name(req->attr_mod), from->slid);
	smstate_answer(sm, from, req, WIRE_STATUS_INVALID_FIELD, false);
	return;
local:
	if (req->method == WIRE_GET) {
		smstate_answer(sm, from, req, 0, false);
		return;
	}
	ss->sets_refused++;
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
			"refused SMInfo Set %s from LID %u: no route back to the sender",
			smstate_mod_name(req->attr_mod), from->slid);
	smstate_answer(sm, from, req, WIRE_STATUS_INVALID_FIELD, false);
}

void smstate_recv_sminfo(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
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
		smstate_answer(sm, from, &req, 0, true);
		return;
	}
	if (req.method == WIRE_GET && !sm->conf.sm_key) {
		smstate_answer(sm, from, &req, 0, false);
		return;
	}
	smstate_check_start(sm, from, &req);
}

void smstate_recv_trap_repress(void *ctx, const struct madio_addr *from,
			       const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	/* the master had our trap 144 */
}

/* ---- life cycle ------------------------------------------------------------------- */

int smstate_init(struct sm *sm)
{
	struct smstate *ss = &sm->smstate;

	memset(ss, 0, sizeof(*ss));
	if (!sm->base)
		return 0;
	ss->poll_timer = evtimer_new(sm->base, smstate_poll_cb, sm);
	ss->decide_timer = evtimer_new(sm->base, smstate_decide_timer_cb, sm);
	if (!ss->poll_timer || !ss->decide_timer) {
		smstate_fini(sm);
		return -ENOMEM;
	}
	return 0;
}

void smstate_fini(struct sm *sm)
{
	struct smstate *ss = &sm->smstate;

	smstate_decide_abort(sm);
	/* checks whose Gets were cancelled have freed themselves; any left go now */
	while (ss->checks) {
		struct smstate_check *c = ss->checks;

		ss->checks = c->next;
		free(c);
	}
	ss->n_checks = 0;
	if (ss->poll_timer)
		event_free(ss->poll_timer);
	if (ss->decide_timer)
		event_free(ss->decide_timer);
	ss->poll_timer = ss->decide_timer = NULL;
}

/*
 * The role (see smstate.h): the election among SMs (DECIDE), a master's
 * light-sweep look at the other SMs, priority changes, handover orders, the
 * role's life cycle and status.  The state and the peers are in
 * smstate_peers.c, the SMInfo requests others send in sminfo.c.  IBA 1.4
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
#include "sm/part.h"
#include "sm/sm.h"
#include "failover/smstate.h"
#include "failover/smstate_int.h"
#include "sm/sweep_sched.h"

static void smstate_free(struct sm *sm, void *obj);

static const struct sm_part_ops smstate_part = {SMSTATE_PART_NAME, smstate_free};

static void smstate_decide_abort(struct sm *sm);
static void smstate_priority_changed(struct sm *sm);

/* sm_priority changed (smctl priority, SIGHUP): a master re-elects, a better standby says so. */
static int smstate_apply(void *ctx, struct sm *sm, const char *key, const struct sm_conf *old,
			 char *err, size_t err_len)
{
	smstate_priority_changed(sm);
	return 0;
}

struct smstate_decide {
	struct sm *sm;
	const struct fabric *f;
	role_decide_fn *done;
	void *arg;
	struct xact_batch *batch; /* its SMInfo Gets; on empty: decide */
};

/* ---- DECIDE ---------------------------------------------------------------------- */

/* What to do with the SMs that answered this DECIDE (see smstate.h). */
static enum role_decision smstate_elect(struct sm *sm, const struct fabric *f)
{
	struct smstate *ss = smstate_of(sm);
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
			return ROLE_STAND_BY; /* a handover is under way */
		if (master && smstate_better(master->priority, master->guid, prio, guid)) {
			snprintf(why, sizeof(why),
				 "SM 0x%016" PRIx64 " is master too and ranks higher",
				 master->guid);
			smstate_start_handover(sm, master, why);
			return ROLE_STAND_BY;
		}
		if (master) {
			log_info("SM 0x%016" PRIx64
				 " (LID %u, priority %u) is master too and ranks "
				 "lower: telling it to DISCOVER",
				 master->guid, master->lid, master->priority);
			smstate_send_peer(sm, Q_DISCOVER, WIRE_SET, WIRE_SMINFO_DISCOVER, master, 0,
					  1);
			return ROLE_PROGRAM;
		}
		/*
		 * Hand over to a better standby only: a better SM still
		 * DISCOVERING finds us master, stands by and sends trap 144.
		 */
		if (best && best->state == SM_STANDBY &&
		    !(best->guid == ss->handover_refused &&
		      clock_mono_ms() < ss->handover_refused_until)) {
			smstate_start_handover(sm, best, "it ranks higher");
			return ROLE_STAND_BY;
		}
		return ROLE_PROGRAM;
	}
	if (sm->state != SM_DISCOVERING)
		return ROLE_STAND_BY;
	if (master) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (LID %u, priority %u) is master",
			 master->guid, master->lid, master->priority);
		smstate_go_standby(sm, master, why);
		if (smstate_better(prio, guid, master->priority, master->guid))
			smstate_send_trap144(sm, f, master);
		return ROLE_STAND_BY;
	}
	if (best) {
		snprintf(why, sizeof(why),
			 "SM 0x%016" PRIx64 " (LID %u, priority %u, %s) ranks higher", best->guid,
			 best->lid, best->priority, names_sm_state(best->state));
		smstate_go_standby(sm, best, why);
		return ROLE_STAND_BY;
	}
	if (ss->taking_over) {
		snprintf(why, sizeof(why), "no better SM answers (%s)", ss->why);
		smstate_set(sm, SM_MASTER, why);
	} else {
		smstate_set(sm, SM_MASTER, "no better SM answers");
	}
	return ROLE_PROGRAM;
}

static void smstate_decide_finish(void *arg)
{
	struct smstate_decide *dc = arg;
	struct sm *sm = dc->sm;
	enum role_decision d;

	smstate_of(sm)->decide = NULL;
	d = smstate_elect(sm, dc->f);
	dc->done(dc->arg, d, d == ROLE_STAND_BY ? smstate_of(sm)->why : "");
	xact_batch_free(dc->batch);
	free(dc);
}

static void smstate_decide_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct smstate_decide *dc = smstate_of(sm)->decide;

	if (dc && !xact_batch_pending(dc->batch))
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
	for (unsigned i = 0; i < smstate_of(sm)->n_peers; i++) {
		uint64_t g = smstate_of(sm)->peers[i].guid;

		fabric_for_each_lid_port (f, &it) {
			const struct port *p = &f->nodes[it.node].ports[it.port];

			if (p->guid == g && p->valid)
				smstate_cand_add(c, &n, f, it.node, it.port, sm->port_guid);
		}
	}
	return n;
}

static int smstate_decide_start(struct sm *sm, const struct fabric *f, role_decide_fn *done,
				void *arg)
{
	struct smstate *ss = smstate_of(sm);
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
	if (sm->xe && !(dc->batch = xact_batch_new(sm->xe, smstate_decide_finish, dc))) {
		free(c);
		free(dc);
		return -ENOMEM;
	}
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
		smstate_send(sm, Q_DECIDE, WIRE_GET, 0, c[i].guid, c[i].lid, path, hops, 0, 1,
			     dc->batch);
	}
	free(c);
	ss->decide = dc;
	if (!xact_batch_pending(dc->batch) && ss->decide_timer) {
		struct timeval now = {0, 0};

		evtimer_add(ss->decide_timer, &now);
	}
	return 0;
}

static void smstate_decide_abort(struct sm *sm)
{
	struct smstate_decide *dc = smstate_of(sm)->decide;

	if (!dc)
		return;
	smstate_of(sm)->decide = NULL;
	if (smstate_of(sm)->decide_timer)
		evtimer_del(smstate_of(sm)->decide_timer);
	xact_batch_free(dc->batch); /* its queries are cancelled */
	free(dc);
}

/* ---- a master's light sweep, orders ------------------------------------------------ */

static void smstate_light(struct sm *sm)
{
	struct smstate *ss = smstate_of(sm);

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

static void smstate_priority_changed(struct sm *sm)
{
	struct smstate_peer *m;

	if (sm->state == SM_MASTER) {
		sweep_start_why(sm, "the SM priority changed");
		return;
	}
	if (sm->state != SM_STANDBY || !(m = smstate_peer_find(sm, sm->master_guid)))
		return;
	if (smstate_better((uint8_t)sm->conf.sm_priority, sm->port_guid, m->priority, m->guid))
		smstate_send_trap144(sm, sm->snap ? sm->snap->fabric : NULL, m);
}

int smstate_handover_order(struct sm *sm, uint64_t target, char *why, size_t why_len)
{
	struct smstate *ss = smstate_of(sm);
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

/* ---- life cycle ------------------------------------------------------------------- */

static void smstate_free(struct sm *sm, void *obj)
{
	struct smstate *ss = obj;

	if (!ss)
		return;
	smstate_decide_abort(sm);
	if (ss->poll_timer)
		event_free(ss->poll_timer);
	if (ss->decide_timer)
		event_free(ss->decide_timer);
	if (sm->role.ctx == sm)
		sm->role = (struct sm_role){NULL, NULL};
	sm_conf_applier_remove(sm, "sm_priority", smstate_apply, NULL);
	free(ss);
}

/* The sweep's view of the role (sm/role.h); ctx is the SM. */
static void smstate_role_sweep_started(void *ctx)
{
	smstate_sweep_started(ctx);
}

static int smstate_role_decide_start(void *ctx, const struct fabric *f, role_decide_fn *done,
				     void *arg)
{
	return smstate_decide_start(ctx, f, done, arg);
}

static void smstate_role_decide_abort(void *ctx)
{
	smstate_decide_abort(ctx);
}

static void smstate_role_sweep_done(void *ctx, const struct sweep_summary *s)
{
	smstate_sweep_done(ctx, s);
}

static void smstate_role_light(void *ctx)
{
	smstate_light(ctx);
}

static const struct sm_role_ops smstate_role = {
    .sweep_started = smstate_role_sweep_started,
    .decide_start = smstate_role_decide_start,
    .decide_abort = smstate_role_decide_abort,
    .sweep_done = smstate_role_sweep_done,
    .light = smstate_role_light,
};

int smstate_attach(struct sm *sm, char *err, size_t err_len)
{
	struct smstate *ss = calloc(1, sizeof(*ss));
	int r = -ENOMEM;

	if (!ss)
		goto fail;
	if (sm->base) {
		ss->poll_timer = evtimer_new(sm->base, smstate_poll_cb, sm);
		ss->decide_timer = evtimer_new(sm->base, smstate_decide_timer_cb, sm);
		if (!ss->poll_timer || !ss->decide_timer)
			goto fail_obj;
	}
	r = sm_part_add(sm, &smstate_part, ss);
	if (r < 0)
		goto fail_obj;
	if (sm_conf_applier_add(sm, "sm_priority", smstate_apply, NULL) < 0)
		goto fail_nomem;
	sm->role = (struct sm_role){&smstate_role, sm};
	return 0;
fail_nomem:
	r = -ENOMEM; /* the part is registered: sm_fini frees it */
	snprintf(err, err_len, "out of memory setting up the SM state");
	return r;
fail_obj:
	if (ss->poll_timer)
		event_free(ss->poll_timer);
	if (ss->decide_timer)
		event_free(ss->decide_timer);
	free(ss);
fail:
	snprintf(err, err_len, "out of memory setting up the SM state");
	return r;
}

#define SS_FIELD(m, key, metric, kind, help)                                                       \
	STAT_FIELD(struct smstate_status, m, key, metric, kind, help)
static const struct stat_field smstate_stat_fields[] = {
    STAT_GUID_FIELD(struct smstate_status, master, "master"),
    STAT_GUID_FIELD(struct smstate_status, handover_to, "handover_to"),
    SS_FIELD(n_peers, NULL, "ibsmd_sm_peers", STAT_GAUGE, "Other SMs known."),
    SS_FIELD(polls, "polls", NULL, STAT_COUNTER, NULL),
    SS_FIELD(polls_failed, "polls_failed", "ibsmd_sminfo_polls_failed_total", STAT_COUNTER,
	     "Polls of the master (by a standby) that failed."),
    SS_FIELD(takeovers, "takeovers", "ibsmd_takeovers_total", STAT_COUNTER,
	     "Takeovers from a master that went."),
    SS_FIELD(handovers_sent, "handovers_sent", NULL, STAT_COUNTER, NULL),
    SS_FIELD(handovers_received, "handovers_received", NULL, STAT_COUNTER, NULL),
    SS_FIELD(handovers, NULL, "ibsmd_handovers_total", STAT_COUNTER,
	     "Handovers sent to or received from another SM."),
    SS_FIELD(sets_accepted, "sets_accepted", NULL, STAT_COUNTER, NULL),
    SS_FIELD(sets_refused, "sets_refused", "ibsmd_sminfo_sets_refused_total", STAT_COUNTER,
	     "SMInfo Sets refused (SM_Key, sender, state)."),
    SS_FIELD(foreign_sms, "foreign_sms", NULL, STAT_COUNTER, NULL),
    SS_FIELD(poll_interval_ms, "poll_interval_ms", NULL, STAT_GAUGE, NULL),
    SS_FIELD(poll_count, "poll_count", NULL, STAT_GAUGE, NULL),
};
#undef SS_FIELD

const struct stat_table smstate_stat_table = STAT_TABLE("failover", smstate_stat_fields);

void smstate_status_get(const struct sm *sm, struct smstate_status *ret)
{
	const struct smstate *ss = smstate_of(sm);

	memset(ret, 0, sizeof(*ret));
	if (!ss)
		return;
	memcpy(ret->peers, ss->peers, sizeof(ret->peers));
	ret->n_peers = ss->n_peers;
	ret->master = sm->master_guid;
	ret->handover_to = ss->handover_to;
	ret->poll_interval_ms = sm->conf.sminfo_poll_interval_ms;
	ret->poll_count = sm->conf.sminfo_poll_count;
	snprintf(ret->why, sizeof(ret->why), "%s", ss->why);
	ret->since_wall = ss->since_wall;
	ret->polls = ss->polls;
	ret->polls_failed = ss->polls_failed;
	ret->takeovers = ss->takeovers;
	ret->handovers_sent = ss->handovers_sent;
	ret->handovers_received = ss->handovers_received;
	ret->handovers = ss->handovers_sent + ss->handovers_received;
	ret->sets_accepted = ss->sets_accepted;
	ret->sets_refused = ss->sets_refused;
	ret->gets_answered = ss->gets_answered;
	ret->foreign_sms = ss->foreign_sms;
}

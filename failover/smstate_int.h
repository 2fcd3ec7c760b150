/*
 * Inside the role (failover/): what smstate.c (the election, polling,
 * handover) and sminfo.c (the SMInfo requests other SMs send us) share.
 * Not for other rooms: they read smstate.h.
 */
#ifndef IBSMD_SMSTATE_INT_H
#define IBSMD_SMSTATE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>

#include "failover/smstate.h"
#include "mad/wire.h"

struct sm;
struct fabric;
struct sweep_summary;
struct xact_batch;

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

struct smstate_decide;

/* The role's object (a part of the SM, sm/part.h). */
struct smstate {
	struct smstate_peer peers[SMSTATE_MAX_PEERS];
	unsigned n_peers;
	uint64_t handover_to;	   /* MASTER: the SM handed over to, waiting for it */
	double handover_deadline;  /* CLOCK_MONOTONIC: give up handing over */
	uint64_t handover_refused; /* do not hand over to this SM again before ... */
	double handover_refused_until;
	struct event *poll_timer;
	bool poll_inflight;
	double poll_sent_ms;
	unsigned poll_failures; /* in a row */
	struct smstate_decide *decide;
	struct event *decide_timer; /* DECIDE without queries: finish from the loop */
	unsigned light_pending;	    /* peer polls of a master's light sweep */
	char why[160];		    /* the reason of the last state change */
	bool taking_over;	    /* DISCOVERING because the master went */
	double since_wall;	    /* when the state last changed (wall clock) */
	/* counters */
	uint64_t polls, polls_failed, takeovers, handovers_sent, handovers_received;
	uint64_t sets_accepted, sets_refused, gets_answered, foreign_sms;
};

/* One SMInfo request of ours and what it is for. */
struct smstate_query {
	struct sm *sm;
	enum smstate_qkind kind;
	uint64_t guid; /* the port GUID expected to answer */
	uint16_t lid;
	uint8_t path[64];
	uint8_t hops;
};

#define SMSTATE_PART_NAME "smstate"

/* The role's object (NULL when it is not attached). */
struct smstate *smstate_of(const struct sm *sm);
/* A heavy sweep starts (NOTACTIVE -> DISCOVERING) / published its result (sm/role.h). */
void smstate_sweep_started(struct sm *sm);
void smstate_sweep_done(struct sm *sm, const struct sweep_summary *s);
/* The peer of port GUID guid, or NULL. */
struct smstate_peer *smstate_peer_find(struct sm *sm, uint64_t guid);
/* Whether p counts in an election (answered this DECIDE, with our SM_Key). */
bool smstate_peer_counts(const struct smstate_peer *p);
/*
 * An SMInfo Get or Set of ours to the SM of port GUID guid at path (hops >
 * 0) or LID-routed to lid, in batch (NULL: none).  0 or -errno.
 */
int smstate_send(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
		 uint64_t guid, uint16_t lid, const uint8_t *path, uint8_t hops,
		 unsigned timeout_ms, int retries, struct xact_batch *batch);
/* Trap 144 to master: we rank higher (f: where our port is). */
void smstate_send_trap144(struct sm *sm, const struct fabric *f, const struct smstate_peer *master);
/* HANDOVER to p; we stay master, programming nothing, until it answers as one. */
void smstate_start_handover(struct sm *sm, const struct smstate_peer *p, const char *why);
/* The poll timer (a standby polls its master, a master its handover target). */
void smstate_poll_cb(evutil_socket_t fd, short what, void *arg);
/* Our SMInfo: the key only for an authenticated requester. */
void smstate_our_info(const struct sm *sm, bool with_key, struct wire_sminfo *ret);
/* "HANDOVER", "ACKNOWLEDGE", ... for SMInfo Set attribute modifier mod. */
const char *smstate_mod_name(uint32_t mod);
/* The peer of port GUID guid, added when new (a full table reuses the oldest). */
struct smstate_peer *smstate_peer_get(struct sm *sm, uint64_t guid);
/* Send an SMInfo request of kind to peer p (control lane).  0 or -errno. */
int smstate_send_peer(struct sm *sm, enum smstate_qkind kind, uint8_t method, uint32_t mod,
		      const struct smstate_peer *p, unsigned timeout_ms, int retries);
/* A HANDOVER we obeyed was acknowledged (q: the old master): MASTER. */
void smstate_become_master_after_ack(struct sm *sm, struct smstate_query *q);
/* The SM handed over to took the subnet: STANDBY, polling it. */
void smstate_step_down(struct sm *sm, const struct smstate_peer *p, const char *why);
/* STANDBY under master, polling it. */
void smstate_go_standby(struct sm *sm, const struct smstate_peer *master, const char *why);

#endif

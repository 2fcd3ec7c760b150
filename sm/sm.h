/*
 * The subnet manager object: one per daemon, owned by the event loop.  It
 * holds the MAD port, the transaction engine, the LID database, the published
 * fabric snapshot and its routes, the multicast groups and the MFTs the
 * switches were given (sm/mfts.c), and runs sweeps (sm/sweep.c):
 * discover -> assign LIDs -> route -> program -> activate -> publish.
 */
#ifndef IBSMD_SM_H
#define IBSMD_SM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

#include "sm/trap.h"
#include "smp/mkey.h"
#include "sm/conf.h"
#include "sm/light.h"
#include "sm/sweep_sched.h"
#include "sm/part.h"
#include "sm/policies.h"
#include "sm/role.h"
#include "fabric/diff.h"
#include "lib/hook.h"

struct sweep;
struct sm;
struct madio;
struct xact_engine;
struct lid_db;
struct snapshot;
struct route_state;
struct mfts;
struct vltables;
struct mcast_db;
struct dispatch;
struct sa;

/*
 * Applies a new value of a CONF_LIVE_APPLY key (sm->conf already holds it,
 * old holds the previous configuration).  0, or -errno with err: the key is
 * then put back to its old value.
 */
typedef int sm_conf_apply_fn(void *ctx, struct sm *sm, const char *key, const struct sm_conf *old,
			     char *err, size_t err_len);

struct sm_conf_applier {
	const char *key;
	sm_conf_apply_fn *fn;
	void *ctx;
};

/* A routing engine refused the fabric (data of the route_fallback hooks). */
struct sm_route_fallback {
	const char *engine;
	const char *reason;
};

/* The SM's state changed (data of the state_changed hooks). */
struct sm_state_change {
	enum sm_state from, to;
	const char *why; /* one line, never NULL */
};

/*
 * What the SM tells its observers (lib/hook.h), each list with what its data
 * points at.  Hooks run on the loop, in the order they were added.
 */
struct sm_hooks {
	struct hook_list sweep_begin;	 /* const char *: why the heavy sweep starts */
	struct hook_list route_fallback; /* const struct sm_route_fallback * */
	/*
	 * A sweep published its snapshot (sm->snap, sm->last are the new
	 * ones): const struct snapshot *, the snapshot it replaced (NULL on
	 * the first sweep; freed right after the hooks).
	 */
	struct hook_list published;
	struct hook_list sweep_done;	/* const struct sweep_summary *, after publishing */
	struct hook_list state_changed; /* const struct sm_state_change * */
	struct hook_list port_health;	/* const struct perfmgr_health_change * (perf/perfmgr.h) */
	struct hook_list quarantine;	/* const struct health_change * (perf/health.h) */
	struct hook_list port_error;	/* const struct sm_port_error *: a port-error trap */
	struct hook_list validation;	/* const struct validate_change * (validate/validate.h) */
	/*
	 * A configure batch is about to be built (PROGRAM): struct
	 * program_params * (smp/program.h), which the hook may amend.
	 */
	struct hook_list configure;
	/*
	 * The partitions file was (re)loaded: NULL; sm->policy.parts is the
	 * file's, which a part may replace with a merge (the runtime partitions).
	 */
	struct hook_list partitions;
};

/* A port-error trap (129-131) came (data of the port_error hooks, sm/trap.c). */
struct sm_port_error {
	uint16_t slid; /* its sender */
	uint16_t lid;  /* the port it is about: (lid, port) of the published fabric */
	uint8_t port;
	double now; /* CLOCK_MONOTONIC seconds */
};

struct sm {
	struct event_base *base;
	struct sm_conf conf;	  /* the one configuration: start-up values, then live changes */
	struct sm_conf file_conf; /* what the file and command line said at the last (re)load */
	struct sm_conf_applier *appliers;
	size_t n_appliers;
	struct madio *io;
	struct xact_engine *xe;
	struct dispatch *disp; /* received MADs to their handlers */
	struct sa *sa;	       /* the Subnet Administrator */
	struct lid_db *lids;
	char lid_path[600];
	int lock_fd; /* state_dir/lock, flock()ed while we run */
	struct {
		bool owed;	   /* the last write failed: the file is older than the map */
		unsigned failures; /* in a row */
		struct event *retry;
	} lid_save;
	struct event *sigchld; /* reaps the routing dump writer as soon as it exits */
	enum sm_state state;   /* written by the role (sm/role.h) */
	uint64_t master_guid;  /* STANDBY: the master SM's port GUID, polled by the role */
	struct sm_role role;   /* may the sweep program?  (failover/smstate.c) */
	struct sm_part registry[SM_MAX_PARTS]; /* the parts (sm/part.h), in the order attached */
	unsigned n_registry;
	bool subnet_up;
	bool once; /* --once: no sweep follows the one that brings the subnet up */
	uint64_t sweeps;
	struct sweep_summary last;
	struct snapshot *snap;	   /* the published snapshot; replaced whole after a sweep */
	struct sweep_sched sched;  /* sm/sweep.c */
	struct route_state *route; /* the last routing pass, the spare tables (sm/route.c) */
	struct light_state light;  /* sm/light.c */
	struct mcast_db *mcast;	   /* multicast groups (sa/mcast.h); outlive sweeps */
	struct mfts *mfts;	   /* the MFTs the switches were given (sm/mfts.c) */
	struct vltables *vlt;	   /* the ports' SL2VL and VLArb as read (sm/vltables.c) */
	struct sm_hooks hooks;
	struct sm_policy policy; /* partitions, QoS, updn roots (sm/policies.h) */
	uint64_t port_guid;
	bool io_split; /* the port's SMI and GSI are separate devices (mad/smigsi.h) */
	uint64_t mad_malformed, mad_unexpected, traps;
	struct {
		uint64_t refused;    /* PortInfo Sets not sent: the port holds another M_Key */
		uint64_t unanswered; /* PortInfo Sets lost where the M_Key may not be ours */
		uint64_t traps;	     /* trap 256 (bad M_Key) received */
		struct mkey_offenders offenders; /* by port, bounded (smp/mkey.h) */
	} mkey;
	struct {
		uint64_t blocks; /* P_KeyTable blocks written to switch ports facing CAs */
		uint64_t unfit;	 /* such ports whose CA's table did not fit: enforcement off */
	} penf;			 /* part_enforce (smp/program.c) */
	uint64_t trap_actions[TRAP_NACTIONS]; /* what was done with them (sm/trap.h) */
	uint64_t trap_repress_unrouted;	      /* dr_only: no route to the trap's sender */
};

/* Open the port and set up with configuration c (copied); 0 or -errno with a message in err. */
int sm_init(struct sm *sm, struct event_base *base, const struct sm_conf *c, char *err,
	    size_t err_len);
void sm_fini(struct sm *sm);
/* Bytes by owner (core.c): the process, the heap, the published snapshot and its parts. */
struct sm_mem {
	size_t peak_rss, rss, heap;	 /* the process: peak and now resident, heap in use */
	size_t snapshot, fabric, routes; /* the published snapshot, its fabric and routes */
	size_t prev_snapshot;		 /* the one it replaces while still held (publish) */
	size_t xact;			 /* the transaction engine */
};
/* Fill ret; prev: the snapshot being replaced, or NULL. */
void sm_mem_get(const struct sm *sm, const struct snapshot *prev, struct sm_mem *ret);

/*
 * core.c: debug lines (category mad): MADs sent and received, CPU time; peak RSS and
 * the bytes each owner holds (the published snapshot, prev: the one it
 * replaces, still held, or NULL; the transaction engine).
 */
void sm_log_io(struct sm *sm, const struct snapshot *prev);

/*
 * core.c: write the guid2lid file now.  A write that fails (a full disk) is logged
 * once and tried again on a timer (5 s, doubling to 5 min) until it lands, so
 * the file does not wait for the next LID change.  0 or -errno.
 */
int sm_save_lids(struct sm *sm);

/*
 * core.c: register an applier for a CONF_LIVE_APPLY key (the SM registers its own in
 * sm_init; the control API its admin_group).  0, -ENOMEM, or -EINVAL when the
 * key is not a CONF_LIVE_APPLY key.
 */
int sm_conf_applier_add(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx);
void sm_conf_applier_remove(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx);

/*
 * An order changed the live value of key (sm->conf holds it now, old the
 * one before): run its appliers.  0, or -errno with err: the old value is
 * back (and -ENOENT when nothing applies the key in this daemon).
 */
int sm_conf_changed(struct sm *sm, const char *key, const struct sm_conf *old, char *err,
		    size_t err_len);

/*
 * SIGHUP with nc, the file and command line as they are now.  The rule for
 * runtime overrides (smctl priority, smctl loglevel): an override lasts until
 * the file changes that key.  So the keys taken are those nc changes against
 * the previous load (file_conf), not against the running values: each live
 * one logged "KEY: OLD -> NEW" and applied by its appliers, a restart-only
 * one logged and kept; a key the file left alone keeps its running value,
 * an override logged as kept.  Returns how many keys changed live.
 */
size_t sm_reconfigure(struct sm *sm, const struct sm_conf *nc);

#endif

/*
 * The subnet manager object: one per daemon, owned by the event loop.  It
 * holds the MAD port, the transaction engine, the LID database, the published
 * fabric snapshot and its routes, and runs sweeps (sm/sweep.c):
 * discover -> assign LIDs -> route -> program -> activate -> publish.
 */
#ifndef IBSMD_SM_H
#define IBSMD_SM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

#include "mad/madio.h"
#include "mad/xact.h"
#include "routing/chain.h"
#include "routing/routing.h"
#include "sm/conf.h"
#include "sm/discover.h"
#include "fabric/fabric.h"
#include "fabric/snapshot.h"
#include "lib/hook.h"
#include "sm/lid.h"

/* IBA 14.4.1; the values are SMInfo:SMState's. */
enum sm_state {
	SM_NOTACTIVE = 0,
	SM_DISCOVERING = 1,
	SM_STANDBY = 2,
	SM_MASTER = 3,
};

struct sweep_summary {
	int status;	  /* 0 when the subnet came up */
	char reason[256]; /* why not, one line */
	uint32_t nodes, switches, cas;
	uint32_t links, ports_active, ports_linked;
	uint32_t lids;
	uint32_t timeouts;
	uint32_t sets, set_errors;
	uint32_t lft_blocks;
	double ms, discover_ms, route_ms;
	char engine[32];
};

struct sweep;
struct sm;

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
};

struct sm {
	struct event_base *base;
	struct sm_conf conf; /* the one configuration: start-up values, then live changes */
	struct sm_conf_applier *appliers;
	size_t n_appliers;
	struct madio *io;
	struct xact_engine *xe;
	struct lid_db *lids;
	char lid_path[600];
	enum sm_state state;
	bool subnet_up;
	uint64_t sweeps;
	uint64_t light_sweeps;
	uint64_t light_count; /* periodic ticks, for the every-30th heavy sweep */
	bool light_running;
	struct sweep_summary last;
	/* the published snapshot (fabric, routes, indexes); replaced whole after a sweep */
	struct snapshot *snap;
	struct sweep *cur; /* sweep in progress, or NULL */
	bool sweep_again;  /* a sweep was asked for while one ran */
	struct sm_hooks hooks;
	bool force_lft; /* next sweep rewrites every LFT block (reroute) */
	/* with on_publish_arg: a heavy sweep starts; an engine refused the fabric */
	char again_why[160];
	pid_t dump_pid;	 /* child writing the routing dumps, 0 if none */
	uint64_t *roots; /* from conf.updn_roots_file */
	size_t n_roots;
	char last_route_engine[32];
	struct chain_refusal last_refusals[CHAIN_MAX]; /* of the last routing pass */
	unsigned int n_last_refusals;
	struct routing_stats last_route_stats;
	uint64_t port_guid;
	uint64_t mad_malformed, mad_unexpected, traps;
	struct event *sweep_timer;
};

/* Open the port and set up with configuration c (copied); 0 or -errno with a message in err. */
int sm_init(struct sm *sm, struct event_base *base, const struct sm_conf *c, char *err,
	    size_t err_len);
void sm_fini(struct sm *sm);

/* (Re)load conf.updn_roots_file into sm->roots.  0 or -errno with err; old roots kept on error. */
int sm_load_roots(struct sm *sm, char *err, size_t err_len);

/*
 * Disable a port (PortPhysicalState = Disabled) or enable it again
 * (= Polling), then sweep.  The SM's own link is refused (-EPERM); an
 * unknown node/port is -ENOENT.  done(arg, status) runs when the Set
 * completes (status 0 or -errno).  0 when the Set was sent.
 */
int sm_port_set_enabled(struct sm *sm, uint64_t node_guid, uint8_t port, bool enable,
			void (*done)(void *arg, int status), void *arg);

/*
 * Register an applier for a CONF_LIVE_APPLY key (the SM registers its own in
 * sm_init; the control API its admin_group).  0, -ENOMEM, or -EINVAL when the
 * key is not a CONF_LIVE_APPLY key.
 */
int sm_conf_applier_add(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx);
void sm_conf_applier_remove(struct sm *sm, const char *key, sm_conf_apply_fn *fn, void *ctx);

/*
 * SIGHUP: take the live keys of nc that differ from sm->conf, each logged as
 * "KEY: OLD -> NEW" and applied by its appliers; a changed restart-only key
 * is logged and kept.  Returns how many keys changed live.
 */
size_t sm_reconfigure(struct sm *sm, const struct sm_conf *nc);

/* Start a heavy sweep now (or right after the running one).  0 or -errno. */
int sweep_start(struct sm *sm);
/* The same, saying why (logged at debug, published as a sweep_start event). */
int sweep_start_why(struct sm *sm, const char *why);
/* Collect the routing-dump writer if it has finished (or wait for it). */
void sweep_dump_reap(struct sm *sm, bool wait);
/* Abandon the running sweep (shutdown); safe before xact_free. */
void sweep_abort(struct sm *sm);
/*
 * A light sweep: poll every switch's SwitchInfo; start a heavy sweep when one
 * reports a port state change or does not answer (or when there is no
 * published subnet yet).  0 or -errno.
 */
int sweep_light(struct sm *sm);
/* Arm the periodic (light) sweep timer per conf.sweep_interval. */
void sweep_schedule(struct sm *sm);

#endif

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
#include "routing/routing.h"
#include "sm/discover.h"
#include "fabric/fabric.h"
#include "sm/lid.h"

enum sm_state {
	SM_NOTACTIVE,
	SM_DISCOVERING,
	SM_STANDBY,
	SM_MASTER,
};

struct sm_opts {
	char ca_name[64];
	int port_num;
	char state_dir[512];
	char routing[64];
	char routing_chain[256];
	char roots_file[512]; /* updn root switch GUIDs, "" = automatic */
	unsigned window;
	unsigned timeout_ms;
	unsigned retries;
	uint8_t lmc;
	uint8_t priority;
	uint64_t subnet_prefix;
	unsigned sweep_interval;   /* seconds, 0 = no periodic sweep */
	uint64_t dump_max_entries; /* routing dumps up to switches x LIDs; 0 = never */
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
struct dispatch;

typedef void (*sm_sweep_done_fn)(void *arg, const struct sweep_summary *s);

struct sm {
	struct event_base *base;
	struct sm_opts opts;
	struct madio *io;
	struct xact_engine *xe;
	struct dispatch *disp; /* received MADs to their handlers */
	struct lid_db *lids;
	char lid_path[600];
	enum sm_state state;
	bool subnet_up;
	uint64_t sweeps;
	uint64_t light_sweeps;
	uint64_t light_count; /* periodic ticks, for the every-30th heavy sweep */
	bool light_running;
	struct sweep_summary last;
	/* the published snapshot and its routes; replaced whole after a sweep */
	struct fabric *fabric;
	struct routes *routes;
	struct sweep *cur; /* sweep in progress, or NULL */
	bool sweep_again;  /* a sweep was asked for while one ran */
	sm_sweep_done_fn on_sweep;
	void *on_sweep_arg;
	/*
	 * Called after every sweep once the new snapshot is published
	 * (sm->fabric, sm->routes, sm->last), with the snapshot it replaced
	 * (NULL on the first sweep; freed right after the call).
	 */
	void (*on_publish)(void *arg, const struct fabric *old_f);
	void *on_publish_arg;
	bool force_lft; /* next sweep rewrites every LFT block (reroute) */
	/* with on_publish_arg: a heavy sweep starts; an engine refused the fabric */
	void (*on_sweep_begin)(void *arg, const char *why);
	void (*on_route_fallback)(void *arg, const char *engine, const char *reason);
	char again_why[160];
	pid_t dump_pid;	 /* child writing the routing dumps, 0 if none */
	uint64_t *roots; /* from opts.roots_file */
	size_t n_roots;
	char last_route_engine[32];
	char last_fallback[1024]; /* refusals of the last routing pass, "engine: why" lines */
	struct routing_stats last_route_stats;
	uint64_t port_guid;
	uint64_t mad_malformed, mad_unexpected, traps;
	struct event *sweep_timer;
};

void sm_opts_defaults(struct sm_opts *o);
/* Open the port and set up; 0 or -errno with a message in err. */
int sm_init(struct sm *sm, struct event_base *base, const struct sm_opts *o, char *err,
	    size_t err_len);
void sm_fini(struct sm *sm);

/* (Re)load opts.roots_file into sm->roots.  0 or -errno with err; old roots kept on error. */
int sm_load_roots(struct sm *sm, char *err, size_t err_len);

/*
 * Disable a port (PortPhysicalState = Disabled) or enable it again
 * (= Polling), then sweep.  The SM's own link is refused (-EPERM); an
 * unknown node/port is -ENOENT.  done(arg, status) runs when the Set
 * completes (status 0 or -errno).  0 when the Set was sent.
 */
int sm_port_set_enabled(struct sm *sm, uint64_t node_guid, uint8_t port, bool enable,
			void (*done)(void *arg, int status), void *arg);

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
/* Arm the periodic (light) sweep timer per opts.sweep_interval. */
void sweep_schedule(struct sm *sm);

#endif

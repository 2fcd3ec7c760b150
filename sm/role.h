/*
 * The SM's role (IBA 1.4 vol 1, 14.4.1: NOTACTIVE, DISCOVERING, STANDBY,
 * MASTER) as the sweep sees it.  The sweep does not decide the role: it asks
 * "may I program?" through this small interface, and tells it when a heavy
 * sweep starts and ends and when a light sweep runs.  failover/smstate.c
 * implements it (the election among SMs, handover, polling, state sync);
 * without a role (unit tests, `ibsmd --offline`) the SM programs every
 * sweep and becomes MASTER after the first one.
 *
 * sm->state is the role's result: written by the role, read by everyone.
 */
#ifndef IBSMD_ROLE_H
#define IBSMD_ROLE_H

struct fabric;
struct program_params;
struct sweep_summary;

/* IBA 14.4.1; the values are SMInfo:SMState's. */
enum sm_state {
	SM_NOTACTIVE = 0,
	SM_DISCOVERING = 1,
	SM_STANDBY = 2,
	SM_MASTER = 3,
};

enum role_decision {
	ROLE_PROGRAM, /* we are (or become) master: assign, route, program */
	ROLE_STAND_BY /* another SM is (or becomes) master: touch no switch */
};

/* DECIDE is over; why: one line when standing by ("" otherwise), valid during the call. */
typedef void role_decide_fn(void *arg, enum role_decision d, const char *why);

struct sm_role_ops {
	/* A heavy sweep starts (a NOTACTIVE SM is now DISCOVERING). */
	void (*sweep_started)(void *ctx);
	/*
	 * Between discovery and programming: may this SM program fabric f?
	 * done runs once, from the loop (never inside this call); f outlives
	 * the decision.  0 or -errno (the sweep fails).
	 */
	int (*decide_start)(void *ctx, const struct fabric *f, role_decide_fn *done, void *arg);
	/* The sweep is abandoned during DECIDE: done is not called. */
	void (*decide_abort)(void *ctx);
	/* A heavy sweep is about to publish its result (before the published hooks). */
	void (*sweep_done)(void *ctx, const struct sweep_summary *s);
	/* A master's light sweep runs: look at the other SMs. */
	void (*light)(void *ctx);
	/* The PROGRAM phase's parameters, for the role to amend (ClientReregister). */
	void (*program_params)(void *ctx, struct program_params *pp);
};

struct sm_role {
	const struct sm_role_ops *ops; /* NULL: no role part (program always) */
	void *ctx;
};

#endif

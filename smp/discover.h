/*
 * Discovery: breadth-first walk of the subnet by directed-route SMPs (IBA 1.4
 * vol 1, 14.2.2 directed route; 14.2.5 NodeInfo, NodeDescription, PortInfo,
 * SwitchInfo), keeping the transaction window full (the engine pulls the
 * next probe from the BFS frontier as it has room), into a new struct fabric.
 * A node that does not answer after the engine's retries is left out and
 * counted; discovery carries on without it.
 */
#ifndef IBSMD_DISCOVER_H
#define IBSMD_DISCOVER_H

#include "mad/xact.h"
#include "fabric/fabric.h"

struct discover_result {
	struct fabric *fabric; /* owned by the receiver */
	uint32_t timeouts;     /* SMPs that went unanswered */
	uint32_t asked_again;  /* Gets asked again after every retry timed out */
	uint32_t errors;       /* error responses or malformed answers */
	uint32_t link_conflicts;
	uint32_t ext_gets;   /* PortInfo asked again with SMSupportExtendedSpeeds */
	uint32_t ext_failed; /* ... and not answered so (the first answer stands) */
	double ms;
	/* discover_start_around() */
	bool incremental;
	uint32_t reprobed;   /* switches asked again */
	uint32_t links_down; /* links found gone */
	uint32_t links_up;   /* links found new to known nodes */
	uint32_t removed;    /* nodes no longer reachable, left out */
	uint32_t silent;     /* switches that answered nothing: taken for gone */
	uint32_t held_out;   /* switches of base left out (discover_start_around's held) */
	uint32_t refused;    /* ports found up to a held switch: taken for down */
	/*
	 * Incremental: the nodes (GUIDs, repeats possible) whose model the
	 * discovery changed: asked again, found, or a port of theirs found down
	 * from the far end.  The others are the copy of base as it was (what
	 * the last sweep programmed): their Sets need no second look
	 * (program_params.scope).  Owned by the receiver of a fabric (free);
	 * NULL with n_touched 0 otherwise.
	 */
	uint64_t *touched;
	size_t n_touched;
};

typedef void (*discover_done_fn)(void *arg, int status, struct discover_result *res);

struct discover;

/* Start a discovery; done runs on the loop when it finishes.  0 or -errno. */
int discover_start(struct xact_engine *xe, discover_done_fn done, void *arg, struct discover **ret);
/*
 * Rediscover only around the switches dirty[] (node GUIDs) of base, the
 * fabric last published: a copy of base, every port of those switches asked
 * again; a link found down is cut (and the far end's port asked again), a
 * port newly up is followed (a known node linked, a new one discovered whole
 * from there), a link that retrained has its far end asked again; nodes no
 * longer reachable are left out and directed routes that crossed a cut link
 * are replaced.  A switch that answers nothing is taken for gone (it lost
 * every link): its links are cut and their far ends asked over routes that
 * avoid it (one still up finds it again).  done gets -EAGAIN when anything
 * else did not answer or did not fit (then discover the whole fabric).  -ENOENT when a GUID is no
 * switch of base.
 *
 * held[] (n_held, may be 0): switches (node GUIDs) to take for gone, whether
 * they answer or not (a switch dying port by port, sm/sweep.c): one in base
 * has its links cut before anything is asked and its far ends asked again
 * over routes that avoid it; a port found up to one is taken for down.  A
 * held switch in dirty[] is not asked.
 */
int discover_start_around(struct xact_engine *xe, const struct fabric *base, const uint64_t *dirty,
			  size_t n_dirty, const uint64_t *held, size_t n_held,
			  discover_done_fn done, void *arg, struct discover **ret);
/* Abort (done is not called) and free.  NULL ok. */
void discover_free(struct discover *d);

/*
 * The directed route that reaches (node, port) so that the SMP enters by that
 * port: a switch answers for all its ports on its own path; a CA or router
 * only for the port an SMP arrives on, i.e. through its link's far end.
 * 0, or -ENOENT when no route to that port is known.
 */
int discover_port_path(const struct fabric *f, uint32_t node, uint8_t port, uint8_t *ret_path,
		       uint8_t *ret_hops);

#endif

/*
 * Discovery: breadth-first walk of the subnet by directed-route SMPs (IBA 1.4
 * vol 1, 14.2.2 directed route; 14.2.5 NodeInfo, NodeDescription, PortInfo,
 * SwitchInfo), keeping the transaction window full, into a new struct fabric.
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
	double ms;
};

typedef void (*discover_done_fn)(void *arg, int status, struct discover_result *res);

struct discover;

/* Start a discovery; done runs on the loop when it finishes.  0 or -errno. */
int discover_start(struct xact_engine *xe, discover_done_fn done, void *arg, struct discover **ret);
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

/*
 * Discovery's inside (smp/discover.c, smp/discover_probe.c): the probes and
 * the frontier they wait in.  discover_probe.c keeps the frontier and hands
 * probes to the engine as its window has room; discover.c decides what to
 * ask and reads the answers (discover.c -> discover_probe.c).
 */
#ifndef IBSMD_DISCOVER_INT_H
#define IBSMD_DISCOVER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/xact.h"
#include "smp/discover.h"

enum probe_kind { PROBE_NODEINFO, PROBE_NODEDESC, PROBE_PORTINFO, PROBE_SWITCHINFO, PROBE_PKEY };

/*
 * PortInfo probes: PROBE_THEN_PORTS on a new switch's port 0, whose answer
 * (its CapabilityMask) decides how the other ports are asked, which go
 * then; PROBE_EXT on the second Get of a port that advertises extended
 * speeds but was asked without SMSupportExtendedSpeeds (its answer only
 * refreshes the model's image and speeds).
 */
#define PROBE_THEN_PORTS 0x01
#define PROBE_EXT 0x02

struct probe {
	struct discover *d;
	enum probe_kind kind;
	uint32_t parent; /* node the SMP leaves from (NodeInfo) */
	uint8_t parent_port;
	uint32_t node; /* node being asked (other kinds) */
	uint8_t port;
	uint8_t round; /* times this Get was given up on and asked again */
	uint8_t flags; /* PROBE_THEN_PORTS, PROBE_EXT */
};

/*
 * A Get that timed out after every retry of the engine is asked again this
 * many times, behind the rest of the discovery: on a fabric that drops
 * MADs (a busy VL15 buffer, a flaky cable) a node is then lost only when
 * (retries + 1) x (1 + this) Gets in a row are.
 */
#define DISCOVER_EXTRA_ROUNDS 2

/*
 * Incremental: a Get unanswered in a stage before this one is asked again
 * in the next (over routes that avoid what was found gone); in this one it
 * counts, and the whole fabric is discovered instead.
 */
#define DISCOVER_STAGES 4

/*
 * A probe in the frontier: its header, then path[1..hops] (hops bytes).  The
 * frontier is the BFS queue: probes decided, in order, a few bytes each; the
 * engine asks for the next one when its window has room (discover_produce),
 * so it never holds more than the window (issue 15: a discovery wave queued
 * whole in the engine held tens of thousands of full requests, most of the
 * bring-up's peak memory).
 */
struct frontier_rec {
	uint32_t parent, node, mod;
	uint16_t attr;
	uint8_t kind, parent_port, port, hops, flags;
};

struct discover {
	struct xact_engine *xe;
	xact_done_fn probe_done;  /* every probe's answer (discover.c) */
	struct xact_batch *batch; /* the probes; produced from the frontier */
	discover_done_fn done;
	void *arg;
	struct fabric *f;
	struct discover_result res;
	double t0_ms; /* clock_mono_ms() at the start */
	bool finishing;
	bool incremental; /* around some switches of a copy of the last fabric */
	/*
	 * Incremental: stage 1 asks the changed switches; what could not be
	 * asked then (a far end, a switch whose route crossed a link found
	 * gone) waits here and is asked in the next stage, over the routes of
	 * the pruned fabric, up to DISCOVER_STAGES stages.
	 */
	unsigned stage;
	struct later {
		uint64_t
		    guid; /* the node to ask (PortInfo, SwitchInfo), or the parent (NodeInfo) */
		enum probe_kind kind;
		uint8_t port;
		uint8_t flags; /* the probe's */
	} * later;
	size_t n_later, cap_later;
	/*
	 * Incremental: switches whose Gets went unanswered in this stage, and
	 * whether one answered anything.  One that answered nothing is taken
	 * for gone (it lost every link, or its power): its links are cut and
	 * their far ends asked in the next stage over routes that avoid it (a
	 * far end still up finds it again, as a node new to the copy).
	 */
	struct silent {
		uint64_t guid;
		bool heard;
	} * silent;
	size_t n_silent, cap_silent;
	/* incremental: switches taken for gone, answering or not (discover_start_around) */
	uint64_t *held;
	size_t n_held;
	/* the far ends of their links (switch ports), cut before anything was asked */
	struct held_far {
		uint64_t guid;
		uint8_t port;
	} * held_far;
	size_t n_held_far;
	/* far-end ports asked again, each once (two ends in INIT would ask each other forever) */
	uint64_t *asked;
	size_t n_asked, cap_asked;
	/* probes not yet handed to the engine, oldest at head (struct frontier_rec) */
	uint8_t *frontier;
	size_t fr_head, fr_tail, fr_cap;
};

/* ---- discover_probe.c ------------------------------------------------------- */

/* Whether (node, port) is asked again now: false when it was already, or on ENOMEM. */
bool discover_asked_once(struct discover *d, uint32_t node, uint8_t port);
/* Ask (guid, kind, port) in the next stage (incremental); ENOMEM counts an error. */
void discover_later_add(struct discover *d, uint64_t guid, enum probe_kind kind, uint8_t port,
			uint8_t flags);
bool discover_frontier_empty(const struct discover *d);
/* The batch's producer (xact_batch_set_producer): ctx is the discover. */
bool discover_produce(void *ctx);
/*
 * Ask (node, port) for attr: the probe joins the frontier, behind the
 * others, and goes when the engine asks for it.  0, or -errno (nothing asked).
 */
int discover_send_flags(struct discover *d, enum probe_kind kind, const uint8_t *path, uint8_t hops,
			uint16_t attr, uint32_t mod, uint32_t parent, uint8_t parent_port,
			uint32_t node, uint8_t port, uint8_t flags);
int discover_send(struct discover *d, enum probe_kind kind, const uint8_t *path, uint8_t hops,
		  uint16_t attr, uint32_t mod, uint32_t parent, uint8_t parent_port, uint32_t node,
		  uint8_t port);

#endif

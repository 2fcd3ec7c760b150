/*
 * Inside the transaction engine (mad/xact.c, mad/xact_batch.c): the
 * structures both files see and the calls each makes in the other.  Not
 * for other rooms: they see mad/xact.h only.
 *
 *   xact.c        slots, TIDs, timers, retries, the lane queues, the pump,
 *                 submitting, matching answers, the window
 *   xact_batch.c  batches: life cycle, counts, cancel, on_empty; asking
 *                 producers for requests
 */
#ifndef IBSMD_XACT_INT_H
#define IBSMD_XACT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "mad/madio.h"
#include "mad/wire.h"
#include "mad/xact.h"

#define SLOTS_MAX (XACT_WINDOW_MAX + XACT_CONTROL_SLOTS)
#define SLOT_BITS 11 /* the low bits of a TID: the slot index */
#define N_LANES 2
/*
 * A lane's queue is a list of chunks of this many requests: it grows a
 * chunk at a time (no doubling, no copy of what waits; issue 15) and keeps
 * one spare chunk when it empties.
 */
#define QUEUE_CHUNK 128

_Static_assert(SLOTS_MAX <= 1u << SLOT_BITS, "every slot index fits in the TID");

struct xact_req {
	union {
		struct wire_smp smp; /* directed route (or LID-routed, via xact_submit) */
		struct {
			struct madio_dest to;
			uint8_t mad[WIRE_MAD_SIZE]; /* a copy while queued: no heap per request */
		} a;				    /* addressed */
	};
	union {
		xact_done_fn done;
		xact_mad_done_fn mad_done;
	};
	void *arg;
	struct xact_batch *batch;
	bool addressed;
	bool dead;	     /* queued, then cancelled with its batch: dropped when popped */
	unsigned timeout_ms; /* 0: the engine's */
	int retries;	     /* < 0: the engine's */
};

struct xact_chunk {
	struct xact_chunk *next;
	struct xact_req r[QUEUE_CHUNK];
};

struct xact_queue {
	struct xact_chunk *head, *tail, *spare;
	unsigned head_i, tail_i; /* next to pop in head, next free slot in tail */
	size_t len, chunks;	 /* requests waiting (dead ones too); chunks in the list */
	size_t dead;		 /* of len, cancelled */
};

struct xact_slot {
	struct xact_engine *xe;
	unsigned idx;
	struct event *timer;
	bool busy;
	bool orphan; /* its batch cancelled it: ends without a callback */
	enum xact_lane lane;
	unsigned tries_left;
	unsigned timeout_ms; /* per attempt */
	uint64_t sent_seq;   /* xe->send_seq at its last transmission */
	uint32_t seq;
	uint64_t tid;
	uint8_t mgmt_class; /* a response must have these */
	uint16_t attr_id;
	struct xact_req req; /* addressed: the request is buf */
	struct madio_dest to;
	uint8_t buf[WIRE_MAD_SIZE];
};

/* What a completion hands over: a decoded SMP and/or the raw bytes. */
struct xact_resp {
	const struct wire_mad_hdr *hdr;
	const struct wire_smp *smp; /* SMI classes only */
	const uint8_t *buf;
	size_t len;
};

struct xact_engine {
	struct event_base *base;
	struct xact_opts opts; /* opts.window: the current bulk window */
	xact_send_fn send;
	void *send_ctx;
	uint64_t mkey;			    /* xact_set_mkey */
	struct xact_slot *slots[SLOTS_MAX]; /* [0..n_slots) allocated */
	unsigned n_slots;
	unsigned free_slots[SLOTS_MAX]; /* stack of free slot indices */
	unsigned n_free;
	struct xact_queue lanes[N_LANES];
	unsigned lane_out[N_LANES];
	uint32_t tid_high;
	uint32_t seq;
	/* adaptive bulk window: cwnd <= opts.window */
	unsigned cwnd, grow_acc;
	uint64_t send_seq, cut_seq; /* transmissions; the count at the last cut */
	bool pumping;
	bool cancelling_all; /* xact_cancel_all: no batch settles meanwhile */
	struct xact_batch *batches, *batches_tail;
	struct xact_batch *due; /* producers found dry with their batch idle (xact_pump) */
	struct xact_stats st;
};

struct xact_batch {
	struct xact_engine *xe; /* NULL once the engine is gone */
	struct xact_batch *prev, *next;
	xact_empty_fn on_empty;
	void *arg;
	xact_produce_fn produce;
	void *produce_ctx;
	enum xact_lane produce_lane;
	bool ready;	 /* the producer may have more: ask it */
	bool armed;	 /* given work since it was last empty */
	bool cancelling; /* xact_batch_cancel under way */
	bool in_empty;	 /* on_empty running */
	bool dead;	 /* freed while held: the last release frees it */
	bool due;	 /* on xe->due */
	struct xact_batch *due_next;
	unsigned hold; /* callbacks of the batch running */
	struct xact_batch_stats st;
};

/* ---- xact.c ---------------------------------------------------------------- */

/* Run a request's callback: with a response, timed out or cancelled. */
void xact_req_complete(struct xact_req *r, int status, const uint8_t *req_buf,
		       const struct xact_resp *resp);
bool xact_lane_is_valid(enum xact_lane lane);
/* The lane may start one more request (after a shrink bulk may hold more than the window). */
bool xact_lane_may_start(const struct xact_engine *xe, enum xact_lane lane);
/*
 * Fill the free slots: queued requests first, then producers; then settle
 * the batches whose producers ran dry.  Returns at once inside a pump.
 */
void xact_pump(struct xact_engine *xe);

/* ---- xact.c: batches as the engine sees them ---------------------------------- */

/* A request of b completed with status: count it. */
void xact_batch_count(struct xact_batch *b, int status);
/* Let go of b (held by b->hold++); the last release of a freed batch frees it. */
void xact_batch_release(struct xact_batch *b);
/*
 * b (held) may be empty: ask its producer if it may have more, then run
 * on_empty while b is empty and was given work.
 */
void xact_batch_settle(struct xact_batch *b);
/* b's producer ran dry inside the pump: hold b on xe->due, to settle after it. */
void xact_batch_due(struct xact_engine *xe, struct xact_batch *b);
/*
 * Inside the pump: the first producer of lane, in batch order, that submits
 * a request, when the lane has room and nothing of it is queued.  False
 * when none does.
 */
bool xact_batch_ask(struct xact_engine *xe, enum xact_lane lane);

#endif

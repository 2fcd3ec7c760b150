/*
 * The MAD transaction engine: TIDs, a window of outstanding requests, a timer
 * per request, retries, completion callbacks, batches and producers, all on
 * the event loop.  It owns flow control: callers hand it requests or a
 * producer to pull them from, never their own count of what is in flight.
 *
 * A request (struct xact_request, xact_submit) is a directed-route SMP
 * (discovery, the sweep) or an addressed MAD (a LID-routed SMP to a DLID, or
 * a GSI MAD such as PerfMgt or SA queries to a DLID, QPN, Q_Key and SL).
 * Each goes in one of two lanes.  Bulk (discovery, programming) fills the
 * window in the order submitted.  Control (SMInfo polls, port orders, SA
 * answers, MFT updates) is served first, in its own XACT_CONTROL_SLOTS slots
 * beyond the window, so it never waits behind queued bulk work and bulk
 * keeps its whole window.
 *
 * A batch (struct xact_batch) groups requests whose owner wants to know when
 * they are all done (on_empty), to cancel them at once, and to count them.
 * A batch may have a producer: the engine asks it for the batch's next
 * request when the producer's lane has room and nothing waits in that
 * lane's queue, so a caller with a million requests to make (discovery's
 * BFS, a configure batch) keeps them in its own compact form and the engine
 * holds only what fits the window.  Producers are asked in the order their
 * batches were made, after every queued request of their lane.
 *
 * It keeps its own timers because umad2sim (ibsim) never reports a send
 * timeout for a request whose answer is lost; the transport still gets a
 * timeout so real hardware can match responses.  The slot index is encoded in
 * the low bits of the TID, so a response finds its request in O(1); it must
 * also have the R bit and the request's class and attribute.
 * No logging: counters tell what happened.
 */
#ifndef IBSMD_XACT_H
#define IBSMD_XACT_H

#include <stdbool.h>

#include <event2/event.h>

#include "mad/madio.h"
#include "mad/wire.h"

#define XACT_WINDOW_MAX 1024
#define XACT_CONTROL_SLOTS 8 /* the control lane's, beyond the bulk window */
#define XACT_TIMEOUT_MAX_MS 60000
#define XACT_RETRIES_MAX 20
#define XACT_TRIES_MAX (XACT_RETRIES_MAX + 1)

struct xact_engine;

enum xact_lane {
	XACT_BULK,
	XACT_CONTROL,
};

struct xact_opts {
	unsigned window;     /* outstanding bulk requests at most (1..XACT_WINDOW_MAX) */
	unsigned timeout_ms; /* per attempt */
	unsigned retries;    /* extra attempts after the first */
	/*
	 * Adapt the bulk window to timeouts (AIMD): the first timeout of a
	 * request sent since the last cut halves it (at least 1), so a burst of
	 * losses from one window cuts once; every `cwnd` answered bulk requests
	 * grow it by one, back up to `window`.  A transport that drops MADs
	 * (a simulator, a full VL15 buffer) slows discovery and programming
	 * down instead of timing out a whole window again and again.
	 */
	bool adaptive;
};

/*
 * Send one encoded MAD to `to`; 0 or -errno.  Called from the loop.
 * Directed-route SMPs (and LID-routed ones given to xact_submit) go to the
 * permissive LID on QP0.
 */
typedef int (*xact_send_fn)(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
			    unsigned timeout_ms);

/*
 * Completion of an SMP request (xact_request.smp): status 0 with resp;
 * -EREMOTEIO with resp when the MAD status is non-zero; -ETIMEDOUT (resp
 * NULL) when every attempt went unanswered; -ECANCELED on xact_cancel_all,
 * xact_batch_cancel or xact_batch_free.  req is the request as submitted
 * (TID set once it was sent).
 */
typedef void (*xact_done_fn)(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp);

/*
 * Completion of an addressed request (xact_request.mad), with the same
 * statuses.  req is the
 * WIRE_MAD_SIZE request bytes (TID set once sent); with a response, hdr is
 * its decoded header and resp/len its raw bytes (len >= WIRE_MAD_HDR_SIZE,
 * the body not checked: the callback decodes it); else all three are NULL/0.
 * Every pointer is valid during the call only.
 */
typedef void (*xact_mad_done_fn)(void *arg, int status, const uint8_t *req,
				 const struct wire_mad_hdr *hdr, const uint8_t *resp, size_t len);

struct xact_stats {
	uint64_t submitted;
	uint64_t sent; /* attempts, retries included */
	uint64_t completed;
	uint64_t received;
	uint64_t timeouts; /* transactions that failed after all retries */
	uint64_t retries;
	uint64_t remote_errors; /* responses with a non-zero status */
	uint64_t unmatched;	/* responses for no outstanding request */
	uint64_t malformed;	/* input that failed to decode */
	uint64_t send_errors;
	unsigned outstanding; /* both lanes */
	unsigned queued;      /* both lanes */
	unsigned max_outstanding;
	unsigned ctl_outstanding; /* the control lane's share of the two above */
	unsigned ctl_queued;
	unsigned window;
	unsigned max_bulk; /* most bulk requests outstanding at once since the window was set */
	unsigned cwnd;	   /* the bulk window in effect (window unless adaptive cut it) */
	unsigned min_cwnd; /* the smallest it was since the window was set */
	uint64_t window_cuts;
};

/*
 * One request.  Zero what is not used (designated initializers): lane 0 is
 * XACT_BULK, batch NULL is none, timeout_ms and tries 0 are the engine's.
 * Exactly one of smp and mad:
 * - smp: a directed-route SMP (or a LID-routed one) sent to the permissive
 *   LID on QP0; done is its completion.  Copied.
 * - mad: a whole len == WIRE_MAD_SIZE addressed request (base version 1, R
 *   bit clear; its TID is the engine's to set), copied.  A LID-routed SMP
 *   (class SMI, a valid SMP) goes to to->dlid on QP0; a GSI MAD (any class
 *   but the two SMI ones) to to->dlid, to->qpn (1..0xffffff), to->qkey (0:
 *   MADIO_GSI_QKEY) and to->sl.  Directed-route SMPs go as smp.  mad_done
 *   is its completion.
 * timeout_ms (at most XACT_TIMEOUT_MAX_MS) and tries (attempts in all, the
 * first included; at most XACT_TRIES_MAX) of its own: an SMInfo poll that
 * must fail within its polling interval, not after the engine's retries.
 */
struct xact_request {
	enum xact_lane lane;
	struct xact_batch *batch;
	const struct wire_smp *smp;
	xact_done_fn done;
	const uint8_t *mad;
	size_t len;
	const struct madio_dest *to;
	xact_mad_done_fn mad_done;
	void *arg;
	unsigned timeout_ms;
	unsigned tries;
};

/* NULL on ENOMEM or bad opts. */
struct xact_engine *xact_new(struct event_base *base, const struct xact_opts *opts,
			     xact_send_fn send, void *send_ctx);
/*
 * Cancels what is pending (callbacks run with -ECANCELED), frees.  Batches
 * still open lose their engine: their owners free them (xact_batch_free)
 * as before, nothing else works on them.  NULL ok.
 */
void xact_free(struct xact_engine *xe);

/*
 * Queue a request (rq is copied; the pointers in it need live only during
 * the call); it goes out when its lane has room.  0, -EINVAL (a field out of
 * range, an SMP that does not encode, a MAD that is not one of the two kinds,
 * a batch of another or no engine), -ECANCELED (its batch is being
 * cancelled), -ENOMEM.
 */
int xact_submit(struct xact_engine *xe, const struct xact_request *rq);

/* ---- batches ------------------------------------------------------------- */

struct xact_batch;

/*
 * A batch's requests are all done.  Runs once each time the batch, having
 * been given work (a request submitted into it, or xact_batch_wake) since it
 * was last empty, holds no request (queued or in flight) and its producer,
 * if any, has said it has none: after the completion callback of its last
 * request returns, or when its producer runs dry with nothing in flight.
 * Cancellation never runs it.  It may submit into the batch (it runs again
 * when that is done) or free it.
 */
typedef void (*xact_empty_fn)(void *arg);

/*
 * A producer (xact_batch_set_producer): submit the batch's next request
 * (xact_submit) and return true, or return false when there is none now
 * (a request that cannot be submitted is the producer's to count; it tries
 * the next).  After false the engine does not ask again until
 * xact_batch_wake.  Called from inside the engine (a submit, a completion, a
 * wake): it must not free or cancel a batch, nor call xact_input.
 */
typedef bool (*xact_produce_fn)(void *ctx);

struct xact_batch_stats {
	uint64_t submitted;   /* requests accepted into the batch */
	uint64_t sent;	      /* of those, given a slot (sent at least once) */
	uint64_t ok;	      /* completed with status 0 */
	uint64_t failed;      /* with -EREMOTEIO (an error status) */
	uint64_t timed_out;   /* with -ETIMEDOUT, after every attempt */
	uint64_t cancelled;   /* with -ECANCELED */
	unsigned queued;      /* waiting for the window */
	unsigned outstanding; /* in flight */
};

/* A batch on xe; on_empty (NULL: none) gets arg.  NULL on ENOMEM or no xe. */
struct xact_batch *xact_batch_new(struct xact_engine *xe, xact_empty_fn on_empty, void *arg);
/*
 * Let the engine pull the batch's requests from fn (ctx) when lane has room;
 * set again to change the lane, fn NULL to stop.  The producer starts dry:
 * xact_batch_wake when it has something.
 */
void xact_batch_set_producer(struct xact_batch *b, enum xact_lane lane, xact_produce_fn fn,
			     void *ctx);
/* The producer has more: ask it again (now, when its lane has room).  NULL ok. */
void xact_batch_wake(struct xact_batch *b);
/*
 * Cancel the batch's requests.  The rule: every request of the batch
 * completes before this returns, with -ECANCELED, queued or in flight, and
 * no callback of them runs after; a request in flight keeps its slot, with
 * no callback, until its answer or timeout (no retry), so the window never
 * holds more than it says.  The producer is treated as dry until
 * xact_batch_wake; on_empty does not run; a submit into the batch from those
 * callbacks gets -ECANCELED.  The batch stays usable.  NULL ok.
 */
void xact_batch_cancel(struct xact_batch *b);
/*
 * Cancel (as above), then free.  NULL ok.  From inside one of the batch's
 * own callbacks (a completion, on_empty) the memory goes once that returns.
 */
void xact_batch_free(struct xact_batch *b);
/* Requests queued or in flight; 0 for NULL. */
unsigned xact_batch_pending(const struct xact_batch *b);
void xact_batch_get_stats(const struct xact_batch *b, struct xact_batch_stats *ret);

/* ---- input, control, counters --------------------------------------------- */

/*
 * A received MAD (response expected).  0 when it completed a request,
 * -ENOENT when it matched nothing (late or foreign), -EBADMSG when malformed
 * (no header, base version not 1, or an SMP that does not decode).
 */
int xact_input(struct xact_engine *xe, const uint8_t *buf, size_t len);

/* The transport reported that a sent MAD failed (e.g. umad status ETIMEDOUT). */
int xact_send_failed(struct xact_engine *xe, uint64_t tid);

/*
 * Change the bulk window (1..XACT_WINDOW_MAX) at run time; an adaptive
 * engine starts again from it.  Requests in
 * flight keep their slots and TIDs; after a shrink no new bulk request
 * starts until fewer than `window` bulk ones are outstanding.  0, -EINVAL,
 * or -ENOMEM (growing; the old window stays).
 */
int xact_set_window(struct xact_engine *xe, unsigned window);

/*
 * Every request completes with -ECANCELED (batches' too: on_empty does not
 * run) and every slot is freed; the engine keeps working.
 */
void xact_cancel_all(struct xact_engine *xe);
/* Requests queued, and slots in use (a cancelled request's in flight included). */
unsigned xact_pending(const struct xact_engine *xe);
void xact_get_stats(const struct xact_engine *xe, struct xact_stats *ret);
/* Bytes the engine holds on the heap (slots, lane queues); 0 for NULL. */
size_t xact_mem(const struct xact_engine *xe);
void xact_set_opts(struct xact_engine *xe, unsigned timeout_ms, unsigned retries);
/*
 * The M_Key every SMP (directed route or LID-routed) is sent with from now on,
 * unless its submitter set one of its own; 0 = none (IBA 14.2.4).
 */
void xact_set_mkey(struct xact_engine *xe, uint64_t mkey);

#endif

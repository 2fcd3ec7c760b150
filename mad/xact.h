/*
 * The SMP transaction engine: TIDs, a window of outstanding requests, a timer
 * per request, retries, and completion callbacks, all on the event loop.
 *
 * It keeps its own timers because umad2sim (ibsim) never reports a send
 * timeout for a request whose answer is lost; the transport still gets a
 * timeout so real hardware can match responses.  The slot index is encoded in
 * the low bits of the TID, so a response finds its request in O(1).
 * No logging: counters tell what happened.
 */
#ifndef IBSMD_XACT_H
#define IBSMD_XACT_H

#include <event2/event.h>

#include "mad/madio.h"
#include "mad/wire.h"

struct xact_engine;

struct xact_opts {
	unsigned window;     /* outstanding requests at most (1..1024) */
	unsigned timeout_ms; /* per attempt */
	unsigned retries;    /* extra attempts after the first */
};

/*
 * Send one encoded MAD to `to`; 0 or -errno.  Called from the loop.  SMPs
 * go to the permissive LID on QP0.
 */
typedef int (*xact_send_fn)(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
			    unsigned timeout_ms);

/*
 * Completion: status 0 with resp; -EREMOTEIO with resp when the MAD status is
 * non-zero; -ETIMEDOUT (resp NULL) when every attempt went unanswered;
 * -ECANCELED on xact_cancel_all.  req is the request as submitted (TID set).
 */
typedef void (*xact_done_fn)(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp);

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
	unsigned outstanding;
	unsigned queued;
	unsigned max_outstanding;
};

/* NULL on ENOMEM or bad opts. */
struct xact_engine *xact_new(struct event_base *base, const struct xact_opts *opts,
			     xact_send_fn send, void *send_ctx);
/* Cancels what is pending (callbacks run with -ECANCELED), frees. NULL ok. */
void xact_free(struct xact_engine *xe);

/* Queue a request; it goes out when the window has room.  0 or -ENOMEM/-EINVAL. */
int xact_submit(struct xact_engine *xe, const struct wire_smp *req, xact_done_fn done, void *arg);

/*
 * A received MAD (response expected).  0 when it completed a request,
 * -ENOENT when it matched nothing (late or foreign), -EBADMSG when malformed.
 */
int xact_input(struct xact_engine *xe, const uint8_t *buf, size_t len);

/* The transport reported that a sent MAD failed (e.g. umad status ETIMEDOUT). */
int xact_send_failed(struct xact_engine *xe, uint64_t tid);

void xact_cancel_all(struct xact_engine *xe);
unsigned xact_pending(const struct xact_engine *xe);
void xact_get_stats(const struct xact_engine *xe, struct xact_stats *ret);
void xact_set_opts(struct xact_engine *xe, unsigned timeout_ms, unsigned retries);

#endif

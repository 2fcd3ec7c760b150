/*
 * The MAD transaction engine: TIDs, a window of outstanding requests, a timer
 * per request, retries, and completion callbacks, all on the event loop.
 *
 * Requests are directed-route SMPs (xact_submit: discovery, the sweep) or
 * addressed MADs (xact_submit_mad: LID-routed SMPs to a DLID, and GSI MADs
 * such as PerfMgt or SA queries to a DLID, QPN, Q_Key and SL).  Each goes in
 * one of two lanes.  Bulk (discovery, programming) fills the window in the
 * order submitted.  Control (SMInfo polls, port orders, SA answers, MFT
 * updates) is served first, in its own XACT_CONTROL_SLOTS slots beyond the
 * window, so it never waits behind queued bulk work and bulk keeps its
 * whole window.
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

#include <event2/event.h>

#include "mad/madio.h"
#include "mad/wire.h"

#define XACT_WINDOW_MAX 1024
#define XACT_CONTROL_SLOTS 8 /* the control lane's, beyond the bulk window */
#define XACT_TIMEOUT_MAX_MS 60000
#define XACT_RETRIES_MAX 20

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
 * Completion of xact_submit: status 0 with resp; -EREMOTEIO with resp when
 * the MAD status is non-zero; -ETIMEDOUT (resp NULL) when every attempt went
 * unanswered; -ECANCELED on xact_cancel_all.  req is the request as
 * submitted (TID set once it was sent).
 */
typedef void (*xact_done_fn)(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp);

/*
 * Completion of xact_submit_mad, with the same statuses.  req is the
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

/* NULL on ENOMEM or bad opts. */
struct xact_engine *xact_new(struct event_base *base, const struct xact_opts *opts,
			     xact_send_fn send, void *send_ctx);
/* Cancels what is pending (callbacks run with -ECANCELED), frees. NULL ok. */
void xact_free(struct xact_engine *xe);

/*
 * Queue an SMP on the bulk lane; it goes out when the window has room.
 * 0 or -ENOMEM/-EINVAL (req does not encode).
 */
int xact_submit(struct xact_engine *xe, const struct wire_smp *req, xact_done_fn done, void *arg);
/* The same on either lane. */
int xact_submit_lane(struct xact_engine *xe, enum xact_lane lane, const struct wire_smp *req,
		     xact_done_fn done, void *arg);
/*
 * The same with a timeout per attempt (0: the engine's; at most
 * XACT_TIMEOUT_MAX_MS) and a number of retries (< 0: the engine's; at most
 * XACT_RETRIES_MAX) of its own: an SMInfo poll that must fail within its
 * polling interval, not after the engine's retries.  -EINVAL beyond those.
 */
int xact_submit_timed(struct xact_engine *xe, enum xact_lane lane, const struct wire_smp *req,
		      unsigned timeout_ms, int retries, xact_done_fn done, void *arg);

/*
 * Queue an addressed request: mad is a whole WIRE_MAD_SIZE request (base
 * version 1, R bit clear; its TID is the engine's to set), copied.  A
 * LID-routed SMP (class SMI, a valid SMP) goes to to->dlid on QP0; a GSI MAD
 * (any class but the two SMI ones) to to->dlid, to->qpn (1..0xffffff),
 * to->qkey (0: MADIO_GSI_QKEY) and to->sl.  -EINVAL for anything else
 * (directed-route SMPs go through xact_submit), -ENOMEM, or 0.
 */
int xact_submit_mad(struct xact_engine *xe, enum xact_lane lane, const struct madio_dest *to,
		    const uint8_t *mad, size_t len, xact_mad_done_fn done, void *arg);
/* The same with a timeout and retries of its own (as xact_submit_timed). */
int xact_submit_mad_timed(struct xact_engine *xe, enum xact_lane lane, const struct madio_dest *to,
			  const uint8_t *mad, size_t len, unsigned timeout_ms, int retries,
			  xact_mad_done_fn done, void *arg);

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

void xact_cancel_all(struct xact_engine *xe);
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

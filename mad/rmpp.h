/*
 * RMPP, the Reliable Multi-Packet Protocol (IBA 1.4 vol 1, 13.6), for SA
 * MADs (class 0x03): a sender that cuts a payload of SA records into DATA
 * segments and paces them by the receiver's ACKs, a receiver that puts the
 * segments of a transfer back together, and one context that holds many
 * transfers of both kinds at once, each with its own timer.  Our umad agent
 * for class 0x03 is registered with rmpp_version 0, so the kernel does no
 * RMPP for us: it is all here, on the event loop, in user space.
 *
 * The RMPP header is bytes 24..35 of the MAD; rmpp_hdr_decode/encode are its
 * codec (libibmad's IB_SA_RMPP_*_F fields).  Every segment repeats the first
 * 56 bytes (MAD header, RMPP header, SA header: SM_Key, AttributeOffset,
 * ComponentMask) and carries up to 200 bytes of SA data at offset 56.
 *
 * Facts this file keeps (the Linux kernel's drivers/infiniband/core/mad.c and
 * mad_rmpp.c, and the IBA's receiver and sender flows as Solaris's ibmf_rmpp.c
 * follows them):
 *  - PayloadLength counts the SA header of every segment (220 bytes a
 *    segment): the first segment carries the total, 20 * segments + data
 *    bytes; the last one 20 + the data bytes in it; the others 0.  A
 *    single-segment transfer carries 20 + data (20 for no records).  A
 *    receiver may see 0 in the first segment: the total is not known.
 *  - The sender's window starts at 1: segment 1 goes out alone and the
 *    receiver's ACK (SegmentNumber = last received in order, NewWindowLast)
 *    opens the rest.  The kernel's receiver answers segment 1 with
 *    NewWindowLast 1 + 64 (its receive queue / 8) and grows it by as much
 *    each time it reaches the window's end; ours does the same with
 *    rmpp_opts.window.  A timeout resends from the last ACKed segment + 1 up
 *    to the window's end (go-back-N; with the window all ACKed and not
 *    opened, the last ACKed one, which a receiver ACKs again with its
 *    window); every ACK that moves forward restores the retries.
 *  - A single-segment answer (Active|First|Last) completes when it has been
 *    sent; it waits for no ACK.  The kernel's receiver does ACK it (segment
 *    1, NewWindowLast 1) as it completes, but needs nothing back and keeps
 *    no state a missing answer could confuse; ibsim has no RMPP and never
 *    ACKs, so waiting would turn every SA answer there into retries and a
 *    timeout.  That late ACK reaches rmpp_input after the transfer is gone:
 *    -ENOENT, counted as unmatched.  If the one segment is lost the client's
 *    own retry of its query covers it.  (The kernel's sender does wait for
 *    that ACK; we differ on purpose.)
 *  - ACKs, ABORTs and STOPs carry the first 56 bytes of the transfer's
 *    DATA with the R bit of the method flipped when the receiver sends them
 *    (an ACK of a GetTableResp has method GetTable, 0x12): a caller that
 *    dispatches SA MADs by method must hand every RMPP-active MAD that is not
 *    a DATA to rmpp_input before it takes one for a query.
 *  - ABORT statuses (13.6.2.2): 118 total time too long (our receiver, when
 *    the sender goes quiet), 119 inconsistent Last and PayloadLength, 120
 *    inconsistent First and SegmentNumber (First without segment 1, segment
 *    1 without First, a DATA segment 0), 121 bad RMPPType, 122
 *    NewWindowLast too small, 123 SegmentNumber too big (an ACK for a
 *    segment never sent), 124 illegal status, 125 unsupported version, 126
 *    too many retries (our sender, when every retry went unanswered).  STOP
 *    carries 1, resources exhausted (our receiver, for a transfer larger than
 *    max_payload or beyond max_transfers/max_bytes).
 *  - A receiver drops a segment out of sequence inside its window and ACKs
 *    the last one it has in order (IBA's flow; the kernel buffers it
 *    instead), re-ACKs duplicates, and ACKs the last segment again for a
 *    while after completion so a lost final ACK does not fail the sender.
 *    There is no IBA status for "out of order": it is loss, not an error.
 *
 * Not done: double-sided transfers (a multi-segment request answered by a
 * multi-segment response on one TID), classes other than SA, RRespTime
 * (kept from the header given, 0x1F "none" in what we make up).
 * No logging: counters tell what happened.
 */
#ifndef IBSMD_RMPP_H
#define IBSMD_RMPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "mad/madio.h"

#define RMPP_HDR_END 36		/* the MAD header and the RMPP header */
#define RMPP_SA_HDR_SIZE 56	/* ... and the SA header: where SA data begins */
#define RMPP_SA_DATA_SIZE 200	/* SA data in one segment */
#define RMPP_SA_SEG_PAYLOAD 220 /* what PayloadLength counts per segment */
#define RMPP_NO_RESPTIME 0x1F

#define RMPP_VERSION 1

enum rmpp_type {
	RMPP_TYPE_DATA = 1,
	RMPP_TYPE_ACK = 2,
	RMPP_TYPE_STOP = 3,
	RMPP_TYPE_ABORT = 4,
};

enum rmpp_flag {
	RMPP_FLAG_ACTIVE = 1 << 0,
	RMPP_FLAG_FIRST = 1 << 1,
	RMPP_FLAG_LAST = 1 << 2,
};

enum rmpp_status {
	RMPP_STATUS_NORMAL = 0,
	RMPP_STATUS_RESX = 1,	      /* STOP: resources exhausted */
	RMPP_STATUS_T2L = 118,	      /* total time too long */
	RMPP_STATUS_BAD_LEN = 119,    /* inconsistent Last and PayloadLength */
	RMPP_STATUS_BAD_SEG = 120,    /* inconsistent First and SegmentNumber */
	RMPP_STATUS_BADT = 121,	      /* bad RMPPType */
	RMPP_STATUS_W2S = 122,	      /* NewWindowLast too small */
	RMPP_STATUS_S2B = 123,	      /* SegmentNumber too big */
	RMPP_STATUS_BAD_STATUS = 124, /* illegal status */
	RMPP_STATUS_UNV = 125,	      /* unsupported version */
	RMPP_STATUS_TMR = 126,	      /* too many retries */
	RMPP_STATUS_UNSPECIFIED = 127,
};
#define RMPP_STATUS_ABORT_MIN 118
#define RMPP_STATUS_ABORT_MAX 127

/* The RMPP header (bytes 24..35), host order. */
struct rmpp_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t resp_time; /* 5 bits */
	uint8_t flags;	   /* 3 bits: RMPP_FLAG_* */
	uint8_t status;
	uint32_t data1; /* DATA, ACK: SegmentNumber */
	uint32_t data2; /* DATA: PayloadLength; ACK: NewWindowLast */
};

/* -EBADMSG when buf is NULL or shorter than RMPP_HDR_END; ret untouched then. */
int rmpp_hdr_decode(const uint8_t *buf, size_t len, struct rmpp_hdr *ret);
/*
 * Write h over buf[24..36) (the MAD header is kept).  -ENOSPC when len <
 * RMPP_HDR_END, -EINVAL when resp_time > 31 or flags > 7; else 0.
 */
int rmpp_hdr_encode(const struct rmpp_hdr *h, uint8_t *buf, size_t len);
/* True when buf holds an RMPP header with the Active flag. */
bool rmpp_is_active(const uint8_t *buf, size_t len);

struct rmpp;

/*
 * Send one WIRE_MAD_SIZE MAD to `to` (from the loop); 0 or -errno.  It must
 * not call back into the context.
 */
typedef int (*rmpp_send_fn)(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len);

/*
 * A transfer we send ended: 0 acknowledged (a single segment: sent);
 * -ETIMEDOUT every retry went unanswered (an ABORT "too many retries" was
 * sent); -ECONNABORTED the receiver sent an ABORT; -ENOBUFS it sent a STOP
 * (resources exhausted); -EPROTO it sent an ACK that breaks the protocol (we
 * answered with an ABORT); -ECANCELED rmpp_free.  Never called from inside
 * rmpp_send.
 */
typedef void (*rmpp_done_fn)(void *arg, int status);

/*
 * A transfer we receive ended.  status 0: hdr is the first segment's
 * RMPP_SA_HDR_SIZE bytes, payload/len the SA data of every segment in
 * order (len 0 possible, payload then non-NULL).  Else hdr as before and
 * payload NULL, len 0: -ETIMEDOUT (the sender went quiet; we sent ABORT
 * "total time too long"), -ECONNABORTED (it sent an ABORT or STOP), -EPROTO
 * (its segments broke the protocol; we sent an ABORT), -ENOBUFS (it grew
 * beyond max_payload or max_bytes; we sent a STOP), -ECANCELED (rmpp_free).
 * The pointers are valid during the call only.
 */
typedef void (*rmpp_recv_fn)(void *arg, int status, const struct madio_addr *from,
			     const uint8_t *hdr, const uint8_t *payload, size_t len);

#define RMPP_DEFAULT_TIMEOUT_MS 1000
#define RMPP_DEFAULT_WINDOW 64
#define RMPP_DEFAULT_MAX_TRANSFERS 1024
#define RMPP_DEFAULT_MAX_PAYLOAD (8u << 20) /* 47,824 NodeRecords are ~5.4 MB */
#define RMPP_DEFAULT_MAX_BYTES (64u << 20)
#define RMPP_PAYLOAD_LIMIT (64u << 20)

/*
 * 0 picks the default, except for retries.  Our receiver waits
 * (retries + 2) x timeout_ms for the next segment in order before it aborts,
 * and lingers as long after completion to ACK duplicates.
 */
struct rmpp_opts {
	unsigned timeout_ms;	/* a sender's wait for an ACK, per attempt */
	unsigned retries;	/* a sender's resends of a window before it aborts */
	unsigned window;	/* segments our receiver opens per ACK */
	unsigned max_transfers; /* held at once, both kinds, lingering receivers too */
	size_t max_payload;	/* SA data of one transfer, at most RMPP_PAYLOAD_LIMIT */
	size_t max_bytes;	/* SA data held by all transfers together */
};

struct rmpp_stats {
	/* transfers we send */
	uint64_t started;
	uint64_t completed;
	uint64_t aborted; /* by the receiver's STOP/ABORT or a bad ACK */
	uint64_t timeouts;
	uint64_t cancelled;
	/* transfers we receive */
	uint64_t recv_started;
	uint64_t recv_completed;
	uint64_t recv_aborted; /* by the sender's ABORT/STOP or its bad segments */
	uint64_t recv_timeouts;
	uint64_t recv_refused; /* STOPs we sent: too big, too many */
	uint64_t recv_cancelled;
	/* segments and the rest */
	uint64_t segs_sent; /* first transmissions */
	uint64_t segs_resent;
	uint64_t segs_received; /* taken in order */
	uint64_t segs_duplicate;
	uint64_t segs_out_of_order; /* dropped: ahead of the one expected */
	uint64_t acks_sent;
	uint64_t acks_received; /* that matched a transfer */
	uint64_t acks_stale;	/* older than the last one taken */
	uint64_t stops_sent, stops_received;
	uint64_t aborts_sent, aborts_received;
	uint64_t malformed;   /* rmpp_input returned -EBADMSG */
	uint64_t unmatched;   /* rmpp_input returned -ENOENT */
	uint64_t send_errors; /* the send callback failed */
	unsigned active;      /* transfers held now */
	size_t bytes;	      /* SA data held now */
};

/*
 * opts NULL: every default.  NULL on ENOMEM or bad arguments (base or send
 * NULL, an option out of range).
 */
struct rmpp *rmpp_new(struct event_base *base, const struct rmpp_opts *opts, rmpp_send_fn send,
		      void *send_ctx);
/*
 * Ends every transfer (done and the receive callback run with -ECANCELED;
 * rmpp_send from them returns -ESHUTDOWN), frees.  NULL ok.  Not from inside
 * a callback.
 */
void rmpp_free(struct rmpp *r);

/*
 * Take DATA transfers that peers start (fn NULL: refuse them, rmpp_input
 * returns -ENOENT for their segments).
 */
void rmpp_set_receiver(struct rmpp *r, rmpp_recv_fn fn, void *arg);

/*
 * Send payload/len (SA records, len 0 allowed) to `to` as a transfer:
 * hdr[0..56) is copied into every segment but for the RMPP header (its
 * RRespTime is kept); its TID, with to->dlid and to->qpn, names the
 * transfer.  payload is copied.  done(arg, status) runs once, from the loop.
 * 0; -EINVAL (NULL, hdr not base version 1 class SA, to->dlid 0 or qpn 0);
 * -EMSGSIZE (len > max_payload); -EEXIST (a transfer of that TID to that
 * peer is under way: a client's retry of its query); -ENOBUFS
 * (max_transfers or max_bytes reached); -ESHUTDOWN (in rmpp_free); -ENOMEM.
 * On failure done never runs.
 */
int rmpp_send(struct rmpp *r, const struct madio_dest *to, const uint8_t *hdr,
	      const uint8_t *payload, size_t len, rmpp_done_fn done, void *arg);

/*
 * An RMPP MAD from a peer: ACK, STOP or ABORT for a transfer we send, DATA,
 * STOP or ABORT for one we receive.  0 consumed (taken, a duplicate or a
 * segment out of sequence dropped, a transfer refused by a STOP); -ENOENT
 * for no transfer (the late ACK of a single-segment answer, a DATA segment
 * but the first of an unknown transfer, any DATA without a receiver);
 * -EBADMSG malformed: shorter than a MAD, base version not 1, not class SA,
 * RMPP not active (no answer to any of these), or breaking the protocol: an
 * ABORT with the status above answers it (never a STOP or an ABORT, however
 * bad) and the transfer it names, if any, ends; but a DATA segment beyond
 * the receiver's window is only dropped.  -EINVAL r or from NULL,
 * -ESHUTDOWN in rmpp_free (neither counted).  Callbacks may run from
 * inside.
 */
int rmpp_input(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad, size_t len);

void rmpp_get_stats(const struct rmpp *r, struct rmpp_stats *ret);

#endif

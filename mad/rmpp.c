/*
 * RMPP for SA MADs (see rmpp.h).  IBA 1.4 vol 1, 13.6: 13.6.2 the header and
 * its statuses, 13.6.3 the sender (window, go-back-N on timeout) and
 * receiver (in-order acceptance, ACK at the window's end) flows.
 *
 * A transfer is either one we send or one we receive; both live in one
 * array, sized from max_transfers, with a u64map index keyed by (TID, peer
 * LID, peer QPN, direction) folded with a random seed (a peer choosing TIDs
 * cannot aim at one probe run), so an incoming MAD finds its transfer in
 * O(1).  Each has its own timer: a sender's ACK wait (or the
 * zero-delay completion of a single segment, so done never runs inside
 * rmpp_send), a receiver's wait for the next segment and, once complete, its
 * linger for duplicates.  A transfer leaves the table and is freed before its
 * callback runs, so a callback may start new transfers or feed input.
 *
 * Memory: a sender holds a copy of its payload, a receiver grows its buffer
 * to the declared total (or by doubling when the first segment says 0), both
 * within max_payload and, all together, max_bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "lib/u64map.h"
#include "mad/rmpp.h"
#include "mad/wire.h"

#define SA_CLASS_HDR (RMPP_SA_SEG_PAYLOAD - RMPP_SA_DATA_SIZE) /* 20 */
#define WINDOW_LIMIT (1u << 16)
#define TRANSFERS_LIMIT (1u << 20)

struct rmpp_xfer {
	struct rmpp *r;
	uint32_t slot; /* its place in r->xfers */
	struct event *timer;
	/* the key */
	uint64_t tid;
	uint16_t lid;
	uint32_t qpn;
	bool recv;

	struct madio_dest to; /* where our MADs for it go */
	uint8_t hdr[RMPP_SA_HDR_SIZE];
	uint8_t *data;
	size_t len;	 /* sender: the payload; receiver: taken so far */
	size_t reserved; /* counted in r->st.bytes */
	uint32_t wl;	 /* the window's last segment */
	unsigned tries_left;

	/* sender */
	uint32_t nsegs;
	uint32_t sent; /* highest segment handed to the transport */
	uint32_t last_ack;
	bool single_sent; /* a single segment went out: complete on the timer */
	rmpp_done_fn done;
	void *arg;

	/* receiver */
	struct madio_addr from;
	uint32_t expected; /* the next segment in order */
	uint32_t total;	   /* the first segment's PayloadLength (0: not known) */
	bool lingering;	   /* complete; ACKs duplicates until the timer */
};

struct rmpp {
	struct event_base *base;
	struct rmpp_opts o;
	rmpp_send_fn send;
	void *send_ctx;
	rmpp_recv_fn recv;
	void *recv_arg;
	struct rmpp_xfer **xfers; /* [0, st.active), room for o.max_transfers */
	struct u64map index;	  /* xfer_key() -> xfers[] slot */
	uint64_t seed;
	bool closing;
	struct rmpp_stats st;
};

/* ---- the header codec ------------------------------------------------------ */

static uint32_t get(const uint8_t *buf, enum MAD_FIELDS f)
{
	return mad_get_field((void *)buf, 0, f);
}

int rmpp_hdr_decode(const uint8_t *buf, size_t len, struct rmpp_hdr *ret)
{
	struct rmpp_hdr h;

	if (!buf || len < RMPP_HDR_END)
		return -EBADMSG;
	memset(&h, 0, sizeof(h));
	h.version = get(buf, IB_SA_RMPP_VERS_F);
	h.type = get(buf, IB_SA_RMPP_TYPE_F);
	h.resp_time = get(buf, IB_SA_RMPP_RESP_F);
	h.flags = get(buf, IB_SA_RMPP_FLAGS_F);
	h.status = get(buf, IB_SA_RMPP_STATUS_F);
	h.data1 = get(buf, IB_SA_RMPP_D1_F);
	h.data2 = get(buf, IB_SA_RMPP_D2_F);
	*ret = h;
	return 0;
}

int rmpp_hdr_encode(const struct rmpp_hdr *h, uint8_t *buf, size_t len)
{
	if (len < RMPP_HDR_END)
		return -ENOSPC;
	if (h->resp_time > 0x1f || h->flags > 7)
		return -EINVAL;
	mad_set_field(buf, 0, IB_SA_RMPP_VERS_F, h->version);
	mad_set_field(buf, 0, IB_SA_RMPP_TYPE_F, h->type);
	mad_set_field(buf, 0, IB_SA_RMPP_RESP_F, h->resp_time);
	mad_set_field(buf, 0, IB_SA_RMPP_FLAGS_F, h->flags);
	mad_set_field(buf, 0, IB_SA_RMPP_STATUS_F, h->status);
	mad_set_field(buf, 0, IB_SA_RMPP_D1_F, h->data1);
	mad_set_field(buf, 0, IB_SA_RMPP_D2_F, h->data2);
	return 0;
}

bool rmpp_is_active(const uint8_t *buf, size_t len)
{
	struct rmpp_hdr h;

	return rmpp_hdr_decode(buf, len, &h) == 0 && (h.flags & RMPP_FLAG_ACTIVE);
}

/* ---- the table --------------------------------------------------------------- */

/* The key of (tid, lid, qpn, recv) in the index; two transfers may share one. */
static uint64_t xfer_key(const struct rmpp *r, uint64_t tid, uint16_t lid, uint32_t qpn, bool recv)
{
	uint64_t k = tid ^ r->seed;

	k ^= ((uint64_t)lid << 48 | (uint64_t)qpn << 1 | recv) * 0x9e3779b97f4a7c15ull;
	k ^= k >> 31;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 29;
	return k;
}

static struct rmpp_xfer *xfer_find(struct rmpp *r, uint64_t tid, uint16_t lid, uint32_t qpn,
				   bool recv)
{
	uint64_t key = xfer_key(r, tid, lid, qpn, recv);
	uint32_t c, i;

	for (i = u64map_first(&r->index, key, &c); i != U64MAP_NONE;
	     i = u64map_next(&r->index, key, &c)) {
		struct rmpp_xfer *x = r->xfers[i];

		if (x->tid == tid && x->lid == lid && x->qpn == qpn && x->recv == recv)
			return x;
	}
	return NULL;
}

/* Into the array and the index: room for max_transfers was made by rmpp_new. */
static void xfer_link(struct rmpp *r, struct rmpp_xfer *x)
{
	x->slot = r->st.active++;
	r->xfers[x->slot] = x;
	u64map_add(&r->index, xfer_key(r, x->tid, x->lid, x->qpn, x->recv), x->slot);
}

/* Out of the array and the index, its timer off, its memory given back. */
static void xfer_free(struct rmpp_xfer *x)
{
	struct rmpp *r = x->r;
	uint32_t last = r->st.active - 1;

	u64map_del(&r->index, xfer_key(r, x->tid, x->lid, x->qpn, x->recv), x->slot);
	if (x->slot != last) {
		struct rmpp_xfer *y = r->xfers[last];

		y->slot = x->slot;
		r->xfers[y->slot] = y;
		u64map_set(&r->index, xfer_key(r, y->tid, y->lid, y->qpn, y->recv), last, y->slot);
	}
	r->st.active--;
	r->st.bytes -= x->reserved;
	event_free(x->timer);
	free(x->data);
	free(x);
}

static bool budget_fits(const struct rmpp *r, size_t more)
{
	return more <= r->o.max_bytes - r->st.bytes;
}

static void timer_ms(struct rmpp_xfer *x, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	evtimer_add(x->timer, &tv);
}

static void sender_timeout(struct rmpp_xfer *x);
static void recv_timeout(struct rmpp_xfer *x);

static void xfer_timer(evutil_socket_t fd, short what, void *arg)
{
	struct rmpp_xfer *x = arg;

	if (x->recv)
		recv_timeout(x);
	else
		sender_timeout(x);
}

/* ---- making and sending MADs --------------------------------------------------- */

static int xmit(struct rmpp *r, const struct madio_dest *to, const uint8_t *mad)
{
	int rc = r->send(r->send_ctx, to, mad, WIRE_MAD_SIZE);

	if (rc < 0)
		r->st.send_errors++;
	return rc;
}

/*
 * An ACK, STOP or ABORT made of src's first 56 bytes, the R bit flipped when
 * the receiver's side of a transfer sends it.  RRespTime is src's.
 */
static void make_ctl(const uint8_t *src, bool flip, uint8_t type, uint8_t status, uint32_t d1,
		     uint32_t d2, uint8_t *out)
{
	struct rmpp_hdr h = {
	    .version = RMPP_VERSION,
	    .type = type,
	    .resp_time = get(src, IB_SA_RMPP_RESP_F),
	    .flags = RMPP_FLAG_ACTIVE,
	    .status = status,
	    .data1 = d1,
	    .data2 = d2,
	};
	struct wire_mad_hdr mh;

	memset(out, 0, WIRE_MAD_SIZE);
	memcpy(out, src, RMPP_SA_HDR_SIZE);
	if (flip) {
		wire_mad_hdr_decode(out, WIRE_MAD_SIZE, &mh);
		mh.method ^= WIRE_METHOD_RESP;
		wire_mad_hdr_encode(&mh, out, WIRE_MAD_SIZE);
	}
	rmpp_hdr_encode(&h, out, WIRE_MAD_SIZE);
}

static void dest_of(const struct madio_addr *from, struct madio_dest *ret)
{
	ret->dlid = from->slid;
	ret->qpn = from->qpn;
	ret->qkey = from->qkey;
	ret->sl = from->sl;
}

static void send_ctl(struct rmpp *r, const struct madio_dest *to, const uint8_t *src, bool flip,
		     uint8_t type, uint8_t status, uint32_t d1, uint32_t d2)
{
	uint8_t mad[WIRE_MAD_SIZE];

	make_ctl(src, flip, type, status, d1, d2, mad);
	xmit(r, to, mad);
	if (type == RMPP_TYPE_ACK)
		r->st.acks_sent++;
	else if (type == RMPP_TYPE_STOP)
		r->st.stops_sent++;
	else if (type == RMPP_TYPE_ABORT)
		r->st.aborts_sent++;
}

/* Answer a peer's MAD with an ABORT or a STOP (the peer's side of it flipped). */
static void reply(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad, uint8_t type,
		  uint8_t status)
{
	struct madio_dest to;

	dest_of(from, &to);
	send_ctl(r, &to, mad, true, type, status, 0, 0);
}

/* ---- sending ----------------------------------------------------------------------- */

/* Segment s (1..nsegs) of a transfer we send, as the kernel lays it out. */
static void make_segment(const struct rmpp_xfer *x, uint32_t s, uint8_t *out)
{
	size_t off = (size_t)(s - 1) * RMPP_SA_DATA_SIZE;
	size_t n = x->len - off < RMPP_SA_DATA_SIZE ? x->len - off : RMPP_SA_DATA_SIZE;
	struct rmpp_hdr h = {
	    .version = RMPP_VERSION,
	    .type = RMPP_TYPE_DATA,
	    .resp_time = get(x->hdr, IB_SA_RMPP_RESP_F),
	    .flags = RMPP_FLAG_ACTIVE,
	    .data1 = s,
	};

	if (s == 1) {
		h.flags |= RMPP_FLAG_FIRST;
		h.data2 = (uint32_t)(x->len + (size_t)SA_CLASS_HDR * x->nsegs);
	}
	if (s == x->nsegs) {
		h.flags |= RMPP_FLAG_LAST;
		h.data2 = (uint32_t)(SA_CLASS_HDR + n);
	}
	memset(out, 0, WIRE_MAD_SIZE);
	memcpy(out, x->hdr, RMPP_SA_HDR_SIZE);
	if (n)
		memcpy(out + RMPP_SA_HDR_SIZE, x->data + off, n);
	rmpp_hdr_encode(&h, out, WIRE_MAD_SIZE);
}

/* Send segments from..window's end (or the last), then wait. */
static void sender_pump(struct rmpp_xfer *x, uint32_t from)
{
	struct rmpp *r = x->r;
	uint32_t end = x->wl < x->nsegs ? x->wl : x->nsegs;
	uint8_t mad[WIRE_MAD_SIZE];

	for (uint32_t s = from; s <= end; s++) {
		int rc;

		make_segment(x, s, mad);
		rc = xmit(r, &x->to, mad);
		if (s > x->sent) {
			x->sent = s;
			r->st.segs_sent++;
		} else {
			r->st.segs_resent++;
		}
		if (x->nsegs == 1 && rc == 0)
			x->single_sent = true;
	}
	timer_ms(x, x->single_sent ? 0 : r->o.timeout_ms);
}

static void sender_finish(struct rmpp_xfer *x, int status)
{
	rmpp_done_fn done = x->done;
	void *arg = x->arg;

	xfer_free(x);
	if (done)
		done(arg, status);
}

static void sender_timeout(struct rmpp_xfer *x)
{
	struct rmpp *r = x->r;

	if (x->single_sent) {
		r->st.completed++;
		sender_finish(x, 0);
		return;
	}
	if (x->tries_left == 0) {
		send_ctl(r, &x->to, x->hdr, false, RMPP_TYPE_ABORT, RMPP_STATUS_TMR, 0, 0);
		r->st.timeouts++;
		sender_finish(x, -ETIMEDOUT);
		return;
	}
	x->tries_left--;
	/*
	 * Go back to the first segment not ACKed.  With the whole window ACKed
	 * and no new one given, resend the last ACKed instead: a receiver
	 * ACKs a duplicate again, with its window.
	 */
	if (x->last_ack + 1 > x->wl)
		sender_pump(x, x->last_ack);
	else
		sender_pump(x, x->last_ack + 1);
}

int rmpp_send(struct rmpp *r, const struct madio_dest *to, const uint8_t *hdr,
	      const uint8_t *payload, size_t len, rmpp_done_fn done, void *arg)
{
	struct wire_mad_hdr mh;
	struct rmpp_xfer *x;

	if (!r || !to || !hdr || (len && !payload))
		return -EINVAL;
	if (r->closing)
		return -ESHUTDOWN;
	if (wire_mad_hdr_decode(hdr, RMPP_SA_HDR_SIZE, &mh) < 0 || mh.base_version != 1 ||
	    mh.mgmt_class != WIRE_CLASS_SA || to->dlid == 0 || to->qpn == 0 || to->qpn > 0xffffff)
		return -EINVAL;
	if (len > r->o.max_payload)
		return -EMSGSIZE;
	if (xfer_find(r, mh.tid, to->dlid, to->qpn, false))
		return -EEXIST;
	if (r->st.active >= r->o.max_transfers || !budget_fits(r, len))
		return -ENOBUFS;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->timer = evtimer_new(r->base, xfer_timer, x);
	if (!x->timer)
		goto free_x;
	if (len) {
		x->data = malloc(len);
		if (!x->data)
			goto free_timer;
		memcpy(x->data, payload, len);
	}
	x->r = r;
	x->tid = mh.tid;
	x->lid = to->dlid;
	x->qpn = to->qpn;
	x->to = *to;
	memcpy(x->hdr, hdr, RMPP_SA_HDR_SIZE);
	x->len = len;
	x->reserved = len;
	x->nsegs = len ? (uint32_t)((len + RMPP_SA_DATA_SIZE - 1) / RMPP_SA_DATA_SIZE) : 1;
	x->wl = 1;
	x->tries_left = r->o.retries;
	x->done = done;
	x->arg = arg;
	xfer_link(r, x);
	r->st.bytes += len;
	r->st.started++;
	sender_pump(x, 1);
	return 0;
free_timer:
	event_free(x->timer);
free_x:
	free(x);
	return -ENOMEM;
}

/* An ACK, STOP or ABORT for a transfer we send. */
static int sender_input(struct rmpp_xfer *x, const struct madio_addr *from, const uint8_t *mad,
			const struct rmpp_hdr *h)
{
	struct rmpp *r = x->r;
	uint32_t seg = h->data1, nwl = h->data2;
	uint8_t bad = 0;
	bool progress;

	switch (h->type) {
	case RMPP_TYPE_STOP:
		r->st.stops_received++;
		r->st.aborted++;
		sender_finish(x, -ENOBUFS);
		return h->status == RMPP_STATUS_RESX ? 0 : -EBADMSG;
	case RMPP_TYPE_ABORT:
		r->st.aborts_received++;
		r->st.aborted++;
		sender_finish(x, -ECONNABORTED);
		return h->status >= RMPP_STATUS_ABORT_MIN && h->status <= RMPP_STATUS_ABORT_MAX
			   ? 0
			   : -EBADMSG;
	}
	r->st.acks_received++;
	if (h->status)
		bad = RMPP_STATUS_BAD_STATUS;
	else if (nwl < seg)
		bad = RMPP_STATUS_W2S;
	else if (seg > x->sent)
		bad = RMPP_STATUS_S2B;
	if (bad) {
		reply(r, from, mad, RMPP_TYPE_ABORT, bad);
		r->st.aborted++;
		sender_finish(x, -EPROTO);
		return -EBADMSG;
	}
	if (nwl > x->nsegs)
		nwl = x->nsegs;
	if (seg < x->last_ack || nwl < x->wl) {
		r->st.acks_stale++;
		return 0;
	}
	progress = seg > x->last_ack;
	if (progress) {
		x->last_ack = seg;
		x->tries_left = r->o.retries;
	}
	x->wl = nwl;
	if (x->last_ack == x->nsegs) {
		r->st.completed++;
		sender_finish(x, 0);
		return 0;
	}
	if (progress || x->sent < x->wl)
		sender_pump(x, x->sent + 1);
	return 0;
}

/* ---- receiving --------------------------------------------------------------------- */

static unsigned recv_wait_ms(const struct rmpp *r)
{
	return r->o.timeout_ms * (r->o.retries + 2);
}

static void recv_end(struct rmpp_xfer *x, int status)
{
	struct rmpp *r = x->r;
	uint8_t hdr[RMPP_SA_HDR_SIZE];
	struct madio_addr from = x->from;

	memcpy(hdr, x->hdr, sizeof(hdr));
	xfer_free(x);
	if (r->recv)
		r->recv(r->recv_arg, status, &from, hdr, NULL, 0);
}

/* The peer broke the protocol: tell it, end the transfer. */
static int recv_violation(struct rmpp_xfer *x, const uint8_t *mad, uint8_t status)
{
	struct rmpp *r = x->r;

	reply(r, &x->from, mad, RMPP_TYPE_ABORT, status);
	r->st.recv_aborted++;
	recv_end(x, -EPROTO);
	return -EBADMSG;
}

static void recv_timeout(struct rmpp_xfer *x)
{
	struct rmpp *r = x->r;

	if (x->lingering) {
		xfer_free(x);
		return;
	}
	send_ctl(r, &x->to, x->hdr, true, RMPP_TYPE_ABORT, RMPP_STATUS_T2L, 0, 0);
	r->st.recv_timeouts++;
	recv_end(x, -ETIMEDOUT);
}

static void ack(struct rmpp_xfer *x, uint32_t seg)
{
	send_ctl(x->r, &x->to, x->hdr, true, RMPP_TYPE_ACK, 0, seg, x->wl);
}

/* Room for n more bytes, within max_payload and max_bytes.  0 or -ENOBUFS. */
static int recv_room(struct rmpp_xfer *x, size_t n)
{
	struct rmpp *r = x->r;
	size_t need = x->len + n, cap;
	uint8_t *p;

	if (need <= x->reserved)
		return 0;
	if (need > r->o.max_payload)
		return -ENOBUFS;
	cap = x->reserved ? x->reserved : 8 * RMPP_SA_DATA_SIZE;
	while (cap < need)
		cap *= 2;
	if (cap > r->o.max_payload)
		cap = r->o.max_payload;
	if (!budget_fits(r, cap - x->reserved))
		return -ENOBUFS;
	p = realloc(x->data, cap);
	if (!p)
		return -ENOBUFS;
	x->data = p;
	r->st.bytes += cap - x->reserved;
	x->reserved = cap;
	return 0;
}

static void recv_complete(struct rmpp_xfer *x)
{
	struct rmpp *r = x->r;
	uint8_t hdr[RMPP_SA_HDR_SIZE], none = 0;
	struct madio_addr from = x->from;
	uint8_t *data = x->data;
	size_t len = x->len;

	memcpy(hdr, x->hdr, sizeof(hdr));
	x->data = NULL;
	r->st.bytes -= x->reserved;
	x->reserved = 0;
	x->lingering = true;
	r->st.recv_completed++;
	timer_ms(x, recv_wait_ms(r));
	if (r->recv)
		r->recv(r->recv_arg, 0, &from, hdr, data ? data : &none, len);
	free(data);
}

/* Segment seg, the one expected. */
static int recv_take(struct rmpp_xfer *x, const uint8_t *mad, const struct rmpp_hdr *h)
{
	struct rmpp *r = x->r;
	uint32_t seg = h->data1;
	bool last = h->flags & RMPP_FLAG_LAST;
	size_t n = RMPP_SA_DATA_SIZE;

	if (last) {
		uint32_t pl = h->data2;
		if (pl < SA_CLASS_HDR || pl > RMPP_SA_SEG_PAYLOAD ||
		    (x->total && x->total != (uint64_t)(seg - 1) * RMPP_SA_SEG_PAYLOAD + pl))
			return recv_violation(x, mad, RMPP_STATUS_BAD_LEN);
		n = pl - SA_CLASS_HDR;
	} else if (x->total && (uint64_t)seg * RMPP_SA_SEG_PAYLOAD >= x->total) {
		return recv_violation(x, mad, RMPP_STATUS_BAD_LEN);
	}
	if (recv_room(x, n) < 0) {
		reply(r, &x->from, mad, RMPP_TYPE_STOP, RMPP_STATUS_RESX);
		r->st.recv_refused++;
		recv_end(x, -ENOBUFS);
		return 0;
	}
	if (n)
		memcpy(x->data + x->len, mad + RMPP_SA_HDR_SIZE, n);
	x->len += n;
	x->expected = seg + 1;
	r->st.segs_received++;
	if (last) {
		if (x->wl < seg)
			x->wl = seg;
		ack(x, seg);
		recv_complete(x);
		return 0;
	}
	if (seg == x->wl) {
		x->wl += r->o.window;
		ack(x, seg);
	}
	timer_ms(x, recv_wait_ms(r));
	return 0;
}

/* Segment 1 of a transfer we do not hold yet. */
static int recv_start(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad,
		      const struct wire_mad_hdr *mh, const struct rmpp_hdr *h)
{
	uint32_t total = h->data2, rem = total % RMPP_SA_SEG_PAYLOAD;
	size_t declared = 0;
	struct rmpp_xfer *x;

	if (total) {
		size_t segs = total / RMPP_SA_SEG_PAYLOAD + (rem ? 1 : 0);
		if (rem && rem < SA_CLASS_HDR) {
			reply(r, from, mad, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_LEN);
			return -EBADMSG;
		}
		declared = total - segs * SA_CLASS_HDR;
	}
	if (r->st.active >= r->o.max_transfers || declared > r->o.max_payload ||
	    !budget_fits(r, declared))
		goto refuse;
	x = calloc(1, sizeof(*x));
	if (!x)
		goto refuse;
	x->timer = evtimer_new(r->base, xfer_timer, x);
	if (!x->timer)
		goto free_x;
	if (declared) {
		x->data = malloc(declared);
		if (!x->data)
			goto free_timer;
	}
	x->r = r;
	x->tid = mh->tid;
	x->lid = from->slid;
	x->qpn = from->qpn;
	x->recv = true;
	x->from = *from;
	dest_of(from, &x->to);
	memcpy(x->hdr, mad, RMPP_SA_HDR_SIZE);
	x->reserved = declared;
	x->expected = 1;
	x->wl = 1;
	x->total = total;
	xfer_link(r, x);
	r->st.bytes += declared;
	r->st.recv_started++;
	return recv_take(x, mad, h);
free_timer:
	event_free(x->timer);
free_x:
	free(x);
refuse:
	reply(r, from, mad, RMPP_TYPE_STOP, RMPP_STATUS_RESX);
	r->st.recv_refused++;
	return 0;
}

/* A DATA segment (status and First/SegmentNumber already checked). */
static int recv_data(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad,
		     const struct wire_mad_hdr *mh, const struct rmpp_hdr *h)
{
	struct rmpp_xfer *x = xfer_find(r, mh->tid, from->slid, from->qpn, true);
	uint32_t seg = h->data1;

	if (!x)
		return seg == 1 ? recv_start(r, from, mad, mh, h) : -ENOENT;
	if (x->lingering || seg < x->expected) {
		r->st.segs_duplicate++;
		ack(x, x->expected - 1);
		return 0;
	}
	if (seg > x->wl)
		return -EBADMSG; /* beyond the window: dropped, the transfer goes on */
	if (seg > x->expected) {
		r->st.segs_out_of_order++;
		ack(x, x->expected - 1);
		return 0;
	}
	return recv_take(x, mad, h);
}

/* A STOP or ABORT for a transfer we receive. */
static int recv_stop(struct rmpp_xfer *x, const struct rmpp_hdr *h)
{
	struct rmpp *r = x->r;
	bool ok = h->type == RMPP_TYPE_STOP
		      ? h->status == RMPP_STATUS_RESX
		      : h->status >= RMPP_STATUS_ABORT_MIN && h->status <= RMPP_STATUS_ABORT_MAX;

	if (h->type == RMPP_TYPE_STOP)
		r->st.stops_received++;
	else
		r->st.aborts_received++;
	if (x->lingering) {
		xfer_free(x);
	} else {
		r->st.recv_aborted++;
		recv_end(x, -ECONNABORTED);
	}
	return ok ? 0 : -EBADMSG;
}

/* ---- the context --------------------------------------------------------------- */

/* End whatever transfer a broken MAD names, both directions. */
static void end_any(struct rmpp *r, uint64_t tid, const struct madio_addr *from)
{
	struct rmpp_xfer *x = xfer_find(r, tid, from->slid, from->qpn, false);

	if (x) {
		r->st.aborted++;
		sender_finish(x, -EPROTO);
	}
	x = xfer_find(r, tid, from->slid, from->qpn, true);
	if (x) {
		if (x->lingering) {
			xfer_free(x);
		} else {
			r->st.recv_aborted++;
			recv_end(x, -EPROTO);
		}
	}
}

/* rmpp_input without the counting of what it returns. */
static int input(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad, size_t len)
{
	struct wire_mad_hdr mh;
	struct rmpp_hdr h;
	struct rmpp_xfer *x;
	uint8_t bad = 0;

	if (!mad || len < WIRE_MAD_SIZE || wire_mad_hdr_decode(mad, len, &mh) < 0 ||
	    mh.base_version != 1 || mh.mgmt_class != WIRE_CLASS_SA ||
	    rmpp_hdr_decode(mad, len, &h) < 0 || !(h.flags & RMPP_FLAG_ACTIVE))
		return -EBADMSG;
	if (h.version != RMPP_VERSION)
		bad = RMPP_STATUS_UNV;
	else if (h.type < RMPP_TYPE_DATA || h.type > RMPP_TYPE_ABORT)
		bad = RMPP_STATUS_BADT;
	if (bad) {
		end_any(r, mh.tid, from);
		if (h.type != RMPP_TYPE_STOP && h.type != RMPP_TYPE_ABORT)
			reply(r, from, mad, RMPP_TYPE_ABORT, bad);
		return -EBADMSG;
	}
	if (h.type == RMPP_TYPE_DATA) {
		if (!r->recv)
			return -ENOENT;
		if (h.status)
			bad = RMPP_STATUS_BAD_STATUS;
		else if (h.data1 == 0 || (h.data1 == 1) != !!(h.flags & RMPP_FLAG_FIRST))
			bad = RMPP_STATUS_BAD_SEG;
		if (!bad)
			return recv_data(r, from, mad, &mh, &h);
		x = xfer_find(r, mh.tid, from->slid, from->qpn, true);
		if (x)
			return recv_violation(x, mad, bad);
		reply(r, from, mad, RMPP_TYPE_ABORT, bad);
		return -EBADMSG;
	}
	x = xfer_find(r, mh.tid, from->slid, from->qpn, false);
	if (x)
		return sender_input(x, from, mad, &h);
	if (h.type == RMPP_TYPE_ACK)
		return -ENOENT;
	x = xfer_find(r, mh.tid, from->slid, from->qpn, true);
	return x ? recv_stop(x, &h) : -ENOENT;
}

int rmpp_input(struct rmpp *r, const struct madio_addr *from, const uint8_t *mad, size_t len)
{
	int rc;

	if (!r || !from)
		return -EINVAL;
	if (r->closing)
		return -ESHUTDOWN;
	rc = input(r, from, mad, len);
	if (rc == -ENOENT)
		r->st.unmatched++;
	else if (rc == -EBADMSG)
		r->st.malformed++;
	return rc;
}

void rmpp_set_receiver(struct rmpp *r, rmpp_recv_fn fn, void *arg)
{
	r->recv = fn;
	r->recv_arg = arg;
}

struct rmpp *rmpp_new(struct event_base *base, const struct rmpp_opts *opts, rmpp_send_fn send,
		      void *send_ctx)
{
	struct rmpp_opts o = opts ? *opts : (struct rmpp_opts){0};
	struct rmpp *r;

	if (!base || !send)
		return NULL;
	if (!o.timeout_ms)
		o.timeout_ms = RMPP_DEFAULT_TIMEOUT_MS;
	if (!o.window)
		o.window = RMPP_DEFAULT_WINDOW;
	if (!o.max_transfers)
		o.max_transfers = RMPP_DEFAULT_MAX_TRANSFERS;
	if (!o.max_payload)
		o.max_payload = RMPP_DEFAULT_MAX_PAYLOAD;
	if (!o.max_bytes)
		o.max_bytes = RMPP_DEFAULT_MAX_BYTES;
	if (o.window > WINDOW_LIMIT || o.max_transfers > TRANSFERS_LIMIT ||
	    o.max_payload > RMPP_PAYLOAD_LIMIT || o.timeout_ms > 3600000 || o.retries > 100)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->xfers = calloc(o.max_transfers, sizeof(*r->xfers));
	if (!r->xfers || u64map_reserve(&r->index, o.max_transfers) < 0) {
		free(r->xfers);
		free(r);
		return NULL;
	}
	r->base = base;
	r->o = o;
	r->send = send;
	r->send_ctx = send_ctx;
	r->seed = (uint64_t)time(NULL) * 0x2545f4914f6cdd1dull ^ (uintptr_t)r;
	return r;
}

void rmpp_free(struct rmpp *r)
{
	if (!r)
		return;
	r->closing = true;
	while (r->st.active) {
		struct rmpp_xfer *x = r->xfers[r->st.active - 1];
		if (!x->recv) {
			r->st.cancelled++;
			sender_finish(x, -ECANCELED);
		} else if (x->lingering) {
			xfer_free(x);
		} else {
			r->st.recv_cancelled++;
			recv_end(x, -ECANCELED);
		}
	}
	free(r->xfers);
	u64map_free(&r->index);
	free(r);
}

void rmpp_get_stats(const struct rmpp *r, struct rmpp_stats *ret)
{
	*ret = r->st;
}

/*
 * MAD transaction engine (see xact.h).  IBA 1.4 vol 1, 13.4.6.4 (TID) and
 * 13.4.11 (timeouts, retries are the requester's business).
 *
 * Slots are allocated up to the largest window asked for plus the control
 * reserve and never freed before xact_free, so a TID stays valid across
 * window changes.  Free slots are a stack whose bottom holds the highest
 * indices: bulk traffic alone uses slots 0..window-1, as it always did.
 * Each lane has its own budget: bulk up to `window` outstanding, control up
 * to XACT_CONTROL_SLOTS, so neither ever waits for the other's traffic and
 * the bulk window is the same with or without control requests.  Bulk holds
 * at most the largest window, so an admitted request always finds a slot.
 *
 * Batches and the producers' asks are xact_batch.c's; the structures both
 * files see are in xact_int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/xact.h"
#include "mad/xact_int.h"

static const struct madio_dest dest_permissive = {WIRE_PERMISSIVE_LID, 0, 0, 0};

static int queue_push(struct xact_queue *q, const struct xact_req *r)
{
	if (!q->tail || q->tail_i == QUEUE_CHUNK) {
		struct xact_chunk *c = q->spare ? q->spare : malloc(sizeof(*c));

		if (!c)
			return -ENOMEM;
		q->spare = NULL;
		c->next = NULL;
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
		q->tail_i = 0;
		q->chunks++;
	}
	q->tail->r[q->tail_i++] = *r;
	q->len++;
	return 0;
}

static struct xact_req queue_pop(struct xact_queue *q)
{
	struct xact_req r = q->head->r[q->head_i++];

	q->len--;
	if (q->head_i == QUEUE_CHUNK || !q->len) {
		/* the head chunk is spent (or the queue empty): keep one chunk, free the rest */
		struct xact_chunk *c = q->head;

		q->head = c->next;
		if (!q->head)
			q->tail = NULL;
		q->head_i = 0;
		q->chunks--;
		if (q->spare)
			free(c);
		else
			q->spare = c;
	}
	return r;
}

static void queue_free(struct xact_queue *q)
{
	while (q->head) {
		struct xact_chunk *c = q->head;

		q->head = c->next;
		free(c);
	}
	free(q->spare);
	memset(q, 0, sizeof(*q));
}

bool xact_lane_is_valid(enum xact_lane lane)
{
	return lane == XACT_BULK || lane == XACT_CONTROL;
}

/* After a shrink bulk may hold more than the window until enough complete. */
bool xact_lane_may_start(const struct xact_engine *xe, enum xact_lane lane)
{
	return xe->lane_out[lane] < (lane == XACT_BULK ? xe->cwnd : XACT_CONTROL_SLOTS);
}

/* A bulk request timed out: halve the window once per burst of losses. */
static void window_cut(struct xact_engine *xe, const struct xact_slot *s)
{
	if (!xe->opts.adaptive || s->lane != XACT_BULK || s->sent_seq <= xe->cut_seq)
		return;
	xe->cwnd = xe->cwnd > 1 ? xe->cwnd / 2 : 1;
	xe->cut_seq = xe->send_seq;
	xe->grow_acc = 0;
	xe->st.window_cuts++;
	if (xe->cwnd < xe->st.min_cwnd)
		xe->st.min_cwnd = xe->cwnd;
}

/* A bulk request was answered: one more slot per window's worth of answers. */
static void window_grow(struct xact_engine *xe, const struct xact_slot *s)
{
	if (!xe->opts.adaptive || s->lane != XACT_BULK || xe->cwnd >= xe->opts.window)
		return;
	if (++xe->grow_acc >= xe->cwnd) {
		xe->cwnd++;
		xe->grow_acc = 0;
	}
}

/* Run a request's callback: with a response, timed out or cancelled. */
void xact_req_complete(struct xact_req *r, int status, const uint8_t *req_buf,
		       const struct xact_resp *resp)
{
	if (r->addressed) {
		if (r->mad_done)
			r->mad_done(r->arg, status, req_buf, resp ? resp->hdr : NULL,
				    resp ? resp->buf : NULL, resp ? resp->len : 0);
	} else if (r->done) {
		r->done(r->arg, status, &r->smp, resp ? resp->smp : NULL);
	}
}

/* ---- slots ---------------------------------------------------------------- */

static void slot_transmit(struct xact_slot *s)
{
	struct xact_engine *xe = s->xe;
	struct timeval tv = {s->timeout_ms / 1000, (s->timeout_ms % 1000) * 1000};

	xe->st.sent++;
	s->sent_seq = ++xe->send_seq;
	if (xe->send(xe->send_ctx, &s->to, s->buf, WIRE_MAD_SIZE, s->timeout_ms) < 0)
		xe->st.send_errors++;
	evtimer_add(s->timer, &tv);
}

/* The slot is done: free it, then the callback (none for an orphan), then refill. */
static void slot_finish(struct xact_slot *s, int status, const struct xact_resp *resp)
{
	struct xact_engine *xe = s->xe;
	struct xact_req req = s->req;
	bool orphan = s->orphan;
	struct xact_batch *b = orphan ? NULL : req.batch;
	uint8_t req_buf[WIRE_MAD_SIZE];

	/* the slot may be reused by the callback: keep what it needs */
	if (req.addressed && !orphan)
		memcpy(req_buf, s->buf, sizeof(req_buf));
	evtimer_del(s->timer);
	s->busy = false;
	s->orphan = false;
	xe->free_slots[xe->n_free++] = s->idx;
	xe->st.outstanding--;
	xe->lane_out[s->lane]--;
	if (!orphan) {
		xe->st.completed++;
		if (b) {
			b->st.outstanding--;
			xact_batch_count(b, status);
			b->hold++;
		}
		xact_req_complete(&req, status, req_buf, resp);
		if (b) {
			xact_batch_settle(b);
			xact_batch_release(b);
		}
	}
	xact_pump(xe);
}

static void slot_retry(struct xact_slot *s)
{
	if (s->orphan) {
		slot_finish(s, -ECANCELED, NULL); /* cancelled: no retry, no callback */
		return;
	}
	if (s->tries_left == 0) {
		s->xe->st.timeouts++;
		slot_finish(s, -ETIMEDOUT, NULL);
		return;
	}
	s->tries_left--;
	s->xe->st.retries++;
	slot_transmit(s);
}

static void slot_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct xact_slot *s = arg;

	window_cut(s->xe, s);
	slot_retry(s);
}

/*
 * Allocate slots up to n (all or none).  The new ones go to the bottom of
 * the free stack, highest index lowest, so lower indices are taken first.
 */
static int slots_grow(struct xact_engine *xe, unsigned n)
{
	unsigned old = xe->n_slots, k;

	if (n <= old)
		return 0;
	for (unsigned i = old; i < n; i++) {
		struct xact_slot *s = calloc(1, sizeof(*s));
		if (!s)
			goto undo;
		s->xe = xe;
		s->idx = i;
		s->timer = evtimer_new(xe->base, slot_timeout, s);
		if (!s->timer) {
			free(s);
			goto undo;
		}
		xe->slots[i] = s;
		xe->n_slots = i + 1;
	}
	k = n - old;
	memmove(xe->free_slots + k, xe->free_slots, xe->n_free * sizeof(xe->free_slots[0]));
	for (unsigned j = 0; j < k; j++)
		xe->free_slots[j] = n - 1 - j;
	xe->n_free += k;
	return 0;
undo:
	while (xe->n_slots > old) {
		struct xact_slot *s = xe->slots[--xe->n_slots];
		event_free(s->timer);
		free(s);
		xe->slots[xe->n_slots] = NULL;
	}
	return -ENOMEM;
}

struct xact_engine *xact_new(struct event_base *base, const struct xact_opts *opts,
			     xact_send_fn send, void *send_ctx)
{
	struct xact_engine *xe;

	if (!base || !opts || !send || opts->window == 0 || opts->window > XACT_WINDOW_MAX)
		return NULL;
	xe = calloc(1, sizeof(*xe));
	if (!xe)
		return NULL;
	xe->base = base;
	xe->opts = *opts;
	xe->send = send;
	xe->send_ctx = send_ctx;
	xe->cwnd = xe->st.min_cwnd = opts->window;
	if (slots_grow(xe, opts->window + XACT_CONTROL_SLOTS) < 0) {
		free(xe);
		return NULL;
	}
	xe->tid_high = ((uint32_t)time(NULL) ^ 0x1b5d0000u) & 0x7fffffffu;
	return xe;
}

/* Cancel what waits in one lane (the pump held). */
static void lane_cancel(struct xact_engine *xe, enum xact_lane lane)
{
	struct xact_queue *q = &xe->lanes[lane];

	while (q->len) {
		struct xact_req r = queue_pop(q);
		struct xact_batch *b = r.batch;

		if (r.dead) {
			q->dead--;
			continue;
		}
		if (b) {
			b->st.queued--;
			b->st.cancelled++;
			b->hold++;
		}
		xact_req_complete(&r, -ECANCELED, r.addressed ? r.a.mad : NULL, NULL);
		if (b)
			xact_batch_release(b);
	}
}

void xact_cancel_all(struct xact_engine *xe)
{
	bool was_pumping, was_all;

	if (!xe)
		return;
	/*
	 * Hold the pump: a request a callback submits meanwhile stays queued
	 * (never sent) and is cancelled by the next round.
	 */
	was_pumping = xe->pumping;
	was_all = xe->cancelling_all;
	xe->pumping = true;
	xe->cancelling_all = true;
	do {
		/* drop the queues first so finishing slots does not refill them */
		lane_cancel(xe, XACT_CONTROL);
		lane_cancel(xe, XACT_BULK);
		for (unsigned i = 0; i < xe->n_slots; i++)
			if (xe->slots[i]->busy)
				slot_finish(xe->slots[i], -ECANCELED, NULL);
	} while (xe->lanes[XACT_CONTROL].len || xe->lanes[XACT_BULK].len);
	/* the batches' work is gone: a producer waits for its next wake */
	for (struct xact_batch *b = xe->batches; b; b = b->next)
		b->armed = b->ready = false;
	xe->cancelling_all = was_all;
	xe->pumping = was_pumping;
}

void xact_free(struct xact_engine *xe)
{
	if (!xe)
		return;
	xact_cancel_all(xe);
	/* batches still open lose their engine; their owners free them */
	while (xe->batches) {
		struct xact_batch *b = xe->batches;

		xe->batches = b->next;
		b->xe = NULL;
		b->prev = b->next = NULL;
	}
	for (unsigned i = 0; i < xe->n_slots; i++) {
		event_free(xe->slots[i]->timer);
		free(xe->slots[i]);
	}
	for (unsigned l = 0; l < N_LANES; l++)
		queue_free(&xe->lanes[l]);
	free(xe);
}

static void slot_start(struct xact_engine *xe, enum xact_lane lane, struct xact_req *r)
{
	unsigned idx = xe->free_slots[--xe->n_free];
	struct xact_slot *s = xe->slots[idx];
	struct wire_mad_hdr h;

	s->busy = true;
	s->orphan = false;
	s->lane = lane;
	s->req = *r;
	s->seq = ++xe->seq & ((1u << (32 - SLOT_BITS)) - 1);
	s->tid = (uint64_t)xe->tid_high << 32 | s->seq << SLOT_BITS | idx;
	s->tries_left = r->retries >= 0 ? (unsigned)r->retries : xe->opts.retries;
	s->timeout_ms = r->timeout_ms ? r->timeout_ms : xe->opts.timeout_ms;
	if (r->addressed) {
		/* checked by xact_submit: the header decodes */
		memcpy(s->buf, r->a.mad, WIRE_MAD_SIZE);
		wire_mad_hdr_decode(s->buf, WIRE_MAD_SIZE, &h);
		h.tid = s->tid;
		wire_mad_hdr_encode(&h, s->buf, WIRE_MAD_SIZE);
		if ((h.mgmt_class == WIRE_CLASS_SMI || h.mgmt_class == WIRE_CLASS_SMI_DR) &&
		    xe->mkey && !wire_smp_get_mkey(s->buf, WIRE_MAD_SIZE))
			wire_smp_set_mkey(s->buf, WIRE_MAD_SIZE, xe->mkey);
		s->to = r->a.to;
		s->mgmt_class = h.mgmt_class;
		s->attr_id = h.attr_id;
	} else {
		s->req.smp.tid = s->tid;
		if (!s->req.smp.mkey)
			s->req.smp.mkey = xe->mkey;
		wire_smp_encode(&s->req.smp, s->buf, sizeof(s->buf));
		s->to = dest_permissive;
		s->mgmt_class = s->req.smp.mgmt_class;
		s->attr_id = s->req.smp.attr_id;
	}
	if (r->batch) {
		r->batch->st.queued--;
		r->batch->st.outstanding++;
		r->batch->st.sent++;
	}
	xe->st.outstanding++;
	xe->lane_out[lane]++;
	if (xe->st.outstanding > xe->st.max_outstanding)
		xe->st.max_outstanding = xe->st.outstanding;
	if (lane == XACT_BULK && xe->lane_out[lane] > xe->st.max_bulk)
		xe->st.max_bulk = xe->lane_out[lane];
	slot_transmit(s);
}

static void pump_run(struct xact_engine *xe)
{
	while (xe->n_free) {
		enum xact_lane lane;
		struct xact_req r;

		if (xe->lanes[XACT_CONTROL].len && xact_lane_may_start(xe, XACT_CONTROL))
			lane = XACT_CONTROL;
		else if (xe->lanes[XACT_BULK].len && xact_lane_may_start(xe, XACT_BULK))
			lane = XACT_BULK;
		else if (xact_batch_ask(xe, XACT_CONTROL) || xact_batch_ask(xe, XACT_BULK))
			continue;
		else
			break;
		r = queue_pop(&xe->lanes[lane]);
		if (r.dead) {
			xe->lanes[lane].dead--;
			continue;
		}
		slot_start(xe, lane, &r);
	}
}

/* Fill the free slots: queued requests first, then producers; then settle dry batches. */
void xact_pump(struct xact_engine *xe)
{
	if (xe->pumping)
		return;
	for (;;) {
		struct xact_batch *b;

		xe->pumping = true;
		pump_run(xe);
		xe->pumping = false;
		b = xe->due;
		if (!b)
			return;
		xe->due = b->due_next;
		b->due = false;
		xact_batch_settle(b);
		xact_batch_release(b);
	}
}

static int xact_enqueue(struct xact_engine *xe, enum xact_lane lane, const struct xact_req *r)
{
	int rc = queue_push(&xe->lanes[lane], r);

	if (rc < 0)
		return rc;
	xe->st.submitted++;
	if (r->batch) {
		r->batch->st.submitted++;
		r->batch->st.queued++;
		r->batch->armed = true;
	}
	xact_pump(xe);
	return 0;
}

/* A LID-routed SMP to QP0, or a GSI MAD to a QP of its own. */
static bool dest_fits(const struct wire_mad_hdr *h, const uint8_t *mad, const struct madio_dest *to)
{
	struct wire_smp smp;

	if (!to || to->dlid == 0)
		return false;
	switch (h->mgmt_class) {
	case WIRE_CLASS_SMI_DR:
		return false; /* as xact_request.smp */
	case WIRE_CLASS_SMI:
		return to->qpn == 0 && wire_smp_decode(mad, WIRE_MAD_SIZE, &smp) == 0;
	default:
		return to->qpn != 0 && to->qpn <= 0xffffff;
	}
}

int xact_submit(struct xact_engine *xe, const struct xact_request *rq)
{
	struct wire_mad_hdr h;
	struct xact_req r;

	if (!xe || !rq || !xact_lane_is_valid(rq->lane) || rq->timeout_ms > XACT_TIMEOUT_MAX_MS ||
	    rq->tries > XACT_TRIES_MAX || (rq->batch && rq->batch->xe != xe))
		return -EINVAL;
	if (rq->batch && (rq->batch->cancelling || rq->batch->dead))
		return -ECANCELED; /* from a callback of its cancel, or of its free */
	memset(&r, 0, sizeof(r));
	if (rq->smp && !rq->mad) {
		if (!wire_smp_valid(rq->smp))
			return -EINVAL;
		r.smp = *rq->smp;
		r.done = rq->done;
	} else if (rq->mad && !rq->smp) {
		if (rq->len != WIRE_MAD_SIZE || wire_mad_hdr_decode(rq->mad, rq->len, &h) < 0 ||
		    h.base_version != 1 || (h.method & WIRE_METHOD_RESP) ||
		    !dest_fits(&h, rq->mad, rq->to))
			return -EINVAL;
		r.addressed = true;
		r.a.to = *rq->to;
		memcpy(r.a.mad, rq->mad, WIRE_MAD_SIZE);
		r.mad_done = rq->mad_done;
	} else {
		return -EINVAL;
	}
	r.arg = rq->arg;
	r.batch = rq->batch;
	r.timeout_ms = rq->timeout_ms;
	r.retries = rq->tries ? (int)rq->tries - 1 : -1;
	return xact_enqueue(xe, rq->lane, &r);
}

/* ---- batches, as the engine sees them (the owners' calls: xact_batch.c) ---- */

void xact_batch_count(struct xact_batch *b, int status)
{
	switch (status) {
	case 0:
		b->st.ok++;
		break;
	case -EREMOTEIO:
		b->st.failed++;
		break;
	case -ETIMEDOUT:
		b->st.timed_out++;
		break;
	case -ECANCELED:
		b->st.cancelled++;
		break;
	}
}

static bool batch_idle(const struct xact_batch *b)
{
	return !b->st.queued && !b->st.outstanding;
}

/* Let go of b; the last release of a freed batch frees it. */
void xact_batch_release(struct xact_batch *b)
{
	if (--b->hold == 0 && b->dead)
		free(b);
}

/* Ask b's producer for a request, the pump held: what it submits waits in the queue. */
static bool batch_produce(struct xact_batch *b)
{
	struct xact_engine *xe = b->xe;
	bool was = xe->pumping, r;

	xe->pumping = true;
	r = b->produce(b->produce_ctx);
	xe->pumping = was;
	if (!r)
		b->ready = false;
	return r;
}

/*
 * b (held by the caller) may be empty: ask its producer, if it may have
 * more, whether the lane has room or not (one request of b waits at most),
 * then run on_empty while b is empty and was given work.  Never nested: an
 * on_empty running for b looks again when it returns.
 */
void xact_batch_settle(struct xact_batch *b)
{
	while (!b->dead && b->xe && !b->cancelling && !b->in_empty && !b->xe->cancelling_all &&
	       batch_idle(b)) {
		if (b->produce && b->ready) {
			if (batch_produce(b))
				break;
			continue;
		}
		if (!b->armed)
			break;
		b->armed = false;
		if (!b->on_empty)
			break;
		b->in_empty = true;
		b->on_empty(b->arg);
		b->in_empty = false;
	}
}

/* b's producer ran dry inside the pump: settle b once the pump is done. */
void xact_batch_due(struct xact_engine *xe, struct xact_batch *b)
{
	if (b->due || !b->armed || !batch_idle(b))
		return;
	b->due = true;
	b->hold++;
	b->due_next = xe->due;
	xe->due = b;
}

/*
 * The first producer of lane that gives a request, in batch order, when
 * the lane has room and nothing of it waits.  Producers that run dry are
 * not asked again until woken; their batch, idle, settles after the pump.
 */
bool xact_batch_ask(struct xact_engine *xe, enum xact_lane lane)
{
	if (xe->lanes[lane].len || !xact_lane_may_start(xe, lane))
		return false;
	for (struct xact_batch *b = xe->batches; b; b = b->next) {
		if (!b->produce || !b->ready || b->produce_lane != lane || b->cancelling)
			continue;
		if (b->produce(b->produce_ctx))
			return true;
		b->ready = false;
		xact_batch_due(xe, b);
	}
	return false;
}

/* ---- input ----------------------------------------------------------------- */

static struct xact_slot *slot_by_tid(struct xact_engine *xe, uint64_t tid)
{
	unsigned idx = tid & ((1u << SLOT_BITS) - 1);
	struct xact_slot *s;

	/* the kernel may rewrite the high 32 bits; match on the low ones */
	if (idx >= xe->n_slots)
		return NULL;
	s = xe->slots[idx];
	if (!s->busy || (uint32_t)s->tid != (uint32_t)tid)
		return NULL;
	return s;
}

int xact_input(struct xact_engine *xe, const uint8_t *buf, size_t len)
{
	struct wire_mad_hdr h;
	struct wire_smp smp;
	struct xact_resp resp = {&h, NULL, buf, len};
	struct xact_slot *s;
	uint16_t status;

	if (wire_mad_hdr_decode(buf, len, &h) < 0 || h.base_version != 1)
		goto malformed;
	status = h.status;
	if (h.mgmt_class == WIRE_CLASS_SMI || h.mgmt_class == WIRE_CLASS_SMI_DR) {
		if (wire_smp_decode(buf, len, &smp) < 0)
			goto malformed;
		resp.smp = &smp;
		status = smp.status; /* DR: without the D bit */
	}
	xe->st.received++;
	s = slot_by_tid(xe, h.tid);
	if (!s || !(h.method & WIRE_METHOD_RESP) || h.attr_id != s->attr_id ||
	    h.mgmt_class != s->mgmt_class) {
		xe->st.unmatched++;
		return -ENOENT;
	}
	window_grow(xe, s);
	if (status) {
		xe->st.remote_errors++;
		slot_finish(s, -EREMOTEIO, &resp);
	} else {
		slot_finish(s, 0, &resp);
	}
	return 0;
malformed:
	xe->st.malformed++;
	return -EBADMSG;
}

int xact_send_failed(struct xact_engine *xe, uint64_t tid)
{
	struct xact_slot *s = slot_by_tid(xe, tid);

	if (!s)
		return -ENOENT;
	evtimer_del(s->timer);
	slot_retry(s);
	return 0;
}

int xact_set_window(struct xact_engine *xe, unsigned window)
{
	int rc;

	if (!xe || window == 0 || window > XACT_WINDOW_MAX)
		return -EINVAL;
	rc = slots_grow(xe, window + XACT_CONTROL_SLOTS);
	if (rc < 0)
		return rc;
	xe->opts.window = window;
	xe->cwnd = xe->st.min_cwnd = window;
	xe->grow_acc = 0;
	xe->cut_seq = xe->send_seq;
	xe->st.max_bulk = 0;
	xact_pump(xe);
	return 0;
}

/* Requests waiting in a lane, the cancelled ones left out. */
static size_t lane_queued(const struct xact_engine *xe, enum xact_lane lane)
{
	return xe->lanes[lane].len - xe->lanes[lane].dead;
}

unsigned xact_pending(const struct xact_engine *xe)
{
	if (!xe)
		return 0;
	return xe->st.outstanding + lane_queued(xe, XACT_BULK) + lane_queued(xe, XACT_CONTROL);
}

void xact_get_stats(const struct xact_engine *xe, struct xact_stats *ret)
{
	*ret = xe->st;
	ret->queued = lane_queued(xe, XACT_BULK) + lane_queued(xe, XACT_CONTROL);
	ret->ctl_outstanding = xe->lane_out[XACT_CONTROL];
	ret->ctl_queued = lane_queued(xe, XACT_CONTROL);
	ret->window = xe->opts.window;
	ret->cwnd = xe->cwnd;
}

size_t xact_mem(const struct xact_engine *xe)
{
	size_t n;

	if (!xe)
		return 0;
	n = sizeof(*xe) + (size_t)xe->n_slots * sizeof(struct xact_slot);
	for (unsigned l = 0; l < N_LANES; l++)
		n += (xe->lanes[l].chunks + (xe->lanes[l].spare != NULL)) *
		     sizeof(struct xact_chunk);
	for (const struct xact_batch *b = xe->batches; b; b = b->next)
		n += sizeof(*b);
	return n;
}

void xact_set_mkey(struct xact_engine *xe, uint64_t mkey)
{
	xe->mkey = mkey;
}

void xact_set_opts(struct xact_engine *xe, unsigned timeout_ms, unsigned retries)
{
	xe->opts.timeout_ms = timeout_ms;
	xe->opts.retries = retries;
}

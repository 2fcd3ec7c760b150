/*
 * SMP transaction engine (see xact.h).  IBA 1.4 vol 1, 13.4.6.4 (TID) and
 * 13.4.11 (timeouts, retries are the requester's business).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/xact.h"

#define SLOT_BITS 10 /* window <= 1024 */

struct xact_req {
	struct wire_smp smp;
	xact_done_fn done;
	void *arg;
};

struct xact_slot {
	struct xact_engine *xe;
	struct event *timer;
	bool busy;
	unsigned tries_left;
	uint32_t seq;
	struct xact_req req;
	uint8_t buf[WIRE_MAD_SIZE];
};

struct xact_engine {
	struct event_base *base;
	struct xact_opts opts;
	xact_send_fn send;
	void *send_ctx;
	struct xact_slot *slots;
	unsigned *free_slots; /* stack of free slot indices */
	unsigned n_free;
	struct xact_req *queue; /* ring */
	size_t q_head, q_len, q_cap;
	uint32_t tid_high;
	uint32_t seq;
	bool pumping;
	struct xact_stats st;
};

static const struct madio_dest dest_permissive = {WIRE_PERMISSIVE_LID, 0, 0, 0};

static void xact_pump(struct xact_engine *xe);

static void slot_transmit(struct xact_slot *s)
{
	struct xact_engine *xe = s->xe;
	struct timeval tv = {xe->opts.timeout_ms / 1000, (xe->opts.timeout_ms % 1000) * 1000};

	xe->st.sent++;
	if (xe->send(xe->send_ctx, &dest_permissive, s->buf, WIRE_MAD_SIZE, xe->opts.timeout_ms) <
	    0)
		xe->st.send_errors++;
	evtimer_add(s->timer, &tv);
}

static void slot_finish(struct xact_slot *s, int status, const struct wire_smp *resp)
{
	struct xact_engine *xe = s->xe;
	struct xact_req req = s->req;

	evtimer_del(s->timer);
	s->busy = false;
	xe->free_slots[xe->n_free++] = s - xe->slots;
	xe->st.outstanding--;
	xe->st.completed++;
	if (req.done)
		req.done(req.arg, status, &req.smp, resp);
	xact_pump(xe);
}

static void slot_retry(struct xact_slot *s)
{
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
	slot_retry(arg);
}

struct xact_engine *xact_new(struct event_base *base, const struct xact_opts *opts,
			     xact_send_fn send, void *send_ctx)
{
	struct xact_engine *xe;

	if (!base || !opts || !send || opts->window == 0 || opts->window > (1u << SLOT_BITS))
		return NULL;
	xe = calloc(1, sizeof(*xe));
	if (!xe)
		return NULL;
	xe->base = base;
	xe->opts = *opts;
	xe->send = send;
	xe->send_ctx = send_ctx;
	xe->slots = calloc(opts->window, sizeof(*xe->slots));
	xe->free_slots = calloc(opts->window, sizeof(*xe->free_slots));
	if (!xe->slots || !xe->free_slots)
		goto fail;
	for (unsigned i = 0; i < opts->window; i++) {
		xe->slots[i].xe = xe;
		xe->slots[i].timer = evtimer_new(base, slot_timeout, &xe->slots[i]);
		if (!xe->slots[i].timer)
			goto fail;
		xe->free_slots[opts->window - 1 - i] = i;
	}
	xe->n_free = opts->window;
	xe->tid_high = ((uint32_t)time(NULL) ^ 0x1b5d0000u) & 0x7fffffffu;
	return xe;
fail:
	xact_free(xe);
	return NULL;
}

void xact_cancel_all(struct xact_engine *xe)
{
	bool was_pumping;

	if (!xe)
		return;
	/*
	 * Hold the pump: a request a callback submits meanwhile stays queued
	 * (never sent) and is cancelled by the next round.
	 */
	was_pumping = xe->pumping;
	xe->pumping = true;
	do {
		/* drop the queue first so finishing slots does not refill them */
		while (xe->q_len) {
			struct xact_req r = xe->queue[xe->q_head];
			xe->q_head = (xe->q_head + 1) % xe->q_cap;
			xe->q_len--;
			xe->st.queued = xe->q_len;
			if (r.done)
				r.done(r.arg, -ECANCELED, &r.smp, NULL);
		}
		for (unsigned i = 0; i < xe->opts.window; i++)
			if (xe->slots[i].busy)
				slot_finish(&xe->slots[i], -ECANCELED, NULL);
	} while (xe->q_len);
	xe->pumping = was_pumping;
}

void xact_free(struct xact_engine *xe)
{
	if (!xe)
		return;
	if (xe->slots) {
		xact_cancel_all(xe);
		for (unsigned i = 0; i < xe->opts.window; i++)
			if (xe->slots[i].timer)
				event_free(xe->slots[i].timer);
	}
	free(xe->slots);
	free(xe->free_slots);
	free(xe->queue);
	free(xe);
}

static void slot_start(struct xact_engine *xe, const struct xact_req *r)
{
	unsigned idx = xe->free_slots[--xe->n_free];
	struct xact_slot *s = &xe->slots[idx];

	s->busy = true;
	s->req = *r;
	s->seq = ++xe->seq & ((1u << (32 - SLOT_BITS)) - 1);
	s->req.smp.tid = (uint64_t)xe->tid_high << 32 | s->seq << SLOT_BITS | idx;
	s->tries_left = xe->opts.retries;
	wire_smp_encode(&s->req.smp, s->buf, sizeof(s->buf));
	xe->st.outstanding++;
	if (xe->st.outstanding > xe->st.max_outstanding)
		xe->st.max_outstanding = xe->st.outstanding;
	slot_transmit(s);
}

static void xact_pump(struct xact_engine *xe)
{
	if (xe->pumping)
		return;
	xe->pumping = true;
	while (xe->n_free && xe->q_len) {
		struct xact_req r = xe->queue[xe->q_head];
		xe->q_head = (xe->q_head + 1) % xe->q_cap;
		xe->q_len--;
		xe->st.queued = xe->q_len;
		slot_start(xe, &r);
	}
	xe->pumping = false;
}

int xact_submit(struct xact_engine *xe, const struct wire_smp *req, xact_done_fn done, void *arg)
{
	uint8_t probe[WIRE_MAD_SIZE];

	if (!xe || !req || wire_smp_encode(req, probe, sizeof(probe)) < 0)
		return -EINVAL;
	if (xe->q_len == xe->q_cap) {
		size_t ncap = xe->q_cap ? xe->q_cap * 2 : 64;
		struct xact_req *nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		for (size_t i = 0; i < xe->q_len; i++)
			nq[i] = xe->queue[(xe->q_head + i) % xe->q_cap];
		free(xe->queue);
		xe->queue = nq;
		xe->q_cap = ncap;
		xe->q_head = 0;
	}
	xe->queue[(xe->q_head + xe->q_len) % xe->q_cap] = (struct xact_req){*req, done, arg};
	xe->q_len++;
	xe->st.queued = xe->q_len;
	xe->st.submitted++;
	xact_pump(xe);
	return 0;
}

static struct xact_slot *slot_by_tid(struct xact_engine *xe, uint64_t tid)
{
	unsigned idx = tid & ((1u << SLOT_BITS) - 1);
	struct xact_slot *s;

	/* the kernel may rewrite the high 32 bits; match on the low ones */
	if (idx >= xe->opts.window)
		return NULL;
	s = &xe->slots[idx];
	if (!s->busy || (uint32_t)s->req.smp.tid != (uint32_t)tid)
		return NULL;
	return s;
}

int xact_input(struct xact_engine *xe, const uint8_t *buf, size_t len)
{
	struct wire_smp resp;
	struct xact_slot *s;

	if (wire_smp_decode(buf, len, &resp) < 0) {
		xe->st.malformed++;
		return -EBADMSG;
	}
	xe->st.received++;
	s = slot_by_tid(xe, resp.tid);
	if (!s || !(resp.method & 0x80) || resp.attr_id != s->req.smp.attr_id ||
	    resp.mgmt_class != s->req.smp.mgmt_class) {
		xe->st.unmatched++;
		return -ENOENT;
	}
	if (resp.status) {
		xe->st.remote_errors++;
		slot_finish(s, -EREMOTEIO, &resp);
	} else {
		slot_finish(s, 0, &resp);
	}
	return 0;
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

unsigned xact_pending(const struct xact_engine *xe)
{
	return xe ? xe->st.outstanding + xe->q_len : 0;
}

void xact_get_stats(const struct xact_engine *xe, struct xact_stats *ret)
{
	*ret = xe->st;
}

void xact_set_opts(struct xact_engine *xe, unsigned timeout_ms, unsigned retries)
{
	xe->opts.timeout_ms = timeout_ms;
	xe->opts.retries = retries;
}

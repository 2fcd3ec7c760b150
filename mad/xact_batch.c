/*
 * Batches of the transaction engine (see xact.h): their life cycle, their
 * counts, cancelling them, and asking their producers for requests.
 *
 * Batches are a list in creation order (the order producers are asked
 * in).  A request keeps a pointer to its batch while queued or in flight;
 * cancelling marks queued ones dead (the pump drops them) and makes
 * in-flight ones orphans (their slot ends with no callback).  A batch whose
 * callback is running is held: freeing it then only marks it dead, and the
 * last release frees it.  on_empty runs from xact_batch_settle, never
 * nested, and never while a cancel is under way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/xact.h"
#include "mad/xact_int.h"

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

/* ---- the calls ---------------------------------------------------------------- */

struct xact_batch *xact_batch_new(struct xact_engine *xe, xact_empty_fn on_empty, void *arg)
{
	struct xact_batch *b;

	if (!xe)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->xe = xe;
	b->on_empty = on_empty;
	b->arg = arg;
	b->prev = xe->batches_tail;
	if (xe->batches_tail)
		xe->batches_tail->next = b;
	else
		xe->batches = b;
	xe->batches_tail = b;
	return b;
}

void xact_batch_set_producer(struct xact_batch *b, enum xact_lane lane, xact_produce_fn fn,
			     void *ctx)
{
	if (!b || !xact_lane_is_valid(lane))
		return;
	if (fn != b->produce || ctx != b->produce_ctx)
		b->ready = false;
	b->produce = fn;
	b->produce_ctx = ctx;
	b->produce_lane = lane;
}

void xact_batch_wake(struct xact_batch *b)
{
	if (!b || !b->xe || b->dead || b->cancelling || !b->produce)
		return;
	b->ready = true;
	b->armed = true;
	xact_pump(b->xe);
}

/* Cancel b's requests waiting in q (the pump held, b held). */
static void queue_cancel(struct xact_queue *q, struct xact_batch *b)
{
	unsigned i = q->head_i;

	/* a callback may queue more (other batches'): the tail is read each time */
	for (struct xact_chunk *c = q->head; c; c = c->next, i = 0) {
		for (; i < (c == q->tail ? q->tail_i : QUEUE_CHUNK); i++) {
			struct xact_req *r = &c->r[i];

			if (r->dead || r->batch != b)
				continue;
			r->dead = true;
			q->dead++;
			b->st.queued--;
			b->st.cancelled++;
			xact_req_complete(r, -ECANCELED, r->addressed ? r->a.mad : NULL, NULL);
		}
	}
}

void xact_batch_cancel(struct xact_batch *b)
{
	struct xact_engine *xe;
	bool was_pumping;

	if (!b || !(xe = b->xe) || b->cancelling)
		return;
	b->cancelling = true;
	b->ready = false;
	b->hold++;
	was_pumping = xe->pumping;
	xe->pumping = true;
	for (unsigned l = 0; l < N_LANES; l++)
		queue_cancel(&xe->lanes[l], b);
	for (unsigned i = 0; i < xe->n_slots; i++) {
		struct xact_slot *s = xe->slots[i];

		if (!s->busy || s->orphan || s->req.batch != b)
			continue;
		/* the slot stays taken until its answer or timeout: the window holds */
		s->orphan = true;
		b->st.outstanding--;
		b->st.cancelled++;
		xe->st.completed++;
		xact_req_complete(&s->req, -ECANCELED, s->buf, NULL);
	}
	xe->pumping = was_pumping;
	b->armed = false;
	b->cancelling = false;
	xact_batch_release(b);
	xact_pump(xe);
}

void xact_batch_free(struct xact_batch *b)
{
	struct xact_engine *xe;

	if (!b || b->dead)
		return;
	/* dead first: a callback of the cancel below that frees it again does nothing */
	b->hold++;
	b->dead = true;
	xact_batch_cancel(b);
	xe = b->xe;
	if (xe) {
		if (b->prev)
			b->prev->next = b->next;
		else
			xe->batches = b->next;
		if (b->next)
			b->next->prev = b->prev;
		else
			xe->batches_tail = b->prev;
	}
	b->prev = b->next = NULL;
	xact_batch_release(b);
}

unsigned xact_batch_pending(const struct xact_batch *b)
{
	return b ? b->st.queued + b->st.outstanding : 0;
}

void xact_batch_get_stats(const struct xact_batch *b, struct xact_batch_stats *ret)
{
	*ret = b->st;
}

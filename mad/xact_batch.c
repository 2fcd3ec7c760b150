/*
 * Batches of the transaction engine (see xact.h): the calls their owners
 * make (new, producer, wake, cancel, free, counts).  What the engine does
 * with a batch as its requests complete and its lanes have room (count,
 * settle, release, ask the producers) is in xact.c, which calls nothing
 * here.
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

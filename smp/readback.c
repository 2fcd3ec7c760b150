/*
 * LFT readback (see readback.h).  IBA 1.4 vol 1, 14.2.5.10.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/lft.h"
#include "mad/wire.h"
#include "smp/readback.h"

struct readback {
	readback_done_fn *done;
	void *arg;
	struct program_held *held;
	bool *failed;		  /* per node: a Get failed */
	struct xact_batch *batch; /* the Gets; on empty: readback_finish */
	struct readback_stats st;
	struct timespec t0;
};

struct readback_op {
	struct readback *rb;
	uint32_t node;
	uint32_t block;
};

static double readback_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void readback_destroy(struct readback *rb)
{
	xact_batch_free(rb->batch);
	program_held_free(rb->held);
	free(rb->failed);
	free(rb);
}

static void readback_get_done(void *arg, int status, const struct wire_smp *req,
			      const struct wire_smp *resp)
{
	struct readback_op *op = arg;
	struct readback *rb = op->rb;
	struct program_held *h = rb->held;
	uint8_t ports[LFT_BLOCK];

	if (status == -ECANCELED) {
		free(op);
		return;
	}
	if (status < 0 || wire_lft_decode(resp->data, sizeof(resp->data), ports) < 0) {
		rb->st.errors++;
		rb->failed[op->node] = true;
	} else {
		uint8_t *row = h->r->lft[op->node];
		size_t first = (size_t)op->block * LFT_BLOCK;

		for (size_t i = 0; i < LFT_BLOCK && first + i <= h->r->max_lid; i++)
			row[first + i] = ports[i];
	}
	free(op);
}

/* Every Get answered or not: hand over what was read. */
static void readback_finish(void *arg)
{
	struct readback *rb = arg;
	struct program_held *h = rb->held;
	struct xact_batch_stats bs;

	xact_batch_get_stats(rb->batch, &bs);
	rb->st.blocks = (uint32_t)bs.submitted; /* the Gets asked */
	/* a switch with a block missing is unknown: every block gets written */
	for (uint32_t i = 0; i < h->n_nodes; i++)
		if (rb->failed[i])
			h->top[i] = -1;
	rb->st.ms = readback_ms_since(&rb->t0);
	rb->held = NULL;
	rb->done(rb->arg, h, &rb->st);
	readback_destroy(rb);
}

/* The top this switch's new table needs (as program_switch computes it). */
static int readback_new_top(const struct node *n, const struct routes *r)
{
	int top = r->max_lid;

	if (n->lft_cap && top >= n->lft_cap)
		top = n->lft_cap - 1;
	return top;
}

int readback_start(struct xact_engine *xe, const struct fabric *f, const struct routes *r,
		   const struct fabric *old_f, const struct routes *old_r, readback_done_fn *done,
		   void *arg, struct readback **ret)
{
	struct readback *rb;
	struct program_held *h;
	int held_max = -1;

	*ret = NULL;
	rb = calloc(1, sizeof(*rb));
	h = calloc(1, sizeof(*h));
	if (!rb || !h)
		goto nomem;
	rb->held = h;
	rb->done = done;
	rb->arg = arg;
	rb->batch = xact_batch_new(xe, readback_finish, rb);
	h->n_nodes = f->n_nodes;
	h->top = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*h->top));
	rb->failed = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*rb->failed));
	if (!h->top || !rb->failed || !rb->batch)
		goto nomem;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		int old_top, t;

		h->top[i] = -1;
		if (!node_is_switch(n) || !r->lft[i] || n->lft_top == 0 || n->lft_top == 0xffff ||
		    program_old_lft(old_f, old_r, n, &old_top))
			continue;
		t = readback_new_top(n, r);
		if (t > n->lft_top)
			t = n->lft_top;
		/* whole blocks: the last one read may go past the switch's top */
		t = (t / LFT_BLOCK + 1) * LFT_BLOCK - 1;
		h->top[i] = t < n->lft_top ? t : n->lft_top;
		if (h->top[i] > held_max)
			held_max = h->top[i];
	}
	if (held_max < 0) {
		readback_destroy(rb); /* nothing worth reading */
		return 0;
	}
	{
		/* rows for the switches read only (k=56: one switch back, not 190 MB) */
		bool *want = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*want));

		for (uint32_t i = 0; want && i < f->n_nodes; i++)
			want[i] = h->top[i] >= 0;
		h->r = want ? routes_new_for(
				  f, (uint16_t)((held_max / LFT_BLOCK + 1) * LFT_BLOCK - 1), want)
			    : NULL;
		free(want);
	}
	if (!h->r)
		goto nomem;
	clock_gettime(CLOCK_MONOTONIC, &rb->t0);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		if (h->top[i] < 0)
			continue;
		rb->st.switches++;
		for (uint32_t b = 0; b <= (uint32_t)h->top[i] / LFT_BLOCK; b++) {
			struct readback_op *op = calloc(1, sizeof(*op));
			struct wire_smp smp;
			int rc = -ENOMEM;

			if (op) {
				*op = (struct readback_op){rb, i, b};
				rc = wire_smp_init_dr(&smp, WIRE_GET, WIRE_ATTR_LFT, b, n->dr_path,
						      n->dr_hops);
				if (rc == 0)
					rc = xact_submit(
					    xe, &(struct xact_request){.batch = rb->batch,
								       .smp = &smp,
								       .done = readback_get_done,
								       .arg = op});
			}
			if (rc < 0) {
				free(op);
				rb->failed[i] = true;
				rb->st.errors++;
				continue;
			}
		}
	}
	if (!xact_batch_pending(rb->batch)) {
		/* nothing could be sent: the switches stay unknown */
		readback_destroy(rb);
		return 0;
	}
	*ret = rb;
	return 0;
nomem:
	if (rb)
		readback_destroy(rb);
	else
		free(h);
	return -ENOMEM;
}

void readback_free(struct readback *rb)
{
	if (rb)
		readback_destroy(rb); /* the Gets in flight are cancelled */
}

/* Multicast forwarding tables read back (see mftread.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mad/wire.h"
#include "smp/mftread.h"
#include "smp/program.h"

struct mftread_sw {
	uint64_t guid;
	struct mft *t; /* being filled; NULL once a Get of it failed */
};

struct mftread {
	mftread_done_fn *done;
	void *arg;
	struct mftread_sw *sw;
	uint32_t n_sw;
	struct xact_batch *batch; /* the Gets; on empty: mftread_finish */
	struct mftread_stats st;
};

struct mftread_op {
	struct mftread *mr;
	uint32_t sw;
	uint16_t block;
	uint8_t position;
};

static void mftread_destroy(struct mftread *mr)
{
	xact_batch_free(mr->batch);
	for (uint32_t i = 0; i < mr->n_sw; i++)
		mft_free(mr->sw[i].t);
	free(mr->sw);
	free(mr);
}

/* Every Get answered or not: hand over the tables read whole. */
static void mftread_finish(void *arg)
{
	struct mftread *mr = arg;
	struct mft_set *read = mft_set_new();
	struct xact_batch_stats bs;

	xact_batch_get_stats(mr->batch, &bs);
	mr->st.blocks = (uint32_t)bs.submitted; /* the Gets asked */

	for (uint32_t i = 0; read && i < mr->n_sw; i++) {
		if (!mr->sw[i].t)
			continue;
		if (mft_set_put(read, mr->sw[i].guid, mr->sw[i].t) < 0) {
			mft_set_free(read); /* out of memory: every switch stays unknown */
			read = NULL;
			break;
		}
		mr->sw[i].t = NULL;
	}
	if (read)
		mr->done(mr->arg, read, &mr->st);
	mftread_destroy(mr);
}

static void mftread_get_done(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp)
{
	struct mftread_op *op = arg;
	struct mftread *mr = op->mr;
	struct mftread_sw *s = &mr->sw[op->sw];
	uint16_t masks[MFT_BLOCK];

	if (status != -ECANCELED && s->t) {
		if (status < 0 || wire_mft_decode(resp->data, sizeof(resp->data), masks) < 0) {
			mr->st.errors++;
			mft_free(s->t);
			s->t = NULL;
		} else {
			for (unsigned j = 0; j < MFT_BLOCK; j++) {
				size_t e = (size_t)op->block * MFT_BLOCK + j;

				if (e < (size_t)s->t->n_blocks * MFT_BLOCK)
					s->t->mask[e * s->t->n_pos + op->position] = masks[j];
			}
		}
	}
	free(op);
}

/* Whether n says it forwards no MLID (MulticastFDBTop below 0xC000, where it has one). */
static bool mftread_holds_none(const struct node *n)
{
	struct wire_switchinfo si;
	struct wire_portinfo pi;

	return wire_portinfo_decode(n->ports[0].pi, sizeof(n->ports[0].pi), &pi) == 0 &&
	       (pi.capmask & PROGRAM_CAP_MCAST_FDB_TOP) &&
	       wire_switchinfo_decode(n->si, sizeof(n->si), &si) == 0 &&
	       si.mft_top < MFT_MLID_FIRST;
}

int mftread_start(struct xact_engine *xe, const struct fabric *f, const struct mft_set *want,
		  struct mft_set *known, mftread_done_fn *done, void *arg, struct mftread **ret)
{
	struct mftread *mr = calloc(1, sizeof(*mr));

	*ret = NULL;
	if (!mr)
		return -ENOMEM;
	mr->done = done;
	mr->arg = arg;
	mr->sw = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*mr->sw));
	mr->batch = xact_batch_new(xe, mftread_finish, mr);
	if (!mr->sw || !mr->batch)
		goto nomem;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		const struct mft *w = node_is_switch(n) ? mft_set_get(want, n->guid) : NULL;
		struct mftread_sw *s;

		if (!w || !w->n_blocks || mft_set_get(known, n->guid))
			continue;
		if (mftread_holds_none(n)) {
			/* an empty table, as it is: known at once */
			struct mft *t = mft_new(w->nports, w->n_blocks);

			if (!t || mft_set_put(known, n->guid, t) < 0) {
				mft_free(t);
				goto nomem;
			}
			continue;
		}
		s = &mr->sw[mr->n_sw];
		s->guid = n->guid;
		s->t = mft_new(w->nports, w->n_blocks);
		if (!s->t)
			goto nomem;
		mr->n_sw++;
		mr->st.switches++;
		for (uint16_t b = 0; b < w->n_blocks; b++)
			for (uint8_t p = 0; p < w->n_pos; p++) {
				struct mftread_op *op = calloc(1, sizeof(*op));
				struct wire_smp smp;
				int rc = -ENOMEM;

				if (op) {
					*op = (struct mftread_op){mr, mr->n_sw - 1, b, p};
					rc = wire_smp_init_dr(&smp, WIRE_GET, WIRE_ATTR_MFT,
							      mft_attr_mod(p, b), n->dr_path,
							      n->dr_hops);
					if (rc == 0)
						rc = xact_submit(xe, &(struct xact_request){
									 .batch = mr->batch,
									 .smp = &smp,
									 .done = mftread_get_done,
									 .arg = op});
				}
				if (rc < 0) {
					free(op);
					mr->st.errors++;
					mft_free(s->t);
					s->t = NULL;
					goto next_switch;
				}
			}
	next_switch:;
	}
	if (!xact_batch_pending(mr->batch)) {
		mftread_destroy(mr); /* nothing to read, or nothing could be asked */
		return 0;
	}
	*ret = mr;
	return 0;
nomem:
	mftread_destroy(mr); /* the Gets in flight are cancelled */
	return -ENOMEM;
}

void mftread_free(struct mftread *mr)
{
	if (mr)
		mftread_destroy(mr); /* the Gets in flight are cancelled */
}

/*
 * Reading the switches' linear forwarding tables back (IBA 1.4 vol 1,
 * 14.2.5.10 LinearForwardingTable, SubnGet), so that an SM that does not
 * know what a switch holds -- it has just started, or it takes over from
 * another SM -- writes only the blocks that differ instead of every block.
 *
 * Read: the switches for which the last published snapshot gives no table
 * (program_old_lft), blocks 0 up to the lower of the switch's LinearFDBTop
 * as discovery read it and the top the new routes need.  Entries past the
 * LinearFDBTop count as empty: the switch does not forward them now.  A
 * switch whose LinearFDBTop is 0 holds nothing worth reading (a fresh
 * switch), and one whose blocks do not all answer is left unknown (every
 * block is written).  The Gets go on the bulk lane, the window full.
 *
 * Cost: one Get per block that would otherwise be one Set, so a takeover
 * costs the same number of SMPs and writes nothing that works.
 */
#ifndef IBSMD_READBACK_H
#define IBSMD_READBACK_H

#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"
#include "mad/xact.h"
#include "smp/program.h"

struct readback;

struct readback_stats {
	uint32_t switches; /* switches read */
	uint32_t blocks;   /* blocks read */
	uint32_t errors;   /* Gets that failed (their switch is left unknown) */
	double ms;
};

/*
 * held (owned by the receiver, program_held_free) and what was read; runs
 * from the loop once every Get has completed.
 */
typedef void readback_done_fn(void *arg, struct program_held *held,
			      const struct readback_stats *st);

/*
 * Read back what f's switches hold, for the routes r about to be
 * programmed (old_f/old_r: the published snapshot, NULL for none).  0 with
 * *ret NULL when there is nothing to read (done is not called), 0 with *ret
 * set when Gets are in flight, or -ENOMEM.  f must outlive the readback.
 */
int readback_start(struct xact_engine *xe, const struct fabric *f, const struct routes *r,
		   const struct fabric *old_f, const struct routes *old_r, readback_done_fn *done,
		   void *arg, struct readback **ret);

/* Abort: the Gets in flight are cancelled, done is not called; frees.  NULL ok. */
void readback_free(struct readback *rb);

#endif

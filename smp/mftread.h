/*
 * Reading the switches' multicast forwarding tables back (IBA 1.4 vol 1,
 * 14.2.5.11 MulticastForwardingTable, SubnGet), the MFT side of
 * smp/readback.h: an SM that does not know what a switch holds -- it has just
 * started, or it takes over from another SM -- reads the blocks it is about
 * to write and writes only those that differ.
 *
 * Read: every multicast switch of the fabric that has a table in want and
 * none in known, the blocks and positions of its want table.  A switch that
 * says, by its MulticastFDBTop, that it forwards no MLID is put into known
 * at once with an empty table, without a read.  A switch whose Gets do not all answer stays
 * unknown (every block is written).  The Gets go on the bulk lane.
 */
#ifndef IBSMD_MFTREAD_H
#define IBSMD_MFTREAD_H

#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/mft.h"
#include "mad/xact.h"

struct mftread;

struct mftread_stats {
	uint32_t switches; /* switches read */
	uint32_t blocks;   /* (block, position) Gets sent */
	uint32_t errors;   /* Gets that failed (their switch stays unknown) */
};

/*
 * read (owned by the receiver, mft_set_free): a table by switch GUID for
 * every switch read whole; runs from the loop once every Get has completed.
 */
typedef void mftread_done_fn(void *arg, struct mft_set *read, const struct mftread_stats *st);

/*
 * Start reading what f's switches hold for the tables of want that known
 * lacks (known gets the empty ones at once).  0 with *ret NULL when there is
 * nothing to read (done is not called), 0 with *ret set when Gets are in
 * flight (done is called later, never from here), or -ENOMEM.  f, want and
 * known are used at the start only.
 */
int mftread_start(struct xact_engine *xe, const struct fabric *f, const struct mft_set *want,
		  struct mft_set *known, mftread_done_fn *done, void *arg, struct mftread **ret);

/* Abort: the Gets in flight are cancelled, done is not called; frees.  NULL ok. */
void mftread_free(struct mftread *mr);

#endif

/*
 * Multicast forwarding: keeping every switch's MulticastForwardingTable
 * (IBA 1.4 vol 1, 14.2.5.11) equal to the spanning trees of the multicast
 * groups (sa/mcast.h, routing/mtree.h) over the published snapshot.
 *
 * An update computes the tables every switch should hold from the group
 * database and sm->snap, and runs one program batch (smp/program.h) of the
 * MFT blocks that differ from what each switch was last given (kept here by
 * switch GUID; the snapshot stays immutable).  The tables and the trees'
 * distance cache are kept for the snapshot: after a join or a leave only
 * the MLIDs whose groups changed are computed again; after a new snapshot,
 * or when the MLIDs in use need more or fewer blocks, all.  Updates are
 * asked for
 *  - by the database's hooks: a group was created or deleted, or its
 *    receivers or send-only members changed (a join or a leave): the batch
 *    goes on the control lane, so it does not wait behind a sweep's LFTs;
 *  - by every published snapshot: members whose port left the fabric are
 *    dropped (mcast_reconcile), switches that left or were reset (their
 *    LinearFDBTop is not what this SM set, or their MulticastFDBTop not
 *    what it last gave them) are forgotten so they are rewritten whole,
 *    and every tree is computed again (a member moved to another switch, a
 *    link went down): on the bulk lane.
 * Before the first batch over a snapshot, the switches of whose tables this
 * SM knows nothing (it has just started or taken over) are read back
 * (smp/mftread.h, with lft_readback), so that only the blocks that differ
 * are written.
 * A heavy sweep owns the switches while it runs: an MFT batch running when
 * one begins is abandoned (its switches are rewritten whole), and updates
 * wait for the sweep to publish; so an MFT batch's SwitchInfo Set never
 * races the sweep's.  Requests fold: one update at a time, and the
 * requests made while it runs start one more when it ends.  Only a master
 * programs; an SM that is not forgets what it knew.
 */
#ifndef IBSMD_MFTS_H
#define IBSMD_MFTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/mft.h"
#include "lib/stat_table.h"
#include "fabric/snapshot.h"
#include "sa/mcast.h"

struct sm;
struct program;
struct event;
struct mtree;
struct mftread;

#define MFTS_DIRTY_WORDS ((MCAST_N_MLIDS + 63) / 64)

/* Inside struct sm. */
struct mfts {
	struct mft_set *known; /* by switch GUID: the table each switch was last given */
	struct mft_set *want;  /* the tables for sm->snap, as last computed (NULL: none) */
	struct mtree *tree;    /* sm->snap's switch graph and distance cache */
	uint16_t want_blocks;  /* blocks the MLIDs in use needed then */
	bool all_dirty;	       /* every MLID must be computed again */
	uint64_t dirty[MFTS_DIRTY_WORDS]; /* MLIDs whose groups changed since */
	struct program *batch;		  /* the MFT batch running, or NULL */
	struct mftread *reading;	  /* the MFTs being read back first, or NULL */
	uint64_t read_gen;		  /* the snapshot generation last read back for */
	uint64_t read_blocks;		  /* MFT blocks read back */
	struct event *kick;		  /* runs the requested update from the loop */
	bool pending;			  /* an update was asked for while the batch ran */
	bool full;		/* the pending update follows a new snapshot (bulk lane) */
	uint64_t updates;	/* batches run */
	uint64_t full_computes; /* updates that computed every MLID */
	uint64_t blocks;	/* MFT blocks sent */
	uint64_t errors;	/* Sets that failed */
};

/* What mfts_compute found, summed over the groups. */
struct mfts_compute_stats {
	uint32_t groups;
	uint32_t members;
	uint32_t unattached;  /* member ports not in the fabric or not cabled to a switch */
	uint32_t unreachable; /* no path from their tree's root */
	uint32_t clipped;     /* mask bits past a switch's MulticastFDBCap */
	uint32_t switches;    /* (switch, MLID) pairs forwarding */
};

/*
 * The tables every multicast switch of s should hold for the groups of db:
 * one table per switch covering MLIDs up to db's highest.  0 or -ENOMEM
 * (*ret untouched); st may be NULL.  Pure.
 */
int mfts_compute(const struct mcast_db *db, const struct snapshot *s, struct mft_set **ret,
		 struct mfts_compute_stats *st);

/*
 * Create sm->mcast with the IPoIB broadcast group and hook the updates in
 * (the database's hooks, sm->hooks.published).  0 or -ENOMEM.
 */
int mfts_init(struct sm *sm);
/* Abandon a running batch (before the transaction engine goes), unhook, free.  NULL-safe state. */
void mfts_fini(struct sm *sm);
/*
 * This SM is no longer master: abandon the batch that runs and forget what
 * the switches were given (another SM programs them now).
 */
void mfts_stand_down(struct sm *sm);
/* Ask for an update; it runs from the event loop. */
void mfts_request(struct sm *sm);

struct partition;
/*
 * The IPoIB broadcast groups of partition p (policy/partition.h): one per
 * scope it asks for, ff1S:401b:PKEY::ffff:ffff, well-known, with its Q_Key,
 * MTU, rate and SL (the default partition's exists from the start).  Returns
 * how many were new; a group that cannot be made is logged.
 */
size_t mfts_ipoib_add(struct sm *sm, const struct partition *p);
/* The IPoIB broadcast groups of pkey, every scope, go with their members.  Returns how many. */
size_t mfts_ipoib_drop(struct sm *sm, uint16_t pkey);

/* What multicast shows (smctl status "multicast", metrics). */
struct mfts_status {
	uint64_t groups, members, mlids, mlid_top;
	uint64_t mft_updates, mft_blocks, mft_read_blocks, mft_errors;
	uint64_t sa_joins, sa_leaves, sa_refused; /* MCMemberRecord requests (sa/sa.h) */
};
/* ret: the status; false (ret zeroed) when there is no group database. */
bool mfts_status_get(const struct sm *sm, struct mfts_status *ret);
/* Its counters (lib/stat_table.h). */
extern const struct stat_table mfts_stat_table;

#endif

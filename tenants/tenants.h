/*
 * Tenant partitions at run time (a part, sm/part.h): the P_Keys an
 * orchestrator adds, shrinks and deletes through the API (ui/api_pkeys.c:
 * `smctl partition`, the UFM-shaped HTTPS routes), kept beside the file's
 * partitions (policy/pkeyset.h) and applied without a sweep (IBA 1.4 vol 1,
 * 10.9; 14.2.5.7 P_KeyTable).
 *
 * A change is checked whole, then taken at once: the runtime set is
 * replaced, the merged policy (the file's partitions and the runtime ones)
 * becomes sm->policy.parts, which every later sweep programs and the SA
 * reads, the IPoIB groups of the P_Key are made or dropped, the set is
 * written to the state directory (atomically, durably; a write that fails
 * is tried again on a timer, as guid2lid), and an audit line says who did
 * what.  A request that would give a present port more P_Keys than its
 * PartitionCap (at most the 64 the model keeps) is refused naming the
 * port, and nothing of it is taken.
 *
 * Applying: the end ports whose tables change (the GUIDs added, removed or
 * changed; every member of a deleted P_Key) are marked, and one batch at a
 * time (smp/program.h, on the control lane, so it does not wait behind a
 * sweep's LFT blocks) writes only the P_KeyTable blocks that differ from
 * what each port holds, and, with part_enforce, those of the switch port
 * facing it.  The answers are kept beside the published snapshot
 * (fabric/pkeyview.h), which the SA reads: PathRecords, joins, services and
 * subscriptions follow the new membership as soon as the ports hold it.
 * A GUID not in the fabric is kept in the set; the sweep that finds its
 * port programs it.  A Set that fails marks its port again, tried after 1 s
 * (doubling to 60 s) until a batch holds it or a sweep programs it.
 *
 * A heavy sweep owns the switches while it runs: a batch running when one
 * starts is abandoned (its ports marked again), and the next batch waits
 * for the publish.  The sweep's configure batch writes whole the tables of
 * the ports the batches wrote since the last publish (its model of them
 * may be a stale copy); a sweep that programmed empties the view.  Only a
 * master programs; a standby refuses changes (its set comes from the
 * master with the state sync, failover/sync.c, and is taken at a
 * takeover).
 */
#ifndef IBSMD_TENANTS_H
#define IBSMD_TENANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"
#include "policy/pkeyset.h"

struct sm;

#define TENANTS_FILE "partitions.runtime.json" /* in state_dir */
#define TENANTS_FILE_MAX (32u << 20)

/*
 * Attach the part: load state_dir/TENANTS_FILE (a file that does not read
 * is renamed *.bad and logged: the set starts empty), merge it into the
 * policy, hook into the SM and the SA.  0 or -errno with err.
 */
int tenants_attach(struct sm *sm, char *err, size_t err_len);

/*
 * sm->policy.file_parts changed (sm_load_partitions): sm->policy.parts
 * becomes it merged with the runtime set (just the file's without the
 * part).  Runtime P_Keys the file now defines are left out and logged.
 * 0 or -ENOMEM (the old policy is kept).
 */
int tenants_merge(struct sm *sm);

/*
 * A request (policy/pkeyset.h) from who ("alice via https 10.0.0.5:41234",
 * "uid 0 pid 812 via the control socket"), for the audit line.  0 with
 * *ret_delta (cleared first; the caller clears it) saying what changed
 * (nothing for an idempotent request); else -EEXIST (the file defines the
 * P_Key), -E2BIG, -ENOSPC (limits), -ENOENT (QoS of a P_Key not there),
 * -EINVAL (a bad request), -EOVERFLOW (a port's PartitionCap, err names
 * it), -EAGAIN (this SM is not the master: not NOTACTIVE, DISCOVERING or
 * MASTER), -ENODEV (the part is not attached), -ENOMEM; err says why.
 */
int tenants_request(struct sm *sm, const struct pkeyset_req *req, const char *who,
		    struct pkeyset_delta *ret_delta, char *err, size_t err_len);

/* The runtime set (read only, valid until the next change); NULL without the part. */
const struct pkeyset *tenants_set(const struct sm *sm);

/* Where a partition's members stand (tenants_ready). */
struct tenants_ready {
	size_t members; /* GUID members */
	size_t present; /* of those, ports of the published fabric */
	size_t holding; /* of those, whose table holds the key as the policy wants it */
	bool ready;	/* holding == present (and a snapshot exists) */
};

/*
 * Whether every present GUID member of partition pkey (of sm->policy.parts)
 * holds it: its end port's table (as last written or read) holds the key
 * with the membership the policy gives it, and, where partition enforcement
 * reads the switch port facing it, so does that port's.  false when the
 * policy has no such partition.
 */
bool tenants_ready(const struct sm *sm, uint16_t pkey, struct tenants_ready *ret);

/*
 * Replace the runtime set whole (a takeover carried the master's,
 * failover/sync.c): s is taken (freed on failure).  The ports whose tables
 * differ are programmed as for a request; the set is written to disk.  0
 * or -errno.
 */
int tenants_replace(struct sm *sm, struct pkeyset *s, const char *who);

/* What the runtime partitions show (smctl status "runtime_partitions", metrics). */
struct tenants_status {
	uint64_t pkeys, members, shadowed;
	uint64_t changes, noops, refused;
	uint64_t batches, blocks, errors;
	uint64_t pending_ports, view_ports;
	uint64_t save_failures;
	bool save_owed;
	int max_guids, max_runtime;
};
/* ret: the status; false (ret zeroed) without the part. */
bool tenants_status_get(const struct sm *sm, struct tenants_status *ret);
extern const struct stat_table tenants_stat_table;

#endif

/*
 * The state document a master hands its standby (issue 9, state sync): the
 * SA state that outlives sweeps (multicast groups and their members,
 * services with the lease they have left, InformInfo subscriptions) and the
 * guid->LID map, as one JSON object:
 *
 *   {"version": 1, "sm_guid": "0x...", "generation": N,
 *    "groups": [{"mgid": "ff12...", "mlid": 49152, "qkey": ..., "pkey": ...,
 *                "mtu": ..., "rate": ..., "pkt_life": ..., "sl": ..., "tclass": ...,
 *                "flow_label": ..., "hop_limit": ..., "well_known": bool,
 *                "members": [{"gid": "fe80...", "join_state": 1, "proxy": false}]}],
 *    "services": [{"rec": "<176 bytes in hex>", "lease_left_ms": N}],   (0: infinite)
 *    "informs": [{"port_guid": "0x...", "qpn": N, "sl": N, "ii": "<36 bytes in hex>"}],
 *    "lids": [{"guid": "0x...", "lid": N, "lmc": N}],
 *    "runtime_partitions": {"version": 1, "pkeys": [...]}}   (policy/pkeyset.h)
 *
 * GUIDs are strings (JSON numbers lose bits past 2^53); GIDs and records are
 * lowercase hex of their wire bytes.  Unknown keys are ignored; a version
 * other than SYNCDOC_VERSION is refused.  "runtime_partitions" (issue 23)
 * is optional: a master that has none (an older one) leaves the standby's
 * runtime partitions as they are at a takeover; one that has them hands
 * over the whole set, which replaces the standby's (a P_Key the master
 * deleted must not come back).
 *
 * The decoder takes bytes from the network: everything is checked (types,
 * ranges, hex lengths, counts under the SYNCDOC_MAX_* bounds, the document
 * under SYNCDOC_MAX_BYTES) and a document with one bad field is refused
 * whole, with the first problem in err.  Pure: no I/O, no logging.
 *
 * The merge rules (syncdoc_apply, at a takeover): what the document carries
 * is added to what this SM has; nothing this SM has is removed or changed.
 * A group whose MGID is here with the same MLID gains the members it lacks;
 * a group whose MGID or MLID is taken here otherwise is not carried, and its
 * members' ports are listed as not carried (their hosts must re-register:
 * ClientReregister).  A service whose RID is registered here, a
 * subscription already here, a LID entry for a GUID already mapped: kept as
 * they are here.  Services over SERVICE_MAX and subscriptions over the
 * limits of sa/inform.h are dropped, their ports listed as not carried.
 */
#ifndef IBSMD_SA_SYNCDOC_H
#define IBSMD_SA_SYNCDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "mad/sa_wire.h"
#include "policy/pkeyset.h"
#include "sa/inform.h"
#include "sa/mcast.h"
#include "sa/service.h"

#define SYNCDOC_VERSION 1
#define SYNCDOC_MAX_BYTES (16u << 20) /* a document larger than this is refused unread */
#define SYNCDOC_MAX_GROUPS MCAST_N_MLIDS
#define SYNCDOC_MAX_MEMBERS 131072 /* over all groups */
#define SYNCDOC_MAX_SERVICES SERVICE_MAX
#define SYNCDOC_MAX_INFORMS INFORM_MAX
#define SYNCDOC_MAX_LIDS 49151

struct syncdoc_group {
	uint8_t mgid[16];
	uint16_t mlid;
	struct mcast_params p;
	bool well_known;
	struct mcast_member *members;
	size_t n_members;
};

struct syncdoc_service {
	uint8_t rec[SA_SR_SIZE];
	uint64_t left_ms; /* 0: an infinite lease */
};

struct syncdoc_lid {
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
};

/* A decoded document; owned by whoever decoded it, freed with syncdoc_free. */
struct syncdoc {
	uint64_t sm_guid;    /* the port GUID of the SM that made it */
	uint64_t generation; /* that SM's count of changes of its state */
	struct syncdoc_group *groups;
	size_t n_groups;
	struct syncdoc_service *services;
	size_t n_services;
	struct sa_inform_image *informs;
	size_t n_informs;
	struct syncdoc_lid *lids;
	size_t n_lids;
	struct pkeyset *pkeys; /* "runtime_partitions", or NULL when the document has none */
};

/* NULL-safe. */
void syncdoc_free(struct syncdoc *d);

/*
 * The document of these databases (any may be NULL: an empty list) and
 * these LID entries; NULL on ENOMEM.  The caller owns the JSON value.
 */
json_t *syncdoc_encode(uint64_t sm_guid, uint64_t generation, const struct mcast_db *mc,
		       const struct sa_service_db *svc, const struct sa_inform_db *inf,
		       const struct syncdoc_lid *lids, size_t n_lids);

/*
 * Decode len bytes of JSON.  0 with *ret a new document, or -EBADMSG (err
 * says what is wrong: "groups[3].mlid: out of range"), -EMSGSIZE (over
 * SYNCDOC_MAX_BYTES or a SYNCDOC_MAX_* count), -ENOMEM; *ret untouched then.
 */
int syncdoc_decode(const char *buf, size_t len, struct syncdoc **ret, char *err, size_t err_len);

/* What syncdoc_apply carried and did not. */
struct syncdoc_apply_stats {
	size_t groups, groups_failed;
	size_t members;
	size_t services, services_failed;
	size_t informs, informs_failed;
	/* port GUIDs whose state was not (all) carried, sorted, no duplicates; caller frees */
	uint64_t *not_carried;
	size_t n_not_carried;
};

/*
 * Merge d into the databases (the rules above; NULL databases are
 * skipped).  LID entries are left to the caller (the LID map is sm's).
 * 0, or -ENOMEM (ret filled with what was done so far).
 */
int syncdoc_apply(const struct syncdoc *d, struct mcast_db *mc, struct sa_service_db *svc,
		  struct sa_inform_db *inf, struct syncdoc_apply_stats *ret);

/* Whether guid is in the sorted list of syncdoc_apply_stats.not_carried. */
bool syncdoc_guid_listed(const uint64_t *sorted, size_t n, uint64_t guid);

#endif

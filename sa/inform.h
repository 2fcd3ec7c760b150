/*
 * Event subscriptions and forwarding (IBA 1.4 vol 1, 13.4.8.3 InformInfo,
 * 15.2.5.12 InformInfoRecord, 13.4.8.2 Report, 14.2.5.1 Notice): hosts
 * subscribe to traps with Set(InformInfo); the SA sends each matching
 * subscriber a Report(Notice) for the traps it issues itself and resends it
 * until a ReportResp comes.  Subscriptions outlive sweeps and are owned by
 * sa/inform.c, made and freed with the SA object.
 */
#ifndef IBSMD_SA_INFORM_H
#define IBSMD_SA_INFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "sa/sa_types.h"

struct sa;

#define INFORM_MAX 4096		/* subscriptions at most */
#define INFORM_PER_PORT_MAX 16	/* subscriptions of one port at most */
#define INFORM_REPORTS_MAX 256	/* Reports waiting for their ReportResp at most */
#define INFORM_REPORT_RETRIES 3 /* resends of an unanswered Report */

/* The traps the SA issues (14.2.5.1, Table 131). */
enum inform_trap {
	INFORM_TRAP_GID_IN_SERVICE = 64,
	INFORM_TRAP_GID_OUT_OF_SERVICE = 65,
	INFORM_TRAP_MGID_CREATED = 66,
	INFORM_TRAP_MGID_DELETED = 67,
};

struct sa_inform_db;

/* NULL on ENOMEM.  Resends need sa's event loop (without one a Report is sent once). */
struct sa_inform_db *sa_inform_db_new(struct sa *sa);
/* NULL is fine; Reports in flight are dropped. */
void sa_inform_db_free(struct sa_inform_db *db);
/*
 * snap is published after old (NULL at first): subscriptions of ports snap
 * no longer has are dropped, then traps 65 (every endport of old that snap
 * lacks) and 64 (every endport of snap that old lacked) are reported.
 */
void sa_inform_publish(struct sa_inform_db *db, const struct snapshot *old,
		       const struct snapshot *snap);
/* A ReportResp (SA class, method 0x86) from `from`: the Report it answers is done. */
void sa_inform_report_resp(struct sa_inform_db *db, const struct madio_addr *from,
			   const struct sa_wire_mad *mad);
/* Fills ret->subscriptions and ret->reports_*. */
void sa_inform_get_stats(const struct sa_inform_db *db, struct sa_stats *ret);

/* The SA's subscriptions (sa.c). */
struct sa_inform_db *sa_informs(const struct sa *sa);

/*
 * Traps 66 and 67: the multicast group mgid (its MLID mlid, 0 if none) was
 * created (created = true) or deleted.  For sa/mcast.c, once per group it
 * creates or deletes.  Every subscription selecting the trap gets a Report.
 * 0, or -ENOBUFS when some could not be queued (counted in reports_dropped).
 */
int sa_inform_report_mcast(struct sa *sa, const uint8_t mgid[16], uint16_t mlid, bool created);

/*
 * State sync (failover/syncdoc.c): a subscription as a standby carries it.  The
 * Enum is not carried: a restored subscription takes its port's lowest free
 * one, as a new one does.
 */
struct sa_inform_image {
	uint64_t port_guid; /* the subscriber */
	uint32_t qpn;	    /* where its Reports go (24 bits) */
	uint8_t sl;
	uint8_t ii[SA_II_SIZE]; /* the InformInfo as subscribed */
};

/* Subscriptions i = 0 .. count - 1 (NULL: 0), in no particular order. */
size_t sa_inform_count(const struct sa_inform_db *db);
void sa_inform_export(const struct sa_inform_db *db, size_t i, struct sa_inform_image *ret);
/*
 * Add a subscription carried from another SM: 0, -EEXIST (the same
 * subscriber, QP and selectors are subscribed), -ENOSPC (INFORM_MAX or
 * INFORM_PER_PORT_MAX), -EINVAL (GUID 0, QPN past 24 bits, SL past 15).
 */
int sa_inform_restore(struct sa_inform_db *db, const struct sa_inform_image *im);

#endif

/*
 * The Subnet Administrator (IBA 1.4 vol 1, chapter 15): the server hosts ask
 * about the subnet (records, paths) and, later, tell things (multicast joins,
 * services, subscriptions).
 *
 * The SA answers from the published snapshot only: sm/ hands it each new one
 * (sa_publish) and never a sweep in progress.  It runs on the event loop;
 * queries are answered at once, from the loop, in microseconds.  It sends
 * through the callback it was given and logs bad queries rate-limited.
 *
 * Layering: sm/ owns the SA object and calls down into it; the SA does not
 * know the SM.  What the SA must say about its SM (SMInfoRecord,
 * ClassPortInfo) comes through the sm_info callback.
 */
#ifndef IBSMD_SA_H
#define IBSMD_SA_H

#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>

#include "fabric/snapshot.h"
#include "mad/madio.h"
#include "mad/wire.h"
#include "sa/sa_types.h"

struct sa;
struct mcast_db;

/* NULL on ENOMEM.  ops is copied. */
struct sa *sa_new(struct event_base *base, const struct sa_ops *ops);
/* NULL is fine. */
void sa_free(struct sa *sa);

/*
 * The snapshot the SA answers from from now on (NULL: none yet; queries get
 * ERR_NO_RECORDS... or the status the IBA gives when the SA is not ready).
 * Not owned: it stays valid until the next call.
 */
void sa_publish(struct sa *sa, const struct snapshot *snap);

/*
 * A dispatch handler for every SA MAD (class 0x03) that is not a response,
 * and for ReportResp (method 0x86); ctx is the SA.  Other responses are
 * dropped (counted as malformed).
 */
void sa_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	     const uint8_t *buf, size_t len);

void sa_get_stats(const struct sa *sa, struct sa_stats *ret);

struct vlt_set;
/*
 * The SL2VL and VLArb tables read off the ports (fabric/vlt.h; owned by
 * sm/vltables.c, which keeps it alive while set): the source of the
 * SLtoVLMappingTableRecords and VLArbitrationTableRecords of ports whose
 * tables the SM does not program.  NULL: none.
 */
void sa_set_vlt(struct sa *sa, const struct vlt_set *vlt);

struct mft_set;
/*
 * Where the MFTs the switches were last given are kept, by switch GUID
 * (fabric/mft.h; the owner, sm/mfts.c, may replace the set, so the SA reads
 * through the pointer each time): the source of
 * MulticastForwardingTableRecords.  NULL, or *mfts NULL: none.
 */
void sa_set_mfts(struct sa *sa, struct mft_set *const *mfts);

/*
 * The QoS policy and partitions (policy/qos.h, policy/partition.h) the
 * published snapshot's tables were written with: PathRecord SLs and the
 * SL2VL/VLArb records follow them, so the SA says what was programmed,
 * not what a reload asks for next.  The SA takes a reference of each
 * (dropping those it held); NULL ok.
 */
struct qos_policy;
struct partition_config;
void sa_set_policies(struct sa *sa, struct qos_policy *qos, struct partition_config *parts);
/*
 * The P_Key tables the runtime partitions wrote since the snapshot was
 * published (fabric/pkeyview.h; NULL: none): PathRecords, joins, services,
 * subscriptions and P_KeyTableRecords of an end port read its table there
 * first.  Not owned; its owner calls sa_set_pkeyview(sa, NULL) before
 * freeing it.
 */
struct pkeyview;
void sa_set_pkeyview(struct sa *sa, const struct pkeyview *v);
/*
 * The multicast group database MCMemberRecord Sets and Deletes join and
 * leave (sa/mcast.h; NULL: none, Sets and Deletes are refused with
 * ERR_NO_RESOURCES and queries find nothing).  Not owned: its owner keeps it
 * alive while it is set and calls sa_set_mcast(sa, NULL) before freeing it.
 * The SA hooks itself onto the database's `deleted` hook (Reports of trap
 * 67).  0 or -ENOMEM (nothing changed).
 */
int sa_set_mcast(struct sa *sa, struct mcast_db *db);

#endif

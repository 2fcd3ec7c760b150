/*
 * Inside the SA (every file of sa/): one query being answered, the records it collects,
 * and the table of attributes every file of the SA adds its handlers to.
 *
 *   sa.c       the server: decode, check, dispatch by attribute and method,
 *              answer (Get: one record; GetTable: all of them), statuses
 *   core.c     the object's state and helpers the handlers share (below them)
 *   records.c  the read-only records: ClassPortInfo, NodeRecord,
 *              PortInfoRecord, LinkRecord, SMInfoRecord, SwitchInfoRecord
 *   tables.c   the records of programmed tables: LFT, SL2VL, VLArb, P_Key,
 *              GUIDInfo
 *   pathrec.c  PathRecord (Get, GetTable) and MultiPathRecord (GetMulti),
 *              over path.c's computation
 *   service.c  the service database (ServiceRecord), see service.h
 *   inform.c   subscriptions (InformInfo, InformInfoRecord), Reports, see inform.h
 *   mcmember.c MCMemberRecord: joins, leaves and queries over sa/mcast.c's database
 */
#ifndef IBSMD_SA_INT_H
#define IBSMD_SA_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "sa/sa_types.h"

struct mcast_db;
struct mft_set;
struct rmpp;
struct vlt_set;

/* What mcmember.c keeps in the SA object: the database it serves, its counters. */
struct sa_mcmember {
	struct mcast_db *db; /* NULL: none */
	uint64_t joins, leaves, refused;
	uint64_t pkey_refused; /* of refused: the port not in the group's partition */
};

/* The SA object: made and freed by sa.c, shared through core.c. */
struct sa {
	struct event_base *base;
	struct sa_ops ops;
	struct rmpp *rmpp; /* NULL without an event loop */
	const struct snapshot *snap;
	struct sa_stats st;
	struct sa_service_db *services; /* service.c */
	struct sa_inform_db *informs;	/* inform.c */
	struct mft_set *const *mfts;	/* where sm/mfts.c keeps what the switches' MFTs hold */
	const struct vlt_set *vlt;	/* the ports' SL2VL and VLArb as read (sa_set_vlt) */
	struct qos_policy *qos;		/* sa_set_policies: references */
	struct partition_config *parts;
	const struct pkeyview *pkv; /* sa_set_pkeyview: P_Key tables written since the snapshot */
	struct sa_mcmember mcm;	    /* mcmember.c */
};

/* A query: the request, its record type and who asked. */
struct sa_query {
	struct sa *sa;
	const struct snapshot *snap; /* never NULL inside a handler */
	const struct madio_addr *from;
	const struct sa_wire_mad *mad;
	const struct sa_wire_rec *rec; /* the attribute's record type, or NULL */
	const uint8_t *qrec;	       /* the query's record image (mad->data) */
	uint64_t mask;		       /* its ComponentMask */
	uint32_t req_node;	       /* the requester's port, FABRIC_NO_NODE if unknown */
	uint8_t req_port;
};

/* The records of an answer, as wire images at the record type's stride. */
struct sa_result {
	uint8_t *buf;
	size_t len, cap;
	uint16_t stride;
	unsigned n;
	unsigned limit;	  /* stop collecting after this many (Get: 2 is enough to refuse) */
	uint16_t attr_id; /* the answer's AttributeID when not the query's, else 0 */
	const char *why;  /* why a refused query was refused (for the log), NULL: not said */
};

/* Append one record image of q's type.  0, -ENOMEM, or -ENOSPC past the limit. */
int sa_result_add(struct sa_result *res, const uint8_t *rec, uint16_t size);
/* Append rec when it matches q's ComponentMask.  Returns true when added. */
bool sa_query_offer(const struct sa_query *q, struct sa_result *res, const uint8_t *rec);
/* Whether the result is full (the handler may stop enumerating). */
static inline bool sa_result_full(const struct sa_result *res)
{
	return res->n >= res->limit;
}

/*
 * An attribute the SA serves.  Each handler returns SA_STATUS_OK with the
 * records in res, or an SA status (the server answers it).  A NULL handler
 * means the method is not allowed on this attribute.  GetMulti is the
 * method of MultiPathRecord alone (15.2.5.20): the server hands it to that
 * attribute's get, which refuses the other methods; its answer is a table
 * like GetTable's, of another attribute (res->attr_id: PathRecord).
 */
struct sa_attr {
	uint16_t attr_id;
	const struct sa_wire_rec *rec; /* NULL: not a record (ClassPortInfo) */
	uint16_t (*get)(struct sa_query *q, struct sa_result *res);    /* Get and GetTable */
	uint16_t (*set)(struct sa_query *q, struct sa_result *res);    /* Set */
	uint16_t (*delete)(struct sa_query *q, struct sa_result *res); /* Delete */
	bool no_table; /* Get only (ClassPortInfo) */
};

/* records.c */
extern const struct sa_attr sa_records_attrs[];
extern const unsigned sa_records_n_attrs;
/* tables.c */
extern const struct sa_attr sa_tables_attrs[];
extern const unsigned sa_tables_n_attrs;
/* pathrec.c */
extern const struct sa_attr sa_pathrec_attrs[];
extern const unsigned sa_pathrec_n_attrs;

/* service.c */
extern const struct sa_attr sa_service_attrs[];
extern const unsigned sa_service_n_attrs;
/* inform.c */
extern const struct sa_attr sa_inform_attrs[];
extern const unsigned sa_inform_n_attrs;

/* The QoS policy and partitions handed to sa_set_policies, or NULL. */
const struct qos_policy *sa_qos(const struct sa *sa);
const struct partition_config *sa_parts(const struct sa *sa);
/* The MFTs handed to sa_set_mfts, or NULL. */
const struct mft_set *sa_mfts(const struct sa *sa);
/* mcmember.c */
extern const struct sa_attr sa_mcmember_attrs[];
extern const unsigned sa_mcmember_n_attrs;

/* The SA's (core.c). */
struct sa_mcmember *sa_mcmember(struct sa *sa);
/* Hook mm's database (trap 67 on every group deleted), or unhook it.  0 or -ENOMEM. */
int sa_mcmember_hook(struct sa *sa, struct sa_mcmember *mm, bool on);

/* The SM's info through the ops (core.c). */
void sa_sm_info(const struct sa *sa, struct sa_sm_info *ret);

/*
 * For the files of the SA that keep state and send on their own (core.c): the
 * event loop (NULL when the SA was made without one: no timers), the
 * published snapshot (NULL before the first), a MAD sent through ops.send (0
 * or -errno, counted in send_errors), whether a query is trusted (carries the
 * SA's key, sa_sm_info.sa_key, in its SM_Key field, 15.4.1; never while that
 * key is 0), and the subnet prefix of
 * the GIDs of snap's fabric (0xfe80:: when it has none).
 */
struct event_base *sa_event_base(const struct sa *sa);
const struct snapshot *sa_snapshot(const struct sa *sa);
int sa_send_mad(struct sa *sa, const struct madio_dest *to, const uint8_t *mad, size_t len);
bool sa_query_trusted(const struct sa_query *q);
uint64_t sa_subnet_prefix(const struct snapshot *snap);

/*
 * The P_Key table end port (node, port) of q's snapshot holds (a switch:
 * port 0's), *n entries: as the runtime partitions last wrote it
 * (sa_set_pkeyview), else as the snapshot says it was programmed; a port
 * whose table is not known (a fabric no SM programmed: the unit tests'
 * topologies) holds the default partition, full (core.c).
 */
void sa_port_pkeys(const struct sa_query *q, uint32_t node, uint8_t port, const uint16_t **t,
		   size_t *n);
/* Count a refusal for partitions (SA_PKEY_*) (core.c). */
enum sa_pkey_kind { SA_PKEY_PATH, SA_PKEY_SERVICE, SA_PKEY_INFORM };
void sa_count_pkey(struct sa *sa, enum sa_pkey_kind kind);
/* Whether that port is a member (full or limited) of pkey's partition (low 15 bits). */
bool sa_port_has_pkey(const struct sa_query *q, uint32_t node, uint8_t port, uint16_t pkey);

#endif

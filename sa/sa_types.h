/*
 * The SA's plain types (no code): what it is told about its SM, the
 * callbacks it sends through, its counters.  Included by sa.h for sm/ and
 * by every file of sa/.
 */
#ifndef IBSMD_SA_TYPES_H
#define IBSMD_SA_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "mad/madio.h"

/* What the SA says about the SM it runs with. */
struct sa_sm_info {
	uint64_t port_guid;
	uint64_t sm_key; /* SMInfo:SM_Key */
	uint64_t sa_key; /* a query carrying it is trusted (15.4.1); 0: none is */
	uint32_t act_count;
	uint8_t priority;
	uint8_t state; /* SMInfo:SMState */
	/*
	 * SwitchInfo:LifeTimeValue the published snapshot's switches were
	 * programmed with (packet_life_time), PathRecord PacketLifeTime's
	 * per-switch term (sa/path.h); 0: none known, path.h's default.
	 */
	uint8_t switch_life_set;
	uint8_t switch_life;
};

/*
 * A Report (method 0x06) waits for its ReportResp: the kernel hands a
 * response only to a request sent with a timeout, so ops.send gives Reports
 * this one.  The SA resends by its own timer; the kernel's expiry of a
 * Report is of no interest.
 */
#define SA_REPORT_WAIT_MS 4000

struct sa_ops {
	/* Send one MAD (a response or a report) to a destination.  0 or -errno. */
	int (*send)(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len);
	/* The SM's current SMInfo. */
	void (*sm_info)(void *ctx, struct sa_sm_info *ret);
	void *ctx;
};

struct sa_stats {
	uint64_t queries;	  /* SA MADs received */
	uint64_t answered;	  /* with a record or records */
	uint64_t errors;	  /* answered with an error status */
	uint64_t malformed;	  /* dropped: not an SA MAD at all */
	uint64_t truncated;	  /* GetTable answers cut to one MAD (no event loop, no RMPP) */
	uint64_t rmpp_transfers;  /* GetTable answers sent as RMPP transfers */
	uint64_t rmpp_aborted;	  /* of those: aborted or timed out */
	uint64_t send_errors;	  /* answers that could not be sent */
	uint64_t services;	  /* registered now (sa/service.c) */
	uint64_t subscriptions;	  /* InformInfo subscriptions now (sa/inform.c) */
	uint64_t reports_sent;	  /* Report(Notice) MADs sent, resends included */
	uint64_t reports_acked;	  /* Reports answered by a ReportResp */
	uint64_t reports_expired; /* given up: no ReportResp after the retries */
	uint64_t reports_dropped; /* not sent: too many in flight, or no LID to send to */
	uint64_t mcast_joins;	  /* MCMemberRecord Sets answered with the record (sa/mcmember.c) */
	uint64_t mcast_leaves;	  /* Deletes answered with the record */
	uint64_t mcast_refused;	  /* Sets and Deletes answered with an error status */
	/* partitions: what the SA withheld or refused because a port is not a member */
	uint64_t pkey_paths;	/* PathRecords not answered: no shared partition */
	uint64_t pkey_joins;	/* MCMemberRecord joins refused (of mcast_refused) */
	uint64_t pkey_services; /* ServiceRecord Sets refused: ServiceP_Key not held */
	uint64_t pkey_informs;	/* InformInfo Sets refused: no partition shared with the GID */
};

#endif

/*
 * QoS: OpenSM's QoS policy, as its opensm.conf keys (qos_max_vls,
 * qos_high_limit, qos_vlarb_high, qos_vlarb_low, qos_sl2vl and their
 * qos_ca_/qos_sw0_/qos_swe_/qos_rtr_ variants) and the simplified
 * "qos-ulps" section of its qos-policy.conf, turned into the SL each path
 * gets and the SL-to-VL, VL arbitration and PortInfo VL fields each port
 * should hold (IBA 1.4 vol 1, 7.6.6 SL to VL mapping, 7.6.9 VL
 * arbitration; 14.2.5.8 SLtoVLMappingTable, 14.2.5.9 VLArbitrationTable).
 *
 * Pure: no I/O but qos_policy_load()'s read of its file, no logging, no
 * globals.  Errors come back as text, "FILE:LINE: what is wrong", one per
 * line (the conf values: "what is wrong", conf.c adds FILE:LINE).  The SM
 * programs what qos_want_*() say and the SA answers the same functions, so
 * this sits below both, beside the routes whose SL-to-VL layers it merges.
 */
#ifndef IBSMD_QOS_H
#define IBSMD_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"

#define QOS_FILE_MAX (1u << 20)
#define QOS_RULES_MAX 4096  /* qos-ulps lines in one file */
#define QOS_RANGES_MAX 1024 /* ranges in one rule */
#define QOS_VLARB_MAX 64    /* entries of a VLArb table (two blocks of 32) */
#define QOS_VL_DROP 15	    /* an SL mapped to VL 15 is dropped */

/* Port classes, as OpenSM's qos_ca_, qos_sw0_, qos_swe_, qos_rtr_ prefixes. */
enum qos_class {
	QOS_CA,	 /* CA ports */
	QOS_SW0, /* switch port 0 */
	QOS_SWE, /* switch external ports */
	QOS_RTR, /* router ports */
	QOS_N_CLASSES,
};

struct qos_vlarb {
	uint8_t n; /* entries given, 0..QOS_VLARB_MAX */
	uint8_t vl[QOS_VLARB_MAX];
	uint8_t weight[QOS_VLARB_MAX];
};

/* One port class's tables. */
struct qos_tables {
	uint8_t max_vls;    /* data VLs, 1..15 */
	uint8_t high_limit; /* PortInfo:VLHighLimit */
	struct qos_vlarb high, low;
	uint8_t sl2vl[16]; /* VL by SL, 15 = drop */
};

/* What a qos-ulps rule compares. */
enum qos_match {
	QOS_M_SERVICE_ID,	  /* the query's ServiceID in a range */
	QOS_M_PKEY,		  /* the path's P_Key (low 15 bits) in a range */
	QOS_M_TARGET_GUID,	  /* the destination port GUID in a range */
	QOS_M_SOURCE_GUID,	  /* the source port GUID in a range */
	QOS_M_SOURCE_TARGET_GUID, /* either end's port GUID in a range */
};

struct qos_range {
	uint64_t lo, hi;
};

struct qos_rule {
	uint8_t match; /* enum qos_match */
	uint8_t sl;
	char ulp[8]; /* "any", "sdp", "rds", "iser", "srp", "ipoib": for messages */
	unsigned line;
	struct qos_range *ranges;
	size_t n_ranges;
};

struct qos_policy {
	bool enabled;			      /* ibsmd.conf qos */
	struct qos_tables cls[QOS_N_CLASSES]; /* by enum qos_class */
	struct qos_rule *rules;		      /* qos-ulps in file order: the first match wins */
	size_t n_rules;
	bool has_default; /* a "default : SL" line */
	uint8_t default_sl;
	bool from_file;
	uint64_t generation; /* the owner's count of loads, for "changed since programmed" */
	unsigned refs;	     /* references beyond the first (qos_policy_ref) */
};

/* OpenSM's built-in tables (max_vls 15, high_limit 0, its vlarb and sl2vl defaults). */
void qos_tables_default(struct qos_tables *t);

/* An opensm.conf value that means "not set": "", "(null)" (what opensm -c writes). */
bool qos_value_unset(const char *s);

/*
 * "VL:weight,..." (up to QOS_VLARB_MAX pairs, VL 0..14, weight 0..255;
 * spaces ignored; a trailing comma allowed) into *ret.  0, or -EINVAL with
 * why.  An unset value (qos_value_unset) is -EINVAL too: the caller picks
 * the default.
 */
int qos_parse_vlarb(const char *s, struct qos_vlarb *ret, char *why, size_t why_len);

/*
 * "VL,VL,..." for SLs 0..15 (VL 0..15; fewer than 16 leave the rest VL 0,
 * as OpenSM; a trailing comma allowed).  0, or -EINVAL with why.
 */
int qos_parse_sl2vl(const char *s, uint8_t ret[16], char *why, size_t why_len);

/*
 * One class's tables from its opensm.conf values over dflt: max_vls 0 and
 * high_limit -1 and unset strings take dflt's (as OpenSM's class keys take
 * the qos_ ones).  0, or -EINVAL with why naming the value.
 */
int qos_tables_build(struct qos_tables *ret, int max_vls, int high_limit, const char *vlarb_high,
		     const char *vlarb_low, const char *sl2vl, const struct qos_tables *dflt,
		     char *why, size_t why_len);

/*
 * Parse a qos-policy.conf (len bytes; name stands for FILE in messages):
 * its qos-ulps section.  0 with *ret a new policy (rules only, tables the
 * built-in defaults, enabled false), or -EINVAL with err holding every error
 * (as many as fit, then "... and N more"), or -ENOMEM.
 */
int qos_policy_parse(const char *name, const char *text, size_t len, struct qos_policy **ret,
		     char *err, size_t err_len);

/* qos_policy_parse() of the file at path; "" means no file (no rules).  -errno with "FILE: why". */
int qos_policy_load(const char *path, struct qos_policy **ret, char *err, size_t err_len);

/*
 * A policy is immutable once loaded and may be shared: the SM's live one,
 * the one a configure batch wrote, the one the SA answers by.  ref takes
 * one more reference (q returned, NULL fine); free drops one and frees
 * with the last (NULL fine).
 */
struct qos_policy *qos_policy_ref(struct qos_policy *q);
void qos_policy_free(struct qos_policy *q);

/* What a PathRecord query and its path tell the rules. */
struct qos_path_query {
	bool has_sid;
	uint64_t sid;
	uint16_t pkey; /* the answer's P_Key, 0 = none */
	uint64_t src_guid, dst_guid;
};

/*
 * The SL of the first qos-ulps rule matching pq (not "default"), with the
 * rule's line; false when none matches.
 */
bool qos_rule_sl(const struct qos_policy *q, const struct qos_path_query *pq, uint8_t *ret_sl,
		 unsigned *ret_line);

/* The class of port (node n, port). */
enum qos_class qos_port_class(const struct node *n, uint8_t port);

/* Data VLs of an OperationalVLs/VLCap code (1: 1, 2: 2, 3: 4, 4: 8, 5: 15); 0 for others. */
unsigned qos_vls_of_code(uint8_t code);
/* The largest code whose VLs are at most n (n >= 1). */
uint8_t qos_code_of_vls(unsigned n);

/*
 * The SLs routes r's paths use when the engine uses more than one VL (dor:
 * its dateline SLs, scanned from path_sl; dfsp: its layers 0..n_vls-1), as
 * a bit mask; 0 for a single-VL engine.  O(n_sw^2) for dor.
 */
uint16_t qos_engine_sls(const struct routes *r);

/*
 * The OperationalVLs code port (ni, pn) of f should run: the smaller VLCap
 * of its two ends, capped by the policy's max_vls for the port's class
 * (when q is enabled), raised to what the engine's n_vls needs where the
 * ports can (the engine wins).  0 when the port is not linked.
 */
uint8_t qos_want_oper_vls(const struct qos_policy *q, const struct fabric *f,
			  const struct routes *r, uint32_t ni, uint8_t pn);

/*
 * The SL-to-VL map the SM programs for output port out of node ni (a CA
 * or router: its port out; a switch: the same for every input port): the
 * policy's row of the port's class (a VL the port does not run wrapped
 * modulo its data VLs, as OpenSM: the OperationalVLs it should run, or the
 * fewer it runs when armed or active, when they can no longer change) with the engine's VLs for the
 * SLs in engine_sls (qos_engine_sls) where r has a table: the engine wins. *ret_conflicts (may be
 * NULL) gets the SLs where the two disagreed. Returns false when the SM leaves the port's table
 * alone (QoS off and a single-VL engine, or the port is not linked).
 */
bool qos_want_sl2vl(const struct qos_policy *q, const struct fabric *f, const struct routes *r,
		    uint16_t engine_sls, uint32_t ni, uint8_t out, uint8_t ret_vl[16],
		    uint16_t *ret_conflicts);

/*
 * VLArbitrationTable block (1, 2: low priority entries 0-31, 32-63; 3, 4:
 * high) the SM programs on port (ni, port): the policy's tables of the
 * port's class cut to the port's VLArbLowCap/HighCap (as read), or without
 * QoS where the engine uses several VLs, its VLs round-robin with weight 64
 * in block 1 and an empty block 3.  false when the block is not programmed
 * (no QoS and a single-VL engine, past the port's capacity, not linked).
 */
bool qos_want_vlarb(const struct qos_policy *q, const struct fabric *f, const struct routes *r,
		    uint32_t ni, uint8_t port, unsigned block, uint8_t ret_vl[32],
		    uint8_t ret_weight[32]);

#endif

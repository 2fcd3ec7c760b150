/*
 * The SA codec: Subnet Administration MADs (IBA 1.4 vol 1, 15.2.1: class
 * 0x03, class version 2) and the records they carry (15.2.5), between wire
 * bytes and host values.
 *
 * An SA MAD is the common MAD header (mad/wire.h), the RMPP header (bytes
 * 24..35, 13.6.2), the SA header (SM_Key 36..43, AttributeOffset 44..45,
 * ComponentMask 48..55) and 200 bytes of data.  Records are described by
 * tables of components, in the order the IBA numbers them, so that one
 * function matches any record against a query's ComponentMask (15.2.4:
 * component i is bit i of the mask): a component is a field (mad/field.h):
 * libibmad's, relative to a byte offset in the record, or, where libibmad
 * has none, a bit range of our own.  Records travel as wire
 * images; host structs exist only where the SA must reason about the values.
 *
 * Decoders check the length first and return -EBADMSG on anything short or
 * malformed.  No logging.
 */
#ifndef IBSMD_SA_WIRE_H
#define IBSMD_SA_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/field.h"
#include "mad/wire.h"

#define SA_WIRE_CLASS_VERSION 2
#define SA_WIRE_HDR_SIZE 56 /* common + RMPP + SA headers */
#define SA_WIRE_DATA_SIZE 200
#define SA_WIRE_REC_MAX 256 /* largest record image we handle */

/* SA methods (15.2.2). */
enum sa_wire_method {
	SA_METHOD_GET = 0x01,
	SA_METHOD_SET = 0x02,
	SA_METHOD_GET_RESP = 0x81,
	SA_METHOD_REPORT = 0x06,
	SA_METHOD_REPORT_RESP = 0x86,
	SA_METHOD_GET_TABLE = 0x12,
	SA_METHOD_GET_TABLE_RESP = 0x92,
	SA_METHOD_GET_MULTI = 0x14,
	SA_METHOD_GET_MULTI_RESP = 0x94,
	SA_METHOD_DELETE = 0x15,
	SA_METHOD_DELETE_RESP = 0x95,
};

/* SA attributes (15.2.5). */
enum sa_wire_attr {
	SA_ATTR_CLASS_PORT_INFO = 0x0001,
	SA_ATTR_NOTICE = 0x0002,
	SA_ATTR_INFORM_INFO = 0x0003,
	SA_ATTR_NODE_RECORD = 0x0011,
	SA_ATTR_PORTINFO_RECORD = 0x0012,
	SA_ATTR_SL2VL_RECORD = 0x0013,
	SA_ATTR_SWITCHINFO_RECORD = 0x0014,
	SA_ATTR_LFT_RECORD = 0x0015,
	SA_ATTR_RFT_RECORD = 0x0016,
	SA_ATTR_MFT_RECORD = 0x0017,
	SA_ATTR_SMINFO_RECORD = 0x0018,
	SA_ATTR_LINK_RECORD = 0x0020,
	SA_ATTR_GUIDINFO_RECORD = 0x0030,
	SA_ATTR_SERVICE_RECORD = 0x0031,
	SA_ATTR_PKEY_RECORD = 0x0033,
	SA_ATTR_PATH_RECORD = 0x0035,
	SA_ATTR_VLARB_RECORD = 0x0036,
	SA_ATTR_MCMEMBER_RECORD = 0x0038,
	SA_ATTR_TRACE_RECORD = 0x0039,
	SA_ATTR_MULTIPATH_RECORD = 0x003A,
	SA_ATTR_SERVICE_ASSOC_RECORD = 0x003B,
	SA_ATTR_INFORM_INFO_RECORD = 0x00F3,
};

/*
 * MAD status (13.4.7): the common codes in bits 0..4, the SA's own in bits
 * 8..15 (15.2.1.1).
 */
enum sa_wire_status {
	SA_STATUS_OK = 0,
	SA_STATUS_BAD_VERSION = 0x0004,	       /* class version not supported */
	SA_STATUS_BAD_METHOD = 0x0008,	       /* method not supported */
	SA_STATUS_BAD_METHOD_ATTR = 0x000C,    /* method/attribute combination */
	SA_STATUS_INVALID_FIELD = 0x001C,      /* a field or the attribute modifier */
	SA_STATUS_NO_RESOURCES = 0x0100,       /* ERR_NO_RESOURCES */
	SA_STATUS_REQ_INVALID = 0x0200,	       /* ERR_REQ_INVALID */
	SA_STATUS_NO_RECORDS = 0x0300,	       /* ERR_NO_RECORDS */
	SA_STATUS_TOO_MANY_RECORDS = 0x0400,   /* ERR_TOO_MANY_RECORDS */
	SA_STATUS_INVALID_GID = 0x0500,	       /* ERR_REQ_INVALID_GID */
	SA_STATUS_INSUFFICIENT_COMPS = 0x0600, /* ERR_REQ_INSUFFICIENT_COMPONENTS */
	SA_STATUS_DENIED = 0x0700,	       /* ERR_REQ_DENIED */
};

/* RMPP (13.6.2). */
enum sa_wire_rmpp_type {
	SA_RMPP_NONE = 0,
	SA_RMPP_DATA = 1,
	SA_RMPP_ACK = 2,
	SA_RMPP_STOP = 3,
	SA_RMPP_ABORT = 4,
};
#define SA_RMPP_FLAG_ACTIVE 0x1
#define SA_RMPP_FLAG_FIRST 0x2
#define SA_RMPP_FLAG_LAST 0x4

/* An SA MAD, headers and data. */
struct sa_wire_mad {
	struct wire_mad_hdr hdr;
	uint8_t rmpp_version;
	uint8_t rmpp_type;
	uint8_t rmpp_resp_time;
	uint8_t rmpp_flags;
	uint8_t rmpp_status;
	uint32_t rmpp_data1; /* DATA: SegmentNumber */
	uint32_t rmpp_data2; /* DATA: PayloadLength; ACK: NewWindowLast */
	uint64_t sm_key;
	uint16_t attr_offset; /* record stride in 8-byte words (GetTable answers) */
	uint64_t comp_mask;
	uint8_t data[SA_WIRE_DATA_SIZE];
};

/*
 * Decode an SA MAD.  -EBADMSG when shorter than the SA header or not of class
 * SA; a MAD shorter than 256 bytes has the rest of its data zeroed.  The class
 * version is not checked (the server answers a bad one with a status).
 */
int sa_wire_decode(const uint8_t *buf, size_t len, struct sa_wire_mad *ret);
/* Encode into buf (len >= 256).  Returns 256 or -ENOSPC. */
int sa_wire_encode(const struct sa_wire_mad *m, uint8_t *buf, size_t len);

/* ---- records --------------------------------------------------------- */

/*
 * One component of a record: a field of the record image (mad/field.h:
 * libibmad's, relative to a byte base of the record, or a bit range of our
 * own, IBA numbering).  reserved components take their place in the mask
 * and never match anything.  The tables are mad/sa_wire_tables.c.
 */
struct sa_wire_comp {
	const char *name;
	struct field at;
	bool reserved;
	bool subset; /* matches when the record has every bit the query has (capability masks) */
};

struct sa_wire_rec {
	uint16_t attr_id;
	const char *name;
	uint16_t size; /* bytes of the record image (padded to 8 on the wire) */
	const struct sa_wire_comp *comps;
	uint8_t n_comps;
};

/* The records this codec knows. */
extern const struct sa_wire_rec sa_wire_node_record;
extern const struct sa_wire_rec sa_wire_portinfo_record;
extern const struct sa_wire_rec sa_wire_link_record;
extern const struct sa_wire_rec sa_wire_sminfo_record;
extern const struct sa_wire_rec sa_wire_switchinfo_record;
extern const struct sa_wire_rec sa_wire_lft_record;
extern const struct sa_wire_rec sa_wire_mft_record;
extern const struct sa_wire_rec sa_wire_sl2vl_record;
extern const struct sa_wire_rec sa_wire_vlarb_record;
extern const struct sa_wire_rec sa_wire_pkey_record;
extern const struct sa_wire_rec sa_wire_guidinfo_record;
extern const struct sa_wire_rec sa_wire_path_record;
extern const struct sa_wire_rec sa_wire_multipath_record;
extern const struct sa_wire_rec sa_wire_service_record;
extern const struct sa_wire_rec sa_wire_inform_info_record;
extern const struct sa_wire_rec sa_wire_mcmember_record;
/*
 * InformInfo (13.4.8.3) is not a record (a Set of it is not matched by a
 * ComponentMask), but its fields are laid out the same way: component i is
 * the i-th field of the IBA's table, reserved ones included; 36 bytes.
 */
extern const struct sa_wire_rec sa_wire_inform_info;

/* ServiceRecord (15.2.5.14) components, as OpenSM's IB_SR_COMPMASK_* number them. */
enum sa_wire_sr_comp {
	SA_SR_ID = 0,
	SA_SR_GID = 1,
	SA_SR_PKEY = 2,
	SA_SR_LEASE = 4,
	SA_SR_KEY = 5,
	SA_SR_NAME = 6,
	SA_SR_DATA8 = 7,   /* 7..22: ServiceData8[0..15] */
	SA_SR_DATA16 = 23, /* 23..30 */
	SA_SR_DATA32 = 31, /* 31..34 */
	SA_SR_DATA64 = 35, /* 35..36 */
};
#define SA_SR_SIZE 176
#define SA_SR_LEASE_INFINITE 0xFFFFFFFFu
/* Byte offsets in a ServiceRecord image (the RID is its first 26 bytes). */
#define SA_SR_GID_OFFS 8
#define SA_SR_KEY_OFFS 32
#define SA_SR_NAME_OFFS 48
#define SA_SR_NAME_LEN 64

/* InformInfo (13.4.8.3) fields, as components of sa_wire_inform_info. */
enum sa_wire_ii_comp {
	SA_II_GID = 0,
	SA_II_LID_BEGIN = 1,
	SA_II_LID_END = 2,
	SA_II_IS_GENERIC = 4,
	SA_II_SUBSCRIBE = 5,
	SA_II_TYPE = 6,
	SA_II_TRAP = 7, /* TrapNumber (generic) or DeviceID */
	SA_II_QPN = 8,
	SA_II_RESP_TIME = 10,
	SA_II_PRODUCER = 12, /* ProducerType (generic) or VendorID */
};
#define SA_II_SIZE 36
/* InformInfoRecord (15.2.5.12): SubscriberGID, Enum, reserved, InformInfo at byte 24. */
enum sa_wire_iir_comp {
	SA_IIR_SUBSCRIBER_GID = 0,
	SA_IIR_ENUM = 1,
	SA_IIR_II = 3, /* InformInfo component i is IIR component 3 + i */
};
#define SA_IIR_SIZE 64
#define SA_IIR_II_OFFS 24

/* The stride of a record in a GetTable answer: its size rounded up to 8 bytes. */
static inline uint16_t sa_wire_rec_stride(const struct sa_wire_rec *r)
{
	return (uint16_t)((r->size + 7u) & ~7u);
}

/* Whether mask names only components the record has (bits >= n_comps are invalid). */
bool sa_wire_mask_valid(const struct sa_wire_rec *r, uint64_t mask);
/*
 * Whether record image rec matches query image q on every component of mask
 * (reserved components are ignored).  Both images are r->size bytes.
 */
bool sa_wire_match(const struct sa_wire_rec *r, const uint8_t *q, const uint8_t *rec,
		   uint64_t mask);
/* Component i's value in rec: up to 64 bits; 0 when out of range or wider. */
uint64_t sa_wire_comp_get(const struct sa_wire_rec *r, unsigned i, const uint8_t *rec);
/* Set component i's value (up to 64 bits) in rec.  0, or -EINVAL (no such, or wider). */
int sa_wire_comp_set(const struct sa_wire_rec *r, unsigned i, uint8_t *rec, uint64_t v);

/* Bits [offs, offs + len) of buf, big-endian, len <= 64 (field_bits_get/set). */
static inline uint64_t sa_wire_bits_get(const uint8_t *buf, unsigned offs, unsigned len)
{
	return field_bits_get(buf, offs, len);
}

static inline void sa_wire_bits_set(uint8_t *buf, unsigned offs, unsigned len, uint64_t v)
{
	field_bits_set(buf, offs, len, v);
}

/* ---- PathRecord (15.2.5.16) and MultiPathRecord (15.2.5.20) -------------- */

/* A GID (IBA 4.1.1): subnet prefix and interface ID (a port GUID), host order. */
struct sa_wire_gid {
	uint64_t prefix;
	uint64_t guid;
};

/*
 * PathRecord components, numbered as the ComponentMask names them (OpenSM's
 * IB_PR_COMPMASK_*).  IBA 1.2 made the first 64 bits the ServiceID, in two
 * components of 32 bits each (the mask must name both or neither).
 */
enum sa_wire_pr_comp {
	SA_PR_SERVICE_ID_MSB = 0,
	SA_PR_SERVICE_ID_LSB,
	SA_PR_DGID,
	SA_PR_SGID,
	SA_PR_DLID,
	SA_PR_SLID,
	SA_PR_RAW_TRAFFIC,
	SA_PR_RESV0,
	SA_PR_FLOW_LABEL,
	SA_PR_HOP_LIMIT,
	SA_PR_TCLASS,
	SA_PR_REVERSIBLE,
	SA_PR_NUMB_PATH,
	SA_PR_PKEY,
	SA_PR_QOS_CLASS,
	SA_PR_SL,
	SA_PR_MTU_SEL,
	SA_PR_MTU,
	SA_PR_RATE_SEL,
	SA_PR_RATE,
	SA_PR_PKT_LIFE_SEL,
	SA_PR_PKT_LIFE,
	SA_PR_PREFERENCE,
	SA_PR_RESV1,
};
#define SA_WIRE_PR_SIZE 64

/* A PathRecord's values, host order; the selectors are enum path_selector's. */
struct sa_wire_path_rec {
	uint64_t service_id;
	struct sa_wire_gid dgid, sgid;
	uint16_t dlid, slid;
	bool raw_traffic;
	uint32_t flow_label; /* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t numb_path; /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class; /* 12 bits */
	uint8_t sl;	    /* 4 bits */
	uint8_t mtu_sel, mtu;
	uint8_t rate_sel, rate;
	uint8_t pkt_life_sel, pkt_life;
	uint8_t preference;
};

/* Encode into rec (len >= 64, the reserved bits zeroed).  Returns 64 or -ENOSPC. */
int sa_wire_path_rec_encode(const struct sa_wire_path_rec *p, uint8_t *rec, size_t len);
/* Decode a PathRecord image.  0, or -EBADMSG when len < 64. */
int sa_wire_path_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_path_rec *ret);

/*
 * MultiPathRecord components (OpenSM's IB_MPR_COMPMASK_*).  The record is
 * 24 bytes of components and then SGIDCount SGIDs and DGIDCount DGIDs of 16
 * bytes each; one MAD holds 11 GIDs (the GID list is not a component).
 */
enum sa_wire_mpr_comp {
	SA_MPR_RAW_TRAFFIC = 0,
	SA_MPR_RESV0,
	SA_MPR_FLOW_LABEL,
	SA_MPR_HOP_LIMIT,
	SA_MPR_TCLASS,
	SA_MPR_REVERSIBLE,
	SA_MPR_NUMB_PATH,
	SA_MPR_PKEY,
	SA_MPR_QOS_CLASS,
	SA_MPR_SL,
	SA_MPR_MTU_SEL,
	SA_MPR_MTU,
	SA_MPR_RATE_SEL,
	SA_MPR_RATE,
	SA_MPR_PKT_LIFE_SEL,
	SA_MPR_PKT_LIFE,
	SA_MPR_SERVICE_ID_MSB, /* the ServiceID's 8 most significant bits */
	SA_MPR_INDEPENDENCE,   /* IndependenceSelector */
	SA_MPR_RESV1,
	SA_MPR_SGID_COUNT,
	SA_MPR_DGID_COUNT,
	SA_MPR_SERVICE_ID_LSB, /* its 56 least significant bits */
};
#define SA_WIRE_MPR_HDR_SIZE 24
#define SA_WIRE_MPR_MAX_GIDS 11

/* A MultiPathRecord query (GetMulti), host order. */
struct sa_wire_mpath_rec {
	bool raw_traffic;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t numb_path;
	uint16_t pkey;
	uint16_t qos_class;
	uint8_t sl;
	uint8_t mtu_sel, mtu;
	uint8_t rate_sel, rate;
	uint8_t pkt_life_sel, pkt_life;
	uint64_t service_id; /* both parts */
	uint8_t independence;
	uint8_t sgid_count, dgid_count; /* as sent: may exceed what the GID list holds */
	struct sa_wire_gid gids[SA_WIRE_MPR_MAX_GIDS]; /* SGIDs, then DGIDs */
};

/*
 * Encode into rec (len >= 200: the 24 bytes and 11 GID slots).  Returns 200
 * or -ENOSPC.
 */
int sa_wire_mpath_rec_encode(const struct sa_wire_mpath_rec *m, uint8_t *rec, size_t len);
/*
 * Decode; the GID slots rec holds (len - 24) / 16, at most 11, the rest
 * zeroed.  0, or -EBADMSG when len < 24.
 */
int sa_wire_mpath_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_mpath_rec *ret);
/* ---- MCMemberRecord (15.2.5.17) ------------------------------------------ */

/*
 * MCMemberRecord components, numbered as the ComponentMask names them
 * (OpenSM's IB_MCR_COMPMASK_*; sa/mcast.h's MCAST_C_* are the same bits).
 */
enum sa_wire_mcm_comp {
	SA_MCM_MGID = 0,
	SA_MCM_PORT_GID,
	SA_MCM_QKEY,
	SA_MCM_MLID,
	SA_MCM_MTU_SEL,
	SA_MCM_MTU,
	SA_MCM_TCLASS,
	SA_MCM_PKEY,
	SA_MCM_RATE_SEL,
	SA_MCM_RATE,
	SA_MCM_PKT_LIFE_SEL,
	SA_MCM_PKT_LIFE,
	SA_MCM_SL,
	SA_MCM_FLOW_LABEL,
	SA_MCM_HOP_LIMIT,
	SA_MCM_SCOPE,
	SA_MCM_JOIN_STATE,
	SA_MCM_PROXY_JOIN,
	SA_MCM_RESV,
};
#define SA_MCM_SIZE 53 /* IB_SA_MCM_RECSZ; 56 bytes apart in a table */

/* An MCMemberRecord's values, host order; GIDs as 16 wire bytes. */
struct sa_wire_mcm_rec {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu; /* 2 and 6 bits */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate;
	uint8_t pkt_life_sel, pkt_life;
	uint8_t sl;	     /* 4 bits */
	uint32_t flow_label; /* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;	    /* 4 bits */
	uint8_t join_state; /* 4 bits */
	bool proxy_join;
};

/* Encode into rec (len >= 53, the reserved bits zeroed).  Returns 53 or -ENOSPC. */
int sa_wire_mcm_rec_encode(const struct sa_wire_mcm_rec *m, uint8_t *rec, size_t len);
/* Decode an MCMemberRecord image.  0, or -EBADMSG when len < 53. */
int sa_wire_mcm_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_mcm_rec *ret);

/* ---- Notice (14.2.5.1): the data of a Trap, a Report and a ReportResp ---- */

#define SA_WIRE_NOTICE_SIZE 80
/* DataDetails of traps 64..67 (GID in/out of service, MGID created/deleted): 6 reserved
 * bytes, then the GID. */
#define SA_WIRE_NOTICE_GID_OFFS 6

struct sa_wire_notice {
	bool is_generic;
	uint8_t type;	   /* 7 bits: 0 fatal .. 4 informational */
	uint32_t producer; /* ProducerType (generic) or VendorID: 24 bits */
	uint16_t trap_num; /* TrapNumber (generic) or DeviceID */
	uint16_t issuer_lid;
	bool toggle;
	uint16_t count; /* 15 bits */
	uint8_t data[54];
	uint8_t issuer_gid[16];
};
/* Encode into buf (len >= 80).  Returns 80 or -ENOSPC. */
int sa_wire_notice_encode(const struct sa_wire_notice *n, uint8_t *buf, size_t len);
/* Decode 80 bytes.  -EBADMSG when shorter. */
int sa_wire_notice_decode(const uint8_t *buf, size_t len, struct sa_wire_notice *ret);

/* ---- ClassPortInfo (13.4.8.1), the SA's -------------------------------- */

struct sa_wire_cpi {
	uint8_t base_version, class_version;
	uint16_t cap_mask;
	uint32_t cap_mask2; /* 27 bits */
	uint8_t resp_time_value;
	uint32_t redirect_qp, redirect_qkey;
	uint32_t trap_qkey;
};
int sa_wire_cpi_encode(const struct sa_wire_cpi *c, uint8_t *data, size_t len);
int sa_wire_cpi_decode(const uint8_t *data, size_t len, struct sa_wire_cpi *ret);

#endif

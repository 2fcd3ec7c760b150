/*
 * The MAD codec: the common header of every MAD (IBA 1.4 vol 1,
 * 13.4.2), subnet management packets (14.2.1: LID-routed class 0x01 and
 * directed-route class 0x81) and the SM attributes ibsmd uses
 * (14.2.5: NodeDescription, NodeInfo, SwitchInfo, PortInfo, P_KeyTable,
 * LinearForwardingTable, MulticastForwardingTable, SMInfo) between wire bytes and host-order
 * structs.
 *
 * Bit layouts come from libibmad's field tables (mad_get_field and friends)
 * and, where libibmad has no field, from the IBA's tables as bit ranges: one
 * table of fields per attribute (mad/field.h) drives its decode and encode.
 * Nothing here casts a struct over a buffer.  Decoders check the length first
 * and return -EBADMSG on anything short or malformed.  No logging.
 */
#ifndef IBSMD_WIRE_H
#define IBSMD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_MAD_SIZE 256
#define WIRE_SMP_DATA_SIZE 64
#define WIRE_DR_MAX_HOPS 63
#define WIRE_PERMISSIVE_LID 0xFFFF

enum wire_class {
	WIRE_CLASS_SMI = 0x01,
	WIRE_CLASS_SMI_DR = 0x81,
	WIRE_CLASS_SA = 0x03,
	WIRE_CLASS_PERF = 0x04,
};

enum wire_method {
	WIRE_GET = 0x01,
	WIRE_SET = 0x02,
	WIRE_GET_RESP = 0x81,
	WIRE_TRAP = 0x05,
	WIRE_TRAP_REPRESS = 0x07,
};

enum wire_attr {
	WIRE_ATTR_NOTICE = 0x0002,
	WIRE_ATTR_NODE_DESC = 0x0010,
	WIRE_ATTR_NODE_INFO = 0x0011,
	WIRE_ATTR_SWITCH_INFO = 0x0012,
	WIRE_ATTR_PORT_INFO = 0x0015,
	WIRE_ATTR_PKEY_TABLE = 0x0016,
	WIRE_ATTR_SL2VL = 0x0017,
	WIRE_ATTR_VL_ARB = 0x0018,
	WIRE_ATTR_LFT = 0x0019,
	WIRE_ATTR_MFT = 0x001B,
	WIRE_ATTR_SM_INFO = 0x0020,
	WIRE_ATTR_PERF_PORT_COUNTERS = 0x0012, /* PerfMgt class (16.1.3.5) */
};

/* A subnet management packet, header and 64-byte attribute data. */
struct wire_smp {
	uint8_t mgmt_class; /* WIRE_CLASS_SMI or WIRE_CLASS_SMI_DR */
	uint8_t method;
	uint16_t status; /* 15 bits on DR SMPs (the D bit is `direction`) */
	bool direction;	 /* DR: set on the way back */
	uint8_t hop_ptr; /* DR only */
	uint8_t hop_cnt; /* DR only */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t mkey;
	uint16_t dr_slid;	  /* DR only */
	uint16_t dr_dlid;	  /* DR only */
	uint8_t initial_path[64]; /* DR: [1..hop_cnt] egress ports */
	uint8_t return_path[64];
	uint8_t data[WIRE_SMP_DATA_SIZE];
};

/*
 * Fill s as a directed-route request from the SM's port along path[1..hops]
 * (path[0] ignored), permissive DrSLID/DrDLID.  -EINVAL when hops > 63.
 */
int wire_smp_init_dr(struct wire_smp *s, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		     const uint8_t *path, uint8_t hops);
/* Fill s as a LID-routed request. */
void wire_smp_init_lid(struct wire_smp *s, uint8_t method, uint16_t attr_id, uint32_t attr_mod);

/* Encode into buf (len >= WIRE_MAD_SIZE).  Returns WIRE_MAD_SIZE or -ENOSPC/-EINVAL. */
int wire_smp_encode(const struct wire_smp *s, uint8_t *buf, size_t len);
/* Whether wire_smp_encode takes s: an SMI class, a DR hop count of at most 63. */
bool wire_smp_valid(const struct wire_smp *s);
/*
 * Decode an SMP.  -EBADMSG when shorter than a MAD, base version != 1, class
 * neither SMI nor directed SMI, class version != 1, or a DR hop count/pointer
 * out of range.
 */
int wire_smp_decode(const uint8_t *buf, size_t len, struct wire_smp *ret);
/* An encoded SMP's M_Key field (bytes 24..31); buf must hold a whole MAD. */
uint64_t wire_smp_get_mkey(const uint8_t *buf, size_t len);
void wire_smp_set_mkey(uint8_t *buf, size_t len, uint64_t mkey);

/* Peek at the management class / method / TID of any MAD.  -EBADMSG if short. */
int wire_mad_peek(const uint8_t *buf, size_t len, uint8_t *ret_class, uint8_t *ret_method,
		  uint64_t *ret_tid);

#define WIRE_MAD_HDR_SIZE 24
#define WIRE_METHOD_RESP 0x80 /* the R bit of the method byte */

/*
 * The common MAD header of any class (13.4.2), host order.  Versions are not
 * checked here: that is for whoever decodes the body.
 */
struct wire_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;		 /* with the R bit (WIRE_METHOD_RESP) */
	uint16_t status;	 /* DR SMPs: the D bit and 15 status bits */
	uint16_t class_specific; /* DR SMPs: hop pointer << 8 | hop count */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

/* -EBADMSG when buf is NULL or shorter than WIRE_MAD_HDR_SIZE; ret untouched then. */
int wire_mad_hdr_decode(const uint8_t *buf, size_t len, struct wire_mad_hdr *ret);
/* Write h over buf[0..24) (the reserved bytes 18-19 are kept).  0 or -ENOSPC. */
int wire_mad_hdr_encode(const struct wire_mad_hdr *h, uint8_t *buf, size_t len);

/* "0,1,3" -> path/hops (path[0] = 0).  -EINVAL on syntax, range or > 63 hops. */
int wire_dr_path_parse(const char *s, uint8_t *path, uint8_t *ret_hops);
/* path/hops -> "0,1,3" into buf; returns buf. */
char *wire_dr_path_format(const uint8_t *path, uint8_t hops, char *buf, size_t len);

struct wire_nodeinfo {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type;
	uint8_t nports;
	uint64_t sys_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;
};
int wire_nodeinfo_decode(const uint8_t *data, size_t len, struct wire_nodeinfo *ret);
int wire_nodeinfo_encode(const struct wire_nodeinfo *ni, uint8_t *data, size_t len);

/* NodeDescription: up to 64 bytes, NUL-terminated, non-printables replaced. */
int wire_nodedesc_decode(const uint8_t *data, size_t len, char *ret, size_t ret_len);
int wire_nodedesc_encode(const char *desc, uint8_t *data, size_t len);

struct wire_portinfo {
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t sm_lid;
	uint32_t capmask;
	uint16_t mkey_lease;
	uint8_t local_port;
	uint8_t width_enabled, width_supported, width_active;
	uint8_t speed_supported, speed_active, speed_enabled;
	uint8_t state;	    /* 0 = no change on Set */
	uint8_t phys_state; /* 0 = no change on Set */
	uint8_t down_default;
	uint8_t mkey_protect;
	uint8_t lmc;
	uint8_t neighbor_mtu;
	uint8_t sm_sl;
	uint8_t vl_cap;
	uint8_t vl_high_limit;
	uint8_t vl_arb_high_cap, vl_arb_low_cap;
	uint8_t mtu_cap;
	uint8_t vl_stall;
	uint8_t hoq_life;
	uint8_t oper_vls;
	uint8_t part_enf_in, part_enf_out;
	uint8_t filter_raw_in, filter_raw_out;
	uint8_t client_reregister;
	uint8_t subnet_timeout;
	uint8_t resp_time;
	/*
	 * The extended link speeds, bytes 56-63 (IBA 1.7, 14.2.5.6): valid
	 * only where CapabilityMask says IsExtendedSpeedsSupported (a switch's
	 * external ports: port 0's mask) and, on ports that honour it, only in
	 * the answer to a Get with WIRE_PI_MOD_EXT_SPEEDS; the *2 fields (XDR)
	 * where CapabilityMask2 says IsExtSpeeds2Supported.
	 */
	uint16_t capmask2;	      /* CapabilityMask2 (WIRE_CAP2_*) */
	uint8_t speed_ext_active;     /* LinkSpeedExtActive: 0 none, 1 FDR, 2 EDR, 4 HDR, 8 NDR */
	uint8_t speed_ext_supported;  /* LinkSpeedExtSupported: a mask of those */
	uint8_t speed_ext_enabled;    /* LinkSpeedExtEnabled: a mask; 0 NOP, 30 off, 31 all */
	uint8_t speed_ext2_active;    /* LinkSpeedExtActive2: 0 none, 1 XDR */
	uint8_t speed_ext2_supported; /* LinkSpeedExtSupported2: bit 0 XDR */
	uint8_t speed_ext2_enabled;   /* LinkSpeedExtEnabled2: bit 0 XDR; 0 NOP */
};
/*
 * The shortest PortInfo image decode and encode take (the fields up to
 * RespTimeValue end in byte 52).  The extended speeds lie in bytes 56-63,
 * read from an image of WIRE_PORTINFO_FULL_SIZE bytes (an SMP's whole
 * attribute; a shorter one leaves them 0).
 */
#define WIRE_PORTINFO_SIZE 54
#define WIRE_PORTINFO_FULL_SIZE 64
int wire_portinfo_decode(const uint8_t *data, size_t len, struct wire_portinfo *ret);
/*
 * Write every field of pi up to RespTimeValue over data (other bits of the
 * image are kept: a Set starts from the image a Get read, so the extended
 * speeds go back as they were read).
 */
int wire_portinfo_encode(const struct wire_portinfo *pi, uint8_t *data, size_t len);
/*
 * Write the extended speed fields of pi (bytes 56-63: CapabilityMask2, the
 * LinkSpeedExt* and LinkSpeedExt*2 fields) over data, which must be a
 * whole image (len >= WIRE_PORTINFO_FULL_SIZE, else -ENOSPC).
 */
int wire_portinfo_encode_ext(const struct wire_portinfo *pi, uint8_t *data, size_t len);
/*
 * Attribute modifier bit 31 of a PortInfo Get or Set (14.2.5.6):
 * SMSupportExtendedSpeeds.  The SM sets it only towards ports whose
 * CapabilityMask has WIRE_CAP_EXT_SPEEDS; such a port answers the
 * extended speed fields only then, and takes them in a Set only then.
 */
#define WIRE_PI_MOD_EXT_SPEEDS 0x80000000u

struct wire_switchinfo {
	uint16_t lft_cap;
	uint16_t rft_cap;
	uint16_t mft_cap;
	uint16_t lft_top;
	uint8_t def_port;
	uint8_t def_mcast_prim;
	uint8_t def_mcast_not_prim;
	uint8_t lifetime;
	uint8_t port_state_change;
	uint16_t lids_per_port;
	uint16_t partition_enf_cap;
	/* InboundEnforcementCap, OutboundEnforcementCap, FilterRaw{In,Out}boundCap */
	bool enf_in_cap, enf_out_cap, filter_raw_in_cap, filter_raw_out_cap;
	bool enhanced_port0;
	uint16_t mft_top;
};
int wire_switchinfo_decode(const uint8_t *data, size_t len, struct wire_switchinfo *ret);
int wire_switchinfo_encode(const struct wire_switchinfo *si, uint8_t *data, size_t len);

/* LinearForwardingTable block: 64 egress ports for LIDs 64*block .. +63. */
int wire_lft_decode(const uint8_t *data, size_t len, uint8_t ret_ports[64]);
int wire_lft_encode(const uint8_t ports[64], uint8_t *data, size_t len);

/*
 * MulticastForwardingTable block (14.2.5.11): 32 16-bit port masks, one per
 * MLID of the block, for the 16 ports of the attribute modifier's position
 * (bit i of mask j: port 16 * position + i forwards MLID 0xC000 + 32 * block
 * + j).  Big-endian on the wire.
 */
int wire_mft_decode(const uint8_t *data, size_t len, uint16_t ret_masks[32]);
int wire_mft_encode(const uint16_t masks[32], uint8_t *data, size_t len);

/* P_KeyTable block: 32 P_Keys. */
int wire_pkey_decode(const uint8_t *data, size_t len, uint16_t ret_keys[32]);
int wire_pkey_encode(const uint16_t keys[32], uint8_t *data, size_t len);

/* SLtoVLMappingTable: the VL (0..15) for each of 16 SLs. */
int wire_sl2vl_decode(const uint8_t *data, size_t len, uint8_t ret_vl[16]);
int wire_sl2vl_encode(const uint8_t vl[16], uint8_t *data, size_t len);

/* VLArbitrationTable block: 32 (VL, weight) entries. */
int wire_vlarb_decode(const uint8_t *data, size_t len, uint8_t ret_vl[32], uint8_t ret_weight[32]);
int wire_vlarb_encode(const uint8_t vl[32], const uint8_t weight[32], uint8_t *data, size_t len);

/* SubnSet(SMInfo) attribute modifiers (14.4.1.2, table 184): what the sender asks. */
enum wire_sminfo_mod {
	WIRE_SMINFO_HANDOVER = 1,
	WIRE_SMINFO_ACKNOWLEDGE = 2,
	WIRE_SMINFO_DISABLE = 3,
	WIRE_SMINFO_STANDBY = 4,
	WIRE_SMINFO_DISCOVER = 5,
};

/* PortInfo:CapabilityMask bits (14.2.5.6). */
#define WIRE_CAP_IS_SM 0x00000002u	  /* IsSM: an SM runs behind the port */
#define WIRE_CAP_SM_DISABLED 0x00000400u  /* IsSMDisabled: no SMI (a split GSI device) */
#define WIRE_CAP_EXT_SPEEDS 0x00004000u	  /* IsExtendedSpeedsSupported */
#define WIRE_CAP_HAS_CAPMASK2 0x00008000u /* IsCapabilityMask2Supported */
/* PortInfo:CapabilityMask2 bits (IBA 1.7, 14.2.5.6). */
#define WIRE_CAP2_WIDTH_2X 0x0010u    /* IsLinkWidth2xSupported */
#define WIRE_CAP2_SPEED_HDR 0x0020u   /* IsLinkSpeedHDRSupported */
#define WIRE_CAP2_SPEED_NDR 0x0400u   /* IsLinkSpeedNDRSupported */
#define WIRE_CAP2_EXT_SPEEDS2 0x0800u /* IsExtSpeeds2Supported: the *2 fields */
#define WIRE_CAP2_SPEED_XDR 0x1000u   /* IsLinkSpeedXDRSupported */

/* MAD status "invalid value in an attribute field or the modifier" (13.4.7, code 7). */
#define WIRE_STATUS_INVALID_FIELD 0x001c

/* SMInfo (14.2.5.13): state is SMInfo:SMState (0 NOTACTIVE .. 3 MASTER). */
struct wire_sminfo {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;
	uint8_t state;
};
int wire_sminfo_decode(const uint8_t *data, size_t len, struct wire_sminfo *ret);
int wire_sminfo_encode(const struct wire_sminfo *si, uint8_t *data, size_t len);

/*
 * Trap 144 (14.2.5.1, "local changes", e.g. a new SM or its priority) as the
 * data of a SubnTrap(Notice): generic, informational, from the port of LID
 * lid on a node of type producer (1 CA, 2 switch, 3 router), with that port's
 * CapabilityMask.  Writes the first 64 bytes of the Notice.  0 or -ENOSPC.
 */
int wire_trap144_encode(uint16_t lid, uint8_t producer, uint32_t capmask, uint8_t *data,
			size_t len);

/*
 * A Notice (13.4.8.2) as traps carry it, with the data details of the SM
 * traps (14.2.5.1) that name a port: 128 (the switch's LID), 129-131 (LID
 * and port), 144 (LID, CapabilityMask), 145 (LID, SystemImageGUID), 256
 * (the port whose M_Key was wrong, the directed-route SLID, method,
 * attribute and its modifier, the M_Key used), 257-259 (the two LIDs of the
 * offending packet and its key).  Fields a trap has not are 0.
 */
struct wire_notice {
	bool generic;
	uint8_t type;	   /* 0 fatal, 1 urgent, 2 security, 3 subnet management, 4 info */
	uint32_t producer; /* generic: node type (1 CA, 2 switch, 3 router, 4 class manager) */
	uint16_t trap_num; /* generic: TrapNumber; vendor: DeviceID */
	uint16_t issuer_lid;
	bool toggle;
	uint16_t count;
	uint16_t lid;	   /* the port the trap is about */
	uint8_t port;	   /* 129-131: its port number */
	uint32_t capmask;  /* 144 */
	uint64_t sys_guid; /* 145 */
	uint16_t lid2;	   /* 256: DRSLID; 257-259: the second LID */
	uint8_t method;	   /* 256 */
	uint16_t attr_id;  /* 256 */
	uint32_t attr_mod; /* 256 */
	uint64_t key;	   /* 256: the M_Key; 257-259: the P_Key or Q_Key */
};
#define WIRE_NOTICE_SIZE 64 /* the Notice an SMP carries: without IssuerGID */
/* 0, or -EBADMSG when shorter than a Notice's 64 bytes. */
int wire_notice_decode(const uint8_t *data, size_t len, struct wire_notice *ret);
/*
 * The inverse: n's fixed part and the data details of its trap (as listed
 * above; other numbers and vendor notices get zeros) over the first 64
 * bytes of data.  0, or -ENOSPC when len < 64.
 */
int wire_notice_encode(const struct wire_notice *n, uint8_t *data, size_t len);

#endif

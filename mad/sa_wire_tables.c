/*
 * The SA's record layouts (see sa_wire.h): one table of components per
 * record (IBA 1.4 vol 1, 15.2.5), in the order the IBA numbers them, so
 * that component i is bit i of a query's ComponentMask (15.2.4).  A
 * component is a field (mad/field.h): libibmad's where it has one (the
 * NodeRecord, PortInfo, SMInfo, GUIDInfoRecord, PathRecord's GIDs, LIDs,
 * NumbPath and SL, MultiPathRecord's NumbPath and GID counts, ServiceRecord
 * up to its name, MCMemberRecord's fields but four), else a bit range taken
 * from the IBA's record table.  Data only: the code that reads these is
 * mad/sa_wire.c.
 */
#include <infiniband/mad.h>

#include "mad/field.h"
#include "mad/sa_wire.h"
/* libibmad's field f, relative to byte b of the record */
#define F(n, f, b)                                                                                 \
	{                                                                                          \
		.name = n, .at = FIELD_IBMAD(f, b)                                                 \
	}
/* bits [offs, offs + len) of the record, from the IBA's table */
#define B(n, offs, len)                                                                            \
	{                                                                                          \
		.name = n, .at = FIELD_BITS(offs, len)                                             \
	}
#define R(offs, len)                                                                               \
	{                                                                                          \
		.name = "reserved", .at = FIELD_BITS(offs, len), .reserved = true                  \
	}

/* NodeRecord (15.2.5.2): LID, reserved, NodeInfo, NodeDescription; 108 bytes. */
static const struct sa_wire_comp node_record_comps[] = {
    F("LID", IB_SA_NR_LID_F, 0),
    R(16, 16),
    F("BaseVersion", IB_SA_NR_BASEVER_F, 0),
    F("ClassVersion", IB_SA_NR_CLASSVER_F, 0),
    F("NodeType", IB_SA_NR_TYPE_F, 0),
    F("NumPorts", IB_SA_NR_NPORTS_F, 0),
    F("SystemImageGUID", IB_SA_NR_SYSTEM_GUID_F, 0),
    F("NodeGUID", IB_SA_NR_GUID_F, 0),
    F("PortGUID", IB_SA_NR_PORT_GUID_F, 0),
    F("PartitionCap", IB_SA_NR_PARTITION_CAP_F, 0),
    F("DeviceID", IB_SA_NR_DEVID_F, 0),
    F("Revision", IB_SA_NR_REVISION_F, 0),
    F("LocalPortNum", IB_SA_NR_LOCAL_PORT_F, 0),
    F("VendorID", IB_SA_NR_VENDORID_F, 0),
    F("NodeDescription", IB_SA_NR_NODEDESC_F, 0),
};

const struct sa_wire_rec sa_wire_node_record = {
    SA_ATTR_NODE_RECORD, "NodeRecord", 108, node_record_comps,
    sizeof(node_record_comps) / sizeof(node_record_comps[0])};

/*
 * PortInfoRecord (15.2.5.3): EndportLID, PortNum, Options, then PortInfo
 * (14.2.5.6) at byte 4, component by component; 68 bytes.  The capability
 * masks match as sets (a port with every bit the query asks for), which the
 * SA's ClassPortInfo advertises (IsPortInfoCapMaskMatchSupported).
 */
#define PI(n, f) F(n, f, 4)
static const struct sa_wire_comp portinfo_record_comps[] = {
    B("EndportLID", 0, 16),
    B("PortNum", 16, 8),
    B("Options", 24, 8),
    PI("M_Key", IB_PORT_MKEY_F),
    PI("GidPrefix", IB_PORT_GID_PREFIX_F),
    PI("LID", IB_PORT_LID_F),
    PI("MasterSMLID", IB_PORT_SMLID_F),
    {.name = "CapabilityMask", .at = FIELD_IBMAD(IB_PORT_CAPMASK_F, 4), .subset = true},
    PI("DiagCode", IB_PORT_DIAG_F),
    PI("M_KeyLeasePeriod", IB_PORT_MKEY_LEASE_F),
    PI("LocalPortNum", IB_PORT_LOCAL_PORT_F),
    PI("LinkWidthEnabled", IB_PORT_LINK_WIDTH_ENABLED_F),
    PI("LinkWidthSupported", IB_PORT_LINK_WIDTH_SUPPORTED_F),
    PI("LinkWidthActive", IB_PORT_LINK_WIDTH_ACTIVE_F),
    PI("LinkSpeedSupported", IB_PORT_LINK_SPEED_SUPPORTED_F),
    PI("PortState", IB_PORT_STATE_F),
    PI("PortPhysicalState", IB_PORT_PHYS_STATE_F),
    PI("LinkDownDefaultState", IB_PORT_LINK_DOWN_DEF_F),
    PI("M_KeyProtectBits", IB_PORT_MKEY_PROT_BITS_F),
    R(32 + 274, 3),
    PI("LMC", IB_PORT_LMC_F),
    PI("LinkSpeedActive", IB_PORT_LINK_SPEED_ACTIVE_F),
    PI("LinkSpeedEnabled", IB_PORT_LINK_SPEED_ENABLED_F),
    PI("NeighborMTU", IB_PORT_NEIGHBOR_MTU_F),
    PI("MasterSMSL", IB_PORT_SMSL_F),
    PI("VLCap", IB_PORT_VL_CAP_F),
    PI("InitType", IB_PORT_INIT_TYPE_F),
    PI("VLHighLimit", IB_PORT_VL_HIGH_LIMIT_F),
    PI("VLArbitrationHighCap", IB_PORT_VL_ARBITRATION_HIGH_CAP_F),
    PI("VLArbitrationLowCap", IB_PORT_VL_ARBITRATION_LOW_CAP_F),
    PI("InitTypeReply", IB_PORT_INIT_TYPE_REPLY_F),
    PI("MTUCap", IB_PORT_MTU_CAP_F),
    PI("VLStallCount", IB_PORT_VL_STALL_COUNT_F),
    PI("HOQLife", IB_PORT_HOQ_LIFE_F),
    PI("OperationalVLs", IB_PORT_OPER_VLS_F),
    PI("PartitionEnforcementInbound", IB_PORT_PART_EN_INB_F),
    PI("PartitionEnforcementOutbound", IB_PORT_PART_EN_OUTB_F),
    PI("FilterRawInbound", IB_PORT_FILTER_RAW_INB_F),
    PI("FilterRawOutbound", IB_PORT_FILTER_RAW_OUTB_F),
    PI("M_KeyViolations", IB_PORT_MKEY_VIOL_F),
    PI("P_KeyViolations", IB_PORT_PKEY_VIOL_F),
    PI("Q_KeyViolations", IB_PORT_QKEY_VIOL_F),
    PI("GUIDCap", IB_PORT_GUID_CAP_F),
    PI("ClientReregister", IB_PORT_CLIENT_REREG_F),
    R(32 + 409, 2), /* MulticastPKeyTrapSuppressionEnabled and a reserved bit */
    PI("SubnetTimeOut", IB_PORT_SUBN_TIMEOUT_F),
    R(32 + 416, 3),
    PI("RespTimeValue", IB_PORT_RESP_TIME_VAL_F),
    PI("LocalPhyErrors", IB_PORT_LOCAL_PHYS_ERR_F),
    PI("OverrunErrors", IB_PORT_OVERRUN_ERR_F),
    PI("MaxCreditHint", IB_PORT_MAX_CREDIT_HINT_F),
    R(32 + 448, 8),
    PI("LinkRoundTripLatency", IB_PORT_LINK_ROUND_TRIP_F),
    {.name = "CapabilityMask2", .at = FIELD_IBMAD(IB_PORT_CAPMASK2_F, 4), .subset = true},
    PI("LinkSpeedExtActive", IB_PORT_LINK_SPEED_EXT_ACTIVE_F),
    PI("LinkSpeedExtSupported", IB_PORT_LINK_SPEED_EXT_SUPPORTED_F),
    R(32 + 504, 3),
    PI("LinkSpeedExtEnabled", IB_PORT_LINK_SPEED_EXT_ENABLED_F),
};

const struct sa_wire_rec sa_wire_portinfo_record = {
    SA_ATTR_PORTINFO_RECORD, "PortInfoRecord", 68, portinfo_record_comps,
    sizeof(portinfo_record_comps) / sizeof(portinfo_record_comps[0])};

/* LinkRecord (15.2.5.13): FromLID, FromPort, ToPort, ToLID; 8 bytes. */
static const struct sa_wire_comp link_record_comps[] = {
    B("FromLID", 0, 16),
    B("FromPort", 16, 8),
    B("ToPort", 24, 8),
    B("ToLID", 32, 16),
};

const struct sa_wire_rec sa_wire_link_record = {
    SA_ATTR_LINK_RECORD, "LinkRecord", 8, link_record_comps,
    sizeof(link_record_comps) / sizeof(link_record_comps[0])};

/* SMInfoRecord (15.2.5.15): LID, reserved, SMInfo (14.2.5.13); 28 bytes. */
static const struct sa_wire_comp sminfo_record_comps[] = {
    B("LID", 0, 16),
    R(16, 16),
    F("GUID", IB_SMINFO_GUID_F, 4),
    F("SM_Key", IB_SMINFO_KEY_F, 4),
    F("ActCount", IB_SMINFO_ACT_F, 4),
    F("Priority", IB_SMINFO_PRIO_F, 4),
    F("SMState", IB_SMINFO_STATE_F, 4),
};

const struct sa_wire_rec sa_wire_sminfo_record = {
    SA_ATTR_SMINFO_RECORD, "SMInfoRecord", 28, sminfo_record_comps,
    sizeof(sminfo_record_comps) / sizeof(sminfo_record_comps[0])};

/*
 * SwitchInfoRecord (15.2.5.4): LID, reserved, SwitchInfo (14.2.5.4) at byte
 * 4; only the two record components are matched (IBA: the SwitchInfo fields
 * are not components).  4 + 20 bytes.
 */
static const struct sa_wire_comp switchinfo_record_comps[] = {
    B("LID", 0, 16),
    R(16, 16),
};

const struct sa_wire_rec sa_wire_switchinfo_record = {
    SA_ATTR_SWITCHINFO_RECORD, "SwitchInfoRecord", 24, switchinfo_record_comps,
    sizeof(switchinfo_record_comps) / sizeof(switchinfo_record_comps[0])};

/* LinearForwardingTableRecord (15.2.5.6): LID, BlockNum, reserved, 64 ports; 72 bytes. */
static const struct sa_wire_comp lft_record_comps[] = {
    B("LID", 0, 16),
    B("BlockNum", 16, 16),
};

const struct sa_wire_rec sa_wire_lft_record = {
    SA_ATTR_LFT_RECORD, "LinearForwardingTableRecord", 72, lft_record_comps,
    sizeof(lft_record_comps) / sizeof(lft_record_comps[0])};

/*
 * MulticastForwardingTableRecord (15.2.5.8): LID, Position (4 bits),
 * reserved (3), BlockNum (9), reserved, 32 port masks of 16 bits; 72 bytes.
 */
static const struct sa_wire_comp mft_record_comps[] = {
    B("LID", 0, 16), B("Position", 16, 4), R(20, 3), B("BlockNum", 23, 9), R(32, 32),
};

const struct sa_wire_rec sa_wire_mft_record = {
    SA_ATTR_MFT_RECORD, "MulticastForwardingTableRecord", 72, mft_record_comps,
    sizeof(mft_record_comps) / sizeof(mft_record_comps[0])};

/* SLtoVLMappingTableRecord (15.2.5.4): LID, InputPortNum, OutputPortNum, reserved, table; 16. */
static const struct sa_wire_comp sl2vl_record_comps[] = {
    B("LID", 0, 16),
    B("InputPortNum", 16, 8),
    B("OutputPortNum", 24, 8),
};

const struct sa_wire_rec sa_wire_sl2vl_record = {
    SA_ATTR_SL2VL_RECORD, "SLtoVLMappingTableRecord", 16, sl2vl_record_comps,
    sizeof(sl2vl_record_comps) / sizeof(sl2vl_record_comps[0])};

/* VLArbitrationTableRecord (15.2.5.9): LID, OutputPortNum, BlockNum, reserved, table; 72. */
static const struct sa_wire_comp vlarb_record_comps[] = {
    B("LID", 0, 16),
    B("OutputPortNum", 16, 8),
    B("BlockNum", 24, 8),
};

const struct sa_wire_rec sa_wire_vlarb_record = {
    SA_ATTR_VLARB_RECORD, "VLArbitrationTableRecord", 72, vlarb_record_comps,
    sizeof(vlarb_record_comps) / sizeof(vlarb_record_comps[0])};

/* P_KeyTableRecord (15.2.5.11): LID, BlockNum, PortNum, reserved, 32 P_Keys; 72 bytes. */
static const struct sa_wire_comp pkey_record_comps[] = {
    B("LID", 0, 16),
    B("BlockNum", 16, 16),
    B("PortNum", 32, 8),
};

const struct sa_wire_rec sa_wire_pkey_record = {
    SA_ATTR_PKEY_RECORD, "P_KeyTableRecord", 72, pkey_record_comps,
    sizeof(pkey_record_comps) / sizeof(pkey_record_comps[0])};

/* GUIDInfoRecord (15.2.5.18): LID, BlockNum, reserved, reserved, 8 GUIDs; 72 bytes. */
static const struct sa_wire_comp guidinfo_record_comps[] = {
    F("LID", IB_SA_GIR_LID_F, 0),
    F("BlockNum", IB_SA_GIR_BLOCKNUM_F, 0),
    R(24, 8),
    R(32, 32),
    F("GUID0", IB_SA_GIR_GUID0_F, 0),
    F("GUID1", IB_SA_GIR_GUID1_F, 0),
    F("GUID2", IB_SA_GIR_GUID2_F, 0),
    F("GUID3", IB_SA_GIR_GUID3_F, 0),
    F("GUID4", IB_SA_GIR_GUID4_F, 0),
    F("GUID5", IB_SA_GIR_GUID5_F, 0),
    F("GUID6", IB_SA_GIR_GUID6_F, 0),
    F("GUID7", IB_SA_GIR_GUID7_F, 0),
};

const struct sa_wire_rec sa_wire_guidinfo_record = {
    SA_ATTR_GUIDINFO_RECORD, "GUIDInfoRecord", 72, guidinfo_record_comps,
    sizeof(guidinfo_record_comps) / sizeof(guidinfo_record_comps[0])};

/*
 * PathRecord (15.2.5.16, Table 205 as amended by IBA 1.2): ServiceID,
 * DGID, SGID, DLID, SLID, RawTraffic, reserved, FlowLabel, HopLimit,
 * TClass, Reversible, NumbPath, P_Key, QoSClass, SL, the three selector
 * and value pairs, Preference, reserved; 64 bytes.  The layout is OpenSM's
 * ib_path_rec_t: service_id 0..7, dgid 8..23, sgid 24..39, dlid 40, slid
 * 42, hop_flow_raw 44..47, tclass 48, num_path 49, pkey 50, qos_class_sl
 * 52, mtu 54, rate 55, pkt_life 56, preference 57, resv2 58..63.
 */
static const struct sa_wire_comp path_record_comps[] = {
    B("ServiceID(MSB)", 0, 32),
    B("ServiceID(LSB)", 32, 32),
    F("DGID", IB_SA_PR_DGID_F, 0),
    F("SGID", IB_SA_PR_SGID_F, 0),
    F("DLID", IB_SA_PR_DLID_F, 0),
    F("SLID", IB_SA_PR_SLID_F, 0),
    B("RawTraffic", 352, 1),
    R(353, 3),
    B("FlowLabel", 356, 20),
    B("HopLimit", 376, 8),
    B("TClass", 384, 8),
    B("Reversible", 392, 1),
    F("NumbPath", IB_SA_PR_NPATH_F, 0),
    B("P_Key", 400, 16),
    B("QoSClass", 416, 12),
    F("SL", IB_SA_PR_SL_F, 0),
    B("MTUSelector", 432, 2),
    B("MTU", 434, 6),
    B("RateSelector", 440, 2),
    B("Rate", 442, 6),
    B("PacketLifeTimeSelector", 448, 2),
    B("PacketLifeTime", 450, 6),
    B("Preference", 456, 8),
    R(464, 48),
};

const struct sa_wire_rec sa_wire_path_record = {
    SA_ATTR_PATH_RECORD, "PathRecord", SA_WIRE_PR_SIZE, path_record_comps,
    sizeof(path_record_comps) / sizeof(path_record_comps[0])};

/*
 * MultiPathRecord (15.2.5.20): the PathRecord's parameters without the
 * ends, the ServiceID split 8 + 56 bits, IndependenceSelector, the GID
 * counts, then the GIDs (OpenSM's ib_multipath_rec_t); 24 + 11 x 16 bytes
 * in one MAD.
 */
static const struct sa_wire_comp multipath_record_comps[] = {
    B("RawTraffic", 0, 1),
    R(1, 3),
    B("FlowLabel", 4, 20),
    B("HopLimit", 24, 8),
    B("TClass", 32, 8),
    B("Reversible", 40, 1),
    F("NumbPath", IB_SA_MP_NPATH_F, 0),
    B("P_Key", 48, 16),
    B("QoSClass", 64, 12),
    B("SL", 76, 4),
    B("MTUSelector", 80, 2),
    B("MTU", 82, 6),
    B("RateSelector", 88, 2),
    B("Rate", 90, 6),
    B("PacketLifeTimeSelector", 96, 2),
    B("PacketLifeTime", 98, 6),
    B("ServiceID(8 MSB)", 104, 8),
    B("IndependenceSelector", 112, 2),
    R(114, 6),
    F("SGIDCount", IB_SA_MP_NSRC_F, 0),
    F("DGIDCount", IB_SA_MP_NDEST_F, 0),
    B("ServiceID(56 LSB)", 136, 56),
};

const struct sa_wire_rec sa_wire_multipath_record = {
    SA_ATTR_MULTIPATH_RECORD, "MultiPathRecord", SA_WIRE_MPR_HDR_SIZE + 16 * SA_WIRE_MPR_MAX_GIDS,
    multipath_record_comps, sizeof(multipath_record_comps) / sizeof(multipath_record_comps[0])};

/*
 * ServiceRecord (15.2.5.14): ServiceID, ServiceGID, ServiceP_Key, reserved,
 * ServiceLease, ServiceKey, ServiceName (64 bytes), ServiceData8[16],
 * ServiceData16[8], ServiceData32[4], ServiceData64[2]; 176 bytes.  The
 * component order is OpenSM's IB_SR_COMPMASK_*: every ServiceData element is
 * a component of its own.  libibmad has the fields up to the name; the data
 * elements are bit ranges.
 */
/* ServiceData<bits>[i]: the arrays start at bits 896, 1024, 1152 and 1280 */
#define SD(bits, start, i) B("ServiceData" #bits, (start) + (bits) * (i), bits)
#define SD8(i) SD(8, 896, i)
#define SD16(i) SD(16, 1024, i)
#define SD32(i) SD(32, 1152, i)
#define SD64(i) SD(64, 1280, i)
static const struct sa_wire_comp service_record_comps[] = {
    F("ServiceID", IB_SA_SR_ID_F, 0),
    F("ServiceGID", IB_SA_SR_GID_F, 0),
    F("ServiceP_Key", IB_SA_SR_PKEY_F, 0),
    R(208, 16),
    F("ServiceLease", IB_SA_SR_LEASE_F, 0),
    F("ServiceKey", IB_SA_SR_KEY_F, 0),
    F("ServiceName", IB_SA_SR_NAME_F, 0),
    SD8(0),
    SD8(1),
    SD8(2),
    SD8(3),
    SD8(4),
    SD8(5),
    SD8(6),
    SD8(7),
    SD8(8),
    SD8(9),
    SD8(10),
    SD8(11),
    SD8(12),
    SD8(13),
    SD8(14),
    SD8(15),
    SD16(0),
    SD16(1),
    SD16(2),
    SD16(3),
    SD16(4),
    SD16(5),
    SD16(6),
    SD16(7),
    SD32(0),
    SD32(1),
    SD32(2),
    SD32(3),
    SD64(0),
    SD64(1),
};

const struct sa_wire_rec sa_wire_service_record = {
    SA_ATTR_SERVICE_RECORD, "ServiceRecord", SA_SR_SIZE, service_record_comps,
    sizeof(service_record_comps) / sizeof(service_record_comps[0])};

/*
 * InformInfo (13.4.8.3): GID, LIDRangeBegin, LIDRangeEnd, reserved,
 * IsGeneric, Subscribe, Type, TrapNumber/DeviceID, QPN, reserved,
 * RespTimeValue, reserved, ProducerType/VendorID; 36 bytes.  libibmad has no
 * fields for it.
 */
#define II(b, n, offs, len) B(n, (offs) + 8 * (b), len)
#define IIR(b, offs, len) R((offs) + 8 * (b), len)
#define INFORM_INFO_COMPS(b)                                                                       \
	II(b, "GID", 0, 128), II(b, "LIDRangeBegin", 128, 16), II(b, "LIDRangeEnd", 144, 16),      \
	    IIR(b, 160, 16), II(b, "IsGeneric", 176, 8), II(b, "Subscribe", 184, 8),               \
	    II(b, "Type", 192, 16), II(b, "TrapNumber", 208, 16), II(b, "QPN", 224, 24),           \
	    IIR(b, 248, 3), II(b, "RespTimeValue", 251, 5), IIR(b, 256, 8),                        \
	    II(b, "ProducerType", 264, 24)

static const struct sa_wire_comp inform_info_comps[] = {INFORM_INFO_COMPS(0)};

const struct sa_wire_rec sa_wire_inform_info = {
    SA_ATTR_INFORM_INFO, "InformInfo", SA_II_SIZE, inform_info_comps,
    sizeof(inform_info_comps) / sizeof(inform_info_comps[0])};

/*
 * InformInfoRecord (15.2.5.12): SubscriberGID, Enum, reserved (48 bits),
 * InformInfo at byte 24, 4 bytes of padding; 64 bytes.  The components are
 * OpenSM's IB_IIR_COMPMASK_*: the record's three, then InformInfo's.
 */
static const struct sa_wire_comp inform_info_record_comps[] = {
    B("SubscriberGID", 0, 128),
    B("Enum", 128, 16),
    R(144, 48),
    INFORM_INFO_COMPS(SA_IIR_II_OFFS),
};

const struct sa_wire_rec sa_wire_inform_info_record = {
    SA_ATTR_INFORM_INFO_RECORD, "InformInfoRecord", SA_IIR_SIZE, inform_info_record_comps,
    sizeof(inform_info_record_comps) / sizeof(inform_info_record_comps[0])};

/*
 * MCMemberRecord (15.2.5.17, Table 195): MGID, PortGID, Q_Key, MLID,
 * MTUSelector, MTU, TClass, P_Key, RateSelector, Rate,
 * PacketLifeTimeSelector, PacketLifeTime, SL, FlowLabel, HopLimit, Scope,
 * JoinState, ProxyJoin, reserved; 53 bytes (libibmad's IB_SA_MCM_RECSZ).
 * The layout is OpenSM's ib_member_rec_t: mgid 0..15, port_gid 16..31, qkey
 * 32, mlid 36, mtu 38, tclass 39, pkey 40, rate 42, pkt_life 43,
 * sl_flow_hop 44..47 (SL 4 bits, FlowLabel 20, HopLimit 8), scope_state 48
 * (Scope high nibble, JoinState low), ProxyJoin the top bit of byte 49.
 * Two libibmad fields are not used: IB_SA_MCM_FLOW_LABEL_F reads the 20
 * bits right but writes any wider value over the SL's four; and OpenSM
 * declares ProxyJoin as a bit-field (`uint8_t proxy_join:1`), which GCC puts
 * in the *low* bit of byte 49 on little-endian hosts, where the IBA,
 * libibmad's IB_SA_MCM_PROXY_JOIN_F and the kernel's ib_sa put it in the
 * high one (0x80): we follow the IBA.
 */
static const struct sa_wire_comp mcmember_record_comps[] = {
    F("MGID", IB_SA_MCM_MGID_F, 0),
    F("PortGID", IB_SA_MCM_PORTGID_F, 0),
    F("Q_Key", IB_SA_MCM_QKEY_F, 0),
    F("MLID", IB_SA_MCM_MLID_F, 0),
    B("MTUSelector", 304, 2),
    F("MTU", IB_SA_MCM_MTU_F, 0),
    F("TClass", IB_SA_MCM_TCLASS_F, 0),
    F("P_Key", IB_SA_MCM_PKEY_F, 0),
    B("RateSelector", 336, 2),
    F("Rate", IB_SA_MCM_RATE_F, 0),
    B("PacketLifeTimeSelector", 344, 2),
    B("PacketLifeTime", 346, 6),
    F("SL", IB_SA_MCM_SL_F, 0),
    B("FlowLabel", 356, 20),
    B("HopLimit", 376, 8),
    B("Scope", 384, 4),
    F("JoinState", IB_SA_MCM_JOIN_STATE_F, 0),
    F("ProxyJoin", IB_SA_MCM_PROXY_JOIN_F, 0),
    R(393, 31),
};

const struct sa_wire_rec sa_wire_mcmember_record = {
    SA_ATTR_MCMEMBER_RECORD, "MCMemberRecord", SA_MCM_SIZE, mcmember_record_comps,
    sizeof(mcmember_record_comps) / sizeof(mcmember_record_comps[0])};

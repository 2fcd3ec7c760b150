/*
 * MAD header and SMP codec (see wire.h).  IBA 1.4 vol 1: 13.4.2 and 13.4.3
 * (MAD format, common header), 14.2.1.1 and 14.2.1.2 (LID-routed and
 * directed-route SMP formats), 14.2.5 (SM attributes), 13.4.8.2 and
 * 14.2.5.1 (Notice, traps).  The headers are read and written through
 * libibmad's fields; each attribute with fields of its own (NodeInfo,
 * PortInfo, SwitchInfo, SMInfo, Notice and its traps) through a table of
 * fields (mad/field.h) that drives both its decode and its encode, with a
 * bit range from the IBA's table where libibmad has no field.  The tables
 * (P_Key, LFT, MFT, SL2VL, VLArb blocks) are arrays, copied as such.  This
 * file owns the length checks and the host-order structs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "mad/field.h"
#include "mad/wire.h"

#define SMP_DATA_OFFS IB_SMP_DATA_OFFS

static uint32_t get(const uint8_t *buf, int offs, enum MAD_FIELDS f)
{
	return mad_get_field((void *)buf, offs, f);
}

static uint64_t get64(const uint8_t *buf, int offs, enum MAD_FIELDS f)
{
	return mad_get_field64((void *)buf, offs, f);
}

int wire_smp_init_dr(struct wire_smp *s, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		     const uint8_t *path, uint8_t hops)
{
	if (hops > WIRE_DR_MAX_HOPS)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->mgmt_class = WIRE_CLASS_SMI_DR;
	s->method = method;
	s->attr_id = attr_id;
	s->attr_mod = attr_mod;
	s->hop_cnt = hops;
	s->hop_ptr = 0;
	s->dr_slid = WIRE_PERMISSIVE_LID;
	s->dr_dlid = WIRE_PERMISSIVE_LID;
	if (path)
		memcpy(s->initial_path + 1, path + 1, hops);
	return 0;
}

void wire_smp_init_lid(struct wire_smp *s, uint8_t method, uint16_t attr_id, uint32_t attr_mod)
{
	memset(s, 0, sizeof(*s));
	s->mgmt_class = WIRE_CLASS_SMI;
	s->method = method;
	s->attr_id = attr_id;
	s->attr_mod = attr_mod;
}

bool wire_smp_valid(const struct wire_smp *s)
{
	return s->mgmt_class == WIRE_CLASS_SMI ||
	       (s->mgmt_class == WIRE_CLASS_SMI_DR && s->hop_cnt <= WIRE_DR_MAX_HOPS);
}

int wire_smp_encode(const struct wire_smp *s, uint8_t *buf, size_t len)
{
	if (len < WIRE_MAD_SIZE)
		return -ENOSPC;
	if (!wire_smp_valid(s))
		return -EINVAL;
	memset(buf, 0, WIRE_MAD_SIZE);
	mad_set_field(buf, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(buf, 0, IB_MAD_MGMTCLASS_F, s->mgmt_class);
	mad_set_field(buf, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(buf, 0, IB_MAD_METHOD_F, s->method & 0x7f);
	mad_set_field(buf, 0, IB_MAD_RESPONSE_F, (s->method & 0x80) ? 1 : 0);
	mad_set_field64(buf, 0, IB_MAD_TRID_F, s->tid);
	mad_set_field(buf, 0, IB_MAD_ATTRID_F, s->attr_id);
	mad_set_field(buf, 0, IB_MAD_ATTRMOD_F, s->attr_mod);
	mad_set_field64(buf, 0, IB_MAD_MKEY_F, s->mkey);
	if (s->mgmt_class == WIRE_CLASS_SMI_DR) {
		uint8_t path[64];

		mad_set_field(buf, 0, IB_DRSMP_STATUS_F, s->status & 0x7fff);
		mad_set_field(buf, 0, IB_DRSMP_DIRECTION_F, s->direction ? 1 : 0);
		mad_set_field(buf, 0, IB_DRSMP_HOPPTR_F, s->hop_ptr);
		mad_set_field(buf, 0, IB_DRSMP_HOPCNT_F, s->hop_cnt);
		mad_set_field(buf, 0, IB_DRSMP_DRSLID_F, s->dr_slid);
		mad_set_field(buf, 0, IB_DRSMP_DRDLID_F, s->dr_dlid);
		memcpy(path, s->initial_path, sizeof(path));
		mad_set_array(buf, 0, IB_DRSMP_PATH_F, path);
		memcpy(path, s->return_path, sizeof(path));
		mad_set_array(buf, 0, IB_DRSMP_RPATH_F, path);
	} else {
		mad_set_field(buf, 0, IB_MAD_STATUS_F, s->status);
	}
	memcpy(buf + SMP_DATA_OFFS, s->data, WIRE_SMP_DATA_SIZE);
	return WIRE_MAD_SIZE;
}

/*
 * libibmad names the class-specific bytes 6-7 only for DR SMPs (hop pointer,
 * hop count); for every other class they are the same two bytes.
 */
int wire_mad_hdr_decode(const uint8_t *buf, size_t len, struct wire_mad_hdr *ret)
{
	struct wire_mad_hdr h;

	if (!buf || len < WIRE_MAD_HDR_SIZE)
		return -EBADMSG;
	memset(&h, 0, sizeof(h)); /* padding too: callers may memcmp */
	h.base_version = get(buf, 0, IB_MAD_BASEVER_F);
	h.mgmt_class = get(buf, 0, IB_MAD_MGMTCLASS_F);
	h.class_version = get(buf, 0, IB_MAD_CLASSVER_F);
	h.method = get(buf, 0, IB_MAD_METHOD_F) | (get(buf, 0, IB_MAD_RESPONSE_F) << 7);
	h.status = get(buf, 0, IB_MAD_STATUS_F);
	h.class_specific = get(buf, 0, IB_DRSMP_HOPPTR_F) << 8 | get(buf, 0, IB_DRSMP_HOPCNT_F);
	h.tid = get64(buf, 0, IB_MAD_TRID_F);
	h.attr_id = get(buf, 0, IB_MAD_ATTRID_F);
	h.attr_mod = get(buf, 0, IB_MAD_ATTRMOD_F);
	*ret = h;
	return 0;
}

int wire_mad_hdr_encode(const struct wire_mad_hdr *h, uint8_t *buf, size_t len)
{
	if (len < WIRE_MAD_HDR_SIZE)
		return -ENOSPC;
	mad_set_field(buf, 0, IB_MAD_BASEVER_F, h->base_version);
	mad_set_field(buf, 0, IB_MAD_MGMTCLASS_F, h->mgmt_class);
	mad_set_field(buf, 0, IB_MAD_CLASSVER_F, h->class_version);
	mad_set_field(buf, 0, IB_MAD_METHOD_F, h->method & 0x7f);
	mad_set_field(buf, 0, IB_MAD_RESPONSE_F, (h->method & WIRE_METHOD_RESP) ? 1 : 0);
	mad_set_field(buf, 0, IB_MAD_STATUS_F, h->status);
	mad_set_field(buf, 0, IB_DRSMP_HOPPTR_F, h->class_specific >> 8);
	mad_set_field(buf, 0, IB_DRSMP_HOPCNT_F, h->class_specific & 0xff);
	mad_set_field64(buf, 0, IB_MAD_TRID_F, h->tid);
	mad_set_field(buf, 0, IB_MAD_ATTRID_F, h->attr_id);
	mad_set_field(buf, 0, IB_MAD_ATTRMOD_F, h->attr_mod);
	return 0;
}

int wire_mad_peek(const uint8_t *buf, size_t len, uint8_t *ret_class, uint8_t *ret_method,
		  uint64_t *ret_tid)
{
	struct wire_mad_hdr h;

	if (wire_mad_hdr_decode(buf, len, &h) < 0)
		return -EBADMSG;
	if (ret_class)
		*ret_class = h.mgmt_class;
	if (ret_method)
		*ret_method = h.method;
	if (ret_tid)
		*ret_tid = h.tid;
	return 0;
}

uint64_t wire_smp_get_mkey(const uint8_t *buf, size_t len)
{
	return buf && len >= WIRE_MAD_SIZE ? get64(buf, 0, IB_MAD_MKEY_F) : 0;
}

void wire_smp_set_mkey(uint8_t *buf, size_t len, uint64_t mkey)
{
	if (buf && len >= WIRE_MAD_SIZE)
		mad_set_field64(buf, 0, IB_MAD_MKEY_F, mkey);
}

int wire_smp_decode(const uint8_t *buf, size_t len, struct wire_smp *ret)
{
	struct wire_smp s;

	if (!buf || len < WIRE_MAD_SIZE)
		return -EBADMSG;
	if (get(buf, 0, IB_MAD_BASEVER_F) != 1 || get(buf, 0, IB_MAD_CLASSVER_F) != 1)
		return -EBADMSG;
	memset(&s, 0, sizeof(s));
	s.mgmt_class = get(buf, 0, IB_MAD_MGMTCLASS_F);
	if (s.mgmt_class != WIRE_CLASS_SMI && s.mgmt_class != WIRE_CLASS_SMI_DR)
		return -EBADMSG;
	s.method = get(buf, 0, IB_MAD_METHOD_F) | (get(buf, 0, IB_MAD_RESPONSE_F) << 7);
	s.tid = get64(buf, 0, IB_MAD_TRID_F);
	s.attr_id = get(buf, 0, IB_MAD_ATTRID_F);
	s.attr_mod = get(buf, 0, IB_MAD_ATTRMOD_F);
	s.mkey = get64(buf, 0, IB_MAD_MKEY_F);
	if (s.mgmt_class == WIRE_CLASS_SMI_DR) {
		s.status = get(buf, 0, IB_DRSMP_STATUS_F);
		s.direction = get(buf, 0, IB_DRSMP_DIRECTION_F);
		s.hop_ptr = get(buf, 0, IB_DRSMP_HOPPTR_F);
		s.hop_cnt = get(buf, 0, IB_DRSMP_HOPCNT_F);
		s.dr_slid = get(buf, 0, IB_DRSMP_DRSLID_F);
		s.dr_dlid = get(buf, 0, IB_DRSMP_DRDLID_F);
		if (s.hop_cnt > WIRE_DR_MAX_HOPS || s.hop_ptr > s.hop_cnt + 1)
			return -EBADMSG;
		mad_get_array((void *)buf, 0, IB_DRSMP_PATH_F, s.initial_path);
		mad_get_array((void *)buf, 0, IB_DRSMP_RPATH_F, s.return_path);
	} else {
		s.status = get(buf, 0, IB_MAD_STATUS_F);
	}
	memcpy(s.data, buf + SMP_DATA_OFFS, WIRE_SMP_DATA_SIZE);
	*ret = s;
	return 0;
}

int wire_dr_path_parse(const char *s, uint8_t *path, uint8_t *ret_hops)
{
	uint8_t p[64] = {0};
	int n = -1;

	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		char *end;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		errno = 0;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || errno || v > 255)
			return -EINVAL;
		if (n >= WIRE_DR_MAX_HOPS)
			return -EINVAL;
		if (n >= 0)
			p[n + 1] = v;
		n++;
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -EINVAL;
	}
	memcpy(path, p, sizeof(p));
	*ret_hops = n;
	return 0;
}

char *wire_dr_path_format(const uint8_t *path, uint8_t hops, char *buf, size_t len)
{
	size_t off;

	if (!len)
		return buf;
	off = snprintf(buf, len, "0");
	for (unsigned i = 1; i <= hops && off < len; i++)
		off += snprintf(buf + off, len - off, ",%u", path[i]);
	return buf;
}

#define NEED(len, n)                                                                               \
	do {                                                                                       \
		if ((len) < (n))                                                                   \
			return -EBADMSG;                                                           \
	} while (0)

/* NodeInfo (14.2.5.3): every field, 40 bytes. */
#define NI(m, n, f) FIELD_MAP_IBMAD(struct wire_nodeinfo, m, n, f)
static const struct field_map wire_nodeinfo_fields[] = {
    NI(base_version, "BaseVersion", IB_NODE_BASE_VERS_F),
    NI(class_version, "ClassVersion", IB_NODE_CLASS_VERS_F),
    NI(node_type, "NodeType", IB_NODE_TYPE_F),
    NI(nports, "NumPorts", IB_NODE_NPORTS_F),
    NI(sys_guid, "SystemImageGUID", IB_NODE_SYSTEM_GUID_F),
    NI(node_guid, "NodeGUID", IB_NODE_GUID_F),
    NI(port_guid, "PortGUID", IB_NODE_PORT_GUID_F),
    NI(partition_cap, "PartitionCap", IB_NODE_PARTITION_CAP_F),
    NI(device_id, "DeviceID", IB_NODE_DEVID_F),
    NI(revision, "Revision", IB_NODE_REVISION_F),
    NI(local_port, "LocalPortNum", IB_NODE_LOCAL_PORT_F),
    NI(vendor_id, "VendorID", IB_NODE_VENDORID_F),
};
#undef NI
#define WIRE_NODEINFO_SIZE 40

int wire_nodeinfo_decode(const uint8_t *d, size_t len, struct wire_nodeinfo *ret)
{
	struct wire_nodeinfo ni;

	if (!d)
		return -EBADMSG;
	memset(&ni, 0, sizeof(ni)); /* padding too: callers may memcmp */
	NEED(len, WIRE_NODEINFO_SIZE);
	field_map_decode(wire_nodeinfo_fields, FIELD_N(wire_nodeinfo_fields), d, &ni);
	if (ni.node_type < 1 || ni.node_type > 3 || ni.nports == 0 || ni.node_guid == 0)
		return -EBADMSG;
	*ret = ni;
	return 0;
}

int wire_nodeinfo_encode(const struct wire_nodeinfo *ni, uint8_t *d, size_t len)
{
	if (len < WIRE_NODEINFO_SIZE)
		return -ENOSPC;
	field_map_encode(wire_nodeinfo_fields, FIELD_N(wire_nodeinfo_fields), ni, d);
	return 0;
}

int wire_nodedesc_decode(const uint8_t *d, size_t len, char *ret, size_t ret_len)
{
	size_t i;

	if (!d || !ret || !ret_len)
		return -EBADMSG;
	NEED(len, 64);
	for (i = 0; i < 64 && i + 1 < ret_len && d[i]; i++)
		ret[i] = isprint(d[i]) ? d[i] : '?';
	ret[i] = 0;
	return 0;
}

int wire_nodedesc_encode(const char *desc, uint8_t *d, size_t len)
{
	if (len < 64)
		return -ENOSPC;
	memset(d, 0, 64);
	strncpy((char *)d, desc, 64);
	return 0;
}

/*
 * PortInfo (14.2.5.6, Table 146): the fields struct wire_portinfo holds, in
 * the table's order.  A field libibmad lacks goes in as FIELD_MAP_BITS with
 * its bit offset and length from the IBA table (a member in the struct,
 * one row here; past byte 53 it goes in the second table, read from whole
 * images only).
 */
#define PI(m, n, f) FIELD_MAP_IBMAD(struct wire_portinfo, m, n, f)
static const struct field_map wire_portinfo_fields[] = {
    PI(mkey, "M_Key", IB_PORT_MKEY_F),
    PI(gid_prefix, "GidPrefix", IB_PORT_GID_PREFIX_F),
    PI(lid, "LID", IB_PORT_LID_F),
    PI(sm_lid, "MasterSMLID", IB_PORT_SMLID_F),
    PI(capmask, "CapabilityMask", IB_PORT_CAPMASK_F),
    PI(mkey_lease, "M_KeyLeasePeriod", IB_PORT_MKEY_LEASE_F),
    PI(local_port, "LocalPortNum", IB_PORT_LOCAL_PORT_F),
    PI(width_enabled, "LinkWidthEnabled", IB_PORT_LINK_WIDTH_ENABLED_F),
    PI(width_supported, "LinkWidthSupported", IB_PORT_LINK_WIDTH_SUPPORTED_F),
    PI(width_active, "LinkWidthActive", IB_PORT_LINK_WIDTH_ACTIVE_F),
    PI(speed_supported, "LinkSpeedSupported", IB_PORT_LINK_SPEED_SUPPORTED_F),
    PI(state, "PortState", IB_PORT_STATE_F),
    PI(phys_state, "PortPhysicalState", IB_PORT_PHYS_STATE_F),
    PI(down_default, "LinkDownDefaultState", IB_PORT_LINK_DOWN_DEF_F),
    PI(mkey_protect, "M_KeyProtectBits", IB_PORT_MKEY_PROT_BITS_F),
    PI(lmc, "LMC", IB_PORT_LMC_F),
    PI(speed_active, "LinkSpeedActive", IB_PORT_LINK_SPEED_ACTIVE_F),
    PI(speed_enabled, "LinkSpeedEnabled", IB_PORT_LINK_SPEED_ENABLED_F),
    PI(neighbor_mtu, "NeighborMTU", IB_PORT_NEIGHBOR_MTU_F),
    PI(sm_sl, "MasterSMSL", IB_PORT_SMSL_F),
    PI(vl_cap, "VLCap", IB_PORT_VL_CAP_F),
    PI(vl_high_limit, "VLHighLimit", IB_PORT_VL_HIGH_LIMIT_F),
    PI(vl_arb_high_cap, "VLArbitrationHighCap", IB_PORT_VL_ARBITRATION_HIGH_CAP_F),
    PI(vl_arb_low_cap, "VLArbitrationLowCap", IB_PORT_VL_ARBITRATION_LOW_CAP_F),
    PI(mtu_cap, "MTUCap", IB_PORT_MTU_CAP_F),
    PI(vl_stall, "VLStallCount", IB_PORT_VL_STALL_COUNT_F),
    PI(hoq_life, "HOQLife", IB_PORT_HOQ_LIFE_F),
    PI(oper_vls, "OperationalVLs", IB_PORT_OPER_VLS_F),
    PI(part_enf_in, "PartitionEnforcementInbound", IB_PORT_PART_EN_INB_F),
    PI(part_enf_out, "PartitionEnforcementOutbound", IB_PORT_PART_EN_OUTB_F),
    PI(filter_raw_in, "FilterRawInbound", IB_PORT_FILTER_RAW_INB_F),
    PI(filter_raw_out, "FilterRawOutbound", IB_PORT_FILTER_RAW_OUTB_F),
    PI(client_reregister, "ClientReregister", IB_PORT_CLIENT_REREG_F),
    PI(subnet_timeout, "SubnetTimeOut", IB_PORT_SUBN_TIMEOUT_F),
    PI(resp_time, "RespTimeValue", IB_PORT_RESP_TIME_VAL_F),
};
/*
 * Bytes 56-63: the *2 fields (XDR) of IBA 1.7, which libibmad 44 lacks, by
 * their bit offsets (bit 448 reserved, LinkSpeedExtActive2 449-450,
 * LinkSpeedExtSupported2 451-452, LinkSpeedExtEnabled2 453-455); then,
 * after LinkRoundTripLatency, CapabilityMask2 and the extended speeds.
 */
#define PB(m, n, offs, len) FIELD_MAP_BITS(struct wire_portinfo, m, n, offs, len)
static const struct field_map wire_portinfo_ext_fields[] = {
    PB(speed_ext2_active, "LinkSpeedExtActive2", 449, 2),
    PB(speed_ext2_supported, "LinkSpeedExtSupported2", 451, 2),
    PB(speed_ext2_enabled, "LinkSpeedExtEnabled2", 453, 3),
    PI(capmask2, "CapabilityMask2", IB_PORT_CAPMASK2_F),
    PI(speed_ext_active, "LinkSpeedExtActive", IB_PORT_LINK_SPEED_EXT_ACTIVE_F),
    PI(speed_ext_supported, "LinkSpeedExtSupported", IB_PORT_LINK_SPEED_EXT_SUPPORTED_F),
    PI(speed_ext_enabled, "LinkSpeedExtEnabled", IB_PORT_LINK_SPEED_EXT_ENABLED_F),
};
#undef PB
#undef PI

int wire_portinfo_decode(const uint8_t *d, size_t len, struct wire_portinfo *ret)
{
	struct wire_portinfo pi;

	if (!d)
		return -EBADMSG;
	memset(&pi, 0, sizeof(pi)); /* padding too: callers may memcmp */
	NEED(len, WIRE_PORTINFO_SIZE);
	field_map_decode(wire_portinfo_fields, FIELD_N(wire_portinfo_fields), d, &pi);
	if (len >= WIRE_PORTINFO_FULL_SIZE)
		field_map_decode(wire_portinfo_ext_fields, FIELD_N(wire_portinfo_ext_fields), d,
				 &pi);
	if (pi.state > 5)
		return -EBADMSG;
	*ret = pi;
	return 0;
}

int wire_portinfo_encode(const struct wire_portinfo *pi, uint8_t *d, size_t len)
{
	if (len < WIRE_PORTINFO_SIZE)
		return -ENOSPC;
	field_map_encode(wire_portinfo_fields, FIELD_N(wire_portinfo_fields), pi, d);
	return 0;
}

int wire_portinfo_encode_ext(const struct wire_portinfo *pi, uint8_t *d, size_t len)
{
	if (!d || len < WIRE_PORTINFO_FULL_SIZE)
		return -ENOSPC;
	field_map_encode(wire_portinfo_ext_fields, FIELD_N(wire_portinfo_ext_fields), pi, d);
	return 0;
}

/* SwitchInfo (14.2.5.4): the fields struct wire_switchinfo holds, 20 bytes. */
#define SW(m, n, f) FIELD_MAP_IBMAD(struct wire_switchinfo, m, n, f)
static const struct field_map wire_switchinfo_fields[] = {
    SW(lft_cap, "LinearFDBCap", IB_SW_LINEAR_FDB_CAP_F),
    SW(rft_cap, "RandomFDBCap", IB_SW_RANDOM_FDB_CAP_F),
    SW(mft_cap, "MulticastFDBCap", IB_SW_MCAST_FDB_CAP_F),
    SW(lft_top, "LinearFDBTop", IB_SW_LINEAR_FDB_TOP_F),
    SW(def_port, "DefaultPort", IB_SW_DEF_PORT_F),
    SW(def_mcast_prim, "DefaultMulticastPrimaryPort", IB_SW_DEF_MCAST_PRIM_F),
    SW(def_mcast_not_prim, "DefaultMulticastNotPrimaryPort", IB_SW_DEF_MCAST_NOT_PRIM_F),
    SW(lifetime, "LifeTimeValue", IB_SW_LIFE_TIME_F),
    SW(port_state_change, "PortStateChange", IB_SW_STATE_CHANGE_F),
    SW(lids_per_port, "LIDsPerPort", IB_SW_LIDS_PER_PORT_F),
    SW(partition_enf_cap, "PartitionEnforcementCap", IB_SW_PARTITION_ENFORCE_CAP_F),
    SW(enf_in_cap, "InboundEnforcementCap", IB_SW_PARTITION_ENF_INB_F),
    SW(enf_out_cap, "OutboundEnforcementCap", IB_SW_PARTITION_ENF_OUTB_F),
    SW(filter_raw_in_cap, "FilterRawInboundCap", IB_SW_FILTER_RAW_INB_F),
    SW(filter_raw_out_cap, "FilterRawOutboundCap", IB_SW_FILTER_RAW_OUTB_F),
    SW(enhanced_port0, "EnhancedPort0", IB_SW_ENHANCED_PORT0_F),
    SW(mft_top, "MulticastFDBTop", IB_SW_MCAST_FDB_TOP_F),
};
#undef SW
#define WIRE_SWITCHINFO_SIZE 20

int wire_switchinfo_decode(const uint8_t *d, size_t len, struct wire_switchinfo *ret)
{
	struct wire_switchinfo si;

	if (!d)
		return -EBADMSG;
	memset(&si, 0, sizeof(si)); /* padding too: callers may memcmp */
	NEED(len, WIRE_SWITCHINFO_SIZE);
	field_map_decode(wire_switchinfo_fields, FIELD_N(wire_switchinfo_fields), d, &si);
	*ret = si;
	return 0;
}

int wire_switchinfo_encode(const struct wire_switchinfo *si, uint8_t *d, size_t len)
{
	if (len < WIRE_SWITCHINFO_SIZE)
		return -ENOSPC;
	field_map_encode(wire_switchinfo_fields, FIELD_N(wire_switchinfo_fields), si, d);
	return 0;
}

int wire_lft_decode(const uint8_t *d, size_t len, uint8_t ret_ports[64])
{
	if (!d)
		return -EBADMSG;
	NEED(len, 64);
	mad_get_array((void *)d, 0, IB_LINEAR_FORW_TBL_F, ret_ports);
	return 0;
}

int wire_lft_encode(const uint8_t ports[64], uint8_t *d, size_t len)
{
	uint8_t tmp[64];

	if (len < 64)
		return -ENOSPC;
	memcpy(tmp, ports, sizeof(tmp));
	mad_set_array(d, 0, IB_LINEAR_FORW_TBL_F, tmp);
	return 0;
}

int wire_mft_decode(const uint8_t *d, size_t len, uint16_t ret_masks[32])
{
	uint8_t raw[64];

	if (!d)
		return -EBADMSG;
	NEED(len, 64);
	mad_get_array((void *)d, 0, IB_MULTICAST_FORW_TBL_F, raw);
	for (int i = 0; i < 32; i++)
		ret_masks[i] = (uint16_t)(raw[2 * i] << 8 | raw[2 * i + 1]);
	return 0;
}

int wire_mft_encode(const uint16_t masks[32], uint8_t *d, size_t len)
{
	uint8_t raw[64];

	if (len < 64)
		return -ENOSPC;
	for (int i = 0; i < 32; i++) {
		raw[2 * i] = masks[i] >> 8;
		raw[2 * i + 1] = masks[i] & 0xff;
	}
	mad_set_array(d, 0, IB_MULTICAST_FORW_TBL_F, raw);
	return 0;
}

int wire_pkey_decode(const uint8_t *d, size_t len, uint16_t ret_keys[32])
{
	if (!d)
		return -EBADMSG;
	NEED(len, 64);
	for (int i = 0; i < 32; i++)
		ret_keys[i] = (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
	return 0;
}

int wire_pkey_encode(const uint16_t keys[32], uint8_t *d, size_t len)
{
	if (len < 64)
		return -ENOSPC;
	for (int i = 0; i < 32; i++) {
		d[2 * i] = keys[i] >> 8;
		d[2 * i + 1] = keys[i] & 0xff;
	}
	return 0;
}

/* SMInfo (14.2.5.13): GUID, SM_Key, ActCount, Priority, SMState; 21 bytes. */
#define SM(m, n, f) FIELD_MAP_IBMAD(struct wire_sminfo, m, n, f)
static const struct field_map wire_sminfo_fields[] = {
    SM(guid, "GUID", IB_SMINFO_GUID_F),		SM(sm_key, "SM_Key", IB_SMINFO_KEY_F),
    SM(act_count, "ActCount", IB_SMINFO_ACT_F), SM(priority, "Priority", IB_SMINFO_PRIO_F),
    SM(state, "SMState", IB_SMINFO_STATE_F),
};
#undef SM
#define WIRE_SMINFO_SIZE 21

int wire_sminfo_decode(const uint8_t *d, size_t len, struct wire_sminfo *ret)
{
	struct wire_sminfo si;

	if (!d)
		return -EBADMSG;
	memset(&si, 0, sizeof(si)); /* padding too: callers may memcmp */
	NEED(len, WIRE_SMINFO_SIZE);
	field_map_decode(wire_sminfo_fields, FIELD_N(wire_sminfo_fields), d, &si);
	*ret = si;
	return 0;
}

int wire_sminfo_encode(const struct wire_sminfo *si, uint8_t *d, size_t len)
{
	if (len < WIRE_SMINFO_SIZE)
		return -ENOSPC;
	field_map_encode(wire_sminfo_fields, FIELD_N(wire_sminfo_fields), si, d);
	return 0;
}

/*
 * The Notice (13.4.8.2) as a trap carries it: the fixed part (IsGeneric,
 * Type, ProducerType, TrapNumber, IssuerLID, NoticeToggle, NoticeCount),
 * then DataDetails from byte 10 (bit 80), laid out per trap (14.2.5.1, a
 * table per trap number): libibmad has fields for 128 and 144 only; the
 * others are bit ranges from the IBA's tables.  libibmad's
 * NoticeCount is written 16 bits wide, over the toggle: the 15 bits after
 * the toggle are ours.
 */
#define NT(m, n, f) FIELD_MAP_IBMAD(struct wire_notice, m, n, f)
#define NB(m, n, offs, len) FIELD_MAP_BITS(struct wire_notice, m, n, offs, len)
static const struct field_map wire_notice_fields[] = {
    NT(generic, "IsGeneric", IB_NOTICE_IS_GENERIC_F),
    NT(type, "Type", IB_NOTICE_TYPE_F),
    NT(producer, "ProducerType", IB_NOTICE_PRODUCER_F),
    NT(trap_num, "TrapNumber", IB_NOTICE_TRAP_NUMBER_F),
    NT(issuer_lid, "IssuerLID", IB_NOTICE_ISSUER_LID_F),
    NT(toggle, "NoticeToggle", IB_NOTICE_TOGGLE_F),
    NB(count, "NoticeCount", 65, 15),
};
/* 128 link state change: the switch's LIDADDR, the first two bytes of DataDetails. */
static const struct field_map wire_trap128_fields[] = {
    NT(lid, "LIDADDR", IB_NOTICE_DATA_LID_F),
};
/* 129-131 port errors: 16 reserved bits, LIDADDR, PORTNO. */
static const struct field_map wire_trap129_fields[] = {
    NB(lid, "LIDADDR", 96, 16),
    NB(port, "PORTNO", 112, 8),
};
/* 144 local changes: 16 reserved bits, LIDADDR, 16 bits, CAPABILITYMASK. */
static const struct field_map wire_trap144_fields[] = {
    NT(lid, "LIDADDR", IB_NOTICE_DATA_144_LID_F),
    NT(capmask, "CAPABILITYMASK", IB_NOTICE_DATA_144_CAPMASK_F),
};
/* 145 system image GUID changed: 16 reserved bits, LIDADDR, 16 reserved, SYSTEMIMAGEGUID. */
static const struct field_map wire_trap145_fields[] = {
    NB(lid, "LIDADDR", 96, 16),
    NB(sys_guid, "SYSTEMIMAGEGUID", 128, 64),
};
/* 256 bad M_Key: 16 reserved, LIDADDR, DRSLID, METHOD, 8 reserved, ATTRIBUTEID,
 * ATTRIBUTEMODIFIER, MKEY (the directed-route details after it are not kept). */
static const struct field_map wire_trap256_fields[] = {
    NB(lid, "LIDADDR", 96, 16),
    NB(lid2, "DRSLID", 112, 16),
    NB(method, "METHOD", 128, 8),
    NB(attr_id, "ATTRIBUTEID", 144, 16),
    NB(attr_mod, "ATTRIBUTEMODIFIER", 160, 32),
    NB(key, "MKEY", 192, 64),
};
/* 257-259 bad P_Key, Q_Key, P_Key at a switch's external port: 16 reserved, LIDADDR1,
 * LIDADDR2, KEY (the SL, QPs and GIDs after it are not kept). */
static const struct field_map wire_trap257_fields[] = {
    NB(lid, "LIDADDR1", 96, 16),
    NB(lid2, "LIDADDR2", 112, 16),
    NB(key, "KEY", 128, 32),
};
#undef NT
#undef NB

/* The DataDetails of each generic trap this codec knows. */
static const struct {
	uint16_t first, last;
	const struct field_map *map;
	size_t n;
} wire_trap_details[] = {
    {128, 128, wire_trap128_fields, FIELD_N(wire_trap128_fields)},
    {129, 131, wire_trap129_fields, FIELD_N(wire_trap129_fields)},
    {144, 144, wire_trap144_fields, FIELD_N(wire_trap144_fields)},
    {145, 145, wire_trap145_fields, FIELD_N(wire_trap145_fields)},
    {256, 256, wire_trap256_fields, FIELD_N(wire_trap256_fields)},
    {257, 259, wire_trap257_fields, FIELD_N(wire_trap257_fields)},
};

static bool wire_trap_find(const struct wire_notice *n, const struct field_map **ret_map,
			   size_t *ret_n)
{
	if (!n->generic)
		return false;
	for (size_t i = 0; i < FIELD_N(wire_trap_details); i++) {
		if (n->trap_num >= wire_trap_details[i].first &&
		    n->trap_num <= wire_trap_details[i].last) {
			*ret_map = wire_trap_details[i].map;
			*ret_n = wire_trap_details[i].n;
			return true;
		}
	}
	return false;
}

int wire_notice_decode(const uint8_t *d, size_t len, struct wire_notice *n)
{
	const struct field_map *map;
	size_t nrows;

	if (!d)
		return -EBADMSG;
	NEED(len, WIRE_NOTICE_SIZE);
	memset(n, 0, sizeof(*n));
	field_map_decode(wire_notice_fields, FIELD_N(wire_notice_fields), d, n);
	if (wire_trap_find(n, &map, &nrows))
		field_map_decode(map, nrows, d, n);
	return 0;
}

int wire_notice_encode(const struct wire_notice *n, uint8_t *d, size_t len)
{
	const struct field_map *map;
	size_t nrows;

	if (!d || len < WIRE_NOTICE_SIZE)
		return -ENOSPC;
	memset(d, 0, WIRE_NOTICE_SIZE);
	field_map_encode(wire_notice_fields, FIELD_N(wire_notice_fields), n, d);
	if (wire_trap_find(n, &map, &nrows))
		field_map_encode(map, nrows, n, d);
	return 0;
}

int wire_trap144_encode(uint16_t lid, uint8_t producer, uint32_t capmask, uint8_t *d, size_t len)
{
	const struct wire_notice n = {
	    .generic = true,
	    .type = 4, /* informational */
	    .producer = producer,
	    .trap_num = 144,
	    .issuer_lid = lid,
	    .lid = lid,
	    .capmask = capmask,
	};

	return wire_notice_encode(&n, d, len);
}

/* SLtoVLMappingTable (14.2.5.8): SL0 in the high nibble of byte 0. */
int wire_sl2vl_decode(const uint8_t *d, size_t len, uint8_t ret_vl[16])
{
	if (!d)
		return -EBADMSG;
	NEED(len, 8);
	for (int i = 0; i < 16; i++)
		ret_vl[i] = (d[i / 2] >> (i % 2 ? 0 : 4)) & 0x0f;
	return 0;
}

int wire_sl2vl_encode(const uint8_t vl[16], uint8_t *d, size_t len)
{
	if (len < 8)
		return -ENOSPC;
	for (int i = 0; i < 16; i++) {
		if (vl[i] > 15)
			return -EINVAL;
		if (i % 2)
			d[i / 2] = (d[i / 2] & 0xf0) | vl[i];
		else
			d[i / 2] = (d[i / 2] & 0x0f) | vl[i] << 4;
	}
	return 0;
}

/* VLArbitrationTable (14.2.5.9): 32 entries of {4 reserved bits, VL:4, weight:8}. */
int wire_vlarb_decode(const uint8_t *d, size_t len, uint8_t ret_vl[32], uint8_t ret_weight[32])
{
	if (!d)
		return -EBADMSG;
	NEED(len, 64);
	for (int i = 0; i < 32; i++) {
		ret_vl[i] = d[2 * i] & 0x0f;
		ret_weight[i] = d[2 * i + 1];
	}
	return 0;
}

int wire_vlarb_encode(const uint8_t vl[32], const uint8_t weight[32], uint8_t *d, size_t len)
{
	if (len < 64)
		return -ENOSPC;
	for (int i = 0; i < 32; i++) {
		if (vl[i] > 15)
			return -EINVAL;
		d[2 * i] = vl[i];
		d[2 * i + 1] = weight[i];
	}
	return 0;
}

/*
 * MAD header and SMP codec (see wire.h).  IBA 1.4 vol 1: 13.4.2 and 13.4.3
 * (MAD format, common header), 14.2.1.1 and 14.2.1.2 (LID-routed and
 * directed-route SMP formats), 14.2.5 (SM attributes).  Every field is read
 * and written through libibmad's field tables; this file owns only the length
 * checks and the host-order structs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

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

int wire_nodeinfo_decode(const uint8_t *d, size_t len, struct wire_nodeinfo *ret)
{
	struct wire_nodeinfo ni;

	if (!d)
		return -EBADMSG;
	memset(&ni, 0, sizeof(ni)); /* padding too: callers may memcmp */
	NEED(len, 40);
	ni.base_version = get(d, 0, IB_NODE_BASE_VERS_F);
	ni.class_version = get(d, 0, IB_NODE_CLASS_VERS_F);
	ni.node_type = get(d, 0, IB_NODE_TYPE_F);
	ni.nports = get(d, 0, IB_NODE_NPORTS_F);
	ni.sys_guid = get64(d, 0, IB_NODE_SYSTEM_GUID_F);
	ni.node_guid = get64(d, 0, IB_NODE_GUID_F);
	ni.port_guid = get64(d, 0, IB_NODE_PORT_GUID_F);
	ni.partition_cap = get(d, 0, IB_NODE_PARTITION_CAP_F);
	ni.device_id = get(d, 0, IB_NODE_DEVID_F);
	ni.revision = get(d, 0, IB_NODE_REVISION_F);
	ni.local_port = get(d, 0, IB_NODE_LOCAL_PORT_F);
	ni.vendor_id = get(d, 0, IB_NODE_VENDORID_F);
	if (ni.node_type < 1 || ni.node_type > 3 || ni.nports == 0 || ni.node_guid == 0)
		return -EBADMSG;
	*ret = ni;
	return 0;
}

int wire_nodeinfo_encode(const struct wire_nodeinfo *ni, uint8_t *d, size_t len)
{
	if (len < 40)
		return -ENOSPC;
	mad_set_field(d, 0, IB_NODE_BASE_VERS_F, ni->base_version);
	mad_set_field(d, 0, IB_NODE_CLASS_VERS_F, ni->class_version);
	mad_set_field(d, 0, IB_NODE_TYPE_F, ni->node_type);
	mad_set_field(d, 0, IB_NODE_NPORTS_F, ni->nports);
	mad_set_field64(d, 0, IB_NODE_SYSTEM_GUID_F, ni->sys_guid);
	mad_set_field64(d, 0, IB_NODE_GUID_F, ni->node_guid);
	mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, ni->port_guid);
	mad_set_field(d, 0, IB_NODE_PARTITION_CAP_F, ni->partition_cap);
	mad_set_field(d, 0, IB_NODE_DEVID_F, ni->device_id);
	mad_set_field(d, 0, IB_NODE_REVISION_F, ni->revision);
	mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, ni->local_port);
	mad_set_field(d, 0, IB_NODE_VENDORID_F, ni->vendor_id);
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

int wire_portinfo_decode(const uint8_t *d, size_t len, struct wire_portinfo *ret)
{
	struct wire_portinfo pi;

	if (!d)
		return -EBADMSG;
	memset(&pi, 0, sizeof(pi)); /* padding too: callers may memcmp */
	NEED(len, 54);
	pi.mkey = get64(d, 0, IB_PORT_MKEY_F);
	pi.gid_prefix = get64(d, 0, IB_PORT_GID_PREFIX_F);
	pi.lid = get(d, 0, IB_PORT_LID_F);
	pi.sm_lid = get(d, 0, IB_PORT_SMLID_F);
	pi.capmask = get(d, 0, IB_PORT_CAPMASK_F);
	pi.mkey_lease = get(d, 0, IB_PORT_MKEY_LEASE_F);
	pi.local_port = get(d, 0, IB_PORT_LOCAL_PORT_F);
	pi.width_enabled = get(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F);
	pi.width_supported = get(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	pi.width_active = get(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	pi.speed_supported = get(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F);
	pi.state = get(d, 0, IB_PORT_STATE_F);
	pi.phys_state = get(d, 0, IB_PORT_PHYS_STATE_F);
	pi.down_default = get(d, 0, IB_PORT_LINK_DOWN_DEF_F);
	pi.mkey_protect = get(d, 0, IB_PORT_MKEY_PROT_BITS_F);
	pi.lmc = get(d, 0, IB_PORT_LMC_F);
	pi.speed_active = get(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	pi.speed_enabled = get(d, 0, IB_PORT_LINK_SPEED_ENABLED_F);
	pi.neighbor_mtu = get(d, 0, IB_PORT_NEIGHBOR_MTU_F);
	pi.sm_sl = get(d, 0, IB_PORT_SMSL_F);
	pi.vl_cap = get(d, 0, IB_PORT_VL_CAP_F);
	pi.vl_high_limit = get(d, 0, IB_PORT_VL_HIGH_LIMIT_F);
	pi.vl_arb_high_cap = get(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	pi.vl_arb_low_cap = get(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	pi.mtu_cap = get(d, 0, IB_PORT_MTU_CAP_F);
	pi.vl_stall = get(d, 0, IB_PORT_VL_STALL_COUNT_F);
	pi.hoq_life = get(d, 0, IB_PORT_HOQ_LIFE_F);
	pi.oper_vls = get(d, 0, IB_PORT_OPER_VLS_F);
	pi.part_enf_in = get(d, 0, IB_PORT_PART_EN_INB_F);
	pi.part_enf_out = get(d, 0, IB_PORT_PART_EN_OUTB_F);
	pi.filter_raw_in = get(d, 0, IB_PORT_FILTER_RAW_INB_F);
	pi.filter_raw_out = get(d, 0, IB_PORT_FILTER_RAW_OUTB_F);
	pi.client_reregister = get(d, 0, IB_PORT_CLIENT_REREG_F);
	pi.subnet_timeout = get(d, 0, IB_PORT_SUBN_TIMEOUT_F);
	pi.resp_time = get(d, 0, IB_PORT_RESP_TIME_VAL_F);
	if (pi.state > 5)
		return -EBADMSG;
	*ret = pi;
	return 0;
}

int wire_portinfo_encode(const struct wire_portinfo *pi, uint8_t *d, size_t len)
{
	if (len < 54)
		return -ENOSPC;
	mad_set_field64(d, 0, IB_PORT_MKEY_F, pi->mkey);
	mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F, pi->gid_prefix);
	mad_set_field(d, 0, IB_PORT_LID_F, pi->lid);
	mad_set_field(d, 0, IB_PORT_SMLID_F, pi->sm_lid);
	mad_set_field(d, 0, IB_PORT_CAPMASK_F, pi->capmask);
	mad_set_field(d, 0, IB_PORT_MKEY_LEASE_F, pi->mkey_lease);
	mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, pi->local_port);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F, pi->width_enabled);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, pi->width_supported);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, pi->width_active);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, pi->speed_supported);
	mad_set_field(d, 0, IB_PORT_STATE_F, pi->state);
	mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, pi->phys_state);
	mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F, pi->down_default);
	mad_set_field(d, 0, IB_PORT_MKEY_PROT_BITS_F, pi->mkey_protect);
	mad_set_field(d, 0, IB_PORT_LMC_F, pi->lmc);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, pi->speed_active);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, pi->speed_enabled);
	mad_set_field(d, 0, IB_PORT_NEIGHBOR_MTU_F, pi->neighbor_mtu);
	mad_set_field(d, 0, IB_PORT_SMSL_F, pi->sm_sl);
	mad_set_field(d, 0, IB_PORT_VL_CAP_F, pi->vl_cap);
	mad_set_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F, pi->vl_high_limit);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, pi->vl_arb_high_cap);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, pi->vl_arb_low_cap);
	mad_set_field(d, 0, IB_PORT_MTU_CAP_F, pi->mtu_cap);
	mad_set_field(d, 0, IB_PORT_VL_STALL_COUNT_F, pi->vl_stall);
	mad_set_field(d, 0, IB_PORT_HOQ_LIFE_F, pi->hoq_life);
	mad_set_field(d, 0, IB_PORT_OPER_VLS_F, pi->oper_vls);
	mad_set_field(d, 0, IB_PORT_PART_EN_INB_F, pi->part_enf_in);
	mad_set_field(d, 0, IB_PORT_PART_EN_OUTB_F, pi->part_enf_out);
	mad_set_field(d, 0, IB_PORT_FILTER_RAW_INB_F, pi->filter_raw_in);
	mad_set_field(d, 0, IB_PORT_FILTER_RAW_OUTB_F, pi->filter_raw_out);
	mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, pi->client_reregister);
	mad_set_field(d, 0, IB_PORT_SUBN_TIMEOUT_F, pi->subnet_timeout);
	mad_set_field(d, 0, IB_PORT_RESP_TIME_VAL_F, pi->resp_time);
	return 0;
}

int wire_switchinfo_decode(const uint8_t *d, size_t len, struct wire_switchinfo *ret)
{
	struct wire_switchinfo si;

	if (!d)
		return -EBADMSG;
	memset(&si, 0, sizeof(si)); /* padding too: callers may memcmp */
	NEED(len, 20);
	si.lft_cap = get(d, 0, IB_SW_LINEAR_FDB_CAP_F);
	si.rft_cap = get(d, 0, IB_SW_RANDOM_FDB_CAP_F);
	si.mft_cap = get(d, 0, IB_SW_MCAST_FDB_CAP_F);
	si.lft_top = get(d, 0, IB_SW_LINEAR_FDB_TOP_F);
	si.def_port = get(d, 0, IB_SW_DEF_PORT_F);
	si.def_mcast_prim = get(d, 0, IB_SW_DEF_MCAST_PRIM_F);
	si.def_mcast_not_prim = get(d, 0, IB_SW_DEF_MCAST_NOT_PRIM_F);
	si.lifetime = get(d, 0, IB_SW_LIFE_TIME_F);
	si.port_state_change = get(d, 0, IB_SW_STATE_CHANGE_F);
	si.lids_per_port = get(d, 0, IB_SW_LIDS_PER_PORT_F);
	si.partition_enf_cap = get(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F);
	si.enf_in_cap = get(d, 0, IB_SW_PARTITION_ENF_INB_F);
	si.enf_out_cap = get(d, 0, IB_SW_PARTITION_ENF_OUTB_F);
	si.filter_raw_in_cap = get(d, 0, IB_SW_FILTER_RAW_INB_F);
	si.filter_raw_out_cap = get(d, 0, IB_SW_FILTER_RAW_OUTB_F);
	si.enhanced_port0 = get(d, 0, IB_SW_ENHANCED_PORT0_F);
	si.mft_top = get(d, 0, IB_SW_MCAST_FDB_TOP_F);
	*ret = si;
	return 0;
}

int wire_switchinfo_encode(const struct wire_switchinfo *si, uint8_t *d, size_t len)
{
	if (len < 20)
		return -ENOSPC;
	mad_set_field(d, 0, IB_SW_LINEAR_FDB_CAP_F, si->lft_cap);
	mad_set_field(d, 0, IB_SW_RANDOM_FDB_CAP_F, si->rft_cap);
	mad_set_field(d, 0, IB_SW_MCAST_FDB_CAP_F, si->mft_cap);
	mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, si->lft_top);
	mad_set_field(d, 0, IB_SW_DEF_PORT_F, si->def_port);
	mad_set_field(d, 0, IB_SW_DEF_MCAST_PRIM_F, si->def_mcast_prim);
	mad_set_field(d, 0, IB_SW_DEF_MCAST_NOT_PRIM_F, si->def_mcast_not_prim);
	mad_set_field(d, 0, IB_SW_LIFE_TIME_F, si->lifetime);
	mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, si->port_state_change);
	mad_set_field(d, 0, IB_SW_LIDS_PER_PORT_F, si->lids_per_port);
	mad_set_field(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F, si->partition_enf_cap);
	mad_set_field(d, 0, IB_SW_PARTITION_ENF_INB_F, si->enf_in_cap);
	mad_set_field(d, 0, IB_SW_PARTITION_ENF_OUTB_F, si->enf_out_cap);
	mad_set_field(d, 0, IB_SW_FILTER_RAW_INB_F, si->filter_raw_in_cap);
	mad_set_field(d, 0, IB_SW_FILTER_RAW_OUTB_F, si->filter_raw_out_cap);
	mad_set_field(d, 0, IB_SW_ENHANCED_PORT0_F, si->enhanced_port0);
	mad_set_field(d, 0, IB_SW_MCAST_FDB_TOP_F, si->mft_top);
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

int wire_sminfo_decode(const uint8_t *d, size_t len, struct wire_sminfo *ret)
{
	struct wire_sminfo si;

	if (!d)
		return -EBADMSG;
	memset(&si, 0, sizeof(si)); /* padding too: callers may memcmp */
	NEED(len, 21);
	si.guid = get64(d, 0, IB_SMINFO_GUID_F);
	si.sm_key = get64(d, 0, IB_SMINFO_KEY_F);
	si.act_count = get(d, 0, IB_SMINFO_ACT_F);
	si.priority = get(d, 0, IB_SMINFO_PRIO_F);
	si.state = get(d, 0, IB_SMINFO_STATE_F);
	*ret = si;
	return 0;
}

int wire_sminfo_encode(const struct wire_sminfo *si, uint8_t *d, size_t len)
{
	if (len < 21)
		return -ENOSPC;
	mad_set_field64(d, 0, IB_SMINFO_GUID_F, si->guid);
	mad_set_field64(d, 0, IB_SMINFO_KEY_F, si->sm_key);
	mad_set_field(d, 0, IB_SMINFO_ACT_F, si->act_count);
	mad_set_field(d, 0, IB_SMINFO_PRIO_F, si->priority);
	mad_set_field(d, 0, IB_SMINFO_STATE_F, si->state);
	return 0;
}

int wire_trap144_encode(uint16_t lid, uint8_t producer, uint32_t capmask, uint8_t *d, size_t len)
{
	if (len < WIRE_SMP_DATA_SIZE)
		return -ENOSPC;
	memset(d, 0, WIRE_SMP_DATA_SIZE);
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TYPE_F, 4); /* informational */
	mad_set_field(d, 0, IB_NOTICE_PRODUCER_F, producer);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, 144);
	mad_set_field(d, 0, IB_NOTICE_ISSUER_LID_F, lid);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_LID_F, lid);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_CAPMASK_F, capmask);
	return 0;
}

static uint16_t wire_be16(const uint8_t *d)
{
	return (uint16_t)(d[0] << 8 | d[1]);
}

static uint32_t wire_be32(const uint8_t *d)
{
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

int wire_notice_decode(const uint8_t *d, size_t len, struct wire_notice *n)
{
	if (!d)
		return -EBADMSG;
	NEED(len, 64);
	memset(n, 0, sizeof(*n));
	n->generic = mad_get_field((void *)d, 0, IB_NOTICE_IS_GENERIC_F);
	n->type = (uint8_t)mad_get_field((void *)d, 0, IB_NOTICE_TYPE_F);
	n->producer = mad_get_field((void *)d, 0, IB_NOTICE_PRODUCER_F);
	n->trap_num = (uint16_t)mad_get_field((void *)d, 0, IB_NOTICE_TRAP_NUMBER_F);
	n->issuer_lid = (uint16_t)mad_get_field((void *)d, 0, IB_NOTICE_ISSUER_LID_F);
	n->toggle = mad_get_field((void *)d, 0, IB_NOTICE_TOGGLE_F);
	n->count = (uint16_t)mad_get_field((void *)d, 0, IB_NOTICE_COUNT_F);
	if (!n->generic)
		return 0;
	/* DataDetails start at byte 10 */
	switch (n->trap_num) {
	case 128:
		n->lid = (uint16_t)mad_get_field((void *)d, 0, IB_NOTICE_DATA_LID_F);
		break;
	case 129:
	case 130:
	case 131:
		n->lid = wire_be16(d + 12);
		n->port = d[14];
		break;
	case 144:
		n->lid = (uint16_t)mad_get_field((void *)d, 0, IB_NOTICE_DATA_144_LID_F);
		n->capmask = mad_get_field((void *)d, 0, IB_NOTICE_DATA_144_CAPMASK_F);
		break;
	case 145:
		n->lid = wire_be16(d + 12);
		n->sys_guid = (uint64_t)wire_be32(d + 16) << 32 | wire_be32(d + 20);
		break;
	case 256:
		n->lid = wire_be16(d + 12);
		n->lid2 = wire_be16(d + 14);
		n->method = d[16];
		n->attr_id = wire_be16(d + 18);
		n->attr_mod = wire_be32(d + 20);
		n->key = (uint64_t)wire_be32(d + 24) << 32 | wire_be32(d + 28);
		break;
	case 257:
	case 258:
	case 259:
		n->lid = wire_be16(d + 12);
		n->lid2 = wire_be16(d + 14);
		n->key = wire_be32(d + 16);
		break;
	}
	return 0;
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

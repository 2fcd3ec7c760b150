/*
 * The SA codec (see sa_wire.h).  IBA 1.4 vol 1: 13.6.2 (RMPP header),
 * 15.2.1 (SA MAD format), 15.2.4 (component masks), 15.2.5 (records),
 * 13.4.8.1 (ClassPortInfo), 13.4.8.2 (Notice).  The headers go through
 * libibmad's fields; a record's components through its table of fields
 * (mad/sa_wire_tables.c, mad/field.h), which also carries the few bit
 * ranges libibmad lacks; the Notice and ClassPortInfo through tables of
 * their own here.  This file owns the length checks and the host structs.
 */
#include <errno.h>
#include <string.h>
#include <infiniband/mad.h>

#include "mad/field.h"
#include "mad/sa_wire.h"

#define SA_CLASS 0x03

int sa_wire_decode(const uint8_t *buf, size_t len, struct sa_wire_mad *ret)
{
	uint8_t mad[WIRE_MAD_SIZE] = {0};
	struct sa_wire_mad m;

	if (!buf || len < SA_WIRE_HDR_SIZE)
		return -EBADMSG;
	memcpy(mad, buf, len < sizeof(mad) ? len : sizeof(mad));
	memset(&m, 0, sizeof(m));
	if (wire_mad_hdr_decode(mad, sizeof(mad), &m.hdr) < 0 || m.hdr.mgmt_class != SA_CLASS)
		return -EBADMSG;
	m.rmpp_version = (uint8_t)mad_get_field(mad, 0, IB_SA_RMPP_VERS_F);
	m.rmpp_type = (uint8_t)mad_get_field(mad, 0, IB_SA_RMPP_TYPE_F);
	m.rmpp_resp_time = (uint8_t)mad_get_field(mad, 0, IB_SA_RMPP_RESP_F);
	m.rmpp_flags = (uint8_t)mad_get_field(mad, 0, IB_SA_RMPP_FLAGS_F);
	m.rmpp_status = (uint8_t)mad_get_field(mad, 0, IB_SA_RMPP_STATUS_F);
	m.rmpp_data1 = mad_get_field(mad, 0, IB_SA_RMPP_D1_F);
	m.rmpp_data2 = mad_get_field(mad, 0, IB_SA_RMPP_D2_F);
	m.sm_key = mad_get_field64(mad, 0, IB_SA_MKEY_F);
	m.attr_offset = (uint16_t)mad_get_field(mad, 0, IB_SA_ATTROFFS_F);
	m.comp_mask = mad_get_field64(mad, 0, IB_SA_COMPMASK_F);
	memcpy(m.data, mad + SA_WIRE_HDR_SIZE, sizeof(m.data));
	*ret = m;
	return 0;
}

int sa_wire_encode(const struct sa_wire_mad *m, uint8_t *buf, size_t len)
{
	struct wire_mad_hdr h = m->hdr;

	if (len < WIRE_MAD_SIZE)
		return -ENOSPC;
	memset(buf, 0, WIRE_MAD_SIZE);
	h.base_version = 1;
	h.mgmt_class = SA_CLASS;
	h.class_version = SA_WIRE_CLASS_VERSION;
	if (wire_mad_hdr_encode(&h, buf, len) < 0)
		return -ENOSPC;
	mad_set_field(buf, 0, IB_SA_RMPP_VERS_F, m->rmpp_version);
	mad_set_field(buf, 0, IB_SA_RMPP_TYPE_F, m->rmpp_type);
	mad_set_field(buf, 0, IB_SA_RMPP_RESP_F, m->rmpp_resp_time);
	mad_set_field(buf, 0, IB_SA_RMPP_FLAGS_F, m->rmpp_flags);
	mad_set_field(buf, 0, IB_SA_RMPP_STATUS_F, m->rmpp_status);
	mad_set_field(buf, 0, IB_SA_RMPP_D1_F, m->rmpp_data1);
	mad_set_field(buf, 0, IB_SA_RMPP_D2_F, m->rmpp_data2);
	mad_set_field64(buf, 0, IB_SA_MKEY_F, m->sm_key);
	mad_set_field(buf, 0, IB_SA_ATTROFFS_F, m->attr_offset);
	mad_set_field64(buf, 0, IB_SA_COMPMASK_F, m->comp_mask);
	memcpy(buf + SA_WIRE_HDR_SIZE, m->data, sizeof(m->data));
	return WIRE_MAD_SIZE;
}

/* ---- components --------------------------------------------------------- */

bool sa_wire_mask_valid(const struct sa_wire_rec *r, uint64_t mask)
{
	return r->n_comps >= 64 || !(mask >> r->n_comps);
}

bool sa_wire_match(const struct sa_wire_rec *r, const uint8_t *q, const uint8_t *rec, uint64_t mask)
{
	for (unsigned i = 0; i < r->n_comps && mask >> i; i++) {
		const struct sa_wire_comp *c = &r->comps[i];
		uint8_t a[64], b[64];

		if (!((mask >> i) & 1) || c->reserved)
			continue;
		field_bytes(&c->at, q, a);
		field_bytes(&c->at, rec, b);
		if (c->subset) {
			for (size_t k = 0; k < sizeof(a); k++)
				if ((a[k] & b[k]) != a[k])
					return false;
		} else if (memcmp(a, b, sizeof(a))) {
			return false;
		}
	}
	return true;
}

uint64_t sa_wire_comp_get(const struct sa_wire_rec *r, unsigned i, const uint8_t *rec)
{
	return i < r->n_comps ? field_get(&r->comps[i].at, rec) : 0;
}

int sa_wire_comp_set(const struct sa_wire_rec *r, unsigned i, uint8_t *rec, uint64_t v)
{
	return i < r->n_comps ? field_set(&r->comps[i].at, rec, v) : -EINVAL;
}

/* A GID as 16 bytes, big-endian (the layout of libibmad's GID arrays). */
static void gid_put(uint8_t *b, const struct sa_wire_gid *g)
{
	for (int i = 0; i < 8; i++) {
		b[i] = (uint8_t)(g->prefix >> (56 - 8 * i));
		b[8 + i] = (uint8_t)(g->guid >> (56 - 8 * i));
	}
}

static void gid_take(const uint8_t *b, struct sa_wire_gid *g)
{
	g->prefix = g->guid = 0;
	for (int i = 0; i < 8; i++) {
		g->prefix = g->prefix << 8 | b[i];
		g->guid = g->guid << 8 | b[8 + i];
	}
}

static void gid_set(uint8_t *rec, enum MAD_FIELDS field, const struct sa_wire_gid *g)
{
	uint8_t b[16];

	gid_put(b, g);
	mad_set_array(rec, 0, field, b);
}

static void gid_get(const uint8_t *rec, enum MAD_FIELDS field, struct sa_wire_gid *g)
{
	uint8_t b[16];

	mad_get_array((void *)rec, 0, field, b);
	gid_take(b, g);
}

#define PR_SET(c, v) sa_wire_comp_set(&sa_wire_path_record, c, rec, v)
#define PR_GET(c) sa_wire_comp_get(&sa_wire_path_record, c, rec)

int sa_wire_path_rec_encode(const struct sa_wire_path_rec *p, uint8_t *rec, size_t len)
{
	if (len < SA_WIRE_PR_SIZE)
		return -ENOSPC;
	memset(rec, 0, SA_WIRE_PR_SIZE);
	PR_SET(SA_PR_SERVICE_ID_MSB, p->service_id >> 32);
	PR_SET(SA_PR_SERVICE_ID_LSB, p->service_id & 0xffffffffu);
	gid_set(rec, IB_SA_PR_DGID_F, &p->dgid);
	gid_set(rec, IB_SA_PR_SGID_F, &p->sgid);
	PR_SET(SA_PR_DLID, p->dlid);
	PR_SET(SA_PR_SLID, p->slid);
	PR_SET(SA_PR_RAW_TRAFFIC, p->raw_traffic);
	PR_SET(SA_PR_FLOW_LABEL, p->flow_label & 0xfffffu);
	PR_SET(SA_PR_HOP_LIMIT, p->hop_limit);
	PR_SET(SA_PR_TCLASS, p->tclass);
	PR_SET(SA_PR_REVERSIBLE, p->reversible);
	PR_SET(SA_PR_NUMB_PATH, p->numb_path & 0x7fu);
	PR_SET(SA_PR_PKEY, p->pkey);
	PR_SET(SA_PR_QOS_CLASS, p->qos_class & 0xfffu);
	PR_SET(SA_PR_SL, p->sl & 0xfu);
	PR_SET(SA_PR_MTU_SEL, p->mtu_sel & 3u);
	PR_SET(SA_PR_MTU, p->mtu & 0x3fu);
	PR_SET(SA_PR_RATE_SEL, p->rate_sel & 3u);
	PR_SET(SA_PR_RATE, p->rate & 0x3fu);
	PR_SET(SA_PR_PKT_LIFE_SEL, p->pkt_life_sel & 3u);
	PR_SET(SA_PR_PKT_LIFE, p->pkt_life & 0x3fu);
	PR_SET(SA_PR_PREFERENCE, p->preference);
	return SA_WIRE_PR_SIZE;
}

int sa_wire_path_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_path_rec *ret)
{
	struct sa_wire_path_rec p;

	if (!rec || len < SA_WIRE_PR_SIZE)
		return -EBADMSG;
	memset(&p, 0, sizeof(p));
	p.service_id = PR_GET(SA_PR_SERVICE_ID_MSB) << 32 | PR_GET(SA_PR_SERVICE_ID_LSB);
	gid_get(rec, IB_SA_PR_DGID_F, &p.dgid);
	gid_get(rec, IB_SA_PR_SGID_F, &p.sgid);
	p.dlid = (uint16_t)PR_GET(SA_PR_DLID);
	p.slid = (uint16_t)PR_GET(SA_PR_SLID);
	p.raw_traffic = PR_GET(SA_PR_RAW_TRAFFIC);
	p.flow_label = (uint32_t)PR_GET(SA_PR_FLOW_LABEL);
	p.hop_limit = (uint8_t)PR_GET(SA_PR_HOP_LIMIT);
	p.tclass = (uint8_t)PR_GET(SA_PR_TCLASS);
	p.reversible = PR_GET(SA_PR_REVERSIBLE);
	p.numb_path = (uint8_t)PR_GET(SA_PR_NUMB_PATH);
	p.pkey = (uint16_t)PR_GET(SA_PR_PKEY);
	p.qos_class = (uint16_t)PR_GET(SA_PR_QOS_CLASS);
	p.sl = (uint8_t)PR_GET(SA_PR_SL);
	p.mtu_sel = (uint8_t)PR_GET(SA_PR_MTU_SEL);
	p.mtu = (uint8_t)PR_GET(SA_PR_MTU);
	p.rate_sel = (uint8_t)PR_GET(SA_PR_RATE_SEL);
	p.rate = (uint8_t)PR_GET(SA_PR_RATE);
	p.pkt_life_sel = (uint8_t)PR_GET(SA_PR_PKT_LIFE_SEL);
	p.pkt_life = (uint8_t)PR_GET(SA_PR_PKT_LIFE);
	p.preference = (uint8_t)PR_GET(SA_PR_PREFERENCE);
	*ret = p;
	return 0;
}

#define MPR_SET(c, v) sa_wire_comp_set(&sa_wire_multipath_record, c, rec, v)
#define MPR_GET(c) sa_wire_comp_get(&sa_wire_multipath_record, c, rec)

int sa_wire_mpath_rec_encode(const struct sa_wire_mpath_rec *m, uint8_t *rec, size_t len)
{
	if (len < sa_wire_multipath_record.size)
		return -ENOSPC;
	memset(rec, 0, sa_wire_multipath_record.size);
	MPR_SET(SA_MPR_RAW_TRAFFIC, m->raw_traffic);
	MPR_SET(SA_MPR_FLOW_LABEL, m->flow_label & 0xfffffu);
	MPR_SET(SA_MPR_HOP_LIMIT, m->hop_limit);
	MPR_SET(SA_MPR_TCLASS, m->tclass);
	MPR_SET(SA_MPR_REVERSIBLE, m->reversible);
	MPR_SET(SA_MPR_NUMB_PATH, m->numb_path & 0x7fu);
	MPR_SET(SA_MPR_PKEY, m->pkey);
	MPR_SET(SA_MPR_QOS_CLASS, m->qos_class & 0xfffu);
	MPR_SET(SA_MPR_SL, m->sl & 0xfu);
	MPR_SET(SA_MPR_MTU_SEL, m->mtu_sel & 3u);
	MPR_SET(SA_MPR_MTU, m->mtu & 0x3fu);
	MPR_SET(SA_MPR_RATE_SEL, m->rate_sel & 3u);
	MPR_SET(SA_MPR_RATE, m->rate & 0x3fu);
	MPR_SET(SA_MPR_PKT_LIFE_SEL, m->pkt_life_sel & 3u);
	MPR_SET(SA_MPR_PKT_LIFE, m->pkt_life & 0x3fu);
	MPR_SET(SA_MPR_SERVICE_ID_MSB, m->service_id >> 56);
	MPR_SET(SA_MPR_INDEPENDENCE, m->independence & 3u);
	MPR_SET(SA_MPR_SGID_COUNT, m->sgid_count);
	MPR_SET(SA_MPR_DGID_COUNT, m->dgid_count);
	MPR_SET(SA_MPR_SERVICE_ID_LSB, m->service_id & 0x00ffffffffffffffULL);
	for (unsigned i = 0; i < SA_WIRE_MPR_MAX_GIDS; i++)
		gid_set(rec + 16 * i, IB_SA_MP_GID0_F, &m->gids[i]);
	return sa_wire_multipath_record.size;
}

int sa_wire_mpath_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_mpath_rec *ret)
{
	struct sa_wire_mpath_rec m;
	size_t slots;

	if (!rec || len < SA_WIRE_MPR_HDR_SIZE)
		return -EBADMSG;
	memset(&m, 0, sizeof(m));
	m.raw_traffic = MPR_GET(SA_MPR_RAW_TRAFFIC);
	m.flow_label = (uint32_t)MPR_GET(SA_MPR_FLOW_LABEL);
	m.hop_limit = (uint8_t)MPR_GET(SA_MPR_HOP_LIMIT);
	m.tclass = (uint8_t)MPR_GET(SA_MPR_TCLASS);
	m.reversible = MPR_GET(SA_MPR_REVERSIBLE);
	m.numb_path = (uint8_t)MPR_GET(SA_MPR_NUMB_PATH);
	m.pkey = (uint16_t)MPR_GET(SA_MPR_PKEY);
	m.qos_class = (uint16_t)MPR_GET(SA_MPR_QOS_CLASS);
	m.sl = (uint8_t)MPR_GET(SA_MPR_SL);
	m.mtu_sel = (uint8_t)MPR_GET(SA_MPR_MTU_SEL);
	m.mtu = (uint8_t)MPR_GET(SA_MPR_MTU);
	m.rate_sel = (uint8_t)MPR_GET(SA_MPR_RATE_SEL);
	m.rate = (uint8_t)MPR_GET(SA_MPR_RATE);
	m.pkt_life_sel = (uint8_t)MPR_GET(SA_MPR_PKT_LIFE_SEL);
	m.pkt_life = (uint8_t)MPR_GET(SA_MPR_PKT_LIFE);
	m.service_id = MPR_GET(SA_MPR_SERVICE_ID_MSB) << 56 | MPR_GET(SA_MPR_SERVICE_ID_LSB);
	m.independence = (uint8_t)MPR_GET(SA_MPR_INDEPENDENCE);
	m.sgid_count = (uint8_t)MPR_GET(SA_MPR_SGID_COUNT);
	m.dgid_count = (uint8_t)MPR_GET(SA_MPR_DGID_COUNT);
	slots = (len - SA_WIRE_MPR_HDR_SIZE) / 16;
	if (slots > SA_WIRE_MPR_MAX_GIDS)
		slots = SA_WIRE_MPR_MAX_GIDS;
	/* the GIDs by hand: libibmad's GID0 field would read past a short image */
	for (size_t i = 0; i < slots; i++)
		gid_take(rec + SA_WIRE_MPR_HDR_SIZE + 16 * i, &m.gids[i]);
	*ret = m;
	return 0;
}

#define MCM_SET(c, v) sa_wire_comp_set(&sa_wire_mcmember_record, c, rec, v)
#define MCM_GET(c) sa_wire_comp_get(&sa_wire_mcmember_record, c, rec)

int sa_wire_mcm_rec_encode(const struct sa_wire_mcm_rec *m, uint8_t *rec, size_t len)
{
	if (len < SA_MCM_SIZE)
		return -ENOSPC;
	memset(rec, 0, SA_MCM_SIZE);
	memcpy(rec, m->mgid, 16);
	memcpy(rec + 16, m->port_gid, 16);
	MCM_SET(SA_MCM_QKEY, m->qkey);
	MCM_SET(SA_MCM_MLID, m->mlid);
	MCM_SET(SA_MCM_MTU_SEL, m->mtu_sel & 3u);
	MCM_SET(SA_MCM_MTU, m->mtu & 0x3fu);
	MCM_SET(SA_MCM_TCLASS, m->tclass);
	MCM_SET(SA_MCM_PKEY, m->pkey);
	MCM_SET(SA_MCM_RATE_SEL, m->rate_sel & 3u);
	MCM_SET(SA_MCM_RATE, m->rate & 0x3fu);
	MCM_SET(SA_MCM_PKT_LIFE_SEL, m->pkt_life_sel & 3u);
	MCM_SET(SA_MCM_PKT_LIFE, m->pkt_life & 0x3fu);
	MCM_SET(SA_MCM_SL, m->sl & 0xfu);
	MCM_SET(SA_MCM_FLOW_LABEL, m->flow_label & 0xfffffu);
	MCM_SET(SA_MCM_HOP_LIMIT, m->hop_limit);
	MCM_SET(SA_MCM_SCOPE, m->scope & 0xfu);
	MCM_SET(SA_MCM_JOIN_STATE, m->join_state & 0xfu);
	MCM_SET(SA_MCM_PROXY_JOIN, m->proxy_join);
	return SA_MCM_SIZE;
}

int sa_wire_mcm_rec_decode(const uint8_t *rec, size_t len, struct sa_wire_mcm_rec *ret)
{
	struct sa_wire_mcm_rec m;

	if (!rec || len < SA_MCM_SIZE)
		return -EBADMSG;
	memset(&m, 0, sizeof(m));
	memcpy(m.mgid, rec, 16);
	memcpy(m.port_gid, rec + 16, 16);
	m.qkey = (uint32_t)MCM_GET(SA_MCM_QKEY);
	m.mlid = (uint16_t)MCM_GET(SA_MCM_MLID);
	m.mtu_sel = (uint8_t)MCM_GET(SA_MCM_MTU_SEL);
	m.mtu = (uint8_t)MCM_GET(SA_MCM_MTU);
	m.tclass = (uint8_t)MCM_GET(SA_MCM_TCLASS);
	m.pkey = (uint16_t)MCM_GET(SA_MCM_PKEY);
	m.rate_sel = (uint8_t)MCM_GET(SA_MCM_RATE_SEL);
	m.rate = (uint8_t)MCM_GET(SA_MCM_RATE);
	m.pkt_life_sel = (uint8_t)MCM_GET(SA_MCM_PKT_LIFE_SEL);
	m.pkt_life = (uint8_t)MCM_GET(SA_MCM_PKT_LIFE);
	m.sl = (uint8_t)MCM_GET(SA_MCM_SL);
	m.flow_label = (uint32_t)MCM_GET(SA_MCM_FLOW_LABEL);
	m.hop_limit = (uint8_t)MCM_GET(SA_MCM_HOP_LIMIT);
	m.scope = (uint8_t)MCM_GET(SA_MCM_SCOPE);
	m.join_state = (uint8_t)MCM_GET(SA_MCM_JOIN_STATE);
	m.proxy_join = MCM_GET(SA_MCM_PROXY_JOIN);
	*ret = m;
	return 0;
}

/* ---- Notice --------------------------------------------------------------- */

/*
 * The Notice's fixed part (13.4.8.2, Table 119 as the IBA numbers it):
 * IsGeneric, Type, ProducerType/VendorID, TrapNumber/DeviceID, IssuerLID,
 * NoticeToggle and NoticeCount; then 54 bytes of DataDetails at byte 10 and
 * the IssuerGID at byte 64 (copied as bytes).  libibmad's NoticeCount field
 * is written 16 bits wide, over the toggle: the 15 bits after it are ours.
 */
#define N(m, n, f) FIELD_MAP_IBMAD(struct sa_wire_notice, m, n, f)
static const struct field_map sa_notice_fields[] = {
    N(is_generic, "IsGeneric", IB_NOTICE_IS_GENERIC_F),
    N(type, "Type", IB_NOTICE_TYPE_F),
    N(producer, "ProducerType", IB_NOTICE_PRODUCER_F),
    N(trap_num, "TrapNumber", IB_NOTICE_TRAP_NUMBER_F),
    N(issuer_lid, "IssuerLID", IB_NOTICE_ISSUER_LID_F),
    N(toggle, "NoticeToggle", IB_NOTICE_TOGGLE_F),
    FIELD_MAP_BITS(struct sa_wire_notice, count, "NoticeCount", 65, 15),
};
#undef N
#define SA_NOTICE_DATA_OFFS 10
#define SA_NOTICE_GID_OFFS 64

int sa_wire_notice_encode(const struct sa_wire_notice *n, uint8_t *buf, size_t len)
{
	if (len < SA_WIRE_NOTICE_SIZE)
		return -ENOSPC;
	memset(buf, 0, SA_WIRE_NOTICE_SIZE);
	field_map_encode(sa_notice_fields, FIELD_N(sa_notice_fields), n, buf);
	memcpy(buf + SA_NOTICE_DATA_OFFS, n->data, sizeof(n->data));
	memcpy(buf + SA_NOTICE_GID_OFFS, n->issuer_gid, sizeof(n->issuer_gid));
	return SA_WIRE_NOTICE_SIZE;
}

int sa_wire_notice_decode(const uint8_t *buf, size_t len, struct sa_wire_notice *ret)
{
	struct sa_wire_notice n = {0};

	if (!buf || len < SA_WIRE_NOTICE_SIZE)
		return -EBADMSG;
	field_map_decode(sa_notice_fields, FIELD_N(sa_notice_fields), buf, &n);
	memcpy(n.data, buf + SA_NOTICE_DATA_OFFS, sizeof(n.data));
	memcpy(n.issuer_gid, buf + SA_NOTICE_GID_OFFS, sizeof(n.issuer_gid));
	*ret = n;
	return 0;
}

/* ---- ClassPortInfo ------------------------------------------------------ */

/* The SA's ClassPortInfo (13.4.8.1): the fields it fills, 72 bytes. */
#define C(m, n, f) FIELD_MAP_IBMAD(struct sa_wire_cpi, m, n, f)
static const struct field_map sa_cpi_fields[] = {
    C(base_version, "BaseVersion", IB_CPI_BASEVER_F),
    C(class_version, "ClassVersion", IB_CPI_CLASSVER_F),
    C(cap_mask, "CapabilityMask", IB_CPI_CAPMASK_F),
    C(cap_mask2, "CapabilityMask2", IB_CPI_CAPMASK2_F),
    C(resp_time_value, "RespTimeValue", IB_CPI_RESP_TIME_VALUE_F),
    C(redirect_qp, "RedirectQP", IB_CPI_REDIRECT_QP_F),
    C(redirect_qkey, "RedirectQ_Key", IB_CPI_REDIRECT_QKEY_F),
    C(trap_qkey, "TrapQ_Key", IB_CPI_TRAP_QKEY_F),
};
#undef C
#define SA_CPI_SIZE 72

int sa_wire_cpi_encode(const struct sa_wire_cpi *c, uint8_t *data, size_t len)
{
	if (len < SA_CPI_SIZE)
		return -ENOSPC;
	memset(data, 0, SA_CPI_SIZE);
	field_map_encode(sa_cpi_fields, FIELD_N(sa_cpi_fields), c, data);
	return SA_CPI_SIZE;
}

int sa_wire_cpi_decode(const uint8_t *data, size_t len, struct sa_wire_cpi *ret)
{
	if (!data || len < SA_CPI_SIZE)
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	field_map_decode(sa_cpi_fields, FIELD_N(sa_cpi_fields), data, ret);
	return 0;
}

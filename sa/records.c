/*
 * The SA's read-only records, built from the published snapshot (IBA 1.4
 * vol 1, 15.2.5): ClassPortInfo (13.4.8.1), NodeRecord, PortInfoRecord,
 * LinkRecord, SMInfoRecord, SwitchInfoRecord.
 *
 * Each handler enumerates what the snapshot holds as record images and
 * offers them to the query, which keeps those its ComponentMask matches.
 * Where the mask names a LID the snapshot's LID index picks the one port at
 * once, so the common "record of this LID" query costs O(1).
 */
#include <string.h>
#include <infiniband/mad.h>

#include "mad/wire.h"
#include "sa/sa_int.h"

/* The LID a query names, or 0 when component i is not in its mask. */
static uint16_t query_lid(const struct sa_query *q, unsigned i)
{
	return (q->mask >> i) & 1 ? (uint16_t)sa_wire_comp_get(q->rec, i, q->qrec) : 0;
}

/* ---- ClassPortInfo ----------------------------------------------------------- */

static uint16_t cpi_get(struct sa_query *q, struct sa_result *res)
{
	/*
	 * CapabilityMask (15.2.1.1): bit 9 IsUDMulticastSupported
	 * (MCMemberRecord joins and leaves, sa/mcmember.c), bit 10
	 * IsMultiPathSupported (MultiPathRecord GetMulti, sa/pathrec.c; no
	 * TraceRecord, as OpenSM), bit 13 IsPortInfoCapMaskMatchSupported
	 * (PortInfoRecord's capability masks match as sets).  CapabilityMask2
	 * bit 12 IsSendOnlyFullMemberSupported (JoinState bit 3, sa/mcast.h).
	 * Response time 2^18 x 4.096 us, about 1 s.
	 */
	struct sa_wire_cpi c = {.base_version = 1,
				.class_version = SA_WIRE_CLASS_VERSION,
				.cap_mask = 1u << 9 | 1u << 10 | 1u << 13,
				.cap_mask2 = 1u << 12,
				.resp_time_value = 18,
				.redirect_qp = 1,
				.redirect_qkey = 0x80010000u,
				.trap_qkey = 0x80010000u};
	uint8_t data[72];

	sa_wire_cpi_encode(&c, data, sizeof(data));
	res->stride = 72;
	return sa_result_add(res, data, sizeof(data)) == 0 ? SA_STATUS_OK : SA_STATUS_NO_RESOURCES;
}

/* ---- NodeRecord ---------------------------------------------------------------- */

/* The NodeRecord of (node, port): one per CA port, one for a switch (port 0). */
static void node_record(const struct node *n, uint8_t pn, uint8_t *rec)
{
	const struct port *p = &n->ports[pn];
	uint8_t desc[64] = {0};

	memset(rec, 0, sa_wire_node_record.size);
	mad_set_field(rec, 0, IB_SA_NR_LID_F, p->lid);
	mad_set_field(rec, 0, IB_SA_NR_BASEVER_F, 1);
	mad_set_field(rec, 0, IB_SA_NR_CLASSVER_F, 1);
	mad_set_field(rec, 0, IB_SA_NR_TYPE_F, n->type);
	mad_set_field(rec, 0, IB_SA_NR_NPORTS_F, n->nports);
	mad_set_field64(rec, 0, IB_SA_NR_SYSTEM_GUID_F, n->sys_guid);
	mad_set_field64(rec, 0, IB_SA_NR_GUID_F, n->guid);
	mad_set_field64(rec, 0, IB_SA_NR_PORT_GUID_F, p->guid);
	mad_set_field(rec, 0, IB_SA_NR_PARTITION_CAP_F, n->partition_cap);
	mad_set_field(rec, 0, IB_SA_NR_DEVID_F, n->device_id);
	mad_set_field(rec, 0, IB_SA_NR_REVISION_F, n->revision);
	mad_set_field(rec, 0, IB_SA_NR_LOCAL_PORT_F, pn);
	mad_set_field(rec, 0, IB_SA_NR_VENDORID_F, n->vendor_id);
	memcpy(desc, n->desc, strnlen(n->desc, sizeof(desc)));
	mad_set_array(rec, 0, IB_SA_NR_NODEDESC_F, desc);
}

/* Offer the record of every LID-carrying port of node ni to q. */
static void node_offer(struct sa_query *q, struct sa_result *res, uint32_t ni)
{
	const struct node *n = &q->snap->fabric->nodes[ni];
	uint8_t rec[SA_WIRE_REC_MAX];

	for (unsigned p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
		if (!n->ports[p].lid || sa_result_full(res))
			continue;
		node_record(n, (uint8_t)p, rec);
		sa_query_offer(q, res, rec);
	}
}

static uint16_t node_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint16_t lid = query_lid(q, 0);
	uint32_t ni;
	uint8_t pn;

	if (lid) {
		if (snapshot_find_lid(q->snap, lid, &ni, &pn) && f->nodes[ni].ports[pn].lid == lid)
			node_offer(q, res, ni);
		return SA_STATUS_OK;
	}
	for (ni = 0; ni < f->n_nodes && !sa_result_full(res); ni++)
		node_offer(q, res, ni);
	return SA_STATUS_OK;
}

/* ---- PortInfoRecord ------------------------------------------------------------ */

/* The PortInfoRecord of (node, port): EndportLID, PortNum, Options 0, PortInfo. */
static void portinfo_record(const struct node *n, uint8_t pn, uint8_t *rec)
{
	memset(rec, 0, sa_wire_portinfo_record.size);
	sa_wire_bits_set(rec, 0, 16, node_port_lid(n, pn));
	sa_wire_bits_set(rec, 16, 8, pn);
	memcpy(rec + 4, n->ports[pn].pi, 64);
}

static void portinfo_offer(struct sa_query *q, struct sa_result *res, uint32_t ni)
{
	const struct node *n = &q->snap->fabric->nodes[ni];
	uint8_t rec[SA_WIRE_REC_MAX];

	for (unsigned p = node_is_switch(n) ? 0 : 1; p <= n->nports && !sa_result_full(res); p++) {
		if (!n->ports[p].valid || !node_port_lid(n, (uint8_t)p))
			continue;
		portinfo_record(n, (uint8_t)p, rec);
		sa_query_offer(q, res, rec);
	}
}

static uint16_t portinfo_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint16_t lid = query_lid(q, 0);
	uint32_t ni;
	uint8_t pn;

	if (lid) {
		if (snapshot_find_lid(q->snap, lid, &ni, &pn))
			portinfo_offer(q, res, ni);
		return SA_STATUS_OK;
	}
	for (ni = 0; ni < f->n_nodes && !sa_result_full(res); ni++)
		portinfo_offer(q, res, ni);
	return SA_STATUS_OK;
}

/* ---- LinkRecord -------------------------------------------------------------------- */

/* Every link, from both of its ends. */
static void link_offer(struct sa_query *q, struct sa_result *res, uint32_t ni)
{
	const struct fabric *f = q->snap->fabric;
	const struct node *n = &f->nodes[ni];
	uint8_t rec[SA_WIRE_REC_MAX];

	for (unsigned p = 1; p <= n->nports && !sa_result_full(res); p++) {
		const struct port *pt = &n->ports[p];
		const struct node *r;

		if (!port_is_linked(pt) || pt->remote_node >= f->n_nodes)
			continue;
		r = &f->nodes[pt->remote_node];
		memset(rec, 0, sa_wire_link_record.size);
		sa_wire_bits_set(rec, 0, 16, node_port_lid(n, (uint8_t)p));
		sa_wire_bits_set(rec, 16, 8, p);
		sa_wire_bits_set(rec, 24, 8, pt->remote_port);
		sa_wire_bits_set(rec, 32, 16, node_port_lid(r, pt->remote_port));
		sa_query_offer(q, res, rec);
	}
}

static uint16_t link_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint16_t lid = query_lid(q, 0);
	uint32_t ni;
	uint8_t pn;

	if (lid) {
		if (snapshot_find_lid(q->snap, lid, &ni, &pn))
			link_offer(q, res, ni);
		return SA_STATUS_OK;
	}
	for (ni = 0; ni < f->n_nodes && !sa_result_full(res); ni++)
		link_offer(q, res, ni);
	return SA_STATUS_OK;
}

/* ---- SMInfoRecord ------------------------------------------------------------------- */

static uint16_t sminfo_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	struct sa_sm_info si;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	uint16_t lid = 0;

	sa_sm_info(q->sa, &si);
	if (f->sm_node < f->n_nodes)
		lid = node_port_lid(&f->nodes[f->sm_node], f->sm_port);
	sa_wire_bits_set(rec, 0, 16, lid);
	mad_set_field64(rec, 4, IB_SMINFO_GUID_F, si.port_guid);
	/* 15.2.5.15: the SM_Key only to a requester that knows it */
	mad_set_field64(rec, 4, IB_SMINFO_KEY_F, q->mad->sm_key == si.sm_key ? si.sm_key : 0);
	mad_set_field(rec, 4, IB_SMINFO_ACT_F, si.act_count);
	mad_set_field(rec, 4, IB_SMINFO_PRIO_F, si.priority);
	mad_set_field(rec, 4, IB_SMINFO_STATE_F, si.state);
	sa_query_offer(q, res, rec);
	return SA_STATUS_OK;
}

/* ---- SwitchInfoRecord ---------------------------------------------------------------- */

static void switchinfo_offer(struct sa_query *q, struct sa_result *res, uint32_t ni)
{
	const struct node *n = &q->snap->fabric->nodes[ni];
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	struct wire_switchinfo si;
	uint8_t img[64];

	if (!node_is_switch(n) || !n->ports[0].lid)
		return;
	memcpy(img, n->si, sizeof(img));
	if (wire_switchinfo_decode(img, sizeof(img), &si) == 0) {
		si.lft_top = n->lft_top == 0xffff ? si.lft_top : n->lft_top;
		wire_switchinfo_encode(&si, img, sizeof(img));
	}
	sa_wire_bits_set(rec, 0, 16, n->ports[0].lid);
	memcpy(rec + 4, img, sa_wire_switchinfo_record.size - 4);
	sa_query_offer(q, res, rec);
}

static uint16_t switchinfo_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint16_t lid = query_lid(q, 0);
	uint32_t ni;
	uint8_t pn;

	if (lid) {
		if (snapshot_find_lid(q->snap, lid, &ni, &pn))
			switchinfo_offer(q, res, ni);
		return SA_STATUS_OK;
	}
	for (ni = 0; ni < f->n_nodes && !sa_result_full(res); ni++)
		switchinfo_offer(q, res, ni);
	return SA_STATUS_OK;
}

const struct sa_attr sa_records_attrs[] = {
    {SA_ATTR_CLASS_PORT_INFO, NULL, cpi_get, NULL, NULL, true},
    {SA_ATTR_NODE_RECORD, &sa_wire_node_record, node_get, NULL, NULL, false},
    {SA_ATTR_PORTINFO_RECORD, &sa_wire_portinfo_record, portinfo_get, NULL, NULL, false},
    {SA_ATTR_LINK_RECORD, &sa_wire_link_record, link_get, NULL, NULL, false},
    {SA_ATTR_SMINFO_RECORD, &sa_wire_sminfo_record, sminfo_get, NULL, NULL, false},
    {SA_ATTR_SWITCHINFO_RECORD, &sa_wire_switchinfo_record, switchinfo_get, NULL, NULL, false},
};

const unsigned sa_records_n_attrs = sizeof(sa_records_attrs) / sizeof(sa_records_attrs[0]);

/*
 * The SA's records of the tables the SM programs (IBA 1.4 vol 1, 15.2.5):
 * LinearForwardingTableRecord, MulticastForwardingTableRecord,
 * SLtoVLMappingTableRecord, VLArbitrationTableRecord, P_KeyTableRecord,
 * GUIDInfoRecord.
 *
 * They say what the SM programmed, from the published snapshot: the LFTs of
 * its routes; the MFTs the switches were last given (kept by sm/mfts.c, by
 * switch GUID, handed to the SA with sa_set_mfts); SL-to-VL maps and VL arbitration as
 * policy/qos.h's qos_want_* compute them for smp/program.c: the QoS policy merged with the
 * engine's layers, or without QoS where the routing uses more than one VL (elsewhere the SM
 * leaves the ports' tables alone and has no record of them to give); P_Key 0xFFFF at index 0 (the
 * default partition, the only one the SM sets today) and the port GUID at GUID index 0 (GUIDCap 1
 * is all the SM assigns) for every port with a LID.
 */
#include <string.h>
#include <infiniband/mad.h>

#include "fabric/mft.h"
#include "fabric/vlt.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "mad/wire.h"
#include "fabric/pkeyview.h"
#include "sa/sa_int.h"

#define LFT_BLOCK_PORTS 64

static uint16_t query_comp(const struct sa_query *q, unsigned i)
{
	return (q->mask >> i) & 1 ? (uint16_t)sa_wire_comp_get(q->rec, i, q->qrec) : 0;
}

/* Nodes to look at: the one owning the query's LID (component 0), or all. */
static void node_range(const struct sa_query *q, uint32_t *first, uint32_t *end)
{
	uint16_t lid = query_comp(q, 0);
	uint8_t pn;

	*first = 0;
	*end = q->snap->fabric->n_nodes;
	if (!lid)
		return;
	if (snapshot_find_lid(q->snap, lid, first, &pn))
		*end = *first + 1;
	else
		*end = 0;
}

/* ---- LinearForwardingTableRecord -------------------------------------------------- */

static uint16_t lft_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	const struct routes *r = q->snap->routes;
	uint32_t first, end;

	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];
		unsigned top;

		if (!node_is_switch(n) || ni >= r->n_nodes || !r->lft[ni] || !n->ports[0].lid)
			continue;
		top = r->max_lid;
		if (n->lft_cap && top >= n->lft_cap)
			top = n->lft_cap - 1u;
		for (unsigned b = 0; b <= top / LFT_BLOCK_PORTS && !sa_result_full(res); b++) {
			uint8_t rec[SA_WIRE_REC_MAX] = {0};

			if ((q->mask & 2) && query_comp(q, 1) != b)
				continue;
			sa_wire_bits_set(rec, 0, 16, n->ports[0].lid);
			sa_wire_bits_set(rec, 16, 16, b);
			for (unsigned i = 0; i < LFT_BLOCK_PORTS; i++) {
				unsigned lid = b * LFT_BLOCK_PORTS + i;
				rec[8 + i] = lid <= top ? r->lft[ni][lid] : LFT_NO_PORT;
			}
			sa_query_offer(q, res, rec);
		}
	}
	return SA_STATUS_OK;
}

/* ---- MulticastForwardingTableRecord ------------------------------------------------ */

static uint16_t mft_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	const struct mft_set *known = sa_mfts(q->sa);
	uint32_t first, end;

	if (!known)
		return SA_STATUS_OK;
	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];
		const struct mft *t;

		if (!node_is_switch(n) || !n->ports[0].lid || !(t = mft_set_get(known, n->guid)))
			continue;
		for (uint16_t b = 0; b < t->n_blocks && !sa_result_full(res); b++) {
			for (uint8_t pos = 0; pos < t->n_pos; pos++) {
				uint8_t rec[SA_WIRE_REC_MAX] = {0};
				uint16_t masks[MFT_BLOCK];
				bool used = false;

				mft_block(t, b, pos, masks);
				for (unsigned i = 0; i < MFT_BLOCK; i++)
					used |= masks[i] != 0;
				if (!used) /* only the blocks that hold a group */
					continue;
				sa_wire_bits_set(rec, 0, 16, n->ports[0].lid);
				sa_wire_bits_set(rec, 16, 4, pos);
				sa_wire_bits_set(rec, 23, 9, b);
				for (unsigned i = 0; i < MFT_BLOCK; i++)
					sa_wire_bits_set(rec, 64 + 16 * i, 16, masks[i]);
				sa_query_offer(q, res, rec);
			}
		}
	}
	return SA_STATUS_OK;
}

/* ---- SLtoVLMappingTableRecord --------------------------------------------------------- */

/*
 * Whether the requester may see the tables of (node, port): it shares a
 * partition with the port (a switch's: port 0's table), OpenSM's rule for
 * SL2VL and VLArb records.  A requester the snapshot does not know: yes.
 */
static bool tables_visible(const struct sa_query *q, uint32_t ni, uint8_t port)
{
	const struct fabric *f = q->snap->fabric;
	const uint16_t *ta, *tb;
	size_t ka, kb;
	uint16_t k;

	if (q->req_node == FABRIC_NO_NODE || q->req_node >= f->n_nodes)
		return true;
	sa_port_pkeys(q, q->req_node, q->req_port, &ta, &ka);
	sa_port_pkeys(q, ni, port, &tb, &kb);
	return partition_common(ta, ka, tb, kb, 0, &k);
}

/* Offer one SL2VL record: the map as 16 VLs (vl) or as its wire row (row). */
static void sl2vl_offer(struct sa_query *q, struct sa_result *res, uint8_t in, uint8_t out,
			uint16_t lid, const uint8_t *vl, const uint8_t *row)
{
	uint8_t rec[SA_WIRE_REC_MAX] = {0};

	sa_wire_bits_set(rec, 0, 16, lid);
	sa_wire_bits_set(rec, 16, 8, in);
	sa_wire_bits_set(rec, 24, 8, out);
	if (vl)
		wire_sl2vl_encode(vl, rec + 8, 8);
	else
		memcpy(rec + 8, row, VLT_SL2VL_SIZE);
	sa_query_offer(q, res, rec);
}

/*
 * A CA port's records answer whatever port numbers the query names (OpenSM:
 * "the SA should figure it out", osmtest asks port 0): the LID picks the
 * port.  q with those components out of its mask.
 */
static struct sa_query tables_ca_query(const struct sa_query *q, uint64_t port_comps)
{
	struct sa_query cq = *q;

	cq.mask &= ~port_comps;
	return cq;
}

/*
 * What the ports hold: the map smp/program.c sets (policy/qos.h's
 * qos_want_sl2vl of the published snapshot) where it sets one, else what
 * was read off the port (sm/vltables.h).  A CA port's record is (0, 0) at
 * its own LID (OpenSM); a switch's every (input, output) pair read, and the
 * pairs it programs (every input but the output, to an output port).
 */
static uint16_t sl2vl_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	const struct routes *r = q->snap->routes;
	const struct qos_policy *qos = sa_qos(q->sa);
	uint16_t eng = qos_engine_sls(r);
	struct sa_query cq = tables_ca_query(q, 1u << 1 | 1u << 2);
	uint32_t first, end;

	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];
		const struct vlt_node *v = vlt_set_get(q->sa->vlt, n->guid);
		uint8_t vl[16], row[VLT_SL2VL_SIZE];

		if (!node_is_switch(n)) {
			for (unsigned p = 1; p <= n->nports; p++) {
				if (!n->ports[p].lid || !tables_visible(q, ni, (uint8_t)p))
					continue;
				if (qos_want_sl2vl(qos, f, r, eng, ni, (uint8_t)p, vl, NULL))
					sl2vl_offer(&cq, res, 0, 0, n->ports[p].lid, vl, NULL);
				else if (v && vlt_sl2vl(q->sa->vlt, v, 0, p, row))
					sl2vl_offer(&cq, res, 0, 0, n->ports[p].lid, NULL, row);
			}
			continue;
		}
		if (!n->ports[0].lid || !tables_visible(q, ni, 0))
			continue;
		for (unsigned out = 0; out <= n->nports && !sa_result_full(res); out++) {
			bool prog =
			    out && qos_want_sl2vl(qos, f, r, eng, ni, (uint8_t)out, vl, NULL);

			for (unsigned in = 0; in <= n->nports && !sa_result_full(res); in++) {
				if (prog && in != out && (!in || port_is_linked(&n->ports[in])))
					sl2vl_offer(q, res, (uint8_t)in, (uint8_t)out,
						    n->ports[0].lid, vl, NULL);
				else if (v && vlt_sl2vl(q->sa->vlt, v, in, out, row))
					sl2vl_offer(q, res, (uint8_t)in, (uint8_t)out,
						    n->ports[0].lid, NULL, row);
			}
		}
	}
	return SA_STATUS_OK;
}

/* ---- VLArbitrationTableRecord ------------------------------------------------------------ */

/*
 * What smp/program.c sets (policy/qos.h's qos_want_vlarb, blocks 1..4, where
 * it sets SL2VL), else what was read off the port; all four blocks of every
 * port read (a switch's port 0 too), a block it has no entries in
 * (outside VLArbLowCap and VLArbHighCap; base port 0 has none) as zeros,
 * as OpenSM answers them.  OutputPortNum is the port's number, a CA's too.
 */
static uint16_t vlarb_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	const struct routes *r = q->snap->routes;
	const struct qos_policy *qos = sa_qos(q->sa);
	uint16_t eng = qos_engine_sls(r);
	struct sa_query cq = tables_ca_query(q, 1u << 1);
	uint32_t first, end;

	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];
		const struct vlt_node *v = vlt_set_get(q->sa->vlt, n->guid);
		bool sw = node_is_switch(n);

		for (unsigned out = sw ? 0 : 1; out <= n->nports && !sa_result_full(res); out++) {
			uint16_t lid = node_port_lid(n, (uint8_t)out);
			uint8_t s2v[16];
			bool prog, read;

			if (!lid || !tables_visible(q, ni, sw ? 0 : (uint8_t)out))
				continue;
			/* the SM writes VLArb where it writes SL2VL */
			prog = out && qos_want_sl2vl(qos, f, r, eng, ni, (uint8_t)out, s2v, NULL);
			read = v && vlt_port_read(v, out);
			for (unsigned block = 1; block <= 4; block++) {
				uint8_t rec[SA_WIRE_REC_MAX] = {0}, vl[32], w[32];

				if (prog &&
				    qos_want_vlarb(qos, f, r, ni, (uint8_t)out, block, vl, w))
					wire_vlarb_encode(vl, w, rec + 8, 64);
				else if (read)
					vlt_vlarb(q->sa->vlt, v, out, block,
						  rec + 8); /* else zeros */
				else
					continue;
				sa_wire_bits_set(rec, 0, 16, lid);
				sa_wire_bits_set(rec, 16, 8, out);
				sa_wire_bits_set(rec, 24, 8, block);
				sa_query_offer(sw ? q : &cq, res, rec);
			}
		}
	}
	return SA_STATUS_OK;
}

/* ---- P_KeyTableRecord, GUIDInfoRecord ------------------------------------------------------ */

/*
 * One port's P_KeyTableRecords (15.2.5.11): the blocks as read or
 * programmed; an end port whose table no SM wrote (the unit tests'
 * topologies) holds the default partition.  PortNum is the port's own
 * number (a CA's too: OpenSM's rule, so `saquery PKTR LID/1` finds it),
 * the LID the port answers to (a switch: port 0's).
 */
static void pkey_offer(struct sa_query *q, struct sa_result *res, const struct node *n, unsigned p)
{
	static const uint16_t dflt[32] = {0xffff};
	const struct port *pt = &n->ports[p];
	uint16_t lid = node_port_lid(n, (uint8_t)p);
	bool end = p == 0 || !node_is_switch(n);
	/* an end port's table as the runtime partitions last wrote it, else as programmed */
	const struct pkeyview_entry *e = end ? pkeyview_get(q->sa->pkv, pt->guid) : NULL;
	const uint16_t *keys = e ? e->keys : pt->pkeys;
	uint8_t known = e ? e->known : pt->pkey_known;

	/* a switch external port: only when its table was read (it faces a CA) */
	if (!lid || (!end && !known))
		return;
	for (unsigned b = 0; b < FABRIC_PKEY_BLOCKS && !sa_result_full(res); b++) {
		uint8_t rec[SA_WIRE_REC_MAX] = {0};

		if (known ? !(known & (1u << b)) : b > 0)
			continue;
		sa_wire_bits_set(rec, 0, 16, lid);
		sa_wire_bits_set(rec, 16, 16, b);
		sa_wire_bits_set(rec, 32, 8, p);
		wire_pkey_encode(known ? &keys[b * 32] : dflt, rec + 8, 64);
		sa_query_offer(q, res, rec);
	}
}

static uint16_t pkey_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint32_t first, end;

	/* partition membership is for trusted requesters only (OpenSM: ERR 4608) */
	if (!sa_query_trusted(q))
		return SA_STATUS_REQ_INVALID;

	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];

		for (unsigned p = node_first_lid_port(n); p <= n->nports; p++)
			pkey_offer(q, res, n, p);
	}
	return SA_STATUS_OK;
}

/*
 * GUIDInfoRecord (15.2.5.18): every block of 8 the port has (PortInfo:GUIDCap
 * as read, at least one); the SM assigns index 0, the port GUID, alone, so
 * the other entries are 0.
 */
static uint16_t guidinfo_get(struct sa_query *q, struct sa_result *res)
{
	const struct fabric *f = q->snap->fabric;
	uint32_t first, end;

	node_range(q, &first, &end);
	for (uint32_t ni = first; ni < end && !sa_result_full(res); ni++) {
		const struct node *n = &f->nodes[ni];

		for (unsigned p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
			const struct port *pt = &n->ports[p];
			unsigned cap =
			    pt->valid ? mad_get_field((void *)pt->pi, 0, IB_PORT_GUID_CAP_F) : 0;

			if (!pt->lid)
				continue;
			for (unsigned b = 0; b < (cap + 7) / 8 || b == 0; b++) {
				uint8_t rec[SA_WIRE_REC_MAX] = {0};

				mad_set_field(rec, 0, IB_SA_GIR_LID_F, pt->lid);
				mad_set_field(rec, 0, IB_SA_GIR_BLOCKNUM_F, b);
				if (b == 0)
					mad_set_field64(rec, 0, IB_SA_GIR_GUID0_F, pt->guid);
				sa_query_offer(q, res, rec);
			}
		}
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_tables_attrs[] = {
    {SA_ATTR_LFT_RECORD, &sa_wire_lft_record, lft_get, NULL, NULL, false},
    {SA_ATTR_MFT_RECORD, &sa_wire_mft_record, mft_get, NULL, NULL, false},
    {SA_ATTR_SL2VL_RECORD, &sa_wire_sl2vl_record, sl2vl_get, NULL, NULL, false},
    {SA_ATTR_VLARB_RECORD, &sa_wire_vlarb_record, vlarb_get, NULL, NULL, false},
    {SA_ATTR_PKEY_RECORD, &sa_wire_pkey_record, pkey_get, NULL, NULL, false},
    {SA_ATTR_GUIDINFO_RECORD, &sa_wire_guidinfo_record, guidinfo_get, NULL, NULL, false},
};

const unsigned sa_tables_n_attrs = sizeof(sa_tables_attrs) / sizeof(sa_tables_attrs[0]);

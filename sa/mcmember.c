/*
 * MCMemberRecord (IBA 1.4 vol 1, 15.2.5.17; 15.4.2 and o15-0.1.x, o15-0.2.x
 * for creating, joining and leaving groups): hosts join and leave multicast
 * groups through the SA, over the group database of sa/mcast.c and its
 * rules in sa/mcast_join.c (what a create needs, what a join must agree
 * with, JoinState bits, MLIDs).  This file checks who asks and for which
 * port, turns the record into a mcast_join_req, answers with the group's
 * record, and lists groups and members.  OpenSM's osm_sa_mcmember_record.c
 * was read for what clients (IPoIB, rdma_cm, osmtest) expect; the code is
 * ours.
 *
 *   Set      joins (or creates) the group.  MGID, PortGID and JoinState
 *            must be in the mask (ERR_REQ_INSUFFICIENT_COMPONENTS); a
 *            create needs Q_Key, P_Key, SL, FlowLabel and TClass too, and an
 *            all-zero MGID has the SA assign one (mcast_join.c).  The answer
 *            is the group's record: its MGID (the assigned one), MLID, Q_Key,
 *            P_Key, MTU, Rate and PacketLifeTime (selectors "exactly"), SL,
 *            FlowLabel, TClass, HopLimit and Scope, the PortGID as asked, the
 *            member's JoinState (the OR of its joins) and ProxyJoin.
 *   Delete   leaves: clears the JoinState bits asked for (all of them
 *            held).  The answer is the group's record as it was, with the
 *            JoinState the member keeps (0: no longer a member), as OpenSM.
 *   Get      lists groups and members (below); Get answers exactly one.
 *
 * Who may: the requester's LID must be a port of the published fabric
 * (ERR_REQ_INVALID); the PortGID's prefix the subnet's (or the default
 * fe80::), its GUID not 0 and, for a join, a port of the fabric
 * (ERR_REQ_INVALID_GID; OpenSM answers ERR_REQ_INVALID for an unknown
 * port).  The PortGID must be the requester's own port (ERR_REQ_DENIED
 * otherwise), unless the request is trusted (its SM_Key is the SA's key,
 * 15.4.1): then it joins or leaves on behalf of that port and the
 * membership is a proxy one (ProxyJoin 1 in the answers); a proxy may
 * change only memberships made by proxy (o15-0.2.1, ERR_REQ_INVALID).
 * OpenSM lets any port of the same partition join for any other (its
 * ProxyJoin is whoever asked); without this rule any host could put another
 * host's port into a group it does not want, or take it out of one.  The
 * ProxyJoin bit of a request is not looked at: who asks decides.  A join
 * whose P_Key is not the default partition's is refused (ERR_REQ_INVALID):
 * the SM puts every port into the default partition only.  MTU and Rate
 * with their selector must be valid codes (ERR_REQ_INVALID).  The port's
 * MTU (MTUCap, lowered by a set NeighborMTU) and rate (LinkWidthActive x
 * the lane speed it runs, extended speeds included: fabric/speed.h) come
 * from the published snapshot; a group
 * beyond them is refused.  Other refusals are sa/mcast.c's, with the status
 * mcast_why_sa_status() gives: ERR_REQ_INVALID for a group that does not
 * exist (a leave, or a join that cannot create), a conflicting component,
 * a JoinState bit not held or past SendOnlyNonMember (SendOnlyFullMember is
 * not served and not advertised), ERR_NO_RESOURCES when no MLID is left.
 *
 * Queries (Get, GetTable).  Each (group, member) pair, and each group
 * without members on its own, is a record: the group's components, the
 * member's PortGID, JoinState and ProxyJoin (zeros for a group alone).  The
 * mask picks records: components equal, except MTU, Rate and
 * PacketLifeTime, which with their selector in the mask compare as the
 * selector says (greater, less, exactly, largest: any); PortGID by its GUID.
 * A trusted requester gets every record that matches.  Any other gets one
 * record per group with a matching record, PortGID, JoinState and ProxyJoin
 * zero (15.2.5.17: they "shall be zero, except in the case of a trusted
 * request"; OpenSM does the same).  Where we differ from OpenSM: a trusted
 * listing without PortGID shows a group without members as its group
 * record (OpenSM lists only members, so an empty IPoIB broadcast group is
 * invisible to it).
 *
 * Reports: trap 66 for a group a join created, 67 for every group the
 * database deletes (the last full member left, or its port left the
 * fabric), through its `deleted` hook (sa/inform.c sends them).  The MFTs
 * follow by themselves: sm/mfts.c hooks the same database.
 *
 * Cost: Set and Delete are O(1) (hashes by MGID and port GUID); a query
 * naming MGID or MLID looks at one group; other queries at every group, and
 * at every member where the mask names JoinState or ProxyJoin without a
 * PortGID, or the requester is trusted (its answer is as long).
 */
#include <errno.h>
#include <string.h>

#include "fabric/speed.h"
#include "sa/inform.h"
#include "sa/mcast.h"
#include "sa/path.h"
#include "sa/sa_int.h"

_Static_assert(MCAST_C_MGID == 1ULL << SA_MCM_MGID && MCAST_C_QKEY == 1ULL << SA_MCM_QKEY &&
		   MCAST_C_MTU == 1ULL << SA_MCM_MTU && MCAST_C_RATE == 1ULL << SA_MCM_RATE &&
		   MCAST_C_SL == 1ULL << SA_MCM_SL && MCAST_C_SCOPE == 1ULL << SA_MCM_SCOPE &&
		   MCAST_C_PROXY == 1ULL << SA_MCM_PROXY_JOIN,
	       "sa/mcast.h's component bits are the wire's");

#define MCM_JOIN_COMPS (MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE)
#define MCM_MEMBER_COMPS (MCAST_C_PORT_GID | MCAST_C_JOIN_STATE | MCAST_C_PROXY)
#define MCM_SEL_COMPS                                                                              \
	(MCAST_C_MTU_SEL | MCAST_C_MTU | MCAST_C_RATE_SEL | MCAST_C_RATE | MCAST_C_LIFE_SEL |      \
	 MCAST_C_LIFE)
#define MCM_DEFAULT_PREFIX 0xfe80000000000000ULL
#define MCM_MTU_MAX 5 /* 4096 */

/* ---- records ------------------------------------------------------------------- */

/* The record of group g for a member (port_gid, join_state, proxy; NULL, 0: none). */
static void mcmember_image(const struct mcast_group *g, const uint8_t *port_gid, uint8_t join_state,
			   bool proxy, uint8_t *out)
{
	struct sa_wire_mcm_rec r = {
	    .qkey = g->p.qkey,
	    .mlid = g->mlid,
	    .mtu_sel = MCAST_SEL_EQ,
	    .mtu = g->p.mtu,
	    .tclass = g->p.tclass,
	    .pkey = g->p.pkey,
	    .rate_sel = MCAST_SEL_EQ,
	    .rate = g->p.rate,
	    .pkt_life_sel = MCAST_SEL_EQ,
	    .pkt_life = g->p.pkt_life,
	    .sl = g->p.sl,
	    .flow_label = g->p.flow_label,
	    .hop_limit = g->p.hop_limit,
	    .scope = g->p.scope,
	    .join_state = join_state,
	    .proxy_join = proxy,
	};

	memcpy(r.mgid, g->mgid, 16);
	if (port_gid)
		memcpy(r.port_gid, port_gid, 16);
	sa_wire_mcm_rec_encode(&r, out, SA_MCM_SIZE);
}

static uint64_t mcmember_gid_prefix(const uint8_t *gid)
{
	return sa_wire_bits_get(gid, 0, 64);
}

static bool mcmember_prefix_ok(const struct sa_query *q, const uint8_t *gid)
{
	uint64_t p = mcmember_gid_prefix(gid);

	return p == sa_subnet_prefix(q->snap) || p == MCM_DEFAULT_PREFIX;
}

/* ---- joins and leaves --------------------------------------------------------------- */

/* The MTU a port sends and takes (MTUCap, lowered by a set NeighborMTU); 0 = unknown. */
static uint8_t mcmember_port_mtu(const struct port *p)
{
	uint8_t mtu = p->mtu_cap >= 1 && p->mtu_cap <= MCM_MTU_MAX ? p->mtu_cap : 0;

	if (p->neighbor_mtu >= 1 && p->neighbor_mtu <= MCM_MTU_MAX &&
	    (!mtu || p->neighbor_mtu < mtu))
		mtu = p->neighbor_mtu;
	return mtu;
}

/*
 * The checks Set and Delete share (see the top of the file): SA_STATUS_OK
 * with *ret_proxy (the requester is not the port), or the status and
 * res->why.  A join also needs the port in the fabric: *ret_node, *ret_port.
 */
static uint16_t mcmember_check(const struct sa_query *q, const struct sa_wire_mcm_rec *r, bool join,
			       struct sa_result *res, bool *ret_proxy, uint32_t *ret_node,
			       uint8_t *ret_port)
{
	const struct fabric *f = q->snap->fabric;
	uint64_t m = q->mask, guid = mcast_gid_guid(r->port_gid);
	uint32_t ni = FABRIC_NO_NODE;
	uint8_t pn = 0;
	bool own;

	if ((m & MCM_JOIN_COMPS) != MCM_JOIN_COMPS) {
		res->why = "MGID, PortGID and JoinState are needed";
		return SA_STATUS_INSUFFICIENT_COMPS;
	}
	if ((m & MCAST_C_MTU_SEL) && (m & MCAST_C_MTU) && (r->mtu < 1 || r->mtu > MCM_MTU_MAX)) {
		res->why = "not an MTU";
		return SA_STATUS_REQ_INVALID;
	}
	if ((m & MCAST_C_RATE_SEL) && (m & MCAST_C_RATE) && !path_rate_valid(r->rate)) {
		res->why = "not a rate";
		return SA_STATUS_REQ_INVALID;
	}
	if (q->req_node == FABRIC_NO_NODE) {
		res->why = "the requester's LID is no port of the fabric";
		return SA_STATUS_REQ_INVALID;
	}
	if (!mcmember_prefix_ok(q, r->port_gid) || !guid) {
		res->why = "PortGID of another subnet, or GUID 0";
		return SA_STATUS_INVALID_GID;
	}
	if (join && !snapshot_find_port_guid(q->snap, guid, &ni, &pn)) {
		res->why = "no port of the fabric has that PortGID";
		return SA_STATUS_INVALID_GID;
	}
	own = f->nodes[q->req_node].ports[q->req_port].guid == guid;
	if (!own && !sa_query_trusted(q)) {
		res->why = "a port may join and leave only for itself (or a trusted requester)";
		return SA_STATUS_DENIED;
	}
	*ret_proxy = !own;
	if (ret_node) {
		*ret_node = ni;
		*ret_port = pn;
	}
	return SA_STATUS_OK;
}

/* The join request of r (mask q->mask) for the port (node ni, port pn). */
static void mcmember_join_req(const struct sa_query *q, const struct sa_wire_mcm_rec *r,
			      uint32_t ni, uint8_t pn, bool proxy, struct mcast_join_req *req)
{
	const struct node *n = &q->snap->fabric->nodes[ni];
	uint64_t prefix = sa_subnet_prefix(q->snap);

	memset(req, 0, sizeof(*req));
	req->comp = q->mask;
	memcpy(req->mgid, r->mgid, 16);
	/* kept with the subnet's own prefix (a default fe80:: prefix means this subnet) */
	sa_wire_bits_set(req->port_gid, 0, 64, prefix);
	memcpy(req->port_gid + 8, r->port_gid + 8, 8);
	req->join_state = r->join_state;
	req->proxy = proxy;
	req->mlid = r->mlid;
	req->p = (struct mcast_params){
	    .qkey = r->qkey,
	    .pkey = r->pkey,
	    .mtu = r->mtu,
	    .rate = r->rate,
	    .pkt_life = r->pkt_life,
	    .sl = r->sl,
	    .tclass = r->tclass,
	    .flow_label = r->flow_label,
	    .hop_limit = r->hop_limit,
	    .scope = r->scope,
	};
	req->mtu_sel = r->mtu_sel;
	req->rate_sel = r->rate_sel;
	if (!node_is_switch(n)) {
		req->port_mtu = mcmember_port_mtu(&n->ports[pn]);
		req->port_rate = speed_port_rate(&n->ports[pn]);
	}
	req->subnet_prefix = prefix;
}

/*
 * The partition of a join: the group's P_Key (the request's for a group
 * the join creates) must be in the joining port's P_Key table, full or
 * limited (OpenSM's osm_physp_has_pkey, ERR_REQ_INVALID).  A P_Key whose
 * low 15 bits are 0 is no P_Key (ERR_REQ_INVALID, OpenSM's
 * ib_pkey_is_invalid).  A group without P_Key in the mask is mcast.c's to
 * refuse (a create needs it).
 */
static uint16_t mcmember_partition(const struct sa_query *q, const struct mcast_db *db,
				   const struct sa_wire_mcm_rec *r, uint32_t ni, uint8_t pn,
				   struct sa_result *res)
{
	const struct mcast_group *g = mcast_find(db, r->mgid);
	uint16_t pkey;

	if ((q->mask & MCAST_C_PKEY) && !(r->pkey & 0x7fff)) {
		res->why = "P_Key 0 is no partition";
		return SA_STATUS_REQ_INVALID;
	}
	if (g)
		pkey = g->p.pkey;
	else if (q->mask & MCAST_C_PKEY)
		pkey = r->pkey;
	else
		return SA_STATUS_OK;
	if (!sa_port_has_pkey(q, ni, pn, pkey)) {
		res->why = g ? "the port is not a member of the group's partition"
			     : "the port is not a member of the partition of the P_Key asked for";
		return SA_STATUS_REQ_INVALID;
	}
	return SA_STATUS_OK;
}

static uint16_t mcmember_set(struct sa_query *q, struct sa_result *res)
{
	struct sa_mcmember *mm = sa_mcmember(q->sa);
	struct sa_wire_mcm_rec r;
	struct mcast_join_req req;
	struct mcast_result out;
	const struct mcast_member *m;
	uint8_t img[SA_MCM_SIZE];
	uint32_t ni;
	uint8_t pn;
	bool proxy;
	uint16_t st;

	sa_wire_mcm_rec_decode(q->qrec, SA_MCM_SIZE, &r);
	if (!mm->db) {
		res->why = "no multicast database";
		st = SA_STATUS_NO_RESOURCES;
		goto refused;
	}
	st = mcmember_check(q, &r, true, res, &proxy, &ni, &pn);
	if (st != SA_STATUS_OK)
		goto refused;
	st = mcmember_partition(q, mm->db, &r, ni, pn, res);
	if (st != SA_STATUS_OK) {
		mm->pkey_refused++;
		goto refused;
	}
	mcmember_join_req(q, &r, ni, pn, proxy, &req);
	if (mcast_join(mm->db, &req, &out) < 0) {
		res->why = mcast_why_str(out.why);
		st = mcast_why_sa_status(out.why);
		goto refused;
	}
	if (out.created)
		sa_inform_report_mcast(q->sa, out.g->mgid, out.g->mlid, true);
	m = mcast_group_member(out.g, mcast_gid_guid(req.port_gid));
	mcmember_image(out.g, r.port_gid, out.join_state, m && m->proxy, img);
	mm->joins++;
	return sa_result_add(res, img, SA_MCM_SIZE) == 0 ? SA_STATUS_OK : SA_STATUS_NO_RESOURCES;
refused:
	mm->refused++;
	return st;
}

static uint16_t mcmember_delete(struct sa_query *q, struct sa_result *res)
{
	struct sa_mcmember *mm = sa_mcmember(q->sa);
	const struct mcast_group *g;
	const struct mcast_member *m;
	struct sa_wire_mcm_rec r;
	struct mcast_result out;
	uint8_t img[SA_MCM_SIZE] = {0};
	bool proxy, was_proxy;
	uint16_t st;

	sa_wire_mcm_rec_decode(q->qrec, SA_MCM_SIZE, &r);
	if (!mm->db) {
		res->why = "no multicast database";
		st = SA_STATUS_NO_RESOURCES;
		goto refused;
	}
	st = mcmember_check(q, &r, false, res, &proxy, NULL, NULL);
	if (st != SA_STATUS_OK)
		goto refused;
	/* the record as it was: the group may go with the leave */
	g = mcast_find(mm->db, r.mgid);
	m = mcast_group_member(g, mcast_gid_guid(r.port_gid));
	was_proxy = m && m->proxy;
	if (g)
		mcmember_image(g, r.port_gid, 0, was_proxy, img);
	if (mcast_leave(mm->db, r.mgid, r.port_gid, r.join_state, proxy, &out) < 0) {
		res->why = mcast_why_str(out.why);
		st = mcast_why_sa_status(out.why);
		goto refused;
	}
	sa_wire_comp_set(&sa_wire_mcmember_record, SA_MCM_JOIN_STATE, img, out.join_state);
	mm->leaves++;
	return sa_result_add(res, img, SA_MCM_SIZE) == 0 ? SA_STATUS_OK : SA_STATUS_NO_RESOURCES;
refused:
	mm->refused++;
	return st;
}

/* ---- queries ---------------------------------------------------------------------- */

/* have against asked under a selector (cmp: <0, 0, >0 as have is below, at, above). */
static bool mcmember_sel_admits(uint64_t mask, uint64_t sel_bit, uint64_t val_bit, uint8_t sel,
				int cmp)
{
	if (!(mask & val_bit))
		return true;
	if (!(mask & sel_bit))
		return cmp == 0;
	switch (sel) {
	case MCAST_SEL_GT:
		return cmp > 0;
	case MCAST_SEL_LT:
		return cmp < 0;
	case MCAST_SEL_EQ:
		return cmp == 0;
	default:
		return true;
	}
}

/* Whether g's own components (img: its record without a member) match the query. */
static bool mcmember_group_matches(const struct sa_query *q, const struct sa_wire_mcm_rec *r,
				   const struct mcast_group *g, const uint8_t *img)
{
	uint64_t m = q->mask;

	if (!sa_wire_match(q->rec, q->qrec, img, m & ~(MCM_MEMBER_COMPS | MCM_SEL_COMPS)))
		return false;
	return mcmember_sel_admits(m, MCAST_C_MTU_SEL, MCAST_C_MTU, r->mtu_sel,
				   (int)g->p.mtu - (int)r->mtu) &&
	       mcmember_sel_admits(m, MCAST_C_RATE_SEL, MCAST_C_RATE, r->rate_sel,
				   path_rate_cmp(g->p.rate, r->rate)) &&
	       mcmember_sel_admits(m, MCAST_C_LIFE_SEL, MCAST_C_LIFE, r->pkt_life_sel,
				   (int)g->p.pkt_life - (int)r->pkt_life);
}

/* Whether a member (NULL: a group without one) matches the query's member components. */
static bool mcmember_member_matches(const struct sa_query *q, const struct sa_wire_mcm_rec *r,
				    const struct mcast_member *mb)
{
	uint64_t m = q->mask;

	if ((m & MCAST_C_PORT_GID) &&
	    (!mb || mcast_gid_guid(mb->port_gid) != mcast_gid_guid(r->port_gid)))
		return false;
	if ((m & MCAST_C_JOIN_STATE) && (mb ? mb->join_state : 0) != r->join_state)
		return false;
	if ((m & MCAST_C_PROXY) && (mb ? mb->proxy : false) != r->proxy_join)
		return false;
	return true;
}

/* Add img; false when the answer is full.  *st: NO_RESOURCES when out of memory. */
static bool mcmember_add(struct sa_result *res, const uint8_t *img, uint16_t *st)
{
	int e = sa_result_add(res, img, SA_MCM_SIZE);

	if (e == -ENOMEM)
		*st = SA_STATUS_NO_RESOURCES;
	return e == 0 && !sa_result_full(res);
}

/* Offer g's records to the query; false when no more should be offered. */
static bool mcmember_offer_group(const struct sa_query *q, const struct sa_wire_mcm_rec *r,
				 bool trusted, const struct mcast_group *g, struct sa_result *res,
				 uint16_t *st)
{
	const struct mcast_member *mb;
	uint8_t img[SA_MCM_SIZE];
	bool any;

	mcmember_image(g, NULL, 0, false, img);
	if (!mcmember_group_matches(q, r, g, img))
		return true;
	/* a group of a partition the requester is not in is not there for it */
	if (!trusted && (q->req_node == FABRIC_NO_NODE ||
			 !sa_port_has_pkey(q, q->req_node, q->req_port, g->p.pkey)))
		return true;
	if (q->mask & MCAST_C_PORT_GID) {
		if (!mcmember_prefix_ok(q, r->port_gid))
			return true;
		mb = mcast_group_member(g, mcast_gid_guid(r->port_gid));
		if (!mb || !mcmember_member_matches(q, r, mb))
			return true;
		if (trusted)
			mcmember_image(g, mb->port_gid, mb->join_state, mb->proxy, img);
		return mcmember_add(res, img, st);
	}
	/* an empty group (a well-known one): the group for others, no member for the trusted */
	if (!g->n_members)
		return !trusted && mcmember_member_matches(q, r, NULL) ? mcmember_add(res, img, st)
								       : true;
	if (!trusted) {
		any = !(q->mask & (MCAST_C_JOIN_STATE | MCAST_C_PROXY));
		for (uint32_t i = 0; !any && i < g->n_members; i++)
			any = mcmember_member_matches(q, r, &g->members[i]);
		return any ? mcmember_add(res, img, st) : true;
	}
	for (uint32_t i = 0; i < g->n_members; i++) {
		mb = &g->members[i];
		if (!mcmember_member_matches(q, r, mb))
			continue;
		mcmember_image(g, mb->port_gid, mb->join_state, mb->proxy, img);
		if (!mcmember_add(res, img, st))
			return false;
	}
	return true;
}

static uint16_t mcmember_get(struct sa_query *q, struct sa_result *res)
{
	const struct mcast_db *db = sa_mcmember(q->sa)->db;
	bool trusted = sa_query_trusted(q);
	struct sa_wire_mcm_rec r;
	uint16_t st = SA_STATUS_OK;

	if (!db)
		return SA_STATUS_OK;
	sa_wire_mcm_rec_decode(q->qrec, SA_MCM_SIZE, &r);
	if (q->mask & (MCAST_C_MGID | MCAST_C_MLID)) {
		const struct mcast_group *g =
		    (q->mask & MCAST_C_MGID) ? mcast_find(db, r.mgid) : mcast_find_mlid(db, r.mlid);

		if (g)
			mcmember_offer_group(q, &r, trusted, g, res, &st);
		return st;
	}
	for (size_t i = 0; i < mcast_group_count(db); i++)
		if (!mcmember_offer_group(q, &r, trusted, mcast_group_at(db, i), res, &st))
			break;
	return st;
}

/* ---- Reports ------------------------------------------------------------------------ */

static void mcmember_on_deleted(void *ctx, const void *data)
{
	const struct mcast_group *g = data;

	sa_inform_report_mcast(ctx, g->mgid, g->mlid, false);
}

int sa_mcmember_hook(struct sa *sa, struct sa_mcmember *mm, bool on)
{
	struct mcast_hooks *h;

	if (!mm->db)
		return 0;
	h = mcast_db_hooks(mm->db);
	if (on)
		return hook_add(&h->deleted, mcmember_on_deleted, sa);
	hook_remove(&h->deleted, mcmember_on_deleted, sa);
	return 0;
}

const struct sa_attr sa_mcmember_attrs[] = {
    {SA_ATTR_MCMEMBER_RECORD, &sa_wire_mcmember_record, mcmember_get, mcmember_set, mcmember_delete,
     false},
};

const unsigned sa_mcmember_n_attrs = sizeof(sa_mcmember_attrs) / sizeof(sa_mcmember_attrs[0]);

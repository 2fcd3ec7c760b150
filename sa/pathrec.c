/*
 * PathRecord and MultiPathRecord (IBA 1.4 vol 1, 15.2.5.16, 15.2.5.20; the
 * SA's path queries, 15.4): the SA's handlers over sa/path.c, which
 * computes what the LFTs of the published snapshot make of a path.
 *
 * PathRecord Get and GetTable.  The query names its ends by SGID and/or
 * SLID and by DGID and/or DLID:
 *  - a GID is a subnet prefix and a port GUID: the prefix must be the
 *    subnet's or link-local (fe80::/10), the GUID a port the snapshot knows,
 *    else ERR_REQ_INVALID_GID (OpenSM 3.3 computes that status, then answers
 *    an empty result instead); a LID no port owns gives no records (a Get
 *    ERR_NO_RECORDS, a GetTable an empty table); a GID and a LID naming two
 *    ports is ERR_REQ_INVALID (as OpenSM);
 *  - a LID fixes that LID, a GID alone takes every LID of the port's LMC
 *    range;
 *  - no source: every port for GetTable (the mask leaves it a wildcard, as
 *    OpenSM); a Get takes the requester's port, from the SLID its query
 *    came from (every port would match, and a Get of several records is
 *    ERR_TOO_MANY_RECORDS; OpenSM answers the first path of the world);
 *  - no destination: every port, for GetTable only; a Get that names no
 *    destination is ERR_REQ_INSUFFICIENT_COMPONENTS (OpenSM answers the first
 *    path of the world);
 *  - GetTable with neither end: every port to every port, in LID order;
 *  - a multicast DGID gets no records: the SA keeps multicast groups
 *    (sa/mcast.c) but does not answer PathRecords to them (OpenSM answers
 *    a group's MLID).
 * The constraints path.c applies: SL, Reversible (when the mask names it and
 * its bit is 1: a 0 is "don't care", IBA 1.2 p. 900, as OpenSM), the MTU,
 * rate and packet-lifetime selectors (a selector and its value both in the
 * mask, else both ignored, as OpenSM; a value that is no valid MTU or rate
 * code is ERR_REQ_INVALID), NumbPath (per port pair, 0: no path, as OpenSM; honoured by Get too,
 * so a Get with NumbPath 1, as the kernel's ib_sa and IPoIB send, gets the
 * preferred path of an LMC pair; a Get without it that matches several LMC
 * paths is ERR_TOO_MANY_RECORDS, C15-0.1.30; OpenSM answers a Get with the
 * first path whatever NumbPath says, per an IBA 1.2 erratum).  The
 * ServiceID must be named whole or not at all (ERR_REQ_INSUFFICIENT_
 * COMPONENTS, as OpenSM); it, the P_Key and the ends' GUIDs pick the SL by
 * the QoS policy's qos-ulps rules (pathrec_path_sl).  FlowLabel, TClass,
 * HopLimit, QoSClass and Preference are ignored (OpenSM's full QoS policy
 * reads TClass and QoSClass; ibsmd has only the qos-ulps rules).  P_Key (pathrec_path_pkey): a pair
 * gets a record only when both ports' programmed P_Key tables share a
 * partition with a full member on one side, and the requester shares one
 * with each end (OpenSM); the key is the one asked for (as it was asked),
 * else the first the source's table shares; a P_Key of 0 (low 15 bits) in the mask
 * matches no partition and so no path (OpenSM).  RawTraffic set: P_Key 0 in the answer (OpenSM).
 *
 * Each record: DGID and SGID (the subnet prefix and the ports' GUIDs), DLID,
 * SLID, HopLimit 0 (OpenSM sets 255 only for a DGID behind a router), TClass
 * and FlowLabel 0, Reversible, NumbPath 0 (OpenSM: "always return num_path
 * = 0 so this is only the reversible component"), P_Key, QoSClass 0, SL (the
 * routing engine's path SL: dor's datelines, dfsp's layers; else the QoS
 * policy's, the partition's sl=, see pathrec_path_sl), MTU, Rate
 * and PacketLifeTime each with selector 2 (exactly), Preference (0 for the
 * LMC pairs of the first round, 2 for the rest), ServiceID 0.
 *
 * GetTable pages through path.c's enumerator, at most PATHREC_BUDGET units
 * of work a query (one unit per path computed or port pair passed over), so
 * a world query on the largest subnet costs the event loop about 10 ms, not
 * minutes (8,192 records in 9.4 ms on a 6,468-node fat tree, test_pathrec);
 * the records found go out whole, a table larger than one MAD as an RMPP
 * transfer (sa/sa.c, mad/rmpp.c).
 *
 * MultiPathRecord GetMulti (answered with GetMultiResp and PathRecords,
 * o15-0.2.7): every SGID to every DGID of the query (SGIDCount and
 * DGIDCount both required, ERR_REQ_INSUFFICIENT_COMPONENTS; at most 11 GIDs,
 * one MAD's worth; a GID as for PathRecord, a multicast one
 * ERR_REQ_INVALID_GID; no SGID or no DGID left, ERR_REQ_INVALID), up to
 * NumbPath paths in all (127 without it, OpenSM's limit), the LMC pairs of
 * each port pair in path.c's order, the same constraints and records.
 * OpenSM's rules honoured besides: its APM case, 2 SGIDs x 2 DGIDs with
 * NumbPath 2, answers one diagonal, (S0, D0) + (S1, D1) or (S0, D1) +
 * (S1, D0) (ports sorted by GUID), the one whose shortest path has fewer
 * hops, each row at its own LID offset from a hash of the base LIDs, so
 * with LMC the two paths start on different LIDs (different spines on a fat
 * tree).  Not honoured: IndependenceSelector (OpenSM ignores it too), the
 * Tavor MTU limit (hardware long gone), QoS levels.  OpenSM refuses a
 * GetMulti whose RMPP header is not active; ibsmd also takes a plain MAD
 * (ibsim's clients have no RMPP), refuses a request of several segments
 * (ERR_REQ_INVALID: the SA's RMPP sends answers but takes no request of
 * several segments, sa/sa.c), and does not ACK the one segment it takes.
 * ClassPortInfo does not claim IsMultiPathSupported (bit 10): OpenSM sets
 * it only with two-sided RMPP.
 */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "sa/path.h"
#include "sa/sa_int.h"

#define PATHREC_PAGE 64		  /* paths per path_enum_next call */
#define PATHREC_PAGE_BUDGET 1024  /* work units per call */
#define PATHREC_BUDGET 8192	  /* work units per query: ~10 ms at ~1 us a path */
#define PATHREC_MPR_MAX_PATHS 127 /* OpenSM's OSM_SA_MPR_MAX_NUM_PATH */
/* No records: the server answers a Get ERR_NO_RECORDS, a GetTable an empty table. */
#define PATHREC_NONE SA_STATUS_OK

static bool pathrec_has(const struct sa_query *q, unsigned comp)
{
	return (q->mask >> comp) & 1;
}

/* A unicast GID prefix of this subnet: the configured one or link-local (fe80::/10). */
static bool pathrec_prefix_local(const struct snapshot *s, uint64_t prefix)
{
	return prefix == s->fabric->subnet_prefix ||
	       (prefix & 0xffc0000000000000ULL) == 0xfe80000000000000ULL;
}

static bool pathrec_gid_multicast(const struct sa_wire_gid *g)
{
	return g->prefix >> 56 == 0xff;
}

/* The port of a unicast GID: SA_STATUS_OK, or ERR_REQ_INVALID_GID. */
static uint16_t pathrec_gid_port(const struct snapshot *s, const struct sa_wire_gid *g,
				 struct path_port *ret)
{
	if (pathrec_gid_multicast(g) || !pathrec_prefix_local(s, g->prefix) ||
	    !snapshot_find_port_guid(s, g->guid, &ret->node, &ret->port))
		return SA_STATUS_INVALID_GID;
	ret->lid = 0;
	return SA_STATUS_OK;
}

/*
 * One end of a PathRecord query from its GID and LID components (either
 * may be absent: *ret_have false when both are).  SA_STATUS_OK,
 * SA_STATUS_NO_RECORDS for a LID no port owns, or the status to answer.
 */
static uint16_t pathrec_end(const struct sa_query *q, bool has_gid, const struct sa_wire_gid *gid,
			    bool has_lid, uint16_t lid, struct path_port *ret, bool *ret_have)
{
	struct path_port g = {FABRIC_NO_NODE, 0, 0}, l = {FABRIC_NO_NODE, 0, 0};
	uint16_t st;

	*ret_have = has_gid || has_lid;
	if (has_gid) {
		st = pathrec_gid_port(q->snap, gid, &g);
		if (st != SA_STATUS_OK)
			return st;
	}
	if (has_lid) {
		if (!lid || !snapshot_find_lid(q->snap, lid, &l.node, &l.port))
			return SA_STATUS_NO_RECORDS;
		l.lid = lid;
		if (has_gid && (g.node != l.node || g.port != l.port))
			return SA_STATUS_REQ_INVALID;
		*ret = l;
		return SA_STATUS_OK;
	}
	*ret = g;
	return SA_STATUS_OK;
}

static void pathrec_limit(struct path_limit *l, bool set, uint8_t sel, uint8_t value)
{
	l->set = set;
	l->sel = sel;
	l->value = value;
}

/*
 * What the query says of P_Keys: one asked for (has), raw traffic; and what
 * the QoS policy matches on: its ServiceID, the SL it asked for.
 */
struct pathrec_pk {
	bool has;
	uint16_t want;
	bool raw;
	bool has_sid;
	uint64_t sid;
	bool sl_set;
	uint8_t sl;
};

static struct pathrec_pk pathrec_pk_of(bool has, uint16_t pkey, bool raw)
{
	return (struct pathrec_pk){has && (pkey & 0x7fff), pkey, raw, false, 0, false, 0};
}

/*
 * The SL of path p answered with P_Key pkey (policy/qos.h), in this order:
 * the routing engine's path SL where it has them (dor's datelines, dfsp's
 * layers: what keeps it deadlock free); else, with QoS on, the first
 * qos-ulps rule that matches (ServiceID, P_Key, either end's port GUID);
 * else the partition's sl= (partitions.conf); else the qos-ulps default;
 * else the engine's 0.  A query naming another SL than the policy's gets
 * no record (false), as with the engine's SLs.
 */
static bool pathrec_path_sl(const struct sa_query *q, const struct pathrec_pk *pk,
			    const struct path_info *p, uint16_t pkey, uint8_t *ret_sl)
{
	const struct qos_policy *qos = sa_qos(q->sa);
	const struct fabric *f = q->snap->fabric;
	const struct partition *part;
	struct qos_path_query qq = {
	    .has_sid = pk->has_sid,
	    .sid = pk->sid,
	    .pkey = pkey ? pkey : pk->want,
	    .src_guid = f->nodes[p->src_node].ports[p->src_port].guid,
	    .dst_guid = f->nodes[p->dst_node].ports[p->dst_port].guid,
	};
	uint8_t sl;

	if (routes_has_path_sl(q->snap->routes)) {
		*ret_sl = p->sl;
		return true;
	}
	if (qos && qos->enabled && qos_rule_sl(qos, &qq, &sl, NULL))
		;
	else if (qq.pkey && (part = partition_find(sa_parts(q->sa), qq.pkey)) && part->sl)
		sl = part->sl;
	else if (qos && qos->enabled && qos->has_default)
		sl = qos->default_sl;
	else {
		*ret_sl = p->sl; /* 0, or the SL the query asked for */
		return true;
	}
	if (pk->sl_set && pk->sl != sl)
		return false;
	*ret_sl = sl;
	return true;
}

/*
 * A runtime partition's mtu_limit and rate_limit (tenants/tenants.h): a path in
 * it runs at most those; false when the query's own MTU or rate selectors
 * then leave it out.
 */
static bool pathrec_path_caps(const struct sa_query *q, const struct path_query *pq, uint16_t pkey,
			      struct path_info *p)
{
	const struct partition *part = pkey ? partition_find(sa_parts(q->sa), pkey) : NULL;
	bool capped = false;

	if (!part || (!part->path_mtu && !part->path_rate))
		return true;
	if (part->path_mtu && p->mtu > part->path_mtu) {
		p->mtu = part->path_mtu;
		capped = true;
	}
	if (part->path_rate && path_rate_cmp(p->rate, part->path_rate) > 0) {
		p->rate = part->path_rate;
		capped = true;
	}
	return !capped || path_query_takes(pq, p);
}

/* Whether two ports share a partition (any, or pk's) with a full member; its key. */
static bool pathrec_share(const struct sa_query *q, uint32_t na, uint8_t pa, uint32_t nb,
			  uint8_t pb, uint16_t want, uint16_t *ret)
{
	const uint16_t *ta, *tb;
	size_t ka, kb;

	sa_port_pkeys(q, na, pa, &ta, &ka);
	sa_port_pkeys(q, nb, pb, &tb, &kb);
	return partition_common(ta, ka, tb, kb, want, ret);
}

static bool pathrec_same(const struct sa_query *q, uint32_t node, uint8_t port)
{
	const struct node *n = &q->snap->fabric->nodes[node];

	return q->req_node == node && (node_is_switch(n) || q->req_port == port);
}

/*
 * The P_Key of path p's record, as OpenSM picks it: the one asked for when
 * both ends share it, else the first of the source's table (index order)
 * the destination shares, a full member on one side at least; and the
 * requester must share a partition with both ends.  false: no record.
 * RawTraffic: P_Key 0 in the answer (OpenSM).
 */
static bool pathrec_path_pkey(const struct sa_query *q, const struct pathrec_pk *pk,
			      const struct path_info *p, uint16_t *ret)
{
	const struct fabric *f = q->snap->fabric;
	uint16_t k, unused;

	if (!pathrec_share(q, p->src_node, p->src_port, p->dst_node, p->dst_port,
			   pk->has ? pk->want : 0, &k)) {
		sa_count_pkey(q->sa, SA_PKEY_PATH);
		return false;
	}
	/* the requester is one of the ends, mostly: it need not share with itself */
	if (q->req_node != FABRIC_NO_NODE && q->req_node < f->n_nodes &&
	    ((!pathrec_same(q, p->src_node, p->src_port) &&
	      !pathrec_share(q, q->req_node, q->req_port, p->src_node, p->src_port, 0, &unused)) ||
	     (!pathrec_same(q, p->dst_node, p->dst_port) &&
	      !pathrec_share(q, q->req_node, q->req_port, p->dst_node, p->dst_port, 0, &unused)))) {
		sa_count_pkey(q->sa, SA_PKEY_PATH);
		return false;
	}
	*ret = pk->raw ? 0 : pk->has ? pk->want : k;
	return true;
}

/*
 * The path options of the SA's snapshot: each switch holds a packet for the
 * LifeTimeValue it was programmed with (packet_life_time, through the SM's
 * info), or path.h's default before any was.
 */
static struct path_opts pathrec_opts(const struct sa *sa)
{
	struct sa_sm_info si;

	sa_sm_info(sa, &si);
	return (struct path_opts){si.switch_life_set ? si.switch_life : PATH_DEFAULT_SWITCH_LIFE};
}

/* The PathRecord of path p, in OpenSM's form. */
static void pathrec_build(const struct snapshot *s, const struct path_info *p, uint16_t pkey,
			  uint8_t *rec)
{
	const struct fabric *f = s->fabric;
	struct sa_wire_path_rec r;

	memset(&r, 0, sizeof(r));
	r.dgid.prefix = r.sgid.prefix = f->subnet_prefix;
	r.dgid.guid = f->nodes[p->dst_node].ports[p->dst_port].guid;
	r.sgid.guid = f->nodes[p->src_node].ports[p->src_port].guid;
	r.dlid = p->dlid;
	r.slid = p->slid;
	r.reversible = p->reversible;
	r.pkey = pkey;
	r.sl = p->sl;
	r.mtu_sel = PATH_SEL_EQ;
	r.mtu = p->mtu;
	r.rate_sel = PATH_SEL_EQ;
	r.rate = p->rate;
	r.pkt_life_sel = PATH_SEL_EQ;
	r.pkt_life = p->pkt_life;
	r.preference = p->preference;
	sa_wire_path_rec_encode(&r, rec, SA_WIRE_PR_SIZE);
}

/*
 * Run pq's enumeration into res as PathRecords, at most max records and
 * PATHREC_BUDGET units of work.  SA_STATUS_OK (res may be cut),
 * ERR_REQ_INVALID for a query path.c refuses, ERR_NO_RESOURCES.
 */
static uint16_t pathrec_collect(struct sa_query *q, struct sa_result *res,
				const struct path_query *pq, uint32_t max,
				const struct pathrec_pk *pk)
{
	struct path_info page[PATHREC_PAGE];
	uint8_t rec[SA_WIRE_PR_SIZE];
	uint32_t budget = PATHREC_BUDGET;
	struct path_enum e;

	struct path_opts o = pathrec_opts(q->sa);

	if (path_enum_init(&e, q->snap, &o, pq) < 0)
		return SA_STATUS_REQ_INVALID;
	while (!path_enum_done(&e) && budget && res->n < max && !sa_result_full(res)) {
		uint32_t want = max - res->n, b = budget, room = res->limit - res->n;
		uint64_t walks = e.walks;
		uint32_t used;
		int n;

		if (want > room)
			want = room;
		if (want > PATHREC_PAGE)
			want = PATHREC_PAGE;
		if (b > PATHREC_PAGE_BUDGET)
			b = PATHREC_PAGE_BUDGET;
		n = path_enum_next(&e, page, want, b);
		if (n < 0)
			return SA_STATUS_REQ_INVALID;
		/* a short page spent its whole budget, a full one its walks at least */
		used = (uint32_t)(e.walks - walks);
		if ((uint32_t)n < want || used > b)
			used = b;
		budget -= used;
		for (int i = 0; i < n; i++) {
			uint16_t pkey;

			if (!pathrec_path_pkey(q, pk, &page[i], &pkey))
				continue; /* no partition in common */
			if (!pathrec_path_sl(q, pk, &page[i], pkey, &page[i].sl))
				continue; /* the query asked for another SL than the policy's */
			if (!pathrec_path_caps(q, pq, pkey, &page[i]))
				continue; /* the partition's MTU or rate is below what was asked */
			pathrec_build(q->snap, &page[i], pkey, rec);
			if (sa_result_add(res, rec, sizeof(rec)) == -ENOMEM)
				return SA_STATUS_NO_RESOURCES;
		}
	}
	if (!path_enum_done(&e) && !budget)
		log_msg(LOG_CAT_SA, LOG_DEBUG,
			"SA: PathRecord query from LID %u cut at %u records (work budget spent)",
			q->from->slid, res->n);
	return SA_STATUS_OK;
}

/* ---- PathRecord ------------------------------------------------------------------ */

static uint16_t pathrec_get(struct sa_query *q, struct sa_result *res)
{
	const uint64_t sid = 1ULL << SA_PR_SERVICE_ID_MSB | 1ULL << SA_PR_SERVICE_ID_LSB;
	bool is_get = q->mad->hdr.method == SA_METHOD_GET, has_src, has_dst;
	struct path_port src, dst;
	struct path_query pq;
	struct sa_wire_path_rec pr;
	struct pathrec_pk pk;
	uint16_t st;

	if (sa_wire_path_rec_decode(q->qrec, SA_WIRE_DATA_SIZE, &pr) < 0)
		return SA_STATUS_REQ_INVALID;
	if ((q->mask & sid) && (q->mask & sid) != sid)
		return SA_STATUS_INSUFFICIENT_COMPS;
	if (is_get && !pathrec_has(q, SA_PR_DGID) && !pathrec_has(q, SA_PR_DLID))
		return SA_STATUS_INSUFFICIENT_COMPS;
	if (pathrec_has(q, SA_PR_DGID) && pathrec_gid_multicast(&pr.dgid))
		return PATHREC_NONE; /* multicast PathRecords are not answered */
	st = pathrec_end(q, pathrec_has(q, SA_PR_SGID), &pr.sgid, pathrec_has(q, SA_PR_SLID),
			 pr.slid, &src, &has_src);
	if (st == SA_STATUS_OK)
		st = pathrec_end(q, pathrec_has(q, SA_PR_DGID), &pr.dgid,
				 pathrec_has(q, SA_PR_DLID), pr.dlid, &dst, &has_dst);
	if (st != SA_STATUS_OK)
		return st == SA_STATUS_NO_RECORDS ? PATHREC_NONE : st;
	/* P_Key 0 names no partition, NumbPath 0 no path: nothing matches (OpenSM) */
	if ((pathrec_has(q, SA_PR_PKEY) && !(pr.pkey & 0x7fff)) ||
	    (pathrec_has(q, SA_PR_NUMB_PATH) && !pr.numb_path))
		return PATHREC_NONE;
	if (!has_src && has_dst && is_get) {
		/* a Get: the requester's port, as the LID its query came from */
		if (q->req_node == FABRIC_NO_NODE)
			return PATHREC_NONE;
		src = (struct path_port){q->req_node, q->req_port, q->from->slid};
		has_src = true;
	}
	pk = pathrec_pk_of(pathrec_has(q, SA_PR_PKEY), pr.pkey,
			   pathrec_has(q, SA_PR_RAW_TRAFFIC) && pr.raw_traffic);
	pk.has_sid = (q->mask & sid) == sid;
	pk.sid = pr.service_id;
	pk.sl_set = pathrec_has(q, SA_PR_SL);
	pk.sl = pr.sl;

	memset(&pq, 0, sizeof(pq));
	if (has_src) {
		pq.src = &src;
		pq.n_src = 1;
	}
	if (has_dst) {
		pq.dst = &dst;
		pq.n_dst = 1;
	}
	pq.sl_set = pathrec_has(q, SA_PR_SL);
	pq.sl = pr.sl;
	pathrec_limit(&pq.mtu, pathrec_has(q, SA_PR_MTU_SEL) && pathrec_has(q, SA_PR_MTU),
		      pr.mtu_sel, pr.mtu);
	pathrec_limit(&pq.rate, pathrec_has(q, SA_PR_RATE_SEL) && pathrec_has(q, SA_PR_RATE),
		      pr.rate_sel, pr.rate);
	pathrec_limit(&pq.pkt_life,
		      pathrec_has(q, SA_PR_PKT_LIFE_SEL) && pathrec_has(q, SA_PR_PKT_LIFE),
		      pr.pkt_life_sel, pr.pkt_life);
	pq.reversible = pathrec_has(q, SA_PR_REVERSIBLE) && pr.reversible;
	pq.numb_path = pathrec_has(q, SA_PR_NUMB_PATH) ? pr.numb_path : 0;
	return pathrec_collect(q, res, &pq, res->limit, &pk);
}

/* ---- MultiPathRecord ------------------------------------------------------------- */

/* OpenSM's hash_lids(): the LID offset of an APM pair. */
static unsigned pathrec_apm_hash(unsigned a, unsigned b, unsigned lmc)
{
	return (((a >> lmc) << 4) | (b >> lmc)) % 103;
}

/* Sort two ports by port GUID (OpenSM sorts the APM ends so).  */
static void pathrec_sort2(const struct snapshot *s, struct path_port *p)
{
	const struct fabric *f = s->fabric;

	if (f->nodes[p[1].node].ports[p[1].port].guid < f->nodes[p[0].node].ports[p[0].port].guid) {
		struct path_port t = p[0];

		p[0] = p[1];
		p[1] = t;
	}
}

/*
 * The first path from a to b trying the LID pairs (lo + offs + k) of both
 * ranges in turn, k < the smaller range (OpenSM's
 * mpr_rcv_get_apm_port_pair_paths).  true when one passes pq's constraints.
 */
static bool pathrec_apm_pair(const struct snapshot *s, const struct path_opts *o,
			     const struct path_query *pq, struct path_port a, struct path_port b,
			     unsigned offs, struct path_info *ret)
{
	const struct port *pa = &s->fabric->nodes[a.node].ports[a.port];
	const struct port *pb = &s->fabric->nodes[b.node].ports[b.port];
	unsigned na = 1u << (pa->lmc & 7), nb = 1u << (pb->lmc & 7);
	unsigned i = offs % na, j = offs % nb;

	for (unsigned k = 0; k < (na < nb ? na : nb); k++) {
		struct path_query one = *pq;
		struct path_enum e;

		a.lid = (uint16_t)(pa->lid + i);
		b.lid = (uint16_t)(pb->lid + j);
		one.src = &a;
		one.dst = &b;
		one.n_src = one.n_dst = 1;
		one.numb_path = 1;
		if (path_enum_init(&e, s, o, &one) == 0 && path_enum_next(&e, ret, 1, 4) == 1) {
			ret->preference = 0;
			return true;
		}
		i = (i + 1) % na;
		j = (j + 1) % nb;
	}
	return false;
}

/* OpenSM's APM answer for 2 SGIDs x 2 DGIDs, NumbPath 2: the better diagonal. */
static uint16_t pathrec_apm(struct sa_query *q, struct sa_result *res, const struct path_query *pq,
			    struct path_port *ends, const struct pathrec_pk *pk)
{
	const struct snapshot *s = q->snap;
	struct path_opts o = pathrec_opts(q->sa);
	struct path_port *sp = ends, *dp = ends + 2;
	struct path_info m[2][2];
	bool ok[2][2];
	unsigned sl, dl, offs, min_a = 0, min_b = 0;
	uint8_t rec[SA_WIRE_PR_SIZE];

	pathrec_sort2(s, sp);
	pathrec_sort2(s, dp);
	sl = s->fabric->nodes[sp[0].node].ports[sp[0].port].lid;
	dl = s->fabric->nodes[dp[0].node].ports[dp[0].port].lid;
	offs = sl < dl
		   ? pathrec_apm_hash(sl, dl, s->fabric->nodes[sp[0].node].ports[sp[0].port].lmc)
		   : pathrec_apm_hash(dl, sl, s->fabric->nodes[sp[0].node].ports[sp[0].port].lmc);
	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < 2; j++)
			ok[i][j] = pathrec_apm_pair(s, &o, pq, sp[i], dp[j], offs + i, &m[i][j]);
	/* the smallest hop count on each diagonal, 0 where it has no path (as OpenSM) */
	for (unsigned i = 0; i < 2; i++) {
		if (ok[i][i] && (!min_a || m[i][i].hops < min_a))
			min_a = m[i][i].hops;
		if (ok[i][1 - i] && (!min_b || m[i][1 - i].hops < min_b))
			min_b = m[i][1 - i].hops;
	}
	for (unsigned i = 0; i < 2; i++) {
		unsigned j = min_a <= min_b ? i : 1 - i;
		uint16_t pkey;

		if (!ok[i][j] || !pathrec_path_pkey(q, pk, &m[i][j], &pkey) ||
		    !pathrec_path_sl(q, pk, &m[i][j], pkey, &m[i][j].sl))
			continue;
		pathrec_build(s, &m[i][j], pkey, rec);
		if (sa_result_add(res, rec, sizeof(rec)) == -ENOMEM)
			return SA_STATUS_NO_RESOURCES;
	}
	return SA_STATUS_OK;
}

/*
 * Whether a GetMulti request is one MAD: not RMPP-active; active but without
 * a segment header (the sender's library set the flag and left the
 * segmentation to a kernel RMPP layer that umad2sim does not have: osmtest
 * under ibsim); or the one DATA segment, first and last.
 */
static bool pathrec_one_segment(const struct sa_wire_mad *mad)
{
	const uint8_t both = SA_RMPP_FLAG_FIRST | SA_RMPP_FLAG_LAST;

	if (!(mad->rmpp_flags & SA_RMPP_FLAG_ACTIVE) || mad->rmpp_type == SA_RMPP_NONE)
		return true;
	return mad->rmpp_type == SA_RMPP_DATA && (mad->rmpp_flags & both) == both;
}

static uint16_t pathrec_get_multi(struct sa_query *q, struct sa_result *res)
{
	const uint64_t sid = 1ULL << SA_MPR_SERVICE_ID_MSB | 1ULL << SA_MPR_SERVICE_ID_LSB;
	const struct sa_wire_mad *mad = q->mad;
	struct path_port ends[SA_WIRE_MPR_MAX_GIDS];
	struct sa_wire_mpath_rec m;
	struct path_query pq;
	unsigned nsrc, ndst;
	uint32_t max;
	struct pathrec_pk pk;
	uint16_t st;

	if (mad->hdr.method != SA_METHOD_GET_MULTI)
		return SA_STATUS_BAD_METHOD_ATTR; /* GetMulti only (15.2.5.20) */
	if (!pathrec_one_segment(mad))
		return SA_STATUS_REQ_INVALID; /* a request of several segments: needs RMPP */
	if (!pathrec_has(q, SA_MPR_SGID_COUNT) || !pathrec_has(q, SA_MPR_DGID_COUNT))
		return SA_STATUS_INSUFFICIENT_COMPS;
	if ((q->mask & sid) && (q->mask & sid) != sid)
		return SA_STATUS_INSUFFICIENT_COMPS;
	if (sa_wire_mpath_rec_decode(q->qrec, SA_WIRE_DATA_SIZE, &m) < 0)
		return SA_STATUS_REQ_INVALID;
	nsrc = m.sgid_count < SA_WIRE_MPR_MAX_GIDS ? m.sgid_count : SA_WIRE_MPR_MAX_GIDS;
	ndst =
	    m.dgid_count < SA_WIRE_MPR_MAX_GIDS - nsrc ? m.dgid_count : SA_WIRE_MPR_MAX_GIDS - nsrc;
	for (unsigned i = 0; i < nsrc + ndst; i++) {
		st = pathrec_gid_port(q->snap, &m.gids[i], &ends[i]);
		if (st != SA_STATUS_OK)
			return st;
	}
	if (!nsrc || !ndst)
		return SA_STATUS_REQ_INVALID;
	pk = pathrec_pk_of(pathrec_has(q, SA_MPR_PKEY), m.pkey,
			   pathrec_has(q, SA_MPR_RAW_TRAFFIC) && m.raw_traffic);
	pk.has_sid = (q->mask & sid) == sid;
	pk.sid = m.service_id;
	pk.sl_set = pathrec_has(q, SA_MPR_SL);
	pk.sl = m.sl;

	memset(&pq, 0, sizeof(pq));
	pq.src = ends;
	pq.n_src = nsrc;
	pq.dst = ends + nsrc;
	pq.n_dst = ndst;
	pq.sl_set = pathrec_has(q, SA_MPR_SL);
	pq.sl = m.sl;
	pathrec_limit(&pq.mtu, pathrec_has(q, SA_MPR_MTU_SEL) && pathrec_has(q, SA_MPR_MTU),
		      m.mtu_sel, m.mtu);
	pathrec_limit(&pq.rate, pathrec_has(q, SA_MPR_RATE_SEL) && pathrec_has(q, SA_MPR_RATE),
		      m.rate_sel, m.rate);
	pathrec_limit(&pq.pkt_life,
		      pathrec_has(q, SA_MPR_PKT_LIFE_SEL) && pathrec_has(q, SA_MPR_PKT_LIFE),
		      m.pkt_life_sel, m.pkt_life);
	pq.reversible = pathrec_has(q, SA_MPR_REVERSIBLE) && m.reversible;
	/* path.c checks the selector values; the APM walk needs them checked first */
	{
		struct path_enum e;

		if (path_enum_init(&e, q->snap, NULL, &pq) < 0)
			return SA_STATUS_REQ_INVALID;
	}
	/* the answer is PathRecords (o15-0.2.7) */
	res->attr_id = SA_ATTR_PATH_RECORD;
	res->stride = sa_wire_rec_stride(&sa_wire_path_record);
	/* NumbPath: paths in all (OpenSM); 0 counts as no limit (OpenSM answers none) */
	max = pathrec_has(q, SA_MPR_NUMB_PATH) && m.numb_path ? m.numb_path : PATHREC_MPR_MAX_PATHS;
	if (nsrc == 2 && ndst == 2 && max == 2)
		return pathrec_apm(q, res, &pq, ends, &pk);
	return pathrec_collect(q, res, &pq, max, &pk);
}

const struct sa_attr sa_pathrec_attrs[] = {
    {SA_ATTR_PATH_RECORD, &sa_wire_path_record, pathrec_get, NULL, NULL, false},
    {SA_ATTR_MULTIPATH_RECORD, &sa_wire_multipath_record, pathrec_get_multi, NULL, NULL, false},
};

const unsigned sa_pathrec_n_attrs = sizeof(sa_pathrec_attrs) / sizeof(sa_pathrec_attrs[0]);

/*
 * The SA's multicast join and leave rules (see mcast.h), on the group
 * database of mcast.c.  IBA 1.4 vol 1, 15.2.5.17 (MCMemberRecord), 15.4.2
 * (o15-0.1.x, o15-0.2.x: creating, joining and leaving groups).
 *
 * Rules, and where they come from (OpenSM's osm_sa_mcmember_record.c and
 * osm_multicast.c read for the same rules; the code is ours):
 *  - a create needs a FullMember join with MGID, PortGID, JoinState, Q_Key,
 *    P_Key, SL, FlowLabel and TClass (o15-0.1.8, o15-0.1.9); MTU and rate,
 *    when not given or "largest", are the joining port's, else 2048 and
 *    10 Gb/s; selectors "greater"/"less" pick the nearest value the port
 *    can do (o15-0.2.3 leaves the values to the SA);
 *  - an all-zero MGID asks the SA for one: ff1S:a01b:<subnet prefix>:<32-bit
 *    id>, S the requested scope or link-local, which no client may ask for
 *    itself (the 0xA01B signature with link-local scope is refused on a
 *    create, o15-0.1.5), so it cannot collide with a requested MGID;
 *  - a join of an existing group must agree with each component it names
 *    (o15-0.2.4 item 5): Q_Key, TClass, SL, FlowLabel, HopLimit equal, a
 *    P_Key of the same partition (not both limited), MTU and rate within
 *    their selectors; and the port must do the group's MTU and rate;
 *  - a member's JoinState is the OR of its joins (o15-0.1.11); a leave
 *    clears bits it holds, all of them held (o15-0.1.14); the member goes
 *    with its last bit; a proxy may change a membership only if that
 *    membership was made by proxy (o15-0.2.1; the partition check is the
 *    SA's);
 *  - a port that left the fabric, or whose P_Key table no longer holds the
 *    group's partition, leaves every group with every bit.
 */
#include <errno.h>
#include <string.h>

#include "fabric/speed.h"
#include "policy/partition.h"
#include "sa/mcast_int.h"

#define MCAST_CREATE_COMPS                                                                         \
	(MCAST_C_QKEY | MCAST_C_PKEY | MCAST_C_SL | MCAST_C_FLOW | MCAST_C_TCLASS)
#define MCAST_JOIN_COMPS (MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE)

/* ---- names and statuses ------------------------------------------------- */

const char *mcast_why_str(enum mcast_why w)
{
	static const char *const s[] = {
	    [MCAST_OK] = "ok",
	    [MCAST_NO_GROUP] = "no such multicast group",
	    [MCAST_INSUF_COMPS] = "insufficient components",
	    [MCAST_BAD_MGID] = "invalid MGID",
	    [MCAST_BAD_GID] = "invalid port GID",
	    [MCAST_BAD_JOIN] = "invalid JoinState",
	    [MCAST_BAD_PKEY] = "invalid P_Key",
	    [MCAST_QKEY] = "Q_Key differs from the group's",
	    [MCAST_PKEY] = "P_Key is not the group's partition",
	    [MCAST_MTU] = "the group's MTU is outside the selector",
	    [MCAST_RATE] = "the group's rate is outside the selector",
	    [MCAST_SL] = "SL differs from the group's",
	    [MCAST_TCLASS] = "TClass differs from the group's",
	    [MCAST_FLOW] = "FlowLabel differs from the group's",
	    [MCAST_HOP] = "HopLimit differs from the group's",
	    [MCAST_PORT_CAPS] = "the port's MTU or rate is below the group's",
	    [MCAST_UNREALIZABLE] = "the MTU or rate asked for cannot be realized",
	    [MCAST_PROXY] = "a proxy cannot change a membership the port made itself",
	    [MCAST_NOT_MEMBER] = "the port is not a member",
	    [MCAST_NOT_HELD] = "the member does not hold that JoinState",
	    [MCAST_NO_MLID] = "no MLID available",
	    [MCAST_NO_MGID] = "no MGID available",
	    [MCAST_NOMEM] = "out of memory",
	};

	if ((unsigned)w >= sizeof(s) / sizeof(s[0]) || !s[w])
		return "unknown";
	return s[w];
}

uint16_t mcast_why_sa_status(enum mcast_why w)
{
	switch (w) {
	case MCAST_OK:
		return 0;
	case MCAST_NO_MLID:
	case MCAST_NO_MGID:
	case MCAST_NOMEM:
		return 0x0100; /* ERR_NO_RESOURCES */
	case MCAST_INSUF_COMPS:
		return 0x0600; /* ERR_REQ_INSUFFICIENT_COMPONENTS */
	case MCAST_BAD_GID:
		return 0x0500; /* ERR_REQ_INVALID_GID */
	default:
		return 0x0200; /* ERR_REQ_INVALID */
	}
}

/* ---- rates ---------------------------------------------------------------- */

/* Rate codes in Mb/s (fabric/speed.h): codes are not in order. */
static uint32_t mcast_rate_mbps(uint8_t code)
{
	return speed_rate_mbps(code);
}

/* The valid code with the next higher (up) or lower rate than code's, 0 when none. */
static uint8_t mcast_rate_step(uint8_t code, bool up)
{
	uint32_t r = mcast_rate_mbps(code), best = 0;
	uint8_t best_code = 0;

	for (uint8_t c = 2; c <= 24; c++) {
		uint32_t v = mcast_rate_mbps(c);
		if (up ? v > r && (!best || v < best) : v < r && v > best) {
			best = v;
			best_code = c;
		}
	}
	return best_code;
}

/* ---- join ------------------------------------------------------------------------ */

static bool mgid_is_zero(const uint8_t mgid[16])
{
	for (int i = 0; i < 16; i++)
		if (mgid[i])
			return false;
	return true;
}

/* o15-0.1.5 for an MGID a client asks to create (IPoIB's signatures pass as they are). */
static bool mgid_valid_for_create(const uint8_t mgid[16])
{
	uint16_t sig = (uint16_t)(mgid[2] << 8 | mgid[3]);

	if (mgid[0] != 0xff)
		return false;
	if (sig == 0x401b || sig == 0x601b)
		return true;
	if (mgid[1] & 0xe0) /* reserved flags */
		return false;
	if (sig == 0xa01b && (mgid[1] & 0x0f) == MCAST_SCOPE_LINK_LOCAL)
		return false; /* only the SA assigns these */
	return true;
}

/* ff1S:a01b:<prefix>:<id>, the first one not in use; false when every try is taken. */
static bool mgid_assign(struct mcast_db *db, uint8_t scope, uint64_t prefix, uint8_t ret[16])
{
	uint8_t m[16] = {0xff, (uint8_t)(0x10 | (scope & 0x0f)), 0xa0, 0x1b};

	for (int i = 0; i < 8; i++)
		m[4 + i] = (uint8_t)(prefix >> (56 - 8 * i));
	/* fewer groups than MLIDs exist, so this many tries always find one */
	for (uint32_t n = 0; n <= MCAST_N_MLIDS; n++) {
		uint32_t id = db->next_mgid_id++;
		for (int i = 0; i < 4; i++)
			m[12 + i] = (uint8_t)(id >> (24 - 8 * i));
		if (!mcast_mgid_lookup(db, m)) {
			memcpy(ret, m, 16);
			return true;
		}
	}
	return false;
}

/* MTU and rate of a new group from the request (OpenSM's mgrp_request_is_realizable rules). */
static enum mcast_why create_params(const struct mcast_join_req *req, struct mcast_params *p)
{
	uint8_t port = req->port_mtu, x = req->p.mtu, v;

	if (!(req->comp & MCAST_C_MTU) || !(req->comp & MCAST_C_MTU_SEL) ||
	    req->mtu_sel == MCAST_SEL_LARGEST) {
		v = port ? port : MCAST_DEFAULT_MTU;
	} else if (req->mtu_sel == MCAST_SEL_GT) {
		if (port && x >= port)
			return MCAST_UNREALIZABLE;
		v = port ? port : (uint8_t)(x + 1);
	} else if (req->mtu_sel == MCAST_SEL_LT) {
		v = port && x > port ? port : (uint8_t)(x - 1);
	} else {
		v = x;
	}
	if (v < 1 || v > 5)
		return MCAST_UNREALIZABLE;
	p->mtu = v;

	port = req->port_rate;
	x = req->p.rate;
	if (!(req->comp & MCAST_C_RATE) || !(req->comp & MCAST_C_RATE_SEL) ||
	    req->rate_sel == MCAST_SEL_LARGEST) {
		v = port ? port : MCAST_DEFAULT_RATE;
	} else if (req->rate_sel == MCAST_SEL_GT) {
		if (port && mcast_rate_mbps(x) >= mcast_rate_mbps(port))
			return MCAST_UNREALIZABLE;
		v = port ? port : mcast_rate_step(x, true);
	} else if (req->rate_sel == MCAST_SEL_LT) {
		v = port && mcast_rate_mbps(x) > mcast_rate_mbps(port) ? port
								       : mcast_rate_step(x, false);
	} else {
		v = x;
	}
	if (!mcast_rate_mbps(v))
		return MCAST_UNREALIZABLE;
	p->rate = v;
	return MCAST_OK;
}

/* Does sel/x admit have? (a rate compares by speed, an MTU by code) */
static bool sel_admits(uint8_t sel, uint32_t have, uint32_t x)
{
	switch (sel) {
	case MCAST_SEL_GT:
		return have > x;
	case MCAST_SEL_LT:
		return have < x;
	case MCAST_SEL_EQ:
		return have == x;
	default:
		return true;
	}
}

/* The components a join of an existing group names, against the group's. */
static enum mcast_why join_check_comps(const struct mcast_join_req *req,
				       const struct mcast_params *g)
{
	uint64_t c = req->comp;

	if ((c & MCAST_C_QKEY) && req->p.qkey != g->qkey)
		return MCAST_QKEY;
	/* the same partition, and not both limited members of it */
	if ((c & MCAST_C_PKEY) &&
	    (!((req->p.pkey | g->pkey) & 0x8000) || (req->p.pkey & 0x7fff) != (g->pkey & 0x7fff)))
		return MCAST_PKEY;
	if ((c & MCAST_C_TCLASS) && req->p.tclass != g->tclass)
		return MCAST_TCLASS;
	if ((c & MCAST_C_SL) && req->p.sl != g->sl)
		return MCAST_SL;
	if ((c & MCAST_C_FLOW) && req->p.flow_label != g->flow_label)
		return MCAST_FLOW;
	if ((c & MCAST_C_HOP) && req->p.hop_limit != g->hop_limit)
		return MCAST_HOP;
	return MCAST_OK;
}

/* The MTU and rate selectors against the group's, and the port's capabilities. */
static enum mcast_why join_check_caps(const struct mcast_join_req *req,
				      const struct mcast_params *g)
{
	uint64_t c = req->comp;

	if ((c & MCAST_C_MTU_SEL) && !sel_admits(req->mtu_sel, g->mtu, req->p.mtu))
		return MCAST_MTU;
	if ((c & MCAST_C_RATE_SEL) &&
	    !sel_admits(req->rate_sel, mcast_rate_mbps(g->rate), mcast_rate_mbps(req->p.rate)))
		return MCAST_RATE;
	if (req->port_mtu && req->port_mtu < g->mtu)
		return MCAST_PORT_CAPS;
	if (req->port_rate && mcast_rate_mbps(req->port_rate) < mcast_rate_mbps(g->rate))
		return MCAST_PORT_CAPS;
	return MCAST_OK;
}

static int refuse(struct mcast_result *ret, enum mcast_why w)
{
	ret->why = w;
	if (w == MCAST_NOMEM)
		return -ENOMEM;
	if (w == MCAST_NO_MLID || w == MCAST_NO_MGID)
		return -ENOSPC;
	return -EINVAL;
}

/* A new group from a creating join (the join itself is checked already). */
static int join_create(struct mcast_db *db, const struct mcast_join_req *req,
		       struct mcast_result *ret)
{
	struct mcast_params p = req->p;
	uint8_t mgid[16];
	enum mcast_why w;
	uint16_t mlid;
	struct mcast_group *g;
	bool assign = mgid_is_zero(req->mgid);

	if (!mcast_is_full(req->join_state))
		return refuse(ret, MCAST_NO_GROUP);
	if ((req->comp & MCAST_CREATE_COMPS) != MCAST_CREATE_COMPS)
		return refuse(ret, MCAST_INSUF_COMPS);
	if (!assign && !mgid_valid_for_create(req->mgid))
		return refuse(ret, MCAST_BAD_MGID);
	w = create_params(req, &p);
	if (w == MCAST_OK)
		w = join_check_caps(req, &p);
	if (w != MCAST_OK)
		return refuse(ret, w);
	if ((req->comp & MCAST_C_MLID) && mcast_mlid_is_free(db, req->mlid))
		mlid = req->mlid;
	else
		mlid = mcast_mlid_lowest(db);
	if (!mlid)
		return refuse(ret, MCAST_NO_MLID);
	if (!assign)
		memcpy(mgid, req->mgid, 16);
	else if (!mgid_assign(db,
			      (req->comp & MCAST_C_SCOPE) ? req->p.scope : MCAST_SCOPE_LINK_LOCAL,
			      req->subnet_prefix, mgid))
		return refuse(ret, MCAST_NO_MGID);
	if (!(req->comp & MCAST_C_HOP))
		p.hop_limit = (mgid[1] & 0x0f) == MCAST_SCOPE_LINK_LOCAL ? 0 : 0xff;
	if (!(req->comp & MCAST_C_LIFE))
		p.pkt_life = MCAST_DEFAULT_PKT_LIFE;
	g = mcast_group_new(db, mgid, mlid, &p);
	if (!g)
		return refuse(ret, MCAST_NOMEM);
	if (mcast_member_add(db, g, req->port_gid, req->join_state, req->proxy) < 0) {
		mcast_group_delete(db, g); /* no hook heard of it yet but deleted: harmless */
		return refuse(ret, MCAST_NOMEM);
	}
	ret->g = g;
	ret->join_state = req->join_state;
	ret->created = true;
	hook_run(&db->hooks.changed, g);
	return 0;
}

int mcast_join(struct mcast_db *db, const struct mcast_join_req *req, struct mcast_result *ret)
{
	uint64_t guid = mcast_gid_guid(req->port_gid);
	uint8_t js = req->join_state;
	struct mcast_group *g;
	struct mcast_member *m;
	enum mcast_why w;
	long i;

	memset(ret, 0, sizeof(*ret));
	if ((req->comp & MCAST_JOIN_COMPS) != MCAST_JOIN_COMPS)
		return refuse(ret, MCAST_INSUF_COMPS);
	if (!js || (js & ~MCAST_JOIN_MASK))
		return refuse(ret, MCAST_BAD_JOIN);
	if (!guid)
		return refuse(ret, MCAST_BAD_GID);
	if ((req->comp & MCAST_C_PKEY) && !(req->p.pkey & 0x7fff))
		return refuse(ret, MCAST_BAD_PKEY);
	g = mgid_is_zero(req->mgid) ? NULL : mcast_mgid_lookup(db, req->mgid);
	if (!g)
		return join_create(db, req, ret);
	w = join_check_comps(req, &g->p);
	if (w == MCAST_OK)
		w = join_check_caps(req, &g->p);
	if (w != MCAST_OK)
		return refuse(ret, w);
	i = mcast_member_lookup(g, guid);
	if (i < 0) {
		if (mcast_member_add(db, g, req->port_gid, js, req->proxy) < 0)
			return refuse(ret, MCAST_NOMEM);
		ret->g = g;
		ret->join_state = js;
		hook_run(&db->hooks.changed, g);
		return 0;
	}
	m = &g->members[i];
	if (req->proxy && !m->proxy)
		return refuse(ret, MCAST_PROXY);
	ret->g = g;
	ret->join_state = m->join_state | js;
	if ((js & MCAST_FULL) && !(m->join_state & MCAST_FULL))
		g->full_members++;
	if (ret->join_state != m->join_state) {
		bool flip = mcast_receives(ret->join_state) != mcast_receives(m->join_state);
		m->join_state = ret->join_state;
		if (flip)
			hook_run(&db->hooks.changed, g);
	}
	return 0;
}

/* ---- leave and ports that left ---------------------------------------------------- */

int mcast_leave(struct mcast_db *db, const uint8_t mgid[16], const uint8_t port_gid[16],
		uint8_t join_state, bool proxy, struct mcast_result *ret)
{
	struct mcast_group *g = mcast_mgid_lookup(db, mgid);
	struct mcast_member *m;
	long i;

	memset(ret, 0, sizeof(*ret));
	if (!g)
		return refuse(ret, MCAST_NO_GROUP);
	if (join_state & ~MCAST_JOIN_MASK)
		return refuse(ret, MCAST_BAD_JOIN);
	i = mcast_member_lookup(g, mcast_gid_guid(port_gid));
	if (i < 0)
		return refuse(ret, MCAST_NOT_MEMBER);
	m = &g->members[i];
	if (!join_state || (join_state & ~m->join_state))
		return refuse(ret, MCAST_NOT_HELD);
	if (proxy && !m->proxy)
		return refuse(ret, MCAST_PROXY);
	ret->join_state = m->join_state & ~join_state;
	if (mcast_member_clear(db, g, (uint32_t)i, join_state)) {
		ret->deleted = true;
		ret->join_state = 0;
	} else {
		ret->g = g;
		if (mcast_member_lookup(g, mcast_gid_guid(port_gid)) < 0)
			ret->join_state =
			    0; /* a well-known group dropped it with the last full member */
	}
	return 0;
}

size_t mcast_port_gone(struct mcast_db *db, uint64_t port_guid)
{
	size_t dropped = 0;

	for (uint32_t k = db->n_groups; k-- > 0;) {
		struct mcast_group *g;
		long i;

		if (k >= db->n_groups)
			continue;
		g = db->groups[k];
		i = mcast_member_lookup(g, port_guid);
		if (i < 0)
			continue;
		dropped++;
		mcast_member_clear(db, g, (uint32_t)i, MCAST_JOIN_MASK);
	}
	return dropped;
}

static bool port_present(const struct snapshot *s, uint64_t guid)
{
	uint32_t node;
	uint8_t port;
	const struct node *n;

	if (!snapshot_find_port_guid(s, guid, &node, &port))
		return false;
	n = &s->fabric->nodes[node];
	return node_is_switch(n) || port_is_linked(&n->ports[port]);
}

/*
 * Whether port guid may stay in a group of P_Key pkey: its P_Key table (as
 * programmed, port 0's for a switch) holds pkey's partition, full or
 * limited; a table the model does not know keeps it.
 */
static bool port_in_partition(const struct snapshot *s, uint64_t guid, uint16_t pkey)
{
	uint32_t node;
	uint8_t port;
	const struct node *n;
	const struct port *p;

	if (!snapshot_find_port_guid(s, guid, &node, &port))
		return false;
	n = &s->fabric->nodes[node];
	p = &n->ports[node_is_switch(n) ? 0 : port];
	return !p->pkey_known || partition_table_find(p->pkeys, FABRIC_PKEY_BLOCKS * 32, pkey) != 0;
}

size_t mcast_reconcile(struct mcast_db *db, const struct snapshot *s)
{
	size_t dropped = 0;

	for (uint32_t k = db->n_groups; k-- > 0;) {
		struct mcast_group *g;

		if (k >= db->n_groups)
			continue;
		g = db->groups[k];
		for (uint32_t j = g->n_members; j-- > 0;) {
			if (j >= g->n_members)
				continue;
			uint64_t guid = mcast_gid_guid(g->members[j].port_gid);

			if (port_present(s, guid) && port_in_partition(s, guid, g->p.pkey))
				continue;
			dropped++;
			if (mcast_member_clear(db, g, j, MCAST_JOIN_MASK))
				break; /* the group went */
		}
	}
	return dropped;
}

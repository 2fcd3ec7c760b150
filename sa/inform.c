/*
 * Event subscriptions and Report forwarding (see inform.h).  IBA 1.4 vol 1:
 * 13.4.8.3 (InformInfo), 15.2.5.12 (InformInfoRecord), 13.4.8.2 (Report,
 * ReportResp), 14.2.5.1 (Notice); OpenSM's osm_sa_informinfo.c and
 * osm_inform.c for what clients expect.
 *
 * Set(InformInfo) from a port subscribes (Subscribe 1) or unsubscribes
 * (Subscribe 0).  A subscription is its subscriber (port GUID and the QP the
 * Set came from, where its Reports go, as OpenSM's report address) and what
 * it selects: GID or LID range, IsGeneric, Type, TrapNumber/DeviceID,
 * ProducerType/VendorID.  Subscribing again with the same selectors updates
 * it (RespTimeValue); unsubscribing needs an exact match (ERR_REQ_INVALID
 * otherwise, as OpenSM).  The answer is the request's InformInfo
 * (o13-12.1.1), with Subscribe 0 when refused (o13-13.1.1).  Refused: a
 * requester whose port the SA does not know, Subscribe > 1, a LID range
 * that ends before it begins (ERR_REQ_INVALID); a unicast GID no port of
 * the fabric has (ERR_REQ_INVALID_GID); the security traps 256..259 to an
 * untrusted requester (ERR_REQ_INVALID, C15-0.2-1.16 as OpenSM reads it);
 * beyond INFORM_PER_PORT_MAX subscriptions of one port or INFORM_MAX in
 * all (ERR_NO_RESOURCES).  Get/GetTable(InformInfoRecord) lists them,
 * SubscriberGID and Enum (0.. per subscriber) first, QPN 0 unless trusted
 * (C15-0.2-1.16).  A subscription goes when its port is not in a newly
 * published snapshot.
 *
 * The traps the SA issues: 64 (GID in service) and 65 (out of service) for
 * every endport (CA and router ports, switch port 0) whose GUID appears in or
 * disappears from consecutive published snapshots, 66 and 67 (MGID created,
 * deleted) when sa/mcast.c says so.  The Notice: generic, Type 3 (subnet
 * management), ProducerType 4 (class manager), IssuerLID and IssuerGID the
 * SM's port, DataDetails the GID (or MGID) after 6 reserved bytes, the
 * NoticeToggle alternating from one notice to the next (a resend keeps it
 * and its TID), NoticeCount 0; OpenSM's Notices for these traps.
 *
 * Which subscriptions select a notice (13.4.8.3): IsGeneric set; Type,
 * TrapNumber and ProducerType equal or all-ones; a non-zero GID equal to
 * the trap's subject, else a LID range (0xFFFF: all; LIDRangeEnd 0: just
 * LIDRangeBegin) holding the subject's LID.  Where we differ from OpenSM:
 * the subject of traps 64..67 is the port (or group) they are about, not
 * their issuer; OpenSM matches GID and LID range against the IssuerGID and
 * IssuerLID, which for these traps are the SM's own, so that a subscription
 * for one GID or a LID range never gets them.
 *
 * Reports: one per selecting subscription, to the subscriber's LID in the
 * published snapshot, its QP, Q_Key 0x80010000; resent every
 * 4.096 us x 2^RespTimeValue + 200 ms (at most SA_REPORT_WAIT_MS) until a
 * ReportResp with its TID comes from that port, INFORM_REPORT_RETRIES
 * times at most, then given up (counted).  At most INFORM_REPORTS_MAX wait
 * at once; a Report beyond is dropped (counted).  The TID holds the Report's
 * slot (O(1) matching) in its low 32 bits, the only ones the kernel leaves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "policy/partition.h"
#include "sa/inform.h"
#include "sa/sa_int.h"

#define INFORM_SLOT_BITS 8
_Static_assert(INFORM_REPORTS_MAX == 1 << INFORM_SLOT_BITS, "a Report's slot fits its TID");
#define INFORM_NOTICE_TYPE_SUBN_MGMT 3
#define INFORM_PRODUCER_CLASS_MANAGER 4
#define INFORM_REPORT_SLACK_MS 200
#define INFORM_GSI_QKEY 0x80010000u
#define INFORM_II_STRIDE 40 /* InformInfo padded to 8 bytes in an answer */

/* The components that say what a subscription selects (its identity, with the subscriber). */
#define INFORM_SELECTORS                                                                           \
	(1u << SA_II_GID | 1u << SA_II_LID_BEGIN | 1u << SA_II_LID_END | 1u << SA_II_IS_GENERIC |  \
	 1u << SA_II_TYPE | 1u << SA_II_TRAP | 1u << SA_II_PRODUCER)

struct inform_sub {
	uint64_t port_guid; /* the subscriber */
	uint32_t qpn;	    /* its QP the Set came from: where Reports go */
	uint8_t sl;
	uint16_t enum_id;	/* InformInfoRecord:Enum */
	uint8_t ii[SA_II_SIZE]; /* as subscribed, QPN = qpn */
};

struct inform_report {
	struct sa_inform_db *db;
	struct event *timer;
	bool busy;
	uint32_t tid;
	uint64_t port_guid;
	uint32_t qpn;
	uint8_t sl;
	unsigned sends;
	unsigned timeout_ms;
	uint8_t notice[SA_WIRE_NOTICE_SIZE];
};

struct sa_inform_db {
	struct sa *sa;
	struct event_base *base;
	struct inform_sub *subs;
	unsigned n_subs, cap_subs;
	struct inform_report reports[INFORM_REPORTS_MAX];
	unsigned n_reports;
	uint32_t seq;
	bool toggle;
	uint64_t sent, acked, expired, dropped;
};

static uint64_t ii_get(const uint8_t *ii, unsigned comp)
{
	return sa_wire_comp_get(&sa_wire_inform_info, comp, ii);
}

static void ii_set(uint8_t *ii, unsigned comp, uint64_t v)
{
	sa_wire_comp_set(&sa_wire_inform_info, comp, ii, v);
}

static bool gid_is_zero(const uint8_t *gid)
{
	for (unsigned i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

/* ---- Reports ------------------------------------------------------------------- */

static void inform_report_free(struct inform_report *r)
{
	if (r->timer)
		evtimer_del(r->timer);
	r->busy = false;
	r->db->n_reports--;
}

/* Send (or resend) r to its subscriber's LID in snap; the timer waits for the answer. */
static void inform_report_send(struct inform_report *r, const struct snapshot *snap)
{
	struct sa_inform_db *db = r->db;
	struct sa_wire_mad m = {0};
	struct madio_dest to;
	uint8_t buf[WIRE_MAD_SIZE];
	uint32_t ni;
	uint8_t pn;

	if (!snapshot_find_port_guid(snap, r->port_guid, &ni, &pn) ||
	    !node_port_lid(&snap->fabric->nodes[ni], pn)) {
		db->dropped++;
		inform_report_free(r);
		return;
	}
	to = (struct madio_dest){node_port_lid(&snap->fabric->nodes[ni], pn), r->qpn,
				 INFORM_GSI_QKEY, r->sl};
	m.hdr.method = SA_METHOD_REPORT;
	m.hdr.attr_id = SA_ATTR_NOTICE;
	m.hdr.tid = r->tid;
	memcpy(m.data, r->notice, sizeof(r->notice));
	sa_wire_encode(&m, buf, sizeof(buf));
	r->sends++;
	if (r->timer) {
		/* armed first: a ReportResp inside send (a loopback) may free r */
		struct timeval tv = {r->timeout_ms / 1000, (r->timeout_ms % 1000) * 1000};

		evtimer_add(r->timer, &tv);
	} else {
		inform_report_free(r); /* no loop to wait on: sent once */
	}
	if (sa_send_mad(db->sa, &to, buf, sizeof(buf)) == 0)
		db->sent++;
}

static void inform_report_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct inform_report *r = arg;
	const struct snapshot *snap = sa_snapshot(r->db->sa);

	if (r->sends > INFORM_REPORT_RETRIES || !snap) {
		r->db->expired++;
		inform_report_free(r);
		return;
	}
	inform_report_send(r, snap);
}

/* The wait for a ReportResp of a subscriber with RespTimeValue rtv. */
static unsigned inform_timeout_ms(unsigned rtv)
{
	uint64_t ms = ((4096ULL << rtv) / 1000000) + INFORM_REPORT_SLACK_MS;

	return ms > SA_REPORT_WAIT_MS ? SA_REPORT_WAIT_MS : (unsigned)ms;
}

/* Queue a Report of notice to s and send it.  0 or -ENOBUFS (counted). */
static int inform_report(struct sa_inform_db *db, const struct inform_sub *s, const uint8_t *notice,
			 const struct snapshot *snap)
{
	struct inform_report *r = NULL;
	unsigned i;

	for (i = 0; i < INFORM_REPORTS_MAX && db->reports[i].busy; i++)
		;
	if (i == INFORM_REPORTS_MAX) {
		db->dropped++;
		return -ENOBUFS;
	}
	r = &db->reports[i];
	if (db->base && !r->timer) {
		r->timer = evtimer_new(db->base, inform_report_timeout, r);
		if (!r->timer) {
			db->dropped++;
			return -ENOBUFS;
		}
	}
	db->seq = (db->seq + 1) & ((1u << (32 - INFORM_SLOT_BITS)) - 1);
	if (!db->seq)
		db->seq = 1;
	r->busy = true;
	r->tid = db->seq << INFORM_SLOT_BITS | i;
	r->port_guid = s->port_guid;
	r->qpn = s->qpn;
	r->sl = s->sl;
	r->sends = 0;
	r->timeout_ms = inform_timeout_ms((unsigned)ii_get(s->ii, SA_II_RESP_TIME));
	memcpy(r->notice, notice, sizeof(r->notice));
	db->n_reports++;
	inform_report_send(r, snap);
	return 0;
}

void sa_inform_report_resp(struct sa_inform_db *db, const struct madio_addr *from,
			   const struct sa_wire_mad *mad)
{
	const struct snapshot *snap = sa_snapshot(db->sa);
	uint32_t tid = (uint32_t)mad->hdr.tid, ni;
	struct inform_report *r = &db->reports[tid & (INFORM_REPORTS_MAX - 1)];
	uint8_t pn;

	/* its TID, from its subscriber: anything else is late, repeated or forged */
	if (!r->busy || r->tid != tid || !snapshot_find_lid(snap, from->slid, &ni, &pn) ||
	    snap->fabric->nodes[ni].ports[pn].guid != r->port_guid)
		return;
	db->acked++;
	inform_report_free(r);
}

/* ---- notices --------------------------------------------------------------------- */

/* Whether subscription ii selects the SA's trap about gid (LID lid, 0 if none). */
static bool inform_selects(const uint8_t *ii, uint16_t trap, const uint8_t *gid, uint16_t lid)
{
	uint64_t type = ii_get(ii, SA_II_TYPE), tn = ii_get(ii, SA_II_TRAP);
	uint64_t prod = ii_get(ii, SA_II_PRODUCER), begin, end;

	if (!ii_get(ii, SA_II_IS_GENERIC) ||
	    (type != 0xffff && type != INFORM_NOTICE_TYPE_SUBN_MGMT) ||
	    (tn != 0xffff && tn != trap) ||
	    (prod != 0xffffff && prod != INFORM_PRODUCER_CLASS_MANAGER))
		return false;
	if (!gid_is_zero(ii)) {
		/* a port GID: its GUID (the prefix was checked when subscribing); an MGID whole */
		return ii[0] == 0xff ? !memcmp(ii, gid, 16) : !memcmp(ii + 8, gid + 8, 8);
	}
	begin = ii_get(ii, SA_II_LID_BEGIN);
	end = ii_get(ii, SA_II_LID_END);
	if (begin == 0xffff)
		return true;
	return lid && begin <= lid && lid <= (end ? end : begin);
}

/*
 * Issue the SA's trap about gid (LID lid) from snap: a Report to every
 * subscription that selects it.  0, or -ENOBUFS when some were dropped.
 */
static int inform_issue(struct sa_inform_db *db, const struct snapshot *snap, uint16_t trap,
			const uint8_t *gid, uint16_t lid)
{
	const struct fabric *f = snap->fabric;
	struct sa_wire_notice n = {0};
	struct sa_sm_info si;
	uint8_t img[SA_WIRE_NOTICE_SIZE];
	int rc = 0;

	if (!db->n_subs)
		return 0;
	sa_sm_info(db->sa, &si);
	n.is_generic = true;
	n.type = INFORM_NOTICE_TYPE_SUBN_MGMT;
	n.producer = INFORM_PRODUCER_CLASS_MANAGER;
	n.trap_num = trap;
	if (f->sm_node < f->n_nodes)
		n.issuer_lid = node_port_lid(&f->nodes[f->sm_node], f->sm_port);
	db->toggle = !db->toggle;
	n.toggle = db->toggle;
	memcpy(n.data + SA_WIRE_NOTICE_GID_OFFS, gid, 16);
	sa_wire_bits_set(n.issuer_gid, 0, 64, sa_subnet_prefix(snap));
	sa_wire_bits_set(n.issuer_gid, 64, 64, si.port_guid);
	sa_wire_notice_encode(&n, img, sizeof(img));
	for (unsigned i = 0; i < db->n_subs; i++)
		if (inform_selects(db->subs[i].ii, trap, gid, lid) &&
		    inform_report(db, &db->subs[i], img, snap) < 0)
			rc = -ENOBUFS;
	return rc;
}

/* Trap 64 or 65, from snap, for every endport of a that b lacks. */
static void inform_ports_diff(struct sa_inform_db *db, const struct snapshot *a,
			      const struct snapshot *b, const struct snapshot *snap, uint16_t trap)
{
	const struct fabric *f = a->fabric;
	struct fabric_port_iter it;

	fabric_for_each_lid_port (f, &it) {
		const struct port *pt = &f->nodes[it.node].ports[it.port];
		uint8_t gid[16], pn;
		uint32_t ni;

		if (!db->n_subs)
			break;
		if (!pt->guid || snapshot_find_port_guid(b, pt->guid, &ni, &pn))
			continue;
		sa_wire_bits_set(gid, 0, 64, sa_subnet_prefix(snap));
		sa_wire_bits_set(gid, 64, 64, pt->guid);
		inform_issue(db, snap, trap, gid, pt->lid);
	}
}

int sa_inform_report_mcast(struct sa *sa, const uint8_t mgid[16], uint16_t mlid, bool created)
{
	struct sa_inform_db *db = sa_informs(sa);
	const struct snapshot *snap = sa_snapshot(sa);

	if (!snap)
		return 0;
	return inform_issue(db, snap, created ? INFORM_TRAP_MGID_CREATED : INFORM_TRAP_MGID_DELETED,
			    mgid, mlid);
}

/* ---- the database -------------------------------------------------------------------- */

struct sa_inform_db *sa_inform_db_new(struct sa *sa)
{
	struct sa_inform_db *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	db->sa = sa;
	db->base = sa_event_base(sa);
	for (unsigned i = 0; i < INFORM_REPORTS_MAX; i++)
		db->reports[i].db = db;
	return db;
}

void sa_inform_db_free(struct sa_inform_db *db)
{
	if (!db)
		return;
	for (unsigned i = 0; i < INFORM_REPORTS_MAX; i++)
		if (db->reports[i].timer)
			event_free(db->reports[i].timer);
	free(db->subs);
	free(db);
}

static void inform_sub_remove(struct sa_inform_db *db, unsigned i)
{
	db->subs[i] = db->subs[--db->n_subs];
}

void sa_inform_publish(struct sa_inform_db *db, const struct snapshot *old,
		       const struct snapshot *snap)
{
	uint32_t ni;
	uint8_t pn;

	if (!snap)
		return;
	for (unsigned i = 0; i < db->n_subs;) {
		if (snapshot_find_port_guid(snap, db->subs[i].port_guid, &ni, &pn))
			i++;
		else
			inform_sub_remove(db, i);
	}
	for (unsigned i = 0; i < INFORM_REPORTS_MAX; i++) {
		struct inform_report *r = &db->reports[i];

		if (r->busy && !snapshot_find_port_guid(snap, r->port_guid, &ni, &pn)) {
			db->dropped++;
			inform_report_free(r);
		}
	}
	if (!old)
		return; /* the first snapshot: nothing came or went, and nobody listens yet */
	inform_ports_diff(db, old, snap, snap, INFORM_TRAP_GID_OUT_OF_SERVICE);
	inform_ports_diff(db, snap, old, snap, INFORM_TRAP_GID_IN_SERVICE);
}

void sa_inform_get_stats(const struct sa_inform_db *db, struct sa_stats *ret)
{
	ret->subscriptions = db->n_subs;
	ret->reports_sent = db->sent;
	ret->reports_acked = db->acked;
	ret->reports_expired = db->expired;
	ret->reports_dropped = db->dropped;
}

/* ---- InformInfo ------------------------------------------------------------------------ */

/* The checks of a Set(InformInfo) before the database is looked at. */
static uint16_t inform_check(const struct sa_query *q, const uint8_t *ii)
{
	uint64_t trap = ii_get(ii, SA_II_TRAP), begin, end;
	uint32_t ni;
	uint8_t pn;

	if (q->req_node == FABRIC_NO_NODE || ii_get(ii, SA_II_SUBSCRIBE) > 1)
		return SA_STATUS_REQ_INVALID;
	if (ii_get(ii, SA_II_IS_GENERIC) && trap >= 256 && trap <= 259 && !sa_query_trusted(q))
		return SA_STATUS_REQ_INVALID;
	if (!gid_is_zero(ii)) {
		uint64_t prefix = sa_wire_bits_get(ii, 0, 64);

		if (ii[0] == 0xff)
			return SA_STATUS_OK; /* an MGID: traps 66, 67 of a group to come */
		if ((prefix != sa_subnet_prefix(q->snap) && prefix != 0xfe80000000000000ULL) ||
		    !snapshot_find_port_guid(q->snap, sa_wire_bits_get(ii, 64, 64), &ni, &pn))
			return SA_STATUS_INVALID_GID;
		/*
		 * Traps about a port the subscriber shares no partition with
		 * are not its business (OpenSM's validate_ports_access_rights:
		 * osm_physp_share_pkey).  Unsubscribing is always allowed.
		 */
		if (ii_get(ii, SA_II_SUBSCRIBE) == 1 && !sa_query_trusted(q)) {
			const uint16_t *ta, *tb;
			size_t ka, kb;
			uint16_t unused;

			sa_port_pkeys(q, q->req_node, q->req_port, &ta, &ka);
			sa_port_pkeys(q, ni, pn, &tb, &kb);
			if (!partition_common(ta, ka, tb, kb, 0, &unused)) {
				sa_count_pkey(q->sa, SA_PKEY_INFORM);
				return SA_STATUS_REQ_INVALID;
			}
		}
		return SA_STATUS_OK;
	}
	begin = ii_get(ii, SA_II_LID_BEGIN);
	end = ii_get(ii, SA_II_LID_END);
	if (begin != 0xffff && end && end < begin)
		return SA_STATUS_REQ_INVALID;
	return SA_STATUS_OK;
}

/* Index of guid's subscription from QP qpn selecting what ii does, or -1. */
static int inform_find(const struct sa_inform_db *db, uint64_t guid, uint32_t qpn,
		       const uint8_t *ii)
{
	for (unsigned i = 0; i < db->n_subs; i++)
		if (db->subs[i].port_guid == guid && db->subs[i].qpn == qpn &&
		    sa_wire_match(&sa_wire_inform_info, ii, db->subs[i].ii, INFORM_SELECTORS))
			return (int)i;
	return -1;
}

/* A new subscription of guid, its Enum the lowest free one.  NULL when over a limit. */
static struct inform_sub *inform_add(struct sa_inform_db *db, uint64_t guid)
{
	unsigned mine = 0;
	uint16_t e = 0;
	struct inform_sub *s;

	for (unsigned i = 0; i < db->n_subs; i++)
		mine += db->subs[i].port_guid == guid;
	if (db->n_subs >= INFORM_MAX || mine >= INFORM_PER_PORT_MAX)
		return NULL;
	for (bool taken = true; taken; e += taken) {
		taken = false;
		for (unsigned i = 0; i < db->n_subs && !taken; i++)
			taken = db->subs[i].port_guid == guid && db->subs[i].enum_id == e;
	}
	if (db->n_subs == db->cap_subs) {
		unsigned cap = db->cap_subs ? db->cap_subs * 2 : 16;
		struct inform_sub *v = realloc(db->subs, cap * sizeof(*v));

		if (!v)
			return NULL;
		db->subs = v;
		db->cap_subs = cap;
	}
	s = &db->subs[db->n_subs++];
	memset(s, 0, sizeof(*s));
	s->port_guid = guid;
	s->enum_id = e;
	return s;
}

static uint16_t inform_set(struct sa_query *q, struct sa_result *res)
{
	struct sa_inform_db *db = sa_informs(q->sa);
	uint8_t ii[SA_II_SIZE];
	uint16_t st;
	uint64_t guid = 0;
	int i = -1;

	memcpy(ii, q->qrec, sizeof(ii));
	res->stride = INFORM_II_STRIDE;
	st = inform_check(q, ii);
	if (st == SA_STATUS_OK) {
		guid = q->snap->fabric->nodes[q->req_node].ports[q->req_port].guid;
		i = inform_find(db, guid, q->from->qpn, ii);
		if (!ii_get(ii, SA_II_SUBSCRIBE) && i < 0)
			st = SA_STATUS_REQ_INVALID; /* nothing to unsubscribe from */
	}
	if (st == SA_STATUS_OK && ii_get(ii, SA_II_SUBSCRIBE)) {
		struct inform_sub *s = i >= 0 ? &db->subs[i] : inform_add(db, guid);

		if (s) {
			memcpy(s->ii, ii, sizeof(s->ii));
			ii_set(s->ii, SA_II_QPN, q->from->qpn);
			s->qpn = q->from->qpn;
			s->sl = q->from->sl;
		} else {
			st = SA_STATUS_NO_RESOURCES;
		}
	} else if (st == SA_STATUS_OK) {
		inform_sub_remove(db, (unsigned)i);
	}
	if (st != SA_STATUS_OK)
		ii_set(ii, SA_II_SUBSCRIBE, 0);
	if (sa_result_add(res, ii, sizeof(ii)) < 0)
		return SA_STATUS_NO_RESOURCES;
	return st;
}

/* ---- InformInfoRecord ------------------------------------------------------------------ */

static uint16_t inform_record_get(struct sa_query *q, struct sa_result *res)
{
	const struct sa_inform_db *db = sa_informs(q->sa);
	bool trusted = sa_query_trusted(q);

	for (unsigned i = 0; i < db->n_subs && !sa_result_full(res); i++) {
		const struct inform_sub *s = &db->subs[i];
		uint8_t rec[SA_WIRE_REC_MAX] = {0};

		sa_wire_bits_set(rec, 0, 64, sa_subnet_prefix(q->snap));
		sa_wire_bits_set(rec, 64, 64, s->port_guid);
		sa_wire_bits_set(rec, 128, 16, s->enum_id);
		memcpy(rec + SA_IIR_II_OFFS, s->ii, sizeof(s->ii));
		if (!trusted)
			ii_set(rec + SA_IIR_II_OFFS, SA_II_QPN, 0);
		sa_query_offer(q, res, rec);
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_inform_attrs[] = {
    {SA_ATTR_INFORM_INFO, NULL, NULL, inform_set, NULL, false},
    {SA_ATTR_INFORM_INFO_RECORD, &sa_wire_inform_info_record, inform_record_get, NULL, NULL, false},
};

const unsigned sa_inform_n_attrs = sizeof(sa_inform_attrs) / sizeof(sa_inform_attrs[0]);

/* ---- state sync (failover/syncdoc.c) ------------------------------------------------------- */

size_t sa_inform_count(const struct sa_inform_db *db)
{
	return db ? db->n_subs : 0;
}

void sa_inform_export(const struct sa_inform_db *db, size_t i, struct sa_inform_image *ret)
{
	const struct inform_sub *s = &db->subs[i];

	ret->port_guid = s->port_guid;
	ret->qpn = s->qpn;
	ret->sl = s->sl;
	memcpy(ret->ii, s->ii, SA_II_SIZE);
}

int sa_inform_restore(struct sa_inform_db *db, const struct sa_inform_image *im)
{
	struct inform_sub *s;

	if (!im->port_guid || im->qpn > 0xffffff || im->sl > 15)
		return -EINVAL;
	if (inform_find(db, im->port_guid, im->qpn, im->ii) >= 0)
		return -EEXIST;
	s = inform_add(db, im->port_guid);
	if (!s)
		return -ENOSPC;
	s->qpn = im->qpn;
	s->sl = im->sl;
	memcpy(s->ii, im->ii, SA_II_SIZE);
	ii_set(s->ii, SA_II_QPN, im->qpn);
	return 0;
}

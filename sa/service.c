/*
 * The service database (see service.h).  IBA 1.4 vol 1, 15.2.5.14
 * (ServiceRecord), 15.4.4 (services); OpenSM's osm_sa_service_record.c and
 * osm_service.c for what clients expect.
 *
 * A service is a ServiceRecord image, keyed by its RID (ServiceID,
 * ServiceGID, ServiceP_Key: the record's first 26 bytes), with a lease.
 *
 *   Set      registers the service or, when its RID is known, replaces the
 *            record and restarts the lease.  ServiceID and ServiceGID must be
 *            in the mask (ERR_REQ_INSUFFICIENT_COMPONENTS; OpenSM answers
 *            ERR_REQ_INVALID); no ServiceP_Key means the default 0xFFFF, no
 *            ServiceLease an infinite one.  The answer is the record stored.
 *   Delete   removes the record of the query's RID and answers it
 *            (ERR_NO_RECORDS when there is none).
 *   Get      matches every live service against the ComponentMask.
 *
 * Who may register: ServiceGID must be a port of the published fabric
 * (ERR_REQ_INVALID_GID otherwise: a GID of another subnet prefix, a
 * multicast GID, a GUID no port has; prefix 0 is taken as this subnet's,
 * as OpenSM takes it and osmtest sends it, and kept as sent), and only that port may register or
 * delete records of its GID (ERR_REQ_DENIED for any other requester).  The
 * one exception is a trusted request (its SM_Key is the SA's key, the
 * sa_key of ibsmd.conf, which only the SM and the management software it
 * trusts know, 15.4.1; OpenSM's sa_key likewise): such a
 * requester may manage records on behalf of any port.  OpenSM checks only
 * the P_Key; the IBA leaves the rule to the SA (C15-0.1.x), and without
 * this one any host could replace or delete another host's service.
 *
 * ServiceKey is answered as 0 except to a trusted requester (15.2.5.14, as
 * OpenSM does); ServiceLease is answered as the seconds left (rounded up).
 * The requester's P_Key is not checked: the SM sets the default partition
 * only, which every port is a member of.
 *
 * Leases: a service with a finite lease expires lease seconds after its
 * last Set.  An expired service is invisible at once (Get, Delete, RID
 * lookups skip it); a timer every SERVICE_TICK_MS frees expired ones,
 * looking at no more than SERVICE_SCAN_MAX services per tick (a cursor
 * goes round), so a full database is swept within SERVICE_MAX /
 * SERVICE_SCAN_MAX ticks.  The timer runs only while some service has a
 * finite lease.  A service whose ServiceGID port is not in a newly
 * published snapshot is removed.
 *
 * Cost: Set and Delete look the RID up in O(services); Get is O(services).
 * SERVICE_MAX bounds both (4096 services: a Set scans 700 KB at most).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include <infiniband/mad.h>

#include "sa/sa_int.h"
#include "sa/service.h"

#define SERVICE_RID_LEN 26 /* ServiceID, ServiceGID, ServiceP_Key */
#define SERVICE_DEFAULT_PKEY 0xffff

struct service {
	uint8_t rec[SA_SR_SIZE]; /* as registered (ServiceLease: the lease asked for) */
	uint64_t port_guid;	 /* the ServiceGID's port */
	uint64_t expires_ms;	 /* monotonic; 0: never */
};

struct sa_service_db {
	struct sa *sa;
	struct event *timer; /* NULL without an event loop */
	struct service *svc;
	unsigned n, cap;
	unsigned n_finite; /* services with a finite lease (the timer runs while > 0) */
	unsigned cursor;   /* where the next tick goes on */
};

static uint64_t service_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool service_expired(const struct service *s, uint64_t now)
{
	return s->expires_ms && s->expires_ms <= now;
}

static void service_remove(struct sa_service_db *db, unsigned i)
{
	if (db->svc[i].expires_ms)
		db->n_finite--;
	db->svc[i] = db->svc[--db->n];
}

/* ---- the lease timer ------------------------------------------------------------ */

static void service_arm(struct sa_service_db *db)
{
	struct timeval tv = {SERVICE_TICK_MS / 1000, (SERVICE_TICK_MS % 1000) * 1000};

	if (db->timer && db->n_finite && !evtimer_pending(db->timer, NULL))
		evtimer_add(db->timer, &tv);
}

static void service_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sa_service_db *db = arg;
	uint64_t now = service_now_ms();

	for (unsigned k = 0; k < SERVICE_SCAN_MAX && db->n; k++) {
		if (db->cursor >= db->n)
			db->cursor = 0;
		if (service_expired(&db->svc[db->cursor], now))
			service_remove(db, db->cursor); /* the last one moved here: look again */
		else
			db->cursor++;
	}
	service_arm(db);
}

struct sa_service_db *sa_service_db_new(struct sa *sa)
{
	struct sa_service_db *db = calloc(1, sizeof(*db));
	struct event_base *base = sa_event_base(sa);

	if (!db)
		return NULL;
	db->sa = sa;
	if (base) {
		db->timer = evtimer_new(base, service_tick, db);
		if (!db->timer) {
			free(db);
			return NULL;
		}
	}
	return db;
}

void sa_service_db_free(struct sa_service_db *db)
{
	if (!db)
		return;
	if (db->timer)
		event_free(db->timer);
	free(db->svc);
	free(db);
}

void sa_service_publish(struct sa_service_db *db, const struct snapshot *snap)
{
	uint32_t ni;
	uint8_t pn;

	if (!snap)
		return;
	for (unsigned i = 0; i < db->n;) {
		if (snapshot_find_port_guid(snap, db->svc[i].port_guid, &ni, &pn))
			i++;
		else
			service_remove(db, i);
	}
}

void sa_service_get_stats(const struct sa_service_db *db, struct sa_stats *ret)
{
	uint64_t now = service_now_ms();

	ret->services = 0;
	for (unsigned i = 0; i < db->n; i++)
		ret->services += !service_expired(&db->svc[i], now);
}

/* Free every expired service at once (the database is full). */
static void service_purge(struct sa_service_db *db, uint64_t now)
{
	for (unsigned i = 0; i < db->n;) {
		if (service_expired(&db->svc[i], now))
			service_remove(db, i);
		else
			i++;
	}
}

/* ---- the handlers ------------------------------------------------------------- */

/* Index of the live service with rec's RID, or -1. */
static int service_find(const struct sa_service_db *db, const uint8_t *rec, uint64_t now)
{
	for (unsigned i = 0; i < db->n; i++)
		if (!service_expired(&db->svc[i], now) &&
		    !memcmp(db->svc[i].rec, rec, SERVICE_RID_LEN))
			return (int)i;
	return -1;
}

/* The answer image of s: ServiceKey hidden from the untrusted, the lease left. */
static void service_image(const struct sa_query *q, const struct service *s, uint64_t now,
			  uint8_t *out)
{
	memcpy(out, s->rec, SA_SR_SIZE);
	if (!sa_query_trusted(q))
		memset(out + SA_SR_KEY_OFFS, 0, 16);
	if (s->expires_ms)
		mad_set_field(out, 0, IB_SA_SR_LEASE_F,
			      (uint32_t)((s->expires_ms - now + 999) / 1000));
}

/*
 * The query's record with the defaults filled in (ServiceP_Key 0xFFFF,
 * ServiceLease infinite), after the checks Set and Delete share: the RID in
 * the mask, ServiceGID a port of the fabric, the requester that port (or
 * trusted).  SA_STATUS_OK with *ret_guid the port's GUID, or the status.
 */
static uint16_t service_check(const struct sa_query *q, uint8_t *rec, uint64_t *ret_guid)
{
	const struct fabric *f = q->snap->fabric;
	const uint8_t *gid = rec + SA_SR_GID_OFFS;
	uint64_t prefix, guid;
	uint32_t ni;
	uint8_t pn;

	memcpy(rec, q->qrec, SA_SR_SIZE);
	if (!(q->mask & (1ULL << SA_SR_ID)) || !(q->mask & (1ULL << SA_SR_GID)))
		return SA_STATUS_INSUFFICIENT_COMPS;
	if (!(q->mask & (1ULL << SA_SR_PKEY)))
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, SERVICE_DEFAULT_PKEY);
	if (!(q->mask & (1ULL << SA_SR_LEASE)))
		mad_set_field(rec, 0, IB_SA_SR_LEASE_F, SA_SR_LEASE_INFINITE);
	prefix = sa_wire_bits_get(gid, 0, 64);
	guid = sa_wire_bits_get(gid, 64, 64);
	/* prefix 0 names this subnet too (osmtest registers so; OpenSM takes it, docs/sa.md) */
	if ((prefix && prefix != sa_subnet_prefix(q->snap) && prefix != 0xfe80000000000000ULL) ||
	    !snapshot_find_port_guid(q->snap, guid, &ni, &pn))
		return SA_STATUS_INVALID_GID;
	if (!sa_query_trusted(q)) {
		if (q->req_node == FABRIC_NO_NODE)
			return SA_STATUS_REQ_INVALID;
		if (f->nodes[q->req_node].ports[q->req_port].guid != guid)
			return SA_STATUS_DENIED;
	}
	*ret_guid = guid;
	return SA_STATUS_OK;
}

static uint16_t service_get(struct sa_query *q, struct sa_result *res)
{
	const struct sa_service_db *db = sa_services(q->sa);
	uint64_t now = service_now_ms();
	uint8_t img[SA_SR_SIZE];

	for (unsigned i = 0; i < db->n && !sa_result_full(res); i++) {
		const struct service *s = &db->svc[i];

		/* matched as registered (OpenSM: a ServiceKey query finds its record), answered
		 * as seen */
		if (service_expired(s, now) || !sa_wire_match(q->rec, q->qrec, s->rec, q->mask))
			continue;
		/* a service of a partition the requester is not in is not there for it */
		if (!sa_query_trusted(q) &&
		    (q->req_node == FABRIC_NO_NODE ||
		     !sa_port_has_pkey(
			 q, q->req_node, q->req_port,
			 (uint16_t)mad_get_field((void *)s->rec, 0, IB_SA_SR_PKEY_F))))
			continue;
		service_image(q, s, now, img);
		if (sa_result_add(res, img, SA_SR_SIZE) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return SA_STATUS_OK;
}

static uint16_t service_set(struct sa_query *q, struct sa_result *res)
{
	struct sa_service_db *db = sa_services(q->sa);
	uint64_t now = service_now_ms(), guid;
	uint8_t rec[SA_SR_SIZE], img[SA_SR_SIZE];
	uint16_t st = service_check(q, rec, &guid);
	struct service *s;
	uint32_t lease;
	uint32_t ni;
	uint8_t pn;
	int i;

	if (st != SA_STATUS_OK)
		return st;
	/*
	 * A ServiceP_Key asked for must be the ServiceGID port's (and so the
	 * requester's, unless trusted), as OpenSM's validate_sr: a host may
	 * not advertise a service in a partition it is not in.
	 */
	if ((q->mask & (1ULL << SA_SR_PKEY)) && snapshot_find_port_guid(q->snap, guid, &ni, &pn) &&
	    !sa_port_has_pkey(q, ni, pn, (uint16_t)mad_get_field(rec, 0, IB_SA_SR_PKEY_F))) {
		sa_count_pkey(q->sa, SA_PKEY_SERVICE);
		return SA_STATUS_REQ_INVALID;
	}
	i = service_find(db, rec, now);
	if (i < 0) {
		if (db->n >= SERVICE_MAX)
			service_purge(db, now); /* free what has expired before refusing */
		if (db->n >= SERVICE_MAX)
			return SA_STATUS_NO_RESOURCES;
		if (db->n == db->cap) {
			unsigned cap = db->cap ? db->cap * 2 : 16;
			struct service *v = realloc(db->svc, cap * sizeof(*v));

			if (!v)
				return SA_STATUS_NO_RESOURCES;
			db->svc = v;
			db->cap = cap;
		}
		i = (int)db->n++;
		db->svc[i].expires_ms = 0;
	}
	s = &db->svc[i];
	if (s->expires_ms)
		db->n_finite--;
	memcpy(s->rec, rec, SA_SR_SIZE);
	s->port_guid = guid;
	lease = mad_get_field(rec, 0, IB_SA_SR_LEASE_F);
	s->expires_ms = lease == SA_SR_LEASE_INFINITE ? 0 : now + (uint64_t)lease * 1000;
	if (s->expires_ms) {
		if (!lease)
			s->expires_ms = now; /* a lease of 0 s ends at once (as OpenSM's) */
		db->n_finite++;
		service_arm(db);
	}
	memcpy(img, rec, SA_SR_SIZE);
	if (!sa_query_trusted(q))
		memset(img + SA_SR_KEY_OFFS, 0, 16);
	return sa_result_add(res, img, SA_SR_SIZE) == 0 ? SA_STATUS_OK : SA_STATUS_NO_RESOURCES;
}

static uint16_t service_delete(struct sa_query *q, struct sa_result *res)
{
	struct sa_service_db *db = sa_services(q->sa);
	uint64_t now = service_now_ms(), guid;
	uint8_t rec[SA_SR_SIZE], img[SA_SR_SIZE];
	uint16_t st = service_check(q, rec, &guid);
	int i;

	if (st != SA_STATUS_OK)
		return st;
	i = service_find(db, rec, now);
	if (i < 0)
		return SA_STATUS_NO_RECORDS;
	service_image(q, &db->svc[i], now, img);
	if (sa_result_add(res, img, SA_SR_SIZE) < 0)
		return SA_STATUS_NO_RESOURCES;
	service_remove(db, (unsigned)i);
	return SA_STATUS_OK;
}

const struct sa_attr sa_service_attrs[] = {
    {SA_ATTR_SERVICE_RECORD, &sa_wire_service_record, service_get, service_set, service_delete,
     false},
};

const unsigned sa_service_n_attrs = sizeof(sa_service_attrs) / sizeof(sa_service_attrs[0]);

/* ---- state sync (failover/syncdoc.c) ------------------------------------------------------- */

size_t sa_service_count(const struct sa_service_db *db)
{
	return db ? db->n : 0;
}

bool sa_service_export(const struct sa_service_db *db, size_t i, uint8_t rec[SA_SR_SIZE],
		       uint64_t *ret_left_ms)
{
	const struct service *s = &db->svc[i];
	uint64_t now = service_now_ms();

	if (service_expired(s, now))
		return false;
	memcpy(rec, s->rec, SA_SR_SIZE);
	*ret_left_ms = s->expires_ms ? s->expires_ms - now : 0;
	return true;
}

int sa_service_restore(struct sa_service_db *db, const uint8_t rec[SA_SR_SIZE], uint64_t left_ms)
{
	uint64_t now = service_now_ms(), guid = sa_wire_bits_get(rec + SA_SR_GID_OFFS, 64, 64);
	struct service *s;

	if (!guid)
		return -EINVAL;
	if (service_find(db, rec, now) >= 0)
		return -EEXIST;
	if (db->n >= SERVICE_MAX)
		service_purge(db, now);
	if (db->n >= SERVICE_MAX)
		return -ENOSPC;
	if (db->n == db->cap) {
		unsigned cap = db->cap ? db->cap * 2 : 16;
		struct service *v = realloc(db->svc, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		db->svc = v;
		db->cap = cap;
	}
	s = &db->svc[db->n++];
	memcpy(s->rec, rec, SA_SR_SIZE);
	s->port_guid = guid;
	s->expires_ms = left_ms ? now + left_ms : 0;
	if (s->expires_ms) {
		db->n_finite++;
		service_arm(db);
	}
	return 0;
}

/*
 * State sync between a master and its standby (see sync.h): the master's
 * HTTP endpoint, the standby's pulls, and the merge at a takeover.
 *
 * The master builds the document for every request (O(state): a few ms
 * for thousands of members).  Its generation starts at the daemon's start
 * time in microseconds (so a restarted master's documents stay newer) and
 * goes up by one whenever the state it encodes changes (leases running down
 * are no change).  The standby keeps the newest document of its master
 * decoded, and merges it only when it takes over: while it stands by, its
 * own databases stay as they were (an SA of a standby answers nobody).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "sa/sa.h"
#include "failover/syncdoc.h"
#include "fabric/lid.h"
#include "smp/program.h"
#include "sm/part.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"
#include "tenants/tenants.h"
#include "failover/sync.h"

struct sync_peer {
	struct sync *sy;
	char host[CONF_NAME_MAX];
	char name[CONF_NAME_MAX]; /* as configured, for logs */
	uint16_t port;
	struct evhttp_connection *conn;
	bool inflight;
	double last_ok_wall;
	uint64_t errors;
};

struct sync {
	struct sm *sm;
	/* master: what it serves (ui/http.c on sync_listen, sync_answer) */
	char *last_cmp; /* the document last served, leases zeroed: what changes the generation */
	uint64_t gen;
	uint64_t served, refused;
	/* standby: the pulls */
	struct sync_peer peers[SYNC_MAX_PEERS];
	unsigned n_peers;
	struct event *timer;
	struct syncdoc *doc; /* the newest document of the master, decoded */
	double doc_ms, doc_wall;
	char doc_peer[CONF_NAME_MAX];
	uint64_t pulls, accepted, rejected;
	char last_error[CONF_NAME_MAX + 208];
	double last_error_wall;
	uint64_t polled_master; /* the master the standby polled last */
	bool was_standby;
	/* the takeover */
	bool rereg_pending, rereg_all;
	uint64_t *rereg_guids;
	size_t n_rereg;
	uint64_t carried, rereg_takeovers, rereg_ports;
	char last_takeover[256];
};

static void sync_free(struct sm *sm, void *obj);

static const struct sm_part_ops sync_part = {"sync", sync_free};

static struct sync *sync_of(const struct sm *sm)
{
	return sm_part_get(sm, &sync_part);
}

unsigned sync_max_age_ms(const struct sm *sm)
{
	/* two pulls missed, plus the time the standby took to find the master dead */
	return 2u * (unsigned)sm->conf.sync_interval_ms +
	       (unsigned)(sm->conf.sminfo_poll_interval_ms * (sm->conf.sminfo_poll_count + 1)) +
	       SYNC_TIMEOUT_MS;
}

/* "HOST:PORT" or "[V6]:PORT" into host and port; false when malformed. */
static bool sync_split(const char *s, char *host, size_t host_len, uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	const char *h = s;
	size_t n;
	char *end;
	long p;

	if (!colon)
		return false;
	n = (size_t)(colon - s);
	if (s[0] == '[') {
		if (n < 2 || s[n - 1] != ']')
			return false;
		h = s + 1;
		n -= 2;
	}
	if (!n || n >= host_len)
		return false;
	memcpy(host, h, n);
	host[n] = 0;
	p = strtol(colon + 1, &end, 10);
	if (*end || p < 1 || p > 65535)
		return false;
	*port = (uint16_t)p;
	return true;
}

static bool sync_key_ok(const struct sm *sm, const char *v)
{
	char *end;
	unsigned long long k;

	if (!v || !*v)
		return false;
	errno = 0;
	k = strtoull(v, &end, 16);
	return !errno && !*end && k == sm->conf.sm_key;
}

/* ---- the master's endpoint ------------------------------------------------------ */

struct lid_collect {
	struct syncdoc_lid *v;
	size_t n, cap;
	bool nomem;
};

static void lid_collect_one(void *ctx, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	struct lid_collect *lc = ctx;

	if (lc->nomem || lc->n >= SYNCDOC_MAX_LIDS)
		return;
	if (lc->n == lc->cap) {
		size_t cap = lc->cap ? lc->cap * 2 : 64;
		struct syncdoc_lid *v = realloc(lc->v, cap * sizeof(*v));

		if (!v) {
			lc->nomem = true;
			return;
		}
		lc->v = v;
		lc->cap = cap;
	}
	lc->v[lc->n++] = (struct syncdoc_lid){guid, lid, lmc};
}

/* The document as served, NULL on ENOMEM; bumps the generation when the state changed. */
static char *sync_document(struct sync *sy, size_t *ret_len)
{
	struct sm *sm = sy->sm;
	struct lid_collect lc = {0};
	json_t *full = NULL, *copy = NULL, *s;
	char *cmp = NULL, *body = NULL;
	size_t i;

	lid_db_foreach(sm->lids, lid_collect_one, &lc);
	if (lc.nomem)
		goto out;
	full = syncdoc_encode(sm->port_guid, 0, sm->mcast, sm->sa ? sa_services(sm->sa) : NULL,
			      sm->sa ? sa_informs(sm->sa) : NULL, lc.v, lc.n);
	/* the runtime partitions (tenants/tenants.h), the whole set */
	if (full && tenants_set(sm) &&
	    json_object_set_new(full, "runtime_partitions", pkeyset_to_json(tenants_set(sm))) < 0)
		goto out;
	/* what the generation follows: the document without its leases' countdown */
	copy = full ? json_deep_copy(full) : NULL;
	if (!copy)
		goto out;
	json_array_foreach (json_object_get(copy, "services"), i, s)
		json_object_set_new(s, "lease_left_ms", json_integer(0));
	cmp = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	if (!cmp)
		goto out;
	if (!sy->last_cmp || strcmp(cmp, sy->last_cmp)) {
		sy->gen++;
		free(sy->last_cmp);
		sy->last_cmp = cmp;
		cmp = NULL;
	}
	json_object_set_new(full, "generation", json_integer((json_int_t)sy->gen));
	body = json_dumps(full, JSON_COMPACT);
	if (body)
		*ret_len = strlen(body);
out:
	json_decref(copy);
	json_decref(full);
	free(cmp);
	free(lc.v);
	return body;
}

int sync_answer(struct sm *sm, const char *path, const char *key, const char *peer,
		struct sync_reply *ret)
{
	struct sync *sy = sync_of(sm);

	*ret = (struct sync_reply){404, "Not Found", "text/plain", NULL, 0};
	if (!sy || strcmp(path, SYNC_PATH)) {
		if (sy)
			sy->refused++;
		ret->body = strdup("not a sync request\n");
		goto text;
	}
	if (!sync_key_ok(sm, key)) {
		sy->refused++;
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"sync: request from %s refused: %s SM_Key", peer,
				key ? "wrong" : "no");
		*ret = (struct sync_reply){403, "Forbidden", "text/plain", strdup("wrong SM_Key\n"),
					   0};
		goto text;
	}
	if (sm->state != SM_MASTER) {
		*ret = (struct sync_reply){503, "Service Unavailable", "text/plain",
					   strdup("not the master\n"), 0};
		goto text;
	}
	ret->body = sync_document(sy, &ret->len);
	if (!ret->body) {
		*ret = (struct sync_reply){500, "Internal Server Error", "text/plain",
					   strdup("out of memory\n"), 0};
		goto text;
	}
	*ret = (struct sync_reply){200, "OK", "application/json", ret->body, ret->len};
	sy->served++;
	log_debug(LOG_CAT_SWEEP, "sync: document generation %" PRIu64 " (%zu bytes) to %s", sy->gen,
		  ret->len, peer);
	return ret->status;
text:
	ret->len = ret->body ? strlen(ret->body) : 0;
	return ret->status;
}

/* ---- the standby's pulls ------------------------------------------------------ */

static void sync_refuse(struct sync *sy, struct sync_peer *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void sync_refuse(struct sync *sy, struct sync_peer *p, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	sy->rejected++;
	p->errors++;
	snprintf(sy->last_error, sizeof(sy->last_error), "%s: %s", p->name, why);
	sy->last_error_wall = clock_wall_s();
	log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "sync: document from %s refused: %s", p->name,
			why);
}

static void sync_got(struct evhttp_request *req, void *arg)
{
	struct sync_peer *p = arg;
	struct sync *sy = p->sy;
	struct sm *sm = sy->sm;
	struct evbuffer *in;
	struct syncdoc *doc = NULL;
	char err[200];
	size_t len;
	const char *buf;
	int code, r;

	p->inflight = false;
	code = req ? evhttp_request_get_response_code(req) : 0;
	if (!req || !code) {
		sync_refuse(sy, p, "no answer (refused, timed out, or over %u bytes)",
			    SYNCDOC_MAX_BYTES);
		return;
	}
	if (code != HTTP_OK) {
		if (code == 503)
			return; /* a standby itself: not the one to pull from */
		sync_refuse(sy, p, "HTTP %d%s", code, code == 403 ? " (wrong SM_Key)" : "");
		return;
	}
	if (sm->state != SM_STANDBY)
		return;
	in = evhttp_request_get_input_buffer(req);
	len = evbuffer_get_length(in);
	if (len > SYNCDOC_MAX_BYTES) {
		sync_refuse(sy, p, "%zu bytes, at most %u", len, SYNCDOC_MAX_BYTES);
		return;
	}
	buf = (const char *)evbuffer_pullup(in, -1);
	if (!buf && len) {
		sync_refuse(sy, p, "out of memory");
		return;
	}
	r = syncdoc_decode(buf ? buf : "", len, &doc, err, sizeof(err));
	if (r < 0) {
		sync_refuse(sy, p, "%s", err);
		return;
	}
	if (doc->sm_guid != sm->master_guid) {
		sync_refuse(sy, p, "it is SM 0x%016" PRIx64 "'s, the master is 0x%016" PRIx64,
			    doc->sm_guid, sm->master_guid);
		syncdoc_free(doc);
		return;
	}
	if (sy->doc && sy->doc->sm_guid == doc->sm_guid && doc->generation < sy->doc->generation) {
		sync_refuse(sy, p, "generation %" PRIu64 " is older than %" PRIu64 " held",
			    doc->generation, sy->doc->generation);
		syncdoc_free(doc);
		return;
	}
	if (!sy->doc || sy->doc->generation != doc->generation || sy->doc->sm_guid != doc->sm_guid)
		log_msg(LOG_CAT_SWEEP, sy->doc ? LOG_DEBUG : LOG_INFO,
			"sync: state of master 0x%016" PRIx64 " generation %" PRIu64
			" from %s: %zu groups, %zu services, %zu subscriptions, %zu LIDs",
			doc->sm_guid, doc->generation, p->name, doc->n_groups, doc->n_services,
			doc->n_informs, doc->n_lids);
	syncdoc_free(sy->doc);
	sy->doc = doc;
	sy->doc_ms = clock_mono_ms();
	sy->doc_wall = clock_wall_s();
	snprintf(sy->doc_peer, sizeof(sy->doc_peer), "%s", p->name);
	sy->accepted++;
	p->last_ok_wall = sy->doc_wall;
}

static void sync_pull(struct sync *sy, struct sync_peer *p)
{
	struct sm *sm = sy->sm;
	struct evhttp_request *req;
	char key[24];
	struct timeval tv = {SYNC_TIMEOUT_MS / 1000, (SYNC_TIMEOUT_MS % 1000) * 1000};

	if (p->inflight)
		return;
	if (!p->conn) {
		p->conn = evhttp_connection_base_new(sm->base, NULL, p->host, p->port);
		if (!p->conn)
			return;
		evhttp_connection_set_timeout_tv(p->conn, &tv);
		evhttp_connection_set_max_body_size(p->conn, SYNCDOC_MAX_BYTES);
		evhttp_connection_set_max_headers_size(p->conn, 8192);
		evhttp_connection_set_retries(p->conn, 0);
	}
	req = evhttp_request_new(sync_got, p);
	if (!req)
		return;
	snprintf(key, sizeof(key), "0x%016" PRIx64, sm->conf.sm_key);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host", p->host);
	evhttp_add_header(evhttp_request_get_output_headers(req), SYNC_KEY_HEADER, key);
	if (evhttp_make_request(p->conn, req, EVHTTP_REQ_GET, SYNC_PATH) < 0)
		return; /* the request is freed by evhttp */
	p->inflight = true;
	sy->pulls++;
}

static void sync_arm(struct sync *sy)
{
	int ms = sy->sm->conf.sync_interval_ms;
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	if (sy->timer)
		evtimer_add(sy->timer, &tv);
}

static void sync_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sync *sy = arg;
	struct sm *sm = sy->sm;

	(void)fd;
	(void)what;
	if (sm->state == SM_STANDBY && sm->master_guid) {
		sy->polled_master = sm->master_guid;
		for (unsigned i = 0; i < sy->n_peers; i++)
			sync_pull(sy, &sy->peers[i]);
	}
	sync_arm(sy);
}

/* ---- the takeover ------------------------------------------------------------------ */

static void sync_takeover(struct sync *sy)
{
	struct sm *sm = sy->sm;
	struct syncdoc_apply_stats st;
	double age = sy->doc ? clock_mono_ms() - sy->doc_ms : -1;
	size_t lids = 0, pkeys = 0;

	free(sy->rereg_guids);
	sy->rereg_guids = NULL;
	sy->n_rereg = 0;
	sy->rereg_pending = true;
	sy->rereg_all = true;
	if (!sy->n_peers) {
		snprintf(sy->last_takeover, sizeof(sy->last_takeover),
			 "sync is off (no sync_peers): ClientReregister on every host port");
	} else if (!sy->doc) {
		snprintf(sy->last_takeover, sizeof(sy->last_takeover),
			 "no state of the master was ever received: ClientReregister on every "
			 "host port");
	} else if (sy->doc->sm_guid != sy->polled_master) {
		snprintf(sy->last_takeover, sizeof(sy->last_takeover),
			 "the state held is SM 0x%016" PRIx64 "'s, not the master's 0x%016" PRIx64
			 ": ClientReregister on every host port",
			 sy->doc->sm_guid, sy->polled_master);
	} else if (age > sync_max_age_ms(sm)) {
		snprintf(sy->last_takeover, sizeof(sy->last_takeover),
			 "the state held is %.0f ms old (at most %u): ClientReregister on every "
			 "host port",
			 age, sync_max_age_ms(sm));
	} else {
		int r = syncdoc_apply(sy->doc, sm->mcast, sm->sa ? sa_services(sm->sa) : NULL,
				      sm->sa ? sa_informs(sm->sa) : NULL, &st);

		for (size_t i = 0; i < sy->doc->n_lids; i++) {
			const struct syncdoc_lid *l = &sy->doc->lids[i];

			if (!lid_db_get(sm->lids, l->guid) &&
			    lid_db_set(sm->lids, l->guid, l->lid, l->lmc) == 0)
				lids++;
		}
		if (lids)
			sm_save_lids(sm);
		if (sy->doc->pkeys) {
			char who[96];

			snprintf(who, sizeof(who), "takeover from master 0x%016" PRIx64,
				 sy->doc->sm_guid);
			pkeys = sy->doc->pkeys->n;
			tenants_replace(sm, sy->doc->pkeys, who); /* takes it */
			sy->doc->pkeys = NULL;
		}
		sy->rereg_all = r < 0;
		sy->rereg_guids = st.not_carried;
		sy->n_rereg = st.n_not_carried;
		sy->carried++;
		snprintf(sy->last_takeover, sizeof(sy->last_takeover),
			 "carried generation %" PRIu64 " of 0x%016" PRIx64
			 " (%.0f ms old): %zu groups (%zu members), %zu services, %zu "
			 "subscriptions, %zu LIDs, %zu runtime P_Keys; %zu groups, %zu services, "
			 "%zu subscriptions not carried, ClientReregister on %s%zu ports",
			 sy->doc->generation, sy->doc->sm_guid, age, st.groups, st.members,
			 st.services, st.informs, lids, pkeys, st.groups_failed, st.services_failed,
			 st.informs_failed, r < 0 ? "every host port (out of memory), " : "",
			 st.n_not_carried);
	}
	if (sy->rereg_all)
		sy->rereg_takeovers++;
	log_msg(LOG_CAT_SWEEP, sy->rereg_all ? LOG_WARNING : LOG_INFO, "sync: takeover: %s",
		sy->last_takeover);
	syncdoc_free(sy->doc);
	sy->doc = NULL;
}

static void sync_on_state(void *ctx, const void *data)
{
	struct sync *sy = ctx;
	const struct sm_state_change *c = data;

	if (c->to == SM_STANDBY) {
		sy->was_standby = true;
		return;
	}
	if (c->to != SM_MASTER)
		return;
	if (sy->was_standby)
		sync_takeover(sy);
	sy->was_standby = false;
}

static void sync_on_sweep_done(void *ctx, const void *data)
{
	struct sync *sy = ctx;
	const struct sweep_summary *s = data;

	sy->rereg_ports += s->rereg;
}

/* A configure batch is being built (sm->hooks.configure): ClientReregister after a takeover. */
static void sync_on_configure(void *ctx, const void *data)
{
	struct sync *sy = ctx;
	struct program_params *pp = (struct program_params *)data;

	if (!sy || !sy->rereg_pending)
		return;
	pp->rereg_all = sy->rereg_all;
	pp->rereg_guids = sy->rereg_guids;
	pp->n_rereg = sy->n_rereg;
	sy->rereg_pending = false; /* the list lives on until the next takeover */
}

/* ---- set-up, status ---------------------------------------------------------------- */

int sync_attach(struct sm *sm, char *err, size_t err_len)
{
	struct sync *sy = calloc(1, sizeof(*sy));
	const char *q = sm->conf.sync_peers;

	if (!sy || sm_part_add(sm, &sync_part, sy) < 0) {
		free(sy);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	sy->sm = sm;
	sy->gen = (uint64_t)(clock_wall_s() * 1e6);
	while (*q) {
		size_t n = strcspn(q, ",");
		struct sync_peer *p = &sy->peers[sy->n_peers];

		if (sy->n_peers == SYNC_MAX_PEERS) {
			snprintf(err, err_len, "sync_peers: more than %d peers", SYNC_MAX_PEERS);
			return -EINVAL;
		}
		if (n >= sizeof(p->name)) {
			snprintf(err, err_len, "sync_peers: an address is too long");
			return -EINVAL;
		}
		memcpy(p->name, q, n);
		p->name[n] = 0;
		if (!sync_split(p->name, p->host, sizeof(p->host), &p->port)) {
			snprintf(err, err_len, "sync_peers: '%s' is not ADDRESS:PORT", p->name);
			return -EINVAL;
		}
		p->sy = sy;
		sy->n_peers++;
		q += n + (q[n] == ',');
	}
	if (hook_add(&sm->hooks.state_changed, sync_on_state, sy) < 0 ||
	    hook_add(&sm->hooks.sweep_done, sync_on_sweep_done, sy) < 0 ||
	    hook_add(&sm->hooks.configure, sync_on_configure, sy) < 0) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	if (sy->n_peers && sm->base) {
		sy->timer = evtimer_new(sm->base, sync_tick, sy);
		if (!sy->timer) {
			snprintf(err, err_len, "out of memory");
			return -ENOMEM;
		}
		sync_arm(sy);
	}
	return 0;
}

static void sync_free(struct sm *sm, void *obj)
{
	struct sync *sy = obj;

	if (!sy)
		return;
	hook_remove(&sm->hooks.state_changed, sync_on_state, sy);
	hook_remove(&sm->hooks.sweep_done, sync_on_sweep_done, sy);
	hook_remove(&sm->hooks.configure, sync_on_configure, sy);
	if (sy->timer)
		event_free(sy->timer);
	for (unsigned i = 0; i < sy->n_peers; i++)
		if (sy->peers[i].conn)
			evhttp_connection_free(sy->peers[i].conn); /* runs pending callbacks */
	syncdoc_free(sy->doc);
	free(sy->last_cmp);
	free(sy->rereg_guids);
	free(sy);
}

#define SY_FIELD(m, key, metric, kind, help)                                                       \
	STAT_FIELD(struct sync_status, m, key, metric, kind, help)
static const struct stat_field sync_stat_fields[] = {
    SY_FIELD(listen, "listen", NULL, STAT_GAUGE, NULL),
    SY_FIELD(interval_ms, "interval_ms", NULL, STAT_GAUGE, NULL),
    SY_FIELD(pulls, "pulls", "ibsmd_sync_pulls_total", STAT_COUNTER,
	     "State documents asked of the master (standby)."),
    SY_FIELD(accepted, "accepted", "ibsmd_sync_accepted_total", STAT_COUNTER,
	     "State documents taken from the master (standby)."),
    SY_FIELD(rejected, "rejected", "ibsmd_sync_rejected_total", STAT_COUNTER,
	     "Pulls that failed or whose document was refused (standby)."),
    SY_FIELD(served, "served", "ibsmd_sync_served_total", STAT_COUNTER,
	     "State documents served to a standby (master)."),
    SY_FIELD(refused, "refused", "ibsmd_sync_refused_total", STAT_COUNTER,
	     "Sync requests refused (wrong SM_Key, not a sync request)."),
    SY_FIELD(age_s, NULL, "ibsmd_sync_age_seconds", STAT_GAUGE,
	     "Age of the master's state held (standby), -1 without one."),
    SY_FIELD(carried, "carried", "ibsmd_sync_takeovers_carried_total", STAT_COUNTER,
	     "Takeovers that carried the master's SA state."),
    SY_FIELD(rereg_all, "rereg_takeovers", "ibsmd_sync_takeovers_rereg_total", STAT_COUNTER,
	     "Takeovers that could not, and set ClientReregister on every host port."),
    SY_FIELD(rereg_ports, "rereg_ports", "ibsmd_client_reregister_total", STAT_COUNTER,
	     "PortInfo Sets with ClientReregister."),
    SY_FIELD(max_age_ms, "max_age_ms", NULL, STAT_GAUGE, NULL),
};
#undef SY_FIELD

const struct stat_table sync_stat_table = STAT_TABLE("sync", sync_stat_fields);

bool sync_status_get(const struct sm *sm, struct sync_status *ret)
{
	const struct sync *sy = sync_of(sm);

	memset(ret, 0, sizeof(*ret));
	ret->age_s = -1;
	if (!sy)
		return false;
	snprintf(ret->listen, sizeof(ret->listen), "%s", sm->conf.sync_listen);
	ret->interval_ms = sm->conf.sync_interval_ms;
	for (unsigned i = 0; i < sy->n_peers; i++) {
		snprintf(ret->peers[i].address, sizeof(ret->peers[i].address), "%s",
			 sy->peers[i].name);
		ret->peers[i].last_ok_wall = sy->peers[i].last_ok_wall;
		ret->peers[i].errors = sy->peers[i].errors;
	}
	ret->n_peers = sy->n_peers;
	ret->pulls = sy->pulls;
	ret->accepted = sy->accepted;
	ret->rejected = sy->rejected;
	ret->served = sy->served;
	ret->refused = sy->refused;
	ret->carried = sy->carried;
	ret->rereg_all = sy->rereg_takeovers;
	ret->rereg_ports = sy->rereg_ports;
	if (sy->doc) {
		ret->held = true;
		ret->held_generation = sy->doc->generation;
		ret->held_master = sy->doc->sm_guid;
		ret->held_time = sy->doc_wall;
		ret->held_age_ms = clock_mono_ms() - sy->doc_ms;
		ret->age_s = ret->held_age_ms / 1000;
		snprintf(ret->held_peer, sizeof(ret->held_peer), "%s", sy->doc_peer);
		ret->held_groups = sy->doc->n_groups;
		ret->held_services = sy->doc->n_services;
		ret->held_informs = sy->doc->n_informs;
	}
	ret->serving = sm->state == SM_MASTER && sm->conf.sync_listen[0];
	ret->generation = sy->gen;
	snprintf(ret->last_error, sizeof(ret->last_error), "%s", sy->last_error);
	ret->last_error_wall = sy->last_error_wall;
	snprintf(ret->last_takeover, sizeof(ret->last_takeover), "%s", sy->last_takeover);
	ret->max_age_ms = sync_max_age_ms(sm);
	return true;
}

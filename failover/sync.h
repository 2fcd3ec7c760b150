/*
 * State sync between a master and its standby (issue 9): the standby pulls
 * the master's SA state (failover/syncdoc.h) over a configured TCP link and, when
 * it takes over, merges it into its own databases, so that hosts keep their
 * multicast groups (same MLIDs), services and subscriptions, and sets
 * ClientReregister only on ports whose state it could not carry.
 *
 * Transport: HTTP/1.1.  The master's endpoint on sync_listen is served by
 * ui/http.c (its hardened request reader: bounded heads, timeouts, a cap on
 * connections), which hands each request to sync_answer: GET SYNC_PATH is
 * answered with the document (application/json) only when the request's
 * X-Ibsmd-SM-Key header is its sm_key (403 otherwise) and it is MASTER
 * (503 otherwise).  The standby pulls with libevent's evhttp client.  A standby pulls
 * every sync_interval_ms from each of sync_peers (one request in flight per
 * peer, SYNC_TIMEOUT_MS each, answers over SYNCDOC_MAX_BYTES dropped) and
 * keeps the newest document whose sm_guid is the master it polls by SMInfo;
 * anything else (no answer, HTTP error, bad JSON, a bound exceeded, another
 * SM's GUID, an older generation) is refused with a log line (rate-limited)
 * and changes nothing.  The link is neither encrypted nor authenticated
 * beyond the SM_Key, which crosses it in clear: it belongs on a management
 * network.
 *
 * At the takeover (MASTER after having been STANDBY) the document is
 * carried when it came from the master that was polled and is at most
 * sync_max_age_ms() old; otherwise (sync off, never synced, stale) every CA
 * port gets ClientReregister in the takeover sweep's PortInfo Set, so hosts
 * register again with the new SA.
 */
#ifndef IBSMD_SM_SYNC_H
#define IBSMD_SM_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"
#include "sm/conf.h"

struct sm;
struct program_params;

#define SYNC_PATH "/ibsmd/sync/v1"
#define SYNC_KEY_HEADER "X-Ibsmd-SM-Key"
#define SYNC_MAX_PEERS 4
#define SYNC_TIMEOUT_MS 2000

/*
 * Attach state sync to the SM (a part, sm/part.h): its hooks, the endpoint
 * on sync_listen, the pulls from sync_peers.  0 or -errno with err
 * (sync_listen cannot be bound, a bad peer, out of memory).
 */
int sync_attach(struct sm *sm, char *err, size_t err_len);

/* An answer to a sync request (sync_answer). */
struct sync_reply {
	int status; /* HTTP: 200, 403, 404, 500, 503 */
	const char *reason;
	const char *ctype;
	char *body; /* malloc'd (the caller frees), NULL when out of memory */
	size_t len;
};

/*
 * The master's side of a pull (ui/http.c calls it for every request on
 * sync_listen): path the request's path, key its X-Ibsmd-SM-Key header
 * (NULL without one), peer "ADDRESS:PORT" for the log.  Refusals are
 * counted and logged (rate-limited).  Returns ret->status.
 */
int sync_answer(struct sm *sm, const char *path, const char *key, const char *peer,
		struct sync_reply *ret);

/* The oldest document a takeover carries, in ms (from the configuration). */
unsigned sync_max_age_ms(const struct sm *sm);

/* A peer a standby pulls from, as smctl status shows it. */
struct sync_peer_status {
	char address[CONF_NAME_MAX];
	double last_ok_wall; /* 0 = never */
	uint64_t errors;
};

/* What state sync shows (smctl status "sync", metrics). */
struct sync_status {
	char listen[CONF_NAME_MAX]; /* sync_listen */
	int interval_ms;	    /* sync_interval_ms */
	struct sync_peer_status peers[SYNC_MAX_PEERS];
	unsigned n_peers;
	uint64_t pulls, accepted, rejected, served, refused;
	uint64_t carried, rereg_all, rereg_ports;
	double age_s; /* of the held document, -1 without one */
	/* the document held (standby) */
	bool held;
	uint64_t held_generation, held_master, held_groups, held_services, held_informs;
	double held_time, held_age_ms;
	char held_peer[CONF_NAME_MAX];
	bool serving;	     /* MASTER with an endpoint: generation is the one served */
	uint64_t generation; /* served */
	char last_error[CONF_NAME_MAX + 208];
	double last_error_wall; /* 0 = none */
	char last_takeover[256];
	unsigned max_age_ms;
};

/* ret: the status; false (ret zeroed, age_s -1) when sync is not attached. */
bool sync_status_get(const struct sm *sm, struct sync_status *ret);
/* Its counters (status "sync", metrics), lib/stat_table.h. */
extern const struct stat_table sync_stat_table;

#endif

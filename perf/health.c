/* Flapping links and babbling ports (see health.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "fabric/diff.h"
#include "lib/log.h"
#include "perf/health.h"
#include "sm/port.h"
#include "sm/part.h"
#include "sm/sm.h"

struct health {
	struct sm *sm;
	struct health_port *ports;
	size_t n, cap;
	struct health_stats st;
	struct event *timer; /* releases quarantines that are due */
};

static void health_free(struct sm *sm, void *obj);

static const struct sm_part_ops health_part = {"health", health_free};

static struct health *health_of(const struct sm *sm)
{
	return sm_part_get(sm, &health_part);
}

static struct health_port *health_get(struct health *h, uint64_t guid, uint8_t port, bool add)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->ports[i].guid == guid && h->ports[i].port == port)
			return &h->ports[i];
	if (!add)
		return NULL;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct health_port *v = realloc(h->ports, cap * sizeof(*v));

		if (!v)
			return NULL;
		h->ports = v;
		h->cap = cap;
	}
	h->ports[h->n] = (struct health_port){.guid = guid, .port = port};
	return &h->ports[h->n++];
}

const struct health_port *health_find(const struct sm *sm, uint64_t guid, uint8_t port)
{
	return health_of(sm) ? health_get(health_of(sm), guid, port, false) : NULL;
}

static const struct stat_field health_stat_fields[] = {
    STAT_FIELD(struct health_stats, link_downs, "link_downs", "ibsmd_link_downs_total",
	       STAT_COUNTER, "Link downs counted by the flapping-link policy."),
    STAT_FIELD(struct health_stats, port_traps, "port_traps", "ibsmd_port_error_traps_total",
	       STAT_COUNTER, "Port-error traps (129-131) counted by the babbling-port policy."),
    STAT_FIELD(struct health_stats, quarantines, "quarantines", "ibsmd_quarantines_total",
	       STAT_COUNTER, "Ports quarantined (disabled) for flapping or babbling."),
    STAT_FIELD(struct health_stats, releases, "releases", NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct health_stats, quarantined, "quarantined", "ibsmd_ports_quarantined",
	       STAT_GAUGE, "Ports quarantined now."),
};

const struct stat_table health_stat_table = STAT_TABLE("flapping", health_stat_fields);

void health_get_stats(const struct sm *sm, struct health_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (health_of(sm))
		*ret = health_of(sm)->st;
}

int health_link_down(struct sm *sm, uint64_t guid, uint8_t port, double now)
{
	struct health *h = health_of(sm);
	struct health_port *p;
	double window = sm->conf.flap_window_s;
	unsigned keep = 0;

	if (!h || !(p = health_get(h, guid, port, true)))
		return 0;
	h->st.link_downs++;
	p->downs_total++;
	/* forget downs older than the window, and make room */
	for (unsigned i = 0; i < p->n_downs; i++)
		if (now - p->downs[i] <= window)
			p->downs[keep++] = p->downs[i];
	p->n_downs = keep;
	if (p->n_downs == HEALTH_MAX_DOWNS)
		memmove(p->downs, p->downs + 1, --p->n_downs * sizeof(p->downs[0]));
	p->downs[p->n_downs++] = now;
	if (p->quarantined || !sm->conf.flap_threshold ||
	    p->n_downs < (unsigned)sm->conf.flap_threshold)
		return 0;
	p->quarantined = true;
	p->since = clock_wall_s();
	p->release_at = sm->conf.quarantine_s ? now + sm->conf.quarantine_s : 0;
	h->st.quarantines++;
	h->st.quarantined++;
	return 1;
}

void health_forget(struct sm *sm, uint64_t guid, uint8_t port)
{
	struct health *h = health_of(sm);
	struct health_port *p = h ? health_get(h, guid, port, false) : NULL;

	if (!p)
		return;
	if (p->quarantined) {
		struct health_change c = {p, false, "enabled"};

		p->quarantined = false;
		h->st.quarantined--;
		h->st.releases++;
		hook_run(&sm->hooks.quarantine, &c);
	}
	p->n_downs = 0;
	p->n_traps = 0;
}

/* "switch "desc" 0x... port N" of (guid, port) in the published fabric. */
static void health_port_str(const struct sm *sm, uint64_t guid, uint8_t port, char *buf, size_t len)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	uint32_t ni = f ? fabric_find_guid(f, guid) : FABRIC_NO_NODE;

	if (ni == FABRIC_NO_NODE)
		snprintf(buf, len, "0x%016llx port %u", (unsigned long long)guid, port);
	else
		snprintf(buf, len, "%s \"%s\" 0x%016llx port %u",
			 node_is_switch(&f->nodes[ni]) ? "switch" : "CA", f->nodes[ni].desc,
			 (unsigned long long)guid, port);
}

static void health_order_done(void *arg, int status)
{
	(void)arg;
	(void)status; /* port.c logs the outcome */
}

/* Disable p (marked quarantined by the caller) and say why ("N link downs in T s ..."). */
static void health_quarantine(struct sm *sm, struct health_port *p, const char *why)
{
	char who[160];
	struct health_change c = {p, true, why};
	int r;

	health_port_str(sm, p->guid, p->port, who, sizeof(who));
	r = port_set_enabled(sm, p->guid, p->port, false, health_order_done, NULL);
	if (r < 0) {
		log_port(LOG_CAT_SWEEP, LOG_WARNING, p->guid, p->port,
			 "%s is unhealthy (%s) but cannot be disabled: %s", who, why, strerror(-r));
		p->quarantined = false;
		health_of(sm)->st.quarantined--;
		return;
	}
	log_port(LOG_CAT_SWEEP, LOG_WARNING, p->guid, p->port, "%s quarantined: %s; disabled %s",
		 who, why,
		 p->release_at ? "for a while (quarantine_s)" : "until an operator enables it");
	hook_run(&sm->hooks.quarantine, &c);
}

struct health_diff {
	struct sm *sm;
	double now;
};

static void health_diff_one(void *arg, const struct diff_change *c)
{
	struct health_diff *hd = arg;
	struct sm *sm = hd->sm;
	const struct diff_end *a = &c->a, *b = &c->b;
	uint64_t guid;
	uint8_t port;
	char peer[160];

	/*
	 * PORT_DOWN: was ACTIVE, is not, and still linked: it went down and came
	 * back between two sweeps (retrained).  A flap too, of that link.  (Not
	 * linked: the link is gone and its DIFF_LINK_DOWN counts it.)
	 */
	if (c->kind == DIFF_PORT_DOWN ? !c->linked
				      : c->kind != DIFF_LINK_DOWN && c->kind != DIFF_LINK_UP)
		return;
	/* the SM's own link is never quarantined */
	if (a->sm || b->sm)
		return;
	/* the switch end; of two switches the lower GUID */
	if (a->type == NODE_SWITCH && (b->type != NODE_SWITCH || a->guid < b->guid)) {
		guid = a->guid;
		port = c->port;
		snprintf(peer, sizeof(peer), "\"%s\" 0x%016llx port %u", b->desc,
			 (unsigned long long)b->guid, c->peer_port);
	} else if (b->type == NODE_SWITCH) {
		guid = b->guid;
		port = c->peer_port;
		snprintf(peer, sizeof(peer), "\"%s\" 0x%016llx port %u", a->desc,
			 (unsigned long long)a->guid, c->port);
	} else {
		return; /* two CAs back to back: no switch port to disable */
	}
	if (c->kind == DIFF_LINK_UP)
		return; /* a quarantined port that came up: health_redisable */
	if (health_link_down(sm, guid, port, hd->now) == 1) {
		struct health_port *p = health_get(health_of(sm), guid, port, false);
		char why[256];

		snprintf(why, sizeof(why), "%u link downs in %d s (link to %s)", p->n_downs,
			 sm->conf.flap_window_s, peer);
		health_quarantine(sm, p, why);
	}
}

int health_port_error(struct sm *sm, uint16_t slid, uint16_t lid, uint8_t port, double now)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	struct health *h = health_of(sm);
	struct health_port *p;
	const struct node *n, *sw;
	uint32_t ni, si, swi;
	uint8_t pn, spn, swp;
	char why[256];

	if (!h || !f || sm->state != SM_MASTER || !snapshot_find_lid(sm->snap, lid, &ni, &pn))
		return 0;
	/* a node speaks for its own ports only: no host can get another's port disabled */
	if (!snapshot_find_lid(sm->snap, slid, &si, &spn) || si != ni)
		return 0;
	n = &f->nodes[ni];
	if (!node_is_switch(n))
		port = pn; /* a CA's LID names its port */
	if (port == 0 || port > n->nports || !port_is_linked(&n->ports[port]))
		return 0;
	/* the switch end of the port's link, as for a flap; never the SM's own link */
	if (node_is_switch(n)) {
		swi = ni;
		swp = port;
	} else {
		swi = n->ports[port].remote_node;
		swp = n->ports[port].remote_port;
	}
	sw = &f->nodes[swi];
	if (!node_is_switch(sw) || (ni == f->sm_node && port == f->sm_port) ||
	    (n->ports[port].remote_node == f->sm_node && n->ports[port].remote_port == f->sm_port))
		return 0;
	p = health_get(h, sw->guid, swp, true);
	if (!p)
		return 0;
	h->st.port_traps++;
	p->traps_total++;
	if (!p->n_traps || now - p->traps_since > sm->conf.flap_window_s) {
		p->traps_since = now;
		p->n_traps = 0;
	}
	p->n_traps++;
	if (p->quarantined || !sm->conf.trap_flood_threshold ||
	    p->n_traps < (unsigned)sm->conf.trap_flood_threshold)
		return 0;
	p->quarantined = true;
	p->since = clock_wall_s();
	p->release_at = sm->conf.quarantine_s ? now + sm->conf.quarantine_s : 0;
	h->st.quarantines++;
	h->st.quarantined++;
	snprintf(why, sizeof(why), "%u port-error traps in %d s about %s \"%s\" port %u",
		 p->n_traps, sm->conf.flap_window_s, node_is_switch(n) ? "switch" : "CA", n->desc,
		 port);
	p->n_traps = 0;
	health_quarantine(sm, p, why);
	return 1;
}

/*
 * Every quarantined port the published fabric shows linked is disabled
 * again: it was reset, or retrained before our Set took (not only when the
 * diff shows it come up: a link up in two snapshots in a row would stay up).
 */
static void health_redisable(struct sm *sm)
{
	const struct fabric *f = sm->snap->fabric;
	struct health *h = health_of(sm);

	for (size_t i = 0; i < h->n; i++) {
		const struct health_port *q = &h->ports[i];
		uint32_t ni;

		if (!q->quarantined || (ni = fabric_find_guid(f, q->guid)) == FABRIC_NO_NODE ||
		    q->port == 0 || q->port > f->nodes[ni].nports ||
		    !port_is_linked(&f->nodes[ni].ports[q->port]))
			continue;
		if (port_set_enabled(sm, q->guid, q->port, false, health_order_done, NULL) == 0)
			log_ratelimited(
			    LOG_CAT_SWEEP, LOG_INFO,
			    "port 0x%016llx/%u is quarantined but came up: disabled again",
			    (unsigned long long)q->guid, q->port);
	}
}

static void health_on_published(void *arg, const void *data)
{
	struct sm *sm = arg;
	const struct snapshot *old = data;
	struct health_diff hd = {sm, clock_mono_s()};

	if (!sm->snap || sm->state != SM_MASTER)
		return;
	if (old)
		snapshot_changes_run(sm->snap, old, health_diff_one, &hd);
	health_redisable(sm);
}

static void health_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct health *h = health_of(sm);
	double now = clock_mono_s();

	(void)fd;
	(void)what;
	for (size_t i = 0; i < h->n; i++) {
		struct health_port *p = &h->ports[i];
		char who[160];

		if (!p->quarantined || !p->release_at || now < p->release_at)
			continue;
		health_port_str(sm, p->guid, p->port, who, sizeof(who));
		if (port_set_enabled(sm, p->guid, p->port, true, health_order_done, NULL) < 0) {
			p->release_at = now + 10; /* not known now (a sweep running): later */
			continue;
		}
		log_port(LOG_CAT_SWEEP, LOG_INFO, p->guid, p->port,
			 "%s: quarantine over after %d s: enabled", who, sm->conf.quarantine_s);
		health_forget(sm, p->guid, p->port);
	}
}

/* A port-error trap (sm->hooks.port_error, sm/trap.c). */
static void health_on_port_error(void *ctx, const void *data)
{
	const struct sm_port_error *e = data;

	health_port_error(ctx, e->slid, e->lid, e->port, e->now);
}

int health_attach(struct sm *sm, char *err, size_t err_len)
{
	struct health *h = calloc(1, sizeof(*h));
	struct timeval tv = {1, 0};

	if (!h || sm_part_add(sm, &health_part, h) < 0) {
		free(h);
		goto fail;
	}
	h->sm = sm;
	h->timer = event_new(sm->base, -1, EV_PERSIST, health_tick, sm);
	if (!h->timer || event_add(h->timer, &tv) < 0 ||
	    hook_add(&sm->hooks.published, health_on_published, sm) < 0 ||
	    hook_add(&sm->hooks.port_error, health_on_port_error, sm) < 0)
		goto fail; /* the part is registered: sm_fini frees it */
	return 0;
fail:
	snprintf(err, err_len, "out of memory setting up the port health policy");
	return -ENOMEM;
}

static void health_free(struct sm *sm, void *obj)
{
	struct health *h = obj;

	if (!h)
		return;
	hook_remove(&sm->hooks.published, health_on_published, sm);
	hook_remove(&sm->hooks.port_error, health_on_port_error, sm);
	if (h->timer)
		event_free(h->timer);
	free(h->ports);
	free(h);
}

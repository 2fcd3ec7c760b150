/*
 * The P_KeyTable batches of the runtime partitions (see tenants_batch.h and
 * tenants.h): the marked end ports' blocks that differ from the merged
 * policy, on the control lane, their answers kept in the view the SA reads;
 * a heavy sweep abandons the batch and rewrites whole what the batches
 * wrote; readiness.  IBA 1.4 vol 1, 14.2.5.7 (P_KeyTable).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "fabric/snapshot.h"
#include "lib/log.h"
#include "mad/wire.h"
#include "policy/partition.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"
#include "tenants/tenants_batch.h"
#include "smp/program.h"

#define TENANTS_RETRY_MIN_S 1
#define TENANTS_RETRY_MAX_S 60

/* ---- GUID sets ----------------------------------------------------------- */

static int tenants_batch_gset_add(struct tenants_gset *s, uint64_t guid)
{
	if (u64map_get(&s->ix, guid) != U64MAP_NONE)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	if (u64map_add(&s->ix, guid, 0) < 0)
		return -ENOMEM;
	s->v[s->n++] = guid;
	return 0;
}

static void tenants_batch_gset_clear(struct tenants_gset *s)
{
	u64map_free(&s->ix);
	s->n = 0;
}

static void tenants_batch_gset_free(struct tenants_gset *s)
{
	u64map_free(&s->ix);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int tenants_batch_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- programming ------------------------------------------------------------ */

/* The switch's PartitionEnforcementCap (0: none, or SwitchInfo unknown). */
static unsigned tenants_batch_enforce_cap(const struct node *n)
{
	struct wire_switchinfo si;

	if (wire_switchinfo_decode(n->si, sizeof(n->si), &si) < 0)
		return 0;
	return si.partition_enf_cap < PKEYVIEW_KEYS ? si.partition_enf_cap : PKEYVIEW_KEYS;
}

/* The blocks of want (cap keys) that differ from what (known, have) says: Sets of the batch. */
static unsigned tenants_batch_blocks(struct tenants_batch *t, uint32_t ni, uint8_t pn, bool sw,
				     const uint16_t *want, size_t nk, unsigned cap,
				     const uint16_t *have, uint8_t known)
{
	unsigned sent = 0;

	for (unsigned b = 0; b * 32 < cap && b < FABRIC_PKEY_BLOCKS; b++) {
		if ((known & (1u << b)) &&
		    !memcmp(&have[b * 32], &want[b * 32], 32 * sizeof(*want)))
			continue;
		/* an unread block of a switch port past its keys: nothing to clear that we know of
		 */
		if (sw && b > 0 && b * 32 >= nk && !(known & (1u << b)))
			continue;
		if (program_pkey_block(t->pg, ni, pn, sw ? (uint32_t)pn << 16 | b : b,
				       &want[b * 32]) == 0)
			sent++;
	}
	return sent;
}

/*
 * End port (ni, pn) of the published fabric: its blocks that differ from
 * the merged policy, and with part_enforce those of the switch port facing
 * it.  Returns the blocks queued.
 */
static unsigned tenants_batch_port(struct tenants_batch *t, uint32_t ni, uint8_t pn)
{
	struct sm *sm = t->sm;
	const struct fabric *f = sm->snap->fabric;
	const struct node *n = &f->nodes[ni];
	const struct port *p = &n->ports[node_is_switch(n) ? 0 : pn];
	uint16_t want[PKEYVIEW_KEYS] = {0}, sw_want[PKEYVIEW_KEYS] = {0};
	unsigned cap = n->partition_cap ? n->partition_cap : 1, ecap, sent;
	const struct pkeyview_entry *e;
	const struct node *sn;
	const uint16_t *have;
	uint8_t known;
	size_t nk;

	if (!p->valid || (!node_is_switch(n) && !port_is_linked(p)))
		return 0;
	if (cap > PKEYVIEW_KEYS)
		cap = PKEYVIEW_KEYS;
	nk = partition_port_table(sm->policy.parts, f, ni, pn, sm->port_guid, want, cap);
	if (nk > cap)
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, pn,
				     "node 0x%016" PRIx64
				     " \"%s\" port %u: %zu P_Keys, room for %u "
				     "(PartitionCap %u): the last %zu left out",
				     n->guid, n->desc, pn, nk, cap, n->partition_cap, nk - cap);
	pkeyview_port(&t->view, f, ni, pn, &have, &known);
	sent = tenants_batch_blocks(t, ni, pn, false, want, nk, cap, have, known);
	/* the switch port facing a CA port gets the CA's table (program_enforce_pkeys) */
	if (node_is_switch(n) || sm->conf.part_enforce == CONF_ENFORCE_OFF)
		return sent;
	sn = &f->nodes[p->remote_node];
	ecap = node_is_switch(sn) ? tenants_batch_enforce_cap(sn) : 0;
	if (!ecap)
		return sent;
	nk = program_peer_pkeys(want, cap, sw_want, ecap);
	if (nk > ecap) {
		/* enforcement goes off on that port: PortInfo too, which the sweep writes */
		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"runtime partitions: port 0x%016" PRIx64 " holds %zu P_Keys, more than "
			"switch 0x%016" PRIx64 " port %u can enforce (%u): asking for a sweep",
			p->guid, nk, sn->guid, p->remote_port, ecap);
		sweep_start_why(sm, "runtime partitions: a switch port's PartitionEnforcementCap");
		return sent;
	}
	e = pkeyview_get(&t->view, p->guid);
	if (e && e->sw_guid == sn->guid && e->sw_port == p->remote_port) {
		have = e->sw_keys;
		known = e->sw_known;
	} else {
		const struct port *sp = &sn->ports[p->remote_port];

		have = sp->pkey_known ? sp->pkeys : sw_want;
		known = sp->pkey_known;
	}
	return sent + tenants_batch_blocks(t, p->remote_node, p->remote_port, true, sw_want, nk,
					   ecap, have, known);
}

/* A P_KeyTable answer of the batch: the view takes it; a failed Set marks its port again. */
static void tenants_batch_answer(void *arg, uint32_t node, uint8_t port, uint32_t mod, int status,
				 const uint16_t *keys)
{
	struct tenants_batch *t = arg;
	const struct fabric *f = t->sm->snap->fabric;
	const struct node *n = &f->nodes[node];
	unsigned b = mod & 0xffff;
	struct pkeyview_entry *e;
	const struct port *ep;

	if (b >= FABRIC_PKEY_BLOCKS)
		return;
	if (node_is_switch(n) && port) {
		const struct port *sp = &n->ports[port];

		ep = &f->nodes[sp->remote_node].ports[sp->remote_port];
		e = pkeyview_take(&t->view, ep->guid, ep->pkey_known ? ep->pkeys : NULL,
				  ep->pkey_known);
		if (!e)
			return;
		if (e->sw_guid != n->guid || e->sw_port != port) {
			e->sw_guid = n->guid;
			e->sw_port = port;
			memset(e->sw_keys, 0, sizeof(e->sw_keys));
			if (sp->pkey_known)
				memcpy(e->sw_keys, sp->pkeys, sizeof(e->sw_keys));
			e->sw_known = sp->pkey_known;
		}
		if (status == 0) {
			memcpy(&e->sw_keys[b * 32], keys, 32 * sizeof(*keys));
			e->sw_known |= (uint8_t)(1u << b);
		} else {
			e->sw_known &= (uint8_t) ~(1u << b);
		}
	} else {
		ep = &n->ports[node_is_switch(n) ? 0 : port];
		e = pkeyview_take(&t->view, ep->guid, ep->pkey_known ? ep->pkeys : NULL,
				  ep->pkey_known);
		if (!e)
			return;
		if (status == 0) {
			memcpy(&e->keys[b * 32], keys, 32 * sizeof(*keys));
			e->known |= (uint8_t)(1u << b);
		} else {
			e->known &= (uint8_t) ~(1u << b);
		}
	}
	if (status < 0)
		tenants_batch_gset_add(&t->dirty, ep->guid); /* tried again */
}

static void tenants_batch_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	tenants_batch_request(arg);
}

static void tenants_batch_done(void *arg, const struct program_stats *st)
{
	struct tenants_batch *t = arg;

	t->pg = NULL;
	tenants_batch_gset_clear(&t->batch_ports);
	t->blocks += st->pkey_blocks;
	t->errors += st->errors;
	if (st->errors) {
		struct timeval tv = {t->retry_s, 0};

		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"runtime partitions: %u of %u P_KeyTable Sets failed (those ports "
				"are tried again in %u s)",
				st->errors, st->sets, t->retry_s);
		if (t->retry)
			evtimer_add(t->retry, &tv);
		t->retry_s =
		    t->retry_s * 2 > TENANTS_RETRY_MAX_S ? TENANTS_RETRY_MAX_S : t->retry_s * 2;
	} else {
		t->retry_s = TENANTS_RETRY_MIN_S;
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
			"runtime partitions: %u P_KeyTable blocks written", st->pkey_blocks);
	}
	if (t->pending && !st->errors)
		tenants_batch_request(t);
}

/* The batch is abandoned (a sweep starts, or this SM stands down): its ports are looked at again.
 */
static void tenants_batch_abandon(struct tenants_batch *t)
{
	if (!t->pg)
		return;
	program_abort(t->pg);
	t->pg = NULL;
	for (size_t i = 0; i < t->batch_ports.n; i++)
		tenants_batch_gset_add(&t->dirty, t->batch_ports.v[i]);
	tenants_batch_gset_clear(&t->batch_ports);
}

/* One batch for the marked ports of the published fabric. */
static void tenants_batch_update(struct tenants_batch *t)
{
	struct sm *sm = t->sm;
	size_t ports = 0, blocks = 0;
	uint32_t ni;
	uint8_t pn;

	if (!t->dirty.n)
		return;
	if (t->pg || sweep_running(sm)) {
		t->pending = true; /* after the batch, or when the sweep publishes */
		return;
	}
	t->pending = false;
	if (!sm->snap || sm->state != SM_MASTER || !sm->xe)
		return; /* the sweep that makes us master programs them */
	t->pg = program_new(sm->xe, sm->snap->fabric, tenants_batch_done, t);
	if (!t->pg) {
		log_err("runtime partitions: out of memory programming P_Key tables (the next "
			"sweep writes them)");
		return;
	}
	program_set_lane(t->pg, XACT_CONTROL);
	program_set_pkey_sink(t->pg, tenants_batch_answer, t);
	for (size_t i = 0; i < t->dirty.n; i++) {
		uint64_t g = t->dirty.v[i];
		unsigned sent;

		if (!snapshot_find_port_guid(sm->snap, g, &ni, &pn))
			continue; /* not in the fabric (yet): the sweep that finds it programs it */
		sent = tenants_batch_port(t, ni, pn);
		if (!sent)
			continue;
		blocks += sent;
		ports++;
		if (tenants_batch_gset_add(&t->batch_ports, g) < 0 ||
		    tenants_batch_gset_add(&t->touched, g) < 0) {
			log_err("runtime partitions: out of memory: a sweep programs the tables");
			sweep_start_why(sm, "runtime partitions: out of memory");
		}
	}
	tenants_batch_gset_clear(&t->dirty);
	t->batches++;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
		"runtime partitions: %zu P_KeyTable blocks to %zu ports on the control lane",
		blocks, ports);
	program_start(t->pg); /* may finish (tenants_batch_done) at once */
}

static void tenants_batch_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	tenants_batch_update(arg);
}

void tenants_batch_request(struct tenants_batch *t)
{
	struct timeval now = {0, 0};

	if (t->pg) {
		t->pending = true;
		return;
	}
	if (t->kick)
		evtimer_add(t->kick, &now);
	else
		tenants_batch_update(t);
}

/* ---- hooks ------------------------------------------------------------------- */

/* A heavy sweep owns the switches while it runs. */
static void tenants_batch_on_sweep_begin(void *ctx, const void *data)
{
	struct tenants_batch *t = ctx;

	if (t->pg) {
		tenants_batch_abandon(t);
		t->pending = true;
	}
}

/* The sweep's configure batch writes whole the tables the batches wrote since its model's copy. */
static void tenants_batch_on_configure(void *ctx, const void *data)
{
	struct tenants_batch *t = ctx;
	struct program_params *pp = (struct program_params *)data;
	uint64_t *v;

	if (!t->touched.n)
		return;
	v = realloc(t->rewrite, t->touched.n * sizeof(*v));
	if (!v) {
		pp->force = true; /* rewrite everything rather than trust a stale copy */
		return;
	}
	memcpy(v, t->touched.v, t->touched.n * sizeof(*v));
	qsort(v, t->touched.n, sizeof(*v), tenants_batch_cmp);
	t->rewrite = v;
	pp->pkey_rewrite = v;
	pp->n_pkey_rewrite = t->touched.n;
}

static void tenants_batch_stand_down(struct tenants_batch *t)
{
	tenants_batch_abandon(t);
	pkeyview_clear(&t->view);
	tenants_batch_gset_clear(&t->dirty);
	tenants_batch_gset_clear(&t->touched);
	t->pending = false;
}

static void tenants_batch_on_published(void *ctx, const void *data)
{
	struct tenants_batch *t = ctx;
	struct sm *sm = t->sm;

	tenants_batch_abandon(t); /* on the old snapshot's indexes */
	if (sm->state != SM_MASTER) {
		tenants_batch_stand_down(t);
		return;
	}
	if (sm->last.programmed) {
		/* the sweep read and wrote every table: the new snapshot says what they hold */
		pkeyview_clear(&t->view);
		tenants_batch_gset_clear(&t->touched);
	}
	if (t->dirty.n || t->pending)
		tenants_batch_request(t);
}

static void tenants_batch_on_state(void *ctx, const void *data)
{
	const struct sm_state_change *c = data;

	if (c->to != SM_MASTER)
		tenants_batch_stand_down(ctx);
}

/* ---- readiness ------------------------------------------------------------ */

/* The entry for pkey the switch port facing end port (ni, pn) holds; true when it is not read. */
static bool tenants_batch_sw_holds(const struct tenants_batch *t, const struct fabric *f,
				   const struct port *p, uint16_t want)
{
	const struct node *sn = &f->nodes[p->remote_node];
	const struct port *sp = &sn->ports[p->remote_port];
	const struct pkeyview_entry *e = pkeyview_get(&t->view, p->guid);
	const uint16_t *have = sp->pkeys;
	uint8_t known = sp->pkey_known;

	if (e && e->sw_guid == sn->guid && e->sw_port == p->remote_port) {
		have = e->sw_keys;
		known = e->sw_known;
	}
	if (!known)
		return true; /* not read: enforcement is not ours to judge there */
	return partition_table_find(have, PKEYVIEW_KEYS, want) != 0;
}

bool tenants_batch_ready(const struct tenants_batch *t, const struct sm *sm, uint16_t pkey,
			 struct tenants_ready *ret)
{
	const struct partition *p = partition_find(sm->policy.parts, pkey);
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;

	memset(ret, 0, sizeof(*ret));
	if (!p)
		return false;
	for (size_t i = 0; i < p->n_members; i++) {
		uint16_t want[PKEYVIEW_KEYS], k;
		const uint16_t *have;
		const struct node *n;
		const struct port *port;
		uint8_t known, pn;
		uint32_t ni;
		size_t nk, cap;

		if (p->members[i].who != PARTITION_GUID)
			continue;
		ret->members++;
		if (!f || !snapshot_find_port_guid(sm->snap, p->members[i].guid, &ni, &pn))
			continue;
		ret->present++;
		n = &f->nodes[ni];
		port = &n->ports[node_is_switch(n) ? 0 : pn];
		cap = n->partition_cap ? n->partition_cap : 1;
		if (cap > PKEYVIEW_KEYS)
			cap = PKEYVIEW_KEYS;
		nk = partition_port_table(sm->policy.parts, f, ni, pn, sm->port_guid, want, cap);
		k = partition_table_find(want, nk < cap ? nk : cap, pkey);
		pkeyview_port(t ? &t->view : NULL, f, ni, pn, &have, &known);
		if (!k || !known || partition_table_find(have, PKEYVIEW_KEYS, pkey) != k)
			continue;
		if (!node_is_switch(n) && sm->conf.part_enforce != CONF_ENFORCE_OFF && t &&
		    port_is_linked(port) && !tenants_batch_sw_holds(t, f, port, pkey))
			continue;
		ret->holding++;
	}
	ret->ready = f && ret->holding == ret->present;
	return true;
}

/* ---- set-up ---------------------------------------------------------------- */

int tenants_batch_mark(struct tenants_batch *t, uint64_t guid)
{
	int r = tenants_batch_gset_add(&t->dirty, guid);

	if (r < 0)
		sweep_start_why(t->sm, "runtime partitions: out of memory");
	return r;
}

int tenants_batch_init(struct tenants_batch *t, struct sm *sm)
{
	t->sm = sm;
	t->retry_s = TENANTS_RETRY_MIN_S;
	if (sm->base && (!(t->kick = evtimer_new(sm->base, tenants_batch_kick_cb, t)) ||
			 !(t->retry = evtimer_new(sm->base, tenants_batch_retry_cb, t))))
		return -ENOMEM;
	if (hook_add(&sm->hooks.sweep_begin, tenants_batch_on_sweep_begin, t) < 0 ||
	    hook_add(&sm->hooks.published, tenants_batch_on_published, t) < 0 ||
	    hook_add(&sm->hooks.configure, tenants_batch_on_configure, t) < 0 ||
	    hook_add(&sm->hooks.state_changed, tenants_batch_on_state, t) < 0)
		return -ENOMEM;
	return 0;
}

void tenants_batch_fini(struct tenants_batch *t)
{
	struct sm *sm = t->sm;

	if (!sm)
		return;
	hook_remove(&sm->hooks.sweep_begin, tenants_batch_on_sweep_begin, t);
	hook_remove(&sm->hooks.published, tenants_batch_on_published, t);
	hook_remove(&sm->hooks.configure, tenants_batch_on_configure, t);
	hook_remove(&sm->hooks.state_changed, tenants_batch_on_state, t);
	program_abort(t->pg);
	t->pg = NULL;
	if (t->kick)
		event_free(t->kick);
	if (t->retry)
		event_free(t->retry);
	pkeyview_free(&t->view);
	tenants_batch_gset_free(&t->batch_ports);
	tenants_batch_gset_free(&t->dirty);
	tenants_batch_gset_free(&t->touched);
	free(t->rewrite);
	memset(t, 0, sizeof(*t));
}

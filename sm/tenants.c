/*
 * Tenant partitions at run time (see tenants.h): the runtime set, its
 * merge into the SM's policy, the P_KeyTable batches between sweeps, the
 * file in the state directory.  IBA 1.4 vol 1, 10.9 (partitions), 14.2.5.7
 * (P_KeyTable).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "fabric/pkeyview.h"
#include "fabric/snapshot.h"
#include "lib/atomic_file.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "lib/u64map.h"
#include "mad/wire.h"
#include "sa/mcast.h"
#include "sa/sa.h"
#include "sm/mfts.h"
#include "sm/part.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"
#include "sm/tenants.h"
#include "smp/program.h"

#define TENANTS_RETRY_MIN_S 1
#define TENANTS_RETRY_MAX_S 60

/* A set of port GUIDs: a hash map for membership, an array for the walk. */
struct gset {
	struct u64map ix;
	uint64_t *v;
	size_t n, cap;
};

struct tenants {
	struct sm *sm;
	struct pkeyset *set;
	char path[CONF_PATH_MAX + 32];
	size_t shadowed; /* runtime P_Keys the file defines too (left out of the policy) */
	/* programming */
	struct pkeyview view;	 /* what the batches found the ports to hold since the publish */
	struct program *batch;	 /* the batch running, or NULL */
	struct gset batch_ports; /* the end ports it writes (marked again when it is abandoned) */
	struct gset dirty;	 /* end ports whose tables must be looked at */
	struct gset touched;	 /* end ports the batches wrote since the last programmed publish */
	uint64_t *rewrite;	 /* touched, sorted, for the configure hook */
	struct event *kick, *retry;
	unsigned retry_s;
	bool pending;
	/* the file */
	bool save_owed;
	unsigned save_failures;
	struct event *save_timer;
	/* counters */
	uint64_t changes, noops, refused, batches, blocks, errors;
};

static void tenants_free(struct sm *sm, void *obj);

static const struct sm_part_ops tenants_part = {"tenants", tenants_free};

static struct tenants *tenants_of(const struct sm *sm)
{
	return sm_part_get(sm, &tenants_part);
}

/* ---- GUID sets ----------------------------------------------------------- */

static int gset_add(struct gset *s, uint64_t guid)
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

static void gset_clear(struct gset *s)
{
	u64map_free(&s->ix);
	s->n = 0;
}

static void gset_free(struct gset *s)
{
	u64map_free(&s->ix);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- the file ------------------------------------------------------------ */

static void tenants_save_cb(evutil_socket_t fd, short what, void *arg);

static int tenants_write(struct tenants *t)
{
	struct atomic_file af;
	json_t *doc = pkeyset_to_json(t->set);
	int r;

	if (!doc)
		return -ENOMEM;
	r = atomic_file_open(&af, t->path, 0600);
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	if (json_dumpf(doc, af.fp, JSON_INDENT(1)) < 0 || fputc('\n', af.fp) == EOF) {
		json_decref(doc);
		atomic_file_abort(&af);
		return -EIO;
	}
	json_decref(doc);
	return atomic_file_commit(&af, true);
}

/* Write the set now; one that fails is logged once and tried again (5 s doubling to 5 min). */
static void tenants_save(struct tenants *t)
{
	int r = tenants_write(t);

	if (r == 0) {
		if (t->save_owed)
			log_info("runtime partitions: wrote %s after %u failed attempt%s", t->path,
				 t->save_failures, t->save_failures == 1 ? "" : "s");
		t->save_owed = false;
		t->save_failures = 0;
		if (t->save_timer)
			evtimer_del(t->save_timer);
		return;
	}
	if (!t->save_owed)
		log_err("runtime partitions: cannot write %s: %s (a restart would lose the last "
			"changes); trying again",
			t->path, strerror(-r));
	t->save_owed = true;
	t->save_failures++;
	if (!t->save_timer && t->sm->base)
		t->save_timer = evtimer_new(t->sm->base, tenants_save_cb, t);
	if (t->save_timer) {
		unsigned shift = t->save_failures - 1 < 6 ? t->save_failures - 1 : 6;
		long sec = 5L << shift;
		struct timeval tv = {sec > 300 ? 300 : sec, 0};

		evtimer_add(t->save_timer, &tv);
	}
}

static void tenants_save_cb(evutil_socket_t fd, short what, void *arg)
{
	tenants_save(arg);
}

/* Read the set at start; a file that does not read is put aside (.bad).  0 or -ENOMEM. */
static int tenants_load(struct tenants *t)
{
	char err[512], bad[sizeof(t->path) + 8];
	struct pkeyset *s = NULL;
	json_error_t je;
	json_t *doc;
	char *text;
	size_t len;
	int r = lines_read_file(t->path, TENANTS_FILE_MAX, LINES_REGULAR, &text, &len, err,
				sizeof(err));

	if (r == -ENOENT)
		return 0;
	if (r == 0) {
		doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
		free(text);
		if (!doc) {
			snprintf(err, sizeof(err), "%s: not JSON: %s (line %d)", t->path, je.text,
				 je.line);
			r = -EBADMSG;
		} else {
			char why[256];

			r = pkeyset_from_json(doc, &s, why, sizeof(why));
			json_decref(doc);
			if (r < 0)
				snprintf(err, sizeof(err), "%s: %s", t->path, why);
		}
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(bad, sizeof(bad), "%s.bad", t->path);
		log_err("runtime partitions: %s; moved to %s, starting with none", err,
			rename(t->path, bad) == 0 ? bad : "(cannot move it)");
		return 0;
	}
	pkeyset_free(t->set);
	t->set = s;
	log_info("runtime partitions: %zu P_Keys, %zu GUID memberships from %s", s->n, s->members,
		 t->path);
	return 0;
}

/* ---- the policy ----------------------------------------------------------- */

int tenants_merge(struct sm *sm)
{
	struct tenants *t = tenants_of(sm);
	struct partition_config *merged = NULL;
	size_t shadowed = 0;

	if (!sm->policy.file_parts)
		return 0;
	if (!t || !t->set->n) {
		merged = partition_config_ref(sm->policy.file_parts);
	} else if (pkeyset_merge(sm->policy.file_parts, t->set, &merged, &shadowed) < 0) {
		return -ENOMEM;
	} else {
		merged->allow_both = sm->policy.file_parts->allow_both;
	}
	if (t && shadowed != t->shadowed && shadowed)
		log_warn("runtime partitions: %zu P_Key%s now defined in the partitions file "
			 "too: the file's definition is used (delete the runtime one)",
			 shadowed, shadowed == 1 ? " is" : "s are");
	if (t)
		t->shadowed = shadowed;
	partition_config_free(sm->policy.parts);
	sm->policy.parts = merged;
	return 0;
}

const struct pkeyset *tenants_set(const struct sm *sm)
{
	const struct tenants *t = tenants_of(sm);

	return t ? t->set : NULL;
}

/* ---- programming ------------------------------------------------------------ */

static void tenants_request_update(struct tenants *t);

/* The switch's PartitionEnforcementCap (0: none, or SwitchInfo unknown). */
static unsigned tenants_enforce_cap(const struct node *n)
{
	struct wire_switchinfo si;

	if (wire_switchinfo_decode(n->si, sizeof(n->si), &si) < 0)
		return 0;
	return si.partition_enf_cap < PKEYVIEW_KEYS ? si.partition_enf_cap : PKEYVIEW_KEYS;
}

/* The blocks of want (cap keys) that differ from what (known, have) says: Sets of the batch. */
static unsigned tenants_blocks(struct tenants *t, uint32_t ni, uint8_t pn, bool sw,
			       const uint16_t *want, size_t nk, unsigned cap, const uint16_t *have,
			       uint8_t known)
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
		if (program_pkey_block(t->batch, ni, pn, sw ? (uint32_t)pn << 16 | b : b,
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
static unsigned tenants_port(struct tenants *t, uint32_t ni, uint8_t pn)
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
	sent = tenants_blocks(t, ni, pn, false, want, nk, cap, have, known);
	/* the switch port facing a CA port gets the CA's table (program_enforce_pkeys) */
	if (node_is_switch(n) || sm->conf.part_enforce == CONF_ENFORCE_OFF)
		return sent;
	sn = &f->nodes[p->remote_node];
	ecap = node_is_switch(sn) ? tenants_enforce_cap(sn) : 0;
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
	return sent + tenants_blocks(t, p->remote_node, p->remote_port, true, sw_want, nk, ecap,
				     have, known);
}

/* A P_KeyTable answer of the batch: the view takes it; a failed Set marks its port again. */
static void tenants_pkey_answer(void *arg, uint32_t node, uint8_t port, uint32_t mod, int status,
				const uint16_t *keys)
{
	struct tenants *t = arg;
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
		gset_add(&t->dirty, ep->guid); /* tried again */
}

static void tenants_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	tenants_request_update(arg);
}

static void tenants_batch_done(void *arg, const struct program_stats *st)
{
	struct tenants *t = arg;

	t->batch = NULL;
	gset_clear(&t->batch_ports);
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
		tenants_request_update(t);
}

/* The batch is abandoned (a sweep starts, or this SM stands down): its ports are looked at again.
 */
static void tenants_abandon(struct tenants *t)
{
	if (!t->batch)
		return;
	program_abort(t->batch);
	t->batch = NULL;
	for (size_t i = 0; i < t->batch_ports.n; i++)
		gset_add(&t->dirty, t->batch_ports.v[i]);
	gset_clear(&t->batch_ports);
}

/* One batch for the marked ports of the published fabric. */
static void tenants_update(struct tenants *t)
{
	struct sm *sm = t->sm;
	size_t ports = 0, blocks = 0;
	uint32_t ni;
	uint8_t pn;

	if (!t->dirty.n)
		return;
	if (t->batch || sweep_running(sm)) {
		t->pending = true; /* after the batch, or when the sweep publishes */
		return;
	}
	t->pending = false;
	if (!sm->snap || sm->state != SM_MASTER || !sm->xe)
		return; /* the sweep that makes us master programs them */
	t->batch = program_new(sm->xe, sm->snap->fabric, tenants_batch_done, t);
	if (!t->batch) {
		log_err("runtime partitions: out of memory programming P_Key tables (the next "
			"sweep writes them)");
		return;
	}
	program_set_lane(t->batch, XACT_CONTROL);
	program_set_pkey_sink(t->batch, tenants_pkey_answer, t);
	for (size_t i = 0; i < t->dirty.n; i++) {
		uint64_t g = t->dirty.v[i];
		unsigned sent;

		if (!snapshot_find_port_guid(sm->snap, g, &ni, &pn))
			continue; /* not in the fabric (yet): the sweep that finds it programs it */
		sent = tenants_port(t, ni, pn);
		if (!sent)
			continue;
		blocks += sent;
		ports++;
		if (gset_add(&t->batch_ports, g) < 0 || gset_add(&t->touched, g) < 0) {
			log_err("runtime partitions: out of memory: a sweep programs the tables");
			sweep_start_why(sm, "runtime partitions: out of memory");
		}
	}
	gset_clear(&t->dirty);
	t->batches++;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
		"runtime partitions: %zu P_KeyTable blocks to %zu ports on the control lane",
		blocks, ports);
	program_start(t->batch); /* may finish (tenants_batch_done) at once */
}

static void tenants_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	tenants_update(arg);
}

static void tenants_request_update(struct tenants *t)
{
	struct timeval now = {0, 0};

	if (t->batch) {
		t->pending = true;
		return;
	}
	if (t->kick)
		evtimer_add(t->kick, &now);
	else
		tenants_update(t);
}

/* ---- hooks ------------------------------------------------------------------- */

/* A heavy sweep owns the switches while it runs. */
static void tenants_on_sweep_begin(void *ctx, const void *data)
{
	struct tenants *t = ctx;

	if (t->batch) {
		tenants_abandon(t);
		t->pending = true;
	}
}

/* The sweep's configure batch writes whole the tables the batches wrote since its model's copy. */
static void tenants_on_configure(void *ctx, const void *data)
{
	struct tenants *t = ctx;
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
	qsort(v, t->touched.n, sizeof(*v), cmp_u64);
	t->rewrite = v;
	pp->pkey_rewrite = v;
	pp->n_pkey_rewrite = t->touched.n;
}

static void tenants_stand_down(struct tenants *t)
{
	tenants_abandon(t);
	pkeyview_clear(&t->view);
	gset_clear(&t->dirty);
	gset_clear(&t->touched);
	t->pending = false;
}

static void tenants_on_published(void *ctx, const void *data)
{
	struct tenants *t = ctx;
	struct sm *sm = t->sm;

	tenants_abandon(t); /* on the old snapshot's indexes */
	if (sm->state != SM_MASTER) {
		tenants_stand_down(t);
		return;
	}
	if (sm->last.programmed) {
		/* the sweep read and wrote every table: the new snapshot says what they hold */
		pkeyview_clear(&t->view);
		gset_clear(&t->touched);
	}
	if (t->dirty.n || t->pending)
		tenants_request_update(t);
}

static void tenants_on_state(void *ctx, const void *data)
{
	const struct sm_state_change *c = data;

	if (c->to != SM_MASTER)
		tenants_stand_down(ctx);
}

/* ---- requests ------------------------------------------------------------------ */

/* A port of the snapshot that would hold more P_Keys than it has room for under merged. */
static int tenants_check_cap(const struct sm *sm, const struct partition_config *merged,
			     const struct pkeyset_delta *d, char *err, size_t err_len)
{
	const struct fabric *f;

	if (!sm->snap)
		return 0;
	f = sm->snap->fabric;
	for (size_t i = 0; i < d->n_guids; i++) {
		uint32_t ni;
		uint8_t pn;
		const struct node *n;
		size_t nk, cap;

		if (!snapshot_find_port_guid(sm->snap, d->guids[i], &ni, &pn))
			continue;
		n = &f->nodes[ni];
		cap = n->partition_cap ? n->partition_cap : 1;
		if (cap > PKEYVIEW_KEYS)
			cap = PKEYVIEW_KEYS;
		nk = partition_port_table(merged, f, ni, pn, sm->port_guid, NULL, 0);
		if (nk > cap) {
			snprintf(err, err_len,
				 "port 0x%016" PRIx64
				 " (\"%s\" port %u) would hold %zu P_Keys, its "
				 "table has room for %zu (PartitionCap %u): nothing was changed",
				 d->guids[i], n->desc, pn, nk, cap, n->partition_cap);
			return -EOVERFLOW;
		}
	}
	return 0;
}

/* The new set and its policy are taken: groups, SA, marks, file. */
static void tenants_take(struct tenants *t, struct pkeyset *ns, struct partition_config *merged,
			 size_t shadowed, const struct pkeyset_delta *d, uint16_t pkey,
			 enum pkeyset_op op)
{
	struct sm *sm = t->sm;
	const struct partition *p;

	pkeyset_free(t->set);
	t->set = ns;
	t->shadowed = shadowed;
	partition_config_free(sm->policy.parts);
	sm->policy.parts = merged;
	/* the SA answers by it from now on (PathRecord SLs, the groups' partitions) */
	if (sm->policy.pub_parts) {
		partition_config_free(sm->policy.pub_parts);
		sm->policy.pub_parts = partition_config_ref(merged);
		sa_set_policies(sm->sa, sm->policy.pub_qos, sm->policy.pub_parts);
	}
	/* (a runtime P_Key the file shadows leaves the file's groups alone when deleted) */
	p = partition_find(merged, pkey);
	if ((d->deleted && !p) || (p && p->runtime && !p->ipoib && d->group_changed))
		mfts_ipoib_drop(sm, pkey);
	else if (p && p->runtime && p->ipoib)
		mfts_ipoib_add(sm, p);
	/* a port that left the partition leaves its groups (their trees are computed again) */
	if ((op == PKEYSET_REMOVE || (d->deleted && !p)) && sm->mcast)
		for (size_t i = 0; i < d->n_guids; i++)
			mcast_port_drop_pkey(sm->mcast, d->guids[i], pkey);
	for (size_t i = 0; i < d->n_guids; i++)
		if (gset_add(&t->dirty, d->guids[i]) < 0) {
			sweep_start_why(sm, "runtime partitions: out of memory");
			break;
		}
	tenants_save(t);
	tenants_request_update(t);
}

static struct pkeyset_limits tenants_limits(const struct sm *sm)
{
	size_t file = 0, room;

	for (size_t i = 0; sm->policy.file_parts && i < sm->policy.file_parts->n; i++)
		file += !sm->policy.file_parts->parts[i].runtime;
	room = file < PKEYSET_MAX_PKEYS ? PKEYSET_MAX_PKEYS - file : 0;
	if ((size_t)sm->conf.pkey_max_runtime < room)
		room = (size_t)sm->conf.pkey_max_runtime;
	return (struct pkeyset_limits){(size_t)sm->conf.pkey_max_guids, room};
}

static const char *tenants_op_str(enum pkeyset_op op)
{
	static const char *const names[] = {"add", "remove", "delete", "qos"};

	return op <= PKEYSET_QOS ? names[op] : "?";
}

int tenants_request(struct sm *sm, const struct pkeyset_req *req, const char *who,
		    struct pkeyset_delta *ret_delta, char *err, size_t err_len)
{
	struct tenants *t = tenants_of(sm);
	struct pkeyset_limits lim = tenants_limits(sm);
	struct partition_config *merged = NULL;
	struct pkeyset *ns = NULL;
	size_t shadowed = 0;
	int r;

	memset(ret_delta, 0, sizeof(*ret_delta));
	if (!t) {
		snprintf(err, err_len, "runtime partitions are not set up in this daemon");
		return -ENODEV;
	}
	if (sm->state == SM_STANDBY) {
		snprintf(err, err_len, "this SM is STANDBY: send partition changes to the master");
		t->refused++;
		return -EAGAIN;
	}
	r = pkeyset_apply(t->set, req, sm->policy.file_parts, &lim, &ns, ret_delta, err, err_len);
	if (r == 0 && ns) {
		r = pkeyset_merge(sm->policy.file_parts, ns, &merged, &shadowed);
		if (r < 0)
			snprintf(err, err_len, "out of memory");
		else
			merged->allow_both = sm->policy.file_parts->allow_both;
	}
	if (r == 0 && ns && req->op == PKEYSET_ADD)
		r = tenants_check_cap(sm, merged, ret_delta, err, err_len);
	if (r < 0) {
		t->refused++;
		pkeyset_free(ns);
		partition_config_free(merged);
		pkeyset_delta_clear(ret_delta);
		log_ratelimited(LOG_CAT_CTL, LOG_INFO, "partition audit: %s: %s 0x%04x refused: %s",
				who, tenants_op_str(req->op), req->pkey & 0x7fff, err);
		return r;
	}
	if (!ns) {
		t->noops++;
		log_msg(LOG_CAT_CTL, LOG_DEBUG, "partition audit: %s: %s 0x%04x: nothing to change",
			who, tenants_op_str(req->op), req->pkey & 0x7fff);
		return 0;
	}
	t->changes++;
	log_info("partition audit: %s: %s 0x%04x (%zu GUIDs asked): %s%s%zu added, %zu "
		 "removed, %zu changed; %zu runtime P_Keys",
		 who, tenants_op_str(req->op), req->pkey & 0x7fff, req->n_guids,
		 ret_delta->created ? "created, " : "", ret_delta->deleted ? "deleted, " : "",
		 ret_delta->added, ret_delta->removed, ret_delta->updated, ns->n);
	tenants_take(t, ns, merged, shadowed, ret_delta, req->pkey & 0x7fff, req->op);
	return 0;
}

int tenants_replace(struct sm *sm, struct pkeyset *s, const char *who)
{
	struct tenants *t = tenants_of(sm);
	struct partition_config *merged = NULL;
	struct pkeyset_delta d = {0};
	struct gset changed = {0};
	size_t shadowed = 0;
	int r = 0;

	if (!t) {
		pkeyset_free(s);
		return -ENODEV;
	}
	if (pkeyset_merge(sm->policy.file_parts, s, &merged, &shadowed) < 0) {
		pkeyset_free(s);
		return -ENOMEM;
	}
	merged->allow_both = sm->policy.file_parts->allow_both;
	/* every member of either set may change: mark them all */
	for (int k = 0; k < 2 && r == 0; k++) {
		const struct pkeyset *x = k ? s : t->set;

		for (size_t i = 0; i < x->n && r == 0; i++)
			for (size_t m = 0; m < x->v[i]->n && r == 0; m++)
				r = gset_add(&changed, x->v[i]->m[m].guid);
	}
	for (size_t i = 0; i < t->set->n; i++)
		if (!pkeyset_find(s, t->set->v[i]->pkey) &&
		    !partition_find(sm->policy.file_parts, t->set->v[i]->pkey))
			mfts_ipoib_drop(sm, t->set->v[i]->pkey);
	for (size_t i = 0; i < merged->n; i++)
		if (merged->parts[i].runtime)
			mfts_ipoib_add(sm, &merged->parts[i]);
	log_info("partition audit: %s: the runtime set replaced: %zu P_Keys, %zu GUID memberships "
		 "(was %zu, %zu)",
		 who, s->n, s->members, t->set->n, t->set->members);
	t->changes++;
	d.guids = changed.v;
	d.n_guids = r == 0 ? changed.n : 0;
	if (r < 0)
		sweep_start_why(sm, "runtime partitions: out of memory");
	tenants_take(t, s, merged, shadowed, &d, 0, PKEYSET_ADD);
	gset_free(&changed);
	return 0;
}

/* ---- readiness -------------------------------------------------------------- */

/* The entry for pkey the switch port facing end port (ni, pn) holds; true when it is not read. */
static bool tenants_sw_holds(const struct tenants *t, const struct fabric *f, const struct port *p,
			     uint16_t want)
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

bool tenants_ready(const struct sm *sm, uint16_t pkey, struct tenants_ready *ret)
{
	const struct tenants *t = tenants_of(sm);
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
		    port_is_linked(port) && !tenants_sw_holds(t, f, port, pkey))
			continue;
		ret->holding++;
	}
	ret->ready = f && ret->holding == ret->present;
	return true;
}

/* ---- the part ------------------------------------------------------------------ */

int tenants_attach(struct sm *sm, char *err, size_t err_len)
{
	struct tenants *t = calloc(1, sizeof(*t));

	if (!t || sm_part_add(sm, &tenants_part, t) < 0) {
		free(t);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	t->sm = sm;
	t->retry_s = TENANTS_RETRY_MIN_S;
	snprintf(t->path, sizeof(t->path), "%s/%s", sm->conf.state_dir, TENANTS_FILE);
	t->set = pkeyset_new();
	if (!t->set || tenants_load(t) < 0 || tenants_merge(sm) < 0) {
		snprintf(err, err_len, "out of memory loading the runtime partitions");
		return -ENOMEM;
	}
	for (size_t i = 0; sm->policy.parts && i < sm->policy.parts->n; i++)
		if (sm->policy.parts->parts[i].runtime)
			mfts_ipoib_add(sm, &sm->policy.parts->parts[i]);
	if (sm->base && (!(t->kick = evtimer_new(sm->base, tenants_kick_cb, t)) ||
			 !(t->retry = evtimer_new(sm->base, tenants_retry_cb, t)))) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	if (hook_add(&sm->hooks.sweep_begin, tenants_on_sweep_begin, t) < 0 ||
	    hook_add(&sm->hooks.published, tenants_on_published, t) < 0 ||
	    hook_add(&sm->hooks.configure, tenants_on_configure, t) < 0 ||
	    hook_add(&sm->hooks.state_changed, tenants_on_state, t) < 0) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	sa_set_pkeyview(sm->sa, &t->view);
	return 0;
}

static void tenants_free(struct sm *sm, void *obj)
{
	struct tenants *t = obj;

	if (!t)
		return;
	sa_set_pkeyview(sm->sa, NULL);
	hook_remove(&sm->hooks.sweep_begin, tenants_on_sweep_begin, t);
	hook_remove(&sm->hooks.published, tenants_on_published, t);
	hook_remove(&sm->hooks.configure, tenants_on_configure, t);
	hook_remove(&sm->hooks.state_changed, tenants_on_state, t);
	program_abort(t->batch);
	if (t->save_owed && tenants_write(t) < 0)
		log_err("runtime partitions: %s could not be written before exit: the last changes "
			"are lost on restart",
			t->path);
	if (t->kick)
		event_free(t->kick);
	if (t->retry)
		event_free(t->retry);
	if (t->save_timer)
		event_free(t->save_timer);
	pkeyview_free(&t->view);
	gset_free(&t->batch_ports);
	gset_free(&t->dirty);
	gset_free(&t->touched);
	free(t->rewrite);
	pkeyset_free(t->set);
	free(t);
}

/* ---- status ---------------------------------------------------------------------- */

#define TS_FIELD(m, metric, kind, help) STAT_FIELD(struct tenants_status, m, #m, metric, kind, help)
static const struct stat_field tenants_stat_fields[] = {
    TS_FIELD(pkeys, "ibsmd_runtime_pkeys", STAT_GAUGE, "Runtime (API-made) P_Keys."),
    TS_FIELD(members, "ibsmd_runtime_pkey_members", STAT_GAUGE,
	     "GUID memberships of the runtime P_Keys."),
    TS_FIELD(shadowed, NULL, STAT_GAUGE, NULL),
    TS_FIELD(changes, "ibsmd_runtime_pkey_changes_total", STAT_COUNTER,
	     "Runtime partition requests that changed the set."),
    TS_FIELD(noops, NULL, STAT_COUNTER, NULL),
    TS_FIELD(refused, "ibsmd_runtime_pkey_refused_total", STAT_COUNTER,
	     "Runtime partition requests refused."),
    TS_FIELD(batches, NULL, STAT_COUNTER, NULL),
    TS_FIELD(blocks, "ibsmd_runtime_pkey_blocks_total", STAT_COUNTER,
	     "P_KeyTable blocks written between sweeps for runtime partitions."),
    TS_FIELD(errors, NULL, STAT_COUNTER, NULL),
    TS_FIELD(pending_ports, NULL, STAT_GAUGE, NULL),
    TS_FIELD(view_ports, NULL, STAT_GAUGE, NULL),
    TS_FIELD(save_failures, NULL, STAT_COUNTER, NULL),
    TS_FIELD(save_owed, NULL, STAT_GAUGE, NULL),
    TS_FIELD(max_guids, NULL, STAT_GAUGE, NULL),
    TS_FIELD(max_runtime, NULL, STAT_GAUGE, NULL),
};
#undef TS_FIELD

const struct stat_table tenants_stat_table = STAT_TABLE("runtime_partitions", tenants_stat_fields);

bool tenants_status_get(const struct sm *sm, struct tenants_status *ret)
{
	const struct tenants *t = tenants_of(sm);
	struct pkeyset_limits lim = tenants_limits(sm);

	memset(ret, 0, sizeof(*ret));
	if (!t)
		return false;
	ret->pkeys = t->set->n;
	ret->members = t->set->members;
	ret->shadowed = t->shadowed;
	ret->changes = t->changes;
	ret->noops = t->noops;
	ret->refused = t->refused;
	ret->batches = t->batches;
	ret->blocks = t->blocks;
	ret->errors = t->errors;
	ret->pending_ports = t->dirty.n + t->batch_ports.n;
	ret->view_ports = t->view.n;
	ret->save_failures = t->save_failures;
	ret->save_owed = t->save_owed;
	ret->max_guids = sm->conf.pkey_max_guids;
	ret->max_runtime = (int)lim.max_pkeys;
	return true;
}

/*
 * Tenant partitions at run time (see tenants.h): the runtime set, its
 * merge into the SM's policy, the requests, the file in the state
 * directory; the P_KeyTable batches between sweeps are tenants_batch.c's.
 * IBA 1.4 vol 1, 10.9 (partitions).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "fabric/snapshot.h"
#include "lib/atomic_file.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "sa/mcast.h"
#include "sa/sa.h"
#include "sm/mfts.h"
#include "sm/part.h"
#include "sm/sm.h"
#include "tenants/tenants.h"
#include "tenants/tenants_batch.h"

struct tenants {
	struct sm *sm;
	struct pkeyset *set;
	char path[CONF_PATH_MAX + 32];
	size_t shadowed;	/* runtime P_Keys the file defines too (left out of the policy) */
	struct tenants_batch b; /* the P_KeyTable batches (tenants/tenants_batch.c) */
	/* the file */
	bool save_owed;
	unsigned save_failures;
	struct event *save_timer;
	/* counters */
	uint64_t changes, noops, refused;
};

static void tenants_free(struct sm *sm, void *obj);

static const struct sm_part_ops tenants_part = {"tenants", tenants_free};

static struct tenants *tenants_of(const struct sm *sm)
{
	return sm_part_get(sm, &tenants_part);
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

/* The partitions file was (re)loaded (sm->hooks.partitions): merge the runtime set into it. */
static void tenants_on_partitions(void *ctx, const void *data)
{
	struct sm *sm = ctx;

	(void)data;
	if (tenants_merge(sm) < 0)
		log_err("runtime partitions: out of memory merging them with the file's: only the "
			"file's are programmed until the next reload");
}

const struct pkeyset *tenants_set(const struct sm *sm)
{
	const struct tenants *t = tenants_of(sm);

	return t ? t->set : NULL;
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
		if (tenants_batch_mark(&t->b, d->guids[i]) < 0)
			break;
	tenants_save(t);
	tenants_batch_request(&t->b);
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
				r = tenants_batch_mark(&t->b, x->v[i]->m[m].guid);
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
	tenants_take(t, s, merged, shadowed, &d, 0, PKEYSET_ADD); /* the ports are marked */
	return 0;
}

/* ---- readiness ------------------------------------------------------------ */

bool tenants_ready(const struct sm *sm, uint16_t pkey, struct tenants_ready *ret)
{
	const struct tenants *t = tenants_of(sm);

	return tenants_batch_ready(t ? &t->b : NULL, sm, pkey, ret);
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
	snprintf(t->path, sizeof(t->path), "%s/%s", sm->conf.state_dir, TENANTS_FILE);
	t->set = pkeyset_new();
	if (!t->set || tenants_load(t) < 0 || tenants_merge(sm) < 0) {
		snprintf(err, err_len, "out of memory loading the runtime partitions");
		return -ENOMEM;
	}
	for (size_t i = 0; sm->policy.parts && i < sm->policy.parts->n; i++)
		if (sm->policy.parts->parts[i].runtime)
			mfts_ipoib_add(sm, &sm->policy.parts->parts[i]);
	if (tenants_batch_init(&t->b, sm) < 0 ||
	    hook_add(&sm->hooks.partitions, tenants_on_partitions, sm) < 0) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	sa_set_pkeyview(sm->sa, &t->b.view);
	return 0;
}

static void tenants_free(struct sm *sm, void *obj)
{
	struct tenants *t = obj;

	hook_remove(&sm->hooks.partitions, tenants_on_partitions, sm);
	if (!t)
		return;
	sa_set_pkeyview(sm->sa, NULL);
	tenants_batch_fini(&t->b);
	if (t->save_owed && tenants_write(t) < 0)
		log_err("runtime partitions: %s could not be written before exit: the last changes "
			"are lost on restart",
			t->path);
	if (t->save_timer)
		event_free(t->save_timer);
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
	ret->batches = t->b.batches;
	ret->blocks = t->b.blocks;
	ret->errors = t->b.errors;
	ret->pending_ports = t->b.dirty.n + t->b.batch_ports.n;
	ret->view_ports = t->b.view.n;
	ret->save_failures = t->save_failures;
	ret->save_owed = t->save_owed;
	ret->max_guids = sm->conf.pkey_max_guids;
	ret->max_runtime = (int)lim.max_pkeys;
	return true;
}

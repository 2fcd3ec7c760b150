/*
 * Fabric validation, the part (see validate.h): the plan and the name map
 * held, the check after every publish, the findings kept between two, and
 * the isolate policy.  The check itself is validate/plan.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/nodemap.h"
#include "failover/smstate.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "sm/port.h"
#include "sm/sm.h"
#include "validate/validate.h"

_Static_assert(PLAN_NKINDS == CONF_VALIDATE_KINDS, "one validate_KIND key per finding kind");

#define VALIDATE_LOG_MAX 50 /* findings logged a check; then a count */

/* A port the isolate policy disabled, and the finding it was for. */
struct validate_iso {
	uint64_t guid;
	uint8_t port;
	uint64_t key;
	struct plan_finding fd;
};

struct validate {
	struct sm *sm;
	struct plan *plan;
	struct nodemap *names;
	struct validate_item *items; /* the findings listed */
	uint64_t *keys;		     /* their keys, sorted */
	size_t n_items;
	struct validate_iso *iso;
	size_t n_iso, cap_iso;
	struct validate_stats st;
};

static void validate_free(struct sm *sm, void *obj);

static const struct sm_part_ops validate_part = {"validate", validate_free};

static struct validate *validate_of(const struct sm *sm)
{
	return sm_part_get(sm, &validate_part);
}

static const struct stat_field validate_stat_fields[] = {
    STAT_FIELD(struct validate_stats, plan, "plan", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct validate_stats, plan_file, "plan_file", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct validate_stats, plan_nodes, "plan_nodes", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct validate_stats, plan_links, "plan_links", NULL, STAT_GAUGE, NULL),
    STAT_FIELD(struct validate_stats, matched, "matched", "ibsmd_validation_plan_nodes_found",
	       STAT_GAUGE, "Nodes of the cabling plan found in the fabric."),
    STAT_FIELD(struct validate_stats, findings, "findings", "ibsmd_validation_findings_now",
	       STAT_GAUGE, "Validation findings listed now (isolated ones included)."),
    STAT_FIELD(struct validate_stats, errors, "errors", "ibsmd_validation_errors", STAT_GAUGE,
	       "Validation findings of severity error listed now."),
    STAT_FIELD(struct validate_stats, isolated, "isolated", "ibsmd_validation_ports_isolated",
	       STAT_GAUGE, "Ports disabled by a validate_KIND = isolate policy now."),
    STAT_FIELD(struct validate_stats, runs, "runs", "ibsmd_validation_runs_total", STAT_COUNTER,
	       "Validation passes (one after every published snapshot)."),
    STAT_FIELD(struct validate_stats, appeared, "appeared", "ibsmd_validation_appeared_total",
	       STAT_COUNTER, "Validation findings that appeared."),
    STAT_FIELD(struct validate_stats, cleared, "cleared", "ibsmd_validation_cleared_total",
	       STAT_COUNTER, "Validation findings that cleared."),
    STAT_FIELD(struct validate_stats, isolations, "isolations", "ibsmd_validation_isolations_total",
	       STAT_COUNTER, "Ports disabled by the isolate policy."),
    STAT_FIELD(struct validate_stats, releases, "releases", NULL, STAT_COUNTER, NULL),
    STAT_FIELD(struct validate_stats, load_errors, "load_errors",
	       "ibsmd_validation_load_errors_total", STAT_COUNTER,
	       "Plan or node name map files that did not load."),
    STAT_FIELD(struct validate_stats, last_error, "last_error", NULL, STAT_GAUGE, NULL),
    STAT_FIELD_SCALED(struct validate_stats, last_ms, "last_ms",
		      "ibsmd_validation_duration_seconds", STAT_GAUGE,
		      "Time the last validation pass took.", 1e-3),
    STAT_FIELD(struct validate_stats, generation, "generation", NULL, STAT_GAUGE, NULL),
};

const struct stat_table validate_stat_table = STAT_TABLE("validation", validate_stat_fields);

void validate_get_stats(const struct sm *sm, struct validate_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (validate_of(sm))
		*ret = validate_of(sm)->st;
}

const struct validate_item *validate_items(const struct sm *sm, size_t *ret_n)
{
	const struct validate *v = validate_of(sm);

	*ret_n = v ? v->n_items : 0;
	return v ? v->items : NULL;
}

const struct nodemap *validate_names(const struct sm *sm)
{
	const struct validate *v = validate_of(sm);

	return v ? v->names : NULL;
}

/* ---- the files ---------------------------------------------------------------- */

static void validate_load_failed(struct validate *v, const char *what, const char *err)
{
	v->st.load_errors++;
	snprintf(v->st.last_error, sizeof(v->st.last_error), "%s", err);
	log_err("%s: %s", what, err);
}

/* Load the plan at path ("" none) in place of the one held.  0 or -errno with err. */
static int validate_load_plan(struct validate *v, const char *path, char *err, size_t err_len)
{
	struct plan *p = NULL;
	int r = path[0] ? plan_load(path, &p, err, err_len) : 0;

	if (r < 0) {
		validate_load_failed(v, "expected_topology_file", err);
		return r;
	}
	plan_free(v->plan);
	v->plan = p;
	v->st.plan = p != NULL;
	v->st.plan_nodes = p ? p->f->n_nodes : 0;
	v->st.plan_links = p ? p->links : 0;
	snprintf(v->st.plan_file, sizeof(v->st.plan_file), "%s", p ? path : "");
	if (p)
		log_info("cabling plan %s: %u nodes, %u cables (%u with a width and speed)", path,
			 p->f->n_nodes, p->links, p->speeds);
	return 0;
}

static int validate_load_names(struct validate *v, const char *path, char *err, size_t err_len)
{
	struct nodemap *m = NULL;
	int r = path[0] ? nodemap_load(path, &m, err, err_len) : 0;

	if (r < 0) {
		validate_load_failed(v, "node_name_map_name", err);
		return r;
	}
	nodemap_free(v->names);
	v->names = m;
	if (m)
		log_info("node name map %s: %zu names", path, nodemap_count(m));
	return 0;
}

static void validate_pass(struct sm *sm, struct validate *v);

static int validate_apply(void *ctx, struct sm *sm, const char *key, const struct sm_conf *old,
			  char *err, size_t err_len)
{
	struct validate *v = ctx;
	int r = !strcmp(key, "expected_topology_file")
		    ? validate_load_plan(v, sm->conf.expected_topology_file, err, err_len)
		    : validate_load_names(v, sm->conf.node_name_map_name, err, err_len);

	(void)old;
	if (r == 0 && sm->snap)
		validate_pass(sm, v); /* the findings against the new plan, now */
	return r;
}

int validate_reload(struct sm *sm, char *err, size_t err_len)
{
	struct validate *v = validate_of(sm);
	char why[512];
	int r, r2;

	if (!v)
		return 0;
	r = validate_load_plan(v, sm->conf.expected_topology_file, err, err_len);
	r2 = validate_load_names(v, sm->conf.node_name_map_name, why, sizeof(why));
	if (r2 < 0 && r == 0)
		snprintf(err, err_len, "%s", why);
	if (sm->snap && (r == 0 || r2 == 0))
		validate_pass(sm, v); /* the findings against what was read, now */
	return r < 0 ? r : r2;
}

/* ---- the check --------------------------------------------------------------------- */

/* The SMs that belong: ours, the master we poll, the peers that share our SM_Key. */
static size_t validate_sms(const struct sm *sm, uint64_t *guids, size_t max)
{
	struct smstate_status ss;
	size_t n = 0;

	smstate_status_get(sm, &ss);
	guids[n++] = sm->port_guid;
	if (sm->master_guid)
		guids[n++] = sm->master_guid;
	for (unsigned i = 0; i < ss.n_peers && n < max; i++)
		if (!ss.peers[i].foreign_key)
			guids[n++] = ss.peers[i].guid;
	return n;
}

int validate_check_now(const struct sm *sm, struct plan_result *ret)
{
	const struct validate *v = validate_of(sm);
	uint64_t guids[2 + SMSTATE_MAX_PEERS];
	struct plan_opts o = {guids, 0};

	memset(ret, 0, sizeof(*ret));
	if (!sm->snap)
		return -ENOENT;
	o.n_sm_guids = validate_sms(sm, guids, sizeof(guids) / sizeof(guids[0]));
	return plan_check(v ? v->plan : NULL, sm->snap->fabric, &o, ret);
}

/*
 * The port isolating fd disables: the switch end of its link (of two
 * switches the lower GUID), the switch port an unexpected node hangs off,
 * the second place a duplicate GUID was seen.  False when there is none.
 */
static bool validate_port_of(const struct plan_finding *fd, uint64_t *guid, uint8_t *port)
{
	const struct plan_end *a = &fd->node, *b = &fd->peer;

	if (fd->kind == PLAN_DUPLICATE_GUID)
		a = &fd->other, b = NULL;
	if (fd->kind == PLAN_UNEXPECTED_NODE && b->type == NODE_SWITCH)
		a = b, b = NULL;
	if (b && b->type == NODE_SWITCH && b->port &&
	    (a->type != NODE_SWITCH || !a->port || b->guid < a->guid))
		a = b;
	if (a->type != NODE_SWITCH || !a->port || !a->guid)
		return false;
	*guid = a->guid;
	*port = a->port;
	return true;
}

static struct validate_iso *validate_iso_find(struct validate *v, uint64_t guid, uint8_t port)
{
	for (size_t i = 0; i < v->n_iso; i++)
		if (v->iso[i].guid == guid && v->iso[i].port == port)
			return &v->iso[i];
	return NULL;
}

/* A port of the record's finding (either end): its planned cables are not "missing". */
static bool validate_iso_touches(const struct validate *v, const struct plan_end *e)
{
	for (size_t i = 0; i < v->n_iso; i++) {
		const struct plan_finding *fd = &v->iso[i].fd;

		if ((e->guid == fd->node.guid && e->port == fd->node.port) ||
		    (e->guid == fd->peer.guid && e->port == fd->peer.port))
			return true;
	}
	return false;
}

static int validate_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool validate_has_key(const uint64_t *keys, size_t n, uint64_t key)
{
	return n && bsearch(&key, keys, n, sizeof(*keys), validate_key_cmp) != NULL;
}

static void validate_order_done(void *arg, int status)
{
	(void)arg;
	(void)status; /* port.c logs the outcome */
}

static void validate_tell(struct sm *sm, enum validate_what what, const struct plan_finding *fd,
			  uint64_t guid, uint8_t port, const char *why)
{
	struct validate_change c = {what, fd, guid, port, why};

	hook_run(&sm->hooks.validation, &c);
}

static void validate_release(struct sm *sm, struct validate *v, size_t i, const char *why,
			     bool enable)
{
	struct validate_iso r = v->iso[i];

	v->iso[i] = v->iso[--v->n_iso];
	v->st.releases++;
	if (enable && port_set_enabled(sm, r.guid, r.port, true, validate_order_done, NULL) < 0)
		log_warn("port 0x%016llx/%u: released (%s) but cannot be enabled now",
			 (unsigned long long)r.guid, r.port, why);
	log_port(LOG_CAT_SWEEP, LOG_INFO, r.guid, r.port, "port 0x%016llx/%u released: %s",
		 (unsigned long long)r.guid, r.port, why);
	validate_tell(sm, VALIDATE_RELEASED, &r.fd, r.guid, r.port, why);
}

/* Disable the port fd names, and keep the record.  Master only. */
static void validate_isolate(struct sm *sm, struct validate *v, const struct plan_finding *fd,
			     uint64_t key)
{
	char line[700];
	uint64_t guid;
	uint8_t port;
	int r;

	if (!validate_port_of(fd, &guid, &port) || validate_iso_find(v, guid, port))
		return;
	plan_finding_str(fd, line, sizeof(line));
	r = port_set_enabled(sm, guid, port, false, validate_order_done, NULL);
	if (r < 0) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"%s: isolate: port 0x%016llx/%u cannot be disabled: %s", line,
				(unsigned long long)guid, port, strerror(-r));
		return;
	}
	if (v->n_iso == v->cap_iso) {
		size_t cap = v->cap_iso ? 2 * v->cap_iso : 8;
		struct validate_iso *n = realloc(v->iso, cap * sizeof(*n));

		if (!n)
			return; /* disabled, not remembered: the operator enables it */
		v->iso = n;
		v->cap_iso = cap;
	}
	v->iso[v->n_iso++] = (struct validate_iso){guid, port, key, *fd};
	v->st.isolations++;
	log_port(LOG_CAT_SWEEP, LOG_WARNING, guid, port,
		 "%s; isolated: port 0x%016llx/%u disabled (validate_%s = isolate)", line,
		 (unsigned long long)guid, port, plan_kind_name(fd->kind));
	validate_tell(sm, VALIDATE_ISOLATED, fd, guid, port, line);
}

/* The isolated ports against the fresh check: policy gone, fixed, or up again and still wrong. */
static void validate_iso_review(struct sm *sm, struct validate *v, const uint64_t *keys, size_t n)
{
	const struct fabric *f = sm->snap->fabric;

	for (size_t i = 0; i < v->n_iso;) {
		struct validate_iso *r = &v->iso[i];
		uint32_t ni = fabric_find_guid(f, r->guid);
		bool up = ni != FABRIC_NO_NODE && r->port <= f->nodes[ni].nports &&
			  port_is_linked(&f->nodes[ni].ports[r->port]);

		if (sm->conf.validate_policy[r->fd.kind] != CONF_VALIDATE_ISOLATE) {
			validate_release(sm, v, i, "the policy is warn now", true);
			continue;
		}
		if (up && !validate_has_key(keys, n, r->key)) {
			validate_release(sm, v, i, "up again without the finding: fixed", false);
			continue;
		}
		if (up &&
		    port_set_enabled(sm, r->guid, r->port, false, validate_order_done, NULL) == 0)
			log_ratelimited(LOG_CAT_SWEEP, LOG_INFO,
					"port 0x%016llx/%u is isolated but came up still wrong: "
					"disabled again",
					(unsigned long long)r->guid, r->port);
		i++;
	}
}

/* The list: the fresh findings (less cables an isolated port hides), then the isolated ones. */
static int validate_list(struct validate *v, const struct plan_result *res,
			 struct validate_item **ret, uint64_t **ret_keys, size_t *ret_n)
{
	size_t cap = res->n + v->n_iso, n = 0;
	struct validate_item *it = calloc(cap ? cap : 1, sizeof(*it));
	uint64_t *keys = calloc(cap ? cap : 1, sizeof(*keys));

	if (!it || !keys) {
		free(it);
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < res->n; i++) {
		const struct plan_finding *fd = &res->v[i];
		uint64_t key = plan_finding_key(fd);
		bool iso = false;

		if (fd->kind == PLAN_MISSING_LINK &&
		    (validate_iso_touches(v, &fd->node) || validate_iso_touches(v, &fd->want)))
			continue;
		for (size_t k = 0; k < v->n_iso && !iso; k++)
			iso = v->iso[k].key == key;
		if (iso)
			continue; /* listed with its record below */
		it[n].fd = *fd;
		keys[n++] = key;
	}
	for (size_t k = 0; k < v->n_iso; k++) {
		it[n] = (struct validate_item){v->iso[k].fd, true, v->iso[k].guid, v->iso[k].port};
		keys[n++] = v->iso[k].key;
	}
	*ret = it;
	*ret_keys = keys;
	*ret_n = n;
	return 0;
}

int validate_now(const struct sm *sm, struct validate_item **ret, size_t *ret_n)
{
	struct validate *v = validate_of(sm);
	struct validate none = {0};
	struct plan_result res;
	uint64_t *keys;
	int r = validate_check_now(sm, &res);

	if (r == 0)
		r = validate_list(v ? v : &none, &res, ret, &keys, ret_n);
	if (r == 0)
		free(keys);
	plan_result_clear(&res);
	return r;
}

static void validate_pass(struct sm *sm, struct validate *v)
{
	double t0 = clock_mono_s();
	struct plan_result res = {0};
	struct validate_item *items;
	uint64_t *keys, *sorted, *fresh;
	size_t n, logged = 0, nf;
	bool master = sm->state == SM_MASTER;

	if (validate_check_now(sm, &res) < 0) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "validation: out of memory");
		plan_result_clear(&res);
		return;
	}
	/* the fresh check's keys, sorted: what the isolated ports are reviewed against */
	nf = res.n;
	fresh = calloc(nf ? nf : 1, sizeof(*fresh));
	if (!fresh) {
		plan_result_clear(&res);
		return;
	}
	for (size_t i = 0; i < nf; i++)
		fresh[i] = plan_finding_key(&res.v[i]);
	qsort(fresh, nf, sizeof(*fresh), validate_key_cmp);
	if (master)
		validate_iso_review(sm, v, fresh, nf);
	for (size_t i = 0; master && i < res.n; i++)
		if (sm->conf.validate_policy[res.v[i].kind] == CONF_VALIDATE_ISOLATE)
			validate_isolate(sm, v, &res.v[i], plan_finding_key(&res.v[i]));
	free(fresh);
	if (validate_list(v, &res, &items, &keys, &n) < 0) {
		plan_result_clear(&res);
		return;
	}
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted) {
		free(items);
		free(keys);
		plan_result_clear(&res);
		return;
	}
	memcpy(sorted, keys, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), validate_key_cmp);
	/* what cleared (in the old list, not the new), then what appeared */
	for (size_t i = 0; i < v->n_items; i++) {
		char line[700];

		if (validate_has_key(sorted, n, plan_finding_key(&v->items[i].fd)))
			continue;
		v->st.cleared++;
		plan_finding_str(&v->items[i].fd, line, sizeof(line));
		if (logged++ < VALIDATE_LOG_MAX)
			log_info("validation: cleared: %s", line);
		validate_tell(sm, VALIDATE_CLEARED, &v->items[i].fd, 0, 0, line);
	}
	for (size_t i = 0; i < n; i++) {
		char line[700];

		if (validate_has_key(v->keys, v->n_items, keys[i]))
			continue;
		v->st.appeared++;
		plan_finding_str(&items[i].fd, line, sizeof(line));
		if (logged++ < VALIDATE_LOG_MAX)
			log_warn("validation: %s: %s", plan_severity_name(items[i].fd.severity),
				 line);
		validate_tell(sm, VALIDATE_APPEARED, &items[i].fd, 0, 0, line);
	}
	if (logged > VALIDATE_LOG_MAX)
		log_warn("validation: %zu more findings appeared or cleared (smctl validate)",
			 logged - VALIDATE_LOG_MAX);
	free(v->items);
	free(v->keys);
	free(keys);
	v->items = items;
	v->keys = sorted;
	v->n_items = n;
	v->st.findings = (uint32_t)n;
	v->st.errors = 0;
	for (size_t i = 0; i < n; i++)
		v->st.errors += items[i].fd.severity == PLAN_ERROR;
	v->st.isolated = (uint32_t)v->n_iso;
	v->st.matched = res.matched;
	v->st.runs++;
	v->st.generation = sm->snap->generation;
	v->st.last_ms = (clock_mono_s() - t0) * 1e3;
	plan_result_clear(&res);
}

static void validate_on_published(void *arg, const void *data)
{
	struct sm *sm = arg;
	struct validate *v = validate_of(sm);

	(void)data;
	if (v && sm->snap)
		validate_pass(sm, v);
}

void validate_forget(struct sm *sm, uint64_t guid, uint8_t port)
{
	struct validate *v = validate_of(sm);

	for (size_t i = 0; v && i < v->n_iso; i++)
		if (v->iso[i].guid == guid && v->iso[i].port == port) {
			validate_release(sm, v, i, "enabled by the operator", false);
			v->st.isolated = (uint32_t)v->n_iso;
			return;
		}
}

/* ---- the part ------------------------------------------------------------------------ */

int validate_attach(struct sm *sm, char *err, size_t err_len)
{
	struct validate *v = calloc(1, sizeof(*v));
	char why[512];

	if (!v || sm_part_add(sm, &validate_part, v) < 0) {
		free(v);
		goto fail;
	}
	v->sm = sm;
	if (hook_add(&sm->hooks.published, validate_on_published, sm) < 0 ||
	    sm_conf_applier_add(sm, "expected_topology_file", validate_apply, v) < 0 ||
	    sm_conf_applier_add(sm, "node_name_map_name", validate_apply, v) < 0)
		goto fail; /* the part is registered: sm_fini frees it */
	/* a file that does not load is said (and counted): the SM runs without it */
	validate_load_plan(v, sm->conf.expected_topology_file, why, sizeof(why));
	validate_load_names(v, sm->conf.node_name_map_name, why, sizeof(why));
	return 0;
fail:
	snprintf(err, err_len, "out of memory setting up fabric validation");
	return -ENOMEM;
}

static void validate_free(struct sm *sm, void *obj)
{
	struct validate *v = obj;

	if (!v)
		return;
	hook_remove(&sm->hooks.published, validate_on_published, sm);
	sm_conf_applier_remove(sm, "expected_topology_file", validate_apply, v);
	sm_conf_applier_remove(sm, "node_name_map_name", validate_apply, v);
	plan_free(v->plan);
	nodemap_free(v->names);
	free(v->items);
	free(v->keys);
	free(v->iso);
	free(v);
}

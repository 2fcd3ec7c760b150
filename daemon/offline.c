/*
 * Offline routing (ibsmd --offline): the daemon's steps 2 and 3 of a sweep
 * (LID assignment, routing with the fallback chain) on a fabric read from a
 * topology file instead of discovered, with a JSON summary and the dumps of
 * dump/dump.c.  The fallback chain is routing/chain.c's, the sweep's too, so
 * online and offline routing cannot drift apart.
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/clock.h"
#include "dump/dump.h"
#include "fabric/lid.h"
#include "lib/log.h"
#include "daemon/offline.h"
#include "fabric/topo.h"
#include "policy/roots.h"
#include "routing/chain.h"
#include "validate/plan.h"

int offline_exit_code(int rc)
{
	return rc == 0 ? 0 : rc == -EINVAL ? 2 : 1;
}

/* The refusals of a chain run as a JSON array, each logged. */
static json_t *fallbacks_json(const struct chain_result *res)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < res->n_refusals; i++) {
		const struct chain_refusal *x = &res->refusals[i];

		log_msg(LOG_CAT_ROUTE, LOG_WARNING,
			"routing engine %s refused: %s, trying the next one", x->engine, x->reason);
		json_array_append_new(
		    a, json_pack("{s:s, s:s}", "engine", x->engine, "reason", x->reason));
	}
	return a;
}

static uint32_t count_lid_ports(const struct fabric *f)
{
	struct fabric_port_iter it;
	uint32_t n = 0;

	fabric_for_each_lid_port (f, &it)
		n += f->nodes[it.node].ports[it.port].lid != 0;
	return n;
}

int offline_run(const char *topo_path, const char *engine, const char *chain,
		const char *roots_file, const char *dump_dir, uint8_t lmc, uint8_t max_vls,
		FILE *out, char *err, size_t err_len)
{
	uint64_t *roots = NULL;
	size_t n_roots = 0;
	struct fabric *f = NULL;
	struct lid_db *db = NULL;
	struct chain_result res = {0};
	struct routing_opts ro = {.max_vls = max_vls, .lmc = lmc};
	struct lid_assign_stats ls;
	struct routing_stats st = {0};
	json_t *o = NULL;
	double t0, ms;
	int rc, route_rc;

	if (err && err_len)
		err[0] = '\0';
	if (engine && *engine && !routing_find(engine)) {
		snprintf(err, err_len, "unknown routing engine '%s'", engine);
		return -EINVAL;
	}
	if (lmc > 7) {
		snprintf(err, err_len, "LMC %u out of range (0-7)", lmc);
		return -EINVAL;
	}
	rc = roots_load(roots_file, &roots, &n_roots, err, err_len);
	if (rc < 0)
		return rc == -ENOMEM ? rc : -EINVAL;
	rc = topo_load(topo_path, &f, err, err_len);
	if (rc == -ENOMEM) {
		free(roots);
		return rc;
	}
	if (rc < 0) {
		free(roots);
		return -EINVAL; /* err is "FILE:LINE: ..." or "FILE: strerror" */
	}
	db = lid_db_new();
	if (!db) {
		rc = -ENOMEM;
		goto out_free;
	}
	rc = lid_assign(db, f, lmc, &ls);
	if (rc < 0) {
		snprintf(err, err_len, "%s: LID assignment failed: %s", topo_path,
			 rc == -ENOSPC ? "the fabric needs more than 49151 LIDs" : strerror(-rc));
		if (rc == -ENOSPC)
			rc = -EINVAL;
		goto out_free;
	}

	ro.roots = roots;
	ro.n_roots = n_roots;
	t0 = clock_mono_ms();
	route_rc = chain_run(f, &ro, engine, chain, &res);
	ms = clock_mono_ms() - t0;
	if (route_rc == 0)
		routing_stats(f, res.routes, &st);

	o = json_object();
	if (!o) {
		rc = -ENOMEM;
		goto out_free;
	}
	json_object_set_new(o, "engine",
			    route_rc == 0 ? json_string(res.engine->name) : json_null());
	json_object_set_new(o, "requested", engine && *engine ? json_string(engine) : json_null());
	json_object_set_new(o, "fallbacks", fallbacks_json(&res));
	json_object_set_new(o, "lids", json_integer(count_lid_ports(f)));
	json_object_set_new(o, "max_lid", json_integer(ls.max_lid));
	json_object_set_new(o, "lmc", json_integer(lmc));
	json_object_set_new(o, "nodes", json_integer(f->n_nodes));
	json_object_set_new(o, "switches", json_integer(fabric_count(f, NODE_SWITCH)));
	json_object_set_new(o, "cas", json_integer(fabric_count(f, NODE_CA)));
	json_object_set_new(o, "route_ms", json_real(ms));
	json_object_set_new(o, "vls", json_integer(route_rc == 0 ? res.routes->n_vls : 0));
	json_object_set_new(o, "max_routes_per_port", json_integer(st.max_routes_per_port));
	json_object_set_new(o, "mean_routes_per_port", json_real(st.mean_routes_per_port));
	json_object_set_new(o, "unreachable", json_integer(st.unreachable));
	if (route_rc != 0)
		json_object_set_new(o, "error", json_string(strerror(-route_rc)));
	/* all-to-all link load: every CA to every CA LID; too slow past ~10k CAs */
	if (route_rc == 0 && fabric_count(f, NODE_CA) <= 10000) {
		struct routing_link_load ll;
		if (routing_link_load(f, res.routes, &ll) == 0 && ll.n_links) {
			json_object_set_new(o, "link_load_max", json_integer(ll.max));
			json_object_set_new(o, "link_load_mean", json_real(ll.mean));
			json_object_set_new(o, "link_load_ratio", json_real(ll.ratio));
			json_object_set_new(o, "link_load_tier_ratio", json_real(ll.tier_ratio));
			json_object_set_new(o, "link_load_bound", json_integer(ll.bound));
		}
	}
	json_dumpf(o, out, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	fputc('\n', out);
	fflush(out);

	if (route_rc != 0) {
		snprintf(err, err_len, "no routing engine could route %s: %s", topo_path,
			 strerror(-route_rc));
		rc = route_rc == -EINVAL ? -ENOTSUP : route_rc; /* -EINVAL means bad input */
		goto out_free;
	}
	log_msg(LOG_CAT_ROUTE, LOG_INFO,
		"%s: %s routing, %.1f ms, max %u / mean %.1f routes per port, %u unreachable",
		topo_path, res.engine->name, ms, st.max_routes_per_port, st.mean_routes_per_port,
		st.unreachable);
	if (dump_dir) {
		rc = mkdir(dump_dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
		if (rc == 0)
			rc = dump_all(f, res.routes, dump_dir);
		if (rc < 0) {
			snprintf(err, err_len, "%s: cannot write the dumps: %s", dump_dir,
				 strerror(-rc));
			if (rc == -EINVAL)
				rc = -EIO;
			goto out_free;
		}
	}
	rc = 0;

out_free:
	free(roots);
	json_decref(o);
	chain_result_clear(&res);
	lid_db_free(db);
	fabric_free(f);
	return rc;
}

int offline_validate(const char *topo_path, const char *plan_path, FILE *out, char *err,
		     size_t err_len)
{
	struct plan_result res = {0};
	struct fabric *f = NULL;
	struct plan *p = NULL;
	unsigned errors = 0;
	int r;

	if (topo_load(topo_path, &f, err, err_len) < 0 ||
	    plan_load(plan_path, &p, err, err_len) < 0) {
		r = -EINVAL;
		goto out;
	}
	r = plan_check(p, f, NULL, &res);
	if (r < 0) {
		snprintf(err, err_len, "%s", strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < res.n; i++) {
		char line[700];

		plan_finding_str(&res.v[i], line, sizeof(line));
		fprintf(out, "%s: %s\n", plan_severity_name(res.v[i].severity), line);
		errors += res.v[i].severity == PLAN_ERROR;
	}
	fprintf(out,
		"%zu findings (%u errors, %zu warnings); %u of %u planned nodes found, %u "
		"links checked\n",
		res.n, errors, res.n - errors, res.matched, p->f->n_nodes, res.links_checked);
	r = (int)errors;
out:
	plan_result_clear(&res);
	plan_free(p);
	fabric_free(f);
	return r;
}

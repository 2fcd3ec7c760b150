/*
 * The control API's views of fabric validation and of where hosts sit
 * (docs/validation.md): `validate` (the published snapshot checked now
 * against the cabling plan, validate/validate.h), a finding as JSON (also
 * for events.c), and the scheduler formats of `topology` (slurm,
 * slurm-yaml; fabric/slurm.h) and the hosts/leaves the json format adds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/names.h"
#include "fabric/slurm.h"
#include "fabric/speed.h"
#include "ui/api_int.h"
#include "validate/validate.h"

/* One end of a finding: {guid, port, desc, type}, or null for none. */
static json_t *api_end_json(const struct plan_end *e)
{
	json_t *o;

	if (!e->guid && !e->desc[0])
		return json_null();
	o = json_pack("{s:o, s:i, s:s, s:s}", "guid", e->guid ? api_guid(e->guid) : json_null(),
		      "port", e->port, "desc", e->desc, "type", names_node_type(e->type));
	return o ? o : json_null();
}

static json_t *api_width_json(uint8_t width)
{
	return width ? json_sprintf("%ux", speed_width_lanes(width)) : json_null();
}

static json_t *api_lane_json(uint8_t lane)
{
	return speed_name(lane) ? json_string(speed_name(lane)) : json_null();
}

json_t *api_finding_json(const struct plan_finding *fd)
{
	char line[700];
	json_t *o;

	plan_finding_str(fd, line, sizeof(line));
	o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "kind", plan_kind_name(fd->kind),
		      "severity", plan_severity_name(fd->severity), "node", api_end_json(&fd->node),
		      "peer", api_end_json(&fd->peer), "want", api_end_json(&fd->want), "other",
		      api_end_json(&fd->other), "text", line);
	if (o && (fd->kind == PLAN_DEGRADED_WIDTH || fd->kind == PLAN_DEGRADED_SPEED)) {
		json_object_set_new(o, "width", api_width_json(fd->width));
		json_object_set_new(o, "speed", api_lane_json(fd->lane));
		json_object_set_new(o, "want_width", api_width_json(fd->want_width));
		json_object_set_new(o, "want_speed", api_lane_json(fd->want_lane));
		json_object_set_new(o, "against", json_string(fd->planned ? "plan" : "enabled"));
	}
	return o;
}

/*
 * validate: {"plan": FILE|null, "generation": N, "findings": [...],
 * "counts": {kind: n}, "errors": n, "warnings": n}.  The check runs now
 * over the published snapshot (no event, no isolation: those follow a
 * publish).
 */
int api_validate(void *ctx, struct ctl_client *c, json_t *args, json_t **ret, struct ctl_error *err)
{
	struct api *api = ctx;
	struct validate_stats st;
	struct validate_item *items = NULL;
	unsigned counts[PLAN_NKINDS] = {0}, errors = 0;
	size_t n = 0;
	json_t *o, *a, *k;

	(void)c;
	if (api_check_args(args, NULL, err) || api_need_fabric(api, err))
		return -EINVAL;
	if (validate_now(api->sm, &items, &n) < 0)
		return -ENOMEM;
	validate_get_stats(api->sm, &st);
	a = json_array();
	k = json_object();
	for (size_t i = 0; a && i < n; i++) {
		json_t *f = api_finding_json(&items[i].fd);

		if (f && items[i].isolated) {
			json_object_set_new(f, "isolated", json_true());
			json_object_set_new(f, "isolated_port",
					    json_pack("{s:o, s:i}", "guid", api_guid(items[i].guid),
						      "port", items[i].port));
		} else if (f) {
			json_object_set_new(f, "isolated", json_false());
		}
		json_array_append_new(a, f);
		counts[items[i].fd.kind]++;
		errors += items[i].fd.severity == PLAN_ERROR;
	}
	for (unsigned i = 0; k && i < PLAN_NKINDS; i++)
		json_object_set_new(k, plan_kind_name(i), json_integer(counts[i]));
	free(items);
	*ret = o =
	    json_pack("{s:o, s:I, s:o, s:o, s:i, s:i, s:i}", "plan",
		      st.plan ? json_string(st.plan_file) : json_null(), "generation",
		      (json_int_t)api->sm->snap->generation, "findings", a, "counts", k, "errors",
		      (int)errors, "warnings", (int)(n - errors), "isolated", (int)st.isolated);
	if (o && st.last_error[0])
		json_object_set_new(o, "load_error", json_string(st.last_error));
	return o ? 0 : -ENOMEM;
}

/* ---- where hosts sit ---------------------------------------------------------- */

char *api_topo_slurm(const struct api *api, const struct fabric *f, bool yaml)
{
	struct slurm_topo *t = NULL;
	struct api_text b;
	int r;

	if (slurm_build(f, validate_names(api->sm), &t) < 0)
		return NULL;
	if (api_text_begin(&b) < 0) {
		slurm_free(t);
		return NULL;
	}
	r = yaml ? slurm_write_yaml(t, b.fp) : slurm_write_conf(t, b.fp);
	slurm_free(t);
	if (r < 0) {
		free(api_text_end(&b));
		return NULL;
	}
	return api_text_end(&b);
}

int api_topo_hosts_into(const struct api *api, const struct fabric *f, json_t *o)
{
	struct slurm_topo *t = NULL;
	json_t *hosts = json_object(), *leaves = json_object();

	if (!hosts || !leaves || slurm_build(f, validate_names(api->sm), &t) < 0) {
		json_decref(hosts);
		json_decref(leaves);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->n_hosts; i++) {
		const struct slurm_host *h = &t->hosts[i];
		json_t *all = json_array();

		for (uint32_t k = 0; all && k < h->n_leaves; k++)
			json_array_append_new(all, json_string(t->sw[h->leaves[k]].name));
		json_object_set_new(hosts, h->name,
				    json_pack("{s:s, s:o}", "leaf", t->sw[h->leaf].name, "leaves",
					      all ? all : json_array()));
	}
	for (uint32_t k = 0; k < t->n_sw; k++) {
		const struct slurm_switch *s = &t->sw[k];
		json_t *up;

		if (s->level)
			continue;
		up = json_array();
		for (uint32_t j = 0; up && j < s->n_above; j++)
			json_array_append_new(up, json_string(t->sw[s->above[j]].name));
		json_object_set_new(leaves, s->name, up ? up : json_array());
	}
	slurm_free(t);
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "leaves", leaves);
	return 0;
}

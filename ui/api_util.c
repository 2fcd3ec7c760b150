/*
 * Helpers every part of the control API uses: GUIDs as JSON, argument
 * checks, the not-ready answer, texts built in memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fabric/speed.h"
#include "ui/api_int.h"

json_t *api_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_string(buf);
}

const char *api_port_speed(const struct fabric *f, const struct port *p, json_t *o)
{
	const char *name = speed_name(speed_port_lane(p));

	if (o) {
		json_object_set_new(o, "rate_gbps",
				    json_real(speed_rate_mbps(speed_port_rate(p)) / 1000.0));
		if (port_is_linked(p) && p->remote_node < f->n_nodes)
			json_object_set_new(
			    o, "below_enabled",
			    json_boolean(speed_link_below(
				p, &f->nodes[p->remote_node].ports[p->remote_port])));
	}
	return name ? name : "?";
}

double api_uptime(const struct api *api)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - api->started.tv_sec) + (ts.tv_nsec - api->started.tv_nsec) / 1e9;
}

int api_check_args(json_t *args, const char *const *names, struct ctl_error *err)
{
	const char *key;
	json_t *v;

	if (!args)
		return 0;
	json_object_foreach (args, key, v) {
		bool known = false;

		for (size_t i = 0; names && names[i]; i++)
			if (!strcmp(key, names[i]))
				known = true;
		if (!known)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "unknown argument '%.64s'",
					     key);
	}
	return 0;
}

int api_need_fabric(const struct api *api, struct ctl_error *err)
{
	if (!api->sm->snap)
		return ctl_error_set(err, CTL_ERR_NOT_READY,
				     "no fabric discovered yet: wait for the first sweep");
	return 0;
}

int api_text_begin(struct api_text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->fp = open_memstream(&t->buf, &t->len);
	return t->fp ? 0 : -ENOMEM;
}

char *api_text_end(struct api_text *t)
{
	bool failed = ferror(t->fp);

	if (fclose(t->fp) != 0 || failed) {
		free(t->buf);
		t->buf = NULL;
	}
	t->fp = NULL;
	return t->buf;
}

int api_list_parse(const struct api *api, json_t *args, struct api_list *l, struct ctl_error *err)
{
	static const char *const names[] = {"type",  "state",	  "node", "offset",
					    "limit", "unhealthy", NULL};
	static const char *const states[] = {"down", "init", "armed", "active"};
	json_t *v;

	*l = (struct api_list){-1, -1, UINT32_MAX, 0, -1, 0, false};
	if (api_check_args(args, names, err))
		return -EINVAL;
	if ((v = json_object_get(args, "type"))) {
		const char *t = json_string_value(v);

		if (t && !strcmp(t, "switch"))
			l->type = NODE_SWITCH;
		else if (t && !strcmp(t, "ca"))
			l->type = NODE_CA;
		else
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "type must be switch or ca");
	}
	if ((v = json_object_get(args, "state"))) {
		const char *t = json_string_value(v);

		for (int i = 0; t && i < 4; i++)
			if (!strcasecmp(t, states[i]))
				l->state = i + 1;
		if (l->state < 0)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "state must be down, init, armed or active");
	}
	if ((v = json_object_get(args, "node"))) {
		uint8_t pn;

		if (api_resolve(api->sm->snap, v, "node", &l->node, &pn, err) < 0)
			return -EINVAL;
	}
	if ((v = json_object_get(args, "unhealthy"))) {
		if (!json_is_boolean(v))
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "unhealthy must be true or false");
		l->unhealthy = json_is_true(v);
	}
	if ((v = json_object_get(args, "offset"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "offset must be an integer >= 0");
		l->offset = json_integer_value(v);
	}
	if ((v = json_object_get(args, "limit"))) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "limit must be an integer >= 0");
		l->limit = json_integer_value(v);
	}
	return 0;
}

bool api_list_take(struct api_list *l)
{
	int64_t i = l->seen++;

	return i >= l->offset && (l->limit < 0 || i < l->offset + l->limit);
}

bool api_list_done(const struct api_list *l)
{
	return l->limit >= 0 && l->seen >= l->offset + l->limit;
}

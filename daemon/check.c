/*
 * The configuration of ibsmd (see daemon.h): defaults, the file, the
 * command line; the checks conf.c cannot make (engines built in, groups
 * that exist, the local port); --check-config and --create-config.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "lib/atomic_file.h"
#include "mad/madio.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "fabric/nodemap.h"
#include "validate/plan.h"
#include "routing/routing.h"
#include "ui/http_auth.h"

/* Add a line to an error list (err holds lines already). */
static void err_append(char *err, size_t err_len, const char *line)
{
	size_t used = strlen(err);

	if (used + 1 < err_len)
		snprintf(err + used, err_len - used, "%s%s", used ? "\n" : "", line);
}

/* The checks conf.c cannot make: engines built in, groups that exist. */
static int check_engine(const char *name, size_t len, char *why, size_t why_len)
{
	char buf[CONF_NAME_MAX], list[128] = "";
	size_t used = 0;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	if (routing_find(buf))
		return 0;
	for (const struct routing_engine *e = routing_engines; e->name; e++)
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					 "%s%s", used ? ", " : "", e->name);
	snprintf(why, why_len, "unknown routing engine '%s' (built in: %s)", buf, list);
	return -EINVAL;
}

static int daemon_check_key(void *ctx, const char *key, const char *value, char *why,
			    size_t why_len)
{
	if (!strcmp(key, "routing_engine"))
		return check_engine(value, strlen(value), why, why_len);
	if (!strcmp(key, "routing_chain")) {
		for (const char *s = value;;) {
			size_t n = strcspn(s, ",");

			if (check_engine(s, n, why, why_len) < 0)
				return -EINVAL;
			if (!s[n])
				return 0;
			s += n + 1;
		}
	}
	if ((!strcmp(key, "socket_group") || !strcmp(key, "admin_group")) && value[0]) {
		struct group gr, *grp = NULL;
		char buf[4096];

		if (getgrnam_r(value, &gr, buf, sizeof(buf), &grp) || !grp) {
			snprintf(why, why_len, "no group '%s' on this host", value);
			return -EINVAL;
		}
	}
	return 0;
}

static const struct conf_checks daemon_checks = {daemon_check_key, NULL};

/*
 * Defaults, then the file, then the command line.  0 or -EINVAL with err:
 * every error found, one per line.
 */
int daemon_load_conf(struct daemon *d, struct sm_conf *c, char *err, size_t err_len)
{
	char one[1200];
	int r, rc = 0;

	conf_defaults(c);
	err[0] = '\0';
	if (d->conf_explicit || access(d->conf_path, F_OK) == 0) {
		rc = conf_load_checked(c, d->conf_path, &daemon_checks, err, err_len);
		if (rc < 0 && rc != -EINVAL)
			return rc; /* unreadable: nothing else to say */
	}
	for (int i = 0; i < d->n_overrides; i++) {
		const struct override *o = &d->overrides[i];
		char why[512];

		r = conf_set(c, o->key, o->value, why, sizeof(why));
		if (r == 0 && daemon_check_key(NULL, o->key, o->value, why, sizeof(why)) < 0)
			r = -EINVAL;
		if (r < 0)
			snprintf(one, sizeof(one), "%s %s: %s", o->opt, o->value, why);
		if (r < 0) {
			err_append(err, err_len, one);
			rc = -EINVAL;
		}
	}
	return rc;
}

int daemon_check(struct daemon *d)
{
	char err[4096];
	int r;

	r = daemon_load_conf(d, &d->conf, err, sizeof(err));
	if (d->check_only && (r == 0 || r == -EINVAL)) {
		/* the devices named, where this host has any to compare with */
		char why[1200];
		struct partition_config *parts = NULL;
		char perr[3000];

		if (partition_load(d->conf.partition_config_file, &parts, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		partition_config_free(parts);

		struct qos_policy *qp = NULL;

		/* the QoS policy file counts with qos on, as at start-up */
		if (d->conf.qos &&
		    qos_policy_load(d->conf.qos_policy_file, &qp, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		qos_policy_free(qp);

		/* the cabling plan and the node name map, FILE:LINE for each error */
		struct plan *plan = NULL;
		struct nodemap *names = NULL;

		if (d->conf.expected_topology_file[0] &&
		    plan_load(d->conf.expected_topology_file, &plan, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		plan_free(plan);
		if (d->conf.node_name_map_name[0] &&
		    nodemap_load(d->conf.node_name_map_name, &names, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		nodemap_free(names);

		/* the HTTP users, as at start-up: a file others may read is refused */
		struct http_users *users = NULL;

		if (d->conf.http_users_file[0] &&
		    http_auth_load(d->conf.http_users_file, &users, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		http_auth_free(users);

		char line[sizeof(why) + 64];

		if (madio_check_port(d->conf.ca_name, d->conf.port_num, d->conf.port_guid, why,
				     sizeof(why)) < 0) {
			snprintf(line, sizeof(line), "ca_name/port_num/port_guid: %s", why);
			err_append(err, sizeof(err), line);
			r = -EINVAL;
		}
	}
	if (r < 0) {
		for (const char *l = err; *l;) {
			size_t n = strcspn(l, "\n");

			fprintf(stderr, "ibsmd: %.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
		if (d->check_only && r == -EINVAL)
			fprintf(stderr, "ibsmd: the configuration is not valid\n");
		return 2;
	}
	if (d->check_only) {
		printf("%s: configuration OK\n", d->conf_explicit || access(d->conf_path, F_OK) == 0
						     ? d->conf_path
						     : "(defaults)");
		return 0;
	}
	return -1;
}

/*
 * Whether c holds a key of the subnet (sm_key, m_key, sa_key: the secret
 * keys) other than its default: a file that writes it must be the owner's
 * alone.
 */
static bool conf_holds_secrets(const struct sm_conf *c)
{
	const char *keys[256];
	struct sm_conf def;
	size_t n;

	conf_defaults(&def);
	n = conf_diff(&def, c, keys, sizeof(keys) / sizeof(keys[0]));
	if (n > sizeof(keys) / sizeof(keys[0]))
		return true; /* cannot tell: the safe answer */
	for (size_t i = 0; i < n; i++)
		if (conf_key_is_secret(keys[i]))
			return true;
	return false;
}

/*
 * Write the configuration in effect to path, atomically: mode 0600 when it
 * holds keys (conf_holds_secrets), else 0644.  0 or -errno with err.
 */
static int create_config(const struct daemon *d, const char *path, char *err, size_t err_len)
{
	struct atomic_file af;
	char comment[sizeof(d->conf_path) + 256];
	int r;

	snprintf(comment, sizeof(comment),
		 "ibsmd %s configuration, written by --create-config from %s and the command\n"
		 "line; every key, see ibsmd.conf(5)",
		 PACKAGE_VERSION,
		 d->conf_explicit || access(d->conf_path, F_OK) == 0 ? d->conf_path
								     : "the defaults");
	r = atomic_file_open(&af, path, conf_holds_secrets(&d->conf) ? 0600 : 0644);
	if (r == 0) {
		r = conf_write(af.fp, &d->conf, comment);
		if (r < 0)
			atomic_file_abort(&af);
		else
			r = atomic_file_commit(&af, true);
	}
	if (r < 0)
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(-r));
	return r;
}

int daemon_create_config(const struct daemon *d)
{
	char err[4096];

	if (create_config(d, d->create_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		return 1;
	}
	printf("configuration written to %s\n", d->create_path);
	return 0;
}

/*
 * ibsmd: the daemon's entry point.  Parses the command line, opens the MAD
 * port, runs the event loop, and either sweeps once (--once) or keeps the
 * subnet managed, re-sweeping periodically, until SIGTERM/SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "ui/api.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "sm/conf.h"
#include "lib/atomic_file.h"
#include "mad/madio.h"
#include "routing/routing.h"
#include "lib/log.h"
#include "daemon/offline.h"
#include "sm/sm.h"
#include "failover/smstate.h"
#include "failover/sync.h"
#include "perf/health.h"
#include "perf/perfmgr.h"

/* --once gives up after this many sweeps that do not bring the subnet up. */
#define DAEMON_ONCE_TRIES 4

struct daemon {
	struct event_base *base;
	struct sm sm;
	struct sm_conf conf;
	char conf_path[512];
	bool conf_explicit;
	struct override {
		const char *opt, *key, *value; /* opt: as given, for messages */
	} overrides[32];
	int n_overrides;
	struct api *api;
	bool socket_explicit;
	bool once;
	unsigned once_failures; /* --once: sweeps that did not bring the subnet up */
	int exit_code;
	bool notified_ready;
	bool verbose;
	struct event *ev_term, *ev_int, *ev_hup;
	struct event *watchdog;
};

/*
 * The options.  Where ibsmd has an option OpenSM has, it takes OpenSM's
 * letter (and its long name, as an alias of ours); OpenSM letters for things
 * ibsmd does not do are not reused for anything else.  The lines below are
 * what --help prints and what ibsmd(8) lists (a test compares them).
 */
static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: ibsmd [OPTIONS]\n"
	    "InfiniBand subnet manager.\n\n"
	    "  -F, --config FILE          configuration file (default %s)\n"
	    "      --check-config         validate the configuration, report every error, exit\n"
	    "  -c, --create-config FILE   write the configuration in effect to FILE, exit\n"
	    "  -o, --once                 bring the subnet up once; exit 0 when it is up\n"
	    "      --offline TOPO         route a topology file offline, print a JSON summary\n"
	    "      --dump-dir DIR         with --offline: write topo.out, lfts.out, opensm-*,\n"
	    "                             path-sl, sl2vl into DIR\n"
	    "      --state-dir DIR        where the guid2lid file lives (key state_dir)\n"
	    "      --socket PATH          control socket (key socket_path)\n"
	    "  -g, --guid GUID            the local port to use, by port GUID (key port_guid)\n"
	    "      --ca NAME              the local RDMA device to use (key ca_name)\n"
	    "      --port N               the port of that device (key port_num)\n"
	    "  -p, --priority N           SM priority 0..15 (key sm_priority)\n"
	    "  -k, --smkey KEY            SM_Key shared with the other SMs, 64-bit hex\n"
	    "                             (key sm_key; visible to ps: prefer the file)\n"
	    "  -R, --routing, --routing_engine ENGINE\n"
	    "                             first routing engine (key routing_engine)\n"
	    "  -a, --root_guid_file FILE  root switch GUIDs for updn (key updn_roots_file)\n"
	    "  -P, --Pconfig FILE         partitions in OpenSM's partitions.conf syntax\n"
	    "                             (key partition_config_file)\n"
	    "  -l, --lmc N                LMC of CA ports 0..7 (key lmc)\n"
	    "  -s, --sweep-interval, --sweep SEC\n"
	    "                             seconds between light sweeps, 0 = none\n"
	    "                             (key sweep_interval)\n"
	    "  -t, --timeout MS           SMP timeout (key mad_timeout_ms)\n"
	    "      --retries N            SMP retries (key mad_retries)\n"
	    "  -n, --window, --maxsmps N  SMPs outstanding at once (key mad_window)\n"
	    "      --perfmgr              read port counters (key perfmgr = true)\n"
	    "      --http ADDR:PORT       serve /metrics, a read-only JSON API and the web\n"
	    "                             page (key http_listen)\n"
	    "  -v, --verbose              debug logging (key log_level)\n"
	    "  -V                         the same as -v (OpenSM's full verbosity)\n"
	    "  -D FLAGS                   OpenSM's log flags: 0x01 error, 0x02/0x04 info,\n"
	    "                             0x08 and above debug (key log_level)\n"
	    "  -d N                       OpenSM's debug modes: 1 and 2 are accepted\n"
	    "                             (ibsmd always dispatches in one thread and\n"
	    "                             flushes its log); others are refused\n"
	    "  -h, -?, --help             this text\n"
	    "      --version              print the version\n",
	    SYSCONFDIR "/ibsmd.conf");
}

static void on_sweep(void *arg, const void *data)
{
	struct daemon *d = arg;
	const struct sweep_summary *s = data;

	if (d->once) {
		if (s->status == 0) {
			printf("subnet up: %u nodes (%u switches, %u CAs), %u links, %u LIDs, "
			       "%s routing, %.1f ms%s\n",
			       s->nodes, s->switches, s->cas, s->links, s->lids, s->engine, s->ms,
			       s->timeouts ? " (some nodes did not answer: see the log)" : "");
			d->exit_code = 0;
		} else if (!s->standby && ++d->once_failures < DAEMON_ONCE_TRIES) {
			/* the sweep retry timer runs the next one */
			fprintf(stderr, "ibsmd: sweep %u of at most %u: subnet not up: %s; again\n",
				d->once_failures, DAEMON_ONCE_TRIES, s->reason);
			return;
		} else {
			fprintf(stderr, "ibsmd: subnet not up: %s\n", s->reason);
			d->exit_code = 1;
		}
		event_base_loopexit(d->base, NULL);
		return;
	}
	if (s->standby) {
		/* a standby is ready too: it watches the master */
		sd_notifyf(0, "%sSTATUS=%s", d->notified_ready ? "" : "READY=1\n", s->reason);
		d->notified_ready = true;
	} else if (s->status == 0 && !d->notified_ready) {
		d->notified_ready = true;
		sd_notifyf(0, "READY=1\nSTATUS=MASTER: %u nodes, %u links active", s->nodes,
			   s->links);
	} else {
		sd_notifyf(0, "STATUS=%s: %u nodes, %u links active%s%s",
			   s->status == 0 ? "MASTER" : "DEGRADED", s->nodes, s->links,
			   s->status ? ", " : "", s->status ? s->reason : "");
	}
}

static void reload(struct daemon *d);

static unsigned long long now_monotonic_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000ULL + (unsigned long long)t.tv_nsec / 1000;
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

/* Send WATCHDOG=1 from the loop at half the interval systemd asked for (sd_watchdog_enabled(3)). */
static void watchdog_start(struct daemon *d)
{
	uint64_t usec = 0;
	struct timeval tv;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return;
	usec /= 2;
	tv.tv_sec = (time_t)(usec / 1000000);
	tv.tv_usec = (suseconds_t)(usec % 1000000);
	d->watchdog = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d);
	if (!d->watchdog || event_add(d->watchdog, &tv) < 0) {
		log_warn("cannot arm the systemd watchdog timer: systemd may restart us");
		return;
	}
	sd_notify(0, "WATCHDOG=1");
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "systemd watchdog: WATCHDOG=1 every %llu ms",
		(unsigned long long)(usec / 1000));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	if (sig == SIGHUP) {
		log_info("SIGHUP: reloading %s", d->conf_path);
		reload(d);
		return;
	}
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

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
static int load_conf(struct daemon *d, struct sm_conf *c, char *err, size_t err_len)
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

static void reload(struct daemon *d)
{
	struct sm_conf nc;
	char err[4096];
	size_t n;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)(now_monotonic_usec()));
	if (load_conf(d, &nc, err, sizeof(err)) < 0) {
		for (const char *l = err; *l;) {
			size_t k = strcspn(l, "\n");

			log_err("reload: %.*s", (int)k, l);
			l += k + (l[k] == '\n');
		}
		log_err("reload: %s rejected; keeping the running configuration", d->conf_path);
		sd_notify(0, "READY=1");
		return;
	}
	if (d->verbose)
		nc.log_level = LOG_DEBUG; /* --verbose wins over the file, as at start-up */
	n = sm_reconfigure(&d->sm, &nc);
	log_info("configuration reloaded from %s (%zu key%s changed)", d->conf_path, n,
		 n == 1 ? "" : "s");
	/* the partitions file may have changed while ibsmd.conf did not */
	if (sm_load_partitions(&d->sm, err, sizeof(err)) < 0) {
		for (const char *l = err; *l;) {
			size_t k = strcspn(l, "\n");

			log_err("reload: %.*s", (int)k, l);
			l += k + (l[k] == '\n');
		}
		log_err("reload: %s rejected; keeping the running partitions",
			d->sm.conf.partition_config_file);
	}
	/* so may the QoS policy file */
	if (sm_load_qos(&d->sm, err, sizeof(err)) < 0) {
		for (const char *l = err; *l;) {
			size_t k = strcspn(l, "\n");

			log_err("reload: %.*s", (int)k, l);
			l += k + (l[k] == '\n');
		}
		log_err("reload: %s rejected; keeping the running QoS policy",
			d->sm.conf.qos_policy_file);
	}
	sd_notify(0, "READY=1");
	sweep_start_why(&d->sm, "SIGHUP");
}

enum {
	OPT_CHECK = 256,
	OPT_VERSION,
	OPT_OFFLINE,
	OPT_DUMP,
	OPT_STATE,
	OPT_SOCKET,
	OPT_CA,
	OPT_PORT,
	OPT_RETRIES,
	OPT_HTTP,
	OPT_PERFMGR,
};

/* OpenSM's -D log flags as one of our levels. */
static const char *level_from_flags(const char *arg)
{
	char *end;
	unsigned long f;

	errno = 0;
	f = strtoul(arg, &end, 0);
	if (!*arg || *end || errno || f > 0xff)
		return NULL;
	return f & 0xf8 ? "debug" : f & 0x06 ? "info" : "error";
}

/* Write the configuration in effect to path, atomically.  0 or -errno with err. */
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
	r = atomic_file_open(&af, path, 0644);
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

/*
 * The parts of the SM (sm/part.h), in the order they attach: the role
 * (election, handover, polling) before its state sync, then the
 * performance manager and the port health policy.
 */
static int main_attach_parts(struct sm *sm, char *err, size_t err_len)
{
	static int (*const attach[])(struct sm *, char *, size_t) = {
	    smstate_attach,
	    sync_attach,
	    perfmgr_attach,
	    health_attach,
	};

	for (size_t i = 0; i < sizeof(attach) / sizeof(attach[0]); i++) {
		int r = attach[i](sm, err, err_len);

		if (r < 0)
			return r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'F'},
	    {"check-config", no_argument, NULL, OPT_CHECK},
	    {"create-config", required_argument, NULL, 'c'},
	    {"once", no_argument, NULL, 'o'},
	    {"offline", required_argument, NULL, OPT_OFFLINE},
	    {"dump-dir", required_argument, NULL, OPT_DUMP},
	    {"state-dir", required_argument, NULL, OPT_STATE},
	    {"socket", required_argument, NULL, OPT_SOCKET},
	    {"guid", required_argument, NULL, 'g'},
	    {"ca", required_argument, NULL, OPT_CA},
	    {"port", required_argument, NULL, OPT_PORT},
	    {"priority", required_argument, NULL, 'p'},
	    {"smkey", required_argument, NULL, 'k'},
	    {"routing", required_argument, NULL, 'R'},
	    {"routing_engine", required_argument, NULL, 'R'},
	    {"root_guid_file", required_argument, NULL, 'a'},
	    {"Pconfig", required_argument, NULL, 'P'},
	    {"lmc", required_argument, NULL, 'l'},
	    {"sweep-interval", required_argument, NULL, 's'},
	    {"sweep", required_argument, NULL, 's'},
	    {"timeout", required_argument, NULL, 't'},
	    {"retries", required_argument, NULL, OPT_RETRIES},
	    {"window", required_argument, NULL, 'n'},
	    {"maxsmps", required_argument, NULL, 'n'},
	    {"http", required_argument, NULL, OPT_HTTP},
	    {"perfmgr", no_argument, NULL, OPT_PERFMGR},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {0},
	};
	static const struct {
		int opt;
		const char *name, *key;
	} keymap[] = {
	    {OPT_STATE, "--state-dir", "state_dir"},
	    {OPT_SOCKET, "--socket", "socket_path"},
	    {'g', "-g/--guid", "port_guid"},
	    {OPT_CA, "--ca", "ca_name"},
	    {OPT_PORT, "--port", "port_num"},
	    {'p', "-p/--priority", "sm_priority"},
	    {'k', "-k/--smkey", "sm_key"},
	    {'R', "-R/--routing", "routing_engine"},
	    {'a', "-a/--root_guid_file", "updn_roots_file"},
	    {'P', "-P/--Pconfig", "partition_config_file"},
	    {'l', "-l/--lmc", "lmc"},
	    {'s', "-s/--sweep-interval", "sweep_interval"},
	    {'t', "-t/--timeout", "mad_timeout_ms"},
	    {OPT_RETRIES, "--retries", "mad_retries"},
	    {'n', "-n/--window", "mad_window"},
	    {'D', "-D", "log_level"},
	    {OPT_HTTP, "--http", "http_listen"},
	};
	struct daemon d = {.exit_code = 1};
	bool check_only = false;
	const char *offline_topo = NULL, *dump_dir = NULL, *create_path = NULL;
	char err[4096];
	int c, r;

	/*
	 * A fixed mmap threshold (issue 15): blocks of 128 KiB and more are
	 * mapped and go back to the kernel when freed.  glibc's moving
	 * threshold would serve the next sweep's large tables from the heap
	 * after the first free, where they stay resident, fragmented.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	snprintf(d.conf_path, sizeof(d.conf_path), "%s", SYSCONFDIR "/ibsmd.conf");
	log_init("ibsmd", getenv("JOURNAL_STREAM") != NULL && getenv("INVOCATION_ID") != NULL);
	while ((c = getopt_long(argc, argv, "F:c:og:p:k:R:a:P:l:s:t:n:vVD:d:h?", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'F':
			snprintf(d.conf_path, sizeof(d.conf_path), "%s", optarg);
			d.conf_explicit = true;
			break;
		case OPT_CHECK:
			check_only = true;
			break;
		case 'c':
			create_path = optarg;
			break;
		case OPT_OFFLINE:
			offline_topo = optarg;
			break;
		case OPT_DUMP:
			dump_dir = optarg;
			break;
		case 'o':
			d.once = true;
			break;
		case 'v':
		case 'V':
			d.verbose = true;
			break;
		case 'd':
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(
				    stderr,
				    "ibsmd: -d %s: not supported (of OpenSM's debug modes ibsmd "
				    "takes -d1 and -d2, which it always does)\n",
				    optarg);
				return 2;
			}
			break;
		case OPT_PERFMGR:
			if (d.n_overrides >= 32) {
				fprintf(stderr, "ibsmd: too many options\n");
				return 2;
			}
			d.overrides[d.n_overrides++] =
			    (struct override){"--perfmgr", "perfmgr", "true"};
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			if (!strcmp(argv[optind - 1], "-?")) { /* OpenSM's help too */
				usage(stdout);
				return 0;
			}
			fprintf(stderr, "Try 'ibsmd --help'.\n");
			return 2;
		case OPT_VERSION:
			printf("ibsmd %s\n", PACKAGE_VERSION);
			return 0;
		default: {
			size_t i;
			for (i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
				if (keymap[i].opt == c)
					break;
			if (i == sizeof(keymap) / sizeof(keymap[0])) {
				usage(stderr);
				return 2;
			}
			if (d.n_overrides >= 32) {
				fprintf(stderr, "ibsmd: too many options\n");
				return 2;
			}
			if (c == OPT_SOCKET)
				d.socket_explicit = true;
			if (c == 'D') {
				const char *lvl = level_from_flags(optarg);

				if (!lvl) {
					fprintf(stderr,
						"ibsmd: -D %s: not a log flags byte (e.g. 0x03, "
						"0x0f)\n",
						optarg);
					return 2;
				}
				optarg = (char *)lvl;
			}
			/* paths given on the command line are relative to the cwd */
			if ((c == OPT_SOCKET || c == OPT_STATE || c == 'a') && optarg[0] &&
			    optarg[0] != '/') {
				static char abs_paths[3][CONF_PATH_MAX + 1];
				char cwd[CONF_PATH_MAX];
				char *dst = abs_paths[c == OPT_SOCKET ? 0 : c == OPT_STATE ? 1 : 2];
				if (!getcwd(cwd, sizeof(cwd)) ||
				    snprintf(dst, CONF_PATH_MAX + 1, "%s/%s", cwd, optarg) >
					CONF_PATH_MAX) {
					fprintf(stderr, "ibsmd: path too long: %s\n", optarg);
					return 2;
				}
				optarg = dst;
			}
			d.overrides[d.n_overrides++] =
			    (struct override){keymap[i].name, keymap[i].key, optarg};
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	r = load_conf(&d, &d.conf, err, sizeof(err));
	if (check_only && (r == 0 || r == -EINVAL)) {
		/* the devices named, where this host has any to compare with */
		char why[1200];
		struct partition_config *parts = NULL;
		char perr[3000];

		if (partition_load(d.conf.partition_config_file, &parts, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		partition_config_free(parts);

		struct qos_policy *qp = NULL;

		/* the QoS policy file counts with qos on, as at start-up */
		if (d.conf.qos &&
		    qos_policy_load(d.conf.qos_policy_file, &qp, perr, sizeof(perr)) < 0) {
			err_append(err, sizeof(err), perr);
			r = -EINVAL;
		}
		qos_policy_free(qp);

		char line[sizeof(why) + 64];

		if (madio_check_port(d.conf.ca_name, d.conf.port_num, d.conf.port_guid, why,
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
		if (check_only && r == -EINVAL)
			fprintf(stderr, "ibsmd: the configuration is not valid\n");
		return 2;
	}
	if (check_only) {
		printf("%s: configuration OK\n", d.conf_explicit || access(d.conf_path, F_OK) == 0
						     ? d.conf_path
						     : "(defaults)");
		return 0;
	}
	if (create_path) {
		r = create_config(&d, create_path, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "ibsmd: %s\n", err);
			return 1;
		}
		printf("configuration written to %s\n", create_path);
		return 0;
	}
	if (d.verbose)
		d.conf.log_level = LOG_DEBUG;
	log_set_level(-1, d.conf.log_level);
	if (dump_dir && !offline_topo) {
		fprintf(stderr, "ibsmd: --dump-dir needs --offline\n");
		return 2;
	}
	if (offline_topo) {
		r = offline_run(offline_topo, d.conf.routing_engine, d.conf.routing_chain,
				d.conf.updn_roots_file, dump_dir, d.conf.lmc,
				(uint8_t)d.conf.max_vls, stdout, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "ibsmd: %s\n", err);
		return offline_exit_code(r);
	}

	signal(SIGPIPE, SIG_IGN);
	d.base = event_base_new();
	if (!d.base) {
		fprintf(stderr, "ibsmd: cannot create the event loop\n");
		return 1;
	}
	r = sm_init(&d.sm, d.base, &d.conf, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		event_base_free(d.base);
		return 1;
	}
	d.sm.once = d.once;
	r = main_attach_parts(&d.sm, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		sm_fini(&d.sm);
		event_base_free(d.base);
		return 1;
	}
	if (hook_add(&d.sm.hooks.sweep_done, on_sweep, &d) < 0) {
		fprintf(stderr, "ibsmd: out of memory\n");
		sm_fini(&d.sm);
		event_base_free(d.base);
		return 1;
	}
	/* --once needs no control socket unless one was asked for */
	if (!d.once || d.socket_explicit) {
		r = api_start(&d.sm, &d.api, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "ibsmd: %s\n", err);
			sm_fini(&d.sm);
			event_base_free(d.base);
			return 1;
		}
	}
	d.ev_term = evsignal_new(d.base, SIGTERM, on_signal, &d);
	d.ev_int = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.ev_hup = evsignal_new(d.base, SIGHUP, on_signal, &d);
	evsignal_add(d.ev_term, NULL);
	evsignal_add(d.ev_int, NULL);
	evsignal_add(d.ev_hup, NULL);
	log_msg(LOG_CAT_SWEEP, d.once ? LOG_DEBUG : LOG_INFO, "ibsmd %s starting, state in %s",
		PACKAGE_VERSION, d.conf.state_dir);
	r = sweep_start_why(&d.sm, "startup");
	if (r < 0) {
		fprintf(stderr, "ibsmd: cannot start a sweep: %s\n", strerror(-r));
	} else {
		if (!d.once) {
			d.exit_code = 0;
			light_schedule(&d.sm);
			watchdog_start(&d);
		}
		event_base_dispatch(d.base);
	}
	if (d.watchdog)
		event_free(d.watchdog);
	api_free(d.api);
	sm_fini(&d.sm);
	event_free(d.ev_term);
	event_free(d.ev_int);
	event_free(d.ev_hup);
	event_base_free(d.base);
	return d.exit_code;
}

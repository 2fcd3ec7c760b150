/*
 * ibsmd: the daemon's entry point.  Parses the command line, opens the MAD
 * port, runs the event loop, and either sweeps once (--once) or keeps the
 * subnet managed, re-sweeping periodically, until SIGTERM/SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "ui/api.h"
#include "sm/conf.h"
#include "lib/log.h"
#include "sm/offline.h"
#include "sm/sm.h"

struct daemon {
	struct event_base *base;
	struct sm sm;
	struct sm_conf conf;
	char conf_path[512];
	bool conf_explicit;
	struct override {
		const char *key, *value;
	} overrides[32];
	int n_overrides;
	struct api *api;
	bool socket_explicit;
	bool once;
	int exit_code;
	bool notified_ready;
	bool verbose;
	struct event *ev_term, *ev_int, *ev_hup;
	struct event *watchdog;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ibsmd [OPTIONS]\n"
		"InfiniBand subnet manager.\n\n"
		"  -c, --config FILE        configuration file (default %s)\n"
		"      --check-config       validate the configuration and exit\n"
		"  -o, --once               sweep once; exit 0 when the subnet is up\n"
		"  -O, --offline TOPO       route a topology file offline, print a JSON summary\n"
		"  -D, --dump-dir DIR       with --offline: write topo.out, lfts.out, opensm-*, "
		"path-sl, sl2vl\n"
		"  -d, --state-dir DIR      where the guid->LID map lives\n"
		"  -R, --routing ENGINE     first routing engine (ftree; then routing_chain)\n"
		"  -S, --socket PATH        control socket (default /run/ibsmd/ibsmd.sock)\n"
		"  -P, --priority N         SM priority 0..15\n"
		"  -C, --ca NAME            local HCA to use (default: the first)\n"
		"  -p, --port N             local port number (default: the first active)\n"
		"  -s, --sweep-interval SEC periodic sweep (default 10, 0 = off)\n"
		"  -w, --window N           SMPs outstanding at once (default 32)\n"
		"  -t, --timeout MS         SMP timeout (default 200)\n"
		"  -r, --retries N          SMP retries (default 3)\n"
		"  -l, --lmc N              LMC for CA ports (default 0)\n"
		"      --http ADDR:PORT     serve /metrics, a read-only JSON API and the web page\n"
		"      --perfmgr            read port counters (perfmgr = true)\n"
		"  -v, --verbose            debug logging\n"
		"  -h, --help               this text\n"
		"  -V, --version            print the version\n",
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
		} else {
			fprintf(stderr, "ibsmd: subnet not up: %s\n", s->reason);
			d->exit_code = 1;
		}
		event_base_loopexit(d->base, NULL);
		return;
	}
	if (s->status == 0 && !d->notified_ready) {
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

/* Defaults, then the file, then the command line.  0 or -EINVAL with err. */
static int load_conf(struct daemon *d, struct sm_conf *c, char *err, size_t err_len)
{
	int r;

	conf_defaults(c);
	if (d->conf_explicit || access(d->conf_path, F_OK) == 0) {
		r = conf_load(c, d->conf_path, err, err_len);
		if (r < 0)
			return r;
	}
	for (int i = 0; i < d->n_overrides; i++) {
		r = conf_set(c, d->overrides[i].key, d->overrides[i].value, err, err_len);
		if (r < 0)
			return r;
	}
	if (!routing_find(c->routing_engine)) {
		snprintf(err, err_len, "routing_engine: unknown engine '%s'", c->routing_engine);
		return -EINVAL;
	}
	return 0;
}

static void reload(struct daemon *d)
{
	struct sm_conf nc;
	char err[512];
	size_t n;

	if (load_conf(d, &nc, err, sizeof(err)) < 0) {
		log_err("reload: %s; keeping the running configuration", err);
		return;
	}
	if (d->verbose)
		nc.log_level = LOG_DEBUG; /* --verbose wins over the file, as at start-up */
	n = sm_reconfigure(&d->sm, &nc);
	log_info("configuration reloaded from %s (%zu keys changed)", d->conf_path, n);
	sweep_start_why(&d->sm, "SIGHUP");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"check-config", no_argument, NULL, 'K'},
	    {"offline", required_argument, NULL, 'O'},
	    {"dump-dir", required_argument, NULL, 'D'},
	    {"once", no_argument, NULL, 'o'},
	    {"state-dir", required_argument, NULL, 'd'},
	    {"routing", required_argument, NULL, 'R'},
	    {"socket", required_argument, NULL, 'S'},
	    {"priority", required_argument, NULL, 'P'},
	    {"ca", required_argument, NULL, 'C'},
	    {"port", required_argument, NULL, 'p'},
	    {"sweep-interval", required_argument, NULL, 's'},
	    {"window", required_argument, NULL, 'w'},
	    {"timeout", required_argument, NULL, 't'},
	    {"retries", required_argument, NULL, 'r'},
	    {"lmc", required_argument, NULL, 'l'},
	    {"http", required_argument, NULL, 'H'},
	    {"perfmgr", no_argument, NULL, 'M'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {0},
	};
	static const struct {
		int opt;
		const char *key;
	} keymap[] = {
	    {'d', "state_dir"},
	    {'R', "routing_engine"},
	    {'S', "socket_path"},
	    {'P', "sm_priority"},
	    {'C', "ca_name"},
	    {'p', "port_num"},
	    {'s', "sweep_interval"},
	    {'w', "mad_window"},
	    {'t', "mad_timeout_ms"},
	    {'r', "mad_retries"},
	    {'l', "lmc"},
	    {'H', "http_listen"},
	};
	struct daemon d = {.exit_code = 1};
	bool check_only = false;
	const char *offline_topo = NULL, *dump_dir = NULL;
	char err[512];
	int c, r;

	snprintf(d.conf_path, sizeof(d.conf_path), "%s", SYSCONFDIR "/ibsmd.conf");
	log_init("ibsmd", getenv("JOURNAL_STREAM") != NULL && getenv("INVOCATION_ID") != NULL);
	while ((c = getopt_long(argc, argv, "c:od:R:S:P:C:p:s:w:t:r:l:vhVO:D:", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			snprintf(d.conf_path, sizeof(d.conf_path), "%s", optarg);
			d.conf_explicit = true;
			break;
		case 'K':
			check_only = true;
			break;
		case 'O':
			offline_topo = optarg;
			break;
		case 'D':
			dump_dir = optarg;
			break;
		case 'o':
			d.once = true;
			break;
		case 'v':
			d.verbose = true;
			break;
		case 'M':
			if (d.n_overrides >= 32) {
				usage(stderr);
				return 2;
			}
			d.overrides[d.n_overrides++] = (struct override){"perfmgr", "true"};
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			return 0;
		default: {
			size_t i;
			for (i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
				if (keymap[i].opt == c)
					break;
			if (i == sizeof(keymap) / sizeof(keymap[0]) || d.n_overrides >= 32) {
				usage(stderr);
				return 2;
			}
			if (c == 'S')
				d.socket_explicit = true;
			/* paths given on the command line are relative to the cwd */
			if ((c == 'S' || c == 'd') && optarg[0] != '/') {
				static char abs_paths[2][CONF_PATH_MAX + 1];
				char cwd[CONF_PATH_MAX];
				char *dst = abs_paths[c == 'S'];
				if (!getcwd(cwd, sizeof(cwd)) ||
				    snprintf(dst, CONF_PATH_MAX + 1, "%s/%s", cwd, optarg) >
					CONF_PATH_MAX) {
					fprintf(stderr, "ibsmd: path too long: %s\n", optarg);
					return 2;
				}
				optarg = dst;
			}
			d.overrides[d.n_overrides++] = (struct override){keymap[i].key, optarg};
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	r = load_conf(&d, &d.conf, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		return 2;
	}
	if (check_only) {
		printf("%s: configuration OK\n", d.conf_explicit || access(d.conf_path, F_OK) == 0
						     ? d.conf_path
						     : "(defaults)");
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
				d.conf.updn_roots_file, dump_dir, d.conf.lmc, stdout, err,
				sizeof(err));
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

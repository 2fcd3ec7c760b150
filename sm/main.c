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

#include "sm/log.h"
#include "sm/sm.h"

struct daemon {
	struct event_base *base;
	struct sm sm;
	bool once;
	int exit_code;
	bool notified_ready;
	struct event *ev_term, *ev_int, *ev_hup;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ibsmd [OPTIONS]\n"
		"InfiniBand subnet manager.\n\n"
		"  -o, --once               sweep once; exit 0 when the subnet is up\n"
		"  -d, --state-dir DIR      where the guid->LID map lives (default %s)\n"
		"  -R, --routing ENGINE     routing engine: minhop (default)\n"
		"  -C, --ca NAME            local HCA to use (default: the first)\n"
		"  -p, --port N             local port number (default: the first active)\n"
		"  -s, --sweep-interval SEC periodic sweep (default 10, 0 = off)\n"
		"  -w, --window N           SMPs outstanding at once (default 32)\n"
		"  -t, --timeout MS         SMP timeout (default 200)\n"
		"  -r, --retries N          SMP retries (default 3)\n"
		"  -l, --lmc N              LMC for CA ports (default 0)\n"
		"  -v, --verbose            debug logging\n"
		"  -h, --help               this text\n"
		"  -V, --version            print the version\n",
		LOCALSTATEDIR "/lib/ibsmd");
}

static long parse_num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "ibsmd: %s: '%s' is not a number in %ld..%ld\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static void on_sweep(void *arg, const struct sweep_summary *s)
{
	struct daemon *d = arg;

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

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	if (sig == SIGHUP) {
		log_info("SIGHUP: sweeping");
		sweep_start(&d->sm);
		return;
	}
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"once", no_argument, NULL, 'o'},
		{"state-dir", required_argument, NULL, 'd'},
		{"routing", required_argument, NULL, 'R'},
		{"ca", required_argument, NULL, 'C'},
		{"port", required_argument, NULL, 'p'},
		{"sweep-interval", required_argument, NULL, 's'},
		{"window", required_argument, NULL, 'w'},
		{"timeout", required_argument, NULL, 't'},
		{"retries", required_argument, NULL, 'r'},
		{"lmc", required_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct daemon d = {.exit_code = 1};
	struct sm_opts o;
	char err[512];
	int c, r;

	sm_opts_defaults(&o);
	log_init("ibsmd", getenv("JOURNAL_STREAM") != NULL && getenv("INVOCATION_ID") != NULL);
	while ((c = getopt_long(argc, argv, "od:R:C:p:s:w:t:r:l:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			d.once = true;
			break;
		case 'd':
			snprintf(o.state_dir, sizeof(o.state_dir), "%s", optarg);
			break;
		case 'R':
			if (!routing_find(optarg)) {
				fprintf(stderr, "ibsmd: --routing: unknown engine '%s'\n", optarg);
				return 2;
			}
			snprintf(o.routing, sizeof(o.routing), "%s", optarg);
			break;
		case 'C':
			snprintf(o.ca_name, sizeof(o.ca_name), "%s", optarg);
			break;
		case 'p':
			o.port_num = parse_num("--port", optarg, 0, 254);
			break;
		case 's':
			o.sweep_interval = parse_num("--sweep-interval", optarg, 0, 86400);
			break;
		case 'w':
			o.window = parse_num("--window", optarg, 1, 1024);
			break;
		case 't':
			o.timeout_ms = parse_num("--timeout", optarg, 1, 60000);
			break;
		case 'r':
			o.retries = parse_num("--retries", optarg, 0, 20);
			break;
		case 'l':
			o.lmc = parse_num("--lmc", optarg, 0, 7);
			break;
		case 'v':
			log_set_level(-1, LOG_DEBUG);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	d.base = event_base_new();
	if (!d.base) {
		fprintf(stderr, "ibsmd: cannot create the event loop\n");
		return 1;
	}
	r = sm_init(&d.sm, d.base, &o, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		event_base_free(d.base);
		return 1;
	}
	d.sm.on_sweep = on_sweep;
	d.sm.on_sweep_arg = &d;
	d.ev_term = evsignal_new(d.base, SIGTERM, on_signal, &d);
	d.ev_int = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.ev_hup = evsignal_new(d.base, SIGHUP, on_signal, &d);
	evsignal_add(d.ev_term, NULL);
	evsignal_add(d.ev_int, NULL);
	evsignal_add(d.ev_hup, NULL);
	log_msg(LOG_CAT_SWEEP, d.once ? LOG_DEBUG : LOG_INFO, "ibsmd %s starting, state in %s",
		PACKAGE_VERSION, o.state_dir);
	r = sweep_start(&d.sm);
	if (r < 0) {
		fprintf(stderr, "ibsmd: cannot start a sweep: %s\n", strerror(-r));
	} else {
		if (!d.once) {
			d.exit_code = 0;
			sweep_schedule(&d.sm);
		}
		event_base_dispatch(d.base);
	}
	sm_fini(&d.sm);
	event_free(d.ev_term);
	event_free(d.ev_int);
	event_free(d.ev_hup);
	event_base_free(d.base);
	return d.exit_code;
}

/*
 * Running ibsmd (see daemon.h): the log file and -B, the SM and its parts,
 * the control API, signals (SIGTERM/SIGINT stop, SIGHUP reopens the log file
 * and reloads, SIGUSR1 reopens the log file), the systemd notifications and
 * watchdog, and the event loop.
 */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "daemon/daemon.h"
#include "failover/sminfo.h"
#include "failover/smstate.h"
#include "failover/sync.h"
#include "lib/log.h"
#include "perf/health.h"
#include "perf/perfmgr.h"
#include "sm/light.h"
#include "sm/policies.h"
#include "sm/sweep_sched.h"
#include "tenants/tenants.h"
#include "ui/api.h"
#include "validate/validate.h"

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

/* The log file's name opened again: logrotate renamed the old one. */
static void reopen_log(struct daemon *d, const char *why)
{
	int r;

	if (!d->conf.log_file[0])
		return;
	r = log_reopen();
	if (r < 0)
		log_err("%s: cannot open the log file %s again: %s; still writing the old one", why,
			d->conf.log_file, strerror(-r));
	else
		log_info("%s: log file %s opened again", why, d->conf.log_file);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	if (sig == SIGUSR1) {
		reopen_log(d, "SIGUSR1");
		return;
	}
	if (sig == SIGHUP) {
		reopen_log(d, "SIGHUP");
		log_info("SIGHUP: reloading %s", d->conf_path);
		reload(d);
		return;
	}
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

static void reload(struct daemon *d)
{
	struct sm_conf nc;
	char err[4096];
	size_t n;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)(now_monotonic_usec()));
	if (daemon_load_conf(d, &nc, err, sizeof(err)) < 0) {
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
	/* and the cabling plan and node name map (validate/validate.h logs what failed) */
	validate_reload(&d->sm, err, sizeof(err));
	sd_notify(0, "READY=1");
	sweep_start_why(&d->sm, "SIGHUP");
}

/*
 * The parts of the SM (sm/part.h), in the order they attach: the role
 * (election, handover, polling), the SMInfo requests it answers and its
 * state sync, then the
 * performance manager, the port health policy, fabric validation and the runtime
 * partitions.
 */
static int daemon_attach_parts(struct sm *sm, char *err, size_t err_len)
{
	static int (*const attach[])(struct sm *, char *, size_t) = {
	    smstate_attach, sminfo_attach,   sync_attach,    perfmgr_attach,
	    health_attach,  validate_attach, tenants_attach,
	};

	for (size_t i = 0; i < sizeof(attach) / sizeof(attach[0]); i++) {
		int r = attach[i](sm, err, err_len);

		if (r < 0)
			return r;
	}
	return 0;
}

/* A start-up error: on stderr, and in the log file when there is one (-B closed stderr). */
static void __attribute__((format(printf, 2, 3)))
run_error(const struct daemon *d, const char *fmt, ...)
{
	char msg[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ibsmd: %s\n", msg);
	if (d->conf.log_file[0])
		log_err("%s", msg);
}

/*
 * log_file (-f), and -B: into the background with the log in log_file, or
 * LOCALSTATEDIR/log/ibsmd.log as OpenSM's -B logs to /var/log/opensm.log.
 * 0, or -1 (said on stderr).
 */
static int daemon_log_setup(struct daemon *d)
{
	int r;

	if (d->background && !d->conf.log_file[0])
		snprintf(d->conf.log_file, sizeof(d->conf.log_file), "%s",
			 LOCALSTATEDIR "/log/ibsmd.log");
	if (d->conf.log_file[0]) {
		r = log_open_file(d->conf.log_file);
		if (r < 0) {
			fprintf(stderr, "ibsmd: log_file %s: %s\n", d->conf.log_file, strerror(-r));
			return -1;
		}
	}
	if (d->background && daemon(0, 0) < 0) {
		fprintf(stderr, "ibsmd: -B: cannot go into the background: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int daemon_run(struct daemon *d)
{
	char err[4096];
	int r;

	if (daemon_log_setup(d) < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	d->base = event_base_new();
	if (!d->base) {
		run_error(d, "cannot create the event loop");
		return 1;
	}
	r = sm_init(&d->sm, d->base, &d->conf, err, sizeof(err));
	if (r < 0) {
		run_error(d, "%s", err);
		event_base_free(d->base);
		return 1;
	}
	d->sm.once = d->once;
	r = daemon_attach_parts(&d->sm, err, sizeof(err));
	if (r < 0) {
		run_error(d, "%s", err);
		sm_fini(&d->sm);
		event_base_free(d->base);
		return 1;
	}
	if (hook_add(&d->sm.hooks.sweep_done, on_sweep, d) < 0) {
		run_error(d, "out of memory");
		sm_fini(&d->sm);
		event_base_free(d->base);
		return 1;
	}
	/* --once needs no control socket unless one was asked for */
	if (!d->once || d->socket_explicit) {
		r = api_start(&d->sm, &d->api, err, sizeof(err));
		if (r < 0) {
			run_error(d, "%s", err);
			sm_fini(&d->sm);
			event_base_free(d->base);
			return 1;
		}
	}
	d->ev_term = evsignal_new(d->base, SIGTERM, on_signal, d);
	d->ev_int = evsignal_new(d->base, SIGINT, on_signal, d);
	d->ev_hup = evsignal_new(d->base, SIGHUP, on_signal, d);
	d->ev_usr1 = evsignal_new(d->base, SIGUSR1, on_signal, d);
	evsignal_add(d->ev_term, NULL);
	evsignal_add(d->ev_int, NULL);
	evsignal_add(d->ev_hup, NULL);
	evsignal_add(d->ev_usr1, NULL);
	log_msg(LOG_CAT_SWEEP, d->once ? LOG_DEBUG : LOG_INFO, "ibsmd %s starting, state in %s",
		PACKAGE_VERSION, d->conf.state_dir);
	r = sweep_start_why(&d->sm, "startup");
	if (r < 0) {
		run_error(d, "cannot start a sweep: %s", strerror(-r));
	} else {
		if (!d->once) {
			d->exit_code = 0;
			light_schedule(&d->sm);
			watchdog_start(d);
		}
		event_base_dispatch(d->base);
	}
	if (d->watchdog)
		event_free(d->watchdog);
	api_free(d->api);
	sm_fini(&d->sm);
	event_free(d->ev_term);
	event_free(d->ev_int);
	event_free(d->ev_hup);
	event_free(d->ev_usr1);
	event_base_free(d->base);
	log_close_file();
	return d->exit_code;
}

/*
 * The daemon (ibsmd): its command line, configuration and run.  main.c
 * calls the three steps in order:
 *   parse (options.c)  the command line into struct daemon: overrides of
 *                      config keys, the mode (--check-config, --create-config,
 *                      --offline, --once), or an exit (--help, a bad option);
 *   check (check.c)    defaults, the file, the overrides, every error found;
 *                      --check-config's extra checks; --create-config;
 *   import (import.c)  --import-opensm-conf: OpenSM's opensm.conf into ours;
 *   run (run.c)        the SM and its parts, the control API, signals,
 *                      reloads, the systemd watchdog, the event loop.
 */
#ifndef IBSMD_DAEMON_H
#define IBSMD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <event2/event.h>

#include "sm/conf.h"
#include "sm/sm.h"

/* --once gives up after this many sweeps that do not bring the subnet up. */
#define DAEMON_ONCE_TRIES 4
#define DAEMON_MAX_OVERRIDES 32

struct daemon {
	struct event_base *base;
	struct sm sm;
	struct sm_conf conf;
	char conf_path[512];
	bool conf_explicit;
	struct override {
		const char *opt, *key, *value; /* opt: as given, for messages */
	} overrides[DAEMON_MAX_OVERRIDES];
	int n_overrides;
	/* the mode */
	bool check_only;	 /* --check-config */
	const char *create_path; /* --create-config FILE */
	const char *offline_topo, *dump_dir;
	const char *import_path; /* --import-opensm-conf FILE */
	bool once;
	bool socket_explicit;
	bool verbose;
	bool background; /* -B: fork, the parent exits once the child runs */
	/* running */
	struct api *api;
	unsigned once_failures; /* --once: sweeps that did not bring the subnet up */
	int exit_code;
	bool notified_ready;
	struct event *ev_term, *ev_int, *ev_hup, *ev_usr1;
	struct event *watchdog;
};

/*
 * options.c: the command line into d (d->conf_path set to the default
 * first).  -1 to go on, else the exit status (0 --help/--version, 2 a bad
 * option, said on stderr).
 */
int daemon_parse(struct daemon *d, int argc, char **argv);
/* options.c: OpenSM's -D log flags ("0x03") as a log_level value, NULL if not a byte. */
const char *daemon_level_from_flags(const char *arg);

/*
 * import.c: --import-opensm-conf: OpenSM's opensm.conf at path as an
 * ibsmd.conf on stdout, what is not carried over on stderr.  The exit status.
 */
int daemon_import_opensm(const char *path);

/*
 * check.c: defaults, then the file, then the command line into c.  0 or
 * -EINVAL with err: every error found, one per line (-errno when the file
 * is unreadable: nothing else to say).
 */
int daemon_load_conf(struct daemon *d, struct sm_conf *c, char *err, size_t err_len);
/*
 * check.c: load d->conf and, with --check-config, check the partitions and
 * QoS files and the local port too; every error printed as "ibsmd: ...".
 * -1 to go on, else the exit status (0 --check-config passed, 2 errors).
 */
int daemon_check(struct daemon *d);
/* check.c: --create-config: write the configuration in effect.  The exit status. */
int daemon_create_config(const struct daemon *d);

/* run.c: the SM until SIGTERM/SIGINT (or --once's end).  The exit status. */
int daemon_run(struct daemon *d);

#endif

/*
 * The command line of ibsmd (see daemon.h).  Where ibsmd has an option
 * OpenSM has, it takes OpenSM's letter (and its long name, as an alias of
 * ours); OpenSM letters for things ibsmd does not do are not reused.  An
 * option that sets a config key is an override, applied over the file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"

/* The lines below are what --help prints and what ibsmd(8) lists (a test compares them). */
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
	    "      --import-opensm-conf FILE\n"
	    "                             write OpenSM's opensm.conf FILE as an ibsmd.conf on\n"
	    "                             stdout (what is not carried over: on stderr), exit\n"
	    "      --offline TOPO         route a topology file offline, print a JSON summary\n"
	    "      --dump-dir DIR         with --offline: write topo.out, lfts.out, opensm-*,\n"
	    "                             path-sl, sl2vl into DIR\n"
	    "      --expected-topology PLAN  the cabling plan (key expected_topology_file);\n"
	    "                             with --offline: check TOPO against it, print the\n"
	    "                             findings, exit 1 when one is an error\n"
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
	    "  -Q, --qos                  program the QoS policy (key qos = true)\n"
	    "  -f, --log_file FILE        log to FILE, opened again on SIGUSR1 and SIGHUP\n"
	    "                             (key log_file)\n"
	    "  -B, --daemon               run in the background (not under systemd: the\n"
	    "                             unit runs ibsmd in the foreground)\n"
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
	OPT_EXPECTED,
	OPT_PERFMGR,
	OPT_IMPORT,
};

/* An override of key by opt; 0, or 2 (said on stderr) when there are too many. */
static int add_override(struct daemon *d, const char *opt, const char *key, const char *value)
{
	if (d->n_overrides >= DAEMON_MAX_OVERRIDES) {
		fprintf(stderr, "ibsmd: too many options\n");
		return 2;
	}
	d->overrides[d->n_overrides++] = (struct override){opt, key, value};
	return 0;
}

const char *daemon_level_from_flags(const char *arg)
{
	char *end;
	unsigned long f;

	errno = 0;
	f = strtoul(arg, &end, 0);
	if (!*arg || *end || errno || f > 0xff)
		return NULL;
	return f & 0xf8 ? "debug" : f & 0x06 ? "info" : "error";
}

int daemon_parse(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'F'},
	    {"check-config", no_argument, NULL, OPT_CHECK},
	    {"create-config", required_argument, NULL, 'c'},
	    {"once", no_argument, NULL, 'o'},
	    {"offline", required_argument, NULL, OPT_OFFLINE},
	    {"import-opensm-conf", required_argument, NULL, OPT_IMPORT},
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
	    {"expected-topology", required_argument, NULL, OPT_EXPECTED},
	    {"perfmgr", no_argument, NULL, OPT_PERFMGR},
	    {"qos", no_argument, NULL, 'Q'},
	    {"log_file", required_argument, NULL, 'f'},
	    {"daemon", no_argument, NULL, 'B'},
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
	    {OPT_EXPECTED, "--expected-topology", "expected_topology_file"},
	    {'f', "-f/--log_file", "log_file"},
	};
	int c;

	snprintf(d->conf_path, sizeof(d->conf_path), "%s", SYSCONFDIR "/ibsmd.conf");
	while ((c = getopt_long(argc, argv, "F:c:og:p:k:R:a:P:l:s:t:n:vVD:d:h?Qf:B", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'F':
			snprintf(d->conf_path, sizeof(d->conf_path), "%s", optarg);
			d->conf_explicit = true;
			break;
		case OPT_CHECK:
			d->check_only = true;
			break;
		case 'c':
			d->create_path = optarg;
			break;
		case OPT_OFFLINE:
			d->offline_topo = optarg;
			break;
		case OPT_IMPORT:
			d->import_path = optarg;
			break;
		case OPT_DUMP:
			d->dump_dir = optarg;
			break;
		case 'o':
			d->once = true;
			break;
		case 'v':
		case 'V':
			d->verbose = true;
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
			if (add_override(d, "--perfmgr", "perfmgr", "true"))
				return 2;
			break;
		case 'Q':
			if (add_override(d, "-Q/--qos", "qos", "true"))
				return 2;
			break;
		case 'B':
			d->background = true;
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
			if (d->n_overrides >= DAEMON_MAX_OVERRIDES) {
				fprintf(stderr, "ibsmd: too many options\n");
				return 2;
			}
			if (c == OPT_SOCKET)
				d->socket_explicit = true;
			if (c == 'D') {
				const char *lvl = daemon_level_from_flags(optarg);

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
			if ((c == OPT_SOCKET || c == OPT_STATE || c == 'a' || c == 'f') &&
			    optarg[0] && optarg[0] != '/') {
				static char abs_paths[4][CONF_PATH_MAX + 1];
				char cwd[CONF_PATH_MAX];
				char *dst = abs_paths[c == OPT_SOCKET  ? 0
						      : c == OPT_STATE ? 1
						      : c == 'a'       ? 2
								       : 3];
				if (!getcwd(cwd, sizeof(cwd)) ||
				    snprintf(dst, CONF_PATH_MAX + 1, "%s/%s", cwd, optarg) >
					CONF_PATH_MAX) {
					fprintf(stderr, "ibsmd: path too long: %s\n", optarg);
					return 2;
				}
				optarg = dst;
			}
			d->overrides[d->n_overrides++] =
			    (struct override){keymap[i].name, keymap[i].key, optarg};
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

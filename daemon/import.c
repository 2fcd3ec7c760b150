/*
 * ibsmd --import-opensm-conf FILE: an opensm.conf (OpenSM 3.3's "key value"
 * lines, as `opensm -c` writes them) into an ibsmd.conf on stdout.
 *
 * Every line of the file is accounted for, in the file's order: a key that
 * maps is written as its ibsmd key (its value checked with conf_set: a value
 * ibsmd refuses is commented out, saying why); a key left at OpenSM's default
 * is a comment (ibsmd's own default applies: where the two differ, ibsmd's
 * is the one tuned for it); a key ibsmd does not need or does not have is a
 * comment saying which and why.  The files OpenSM reads (partitions.conf,
 * qos-policy.conf, the root GUID file) are referenced as they are when they
 * exist (node_name_map_name too); guid2lid is named in a comment.  On stderr: every
 * key whose value was set (not OpenSM's default) and is not carried over,
 * then a summary.  The table below is docs/migrating-from-opensm.md's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "lib/lines.h"
#include "routing/routing.h"

enum import_kind {
	OSM_MAP,	/* the value as it is, into key */
	OSM_FILE,	/* a file OpenSM reads: referenced as it is when it exists */
	OSM_SPECIAL,	/* converted by import_special() */
	OSM_NOT_NEEDED, /* ibsmd does what the key asks for without it: why */
	OSM_NOT_BUILT,	/* ibsmd does not have it: why */
};

struct import_key {
	const char *name;
	const char *osm_default; /* what opensm -c writes (OpenSM 3.3.23) */
	enum import_kind kind;
	const char *key; /* the ibsmd key, or NULL */
	const char *why; /* OSM_NOT_*: why */
};

/* Every key of `opensm -c` (OpenSM 3.3.23), in its order; cc_* are one row. */
static const struct import_key import_keys[] = {
    {"guid", "0x0000000000000000", OSM_MAP, "port_guid", NULL},
    {"m_key", "0x0000000000000000", OSM_MAP, "m_key", NULL},
    {"m_key_lease_period", "0", OSM_MAP, "m_key_lease_period", NULL},
    {"m_key_protection_level", "0", OSM_MAP, "m_key_protect_bits", NULL},
    {"m_key_lookup", "TRUE", OSM_NOT_BUILT, NULL,
     "one M_Key for every port (m_key); no guid2mkey file"},
    {"sm_key", "0x0000000000000001", OSM_MAP, "sm_key", NULL},
    {"sa_key", "0x0000000000000001", OSM_MAP, "sa_key", NULL},
    {"subnet_prefix", "0xfe80000000000000", OSM_MAP, "subnet_prefix", NULL},
    {"lmc", "0", OSM_MAP, "lmc", NULL},
    {"lmc_esp0", "FALSE", OSM_NOT_BUILT, NULL, "no LMC for enhanced switch port 0"},
    {"sm_sl", "0", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"packet_life_time", "0x12", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"vl_stall_count", "0x07", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"leaf_vl_stall_count", "0x07", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"head_of_queue_lifetime", "0x12", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"leaf_head_of_queue_lifetime", "0x10", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"max_op_vls", "5", OSM_NOT_BUILT, NULL,
     "no OperationalVLs cap (max_vls caps the VLs routing uses)"},
    {"force_link_speed", "15", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"force_link_speed_ext", "31", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"force_link_width", "255", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"fdr10", "1", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"subnet_timeout", "18", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"local_phy_errors_threshold", "0x08", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"overrun_errors_threshold", "0x08", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"use_mfttop", "TRUE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"partition_config_file", "/etc/opensm/partitions.conf", OSM_FILE, "partition_config_file",
     NULL},
    {"no_partition_enforcement", "FALSE", OSM_SPECIAL, "part_enforce", NULL},
    {"part_enforce", "both", OSM_MAP, "part_enforce", NULL},
    {"allow_both_pkeys", "FALSE", OSM_MAP, "allow_both_pkeys", NULL},
    {"keep_pkey_indexes", "TRUE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"sm_assigned_guid", "0x00", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"sweep_interval", "10", OSM_MAP, "sweep_interval", NULL},
    {"reassign_lids", "FALSE", OSM_NOT_BUILT, NULL,
     "ibsmd keeps the LIDs it finds and those of its guid2lid file"},
    {"force_heavy_sweep", "FALSE", OSM_NOT_BUILT, NULL,
     "light sweeps find changes; smctl sweep orders a heavy one"},
    {"sweep_on_trap", "TRUE", OSM_NOT_NEEDED, NULL,
     "ibsmd always sweeps on a trap that reports a change"},
    {"port_profile_switch_nodes", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"port_prof_ignore_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"hop_weights_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"port_search_ordering_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"routing_engine", "(null)", OSM_SPECIAL, "routing_engine", NULL},
    {"avoid_throttled_links", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"connect_roots", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"use_ucast_cache", "FALSE", OSM_NOT_NEEDED, NULL,
     "incremental_routing and keep_routes re-route only what a change broke"},
    {"lid_matrix_dump_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"lfts_file", "(null)", OSM_NOT_BUILT, NULL, "no file routing engine"},
    {"root_guid_file", "(null)", OSM_FILE, "updn_roots_file", NULL},
    {"cn_guid_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"io_guid_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"quasi_ftree_indexing", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"max_reverse_hops", "0", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"ids_guid_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"guid_routing_order_file", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"do_mesh_analysis", "FALSE", OSM_NOT_BUILT, NULL, "no lash routing engine"},
    {"lash_start_vl", "0", OSM_NOT_BUILT, NULL, "no lash routing engine"},
    {"nue_max_num_vls", "1", OSM_NOT_BUILT, NULL, "no nue routing engine"},
    {"nue_include_switches", "FALSE", OSM_NOT_BUILT, NULL, "no nue routing engine"},
    {"port_shifting", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"scatter_ports", "0", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"guid_routing_order_no_scatter", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"sa_db_file", "(null)", OSM_NOT_NEEDED, NULL,
     "the state sync (sync_listen, sync_peers) carries the SA's state to a standby"},
    {"sa_db_dump", "FALSE", OSM_NOT_NEEDED, NULL,
     "the state sync (sync_listen, sync_peers) carries the SA's state to a standby"},
    {"torus_config", "/etc/opensm/torus-2QoS.conf", OSM_NOT_BUILT, NULL,
     "no torus-2QoS routing engine"},
    {"sm_priority", "0", OSM_MAP, "sm_priority", NULL},
    {"ignore_other_sm", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"sminfo_polling_timeout", "10000", OSM_MAP, "sminfo_poll_interval_ms", NULL},
    {"polling_retry_number", "4", OSM_MAP, "sminfo_poll_count", NULL},
    {"honor_guid2lid_file", "FALSE", OSM_NOT_NEEDED, NULL,
     "ibsmd always honours STATE_DIR/guid2lid"},
    {"max_wire_smps", "4", OSM_MAP, "mad_window", NULL},
    {"max_wire_smps2", "4", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"max_smps_timeout", "600000", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"transaction_timeout", "200", OSM_MAP, "mad_timeout_ms", NULL},
    {"transaction_retries", "3", OSM_MAP, "mad_retries", NULL},
    {"long_transaction_timeout", "500", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"max_msg_fifo_timeout", "10000", OSM_NOT_NEEDED, NULL, "no message FIFO: one event loop"},
    {"single_thread", "FALSE", OSM_NOT_NEEDED, NULL, "ibsmd always dispatches in one thread"},
    {"daemon", "FALSE", OSM_NOT_NEEDED, NULL,
     "systemd runs ibsmd in the foreground; -B on the command line"},
    {"sm_inactive", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"babbling_port_policy", "FALSE", OSM_NOT_NEEDED, NULL,
     "ibsmd always watches trap floods (trap_flood_threshold)"},
    {"drop_event_subscriptions", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"ipoib_mcgroup_creation_validation", "TRUE", OSM_NOT_NEEDED, NULL,
     "ibsmd always validates joins"},
    {"mcgroup_join_validation", "TRUE", OSM_NOT_NEEDED, NULL, "ibsmd always validates joins"},
    {"use_original_extended_sa_rates_only", "FALSE", OSM_NOT_BUILT, NULL,
     "no such setting in ibsmd"},
    {"use_optimized_slvl", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"fsync_high_avail_files", "TRUE", OSM_NOT_NEEDED, NULL,
     "ibsmd always writes its files atomically, synced"},
    {"perfmgr", "FALSE", OSM_MAP, "perfmgr", NULL},
    {"perfmgr_redir", "TRUE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"perfmgr_sweep_time_s", "180", OSM_MAP, "perfmgr_sweep_time_s", NULL},
    {"perfmgr_max_outstanding_queries", "500", OSM_MAP, "perfmgr_max_outstanding", NULL},
    {"perfmgr_ignore_cas", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"perfmgr_rm_nodes", "TRUE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"perfmgr_log_errors", "TRUE", OSM_NOT_BUILT, NULL,
     "ports over a threshold are reported unhealthy (smctl, /metrics)"},
    {"perfmgr_query_cpi", "TRUE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"perfmgr_xmit_wait_log", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"perfmgr_xmit_wait_threshold", "65535", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"event_db_dump_file", "(null)", OSM_NOT_BUILT, NULL,
     "no event plugins: smctl events and /metrics"},
    {"event_plugin_name", "(null)", OSM_NOT_BUILT, NULL,
     "no event plugins: smctl events and /metrics"},
    {"event_plugin_options", "(null)", OSM_NOT_BUILT, NULL,
     "no event plugins: smctl events and /metrics"},
    {"node_name_map_name", "(null)", OSM_SPECIAL, NULL, NULL},
    {"log_flags", "0x03", OSM_SPECIAL, "log_level", NULL},
    {"force_log_flush", "FALSE", OSM_NOT_NEEDED, NULL, "ibsmd writes its log line by line"},
    {"log_file", "/var/log/opensm.log", OSM_SPECIAL, "log_file", NULL},
    {"log_max_size", "0", OSM_NOT_NEEDED, NULL, "logrotate rotates log_file (SIGUSR1 reopens it)"},
    {"accum_log_file", "TRUE", OSM_NOT_NEEDED, NULL, "ibsmd always appends to log_file"},
    {"per_module_logging_file", "/etc/opensm/per-module-logging.conf", OSM_NOT_BUILT, NULL,
     "categories are set at run time: smctl loglevel CATEGORY LEVEL"},
    {"dump_files_dir", "/var/log/", OSM_NOT_BUILT, NULL,
     "no dump files while running (ibsmd --offline --dump-dir writes them)"},
    {"enable_quirks", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"no_clients_rereg", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"disable_multicast", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"exit_on_fatal", "TRUE", OSM_NOT_NEEDED, NULL,
     "ibsmd exits on a fatal error; systemd restarts it"},
    {"console", "off", OSM_NOT_NEEDED, NULL, "smctl over the control socket (socket_path)"},
    {"console_port", "10000", OSM_NOT_NEEDED, NULL, "smctl over the control socket (socket_path)"},
    {"qos", "FALSE", OSM_MAP, "qos", NULL},
    {"qos_policy_file", "/etc/opensm/qos-policy.conf", OSM_FILE, "qos_policy_file", NULL},
    {"suppress_sl2vl_mad_status_errors", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"qos_max_vls", "0", OSM_MAP, "qos_max_vls", NULL},
    {"qos_high_limit", "-1", OSM_MAP, "qos_high_limit", NULL},
    {"qos_vlarb_high", "(null)", OSM_MAP, "qos_vlarb_high", NULL},
    {"qos_vlarb_low", "(null)", OSM_MAP, "qos_vlarb_low", NULL},
    {"qos_sl2vl", "(null)", OSM_MAP, "qos_sl2vl", NULL},
    {"qos_ca_max_vls", "0", OSM_MAP, "qos_ca_max_vls", NULL},
    {"qos_ca_high_limit", "-1", OSM_MAP, "qos_ca_high_limit", NULL},
    {"qos_ca_vlarb_high", "(null)", OSM_MAP, "qos_ca_vlarb_high", NULL},
    {"qos_ca_vlarb_low", "(null)", OSM_MAP, "qos_ca_vlarb_low", NULL},
    {"qos_ca_sl2vl", "(null)", OSM_MAP, "qos_ca_sl2vl", NULL},
    {"qos_sw0_max_vls", "0", OSM_MAP, "qos_sw0_max_vls", NULL},
    {"qos_sw0_high_limit", "-1", OSM_MAP, "qos_sw0_high_limit", NULL},
    {"qos_sw0_vlarb_high", "(null)", OSM_MAP, "qos_sw0_vlarb_high", NULL},
    {"qos_sw0_vlarb_low", "(null)", OSM_MAP, "qos_sw0_vlarb_low", NULL},
    {"qos_sw0_sl2vl", "(null)", OSM_MAP, "qos_sw0_sl2vl", NULL},
    {"qos_swe_max_vls", "0", OSM_MAP, "qos_swe_max_vls", NULL},
    {"qos_swe_high_limit", "-1", OSM_MAP, "qos_swe_high_limit", NULL},
    {"qos_swe_vlarb_high", "(null)", OSM_MAP, "qos_swe_vlarb_high", NULL},
    {"qos_swe_vlarb_low", "(null)", OSM_MAP, "qos_swe_vlarb_low", NULL},
    {"qos_swe_sl2vl", "(null)", OSM_MAP, "qos_swe_sl2vl", NULL},
    {"qos_rtr_max_vls", "0", OSM_MAP, "qos_rtr_max_vls", NULL},
    {"qos_rtr_high_limit", "-1", OSM_MAP, "qos_rtr_high_limit", NULL},
    {"qos_rtr_vlarb_high", "(null)", OSM_MAP, "qos_rtr_vlarb_high", NULL},
    {"qos_rtr_vlarb_low", "(null)", OSM_MAP, "qos_rtr_vlarb_low", NULL},
    {"qos_rtr_sl2vl", "(null)", OSM_MAP, "qos_rtr_sl2vl", NULL},
    {"congestion_control", "FALSE", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_key", "0x0000000000000000", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_max_outstanding_mads", "500", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_sw_cong_setting_control_map", "0x0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_sw_cong_setting_victim_mask",
     "0x0000000000000000000000000000000000000000000000000000000000000000", OSM_NOT_BUILT, NULL,
     "no congestion control"},
    {"cc_sw_cong_setting_credit_mask",
     "0x0000000000000000000000000000000000000000000000000000000000000000", OSM_NOT_BUILT, NULL,
     "no congestion control"},
    {"cc_sw_cong_setting_threshold", "0x00", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_sw_cong_setting_packet_size", "0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_sw_cong_setting_credit_starvation_threshold", "0x00", OSM_NOT_BUILT, NULL,
     "no congestion control"},
    {"cc_sw_cong_setting_credit_starvation_return_delay", "0:0", OSM_NOT_BUILT, NULL,
     "no congestion control"},
    {"cc_sw_cong_setting_marking_rate", "0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_port_control", "0x0000", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_control_map", "0x0000", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_ccti_timer", "0 0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_ccti_increase", "0 0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_trigger_threshold", "0 0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_ca_cong_setting_ccti_min", "0 0", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"cc_cct", "(null)", OSM_NOT_BUILT, NULL, "no congestion control"},
    {"prefix_routes_file", "/etc/opensm/prefix-routes.conf", OSM_NOT_BUILT, NULL,
     "no routers' prefix routes"},
    {"consolidate_ipv6_snm_req", "FALSE", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},
    {"log_prefix", "(null)", OSM_NOT_BUILT, NULL, "no such setting in ibsmd"},

};

#define IMPORT_NKEYS (sizeof(import_keys) / sizeof(import_keys[0]))
#define IMPORT_MAX_WRITTEN 128

struct import {
	const char *path;
	struct sm_conf conf; /* defaults plus what was imported: values checked */
	struct sm_conf def;
	const char *written[IMPORT_MAX_WRITTEN]; /* ibsmd keys written */
	size_t n_written;
	unsigned mapped, defaults, not_needed, not_built, refused, unknown;
	unsigned noted_line; /* the line whose "# OpenSM's" comment was written last */
};

static const struct import_key *import_find(const char *name)
{
	for (size_t i = 0; i < IMPORT_NKEYS; i++)
		if (!strcmp(import_keys[i].name, name))
			return &import_keys[i];
	if (!strncmp(name, "cc_", 3)) /* congestion control: one row for them all */
		return import_find("congestion_control");
	return NULL;
}

static bool import_is_written(const struct import *im, const char *key)
{
	for (size_t i = 0; i < im->n_written; i++)
		if (!strcmp(im->written[i], key))
			return true;
	return false;
}

/* A line that is not imported: a comment, and a line on stderr when loud. */
static void import_skip(struct import *im, unsigned line, const char *name, const char *value,
			const char *what, const char *why, bool loud)
{
	printf("# %s %s: %s: %s\n", name, value, what, why);
	if (loud)
		fprintf(stderr, "ibsmd: %s:%u: %s %s: %s: %s\n", im->path, line, name, value, what,
			why);
}

/* Write key = value if ibsmd takes it; else say why not.  true when written. */
static bool import_set(struct import *im, unsigned line, const char *name, const char *raw,
		       const char *key, const char *value)
{
	char why[512];

	if (import_is_written(im, key)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s is set above", key);
		import_skip(im, line, name, raw, "not imported", msg, true);
		im->refused++;
		return false;
	}
	if (conf_set(&im->conf, key, value, why, sizeof(why)) < 0) {
		import_skip(im, line, name, raw, "not imported", why, true);
		im->refused++;
		return false;
	}
	if ((strcmp(name, key) || strcmp(raw, value)) && im->noted_line != line) {
		printf("# OpenSM's %s %s\n", name, raw);
		im->noted_line = line; /* routing_engine writes two keys under one comment */
	}
	printf("%s = %s\n", key, value);
	if (im->n_written < IMPORT_MAX_WRITTEN)
		im->written[im->n_written++] = key;
	im->mapped++;
	return true;
}

/* OpenSM's value at its default: ibsmd's own default applies. */
static void import_default(struct import *im, const char *name, const char *raw, const char *key)
{
	bool unset = !raw[0] || !strcmp(raw, "(null)");
	const char *what = unset ? "unset" : "OpenSM's default";
	char def[256] = "";

	if (key && !conf_key_is_secret(key))
		conf_value_str(&im->def, key, def, sizeof(def));
	if (key && def[0] && strcasecmp(def, raw))
		printf("# %s %s: %s; ibsmd's default applies: %s = %s\n", name,
		       raw[0] ? raw : "(empty)", what, key, def);
	else if (key)
		printf("# %s %s: %s; ibsmd's default %s is the same\n", name, raw, what, key);
	else
		printf("# %s %s: %s\n", name, raw, what);
	im->defaults++;
}

/* routing_engine: OpenSM's list, the engines ibsmd has, minhop last as OpenSM falls back to it. */
static void import_routing(struct import *im, unsigned line, const char *raw)
{
	char list[CONF_CHAIN_MAX] = "", dropped[256] = "", buf[256], first[CONF_NAME_MAX] = "";
	size_t used = 0, dused = 0;
	bool minhop = false;

	snprintf(buf, sizeof(buf), "%s", raw);
	for (char *save = NULL, *e = strtok_r(buf, ", ", &save); e;
	     e = strtok_r(NULL, ", ", &save)) {
		if (!routing_find(e)) {
			dused += (size_t)snprintf(
			    dropped + dused, dused < sizeof(dropped) ? sizeof(dropped) - dused : 0,
			    "%s%s", dused ? ", " : "", e);
			continue;
		}
		if (!first[0])
			snprintf(first, sizeof(first), "%s", e);
		minhop |= !strcmp(e, "minhop");
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					 "%s%s", used ? "," : "", e);
	}
	if (dropped[0]) {
		char msg[300];

		snprintf(msg, sizeof(msg), "no such engine in ibsmd: %s", dropped);
		import_skip(im, line, "routing_engine", raw, "partly not built", msg, true);
	}
	if (!first[0]) {
		im->not_built++;
		return;
	}
	if (!minhop && used + 8 < sizeof(list))
		snprintf(list + used, sizeof(list) - used, ",minhop");
	if (import_set(im, line, "routing_engine", raw, "routing_engine", first))
		import_set(im, line, "routing_engine", raw, "routing_chain", list);
}

/* The keys that need more than their value copied (OSM_SPECIAL). */
static void import_special(struct import *im, unsigned line, const struct import_key *k,
			   const char *raw)
{
	if (!strcmp(k->name, "routing_engine")) {
		import_routing(im, line, raw);
	} else if (!strcmp(k->name, "log_flags")) {
		const char *lvl = daemon_level_from_flags(raw);

		if (!lvl) {
			import_skip(im, line, k->name, raw, "not imported", "not a log flags byte",
				    true);
			im->refused++;
		} else {
			import_set(im, line, k->name, raw, "log_level", lvl);
		}
	} else if (!strcmp(k->name, "no_partition_enforcement")) {
		/* TRUE: OpenSM enforces nothing */
		if (!strcasecmp(raw, "true"))
			import_set(im, line, k->name, raw, "part_enforce", "off");
		else
			import_default(im, k->name, raw, NULL);
	} else if (!strcmp(k->name, "log_file")) {
		import_set(im, line, k->name, raw, "log_file", raw);
		if (strncmp(raw, "/var/log/ibsmd/", 15))
			fprintf(stderr,
				"ibsmd: %s:%u: log_file %s: under the shipped unit only "
				"/var/log/ibsmd/ is writable\n",
				im->path, line, raw);
	} else if (!strcmp(k->name, "node_name_map_name")) {
		/* ibsmd reads it too: the names in smctl topology --format slurm */
		if (access(raw, R_OK) < 0) {
			import_skip(im, line, k->name, raw, "not imported",
				    "the file is not here (copy it, then set the key)", true);
			im->refused++;
		} else if (import_set(im, line, k->name, raw, "node_name_map_name", raw))
			fprintf(stderr,
				"ibsmd: %s:%u: node_name_map_name %s: taken (names for the "
				"scheduler export; the diags read it themselves)\n",
				im->path, line, raw);
	}
}

static void import_one(struct import *im, unsigned line, const char *name, const char *raw)
{
	const struct import_key *k = import_find(name);
	bool is_default, unset = !strcmp(raw, "(null)") || !raw[0];
	char value[CONF_PATH_MAX + 64];

	if (!k) {
		import_skip(im, line, name, raw, "unknown",
			    "not an OpenSM 3.3 key this importer knows", true);
		im->unknown++;
		return;
	}
	is_default = !strcasecmp(raw, k->osm_default);
	/* OpenSM's booleans are TRUE/FALSE */
	snprintf(value, sizeof(value), "%s", raw);
	if (!strcasecmp(raw, "true") || !strcasecmp(raw, "false"))
		for (char *p = value; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	switch (k->kind) {
	case OSM_NOT_NEEDED:
		import_skip(im, line, name, raw, "not needed", k->why, !is_default);
		im->not_needed++;
		return;
	case OSM_NOT_BUILT:
		import_skip(im, line, name, raw, "not built", k->why, !is_default);
		im->not_built++;
		return;
	case OSM_FILE:
		if (unset) {
			import_default(im, name, raw, k->key);
		} else if (access(raw, R_OK) < 0) {
			char msg[CONF_PATH_MAX + 80];

			snprintf(msg, sizeof(msg), "%s here (%s unset: as OpenSM without the file)",
				 strerror(errno), k->key);
			import_skip(im, line, name, raw, "not imported", msg, !is_default);
			im->refused++;
		} else {
			import_set(im, line, name, raw, k->key, raw);
		}
		return;
	case OSM_MAP:
	case OSM_SPECIAL:
		if (is_default || unset) {
			import_default(im, name, raw, k->key);
			return;
		}
		if (k->kind == OSM_SPECIAL)
			import_special(im, line, k, raw);
		else
			import_set(im, line, name, raw, k->key, value);
		return;
	}
}

/* One "key value" line of the file. */
struct import_line {
	unsigned no;
	char *name, *raw;
};

/* Split text into its "key value" lines (comments and blank ones dropped); the count. */
static size_t import_split(char *text, struct import_line *out)
{
	size_t n = 0;
	unsigned no = 0;

	for (char *l = text, *next; l; l = next) {
		char *nl = strchr(l, '\n'), *end;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		no++;
		while (isspace((unsigned char)*l))
			l++;
		if (!*l || *l == '#')
			continue;
		end = l + strlen(l);
		while (end > l && isspace((unsigned char)end[-1]))
			*--end = '\0';
		out[n].no = no;
		out[n].name = l;
		l += strcspn(l, " \t");
		if (*l)
			*l++ = '\0';
		while (isspace((unsigned char)*l))
			l++;
		out[n++].raw = l;
	}
	return n;
}

/*
 * Whether line i is overridden, as OpenSM reads the file: a later line with
 * the same key wins, and no_partition_enforcement TRUE wins over part_enforce.
 */
static const struct import_line *import_overridden(const struct import_line *ls, size_t n, size_t i)
{
	for (size_t j = n; j-- > i + 1;)
		if (!strcmp(ls[j].name, ls[i].name))
			return &ls[j];
	if (!strcmp(ls[i].name, "part_enforce"))
		for (size_t j = n; j-- > 0;)
			if (!strcmp(ls[j].name, "no_partition_enforcement") &&
			    !import_overridden(ls, n, j) && !strcasecmp(ls[j].raw, "true"))
				return &ls[j];
	return NULL;
}

int daemon_import_opensm(const char *path)
{
	struct import im = {.path = path};
	struct import_line *ls;
	char err[512];
	char *text;
	size_t n, len;
	int r;

	r = lines_read_file(path, 4 * 1024 * 1024, 0, &text, &len, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ibsmd: %s\n", err[0] ? err : strerror(-r));
		return 1;
	}
	ls = calloc(len / 2 + 2, sizeof(*ls)); /* a line with a key has 2 bytes at least */
	if (!ls) {
		free(text);
		fprintf(stderr, "ibsmd: out of memory\n");
		return 1;
	}
	n = import_split(text, ls);
	conf_defaults(&im.conf);
	conf_defaults(&im.def);
	printf("# ibsmd.conf: imported from OpenSM's %s by ibsmd %s --import-opensm-conf.\n"
	       "# Every key of that file is below: as an ibsmd key, or as a comment saying\n"
	       "# why not (docs/migrating-from-opensm.md has the table, ibsmd.conf(5) the keys).\n",
	       path, PACKAGE_VERSION);
	for (size_t i = 0; i < n; i++) {
		const struct import_line *o = import_overridden(ls, n, i);

		if (o) {
			char msg[160];

			snprintf(msg, sizeof(msg), "line %u (%s %s) wins, as in OpenSM", o->no,
				 o->name, o->raw);
			import_skip(&im, ls[i].no, ls[i].name, ls[i].raw, "not imported", msg,
				    true);
			im.refused++;
			continue;
		}
		import_one(&im, ls[i].no, ls[i].name, ls[i].raw);
	}
	free(ls);
	free(text);
	printf("# guid2lid: ibsmd keeps the LIDs it finds on the ports; to keep OpenSM's map\n"
	       "#   as well, copy /var/cache/opensm/guid2lid to %s/guid2lid before the\n"
	       "#   first start (the same format).\n",
	       im.conf.state_dir);
	fprintf(stderr,
		"ibsmd: %s: %zu keys: %u imported, %u at OpenSM's default, %u not needed, %u not "
		"built, %u not imported, %u unknown\n",
		path, n, im.mapped, im.defaults, im.not_needed, im.not_built, im.refused,
		im.unknown);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

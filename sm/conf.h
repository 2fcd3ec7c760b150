/*
 * The daemon's configuration: defaults, the config file (key = value, parsed
 * with libinih), command-line overrides, and the JSON view smctl shows.
 * Every key is documented in man/ibsmd.conf.5 and etc/ibsmd.conf.
 *
 * Pure: no logging, no globals.  Errors come back as text for the caller to
 * print ("FILE:LINE: what is wrong").
 */
#ifndef IBSMD_CONF_H
#define IBSMD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#define CONF_NAME_MAX 64  /* CA, group and engine names, with the NUL */
#define CONF_PATH_MAX 108 /* = sizeof(sun_path): the socket path must fit */
#define CONF_CHAIN_MAX 128
#define CONF_QOS_VLARB_MAX 512 /* 64 "VL:weight," pairs */
#define CONF_QOS_SL2VL_MAX 96

/* The kinds of validation finding, in validate/plan.h's order (validate_policy[]). */
#define CONF_VALIDATE_KINDS 9
/* What a finding does: reported, or its port disabled too. */
enum { CONF_VALIDATE_WARN, CONF_VALIDATE_ISOLATE };

struct sm_conf {
	char ca_name[CONF_NAME_MAX];	 /* "" = first CA with an active port */
	int port_num;			 /* 0 = first active port */
	uint64_t port_guid;		 /* 0 = by ca_name/port_num; else the port with this GUID */
	char state_dir[CONF_PATH_MAX];	 /* guid->LID map lives here */
	char socket_path[CONF_PATH_MAX]; /* control socket */
	char socket_group[CONF_NAME_MAX];	   /* "" = keep the daemon's group */
	char admin_group[CONF_NAME_MAX];	   /* "" = root only */
	char routing_engine[CONF_NAME_MAX];	   /* first engine tried */
	char routing_chain[CONF_CHAIN_MAX];	   /* comma list of fallbacks, in order */
	char updn_roots_file[CONF_PATH_MAX];	   /* root switch GUIDs for updn, "" = automatic */
	char partition_config_file[CONF_PATH_MAX]; /* OpenSM's partitions.conf, "" = built in */
	int part_enforce;			   /* CONF_ENFORCE_*: switch ports facing CAs */
	bool allow_both_pkeys;			   /* a port may be full and limited member */
	int pkey_max_guids;	/* GUIDs in one runtime partition request (tenants/tenants.c) */
	int pkey_max_runtime;	/* runtime P_Keys in all (less the file's), 0 = no API writes */
	int sm_priority;	/* 0..15 */
	uint64_t sm_key;	/* SMInfo:SM_Key shared by the SMs of the subnet */
	uint64_t m_key;		/* PortInfo:M_Key of every port, 0 = none */
	int m_key_protect_bits; /* PortInfo:M_KeyProtectBits, 0..3 */
	int m_key_lease_period; /* PortInfo:M_KeyLeasePeriod, s, 0 = never */
	int sminfo_poll_interval_ms; /* a standby polls the master this often */
	int sminfo_poll_count;	     /* failed polls in a row: the master is gone */
	bool lft_readback;	     /* read unknown LFTs back, write what differs */
	int sweep_interval;	     /* seconds, 0 = no periodic sweep */
	int sweep_holddown_ms;	     /* a requested sweep waits this long after the last */
	int mad_window;		     /* outstanding MADs, 1..1024 */
	int mad_timeout_ms;	     /* 10..60000 */
	int mad_retries;	     /* 0..20 */
	int lmc;		     /* 0..7 */
	int max_vls;		     /* data VLs routing may use, 0 = what the ports offer */
	/* OpenSM's names and defaults, 4.096 us * 2^v, 20 and up: infinite (14.2.5.4, 14.2.5.6) */
	int packet_life_time;		 /* SwitchInfo:LifeTimeValue of every switch */
	int head_of_queue_lifetime;	 /* PortInfo:HOQLife of switch ports toward switches */
	int leaf_head_of_queue_lifetime; /* ... of switch ports toward CAs and routers */
	bool read_vl_tables;	  /* every port's SL2VL and VLArb read for the SA (sm/vltables.h) */
	int dump_max_lft_entries; /* routing dumps up to switches x LIDs; 0 = never */
	bool keep_routes;	  /* a re-route keeps the entries whose path is intact */
	bool incremental_sweep;	  /* a switch's change re-probes only around it */
	bool incremental_routing; /* ... and re-routes only what it broke (routing/repair.h) */
	int dying_switch_hold_ms; /* a switch going down port by port is left out; 0 = never */
	int flap_threshold;	  /* link downs that quarantine a port; 0 = never */
	int flap_window_s;	  /* ... within this many seconds */
	int quarantine_s;	  /* a quarantined port is enabled again after; 0 = never */
	int trap_flood_threshold; /* port-error traps about a port in flap_window_s; 0 = off */
	int keep_routes_max_drift_pct; /* ... unless the busiest port gets this much worse */
	int link_speed_ext_enabled;    /* LinkSpeedExtEnabled to set (1..31); 0 = leave it */
	int dr_only;		       /* CONF_AUTO_*: every SMP directed-route */
	uint64_t subnet_prefix;	       /* host order */
	uint64_t sa_key;	       /* SA queries with this SM_Key are trusted; 0: none */
	int log_level;		       /* LOG_ERR, LOG_WARNING, LOG_INFO or LOG_DEBUG */
	char log_file[CONF_PATH_MAX];  /* "" = stderr or the journal; else this file */
	/* the performance manager (perf/perfmgr.c) */
	bool perfmgr;			     /* read port counters at all */
	int perfmgr_sweep_time_s;	     /* seconds between counter sweeps */
	int perfmgr_max_outstanding;	     /* PerfMgt MADs in flight at most */
	bool perfmgr_clear_counters;	     /* clear PortCounters past 3/4 of their range */
	int perfmgr_threshold_symbol_errors; /* per sweep interval; 0 = not watched */
	int perfmgr_threshold_link_downed;
	int perfmgr_threshold_rcv_errors;
	int perfmgr_threshold_xmit_discards;
	/* the read-only HTTP endpoint (ui/http.c) */
	char http_listen[CONF_NAME_MAX];     /* "ADDR:PORT", "" = off */
	char http_root[CONF_PATH_MAX];	     /* the web page's static files */
	int http_max_clients;		     /* connections at once */
	char http_tls_cert[CONF_PATH_MAX];   /* PEM: HTTPS on http_listen, "" = plain HTTP */
	char http_tls_key[CONF_PATH_MAX];    /* PEM: its private key */
	char http_users_file[CONF_PATH_MAX]; /* NAME:CRYPT-HASH:admin|read lines, "" = no users */
	bool http_allow_insecure_writes;     /* writes without TLS (tests on loopback) */
	int http_max_body;		     /* bytes of a request body */
	int http_rate_limit;		     /* requests a second per user, 0 = no limit */
	/* state sync between a master and its standby (failover/sync.c) */
	char sync_listen[CONF_NAME_MAX]; /* "ADDR:PORT" the master answers on, "" = off */
	char sync_peers[CONF_CHAIN_MAX]; /* "ADDR:PORT,..." a standby pulls from, "" = off */
	int sync_interval_ms;		 /* a standby pulls this often */
	/* fabric validation (validate/validate.h) and the scheduler export (fabric/slurm.h) */
	char expected_topology_file[CONF_PATH_MAX]; /* the cabling plan, "" = none */
	char node_name_map_name[CONF_PATH_MAX];	    /* OpenSM's node name map, "" = none */
	int validate_policy[CONF_VALIDATE_KINDS];   /* by finding kind: CONF_VALIDATE_* */
	/* QoS (policy/qos.h), OpenSM's keys: qos_X for every class, qos_CLASS_X over it */
	bool qos;			     /* program the QoS policy at all */
	char qos_policy_file[CONF_PATH_MAX]; /* OpenSM's qos-policy.conf (qos-ulps), "" = none */
#define CONF_QOS_CLASS(c)                                                                          \
	int qos_##c##max_vls;	 /* 1..15; 0: the default (15, or qos_max_vls) */                  \
	int qos_##c##high_limit; /* VLHighLimit; -1: the default (0, or qos_high_limit) */         \
	char qos_##c##vlarb_high[CONF_QOS_VLARB_MAX]; /* "VL:weight,..."; "": the default */       \
	char qos_##c##vlarb_low[CONF_QOS_VLARB_MAX];                                               \
	char qos_##c##sl2vl[CONF_QOS_SL2VL_MAX]; /* 16 VLs; "": the default */
	CONF_QOS_CLASS()
	CONF_QOS_CLASS(ca_)
	CONF_QOS_CLASS(sw0_)
	CONF_QOS_CLASS(swe_)
	CONF_QOS_CLASS(rtr_)
#undef CONF_QOS_CLASS
};

/* How a key takes effect (see the key table in conf.c). */
enum conf_live {
	CONF_RESTART,	 /* read at start-up only */
	CONF_LIVE_READ,	 /* read where it is used: a new value applies by itself */
	CONF_LIVE_APPLY, /* its owner must act on a new value (an applier) */
};

/* Every field to its default (one table holds every key's default). */
void conf_defaults(struct sm_conf *c);

/*
 * Apply the file at path over *c (call conf_defaults first).  Returns 0, or
 * -EINVAL with err = "FILE:LINE: what is wrong" (unknown key, bad or
 * out-of-range value, duplicate key, missing '=', a [section], line too
 * long): every error of the file, one per line, as many as fit in err (then
 * "... and N more errors"); or another -errno with err = "FILE: strerror"
 * when it cannot be read.  The lines without errors are applied, so *c may
 * be partly updated on failure: load into a scratch copy.
 */
int conf_load(struct sm_conf *c, const char *path, char *err, size_t err_len);

/* The same, from a string; name is used in messages in place of FILE (-ENOMEM possible). */
int conf_load_string(struct sm_conf *c, const char *name, const char *text, char *err,
		     size_t err_len);

/*
 * Checks the caller can make and conf.c cannot (is the engine built in, does
 * the group exist, is there such a CA): check() sees every key whose value
 * parsed, and returns 0, or -EINVAL with why (no key name, no FILE:LINE).
 */
struct conf_checks {
	int (*check)(void *ctx, const char *key, const char *value, char *why, size_t why_len);
	void *ctx;
};
int conf_load_checked(struct sm_conf *c, const char *path, const struct conf_checks *chk, char *err,
		      size_t err_len);
int conf_load_string_checked(struct sm_conf *c, const char *name, const char *text,
			     const struct conf_checks *chk, char *err, size_t err_len);

/*
 * Write every key of c as "key = value" lines a conf_load() reads back to
 * the same values (secret keys too: the file is the owner's), under a comment
 * naming how it was made.  0 or -errno.
 */
int conf_write(FILE *out, const struct sm_conf *c, const char *comment);

/*
 * Set one key from text (command-line overrides).  Returns 0, or -EINVAL
 * with err = "KEY: what is wrong" (or "unknown key 'KEY'").
 */
int conf_set(struct sm_conf *c, const char *key, const char *value, char *err, size_t err_len);

/* Whether a key takes effect on SIGHUP without a restart.  False for unknown keys. */
bool conf_key_is_live(const char *key);
/* How a key takes effect; CONF_RESTART for unknown keys. */
enum conf_live conf_key_live(const char *key);
/* Whether a key's value is never shown (sa_key).  False for unknown keys. */
bool conf_key_is_secret(const char *key);

/* Copy one key's value from src to dst.  0 or -ENOENT (unknown key). */
int conf_copy_key(struct sm_conf *dst, const struct sm_conf *src, const char *key);
/* One key's value as text, as conf_to_json shows it ("(hidden)" for a secret).  0 or -ENOENT. */
int conf_value_str(const struct sm_conf *c, const char *key, char *buf, size_t len);

/*
 * Names of the keys whose values differ between a and b, up to max of them
 * into ret_keys (static strings).  Returns how many differ (may exceed max).
 */
size_t conf_diff(const struct sm_conf *a, const struct sm_conf *b, const char **ret_keys,
		 size_t max);

/* Every key but the secret ones with its value (log_level as its name, subnet_prefix as "0x...").
 */
json_t *conf_to_json(const struct sm_conf *c);

/* "error", "warning", "info", "debug" <-> LOG_* levels; -1 / NULL when unknown. */
int conf_log_level_from_str(const char *s);
/* part_enforce: OpenSM's names; -1 for another string.  The name of a value ("?" if none). */
enum { CONF_ENFORCE_OFF, CONF_ENFORCE_IN, CONF_ENFORCE_OUT, CONF_ENFORCE_BOTH };
/* A key that is true, false, or decided at run time (auto). */
enum { CONF_AUTO = -1, CONF_AUTO_FALSE = 0, CONF_AUTO_TRUE = 1 };
int conf_enforce_from_str(const char *s);
const char *conf_enforce_str(int v);
const char *conf_log_level_str(int level);

#endif

/*
 * The policies the SM routes and programs by, each read from its file
 * (policy/: the pure parsers) and kept here, inside struct sm, until the
 * next load: partitions (P_Key tables, IPoIB groups), QoS (SL2VL, VLArb,
 * PathRecord SLs) and the updn/dnup root switches.  A load that fails keeps
 * the running policy.
 */
#ifndef IBSMD_POLICIES_H
#define IBSMD_POLICIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct partition_config;
struct qos_policy;

struct sm_policy {
	/* conf.partition_config_file's partitions (or the built-in default) */
	struct partition_config *file_parts;
	/* what the SM programs: file_parts and the runtime partitions (tenants/tenants.h) */
	struct partition_config *parts;
	/* the QoS policy: the qos_ keys and conf.qos_policy_file */
	struct qos_policy *qos;	     /* never NULL after sm_init; each pointer a reference */
	uint64_t qos_loads;	     /* qos->generation of the last load */
	struct qos_policy *qos_last; /* the one the last configure batch wrote, or NULL */
	/* what the published snapshot's tables were written with (NULL: none yet) */
	struct qos_policy *pub_qos;
	struct partition_config *pub_parts;
	int pub_switch_life; /* and its switches' LifeTimeValue (packet_life_time); 0: none yet */
	bool qos_rewrite;    /* that batch failed or did not finish: write every table */
	uint16_t qos_conflict_sls;   /* SLs where the engine's VL overrode the policy's */
	uint32_t qos_conflict_ports; /* ports where it did, at the last configure batch */
	uint16_t qos_reported_sls;   /* what was last logged (once per change) */
	uint64_t *roots;	     /* from conf.updn_roots_file */
	size_t n_roots;
};

/* (Re)load conf.updn_roots_file.  0 or -errno with err; old roots kept on error. */
int sm_load_roots(struct sm *sm, char *err, size_t err_len);

/*
 * (Re)load conf.partition_config_file and create the IPoIB broadcast group
 * of each partition flagged ipoib; the runtime partitions merge into it
 * (tenants_merge).  0 or -errno with err (every error, FILE:LINE each); the
 * running partitions are kept on error.  The next heavy sweep programs the
 * tables.
 */
int sm_load_partitions(struct sm *sm, char *err, size_t err_len);

/*
 * (Re)build the QoS policy from the qos_ keys and (when qos is on)
 * conf.qos_policy_file.  0 or -errno with err (every error, FILE:LINE each
 * for the file); the running policy is kept on error.  The next heavy
 * sweep writes the tables that changed.
 */
int sm_load_qos(struct sm *sm, char *err, size_t err_len);

/* Free what the policies hold (sm_fini). */
void sm_policy_clear(struct sm_policy *p);

#endif

/*
 * The SM's policies (sm/policies.h): partitions, QoS and the updn roots,
 * loaded from their files at start and on SIGHUP.  The parsers are pure
 * (policy/); this file keeps what they return, logs what changed and
 * creates each partition's IPoIB broadcast group.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "policy/roots.h"
#include "sa/mcast.h"
#include "sm/mfts.h"
#include "sm/policies.h"
#include "sm/sm.h"

/* ---- partitions (policy/partition.h) ---------------------------------------- */

int sm_load_partitions(struct sm *sm, char *err, size_t err_len)
{
	struct partition_config *c = NULL;
	size_t groups = 0;
	int r = partition_load(sm->conf.partition_config_file, &c, err, err_len);

	if (r < 0)
		return r;
	c->allow_both = sm->conf.allow_both_pkeys;
	for (size_t i = 0; i < c->n; i++)
		groups += mfts_ipoib_add(sm, &c->parts[i]);
	partition_config_free(sm->policy.file_parts);
	sm->policy.file_parts = c;
	/* what is programmed: the file's, and what the parts merge into it (runtime partitions) */
	partition_config_free(sm->policy.parts);
	sm->policy.parts = partition_config_ref(c);
	hook_run(&sm->hooks.partitions, NULL);
	log_info("partitions: %zu from %s%s, %zu new IPoIB group%s", c->n,
		 c->from_file ? sm->conf.partition_config_file : "the built-in default",
		 c->from_file ? "" : " (Default=0x7fff,ipoib : ALL=full)", groups,
		 groups == 1 ? "" : "s");
	return 0;
}

/* ---- QoS (policy/qos.h) ------------------------------------------------------ */

int sm_load_qos(struct sm *sm, char *err, size_t err_len)
{
	const struct sm_conf *c = &sm->conf;
	struct qos_policy *q = NULL;
	struct qos_tables dflt, all;
	struct {
		const char *name;
		int max_vls, high_limit;
		const char *vh, *vl, *s2v;
	} cls[QOS_N_CLASSES] = {
	    [QOS_CA] = {"qos_ca_", c->qos_ca_max_vls, c->qos_ca_high_limit, c->qos_ca_vlarb_high,
			c->qos_ca_vlarb_low, c->qos_ca_sl2vl},
	    [QOS_SW0] = {"qos_sw0_", c->qos_sw0_max_vls, c->qos_sw0_high_limit,
			 c->qos_sw0_vlarb_high, c->qos_sw0_vlarb_low, c->qos_sw0_sl2vl},
	    [QOS_SWE] = {"qos_swe_", c->qos_swe_max_vls, c->qos_swe_high_limit,
			 c->qos_swe_vlarb_high, c->qos_swe_vlarb_low, c->qos_swe_sl2vl},
	    [QOS_RTR] = {"qos_rtr_", c->qos_rtr_max_vls, c->qos_rtr_high_limit,
			 c->qos_rtr_vlarb_high, c->qos_rtr_vlarb_low, c->qos_rtr_sl2vl},
	};
	char why[256];
	int r;

	/* the policy file counts only with QoS on, as OpenSM's -Y without -Q */
	r = qos_policy_load(c->qos ? c->qos_policy_file : "", &q, err, err_len);
	if (r < 0)
		return r;
	qos_tables_default(&dflt);
	if (qos_tables_build(&all, c->qos_max_vls, c->qos_high_limit, c->qos_vlarb_high,
			     c->qos_vlarb_low, c->qos_sl2vl, &dflt, why, sizeof(why)) < 0) {
		snprintf(err, err_len, "qos_%s", why);
		qos_policy_free(q);
		return -EINVAL;
	}
	for (int k = 0; k < QOS_N_CLASSES; k++)
		if (qos_tables_build(&q->cls[k], cls[k].max_vls, cls[k].high_limit, cls[k].vh,
				     cls[k].vl, cls[k].s2v, &all, why, sizeof(why)) < 0) {
			snprintf(err, err_len, "%s%s", cls[k].name, why);
			qos_policy_free(q);
			return -EINVAL;
		}
	q->enabled = c->qos;
	q->generation = ++sm->policy.qos_loads;
	/* at info when it is turned on or off or its rules change, else debug (a SIGHUP) */
	bool news = !sm->policy.qos || sm->policy.qos->enabled != q->enabled ||
		    sm->policy.qos->n_rules != q->n_rules ||
		    sm->policy.qos->has_default != q->has_default;
	qos_policy_free(sm->policy.qos); /* the last one written keeps its own reference */
	sm->policy.qos = q;
	if (q->enabled)
		log_msg(LOG_CAT_SWEEP, news ? LOG_INFO : LOG_DEBUG,
			"QoS: on, %zu qos-ulps rule%s%s from %s", q->n_rules,
			q->n_rules == 1 ? "" : "s", q->has_default ? " and a default" : "",
			q->from_file ? c->qos_policy_file : "no policy file");
	else
		log_msg(LOG_CAT_SWEEP, news && sm->policy.qos_loads > 1 ? LOG_INFO : LOG_DEBUG,
			"QoS: off");
	return 0;
}

int sm_load_roots(struct sm *sm, char *err, size_t err_len)
{
	uint64_t *roots;
	size_t n;
	int r = roots_load(sm->conf.updn_roots_file, &roots, &n, err, err_len);

	if (r < 0)
		return r;
	free(sm->policy.roots);
	sm->policy.roots = roots;
	sm->policy.n_roots = n;
	if (n)
		log_info("updn: %zu root switches from %s", n, sm->conf.updn_roots_file);
	return 0;
}

void sm_policy_clear(struct sm_policy *p)
{
	free(p->roots);
	partition_config_free(p->parts);
	partition_config_free(p->file_parts);
	qos_policy_free(p->qos_last);
	qos_policy_free(p->qos);
	qos_policy_free(p->pub_qos);
	partition_config_free(p->pub_parts);
	memset(p, 0, sizeof(*p));
}

/* Every port's SL2VL and VLArb tables, read in the background for the SA (see vltables.h). */
#include <errno.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "sa/sa.h"
#include "sm/sm.h"
#include "sm/vltables.h"
#include "smp/vlread.h"

/* Stop the read under way, its counts added up; what was read stays. */
static void vltables_stop(struct vltables *vt)
{
	struct vlread_stats st;

	if (!vt->reading)
		return;
	vlread_get_stats(vt->reading, &st);
	vt->nodes_read += st.read;
	vt->gets += (uint64_t)st.sl2vl + st.vlarb;
	vt->errors += st.errors;
	vlread_free(vt->reading);
	vt->reading = NULL;
}

static void vltables_done(void *arg, const struct vlread_stats *st)
{
	struct sm *sm = arg;
	struct vltables *vt = sm->vlt;

	vt->reads_done++;
	vt->last_ms = clock_mono_ms() - vt->started_ms;
	vt->last_nodes = st->read;
	log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
		"VL tables: %u of %u nodes read (%u SL2VL, %u VLArb Gets, %u failed) in %.0f ms",
		st->read, st->nodes, st->sl2vl, st->vlarb, st->errors, vt->last_ms);
	if (st->errors)
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING,
				"VL tables: %u Gets failed; their nodes are read again after the "
				"next sweep",
				st->errors);
	vltables_stop(vt); /* from inside its batch's callback: freed once that returns */
}

static bool vltables_keep(void *arg, uint64_t guid)
{
	return fabric_find_guid(arg, guid) != FABRIC_NO_NODE;
}

static bool vltables_keep_none(void *arg, uint64_t guid)
{
	(void)arg;
	(void)guid;
	return false;
}

/* A heavy sweep owns the switches' answers: the read stops, what was read stays. */
static void vltables_on_sweep_begin(void *ctx, const void *data)
{
	struct sm *sm = ctx;

	(void)data;
	vltables_stop(sm->vlt);
}

static void vltables_on_published(void *ctx, const void *data)
{
	struct sm *sm = ctx;
	struct vltables *vt = sm->vlt;
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	int rc;

	(void)data;
	vltables_stop(vt);
	if (!f)
		return;
	/* nodes gone; everything when this sweep wrote VL tables (they are read again) */
	if (sm->last.sl2vl_blocks || sm->last.vlarb_blocks)
		vlt_set_prune(vt->set, vltables_keep_none, NULL);
	else
		vlt_set_prune(vt->set, vltables_keep, (void *)f);
	/* --once exits now: no SA is left to answer, and no Gets may be in flight at exit */
	if (!sm->conf.read_vl_tables || sm->once || sm->state != SM_MASTER || !sm->subnet_up ||
	    !sm->xe)
		return;
	rc = vlread_start(sm->xe, f, vt->set, vltables_done, sm, &vt->reading);
	if (rc < 0) {
		log_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, "VL tables: not read: %s",
				"out of memory");
		return;
	}
	if (vt->reading) {
		vt->reads++;
		vt->started_ms = clock_mono_ms();
	}
}

int vltables_init(struct sm *sm)
{
	struct vltables *vt = calloc(1, sizeof(*vt));

	sm->vlt = vt;
	if (!vt || !(vt->set = vlt_set_new()) ||
	    hook_add(&sm->hooks.published, vltables_on_published, sm) < 0 ||
	    hook_add(&sm->hooks.sweep_begin, vltables_on_sweep_begin, sm) < 0) {
		vltables_fini(sm);
		return -ENOMEM;
	}
	if (sm->sa)
		sa_set_vlt(sm->sa, vt->set);
	return 0;
}

void vltables_fini(struct sm *sm)
{
	struct vltables *vt = sm->vlt;

	if (!vt)
		return;
	vltables_stop(vt);
	hook_remove(&sm->hooks.published, vltables_on_published, sm);
	hook_remove(&sm->hooks.sweep_begin, vltables_on_sweep_begin, sm);
	if (sm->sa)
		sa_set_vlt(sm->sa, NULL);
	vlt_set_free(vt->set);
	free(vt);
	sm->vlt = NULL;
}

#define VS_FIELD(m, metric, kind, help)                                                            \
	STAT_FIELD(struct vltables_status, m, #m, metric, kind, help)
static const struct stat_field vltables_stat_fields[] = {
    VS_FIELD(nodes, NULL, STAT_GAUGE, NULL),
    VS_FIELD(reading, NULL, STAT_GAUGE, NULL),
    VS_FIELD(reads, NULL, STAT_COUNTER, NULL),
    VS_FIELD(nodes_read, NULL, STAT_COUNTER, NULL),
    VS_FIELD(gets, "ibsmd_vl_table_gets_total", STAT_COUNTER,
	     "SL2VL and VLArb Gets sent to read the ports' tables."),
    VS_FIELD(errors, NULL, STAT_COUNTER, NULL),
    VS_FIELD(mem_bytes, NULL, STAT_GAUGE, NULL),
    VS_FIELD(last_read_ms, NULL, STAT_GAUGE, NULL),
};
#undef VS_FIELD

const struct stat_table vltables_stat_table = STAT_TABLE("vl_tables", vltables_stat_fields);

bool vltables_status_get(const struct sm *sm, struct vltables_status *ret)
{
	const struct vltables *vt = sm->vlt;

	*ret = (struct vltables_status){0};
	if (!vt)
		return false;
	ret->nodes = vlt_set_count(vt->set);
	ret->reading = vt->reading != NULL;
	ret->reads = vt->reads;
	ret->nodes_read = vt->nodes_read;
	ret->gets = vt->gets;
	ret->errors = vt->errors;
	ret->mem_bytes = vlt_set_mem(vt->set);
	ret->last_read_ms = vt->last_ms;
	return true;
}

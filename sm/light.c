/*
 * The light sweep (see light.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mad/xact.h"
#include "lib/log.h"
#include "mad/wire.h"
#include "sm/light.h"
#include "sm/sm.h"
#include "sm/sweep_sched.h"

struct light {
	struct sm *sm;
	struct xact_batch *batch; /* the SwitchInfo Gets; on empty: light_finish */
	bool changed;
	char why[160];
	/* switches whose PortStateChange is set: an incremental sweep around them */
	unsigned n_psc;
	uint64_t psc[SWEEP_MAX_DIRTY];
	char psc_why[160];
};

struct light_op {
	struct light *l;
	uint32_t node;
};

static void light_free(struct light *l)
{
	if (!l)
		return;
	xact_batch_free(l->batch);
	free(l);
}

/* Switch n is to be swept around; the first one's reason is what the sweep says. */
static void light_around(struct light *l, const struct node *n, const char *what)
{
	if (!l->n_psc++)
		snprintf(l->psc_why, sizeof(l->psc_why), "switch 0x%016llx \"%s\" %s",
			 (unsigned long long)n->guid, n->desc, what);
	if (l->n_psc <= SWEEP_MAX_DIRTY)
		l->psc[l->n_psc - 1] = n->guid;
}

static void light_done(void *arg, int status, const struct wire_smp *req,
		       const struct wire_smp *resp)
{
	struct light_op *op = arg;
	struct light *l = op->l;
	struct sm *sm = l->sm;
	struct wire_switchinfo si;

	if (status != -ECANCELED && !l->changed && sm->snap &&
	    op->node < sm->snap->fabric->n_nodes) {
		const struct node *n = &sm->snap->fabric->nodes[op->node];
		if (status < 0) {
			/*
			 * Gone, or a link on its path is: asked again around it
			 * (an incremental discovery finds a switch that stays
			 * silent gone, or reaches it another way), not a heavy
			 * sweep of the whole fabric for one switch.
			 */
			light_around(l, n, "did not answer");
		} else if (wire_switchinfo_decode(resp->data, sizeof(resp->data), &si) < 0) {
			l->changed = true;
			snprintf(l->why, sizeof(l->why),
				 "switch 0x%016llx \"%s\" sent a malformed SwitchInfo",
				 (unsigned long long)n->guid, n->desc);
		} else if (si.port_state_change) {
			/* the switch will be asked again around its ports */
			light_around(l, n, "reports a port state change");
		}
	}
	free(op);
}

/* Every switch answered or not: a heavy sweep, one around some switches, or nothing. */
static void light_finish(void *arg)
{
	struct light *l = arg;
	struct sm *sm = l->sm;

	sm->light.sweeps++;
	if (l->changed) {
		log_msg(LOG_CAT_SWEEP, LOG_INFO, "light sweep: %s: heavy sweep", l->why);
		sweep_start_why(sm, l->why);
	} else if (l->n_psc > SWEEP_MAX_DIRTY) {
		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"light sweep: %u switches report port state changes: heavy sweep",
			l->n_psc);
		sweep_start_why(sm, l->psc_why);
	} else if (l->n_psc) {
		log_msg(LOG_CAT_SWEEP, LOG_INFO, "light sweep: %s%s: sweeping around %u switch%s",
			l->psc_why, l->n_psc > 1 ? " (and others)" : "", l->n_psc,
			l->n_psc == 1 ? "" : "es");
		for (unsigned i = 0; i < l->n_psc; i++)
			sweep_start_around(sm, l->psc[i], l->psc_why);
	}
	sm->light.running = false;
	sm->light.cur = NULL;
	light_free(l);
}

int light_sweep(struct sm *sm)
{
	const struct fabric *f = sm->snap ? sm->snap->fabric : NULL;
	struct light *l;

	if (sweep_running(sm) || sm->light.running)
		return 0;
	/* a standby polls its master instead; a NOTACTIVE SM waits to be told */
	if (sm->state != SM_MASTER)
		return 0;
	/* another master (a healed partition, one that was hung) or a better SM */
	if (sm->role.ops)
		sm->role.ops->light(sm->role.ctx);
	/*
	 * Heavy instead when there is nothing good to compare with, when the last
	 * heavy sweep missed nodes (they may answer again without any port
	 * changing state), and every 30th time as a safety net.
	 */
	if (!f || !sm->subnet_up)
		return sweep_start_why(sm, "periodic: the subnet is not up");
	if (sm->last.timeouts)
		return sweep_start_why(sm, "periodic: the last sweep missed nodes");
	if (++sm->light.ticks % 30 == 0)
		return sweep_start_why(sm, "periodic: every 30th sweep is heavy");
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->sm = sm;
	l->batch = xact_batch_new(sm->xe, light_finish, l);
	if (!l->batch) {
		free(l);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		struct light_op *op;
		struct wire_smp smp;
		if (!node_is_switch(n) || wire_smp_init_dr(&smp, WIRE_GET, WIRE_ATTR_SWITCH_INFO, 0,
							   n->dr_path, n->dr_hops) < 0)
			continue;
		op = calloc(1, sizeof(*op));
		if (!op)
			break;
		*op = (struct light_op){l, i};
		if (xact_submit(sm->xe, &(struct xact_request){.batch = l->batch,
							       .smp = &smp,
							       .done = light_done,
							       .arg = op}) < 0) {
			free(op);
			break;
		}
	}
	if (!xact_batch_pending(l->batch)) {
		/* no switches (two CAs back to back): nothing cheap to poll */
		light_free(l);
		return sweep_start_why(sm, "periodic: no switch to poll");
	}
	sm->light.running = true;
	sm->light.cur = l;
	return 0;
}

static void light_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	light_sweep(sm);
	light_schedule(sm);
}

void light_schedule(struct sm *sm)
{
	struct timeval tv = {sm->conf.sweep_interval, 0};

	if (!sm->conf.sweep_interval) {
		if (sm->light.timer)
			evtimer_del(sm->light.timer);
		return;
	}
	if (!sm->light.timer)
		sm->light.timer = evtimer_new(sm->base, light_timer_cb, sm);
	if (sm->light.timer)
		evtimer_add(sm->light.timer, &tv);
}

void light_fini(struct sm *sm)
{
	/* a light sweep the engine's end cancelled */
	light_free(sm->light.cur);
	sm->light.cur = NULL;
	sm->light.running = false;
	if (sm->light.timer)
		event_free(sm->light.timer);
	sm->light.timer = NULL;
}

/* What changed, in the log (see changes.h). */
#include <stdio.h>

#include "fabric/diff.h"
#include "fabric/names.h"
#include "lib/log.h"
#include "sm/changes.h"
#include "sm/sm.h"

struct changes {
	unsigned n, logged, more;
};

/* "switch "desc" 0x0002c90100000200" */
static void node_str(const struct diff_end *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s \"%s\" 0x%016llx", n->type == NODE_SWITCH ? "switch" : "CA", n->desc,
		 (unsigned long long)n->guid);
}

static void changes_one(void *arg, const struct diff_change *c)
{
	struct changes *ch = arg;
	char a[128], b[128];
	int level = LOG_INFO;

	ch->n++;
	if (c->kind == DIFF_PORT_DOWN || c->kind == DIFF_PORT_UP)
		level = LOG_DEBUG;
	if (!log_enabled(LOG_CAT_SWEEP, level))
		return;
	if (level == LOG_INFO && ch->logged >= CHANGES_LOG_MAX) {
		ch->more++;
		return;
	}
	if (level == LOG_INFO)
		ch->logged++;
	node_str(&c->a, a, sizeof(a));
	switch (c->kind) {
	case DIFF_NODE_REMOVED:
		log_msg(LOG_CAT_SWEEP, level, "node gone: %s", a);
		break;
	case DIFF_NODE_ADDED:
		log_msg(LOG_CAT_SWEEP, level, "node new: %s", a);
		break;
	case DIFF_LINK_DOWN:
	case DIFF_LINK_UP:
		node_str(&c->b, b, sizeof(b));
		log_msg(LOG_CAT_SWEEP, level, "link %s: %s port %u -- %s port %u",
			c->kind == DIFF_LINK_DOWN ? "down" : "up", a, c->port, b, c->peer_port);
		break;
	case DIFF_PORT_DOWN:
	case DIFF_PORT_UP:
		log_msg(LOG_CAT_SWEEP, level, "port %s: %s port %u is %s",
			c->kind == DIFF_PORT_DOWN ? "down" : "up", a, c->port,
			names_port_state(c->state));
		break;
	case DIFF_LID_CHANGED:
		log_msg(LOG_CAT_SWEEP, level, "LID changed: %s port %u: %u -> %u", a, c->port,
			c->old_lid, c->lid);
		break;
	}
}

unsigned changes_log(const struct sm *sm, const struct snapshot *old)
{
	struct changes ch = {0};

	if (!old || !sm->snap)
		return 0;
	snapshot_changes_run(sm->snap, old, changes_one, &ch);
	if (ch.more)
		log_msg(LOG_CAT_SWEEP, LOG_INFO,
			"... and %u more changes (smctl eventlog lists every one)", ch.more);
	return ch.n;
}

/*
 * Fabric validation, a part of the SM (sm/part.h): after every published
 * snapshot the fabric is checked against the cabling plan
 * (expected_topology_file, validate/plan.h; without one, the checks that
 * need none), and the findings are kept until the next snapshot.  A finding
 * that appears or clears runs the `validation` hooks (ui/events.c makes it
 * an event); each kind has a policy key, validate_KIND = warn (the default)
 * or isolate: the switch end of the finding's link is disabled as the flap
 * quarantine does (sm/port.c port_set_enabled; never the SM's own link),
 * kept disabled while it is listed, and released by the operator (`smctl
 * port enable`), when the port is seen up again without the finding (it
 * was fixed), or when the kind's policy goes back to warn.  A disabled
 * port hides its link: an isolated finding stays listed (isolated: true),
 * and the planned cables its ports leave free are not reported missing.
 *
 * The part also holds the node name map (node_name_map_name, OpenSM's
 * format, fabric/nodemap.h) the scheduler export names hosts with.  Both
 * files are read at attach, when their key changes, and on validate_reload
 * (SIGHUP): a file that does not load keeps the one held, and says why.
 */
#ifndef IBSMD_VALIDATE_H
#define IBSMD_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stat_table.h"
#include "validate/plan.h"

struct sm;
struct nodemap;

/* What the part shows (smctl status "validation", metrics ibsmd_validation_*). */
struct validate_stats {
	bool plan;	     /* a plan is held */
	uint32_t plan_nodes; /* ... its nodes and cables */
	uint32_t plan_links;
	uint32_t matched;     /* plan nodes found in the last snapshot checked */
	uint32_t findings;    /* listed now, isolated ones included */
	uint32_t errors;      /* ... of severity error */
	uint32_t isolated;    /* ports disabled by the isolate policy now */
	uint64_t runs;	      /* checks after a publish */
	uint64_t appeared;    /* findings that appeared */
	uint64_t cleared;     /* and cleared */
	uint64_t isolations;  /* ports disabled */
	uint64_t releases;    /* and enabled again */
	uint64_t load_errors; /* plan or name map files that did not load */
	double last_ms;	      /* the last check's time */
	uint64_t generation;  /* the snapshot it checked */
	char plan_file[256];  /* the plan held ("" none) */
	char last_error[256]; /* why the last load failed ("" none) */
};
extern const struct stat_table validate_stat_table;

/* A finding appeared or cleared, a port was isolated or released (sm->hooks.validation). */
enum validate_what {
	VALIDATE_APPEARED,
	VALIDATE_CLEARED,
	VALIDATE_ISOLATED,
	VALIDATE_RELEASED,
};
struct validate_change {
	enum validate_what what;
	const struct plan_finding *fd; /* the finding (released: the one that isolated it) */
	uint64_t guid;		       /* isolated, released: the port */
	uint8_t port;
	const char *why; /* one line */
};

/* A finding as listed: isolated ones carry the port disabled for them. */
struct validate_item {
	struct plan_finding fd;
	bool isolated;
	uint64_t guid; /* isolated: the port disabled */
	uint8_t port;
};

/*
 * Attach the part: the published hook, the appliers of
 * expected_topology_file and node_name_map_name, and the first load of
 * both (a file that does not load is logged and counted: the SM runs
 * without it).  0 or -ENOMEM with err.
 */
int validate_attach(struct sm *sm, char *err, size_t err_len);

/* Read both files again (SIGHUP).  0, or -errno with err (the old ones kept). */
int validate_reload(struct sm *sm, char *err, size_t err_len);

void validate_get_stats(const struct sm *sm, struct validate_stats *ret);

/*
 * The findings of the last check, isolated ones included (*ret_n of
 * them; valid until the next publish or reload).  NULL, 0 when the part is
 * not attached or nothing was checked yet.
 */
const struct validate_item *validate_items(const struct sm *sm, size_t *ret_n);

/*
 * Check the published snapshot now, against the plan held (smctl
 * validate): ret gets the findings (plan_result_clear it); nothing is
 * kept, no event, no isolation.  0, -ENOENT without a snapshot, -ENOMEM.
 */
int validate_check_now(const struct sm *sm, struct plan_result *ret);

/*
 * The same check, listed as after a publish (isolated ports' findings
 * included, the cables they hide left out): *ret (free it), *ret_n.  0,
 * -ENOENT without a snapshot, -ENOMEM.
 */
int validate_now(const struct sm *sm, struct validate_item **ret, size_t *ret_n);

/* The name map held, or NULL. */
const struct nodemap *validate_names(const struct sm *sm);

/* The operator enabled the port: no longer isolated (its record dropped). */
void validate_forget(struct sm *sm, uint64_t guid, uint8_t port);

#endif

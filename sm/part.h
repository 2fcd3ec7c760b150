/*
 * The parts of the SM.  A part (the role and its state sync, the
 * performance manager, the port health policy, ...) owns an object of its
 * own, attaches to the SM through hooks (sm->hooks), dispatch rows
 * (sm->disp) and configuration appliers of its own, and shows what it does
 * through a status struct its header declares: ui/ reads that struct, never
 * the part's fields.  The SM keeps the registry: parts in the order they
 * were attached, found by their ops.
 *
 * Detaching: sm_fini frees every part, in reverse order, after the
 * transaction engine is gone (a request cancelled there still finds its
 * part in its callback) and before the hooks are cleared.
 */
#ifndef IBSMD_PART_H
#define IBSMD_PART_H

#include <stddef.h>

struct sm;

struct sm_part_ops {
	const char *name;
	/* Remove its hooks and timers and free obj (NULL-safe). */
	void (*free)(struct sm *sm, void *obj);
};

#define SM_MAX_PARTS 16

struct sm_part {
	const struct sm_part_ops *ops;
	void *obj;
};

/* Register obj as the part of ops (one object a part).  0, -EEXIST, -ENOSPC. */
int sm_part_add(struct sm *sm, const struct sm_part_ops *ops, void *obj);
/* The object of the part of ops, or NULL when it is not attached. */
void *sm_part_get(const struct sm *sm, const struct sm_part_ops *ops);
/*
 * The object of the part named name, or NULL: for the files of a part
 * below the one that defines its ops (they must not call up to reach them).
 */
void *sm_part_named(const struct sm *sm, const char *name);
/* Free every part, last attached first (sm_fini). */
void sm_parts_free(struct sm *sm);

#endif

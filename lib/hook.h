/*
 * Hook lists: the observers of one kind of event, each a function with its
 * own context, run in the order they were added.  An owner (the SM, the
 * control API) exposes one list per event and says in its header what the
 * data pointer points at; observers add and remove themselves without
 * knowing of each other (BIRD's and FRR's hooks, not a chain of bare
 * function pointers each saving the one before).
 *
 * A hook may remove itself or another hook while the list runs: the removed
 * entry is skipped and compacted away once the run ends.  A hook added while
 * the list runs is called from the next run on.
 */
#ifndef IBSMD_HOOK_H
#define IBSMD_HOOK_H

#include <stdbool.h>
#include <stddef.h>

typedef void hook_fn(void *ctx, const void *data);

struct hook_entry {
	hook_fn *fn; /* NULL once removed */
	void *ctx;
};

struct hook_list {
	struct hook_entry *v;
	size_t n, cap;
	unsigned running;
	bool removed;
};

/* 0 or -ENOMEM.  The same (fn, ctx) twice is two entries. */
int hook_add(struct hook_list *l, hook_fn *fn, void *ctx);
/* Remove the first entry with this fn and ctx; false when there is none. */
bool hook_remove(struct hook_list *l, hook_fn *fn, void *ctx);
/* Call every hook with data. */
void hook_run(struct hook_list *l, const void *data);
size_t hook_count(const struct hook_list *l);
/* Drop every entry and the storage (not while running). */
void hook_list_clear(struct hook_list *l);

#endif

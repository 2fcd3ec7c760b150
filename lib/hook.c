/*
 * Hook lists (see hook.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/hook.h"

int hook_add(struct hook_list *l, hook_fn *fn, void *ctx)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		struct hook_entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct hook_entry){fn, ctx};
	return 0;
}

static void hook_compact(struct hook_list *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].fn)
			l->v[k++] = l->v[i];
	l->n = k;
	l->removed = false;
}

bool hook_remove(struct hook_list *l, hook_fn *fn, void *ctx)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].fn != fn || l->v[i].ctx != ctx)
			continue;
		l->v[i].fn = NULL;
		l->removed = true;
		if (!l->running)
			hook_compact(l);
		return true;
	}
	return false;
}

void hook_run(struct hook_list *l, const void *data)
{
	size_t n = l->n; /* hooks added meanwhile wait for the next run */

	l->running++;
	for (size_t i = 0; i < n; i++)
		if (l->v[i].fn)
			l->v[i].fn(l->v[i].ctx, data);
	if (--l->running == 0 && l->removed)
		hook_compact(l);
}

size_t hook_count(const struct hook_list *l)
{
	size_t c = 0;

	for (size_t i = 0; i < l->n; i++)
		c += l->v[i].fn != NULL;
	return c;
}

void hook_list_clear(struct hook_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
	l->removed = false;
}

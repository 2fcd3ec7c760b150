/*
 * Discovery's probes (see discover_int.h): the frontier, a BFS queue of
 * probes a few bytes each, handed to the engine when its window has room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/wire.h"
#include "smp/discover_int.h"

/* Whether (node, port) is asked again now: false when it was already, or on ENOMEM. */
bool discover_asked_once(struct discover *d, uint32_t node, uint8_t port)
{
	uint64_t key = (uint64_t)node << 8 | port;

	for (size_t i = 0; i < d->n_asked; i++)
		if (d->asked[i] == key)
			return false;
	if (d->n_asked == d->cap_asked) {
		size_t cap = d->cap_asked ? 2 * d->cap_asked : 32;
		uint64_t *v = realloc(d->asked, cap * sizeof(*v));

		if (!v) {
			d->res.errors++;
			return false;
		}
		d->asked = v;
		d->cap_asked = cap;
	}
	d->asked[d->n_asked++] = key;
	return true;
}

void discover_later_add(struct discover *d, uint64_t guid, enum probe_kind kind, uint8_t port,
			uint8_t flags)
{
	if (d->n_later == d->cap_later) {
		size_t cap = d->cap_later ? 2 * d->cap_later : 16;
		struct later *v = realloc(d->later, cap * sizeof(*v));

		if (!v) {
			d->res.errors++; /* cannot be asked: the caller discovers everything */
			return;
		}
		d->later = v;
		d->cap_later = cap;
	}
	d->later[d->n_later++] = (struct later){guid, kind, port, flags};
}

/* Hand a probe to the engine now.  0 or -errno (nothing sent). */
static int probe_submit(struct discover *d, const struct frontier_rec *b, const uint8_t *path)
{
	struct wire_smp smp;
	struct probe *p;
	int r;

	if (wire_smp_init_dr(&smp, WIRE_GET, b->attr, b->mod, path, b->hops) < 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct probe){d, b->kind, b->parent, b->parent_port, b->node, b->port, 0, b->flags};
	r = xact_submit(d->xe,
			&(struct xact_request){
			    .batch = d->batch, .smp = &smp, .done = d->probe_done, .arg = p});
	if (r < 0) {
		free(p);
		return r;
	}
	return 0;
}

static int frontier_push(struct discover *d, const struct frontier_rec *b, const uint8_t *path)
{
	size_t need = sizeof(*b) + b->hops;

	if (d->fr_tail + need > d->fr_cap && d->fr_head && d->fr_head >= d->fr_cap / 2) {
		/* the front half is spent: move the live part down */
		memmove(d->frontier, d->frontier + d->fr_head, d->fr_tail - d->fr_head);
		d->fr_tail -= d->fr_head;
		d->fr_head = 0;
	}
	if (d->fr_tail + need > d->fr_cap) {
		size_t cap = d->fr_cap ? 2 * d->fr_cap : 4096;
		uint8_t *v;

		while (cap < d->fr_tail + need)
			cap *= 2;
		v = realloc(d->frontier, cap);
		if (!v)
			return -ENOMEM;
		d->frontier = v;
		d->fr_cap = cap;
	}
	memcpy(d->frontier + d->fr_tail, b, sizeof(*b));
	if (b->hops)
		memcpy(d->frontier + d->fr_tail + sizeof(*b), path + 1, b->hops);
	d->fr_tail += need;
	return 0;
}

bool discover_frontier_empty(const struct discover *d)
{
	return d->fr_head == d->fr_tail;
}

/*
 * The batch's producer: hand the engine the frontier's next probe (the
 * engine asks when its window has room).  False when the frontier is empty.
 */
bool discover_produce(void *ctx)
{
	struct discover *d = ctx;

	while (!discover_frontier_empty(d)) {
		struct frontier_rec b;
		uint8_t path[FABRIC_DR_MAX_HOPS + 1] = {0};

		memcpy(&b, d->frontier + d->fr_head, sizeof(b));
		memcpy(path + 1, d->frontier + d->fr_head + sizeof(b), b.hops);
		d->fr_head += sizeof(b) + b.hops;
		if (probe_submit(d, &b, path) == 0)
			return true;
		d->res.errors++; /* not asked: the sweep is incomplete */
	}
	d->fr_head = d->fr_tail = 0;
	if (d->fr_cap > 65536) {
		/* the wave is over: give its buffer back */
		free(d->frontier);
		d->frontier = NULL;
		d->fr_cap = 0;
	}
	return false;
}

/*
 * Ask (node, port) for attr: the probe joins the frontier, behind the
 * others (the order is kept), and goes when the engine asks for it.
 * 0, or -errno (nothing asked).
 */
int discover_send_flags(struct discover *d, enum probe_kind kind, const uint8_t *path, uint8_t hops,
			uint16_t attr, uint32_t mod, uint32_t parent, uint8_t parent_port,
			uint32_t node, uint8_t port, uint8_t flags)
{
	struct frontier_rec b = {parent,      node, mod,  attr, (uint8_t)kind,
				 parent_port, port, hops, flags};
	int r;

	if (hops > FABRIC_DR_MAX_HOPS || (hops && !path))
		return -EINVAL;
	r = frontier_push(d, &b, path);
	if (r == 0)
		xact_batch_wake(d->batch);
	return r;
}

int discover_send(struct discover *d, enum probe_kind kind, const uint8_t *path, uint8_t hops,
		  uint16_t attr, uint32_t mod, uint32_t parent, uint8_t parent_port, uint32_t node,
		  uint8_t port)
{
	return discover_send_flags(d, kind, path, hops, attr, mod, parent, parent_port, node, port,
				   0);
}

/*
 * Partitions (see partition.h): the member index of a policy and the P_Key
 * table it gives each port (IBA 1.4 vol 1, 10.9.2; 14.2.5.7), the common
 * partition of two tables.  partition.c reads the file and builds the
 * policy; this file only reads it.  Pure.
 *
 * Cost: the index sorts a policy's GUID members once; a port's table then
 * costs a binary search for its GUID, the policy's ALL/SELF-style members
 * and a sort of the partitions it is in, not a pass over every member.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/partition.h"

static bool member_matches(uint8_t who, uint64_t mguid, const struct node *n, uint64_t guid,
			   uint64_t sm_guid)
{
	switch (who) {
	case PARTITION_GUID:
		return mguid == guid;
	case PARTITION_ALL:
		return true;
	case PARTITION_ALL_CAS:
		return n->type == NODE_CA;
	case PARTITION_ALL_SWITCHES:
		return n->type == NODE_SWITCH;
	case PARTITION_ALL_ROUTERS:
		return n->type == NODE_ROUTER;
	case PARTITION_SELF:
		return guid == sm_guid;
	}
	return false;
}

/* ---- the index ------------------------------------------------------------ */

static int cmp_ix(const void *a, const void *b)
{
	const struct partition_ix *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->part < y->part ? -1 : x->part > y->part;
}

int partition_config_index(struct partition_config *c)
{
	size_t n_ix = 0, n_wild = 0;
	struct partition_ix *ix, *wild;

	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->parts[i].n_members; k++) {
			if (c->parts[i].members[k].who == PARTITION_GUID)
				n_ix++;
			else
				n_wild++;
		}
	ix = malloc((n_ix + 1) * sizeof(*ix));
	wild = malloc((n_wild + 1) * sizeof(*wild));
	if (!ix || !wild) {
		free(ix);
		free(wild);
		return -ENOMEM;
	}
	n_ix = n_wild = 0;
	c->default_part = UINT32_MAX;
	for (size_t i = 0; i < c->n; i++) {
		const struct partition *p = &c->parts[i];

		if (p->pkey == PARTITION_DEFAULT_PKEY && c->default_part == UINT32_MAX)
			c->default_part = (uint32_t)i;
		for (size_t k = 0; k < p->n_members; k++) {
			const struct partition_member *m = &p->members[k];
			struct partition_ix e = {m->who == PARTITION_GUID ? m->guid : 0,
						 (uint32_t)i, m->who, m->membership, m->flags};

			if (m->who == PARTITION_GUID)
				ix[n_ix++] = e;
			else
				wild[n_wild++] = e;
		}
	}
	qsort(ix, n_ix, sizeof(*ix), cmp_ix);
	free(c->ix);
	free(c->wild);
	c->ix = ix;
	c->n_ix = n_ix;
	c->wild = wild;
	c->n_wild = n_wild;
	c->indexed = true;
	return 0;
}

/* ---- a port's table ------------------------------------------------------- */

/* What one partition says of one port, gathered from its members. */
struct port_part {
	uint32_t part;
	bool full, limited, both, index0;
};

struct port_parts {
	struct port_part *v;
	size_t n, cap;
	struct port_part buf[64];
};

static bool port_parts_add(struct port_parts *pp, uint32_t part, uint8_t membership, uint8_t flags)
{
	struct port_part *e;

	if (pp->n && pp->v[pp->n - 1].part == part) {
		e = &pp->v[pp->n - 1];
	} else {
		if (pp->n == pp->cap) {
			size_t cap = 2 * pp->cap;
			struct port_part *v = malloc(cap * sizeof(*v));

			if (!v)
				return false;
			memcpy(v, pp->v, pp->n * sizeof(*v));
			if (pp->v != pp->buf)
				free(pp->v);
			pp->v = v;
			pp->cap = cap;
		}
		e = &pp->v[pp->n++];
		*e = (struct port_part){.part = part};
	}
	e->full |= membership == PARTITION_M_FULL;
	e->limited |= membership == PARTITION_M_LIMITED;
	e->both |= membership == PARTITION_M_BOTH;
	e->index0 |= (flags & PARTITION_MF_INDEX0) != 0;
	return true;
}

static int cmp_port_part(const void *a, const void *b)
{
	const struct port_part *x = a, *y = b;

	return x->part < y->part ? -1 : x->part > y->part;
}

/* Table entries for what pp says of a partition: 0, 1 or 2 keys into k[]. */
static unsigned port_part_entries(const struct partition_config *c, const struct port_part *pp,
				  bool sm_port, uint16_t k[2])
{
	const struct partition *p = &c->parts[pp->part];
	bool full = pp->full;

	if (p->pkey == PARTITION_DEFAULT_PKEY && sm_port)
		full = true; /* the SM's port is always a full member of the default */
	if (pp->both && c->allow_both) {
		k[0] = p->pkey | PARTITION_FULL;
		k[1] = p->pkey;
		return 2;
	}
	full |= pp->both;
	if (full) {
		k[0] = p->pkey | PARTITION_FULL;
		return 1;
	}
	if (pp->limited) {
		k[0] = p->pkey;
		return 1;
	}
	return 0;
}

/*
 * The partitions that say something of the port (guid on node n), merged
 * by partition, in policy order.  false on ENOMEM.
 */
static bool port_parts_collect(const struct partition_config *c, const struct node *n,
			       uint64_t guid, uint64_t sm_guid, struct port_parts *pp)
{
	size_t lo = 0, hi = c->n_ix;

	for (size_t i = 0; i < c->n_wild; i++) {
		const struct partition_ix *w = &c->wild[i];

		if (member_matches(w->who, 0, n, guid, sm_guid) &&
		    !port_parts_add(pp, w->part, w->membership, w->flags))
			return false;
	}
	if (guid == sm_guid && c->default_part != UINT32_MAX &&
	    !port_parts_add(pp, c->default_part, 0, 0))
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ix[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->n_ix && c->ix[i].guid == guid; i++)
		if (!port_parts_add(pp, c->ix[i].part, c->ix[i].membership, c->ix[i].flags))
			return false;
	/* each run is in part order; the runs are merged by partition */
	if (pp->n > 1) {
		qsort(pp->v, pp->n, sizeof(*pp->v), cmp_port_part);
		size_t k = 0;

		for (size_t i = 1; i < pp->n; i++) {
			if (pp->v[i].part == pp->v[k].part) {
				pp->v[k].full |= pp->v[i].full;
				pp->v[k].limited |= pp->v[i].limited;
				pp->v[k].both |= pp->v[i].both;
				pp->v[k].index0 |= pp->v[i].index0;
			} else {
				pp->v[++k] = pp->v[i];
			}
		}
		pp->n = k + 1;
	}
	return true;
}

size_t partition_port_table(const struct partition_config *c, const struct fabric *f, uint32_t node,
			    uint8_t port, uint64_t sm_guid, uint16_t *keys, size_t cap)
{
	struct port_parts pp = {.cap = 64};
	const struct node *n;
	size_t first = SIZE_MAX, n_keys = 0;
	uint32_t first_part = UINT32_MAX;
	uint64_t guid;

	if (!c || node >= f->n_nodes || !c->indexed)
		return 0;
	n = &f->nodes[node];
	if (port > n->nports)
		return 0;
	guid = n->ports[node_is_switch(n) ? 0 : port].guid;
	pp.v = pp.buf;
	if (!port_parts_collect(c, n, guid, sm_guid, &pp)) {
		if (pp.v != pp.buf)
			free(pp.v);
		return 0;
	}
	/* index 0: a runtime partition asking for it, else the file's indx0, else the default */
	for (size_t i = 0; i < pp.n && first_part == UINT32_MAX; i++)
		if (pp.v[i].index0 && c->parts[pp.v[i].part].runtime)
			first_part = pp.v[i].part;
	for (size_t i = 0; i < c->n && first_part == UINT32_MAX; i++)
		if (c->parts[i].indx0)
			first_part = (uint32_t)i;
	if (first_part == UINT32_MAX)
		first_part = c->default_part;
	for (size_t i = 0; i < pp.n; i++)
		if (pp.v[i].part == first_part)
			first = i;
	for (size_t j = 0; j <= pp.n; j++) {
		size_t i = j == 0 ? first : j - 1;
		uint16_t k[2];
		unsigned nk;

		if (i >= pp.n || (j > 0 && i == first))
			continue;
		nk = port_part_entries(c, &pp.v[i], guid == sm_guid, k);
		for (unsigned e = 0; e < nk; e++, n_keys++)
			if (n_keys < cap)
				keys[n_keys] = k[e];
	}
	if (pp.v != pp.buf)
		free(pp.v);
	return n_keys;
}

uint16_t partition_table_find(const uint16_t *t, size_t n, uint16_t pkey)
{
	uint16_t found = 0;

	for (size_t i = 0; i < n; i++)
		if (t[i] & 0x7fff && (t[i] & 0x7fff) == (pkey & 0x7fff)) {
			if (t[i] & PARTITION_FULL)
				return t[i];
			found = t[i];
		}
	return found;
}

bool partition_common(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, uint16_t want,
		      uint16_t *ret_key)
{
	for (size_t i = 0; i < na; i++) {
		uint16_t ka = a[i], kb;

		if (!(ka & 0x7fff) || (want && (ka & 0x7fff) != (want & 0x7fff)))
			continue;
		/* the best of a's entries for the key, then b's */
		ka = partition_table_find(a, na, ka);
		kb = partition_table_find(b, nb, ka);
		if (kb && ((ka | kb) & PARTITION_FULL)) {
			*ret_key = ka;
			return true;
		}
	}
	return false;
}

/*
 * The P_Key tables written since a snapshot was published (see pkeyview.h):
 * a u64map from port GUID into an array of entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/pkeyview.h"

const struct pkeyview_entry *pkeyview_get(const struct pkeyview *v, uint64_t guid)
{
	uint32_t i = v ? u64map_get(&v->idx, guid) : U64MAP_NONE;

	return i == U64MAP_NONE ? NULL : &v->v[i];
}

struct pkeyview_entry *pkeyview_take(struct pkeyview *v, uint64_t guid, const uint16_t *init,
				     uint8_t init_known)
{
	uint32_t i = u64map_get(&v->idx, guid);

	if (i != U64MAP_NONE)
		return &v->v[i];
	if (v->n == v->cap) {
		uint32_t cap = v->cap ? 2 * v->cap : 64;
		struct pkeyview_entry *e = realloc(v->v, cap * sizeof(*e));

		if (!e)
			return NULL;
		v->v = e;
		v->cap = cap;
	}
	if (u64map_add(&v->idx, guid, v->n) < 0)
		return NULL;
	memset(&v->v[v->n], 0, sizeof(v->v[0]));
	v->v[v->n].guid = guid;
	if (init) {
		memcpy(v->v[v->n].keys, init, sizeof(v->v[0].keys));
		v->v[v->n].known = init_known;
	}
	return &v->v[v->n++];
}

void pkeyview_clear(struct pkeyview *v)
{
	u64map_free(&v->idx);
	v->n = 0;
}

void pkeyview_free(struct pkeyview *v)
{
	if (!v)
		return;
	u64map_free(&v->idx);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

void pkeyview_port(const struct pkeyview *v, const struct fabric *f, uint32_t node, uint8_t port,
		   const uint16_t **t, uint8_t *known)
{
	static const uint16_t none[PKEYVIEW_KEYS];
	const struct node *n = &f->nodes[node];
	const struct port *p = &n->ports[node_is_switch(n) ? 0 : port];
	const struct pkeyview_entry *e = pkeyview_get(v, p->guid);

	if (e) {
		*t = e->keys;
		*known = e->known;
		return;
	}
	*t = p->pkey_known ? p->pkeys : none;
	*known = p->pkey_known;
}

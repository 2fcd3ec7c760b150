/*
 * Where every host sits, for Slurm (see slurm.h): the model, the hostlist
 * compression, and the two writers.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/nodemap.h"
#include "fabric/slurm.h"
#include "lib/u64map.h"

/* ---- names ------------------------------------------------------------------- */

/* The name of node n: the map's, else the first word of its description. */
static void slurm_name(const struct node *n, const struct nodemap *names, char *out, size_t len)
{
	const char *mapped = nodemap_name(names, n->guid), *s = mapped ? mapped : n->desc;
	size_t k = 0;

	while (!mapped && *s == ' ')
		s++;
	for (; *s && k + 1 < len; s++) {
		if (!mapped && (*s == ' ' || *s == '\t'))
			break;
		out[k++] =
		    (isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-') ? *s : '_';
	}
	out[k] = '\0';
	if (!k)
		snprintf(out, len, "0x%016" PRIx64, n->guid);
}

/* ---- hostlists ---------------------------------------------------------------- */

struct slurm_hl {
	const char *name;
	size_t plen;  /* prefix length: up to the trailing digits */
	size_t ndig;  /* trailing digits (0: none) */
	uint64_t num; /* their value */
	bool padded;  /* they start with a 0 and are more than one */
};

static int slurm_hl_cmp(const void *a, const void *b)
{
	const struct slurm_hl *x = a, *y = b;
	size_t m = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->name, y->name, m);

	if (c)
		return c;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (!x->ndig != !y->ndig)
		return x->ndig ? 1 : -1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->ndig != y->ndig)
		return x->ndig < y->ndig ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void slurm_hl_parse(const char *name, struct slurm_hl *h)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && isdigit((unsigned char)name[i - 1]))
		i--;
	h->name = name;
	h->plen = i;
	h->ndig = len - i;
	h->num = 0;
	if (h->ndig > 18) { /* not a number we keep: the whole name is the prefix */
		h->plen = len;
		h->ndig = 0;
	}
	for (size_t k = h->plen; k < len; k++)
		h->num = h->num * 10 + (uint64_t)(name[k] - '0');
	h->padded = h->ndig > 1 && name[h->plen] == '0';
}

/* b may follow a in one range: the next number, written the same way */
static bool slurm_hl_next(const struct slurm_hl *a, const struct slurm_hl *b)
{
	return b->num == a->num + 1 && (b->ndig == a->ndig || (!a->padded && !b->padded));
}

int slurm_hostlist(const char *const *names, size_t n, char **ret)
{
	struct slurm_hl *h = calloc(n ? n : 1, sizeof(*h));
	char *buf = NULL;
	size_t size = 0, i = 0, m = 0;
	FILE *fp;

	if (!h)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		slurm_hl_parse(names[k], &h[k]);
	qsort(h, n, sizeof(*h), slurm_hl_cmp);
	/* duplicates out */
	for (size_t k = 0; k < n; k++)
		if (!m || strcmp(h[m - 1].name, h[k].name))
			h[m++] = h[k];
	fp = open_memstream(&buf, &size);
	if (!fp) {
		free(h);
		return -ENOMEM;
	}
	while (i < m) {
		size_t j = i, ranges = 0;

		if (i)
			fputc(',', fp);
		if (!h[i].ndig) {
			fputs(h[i].name, fp);
			i++;
			continue;
		}
		/* the names with this prefix and a number: j past the last */
		while (j < m && h[j].ndig && h[j].plen == h[i].plen &&
		       !memcmp(h[j].name, h[i].name, h[i].plen))
			j++;
		fprintf(fp, "%.*s", (int)h[i].plen, h[i].name);
		if (j - i == 1) {
			fputs(h[i].name + h[i].plen, fp);
			i = j;
			continue;
		}
		fputc('[', fp);
		while (i < j) {
			size_t e = i;

			while (e + 1 < j && slurm_hl_next(&h[e], &h[e + 1]))
				e++;
			fprintf(fp, "%s%s", ranges++ ? "," : "", h[i].name + h[i].plen);
			if (e > i)
				fprintf(fp, "-%s", h[e].name + h[e].plen);
			i = e + 1;
		}
		fputc(']', fp);
	}
	free(h);
	if (fclose(fp) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* ---- the model ------------------------------------------------------------------ */

void slurm_free(struct slurm_topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n_sw; i++) {
		free(t->sw[i].hosts);
		free(t->sw[i].below);
		free(t->sw[i].above);
	}
	for (uint32_t i = 0; i < t->n_hosts; i++)
		free(t->hosts[i].leaves);
	free(t->sw);
	free(t->hosts);
	free(t);
}

static int slurm_push(uint32_t **v, uint32_t *n, uint32_t x)
{
	uint32_t *p;

	for (uint32_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return 0;
	/* room for 4, then doubled each time it is full (a power of two) */
	if (!*n || (*n >= 4 && !(*n & (*n - 1)))) {
		p = realloc(*v, (*n ? 2 * *n : 4) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*v = p;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int slurm_sw_cmp(const void *a, const void *b)
{
	const struct slurm_switch *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int slurm_host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slurm_host *)a)->name, ((const struct slurm_host *)b)->name);
}

static uint64_t slurm_fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Switches with a level (a leaf below them somewhere), leaves first, by name. */
static int slurm_switches(struct slurm_topo *t, const struct fabric *f, const struct nodemap *names,
			  uint32_t *sw_of)
{
	unsigned *level = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*level));
	uint32_t *queue = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0;
	struct u64map taken = {0};
	int r = -ENOMEM;

	if (!level || !queue)
		goto out;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		level[i] = UINT32_MAX;
		sw_of[i] = UINT32_MAX;
		if (!node_is_switch(n))
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			if (port_is_linked(&n->ports[p]) &&
			    !node_is_switch(&f->nodes[n->ports[p].remote_node])) {
				level[i] = 0;
				queue[tail++] = i;
				break;
			}
	}
	while (head < tail) {
		const struct node *n = &f->nodes[queue[head]];
		unsigned l = level[queue[head++]];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t ri = n->ports[p].remote_node;

			if (!port_is_linked(&n->ports[p]) || !node_is_switch(&f->nodes[ri]) ||
			    level[ri] != UINT32_MAX)
				continue;
			level[ri] = l + 1;
			queue[tail++] = ri;
		}
	}
	t->sw = calloc(tail ? tail : 1, sizeof(*t->sw));
	if (!t->sw)
		goto out;
	for (uint32_t k = 0; k < tail; k++) {
		struct slurm_switch *s = &t->sw[t->n_sw++];

		s->node = queue[k];
		s->level = level[queue[k]];
		t->n_leaves += s->level == 0;
		slurm_name(&f->nodes[queue[k]], names, s->name, sizeof(s->name));
	}
	qsort(t->sw, t->n_sw, sizeof(*t->sw), slurm_sw_cmp);
	/* a name taken twice: the later ones by GUID */
	for (uint32_t k = 0; k < t->n_sw; k++) {
		struct slurm_switch *s = &t->sw[k];
		uint64_t key = slurm_fnv(s->name);
		uint32_t cur, j;
		bool dup = false;

		for (j = u64map_first(&taken, key, &cur); j != U64MAP_NONE;
		     j = u64map_next(&taken, key, &cur))
			dup |= !strcmp(t->sw[j].name, s->name);
		if (dup)
			snprintf(s->name, sizeof(s->name), "sw-%016" PRIx64,
				 f->nodes[s->node].guid);
		if (u64map_add(&taken, slurm_fnv(s->name), k) < 0)
			goto out;
		sw_of[s->node] = k;
	}
	r = 0;
out:
	u64map_free(&taken);
	free(level);
	free(queue);
	return r;
}

/* Hosts: one per name; every leaf it has a port on, listed under the lowest-GUID one. */
static int slurm_hosts(struct slurm_topo *t, const struct fabric *f, const struct nodemap *names,
		       const uint32_t *sw_of)
{
	struct u64map idx = {0};
	int r = -ENOMEM;

	t->hosts = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*t->hosts));
	if (!t->hosts)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		char name[SLURM_NAME_MAX];
		struct slurm_host *h = NULL;
		uint32_t cur, j;
		uint64_t key;

		if (node_is_switch(n))
			continue;
		slurm_name(n, names, name, sizeof(name));
		key = slurm_fnv(name);
		for (j = u64map_first(&idx, key, &cur); j != U64MAP_NONE && !h;
		     j = u64map_next(&idx, key, &cur))
			if (!strcmp(t->hosts[j].name, name))
				h = &t->hosts[j];
		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t ri = n->ports[p].remote_node;

			if (!port_is_linked(&n->ports[p]) || sw_of[ri] == UINT32_MAX ||
			    t->sw[sw_of[ri]].level != 0)
				continue;
			if (!h) {
				h = &t->hosts[t->n_hosts];
				snprintf(h->name, sizeof(h->name), "%s", name);
				if (u64map_add(&idx, key, t->n_hosts++) < 0)
					goto out;
			}
			if (slurm_push(&h->leaves, &h->n_leaves, sw_of[ri]) < 0)
				goto out;
		}
	}
	qsort(t->hosts, t->n_hosts, sizeof(*t->hosts), slurm_host_cmp);
	for (uint32_t i = 0; i < t->n_hosts; i++) {
		struct slurm_host *h = &t->hosts[i];
		uint32_t best = 0;

		for (uint32_t k = 1; k < h->n_leaves; k++)
			if (f->nodes[t->sw[h->leaves[k]].node].guid <
			    f->nodes[t->sw[h->leaves[best]].node].guid)
				best = k;
		h->leaf = h->leaves[best];
		h->leaves[best] = h->leaves[0];
		h->leaves[0] = h->leaf;
		if (slurm_push(&t->sw[h->leaf].hosts, &t->sw[h->leaf].n_hosts, i) < 0)
			goto out;
	}
	r = 0;
out:
	u64map_free(&idx);
	return r;
}

int slurm_build(const struct fabric *f, const struct nodemap *names, struct slurm_topo **ret)
{
	struct slurm_topo *t = calloc(1, sizeof(*t));
	uint32_t *sw_of = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*sw_of));

	if (!t || !sw_of || slurm_switches(t, f, names, sw_of) < 0 ||
	    slurm_hosts(t, f, names, sw_of) < 0)
		goto fail;
	/* each switch's neighbours one level up and down */
	for (uint32_t k = 0; k < t->n_sw; k++) {
		struct slurm_switch *s = &t->sw[k];
		const struct node *n = &f->nodes[s->node];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint32_t o = port_is_linked(&n->ports[p]) ? sw_of[n->ports[p].remote_node]
								  : UINT32_MAX;

			if (o == UINT32_MAX)
				continue;
			if (t->sw[o].level + 1 == s->level &&
			    slurm_push(&s->below, &s->n_below, o) < 0)
				goto fail;
			if (t->sw[o].level == s->level + 1 &&
			    slurm_push(&s->above, &s->n_above, o) < 0)
				goto fail;
		}
	}
	free(sw_of);
	*ret = t;
	return 0;
fail:
	free(sw_of);
	slurm_free(t);
	return -ENOMEM;
}

/* ---- writers ------------------------------------------------------------------------ */

/* The compressed list of a switch's hosts (leaf) or switches below (upper). */
static char *slurm_children(const struct slurm_topo *t, const struct slurm_switch *s)
{
	uint32_t n = s->level ? s->n_below : s->n_hosts;
	const char **v = calloc(n ? n : 1, sizeof(*v));
	char *out = NULL;

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		v[i] = s->level ? t->sw[s->below[i]].name : t->hosts[s->hosts[i]].name;
	if (slurm_hostlist(v, n, &out) < 0)
		out = NULL;
	free(v);
	return out;
}

int slurm_write_conf(const struct slurm_topo *t, FILE *out)
{
	fprintf(out,
		"# topology.conf (Slurm topology/tree) written by ibsmd: %u leaves, %u "
		"switches, %u hosts\n",
		t->n_leaves, t->n_sw, t->n_hosts);
	for (uint32_t k = 0; k < t->n_sw; k++) {
		const struct slurm_switch *s = &t->sw[k];
		char *list;

		if (s->level ? !s->n_below : !s->n_hosts)
			continue;
		if (!(list = slurm_children(t, s)))
			return -ENOMEM;
		fprintf(out, "SwitchName=%s %s=%s\n", s->name, s->level ? "Switches" : "Nodes",
			list);
		free(list);
	}
	return ferror(out) ? -EIO : 0;
}

int slurm_write_yaml(const struct slurm_topo *t, FILE *out)
{
	fprintf(out,
		"# topology.yaml (Slurm 25.05) written by ibsmd: %u leaves, %u switches, "
		"%u hosts\n---\n- topology: ibsmd-tree\n  cluster_default: true\n  tree:\n"
		"    switches:\n",
		t->n_leaves, t->n_sw, t->n_hosts);
	for (uint32_t k = 0; k < t->n_sw; k++) {
		const struct slurm_switch *s = &t->sw[k];
		char *list;

		if (s->level ? !s->n_below : !s->n_hosts)
			continue;
		if (!(list = slurm_children(t, s)))
			return -ENOMEM;
		fprintf(out, "      - switch: \"%s\"\n        %s: \"%s\"\n", s->name,
			s->level ? "children" : "nodes", list);
		free(list);
	}
	fputs("- topology: ibsmd-block\n  cluster_default: false\n  block:\n    blocks:\n", out);
	for (uint32_t k = 0; k < t->n_sw; k++) {
		const struct slurm_switch *s = &t->sw[k];
		char *list;

		if (s->level || !s->n_hosts)
			continue;
		if (!(list = slurm_children(t, s)))
			return -ENOMEM;
		fprintf(out, "      - block: \"%s\"\n        nodes: \"%s\"\n", s->name, list);
		free(list);
	}
	return ferror(out) ? -EIO : 0;
}

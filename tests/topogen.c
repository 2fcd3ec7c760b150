/*
 * Topology generator: builds a small graph in memory (nodes with a port
 * counter, a list of links), then prints it in ibsim's net format, hosts
 * first, every link listed on both sides.  See topogen.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/topogen.h"

#define TOPOGEN_MAX_PORTS 254
#define TOPOGEN_RANDOM_MAX_PORTS 36

struct topogen_node {
	char name[32];
	bool is_switch;
	int nports; /* at least this many ports */
	int used;   /* highest port number in use */
	uint64_t guid;
};

struct topogen_link {
	int a, pa, b, pb;
};

struct topogen_graph {
	struct topogen_node *nodes;
	int n, cap;
	struct topogen_link *links;
	int nl, capl;
	int n_sw, n_ca;
	bool failed;
};

static void topogen_graph_free(struct topogen_graph *g)
{
	free(g->nodes);
	free(g->links);
}

static int topogen_add(struct topogen_graph *g, bool is_switch, int nports, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int topogen_add(struct topogen_graph *g, bool is_switch, int nports, const char *fmt, ...)
{
	struct topogen_node *nd;
	va_list ap;

	if (g->failed)
		return -1;
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 64;
		struct topogen_node *p = realloc(g->nodes, (size_t)cap * sizeof(*p));

		if (!p) {
			g->failed = true;
			return -1;
		}
		g->nodes = p;
		g->cap = cap;
	}
	nd = &g->nodes[g->n];
	memset(nd, 0, sizeof(*nd));
	va_start(ap, fmt);
	vsnprintf(nd->name, sizeof(nd->name), fmt, ap);
	va_end(ap);
	nd->is_switch = is_switch;
	nd->nports = nports;
	/* low byte 0: CA port GUIDs are guid + port */
	if (is_switch)
		nd->guid = 0x0002c90100000000ULL + ((uint64_t)++g->n_sw << 8);
	else
		nd->guid = 0x0002c90200000000ULL + ((uint64_t)++g->n_ca << 8);
	return g->n++;
}

/* Link a[pa] with b[pb]; port 0 means the next free port. */
static void topogen_link(struct topogen_graph *g, int a, int pa, int b, int pb)
{
	struct topogen_link *l;

	if (g->failed || a < 0 || b < 0)
		return;
	if (!pa)
		pa = g->nodes[a].used + 1;
	if (pa > g->nodes[a].used)
		g->nodes[a].used = pa;
	if (!pb)
		pb = g->nodes[b].used + 1;
	if (pb > g->nodes[b].used)
		g->nodes[b].used = pb;
	if (pa > TOPOGEN_MAX_PORTS || pb > TOPOGEN_MAX_PORTS) {
		g->failed = true;
		return;
	}
	if (g->nl == g->capl) {
		int cap = g->capl ? g->capl * 2 : 256;
		struct topogen_link *p = realloc(g->links, (size_t)cap * sizeof(*p));

		if (!p) {
			g->failed = true;
			return;
		}
		g->links = p;
		g->capl = cap;
	}
	l = &g->links[g->nl++];
	l->a = a;
	l->pa = pa;
	l->b = b;
	l->pb = pb;
}

static int topogen_nports(const struct topogen_node *nd)
{
	int n = nd->nports > nd->used ? nd->nports : nd->used;

	return n ? n : 1;
}

static void topogen_print_node(FILE *out, const struct topogen_graph *g, int i, const int *start,
			       const int *ends)
{
	const struct topogen_node *nd = &g->nodes[i];
	int e;

	fprintf(out, "%s=0x%016llx\n", nd->is_switch ? "switchguid" : "caguid",
		(unsigned long long)nd->guid);
	fprintf(out, "%s\t%d \"%s\"\n", nd->is_switch ? "Switch" : "Hca", topogen_nports(nd),
		nd->name);
	for (e = start[i]; e < start[i + 1]; e++) {
		const struct topogen_link *l = &g->links[ends[e] / 2];
		bool first = (ends[e] & 1) == 0;
		int lp = first ? l->pa : l->pb;
		int r = first ? l->b : l->a;
		int rp = first ? l->pb : l->pa;

		fprintf(out, "[%d]\t\"%s\"[%d]\n", lp, g->nodes[r].name, rp);
	}
	fputc('\n', out);
}

static int topogen_cmp_end(const void *x, const void *y, void *arg)
{
	const struct topogen_link *links = arg;
	int ex = *(const int *)x, ey = *(const int *)y;
	int px = (ex & 1) ? links[ex / 2].pb : links[ex / 2].pa;
	int py = (ey & 1) ? links[ey / 2].pb : links[ey / 2].pa;

	return px - py;
}

/* Print hosts first, then switches; every link on both of its nodes. */
static char *topogen_print(struct topogen_graph *g, const char *what)
{
	int *start = NULL, *ends = NULL, *fill = NULL;
	char *text = NULL;
	size_t size = 0;
	FILE *out = NULL;
	int i, pass;

	if (g->failed) {
		errno = ENOMEM;
		goto out_free;
	}
	if (!g->n_ca) {
		errno = EINVAL;
		goto out_free;
	}
	start = calloc((size_t)g->n + 1, sizeof(*start));
	fill = calloc((size_t)g->n + 1, sizeof(*fill));
	ends = malloc(((size_t)g->nl * 2 + 1) * sizeof(*ends));
	if (!start || !fill || !ends) {
		errno = ENOMEM;
		goto out_free;
	}
	for (i = 0; i < g->nl; i++) {
		start[g->links[i].a + 1]++;
		start[g->links[i].b + 1]++;
	}
	for (i = 0; i < g->n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < g->nl; i++) {
		ends[start[g->links[i].a] + fill[g->links[i].a]++] = 2 * i;
		ends[start[g->links[i].b] + fill[g->links[i].b]++] = 2 * i + 1;
	}
	for (i = 0; i < g->n; i++)
		qsort_r(ends + start[i], (size_t)(start[i + 1] - start[i]), sizeof(*ends),
			topogen_cmp_end, g->links);

	out = open_memstream(&text, &size);
	if (!out) {
		errno = ENOMEM;
		goto out_free;
	}
	fprintf(out, "# %s: %d switches, %d hosts (ibsmd-topogen)\n\n", what, g->n_sw, g->n_ca);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < g->n; i++)
			if (g->nodes[i].is_switch == (pass == 1))
				topogen_print_node(out, g, i, start, ends);
	if (fclose(out)) {
		free(text);
		text = NULL;
		errno = ENOMEM;
	}
out_free:
	free(start);
	free(fill);
	free(ends);
	topogen_graph_free(g);
	return text;
}

/*
 * Attach hosts to leaves (each with down ports 1..down).  Single-ported hosts
 * fill the leaves in order; TOPOGEN_DUAL pairs leaves (2m, 2m+1) and gives a
 * host the same slot on both; TOPOGEN_DUAL_SAME gives a host two slots of one
 * leaf.  Returns false when hosts exceeds the capacity.
 */
static bool topogen_hosts(struct topogen_graph *g, const int *leaf, int n_leaves, int down,
			  int hosts, unsigned int flags)
{
	int cap, h;

	if (flags & TOPOGEN_DUAL)
		cap = (n_leaves / 2) * down;
	else if (flags & TOPOGEN_DUAL_SAME)
		cap = n_leaves * (down / 2);
	else
		cap = n_leaves * down;
	if (hosts <= 0)
		hosts = cap;
	if (hosts > cap || cap <= 0)
		return false;
	for (h = 0; h < hosts; h++) {
		int ca;

		if (flags & TOPOGEN_DUAL) {
			int m = h / down, s = h % down;

			ca = topogen_add(g, false, 2, "ca-%d", h);
			topogen_link(g, ca, 1, leaf[2 * m], s + 1);
			topogen_link(g, ca, 2, leaf[2 * m + 1], s + 1);
		} else if (flags & TOPOGEN_DUAL_SAME) {
			int per = down / 2, l = h / per, s = h % per;

			ca = topogen_add(g, false, 2, "ca-%d", h);
			topogen_link(g, ca, 1, leaf[l], 2 * s + 1);
			topogen_link(g, ca, 2, leaf[l], 2 * s + 2);
		} else {
			ca = topogen_add(g, false, 1, "ca-%d", h);
			topogen_link(g, ca, 1, leaf[h / down], h % down + 1);
		}
	}
	return true;
}

char *topogen_fat_tree(int levels, int k, int hosts, unsigned int flags)
{
	struct topogen_graph g = {0};
	int half = k / 2, mult = (flags & TOPOGEN_PARALLEL) ? 2 : 1;
	int n_leaves, *leaf = NULL, i, j, m, p;
	char what[64];
	bool ok;

	if ((levels != 2 && levels != 3) || k < 2 || k % 2 || k > 128 ||
	    ((flags & TOPOGEN_DUAL) && (flags & TOPOGEN_DUAL_SAME))) {
		errno = EINVAL;
		return NULL;
	}
	n_leaves = levels == 2 ? k : k * half;
	leaf = malloc((size_t)n_leaves * sizeof(*leaf));
	if (!leaf) {
		errno = ENOMEM;
		return NULL;
	}
	if (levels == 2) {
		int spine0;

		for (i = 0; i < k; i++)
			leaf[i] = topogen_add(&g, true, k, "sw-L1-%d", i);
		spine0 = g.n;
		for (j = 0; j < half; j++)
			topogen_add(&g, true, k, "sw-L2-%d", j);
		for (i = 0; i < k; i++)
			for (j = 0; j < half; j++)
				for (m = 0; m < mult; m++)
					topogen_link(&g, leaf[i], half + (j * mult + m) + 1,
						     spine0 + j, i * mult + m + 1);
	} else {
		int agg0, core0;

		for (p = 0; p < k; p++)
			for (i = 0; i < half; i++)
				leaf[p * half + i] =
				    topogen_add(&g, true, k, "sw-L1-%d", p * half + i);
		agg0 = g.n;
		for (p = 0; p < k; p++)
			for (i = 0; i < half; i++)
				topogen_add(&g, true, k, "sw-L2-%d", p * half + i);
		core0 = g.n;
		for (i = 0; i < half * half; i++)
			topogen_add(&g, true, k, "sw-L3-%d", i);
		for (p = 0; p < k; p++) {
			for (i = 0; i < half; i++) {	     /* edge i of pod p */
				for (j = 0; j < half; j++) { /* agg j of pod p */
					for (m = 0; m < mult; m++)
						topogen_link(&g, leaf[p * half + i],
							     half + j * mult + m + 1,
							     agg0 + p * half + j, i * mult + m + 1);
				}
			}
			for (j = 0; j < half; j++) {	     /* agg j of pod p */
				for (i = 0; i < half; i++) { /* core j * half + i */
					for (m = 0; m < mult; m++)
						topogen_link(&g, agg0 + p * half + j,
							     half * mult + i * mult + m + 1,
							     core0 + j * half + i,
							     p * mult + m + 1);
				}
			}
		}
	}
	ok = topogen_hosts(&g, leaf, n_leaves, half, hosts, flags);
	free(leaf);
	if (!ok) {
		topogen_graph_free(&g);
		errno = EINVAL;
		return NULL;
	}
	snprintf(what, sizeof(what), "%d-level fat tree k=%d%s%s", levels, k,
		 (flags & TOPOGEN_PARALLEL) ? " parallel" : "",
		 (flags & (TOPOGEN_DUAL | TOPOGEN_DUAL_SAME)) ? " dual-ported" : "");
	return topogen_print(&g, what);
}

char *topogen_grid(int x, int y, int z, int hosts_per_switch, unsigned int flags)
{
	struct topogen_graph g = {0};
	bool torus = flags & TOPOGEN_TORUS;
	int mult = (flags & TOPOGEN_PARALLEL) ? 2 : 1, dims = z > 1 ? 3 : 2;
	int i, j, k, h, m, sw0, n_ca = 0;
	char what[64];

	if (x < 1 || y < 1 || z < 1 || (long)x * y * z > 65536 || hosts_per_switch < 1 ||
	    hosts_per_switch + 2 * dims * mult > TOPOGEN_MAX_PORTS) {
		errno = EINVAL;
		return NULL;
	}
	sw0 = g.n;
	for (k = 0; k < z; k++)
		for (j = 0; j < y; j++)
			for (i = 0; i < x; i++) {
				if (dims == 2)
					topogen_add(&g, true, hosts_per_switch + 4 * mult,
						    "sw-%d-%d", i, j);
				else
					topogen_add(&g, true, hosts_per_switch + 6 * mult,
						    "sw-%d-%d-%d", i, j, k);
			}
	/* hosts on ports 1..hosts_per_switch, grid links after */
	for (k = 0; k < z; k++)
		for (j = 0; j < y; j++)
			for (i = 0; i < x; i++)
				for (h = 0; h < hosts_per_switch; h++)
					topogen_link(&g, topogen_add(&g, false, 1, "ca-%d", n_ca++),
						     1, sw0 + (k * y + j) * x + i, h + 1);
	for (k = 0; k < z; k++) {
		for (j = 0; j < y; j++) {
			for (i = 0; i < x; i++) {
				int s = sw0 + (k * y + j) * x + i;

				for (m = 0; m < mult; m++) {
					if (i + 1 < x)
						topogen_link(&g, s, 0, s + 1, 0);
					else if (torus && x >= 3)
						topogen_link(&g, s, 0, s - i, 0);
					if (j + 1 < y)
						topogen_link(&g, s, 0, s + x, 0);
					else if (torus && y >= 3)
						topogen_link(&g, s, 0, s - j * x, 0);
					if (k + 1 < z)
						topogen_link(&g, s, 0, s + x * y, 0);
					else if (torus && z >= 3)
						topogen_link(&g, s, 0, s - k * x * y, 0);
				}
			}
		}
	}
	if (dims == 2)
		snprintf(what, sizeof(what), "%dx%d %s%s", x, y, torus ? "torus" : "mesh",
			 mult > 1 ? " parallel" : "");
	else
		snprintf(what, sizeof(what), "%dx%dx%d %s%s", x, y, z, torus ? "torus" : "mesh",
			 mult > 1 ? " parallel" : "");
	return topogen_print(&g, what);
}

char *topogen_mesh(int x, int y, int hosts_per_switch, unsigned int flags)
{
	return topogen_grid(x, y, 1, hosts_per_switch, flags);
}

static uint64_t topogen_rand(uint64_t *s)
{
	/* splitmix64: portable, same sequence everywhere */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

char *topogen_random(int switches, int extra_links, int hosts_per_switch, unsigned int seed)
{
	return topogen_random_ex(switches, extra_links, hosts_per_switch, 0, 0, seed);
}

char *topogen_random_ex(int switches, int extra_links, int hosts_per_switch, int empty,
			unsigned int flags, unsigned int seed)
{
	struct topogen_graph g = {0};
	uint64_t rs = seed;
	int i, h, n_ca = 0, tries, a, b, mult = (flags & TOPOGEN_PARALLEL) ? 2 : 1, m;
	char what[80];

	if (switches < 1 || switches > 65536 || extra_links < 0 || hosts_per_switch < 1 ||
	    hosts_per_switch + 2 > TOPOGEN_RANDOM_MAX_PORTS || empty < 0 || empty >= switches) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < switches; i++)
		topogen_add(&g, true, 0, "sw-%d", i);
	for (i = 0; i < switches - empty; i++)
		for (h = 0; h < hosts_per_switch; h++)
			topogen_link(&g, topogen_add(&g, false, 1, "ca-%d", n_ca++), 1, i, h + 1);
	if (g.failed)
		return topogen_print(&g, "random");
	/* spanning tree: each switch to a random earlier one with a free port */
	for (i = 1; i < switches; i++) {
		for (tries = 0; tries < 64; tries++) {
			a = (int)(topogen_rand(&rs) % (uint64_t)i);
			if (g.nodes[a].used + mult <= TOPOGEN_RANDOM_MAX_PORTS)
				break;
		}
		for (a = tries < 64 ? a : 0; g.nodes[a].used + mult > TOPOGEN_RANDOM_MAX_PORTS; a++)
			;
		if (a >= i) {
			topogen_graph_free(&g);
			errno = EINVAL;
			return NULL;
		}
		for (m = 0; m < mult; m++)
			topogen_link(&g, a, 0, i, 0);
	}
	for (i = 0, tries = 0; i < extra_links && tries < extra_links * 16 + 64; tries++) {
		a = (int)(topogen_rand(&rs) % (uint64_t)switches);
		b = (int)(topogen_rand(&rs) % (uint64_t)switches);
		if (a == b || g.nodes[a].used >= TOPOGEN_RANDOM_MAX_PORTS ||
		    g.nodes[b].used >= TOPOGEN_RANDOM_MAX_PORTS)
			continue;
		topogen_link(&g, a, 0, b, 0);
		i++;
	}
	snprintf(what, sizeof(what), "random, seed %u%s%s", seed,
		 empty ? ", hostless switches" : "", mult > 1 ? ", parallel tree links" : "");
	return topogen_print(&g, what);
}

char *topogen_shuffle(const char *text, unsigned int seed)
{
	const char **rec = NULL;
	size_t *len = NULL, n = 0, cap = 0, total = 0, i, j;
	const char *s = text;
	uint64_t rs = seed;
	char *out, *o;

	while (*s) {
		const char *e;
		size_t l;

		while (*s == '\n')
			s++;
		if (!*s)
			break;
		e = strstr(s, "\n\n");
		l = e ? (size_t)(e - s) + 1 : strlen(s);
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			const char **r2 = realloc(rec, c * sizeof(*r2));
			size_t *l2;

			if (!r2)
				goto out_nomem;
			rec = r2;
			l2 = realloc(len, c * sizeof(*l2));
			if (!l2)
				goto out_nomem;
			len = l2;
			cap = c;
		}
		rec[n] = s;
		len[n++] = l;
		total += l + 2;
		s += l;
	}
	for (i = n; i > 1; i--) {
		const char *tr;
		size_t tl;

		j = (size_t)(topogen_rand(&rs) % i);
		tr = rec[i - 1];
		rec[i - 1] = rec[j];
		rec[j] = tr;
		tl = len[i - 1];
		len[i - 1] = len[j];
		len[j] = tl;
	}
	out = malloc(total + 1);
	if (!out)
		goto out_nomem;
	for (o = out, i = 0; i < n; i++) {
		memcpy(o, rec[i], len[i]);
		o += len[i];
		if (len[i] && rec[i][len[i] - 1] != '\n')
			*o++ = '\n';
		*o++ = '\n';
	}
	*o = '\0';
	free(rec);
	free(len);
	return out;

out_nomem:
	free(rec);
	free(len);
	errno = ENOMEM;
	return NULL;
}

/* The WxSPEED spec gives name ("*": any); NULL when none. */
static const char *topogen_spec_for(const char *spec, const char *name, size_t name_len,
				    size_t *ret_len)
{
	const char *s = spec;

	while (*s) {
		const char *eq = strchr(s, '='), *end = strchr(s, ',');

		if (!end)
			end = s + strlen(s);
		if (eq && eq < end && (size_t)(eq - s) == name_len && !strncmp(s, name, name_len)) {
			*ret_len = (size_t)(end - eq - 1);
			return eq + 1;
		}
		s = *end ? end + 1 : end;
	}
	return NULL;
}

static bool topogen_spec_valid(const char *spec)
{
	const char *s = spec;

	while (*s) {
		const char *eq = strchr(s, '='), *end = strchr(s, ',');
		char *x;

		if (!end)
			end = s + strlen(s);
		if (!eq || eq > end || eq == s || strtoul(eq + 1, &x, 10) == 0 || *x != 'x' ||
		    x + 1 >= end)
			return false;
		s = *end ? end + 1 : end;
	}
	return spec[0] != '\0';
}

char *topogen_speeds(const char *text, const char *spec)
{
	const char *s = text, *node = NULL;
	size_t node_len = 0, size = 0;
	char *out = NULL;
	FILE *f;

	if (!text || !spec || !topogen_spec_valid(spec)) {
		errno = EINVAL;
		return NULL;
	}
	f = open_memstream(&out, &size);
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	while (*s) {
		const char *eol = strchr(s, '\n'), *q, *q2;
		size_t len = eol ? (size_t)(eol - s) : strlen(s), sl = 0;
		const char *sp = NULL;

		fwrite(s, 1, len, f);
		if ((!strncmp(s, "Switch", 6) || !strncmp(s, "Hca", 3)) &&
		    (q = memchr(s, '"', len)) &&
		    (q2 = memchr(q + 1, '"', len - (size_t)(q + 1 - s)))) {
			node = q + 1;
			node_len = (size_t)(q2 - node);
		} else if (s[0] == '[' && node && !memchr(s, '#', len) &&
			   (q = memchr(s, '"', len)) &&
			   (q2 = memchr(q + 1, '"', len - (size_t)(q + 1 - s)))) {
			sp = topogen_spec_for(spec, node, node_len, &sl);
			if (!sp)
				sp = topogen_spec_for(spec, q + 1, (size_t)(q2 - q - 1), &sl);
			if (!sp)
				sp = topogen_spec_for(spec, "*", 1, &sl);
			if (sp)
				fprintf(f, "\t\t# \"%.*s\" lid 0 %.*s", (int)(q2 - q - 1), q + 1,
					(int)sl, sp);
		}
		if (!eol)
			break;
		fputc('\n', f);
		s = eol + 1;
	}
	if (fclose(f) != 0) {
		free(out);
		errno = ENOMEM;
		return NULL;
	}
	return out;
}

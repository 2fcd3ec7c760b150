/*
 * lftcheck: check forwarding tables read back from a fabric, with tools we
 * did not write, and measure their all-to-all balance the same way for any
 * subnet manager.
 *
 *   lftcheck --topo TOPO --fts FTS [--path-sl FILE] [--sl2vl FILE | --smp-sl2vl FILE]
 *
 * TOPO is ibnetdiscover's output (LIDs from its comments), FTS dump_fts's
 * (or ibsmd's lfts.out).  --path-sl takes "GUID DLID SL" lines (ibsmd's
 * path-sl dump, what ibdmchk -c reads: the SL of the paths from the node's
 * switch to DLID), --sl2vl "GUID IN OUT 0xAB..." lines
 * (ibsmd's sl2vl dump, ibdmchk -d), --smp-sl2vl the output of `smpquery
 * sl2vl LID PORT` for switch output ports, concatenated (rows with in ==
 * out are never used and are ignored; the others must agree).  Prints one
 * JSON object: the invariant checker's result (every LID reached from every
 * switch, no loops), the channel dependency graph per VL (credit loops),
 * all-to-all link load (routing_link_load: busiest link, mean, a lower bound)
 * and, for ports with LMC > 0, how disjoint their LIDs' paths are.  Exit 0
 * when the tables are sound and credit-loop free, 1 when not, 2 on bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/topo.h"
#include "routing/routing.h"
#include "tests/checker.h"

struct lftcheck {
	struct fabric *f;
	struct routes *r;
	struct lid_map map;
	uint64_t fts_entries, top_entries, path_sl_conflicts, sl2vl_conflicts, sl2vl_rows;
	uint16_t skipped_lid;
	uint8_t max_vl;	     /* the larger of the two below: the CDG's VL range */
	uint8_t max_sl;	     /* highest path SL read */
	uint8_t max_row_vl;  /* highest VL an SL2VL row maps to */
	uint32_t *seen_base; /* per node: first (node, port) slot of seen */
	uint8_t *seen;	     /* an SL2VL row was read for (node, output port) */
};

static int lftcheck_fts(struct lftcheck *c, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	uint32_t cur = FABRIC_NO_NODE;

	if (!fp) {
		fprintf(stderr, "lftcheck: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		const char *g = strstr(line, " guid 0x");
		unsigned long lid, port;
		char *end;

		if (!strncmp(line, "Unicast lids", 12) && g) {
			cur = fabric_find_guid(c->f, strtoull(g + 6, NULL, 16));
			if (cur != FABRIC_NO_NODE && !node_is_switch(&c->f->nodes[cur]))
				cur = FABRIC_NO_NODE;
			continue;
		}
		if (strncmp(line, "0x", 2) || cur == FABRIC_NO_NODE)
			continue;
		lid = strtoul(line, &end, 16);
		port = strtoul(end, &end, 10);
		if (lid == 0 || lid > c->r->max_lid || port > 255)
			continue;
		c->r->lft[cur][lid] = (uint8_t)port;
		c->fts_entries++;
		if (lid == c->map.max_lid)
			c->top_entries++;
	}
	fclose(fp);
	return 0;
}

/*
 * dump_fts (ibroute) does not print the top LID when it begins a 64-LID
 * block: leave that LID out of the checks rather than call it unrouted.
 */
static int lftcheck_top_lid(struct lftcheck *c)
{
	uint16_t l = c->map.max_lid;
	struct node *n;
	struct port *p;

	if (l % 64 || c->top_entries || c->map.node[l] == FABRIC_NO_NODE)
		return 0;
	n = &c->f->nodes[c->map.node[l]];
	p = &n->ports[node_is_switch(n) ? 0 : c->map.port[l]];
	if (p->lmc)
		return 0;
	p->lid = 0;
	c->skipped_lid = l;
	fabric_lid_map_clear(&c->map);
	return fabric_lid_map(c->f, &c->map) ? -1 : 0;
}

/* The switch a node's traffic enters the fabric at: itself, or where its first port is cabled. */
static uint32_t lftcheck_switch_of(const struct fabric *f, uint32_t ni)
{
	const struct node *n = &f->nodes[ni];
	unsigned int p;

	if (node_is_switch(n))
		return ni;
	for (p = 1; p <= n->nports; p++)
		if (port_is_linked(&n->ports[p]) &&
		    node_is_switch(&f->nodes[n->ports[p].remote_node]))
			return n->ports[p].remote_node;
	return FABRIC_NO_NODE;
}

static int lftcheck_vls(struct lftcheck *c)
{
	int err;

	if (c->r->sl2vl)
		return 0;
	uint32_t i, n = 0;

	err = routes_alloc_vls(c->r, c->f, 2);
	if (err)
		return err;
	c->seen_base = malloc(((size_t)c->f->n_nodes + 1) * sizeof(*c->seen_base));
	if (!c->seen_base)
		return -ENOMEM;
	for (i = 0; i < c->f->n_nodes; i++) {
		c->seen_base[i] = n;
		n += c->f->nodes[i].nports + 1u;
	}
	c->seen = calloc((size_t)n + 1, 1);
	return c->seen ? 0 : -ENOMEM;
}

static int lftcheck_path_sl(struct lftcheck *c, const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t row = (size_t)c->r->max_lid + 1;
	char line[256];
	uint8_t *set;

	if (!fp || lftcheck_vls(c) || routes_alloc_lid_sl(c->r)) {
		fprintf(stderr, "lftcheck: %s: %s\n", path, fp ? "out of memory" : strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	set = calloc((size_t)c->r->n_sw * row + 1, 1);
	while (set && fgets(line, sizeof(line), fp)) {
		unsigned long long guid;
		unsigned int lid, sl;
		uint32_t src, a;
		size_t k;

		if (sscanf(line, "%llx %u %u", &guid, &lid, &sl) != 3 || sl >= ROUTES_MAX_SL ||
		    lid > c->map.max_lid || !lid || c->map.node[lid] == FABRIC_NO_NODE)
			continue;
		src = fabric_find_guid(c->f, guid);
		if (src == FABRIC_NO_NODE)
			continue;
		a = lftcheck_switch_of(c->f, src);
		if (a == FABRIC_NO_NODE)
			continue;
		k = (size_t)c->r->sw_index[a] * row + lid;
		if (set[k] && c->r->lid_sl[k] != sl)
			c->path_sl_conflicts++;
		set[k] = 1;
		c->r->lid_sl[k] = (uint8_t)sl;
		if (sl > c->max_vl)
			c->max_vl = (uint8_t)sl;
		if (sl > c->max_sl)
			c->max_sl = (uint8_t)sl;
	}
	free(set);
	fclose(fp);
	return 0;
}

/* One SL2VL row of node ni: output port out, from input port in. */
static void lftcheck_row(struct lftcheck *c, uint32_t ni, unsigned int in, unsigned int out,
			 const unsigned int *vl)
{
	const struct node *n = &c->f->nodes[ni];
	uint8_t *t = c->r->sl2vl[ni];
	unsigned int s, base = 0;
	uint8_t *seen = &c->seen[c->seen_base[ni] + (node_is_switch(n) ? out : 0)];
	bool differs = false;

	if (node_is_switch(n)) {
		if (in == out || out > n->nports)
			return;
		base = out * ROUTES_MAX_SL;
	}
	for (s = 0; s < ROUTES_MAX_SL; s++) {
		if (vl[s] > c->max_vl)
			c->max_vl = (uint8_t)vl[s];
		if (vl[s] > c->max_row_vl)
			c->max_row_vl = (uint8_t)vl[s];
		if (t[base + s] != vl[s])
			differs = true;
	}
	if (differs && *seen)
		c->sl2vl_conflicts++;
	*seen = 1;
	for (s = 0; s < ROUTES_MAX_SL; s++)
		t[base + s] = (uint8_t)vl[s];
	c->sl2vl_rows++;
}

static int lftcheck_sl2vl(struct lftcheck *c, const char *path, bool smp)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	uint32_t cur = FABRIC_NO_NODE;

	if (!fp || lftcheck_vls(c)) {
		fprintf(stderr, "lftcheck: %s: %s\n", path, fp ? "out of memory" : strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		unsigned int vl[ROUTES_MAX_SL], in, out, s, b[8], lid;
		unsigned long long guid;
		char *p;

		if (smp) {
			if (sscanf(line, "# SL2VL table: Lid %u", &lid) == 1) {
				cur = lid && lid <= c->map.max_lid ? c->map.node[lid]
								   : FABRIC_NO_NODE;
				continue;
			}
			if (cur == FABRIC_NO_NODE ||
			    sscanf(line, "ports: in %u, out %u:", &in, &out) != 2 ||
			    !(p = strchr(line, '|')))
				continue;
			for (s = 0; s < ROUTES_MAX_SL; s++) {
				if (sscanf(p, "|%u", &vl[s]) != 1 || vl[s] > 15)
					break;
				p = strchr(p + 1, '|');
				if (!p)
					break;
			}
			if (s == ROUTES_MAX_SL || (s == ROUTES_MAX_SL - 1 && !p))
				lftcheck_row(c, cur, in, out, vl);
			continue;
		}
		if (sscanf(line, "%llx %u %u %x %x %x %x %x %x %x %x", &guid, &in, &out, &b[0],
			   &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7]) != 11)
			continue;
		cur = fabric_find_guid(c->f, guid);
		if (cur == FABRIC_NO_NODE)
			continue;
		for (s = 0; s < ROUTES_MAX_SL; s++)
			vl[s] = s % 2 ? b[s / 2] & 0xf : b[s / 2] >> 4 & 0xf;
		if (node_is_switch(&c->f->nodes[cur]) || out == 1 || in == 0)
			lftcheck_row(c, cur, in, out, vl);
	}
	fclose(fp);
	return 0;
}

static void lftcheck_usage(FILE *out)
{
	fprintf(out, "usage: lftcheck --topo TOPO --fts FTS [--path-sl FILE] "
		     "[--sl2vl FILE | --smp-sl2vl FILE]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"topo", required_argument, NULL, 't'},
	    {"fts", required_argument, NULL, 'f'},
	    {"path-sl", required_argument, NULL, 'p'},
	    {"sl2vl", required_argument, NULL, 's'},
	    {"smp-sl2vl", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *topo = NULL, *fts = NULL, *path_sl = NULL, *sl2vl = NULL;
	bool smp = false;
	struct lftcheck c = {0};
	struct checker_stats cst = {0};
	struct checker_cdg_stats cds = {0};
	struct checker_lmc_stats lms = {0};
	struct routing_link_load ll = {0};
	char err[256], msg[256] = "", cmsg[256] = "";
	json_t *o;
	int opt, violations, cycle, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			topo = optarg;
			break;
		case 'f':
			fts = optarg;
			break;
		case 'p':
			path_sl = optarg;
			break;
		case 'S':
			smp = true;
			/* fall through */
		case 's':
			sl2vl = optarg;
			break;
		case 'h':
			lftcheck_usage(stdout);
			return 0;
		default:
			lftcheck_usage(stderr);
			return 2;
		}
	}
	if (!topo || !fts || optind != argc) {
		lftcheck_usage(stderr);
		return 2;
	}
	if (topo_load(topo, &c.f, err, sizeof(err))) {
		fprintf(stderr, "lftcheck: %s\n", err);
		return 2;
	}
	if (fabric_lid_map(c.f, &c.map) || !c.map.max_lid) {
		fprintf(stderr, "lftcheck: %s: no LIDs, or two ports with one LID\n", topo);
		return 2;
	}
	c.r = routes_new(c.f, c.map.max_lid);
	if (!c.r || lftcheck_fts(&c, fts) || lftcheck_top_lid(&c) ||
	    (path_sl && lftcheck_path_sl(&c, path_sl)) || (sl2vl && lftcheck_sl2vl(&c, sl2vl, smp)))
		return 2;
	if (c.r->sl2vl)
		c.r->n_vls = (uint8_t)(c.max_vl + 1 > 1 ? c.max_vl + 1 : 2);

	violations = checker_run(c.f, c.r, 0, &cst, msg, sizeof(msg));
	cycle = checker_cdg_acyclic(c.f, c.r, &cds, cmsg, sizeof(cmsg));
	if (violations < 0 || cycle < 0 || routing_link_load(c.f, c.r, &ll) ||
	    checker_lmc_paths(c.f, c.r, &lms)) {
		fprintf(stderr, "lftcheck: out of memory\n");
		return 2;
	}
	o = json_pack("{s:i, s:i, s:i, s:I, s:I, s:i, s:s, s:I}", "nodes", (int)c.f->n_nodes,
		      "switches", (int)fabric_count(c.f, NODE_SWITCH), "max_lid",
		      (int)c.map.max_lid, "fts_entries", (json_int_t)c.fts_entries, "checked",
		      (json_int_t)cst.checked, "violations", violations, "first", msg,
		      "unreachable", (json_int_t)cst.unreachable);
	json_object_set_new(o, "skipped_lid", json_integer(c.skipped_lid));
	/* VLs the SL2VL tables map onto, SLs the paths use (dor: 2 VLs, up to 8 SLs) */
	json_object_set_new(o, "vls", json_integer(sl2vl ? c.max_row_vl + 1 : 1));
	json_object_set_new(o, "sls", json_integer(path_sl ? c.max_sl + 1 : 1));
	json_object_set_new(o, "path_sl_conflicts", json_integer((json_int_t)c.path_sl_conflicts));
	json_object_set_new(o, "sl2vl_rows", json_integer((json_int_t)c.sl2vl_rows));
	json_object_set_new(o, "sl2vl_conflicts", json_integer((json_int_t)c.sl2vl_conflicts));
	json_object_set_new(o, "credit_loop", json_integer(cycle));
	json_object_set_new(o, "credit_loop_at", json_string(cmsg));
	json_object_set_new(o, "deps", json_integer((json_int_t)cds.deps));
	json_object_set_new(o, "flows", json_integer((json_int_t)ll.flows));
	json_object_set_new(o, "dropped", json_integer((json_int_t)ll.dropped));
	json_object_set_new(o, "link_max", json_integer((json_int_t)ll.max));
	json_object_set_new(o, "link_mean", json_real(ll.mean));
	json_object_set_new(o, "link_bound", json_integer((json_int_t)ll.bound));
	json_object_set_new(o, "link_ratio",
			    json_real(ll.bound ? (double)ll.max / (double)ll.bound : 0));
	json_object_set_new(o, "lmc_ranges", json_integer((json_int_t)lms.ranges));
	json_object_set_new(o, "lmc_pairs", json_integer((json_int_t)lms.pairs));
	json_object_set_new(o, "lmc_disjoint_pairs", json_integer((json_int_t)lms.disjoint));
	json_object_set_new(o, "lmc_disjoint_ranges",
			    json_integer((json_int_t)lms.ranges_disjoint));
	json_object_set_new(o, "lmc_first_distinct", json_integer((json_int_t)lms.first_distinct));
	json_dumpf(o, stdout, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	fputc('\n', stdout);
	json_decref(o);
	if (violations || cst.unreachable || cycle || c.path_sl_conflicts || c.sl2vl_conflicts)
		rc = 1;
	free(c.seen);
	free(c.seen_base);
	routes_free(c.r);
	fabric_lid_map_clear(&c.map);
	fabric_free(c.f);
	return rc;
}

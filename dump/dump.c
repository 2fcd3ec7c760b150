/*
 * Dumps of a routed fabric in ibnetdiscover's, dump_fts's, OpenSM's and
 * ibdmchk's text formats (see dump.h).  The formats were matched against the
 * real tools on ibsim: ibnetdiscover and dump_fts from infiniband-diags,
 * OpenSM 3.3's `-D 0x43 --dump_files_dir` output, ibdmchk's parsers
 * (IBFabric::parseSubnetLine, parseFdbFile, parsePSLFile, parseSLVLFile).
 * IBA 1.4 vol 1, 14.2.5 for the attributes printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "fabric/names.h"
#include "lib/atomic_file.h"
#include "fabric/topo.h"
#include "lib/log.h"
#include "dump/dump.h"

#define DUMP_NO_HOPS 0xff

/* What several writers need: the LID map and the discovery order. */
struct dump_ctx {
	const struct fabric *f;
	const struct routes *r;
	struct lid_map map;
	bool have_map;
	struct topo_order o; /* discovery order */
};

static void dump_ctx_clear(struct dump_ctx *c)
{
	if (c->have_map)
		fabric_lid_map_clear(&c->map);
	topo_order_clear(&c->o);
}

static int dump_ctx_init(struct dump_ctx *c, const struct fabric *f, const struct routes *r)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->r = r;
	err = fabric_lid_map(f, &c->map);
	if (err && err != -EEXIST)
		return err;
	c->have_map = true;
	err = topo_order_build(f, &c->o);
	if (err)
		dump_ctx_clear(c);
	return err;
}

static uint16_t sm_lid(const struct fabric *f)
{
	if (f->sm_node >= f->n_nodes)
		return 0;
	return node_port_lid(&f->nodes[f->sm_node], f->sm_port);
}

static int dump_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

int dump_topo(const struct fabric *f, const struct routes *r, FILE *out)
{
	return topo_write(f, out);
}

/* ---- dump_fts -------------------------------------------------------------- */

static void lfts_path(FILE *out, const struct dump_ctx *c, uint32_t ni)
{
	uint8_t path[FABRIC_DR_MAX_HOPS + 1];
	unsigned int hops = 0, i;

	if (!c->o.from_sm[ni]) {
		fputs("-", out); /* dump_fts cannot reach it */
		return;
	}
	for (; c->o.parent[ni] != FABRIC_NO_NODE && hops < FABRIC_DR_MAX_HOPS; ni = c->o.parent[ni])
		path[hops++] = c->o.via[ni];
	fputs("0", out);
	for (i = hops; i-- > 0;)
		fprintf(out, ",%u", path[i]);
}

static void lfts_switch(FILE *out, const struct dump_ctx *c, uint32_t ni)
{
	const struct fabric *f = c->f;
	const struct node *n = &f->nodes[ni];
	const uint8_t *lft = c->r->lft[ni];
	unsigned int top = c->r->max_lid, lid, count = 0;
	unsigned int base = 0, last = 0;
	uint64_t last_guid = 0;
	char desc[sizeof(n->desc)];

	if (n->lft_cap && top >= n->lft_cap)
		top = n->lft_cap - 1;
	topo_clean_desc(n->desc, desc, sizeof(desc));
	fprintf(out, "Unicast lids [0x0-0x%x] of switch DR path slid 0; dlid 0; ", top);
	lfts_path(out, c, ni);
	fprintf(out, " guid 0x%016" PRIx64 " (%s):\n", n->guid, desc);
	fputs("  Lid  Out   Destination\n       Port     Info \n", out);
	for (lid = 0; lid <= top; lid++) {
		uint8_t p = lft[lid];
		uint32_t owner;
		const struct node *on;
		const struct port *op;

		if (p == LFT_NO_PORT || p > n->nports)
			continue;
		count++;
		fprintf(out, "0x%04x %03u : ", lid, p);
		/* dump_fts's dump_lid(): the LMC range after a base LID it printed */
		if (lid <= last && lid > base) {
			fprintf(out, "(path #%u out of %u: portguid 0x%016" PRIx64 ")\n",
				lid - base + 1, last - base + 1, last_guid);
			continue;
		}
		owner = c->have_map && lid <= c->map.max_lid ? c->map.node[lid] : FABRIC_NO_NODE;
		if (owner == FABRIC_NO_NODE) {
			fputs("(node info not available fabric scan)\n", out);
			continue;
		}
		on = &f->nodes[owner];
		op = &on->ports[c->map.port[lid]];
		topo_clean_desc(on->desc, desc, sizeof(desc));
		fprintf(out, "(%s portguid 0x%016" PRIx64 ": '%s')\n",
			names_node_type_long(on->type), op->guid, desc);
		if (op->lmc > 0) {
			base = op->lid;
			last = op->lid + (1u << op->lmc) - 1;
			last_guid = op->guid;
		}
	}
	fprintf(out, "%u valid lids dumped \n", count);
}

int dump_lfts(const struct fabric *f, const struct routes *r, FILE *out)
{
	struct dump_ctx c;
	uint32_t i;
	int err;

	err = dump_ctx_init(&c, f, r);
	if (err)
		return err;
	for (i = f->n_nodes; i-- > 0;) {
		uint32_t ni = c.o.order[i];
		if (node_is_switch(&f->nodes[ni]) && ni < r->n_nodes && r->lft[ni])
			lfts_switch(out, &c, ni);
	}
	dump_ctx_clear(&c);
	return dump_status(out);
}

/* ---- OpenSM ---------------------------------------------------------------- */

/* OpenSM's GUID maps are keyed by the GUID in network byte order. */
static int osm_guid_cmp(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint64_t ka = __builtin_bswap64(f->nodes[*(const uint32_t *)a].guid);
	uint64_t kb = __builtin_bswap64(f->nodes[*(const uint32_t *)b].guid);

	return ka < kb ? -1 : ka > kb;
}

static uint32_t *osm_order(const struct fabric *f)
{
	uint32_t *o = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*o));
	uint32_t i;

	if (!o)
		return NULL;
	for (i = 0; i < f->n_nodes; i++)
		o[i] = i;
	qsort_r(o, f->n_nodes, sizeof(*o), osm_guid_cmp, (void *)f);
	return o;
}

static const char *osm_type(uint8_t type)
{
	return type == NODE_SWITCH   ? "SW"
	       : type == NODE_CA     ? "CA"
	       : type == NODE_ROUTER ? "Rt"
				     : "**";
}

static const char *osm_speed(uint8_t s)
{
	return s == 1 ? "2.5" : s == 2 ? "5" : s == 4 ? "10" : "??";
}

static const char *osm_width(uint8_t w)
{
	return w == 1 ? "1x" : w == 2 ? "4x" : w == 4 ? "8x" : w == 8 ? "12x" : "??";
}

static const char *osm_state(uint8_t s)
{
	return s == PORT_ACTIVE ? "ACT" : s == PORT_ARMED ? "ARM" : s == PORT_INIT ? "INI" : "DWN";
}

/* One end of a subnet.lst link; vendor_width is 6 for the local end, 8 for the remote one. */
static void lst_end(FILE *out, const struct node *n, uint8_t pn, uint16_t smlid, int vendor_width)
{
	uint16_t lid = node_port_lid(n, pn);

	fprintf(out,
		"{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64
		" PortGUID:%016" PRIx64 " VenID:%0*X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ",
		osm_type(n->type), lid && lid == smlid ? "-SM" : "", n->nports, n->sys_guid,
		n->guid, n->ports[pn].guid, vendor_width, n->vendor_id, n->device_id, n->revision,
		n->desc, lid, pn);
}

int dump_subnet_lst(const struct fabric *f, const struct routes *r, FILE *out)
{
	uint32_t *order = osm_order(f);
	uint16_t smlid = sm_lid(f);
	uint32_t i;
	unsigned int p;

	(void)r;
	if (!order)
		return -ENOMEM;
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[order[i]];

		for (p = 1; p <= n->nports; p++) {
			const struct port *pt = &n->ports[p];

			if (!port_is_linked(pt) || pt->remote_node >= f->n_nodes)
				continue;
			lst_end(out, n, (uint8_t)p, smlid, 6);
			lst_end(out, &f->nodes[pt->remote_node], pt->remote_port, smlid, 8);
			fprintf(out, "PHY=%s LOG=%s SPD=%s\n", osm_width(pt->width_active),
				osm_state(pt->state), osm_speed(pt->speed_active));
		}
	}
	free(order);
	return dump_status(out);
}

/* Switch-to-switch hop counts (DUMP_NO_HOPS when apart), BFS from every switch. */
struct hops {
	uint32_t n_sw;
	uint32_t *sw_of; /* node -> switch index, UINT32_MAX for others */
	uint8_t *d;	 /* d[a * n_sw + b] */
};

static void hops_free(struct hops *h)
{
	free(h->sw_of);
	free(h->d);
}

static int hops_init(struct hops *h, const struct fabric *f)
{
	uint32_t *queue, *sw_node, i, s;

	memset(h, 0, sizeof(*h));
	h->sw_of = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*h->sw_of));
	sw_node = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*sw_node));
	queue = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*queue));
	if (!h->sw_of || !sw_node || !queue)
		goto out_nomem;
	for (i = 0; i < f->n_nodes; i++) {
		h->sw_of[i] = UINT32_MAX;
		if (node_is_switch(&f->nodes[i])) {
			sw_node[h->n_sw] = i;
			h->sw_of[i] = h->n_sw++;
		}
	}
	h->d = malloc((size_t)h->n_sw * h->n_sw + 1);
	if (!h->d)
		goto out_nomem;
	memset(h->d, DUMP_NO_HOPS, (size_t)h->n_sw * h->n_sw);
	for (s = 0; s < h->n_sw; s++) {
		uint8_t *d = &h->d[(size_t)s * h->n_sw];
		uint32_t head = 0, tail = 0;

		d[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t a = queue[head++];
			const struct node *n = &f->nodes[sw_node[a]];
			unsigned int p;

			if (d[a] >= DUMP_NO_HOPS - 1)
				continue;
			for (p = 1; p <= n->nports; p++) {
				uint32_t rn = n->ports[p].remote_node, b;

				if (rn >= f->n_nodes || (b = h->sw_of[rn]) == UINT32_MAX ||
				    d[b] != DUMP_NO_HOPS)
					continue;
				d[b] = d[a] + 1;
				queue[tail++] = b;
			}
		}
	}
	free(queue);
	free(sw_node);
	return 0;

out_nomem:
	free(queue);
	free(sw_node);
	hops_free(h);
	return -ENOMEM;
}

/*
 * Hops from switch si out of port p to the port owning a LID (owner node,
 * its port); OpenSM counts the last hop into a CA.  DUMP_NO_HOPS if none.
 */
static unsigned int fdb_hops(const struct fabric *f, const struct hops *h, uint32_t si,
			     unsigned int p, uint32_t owner, uint8_t oport)
{
	const struct node *n = &f->nodes[si];
	const struct node *on = &f->nodes[owner];
	const struct port *pt;
	uint32_t tsw, rsw;
	unsigned int d;

	if (p == 0)
		return owner == si ? 0 : DUMP_NO_HOPS;
	pt = &n->ports[p];
	if (!port_is_linked(pt) || pt->remote_node >= f->n_nodes)
		return DUMP_NO_HOPS;
	if (pt->remote_node == owner && !node_is_switch(on))
		return pt->remote_port == oport ? 1 : DUMP_NO_HOPS;
	rsw = h->sw_of[pt->remote_node];
	if (rsw == UINT32_MAX)
		return DUMP_NO_HOPS;
	if (node_is_switch(on)) {
		tsw = h->sw_of[owner];
	} else {
		const struct port *op = &on->ports[oport];
		if (!port_is_linked(op) || op->remote_node >= f->n_nodes)
			return DUMP_NO_HOPS;
		tsw = h->sw_of[op->remote_node];
		if (tsw == UINT32_MAX)
			return DUMP_NO_HOPS;
	}
	d = h->d[(size_t)rsw * h->n_sw + tsw];
	if (d == DUMP_NO_HOPS)
		return DUMP_NO_HOPS;
	return 1 + d + !node_is_switch(on);
}

static void fdbs_switch(FILE *out, const struct fabric *f, const struct routes *r,
			const struct lid_map *m, const struct hops *h, uint32_t si)
{
	const struct node *n = &f->nodes[si];
	const uint8_t *lft = r->lft[si];
	unsigned int lid, p;

	fprintf(out, "dump_ucast_routes: Switch 0x%016" PRIx64 "\nLID    : Port : Hops : Optimal\n",
		n->guid);
	for (lid = 1; lid <= r->max_lid; lid++) {
		uint32_t owner = lid <= m->max_lid ? m->node[lid] : FABRIC_NO_NODE;
		unsigned int hops, best = DUMP_NO_HOPS, best_port = 0;
		uint8_t oport;

		fprintf(out, "0x%04X : ", lid);
		if (owner == FABRIC_NO_NODE || lft[lid] == LFT_NO_PORT) {
			fputs("UNREACHABLE\n", out);
			continue;
		}
		oport = m->port[lid];
		hops = fdb_hops(f, h, si, lft[lid], owner, oport);
		if (hops == DUMP_NO_HOPS) {
			fprintf(out, "%03u  : HOPS UNKNOWN\n", lft[lid]);
			continue;
		}
		for (p = 0; p <= n->nports; p++) {
			unsigned int hp = fdb_hops(f, h, si, p, owner, oport);
			if (hp < best) {
				best = hp;
				best_port = p;
			}
		}
		fprintf(out, "%03u  : %02u   : ", lft[lid], hops);
		if (hops == best)
			fputs("yes\n", out);
		else
			fprintf(out, "No %u hop path possible via port %u!\n", best, best_port);
	}
}

int dump_fdbs(const struct fabric *f, const struct routes *r, FILE *out)
{
	struct lid_map m;
	struct hops h;
	uint32_t *order, i;
	int err;

	err = fabric_lid_map(f, &m);
	if (err && err != -EEXIST)
		return err;
	order = osm_order(f);
	err = order ? hops_init(&h, f) : -ENOMEM;
	if (err)
		goto out_map;
	for (i = 0; i < f->n_nodes; i++) {
		uint32_t si = order[i];
		if (node_is_switch(&f->nodes[si]) && si < r->n_nodes && r->lft[si])
			fdbs_switch(out, f, r, &m, &h, si);
	}
	hops_free(&h);
	err = dump_status(out);
out_map:
	free(order);
	fabric_lid_map_clear(&m);
	return err;
}

int dump_mcfdbs(const struct fabric *f, const struct routes *r, FILE *out)
{
	/*
	 * No multicast forwarding tables yet: OpenSM writes nothing for a
	 * switch without MFT entries ("\nSwitch 0x...\nLID    : Out Port(s)\n"
	 * then "0xC000 : 0x001  0x002 " lines once there are some).
	 */
	(void)f;
	(void)r;
	return dump_status(out);
}

/* ---- ibdmchk: path SLs and SL2VL ------------------------------------------- */

/* The LID a node's traffic leaves from: switch port 0, else the first linked port. */
static uint16_t src_lid(const struct node *n)
{
	unsigned int p;

	if (node_is_switch(n))
		return n->ports[0].lid;
	for (p = 1; p <= n->nports; p++)
		if (port_is_linked(&n->ports[p]) && n->ports[p].lid)
			return n->ports[p].lid;
	return 0;
}

int dump_path_sl(const struct fabric *f, const struct routes *r, FILE *out)
{
	struct lid_map m;
	uint32_t i;
	unsigned int lid;
	int err;

	if (r->n_vls <= 1 || !routes_has_path_sl(r))
		return 0;
	err = fabric_lid_map(f, &m);
	if (err && err != -EEXIST)
		return err;
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		uint16_t sl = src_lid(n);

		if (!sl)
			continue;
		for (lid = 1; lid <= m.max_lid; lid++) {
			if (m.node[lid] == FABRIC_NO_NODE)
				continue;
			fprintf(out, "0x%016" PRIx64 " %u %u\n", n->guid, lid,
				routes_path_sl(r, f, &m, sl, (uint16_t)lid));
		}
	}
	fabric_lid_map_clear(&m);
	return dump_status(out);
}

static void sl2vl_line(FILE *out, uint64_t guid, unsigned int in, unsigned int op,
		       const uint8_t *vl)
{
	unsigned int s;

	fprintf(out, "0x%016" PRIx64 " %u %u", guid, in, op);
	for (s = 0; s < ROUTES_MAX_SL; s += 2)
		fprintf(out, " 0x%x%x", vl[s] & 0xf, vl[s + 1] & 0xf);
	fputc('\n', out);
}

int dump_sl2vl(const struct fabric *f, const struct routes *r, FILE *out)
{
	uint32_t i;
	unsigned int in, op;

	if (r->n_vls <= 1 || !r->sl2vl)
		return 0;
	/* ibdmchk leaves pairs it is not given unassigned: write every one */
	for (i = 0; i < f->n_nodes && i < r->n_nodes; i++) {
		const struct node *n = &f->nodes[i];
		const uint8_t *t = r->sl2vl[i];

		if (!t)
			continue;
		for (in = 0; in <= n->nports; in++)
			for (op = 0; op <= n->nports; op++)
				sl2vl_line(out, n->guid, in, op,
					   node_is_switch(n) ? &t[op * ROUTES_MAX_SL] : t);
	}
	return dump_status(out);
}

/* ---- all of them, atomically ---------------------------------------------- */

typedef int (*dump_fn)(const struct fabric *f, const struct routes *r, FILE *out);

static int dump_file(const struct fabric *f, const struct routes *r, const char *dir,
		     const char *name, dump_fn fn)
{
	struct atomic_file af;
	char path[4096];
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = atomic_file_open(&af, path, 0644);
	if (err)
		return err;
	err = fn(f, r, af.fp);
	if (err) {
		atomic_file_abort(&af);
		return err;
	}
	return atomic_file_commit(&af, false);
}

int dump_all(const struct fabric *f, const struct routes *r, const char *dir)
{
	static const struct {
		const char *name;
		dump_fn fn;
		bool vls;
	} files[] = {
	    {DUMP_TOPO, dump_topo, false},
	    {DUMP_LFTS, dump_lfts, false},
	    {DUMP_SUBNET_LST, dump_subnet_lst, false},
	    {DUMP_FDBS, dump_fdbs, false},
	    {DUMP_MCFDBS, dump_mcfdbs, false},
	    {DUMP_PATH_SL, dump_path_sl, true},
	    {DUMP_SL2VL, dump_sl2vl, true},
	};
	size_t i;
	int err = 0, e;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i].vls && r->n_vls <= 1) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
			if (unlink(path) < 0 && errno != ENOENT && !err)
				err = -errno;
			continue;
		}
		e = dump_file(f, r, dir, files[i].name, files[i].fn);
		if (e && !err)
			err = e;
	}
	return err;
}

/*
 * The routing dumps follow every routing pass that changed something.
 * Writing them takes about 1 us per LFT entry (12 s at 9,472 LIDs x 1,280
 * switches), far too long for the loop that answers MADs, so a forked child
 * writes them from its copy-on-write view of the snapshot.  One child at a
 * time; skipped past max_entries (default 2M entries, ~150 MB of text; 12M
 * entries make 1.2 GB).
 */
void dump_spawn(const struct snapshot *snap, const char *dir, uint64_t max_entries, pid_t *pid)
{
	uint64_t entries =
	    (uint64_t)fabric_count(snap->fabric, NODE_SWITCH) * (snap->routes->max_lid + 1);
	pid_t child;

	dump_reap(pid, false);
	if (*pid > 0) {
		log_msg(LOG_CAT_ROUTE, LOG_DEBUG, "routing dumps: the previous writer still runs");
		return;
	}
	if (entries > max_entries) {
		if (max_entries)
			log_ratelimited(LOG_CAT_ROUTE, LOG_INFO,
					"routing dumps skipped: %llu LFT entries is more than "
					"dump_max_lft_entries (%llu)",
					(unsigned long long)entries,
					(unsigned long long)max_entries);
		return;
	}
	child = fork();
	if (child < 0) {
		log_warn("routing dumps: fork: %s", strerror(errno));
		return;
	}
	if (child == 0) {
		int e = dump_all(snap->fabric, snap->routes, dir);
		if (e < 0)
			log_warn("cannot write routing dumps to %s: %s", dir, strerror(-e));
		_exit(e < 0 ? 1 : 0);
	}
	*pid = child;
}

void dump_reap(pid_t *pid, bool wait)
{
	int st;
	pid_t r;

	if (*pid <= 0)
		return;
	do
		r = waitpid(*pid, &st, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == *pid) {
		if (WIFEXITED(st) && WEXITSTATUS(st))
			log_warn("routing dumps: the writer (pid %d) exited with status %d", (int)r,
				 WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			log_warn("routing dumps: the writer (pid %d) was killed by signal %d",
				 (int)r, WTERMSIG(st));
		else
			log_msg(LOG_CAT_ROUTE, LOG_DEBUG,
				"routing dumps: the writer (pid %d) is done", (int)r);
	}
	if (r == *pid || (r < 0 && errno == ECHILD))
		*pid = 0;
}

/*
 * ibsmd-micro: the speed of single modules, offline, on the fabrics the unit
 * tests use; it prints figures and asserts nothing.  The unit tests check
 * what these modules compute; how fast they compute it on this machine is
 * measured here, where a loaded machine makes a figure slow, not a test red.
 *
 *   bench/ibsmd-micro [-n RUNS] [-k K] [-c CASE] [NAME ...]   (RUNS: best of, default 3)
 *
 * NAME (default: all):
 *   lid      LIDs for a 3-level k=56 fat tree (47,824 LIDs), fresh and again
 *            from the saved guid2lid (fabric/lid.c)
 *   mcast    10,000 join/leave cycles over 64 groups and 13 ports, then every
 *            MLID taken and given back (sa/mcast.c)
 *   routing  minhop on ft3 k34 (9,826 LIDs), ftree on ft3 k16, dfsp on a
 *            random 160-switch graph and on ft3 k16 (routing/)
 *   path     1,000 PathRecords between random hosts of ft3 k34, and one page
 *            of 1,000 records of an every-port-to-every-port walk (sa/path.c)
 *   sa       a world PathRecord GetTable on ft3 k28 (6,468 nodes, 41.8M port
 *            pairs) through the SA server: its work budget (sa/pathrec.c)
 *   validate a 3-level fat tree of k=24 and of k=56 checked against its
 *            cabling plan, one host link at 1x (validate/plan.c: what every
 *            publish costs), and the Slurm model of it (fabric/slurm.c)
 *   repair   on ft3 k=K (-k, default 32) routed by ftree: each change lost
 *            and back (a leaf uplink, a middle uplink, a host, a spine, a
 *            leaf with its hosts; -c: the one whose name starts so)
 *            repaired from the routes before (routing/repair.c), next to
 *            ftree routing the changed fabric
 *
 * OpenSM has no offline mode for any of these, so nothing runs beside it
 * here; bench/routing.sh, bench/sa.sh and bench/mcjoin.sh measure the same
 * work through the whole daemon, the last two side by side with OpenSM.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabric/lid.h"
#include "fabric/slurm.h"
#include "fabric/speed.h"
#include "fabric/snapshot.h"
#include "fabric/topo.h"
#include "mad/sa_wire.h"
#include "mad/wire.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "sa/mcast.h"
#include "sa/path.h"
#include "validate/plan.h"
#include "sa/sa.h"
#include "tests/topogen.h"

static unsigned micro_runs = 3;
static unsigned micro_k = 32;
static const char *micro_case; /* repair: only the case whose name starts so (-c) */

static double micro_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void micro_die(const char *what)
{
	fprintf(stderr, "ibsmd-micro: %s\n", what);
	exit(1);
}

/* The topology text (freed) parsed; NULL text or a parse error ends the run. */
static struct fabric *micro_load(char *text)
{
	struct fabric *f = NULL;
	char err[256];

	if (!text)
		micro_die("topogen failed");
	if (topo_parse(text, strlen(text), &f, err, sizeof(err)))
		micro_die(err);
	free(text);
	return f;
}

/* LIDs in node order, no LMC (what the unit tests' testutil_assign_lids gives, but for order). */
static uint16_t micro_lids(struct fabric *f)
{
	uint32_t next = 1;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];

		for (unsigned p = node_first_lid_port(n); p <= node_last_lid_port(n); p++) {
			n->ports[p].lid = (uint16_t)next++;
			n->ports[p].lmc = 0;
		}
	}
	return (uint16_t)(next - 1);
}

static struct routes *micro_route(const struct fabric *f, const char *engine, double *ret_ms)
{
	const struct routing_engine *e = routing_find(engine);
	struct routes *r = NULL;
	char why[256] = "";
	double t0;

	if (!e)
		micro_die(engine);
	t0 = micro_now_ms();
	if (e->compute(f, NULL, &r, why, sizeof(why)))
		micro_die(why);
	*ret_ms = micro_now_ms() - t0;
	return r;
}

/* ---- lid ------------------------------------------------------------------------------ */

static void micro_lid(void)
{
	char *text = topogen_fat_tree(3, 56, 0, 0);
	char *shuffled = text ? topogen_shuffle(text, 7) : NULL;
	struct fabric *f = micro_load(text), *g = micro_load(shuffled);
	char path[] = "/tmp/ibsmd-micro-guid2lid.XXXXXX", err[256];
	double best_new = 1e12, best_db = 1e12;
	struct lid_assign_stats st = {0}, st2 = {0};
	int fd = mkstemp(path);

	if (fd < 0)
		micro_die("mkstemp");
	close(fd);
	for (unsigned run = 0; run < micro_runs; run++) {
		struct lid_db *db = lid_db_new(), *db2 = NULL;
		double t0;

		if (!db)
			micro_die("out of memory");
		for (uint32_t i = 0; i < f->n_nodes; i++)
			for (unsigned p = 0; p <= f->nodes[i].nports; p++)
				f->nodes[i].ports[p].lid = 0;
		t0 = micro_now_ms();
		if (lid_assign(db, f, 0, &st))
			micro_die("lid_assign");
		t0 = micro_now_ms() - t0;
		best_new = t0 < best_new ? t0 : best_new;
		if (lid_db_save(db, path) || lid_db_load(path, &db2, err, sizeof(err)))
			micro_die("guid2lid save/load");
		for (uint32_t i = 0; i < g->n_nodes; i++)
			for (unsigned p = 0; p <= g->nodes[i].nports; p++)
				g->nodes[i].ports[p].lid = 0;
		t0 = micro_now_ms();
		if (lid_assign(db2, g, 0, &st2))
			micro_die("lid_assign from the file");
		t0 = micro_now_ms() - t0;
		best_db = t0 < best_db ? t0 : best_db;
		lid_db_free(db);
		lid_db_free(db2);
	}
	unlink(path);
	printf("lid: ft3 k56, %u nodes, %u new LIDs: %.1f ms\n", f->n_nodes, st.new_lids, best_new);
	printf("lid: the same fabric shuffled, %u LIDs from the guid2lid: %.1f ms\n", st2.from_db,
	       best_db);
	fabric_free(f);
	fabric_free(g);
}

/* ---- mcast ---------------------------------------------------------------------------- */

#define MICRO_NG 64
#define MICRO_NP 13

static void micro_gid(uint64_t guid, uint8_t gid[16])
{
	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(0xfe80000000000000ULL >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

static void micro_mgid(unsigned id, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x15;
	mgid[12] = (uint8_t)(id >> 24);
	mgid[13] = (uint8_t)(id >> 16);
	mgid[14] = (uint8_t)(id >> 8);
	mgid[15] = (uint8_t)id;
}

static int micro_join(struct mcast_db *db, const uint8_t mgid[16], uint64_t guid, uint8_t js)
{
	struct mcast_join_req r = {0};
	struct mcast_result res;

	r.comp = MCAST_C_MGID | MCAST_C_PORT_GID | MCAST_C_JOIN_STATE | MCAST_C_QKEY |
		 MCAST_C_PKEY | MCAST_C_SL | MCAST_C_FLOW | MCAST_C_TCLASS;
	memcpy(r.mgid, mgid, 16);
	micro_gid(guid, r.port_gid);
	r.join_state = js;
	r.p.qkey = 0x1234;
	r.p.pkey = 0xffff;
	r.p.sl = 1;
	r.p.tclass = 2;
	r.p.flow_label = 3;
	return mcast_join(db, &r, &res);
}

static int micro_leave(struct mcast_db *db, const uint8_t mgid[16], uint64_t guid, uint8_t js)
{
	struct mcast_result res;
	uint8_t gid[16];

	micro_gid(guid, gid);
	return mcast_leave(db, mgid, gid, js, false, &res);
}

static void micro_mcast(void)
{
	static const uint8_t states[] = {MCAST_FULL, MCAST_NON, MCAST_SEND_ONLY,
					 MCAST_FULL | MCAST_NON, MCAST_NON | MCAST_SEND_ONLY};
	double best_cycles = 1e12, best_all = 1e12;
	unsigned cycles = 0, groups = 0;

	for (unsigned run = 0; run < micro_runs; run++) {
		struct mcast_db *db = mcast_db_new();
		static uint8_t held[MICRO_NG][MICRO_NP];
		unsigned x = 1;
		uint8_t mgid[16];
		double t0;

		if (!db)
			micro_die("out of memory");
		memset(held, 0, sizeof(held));
		cycles = 0;
		t0 = micro_now_ms();
		while (cycles < 10000) {
			unsigned g, p;
			uint8_t js;

			x = x * 1103515245u + 12345u;
			g = (x >> 8) % MICRO_NG;
			p = (x >> 16) % MICRO_NP;
			js = states[(x >> 24) % 5];
			micro_mgid(1000 + g, mgid);
			if (micro_join(db, mgid, 100 + p, js) == 0)
				held[g][p] |= js;
			x = x * 1103515245u + 12345u;
			g = (x >> 8) % MICRO_NG;
			p = (x >> 16) % MICRO_NP;
			js = held[g][p] & states[(x >> 24) % 5];
			micro_mgid(1000 + g, mgid);
			if (js && micro_leave(db, mgid, 100 + p, js) == 0) {
				held[g][p] &= (uint8_t)~js;
				cycles++;
			}
		}
		t0 = micro_now_ms() - t0;
		best_cycles = t0 < best_cycles ? t0 : best_cycles;
		mcast_db_free(db);

		db = mcast_db_new();
		if (!db)
			micro_die("out of memory");
		t0 = micro_now_ms();
		for (groups = 0; groups < MCAST_N_MLIDS; groups++) {
			micro_mgid(20000 + groups, mgid);
			if (micro_join(db, mgid, 1, MCAST_FULL))
				break;
		}
		for (unsigned i = 0; i < groups; i++) {
			micro_mgid(20000 + i, mgid);
			micro_leave(db, mgid, 1, MCAST_FULL);
		}
		t0 = micro_now_ms() - t0;
		best_all = t0 < best_all ? t0 : best_all;
		mcast_db_free(db);
	}
	printf("mcast: %u join/leave cycles: %.1f ms\n", cycles, best_cycles);
	printf("mcast: %u groups (until no MLID is left) created and left: %.1f ms\n", groups,
	       best_all);
}

/* ---- routing -------------------------------------------------------------------------- */

static void micro_engine(const char *engine, char *text, const char *what)
{
	struct fabric *f = micro_load(text);
	uint16_t lids = micro_lids(f);
	double best = 1e12, ms;

	for (unsigned run = 0; run < micro_runs; run++) {
		routes_free(micro_route(f, engine, &ms));
		best = ms < best ? ms : best;
	}
	printf("routing: %s on %s (%u nodes, %u LIDs): %.1f ms\n", engine, what, f->n_nodes, lids,
	       best);
	fabric_free(f);
}

static void micro_routing(void)
{
	micro_engine("minhop", topogen_fat_tree(3, 34, 0, 0), "ft3 k34");
	micro_engine("ftree", topogen_fat_tree(3, 16, 0, 0), "ft3 k16");
	micro_engine("dfsp", topogen_random(160, 160, 8, 21), "random 160");
	micro_engine("dfsp", topogen_fat_tree(3, 16, 0, 0), "ft3 k16");
}

/* ---- path ----------------------------------------------------------------------------- */

/* f routed with minhop and published (f is the snapshot's). */
static struct snapshot *micro_publish(struct fabric *f)
{
	struct snapshot *s = NULL;
	double ms;

	micro_lids(f);
	if (snapshot_new(f, micro_route(f, "minhop", &ms), 1, &s))
		micro_die("snapshot_new");
	return s;
}

static void micro_path(void)
{
	struct snapshot *s = micro_publish(micro_load(topogen_fat_tree(3, 34, 0, 0)));
	const struct fabric *f = s->fabric;
	struct path_port *ca = calloc(f->n_nodes, sizeof(*ca)), (*pairs)[2];
	struct path_info pi, *page = calloc(1000, sizeof(*page));
	double best = 1e12, best_page = 1e12, t0;
	uint32_t n = 0, seed = 12345, ok = 0;
	int got = 0;

	pairs = calloc(1000, sizeof(*pairs));
	if (!ca || !page || !pairs)
		micro_die("out of memory");
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (!node_is_switch(&f->nodes[i]) && f->nodes[i].ports[1].lid)
			ca[n++] = (struct path_port){i, 1, 0};
	for (unsigned k = 0; k < 1000; k++) {
		seed = seed * 1103515245u + 12345u;
		pairs[k][0] = ca[(seed >> 8) % n];
		seed = seed * 1103515245u + 12345u;
		pairs[k][1] = ca[(seed >> 8) % n];
	}
	for (unsigned run = 0; run < micro_runs; run++) {
		struct path_query q = {0};
		struct path_enum e;

		ok = 0;
		t0 = micro_now_ms();
		for (unsigned k = 0; k < 1000; k++)
			ok += !path_compute(s, NULL, &pairs[k][0], &pairs[k][1], &pi);
		t0 = micro_now_ms() - t0;
		best = t0 < best ? t0 : best;
		if (path_enum_init(&e, s, NULL, &q))
			micro_die("path_enum_init");
		t0 = micro_now_ms();
		got = path_enum_next(&e, page, 1000, 1000);
		t0 = micro_now_ms() - t0;
		best_page = t0 < best_page ? t0 : best_page;
	}
	printf("path: ft3 k34 (%u nodes): %u of 1000 paths in %.3f ms (%.0f ns a path)\n",
	       f->n_nodes, ok, best, best * 1e3);
	printf("path: a page of %d every-port-to-every-port records: %.3f ms\n", got, best_page);
	free(ca);
	free(page);
	free(pairs);
	snapshot_free(s);
}

/* ---- sa ------------------------------------------------------------------------------- */

struct micro_sa {
	unsigned answers;
	uint16_t status;
};

static int micro_sa_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct micro_sa *m = ctx;
	struct wire_mad_hdr h;

	(void)to;
	m->answers++;
	if (wire_mad_hdr_decode(mad, len, &h) == 0)
		m->status = h.status;
	return 0;
}

static void micro_sa(void)
{
	struct snapshot *s = micro_publish(micro_load(topogen_fat_tree(3, 28, 0, 0)));
	struct micro_sa m = {0};
	struct sa *sa = sa_new(NULL, &(struct sa_ops){micro_sa_send, NULL, &m});
	struct sa_wire_path_rec pr = {0};
	struct sa_wire_mad q = {0};
	struct madio_addr from = {.qpn = 1, .qkey = 0x80010000};
	struct wire_mad_hdr h;
	uint8_t buf[256];
	double best = 1e12, t0;

	if (!sa)
		micro_die("sa_new");
	sa_publish(sa, s);
	for (uint32_t i = 0; i < s->fabric->n_nodes && !from.slid; i++)
		if (!node_is_switch(&s->fabric->nodes[i]))
			from.slid = s->fabric->nodes[i].ports[1].lid;
	q.hdr.method = SA_METHOD_GET_TABLE;
	q.hdr.attr_id = SA_ATTR_PATH_RECORD;
	sa_wire_path_rec_encode(&pr, q.data, SA_WIRE_PR_SIZE);
	for (unsigned run = 0; run < micro_runs; run++) {
		q.hdr.tid = 0x7000 + run;
		sa_wire_encode(&q, buf, sizeof(buf));
		wire_mad_hdr_decode(buf, sizeof(buf), &h);
		t0 = micro_now_ms();
		sa_recv(sa, &from, &h, buf, sizeof(buf));
		t0 = micro_now_ms() - t0;
		best = t0 < best ? t0 : best;
	}
	printf("sa: world PathRecord GetTable on ft3 k28 (%u nodes): answered %u of %u (status "
	       "0x%04x) in %.1f ms\n",
	       s->fabric->n_nodes, m.answers, micro_runs, m.status, best);
	sa_free(sa);
	snapshot_free(s);
}

/* ---- validate --------------------------------------------------------------------------- */

/* Every linked port 4x HDR (and the fabric's ports enable 1x/4x, EDR and HDR). */
static void micro_speeds(struct fabric *f, bool enabled)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			struct port *pt = &f->nodes[i].ports[p];

			pt->width_active = 2;
			pt->lane_speed = SPEED_HDR;
			if (enabled) {
				pt->width_enabled = 3;
				pt->lanes_enabled = SPEED_BIT(SPEED_EDR) | SPEED_BIT(SPEED_HDR);
			}
		}
}

/*
 * What validation costs a publish: the fabric checked against its plan
 * (validate/plan.c: matching by GUID, every link, every planned cable, the
 * findings' keys), with one host link at 1x; and the Slurm model built
 * (fabric/slurm.c, what smctl topology --format slurm costs).
 */
static void micro_validate_one(int k)
{
	char *text = topogen_fat_tree(3, k, 0, 0);
	struct fabric *f = micro_load(text ? strdup(text) : NULL);
	struct plan *p = NULL;
	double best = 1e12, sbest = 1e12, t0;
	size_t found = 0;
	char err[256];

	if (plan_parse(text, strlen(text), &p, err, sizeof(err)))
		micro_die(err);
	free(text);
	micro_speeds(p->f, false);
	micro_speeds(f, true);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (!node_is_switch(&f->nodes[i])) {
			struct port *a = &f->nodes[i].ports[1];

			a->width_active =
			    f->nodes[a->remote_node].ports[a->remote_port].width_active = 1;
			break;
		}
	for (unsigned run = 0; run < micro_runs; run++) {
		struct plan_result r = {0};
		uint64_t keys = 0;

		t0 = micro_now_ms();
		if (plan_check(p, f, NULL, &r))
			micro_die("plan_check");
		for (size_t i = 0; i < r.n; i++)
			keys ^= plan_finding_key(&r.v[i]);
		t0 = micro_now_ms() - t0;
		best = t0 < best ? t0 : best;
		found = r.n + (keys == 1);
		plan_result_clear(&r);
	}
	for (unsigned run = 0; run < micro_runs; run++) {
		struct slurm_topo *t = NULL;

		t0 = micro_now_ms();
		if (slurm_build(f, NULL, &t))
			micro_die("slurm_build");
		t0 = micro_now_ms() - t0;
		sbest = t0 < sbest ? t0 : sbest;
		slurm_free(t);
	}
	printf("validate: ft3 k%d (%u nodes, %u cables): check against the plan %.1f ms (%zu "
	       "finding), Slurm model %.1f ms\n",
	       k, f->n_nodes, p->links, best, found, sbest);
	plan_free(p);
	fabric_free(f);
}

static void micro_validate(void)
{
	micro_validate_one(24);
	micro_validate_one(56);
}

/* ---- repair ---------------------------------------------------------------------------- */

static uint32_t micro_find(const struct fabric *f, const char *desc)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return i;
	micro_die(desc);
	return 0;
}

/* f less the links of (desc, port) (port 0: every port of desc), pruned. */
static struct fabric *micro_cut(const struct fabric *f, const char *desc, uint8_t port)
{
	struct fabric *c = fabric_clone(f), *p;
	uint32_t n, removed = 0;

	if (!c)
		micro_die("out of memory");
	n = micro_find(c, desc);
	for (uint8_t q = port ? port : 1; q <= (port ? port : c->nodes[n].nports); q++)
		fabric_unlink(c, n, q);
	p = fabric_prune(c, &removed);
	fabric_free(c);
	if (!p)
		micro_die("out of memory");
	return p;
}

static void micro_load_count(struct routes *r, const struct fabric *f)
{
	struct lid_map m = {0};

	if (fabric_lid_map(f, &m) || routes_load_count(r, f, &m))
		micro_die("load count");
	fabric_lid_map_clear(&m);
}

/* Repair from (of, or) to f, best of micro_runs; the routes of the last run. */
static struct routes *micro_repair_one(const struct fabric *of, const struct routes * or,
				       const struct fabric *f, const char *what)
{
	struct routes_spare sp = {0};
	struct routes *r = NULL;
	struct repair_stats st;
	double best = 1e12;

	for (unsigned run = 0; run < micro_runs; run++) {
		double t0;
		int rc;

		if (r)
			routes_spare_take(&sp, r); /* as the SM: the block before, no page faults */
		routes_free(r);
		r = NULL;
		t0 = micro_now_ms();
		rc = routes_repair(of, or, f, true, 0.25, 100, &sp, &r, &st);
		t0 = micro_now_ms() - t0;
		if (rc) {
			printf("repair: %-22s refused: %s\n", what, st.why);
			routes_spare_clear(&sp);
			return NULL;
		}
		best = t0 < best ? t0 : best;
	}
	routes_spare_clear(&sp);
	printf("repair: %-22s %8.1f ms  %6u LIDs looked at, %5u shorter, %8llu entries moved, "
	       "busiest port %u (before %u), %u links and %u switches added\n",
	       what, best, st.lids, st.lids_shorter, (unsigned long long)st.moved, st.max_port,
	       st.max_port_before, st.links_added, st.switches_added);
	return r;
}

static void micro_repair(void)
{
	static const struct {
		const char *what, *desc;
		int port; /* -1: k/2 + 1 (an uplink) */
	} cases[] = {
	    {"leaf uplink", "sw-L1-0", -1},
	    {"middle uplink", "sw-L2-0", -1},
	    {"host", "ca-5", 1},
	    {"spine", "sw-L3-0", 0},
	    {"leaf and its hosts", "sw-L1-9", 0},
	};
	struct fabric *f0 = micro_load(topogen_fat_tree(3, micro_k, 0, 0));
	struct routes *r0;
	double ms;

	micro_lids(f0);
	r0 = micro_route(f0, "ftree", &ms);
	micro_load_count(r0, f0);
	printf("repair: ft3 k=%u, %u nodes, ftree %.0f ms\n", micro_k, f0->n_nodes, ms);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int port = cases[i].port < 0 ? (int)micro_k / 2 + 1 : cases[i].port;
		struct fabric *f1;
		struct routes *r1, *r2, *fresh;
		char what[64];

		if (micro_case && strncmp(cases[i].what, micro_case, strlen(micro_case)))
			continue;
		f1 = micro_cut(f0, cases[i].desc, (uint8_t)port);
		fresh = micro_route(f1, "ftree", &ms);
		routes_free(fresh);
		printf("repair: %-22s (ftree on the changed fabric: %.0f ms)\n", cases[i].what, ms);
		snprintf(what, sizeof(what), "%s lost", cases[i].what);
		r1 = micro_repair_one(f0, r0, f1, what);
		if (r1) {
			snprintf(what, sizeof(what), "%s back", cases[i].what);
			r2 = micro_repair_one(f1, r1, f0, what);
			routes_free(r2);
		}
		routes_free(r1);
		fabric_free(f1);
	}
	routes_free(r0);
	fabric_free(f0);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} benches[] = {
	    {"lid", micro_lid},	      {"mcast", micro_mcast}, {"routing", micro_routing},
	    {"path", micro_path},     {"sa", micro_sa},	      {"validate", micro_validate},
	    {"repair", micro_repair},
	};
	const size_t n = sizeof(benches) / sizeof(benches[0]);
	int opt, first;

	while ((opt = getopt(argc, argv, "n:k:c:h")) != -1) {
		if (opt == 'n' && atoi(optarg) > 0) {
			micro_runs = (unsigned)atoi(optarg);
		} else if (opt == 'k' && atoi(optarg) >= 4 && atoi(optarg) % 2 == 0) {
			micro_k = (unsigned)atoi(optarg);
		} else if (opt == 'c') {
			micro_case = optarg;
		} else {
			fprintf(stderr, "usage: ibsmd-micro [-n RUNS] [-k K] [-c CASE] "
					"[lid|mcast|routing|path|sa|validate|repair ...]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	first = optind;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int a = first; a < argc; a++) {
		size_t i;

		for (i = 0; i < n && strcmp(argv[a], benches[i].name); i++)
			;
		if (i == n) {
			fprintf(stderr, "ibsmd-micro: no benchmark %s\n", argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool want = first == argc;

		for (int a = first; a < argc && !want; a++)
			want = !strcmp(argv[a], benches[i].name);
		if (want)
			benches[i].fn();
	}
	return 0;
}

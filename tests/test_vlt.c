/*
 * Unit tests of the ports' SL2VL and VLArb tables: the compact set
 * (fabric/vlt.c: one default row a switch, rows and blocks pooled, pairs
 * and ports that differ), the reader (smp/vlread.c) against a fake
 * transport on a real libevent loop that answers each Get with a table
 * that names the pair or port asked, and the SA's records from what was
 * read (sa/tables.c): golden bytes of SLtoVLMappingTableRecord and
 * VLArbitrationTableRecord as OpenSM's ib_slvl_table_record_t and
 * ib_vl_arb_table_record_t lay them out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/snapshot.h"
#include "fabric/vlt.h"
#include "mad/sa_wire.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "routing/routing.h"
#include "sa/sa.h"
#include "smp/vlread.h"
#include "tests/testutil.h"

/* ---- the set -------------------------------------------------------------------- */

static void row_of(uint8_t v, uint8_t row[VLT_SL2VL_SIZE])
{
	uint8_t vl[16];

	for (int i = 0; i < 16; i++)
		vl[i] = (uint8_t)((i + v) % 15);
	wire_sl2vl_encode(vl, row, VLT_SL2VL_SIZE);
}

/* A switch of 4 ports, every port read, every pair the same row (r) but (in, out) = (2, 3). */
static void read_switch(struct vlt_read *r, bool odd_pair)
{
	CU_ASSERT_EQUAL_FATAL(vlt_read_init(r, 4, true), 0);
	r->ports[0] = 0x1f;
	for (unsigned i = 0; i < 25; i++) {
		row_of(i == 2 * 5 + 3 && odd_pair ? 7 : 1, r->sl2vl[i]);
		r->sl2vl_has[i] = true;
	}
	for (unsigned p = 1; p <= 4; p++) {
		memset(r->vlarb[p * 4 + 0], 0x11, VLT_VLARB_SIZE);
		r->vlarb_has[p * 4 + 0] = true;
		memset(r->vlarb[p * 4 + 2], 0x33, VLT_VLARB_SIZE);
		r->vlarb_has[p * 4 + 2] = true;
	}
}

static bool keep_500(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == 0x500;
}

static void test_set(void)
{
	struct vlt_set *s = vlt_set_new();
	struct vlt_read r;
	const struct vlt_node *n;
	uint8_t row[VLT_SL2VL_SIZE], want[VLT_SL2VL_SIZE], blk[VLT_VLARB_SIZE];
	size_t mem_one;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	/* a switch holding one map for all pairs: a default row, no table */
	read_switch(&r, false);
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x100, &r), 0);
	vlt_read_clear(&r);
	n = vlt_set_get(s, 0x100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT(n->sl2vl == NULL && n->sl2vl_def != VLT_NONE && n->vlarb == NULL);
	row_of(1, want);
	CU_ASSERT(vlt_sl2vl(s, n, 0, 0, row) && !memcmp(row, want, sizeof(row)));
	CU_ASSERT(vlt_sl2vl(s, n, 4, 4, row) && !memcmp(row, want, sizeof(row)));
	CU_ASSERT_FALSE(vlt_sl2vl(s, n, 5, 1, row)); /* no port 5 */
	CU_ASSERT(vlt_vlarb(s, n, 3, 1, blk) && blk[0] == 0x11 && blk[63] == 0x11);
	CU_ASSERT(vlt_vlarb(s, n, 3, 3, blk) && blk[0] == 0x33);
	CU_ASSERT_FALSE(vlt_vlarb(s, n, 3, 2, blk)); /* outside the caps: not read */
	CU_ASSERT_FALSE(vlt_vlarb(s, n, 0, 1, blk)); /* base port 0 has none */
	mem_one = vlt_set_mem(s);

	/* another switch with the same tables: pooled, so only its node costs */
	read_switch(&r, false);
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x200, &r), 0);
	vlt_read_clear(&r);
	CU_ASSERT_EQUAL(vlt_set_count(s), 2);
	CU_ASSERT(vlt_set_mem(s) - mem_one < 200);

	/* one pair differs: a table of row numbers, each pair its own */
	read_switch(&r, true);
	r.vlarb[2 * 4 + 0][5] = 0x99; /* port 2's block 1 differs too */
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x300, &r), 0);
	vlt_read_clear(&r);
	n = vlt_set_get(s, 0x300);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT(n->sl2vl != NULL && n->vlarb != NULL);
	row_of(7, want);
	CU_ASSERT(vlt_sl2vl(s, n, 2, 3, row) && !memcmp(row, want, sizeof(row)));
	row_of(1, want);
	CU_ASSERT(vlt_sl2vl(s, n, 3, 2, row) && !memcmp(row, want, sizeof(row)));
	CU_ASSERT(vlt_vlarb(s, n, 2, 1, blk) && blk[5] == 0x99 && blk[4] == 0x11);
	CU_ASSERT(vlt_vlarb(s, n, 1, 1, blk) && blk[5] == 0x11);
	CU_ASSERT(vlt_vlarb(s, n, 2, 3, blk) && blk[5] == 0x33);

	/* a pair of the ports read that was not read: refused whole */
	read_switch(&r, false);
	r.sl2vl_has[7] = false;
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x400, &r), -EINVAL);
	CU_ASSERT_PTR_NULL(vlt_set_get(s, 0x400));
	/* only some ports read: pairs of the others unknown */
	r.ports[0] = 0x07; /* 0, 1, 2 */
	r.sl2vl_has[7] = true;
	r.sl2vl_has[24] = false; /* (4, 4): port 4 was not read */
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x400, &r), 0);
	vlt_read_clear(&r);
	n = vlt_set_get(s, 0x400);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT(vlt_sl2vl(s, n, 2, 1, row));
	CU_ASSERT_FALSE(vlt_sl2vl(s, n, 3, 1, row));
	CU_ASSERT_FALSE(vlt_vlarb(s, n, 3, 1, blk));

	/* a CA of 2 ports: a row each at (0, p), port 2 not read */
	CU_ASSERT_EQUAL(vlt_read_init(&r, 2, false), 0);
	r.ports[0] = 0x02;
	row_of(4, r.sl2vl[0 * 3 + 1]);
	r.sl2vl_has[0 * 3 + 1] = true;
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x500, &r), 0);
	vlt_read_clear(&r);
	n = vlt_set_get(s, 0x500);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	row_of(4, want);
	CU_ASSERT(vlt_sl2vl(s, n, 0, 1, row) && !memcmp(row, want, sizeof(row)));
	CU_ASSERT_FALSE(vlt_sl2vl(s, n, 0, 2, row));
	CU_ASSERT_FALSE(vlt_sl2vl(s, n, 1, 1, row));

	/* replaced, removed, pruned */
	read_switch(&r, true);
	CU_ASSERT_EQUAL(vlt_set_put(s, 0x100, &r), 0); /* replaces */
	vlt_read_clear(&r);
	CU_ASSERT_EQUAL(vlt_set_count(s), 5);
	CU_ASSERT_PTR_NOT_NULL(vlt_set_get(s, 0x100)->sl2vl);
	vlt_set_remove(s, 0x200);
	vlt_set_remove(s, 0x999);
	CU_ASSERT_EQUAL(vlt_set_count(s), 4);
	CU_ASSERT_PTR_NULL(vlt_set_get(s, 0x200));
	CU_ASSERT_PTR_NOT_NULL(vlt_set_get(s, 0x500));
	vlt_set_prune(s, keep_500, NULL);
	CU_ASSERT_EQUAL(vlt_set_count(s), 1);
	CU_ASSERT_PTR_NOT_NULL(vlt_set_get(s, 0x500));
	vlt_set_free(s);
	vlt_set_free(NULL);
	vlt_read_clear(NULL);
}

/* ---- the reader over a fake transport -------------------------------------------------- */

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	unsigned gets[0x40];
	unsigned fail_sl2vl; /* answer the nth SL2VL Get (1..) with an error status; 0: none */
};

struct answer {
	struct fake *fk;
	uint8_t mad[WIRE_MAD_SIZE];
};

static void answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct answer *a = arg;

	(void)fd;
	(void)what;
	CU_ASSERT_EQUAL(xact_input(a->fk->xe, a->mad, sizeof(a->mad)), 0);
	free(a);
}

/*
 * A Get answered with a table naming what was asked: SL2VL of (in, out) maps
 * SL i to (in + out + i) % 15 on switches (the path's hop count on CAs);
 * VLArb block b of port p has VL p, weight b in every entry.
 */
static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	struct fake *fk = ctx;
	struct timeval tv = {0, 0};
	struct answer *a = calloc(1, sizeof(*a));
	struct wire_smp s;

	(void)to;
	(void)timeout_ms;
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	CU_ASSERT_EQUAL(s.method, WIRE_GET);
	fk->gets[s.attr_id & 0x3f]++;
	memset(s.data, 0, sizeof(s.data));
	if (s.attr_id == WIRE_ATTR_SL2VL) {
		unsigned in = s.attr_mod >> 8 & 0xff, out = s.attr_mod & 0xff;
		uint8_t vl[16];

		for (unsigned i = 0; i < 16; i++)
			vl[i] = (uint8_t)((in + out + i + (s.attr_mod ? 0 : s.hop_cnt)) % 15);
		wire_sl2vl_encode(vl, s.data, sizeof(s.data));
		if (fk->fail_sl2vl && fk->gets[WIRE_ATTR_SL2VL] == fk->fail_sl2vl)
			s.status = 0x1c;
	} else if (s.attr_id == WIRE_ATTR_VL_ARB) {
		uint8_t vl[32], w[32];

		memset(vl, (int)(s.attr_mod & 0xf), sizeof(vl));
		memset(w, (int)(s.attr_mod >> 16), sizeof(w));
		wire_vlarb_encode(vl, w, s.data, sizeof(s.data));
	}
	s.method = WIRE_GET_RESP;
	s.direction = true;
	a->fk = fk;
	CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
	return 0;
}

/* S1 has ports 1-3 linked and 4-5 not; every PortInfo read, VLArb caps 8 and 8 (S2: 40, 0). */
static const char net[] = "Switch 5 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			  "Switch 3 \"S2\"\n[1] \"H3\"[1]\n[3] \"S1\"[3]\n\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			  "Hca 2 \"H3\"\n[1] \"S2\"[1]\n";

static struct fabric *load(void)
{
	struct fabric *f = testutil_load_text(net);

	testutil_assign_lids(f, 0);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].nports; p++) {
			struct port *pt = &f->nodes[i].ports[p];
			struct wire_portinfo pi;
			bool s2 = !strcmp(f->nodes[i].desc, "S2");

			pt->valid = true;
			CU_ASSERT_EQUAL(wire_portinfo_decode(pt->pi, 64, &pi), 0);
			pi.vl_arb_low_cap = s2 ? 40 : 8;
			pi.vl_arb_high_cap = s2 ? 0 : 8;
			wire_portinfo_encode(&pi, pt->pi, 64);
		}
	return f;
}

struct run {
	bool done;
	struct vlread_stats st;
};

static void run_done(void *arg, const struct vlread_stats *st)
{
	struct run *r = arg;

	r->done = true;
	r->st = *st;
}

/* One read of f into set; waits (bounded) for it. */
static struct vlread_stats read_all(struct fake *fk, const struct fabric *f, struct vlt_set *set,
				    bool *ret_started)
{
	struct run run = {0};
	struct vlread *vr = NULL;

	memset(fk->gets, 0, sizeof(fk->gets));
	CU_ASSERT_EQUAL(vlread_start(fk->xe, f, set, run_done, &run, &vr), 0);
	*ret_started = vr != NULL;
	for (int i = 0; vr && !run.done && i < 5000; i++)
		event_base_loop(fk->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	CU_ASSERT(!vr || run.done);
	vlread_free(vr);
	return run.st;
}

static void test_read(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {0};
	struct fabric *f = load();
	struct vlt_set *set = vlt_set_new();
	struct vlread_stats st;
	const struct vlt_node *n;
	uint8_t row[VLT_SL2VL_SIZE], blk[VLT_VLARB_SIZE], vl[16], avl[32], aw[32];
	uint32_t s1 = testutil_find_desc(f, "S1"), s2 = testutil_find_desc(f, "S2");
	uint32_t h3 = testutil_find_desc(f, "H3");
	bool started;

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		CU_ASSERT(vlread_wanted(set, f, i));

	/*
	 * S1: 6 ports (0-5, every PortInfo read) -> 36 pairs, VLArb blocks 1 and 3 of ports
	 * 1-5 (10); S2: 4 ports -> 16 pairs, blocks 1 and 2 (cap 40) of 1-3 (6); H1, H2:
	 * a row and blocks 1, 3 each; H3: port 1 only (port 2 is not linked).
	 */
	st = read_all(&fk, f, set, &started);
	CU_ASSERT(started);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_SL2VL], 36 + 16 + 3);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_VL_ARB], 10 + 6 + 3 * 2);
	CU_ASSERT(st.nodes == 5 && st.read == 5 && st.errors == 0);
	CU_ASSERT_EQUAL(st.sl2vl, 55);
	CU_ASSERT_EQUAL(vlt_set_count(set), 5);
	n = vlt_set_get(set, f->nodes[s1].guid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_PTR_NOT_NULL(n->sl2vl); /* the fake's pairs all differ */
	CU_ASSERT(vlt_sl2vl(set, n, 4, 2, row));
	wire_sl2vl_decode(row, sizeof(row), vl);
	CU_ASSERT(vl[0] == 6 && vl[1] == 7);
	CU_ASSERT(vlt_vlarb(set, n, 5, 3, blk)); /* an unlinked port has its tables too */
	wire_vlarb_decode(blk, sizeof(blk), avl, aw);
	CU_ASSERT(avl[0] == 5 && aw[31] == 3);
	n = vlt_set_get(set, f->nodes[s2].guid);
	CU_ASSERT(vlt_vlarb(set, n, 1, 2, blk) && !vlt_vlarb(set, n, 1, 3, blk));
	n = vlt_set_get(set, f->nodes[h3].guid);
	CU_ASSERT(vlt_sl2vl(set, n, 0, 1, row) && !vlt_sl2vl(set, n, 0, 2, row));
	for (uint32_t i = 0; i < f->n_nodes; i++)
		CU_ASSERT_FALSE(vlread_wanted(set, f, i));

	/* nothing to read: no read */
	st = read_all(&fk, f, set, &started);
	CU_ASSERT_FALSE(started);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_SL2VL], 0);

	/* a Get that fails: its node is left out and read again next time */
	vlt_set_remove(set, f->nodes[s1].guid);
	vlt_set_remove(set, f->nodes[s2].guid);
	fk.fail_sl2vl = 3;
	st = read_all(&fk, f, set, &started);
	CU_ASSERT(st.nodes == 2 && st.read == 1 && st.errors == 1);
	CU_ASSERT_EQUAL(vlt_set_count(set), 4);
	fk.fail_sl2vl = 0;
	st = read_all(&fk, f, set, &started);
	CU_ASSERT(st.nodes == 1 && st.read == 1);
	CU_ASSERT_EQUAL(vlt_set_count(set), 5);

	/* a port linked since: its node is read again */
	f->nodes[h3].ports[2].remote_node = s2;
	f->nodes[h3].ports[2].remote_port = 2;
	CU_ASSERT(vlread_wanted(set, f, h3));
	f->nodes[h3].ports[2].remote_node = FABRIC_NO_NODE;

	/* freed while reading: the Gets are cancelled, what was read stays */
	{
		struct run run = {0};
		struct vlread *vr = NULL;

		vlt_set_remove(set, f->nodes[s1].guid);
		CU_ASSERT_EQUAL(vlread_start(fk.xe, f, set, run_done, &run, &vr), 0);
		CU_ASSERT_PTR_NOT_NULL(vr);
		vlread_free(vr);
		for (int i = 0; i < 100; i++)
			event_base_loop(fk.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		CU_ASSERT_FALSE(run.done);
		CU_ASSERT_EQUAL(vlt_set_count(set), 4);
	}
	xact_free(fk.xe);
	event_base_free(fk.base);
	vlt_set_free(set);
	fabric_free(f);
}

/* ---- the SA's records from what was read ----------------------------------------------- */

struct sa_fake {
	unsigned n;
	struct sa_wire_mad ans;
	size_t len;
};

static int sa_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct sa_fake *fk = ctx;

	(void)to;
	CU_ASSERT_EQUAL(sa_wire_decode(mad, len, &fk->ans), 0);
	fk->len = len;
	fk->n++;
	return 0;
}

static struct sa_wire_mad *sa_ask(struct sa *sa, struct sa_fake *fk, uint16_t slid, uint8_t method,
				  uint16_t attr, uint64_t mask, const uint8_t *rec, size_t len)
{
	struct sa_wire_mad q = {0};
	struct madio_addr from = {.slid = slid, .qpn = 1, .qkey = 0x80010000};
	struct wire_mad_hdr h;
	uint8_t buf[256];
	unsigned before = fk->n;

	q.hdr.method = method;
	q.hdr.attr_id = attr;
	q.hdr.tid = 0x100 + before;
	q.comp_mask = mask;
	memcpy(q.data, rec, len);
	sa_wire_encode(&q, buf, sizeof(buf));
	wire_mad_hdr_decode(buf, sizeof(buf), &h);
	sa_recv(sa, &from, &h, buf, sizeof(buf));
	return fk->n == before ? NULL : &fk->ans;
}

static void test_records(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {0};
	struct fabric *f = load();
	struct vlt_set *set = vlt_set_new();
	struct routes *r = NULL;
	struct snapshot *snap = NULL;
	struct sa_fake sf = {0};
	struct sa *sa;
	struct sa_wire_mad *a;
	uint8_t rec[SA_WIRE_REC_MAX] = {0};
	char why[128];
	uint32_t s1, h3;
	uint16_t s1lid, h3lid;
	bool started;

	fk.base = event_base_new();
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	read_all(&fk, f, set, &started);
	CU_ASSERT_EQUAL(vlt_set_count(set), 5);
	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &snap), 0);
	sa = sa_new(NULL, &(struct sa_ops){sa_send, NULL, &sf});
	CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
	s1 = testutil_find_desc(f, "S1");
	h3 = testutil_find_desc(f, "H3");
	s1lid = f->nodes[s1].ports[0].lid;
	h3lid = f->nodes[h3].ports[1].lid;
	sa_publish(sa, snap);

	/* without the set: no SL2VL record of a minhop fabric (nothing is programmed) */
	sa_wire_bits_set(rec, 0, 16, s1lid);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET_TABLE, SA_ATTR_SL2VL_RECORD, 1, rec, 16);
	CU_ASSERT(a && a->hdr.status == 0 && a->attr_offset == 0);
	sa_set_vlt(sa, set);

	/* S1 (in 4, out 2): golden bytes: LID, in, out, reserved, then 16 VLs of 4 bits */
	sa_wire_bits_set(rec, 16, 8, 4);
	sa_wire_bits_set(rec, 24, 8, 2);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET, SA_ATTR_SL2VL_RECORD, 7, rec, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT(a->data[0] == s1lid >> 8 && a->data[1] == (s1lid & 0xff));
	CU_ASSERT(a->data[2] == 4 && a->data[3] == 2);
	CU_ASSERT(a->data[4] == 0 && a->data[7] == 0);
	CU_ASSERT(a->data[8] == 0x67 && a->data[9] == 0x89); /* SL 0: VL 6, SL 1: 7, ... */
	/* every pair of S1: 36 records (one MAD holds 12 of 16 bytes) */
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET_TABLE, SA_ATTR_SL2VL_RECORD, 1, rec, 16);
	CU_ASSERT(a->attr_offset == 2 && sf.len == 56 + 12 * 16);
	/* a CA: (0, 0) at its LID, whatever ports the query names (OpenSM, osmtest asks 0/0) */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, h3lid);
	sa_wire_bits_set(rec, 24, 8, 5);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET, SA_ATTR_SL2VL_RECORD, 5, rec, 16);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT(a->data[2] == 0 && a->data[3] == 0);
	/* VLArb of the CA: OutputPortNum its number, asked as 0; blocks 1-4, 2 and 4 zero */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, h3lid);
	sa_wire_bits_set(rec, 24, 8, 3);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET, SA_ATTR_VLARB_RECORD, 7, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT(a->data[2] == 1 && a->data[3] == 3);
	CU_ASSERT(a->data[8] == 0 && a->data[9] == 3); /* VL 0 (CA Gets say port 0), weight 3 */
	sa_wire_bits_set(rec, 24, 8, 2);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET, SA_ATTR_VLARB_RECORD, 7, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT(a->data[8] == 0 && a->data[9] == 0);
	/* a switch's port 0: four zero blocks; port 5 (not linked) block 1 as read */
	memset(rec, 0, sizeof(rec));
	sa_wire_bits_set(rec, 0, 16, s1lid);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET_TABLE, SA_ATTR_VLARB_RECORD, 3, rec, 72);
	CU_ASSERT(a->hdr.status == 0 && sf.len == 56 + 2 * 72); /* cut to one MAD */
	CU_ASSERT(a->data[2] == 0 && a->data[3] == 1 && a->data[9] == 0);
	sa_wire_bits_set(rec, 16, 8, 5);
	sa_wire_bits_set(rec, 24, 8, 1);
	a = sa_ask(sa, &sf, h3lid, SA_METHOD_GET, SA_ATTR_VLARB_RECORD, 7, rec, 72);
	CU_ASSERT_EQUAL_FATAL(a->hdr.status, 0);
	CU_ASSERT(a->data[8] == 5 && a->data[9] == 1);

	sa_free(sa);
	snapshot_free(snap);
	xact_free(fk.xe);
	event_base_free(fk.base);
	vlt_set_free(set);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"the set: default rows, pooled tables, pairs that differ", test_set},
	    {"the reader: every pair and block, failures, cancel", test_read},
	    {"the SA's records from what was read", test_records},
	    {NULL, NULL},
	};

	return testutil_run("vlt", cases);
}

/*
 * Unit tests of discovery's extended link speeds (smp/discover.c) and of
 * the Sets built from what it read (smp/program*.c), against a fake SMA: a
 * fabric of two switches and four hosts whose every node answers directed
 * route Gets (NodeInfo, NodeDescription, SwitchInfo, PortInfo, P_KeyTable)
 * as an SMA does, with PortInfo images of today's ports.  Like a port that
 * honours SMSupportExtendedSpeeds, it withholds the extended fields (bytes
 * 56, 62, 63) from a PortInfo Get without attribute modifier bit 31; a
 * switch's external ports advertise nothing of their own (port 0 speaks
 * for them, as ibsim's do).  The tests count the Gets with and without the
 * bit and check the model's lane speeds, and that Sets carry the bit
 * exactly when the image was read with it and never write back extended
 * fields read without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "fabric/speed.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "routing/routing.h"
#include "smp/discover.h"
#include "smp/program.h"
#include "tests/testutil.h"

/*
 * The truth: H1 (the SM's host) and H2 on S1, H3 and H4 on S2; every link
 * 4x HDR but H2's, which trained 1x; H4 an old QDR host without extended
 * speeds; with refuse_ext, H3 refuses a Get with bit 31 and answers the
 * extended fields without it (as ibsim does).
 */
static const char net[] = "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			  "Switch 4 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			  "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	struct fabric *truth;
	uint32_t sm_node;
	bool refuse_ext;
	/* PortInfo Gets of switch external ports / other ports, without and with bit 31 */
	unsigned ext_port_gets[2], other_gets[2];
	unsigned refused;
	/* PortInfo Sets: with bit 31, without; and those without that carry extended fields */
	unsigned sets_ext, sets_plain, sets_plain_ext_enabled;
	unsigned sets_speed_ext[32]; /* LinkSpeedExtEnabled in Sets with bit 31 */
	/* the link of flip_desc's port flip_port goes down once its PortInfo was answered */
	const char *flip_desc;
	uint8_t flip_port;
	bool flipped;
};

/* The image a port of the truth answers with (bit 31: the extended fields too). */
static void truth_portinfo(const struct fake *fk, uint32_t ni, uint8_t pn, bool ext, uint8_t d[64])
{
	const struct node *n = &fk->truth->nodes[ni];
	const struct port *p = &n->ports[pn];
	bool old = !strcmp(n->desc, "H4"),
	     narrow =
		 !strcmp(n->desc, "H2") || (node_is_switch(n) && pn && port_is_linked(p) &&
					    !strcmp(fk->truth->nodes[p->remote_node].desc, "H2"));
	struct wire_portinfo pi;

	memset(d, 0, 64);
	memset(&pi, 0, sizeof(pi));
	pi.gid_prefix = 0xfe80000000000000ULL;
	pi.lid = p->lid;
	pi.local_port = node_is_switch(n) ? 0 : pn;
	/* a switch's external ports have no CapabilityMask of their own */
	if (!node_is_switch(n) || pn == 0)
		pi.capmask = old ? 0x48 : 0x48 | WIRE_CAP_EXT_SPEEDS | WIRE_CAP_HAS_CAPMASK2;
	pi.width_supported = 0x13;
	pi.width_enabled = narrow ? 1 : 3;
	pi.width_active = pn == 0 && node_is_switch(n) ? 0 : narrow ? 1 : 2;
	pi.speed_supported = 7;
	pi.speed_enabled = 7;
	pi.speed_active = 4;
	pi.state = pn == 0 || port_is_linked(p) ? PORT_ACTIVE : PORT_DOWN;
	pi.phys_state = pn == 0 || port_is_linked(p) ? PHYS_LINKUP : PHYS_POLLING;
	pi.mtu_cap = 5;
	pi.vl_cap = 4;
	pi.neighbor_mtu = 4; /* the SM raises it to 5: a Set for every port */
	pi.oper_vls = 4;
	pi.subnet_timeout = 18;
	wire_portinfo_encode(&pi, d, 64);
	if (old || !ext)
		return; /* withheld: as a port that honours SMSupportExtendedSpeeds */
	pi.capmask2 = WIRE_CAP2_SPEED_HDR | WIRE_CAP2_WIDTH_2X;
	pi.speed_ext_supported = 7; /* FDR EDR HDR */
	pi.speed_ext_enabled = 7;
	pi.speed_ext_active = pn == 0 && node_is_switch(n) ? 0 : 4;
	wire_portinfo_encode_ext(&pi, d, 64);
}

/* Walk path[1..hops] from the SM's node: the node reached and the port entered by. */
static bool truth_walk(const struct fake *fk, const struct wire_smp *s, uint32_t *ret_node,
		       uint8_t *ret_port)
{
	uint32_t cur = fk->sm_node;
	uint8_t in = 1;

	for (unsigned h = 1; h <= s->hop_cnt; h++) {
		const struct node *n = &fk->truth->nodes[cur];
		uint8_t out = s->initial_path[h];

		if (out == 0 || out > n->nports || !port_is_linked(&n->ports[out]) ||
		    (!node_is_switch(n) && h > 1))
			return false;
		in = n->ports[out].remote_port;
		cur = n->ports[out].remote_node;
	}
	*ret_node = cur;
	*ret_port = in;
	return true;
}

struct answer {
	struct fake *fk;
	uint8_t mad[WIRE_MAD_SIZE];
};

static void answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct answer *a = arg;

	xact_input(a->fk->xe, a->mad, sizeof(a->mad));
	free(a);
}

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	struct fake *fk = ctx;
	struct timeval tv = {0, 0};
	struct answer *a;
	struct wire_smp s;
	uint32_t ni;
	uint8_t in, pn;
	const struct node *n;

	CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	CU_ASSERT_EQUAL(s.mgmt_class, WIRE_CLASS_SMI_DR);
	if (!truth_walk(fk, &s, &ni, &in))
		return 0; /* lost: no such route */
	n = &fk->truth->nodes[ni];
	pn = (uint8_t)(s.attr_mod & 0xff);
	if (s.attr_id == WIRE_ATTR_PORT_INFO && s.method == WIRE_GET) {
		bool ext = (s.attr_mod & WIRE_PI_MOD_EXT_SPEEDS) != 0;

		if (node_is_switch(n) && pn)
			fk->ext_port_gets[ext]++;
		else
			fk->other_gets[ext]++;
		if (!node_is_switch(n))
			pn = in;
		if (ext && fk->refuse_ext && !strcmp(n->desc, "H3")) {
			fk->refused++;
			s.status = WIRE_STATUS_INVALID_FIELD;
		} else {
			/* the refusing host is one that answers the fields without the bit */
			truth_portinfo(fk, ni, pn,
				       ext || (fk->refuse_ext && !strcmp(n->desc, "H3")), s.data);
		}
		if (fk->flip_desc && !fk->flipped && !strcmp(n->desc, fk->flip_desc) &&
		    pn == fk->flip_port) {
			fabric_unlink(fk->truth, ni, pn); /* answered up, now down */
			fk->flipped = true;
		}
	} else if (s.attr_id == WIRE_ATTR_PORT_INFO && s.method == WIRE_SET) {
		struct wire_portinfo pi;

		CU_ASSERT_FATAL(wire_portinfo_decode(s.data, sizeof(s.data), &pi) == 0);
		if (s.attr_mod & WIRE_PI_MOD_EXT_SPEEDS) {
			fk->sets_ext++;
			fk->sets_speed_ext[pi.speed_ext_enabled & 31]++;
		} else {
			fk->sets_plain++;
			fk->sets_plain_ext_enabled += pi.speed_ext_enabled || pi.speed_ext2_enabled;
		}
	} else if (s.attr_id == WIRE_ATTR_NODE_INFO) {
		struct wire_nodeinfo info = {
		    .base_version = 1,
		    .class_version = 1,
		    .node_type = n->type,
		    .nports = n->nports,
		    .sys_guid = n->guid,
		    .node_guid = n->guid,
		    .port_guid = node_is_switch(n) ? n->guid : n->ports[in].guid,
		    .partition_cap = 32,
		    .local_port = node_is_switch(n) && s.hop_cnt == 0 ? 0 : in,
		};
		wire_nodeinfo_encode(&info, s.data, sizeof(s.data));
	} else if (s.attr_id == WIRE_ATTR_NODE_DESC) {
		wire_nodedesc_encode(n->desc, s.data, sizeof(s.data));
	} else if (s.attr_id == WIRE_ATTR_SWITCH_INFO) {
		struct wire_switchinfo si = {
		    .lft_cap = 0xc000, .mft_cap = 0x200, .partition_enf_cap = 32};
		wire_switchinfo_encode(&si, s.data, sizeof(s.data));
	} else if (s.attr_id == WIRE_ATTR_PKEY_TABLE) {
		uint16_t keys[32] = {0xffff};
		wire_pkey_encode(keys, s.data, sizeof(s.data));
	}
	s.method = WIRE_GET_RESP;
	s.direction = true;
	a = calloc(1, sizeof(*a));
	CU_ASSERT_FATAL(a != NULL);
	a->fk = fk;
	CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
	return 0;
}

struct run {
	bool done;
	int status;
	struct discover_result res;
};

static void on_done(void *arg, int status, struct discover_result *res)
{
	struct run *r = arg;

	r->done = true;
	r->status = status;
	r->res = *res;
}

/* The discovery and what it handed over. */
static void run_free(struct discover *d, struct run *r)
{
	discover_free(d);
	fabric_free(r->res.fabric);
	free(r->res.touched);
}

/* One discovery of the truth; the fabric found (fatal when none). */
static struct fabric *discover(struct fake *fk, struct discover_result *ret)
{
	struct run r = {0};
	struct discover *d = NULL;
	double t0 = testutil_now_ms();

	CU_ASSERT_EQUAL_FATAL(discover_start(fk->xe, on_done, &r, &d), 0);
	while (!r.done && testutil_now_ms() - t0 < 10000)
		event_base_loop(fk->base, EVLOOP_ONCE);
	CU_ASSERT_FATAL(r.done);
	discover_free(d);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.res.fabric);
	*ret = r.res;
	return r.res.fabric;
}

static const struct port *port_of(const struct fabric *f, const char *desc, uint8_t pn)
{
	uint32_t i = testutil_find_desc(f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NO_NODE);
	return &f->nodes[i].ports[pn];
}

static void fake_init(struct fake *fk)
{
	struct xact_opts xo = {8, 200, 1, false};

	memset(fk, 0, sizeof(*fk));
	fk->base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk->base);
	fk->xe = xact_new(fk->base, &xo, fake_send, fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk->xe);
	fk->truth = testutil_load_lids(net);
	fk->sm_node = testutil_find_desc(fk->truth, "H1");
}

static void fake_fini(struct fake *fk)
{
	xact_free(fk->xe);
	event_base_free(fk->base);
	fabric_free(fk->truth);
}

/*
 * Incremental: a port found up whose link goes down before the Get across
 * it (a switch cut port by port under the sweep) is asked again in the
 * next stage and found down: the sweep stays incremental, the link is not
 * in the model.  Before, the Get across was repeated in every stage and
 * the last one's timeout made the sweep heavy.
 */
static void test_around_link_gone(void)
{
	static const char net2[] =
	    "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n[4] \"S2\"[4]\n\n"
	    "Switch 4 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n[4] \"S1\"[4]\n\n"
	    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
	    "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";
	struct fake fk;
	struct discover_result res;
	struct fabric *base;
	struct run r = {0};
	struct discover *d = NULL;
	uint64_t s1;
	double t0;

	fake_init(&fk);
	base = discover(&fk, &res);
	CU_ASSERT_FALSE(port_is_linked(port_of(base, "S1", 4)));
	/* the second link comes up: S1 reports it, and it is gone again once S1 answered */
	fabric_free(fk.truth);
	fk.truth = testutil_load_lids(net2);
	fk.sm_node = testutil_find_desc(fk.truth, "H1");
	fk.flip_desc = "S1";
	fk.flip_port = 4;
	s1 = base->nodes[testutil_find_desc(base, "S1")].guid;
	CU_ASSERT_EQUAL_FATAL(discover_start_around(fk.xe, base, &s1, 1, NULL, 0, on_done, &r, &d),
			      0);
	t0 = testutil_now_ms();
	while (!r.done && testutil_now_ms() - t0 < 20000)
		event_base_loop(fk.base, EVLOOP_ONCE);
	CU_ASSERT_FATAL(r.done);
	CU_ASSERT_TRUE(fk.flipped);
	CU_ASSERT_EQUAL(r.status, 0); /* not -EAGAIN: no heavy sweep */
	CU_ASSERT_EQUAL(r.res.timeouts, 0);
	CU_ASSERT_TRUE(r.res.incremental);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.res.fabric);
	CU_ASSERT_FALSE(port_is_linked(port_of(r.res.fabric, "S1", 4)));
	CU_ASSERT_EQUAL(r.res.fabric->n_nodes, base->n_nodes);
	run_free(d, &r);
	fabric_free(base);
	free(res.touched);
	fake_fini(&fk);
}

/*
 * Incremental with a switch held out (a transit switch going down port by
 * port, sm/sweep.c): S3 links S1 and S2 besides their own link; held, it
 * is left out though it answers, the ports to it are taken for down, and
 * it is not asked even when named among the changed switches.
 */
static void test_around_held(void)
{
	static const char net3[] =
	    "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n[4] \"S3\"[1]\n\n"
	    "Switch 4 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n[4] \"S3\"[2]\n\n"
	    "Switch 2 \"S3\"\n[1] \"S1\"[4]\n[2] \"S2\"[4]\n\n"
	    "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
	    "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";
	struct fake fk;
	struct discover_result res;
	struct fabric *base;
	uint64_t dirty[2], held;

	fake_init(&fk);
	fabric_free(fk.truth);
	fk.truth = testutil_load_lids(net3);
	fk.sm_node = testutil_find_desc(fk.truth, "H1");
	base = discover(&fk, &res);
	CU_ASSERT_EQUAL_FATAL(base->n_nodes, 7);
	CU_ASSERT_TRUE(port_is_linked(port_of(base, "S1", 4)));
	held = base->nodes[testutil_find_desc(base, "S3")].guid;
	dirty[0] = base->nodes[testutil_find_desc(base, "S1")].guid;
	dirty[1] = held;
	for (unsigned with_held = 0; with_held < 2; with_held++) {
		struct run r = {0};
		struct discover *d = NULL;
		double t0;

		CU_ASSERT_EQUAL_FATAL(
		    discover_start_around(fk.xe, base, dirty, 2, &held, with_held, on_done, &r, &d),
		    0);
		t0 = testutil_now_ms();
		while (!r.done && testutil_now_ms() - t0 < 20000)
			event_base_loop(fk.base, EVLOOP_ONCE);
		CU_ASSERT_FATAL(r.done);
		CU_ASSERT_EQUAL(r.status, 0);
		CU_ASSERT_TRUE(r.res.incremental);
		CU_ASSERT_EQUAL(r.res.timeouts, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r.res.fabric);
		if (with_held) {
			/* S3 answers, and is left out all the same */
			CU_ASSERT_EQUAL(r.res.held_out, 1);
			CU_ASSERT_EQUAL(r.res.refused, 2);  /* S1's port 4, S2's port 4 */
			CU_ASSERT_EQUAL(r.res.reprobed, 1); /* S1 only */
			CU_ASSERT_EQUAL(r.res.fabric->n_nodes, 6);
			CU_ASSERT_EQUAL(fabric_find_guid(r.res.fabric, held), FABRIC_NO_NODE);
			CU_ASSERT_FALSE(port_is_linked(port_of(r.res.fabric, "S1", 4)));
			CU_ASSERT_EQUAL(port_of(r.res.fabric, "S1", 4)->state, PORT_DOWN);
			CU_ASSERT_FALSE(port_is_linked(port_of(r.res.fabric, "S2", 4)));
			CU_ASSERT_EQUAL(port_of(r.res.fabric, "S2", 4)->state, PORT_DOWN);
			CU_ASSERT_TRUE(port_is_linked(port_of(r.res.fabric, "S1", 3)));
		} else {
			/* the same discovery without the hold: S3 stays */
			CU_ASSERT_EQUAL(r.res.held_out, 0);
			CU_ASSERT_EQUAL(r.res.refused, 0);
			CU_ASSERT_EQUAL(r.res.reprobed, 2);
			CU_ASSERT_EQUAL(r.res.fabric->n_nodes, 7);
			CU_ASSERT_TRUE(port_is_linked(port_of(r.res.fabric, "S1", 4)));
		}
		run_free(d, &r);
	}
	fabric_free(base);
	free(res.touched);
	fake_fini(&fk);
}

static void test_discover_ext(void)
{
	struct fake fk;
	struct discover_result res;
	struct fabric *f;
	const struct port *p;

	fake_init(&fk);
	f = discover(&fk, &res);
	CU_ASSERT_EQUAL(f->n_nodes, 6);
	CU_ASSERT_EQUAL(res.errors, 0);
	CU_ASSERT_EQUAL(res.timeouts, 0);
	/* switch external ports: asked once each, with bit 31 (port 0 said so first) */
	CU_ASSERT_EQUAL(fk.ext_port_gets[0], 0);
	CU_ASSERT_EQUAL(fk.ext_port_gets[1], 2 * 4);
	/* port 0 and CA ports plainly first; the 3 CAs that advertise extended speeds again */
	CU_ASSERT_EQUAL(fk.other_gets[0], 2 + 4);
	CU_ASSERT_EQUAL(fk.other_gets[1], 3);
	CU_ASSERT_EQUAL(res.ext_gets, 3);
	CU_ASSERT_EQUAL(res.ext_failed, 0);

	/* the model: HDR where both ends run it, the 1x link, the QDR host */
	p = port_of(f, "H1", 1);
	CU_ASSERT_TRUE(p->pi_ext);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_HDR);
	CU_ASSERT_EQUAL(speed_port_rate(p), 17); /* 200 Gb/s */
	CU_ASSERT_EQUAL(p->lanes_enabled, SPEED_BIT(SPEED_SDR) | SPEED_BIT(SPEED_DDR) |
					      SPEED_BIT(SPEED_QDR) | SPEED_BIT(SPEED_FDR) |
					      SPEED_BIT(SPEED_EDR) | SPEED_BIT(SPEED_HDR));
	p = port_of(f, "S1", 1);
	CU_ASSERT_TRUE(p->pi_ext);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_HDR);
	CU_ASSERT_EQUAL(speed_port_rate(port_of(f, "S1", 3)), 17);
	CU_ASSERT_EQUAL(speed_port_rate(port_of(f, "H2", 1)), 20); /* 1x HDR: 50 Gb/s */
	CU_ASSERT_EQUAL(speed_port_rate(port_of(f, "S1", 2)), 20);
	CU_ASSERT_FALSE(speed_link_below(port_of(f, "S1", 2), port_of(f, "H2", 1)));
	p = port_of(f, "H4", 1);
	CU_ASSERT_FALSE(p->pi_ext);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_QDR);
	/* S2's port towards H4 is read with bit 31 and runs HDR in the fake; H4 enables QDR */
	CU_ASSERT_FALSE(port_of(f, "S1", 0)->pi_ext); /* a switch's port 0: never asked so */
	fabric_free(f);

	/* a host that refuses the Get with bit 31: its first answer stands, no error */
	fk.refuse_ext = true;
	memset(fk.other_gets, 0, sizeof(fk.other_gets));
	f = discover(&fk, &res);
	CU_ASSERT_EQUAL(f->n_nodes, 6);
	CU_ASSERT_EQUAL(res.errors, 0);
	CU_ASSERT_EQUAL(fk.refused, 1);
	CU_ASSERT_EQUAL(res.ext_failed, 1);
	p = port_of(f, "H3", 1);
	CU_ASSERT_TRUE(p->valid);
	CU_ASSERT_FALSE(p->pi_ext);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_HDR); /* what it said without the bit */
	fabric_free(f);
	fake_fini(&fk);
}

static struct program_stats configure(struct fake *fk, struct fabric *f, uint8_t speed_ext)
{
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
				    .engine = "minhop",
				    .link_speed_ext = speed_ext};
	struct routes *r = testutil_route(f, "minhop");
	struct program_stats st;

	st = testutil_configure(fk->base, fk->xe, f, r, NULL, NULL, &pp, 5);
	routes_free(r);
	return st;
}

static void test_sets_ext(void)
{
	struct fake fk;
	struct discover_result res;
	struct fabric *f;
	struct program_stats st;
	unsigned ext_ports = 0, plain_ports = 0;

	fake_init(&fk);
	fk.refuse_ext = true;
	f = discover(&fk, &res);
	testutil_assign_lids(f, 0);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned pn = node_is_switch(&f->nodes[i]) ? 0 : 1; pn <= f->nodes[i].nports;
		     pn++) {
			const struct port *p = &f->nodes[i].ports[pn];

			if (pn && !port_is_linked(p))
				continue;
			if (p->pi_ext)
				ext_ports++;
			else
				plain_ports++;
		}
	/* 8 switch ports, H1 H2 read with bit 31; 2 port 0s, H3 (refused), H4 (no ext) not */
	CU_ASSERT_EQUAL(ext_ports, 6 + 2);
	CU_ASSERT_EQUAL(plain_ports, 4);

	/* every port gets its LID or NeighborMTU: a Set, with bit 31 exactly where read so */
	st = configure(&fk, f, 0);
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT_EQUAL(fk.sets_ext, ext_ports);
	CU_ASSERT_EQUAL(fk.sets_plain, plain_ports);
	CU_ASSERT_EQUAL(fk.sets_plain_ext_enabled, 0);	  /* never written back without the bit */
	CU_ASSERT_EQUAL(fk.sets_speed_ext[7], ext_ports); /* left as the ports have it */

	/* the policy's LinkSpeedExtEnabled: on ports read with bit 31 whose far end was too */
	memset(fk.sets_speed_ext, 0, sizeof(fk.sets_speed_ext));
	fk.sets_ext = fk.sets_plain = 0;
	fabric_free(f);
	f = discover(&fk, &res);
	testutil_assign_lids(f, 0);
	st = configure(&fk, f, 31);
	CU_ASSERT_EQUAL(st.errors, 0);
	/* S1-S2 both ends, S1-H1, S1-H2: 6 ports; S2's ports to H3 (refused) and H4 keep 7 */
	CU_ASSERT_EQUAL(fk.sets_speed_ext[31], 6);
	CU_ASSERT_EQUAL(fk.sets_speed_ext[7], 2);
	CU_ASSERT_EQUAL(fk.sets_plain_ext_enabled, 0);
	fabric_free(f);
	fake_fini(&fk);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"discovery: bit 31 Gets, lane speeds", test_discover_ext},
	    {"incremental: a link gone under the Get across it", test_around_link_gone},
	    {"incremental: a switch held out though it answers", test_around_held},
	    {"Sets: bit 31 as read, LinkSpeedExtEnabled policy", test_sets_ext},
	    {NULL, NULL},
	};

	return testutil_run("discover", cases);
}

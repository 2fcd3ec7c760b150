/*
 * Unit tests of smp/program.c: desired state against what the nodes hold or
 * were last given, turned into Sets.  A fake transport on a real libevent
 * loop answers every Set with a GetResp echoing the data (as an agent does),
 * or with an error status for one chosen block; the tests count what was
 * sent per attribute.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "mad/wire.h"
#include "mad/xact.h"
#include "routing/routing.h"
#include "fabric/lft.h"
#include "policy/partition.h"
#include "smp/program.h"
#include "smp/readback.h"
#include "tests/testutil.h"

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	unsigned sets[0x40];	      /* per attribute ID (all are < 0x40) */
	unsigned gets[0x40];	      /* per attribute ID */
	uint32_t fail_attr, fail_mod; /* answer these with an error status */
	uint8_t fail_hops;	      /* ... on this DR hop count only (0: any) */
	bool hold;		      /* answer nothing */
	/* LFT Gets: the switch at DR hop count h answers from held[h] */
	const uint8_t *held[4];
	int held_top[4];
	/*
	 * PortInfo on DR hop count lose_hops (0: off): the first Set is taken
	 * but its answer lost, the identical retry refused (as an ARMED port
	 * refuses to be armed again); with refuse_all every Set is refused and
	 * nothing taken.  A Get answers with what the port holds.
	 */
	uint8_t lose_hops;
	bool refuse_all;
	unsigned lost;
	uint8_t held_pi[64];
	uint16_t last_set_lid; /* LID in the last PortInfo Set on lose_hops */
	/*
	 * The PortState each port (DR path, port number) is in, as an SMA
	 * answers a Set with the attribute as it now is: a state Set changes
	 * it, a Set with PortState NOP leaves it (ACTIVE until told, as the
	 * test fabrics load).
	 */
	struct fake_port {
		uint8_t path[64], hops, port, state;
	} ports[256];
	unsigned n_ports;
};

/* The state slot of the port a PortInfo Set addresses (NULL: table full). */
static uint8_t *fake_port_state(struct fake *fk, const struct wire_smp *s)
{
	uint8_t port = (uint8_t)s->attr_mod;

	for (unsigned i = 0; i < fk->n_ports; i++) {
		struct fake_port *p = &fk->ports[i];

		if (p->hops == s->hop_cnt && p->port == port &&
		    !memcmp(p->path, s->initial_path, (size_t)s->hop_cnt + 1))
			return &p->state;
	}
	if (fk->n_ports == sizeof(fk->ports) / sizeof(fk->ports[0]))
		return NULL;
	fk->ports[fk->n_ports] =
	    (struct fake_port){.hops = s->hop_cnt, .port = port, .state = PORT_ACTIVE};
	memcpy(fk->ports[fk->n_ports].path, s->initial_path, (size_t)s->hop_cnt + 1);
	return &fk->ports[fk->n_ports++].state;
}

struct answer {
	struct fake *fk;
	uint8_t mad[WIRE_MAD_SIZE];
};

static void answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct answer *a = arg;

	CU_ASSERT_EQUAL(xact_input(a->fk->xe, a->mad, sizeof(a->mad)), 0);
	free(a);
}

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	struct fake *fk = ctx;
	struct timeval tv = {0, 0};
	struct answer *a;
	struct wire_smp s;

	if (fk->hold)
		return 0;
	a = calloc(1, sizeof(*a));
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	CU_ASSERT(s.method == WIRE_SET || (s.method == WIRE_GET && s.attr_id == WIRE_ATTR_LFT) ||
		  (s.method == WIRE_GET && s.attr_id == WIRE_ATTR_PORT_INFO && fk->lose_hops));
	if (fk->lose_hops && s.attr_id == WIRE_ATTR_PORT_INFO && s.hop_cnt == fk->lose_hops) {
		if (s.method == WIRE_GET) {
			fk->gets[s.attr_id]++;
			memcpy(s.data, fk->held_pi, sizeof(s.data));
		} else {
			struct wire_portinfo pi;

			fk->sets[s.attr_id]++;
			CU_ASSERT_FATAL(wire_portinfo_decode(s.data, sizeof(s.data), &pi) == 0);
			fk->last_set_lid = pi.lid;
			if (!fk->refuse_all && fk->lost++ == 0) {
				memcpy(fk->held_pi, s.data, sizeof(fk->held_pi)); /* taken, */
				free(a);
				return 0; /* not answered */
			}
			s.status = 0x1c;
		}
		s.method = WIRE_GET_RESP;
		s.direction = true;
		a->fk = fk;
		CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
		CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
		return 0;
	}
	if (s.attr_id < 0x40 && s.method == WIRE_SET)
		fk->sets[s.attr_id]++;
	if (s.attr_id < 0x40 && s.method == WIRE_GET)
		fk->gets[s.attr_id]++;
	if (s.method == WIRE_GET && s.hop_cnt < 4) {
		uint8_t ports[64];

		lft_block(fk->held[s.hop_cnt], fk->held_top[s.hop_cnt], s.attr_mod, ports);
		wire_lft_encode(ports, s.data, sizeof(s.data));
	}
	if (s.method == WIRE_SET && s.attr_id == WIRE_ATTR_PORT_INFO) {
		/* the answer says the state the port is in */
		struct wire_portinfo pi;
		uint8_t *st = fake_port_state(fk, &s);

		CU_ASSERT_FATAL(st != NULL);
		CU_ASSERT_FATAL(wire_portinfo_decode(s.data, sizeof(s.data), &pi) == 0);
		if (pi.state != PORT_NOP)
			*st = pi.state;
		pi.state = *st;
		wire_portinfo_encode(&pi, s.data, sizeof(s.data));
	}
	s.method = WIRE_GET_RESP;
	s.direction = true;
	if (s.attr_id == fk->fail_attr && s.attr_mod == fk->fail_mod &&
	    (!fk->fail_hops || s.hop_cnt == fk->fail_hops))
		s.status = 0x1c; /* invalid attribute/modifier */
	a->fk = fk;
	CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
	return 0;
}

static const char net[] = "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			  "Switch 8 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			  "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";

/* One configure batch of f against (old_f, old_r) with pp, sets counted afresh; waits (bounded). */
static struct program_stats configure_pp(struct fake *fk, struct fabric *f, const struct routes *r,
					 const struct fabric *old_f, const struct routes *old_r,
					 const struct program_params *pp)
{
	memset(fk->sets, 0, sizeof(fk->sets));
	return testutil_configure(fk->base, fk->xe, f, r, old_f, old_r, pp, 5);
}

/* One configure batch of f against (old_f, old_r) or held; waits (bounded) for it. */
static struct program_stats configure_held(struct fake *fk, struct fabric *f,
					   const struct routes *r, const struct fabric *old_f,
					   const struct routes *old_r, bool force,
					   const struct program_held *held)
{
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
				    .engine = "minhop",
				    .force = force,
				    .held = held};

	return configure_pp(fk, f, r, old_f, old_r, &pp);
}

static struct program_stats configure(struct fake *fk, struct fabric *f, const struct routes *r,
				      const struct fabric *old_f, const struct routes *old_r,
				      bool force)
{
	return configure_held(fk, f, r, old_f, old_r, force, NULL);
}

static struct fabric *load(void)
{
	struct fabric *f = testutil_load_text(net);

	testutil_assign_lids(f, 0);
	return f;
}

static struct routes *route(const struct fabric *f)
{
	struct routes *r = NULL;
	char why[128];

	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, NULL, &r, why, sizeof(why)), 0);
	return r;
}

static void test_configure_diffs(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *a = load(), *b = load(), *c = load();
	struct routes *ra = route(a), *rb = route(b);
	struct program_stats st;
	unsigned blocks = (ra->max_lid + 1 + 63) / 64;
	uint32_t s1;

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);

	/* a fresh fabric: every LFT block of both switches, their LinearFDBTop, the LIDs */
	st = configure(&fk, a, ra, NULL, NULL, false);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 2 * blocks);
	CU_ASSERT_EQUAL(st.lft_blocks, 2 * blocks);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SWITCH_INFO], 2);
	/* 2 switch port 0s + 4 CA ports carry LIDs; switch ports get MTU/VLs */
	CU_ASSERT_TRUE(fk.sets[WIRE_ATTR_PORT_INFO] >= 6);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PKEY_TABLE], 0); /* no CA port in INIT */
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT_EQUAL(st.sets, fk.sets[WIRE_ATTR_LFT] + fk.sets[WIRE_ATTR_SWITCH_INFO] +
				     fk.sets[WIRE_ATTR_PORT_INFO]);
	/* the answers updated the model: PortInfo now holds the LIDs */
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		struct wire_portinfo pi;
		uint8_t p = node_first_lid_port(&a->nodes[i]);

		CU_ASSERT_EQUAL(wire_portinfo_decode(a->nodes[i].ports[p].pi, 64, &pi), 0);
		CU_ASSERT_EQUAL(pi.lid, a->nodes[i].ports[p].lid);
	}

	/* the same routes again on a new discovery (which reads the LinearFDBTop set): no block */
	for (uint32_t i = 0; i < b->n_nodes; i++)
		b->nodes[i].lft_top = c->nodes[i].lft_top = a->nodes[i].lft_top;
	st = configure(&fk, b, rb, a, ra, false);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 0);
	CU_ASSERT_EQUAL(st.lft_blocks, 0);

	/* one entry changed: exactly its block */
	s1 = testutil_find_desc(c, "S1");
	rb->lft[s1][ra->max_lid] = rb->lft[s1][ra->max_lid] == 1 ? 2 : 1;
	st = configure(&fk, c, rb, a, ra, false);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 1);

	/* a switch reset meanwhile (LinearFDBTop 0 again): every block of it */
	fabric_free(c);
	c = load();
	c->nodes[s1].lft_top = a->nodes[s1].lft_top;
	st = configure(&fk, c, ra, a, ra, false);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], blocks);

	/* force: every block of every switch */
	fabric_free(c);
	c = load();
	st = configure(&fk, c, rb, a, ra, true);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 2 * blocks);

	/* a block the switch refuses: counted, and the switch is marked for a rewrite */
	fabric_free(c);
	c = load();
	fk.fail_attr = WIRE_ATTR_LFT;
	fk.fail_mod = 0;
	st = configure(&fk, c, rb, NULL, NULL, false);
	CU_ASSERT_EQUAL(st.errors, 2); /* block 0 of both switches */
	for (uint32_t i = 0; i < c->n_nodes; i++)
		if (node_is_switch(&c->nodes[i]))
			CU_ASSERT_EQUAL(c->nodes[i].lft_top, 0xffff);

	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(ra);
	routes_free(rb);
	fabric_free(a);
	fabric_free(b);
	fabric_free(c);
}

/*
 * A scope (an incremental sweep: the nodes its discovery touched): the
 * ports of the nodes in it only, the LFTs and SwitchInfo of every switch.
 */
static void test_configure_scope(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *a = load(), *b = load();
	struct routes *ra = route(a);
	struct program_stats st;
	unsigned blocks = (ra->max_lid + 1 + 63) / 64, full_pi;
	uint8_t *scope = calloc(a->n_nodes, 1);
	uint32_t ca = FABRIC_NO_NODE;
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL, .engine = "minhop"};

	CU_ASSERT_PTR_NOT_NULL_FATAL(scope);
	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	/* every node: every port that carries a LID, every block */
	st = configure_pp(&fk, a, ra, NULL, NULL, &pp);
	full_pi = fk.sets[WIRE_ATTR_PORT_INFO];
	CU_ASSERT_TRUE(full_pi >= 6);
	/* one CA in scope, on a fabric as fresh: its port alone, every switch's tables */
	for (uint32_t i = 0; i < b->n_nodes && ca == FABRIC_NO_NODE; i++)
		if (!node_is_switch(&b->nodes[i]))
			ca = i;
	scope[ca] = 1;
	pp.scope = scope;
	st = configure_pp(&fk, b, ra, NULL, NULL, &pp);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PORT_INFO], 1);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 2 * blocks);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SWITCH_INFO], 2);
	CU_ASSERT_EQUAL(st.errors, 0);
	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(ra);
	fabric_free(a);
	fabric_free(b);
	free(scope);
}

/* The ports up and ACTIVE, VLArb capacities 8/8 in their PortInfo images. */
static struct fabric *load_up(void)
{
	struct fabric *f = load();

	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].nports; p++) {
			struct port *pt = &f->nodes[i].ports[p];
			struct wire_portinfo pi;

			pt->valid = true;
			pt->phys_state = PHYS_LINKUP;
			pt->state = PORT_ACTIVE;
			CU_ASSERT_EQUAL(wire_portinfo_decode(pt->pi, 64, &pi), 0);
			pi.vl_arb_high_cap = pi.vl_arb_low_cap = 8;
			pi.state = PORT_ACTIVE;
			pi.phys_state = PHYS_LINKUP;
			pi.vl_cap = 4;
			pi.oper_vls = 4;
			wire_portinfo_encode(&pi, pt->pi, 64);
		}
	return f;
}

/* dst as a new discovery of what src was set to: its PortInfo images, ACTIVE. */
static void rediscover(struct fabric *dst, const struct fabric *src)
{
	for (uint32_t i = 0; i < dst->n_nodes; i++)
		for (unsigned p = 0; p <= dst->nodes[i].nports; p++) {
			struct port *pt = &dst->nodes[i].ports[p];
			struct wire_portinfo pi;

			memcpy(pt->pi, src->nodes[i].ports[p].pi, 64);
			CU_ASSERT_EQUAL(wire_portinfo_decode(pt->pi, 64, &pi), 0);
			pi.state = pt->state = PORT_ACTIVE;
			pi.phys_state = pt->phys_state = PHYS_LINKUP;
			wire_portinfo_encode(&pi, pt->pi, 64);
			pt->lid = src->nodes[i].ports[p].lid;
		}
}

/*
 * packet_life_time, head_of_queue_lifetime, leaf_head_of_queue_lifetime:
 * SwitchInfo:LifeTimeValue on every switch, HOQLife on switch ports toward
 * a switch (18) and toward a CA (16), CA ports left alone; set only where
 * they differ, so a second batch over what the first set sends none.
 */
static void test_configure_lifetimes(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *a = load_up(), *b = load_up();
	struct routes *r = route(a);
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
				    .engine = "minhop",
				    .lifetimes = true,
				    .switch_life = 18,
				    .hoq_life = 18,
				    .leaf_hoq_life = 16};
	uint32_t s1, h1;

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	s1 = testutil_find_desc(a, "S1");
	h1 = testutil_find_desc(a, "H1");
	configure_pp(&fk, a, r, NULL, NULL, &pp);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SWITCH_INFO], 2);
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		const struct node *n = &a->nodes[i];
		struct wire_switchinfo si;

		if (!node_is_switch(n))
			continue;
		CU_ASSERT_EQUAL(wire_switchinfo_decode(n->si, 64, &si), 0);
		CU_ASSERT_EQUAL(si.lifetime, 18);
	}
	{
		struct wire_portinfo pi;

		CU_ASSERT_EQUAL(wire_portinfo_decode(a->nodes[s1].ports[1].pi, 64, &pi), 0);
		CU_ASSERT_EQUAL(pi.hoq_life, 16); /* toward H1 */
		CU_ASSERT_EQUAL(wire_portinfo_decode(a->nodes[s1].ports[3].pi, 64, &pi), 0);
		CU_ASSERT_EQUAL(pi.hoq_life, 18); /* toward S2 */
		CU_ASSERT_EQUAL(wire_portinfo_decode(a->nodes[h1].ports[1].pi, 64, &pi), 0);
		CU_ASSERT_EQUAL(pi.hoq_life, 0); /* a CA port: not the SM's to set */
	}
	/* the next sweep reads what was set: no PortInfo, no SwitchInfo for the lifetimes */
	rediscover(b, a);
	for (uint32_t i = 0; i < b->n_nodes; i++) {
		struct wire_switchinfo si;

		memcpy(b->nodes[i].si, a->nodes[i].si, 64);
		b->nodes[i].lft_top = a->nodes[i].lft_top;
		/* the fake echoes the Set: PortStateChange reads 0 again on a real switch */
		if (wire_switchinfo_decode(b->nodes[i].si, 64, &si) == 0) {
			si.port_state_change = 0;
			wire_switchinfo_encode(&si, b->nodes[i].si, 64);
		}
	}
	configure_pp(&fk, b, r, a, r, &pp);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SWITCH_INFO], 0);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PORT_INFO], 0);
	/* without lifetimes (other batches): the switches' values are left alone */
	pp.lifetimes = false;
	pp.switch_life = 3;
	configure_pp(&fk, b, r, a, r, &pp);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SWITCH_INFO], 0);
	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(a);
	fabric_free(b);
}

static struct program_stats configure_qos(struct fake *fk, struct fabric *f, const struct routes *r,
					  const struct fabric *old_f, const struct routes *old_r,
					  const struct qos_policy *q,
					  const struct qos_policy *old_q)
{
	struct program_params pp = {
	    .subnet_prefix = 0xfe80000000000000ULL, .engine = "minhop", .qos = q, .qos_old = old_q};

	return configure_pp(fk, f, r, old_f, old_r, &pp);
}

/*
 * QoS (policy/qos.h): every port's SL2VL and VLArb on a fresh fabric, none
 * when nothing changed, only the changed class's after a policy change, and
 * VLHighLimit in the PortInfo Sets.
 */
static void test_configure_qos(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *a = load_up(), *b = load_up(), *c = load_up();
	struct routes *ra = route(a), *rb = route(b), *rc = route(c);
	struct qos_policy *q = NULL, *q2 = NULL;
	struct program_stats st;
	char why[160];
	uint32_t h1 = testutil_find_desc(a, "H1");
	struct wire_portinfo pi;

	fk.base = event_base_new();
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	CU_ASSERT_EQUAL_FATAL(qos_policy_load("", &q, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(qos_policy_load("", &q2, NULL, 0), 0);
	q->enabled = q2->enabled = true;
	q->cls[QOS_CA].high_limit = 3;
	q2->cls[QOS_CA].high_limit = 3;
	CU_ASSERT_EQUAL(qos_tables_build(&q2->cls[QOS_CA], 0, -1, "", "", "1,1,1", &q2->cls[QOS_CA],
					 why, sizeof(why)),
			0);

	/* QoS off and a single-VL engine: no table written (as before QoS) */
	q->enabled = false;
	st = configure_qos(&fk, c, rc, NULL, NULL, q, NULL);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SL2VL], 0);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_VL_ARB], 0);
	q->enabled = true;

	/* fresh: 4 CA ports; 2 switches x 3 linked outputs x 3 inputs (0 and the other 2) */
	st = configure_qos(&fk, a, ra, NULL, NULL, q, NULL);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SL2VL], 4 + 18);
	CU_ASSERT_EQUAL(st.sl2vl_blocks, 22);
	/* blocks 1 and 3 (caps of 8) of 4 CA ports and 6 switch ports */
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_VL_ARB], 20);
	CU_ASSERT_EQUAL(st.vlarb_blocks, 20);
	CU_ASSERT_EQUAL(st.errors, 0);
	/* more Sets than the batch keeps in the engine (4 windows of 8): the rest waited, all went
	 */
	{
		unsigned sent = 0;

		for (unsigned i = 0; i < 0x40; i++)
			sent += fk.sets[i];
		CU_ASSERT(sent > 4 * 8);
		CU_ASSERT_EQUAL(st.sets, sent);
	}
	CU_ASSERT_EQUAL(st.qos_conflict_sls, 0);
	CU_ASSERT_EQUAL(wire_portinfo_decode(a->nodes[h1].ports[1].pi, 64, &pi), 0);
	CU_ASSERT_EQUAL(pi.vl_high_limit, 3);

	/* the same policy and routes on a new discovery: nothing, VLHighLimit included */
	rediscover(b, a);
	st = configure_qos(&fk, b, rb, a, ra, q, q);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SL2VL], 0);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_VL_ARB], 0);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PORT_INFO], 0);
	/* a port that does not keep VLHighLimit (ibsim): not written again ... */
	CU_ASSERT_EQUAL(wire_portinfo_decode(b->nodes[h1].ports[1].pi, 64, &pi), 0);
	pi.vl_high_limit = 0;
	wire_portinfo_encode(&pi, b->nodes[h1].ports[1].pi, 64);
	st = configure_qos(&fk, b, rb, a, ra, q, q);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PORT_INFO], 0);
	/* ... until the policy changes it */
	q2->cls[QOS_CA].high_limit = 5;
	st = configure_qos(&fk, b, rb, a, ra, q2, q);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PORT_INFO], 4);
	rediscover(b, a);
	/* the CA class's SL2VL changed: one block per CA port, no VLArb */
	st = configure_qos(&fk, b, rb, a, ra, q2, q);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SL2VL], 4);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_VL_ARB], 0);
	/* the old policy unknown (a new master): every table again */
	rediscover(b, a);
	st = configure_qos(&fk, b, rb, a, ra, q2, NULL);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_SL2VL], 22);

	xact_free(fk.xe);
	event_base_free(fk.base);
	qos_policy_free(q);
	qos_policy_free(q2);
	routes_free(ra);
	routes_free(rb);
	routes_free(rc);
	fabric_free(a);
	fabric_free(b);
	fabric_free(c);
}

/* An empty batch finishes at once; an aborted one never calls done. */
static void test_empty_and_abort(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff, .hold = true};
	struct fabric *f = load();
	struct routes *r = route(f);
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL, .engine = "minhop"};
	struct testutil_batch run = {0};
	struct program *pg;

	fk.base = event_base_new();
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	pg = program_new(fk.xe, f, testutil_batch_done, &run);
	program_start(pg);
	CU_ASSERT_TRUE(run.done);
	CU_ASSERT_EQUAL(run.st.sets, 0);

	run.done = false;
	pg = program_new(fk.xe, f, testutil_batch_done, &run);
	program_configure(pg, r, NULL, NULL, &pp);
	program_start(pg);
	program_abort(pg);
	xact_free(fk.xe); /* cancels the Sets: the batch frees itself, done stays uncalled */
	CU_ASSERT_FALSE(run.done);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(f);
}

struct rb_run {
	bool done;
	struct program_held *held;
	struct readback_stats st;
};

static void on_readback(void *arg, struct program_held *held, const struct readback_stats *st)
{
	struct rb_run *r = arg;

	CU_ASSERT_FALSE(r->done);
	r->done = true;
	r->held = held;
	r->st = *st;
}

/* Read f's switches back (against old_f/old_r); NULL held when nothing was read. */
static struct rb_run readback(struct fake *fk, const struct fabric *f, const struct routes *r,
			      const struct fabric *old_f, const struct routes *old_r)
{
	struct rb_run run = {0};
	struct timeval limit = {5, 0};
	struct readback *rb = NULL;

	memset(fk->gets, 0, sizeof(fk->gets));
	CU_ASSERT_EQUAL_FATAL(readback_start(fk->xe, f, r, old_f, old_r, on_readback, &run, &rb),
			      0);
	if (!rb)
		return run;
	event_base_loopexit(fk->base, &limit);
	while (!run.done && event_base_loop(fk->base, EVLOOP_ONCE) == 0)
		;
	CU_ASSERT_TRUE_FATAL(run.done);
	return run;
}

/* S1 one hop away, S2 two: the fake tells their LFT Gets apart by hop count. */
static struct fabric *load_paths(uint16_t top)
{
	struct fabric *f = load();
	uint32_t s1 = testutil_find_desc(f, "S1"), s2 = testutil_find_desc(f, "S2");

	f->nodes[s1].dr_hops = 1;
	f->nodes[s1].dr_path[1] = 1;
	f->nodes[s2].dr_hops = 2;
	f->nodes[s2].dr_path[1] = 1;
	f->nodes[s2].dr_path[2] = 3;
	f->nodes[s1].lft_top = top;
	f->nodes[s2].lft_top = top;
	return f;
}

/*
 * A takeover: the switches hold what the routes want, this SM has no
 * snapshot of its own; read back, nothing is written.  A changed entry costs
 * its block; a switch whose Get fails is written whole; a switch with
 * LinearFDBTop 0 is not read; a switch the snapshot knows is not read.
 */
static void test_readback(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *a = load(), *c;
	struct routes *ra = route(a);
	uint32_t s1 = testutil_find_desc(a, "S1"), s2 = testutil_find_desc(a, "S2");
	unsigned blocks = (ra->max_lid + 1 + 63) / 64;
	uint8_t *copy = malloc(ra->max_lid + 1);
	struct program_stats st;
	struct rb_run run;

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	fk.base = event_base_new();
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	memcpy(copy, ra->lft[s1], ra->max_lid + 1);
	fk.held[1] = copy;
	fk.held_top[1] = ra->max_lid;
	fk.held[2] = ra->lft[s2];
	fk.held_top[2] = ra->max_lid;

	c = load_paths(ra->max_lid);
	run = readback(&fk, c, ra, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.held);
	CU_ASSERT_EQUAL(run.st.switches, 2);
	CU_ASSERT_EQUAL(run.st.blocks, 2 * blocks);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_LFT], 2 * blocks);
	CU_ASSERT_EQUAL(run.held->top[s1], ra->max_lid);
	st = configure_held(&fk, c, ra, NULL, NULL, false, run.held);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 0);
	CU_ASSERT_EQUAL(st.lft_blocks, 0);
	/* without what was read: every block, as before */
	fabric_free(c);
	c = load_paths(ra->max_lid);
	configure(&fk, c, ra, NULL, NULL, false);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 2 * blocks);
	program_held_free(run.held);

	/* S1 holds one entry that differs: exactly its block */
	copy[ra->max_lid] = copy[ra->max_lid] == 1 ? 2 : 1;
	fabric_free(c);
	c = load_paths(ra->max_lid);
	run = readback(&fk, c, ra, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.held);
	configure_held(&fk, c, ra, NULL, NULL, false, run.held);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], 1);
	program_held_free(run.held);
	copy[ra->max_lid] = ra->lft[s1][ra->max_lid];

	/* S2's block 0 does not answer: S2 unknown, written whole; S1 nothing */
	fk.fail_attr = WIRE_ATTR_LFT;
	fk.fail_mod = 0;
	fk.fail_hops = 2;
	fabric_free(c);
	c = load_paths(ra->max_lid);
	run = readback(&fk, c, ra, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.held);
	CU_ASSERT_EQUAL(run.st.errors, 1);
	CU_ASSERT_EQUAL(run.held->top[s2], -1);
	fk.fail_attr = 0xffff;
	configure_held(&fk, c, ra, NULL, NULL, false, run.held);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], blocks);
	program_held_free(run.held);

	/* a fresh switch (LinearFDBTop 0) is not read; a switch the snapshot knows neither */
	fabric_free(c);
	c = load_paths(0);
	run = readback(&fk, c, ra, NULL, NULL);
	CU_ASSERT_FALSE(run.done);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_LFT], 0);
	a->nodes[s1].lft_top = a->nodes[s2].lft_top = ra->max_lid; /* as a sweep leaves them */
	fabric_free(c);
	c = load_paths(ra->max_lid);
	run = readback(&fk, c, ra, a, ra);
	CU_ASSERT_FALSE(run.done);
	CU_ASSERT_EQUAL(fk.gets[WIRE_ATTR_LFT], 0);

	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(ra);
	fabric_free(a);
	fabric_free(c);
	free(copy);
}

/*
 * A PortInfo Set whose answer is lost and whose retry is refused is read
 * back: taken, it counts as done and the model holds it; not taken, it is
 * an error, and the state change that follows still carries the LID the SM
 * assigned, never the one the stale copy holds.
 */
static void test_lost_answers(void)
{
	struct xact_opts xo = {8, 30, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *f = load(), *g = load();
	struct routes *r = route(f);
	struct program_stats st;
	uint32_t h1 = testutil_find_desc(f, "H1");
	struct wire_portinfo pi;

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	fk.lose_hops = f->nodes[h1].dr_hops + 1; /* a CA port is reached through its link */

	/* only H1..H4 are one hop away: the first of their Sets is lost, then refused */
	memcpy(fk.held_pi, f->nodes[h1].ports[1].pi, sizeof(fk.held_pi));
	st = configure(&fk, f, r, NULL, NULL, false);
	CU_ASSERT_EQUAL(fk.lost, 5);	  /* four CA ports: one lost, its retry and three refused */
	CU_ASSERT_EQUAL(st.readbacks, 4); /* each failed Set read back */
	CU_ASSERT(st.recovered >= 1);	  /* the lost one had been taken */
	CU_ASSERT_EQUAL(st.errors + st.recovered, 4);

	/* nothing taken: an error, and the state change still writes the assigned LID */
	fk.refuse_all = true;
	fk.lost = 0;
	memcpy(fk.held_pi, g->nodes[h1].ports[1].pi, sizeof(fk.held_pi)); /* LID 0 */
	{
		struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
					    .engine = "minhop"};

		st = testutil_configure(fk.base, fk.xe, g, r, NULL, NULL, &pp, 5);
		CU_ASSERT_EQUAL(st.readbacks, 4);
		CU_ASSERT_EQUAL(st.recovered, 0);
		CU_ASSERT_EQUAL(st.errors, 4);
	}
	CU_ASSERT_EQUAL(wire_portinfo_decode(g->nodes[h1].ports[1].pi, 64, &pi), 0);
	CU_ASSERT_EQUAL(pi.lid, 0); /* the model holds what was read back */
	g->nodes[h1].ports[1].state = PORT_INIT;
	{
		struct testutil_batch run = {0};
		struct program *pg = program_new(fk.xe, g, testutil_batch_done, &run);

		fk.last_set_lid = 0;
		program_port_states(pg, PORT_INIT, PORT_ARMED);
		testutil_batch_run(fk.base, pg, &run, 5);
	}
	/* the arm Set of a CA port carried that port's assigned LID */
	CU_ASSERT(fk.last_set_lid != 0);
	{
		bool a_ca_lid = false;

		for (uint32_t i = 0; i < g->n_nodes; i++)
			if (!node_is_switch(&g->nodes[i]) &&
			    g->nodes[i].ports[1].lid == fk.last_set_lid)
				a_ca_lid = true;
		CU_ASSERT(a_ca_lid);
	}

	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(f);
	fabric_free(g);
}

/*
 * A switch whose LFT block failed gets no more blocks in that batch (they
 * would wait out the same timeouts, holding the window from the other
 * switches): counted as failed, not sent, and every block goes next time.
 */
static void test_lft_failed_skips(void)
{
	struct xact_opts xo = {2, 200, 1, false};
	struct fake fk = {.fail_attr = WIRE_ATTR_LFT, .fail_mod = 0};
	struct fabric *f = load();
	struct routes *r;
	struct program_stats st;
	uint32_t s2 = testutil_find_desc(f, "S2"), h4 = testutil_find_desc(f, "H4");
	unsigned blocks;

	f->nodes[h4].ports[1].lid = 1000; /* tables of 16 blocks */
	r = route(f);
	blocks = (r->max_lid + 1 + 63) / 64;
	CU_ASSERT_EQUAL_FATAL(blocks, 16);
	/* S2 one hop from S1 (the text gives every node the empty path): block 0 of S2 only */
	f->nodes[s2].dr_hops = 1;
	f->nodes[s2].dr_path[1] = 3;
	fk.fail_hops = 1;
	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);

	st = configure(&fk, f, r, NULL, NULL, false);
	/* S1's 16 went, S2's stopped after block 0 failed (window 2: a few were out already) */
	CU_ASSERT(st.lft_skipped >= blocks - 4);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT] + st.lft_skipped, 2 * blocks);
	CU_ASSERT_EQUAL(st.errors, 1 + st.lft_skipped);
	CU_ASSERT_EQUAL(f->nodes[s2].lft_top, 0xffff); /* rewritten whole next time */

	/* next time (against what was published, S2's top as set): every block of S2, none of S1 */
	{
		struct fabric *o = fabric_clone(f);
		uint32_t s1 = testutil_find_desc(f, "S1");

		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		o->nodes[s2].lft_top = f->nodes[s1].lft_top;
		fk.fail_attr = 0xffff;
		st = configure(&fk, f, r, o, r, false);
		CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_LFT], blocks);
		CU_ASSERT_EQUAL(st.errors, 0);
		CU_ASSERT_EQUAL(st.lft_skipped, 0);
		fabric_free(o);
	}

	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(f);
}

/* The peer table: the CA's keys packed, a limited key dropped where the full one is there. */
static void test_peer_pkeys(void)
{
	const uint16_t ca[] = {0xffff, 0, 0x0001, 0x8001, 0x0002, 0};
	uint16_t out[8] = {0};

	CU_ASSERT_EQUAL(program_peer_pkeys(ca, 6, out, 8), 3);
	CU_ASSERT_EQUAL(out[0], 0xffff);
	CU_ASSERT_EQUAL(out[1], 0x8001);
	CU_ASSERT_EQUAL(out[2], 0x0002);
	/* no room: counted, not written past cap */
	memset(out, 0, sizeof(out));
	CU_ASSERT_EQUAL(program_peer_pkeys(ca, 6, out, 2), 3);
	CU_ASSERT_EQUAL(out[2], 0);
	CU_ASSERT_EQUAL(program_peer_pkeys(ca, 0, out, 8), 0);
}

/* SwitchInfo of switch desc in f: PartitionEnforcementCap cap, Inbound/OutboundEnforcementCap. */
static void set_enforce_caps(struct fabric *f, const char *desc, unsigned cap, bool in, bool out)
{
	struct node *n = &f->nodes[testutil_find_desc(f, desc)];
	struct wire_switchinfo si;

	CU_ASSERT_EQUAL_FATAL(wire_switchinfo_decode(n->si, sizeof(n->si), &si), 0);
	si.partition_enf_cap = (uint16_t)cap;
	si.enf_in_cap = in;
	si.enf_out_cap = out;
	CU_ASSERT_EQUAL_FATAL(wire_switchinfo_encode(&si, n->si, sizeof(n->si)), 0);
}

static struct wire_portinfo port_pi(const struct fabric *f, const char *desc, uint8_t pn)
{
	struct wire_portinfo pi;

	CU_ASSERT_EQUAL(
	    wire_portinfo_decode(f->nodes[testutil_find_desc(f, desc)].ports[pn].pi, 64, &pi), 0);
	return pi;
}

static struct program_stats configure_parts(struct fake *fk, struct fabric *f,
					    const struct routes *r,
					    const struct partition_config *parts, int enforce)
{
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
				    .engine = "minhop",
				    .parts = parts,
				    .part_enforce = enforce};

	return configure_pp(fk, f, r, NULL, NULL, &pp);
}

/*
 * part_enforce: switch ports facing CAs get the CA's table, block by block
 * against what they hold, within PartitionEnforcementCap; the enforcement
 * bits where the switch can; none between switches; off clears them.
 */
static void test_enforce(void)
{
	struct xact_opts xo = {8, 200, 1, false};
	struct fake fk = {.fail_attr = 0xffff};
	struct fabric *f = load();
	struct routes *r = route(f);
	struct partition_config *parts = NULL;
	struct program_stats st;
	char text[512], err[256];
	uint32_t s1 = testutil_find_desc(f, "S1"), s2 = testutil_find_desc(f, "S2");
	uint64_t h1 = f->nodes[testutil_find_desc(f, "H1")].ports[1].guid;
	uint64_t h2 = f->nodes[testutil_find_desc(f, "H2")].ports[1].guid;
	uint64_t h3 = f->nodes[testutil_find_desc(f, "H3")].ports[1].guid;

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	snprintf(text, sizeof(text),
		 "Default=0x7fff : ALL=limited;\nRed=0x0001 : 0x%llx=full, 0x%llx=both;\n"
		 "Blue=0x0002 : 0x%llx;\n",
		 (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h3);
	CU_ASSERT_EQUAL_FATAL(partition_parse("t", text, strlen(text), &parts, err, sizeof(err)),
			      0);
	parts->allow_both = true;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		f->nodes[i].partition_cap = 64;
	/* S1 enforces inbound only; S2 holds a single key a port */
	set_enforce_caps(f, "S1", 64, true, false);
	set_enforce_caps(f, "S2", 1, true, true);

	st = configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_BOTH);
	CU_ASSERT_EQUAL(st.errors, 0);
	/* block 0 of S1's ports 1, 2 and S2's 1, 2 (one entry); nothing of a port between switches
	 */
	CU_ASSERT_EQUAL(st.enforce_blocks, 4);
	CU_ASSERT_FALSE(f->nodes[s1].ports[3].pkey_known);
	/* only the ports given a table hold one */
	CU_ASSERT_PTR_NULL(f->nodes[s1].ports[3].pkeys);
	CU_ASSERT_FATAL(f->nodes[s1].ports[1].pkeys && f->nodes[s1].ports[2].pkeys &&
			f->nodes[s2].ports[1].pkeys);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[1].pkeys[0], 0x7fff);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[1].pkeys[1], 0x8001);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[1].pkeys[2], 0);
	/* H2 holds Red twice (both): its switch port once, full */
	CU_ASSERT_EQUAL(f->nodes[s1].ports[2].pkeys[0], 0x7fff);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[2].pkeys[1], 0x8001);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[2].pkeys[2], 0);
	/* H3 holds 2 keys, its switch port room for 1: the first written, enforcement off */
	CU_ASSERT_EQUAL(st.enforce_unfit, 1);
	CU_ASSERT_EQUAL(f->nodes[s2].ports[1].pkeys[0], 0x7fff);
	CU_ASSERT_EQUAL(port_pi(f, "S2", 1).part_enf_in, 0);
	CU_ASSERT_EQUAL(port_pi(f, "S2", 2).part_enf_in, 1); /* H4: one key, it fits */
	CU_ASSERT_EQUAL(port_pi(f, "S2", 2).part_enf_out, 1);
	/* S1: inbound only, as its SwitchInfo says */
	CU_ASSERT_EQUAL(port_pi(f, "S1", 1).part_enf_in, 1);
	CU_ASSERT_EQUAL(port_pi(f, "S1", 1).part_enf_out, 0);
	CU_ASSERT_EQUAL(port_pi(f, "S1", 3).part_enf_in, 0);

	/* again on what the ports now hold: no block, no PortInfo for enforcement */
	st = configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_BOTH);
	CU_ASSERT_EQUAL(st.enforce_blocks, 0);
	CU_ASSERT_EQUAL(fk.sets[WIRE_ATTR_PKEY_TABLE], 0);

	/* in: Outbound cleared where it was set; out: Inbound cleared */
	configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_OUT);
	CU_ASSERT_EQUAL(port_pi(f, "S2", 2).part_enf_in, 0);
	CU_ASSERT_EQUAL(port_pi(f, "S2", 2).part_enf_out, 1);
	CU_ASSERT_EQUAL(port_pi(f, "S1", 1).part_enf_in, 0);

	/* off: both bits cleared, no table written even where the CA's changed */
	configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_BOTH);
	CU_ASSERT_EQUAL(port_pi(f, "S1", 1).part_enf_in, 1);
	f->nodes[s1].ports[1].pkeys[1] = 0x8005; /* as if the switch port held another key */
	st = configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_OFF);
	CU_ASSERT_EQUAL(st.enforce_blocks, 0);
	CU_ASSERT_EQUAL(port_pi(f, "S1", 1).part_enf_in, 0);
	CU_ASSERT_EQUAL(port_pi(f, "S2", 2).part_enf_out, 0);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[1].pkeys[1], 0x8005);
	/* on again: that block rewritten, only it */
	st = configure_parts(&fk, f, r, parts, PROGRAM_ENFORCE_BOTH);
	CU_ASSERT_EQUAL(st.enforce_blocks, 1);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[1].pkeys[1], 0x8001);

	partition_config_free(parts);
	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"configure sends only what differs", test_configure_diffs},
	    {"configure with a scope: the ports of its nodes only", test_configure_scope},
	    {"empty batch, aborted batch", test_empty_and_abort},
	    {"QoS: SL2VL and VLArb per class, only what changed", test_configure_qos},
	    {"lifetimes: LifeTimeValue and HOQLife, only where they differ",
	     test_configure_lifetimes},
	    {"LFT readback: only what differs is written", test_readback},
	    {"lost PortInfo answers are read back", test_lost_answers},
	    {"a switch whose LFT block failed gets no more in the batch", test_lft_failed_skips},
	    {"part_enforce: the peer table", test_peer_pkeys},
	    {"part_enforce: switch ports facing CAs", test_enforce},
	    {NULL, NULL},
	};

	return testutil_run("program", cases);
}

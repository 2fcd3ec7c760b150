/*
 * Unit tests of M_Key (smp/mkey.c, its use in smp/program.c and mad/xact.c).
 * ibsim implements no M_Key, so this is where the logic is shown: the SMA's
 * check at every protection level (IBA 14.2.4.2), the lease (14.2.4.3), what
 * the SM makes of a PortInfo it read, the bounded offender table, and a
 * programming batch against SMAs modelled by mkey_sma: every PortInfo Set
 * and every SMP carries the key, a port showing another key is not written
 * and counted, a port hiding another key drops the Set and it is counted as
 * unanswered, and a second batch over what the ports now hold writes no
 * M_Key again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <event2/event.h>

#include "mad/wire.h"
#include "mad/xact.h"
#include "routing/routing.h"
#include "smp/mkey.h"
#include "smp/program.h"
#include "tests/testutil.h"

#define K 0x1122334455667788ULL
#define F 0x0badc0de0badc0deULL

static void test_check(void)
{
	/* a port holding M_Key 0 takes anything; the right key passes everywhere */
	for (unsigned p = 0; p < 4; p++) {
		CU_ASSERT_EQUAL(mkey_sma_check(0, p, F, WIRE_SET), MKEY_PASS);
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, K, WIRE_SET), MKEY_PASS);
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, K, WIRE_GET), MKEY_PASS);
		/* a wrong key: Set and TrapRepress fail at every level */
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, F, WIRE_SET), MKEY_FAIL);
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, 0, WIRE_SET), MKEY_FAIL);
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, F, WIRE_TRAP_REPRESS), MKEY_FAIL);
		/* responses and traps are not checked */
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, F, WIRE_GET_RESP), MKEY_PASS);
		CU_ASSERT_EQUAL(mkey_sma_check(K, p, F, WIRE_TRAP), MKEY_PASS);
	}
	/* a wrong key's Get: level 0 answered, 1 answered with the key hidden, 2-3 dropped */
	CU_ASSERT_EQUAL(mkey_sma_check(K, 0, F, WIRE_GET), MKEY_PASS);
	CU_ASSERT_EQUAL(mkey_sma_check(K, 1, F, WIRE_GET), MKEY_PASS_HIDDEN);
	CU_ASSERT_EQUAL(mkey_sma_check(K, 2, F, WIRE_GET), MKEY_FAIL);
	CU_ASSERT_EQUAL(mkey_sma_check(K, 3, F, WIRE_GET), MKEY_FAIL);
}

static void test_lease(void)
{
	struct mkey_sma s = {.key = K, .protect = 2, .lease_s = 10};

	/* a failure starts the lease; another one does not restart it */
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_GET, 1000), MKEY_FAIL);
	CU_ASSERT_TRUE(s.lease_running);
	CU_ASSERT_EQUAL(s.lease_end_ms, 11000);
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_SET, 5000), MKEY_FAIL);
	CU_ASSERT_EQUAL(s.lease_end_ms, 11000);
	CU_ASSERT_EQUAL(s.violations, 2);
	/* the right key before it runs out stops it: protection stays */
	CU_ASSERT_EQUAL(mkey_sma_process(&s, K, WIRE_GET, 9000), MKEY_PASS);
	CU_ASSERT_FALSE(s.lease_running);
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_GET, 20000), MKEY_FAIL);
	CU_ASSERT_EQUAL(s.protect, 2);
	/* ... and when it runs out, the protect bits drop to 0: Gets pass, Sets still fail */
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_GET, 30000), MKEY_PASS);
	CU_ASSERT_EQUAL(s.protect, 0);
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_SET, 30001), MKEY_FAIL);
	/* lease 0: never runs out */
	s = (struct mkey_sma){.key = K, .protect = 3};
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_GET, 0), MKEY_FAIL);
	CU_ASSERT_FALSE(s.lease_running);
	CU_ASSERT_EQUAL(mkey_sma_process(&s, F, WIRE_GET, 1000000000), MKEY_FAIL);
	/* violations saturate */
	s.violations = UINT16_MAX;
	mkey_sma_process(&s, F, WIRE_GET, 1);
	CU_ASSERT_EQUAL(s.violations, UINT16_MAX);
}

static void test_classify_apply(void)
{
	struct wire_portinfo pi = {0}, want = {0};
	struct mkey_policy pol = {K, 2, 60};

	CU_ASSERT_EQUAL(mkey_port_classify(&pi, K), MKEY_PORT_OPEN);
	pi.mkey_protect = 1;
	CU_ASSERT_EQUAL(mkey_port_classify(&pi, K), MKEY_PORT_UNKNOWN);
	CU_ASSERT_TRUE(mkey_set_may_pass(MKEY_PORT_UNKNOWN));
	pi.mkey = K;
	CU_ASSERT_EQUAL(mkey_port_classify(&pi, K), MKEY_PORT_OURS);
	pi.mkey = F;
	CU_ASSERT_EQUAL(mkey_port_classify(&pi, K), MKEY_PORT_FOREIGN);
	CU_ASSERT_EQUAL(mkey_port_classify(&pi, 0), MKEY_PORT_FOREIGN);
	CU_ASSERT_FALSE(mkey_set_may_pass(MKEY_PORT_FOREIGN));
	CU_ASSERT_STRING_EQUAL(mkey_port_state_name(MKEY_PORT_FOREIGN), "foreign");

	mkey_apply(&pol, &want);
	CU_ASSERT_EQUAL(want.mkey, K);
	CU_ASSERT_EQUAL(want.mkey_protect, 2);
	CU_ASSERT_EQUAL(want.mkey_lease, 60);
	CU_ASSERT_TRUE(mkey_differs(&pi, &want));
	pi = want;
	CU_ASSERT_FALSE(mkey_differs(&pi, &want));
	/* no key: M_Key 0, the protect bits and lease left as the port has them */
	pol.key = 0;
	want.mkey_lease = 15;
	mkey_apply(&pol, &want);
	CU_ASSERT_EQUAL(want.mkey, 0);
	CU_ASSERT_EQUAL(want.mkey_protect, 2);
	CU_ASSERT_EQUAL(want.mkey_lease, 15);
}

static void test_offenders(void)
{
	struct mkey_offenders *t = calloc(1, sizeof(*t));
	struct mkey_offender *o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	o = mkey_offender_get(t, 0x10, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	o->traps++;
	/* the same GUID under a new LID is the same port */
	CU_ASSERT_PTR_EQUAL(mkey_offender_get(t, 0x10, 6), o);
	CU_ASSERT_EQUAL(o->lid, 6);
	/* no GUID: by LID, apart from the GUID entries */
	CU_ASSERT_PTR_NOT_EQUAL(mkey_offender_get(t, 0, 6), o);
	CU_ASSERT_EQUAL(t->n, 2);
	/* a flood of forged traps naming new LIDs: the table stays bounded */
	for (unsigned i = 0; i < 10000; i++)
		mkey_offender_get(t, 0, (uint16_t)(100 + i));
	CU_ASSERT_EQUAL(t->n, MKEY_OFFENDERS_MAX);
	CU_ASSERT_EQUAL(t->others, 10000 - (MKEY_OFFENDERS_MAX - 2));
	CU_ASSERT_PTR_EQUAL(mkey_offender_get(t, 0x10, 6), o); /* old entries still found */
	free(t);
}

/* ---- a programming batch against modelled SMAs ------------------------- */

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	struct mkey_sma sma[64]; /* by the LID a PortInfo Set addresses */
	bool ca[64];		 /* LIDs of CA ports: the M_Key fields of their Sets apply */
	unsigned smps, smps_keyed, pi_sets, mkey_fields, dropped;
	uint64_t now_ms;
};

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
	struct wire_portinfo pi;

	CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	fk->smps++;
	fk->smps_keyed += s.mkey == K;
	if (s.attr_id == WIRE_ATTR_PORT_INFO && s.method == WIRE_SET &&
	    wire_portinfo_decode(s.data, sizeof(s.data), &pi) == 0 && pi.lid < 64) {
		struct mkey_sma *sma = &fk->sma[pi.lid];

		fk->pi_sets++;
		if (mkey_sma_process(sma, s.mkey, s.method, fk->now_ms++) == MKEY_FAIL) {
			fk->dropped++;
			return 0; /* dropped without an answer */
		}
		if (fk->ca[pi.lid]) {
			fk->mkey_fields +=
			    pi.mkey == K && pi.mkey_protect == 2 && pi.mkey_lease == 60;
			sma->key = pi.mkey;
			sma->protect = pi.mkey_protect;
			sma->lease_s = pi.mkey_lease;
		}
	}
	a = calloc(1, sizeof(*a));
	CU_ASSERT_FATAL(a != NULL);
	s.method = WIRE_GET_RESP;
	s.direction = true;
	a->fk = fk;
	CU_ASSERT_FATAL(wire_smp_encode(&s, a->mad, sizeof(a->mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, answer_cb, a, &tv) == 0);
	return 0;
}

static const char net[] = "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"S2\"[3]\n\n"
			  "Switch 8 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"S1\"[3]\n\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
			  "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n";

static struct program_stats configure(struct fake *fk, struct fabric *f, const struct routes *r,
				      struct mkey_offenders *off)
{
	struct program_params pp = {.subnet_prefix = 0xfe80000000000000ULL,
				    .engine = "minhop",
				    .mkey = {K, 2, 60},
				    .offenders = off};

	return testutil_configure(fk->base, fk->xe, f, r, NULL, NULL, &pp, 10);
}

/* Set what discovery read on a CA's port 1: M_Key and protect bits. */
static struct port *ca_port(struct fabric *f, const char *desc, uint64_t mkey, uint8_t protect)
{
	struct port *p = &f->nodes[testutil_find_desc(f, desc)].ports[1];
	struct wire_portinfo pi;

	CU_ASSERT_FATAL(wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) == 0);
	pi.mkey = mkey;
	pi.mkey_protect = protect;
	wire_portinfo_encode(&pi, p->pi, sizeof(p->pi));
	return p;
}

static void test_program(void)
{
	struct xact_opts xo = {8, 20, 1, false};
	struct fake fk = {0};
	struct fabric *f = testutil_load_text(net);
	struct mkey_offenders *off = calloc(1, sizeof(*off));
	struct routes *r = NULL;
	struct program_stats st;
	struct port *h3, *h4;
	char why[128];

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(off);
	testutil_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(minhop_compute(f, NULL, &r, why, sizeof(why)), 0);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (!node_is_switch(&f->nodes[i]))
			fk.ca[f->nodes[i].ports[1].lid] = true;
	/* H3 shows another SM's key; H4 hides one (reads 0, protect bits 1) */
	h3 = ca_port(f, "H3", F, 0);
	fk.sma[h3->lid] = (struct mkey_sma){.key = F, .protect = 0};
	h4 = ca_port(f, "H4", 0, 1);
	fk.sma[h4->lid] = (struct mkey_sma){.key = F, .protect = 1};

	fk.base = event_base_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.base);
	fk.xe = xact_new(fk.base, &xo, fake_send, &fk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fk.xe);
	xact_set_mkey(fk.xe, K);

	st = configure(&fk, f, r, off);
	/* every SMP carried our key */
	CU_ASSERT(fk.smps > 0);
	CU_ASSERT_EQUAL(fk.smps_keyed, fk.smps);
	/* H1 and H2 took K, protect 2, lease 60; H3 was not written; H4 dropped it */
	CU_ASSERT_EQUAL(fk.mkey_fields, 2);
	CU_ASSERT_EQUAL(fk.sma[f->nodes[testutil_find_desc(f, "H1")].ports[1].lid].key, K);
	CU_ASSERT_EQUAL(fk.sma[h3->lid].key, F);
	CU_ASSERT_EQUAL(fk.sma[h3->lid].violations, 0); /* never sent what it would drop */
	CU_ASSERT_EQUAL(st.mkey_refused, 1);
	CU_ASSERT_EQUAL(st.mkey_unanswered, 1);
	CU_ASSERT(fk.sma[h4->lid].violations >= 1); /* the Set and its retry */
	CU_ASSERT_EQUAL(fk.dropped, fk.sma[h4->lid].violations);
	CU_ASSERT_EQUAL(off->n, 2);
	CU_ASSERT_PTR_NOT_NULL(mkey_offender_get(off, h3->guid, h3->lid));
	CU_ASSERT_EQUAL(mkey_offender_get(off, h3->guid, h3->lid)->refused, 1);
	CU_ASSERT_EQUAL(mkey_offender_get(off, h4->guid, h4->lid)->refused, 1);

	/* again over what the ports now hold: H1, H2 and the switches need no PortInfo Set */
	fk.pi_sets = 0;
	st = configure(&fk, f, r, off);
	CU_ASSERT_EQUAL(st.mkey_refused, 1); /* H3 still */
	CU_ASSERT(fk.pi_sets <= 2);	     /* H4's Set and its retry, nothing else */

	xact_free(fk.xe);
	event_base_free(fk.base);
	routes_free(r);
	fabric_free(f);
	free(off);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"SMA check at every protection level", test_check},
	    {"lease: started, stopped, run out", test_lease},
	    {"classify a PortInfo, apply the policy", test_classify_apply},
	    {"offenders: by GUID, by LID, bounded", test_offenders},
	    {"programming against modelled SMAs", test_program},
	    {NULL, NULL},
	};
	return testutil_run("mkey", cases);
}

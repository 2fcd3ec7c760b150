/*
 * Unit tests of failover/smstate.c's pure rules: the election order, the SMInfo
 * Set transitions (IBA 1.4 vol 1, 14.4.1 table 185 as OpenSM checks it), the
 * directed route back to a DR requester.
 */
#include <errno.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "mad/wire.h"
#include "sm/sm.h"
#include "failover/smstate.h"
#include "tests/testutil.h"

static void test_better(void)
{
	/* priority first */
	CU_ASSERT_TRUE(smstate_better(14, 0x200, 0, 0x100));
	CU_ASSERT_FALSE(smstate_better(0, 0x100, 14, 0x200));
	/* equal priority: the lower port GUID */
	CU_ASSERT_TRUE(smstate_better(5, 0x100, 5, 0x200));
	CU_ASSERT_FALSE(smstate_better(5, 0x200, 5, 0x100));
	/* never better than itself */
	CU_ASSERT_FALSE(smstate_better(5, 0x100, 5, 0x100));
	/* a strict order: exactly one of two different SMs wins */
	for (unsigned pa = 0; pa < 16; pa += 5)
		for (unsigned pb = 0; pb < 16; pb += 5)
			for (uint64_t ga = 1; ga < 4; ga++)
				for (uint64_t gb = 1; gb < 4; gb++) {
					if (pa == pb && ga == gb)
						continue;
					CU_ASSERT_NOT_EQUAL(smstate_better(pa, ga, pb, gb),
							    smstate_better(pb, gb, pa, ga));
				}
}

static void test_transitions(void)
{
	static const struct {
		int ours, sender;
		uint32_t mod;
		int to;
	} tab[] = {
	    /* HANDOVER: from a master only */
	    {SM_STANDBY, SM_MASTER, WIRE_SMINFO_HANDOVER, SM_MASTER},
	    {SM_MASTER, SM_MASTER, WIRE_SMINFO_HANDOVER, SM_MASTER},
	    {SM_DISCOVERING, SM_MASTER, WIRE_SMINFO_HANDOVER, SM_DISCOVERING},
	    {SM_NOTACTIVE, SM_MASTER, WIRE_SMINFO_HANDOVER, -EINVAL},
	    {SM_STANDBY, SM_STANDBY, WIRE_SMINFO_HANDOVER, -EINVAL},
	    {SM_STANDBY, SM_NOTACTIVE, WIRE_SMINFO_HANDOVER, -EINVAL},
	    /* ACKNOWLEDGE: from a standby only */
	    {SM_MASTER, SM_STANDBY, WIRE_SMINFO_ACKNOWLEDGE, SM_STANDBY},
	    {SM_STANDBY, SM_STANDBY, WIRE_SMINFO_ACKNOWLEDGE, SM_STANDBY},
	    {SM_MASTER, SM_MASTER, WIRE_SMINFO_ACKNOWLEDGE, -EINVAL},
	    {SM_MASTER, SM_DISCOVERING, WIRE_SMINFO_ACKNOWLEDGE, -EINVAL},
	    {SM_NOTACTIVE, SM_STANDBY, WIRE_SMINFO_ACKNOWLEDGE, -EINVAL},
	    /* DISABLE: a standby, from a master */
	    {SM_STANDBY, SM_MASTER, WIRE_SMINFO_DISABLE, SM_NOTACTIVE},
	    {SM_MASTER, SM_MASTER, WIRE_SMINFO_DISABLE, -EINVAL},
	    {SM_STANDBY, SM_STANDBY, WIRE_SMINFO_DISABLE, -EINVAL},
	    {SM_DISCOVERING, SM_MASTER, WIRE_SMINFO_DISABLE, -EINVAL},
	    /* STANDBY: a NOTACTIVE SM, from a master */
	    {SM_NOTACTIVE, SM_MASTER, WIRE_SMINFO_STANDBY, SM_STANDBY},
	    {SM_STANDBY, SM_MASTER, WIRE_SMINFO_STANDBY, -EINVAL},
	    {SM_MASTER, SM_MASTER, WIRE_SMINFO_STANDBY, -EINVAL},
	    {SM_NOTACTIVE, SM_STANDBY, WIRE_SMINFO_STANDBY, -EINVAL},
	    /* DISCOVER: a standby or a master, from a master */
	    {SM_STANDBY, SM_MASTER, WIRE_SMINFO_DISCOVER, SM_DISCOVERING},
	    {SM_MASTER, SM_MASTER, WIRE_SMINFO_DISCOVER, SM_DISCOVERING},
	    {SM_NOTACTIVE, SM_MASTER, WIRE_SMINFO_DISCOVER, -EINVAL},
	    {SM_STANDBY, SM_DISCOVERING, WIRE_SMINFO_DISCOVER, -EINVAL},
	    /* no such modifier */
	    {SM_STANDBY, SM_MASTER, 0, -EINVAL},
	    {SM_STANDBY, SM_MASTER, 6, -EINVAL},
	    {SM_STANDBY, SM_MASTER, 0xffffffffu, -EINVAL},
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		int got = smstate_set_transition(tab[i].ours, tab[i].sender, tab[i].mod);

		if (got != tab[i].to)
			fprintf(stderr, "row %zu: ours %d sender %d mod %u: got %d want %d\n", i,
				tab[i].ours, tab[i].sender, tab[i].mod, got, tab[i].to);
		CU_ASSERT_EQUAL(got, tab[i].to);
	}
}

/*
 * A DR request from an SM three hops away (its port 1, switch A port 4,
 * switch B port 7) entered switch A by 2, switch B by 5 and us by 1: the
 * route back leaves our port 1, then B's 5, then A's 2.
 */
static void test_reverse_path(void)
{
	struct wire_smp req;
	uint8_t path[64], hops = 0;
	const uint8_t init[4] = {0, 1, 4, 7};

	CU_ASSERT_EQUAL_FATAL(wire_smp_init_dr(&req, WIRE_GET, WIRE_ATTR_SM_INFO, 0, init, 3), 0);
	req.return_path[1] = 2;
	req.return_path[2] = 5;
	req.return_path[3] = 1;
	CU_ASSERT_EQUAL(smstate_reverse_path(&req, path, &hops), 0);
	CU_ASSERT_EQUAL(hops, 3);
	CU_ASSERT_EQUAL(path[1], 1);
	CU_ASSERT_EQUAL(path[2], 5);
	CU_ASSERT_EQUAL(path[3], 2);
	CU_ASSERT_EQUAL(path[4], 0);
	/* from our own port (0 hops): no route to another SM */
	req.hop_cnt = 0;
	CU_ASSERT_EQUAL(smstate_reverse_path(&req, path, &hops), -EINVAL);
	req.hop_cnt = 64;
	CU_ASSERT_EQUAL(smstate_reverse_path(&req, path, &hops), -EINVAL);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"election order", test_better},
	    {"SMInfo Set transitions", test_transitions},
	    {"the route back to a DR requester", test_reverse_path},
	    {NULL, NULL},
	};

	return testutil_run("smstate", cases);
}

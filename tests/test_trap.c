/*
 * Unit tests of trap handling (sm/trap.c, mad/wire.c's Notice decoder): the
 * data details of every SM trap at their IBA offsets, and what the SM does
 * with each number from each kind of sender: a switch's 128 sweeps, a CA's
 * is refused, an unknown LID is refused, 129-131 are port errors, 256-259
 * key violations, vendor traps and other numbers ignored; before the first
 * snapshot every sweeping trap is taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/snapshot.h"
#include "mad/wire.h"
#include "routing/routing.h"
#include "sm/trap.h"
#include "tests/testutil.h"
#include "tests/topogen.h"

/* A generic Notice: IsGeneric, type, producer, trap number, issuer. */
static void notice(uint8_t d[64], unsigned num, uint16_t issuer)
{
	memset(d, 0, 64);
	d[0] = 0x80 | 1;
	d[3] = 2;
	d[4] = (uint8_t)(num >> 8);
	d[5] = (uint8_t)num;
	d[6] = (uint8_t)(issuer >> 8);
	d[7] = (uint8_t)issuer;
}

static void test_decode(void)
{
	uint8_t d[64];
	struct wire_notice n;

	notice(d, 128, 7);
	d[8] = 0x80 | 0x01; /* toggle, count 0x123 */
	d[9] = 0x23;
	d[10] = 0x00;
	d[11] = 0x07;
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT(n.generic);
	CU_ASSERT_EQUAL(n.type, 1);
	CU_ASSERT_EQUAL(n.producer, 2);
	CU_ASSERT_EQUAL(n.trap_num, 128);
	CU_ASSERT_EQUAL(n.issuer_lid, 7);
	CU_ASSERT(n.toggle);
	CU_ASSERT_EQUAL(n.count, 0x123);
	CU_ASSERT_EQUAL(n.lid, 7);

	notice(d, 129, 9);
	d[12] = 0x01;
	d[13] = 0x02;
	d[14] = 17;
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(n.lid, 0x0102);
	CU_ASSERT_EQUAL(n.port, 17);

	/* 144 as our own encoder writes it */
	CU_ASSERT_EQUAL_FATAL(wire_trap144_encode(0x33, 1, 0x02510a6a, d, sizeof(d)), 0);
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(n.trap_num, 144);
	CU_ASSERT_EQUAL(n.issuer_lid, 0x33);
	CU_ASSERT_EQUAL(n.lid, 0x33);
	CU_ASSERT_EQUAL(n.capmask, 0x02510a6a);

	notice(d, 145, 4);
	d[13] = 4;
	for (int i = 0; i < 8; i++)
		d[16 + i] = (uint8_t)(0x11 * (i + 1));
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(n.lid, 4);
	CU_ASSERT_EQUAL(n.sys_guid, 0x1122334455667788ULL);

	notice(d, 256, 5);
	d[13] = 5;    /* the port whose M_Key was wrong */
	d[15] = 9;    /* DR SLID */
	d[16] = 0x02; /* method Set */
	d[18] = 0x00; /* attribute 0x0015 PortInfo */
	d[19] = 0x15;
	d[23] = 3;    /* modifier */
	d[24] = 0xde; /* M_Key 0xde00...00ad */
	d[31] = 0xad;
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(n.lid, 5);
	CU_ASSERT_EQUAL(n.lid2, 9);
	CU_ASSERT_EQUAL(n.method, 2);
	CU_ASSERT_EQUAL(n.attr_id, 0x15);
	CU_ASSERT_EQUAL(n.attr_mod, 3);
	CU_ASSERT_EQUAL(n.key, 0xde000000000000adULL);

	notice(d, 257, 5);
	d[13] = 5;
	d[15] = 6;
	d[18] = 0x7f;
	d[19] = 0xff;
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(n.lid, 5);
	CU_ASSERT_EQUAL(n.lid2, 6);
	CU_ASSERT_EQUAL(n.key, 0x7fff);

	/* a vendor trap: only the header */
	notice(d, 0x1234, 5);
	d[0] = 0x01;
	d[10] = 0xff;
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT(!n.generic);
	CU_ASSERT_EQUAL(n.lid, 0);

	CU_ASSERT_EQUAL(wire_notice_decode(d, 63, &n), -EBADMSG);
	CU_ASSERT_EQUAL(wire_notice_decode(NULL, 64, &n), -EBADMSG);
}

/* A published 2-level fat tree; its first switch's and first CA's LIDs. */
static struct snapshot *fabric_snapshot(uint16_t *sw_lid, uint16_t *ca_lid, uint16_t *max_lid)
{
	char *text = topogen_fat_tree(2, 4, 0, 0);
	struct fabric *f = testutil_load_text(text);
	struct routes *r = NULL;
	struct snapshot *s = NULL;
	char why[256];

	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	*max_lid = testutil_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(routing_find("minhop")->compute(f, NULL, &r, why, sizeof(why)), 0);
	*sw_lid = *ca_lid = 0;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct node *n = &f->nodes[i];
		if (node_is_switch(n) && !*sw_lid)
			*sw_lid = n->ports[0].lid;
		if (!node_is_switch(n) && !*ca_lid)
			*ca_lid = n->ports[1].lid;
	}
	CU_ASSERT_FATAL(*sw_lid && *ca_lid);
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, r, 1, &s), 0);
	return s;
}

static enum trap_action classify(unsigned num, uint16_t slid, const struct snapshot *s, char *why)
{
	uint8_t d[64];
	struct wire_notice n;

	notice(d, num, slid);
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	return trap_classify(&n, slid, s, why, 160);
}

static void test_classify(void)
{
	uint16_t sw, ca, top;
	struct snapshot *s = fabric_snapshot(&sw, &ca, &top);
	char why[160];
	uint8_t d[64];
	struct wire_notice n;

	CU_ASSERT_EQUAL(classify(128, sw, s, why), TRAP_SWEEP);
	CU_ASSERT_EQUAL(classify(128, ca, s, why), TRAP_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "only switches send trap 128"));
	CU_ASSERT_EQUAL(classify(128, top + 10, s, why), TRAP_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "is no port of the fabric"));
	CU_ASSERT_EQUAL(classify(144, ca, s, why), TRAP_SWEEP);
	CU_ASSERT_EQUAL(classify(144, sw, s, why), TRAP_SWEEP);
	CU_ASSERT_EQUAL(classify(144, top + 10, s, why), TRAP_REFUSED);
	CU_ASSERT_EQUAL(classify(145, ca, s, why), TRAP_SWEEP);
	for (unsigned t = 129; t <= 131; t++)
		CU_ASSERT_EQUAL(classify(t, sw, s, why), TRAP_PORT_ERROR);
	for (unsigned t = 256; t <= 259; t++)
		CU_ASSERT_EQUAL(classify(t, ca, s, why), TRAP_KEY_VIOLATION);
	CU_ASSERT_EQUAL(classify(256, top + 10, s, why), TRAP_REFUSED);
	CU_ASSERT_EQUAL(classify(9999, sw, s, why), TRAP_IGNORED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "9999"));
	CU_ASSERT_EQUAL(classify(64, sw, s, why), TRAP_IGNORED); /* the SA's, not the SM's */
	CU_ASSERT_EQUAL(classify(0, sw, s, why), TRAP_IGNORED);
	notice(d, 128, sw);
	d[0] = 0x01; /* vendor */
	CU_ASSERT_EQUAL_FATAL(wire_notice_decode(d, sizeof(d), &n), 0);
	CU_ASSERT_EQUAL(trap_classify(&n, sw, s, why, sizeof(why)), TRAP_IGNORED);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "vendor"));

	/* before the first snapshot: nothing is known, a sweep is due anyway */
	CU_ASSERT_EQUAL(classify(128, 77, NULL, why), TRAP_SWEEP);
	CU_ASSERT_EQUAL(classify(144, 77, NULL, why), TRAP_SWEEP);
	CU_ASSERT_EQUAL(classify(9999, 77, NULL, why), TRAP_IGNORED);
	snapshot_free(s);

	for (int a = 0; a < TRAP_NACTIONS; a++)
		CU_ASSERT_STRING_NOT_EQUAL(trap_action_name(a), "?");
	CU_ASSERT_STRING_EQUAL(trap_action_name(TRAP_NACTIONS), "?");
	CU_ASSERT_PTR_NULL(trap_name(127));
	CU_ASSERT_STRING_EQUAL(trap_name(128), "link state change");
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"Notice data details at their offsets", test_decode},
	    {"what each trap from each sender does", test_classify},
	    {NULL, NULL},
	};

	return testutil_run("trap", cases);
}

/*
 * Unit tests of fabric/speed.c: the lane speed a port runs from PortInfo's
 * classic, extended and XDR fields (LinkSpeedActive 0 included), the
 * supported and enabled sets, the rate code of every width x lane speed
 * against the IBA's table (15.2.5.16, written out here by Gb/s), the data
 * rate of every code, and a link running below what both ends enable.
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "fabric/names.h"
#include "fabric/speed.h"
#include "tests/testutil.h"

static void test_lane_from_fields(void)
{
	struct speed_fields s = {.active = 4, .supported = 7, .enabled = 7};

	/* classic only: QDR, whatever the extended fields say */
	s.ext_active = 4;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_QDR);
	/* extended: the extended field wins, each value */
	s.ext = true;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_HDR);
	s.ext_active = 1;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_FDR);
	s.ext_active = 2;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_EDR);
	s.ext_active = 8;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_NDR);
	/* an extended value that is no speed: the classic one */
	s.ext_active = 3;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_QDR);
	/* LinkSpeedActive 0 means "see the extended field" */
	s.active = 0;
	s.ext_active = 8;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_NDR);
	s.ext_active = 0;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_NONE);
	/* XDR: the *2 field, only where it counts */
	s.ext2_active = 1;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_NONE);
	s.ext2 = true;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_XDR);
	s.ext_active = 8;
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_XDR);
	s.ext2_active = 2; /* reserved */
	CU_ASSERT_EQUAL(speed_active(&s), SPEED_NDR);
	/* classic values */
	CU_ASSERT_EQUAL(speed_classic(1), SPEED_SDR);
	CU_ASSERT_EQUAL(speed_classic(2), SPEED_DDR);
	CU_ASSERT_EQUAL(speed_classic(4), SPEED_QDR);
	CU_ASSERT_EQUAL(speed_classic(0), SPEED_NONE);
	CU_ASSERT_EQUAL(speed_classic(3), SPEED_NONE);
}

static void test_supported_enabled(void)
{
	struct speed_fields s = {.supported = 7, .enabled = 5};

	CU_ASSERT_EQUAL(speed_supported(&s),
			SPEED_BIT(SPEED_SDR) | SPEED_BIT(SPEED_DDR) | SPEED_BIT(SPEED_QDR));
	CU_ASSERT_EQUAL(speed_enabled(&s), SPEED_BIT(SPEED_SDR) | SPEED_BIT(SPEED_QDR));
	s.enabled = 15; /* "set to supported" */
	CU_ASSERT_EQUAL(speed_enabled(&s), speed_supported(&s));
	s.ext_supported = 0xf;
	s.ext_enabled = 0x6;
	CU_ASSERT_EQUAL(speed_supported(&s) & SPEED_BIT(SPEED_NDR), 0); /* ext does not count */
	s.ext = true;
	CU_ASSERT_EQUAL(speed_supported(&s), 0x1fe & ~SPEED_BIT(SPEED_XDR));
	CU_ASSERT_EQUAL(speed_enabled(&s) >> SPEED_FDR,
			(SPEED_BIT(SPEED_EDR) | SPEED_BIT(SPEED_HDR)) >> SPEED_FDR);
	s.ext_enabled = 30; /* extended speeds off */
	CU_ASSERT_EQUAL(speed_enabled(&s), speed_supported(&s) & 0x0e);
	s.ext_enabled = 31; /* all it supports */
	CU_ASSERT_EQUAL(speed_enabled(&s), speed_supported(&s));
	s.ext2_supported = 1;
	s.ext2_enabled = 1;
	CU_ASSERT_FALSE(speed_supported(&s) & SPEED_BIT(SPEED_XDR));
	s.ext2 = true;
	CU_ASSERT_TRUE(speed_supported(&s) & SPEED_BIT(SPEED_XDR));
	CU_ASSERT_TRUE(speed_enabled(&s) & SPEED_BIT(SPEED_XDR));
}

/* Every width x lane speed: the IBA's rate, by Gb/s (0: the table has none, the code is 24). */
static void test_rate_table(void)
{
	static const struct {
		uint8_t lane;
		double gbps[5]; /* 1x 2x 4x 8x 12x */
	} want[] = {
	    {SPEED_SDR, {2.5, 5, 10, 20, 30}},	     {SPEED_DDR, {5, 10, 20, 40, 60}},
	    {SPEED_QDR, {10, 20, 40, 80, 120}},	     {SPEED_FDR, {14, 28, 56, 112, 168}},
	    {SPEED_EDR, {25, 50, 100, 200, 300}},    {SPEED_HDR, {50, 100, 200, 400, 600}},
	    {SPEED_NDR, {100, 200, 400, 800, 1200}}, {SPEED_XDR, {200, 400, 800, 0, 0}},
	};
	static const uint8_t widths[5] = {1, 16, 2, 4, 8};
	/* the codes of 15.2.5.16 by Gb/s */
	static const struct {
		double gbps;
		uint8_t code;
	} codes[] = {{2.5, 2},	{10, 3},   {30, 4},   {5, 5},	 {20, 6},   {40, 7},
		     {60, 8},	{80, 9},   {120, 10}, {14, 11},	 {56, 12},  {112, 13},
		     {168, 14}, {25, 15},  {100, 16}, {200, 17}, {300, 18}, {28, 19},
		     {50, 20},	{400, 21}, {600, 22}, {800, 23}, {1200, 24}};

	for (size_t l = 0; l < sizeof(want) / sizeof(want[0]); l++) {
		for (size_t w = 0; w < 5; w++) {
			uint8_t code = 24, got = speed_rate(widths[w], want[l].lane);

			for (size_t c = 0; want[l].gbps[w] && c < sizeof(codes) / sizeof(codes[0]);
			     c++)
				if (codes[c].gbps == want[l].gbps[w])
					code = codes[c].code;
			if (got != code)
				fprintf(stderr, "\n  %s width %u: code %u, want %u",
					speed_name(want[l].lane), widths[w], got, code);
			CU_ASSERT_EQUAL(got, code);
			CU_ASSERT_EQUAL(speed_rate_mbps(got),
					want[l].gbps[w] ? (uint32_t)(want[l].gbps[w] * 1000)
							: 1200000);
		}
	}
	/* unknown width: 1x; unknown lane speed: SDR (OpenSM's fallbacks) */
	CU_ASSERT_EQUAL(speed_rate(3, SPEED_HDR), 20);
	CU_ASSERT_EQUAL(speed_rate(0, SPEED_QDR), 3);
	CU_ASSERT_EQUAL(speed_rate(2, SPEED_NONE), 3);
	CU_ASSERT_EQUAL(speed_rate(2, 200), 3);
	/* every code's data rate; the others none */
	for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++)
		CU_ASSERT_EQUAL(speed_rate_mbps(codes[c].code), (uint32_t)(codes[c].gbps * 1000));
	CU_ASSERT_EQUAL(speed_rate_mbps(0), 0);
	CU_ASSERT_EQUAL(speed_rate_mbps(1), 0);
	CU_ASSERT_EQUAL(speed_rate_mbps(25), 0);
	CU_ASSERT_EQUAL(speed_rate_mbps(255), 0);
}

static void test_names_widths(void)
{
	static const char *const names[] = {NULL,  "SDR", "DDR", "QDR", "FDR",
					    "EDR", "HDR", "NDR", "XDR"};

	for (uint8_t l = 0; l < SPEED_LANES; l++) {
		if (names[l]) {
			CU_ASSERT_STRING_EQUAL(speed_name(l), names[l]);
		} else {
			CU_ASSERT_PTR_NULL(speed_name(l));
		}
	}
	CU_ASSERT_PTR_NULL(speed_name(SPEED_LANES));
	CU_ASSERT_EQUAL(speed_lane_gbps(SPEED_SDR), 2.5);
	CU_ASSERT_EQUAL(speed_lane_gbps(SPEED_HDR), 53.125);
	CU_ASSERT_EQUAL(speed_lane_gbps(SPEED_XDR), 212.5);
	CU_ASSERT_EQUAL(speed_lane_gbps(SPEED_NONE), 0);
	CU_ASSERT_EQUAL(speed_width_lanes(1), 1);
	CU_ASSERT_EQUAL(speed_width_lanes(16), 2);
	CU_ASSERT_EQUAL(speed_width_lanes(2), 4);
	CU_ASSERT_EQUAL(speed_width_lanes(4), 8);
	CU_ASSERT_EQUAL(speed_width_lanes(8), 12);
	CU_ASSERT_EQUAL(speed_width_lanes(3), 0);
	CU_ASSERT_EQUAL(speed_width_widest(0x1f), 8);
	CU_ASSERT_EQUAL(speed_width_widest(0x17), 4);
	CU_ASSERT_EQUAL(speed_width_widest(0x13), 2);
	CU_ASSERT_EQUAL(speed_width_widest(0x11), 16);
	CU_ASSERT_EQUAL(speed_width_widest(0x01), 1);
	CU_ASSERT_EQUAL(speed_width_widest(0), 0);
	/* 2x and 8x by their names too */
	CU_ASSERT_STRING_EQUAL(names_width(16), "2x");
	CU_ASSERT_STRING_EQUAL(names_width(4), "8x");
}

static void test_ports(void)
{
	struct port a = {0}, b = {0};

	/* a model without lane speeds (a topology file): LinkSpeedActive */
	a.width_active = 2;
	a.speed_active = 4;
	CU_ASSERT_EQUAL(speed_port_lane(&a), SPEED_QDR);
	CU_ASSERT_EQUAL(speed_port_rate(&a), 7);
	a.lane_speed = SPEED_HDR;
	CU_ASSERT_EQUAL(speed_port_lane(&a), SPEED_HDR);
	CU_ASSERT_EQUAL(speed_port_rate(&a), 17);
	a.width_active = 1;
	CU_ASSERT_EQUAL(speed_port_rate(&a), 20);

	/* both ends enable HDR 4x; the link trained 1x HDR: below */
	b = a;
	a.width_enabled = b.width_enabled = 3;
	a.lanes_enabled = b.lanes_enabled = SPEED_BIT(SPEED_QDR) | SPEED_BIT(SPEED_HDR);
	CU_ASSERT_TRUE(speed_link_below(&a, &b));
	a.width_active = b.width_active = 2;
	CU_ASSERT_FALSE(speed_link_below(&a, &b));
	/* trained EDR where both enable HDR: below */
	a.lanes_enabled |= SPEED_BIT(SPEED_EDR);
	a.lane_speed = b.lane_speed = SPEED_EDR;
	CU_ASSERT_TRUE(speed_link_below(&a, &b));
	/* one end enables EDR at most: not below */
	b.lanes_enabled = SPEED_BIT(SPEED_QDR) | SPEED_BIT(SPEED_EDR);
	CU_ASSERT_FALSE(speed_link_below(&a, &b));
	/* one end enables 1x only: 1x is all it can be */
	a.width_active = b.width_active = 1;
	b.width_enabled = 1;
	CU_ASSERT_FALSE(speed_link_below(&a, &b));
	/* unknown enabled sets: never marked */
	b.lanes_enabled = 0;
	a.lane_speed = SPEED_SDR;
	CU_ASSERT_FALSE(speed_link_below(&a, &b));
}

/* The width and speed ibnetdiscover and ibsim write at the end of a port line. */
static void test_topo_speeds(void)
{
	static const char text[] =
	    "Switch 3 \"S1\"\n"
	    "[1] \"H1\"[1]\t\t# \"H1\" lid 0 4xHDR\n"
	    "[2] \"H2\"[1]\t\t# \"H2\" lid 0 4xHDR\n"
	    "[3] \"H3\"[1]\n\n"
	    "Hca 1 \"H1\"\n[1] \"S1\"[1]\t\t# lid 1 lmc 0 \"S1\" lid 0 4xHDR\n\n"
	    "Hca 1 \"H2\"\n[1] \"S1\"[2]\t\t# lid 2 lmc 0 \"a 12xNDR name\" lid 0 1xEDR\n\n"
	    "Hca 1 \"H3\"\n[1] \"S1\"[3]\t\t# \"S1\" lid 0 2xXDR\n";
	struct fabric *f = testutil_load_text(text);
	const struct port *p;

	p = &f->nodes[testutil_find_desc(f, "H1")].ports[1];
	CU_ASSERT_EQUAL(p->width_active, 2);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_HDR);
	CU_ASSERT_EQUAL(speed_port_rate(p), 17);
	/* the two ends disagree: the link runs the lesser (1x, EDR), both ends */
	p = &f->nodes[testutil_find_desc(f, "H2")].ports[1];
	CU_ASSERT_EQUAL(p->width_active, 1);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_EDR);
	p = &f->nodes[testutil_find_desc(f, "S1")].ports[2];
	CU_ASSERT_EQUAL(p->width_active, 1);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_EDR);
	CU_ASSERT_EQUAL(speed_port_rate(p), 15);
	/* one end's line alone */
	p = &f->nodes[testutil_find_desc(f, "S1")].ports[3];
	CU_ASSERT_EQUAL(p->width_active, 16);
	CU_ASSERT_EQUAL(p->lane_speed, SPEED_XDR);
	CU_ASSERT_EQUAL(speed_port_rate(p), 21);
	fabric_free(f);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"lane speed from the PortInfo fields", test_lane_from_fields},
	    {"supported and enabled lane speeds", test_supported_enabled},
	    {"rate code of every width x lane speed", test_rate_table},
	    {"names, widths", test_names_widths},
	    {"ports: rate, below what both ends enable", test_ports},
	    {"topology files: NxSPEED", test_topo_speeds},
	    {NULL, NULL},
	};

	return testutil_run("speed", cases);
}

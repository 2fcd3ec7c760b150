/*
 * Link widths, lane speeds and rates (see speed.h).
 */
#include <stddef.h>

#include "fabric/speed.h"

#define SPEED_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* LinkSpeedExtActive/Supported/Enabled bits: FDR, EDR, HDR, NDR. */
static const uint8_t speed_ext_lanes[4] = {SPEED_FDR, SPEED_EDR, SPEED_HDR, SPEED_NDR};
/* LinkSpeedActive/Supported/Enabled bits: SDR, DDR, QDR. */
static const uint8_t speed_classic_lanes[3] = {SPEED_SDR, SPEED_DDR, SPEED_QDR};

uint8_t speed_classic(uint8_t speed_active)
{
	for (size_t i = 0; i < SPEED_LEN(speed_classic_lanes); i++)
		if (speed_active == 1u << i)
			return speed_classic_lanes[i];
	return SPEED_NONE;
}

uint8_t speed_active(const struct speed_fields *s)
{
	if (s->ext2 && s->ext2_active == 1)
		return SPEED_XDR;
	for (size_t i = 0; s->ext && i < SPEED_LEN(speed_ext_lanes); i++)
		if (s->ext_active == 1u << i)
			return speed_ext_lanes[i];
	return speed_classic(s->active);
}

/* A mask of lane bits from a field's bits, lanes[i] for bit i. */
static uint16_t speed_mask(uint8_t bits, const uint8_t *lanes, size_t n)
{
	uint16_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (bits & (1u << i))
			m |= SPEED_BIT(lanes[i]);
	return m;
}

uint16_t speed_supported(const struct speed_fields *s)
{
	uint16_t m = speed_mask(s->supported, speed_classic_lanes, SPEED_LEN(speed_classic_lanes));

	if (s->ext)
		m |= speed_mask(s->ext_supported, speed_ext_lanes, SPEED_LEN(speed_ext_lanes));
	if (s->ext2 && (s->ext2_supported & 1))
		m |= SPEED_BIT(SPEED_XDR);
	return m;
}

uint16_t speed_enabled(const struct speed_fields *s)
{
	uint8_t en = s->enabled == 15 ? s->supported : s->enabled;
	uint16_t m = speed_mask(en, speed_classic_lanes, SPEED_LEN(speed_classic_lanes));

	if (s->ext && s->ext_enabled != 30) {
		en = s->ext_enabled == 31 ? s->ext_supported : s->ext_enabled;
		m |= speed_mask(en, speed_ext_lanes, SPEED_LEN(speed_ext_lanes));
	}
	if (s->ext2 && (s->ext2_enabled & 1))
		m |= SPEED_BIT(SPEED_XDR);
	return m;
}

const char *speed_name(uint8_t lane)
{
	static const char *const names[SPEED_LANES] = {
	    [SPEED_SDR] = "SDR", [SPEED_DDR] = "DDR", [SPEED_QDR] = "QDR", [SPEED_FDR] = "FDR",
	    [SPEED_EDR] = "EDR", [SPEED_HDR] = "HDR", [SPEED_NDR] = "NDR", [SPEED_XDR] = "XDR"};

	return lane < SPEED_LANES ? names[lane] : NULL;
}

double speed_lane_gbps(uint8_t lane)
{
	static const double gbps[SPEED_LANES] = {
	    [SPEED_SDR] = 2.5,	   [SPEED_DDR] = 5.0,	   [SPEED_QDR] = 10.0,
	    [SPEED_FDR] = 14.0625, [SPEED_EDR] = 25.78125, [SPEED_HDR] = 53.125,
	    [SPEED_NDR] = 106.25,  [SPEED_XDR] = 212.5};

	return lane < SPEED_LANES ? gbps[lane] : 0;
}

unsigned speed_width_lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 16:
		return 2;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	default:
		return 0;
	}
}

uint8_t speed_width_widest(uint8_t mask)
{
	/* LinkWidth bits from the widest: 12x, 8x, 4x, 2x, 1x */
	static const uint8_t order[] = {8, 4, 2, 16, 1};

	for (size_t i = 0; i < SPEED_LEN(order); i++)
		if (mask & order[i])
			return order[i];
	return 0;
}

/* Rate codes by lane speed and width (1x, 2x, 4x, 8x, 12x), 15.2.5.16. */
static const uint8_t speed_rates[SPEED_LANES][5] = {
    [SPEED_SDR] = {2, 5, 3, 6, 4},	/* 2.5 5 10 20 30 */
    [SPEED_DDR] = {5, 3, 6, 7, 8},	/* 5 10 20 40 60 */
    [SPEED_QDR] = {3, 6, 7, 9, 10},	/* 10 20 40 80 120 */
    [SPEED_FDR] = {11, 19, 12, 13, 14}, /* 14 28 56 112 168 */
    [SPEED_EDR] = {15, 20, 16, 17, 18}, /* 25 50 100 200 300 */
    [SPEED_HDR] = {20, 16, 17, 21, 22}, /* 50 100 200 400 600 */
    [SPEED_NDR] = {16, 17, 21, 23, 24}, /* 100 200 400 800 1200 */
    [SPEED_XDR] = {17, 21, 23, 24, 24}, /* 200 400 800 (1600, 2400: 1200) */
};

uint8_t speed_rate(uint8_t width, uint8_t lane)
{
	unsigned w;

	switch (speed_width_lanes(width)) {
	case 2:
		w = 1;
		break;
	case 4:
		w = 2;
		break;
	case 8:
		w = 3;
		break;
	case 12:
		w = 4;
		break;
	default:
		w = 0;
		break;
	}
	if (lane == SPEED_NONE || lane >= SPEED_LANES)
		lane = SPEED_SDR;
	return speed_rates[lane][w];
}

uint32_t speed_rate_mbps(uint8_t rate)
{
	static const uint32_t mbps[] = {
	    [2] = 2500,	   [3] = 10000,	  [4] = 30000,	  [5] = 5000,	 [6] = 20000,
	    [7] = 40000,   [8] = 60000,	  [9] = 80000,	  [10] = 120000, [11] = 14000,
	    [12] = 56000,  [13] = 112000, [14] = 168000,  [15] = 25000,	 [16] = 100000,
	    [17] = 200000, [18] = 300000, [19] = 28000,	  [20] = 50000,	 [21] = 400000,
	    [22] = 600000, [23] = 800000, [24] = 1200000,
	};

	return rate < SPEED_LEN(mbps) ? mbps[rate] : 0;
}

uint8_t speed_port_lane(const struct port *p)
{
	return p->lane_speed ? p->lane_speed : speed_classic(p->speed_active);
}

uint8_t speed_port_rate(const struct port *p)
{
	return speed_rate(p->width_active, speed_port_lane(p));
}

/* The fastest lane speed of a mask; SPEED_NONE for none. */
static uint8_t speed_fastest(uint16_t mask)
{
	for (uint8_t l = SPEED_LANES - 1; l > SPEED_NONE; l--)
		if (mask & SPEED_BIT(l))
			return l;
	return SPEED_NONE;
}

bool speed_link_below(const struct port *a, const struct port *b)
{
	uint8_t lane = speed_fastest(a->lanes_enabled & b->lanes_enabled);
	uint8_t width = speed_width_widest(a->width_enabled & b->width_enabled);

	if (!a->lanes_enabled || !b->lanes_enabled || !a->width_enabled || !b->width_enabled)
		return false;
	return (lane && speed_port_lane(a) < lane) ||
	       (width && speed_width_lanes(a->width_active) < speed_width_lanes(width));
}

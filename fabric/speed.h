/*
 * Link widths, lane speeds and the one rate function.  IBA 1.7 vol 1,
 * 14.2.5.6 (PortInfo: LinkWidth*, LinkSpeed*, LinkSpeedExt* and, for XDR,
 * LinkSpeedExt*2) and 15.2.5.16 (the Rate of PathRecord, MultiPathRecord
 * and MCMemberRecord, whose codes 2..24 run from 2.5 to 1200 Gb/s).
 *
 * A port runs one lane speed: XDR when the *2 fields say so, else the
 * extended one (FDR, EDR, HDR, NDR), else the classic LinkSpeedActive
 * (SDR, DDR, QDR; 0 there means "see the extended field").  Discovery
 * (smp/discover.c) works it out from what the port answered and keeps it in
 * the model (struct port: lane_speed, lanes_enabled, lanes_supported); the
 * SA, the control socket, the metrics and the web page read it through the
 * functions here, so one table says what a link is worth.  Pure.
 */
#ifndef IBSMD_SPEED_H
#define IBSMD_SPEED_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"

/* Lane speeds, slowest first (struct port.lane_speed). */
enum speed_lane {
	SPEED_NONE = 0, /* no field names one */
	SPEED_SDR,	/* 2.5 Gb/s, LinkSpeedActive 1 */
	SPEED_DDR,	/* 5, LinkSpeedActive 2 */
	SPEED_QDR,	/* 10, LinkSpeedActive 4 */
	SPEED_FDR,	/* 14.0625, LinkSpeedExtActive 1 */
	SPEED_EDR,	/* 25.78125, LinkSpeedExtActive 2 */
	SPEED_HDR,	/* 53.125, LinkSpeedExtActive 4 */
	SPEED_NDR,	/* 106.25, LinkSpeedExtActive 8 */
	SPEED_XDR,	/* 212.5, LinkSpeedExtActive2 1 */
	SPEED_LANES
};

/* A lane speed's bit in a mask of them (struct port.lanes_enabled, lanes_supported). */
#define SPEED_BIT(lane) ((uint16_t)(1u << (lane)))

/*
 * What a PortInfo answer says of a port's speeds.  ext: the extended
 * fields count (CapabilityMask.IsExtendedSpeedsSupported: the port's own,
 * on a switch's external port port 0's); ext2: the *2 fields count too
 * (CapabilityMask2.IsExtSpeeds2Supported, under the same rule).
 */
struct speed_fields {
	uint8_t active, supported, enabled;		/* LinkSpeed* */
	uint8_t ext_active, ext_supported, ext_enabled; /* LinkSpeedExt* */
	uint8_t ext2_active, ext2_supported, ext2_enabled;
	bool ext, ext2;
};

/* The lane speed the port runs: XDR, then extended, then classic; SPEED_NONE when none. */
uint8_t speed_active(const struct speed_fields *s);
/*
 * The lane speeds it supports / has enabled, as SPEED_BIT masks.
 * LinkSpeedExtEnabled 30 (extended speeds off) adds none, 31 (set to
 * supported) the supported ones; LinkSpeedEnabled 15 likewise.
 */
uint16_t speed_supported(const struct speed_fields *s);
uint16_t speed_enabled(const struct speed_fields *s);

/* The lane speed of a classic LinkSpeedActive value (1, 2, 4); SPEED_NONE for others. */
uint8_t speed_classic(uint8_t speed_active);

/* "SDR" ... "XDR"; NULL for SPEED_NONE and values past XDR. */
const char *speed_name(uint8_t lane);
/* Signalling rate of a lane in Gb/s (2.5 ... 212.5); 0 for none. */
double speed_lane_gbps(uint8_t lane);

/* Lanes of a LinkWidth value (1 1x, 16 2x, 2 4x, 4 8x, 8 12x); 0 for any other. */
unsigned speed_width_lanes(uint8_t width);
/* The widest width of a LinkWidthEnabled/Supported mask, as a LinkWidthActive value; 0: none. */
uint8_t speed_width_widest(uint8_t mask);

/*
 * The rate code of width x lane (15.2.5.16): 2 = 2.5 Gb/s ... 24 = 1200
 * Gb/s.  A width this table does not know counts as 1x and a lane speed
 * as SDR (as OpenSM's ib_port_info_compute_rate); XDR 8x and 12x (1600 and
 * 2400 Gb/s) have no code and answer the highest, 24.
 */
uint8_t speed_rate(uint8_t width, uint8_t lane);
/* The data rate of a rate code in Mb/s (2500 ... 1200000); 0 for a code that is none. */
uint32_t speed_rate_mbps(uint8_t rate);

/*
 * A port of the model: the lane speed it runs (lane_speed, or for a model
 * built without one, a topology file's say, its LinkSpeedActive) and its
 * rate code.
 */
uint8_t speed_port_lane(const struct port *p);
uint8_t speed_port_rate(const struct port *p);
/*
 * Whether the link between a and b runs below what both ends enable: a
 * slower lane speed than the fastest both have enabled, or fewer lanes than
 * the widest width both have enabled.  False when an end's enabled sets
 * are unknown (0).
 */
bool speed_link_below(const struct port *a, const struct port *b);

#endif

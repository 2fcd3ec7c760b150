/*
 * A port's PortInfo image in the model and the extended link speeds (IBA
 * 1.7, 14.2.5.6): how a PortInfo Get or Set of a port is addressed, what a
 * Set starts from, and what the model takes from an answer.  A port whose
 * CapabilityMask has IsExtendedSpeedsSupported (a switch's external ports:
 * port 0's) answers LinkSpeedExt* only to a Get whose attribute modifier
 * has bit 31, SMSupportExtendedSpeeds, and takes them in a Set only with
 * it.  Discovery asks a switch's port 0 first and its other ports with bit
 * 31 when port 0 says so; a CA port, whose mask only its first answer
 * tells, is asked a second time with bit 31 (discover_result.ext_gets).
 */
#ifndef IBSMD_PORTINFO_H
#define IBSMD_PORTINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"

struct wire_portinfo;

/*
 * The attribute modifier of a PortInfo Get of (node, port): the port, with
 * bit 31 when the mask that speaks for it is known and says so (never on a
 * switch's port 0, which has no link).
 */
uint32_t portinfo_get_mod(const struct fabric *f, uint32_t node, uint8_t port);
/* The modifier of a Set of p (port number port): bit 31 exactly when its image was read with it. */
uint32_t portinfo_set_mod(const struct port *p, uint8_t port);
/*
 * The image a Set of p starts from: p's as read, with LinkSpeedExtEnabled
 * and LinkSpeedExtEnabled2 0 ("no state change") when it was read without
 * bit 31: extended fields read so are never written back.
 */
void portinfo_set_image(const struct port *p, uint8_t data[64]);
/*
 * The model's speeds of p (fabric/speed.h) from a PortInfo answer, the
 * extended fields counted as capmask/capmask2 (the masks that speak for the
 * port) allow.
 */
void portinfo_speeds(struct port *p, const struct wire_portinfo *pi, uint32_t capmask,
		     uint16_t capmask2);
/*
 * The model of (node, port) takes a PortInfo answer: its image (data, 64
 * bytes; ext: read with bit 31), state, LID, MTU and VL fields, speeds.
 */
void portinfo_take(struct fabric *f, uint32_t node, uint8_t port, const struct wire_portinfo *pi,
		   const uint8_t *data, bool ext);

#endif

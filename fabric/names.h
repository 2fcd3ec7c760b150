/*
 * Names of IBA enumerations, in one table each, as the tools operators know
 * spell them (ibnetdiscover, iblinkinfo, smpquery): node types, port states,
 * physical port states, link widths and speeds, MTUs and SM states.  Every
 * writer (control replies, events, metrics, dumps) takes its names from here.
 * IBA 1.4 vol 1, 14.2.5.5 (NodeInfo), 14.2.5.6 (PortInfo), 14.2.5.13 (SMInfo).
 */
#ifndef IBSMD_NAMES_H
#define IBSMD_NAMES_H

#include <stdint.h>

/* "CA", "Switch", "Router"; "unknown" for anything else. */
const char *names_node_type(uint8_t type);
/* "Channel Adapter", "Switch", "Router" (dump_fts); "???" for anything else. */
const char *names_node_type_long(uint8_t type);
/* PortInfo:PortState: "NOP", "DOWN", "INIT", "ARMED", "ACTIVE"; "UNKNOWN" else. */
const char *names_port_state(uint8_t state);
/* PortInfo:PortPhysicalState: "SLEEP", "POLLING", "DISABLED", "LINKUP", ...; "UNKNOWN" else. */
const char *names_phys_state(uint8_t phys);
/*
 * PortInfo:LinkWidthActive / LinkSpeedActive as ibnetdiscover spells them
 * ("4x", "QDR"); NULL for a value with no name (callers pick their own
 * placeholder).
 */
const char *names_width(uint8_t width);
const char *names_speed(uint8_t speed);
/* An IBA MTU code (1..5) in bytes (256..4096); 0 for anything else. */
int names_mtu_bytes(uint8_t mtu);
/* SMInfo:SMState (0..3): "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"; "UNKNOWN" else. */
const char *names_sm_state(uint8_t state);

#endif

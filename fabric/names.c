/*
 * Names of IBA enumerations (see names.h).
 */
#include <stddef.h>

#include "fabric/fabric.h"
#include "fabric/names.h"

#define NAMES_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *names_at(const char *const *tab, size_t n, unsigned v, const char *other)
{
	return v < n && tab[v] ? tab[v] : other;
}

const char *names_node_type(uint8_t type)
{
	static const char *const tab[] = {
	    [NODE_CA] = "CA", [NODE_SWITCH] = "Switch", [NODE_ROUTER] = "Router"};

	return names_at(tab, NAMES_LEN(tab), type, "unknown");
}

const char *names_node_type_long(uint8_t type)
{
	static const char *const tab[] = {
	    [NODE_CA] = "Channel Adapter", [NODE_SWITCH] = "Switch", [NODE_ROUTER] = "Router"};

	return names_at(tab, NAMES_LEN(tab), type, "???");
}

const char *names_port_state(uint8_t state)
{
	static const char *const tab[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};

	return names_at(tab, NAMES_LEN(tab), state, "UNKNOWN");
}

const char *names_phys_state(uint8_t phys)
{
	static const char *const tab[] = {"NOP",      "SLEEP",	"POLLING",	  "DISABLED",
					  "TRAINING", "LINKUP", "ERROR_RECOVERY", "PHYTEST"};

	return names_at(tab, NAMES_LEN(tab), phys, "UNKNOWN");
}

const char *names_width(uint8_t width)
{
	static const char *const tab[] = {
	    [1] = "1x", [2] = "4x", [4] = "8x", [8] = "12x", [16] = "2x"};

	return names_at(tab, NAMES_LEN(tab), width, NULL);
}

const char *names_speed(uint8_t speed)
{
	static const char *const tab[] = {[1] = "SDR", [2] = "DDR", [4] = "QDR"};

	return names_at(tab, NAMES_LEN(tab), speed, NULL);
}

int names_mtu_bytes(uint8_t mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128 << mtu : 0;
}

const char *names_sm_state(uint8_t state)
{
	static const char *const tab[] = {"NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"};

	return names_at(tab, NAMES_LEN(tab), state, "UNKNOWN");
}

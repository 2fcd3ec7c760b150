/*
 * The P_Key tables written since a snapshot was published: the runtime
 * partitions (tenants/tenants.c) change a few ports' P_KeyTables (IBA 1.4 vol 1,
 * 14.2.5.7) between sweeps, and a published snapshot changes for no one, so
 * what the ports were found to hold after those Sets is kept here, by port
 * GUID, beside the snapshot; the SA reads a port's table here first, then
 * in the snapshot (sa_set_pkeyview).  The next sweep that programs the
 * subnet reads and writes the tables itself, and the view is emptied when it
 * publishes.
 *
 * An entry holds the end port's table and, when partition enforcement is
 * on, the table of the switch port facing it (switch GUID and port number
 * say which, so a host moved to another switch port is not mistaken for
 * the old one).  A block whose Set failed is unknown (its bit cleared).
 * Library code: no I/O, no logging.
 */
#ifndef IBSMD_PKEYVIEW_H
#define IBSMD_PKEYVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "lib/u64map.h"

#define PKEYVIEW_KEYS (FABRIC_PKEY_BLOCKS * 32)

struct pkeyview_entry {
	uint64_t guid; /* the end port */
	uint16_t keys[PKEYVIEW_KEYS];
	uint8_t known;	  /* bit b: keys[32b..32b+31] as the port answered */
	uint64_t sw_guid; /* the switch port facing it (0: none written) */
	uint8_t sw_port;
	uint16_t sw_keys[PKEYVIEW_KEYS];
	uint8_t sw_known;
};

struct pkeyview {
	struct u64map idx; /* port GUID -> index in v */
	struct pkeyview_entry *v;
	uint32_t n, cap;
};

/* The entry of port guid, or NULL.  v may be NULL. */
const struct pkeyview_entry *pkeyview_get(const struct pkeyview *v, uint64_t guid);
/*
 * The entry of port guid; when absent, added with the table the port was
 * last known to hold (init: PKEYVIEW_KEYS keys with init_known, from the
 * snapshot; NULL: nothing known).  NULL on ENOMEM.
 */
struct pkeyview_entry *pkeyview_take(struct pkeyview *v, uint64_t guid, const uint16_t *init,
				     uint8_t init_known);
/* Forget every entry (the storage is kept). */
void pkeyview_clear(struct pkeyview *v);
/* Free the storage; v is an empty view after.  NULL-safe. */
void pkeyview_free(struct pkeyview *v);

/*
 * The table end port (node, port) of f holds: the view's when it has the
 * port, else the fabric's (a switch: port 0's).  *t points at PKEYVIEW_KEYS keys, valid
 * until the view or f changes; *known says which blocks are known (0: the
 * port's table was never read).  v may be NULL.
 */
void pkeyview_port(const struct pkeyview *v, const struct fabric *f, uint32_t node, uint8_t port,
		   const uint16_t **t, uint8_t *known);

#endif

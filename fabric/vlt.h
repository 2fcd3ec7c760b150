/*
 * The SL-to-VL mapping and VL arbitration tables the ports hold (IBA 1.4
 * vol 1, 14.2.5.8 SLtoVLMappingTable, 14.2.5.9 VLArbitrationTable), as read
 * off them (smp/vlread.h), kept by node GUID: what the SA answers
 * SLtoVLMappingTableRecords and VLArbitrationTableRecords from for the
 * ports the SM does not program itself.
 *
 * A switch has an SL2VL row per (input, output) port pair, (n + 1)^2 of them
 * (IBA: 8 bytes each); a CA port one, of pair (0, port).  Almost every
 * switch holds one map for all its pairs, and most of the fabric the same
 * map, so a node keeps a default row and, only when its pairs differ, a
 * table of row numbers; rows (8 bytes) and VLArb blocks (64 bytes) are
 * kept once each in the set's pools and named by number.  A switch of 56
 * ports that holds one map costs its struct (about 80 bytes) whatever its
 * pairs, where the plain table is 26 KB.
 *
 * Which pairs are known: a switch's pairs whose ports are both in `ports`
 * (the ports read: port 0 and the linked ones), a CA's (0, p) for p in
 * `ports`; a VLArb block where the port's VLArbLowCap/HighCap has entries
 * (blocks 1-2 low, 3-4 high, 32 entries a block), never of a switch's port 0
 * (base port 0 has none; an enhanced one is not read).
 *
 * Pure: no I/O, no logging.
 */
#ifndef IBSMD_VLT_H
#define IBSMD_VLT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u64map.h"

#define VLT_NONE 0xffff	 /* no row or block */
#define VLT_SL2VL_SIZE 8 /* a row: 16 VLs of 4 bits, as on the wire */
#define VLT_VLARB_SIZE 64
#define VLT_VLARB_BLOCKS 4

/* One node's tables: read only through the functions below. */
struct vlt_node {
	uint64_t guid;
	uint8_t nports;
	bool is_switch;
	uint64_t ports[4];     /* bit p: port p was read */
	uint16_t sl2vl_def;    /* the row of every known pair, VLT_NONE when they differ */
	uint16_t *sl2vl;       /* else (nports + 1)^2 row numbers [in * (nports + 1) + out] */
	uint16_t vlarb_def[4]; /* the block every port read has as block b + 1, or VLT_NONE */
	uint16_t *vlarb;       /* when ports differ: (nports + 1) * 4 [port * 4 + b] */
	uint16_t vlarb_differ; /* bit b: block b + 1 differs between ports (see vlarb) */
};

/*
 * What a reader collected for one node, handed to vlt_set_put: rows and
 * blocks as wire images with a known flag each.  The caller owns it.
 */
struct vlt_read {
	uint8_t nports;
	bool is_switch;
	uint64_t ports[4];
	uint8_t (*sl2vl)[VLT_SL2VL_SIZE]; /* (nports + 1)^2, [in * (nports + 1) + out] */
	bool *sl2vl_has;
	uint8_t (*vlarb)[VLT_VLARB_SIZE]; /* (nports + 1) * 4, [port * 4 + block - 1] */
	bool *vlarb_has;
};

/* Allocate r's tables for a node of nports ports, zeroed.  0 or -ENOMEM. */
int vlt_read_init(struct vlt_read *r, uint8_t nports, bool is_switch);
/* Free r's tables (not r).  NULL ok. */
void vlt_read_clear(struct vlt_read *r);

struct vlt_set;

/* NULL on ENOMEM; vlt_set_free(NULL) is a no-op. */
struct vlt_set *vlt_set_new(void);
void vlt_set_free(struct vlt_set *s);
/* Nodes held; bytes held (the pools, the nodes, the index); 0 for NULL. */
uint32_t vlt_set_count(const struct vlt_set *s);
size_t vlt_set_mem(const struct vlt_set *s);

/*
 * Keep r as node guid's tables (replacing what was kept): compacted, rows
 * and blocks into the pools.  0 or -ENOMEM (the node is then not kept).
 */
int vlt_set_put(struct vlt_set *s, uint64_t guid, const struct vlt_read *r);
/* Forget node guid.  No-op when not held. */
void vlt_set_remove(struct vlt_set *s, uint64_t guid);
/* Forget every node for which keep(arg, guid) is false. */
void vlt_set_prune(struct vlt_set *s, bool (*keep)(void *arg, uint64_t guid), void *arg);

/* Node guid's tables, or NULL.  s may be NULL. */
const struct vlt_node *vlt_set_get(const struct vlt_set *s, uint64_t guid);
/* Whether port p of n was read. */
static inline bool vlt_port_read(const struct vlt_node *n, unsigned p)
{
	return p < 256 && (n->ports[p / 64] >> (p % 64) & 1);
}
/* The SL2VL row of pair (in, out) of n into ret (wire image).  false when not known. */
bool vlt_sl2vl(const struct vlt_set *s, const struct vlt_node *n, unsigned in, unsigned out,
	       uint8_t ret[VLT_SL2VL_SIZE]);
/* VLArb block (1..4) of port p of n into ret (wire image).  false when not known. */
bool vlt_vlarb(const struct vlt_set *s, const struct vlt_node *n, unsigned p, unsigned block,
	       uint8_t ret[VLT_VLARB_SIZE]);

#endif

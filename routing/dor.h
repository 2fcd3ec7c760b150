/*
 * Dimension-order routing (routing/dor.c): the shape it infers, exposed for
 * tests and for tools that want to show a torus' coordinates.
 */
#ifndef IBSMD_DOR_H
#define IBSMD_DOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

/*
 * Dimensions as found: the prime factors of the switch graph, so a ring of 4
 * switches (which is also a 2x2 mesh) is two dimensions of size 2.  At most
 * 3 dimensions after pairing size-2 dimensions into rings of 4.
 */
#define DOR_MAX_DIMS 6

struct dor_shape {
	unsigned int dims;
	uint32_t size[DOR_MAX_DIMS];
	bool wrap[DOR_MAX_DIMS]; /* a ring (torus dimension), size >= 3 and != 4 */
	uint64_t origin;	 /* node GUID of the switch at coordinate 0 */
};

/*
 * Infer the mesh/torus shape of f's switch graph and every switch's
 * coordinates.  ret_coord has f->n_nodes * DOR_MAX_DIMS entries: row i is
 * node i's coordinates (rows of non-switches are left alone).  Returns 0;
 * -ENOTSUP when the switch graph is not a mesh or torus of up to 3
 * dimensions (why says which switch or link disagrees); -ENOMEM.  The result
 * depends on GUIDs only, not on the order of f's nodes or ports.
 */
int dor_coords(const struct fabric *f, struct dor_shape *ret_shape, uint32_t *ret_coord, char *why,
	       size_t why_len);

#endif

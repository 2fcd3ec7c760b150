/*
 * Offline routing: a topology file in, LIDs and forwarding tables out,
 * computed exactly as the daemon computes them (same LID manager, same
 * engines and fallback chain, routing/chain.h), for planning, benchmarks and
 * tests.  `ibsmd --offline`.
 */
#ifndef IBSMD_OFFLINE_H
#define IBSMD_OFFLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"

/*
 * ibsmd --offline: load topo_path, assign LIDs (an empty guid->LID map, LIDs
 * found in the file honoured, LMC lmc), route (VLs limited to max_vls, 0 = none) with chain_run()
 * (the roots of roots_file, when given, for updn and dnup), print a JSON summary to out:
 *   {"engine", "requested", "fallbacks": [{"engine", "reason"}], "lids",
 *    "max_lid", "lmc", "nodes", "switches", "cas", "route_ms",
 *    "max_routes_per_port", "mean_routes_per_port", "unreachable"}
 * ("engine" is null when no engine could route), and with dump_dir write
 * the dump files of dump_all() there.  Each refusal is logged once.
 *
 * Returns 0; -EINVAL for bad input (unreadable or malformed topology, unknown
 * engine, LMC out of range, LID space exhausted); -ENOTSUP (or the engine's
 * error) when no engine could route; -errno when the dumps cannot be written.
 * err says what went wrong (a topology error is "FILE:LINE: ...").
 */
int offline_run(const char *topo_path, const char *engine, const char *chain,
		const char *roots_file, const char *dump_dir, uint8_t lmc, uint8_t max_vls,
		FILE *out, char *err, size_t err_len);

/*
 * ibsmd --offline TOPO --expected-topology PLAN: check the fabric of the
 * topology file (an ibnetdiscover output, with its widths and speeds)
 * against the cabling plan (validate/plan.h), one finding a line on out
 * ("error: miswired: ..."), then a count.  Returns the number of findings
 * of severity error, or -EINVAL with err ("FILE:LINE: ...") for a file that
 * does not load, -ENOMEM.
 */
int offline_validate(const char *topo_path, const char *plan_path, FILE *out, char *err,
		     size_t err_len);

/* Exit status for offline_run()'s result: 0 ok, 2 bad input, 1 otherwise. */
int offline_exit_code(int rc);

#endif

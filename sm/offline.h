/*
 * Offline routing: a topology file in, LIDs and forwarding tables out,
 * computed exactly as the daemon computes them (same LID manager, same engine
 * and fallback chain), for planning, benchmarks and tests.  `ibsmd --offline`.
 */
#ifndef IBSMD_OFFLINE_H
#define IBSMD_OFFLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/routing.h"
#include "fabric/fabric.h"

/*
 * Route f with engine, then the engines of chain (comma-separated) in order,
 * until one succeeds; a name already tried is skipped, so a refusal is
 * reported once.  engine and chain may be NULL or empty.  Does not log: each
 * engine that refused (or is unknown) adds a line "NAME: REASON\n" to
 * why_log, for the caller to log.
 *
 * Returns 0 with *ret (caller frees, routes_free()) and the engine's name in
 * used_engine; else the last engine's error (-ENOTSUP when every engine
 * refused or none was named, -EINVAL, -ENOMEM), *ret untouched.
 */
int offline_route(const struct fabric *f, const char *engine, const char *chain,
		  struct routes **ret, char *used_engine, size_t used_len, char *why_log,
		  size_t why_len);

/* The same; updn and dnup use the given root switch GUIDs when n_roots > 0. */
int offline_route_roots(const struct fabric *f, const char *engine, const char *chain,
			const uint64_t *roots, size_t n_roots, struct routes **ret,
			char *used_engine, size_t used_len, char *why_log, size_t why_len);

/*
 * Read a roots file (OpenSM's root_guid_file format: one switch GUID a line,
 * '#' comments).  0 with a malloc'd array (NULL when empty path), or -errno /
 * -EBADMSG with err "FILE:LINE: ...".
 */
int offline_load_roots(const char *path, uint64_t **ret, size_t *ret_n, char *err, size_t err_len);

/*
 * ibsmd --offline: load topo_path, assign LIDs (an empty guid->LID map, LIDs
 * found in the file honoured, LMC lmc), route with offline_route(), print a
 * JSON summary to out:
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
		const char *roots_file, const char *dump_dir, uint8_t lmc, FILE *out, char *err,
		size_t err_len);

/* Exit status for offline_run()'s result: 0 ok, 2 bad input, 1 otherwise. */
int offline_exit_code(int rc);

#endif

/*
 * Dumps of a routed fabric in the text formats other people's tools read, so
 * that the tables ibsmd computes (online or offline) can be checked by tools
 * we did not write:
 *
 *  - topo.out            ibnetdiscover's output, with the LIDs as assigned;
 *  - lfts.out            dump_fts's output (one LFT per switch);
 *  - opensm-subnet.lst   OpenSM's subnet.lst (osm_dump.c dump_topology_node),
 *  - opensm.fdbs         OpenSM's unicast FDB dump (dump_ucast_routes),
 *  - opensm.mcfdbs       OpenSM's multicast FDB dump (dump_mcast_routes):
 *                        the three files `ibdmchk -s -f -m` verifies;
 *  - path-sl, sl2vl      ibdmchk's -c (srcguid dlid sl) and -d (swguid iport
 *                        oport 0x(sl0)(sl1) ...) files, written only when the
 *                        routes use more than one VL.
 *
 * Node order follows the tool being imitated: ibnetdiscover and dump_fts
 * list nodes in reverse discovery order (a BFS from the SM port, ports in
 * ascending order), OpenSM in the order of its GUID maps (keys are GUIDs in
 * network byte order).  Nodes the SM cannot reach are listed too, after the
 * others, so an offline dump of a disconnected fabric shows every component.
 */
#ifndef IBSMD_DUMP_H
#define IBSMD_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fabric/snapshot.h"
#include "routing/routing.h"
#include "fabric/fabric.h"

/*
 * Each writer prints to out and returns 0, -EIO when a write failed, or
 * -ENOMEM.  f must have its LIDs assigned; r may be NULL for dump_topo.
 */
int dump_topo(const struct fabric *f, const struct routes *r, FILE *out);
int dump_lfts(const struct fabric *f, const struct routes *r, FILE *out);
int dump_subnet_lst(const struct fabric *f, const struct routes *r, FILE *out);
int dump_fdbs(const struct fabric *f, const struct routes *r, FILE *out);
int dump_mcfdbs(const struct fabric *f, const struct routes *r, FILE *out);
/* Both write nothing (and return 0) when r->n_vls <= 1. */
int dump_path_sl(const struct fabric *f, const struct routes *r, FILE *out);
int dump_sl2vl(const struct fabric *f, const struct routes *r, FILE *out);

/* File names dump_all() writes in its directory. */
#define DUMP_TOPO "topo.out"
#define DUMP_LFTS "lfts.out"
#define DUMP_SUBNET_LST "opensm-subnet.lst"
#define DUMP_FDBS "opensm.fdbs"
#define DUMP_MCFDBS "opensm.mcfdbs"
#define DUMP_PATH_SL "path-sl"
#define DUMP_SL2VL "sl2vl"

/*
 * Write every dump into dir (which must exist).  Each file is written to a
 * temporary name in dir and renamed over the old one, so a reader sees the
 * previous or the new version, never a partial one.  path-sl and sl2vl are
 * removed when the routes use one VL.  0 or the first -errno (the other
 * files are still attempted).
 */
int dump_all(const struct fabric *f, const struct routes *r, const char *dir);

/*
 * Write dump_all() into dir from a forked child, unless the previous child
 * (*pid) still runs or the fabric has more than max_entries LFT entries
 * (switches x LIDs).  *pid gets the child.  Logs what it skips.
 */
void dump_spawn(const struct snapshot *snap, const char *dir, uint64_t max_entries, pid_t *pid);
/* Collect the child *pid if it has finished (or wait for it); *pid = 0 then. */
void dump_reap(pid_t *pid, bool wait);

#endif

/*
 * What changed in the fabric, said in the log: at every publish, each node
 * that came or went, each link that went down or came up (both ends: node
 * description, GUID, port) and each LID that changed is one INFO line; port
 * state changes are DEBUG lines.  At most CHANGES_LOG_MAX lines a publish,
 * then one line counting the rest (`smctl events` and `eventlog` have every
 * change).
 */
#ifndef IBSMD_CHANGES_H
#define IBSMD_CHANGES_H

#include "fabric/snapshot.h"

struct sm;

#define CHANGES_LOG_MAX 50

/*
 * Log what changed from old to the published snapshot (nothing when either
 * is NULL; sm_publish_diff's changes); the number of changes.
 */
unsigned changes_log(const struct sm *sm, const struct snapshot *old);

#endif

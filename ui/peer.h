/*
 * Who a control-socket peer is: whether the process on the other end of the
 * socket (pid, uid, gid from SO_PEERCRED) belongs to a group.  Supplementary
 * groups come from the Groups: line of /proc/PID/status (what the process
 * really holds), else from the group database for its uid.
 */
#ifndef IBSMD_PEER_H
#define IBSMD_PEER_H

#include <stdbool.h>
#include <sys/types.h>

bool peer_in_group(pid_t pid, uid_t uid, gid_t gid, gid_t want);

#endif

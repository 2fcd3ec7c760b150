/*
 * The daemon's control API: the command handlers behind the control socket
 * (ui/ctl.c serves the socket; this file answers from the SM's published
 * snapshot and turns orders into SM actions), fabric events for `smctl
 * events` and Prometheus metrics.
 */
#ifndef IBSMD_API_H
#define IBSMD_API_H

#include "sm/conf.h"
#include "sm/sm.h"

struct api;
struct ctl_command;

/*
 * Create the control socket per sm->conf (socket_path, socket_group,
 * admin_group, the last one live) and hook into sm.  0 or -errno with err.
 */
int api_start(struct sm *sm, struct api **ret, char *err, size_t err_len);
/* Close the socket and every client.  NULL ok. */
void api_free(struct api *api);

/*
 * The command table the control socket and the HTTP endpoint's /api serve
 * (api_commands.c): every command with its handler and whether it is an
 * order (admins only), terminated by an entry whose name is NULL.  smctl's
 * own list (ui/smctl_cmds.c) is checked against it (tests/test_smctl.c).
 */
const struct ctl_command *api_command_table(void);
/* The command table entry called name; NULL when none. */
const struct ctl_command *api_command_find(const char *name);

#endif

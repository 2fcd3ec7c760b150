/*
 * Runtime partitions in the control API (ui/api_pkeys.c), for the control
 * socket's commands and the UFM-shaped HTTP routes (ui/http_pkeys.c).
 */
#ifndef IBSMD_API_PKEYS_H
#define IBSMD_API_PKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "policy/pkeyset.h"
#include "ui/ctl.h"

struct api;

/*
 * Read a request body (UFM's members; others are ignored, as UFM clients
 * send more) into req (initialised here; the caller clears it):
 *   "pkey": "0x1234" (unless path_pkey, the P_Key of the URL, is given),
 *   "guids": ["0002c903000a1b2c", ...] (at most max_guids: CTL_ERR_LIMIT),
 *   "membership": "full"|"limited", "memberships": [...] (one per GUID),
 *   "index0", "ip_over_ib": booleans, "partition_name": a name,
 *   "mtu_limit": 1|2|4 (KB), "rate_limit": Gb/s, "service_level": 0..15.
 * op says which count (DELETE: the P_Key alone; REMOVE: and the GUIDs;
 * QOS: the three limits).  0, or -EINVAL / -ENOMEM with err
 * (CTL_ERR_BAD_ARGUMENT, CTL_ERR_LIMIT).  Pure: no I/O.
 */
int api_pkeys_parse(const json_t *body, enum pkeyset_op op, uint16_t path_pkey, size_t max_guids,
		    struct pkeyset_req *req, struct ctl_error *err);

/*
 * Give the SM the request (tenants/tenants.h) on who's behalf: 0 with *ret
 * ({"pkey", "changed", "created", "deleted", "added", "removed",
 * "updated"}), or -errno with err (CTL_ERR_CONFLICT: the file owns the
 * P_Key or a port has no room; CTL_ERR_LIMIT; CTL_ERR_NOT_FOUND;
 * CTL_ERR_BAD_ARGUMENT; CTL_ERR_NOT_READY: a standby).
 */
int api_pkeys_order(struct api *api, const struct pkeyset_req *req, const char *who, json_t **ret,
		    struct ctl_error *err);

/* One partition of the policy (its GUIDs with guids), NULL when there is none (or ENOMEM). */
json_t *api_pkeys_one(const struct api *api, uint16_t pkey, bool guids);
/*
 * Every partition, the file's and the runtime ones: an object keyed by
 * P_Key (UFM's answer, by_pkey) or an array (the control socket's, with
 * the runtime P_Keys the file shadows).  NULL on ENOMEM.
 */
json_t *api_pkeys_all(const struct api *api, bool guids, bool by_pkey);

#endif

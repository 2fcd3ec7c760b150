/*
 * The control API's command table: every command the socket (ui/ctl.c)
 * and the HTTP endpoint's /api (ui/http.c) serve, with its handler and
 * whether it is an order (admins only).  Read by both; it calls down into
 * the handlers (api_views.c, api_admin.c, api_counters.c, api_validate.c,
 * metrics.c).
 */
#include <string.h>

#include "ui/api_int.h"

static const struct ctl_command api_commands[] = {
    {"status", false, "", api_status},
    {"nodes", false, "", api_nodes},
    {"ports", false, "", api_ports},
    {"links", false, "", api_links},
    {"lids", false, "", api_lids},
    {"node", false, "{\"id\": GUID|LID|description}", api_node},
    {"route", false, "{\"src\": ID, \"dst\": ID}", api_route},
    {"topology", false, "{\"format\": \"json|ibnetdiscover|dot|slurm|slurm-yaml\"}", api_topology},
    {"validate", false, "", api_validate},
    {"events", false, "", api_events},
    {"eventlog", false, "{\"after\": SEQ}", api_eventlog},
    {"counters", false, "{\"node\": ID, \"port\": N}", api_counters},
    {"metrics", false, "", metrics_command},
    {"config", false, "", api_config},
    {"partitions", false, "{\"guids\": bool}", api_partitions},
    {"sweep", true, "{\"wait\": bool}", api_sweep},
    {"reroute", true, "{\"wait\": bool}", api_reroute},
    {"priority", true, "{\"priority\": 0..15}", api_priority},
    {"handover", true, "{\"guid\": GUID}", api_handover},
    {"port", true, "{\"action\": \"disable|enable\", \"node\": ID, \"port\": N}", api_port},
    {"loglevel", true,
     "{\"category\": \"sweep|mad|route|sa|ctl|all\", \"level\": "
     "\"error|warning|info|debug\"}",
     api_loglevel},
    {"partition", true,
     "{\"action\": \"add|remove|delete|show|qos\", \"pkey\": \"0x1234\", \"guids\": [GUID, ...], "
     "\"membership\": \"full|limited\", \"memberships\": [...], \"index0\": bool, "
     "\"ip_over_ib\": bool, \"mtu_limit\": 1|2|4, \"rate_limit\": GBPS, \"service_level\": 0..15, "
     "\"partition_name\": NAME}",
     api_partition},
    {NULL, false, NULL, NULL},
};

const struct ctl_command *api_command_find(const char *name)
{
	for (const struct ctl_command *c = api_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

const struct ctl_command *api_command_table(void)
{
	return api_commands;
}

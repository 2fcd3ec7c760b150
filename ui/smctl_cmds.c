/*
 * The commands smctl knows (see smctl.h): what its usage lists, how it turns
 * their arguments into a request, which are orders.  Every command the
 * daemon serves (ui/api_commands.c) has its row here and no row names a
 * command the daemon lacks; the admin flags agree with the daemon's
 * (tests/test_smctl.c).  Plain data and three lookups: no I/O.
 */
#include <string.h>

#include "ui/smctl_int.h"

/* the listings' filters (docs/protocol.md "Listings"); offset and limit are numbers */
#define LIST_OPTIONS "type,state,node,offset,limit"

const struct smctl_cmd smctl_cmds[] = {
    {.name = "status",
     .usage = "status [--full]",
     .help = "a summary: state, subnet, counts, peers, problems (--full: every counter)"},
    {.name = "nodes",
     .usage = "nodes [--type switch|ca] [--node ID] [--offset N] [--limit N]",
     .option = "type,node,offset,limit",
     .help = "the nodes of the fabric"},
    {.name = "ports",
     .usage = "ports [--type T] [--state down|init|armed|active] [--node ID] [--unhealthy] "
	      "[--offset N] [--limit N]",
     .option = LIST_OPTIONS ",unhealthy",
     .help = "ports: state, LID, width, speed, MTU, peer"},
    {.name = "links",
     .usage = "links [--type T] [--state S] [--node ID] [--offset N] [--limit N]",
     .option = LIST_OPTIONS,
     .help = "links between two ports"},
    {.name = "lids",
     .usage = "lids [--type T] [--node ID] [--offset N] [--limit N]",
     .option = "type,node,offset,limit",
     .help = "LID assignments"},
    {.name = "node",
     .usage = "node <guid|lid|name>",
     .nargs = 1,
     .arg_names = {"id"},
     .arg_types = {ARG_STRING},
     .help = "one node and its ports"},
    {.name = "route",
     .usage = "route <src> <dst>",
     .nargs = 2,
     .arg_names = {"src", "dst"},
     .arg_types = {ARG_STRING, ARG_STRING},
     .help = "the hop-by-hop path from src to dst through the LFTs"},
    {.name = "sweep", .usage = "sweep", .admin = true, .help = "start a heavy sweep (admin)"},
    {.name = "reroute",
     .usage = "reroute",
     .admin = true,
     .help = "recompute and program routes (admin)"},
    {.name = "priority",
     .usage = "priority <0-15>",
     .nargs = 1,
     .arg_names = {"priority"},
     .arg_types = {ARG_INT},
     .admin = true,
     .help = "set the SM priority (admin)"},
    {.name = "handover",
     .usage = "handover [<guid>]",
     .nargs = 1,
     .arg_names = {"guid"},
     .arg_types = {ARG_STRING},
     .admin = true,
     .help = "hand the subnet to that standby SM, or the best one (admin; lowers the priority "
	     "if needed)"},
    {.name = "port",
     .usage = "port <disable|enable> <node> <port>",
     .nargs = 3,
     .arg_names = {"action", "node", "port"},
     .arg_types = {ARG_STRING, ARG_STRING, ARG_INT},
     .admin = true,
     .help = "disable a port (physical state Disabled) or enable it again (admin)"},
    {.name = "loglevel",
     .usage = "loglevel <category|all> <error|warning|info|debug>",
     .nargs = 2,
     .arg_names = {"category", "level"},
     .arg_types = {ARG_STRING, ARG_STRING},
     .admin = true,
     .help = "set a log category's level (admin)"},
    {.name = "topology",
     .usage = "topology [--format json|ibnetdiscover|dot|slurm|slurm-yaml]",
     .option = "format",
     .help = "the whole fabric; where hosts sit (Slurm's topology.conf, topology.yaml)"},
    {.name = "validate",
     .usage = "validate",
     .help = "the fabric checked against the cabling plan: missing, miswired, degraded"},
    {.name = "events",
     .usage = "events",
     .stream = true,
     .help = "stream fabric events until interrupted"},
    {.name = "metrics", .usage = "metrics", .help = "Prometheus text exposition"},
    {.name = "counters",
     .usage = "counters [node [port]]",
     .nargs = -2,
     .arg_names = {"node", "port"},
     .arg_types = {ARG_STRING, ARG_INT},
     .help = "port counters read by the performance manager (perfmgr)"},
    {.name = "eventlog",
     .usage = "eventlog [after-seq]",
     .nargs = -1,
     .arg_names = {"after"},
     .arg_types = {ARG_INT},
     .help = "the last events kept by the daemon, oldest first"},
    {.name = "config", .usage = "config", .help = "the configuration in effect"},
    {.name = "partitions",
     .usage = "partitions [--guids]",
     .option = "guids",
     .help = "the partitions, the file's and the runtime ones: source, members, ready "
	     "(--guids: every GUID)"},
    {.name = "partition",
     .usage = "partition <add|remove|delete|show|qos> <pkey> [<guid,...>] "
	      "[--membership full|limited] [--index0] [--ip_over_ib true|false] "
	      "[--mtu_limit 1|2|4] [--rate_limit GBPS] [--service_level 0-15] "
	      "[--partition_name NAME]",
     .nargs = 3,
     .arg_names = {"action", "pkey", "guids"},
     .arg_types = {ARG_STRING, ARG_STRING, ARG_LIST},
     .option = "membership,index0,ip_over_ib,mtu_limit,rate_limit,service_level,partition_name",
     .admin = true,
     .help = "add GUIDs to a runtime partition (made if new), remove them, delete it, set its "
	     "limits, or show one (admin)"},
    {.name = NULL},
};

const struct smctl_cmd *smctl_cmd_find(const char *name)
{
	for (const struct smctl_cmd *cmd = smctl_cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, name))
			return cmd;
	return NULL;
}

const char *smctl_cmd_option(const struct smctl_cmd *cmd, const char *arg)
{
	size_t al = strcspn(arg, "=");

	for (const char *o = cmd->option; o && *o;) {
		size_t ol = strcspn(o, ",");

		if (ol == al && !strncmp(o, arg, al))
			return o;
		o += ol + (o[ol] == ',');
	}
	return NULL;
}

int smctl_cmd_required_args(const struct smctl_cmd *cmd)
{
	int n = cmd->nargs;

	for (const char *u = cmd->usage; (u = strstr(u, "[<")) != NULL; u += 2)
		n--;
	return n;
}

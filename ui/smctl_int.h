/*
 * smctl, the command-line client of ibsmd's control socket, in three parts
 * (this header is theirs; nothing of the daemon includes it):
 *   smctl_cmds.c   the commands smctl knows, as data: name, usage, positional
 *                  arguments and their types, options, whether an admin
 *                  order, help text (tests/test_smctl.c checks it against
 *                  the server's table, the bash completion and smctl(8))
 *   smctl.c        main: options, arguments into one JSON request, the
 *                  socket, reading the reply and the event stream
 *   smctl_print.c  the reply on stdout: tables, "key: value" lines, the
 *                  port and link listings, events, --json
 */
#ifndef IBSMD_SMCTL_INT_H
#define IBSMD_SMCTL_INT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#define SMCTL_MAX_ARGS 4

/* Exit status: 0 ok, 1 the daemon answered with an error, 2 anything else. */
#define EXIT_SM_ERROR 1
#define EXIT_USAGE 2

/* ---- smctl_cmds.c -------------------------------------------------------- */

enum smctl_arg_type {
	ARG_STRING,
	ARG_INT,
	ARG_LIST, /* comma-separated: a JSON array of strings */
};

struct smctl_cmd {
	const char *name;
	const char *usage;
	int nargs; /* positional arguments; -N: up to N, each optional */
	const char *arg_names[SMCTL_MAX_ARGS];
	enum smctl_arg_type arg_types[SMCTL_MAX_ARGS];
	/* "--option VALUE"s the command takes, mapped to args.option: a comma-separated list */
	const char *option;
	bool stream; /* events: keep reading */
	bool admin;  /* an order: the daemon runs it for admins only (its help says so) */
	const char *help;
};

/* The commands, terminated by an entry whose name is NULL. */
extern const struct smctl_cmd smctl_cmds[];

/* The command called name, or NULL. */
const struct smctl_cmd *smctl_cmd_find(const char *name);
/* The option of cmd that arg ("name" or "name=value") names, as a pointer into cmd->option. */
const char *smctl_cmd_option(const struct smctl_cmd *cmd, const char *arg);
/* Positional arguments that must be given: those not written "[<...>]" in the usage. */
int smctl_cmd_required_args(const struct smctl_cmd *cmd);

/* ---- smctl_print.c (smctl.c calls down into it) ------------------------------ */

/* "smctl: " and the message on stderr, then exit(status). */
void smctl_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* How a reply is printed: --json, the command it answers, counters NODE. */
struct smctl_view {
	bool json;
	const char *cmd; /* NULL: not one smctl knows (call, key=value) */
	bool detail;	 /* counters NODE: every port as "key: value" lines */
	bool full;	 /* status --full: every counter, not the summary */
};

/* Whether a member called key holds a time (state_since, last_cycle_end, unix_time, ...). */
bool smctl_is_time_key(const char *key);
/*
 * A unix time (seconds, fractions kept to the millisecond) as ISO 8601 in
 * UTC: 2026-12-01T11:22:35.743Z.  0, or -1 (not a time from 1970 to 9999, or
 * len too short).
 */
int smctl_time_iso(double t, char *buf, size_t len);

/*
 * Print the reply {"ok":..., "result"|"error":...}: the result on stdout,
 * an error's code and message on stderr.  0, or EXIT_SM_ERROR for an error
 * reply; a reply without "ok" is fatal (EXIT_USAGE).
 */
int smctl_print_reply(json_t *reply, const struct smctl_view *v);
/* One event line: compact JSON with json, else "key=value ..." on one line. */
void smctl_print_event(json_t *event, bool json);

#endif

/*
 * The control protocol's error codes (docs/protocol.md), shared by the
 * socket server (ui/ctl.c, ui/ctl_client.c) and the commands (ui/api*.c);
 * included by ui/ctl.h.
 */
#ifndef IBSMD_CTL_ERRORS_H
#define IBSMD_CTL_ERRORS_H

/*
 * Error code catalogue (the "code" member of an error reply).  Codes are
 * stable API: scripts match on them.  Messages are for humans and may change.
 */
/* The request line is not JSON (also: truncated, invalid UTF-8, duplicate keys). */
#define CTL_ERR_BAD_JSON "bad_json"
/* Not an object, "cmd" missing or not a string, "args" not an object, unknown member. */
#define CTL_ERR_BAD_REQUEST "bad_request"
/* "cmd" names no command. */
#define CTL_ERR_UNKNOWN_COMMAND "unknown_command"
/* An argument is missing, of the wrong type or out of range. */
#define CTL_ERR_BAD_ARGUMENT "bad_argument"
/* The node, port or LID named does not exist. */
#define CTL_ERR_NOT_FOUND "not_found"
/* An admin command from a peer that is neither root nor in the admin group. */
#define CTL_ERR_PERMISSION_DENIED "permission_denied"
/* The request line is over max_request; the connection is closed. */
#define CTL_ERR_REQUEST_TOO_LARGE "request_too_large"
/* Over max_clients; the connection is closed. */
#define CTL_ERR_TOO_MANY_CLIENTS "too_many_clients"
#define CTL_ERR_TIMEOUT "timeout"
/* The reply would be larger than the server sends (256 MiB): ask for less. */
#define CTL_ERR_TOO_LARGE "reply_too_large"
/* Cannot be done now (e.g. a sweep is running): try again. */
#define CTL_ERR_BUSY "busy"
/* The change conflicts with what is there: a P_Key the partitions file owns, a port's table room.
 */
#define CTL_ERR_CONFLICT "conflict"
/* Over a limit: GUIDs in one request, runtime P_Keys, memberships. */
#define CTL_ERR_LIMIT "limit"
/* No fabric snapshot yet, or not master. */
#define CTL_ERR_NOT_READY "not_ready"
/* A bug or a resource failure in the daemon. */
#define CTL_ERR_INTERNAL "internal"

#endif

/*
 * The control socket server: newline-delimited JSON over an AF_UNIX stream
 * socket, served on the daemon's libevent loop.  Generic over a command table;
 * it knows nothing about the SM.  The protocol is documented in docs/protocol.md.
 *
 *   request:  {"cmd":"NAME","args":{...},"id":ANY}   ("args" and "id" optional)
 *   reply:    {"ok":true,"result":...,"id":ANY}
 *             {"ok":false,"error":{"code":"...","message":"..."},"id":ANY}
 *   event:    {"event":...}          (only to clients that subscribed)
 *
 * One request, one reply, in order.  Everything runs on the loop thread: no
 * function here may be called from another thread.
 */
#ifndef IBSMD_CTL_H
#define IBSMD_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

struct event_base;
struct ctl_server;
struct ctl_client;

#include "ui/ctl_errors.h"

struct ctl_error {
	char code[32];
	char message[256];
};

/*
 * Fill *err and return -EINVAL, so a handler can write
 *	return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "priority must be 0..15");
 */
int ctl_error_set(struct ctl_error *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A handler returns this (instead of 0) to answer later with ctl_server_reply(). */
#define CTL_DEFERRED 1

/*
 * A command handler.  args is the request's "args" object (borrowed, NULL when
 * absent).  On success return 0 and set *ret_result to a new reference (or
 * leave it NULL for an empty object).  On failure return a negative errno with
 * err filled; a negative return with err->code empty is answered "internal"
 * with strerror().  Return CTL_DEFERRED after taking ctl_client_id(c) to answer
 * later; the client's further requests wait until then.
 */
typedef int ctl_handler_fn(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
			   struct ctl_error *err);

struct ctl_command {
	const char *name;
	bool admin;	       /* changes the fabric: needs an admin peer */
	const char *args_help; /* e.g. "{\"priority\": 0..15}", for docs and "help" */
	ctl_handler_fn *fn;
};

struct ctl_opts {
	const char *path;	  /* socket path (required) */
	const char *socket_group; /* chgrp the socket to this group; NULL/"" = keep */
	const char *admin_group;  /* members may run admin commands; NULL/"" = root only */
	size_t max_request;	  /* bytes per request line; 0 = 64 KiB */
	unsigned max_clients;	  /* 0 = 64 */
	/* unread reply/event bytes per client past which the next message drops it; 0 = 1 MiB */
	size_t max_output;
	/* ms a client may read nothing of its queued output before it is dropped; 0 = 60 s */
	unsigned stall_ms;
	/* bytes of one encoded message at most (else a reply_too_large error); 0 = 256 MiB */
	size_t max_message;
	/* ms from a request's first byte to its newline, else the client is closed; 0 = 5 s */
	unsigned request_ms;
	/* ms a client with nothing pending and no subscription may send nothing; 0 = 60 s */
	unsigned idle_ms;
	/* connections of one non-admin uid at most; 0 = 16 */
	unsigned max_per_uid;
	/* of max_clients, this many only admins may take; 0 = 8 (at most max_clients - 1) */
	unsigned admin_reserved;
	/*
	 * Test hook, never set from configuration: when >= 0, exactly this uid is
	 * admin (root and the admin group are not).  -1 = normal rules.
	 */
	long admin_uid_override;
};

/* Fill opts with the defaults (path NULL, admin_uid_override -1). */
void ctl_opts_init(struct ctl_opts *opts);

/*
 * Create the socket (mode 0660, group socket_group), listen, and serve on base.
 * cmds is terminated by an entry whose name is NULL; it and ctx must outlive
 * the server.  A stale socket file is replaced; a live one (another daemon
 * answering) is an error.  Returns NULL with a message in err on failure.
 */
struct ctl_server *ctl_server_new(struct event_base *base, const struct ctl_opts *opts,
				  const struct ctl_command *cmds, void *ctx, char *err,
				  size_t err_len);
/*
 * Replace the admin group (NULL or "" = root only); connected peers are
 * judged again.  0, or -ENOENT with err when the group does not exist (the
 * old rule stays).
 */
int ctl_server_set_admin_group(struct ctl_server *srv, const char *group, char *err,
			       size_t err_len);

/* Close every client, stop listening, unlink the socket.  NULL is fine. */
void ctl_server_free(struct ctl_server *srv);

/*
 * Send {"event":event} to every subscribed client; steals nothing (event is
 * borrowed).  Clients whose queued output exceeds max_output are dropped.
 * Returns the number of clients it was queued to.
 */
int ctl_server_publish(struct ctl_server *srv, json_t *event);

/*
 * Answer a deferred request.  Exactly one of result (a new reference, stolen;
 * NULL = empty object when err is NULL) and err is used.  Returns 0, or
 * -ENOENT when the client has gone (result is released) or has nothing pending.
 */
int ctl_server_reply(struct ctl_server *srv, uint64_t client_id, json_t *result,
		     const struct ctl_error *err);

struct ctl_stats {
	uint64_t requests;	    /* request lines handled */
	uint64_t errors;	    /* error replies sent */
	uint64_t clients_accepted;  /* connections served */
	uint64_t clients_rejected;  /* refused: too many clients */
	uint64_t clients_dropped;   /* closed by us: too large, too slow */
	uint64_t request_timeouts;  /* of those, a request not complete within request_ms */
	uint64_t idle_timeouts;	    /* of those, idle for idle_ms */
	uint64_t rejected_uid;	    /* of clients_rejected: over max_per_uid */
	uint64_t rejected_reserved; /* of clients_rejected: only admin slots were left */
	uint64_t events;	    /* events published */
	unsigned clients;	    /* connected now */
	unsigned subscribers;	    /* subscribed now */
};
void ctl_server_stats(const struct ctl_server *srv, struct ctl_stats *ret_stats);

/* For handlers. */
/* Keep this client's connection for events (see ctl_server_publish). */
void ctl_client_subscribe(struct ctl_client *c);
uint64_t ctl_client_id(const struct ctl_client *c);
uid_t ctl_client_uid(const struct ctl_client *c);
pid_t ctl_client_pid(const struct ctl_client *c);
bool ctl_client_is_admin(const struct ctl_client *c);

#endif

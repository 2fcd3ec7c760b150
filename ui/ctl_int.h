/*
 * Inside the control socket server (ui/ctl.c, ui/ctl_client.c): the server
 * and client objects both files see, and what each file calls of the other.
 * Nothing outside those two files includes this; the API is ctl.h.
 *
 * ctl.c owns the listening socket, the command table and what a request line
 * means; ctl_client.c owns each connection: admission, its buffers, limits
 * and deadlines, line framing, writing replies and closing.  Everything runs
 * on the loop thread.
 */
#ifndef IBSMD_CTL_INT_H
#define IBSMD_CTL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <event2/util.h>
#include <jansson.h>

#include "ui/ctl.h"
#include "ui/ctl_errors.h"

struct bufferevent;
struct event;
struct evconnlistener;

#define CTL_DEF_MAX_REQUEST (64 * 1024)
#define CTL_DEF_MAX_CLIENTS 64
#define CTL_DEF_MAX_OUTPUT (1024 * 1024)
#define CTL_CLOSE_TIMEOUT_S 5
#define CTL_DEF_STALL_MS 60000		     /* no reading progress with output queued */
#define CTL_MAX_MESSAGE (256u * 1024 * 1024) /* one encoded message at most */
#define CTL_DEF_REQUEST_MS 5000
#define CTL_DEF_IDLE_MS 60000
#define CTL_DEF_MAX_PER_UID 16
#define CTL_DEF_ADMIN_RESERVED 8

struct ctl_client {
	struct ctl_server *srv;
	struct ctl_client *prev, *next; /* srv->clients or srv->dead */
	struct bufferevent *bev;
	uint64_t id;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool admin;
	bool subscribed;
	bool pending; /* a deferred reply is outstanding */
	json_t *pending_id;
	bool eof;     /* the peer shut down its side: answer, flush, close */
	bool closing; /* flush output, then close */
	bool dead;    /* detached, waiting for the reaper */
	/* the one deadline a client has: its request's (in_request) or its idleness */
	struct event *timer;
	bool in_request; /* bytes of a request buffered: the request deadline runs */
};

struct ctl_server {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *reaper;
	const struct ctl_command *cmds;
	void *ctx;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t max_request;
	unsigned max_clients;
	size_t max_output;
	unsigned stall_ms;
	size_t max_message;
	unsigned request_ms, idle_ms, max_per_uid, admin_reserved;
	bool have_admin_gid;
	gid_t admin_gid;
	long admin_uid_override;
	struct ctl_client *clients;
	struct ctl_client *dead;
	uint64_t next_id;
	struct ctl_stats stats;
	/* what a complete request line means (ctl.c's ctl_server_handle_line) */
	void (*handle_line)(struct ctl_client *c, const char *line, size_t len);
};

/* ---- ctl_client.c ------------------------------------------------------ */

/*
 * The listener's accept callback (arg: the server): admit or refuse the
 * peer (max_clients, admin_reserved, max_per_uid), read its credentials and
 * start serving it.
 */
void ctl_client_accept_cb(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *sa,
			  int salen, void *arg);
/* Whether a peer with these credentials may run admin commands under srv's rule. */
bool ctl_client_peer_is_admin(const struct ctl_server *srv, pid_t pid, uid_t uid, gid_t gid);
/* The reaper event's callback (arg: the server): free the clients dropped meanwhile. */
void ctl_client_reap_cb(evutil_socket_t fd, short what, void *arg);
/* Unlink and free every client of the list at *head (server shut-down). */
void ctl_client_free_all(struct ctl_client **head);
/*
 * Queue one JSON line to c.  0; -ENOTCONN (c is dead), -ENOBUFS (c had more
 * than max_output unread: dropped), -EMSGSIZE (over max_message: a
 * reply_too_large error went instead), -ENOMEM (dropped).
 */
int ctl_client_send(struct ctl_client *c, json_t *msg);
/* An error reply (counted in stats.errors); id borrowed, may be NULL. */
void ctl_client_send_error(struct ctl_client *c, json_t *id, const char *code, const char *message);
/* A result reply; result is stolen (NULL: an empty object), id borrowed. */
void ctl_client_send_result(struct ctl_client *c, json_t *id, json_t *result);
/* Handle every complete request line buffered, unless a reply is pending. */
void ctl_client_process(struct ctl_client *c);
/* After EOF: answer what is buffered, then close once the output is flushed. */
void ctl_client_finish(struct ctl_client *c);
/* (Re)arm c's one deadline (request or idle) for its present state. */
void ctl_client_arm(struct ctl_client *c);

/* ---- ctl.c ------------------------------------------------------------- */

/* One request line (NUL-terminated, without its newline): answer it or defer it. */
void ctl_server_handle_line(struct ctl_client *c, const char *line, size_t len);

#endif

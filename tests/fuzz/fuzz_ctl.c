/*
 * Fuzz target for the control socket's request handling (ui/ctl.c).  The
 * line splitter and request validator are static, so the input goes through
 * the real server: one event_base and one ctl_server on a socket in a private
 * directory (made once), and per input one client that writes the bytes,
 * shuts down its side and reads until the server closes.  The loop runs on
 * this thread, interleaved with the client's non-blocking reads and writes.
 *
 * A tiny command table covers the handler outcomes: a result, an error, an
 * internal error, a deferred reply, an admin refusal, and an event.
 *
 * Properties: the server always closes the connection within a bounded time
 * (no hang) and frees the client; every output line is a JSON object; every
 * request line gets exactly one reply unless a line is over max_request, in
 * which case the last reply is request_too_large.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "tests/fuzz/fuzz.h"
#include "ui/ctl.h"

#define FUZZ_MAX_REQUEST 1024
#define FUZZ_DEADLINE_S 8 /* > CTL_CLOSE_TIMEOUT_S: a close must not need a timeout */

static struct event_base *base;
static struct ctl_server *srv;
static char dir[64], sock_path[128];

static void publish_cb(evutil_socket_t fd, short what, void *arg)
{
	json_t *ev = json_pack("{s:s}", "type", "fuzz");

	ctl_server_publish(srv, ev);
	json_decref(ev);
}

static void reply_cb(evutil_socket_t fd, short what, void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;

	ctl_server_reply(srv, id, json_pack("{s:b}", "later", 1), NULL);
}

static int cmd_echo(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	*ret_result = args ? json_incref(args) : NULL;
	return 0;
}

static int cmd_fail(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	json_t *p = json_object_get(args, "n");

	if (!json_is_integer(p))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "n must be an integer");
	*ret_result = json_pack("{s:I}", "n", json_integer_value(p));
	return 0;
}

static int cmd_oops(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	*ret_result = json_object(); /* dropped by the server on error */
	return -ENOMEM;
}

static int cmd_later(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		     struct ctl_error *err)
{
	struct timeval now = {0, 0};

	if (event_base_once(base, -1, EV_TIMEOUT, reply_cb, (void *)(uintptr_t)ctl_client_id(c),
			    &now) < 0)
		return -ENOMEM;
	return CTL_DEFERRED;
}

static int cmd_subscribe(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
			 struct ctl_error *err)
{
	struct timeval now = {0, 0};

	ctl_client_subscribe(c);
	event_base_once(base, -1, EV_TIMEOUT, publish_cb, NULL, &now);
	return 0;
}

static const struct ctl_command cmds[] = {
    {"echo", false, "{...}", cmd_echo},
    {"fail", false, "{\"n\": int}", cmd_fail},
    {"oops", false, NULL, cmd_oops},
    {"later", false, NULL, cmd_later},
    {"subscribe", false, NULL, cmd_subscribe},
    {"admin", true, NULL, cmd_echo},
    {NULL, false, NULL, NULL},
};

static void teardown(void)
{
	ctl_server_free(srv);
	event_base_free(base);
	rmdir(dir);
}

static void setup(void)
{
	struct ctl_opts opts;
	char err[256];

	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof(dir), "/tmp/fuzz_ctl.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", dir);
	base = event_base_new();
	if (!base)
		abort();
	ctl_opts_init(&opts);
	opts.path = sock_path;
	opts.max_request = FUZZ_MAX_REQUEST;
	opts.max_output = 64 * 1024;
	opts.admin_uid_override = (long)getuid() + 1; /* we are never admin */
	srv = ctl_server_new(base, &opts, cmds, NULL, err, sizeof(err));
	if (!srv) {
		fprintf(stderr, "fuzz_ctl: %s\n", err);
		abort();
	}
	atexit(teardown);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Requests the server will answer, and whether a line is over the limit. */
static size_t count_requests(const uint8_t *d, size_t len, bool *ret_too_large)
{
	size_t i, start = 0, n = 0, l;

	*ret_too_large = false;
	for (i = 0; i <= len; i++) {
		if (i < len && d[i] != '\n')
			continue;
		l = i - start;
		if (l > FUZZ_MAX_REQUEST) {
			*ret_too_large = true;
			return n;
		}
		if (l && d[i - 1] == '\r')
			l--;
		if (l)
			n++;
		start = i + 1;
	}
	return n;
}

static void check_output(const char *out, size_t len, const uint8_t *in, size_t in_len)
{
	size_t replies = 0, expect;
	const char *line = out, *nl;
	bool too_large, last_too_large = false;
	json_t *j, *err;

	FUZZ_CHECK(len == 0 || out[len - 1] == '\n');
	for (; len && line < out + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(out + len - line));
		j = json_loadb(line, (size_t)(nl - line), 0, NULL);
		FUZZ_CHECK(json_is_object(j));
		if (!json_object_get(j, "event")) {
			FUZZ_CHECK(json_is_boolean(json_object_get(j, "ok")));
			err = json_object_get(j, "error");
			last_too_large =
			    err && !strcmp(json_string_value(json_object_get(err, "code")) ?: "",
					   CTL_ERR_REQUEST_TOO_LARGE);
			FUZZ_CHECK(json_is_true(json_object_get(j, "ok"))
				       ? !err && json_object_get(j, "result")
				       : json_is_string(json_object_get(err, "code")));
			replies++;
		}
		json_decref(j);
	}
	expect = count_requests(in, in_len, &too_large);
	if (too_large) {
		FUZZ_CHECK(replies == expect + 1 && last_too_large);
	} else if (replies != expect) {
		fprintf(stderr, "fuzz_ctl: %zu requests, %zu replies\n", expect, replies);
		FUZZ_CHECK(replies == expect);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct ctl_stats st;
	size_t off = 0, olen = 0, ocap = 0;
	char *out = NULL, buf[4096];
	bool shut = false;
	double deadline;
	ssize_t n;
	int fd;

	if (!srv)
		setup();
	if (size > 64 * 1024)
		return 0;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		abort();
	memcpy(sun.sun_path, sock_path, strlen(sock_path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		perror("fuzz_ctl: connect");
		abort();
	}
	deadline = now_s() + FUZZ_DEADLINE_S;
	for (;;) {
		if (!shut && off < size) {
			n = send(fd, data + off, size - off, MSG_NOSIGNAL);
			if (n > 0)
				off += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				shut = true; /* the server closed on us (request too large) */
		}
		if (!shut && off == size) {
			shutdown(fd, SHUT_WR);
			shut = true;
		}
		event_base_loop(base, EVLOOP_NONBLOCK);
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break; /* ECONNRESET after a close with unread input */
		if (n > 0) {
			if (olen + (size_t)n > ocap) {
				ocap = (olen + (size_t)n) * 2;
				out = realloc(out, ocap);
				if (!out)
					abort();
			}
			memcpy(out + olen, buf, (size_t)n);
			olen += (size_t)n;
		}
		if (now_s() > deadline) {
			fprintf(stderr, "fuzz_ctl: the server did not close within %d s\n",
				FUZZ_DEADLINE_S);
			abort();
		}
	}
	close(fd);
	/* let the reaper run, then nothing of this client may be left */
	event_base_loop(base, EVLOOP_NONBLOCK);
	ctl_server_stats(srv, &st);
	FUZZ_CHECK(st.clients == 0 && st.subscribers == 0);
	check_output(out, olen, data, size);
	free(out);
	return 0;
}

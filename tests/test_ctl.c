/*
 * Unit tests for ui/ctl.c: the control socket server, driven by real clients
 * over a socket in a scratch directory.  Each server runs its own event_base
 * on a thread; the only things the test thread does to it are connect, talk,
 * and (after the loop has stopped) free.  Stopping, stats and publishing go
 * through commands so they run on the loop thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <event2/event.h>
#include <jansson.h>

#include "ui/ctl.h"
#include "tests/testutil.h"

static char test_dir[64];

/*
 * How long the test waits for the server to do what it must: a bound
 * against a hang, not a budget (the server shares a loaded machine).  The
 * server's own timers (deadlines, idle and stall timeouts) are what the
 * tests are about; no test asserts how long anything took.
 */
#define CLI_HANG_MS 30000

struct harness {
	struct event_base *base;
	struct ctl_server *srv;
	pthread_t thread;
	char path[128];
	uint64_t deferred_id;
};

/* ---- the fake command table ------------------------------------------ */

static int cmd_echo(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	*ret_result = args ? json_incref(args) : json_object();
	return 0;
}

static int cmd_status(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		      struct ctl_error *err)
{
	*ret_result = json_pack("{s:s, s:b, s:i}", "state", "MASTER", "subnet_up", 1, "nodes", 7);
	return 0;
}

static int cmd_priority(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
			struct ctl_error *err)
{
	json_t *p = json_object_get(args, "priority");

	if (!json_is_integer(p) || json_integer_value(p) < 0 || json_integer_value(p) > 15)
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "priority must be an integer 0..15");
	*ret_result = json_pack("{s:I}", "priority", json_integer_value(p));
	return 0;
}

static int cmd_adminop(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		       struct ctl_error *err)
{
	*ret_result = json_pack("{s:b}", "done", 1);
	return 0;
}

static int cmd_fail(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	return -ENOMEM; /* no code set: answered "internal" */
}

static int cmd_subscribe(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
			 struct ctl_error *err)
{
	ctl_client_subscribe(c);
	return 0;
}

static int cmd_notify(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		      struct ctl_error *err)
{
	struct harness *h = ctx;
	int n = ctl_server_publish(h->srv, args ? args : json_null());

	*ret_result = json_pack("{s:i}", "delivered", n);
	return 0;
}

static int cmd_later(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		     struct ctl_error *err)
{
	struct harness *h = ctx;

	h->deferred_id = ctl_client_id(c);
	return CTL_DEFERRED;
}

static int cmd_finish(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		      struct ctl_error *err)
{
	struct harness *h = ctx;
	int r = ctl_server_reply(h->srv, h->deferred_id, json_pack("{s:s}", "later", "done"), NULL);

	*ret_result = json_pack("{s:i}", "r", r);
	return 0;
}

static int cmd_stats(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		     struct ctl_error *err)
{
	struct harness *h = ctx;
	struct ctl_stats st;

	ctl_server_stats(h->srv, &st);
	*ret_result = json_pack(
	    "{s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:I, s:I, s:I, s:I}", "requests",
	    (json_int_t)st.requests, "errors", (json_int_t)st.errors, "accepted",
	    (json_int_t)st.clients_accepted, "rejected", (json_int_t)st.clients_rejected, "dropped",
	    (json_int_t)st.clients_dropped, "clients", (int)st.clients, "subscribers",
	    (int)st.subscribers, "request_timeouts", (json_int_t)st.request_timeouts,
	    "idle_timeouts", (json_int_t)st.idle_timeouts, "rejected_uid",
	    (json_int_t)st.rejected_uid, "rejected_reserved", (json_int_t)st.rejected_reserved);
	return 0;
}

static int cmd_stop(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		    struct ctl_error *err)
{
	struct harness *h = ctx;
	struct timeval tv = {0, 20000}; /* time to flush this reply */

	event_base_loopexit(h->base, &tv);
	return 0;
}

/* {"data": "xxx..."} of args.n bytes: a reply as large as asked */
static int cmd_big(void *ctx, struct ctl_client *c, json_t *args, json_t **ret_result,
		   struct ctl_error *err)
{
	size_t n = (size_t)json_integer_value(json_object_get(args, "n"));
	char *buf = malloc(n + 1);

	if (!buf)
		return -ENOMEM;
	memset(buf, 'x', n);
	buf[n] = '\0';
	*ret_result = json_pack("{s:s}", "data", buf);
	free(buf);
	return *ret_result ? 0 : -ENOMEM;
}

static const struct ctl_command test_cmds[] = {
    {"big", false, "{\"n\": bytes}", cmd_big},
    {"echo", false, "{...}", cmd_echo},
    {"status", false, NULL, cmd_status},
    {"priority", true, "{\"priority\": 0..15}", cmd_priority},
    {"adminop", true, NULL, cmd_adminop},
    {"fail", false, NULL, cmd_fail},
    {"subscribe", false, NULL, cmd_subscribe},
    {"notify", false, "{...}", cmd_notify},
    {"later", false, NULL, cmd_later},
    {"finish", false, NULL, cmd_finish},
    {"stats", false, NULL, cmd_stats},
    {"stop", false, NULL, cmd_stop},
    {NULL, false, NULL, NULL},
};

/* ---- harness ---------------------------------------------------------- */

static void *loop_thread(void *arg)
{
	struct harness *h = arg;

	event_base_loop(h->base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

static struct harness *harness_start(const char *name, const struct ctl_opts *base_opts)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct ctl_opts opts;
	char err[256];

	CU_ASSERT_FATAL(h != NULL);
	if (base_opts)
		opts = *base_opts;
	else
		ctl_opts_init(&opts);
	snprintf(h->path, sizeof(h->path), "%s/%s.sock", test_dir, name);
	opts.path = h->path;
	h->base = event_base_new();
	CU_ASSERT_FATAL(h->base != NULL);
	h->srv = ctl_server_new(h->base, &opts, test_cmds, h, err, sizeof(err));
	if (!h->srv)
		fprintf(stderr, "ctl_server_new: %s\n", err);
	CU_ASSERT_FATAL(h->srv != NULL);
	CU_ASSERT_FATAL(pthread_create(&h->thread, NULL, loop_thread, h) == 0);
	return h;
}

static int cli_connect(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool cli_send(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, s, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		s += n;
		len -= (size_t)n;
	}
	return true;
}

/* One line (malloc'd, without newline) within timeout_ms, or NULL on EOF/timeout. */
static char *cli_recv_line(int fd, int timeout_ms)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ssize_t n;

	while (buf) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			break;
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		/* byte by byte: never read past the line */
		n = recv(fd, buf + len, 1, 0);
		if (n <= 0)
			break;
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return buf;
		}
		len++;
	}
	free(buf);
	return NULL;
}

static json_t *cli_recv_json(int fd)
{
	char *line = cli_recv_line(fd, CLI_HANG_MS);
	json_t *j;

	if (!line)
		return NULL;
	j = json_loads(line, 0, NULL);
	free(line);
	return j;
}

/* Send raw text (a newline is added) and parse the one-line reply. */
static json_t *cli_call_raw(int fd, const char *text)
{
	if (!cli_send(fd, text, strlen(text)) || !cli_send(fd, "\n", 1))
		return NULL;
	return cli_recv_json(fd);
}

static const char *reply_code(json_t *reply)
{
	return json_string_value(json_object_get(json_object_get(reply, "error"), "code"));
}

static bool reply_ok(json_t *reply)
{
	return json_is_true(json_object_get(reply, "ok"));
}

static json_t *harness_stats(struct harness *h)
{
	int fd = cli_connect(h->path);
	json_t *r, *res = NULL;

	if (fd < 0)
		return NULL;
	r = cli_call_raw(fd, "{\"cmd\":\"stats\"}");
	if (r)
		res = json_incref(json_object_get(r, "result"));
	json_decref(r);
	close(fd);
	return res;
}

static void harness_stop(struct harness *h)
{
	int fd = cli_connect(h->path);
	json_t *r;

	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"stop\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	pthread_join(h->thread, NULL);
	close(fd);
	ctl_server_free(h->srv);
	CU_ASSERT(access(h->path, F_OK) < 0); /* unlinked */
	event_base_free(h->base);
	free(h);
}

/* ---- tests ------------------------------------------------------------ */

static void test_status_and_socket_mode(void)
{
	struct harness *h = harness_start("status", NULL);
	struct stat st;
	json_t *r;
	int fd;

	CU_ASSERT_FATAL(stat(h->path, &st) == 0);
	CU_ASSERT(S_ISSOCK(st.st_mode));
	CU_ASSERT((st.st_mode & 07777) == 0660);

	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	CU_ASSERT_STRING_EQUAL(
	    json_string_value(json_object_get(json_object_get(r, "result"), "state")), "MASTER");
	json_decref(r);

	/* "id" is echoed; CRLF is accepted; args:null is no args */
	r = cli_call_raw(fd, "{\"cmd\":\"echo\",\"args\":{\"a\":1},\"id\":42}\r");
	CU_ASSERT(reply_ok(r));
	CU_ASSERT(json_integer_value(json_object_get(r, "id")) == 42);
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "a")) == 1);
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"echo\",\"args\":null}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);

	/* the built-in help lists the table */
	r = cli_call_raw(fd, "{\"cmd\":\"help\"}");
	CU_ASSERT(reply_ok(r));
	CU_ASSERT(json_array_size(json_object_get(r, "result")) ==
		  sizeof(test_cmds) / sizeof(test_cmds[0]) - 1);
	json_decref(r);

	/* a handler failing without a code is "internal" */
	r = cli_call_raw(fd, "{\"cmd\":\"fail\"}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_INTERNAL);
	json_decref(r);
	close(fd);
	harness_stop(h);
}

static void test_bad_input(void)
{
	struct harness *h = harness_start("bad", NULL);
	static const struct {
		const char *text;
		const char *code;
	} cases[] = {
	    {"garbage", CTL_ERR_BAD_JSON},
	    {"{\"cmd\":\"status\"", CTL_ERR_BAD_JSON}, /* truncated */
	    {"{\"cmd\":\"status\",\"cmd\":\"echo\"}", CTL_ERR_BAD_JSON},
	    {"\"status\"", CTL_ERR_BAD_REQUEST},
	    {"[1,2]", CTL_ERR_BAD_REQUEST},
	    {"{}", CTL_ERR_BAD_REQUEST},
	    {"{\"cmd\":7}", CTL_ERR_BAD_REQUEST},
	    {"{\"cmd\":\"echo\",\"args\":[1]}", CTL_ERR_BAD_REQUEST},
	    {"{\"cmd\":\"echo\",\"args\":\"x\"}", CTL_ERR_BAD_REQUEST},
	    {"{\"cmd\":\"echo\",\"arg\":{}}", CTL_ERR_BAD_REQUEST},
	    {"{\"cmd\":\"nosuch\"}", CTL_ERR_UNKNOWN_COMMAND},
	    {"\xff\xfe{", CTL_ERR_BAD_JSON},
	};
	size_t i;
	json_t *r;
	int fd;

	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = cli_call_raw(fd, cases[i].text);
		CU_ASSERT_PTR_NOT_NULL(r);
		CU_ASSERT(json_is_false(json_object_get(r, "ok")));
		if (!reply_code(r) || strcmp(reply_code(r), cases[i].code))
			fprintf(stderr, "case %zu: want %s, got %s\n", i, cases[i].code,
				reply_code(r) ? reply_code(r) : "(none)");
		CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), cases[i].code));
		json_decref(r);
		/* the same connection still answers */
		r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
		CU_ASSERT(reply_ok(r));
		json_decref(r);
	}
	/* blank lines are ignored, not answered */
	CU_ASSERT(cli_send(fd, "\n\n", 2));
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	harness_stop(h);
}

static void test_bad_argument(void)
{
	struct ctl_opts opts;
	struct harness *h;
	json_t *r;
	int fd;

	ctl_opts_init(&opts);
	opts.admin_uid_override = (long)getuid();
	h = harness_start("arg", &opts);
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"priority\",\"args\":{\"priority\":\"high\"}}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_BAD_ARGUMENT);
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"priority\",\"args\":{\"priority\":99}}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_BAD_ARGUMENT);
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"priority\"}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_BAD_ARGUMENT);
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"priority\",\"args\":{\"priority\":3}}");
	CU_ASSERT(reply_ok(r));
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "priority")) ==
		  3);
	json_decref(r);
	close(fd);
	harness_stop(h);
}

static void test_permission(void)
{
	struct ctl_opts opts;
	struct harness *h;
	json_t *r;
	int fd;

	/* admin is some other uid: root and our groups do not count */
	ctl_opts_init(&opts);
	opts.admin_uid_override = (long)getuid() + 4242;
	h = harness_start("perm", &opts);
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"adminop\"}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_PERMISSION_DENIED);
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"priority\",\"args\":{\"priority\":1}}");
	CU_ASSERT_STRING_EQUAL(reply_code(r), CTL_ERR_PERMISSION_DENIED);
	json_decref(r);
	/* read commands stay open */
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	harness_stop(h);

	/* and when we are the admin uid it is allowed */
	opts.admin_uid_override = (long)getuid();
	h = harness_start("perm2", &opts);
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"adminop\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	harness_stop(h);
}

static void test_request_too_large(void)
{
	struct harness *h = harness_start("large", NULL);
	size_t big = 4u * 1024 * 1024;
	char *buf = malloc(big + 1);
	json_t *r, *st;
	char *line;
	int fd, fd2;

	CU_ASSERT_FATAL(buf != NULL);
	/* a valid-looking JSON string, 4 MiB long, then a newline */
	memset(buf, 'a', big);
	memcpy(buf, "{\"cmd\":\"echo\",\"args\":{\"x\":\"", 27);
	buf[big - 3] = '"';
	buf[big - 2] = '}';
	buf[big - 1] = '}';
	buf[big] = '\n';
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	fd2 = cli_connect(h->path);
	CU_ASSERT_FATAL(fd2 >= 0);
	/* the server stops reading and closes: the send fails part way */
	cli_send(fd, buf, big + 1);
	r = cli_recv_json(fd);
	CU_ASSERT_PTR_NOT_NULL(r);
	CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), CTL_ERR_REQUEST_TOO_LARGE));
	json_decref(r);
	line = cli_recv_line(fd, CLI_HANG_MS);
	CU_ASSERT_PTR_NULL(line); /* closed */
	free(line);
	close(fd);

	/* a request just under the limit is fine */
	memset(buf, 'b', 60000);
	memcpy(buf, "{\"cmd\":\"echo\",\"args\":{\"x\":\"", 27);
	memcpy(buf + 60000 - 3, "\"}}", 3);
	buf[60000] = '\0';
	r = cli_call_raw(fd2, buf);
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd2);
	free(buf);

	st = harness_stats(h);
	CU_ASSERT(json_integer_value(json_object_get(st, "dropped")) >= 1);
	json_decref(st);
	harness_stop(h);
}

#define NCLIENTS 50

static void test_many_clients(void)
{
	struct ctl_opts opts;
	struct harness *h;
	int fds[NCLIENTS], i, ok = 0;
	char req[64];
	json_t *r;

	ctl_opts_init(&opts);
	opts.admin_uid_override = (long)getuid(); /* an admin: no per-uid cap */
	h = harness_start("many", &opts);
	for (i = 0; i < NCLIENTS; i++) {
		fds[i] = cli_connect(h->path);
		CU_ASSERT_FATAL(fds[i] >= 0);
	}
	/* all requests in flight before any reply is read */
	for (i = 0; i < NCLIENTS; i++) {
		snprintf(req, sizeof(req), "{\"cmd\":\"echo\",\"args\":{\"n\":%d}}\n", i);
		CU_ASSERT(cli_send(fds[i], req, strlen(req)));
	}
	for (i = 0; i < NCLIENTS; i++) {
		r = cli_recv_json(fds[i]);
		if (reply_ok(r) &&
		    json_integer_value(json_object_get(json_object_get(r, "result"), "n")) == i)
			ok++;
		json_decref(r);
	}
	CU_ASSERT_EQUAL(ok, NCLIENTS);
	for (i = 0; i < NCLIENTS; i++)
		close(fds[i]);
	harness_stop(h);
}

static void test_too_many_clients(void)
{
	struct ctl_opts opts;
	struct harness *h;
	int fds[4], fd, i;
	json_t *r;

	ctl_opts_init(&opts);
	opts.max_clients = 4;
	opts.admin_uid_override = (long)getuid(); /* admins may take every slot */
	h = harness_start("limit", &opts);
	for (i = 0; i < 4; i++) {
		fds[i] = cli_connect(h->path);
		CU_ASSERT_FATAL(fds[i] >= 0);
		r = cli_call_raw(fds[i], "{\"cmd\":\"status\"}"); /* accepted for sure */
		CU_ASSERT(reply_ok(r));
		json_decref(r);
	}
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_recv_json(fd);
	CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), CTL_ERR_TOO_MANY_CLIENTS));
	json_decref(r);
	close(fd);
	close(fds[0]);
	/* a slot frees up once the server sees the close */
	for (i = 0; i < CLI_HANG_MS / 20; i++) {
		fd = cli_connect(h->path);
		CU_ASSERT_FATAL(fd >= 0);
		r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
		close(fd);
		if (reply_ok(r)) {
			json_decref(r);
			break;
		}
		json_decref(r);
		usleep(20000);
	}
	CU_ASSERT(i < CLI_HANG_MS / 20);
	for (i = 1; i < 4; i++)
		close(fds[i]);
	harness_stop(h);
}

/* Connect n clients that each got an answer; false if one was refused. */
static bool connect_n(const char *path, int *fds, int n)
{
	bool ok = true;

	for (int i = 0; i < n; i++) {
		json_t *r;

		fds[i] = cli_connect(path);
		r = fds[i] >= 0 ? cli_call_raw(fds[i], "{\"cmd\":\"status\"}") : NULL;
		ok = ok && reply_ok(r);
		json_decref(r);
	}
	return ok;
}

static void close_n(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* A new connection's first line is this error code. */
static bool refused_with(const char *path, const char *code)
{
	int fd = cli_connect(path);
	json_t *r = fd >= 0 ? cli_recv_json(fd) : NULL;
	bool ok = reply_code(r) && !strcmp(reply_code(r), code);

	json_decref(r);
	if (fd >= 0)
		close(fd);
	return ok;
}

static json_int_t stat_of(struct harness *h, const char *key)
{
	json_t *st = harness_stats(h);
	json_int_t v = json_integer_value(json_object_get(st, key));

	json_decref(st);
	return v;
}

/*
 * Wait (bounded) until the server's stat key is n (at_least: n or more; a
 * loaded machine may make the server drop a stats client too, one that did
 * not read its reply within a short stall_ms).
 */
static bool wait_stat(struct harness *h, const char *key, json_int_t n, bool at_least)
{
	for (int i = 0; i < CLI_HANG_MS / 20; i++) {
		json_int_t v = stat_of(h, key);

		if (v == n || (at_least && v > n))
			return true;
		usleep(20000);
	}
	return false;
}

/* Wait (bounded) until the server counts n clients. */
static bool wait_clients(struct harness *h, int n)
{
	return wait_stat(h, "clients", n + 1, false); /* the stats client itself */
}

static void test_uid_caps(void)
{
	struct ctl_opts opts;
	struct harness *h;
	int fds[10], fd;
	json_t *r;

	/* a non-admin: 4 connections of one uid at most */
	ctl_opts_init(&opts);
	opts.max_clients = 10;
	opts.admin_reserved = 2;
	opts.max_per_uid = 4;
	opts.admin_uid_override = (long)getuid() + 4242;
	h = harness_start("uidcap", &opts);
	CU_ASSERT_TRUE(connect_n(h->path, fds, 4));
	CU_ASSERT_TRUE(refused_with(h->path, CTL_ERR_TOO_MANY_CLIENTS));
	close_n(fds, 4);
	CU_ASSERT_TRUE(wait_clients(h, 0));
	CU_ASSERT(stat_of(h, "rejected_uid") >= 1); /* wait_clients may have been refused too */
	harness_stop(h);

	/* the last 2 of 10 slots are for admins: a non-admin gets 8 */
	opts.max_per_uid = 100;
	h = harness_start("reserved", &opts);
	CU_ASSERT_TRUE(connect_n(h->path, fds, 8));
	CU_ASSERT_TRUE(refused_with(h->path, CTL_ERR_TOO_MANY_CLIENTS));
	close_n(fds, 8);
	CU_ASSERT_TRUE(wait_clients(h, 0));
	CU_ASSERT(stat_of(h, "rejected_reserved") >=
		  1); /* wait_clients may have been refused too */
	harness_stop(h);

	/* an admin gets every slot, the reserved ones too, and no per-uid cap */
	opts.max_per_uid = 2;
	opts.admin_uid_override = (long)getuid();
	h = harness_start("admin", &opts);
	CU_ASSERT_TRUE(connect_n(h->path, fds, 10));
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_recv_json(fd); /* over max_clients: refused all the same */
	CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), CTL_ERR_TOO_MANY_CLIENTS));
	json_decref(r);
	close(fd);
	close_n(fds, 10);
	CU_ASSERT_TRUE(wait_clients(h, 0));
	harness_stop(h);
}

static void test_request_deadline(void)
{
	struct ctl_opts opts;
	struct harness *h;
	const char *req = "{\"cmd\":\"status\"}\n";
	int fd, sent = 0;
	json_t *r;
	char *line;

	ctl_opts_init(&opts);
	opts.request_ms = 300;
	opts.admin_uid_override = (long)getuid();
	h = harness_start("deadline", &opts);
	/*
	 * a request dripped a byte every 100 ms (each byte well within the
	 * deadline, 1.6 s for all but its newline, which never comes) loses its
	 * slot after 300 ms
	 */
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	for (const char *p = req; p[1]; p++) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (poll(&pfd, 1, 0) > 0)
			break; /* the server spoke: the deadline passed */
		if (!cli_send(fd, p, 1))
			break;
		sent++;
		usleep(100000);
	}
	line = cli_recv_line(fd, CLI_HANG_MS);
	CU_ASSERT_PTR_NOT_NULL(line);
	r = line ? json_loads(line, 0, NULL) : NULL;
	CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), CTL_ERR_TIMEOUT));
	json_decref(r);
	free(line);
	CU_ASSERT(sent < (int)strlen(req));
	CU_ASSERT_PTR_NULL(cli_recv_line(fd, CLI_HANG_MS)); /* and closed */
	close(fd);
	/* a whole request sent at once, then a pause longer than the deadline: served */
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	usleep(500000);
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	CU_ASSERT_EQUAL(stat_of(h, "request_timeouts"), 1);
	harness_stop(h);
}

static void test_idle_timeout(void)
{
	struct ctl_opts opts;
	struct harness *h;
	int idle, busy, sub, pub;
	json_t *r;

	ctl_opts_init(&opts);
	opts.idle_ms = 400;
	opts.admin_uid_override = (long)getuid();
	h = harness_start("idle", &opts);
	idle = cli_connect(h->path);
	busy = cli_connect(h->path);
	sub = cli_connect(h->path);
	CU_ASSERT_FATAL(idle >= 0 && busy >= 0 && sub >= 0);
	r = cli_call_raw(sub, "{\"cmd\":\"subscribe\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	/* busy asks every 100 ms for a second: never idle for long */
	for (int i = 0; i < 10; i++) {
		r = cli_call_raw(busy, "{\"cmd\":\"status\"}");
		CU_ASSERT(reply_ok(r));
		json_decref(r);
		usleep(100000);
	}
	/* idle was told and closed; the subscriber still gets events */
	r = cli_recv_json(idle);
	CU_ASSERT(reply_code(r) && !strcmp(reply_code(r), CTL_ERR_TIMEOUT));
	json_decref(r);
	CU_ASSERT_PTR_NULL(cli_recv_line(idle, CLI_HANG_MS)); /* closed */
	pub = cli_connect(h->path);
	CU_ASSERT_FATAL(pub >= 0);
	r = cli_call_raw(pub, "{\"cmd\":\"notify\",\"args\":{\"type\":\"link_down\",\"port\":1}}");
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "delivered")) ==
		  1);
	json_decref(r);
	r = cli_recv_json(sub);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(r, "event"));
	json_decref(r);
	CU_ASSERT(stat_of(h, "idle_timeouts") >= 1);
	close(idle);
	close(busy);
	close(sub);
	close(pub);
	harness_stop(h);
}

static void test_slow_reader(void)
{
	struct harness *h = harness_start("slow", NULL);
	size_t plen = 16384, sent = 0;
	char *req = malloc(plen + 64);
	bool dropped = false;
	json_t *r, *st;
	int fd, fd2, i;

	CU_ASSERT_FATAL(req != NULL);
	memset(req, 'z', plen + 64);
	memcpy(req, "{\"cmd\":\"echo\",\"args\":{\"x\":\"", 27);
	memcpy(req + plen, "\"}}\n", 4);
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	fd2 = cli_connect(h->path);
	CU_ASSERT_FATAL(fd2 >= 0);
	/* never read; 64 MiB of replies would be owed */
	for (i = 0; i < 4096; i++) {
		if (!cli_send(fd, req, plen + 4)) {
			dropped = true;
			break;
		}
		sent += plen + 4;
	}
	CU_ASSERT(dropped);
	CU_ASSERT(sent < 16u * 1024 * 1024);
	close(fd);
	/* the other client was not disturbed */
	r = cli_call_raw(fd2, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd2);
	st = harness_stats(h);
	CU_ASSERT(json_integer_value(json_object_get(st, "dropped")) >= 1);
	json_decref(st);
	free(req);
	harness_stop(h);
}

/* Read one whole line in chunks (the test sends one request at a time); its length or -1. */
static ssize_t cli_recv_bulk(int fd, int timeout_ms, char **ret)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ssize_t n;

	while (buf) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			break;
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = recv(fd, buf + len, 65536, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (buf[len - 1] == '\n') {
			buf[len - 1] = '\0';
			*ret = buf;
			return (ssize_t)len - 1;
		}
	}
	free(buf);
	return -1;
}

/* A reply far over max_output goes out whole to a client that reads it. */
static void test_big_reply(void)
{
	struct harness *h = harness_start("bigreply", NULL);
	const size_t n = 12u * 1024 * 1024;
	const char *req = "{\"cmd\":\"big\",\"args\":{\"n\":12582912},\"id\":7}\n";
	char *line = NULL;
	json_t *r;
	ssize_t len;
	int fd = cli_connect(h->path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(cli_send(fd, req, strlen(req)));
	usleep(200 * 1000); /* let the output pile up past 1 MiB first (if it can) */
	len = cli_recv_bulk(fd, CLI_HANG_MS, &line);
	CU_ASSERT(len > (ssize_t)n);
	r = line ? json_loads(line, 0, NULL) : NULL;
	CU_ASSERT(reply_ok(r));
	CU_ASSERT_EQUAL(
	    strlen(json_string_value(json_object_get(json_object_get(r, "result"), "data")) ?: ""),
	    n);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "id")), 7);
	json_decref(r);
	free(line);
	r = cli_call_raw(fd, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r)); /* and the connection goes on */
	json_decref(r);
	close(fd);
	harness_stop(h);
}

/* Past max_message the client is told why, with its id, and may go on. */
static void test_reply_too_large(void)
{
	struct ctl_opts opts;
	struct harness *h;
	json_t *r;
	int fd;

	ctl_opts_init(&opts);
	opts.max_message = 1024 * 1024;
	h = harness_start("toolarge", &opts);
	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	r = cli_call_raw(fd, "{\"cmd\":\"big\",\"args\":{\"n\":2000000},\"id\":\"q\"}");
	CU_ASSERT_STRING_EQUAL(reply_code(r) ?: "", CTL_ERR_TOO_LARGE);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "id")) ?: "", "q");
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(json_string_value(json_object_get(json_object_get(r, "error"), "message")) ?: "",
		   "ask for less"));
	json_decref(r);
	r = cli_call_raw(fd, "{\"cmd\":\"big\",\"args\":{\"n\":1000}}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	harness_stop(h);
}

/* A client that asks for a large reply and reads none of it is dropped after stall_ms. */
static void test_stalled_reader(void)
{
	struct ctl_opts opts;
	struct harness *h;
	char *line = NULL;
	json_t *r, *st;
	int fd, fd2;

	ctl_opts_init(&opts);
	opts.stall_ms = 300;
	h = harness_start("stall", &opts);
	fd = cli_connect(h->path);
	fd2 = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0 && fd2 >= 0);
	CU_ASSERT(cli_send(fd, "{\"cmd\":\"big\",\"args\":{\"n\":8000000}}\n", 35));
	/* read nothing until the server has dropped it (bounded) */
	CU_ASSERT(wait_stat(h, "dropped", 1, true));
	CU_ASSERT_EQUAL(cli_recv_bulk(fd, CLI_HANG_MS, &line), -1); /* cut off: never whole */
	free(line);
	close(fd);
	r = cli_call_raw(fd2, "{\"cmd\":\"status\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd2);
	st = harness_stats(h);
	CU_ASSERT(json_integer_value(json_object_get(st, "dropped")) >= 1);
	json_decref(st);
	harness_stop(h);
}

static void test_events(void)
{
	struct harness *h = harness_start("events", NULL);
	json_t *r, *ev;
	int sub, sub2, pub;

	sub = cli_connect(h->path);
	sub2 = cli_connect(h->path);
	pub = cli_connect(h->path);
	CU_ASSERT_FATAL(sub >= 0 && sub2 >= 0 && pub >= 0);
	r = cli_call_raw(sub, "{\"cmd\":\"subscribe\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	r = cli_call_raw(sub2, "{\"cmd\":\"subscribe\"}");
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	r = cli_call_raw(pub, "{\"cmd\":\"notify\",\"args\":{\"type\":\"link_down\",\"port\":3}}");
	CU_ASSERT(reply_ok(r));
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "delivered")) ==
		  2);
	json_decref(r);
	r = cli_recv_json(sub);
	ev = json_object_get(r, "event");
	CU_ASSERT_PTR_NOT_NULL(ev);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ev, "type")), "link_down");
	CU_ASSERT(json_integer_value(json_object_get(ev, "port")) == 3);
	json_decref(r);
	r = cli_recv_json(sub2);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(r, "event"));
	json_decref(r);

	/* a subscriber that goes away is forgotten (once the server has seen it go) */
	close(sub2);
	CU_ASSERT(wait_stat(h, "subscribers", 1, false));
	r = cli_call_raw(pub, "{\"cmd\":\"notify\",\"args\":{\"type\":\"x\"}}");
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "delivered")) ==
		  1);
	json_decref(r);
	r = cli_recv_json(sub);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(r, "event"));
	json_decref(r);
	close(sub);
	close(pub);
	harness_stop(h);
}

static void test_deferred_and_pipelined(void)
{
	struct harness *h = harness_start("defer", NULL);
	const char *two = "{\"cmd\":\"later\"}\n{\"cmd\":\"echo\",\"args\":{\"k\":2}}\n";
	json_t *r;
	char *line;
	int a, b;

	a = cli_connect(h->path);
	b = cli_connect(h->path);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT(cli_send(a, two, strlen(two)));
	line = cli_recv_line(a, 200); /* nothing yet: "later" is pending */
	CU_ASSERT_PTR_NULL(line);
	free(line);
	r = cli_call_raw(b, "{\"cmd\":\"finish\"}");
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "r")) == 0);
	json_decref(r);
	r = cli_recv_json(a);
	CU_ASSERT_STRING_EQUAL(
	    json_string_value(json_object_get(json_object_get(r, "result"), "later")), "done");
	json_decref(r);
	r = cli_recv_json(a);
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "k")) == 2);
	json_decref(r);
	/* nothing pending any more */
	r = cli_call_raw(b, "{\"cmd\":\"finish\"}");
	CU_ASSERT(json_integer_value(json_object_get(json_object_get(r, "result"), "r")) ==
		  -ENOENT);
	json_decref(r);
	close(a);
	close(b);
	harness_stop(h);
}

static void test_half_close(void)
{
	struct harness *h = harness_start("half", NULL);
	const char *req = "{\"cmd\":\"status\"}"; /* no newline, then EOF */
	json_t *r;
	int fd;

	fd = cli_connect(h->path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(cli_send(fd, req, strlen(req)));
	shutdown(fd, SHUT_WR);
	r = cli_recv_json(fd);
	CU_ASSERT(reply_ok(r));
	json_decref(r);
	close(fd);
	harness_stop(h);
}

static void test_socket_file(void)
{
	struct harness *h = harness_start("live", NULL);
	struct event_base *base = event_base_new();
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct ctl_server *srv;
	struct ctl_opts opts;
	char err[256], path[100], live[sizeof(h->path)];
	int fd;

	/* a live socket is not stolen */
	ctl_opts_init(&opts);
	snprintf(live, sizeof(live), "%s", h->path); /* h is gone when it is used again */
	opts.path = h->path;
	srv = ctl_server_new(base, &opts, test_cmds, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NULL(srv);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "already running"));
	harness_stop(h);

	/* a stale one is replaced */
	snprintf(path, sizeof(path), "%s/stale.sock", test_dir);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	close(fd);
	opts.path = path;
	srv = ctl_server_new(base, &opts, test_cmds, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(srv);
	ctl_server_free(srv);

	/* a path that is not a socket is never replaced */
	snprintf(path, sizeof(path), "%s/regular", test_dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "keep", 4) == 4);
	close(fd);
	opts.path = path;
	srv = ctl_server_new(base, &opts, test_cmds, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NULL(srv);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a socket"));
	{
		struct stat st;

		CU_ASSERT(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4);
	}
	unlink(path);
	opts.path = live;

	/* bad groups and paths are reported */
	opts.admin_group = "no-such-group-ibsmd";
	srv = ctl_server_new(base, &opts, test_cmds, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NULL(srv);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-group-ibsmd"));
	opts.admin_group = NULL;
	opts.path = "/nonexistent-dir-ibsmd/x.sock";
	srv = ctl_server_new(base, &opts, test_cmds, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NULL(srv);
	ctl_server_free(NULL);
	event_base_free(base);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"status and socket mode", test_status_and_socket_mode},
	    {"bad input keeps the connection", test_bad_input},
	    {"bad argument from a handler", test_bad_argument},
	    {"admin commands need credentials", test_permission},
	    {"4 MiB request", test_request_too_large},
	    {"50 clients at once", test_many_clients},
	    {"too many clients", test_too_many_clients},
	    {"client that never reads", test_slow_reader},
	    {"a 12 MiB reply", test_big_reply},
	    {"a reply over max_message", test_reply_too_large},
	    {"a reader that stalls", test_stalled_reader},
	    {"events", test_events},
	    {"deferred and pipelined replies", test_deferred_and_pipelined},
	    {"half close", test_half_close},
	    {"socket file handling", test_socket_file},
	    {"per-uid caps, slots reserved for admins", test_uid_caps},
	    {"a request's read deadline: a dripped request loses its slot", test_request_deadline},
	    {"idle timeout, subscribers excepted", test_idle_timeout},
	    {NULL, NULL},
	};
	int rc;

	signal(SIGPIPE, SIG_IGN);
	snprintf(test_dir, sizeof(test_dir), "/tmp/test_ctl.XXXXXX");
	if (!mkdtemp(test_dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = testutil_run("ctl", cases);
	rmdir(test_dir);
	return rc;
}

/*
 * smctl: the command-line client of ibsmd's control socket (docs/protocol.md).
 *
 * Turns "smctl COMMAND ARGS" into one JSON request, waits (bounded) for the
 * one-line reply and prints the result: as tables and "key: value" lines by
 * default, as JSON with --json.  "events" keeps reading event lines until the
 * daemon closes or the user interrupts.
 *
 * Exit status: 0 ok, 1 the daemon answered with an error, 2 usage error,
 * cannot connect, timeout or a malformed reply.
 *
 * This file is the client's front and transport: options, the command's
 * arguments (by its row in smctl_cmds.c) into a request, the socket, the
 * reply and the event stream; smctl_print.c prints them (see smctl.h).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ui/smctl_int.h"

#define SMCTL_DEFAULT_SOCKET "/run/ibsmd/ibsmd.sock"
#define SMCTL_MAX_REPLY (320u * 1024 * 1024) /* above what ibsmd sends (256 MiB) */
#define SMCTL_DEFAULT_TIMEOUT 30

static const char *smctl_socket;
static struct smctl_view smctl_out; /* how the reply is printed */
static int smctl_timeout = SMCTL_DEFAULT_TIMEOUT;
static volatile sig_atomic_t smctl_interrupted;

static void usage(FILE *f)
{
	const struct smctl_cmd *cmd;

	fprintf(f, "usage: smctl [--socket PATH] [--json] [--timeout SEC] COMMAND [ARGS]\n\n"
		   "commands:\n");
	for (cmd = smctl_cmds; cmd->name; cmd++)
		fprintf(f, "  %-52s %s\n", cmd->usage, cmd->help);
	fprintf(f, "  %-52s %s\n", "call <command> [JSON-ARGS]", "send any command");
	fprintf(f, "  %-52s %s\n", "<command> [key=value...]", "commands this smctl does not know");
	fprintf(f,
		"\noptions:\n"
		"  --socket PATH   control socket (default $IBSMD_SOCKET or %s)\n"
		"  --json          print the raw JSON result\n"
		"  --timeout SEC   give up after SEC seconds (default %d)\n"
		"\nexit status: 0 ok, 1 error from ibsmd, 2 usage error or cannot reach ibsmd\n",
		SMCTL_DEFAULT_SOCKET, SMCTL_DEFAULT_TIMEOUT);
}

/* ---- arguments -------------------------------------------------------- */

static bool parse_int(const char *s, long long *ret)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (!*s || *end || errno)
		return false;
	*ret = v;
	return true;
}

/* key=value, value typed: integer, true/false/null, else string. */
static void add_kv_arg(json_t *args, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[128];
	long long v;
	json_t *jv;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		smctl_die(EXIT_USAGE, "argument '%s' is not key=value (see smctl --help)", kv);
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	eq++;
	if (parse_int(eq, &v))
		jv = json_integer(v);
	else if (!strcmp(eq, "true") || !strcmp(eq, "false"))
		jv = json_boolean(!strcmp(eq, "true"));
	else
		jv = json_string(eq);
	json_object_set_new(args, key, jv);
}

static json_t *build_request(int argc, char **argv, const struct smctl_cmd **ret_cmd)
{
	const char *name = argv[0];
	const struct smctl_cmd *cmd;
	json_t *args = json_object(), *req;
	json_error_t jerr;
	int i, pos = 0;
	long long v;

	cmd = smctl_cmd_find(name);
	*ret_cmd = cmd;

	if (!strcmp(name, "call")) {
		if (argc < 2 || argc > 3)
			smctl_die(EXIT_USAGE, "usage: smctl call <command> [JSON-ARGS]");
		name = argv[1];
		if (argc == 3) {
			json_decref(args);
			args = json_loads(argv[2], 0, &jerr);
			if (!json_is_object(args))
				smctl_die(EXIT_USAGE, "JSON-ARGS must be a JSON object: %s",
					  args ? "not an object" : jerr.text);
		}
		*ret_cmd = smctl_cmd_find(name);
	} else if (!cmd) {
		for (i = 1; i < argc; i++)
			add_kv_arg(args, argv[i]);
	} else {
		for (i = 1; i < argc; i++) {
			if (cmd->option && !strncmp(argv[i], "--", 2) &&
			    smctl_cmd_option(cmd, argv[i] + 2)) {
				const char *opt = smctl_cmd_option(cmd, argv[i] + 2);
				size_t ol = strcspn(opt, ",");
				const char *o = argv[i] + 2 + ol;
				char oname[32];

				snprintf(oname, sizeof(oname), "%.*s", (int)ol, opt);
				if ((!strcmp(oname, "unhealthy") || !strcmp(oname, "guids") ||
				     !strcmp(oname, "index0")) &&
				    !*o) { /* a flag */
					json_object_set_new(args, oname, json_true());
					continue;
				}
				if (*o == '=') {
					o++;
				} else if (!*o && i + 1 < argc) {
					o = argv[++i];
				} else {
					smctl_die(EXIT_USAGE, "usage: smctl %s", cmd->usage);
				}
				if (!strcmp(oname, "offset") || !strcmp(oname, "limit") ||
				    !strcmp(oname, "mtu_limit") ||
				    !strcmp(oname, "service_level")) {
					if (!parse_int(o, &v) || v < 0)
						smctl_die(EXIT_USAGE,
							  "--%s: '%s' is not a number >= 0", oname,
							  o);
					json_object_set_new(args, oname, json_integer(v));
				} else if (!strcmp(oname, "rate_limit")) {
					char *end;
					double d = strtod(o, &end);

					if (!*o || *end || !(d > 0))
						smctl_die(EXIT_USAGE,
							  "--rate_limit: '%s' is not Gb/s", o);
					json_object_set_new(args, oname, json_real(d));
				} else if (!strcmp(oname, "ip_over_ib")) {
					if (strcmp(o, "true") && strcmp(o, "false"))
						smctl_die(EXIT_USAGE,
							  "--ip_over_ib: '%s': true or false", o);
					json_object_set_new(args, oname,
							    json_boolean(!strcmp(o, "true")));
				} else {
					json_object_set_new(args, oname, json_string(o));
				}
				continue;
			}
			if (!strcmp(cmd->name, "status") && !strcmp(argv[i], "--full")) {
				smctl_out.full = true; /* a view: not sent */
				continue;
			}
			if (argv[i][0] == '-' && argv[i][1] && cmd->arg_types[pos] != ARG_INT)
				smctl_die(EXIT_USAGE, "%s: unknown option '%s'; usage: smctl %s",
					  cmd->name, argv[i], cmd->usage);
			if (pos >= abs(cmd->nargs))
				smctl_die(EXIT_USAGE, "too many arguments; usage: smctl %s",
					  cmd->usage);
			if (cmd->arg_types[pos] == ARG_INT) {
				if (!parse_int(argv[i], &v))
					smctl_die(EXIT_USAGE,
						  "%s: '%s' is not a number; usage: smctl %s",
						  cmd->name, argv[i], cmd->usage);
				json_object_set_new(args, cmd->arg_names[pos], json_integer(v));
			} else if (cmd->arg_types[pos] == ARG_LIST) {
				json_t *a = json_array();

				for (const char *s = argv[i]; a && *s;) {
					size_t l = strcspn(s, ",");

					if (l)
						json_array_append_new(a, json_stringn(s, l));
					s += l + (s[l] == ',');
				}
				json_object_set_new(args, cmd->arg_names[pos], a);
			} else {
				json_object_set_new(args, cmd->arg_names[pos],
						    json_string(argv[i]));
			}
			pos++;
		}
		if (pos < smctl_cmd_required_args(cmd))
			smctl_die(EXIT_USAGE, "missing argument; usage: smctl %s", cmd->usage);
		smctl_out.detail = !strcmp(cmd->name, "counters") && pos > 0;
		smctl_out.cmd = cmd->name;
	}
	req = json_pack("{s:s}", "cmd", name);
	if (!req)
		smctl_die(EXIT_USAGE, "out of memory");
	if (json_object_size(args))
		json_object_set(req, "args", args);
	json_decref(args);
	return req;
}

/* ---- transport -------------------------------------------------------- */

static int connect_socket(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct timeval tv = {smctl_timeout, 0};
	int fd, e;

	if (strlen(path) >= sizeof(sun.sun_path))
		smctl_die(EXIT_USAGE, "%s: socket path too long", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		smctl_die(EXIT_USAGE, "socket: %s", strerror(errno));
	/* Bounds a connect that waits for room in a full listen backlog. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	e = errno;
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		smctl_die(
		    EXIT_USAGE,
		    "cannot connect to %s: %s\n"
		    "  is ibsmd running? check 'systemctl status ibsmd', or point smctl at its "
		    "socket\n"
		    "  with --socket PATH or IBSMD_SOCKET (socket_path in ibsmd.conf)",
		    path, strerror(e));
	case EACCES:
	case EPERM:
		smctl_die(
		    EXIT_USAGE,
		    "cannot connect to %s: %s\n"
		    "  run smctl as root or as a member of the socket's group (socket_group in "
		    "ibsmd.conf)",
		    path, strerror(e));
	case EAGAIN:
	case EINPROGRESS:
		smctl_die(
		    EXIT_USAGE,
		    "cannot connect to %s: ibsmd is not accepting connections (busy?); try again",
		    path);
	default:
		smctl_die(EXIT_USAGE, "cannot connect to %s: %s", path, strerror(e));
	}
}

static void send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				smctl_die(EXIT_USAGE,
					  "timed out sending the request after %d s (--timeout)",
					  smctl_timeout);
			smctl_die(EXIT_USAGE, "sending the request: %s", strerror(errno));
		}
		buf += n;
		len -= (size_t)n;
	}
}

struct linebuf {
	char *buf;
	size_t len, cap;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Read one line into *ret (NUL-terminated, without the newline).  deadline_ms
 * < 0 waits forever.  Returns 1 with a line, 0 at EOF, -ETIMEDOUT, -EINTR
 * (interrupted by the user) or another -errno.
 */
static int read_line(int fd, struct linebuf *lb, long long deadline_ms, char **ret)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char *nl;
	ssize_t n;
	int timeout, r;

	for (;;) {
		nl = lb->len ? memchr(lb->buf, '\n', lb->len) : NULL;
		if (nl) {
			size_t l = (size_t)(nl - lb->buf);
			char *line = malloc(l + 1);

			if (!line)
				return -ENOMEM;
			memcpy(line, lb->buf, l);
			line[l] = '\0';
			memmove(lb->buf, nl + 1, lb->len - l - 1);
			lb->len -= l + 1;
			*ret = line;
			return 1;
		}
		if (lb->len >= SMCTL_MAX_REPLY)
			return -EMSGSIZE;
		if (smctl_interrupted)
			return -EINTR;
		timeout = -1;
		if (deadline_ms >= 0) {
			long long left = deadline_ms - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			timeout = left > INT_MAX ? INT_MAX : (int)left;
		}
		r = poll(&pfd, 1, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			continue;
		if (lb->cap - lb->len < 65536) {
			size_t cap = lb->cap ? lb->cap * 2 : 131072;
			char *nb;

			if (cap > SMCTL_MAX_REPLY + 65536)
				cap = SMCTL_MAX_REPLY + 65536;
			nb = realloc(lb->buf, cap);
			if (!nb)
				return -ENOMEM;
			lb->buf = nb;
			lb->cap = cap;
		}
		n = recv(fd, lb->buf + lb->len, lb->cap - lb->len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		lb->len += (size_t)n;
	}
}

/* ---- main ------------------------------------------------------------- */

static void on_signal(int sig)
{
	smctl_interrupted = 1;
}

static json_t *parse_reply(const char *line)
{
	json_error_t jerr;
	json_t *reply = json_loads(line, 0, &jerr);

	if (!json_is_object(reply))
		smctl_die(EXIT_USAGE, "malformed reply from ibsmd: %s",
			  reply ? "not an object" : jerr.text);
	return reply;
}

int main(int argc, char **argv)
{
	const struct smctl_cmd *cmd;
	struct linebuf lb = {0};
	struct sigaction sa;
	json_t *req, *reply, *ev;
	char *s, *line;
	int i, fd, r, status;

	smctl_socket = getenv("IBSMD_SOCKET");
	if (!smctl_socket || !*smctl_socket)
		smctl_socket = SMCTL_DEFAULT_SOCKET;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			smctl_out.json = true;
		} else if (!strcmp(a, "--socket") || !strcmp(a, "-s")) {
			if (++i >= argc)
				smctl_die(EXIT_USAGE, "%s needs a PATH", a);
			smctl_socket = argv[i];
		} else if (!strncmp(a, "--socket=", 9)) {
			smctl_socket = a + 9;
		} else if (!strcmp(a, "--timeout") || !strncmp(a, "--timeout=", 10)) {
			const char *v = a[9] == '=' ? a + 10 : (++i < argc ? argv[i] : NULL);
			long long t;

			if (!v || !parse_int(v, &t) || t < 1 || t > 86400)
				smctl_die(EXIT_USAGE,
					  "--timeout needs a number of seconds (1-86400)");
			smctl_timeout = (int)t;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
#ifdef PACKAGE_VERSION
			puts("smctl " PACKAGE_VERSION);
#else
			puts("smctl");
#endif
			return 0;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else {
			fprintf(stderr, "smctl: unknown option '%s'\n", a);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	req = build_request(argc - i, argv + i, &cmd);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	fd = connect_socket(smctl_socket);
	s = json_dumps(req, JSON_COMPACT);
	if (!s)
		smctl_die(EXIT_USAGE, "out of memory");
	send_all(fd, s, strlen(s));
	send_all(fd, "\n", 1);
	free(s);
	json_decref(req);

	r = read_line(fd, &lb, now_ms() + smctl_timeout * 1000LL, &line);
	if (r == -ETIMEDOUT)
		smctl_die(EXIT_USAGE,
			  "no reply from ibsmd within %d s; is it stuck? (raise --timeout)",
			  smctl_timeout);
	if (r == -EINTR)
		return 130;
	if (r == -EMSGSIZE)
		smctl_die(EXIT_USAGE, "reply larger than %u bytes", SMCTL_MAX_REPLY);
	if (r == 0)
		smctl_die(EXIT_USAGE, "ibsmd closed the connection without replying");
	if (r < 0)
		smctl_die(EXIT_USAGE, "reading the reply: %s", strerror(-r));
	reply = parse_reply(line);
	free(line);
	status = smctl_print_reply(reply, &smctl_out);
	json_decref(reply);
	fflush(stdout);
	if (status || !cmd || !cmd->stream) {
		close(fd);
		free(lb.buf);
		return status;
	}

	/* events: one {"event":...} per line until the daemon closes or we are interrupted */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		r = read_line(fd, &lb, -1, &line);
		if (r == -EINTR)
			break;
		if (r == 0)
			smctl_die(EXIT_USAGE, "ibsmd closed the event stream");
		if (r < 0)
			smctl_die(EXIT_USAGE, "reading events: %s", strerror(-r));
		reply = parse_reply(line);
		free(line);
		ev = json_object_get(reply, "event");
		if (ev) {
			smctl_print_event(ev, smctl_out.json);
			fflush(stdout);
		} else if (json_object_get(reply, "ok"))
			status = smctl_print_reply(reply, &smctl_out) ? EXIT_SM_ERROR : status;
		json_decref(reply);
	}
	close(fd);
	free(lb.buf);
	return status;
}

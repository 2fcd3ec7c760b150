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

#define SMCTL_DEFAULT_SOCKET "/run/ibsmd/ibsmd.sock"
#define SMCTL_MAX_REPLY (320u * 1024 * 1024) /* above what ibsmd sends (256 MiB) */
#define SMCTL_DEFAULT_TIMEOUT 30
#define SMCTL_MAX_ARGS 4

/* the listings' filters (docs/protocol.md "Listings"); offset and limit are numbers */
#define LIST_OPTIONS "type,state,node,offset,limit"
#define EXIT_SM_ERROR 1
#define EXIT_USAGE 2

enum smctl_arg_type {
	ARG_STRING,
	ARG_INT,
};

struct smctl_cmd {
	const char *name;
	const char *usage;
	int nargs; /* positional arguments; -N: up to N, each optional */
	const char *arg_names[SMCTL_MAX_ARGS];
	enum smctl_arg_type arg_types[SMCTL_MAX_ARGS];
	const char *option; /* "--option VALUE"s the command takes, mapped to args.option:
			     * a name, or a list (LIST_OPTIONS) */
	bool stream;	    /* events: keep reading */
	const char *help;
};

static const struct smctl_cmd smctl_cmds[] = {
    {"status", "status", 0, {0}, {0}, NULL, false, "state, counts, MAD counters"},
    {"nodes",
     "nodes [--type switch|ca] [--node ID] [--offset N] [--limit N]",
     0,
     {0},
     {0},
     "type,node,offset,limit",
     false,
     "the nodes of the fabric"},
    {"ports",
     "ports [--type T] [--state down|init|armed|active] [--node ID] [--unhealthy] [--offset N] "
     "[--limit N]",
     0,
     {0},
     {0},
     LIST_OPTIONS ",unhealthy",
     false,
     "ports: state, LID, width, speed, MTU, peer"},
    {"links",
     "links [--type T] [--state S] [--node ID] [--offset N] [--limit N]",
     0,
     {0},
     {0},
     LIST_OPTIONS,
     false,
     "links between two ports"},
    {"lids",
     "lids [--type T] [--node ID] [--offset N] [--limit N]",
     0,
     {0},
     {0},
     "type,node,offset,limit",
     false,
     "LID assignments"},
    {"node",
     "node <guid|lid|name>",
     1,
     {"id"},
     {ARG_STRING},
     NULL,
     false,
     "one node and its ports"},
    {"route",
     "route <src> <dst>",
     2,
     {"src", "dst"},
     {ARG_STRING, ARG_STRING},
     NULL,
     false,
     "the hop-by-hop path from src to dst through the LFTs"},
    {"sweep", "sweep", 0, {0}, {0}, NULL, false, "start a heavy sweep (admin)"},
    {"reroute", "reroute", 0, {0}, {0}, NULL, false, "recompute and program routes (admin)"},
    {"priority",
     "priority <0-15>",
     1,
     {"priority"},
     {ARG_INT},
     NULL,
     false,
     "set the SM priority (admin)"},
    {"handover",
     "handover [<guid>]",
     1,
     {"guid"},
     {ARG_STRING},
     NULL,
     false,
     "hand the subnet to that standby SM, or the best one (admin; lowers the priority if needed)"},
    {"port",
     "port <disable|enable> <node> <port>",
     3,
     {"action", "node", "port"},
     {ARG_STRING, ARG_STRING, ARG_INT},
     NULL,
     false,
     "disable a port (physical state Disabled) or enable it again (admin)"},
    {"loglevel",
     "loglevel <category|all> <error|warning|info|debug>",
     2,
     {"category", "level"},
     {ARG_STRING, ARG_STRING},
     NULL,
     false,
     "set a log category's level (admin)"},
    {"topology",
     "topology [--format json|ibnetdiscover|dot]",
     0,
     {0},
     {0},
     "format",
     false,
     "the whole fabric"},
    {"events", "events", 0, {0}, {0}, NULL, true, "stream fabric events until interrupted"},
    {"metrics", "metrics", 0, {0}, {0}, NULL, false, "Prometheus text exposition"},
    {"counters",
     "counters [node [port]]",
     -2,
     {"node", "port"},
     {ARG_STRING, ARG_INT},
     NULL,
     false,
     "port counters read by the performance manager (perfmgr)"},
    {"eventlog",
     "eventlog [after-seq]",
     -1,
     {"after"},
     {ARG_INT},
     NULL,
     false,
     "the last events kept by the daemon, oldest first"},
    {"config", "config", 0, {0}, {0}, NULL, false, "the configuration in effect"},
    {NULL},
};

static const char *smctl_socket;
static bool smctl_detail;      /* counters NODE: every port as "key: value" lines */
static const char *smctl_view; /* the command, for how its result is printed */
static bool smctl_json;
static int smctl_timeout = SMCTL_DEFAULT_TIMEOUT;
static volatile sig_atomic_t smctl_interrupted;

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("smctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* The option of cmd that arg ("name" or "name=value") names, as a pointer into cmd->option. */
static const char *option_of(const struct smctl_cmd *cmd, const char *arg)
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
		die(EXIT_USAGE, "argument '%s' is not key=value (see smctl --help)", kv);
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

/* Positional arguments that must be given: those not written "[<...>]" in the usage. */
static int smctl_required_args(const struct smctl_cmd *cmd)
{
	int n = cmd->nargs;

	for (const char *u = cmd->usage; (u = strstr(u, "[<")) != NULL; u += 2)
		n--;
	return n;
}

static json_t *build_request(int argc, char **argv, const struct smctl_cmd **ret_cmd)
{
	const char *name = argv[0];
	const struct smctl_cmd *cmd;
	json_t *args = json_object(), *req;
	json_error_t jerr;
	int i, pos = 0;
	long long v;

	for (cmd = smctl_cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, name))
			break;
	*ret_cmd = cmd->name ? cmd : NULL;

	if (!strcmp(name, "call")) {
		if (argc < 2 || argc > 3)
			die(EXIT_USAGE, "usage: smctl call <command> [JSON-ARGS]");
		name = argv[1];
		if (argc == 3) {
			json_decref(args);
			args = json_loads(argv[2], 0, &jerr);
			if (!json_is_object(args))
				die(EXIT_USAGE, "JSON-ARGS must be a JSON object: %s",
				    args ? "not an object" : jerr.text);
		}
		for (cmd = smctl_cmds; cmd->name; cmd++)
			if (!strcmp(cmd->name, name))
				break;
		*ret_cmd = cmd->name ? cmd : NULL;
	} else if (!cmd->name) {
		for (i = 1; i < argc; i++)
			add_kv_arg(args, argv[i]);
	} else {
		for (i = 1; i < argc; i++) {
			if (cmd->option && !strncmp(argv[i], "--", 2) &&
			    option_of(cmd, argv[i] + 2)) {
				const char *opt = option_of(cmd, argv[i] + 2);
				size_t ol = strcspn(opt, ",");
				const char *o = argv[i] + 2 + ol;
				char oname[32];

				snprintf(oname, sizeof(oname), "%.*s", (int)ol, opt);
				if (!strcmp(oname, "unhealthy") && !*o) { /* a flag */
					json_object_set_new(args, oname, json_true());
					continue;
				}
				if (*o == '=') {
					o++;
				} else if (!*o && i + 1 < argc) {
					o = argv[++i];
				} else {
					die(EXIT_USAGE, "usage: smctl %s", cmd->usage);
				}
				if (!strcmp(oname, "offset") || !strcmp(oname, "limit")) {
					if (!parse_int(o, &v) || v < 0)
						die(EXIT_USAGE, "--%s: '%s' is not a number >= 0",
						    oname, o);
					json_object_set_new(args, oname, json_integer(v));
				} else {
					json_object_set_new(args, oname, json_string(o));
				}
				continue;
			}
			if (argv[i][0] == '-' && argv[i][1] && cmd->arg_types[pos] != ARG_INT)
				die(EXIT_USAGE, "%s: unknown option '%s'; usage: smctl %s",
				    cmd->name, argv[i], cmd->usage);
			if (pos >= abs(cmd->nargs))
				die(EXIT_USAGE, "too many arguments; usage: smctl %s", cmd->usage);
			if (cmd->arg_types[pos] == ARG_INT) {
				if (!parse_int(argv[i], &v))
					die(EXIT_USAGE, "%s: '%s' is not a number; usage: smctl %s",
					    cmd->name, argv[i], cmd->usage);
				json_object_set_new(args, cmd->arg_names[pos], json_integer(v));
			} else {
				json_object_set_new(args, cmd->arg_names[pos],
						    json_string(argv[i]));
			}
			pos++;
		}
		if (pos < smctl_required_args(cmd))
			die(EXIT_USAGE, "missing argument; usage: smctl %s", cmd->usage);
		smctl_detail = !strcmp(cmd->name, "counters") && pos > 0;
		smctl_view = cmd->name;
	}
	req = json_pack("{s:s}", "cmd", name);
	if (!req)
		die(EXIT_USAGE, "out of memory");
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
		die(EXIT_USAGE, "%s: socket path too long", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die(EXIT_USAGE, "socket: %s", strerror(errno));
	/* Bounds a connect that waits for room in a full listen backlog. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	e = errno;
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		die(EXIT_USAGE,
		    "cannot connect to %s: %s\n"
		    "  is ibsmd running? check 'systemctl status ibsmd', or point smctl at its "
		    "socket\n"
		    "  with --socket PATH or IBSMD_SOCKET (socket_path in ibsmd.conf)",
		    path, strerror(e));
	case EACCES:
	case EPERM:
		die(EXIT_USAGE,
		    "cannot connect to %s: %s\n"
		    "  run smctl as root or as a member of the socket's group (socket_group in "
		    "ibsmd.conf)",
		    path, strerror(e));
	case EAGAIN:
	case EINPROGRESS:
		die(EXIT_USAGE,
		    "cannot connect to %s: ibsmd is not accepting connections (busy?); try again",
		    path);
	default:
		die(EXIT_USAGE, "cannot connect to %s: %s", path, strerror(e));
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
				die(EXIT_USAGE,
				    "timed out sending the request after %d s (--timeout)",
				    smctl_timeout);
			die(EXIT_USAGE, "sending the request: %s", strerror(errno));
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

/* ---- output ----------------------------------------------------------- */

static char *scalar_str(json_t *v)
{
	char *s = NULL;

	switch (json_typeof(v)) {
	case JSON_STRING:
		s = strdup(json_string_value(v));
		break;
	case JSON_INTEGER:
		if (asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
			s = NULL;
		break;
	case JSON_REAL:
		if (asprintf(&s, "%g", json_real_value(v)) < 0)
			s = NULL;
		break;
	case JSON_TRUE:
		s = strdup("yes");
		break;
	case JSON_FALSE:
		s = strdup("no");
		break;
	case JSON_NULL:
		s = strdup("-");
		break;
	default:
		s = json_dumps(v, JSON_COMPACT);
		break;
	}
	if (!s)
		die(EXIT_USAGE, "out of memory");
	return s;
}

static bool is_table(json_t *v)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		return false;
	json_array_foreach (v, i, e)
		if (!json_is_object(e))
			return false;
	return true;
}

static void print_table(json_t *rows, const char *indent)
{
	json_t *cols = json_array(), *row, *val;
	size_t i, j, ncols, *width;
	const char *key;
	char *s;

	json_array_foreach (rows, i, row) {
		json_object_foreach (row, key, val) {
			bool seen = false;

			json_array_foreach (cols, j, val)
				if (!strcmp(json_string_value(val), key))
					seen = true;
			if (!seen)
				json_array_append_new(cols, json_string(key));
		}
	}
	ncols = json_array_size(cols);
	width = calloc(ncols ? ncols : 1, sizeof(*width));
	if (!width)
		die(EXIT_USAGE, "out of memory");
	for (j = 0; j < ncols; j++)
		width[j] = strlen(json_string_value(json_array_get(cols, j)));
	json_array_foreach (rows, i, row) {
		for (j = 0; j < ncols; j++) {
			val = json_object_get(row, json_string_value(json_array_get(cols, j)));
			s = val ? scalar_str(val) : strdup("-");
			if (s && strlen(s) > width[j])
				width[j] = strlen(s);
			free(s);
		}
	}
	fputs(indent, stdout);
	for (j = 0; j < ncols; j++) {
		const char *h = json_string_value(json_array_get(cols, j));
		size_t k;

		for (k = 0; h[k]; k++)
			putchar(h[k] >= 'a' && h[k] <= 'z' ? h[k] - 'a' + 'A' : h[k]);
		if (j + 1 < ncols)
			printf("%*s", (int)(width[j] - strlen(h) + 2), "");
	}
	putchar('\n');
	json_array_foreach (rows, i, row) {
		fputs(indent, stdout);
		for (j = 0; j < ncols; j++) {
			val = json_object_get(row, json_string_value(json_array_get(cols, j)));
			s = val ? scalar_str(val) : strdup("-");
			if (!s)
				die(EXIT_USAGE, "out of memory");
			if (j + 1 < ncols)
				printf("%-*s  ", (int)width[j], s);
			else
				fputs(s, stdout);
			free(s);
		}
		putchar('\n');
	}
	free(width);
	json_decref(cols);
}

static size_t key_width(json_t *obj, const char *prefix)
{
	const char *key;
	json_t *v;
	size_t w = 0, l;

	json_object_foreach (obj, key, v) {
		if (json_is_object(v) && json_object_size(v)) {
			char p[256];

			snprintf(p, sizeof(p), "%s%s.", prefix, key);
			l = key_width(v, p);
		} else {
			l = strlen(prefix) + strlen(key);
		}
		if (l > w)
			w = l;
	}
	return w;
}

static void print_object(json_t *obj, const char *prefix, size_t width)
{
	const char *key;
	json_t *v;
	char *s;

	json_object_foreach (obj, key, v) {
		char name[256];

		snprintf(name, sizeof(name), "%s%s", prefix, key);
		if (json_is_object(v) && json_object_size(v)) {
			char p[260];

			snprintf(p, sizeof(p), "%s.", name);
			print_object(v, p, width);
		} else if (is_table(v)) {
			printf("%s:\n", name);
			print_table(v, "  ");
		} else {
			s = scalar_str(v);
			printf("%s:%*s %s\n", name, (int)(width - strlen(name)), "", s);
			free(s);
		}
	}
}

/* ---- listings an admin reads: fewer columns than the JSON, with units ---- */

static const char *jstr(json_t *row, const char *key)
{
	const char *v = json_string_value(json_object_get(row, key));

	return v ? v : "-";
}

static char *cell_port_rate(json_t *row)
{
	static const struct {
		const char *name;
		double gbps;
	} lane[] = {{"SDR", 2.5}, {"DDR", 5}, {"QDR", 10}};
	const char *w = jstr(row, "width"), *sp = jstr(row, "speed");
	int lanes = atoi(w);
	char *s = NULL;

	for (size_t i = 0; i < sizeof(lane) / sizeof(lane[0]); i++)
		if (!strcmp(sp, lane[i].name) && lanes > 0 &&
		    asprintf(&s, "%g Gb/s", lanes * lane[i].gbps) < 0)
			s = NULL;
	return s ? s : strdup("-");
}

static char *cell_mtu(json_t *row)
{
	json_int_t m = json_integer_value(json_object_get(row, "mtu"));
	char *s = NULL;

	if (m <= 0)
		return strdup("-");
	return asprintf(&s, "%" JSON_INTEGER_FORMAT " B", m) < 0 ? NULL : s;
}

static char *cell_end(json_t *row, const char *desc, const char *port)
{
	json_t *p = json_object_get(row, port);
	char *s = NULL;

	if (!json_object_get(row, desc))
		return strdup("-");
	return asprintf(&s, "%s[%" JSON_INTEGER_FORMAT "]", jstr(row, desc),
			json_integer_value(p)) < 0
		   ? NULL
		   : s;
}

static char *cell_peer(json_t *row)
{
	return cell_end(row, "peer_desc", "peer_port");
}
static char *cell_a(json_t *row)
{
	return cell_end(row, "a_desc", "a_port");
}
static char *cell_b(json_t *row)
{
	return cell_end(row, "b_desc", "b_port");
}

struct column {
	const char *header;
	const char *key;	    /* a member shown as it is, or */
	char *(*cell)(json_t *row); /* one computed */
};

static const struct column port_columns[] = {
    {"NODE", "node_desc", NULL},  {"PORT", "port", NULL},
    {"LID", "lid", NULL},	  {"STATE", "state", NULL},
    {"PHYS", "phys_state", NULL}, {"WIDTH", "width", NULL},
    {"SPEED", "speed", NULL},	  {"RATE", NULL, cell_port_rate},
    {"MTU", NULL, cell_mtu},	  {"PEER", NULL, cell_peer},
    {NULL, NULL, NULL},
};

static const struct column link_columns[] = {
    {"A", NULL, cell_a},
    {"B", NULL, cell_b},
    {"WIDTH", "width", NULL},
    {"SPEED", "speed", NULL},
    {"RATE", NULL, cell_port_rate},
    {"STATE", "state", NULL},
    {NULL, NULL, NULL},
};

static char *column_cell(const struct column *c, json_t *row)
{
	json_t *v;

	if (c->cell)
		return c->cell(row);
	v = json_object_get(row, c->key);
	return v ? scalar_str(v) : strdup("-");
}

static void print_columns(json_t *rows, const struct column *cols)
{
	size_t n = 0, width[16] = {0}, i;
	json_t *row;
	char *s;

	for (; cols[n].header && n < 16; n++)
		width[n] = strlen(cols[n].header);
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			s = column_cell(&cols[j], row);
			if (s && strlen(s) > width[j])
				width[j] = strlen(s);
			free(s);
		}
	}
	for (size_t j = 0; j < n; j++) {
		if (j + 1 < n)
			printf("%-*s  ", (int)width[j], cols[j].header);
		else
			puts(cols[j].header);
	}
	json_array_foreach (rows, i, row) {
		for (size_t j = 0; j < n; j++) {
			s = column_cell(&cols[j], row);
			if (!s)
				die(EXIT_USAGE, "out of memory");
			if (j + 1 < n)
				printf("%-*s  ", (int)width[j], s);
			else
				puts(s);
			free(s);
		}
	}
}

static void print_human(json_t *result)
{
	size_t i;
	json_t *e;
	char *s;

	if (json_is_string(result)) {
		const char *str = json_string_value(result);
		size_t l = strlen(str);

		fputs(str, stdout);
		if (l && str[l - 1] != '\n')
			putchar('\n');
	} else if (json_is_object(result)) {
		print_object(result, "", key_width(result, ""));
	} else if (is_table(result)) {
		print_table(result, "");
	} else if (json_is_array(result)) {
		json_array_foreach (result, i, e) {
			s = scalar_str(e);
			puts(s);
			free(s);
		}
	} else {
		s = scalar_str(result);
		puts(s);
		free(s);
	}
}

static void print_json(json_t *v, size_t flags)
{
	if (json_dumpf(v, stdout, flags | JSON_ENCODE_ANY) < 0)
		die(EXIT_USAGE, "cannot write output");
	putchar('\n');
}

/* One event line: compact JSON with --json, else "key=value ..." on one line. */
static void print_event(json_t *event)
{
	const char *key;
	json_t *v;
	char *s;
	bool first = true;

	if (smctl_json || !json_is_object(event)) {
		print_json(event, JSON_COMPACT);
		return;
	}
	json_object_foreach (event, key, v) {
		s = scalar_str(v);
		printf("%s%s=%s", first ? "" : " ", key, s);
		free(s);
		first = false;
	}
	putchar('\n');
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
		die(EXIT_USAGE, "malformed reply from ibsmd: %s",
		    reply ? "not an object" : jerr.text);
	return reply;
}

static int handle_reply(json_t *reply)
{
	json_t *ok = json_object_get(reply, "ok"), *err, *result;
	const char *code, *msg;

	if (!json_is_boolean(ok))
		die(EXIT_USAGE, "malformed reply from ibsmd: no \"ok\"");
	if (!json_is_true(ok)) {
		err = json_object_get(reply, "error");
		code = json_string_value(json_object_get(err, "code"));
		msg = json_string_value(json_object_get(err, "message"));
		fprintf(stderr, "smctl: %s: %s\n", code ? code : "error",
			msg ? msg : "(no message)");
		return EXIT_SM_ERROR;
	}
	result = json_object_get(reply, "result");
	if (!result)
		result = json_null();
	if (smctl_json) {
		print_json(result, JSON_INDENT(2));
	} else if (smctl_detail && json_is_array(json_object_get(result, "port_counters"))) {
		json_t *p;
		size_t i;

		json_array_foreach (json_object_get(result, "port_counters"), i, p) {
			if (i)
				putchar('\n');
			print_object(p, "", key_width(p, ""));
		}
	} else if (smctl_view && !strcmp(smctl_view, "topology") && json_is_object(result)) {
		print_json(result, JSON_INDENT(2)); /* --format json: JSON, whatever the output */
	} else if (smctl_view && !strcmp(smctl_view, "ports") && is_table(result)) {
		print_columns(result, port_columns);
	} else if (smctl_view && !strcmp(smctl_view, "links") && is_table(result)) {
		print_columns(result, link_columns);
	} else if (smctl_view && json_is_array(result) && !json_array_size(result)) {
		fprintf(stderr, "smctl: nothing matches\n");
	} else if (!(json_is_object(result) && !json_object_size(result)) && !json_is_null(result))
		print_human(result);
	return 0;
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
			smctl_json = true;
		} else if (!strcmp(a, "--socket") || !strcmp(a, "-s")) {
			if (++i >= argc)
				die(EXIT_USAGE, "%s needs a PATH", a);
			smctl_socket = argv[i];
		} else if (!strncmp(a, "--socket=", 9)) {
			smctl_socket = a + 9;
		} else if (!strcmp(a, "--timeout") || !strncmp(a, "--timeout=", 10)) {
			const char *v = a[9] == '=' ? a + 10 : (++i < argc ? argv[i] : NULL);
			long long t;

			if (!v || !parse_int(v, &t) || t < 1 || t > 86400)
				die(EXIT_USAGE, "--timeout needs a number of seconds (1-86400)");
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
		die(EXIT_USAGE, "out of memory");
	send_all(fd, s, strlen(s));
	send_all(fd, "\n", 1);
	free(s);
	json_decref(req);

	r = read_line(fd, &lb, now_ms() + smctl_timeout * 1000LL, &line);
	if (r == -ETIMEDOUT)
		die(EXIT_USAGE, "no reply from ibsmd within %d s; is it stuck? (raise --timeout)",
		    smctl_timeout);
	if (r == -EINTR)
		return 130;
	if (r == -EMSGSIZE)
		die(EXIT_USAGE, "reply larger than %u bytes", SMCTL_MAX_REPLY);
	if (r == 0)
		die(EXIT_USAGE, "ibsmd closed the connection without replying");
	if (r < 0)
		die(EXIT_USAGE, "reading the reply: %s", strerror(-r));
	reply = parse_reply(line);
	free(line);
	status = handle_reply(reply);
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
			die(EXIT_USAGE, "ibsmd closed the event stream");
		if (r < 0)
			die(EXIT_USAGE, "reading events: %s", strerror(-r));
		reply = parse_reply(line);
		free(line);
		ev = json_object_get(reply, "event");
		if (ev) {
			print_event(ev);
			fflush(stdout);
		} else if (json_object_get(reply, "ok"))
			status = handle_reply(reply) ? EXIT_SM_ERROR : status;
		json_decref(reply);
	}
	close(fd);
	free(lb.buf);
	return status;
}

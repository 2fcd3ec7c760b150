/*
 * Unit tests of smctl's command list (ui/smctl_cmds.c) against the others
 * that name the same commands: the daemon's command table (ui/api.h:
 * api_command_table), the bash completion (ui/completions/smctl) and the
 * COMMANDS of smctl(8).  Every server command is known to smctl and every
 * smctl command is served; their admin flags agree and smctl's help says
 * "(admin" for exactly the orders; the argument names smctl sends are the
 * ones the server documents; the completion offers exactly smctl's commands
 * (and its own words call and help) and every option of the table; the man
 * page has a paragraph for every command, saying "(admin)" for the orders.
 * Files are read from $top_srcdir (make check sets it), else ".".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "ui/api.h"
#include "ui/ctl.h"
#include "ui/smctl_int.h"
#include "tests/testutil.h"

/*
 * Deliberate differences, none today (each entry says why).  smctl's own
 * words "call" (send any command) and "help" (its usage) are no rows of its
 * table, and the server answers "help" itself (ui/ctl.c) when its table has
 * no such command, so neither appears on either side of the comparison.
 */
static const char *const smctl_only[] = {NULL};
static const char *const server_only[] = {NULL};
/* Words the completion offers besides smctl's commands: smctl's own. */
static const char *const completion_extra[] = {"call", "help", NULL};
/* Tags of smctl(8) COMMANDS besides smctl's commands. */
static const char *const man_extra[] = {"call", NULL};

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static const struct ctl_command *server_find(const char *name)
{
	return api_command_find(name);
}

static void test_same_commands(void)
{
	unsigned n_server = 0, n_smctl = 0;

	for (const struct ctl_command *c = api_command_table(); c->name; c++, n_server++) {
		if (listed(server_only, c->name))
			continue;
		if (!smctl_cmd_find(c->name)) {
			fprintf(stderr, "\n  the server serves '%s', smctl does not know it",
				c->name);
			CU_FAIL("a server command smctl does not know");
		}
	}
	for (const struct smctl_cmd *c = smctl_cmds; c->name; c++, n_smctl++) {
		if (listed(smctl_only, c->name))
			continue;
		if (!server_find(c->name)) {
			fprintf(stderr, "\n  smctl knows '%s', the server has no such command",
				c->name);
			CU_FAIL("an smctl command the server does not serve");
		}
	}
	CU_ASSERT(n_server >= 19);
	CU_ASSERT(n_smctl >= 19);
	/* the exceptions are real: each names a command of its side only */
	for (const char *const *x = smctl_only; *x; x++)
		CU_ASSERT(smctl_cmd_find(*x) && !server_find(*x));
	for (const char *const *x = server_only; *x; x++)
		CU_ASSERT(server_find(*x) && !smctl_cmd_find(*x));
}

static void test_admin_flags(void)
{
	for (const struct smctl_cmd *c = smctl_cmds; c->name; c++) {
		const struct ctl_command *s = server_find(c->name);
		bool says = strstr(c->help, "(admin") != NULL;

		if (s && s->admin != c->admin) {
			fprintf(stderr, "\n  '%s': the server says admin %d, smctl %d", c->name,
				s->admin, c->admin);
			CU_FAIL("admin flags differ");
		}
		if (says != c->admin) {
			fprintf(stderr, "\n  '%s': admin %d but its help is \"%s\"", c->name,
				c->admin, c->help);
			CU_FAIL("the help does not say what the admin flag says");
		}
	}
}

/* name appears as a quoted member ("name") of the server's args_help. */
static bool server_documents(const struct ctl_command *s, const char *name)
{
	char quoted[64];

	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	return s->args_help && strstr(s->args_help, quoted);
}

/*
 * The members smctl puts in "args" are the ones the server's help names.
 * The listings (nodes, ports, links, lids) document their filters in
 * docs/protocol.md, not in args_help (it is empty): their options are not
 * compared.
 */
static void test_argument_names(void)
{
	unsigned checked = 0;

	for (const struct smctl_cmd *c = smctl_cmds; c->name; c++) {
		const struct ctl_command *s = server_find(c->name);
		int n = abs(c->nargs);

		if (!s)
			continue;
		CU_ASSERT(n <= SMCTL_MAX_ARGS);
		for (int i = 0; i < n && i < SMCTL_MAX_ARGS; i++) {
			CU_ASSERT_PTR_NOT_NULL(c->arg_names[i]);
			if (c->arg_names[i] && !server_documents(s, c->arg_names[i])) {
				fprintf(stderr,
					"\n  '%s': smctl sends \"%s\", the server's help is '%s'",
					c->name, c->arg_names[i], s->args_help);
				CU_FAIL("an argument the server does not name");
			}
			checked++;
		}
		if (!c->option || !s->args_help || !s->args_help[0])
			continue;
		for (const char *o = c->option; *o;) {
			size_t ol = strcspn(o, ",");
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)ol, o);
			if (!server_documents(s, name)) {
				fprintf(stderr,
					"\n  '%s': smctl sends --%s, the server's help is '%s'",
					c->name, name, s->args_help);
				CU_FAIL("an option the server does not name");
			}
			checked++;
			o += ol + (o[ol] == ',');
		}
	}
	CU_ASSERT(checked >= 10);
}

static void test_lookups(void)
{
	const struct smctl_cmd *c;

	CU_ASSERT_PTR_NULL(smctl_cmd_find("no-such-command"));
	CU_ASSERT_PTR_NULL(smctl_cmd_find("call"));
	CU_ASSERT_PTR_NULL(smctl_cmd_find("help"));
	c = smctl_cmd_find("ports");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL(smctl_cmd_option(c, "unhealthy"));
	CU_ASSERT_PTR_NOT_NULL(smctl_cmd_option(c, "limit=5"));
	CU_ASSERT_PTR_NULL(smctl_cmd_option(c, "format"));
	CU_ASSERT_PTR_NULL(smctl_cmd_option(c, "lim"));
	CU_ASSERT_EQUAL(smctl_cmd_required_args(smctl_cmd_find("port")), 3);
	CU_ASSERT_EQUAL(smctl_cmd_required_args(smctl_cmd_find("node")), 1);
	CU_ASSERT_EQUAL(smctl_cmd_required_args(smctl_cmd_find("handover")), 0);
	CU_ASSERT(smctl_cmd_find("events")->stream);
	/* every name appears once */
	for (const struct smctl_cmd *a = smctl_cmds; a->name; a++)
		CU_ASSERT_PTR_EQUAL(smctl_cmd_find(a->name), a);
}

/* The whole of a file under $top_srcdir (NUL-terminated; the test fails without it). */
static char *read_src(const char *rel)
{
	const char *dir = getenv("top_srcdir");
	char path[4096];
	char *buf = NULL;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : ".", rel);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "\n  cannot read %s", path);
		CU_FAIL_FATAL("source file missing");
	}
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) == (size_t)len)
		buf[len] = '\0';
	else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	return buf;
}

/* The words of _smctl_commands="..." in the completion, space-separated, in words. */
static void completion_commands(const char *text, char *words, size_t len)
{
	const char *start = strstr(text, "_smctl_commands=\""), *end;
	size_t n, o = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(start);
	start += strlen("_smctl_commands=\"");
	end = strchr(start, '"');
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	n = (size_t)(end - start);
	CU_ASSERT_FATAL(n + 2 < len);
	words[o++] = ' ';
	for (size_t i = 0; i < n; i++)
		words[o++] = start[i] == '\n' || start[i] == '\t' ? ' ' : start[i];
	words[o++] = ' ';
	words[o] = '\0';
}

static bool has_word(const char *words, const char *w)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s ", w);
	return strstr(words, pat) != NULL;
}

static void test_completion(void)
{
	char *text = read_src("ui/completions/smctl");
	char words[1024], *save = NULL, copy[1024];
	unsigned n = 0;

	completion_commands(text, words, sizeof(words));
	for (const struct smctl_cmd *c = smctl_cmds; c->name; c++) {
		if (!has_word(words, c->name)) {
			fprintf(stderr, "\n  the completion does not offer '%s'", c->name);
			CU_FAIL("a command the completion lacks");
		}
		/* every option of the table is offered somewhere as --NAME */
		for (const char *o = c->option; o && *o;) {
			size_t ol = strcspn(o, ",");
			char opt[40];

			snprintf(opt, sizeof(opt), "--%.*s", (int)ol, o);
			if (!strstr(text, opt)) {
				fprintf(stderr, "\n  '%s': the completion never offers %s", c->name,
					opt);
				CU_FAIL("an option the completion lacks");
			}
			o += ol + (o[ol] == ',');
		}
	}
	for (const char *const *x = completion_extra; *x; x++)
		CU_ASSERT(has_word(words, *x));
	snprintf(copy, sizeof(copy), "%s", words);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), n++) {
		if (!smctl_cmd_find(w) && !listed(completion_extra, w)) {
			fprintf(stderr, "\n  the completion offers '%s', which smctl does not know",
				w);
			CU_FAIL("a completion word that is no command");
		}
	}
	CU_ASSERT(n >= 19);
	free(text);
}

/* The command a COMMANDS tag names ("\fBnodes\fR ...", ".BI node ...", ".B status"), or "". */
static void man_tag_command(const char *tag, char *ret, size_t len)
{
	const char *p = tag;
	size_t n = 0;

	if (*p == '.')
		p += strcspn(p, " ");
	while (*p == ' ' || *p == '"')
		p++;
	if (!strncmp(p, "\\fB", 3))
		p += 3;
	while (p[n] >= 'a' && p[n] <= 'z')
		n++;
	snprintf(ret, len, "%.*s", (int)n, p);
}

static void man_check(const char *name, bool admin, unsigned *seen)
{
	const struct smctl_cmd *c;

	if (!name[0])
		return; /* COMMAND [KEY=VALUE ...] */
	if (listed(man_extra, name))
		return;
	c = smctl_cmd_find(name);
	if (!c) {
		fprintf(stderr, "\n  smctl(8) describes '%s', which smctl does not know", name);
		CU_FAIL("a man page command smctl does not know");
		return;
	}
	seen[c - smctl_cmds]++;
	if (c->admin != admin) {
		fprintf(stderr, "\n  smctl(8) '%s': \"(admin)\" %s, the admin flag is %d", name,
			admin ? "present" : "absent", c->admin);
		CU_FAIL("smctl(8) and the admin flag differ");
	}
}

static void test_man_page(void)
{
	char *text = read_src("man/smctl.8");
	unsigned seen[64] = {0}, n = 0;
	char name[32] = "";
	bool inside = false, in_par = false, admin = false;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool ends = !strncmp(line, ".TP", 3) || !strncmp(line, ".PP", 3) ||
			    !strncmp(line, ".SH", 3);

		if (ends && in_par) {
			man_check(name, admin, seen);
			in_par = false;
		}
		if (!strncmp(line, ".SH", 3)) {
			inside = strstr(line, "COMMANDS") != NULL;
			continue;
		}
		if (!inside)
			continue;
		if (!strncmp(line, ".TP", 3)) {
			char *tag = strtok_r(NULL, "\n", &save);

			CU_ASSERT_PTR_NOT_NULL_FATAL(tag);
			man_tag_command(tag, name, sizeof(name));
			in_par = true;
			admin = strstr(tag, "(admin)") != NULL;
			continue;
		}
		if (in_par && strstr(line, "(admin)"))
			admin = true;
	}
	if (in_par)
		man_check(name, admin, seen);
	for (const struct smctl_cmd *c = smctl_cmds; c->name; c++, n++) {
		CU_ASSERT_FATAL(n < sizeof(seen) / sizeof(seen[0]));
		if (seen[n] != 1) {
			fprintf(stderr, "\n  smctl(8) COMMANDS has %u paragraphs for '%s'", seen[n],
				c->name);
			CU_FAIL("a command smctl(8) does not describe once");
		}
	}
	free(text);
}

/* smctl's times: ISO 8601 in UTC to the millisecond, and read back to the same instant. */
static void test_time_format(void)
{
	static const double times[] = {0.0,
				       1.5,
				       951782400.25, /* 2000-02-29 */
				       1796535402.1473966,
				       1796535402.9996,
				       4102444799.999};
	char buf[40];

	CU_ASSERT_EQUAL(smctl_time_iso(1796535402.1473966, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "2026-12-06T05:36:42.147Z");
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		struct tm tm = {0};
		char *end;
		long ms;
		time_t back;

		CU_ASSERT_EQUAL_FATAL(smctl_time_iso(times[i], buf, sizeof(buf)), 0);
		CU_ASSERT_EQUAL(strlen(buf), 24);
		end = strptime(buf, "%Y-%m-%dT%H:%M:%S", &tm);
		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		CU_ASSERT_EQUAL(end[0], '.');
		ms = strtol(end + 1, &end, 10);
		CU_ASSERT_STRING_EQUAL(end, "Z");
		back = timegm(&tm);
		/* the same instant, to the millisecond (rounded) */
		CU_ASSERT(fabs((double)back + (double)ms / 1000 - times[i]) <= 0.0005 + 1e-6);
	}
	/* no time: negative, not finite, beyond year 9999, a short buffer */
	CU_ASSERT_EQUAL(smctl_time_iso(-1, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(smctl_time_iso(NAN, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(smctl_time_iso(1e12, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(smctl_time_iso(1.0, buf, 10), -1);
	/* which members are times */
	CU_ASSERT(smctl_is_time_key("state_since"));
	CU_ASSERT(smctl_is_time_key("last_cycle_end"));
	CU_ASSERT(smctl_is_time_key("last_error_time"));
	CU_ASSERT(smctl_is_time_key("unix_time"));
	CU_ASSERT(smctl_is_time_key("last_ok"));
	CU_ASSERT(!smctl_is_time_key("sweep_time_s"));
	CU_ASSERT(!smctl_is_time_key("last_sweep_ms"));
	CU_ASSERT(!smctl_is_time_key("_time"));
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"times: ISO 8601, read back", test_time_format},
	    {"server and smctl know the same commands", test_same_commands},
	    {"admin flags agree", test_admin_flags},
	    {"argument names are the server's", test_argument_names},
	    {"lookups", test_lookups},
	    {"bash completion", test_completion},
	    {"smctl(8) COMMANDS", test_man_page},
	    {NULL, NULL},
	};

	return testutil_run("smctl", cases);
}

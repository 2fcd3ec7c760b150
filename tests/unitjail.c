/*
 * unitjail: run a program under the socket restrictions a systemd unit
 * file sets, where systemd itself cannot run it (a container, a test
 * machine without a running systemd).
 *
 *   unitjail UNIT -- PROGRAM [ARGS...]
 *
 * Reads UNIT's RestrictAddressFamilies= lines the way systemd.exec(5)
 * says: an allow list ("AF_UNIX AF_NETLINK"), or a deny list after "~";
 * several lines add up (an empty assignment resets).  Then, as systemd does
 * (seccomp on socket(2)'s first argument), it installs a seccomp filter in
 * which socket() with a family outside what the unit allows fails with
 * EAFNOSUPPORT, sets NoNewPrivileges (seccomp needs it without
 * CAP_SYS_ADMIN, and the unit sets it too), and execs PROGRAM.  What a
 * family the unit denies does to the daemon here is what it does under
 * systemd.  socketpair(2) is left alone, as systemd leaves it.
 *
 * Exit: PROGRAM's (exec), or 2 for a bad command line or unit, 3 when the
 * filter cannot be installed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <seccomp.h>

#define UNITJAIL_MAX_FAMILY 64 /* AF_MAX is 46 on Linux 6.x */

static const struct {
	const char *name;
	int family;
} unitjail_families[] = {
    {"AF_UNIX", AF_UNIX},	{"AF_LOCAL", AF_LOCAL},
    {"AF_INET", AF_INET},	{"AF_INET6", AF_INET6},
    {"AF_NETLINK", AF_NETLINK}, {"AF_PACKET", AF_PACKET},
    {"AF_IB", AF_IB},		{"AF_BLUETOOTH", AF_BLUETOOTH},
    {"AF_ALG", AF_ALG},		{"AF_VSOCK", AF_VSOCK},
    {"AF_CAN", AF_CAN},		{"AF_TIPC", AF_TIPC},
    {"AF_XDP", AF_XDP},		{"AF_RDS", AF_RDS},
};

static int unitjail_family(const char *name)
{
	for (size_t i = 0; i < sizeof(unitjail_families) / sizeof(unitjail_families[0]); i++)
		if (!strcmp(unitjail_families[i].name, name))
			return unitjail_families[i].family;
	return -1;
}

/*
 * allowed[f] after every RestrictAddressFamilies= line of the unit.
 * 0, or -EINVAL for an unknown family, -errno when unreadable.
 */
static int unitjail_read_unit(const char *path, bool allowed[UNITJAIL_MAX_FAMILY], bool *ret_set)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	bool set = false;
	int r = 0;

	if (!f)
		return -errno;
	for (int i = 0; i < UNITJAIL_MAX_FAMILY; i++)
		allowed[i] = true;
	while (fgets(line, sizeof(line), f)) {
		static const char key[] = "RestrictAddressFamilies=";
		char *v, *tok, *save = NULL;
		bool deny = false;

		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		v = line + sizeof(key) - 1;
		v[strcspn(v, "\r\n")] = '\0';
		if (*v == '~') {
			deny = true;
			v++;
		}
		if (!*v) { /* an empty assignment: no restriction */
			for (int i = 0; i < UNITJAIL_MAX_FAMILY; i++)
				allowed[i] = true;
			set = false;
			continue;
		}
		if (!set && !deny) /* the first allow list: only what it names */
			for (int i = 0; i < UNITJAIL_MAX_FAMILY; i++)
				allowed[i] = false;
		set = true;
		for (tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			int fam = unitjail_family(tok);

			if (fam < 0 || fam >= UNITJAIL_MAX_FAMILY) {
				fprintf(stderr, "unitjail: %s: unknown address family %s\n", path,
					tok);
				r = -EINVAL;
				continue;
			}
			allowed[fam] = !deny;
		}
	}
	fclose(f);
	*ret_set = set;
	return r;
}

int main(int argc, char **argv)
{
	bool allowed[UNITJAIL_MAX_FAMILY], set = false;
	scmp_filter_ctx ctx;
	int r;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: unitjail UNIT -- PROGRAM [ARGS...]\n");
		return 2;
	}
	r = unitjail_read_unit(argv[1], allowed, &set);
	if (r < 0) {
		if (r != -EINVAL)
			fprintf(stderr, "unitjail: %s: %s\n", argv[1], strerror(-r));
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fprintf(stderr, "unitjail: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		return 3;
	}
	if (set) {
		ctx = seccomp_init(SCMP_ACT_ALLOW);
		if (!ctx) {
			fprintf(stderr, "unitjail: seccomp_init failed\n");
			return 3;
		}
		/* every family the unit does not allow, and any beyond the table */
		for (int fam = 0; fam < UNITJAIL_MAX_FAMILY && r == 0; fam++)
			if (!allowed[fam])
				r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT),
						     SCMP_SYS(socket), 1,
						     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam));
		if (r == 0)
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
					     SCMP_A0(SCMP_CMP_GE, UNITJAIL_MAX_FAMILY));
		if (r == 0)
			r = seccomp_load(ctx);
		seccomp_release(ctx);
		if (r < 0) {
			fprintf(stderr, "unitjail: seccomp: %s\n", strerror(-r));
			return 3;
		}
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "unitjail: %s: %s\n", argv[3], strerror(errno));
	return 127;
}

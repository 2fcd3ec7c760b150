/*
 * Group membership of a control-socket peer (see peer.h).
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/peer.h"

#define PEER_MAX_GROUPS 1024

static bool peer_gid_list_has(const gid_t *gids, int n, gid_t g)
{
	int i;

	for (i = 0; i < n; i++)
		if (gids[i] == g)
			return true;
	return false;
}

bool peer_in_group(pid_t pid, uid_t uid, gid_t gid, gid_t want)
{
	char path[64], line[4096];
	gid_t gids[PEER_MAX_GROUPS];
	bool found = false, read_proc = false;
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096];
	int n = PEER_MAX_GROUPS;
	FILE *f;

	if (gid == want)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = pid > 0 ? fopen(path, "re") : NULL;
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p, *end;

			if (strncmp(line, "Groups:", 7))
				continue;
			read_proc = true;
			for (p = line + 7;; p = end) {
				unsigned long v = strtoul(p, &end, 10);

				if (end == p)
					break;
				if ((gid_t)v == want)
					found = true;
			}
			break;
		}
		fclose(f);
	}
	if (read_proc)
		return found;
	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pwp) || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, gid, gids, &n) < 0)
		n = PEER_MAX_GROUPS;
	return peer_gid_list_has(gids, n, want);
}

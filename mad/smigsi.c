/*
 * SMI/GSI device pairing from sysfs (see smigsi.h).  The facts are
 * rdma-core's libibumad's (umad.c: get_port, umad_get_smi_gsi_pairs): a
 * port's GUID is the interface ID of its GID 0; IsSMDisabled is
 * CapabilityMask bit 10; a port is InfiniBand when link_layer says
 * "InfiniBand" or "IB", or says nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mad/smigsi.h"
#include "mad/wire.h"

#define SMIGSI_DEVS_MAX 128
#define SMIGSI_PATH_MAX 512

/* A port as sysfs shows it, before pairing. */
struct smigsi_raw {
	char ca[SMIGSI_NAME_MAX];
	int port;
	uint64_t guid;
	uint32_t capmask;
	int state, phys_state;
};

/* A sysfs file's first line, trimmed; false when it cannot be read. */
static bool smigsi_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

static int smigsi_cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int smigsi_cmp_num(const void *a, const void *b)
{
	return atoi(*(char *const *)a) - atoi(*(char *const *)b);
}

/*
 * The entries of a directory (numeric ones only when numeric), sorted, as
 * malloc'd strings in names[] (at most max); the number, or -errno.
 */
static int smigsi_list(const char *dir, bool numeric, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.' ||
		    (numeric && strspn(e->d_name, "0123456789") != strlen(e->d_name)))
			continue;
		if (!(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), numeric ? smigsi_cmp_num : smigsi_cmp_name);
	return n;
}

static void smigsi_free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}

/* The interface ID of a GID as sysfs writes it (8 groups of 4 hex digits). */
static bool smigsi_gid_guid(const char *s, uint64_t *ret)
{
	unsigned g[8];

	if (sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5],
		   &g[6], &g[7]) != 8)
		return false;
	*ret = (uint64_t)g[4] << 48 | (uint64_t)g[5] << 32 | (uint64_t)g[6] << 16 | g[7];
	return true;
}

/* Append a note ("; "-separated) to notes, as far as it fits. */
__attribute__((format(printf, 3, 4))) static void smigsi_note(char *notes, size_t len,
							      const char *fmt, ...)
{
	size_t used = notes ? strlen(notes) : 0;
	va_list ap;

	if (!notes || used + 1 >= len)
		return;
	if (used)
		used += (size_t)snprintf(notes + used, len - used, "; ");
	if (used >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(notes + used, len - used, fmt, ap);
	va_end(ap);
}

/* Every port of every device under root (InfiniBand ones; the others noted). */
static int smigsi_raw_scan(const char *root, struct smigsi_raw *raw, int max, char *notes,
			   size_t notes_len)
{
	char *devs[SMIGSI_DEVS_MAX], path[SMIGSI_PATH_MAX], buf[128];
	int nd, n = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	nd = smigsi_list(path, false, devs, SMIGSI_DEVS_MAX);
	if (nd <= 0)
		return -ENOENT;
	for (int i = 0; i < nd && n < max; i++) {
		char *ports[UINT8_MAX + 1];
		int np;

		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, devs[i]);
		np = smigsi_list(path, true, ports, UINT8_MAX + 1);
		for (int j = 0; j < np && n < max; j++) {
			struct smigsi_raw *r = &raw[n];
			char *end;

			memset(r, 0, sizeof(*r));
			snprintf(r->ca, sizeof(r->ca), "%s", devs[i]);
			r->port = atoi(ports[j]);
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/link_layer",
				 root, devs[i], ports[j]);
			if (smigsi_read(path, buf, sizeof(buf)) && strcmp(buf, "InfiniBand") &&
			    strcmp(buf, "IB")) {
				smigsi_note(notes, notes_len,
					    "%s/%d: link layer %s, not InfiniBand", r->ca, r->port,
					    buf);
				continue;
			}
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/gids/0", root,
				 devs[i], ports[j]);
			if (!smigsi_read(path, buf, sizeof(buf)) ||
			    !smigsi_gid_guid(buf, &r->guid) || !r->guid)
				continue;
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/cap_mask",
				 root, devs[i], ports[j]);
			if (smigsi_read(path, buf, sizeof(buf)))
				r->capmask = (uint32_t)strtoul(buf, &end, 0);
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/state", root,
				 devs[i], ports[j]);
			if (smigsi_read(path, buf, sizeof(buf)))
				r->state = atoi(buf);
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/phys_state",
				 root, devs[i], ports[j]);
			if (smigsi_read(path, buf, sizeof(buf)))
				r->phys_state = atoi(buf);
			n++;
		}
		smigsi_free_list(ports, np > 0 ? np : 0);
	}
	smigsi_free_list(devs, nd);
	return n;
}

/*
 * Pair the raw ports by GUID into ret (at most max); orphans (GSI ports
 * with no SMI) into orphan[] (at most max_orphans, *ret_orphans of them).
 */
static int smigsi_pair(const struct smigsi_raw *raw, int n, struct smigsi_port *ret, size_t max,
		       const struct smigsi_raw **orphan, int max_orphans, int *ret_orphans)
{
	int out = 0, no = 0;

	for (int i = 0; i < n; i++) {
		const struct smigsi_raw *smi = NULL, *gsi = NULL;
		bool seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = raw[k].guid == raw[i].guid;
		if (seen)
			continue; /* its group was made at its first port */
		for (int k = i; k < n; k++) {
			if (raw[k].guid != raw[i].guid)
				continue;
			if (raw[k].capmask & WIRE_CAP_SM_DISABLED) {
				if (!gsi)
					gsi = &raw[k];
			} else if (!smi) {
				smi = &raw[k];
			}
		}
		if (!smi) {
			if (no < max_orphans)
				orphan[no++] = gsi;
			continue;
		}
		if (!gsi)
			gsi = smi;
		if ((size_t)out >= max)
			continue;
		memset(&ret[out], 0, sizeof(ret[out]));
		snprintf(ret[out].smi_ca, sizeof(ret[out].smi_ca), "%s", smi->ca);
		snprintf(ret[out].gsi_ca, sizeof(ret[out].gsi_ca), "%s", gsi->ca);
		ret[out].smi_port = smi->port;
		ret[out].gsi_port = gsi->port;
		ret[out].port_guid = smi->guid;
		ret[out].state = smi->state;
		ret[out].phys_state = smi->phys_state;
		ret[out].split = smi != gsi;
		out++;
	}
	*ret_orphans = no;
	return out;
}

int smigsi_scan(const char *root, struct smigsi_port *ret, size_t max, char *notes,
		size_t notes_len)
{
	struct smigsi_raw *raw = calloc(SMIGSI_MAX_PORTS, sizeof(*raw));
	const struct smigsi_raw *orphan[SMIGSI_MAX_PORTS];
	int n, no, out;

	if (notes && notes_len)
		notes[0] = '\0';
	if (!raw)
		return -ENOMEM;
	n = smigsi_raw_scan(root, raw, SMIGSI_MAX_PORTS, notes, notes_len);
	if (n < 0) {
		free(raw);
		return n;
	}
	out = smigsi_pair(raw, n, ret, max, orphan, SMIGSI_MAX_PORTS, &no);
	for (int i = 0; i < no; i++)
		smigsi_note(notes, notes_len,
			    "%s/%d: SMI disabled (IsSMDisabled) and no SMI device shows its port "
			    "GUID 0x%016llx: skipped",
			    orphan[i]->ca, orphan[i]->port, (unsigned long long)orphan[i]->guid);
	free(raw);
	return out;
}

/* Whether p is on device ca (either half; "" any) and port (0 any). */
static bool smigsi_match(const struct smigsi_port *p, const char *ca, int port)
{
	if (!ca || !*ca)
		return !port || p->smi_port == port;
	if (!strcmp(p->smi_ca, ca))
		return !port || p->smi_port == port;
	if (!strcmp(p->gsi_ca, ca))
		return !port || p->gsi_port == port;
	return false;
}

int smigsi_find(const char *root, const char *ca_name, int port_num, uint64_t port_guid,
		struct smigsi_port *ret, char *why, size_t why_len, char *notes, size_t notes_len)
{
	struct smigsi_port *ports = calloc(SMIGSI_MAX_PORTS, sizeof(*ports));
	int n, best = -1, rank = 4;
	size_t used = 0;

	if (!ports)
		return -ENOMEM;
	n = smigsi_scan(root, ports, SMIGSI_MAX_PORTS, notes, notes_len);
	for (int i = 0; i < n; i++) {
		const struct smigsi_port *p = &ports[i];
		int r;

		if (port_guid ? p->port_guid != port_guid : !smigsi_match(p, ca_name, port_num))
			continue;
		if (port_guid && !smigsi_match(p, ca_name, port_num))
			continue;
		/* libibumad's choice: ACTIVE, then LinkUp, then not Disabled */
		r = p->state == 4 ? 0 : p->phys_state == 5 ? 1 : p->phys_state != 3 ? 2 : 3;
		if ((port_guid || (ca_name && *ca_name && port_num)) && r == 3)
			r = 2; /* a port named exactly is taken whatever its state */
		if (r < rank) {
			rank = r;
			best = i;
		}
	}
	if (best >= 0 && rank < 3) {
		*ret = ports[best];
		free(ports);
		return 0;
	}
	if (why && why_len) {
		if (port_guid)
			used =
			    (size_t)snprintf(why, why_len, "no InfiniBand port with GUID 0x%016llx",
					     (unsigned long long)port_guid);
		else if (ca_name && *ca_name)
			used = (size_t)snprintf(why, why_len, "no usable InfiniBand port %d on %s",
						port_num, ca_name);
		else
			used = (size_t)snprintf(why, why_len, "no usable InfiniBand port");
		for (int i = 0; i < n && used < why_len; i++)
			used += (size_t)snprintf(
			    why + used, why_len - used, "%s%s/%d%s%s 0x%016llx",
			    i ? "; " : "; ports found: ", ports[i].smi_ca, ports[i].smi_port,
			    ports[i].split ? " GSI " : "", ports[i].split ? ports[i].gsi_ca : "",
			    (unsigned long long)ports[i].port_guid);
		if (n <= 0 && used < why_len)
			used += (size_t)snprintf(why + used, why_len - used, "; none found");
		if (notes && *notes && used < why_len)
			snprintf(why + used, why_len - used, " (%s)", notes);
	}
	free(ports);
	return -ENODEV;
}

/*
 * saflood: send SA queries as fast as the SA answers them, for the SA
 * benchmark (bench/sa.sh) and the flood test.  Runs under umad2sim like any
 * diag tool.  Keeps WINDOW queries outstanding, each answer (or a timeout)
 * lets the next one go, and prints one JSON line:
 *   {"attr": ..., "sent": N, "answered": N, "errors": N, "timeouts": N,
 *    "seconds": S, "per_second": Q}
 *
 *   saflood --sa-lid LID [--attr nr|pr|smir] [--count N] [--window W]
 *           [--lids FIRST-LAST] [--timeout MS]
 *   saflood --sa-lid LID --attr storm --guids FILE --job N [--slice I/C]
 *           [--window W] [--timeout MS]
 *
 * nr: NodeRecord GetTable by LID; pr: PathRecord Get from the local port to
 * a LID (DLID component); smir: SMInfoRecord GetTable.  The LIDs queried
 * cycle through FIRST..LAST.
 *
 * storm: a job start (every rank asks a path to every peer, as MPI and NCCL
 * do through rdma_cm): FILE holds the hosts' port GUIDs, one a line; hosts
 * in groups of N are a job each; this client asks, for every host h of its
 * slice (h mod C = I) and every other host p of h's job, a PathRecord Get
 * with SGID h, DGID p (link-local prefix), Reversible and NumbPath 1, P_Key
 * 0xffff (what rdma_cm's route resolution names).  An answer is wrong when
 * its status is not 0, its GIDs are not the ones asked, a LID is 0, or a
 * GUID's LID differs from the one an earlier answer gave: "wrong" counts
 * them (and they are not answered).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>

#include "mad/sa_wire.h"

#define SAFLOOD_MAX_WINDOW 256

struct slot {
	bool busy;
	uint64_t tid;
	double sent_ms;
	uint32_t src, dst; /* storm: the hosts asked about */
};

/* storm: the hosts, their LIDs as answered (0: not yet) */
static uint64_t *storm_guid;
static uint16_t *storm_lid;
static size_t storm_n;

static int storm_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t cap = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t g = strtoull(line, NULL, 16);

		if (!g)
			continue;
		if (storm_n == cap) {
			uint64_t *v;

			cap = cap ? 2 * cap : 1024;
			v = realloc(storm_guid, cap * sizeof(*v));
			if (!v) {
				fclose(f);
				return -ENOMEM;
			}
			storm_guid = v;
		}
		storm_guid[storm_n++] = g;
	}
	fclose(f);
	storm_lid = calloc(storm_n + 1, sizeof(*storm_lid));
	return storm_lid ? 0 : -ENOMEM;
}

static int send_storm(int portid, int agent, uint16_t sa_lid, uint32_t src, uint32_t dst,
		      uint64_t tid)
{
	uint8_t umad[1024];
	struct sa_wire_mad m = {0};
	struct sa_wire_path_rec pr = {0};

	memset(umad, 0, sizeof(umad));
	m.hdr.tid = tid;
	m.hdr.method = SA_METHOD_GET;
	m.hdr.attr_id = SA_ATTR_PATH_RECORD;
	m.comp_mask = 1u << SA_PR_DGID | 1u << SA_PR_SGID | 1u << SA_PR_REVERSIBLE |
		      1u << SA_PR_NUMB_PATH | 1u << SA_PR_PKEY;
	pr.sgid = (struct sa_wire_gid){0xfe80000000000000ULL, storm_guid[src]};
	pr.dgid = (struct sa_wire_gid){0xfe80000000000000ULL, storm_guid[dst]};
	pr.reversible = true;
	pr.numb_path = 1;
	pr.pkey = 0xffff;
	sa_wire_path_rec_encode(&pr, m.data, SA_WIRE_PR_SIZE);
	if (sa_wire_encode(&m, umad_get_mad(umad), WIRE_MAD_SIZE) < 0)
		return -EINVAL;
	umad_set_addr(umad, sa_lid, 1, 0, 0x80010000);
	return umad_send(portid, agent, umad, WIRE_MAD_SIZE, 0, 0);
}

/* (*src, *dst) moved on to the next pair to ask, from itself; false when none is left. */
static bool storm_pair(uint32_t *src, uint32_t *dst, unsigned job, unsigned slices)
{
	while (*src < storm_n) {
		size_t j0 = *src / job * job, j1 = j0 + job < storm_n ? j0 + job : storm_n;

		if (*dst == *src)
			(*dst)++;
		if (*dst < j1)
			return true;
		*src += slices;
		*dst = (uint32_t)(*src / job * job);
	}
	return false;
}

/* Whether an answer to (src, dst) is right (see the top); learns the LIDs. */
static bool storm_right(const struct sa_wire_mad *m, uint32_t src, uint32_t dst)
{
	struct sa_wire_path_rec pr;

	if (m->hdr.status || sa_wire_path_rec_decode(m->data, sizeof(m->data), &pr) < 0 ||
	    pr.sgid.guid != storm_guid[src] || pr.dgid.guid != storm_guid[dst] || !pr.slid ||
	    !pr.dlid)
		return false;
	if (storm_lid[src] && storm_lid[src] != pr.slid)
		return false;
	if (storm_lid[dst] && storm_lid[dst] != pr.dlid)
		return false;
	storm_lid[src] = pr.slid;
	storm_lid[dst] = pr.dlid;
	return true;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int send_query(int portid, int agent, uint16_t sa_lid, const char *attr, uint16_t lid,
		      uint64_t tid)
{
	uint8_t umad[1024];
	struct sa_wire_mad m = {0};

	memset(umad, 0, sizeof(umad));
	m.hdr.tid = tid;
	if (!strcmp(attr, "pr")) {
		m.hdr.method = SA_METHOD_GET;
		m.hdr.attr_id = SA_ATTR_PATH_RECORD;
		m.comp_mask = 1u << 4;			   /* DLID */
		sa_wire_bits_set(m.data, 40 * 8, 16, lid); /* PathRecord DLID: byte 40 */
	} else if (!strcmp(attr, "smir")) {
		m.hdr.method = SA_METHOD_GET_TABLE;
		m.hdr.attr_id = SA_ATTR_SMINFO_RECORD;
	} else {
		m.hdr.method = SA_METHOD_GET_TABLE;
		m.hdr.attr_id = SA_ATTR_NODE_RECORD;
		m.comp_mask = 1; /* LID */
		sa_wire_bits_set(m.data, 0, 16, lid);
	}
	if (sa_wire_encode(&m, umad_get_mad(umad), WIRE_MAD_SIZE) < 0)
		return -EINVAL;
	umad_set_addr(umad, sa_lid, 1, 0, 0x80010000);
	return umad_send(portid, agent, umad, WIRE_MAD_SIZE, 0, 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"sa-lid", required_argument, NULL, 's'}, {"attr", required_argument, NULL, 'a'},
	    {"count", required_argument, NULL, 'n'},  {"window", required_argument, NULL, 'w'},
	    {"lids", required_argument, NULL, 'l'},   {"timeout", required_argument, NULL, 't'},
	    {"guids", required_argument, NULL, 'g'},  {"job", required_argument, NULL, 'j'},
	    {"slice", required_argument, NULL, 'S'},  {0},
	};
	const char *guids = NULL;
	unsigned job = 0, slice = 0, slices = 1, wrong = 0;
	uint32_t st_src = 0, st_dst = 0; /* storm: the next pair to ask */
	struct slot slots[SAFLOOD_MAX_WINDOW] = {{0}};
	const char *attr = "nr";
	unsigned long count = 1000, window = 16, sent = 0, answered = 0, errors = 0, timeouts = 0,
		      done = 0;
	unsigned first = 1, last = 1, timeout_ms = 1000, next_lid;
	uint16_t sa_lid = 0;
	uint8_t umad[4096];
	double t0, t1;
	int c, portid, agent;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sa_lid = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			attr = optarg;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			if (sscanf(optarg, "%u-%u", &first, &last) != 2)
				last = first = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 't':
			timeout_ms = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'g':
			guids = optarg;
			break;
		case 'j':
			job = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			if (sscanf(optarg, "%u/%u", &slice, &slices) != 2 || !slices ||
			    slice >= slices) {
				fprintf(stderr, "saflood: --slice I/C with I < C\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr,
				"usage: saflood --sa-lid LID [--attr nr|pr|smir] [--count N] "
				"[--window W] [--lids A-B] [--timeout MS]\n"
				"       saflood --sa-lid LID --attr storm --guids FILE --job N "
				"[--slice I/C] [--window W] [--timeout MS]\n");
			return 2;
		}
	}
	if (!strcmp(attr, "storm")) {
		int e = guids ? storm_load(guids) : -EINVAL;

		if (e < 0 || job < 2) {
			fprintf(stderr, "saflood: storm needs --guids FILE (%s) and --job N >= 2\n",
				e < 0 ? strerror(-e) : "ok");
			return 2;
		}
		/* every pair of the slice's hosts and their peers */
		count = 0;
		for (size_t h = slice; h < storm_n; h += slices) {
			size_t j0 = h / job * job, j1 = j0 + job < storm_n ? j0 + job : storm_n;

			count += j1 - j0 - 1;
		}
		st_src = slice;
		st_dst = (uint32_t)(st_src / job * job);
		first = last = 1;
	}
	if (!sa_lid || !window || window > SAFLOOD_MAX_WINDOW || first == 0 || last < first) {
		fprintf(stderr, "saflood: --sa-lid required, --window 1..%d, --lids A-B\n",
			SAFLOOD_MAX_WINDOW);
		return 2;
	}
	if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "saflood: cannot open a umad port\n");
		return 1;
	}
	agent = umad_register(portid, 0x03, 2, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "saflood: cannot register the SA class: %s\n", strerror(-agent));
		return 1;
	}
	next_lid = first;
	t0 = now_ms();
	while (done < count) {
		int len = (int)sizeof(umad) - (int)umad_size(), r;
		double now = now_ms();

		/* fill the window; expire what is too old */
		for (unsigned long i = 0; i < window; i++) {
			struct slot *s = &slots[i];

			if (s->busy && now - s->sent_ms > timeout_ms) {
				s->busy = false;
				timeouts++;
				done++;
			}
			if (!s->busy && sent < count) {
				/* the low 32 bits: umad (and umad2sim) own the high ones */
				uint64_t tid = (uint32_t)(sent << 8 | i);
				uint32_t src, dst;
				int rc;

				if (storm_n && !storm_pair(&st_src, &st_dst, job, slices))
					break; /* cannot happen: count says how many pairs */
				src = st_src;
				dst = st_dst++;
				rc = storm_n ? send_storm(portid, agent, sa_lid, src, dst, tid)
					     : send_query(portid, agent, sa_lid, attr,
							  (uint16_t)next_lid, tid);
				if (rc < 0) {
					errors++;
					done++;
					sent++;
					continue;
				}
				*s = (struct slot){true, tid, now, src, dst};
				sent++;
				next_lid = next_lid >= last ? first : next_lid + 1;
			}
		}
		r = umad_recv(portid, umad, &len, 10);
		if (r < 0)
			continue;
		struct sa_wire_mad m;
		if (umad_status(umad) || sa_wire_decode(umad_get_mad(umad), (size_t)len, &m) < 0)
			continue;
		struct slot *s = &slots[m.hdr.tid & 0xff];
		if ((m.hdr.tid & 0xff) >= window || !s->busy || s->tid != (uint32_t)m.hdr.tid)
			continue;
		s->busy = false;
		done++;
		if (storm_n && !storm_right(&m, s->src, s->dst))
			wrong++;
		else if (m.hdr.status && m.hdr.status != SA_STATUS_NO_RECORDS)
			errors++;
		else
			answered++;
	}
	t1 = now_ms();
	umad_close_port(portid);
	printf("{\"attr\": \"%s\", \"sent\": %lu, \"answered\": %lu, \"errors\": %lu, "
	       "\"wrong\": %u, \"timeouts\": %lu, \"seconds\": %.3f, \"per_second\": %.1f}\n",
	       attr, sent, answered, errors, wrong, timeouts, (t1 - t0) / 1e3,
	       (t1 - t0) > 0 ? answered / ((t1 - t0) / 1e3) : 0.0);
	return timeouts || errors || wrong ? 1 : 0;
}

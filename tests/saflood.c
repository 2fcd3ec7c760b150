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
 *
 * nr: NodeRecord GetTable by LID; pr: PathRecord Get from the local port to
 * a LID (DLID component); smir: SMInfoRecord GetTable.  The LIDs queried
 * cycle through FIRST..LAST.
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
};

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
	    {"sa-lid", required_argument, NULL, 's'},
	    {"attr", required_argument, NULL, 'a'},
	    {"count", required_argument, NULL, 'n'},
	    {"window", required_argument, NULL, 'w'},
	    {"lids", required_argument, NULL, 'l'},
	    {"timeout", required_argument, NULL, 't'},
	    {0},
	};
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
		default:
			fprintf(stderr,
				"usage: saflood --sa-lid LID [--attr nr|pr|smir] [--count N] "
				"[--window W] [--lids A-B] [--timeout MS]\n");
			return 2;
		}
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

				if (send_query(portid, agent, sa_lid, attr, (uint16_t)next_lid,
					       tid) < 0) {
					errors++;
					done++;
					sent++;
					continue;
				}
				*s = (struct slot){true, tid, now};
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
		if (m.hdr.status && m.hdr.status != SA_STATUS_NO_RECORDS)
			errors++;
		else
			answered++;
	}
	t1 = now_ms();
	umad_close_port(portid);
	printf("{\"attr\": \"%s\", \"sent\": %lu, \"answered\": %lu, \"errors\": %lu, "
	       "\"timeouts\": %lu, \"seconds\": %.3f, \"per_second\": %.1f}\n",
	       attr, sent, answered, errors, timeouts, (t1 - t0) / 1e3,
	       (t1 - t0) > 0 ? answered / ((t1 - t0) / 1e3) : 0.0);
	return timeouts || errors ? 1 : 0;
}

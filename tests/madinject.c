/*
 * madinject: send one hand-made (usually bad) MAD into a fabric, for the
 * bad-input integration tests.  Runs under umad2sim like any diag tool.
 *
 *   madinject --dlid LID [--class C] [--method M] [--attr A] [--mod N] [--len N]
 *             [--base-version V] [--qp Q] [--garbage] [--trap NUM] [--count N]
 *             [--interval MS] [--class-version V] [--mask HEX] [--recv]
 *             [--sminfo KEY,STATE[,GUID[,PRIORITY]]] [--notice-port LID,PORT]
 *
 * --mod sets the attribute modifier (SMInfo Set: 1 HANDOVER .. 5 DISCOVER);
 * --sminfo makes the data an SMInfo with that SM_Key, SMState, GUID and
 * priority (a forged SMInfo Set from an ordinary host).
 *
 * --trap NUM makes the data a generic Notice with that trap number; --count
 * sends N copies, each with its own TID, MS milliseconds apart (0:
 * back to back): a trap burst.  --notice-port fills a 129-131 Notice's
 * DataDetails: the LID and port number the trap is about.  --mask sets an SA ComponentMask; --recv
 * waits (2 s) for the answer and prints its method and status (and an
 * SMInfo answer's GUID, SM_Key, priority and state).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "mad/wire.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dlid", required_argument, NULL, 'd'},
	    {"class", required_argument, NULL, 'c'},
	    {"method", required_argument, NULL, 'm'},
	    {"attr", required_argument, NULL, 'a'},
	    {"len", required_argument, NULL, 'l'},
	    {"base-version", required_argument, NULL, 'b'},
	    {"qp", required_argument, NULL, 'q'},
	    {"garbage", no_argument, NULL, 'g'},
	    {"trap", required_argument, NULL, 't'},
	    {"count", required_argument, NULL, 'n'},
	    {"interval", required_argument, NULL, 'i'},
	    {"class-version", required_argument, NULL, 'V'},
	    {"mask", required_argument, NULL, 'M'},
	    {"recv", no_argument, NULL, 'R'},
	    {"mod", required_argument, NULL, 'o'},
	    {"sminfo", required_argument, NULL, 's'},
	    {"notice-port", required_argument, NULL, 'P'},
	    {0},
	};
	unsigned long long si_key = 0, si_guid = 0;
	unsigned long attr_mod = 0;
	int si_state = -1, si_prio = 0;
	int dlid = 0, cls = 0x01, method = 0x01, attr = 0x20, len = 256, bv = 1, qp = -1;
	int garbage = 0, c, portid, agent, r, trap = -1, count = 1, interval = 0;
	int cv = -1, recv = 0, notice_lid = -1, notice_port = 0;
	unsigned long long mask = 0;
	int have_mask = 0;
	uint8_t umad[1024];
	uint8_t *mad;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		long v = optarg ? strtol(optarg, NULL, 0) : 0;
		switch (c) {
		case 'd':
			dlid = v;
			break;
		case 'c':
			cls = v;
			break;
		case 'm':
			method = v;
			break;
		case 'a':
			attr = v;
			break;
		case 'l':
			len = v;
			break;
		case 'b':
			bv = v;
			break;
		case 'q':
			qp = v;
			break;
		case 'g':
			garbage = 1;
			break;
		case 't':
			trap = v;
			break;
		case 'P':
			if (sscanf(optarg, "%i,%i", &notice_lid, &notice_port) != 2) {
				fprintf(stderr, "madinject: --notice-port LID,PORT\n");
				return 2;
			}
			break;
		case 'n':
			count = v;
			break;
		case 'i':
			interval = v;
			break;
		case 'V':
			cv = v;
			break;
		case 'M':
			mask = strtoull(optarg, NULL, 0);
			have_mask = 1;
			break;
		case 'R':
			recv = 1;
			break;
		case 'o':
			attr_mod = strtoul(optarg, NULL, 0);
			break;
		case 's':
			if (sscanf(optarg, "%llx,%d,%llx,%d", &si_key, &si_state, &si_guid,
				   &si_prio) < 2 ||
			    si_state < 0 || si_state > 3 || si_prio < 0 || si_prio > 15) {
				fprintf(stderr,
					"madinject: --sminfo KEY,STATE[,GUID[,PRIORITY]]\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: madinject --dlid LID [options]\n");
			return 2;
		}
	}
	if (!dlid || len < 0 || len > 256 || count < 1 || count > 100000) {
		fprintf(stderr, "madinject: --dlid required, --len 0..256, --count 1..100000\n");
		return 2;
	}
	if (qp < 0)
		qp = (cls == 0x01 || cls == 0x81) ? 0 : 1;
	if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "madinject: cannot open a umad port\n");
		return 1;
	}
	agent = umad_register(portid, cls, cls == 0x03 ? 2 : 1, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "madinject: cannot register class 0x%x: %s\n", cls,
			strerror(-agent));
		return 1;
	}
	memset(umad, 0, sizeof(umad));
	mad = umad_get_mad(umad);
	if (garbage) {
		srand(42);
		for (int i = 0; i < 256; i++)
			mad[i] = rand();
	}
	mad[0] = bv;
	mad[1] = cls;
	mad[2] = cv >= 0 ? cv : cls == 0x03 ? 2 : 1;
	mad[3] = method;
	mad[8] = 0x12; /* TID */
	mad[15] = 0x34;
	mad[16] = attr >> 8;
	mad[17] = attr & 0xff;
	for (int i = 0; i < 4; i++)
		mad[20 + i] = (uint8_t)(attr_mod >> (24 - 8 * i));
	if (si_state >= 0) {
		/* SMInfo (14.2.5.13) at the SMP data: GUID, SM_Key, ActCount, Priority:4 SMState:4
		 */
		for (int i = 0; i < 8; i++) {
			mad[64 + i] = (uint8_t)(si_guid >> (56 - 8 * i));
			mad[72 + i] = (uint8_t)(si_key >> (56 - 8 * i));
		}
		mad[84] = (uint8_t)(si_prio << 4 | si_state);
	}
	if (have_mask)
		for (int i = 0; i < 8; i++)
			mad[48 + i] = (uint8_t)(mask >> (56 - 8 * i));
	if (trap >= 0) {
		/* Notice (IBA 14.2.5.1): IsGeneric, Type 1 (urgent), ProducerType 2 (switch) */
		mad[64] = 0x80 | 1;
		mad[67] = 2;
		mad[68] = trap >> 8;
		mad[69] = trap & 0xff;
		if (notice_lid >= 0) { /* 129-131 DataDetails: LIDADDR, PortNum */
			mad[76] = (uint8_t)(notice_lid >> 8);
			mad[77] = (uint8_t)notice_lid;
			mad[78] = (uint8_t)notice_port;
		}
	}
	umad_set_addr(umad, dlid, qp, 0, qp ? 0x80010000 : 0);
	for (int i = 0; i < count; i++) {
		mad[14] = i >> 8; /* a TID of its own each */
		mad[13] = i & 0xff;
		r = umad_send(portid, agent, umad, len, 100, 0);
		if (r < 0) {
			fprintf(stderr, "madinject: send %d failed: %s\n", i, strerror(-r));
			return 1;
		}
		if (interval > 0)
			usleep((useconds_t)interval * 1000);
	}
	/* give the simulator time to deliver before we detach */
	int rlen = 256;
	r = umad_recv(portid, umad, &rlen, recv ? 2000 : 300);
	if (recv) {
		if (r < 0) {
			printf("madinject: no answer\n");
			return 1;
		}
		mad = umad_get_mad(umad);
		printf("answer method 0x%02x status 0x%04x attr 0x%04x len %d\n", mad[3],
		       mad[4] << 8 | mad[5], mad[16] << 8 | mad[17], rlen);
		if ((mad[1] == 0x01 || mad[1] == 0x81) && (mad[16] << 8 | mad[17]) == 0x20) {
			unsigned long long g = 0, k = 0;

			for (int i = 0; i < 8; i++) {
				g = g << 8 | mad[64 + i];
				k = k << 8 | mad[72 + i];
			}
			printf("sminfo guid 0x%016llx sm_key 0x%016llx priority %d state %d\n", g,
			       k, mad[84] >> 4, mad[84] & 0xf);
		}
	}
	umad_close_port(portid);
	printf("madinject: sent %d x class 0x%02x method 0x%02x attr 0x%04x len %d to LID %d qp "
	       "%d\n",
	       count, cls, method, attr, len, dlid, qp);
	return 0;
}

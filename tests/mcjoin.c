/*
 * mcjoin: a multicast client of the SA for the integration tests
 * (tests/it_mcmember.sh) and bench/: joins and leaves groups with
 * MCMemberRecord Set and Delete (IBA 1.4 vol 1, 15.2.5.17), lists them with
 * GetTable, and runs join/leave cycles, as IPoIB and rdma_cm do it.  Runs
 * under umad2sim like any diag tool; the codec is mad/sa_wire.c.  Every
 * answer is one JSON line on stdout.
 *
 *   mcjoin [--dlid LID] [--smkey K] [--timeout MS] COMMAND [options]
 *     join   --mgid MGID|0 [--guid G] [--state S] [--qkey Q] [--pkey P] [--sl N]
 *            [--tclass N] [--flow N] [--hop N] [--scope N] [--mlid L] [--mtu SEL:CODE]
 *            [--rate SEL:CODE] [--life SEL:N] [--proxy] [--mask HEX]
 *     leave  --mgid MGID [--guid G] [--state S] [--mask HEX]
 *     get    [--mgid MGID] [--guid G] [--mlid L] [--state S] [--mask HEX]  (GetTable)
 *     cycle  --count N [--mgid MGID|0] [--state S] ...join options
 *
 * --dlid defaults to the port's SM LID, --guid (the PortGID's GUID) to the
 * port's own, --state to full; S is full, non, sendonly, or a number (the
 * JoinState bits).  A join names MGID, PortGID, JoinState, Q_Key
 * (0x11223344), P_Key (0xffff), SL, FlowLabel and TClass (0): what a create
 * needs; each further option adds its component, --mask replaces the mask.
 * MGID 0 asks the SA for one.  SEL is gt, lt, eq or max.
 *
 * Output: {"op":"join"|"leave","status":"0x0000",<record>} where <record> is
 * "mgid","port_guid","mlid","qkey","pkey","mtu","rate","life","sl","flow",
 * "tclass","hop","scope","join_state","proxy" (on status 0 only); get prints
 * {"op":"record",<record>} per record and then {"op":"get","status":...,
 * "records":N}; cycle runs N times a join (a new group on each, the same
 * MGID, or one the SA assigns) and its leave and prints {"op":"cycle",
 * "count":N,"joined":J,"left":L,"failed":F,"no_answer":A,"mlids":M,"ms":T}
 * (M: distinct MLIDs the joins were answered with).  Without an answer:
 * {"op":...,"status":"none"}.  Exit 0 when every answer had status 0.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "mad/sa_wire.h"

#define C(x) (1ULL << SA_MCM_##x)
#define CREATE_MASK                                                                                \
	(C(MGID) | C(PORT_GID) | C(JOIN_STATE) | C(QKEY) | C(PKEY) | C(SL) | C(FLOW_LABEL) |       \
	 C(TCLASS))
#define JOIN_MASK (C(MGID) | C(PORT_GID) | C(JOIN_STATE))

struct client {
	int portid, agent;
	uint16_t dlid;
	uint64_t guid, prefix, sm_key;
	uint64_t tid;
	int timeout_ms;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Send q and wait for the answer with its TID: 0, or -ETIMEDOUT (after 3 sends). */
static int client_query(struct client *c, struct sa_wire_mad *q, struct sa_wire_mad *ret)
{
	uint8_t umad[512];

	q->hdr.tid = ++c->tid;
	q->sm_key = c->sm_key;
	for (int attempt = 0; attempt < 3; attempt++) {
		double end = now_ms() + c->timeout_ms;

		memset(umad, 0, sizeof(umad));
		if (sa_wire_encode(q, umad_get_mad(umad), 256) < 0)
			return -EINVAL;
		umad_set_addr(umad, c->dlid, 1, 0, 0x80010000);
		if (umad_send(c->portid, c->agent, umad, 256, c->timeout_ms, 0) < 0)
			return -EIO;
		while (now_ms() < end) {
			int len = 256, left = (int)(end - now_ms());

			memset(umad, 0, sizeof(umad));
			if (umad_recv(c->portid, umad, &len, left > 0 ? left : 1) < 0)
				continue;
			if (umad_status(umad))
				break; /* our send came back: send again */
			if (sa_wire_decode(umad_get_mad(umad), len > 256 ? 256 : (size_t)len,
					   ret) == 0 &&
			    (uint32_t)ret->hdr.tid == (uint32_t)c->tid)
				return 0;
		}
	}
	return -ETIMEDOUT;
}

static const char *gid_str(const uint8_t *gid, char *buf)
{
	return inet_ntop(AF_INET6, gid, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

static void print_rec(const uint8_t *img)
{
	struct sa_wire_mcm_rec r;
	char mgid[INET6_ADDRSTRLEN];

	sa_wire_mcm_rec_decode(img, SA_MCM_SIZE, &r);
	printf(
	    "\"mgid\":\"%s\",\"port_guid\":\"0x%016llx\",\"mlid\":\"0x%04x\",\"qkey\":\"0x%08x\","
	    "\"pkey\":\"0x%04x\",\"mtu\":%u,\"rate\":%u,\"life\":%u,\"sl\":%u,\"flow\":%u,"
	    "\"tclass\":%u,\"hop\":%u,\"scope\":%u,\"join_state\":%u,\"proxy\":%s",
	    gid_str(r.mgid, mgid), (unsigned long long)sa_wire_bits_get(r.port_gid, 64, 64), r.mlid,
	    r.qkey, r.pkey, r.mtu, r.rate, r.pkt_life, r.sl, r.flow_label, r.tclass, r.hop_limit,
	    r.scope, r.join_state, r.proxy_join ? "true" : "false");
}

/* Print an answer to a Set or Delete; its status. */
static int print_answer(const char *op, int r, const struct sa_wire_mad *a)
{
	if (r < 0) {
		printf("{\"op\":\"%s\",\"status\":\"none\"}\n", op);
		return -1;
	}
	printf("{\"op\":\"%s\",\"status\":\"0x%04x\"", op, a->hdr.status);
	if (!a->hdr.status) {
		printf(",");
		print_rec(a->data);
	}
	printf("}\n");
	fflush(stdout);
	return a->hdr.status;
}

static int parse_state(const char *s)
{
	if (!strcmp(s, "full"))
		return 1;
	if (!strcmp(s, "non"))
		return 2;
	if (!strcmp(s, "sendonly"))
		return 4;
	return (int)strtol(s, NULL, 0);
}

/* "SEL:VALUE" into a selector and a value. */
static int parse_sel(const char *s, uint8_t *sel, uint8_t *val)
{
	static const char *const names[] = {"gt", "lt", "eq", "max"};
	const char *colon = strchr(s, ':');

	if (!colon)
		return -1;
	for (uint8_t i = 0; i < 4; i++)
		if (!strncmp(s, names[i], (size_t)(colon - s)) &&
		    strlen(names[i]) == (size_t)(colon - s)) {
			*sel = i;
			*val = (uint8_t)strtoul(colon + 1, NULL, 0);
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dlid", required_argument, NULL, 'd'},
	    {"smkey", required_argument, NULL, 'k'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"mgid", required_argument, NULL, 'm'},
	    {"guid", required_argument, NULL, 'g'},
	    {"state", required_argument, NULL, 's'},
	    {"qkey", required_argument, NULL, 'q'},
	    {"pkey", required_argument, NULL, 'p'},
	    {"sl", required_argument, NULL, 'l'},
	    {"tclass", required_argument, NULL, 't'},
	    {"flow", required_argument, NULL, 'f'},
	    {"hop", required_argument, NULL, 'h'},
	    {"scope", required_argument, NULL, 'S'},
	    {"mlid", required_argument, NULL, 'L'},
	    {"mtu", required_argument, NULL, 'M'},
	    {"rate", required_argument, NULL, 'R'},
	    {"life", required_argument, NULL, 'P'},
	    {"proxy", no_argument, NULL, 'x'},
	    {"mask", required_argument, NULL, 'K'},
	    {"count", required_argument, NULL, 'c'},
	    {0},
	};
	struct client c = {.timeout_ms = 1000};
	struct sa_wire_mcm_rec r = {.qkey = 0x11223344, .pkey = 0xffff, .join_state = 1};
	struct sa_wire_mad q = {0}, a;
	uint64_t extra = 0, mask = 0, guid = 0;
	bool have_mask = false, have_guid = false, have_mgid = false;
	const char *cmd;
	long count = 1;
	int dlid = 0, opt, rc = 0;
	umad_port_t port;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dlid = (int)strtol(optarg, NULL, 0);
			break;
		case 'k':
			c.sm_key = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			c.timeout_ms = (int)strtol(optarg, NULL, 0);
			break;
		case 'm':
			have_mgid = true;
			if (!strcmp(optarg, "0"))
				memset(r.mgid, 0, 16);
			else if (inet_pton(AF_INET6, optarg, r.mgid) != 1) {
				fprintf(stderr, "mcjoin: bad MGID %s\n", optarg);
				return 2;
			}
			break;
		case 'g':
			guid = strtoull(optarg, NULL, 0);
			have_guid = true;
			break;
		case 's':
			r.join_state = (uint8_t)parse_state(optarg);
			extra |= C(JOIN_STATE);
			break;
		case 'q':
			r.qkey = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			r.pkey = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'l':
			r.sl = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			r.tclass = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			r.flow_label = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'h':
			r.hop_limit = (uint8_t)strtoul(optarg, NULL, 0);
			extra |= C(HOP_LIMIT);
			break;
		case 'S':
			r.scope = (uint8_t)strtoul(optarg, NULL, 0);
			extra |= C(SCOPE);
			break;
		case 'L':
			r.mlid = (uint16_t)strtoul(optarg, NULL, 0);
			extra |= C(MLID);
			break;
		case 'M':
			if (parse_sel(optarg, &r.mtu_sel, &r.mtu) < 0)
				goto usage;
			extra |= C(MTU_SEL) | C(MTU);
			break;
		case 'R':
			if (parse_sel(optarg, &r.rate_sel, &r.rate) < 0)
				goto usage;
			extra |= C(RATE_SEL) | C(RATE);
			break;
		case 'P':
			if (parse_sel(optarg, &r.pkt_life_sel, &r.pkt_life) < 0)
				goto usage;
			extra |= C(PKT_LIFE_SEL) | C(PKT_LIFE);
			break;
		case 'x':
			r.proxy_join = true;
			extra |= C(PROXY_JOIN);
			break;
		case 'K':
			mask = strtoull(optarg, NULL, 0);
			have_mask = true;
			break;
		case 'c':
			count = strtol(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	cmd = optind < argc ? argv[optind] : "";
	if (strcmp(cmd, "join") && strcmp(cmd, "leave") && strcmp(cmd, "get") &&
	    strcmp(cmd, "cycle"))
		goto usage;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
	    (c.portid = umad_open_port(port.ca_name, port.portnum)) < 0) {
		fprintf(stderr, "mcjoin: cannot open a umad port\n");
		return 1;
	}
	c.dlid = (uint16_t)(dlid ? (unsigned)dlid : port.sm_lid);
	c.guid = be64toh(port.port_guid);
	c.prefix = be64toh(port.gid_prefix);
	c.tid = (uint64_t)getpid() << 20;
	umad_release_port(&port);
	c.agent = umad_register(c.portid, 0x03, 2, 0, NULL);
	if (c.agent < 0) {
		fprintf(stderr, "mcjoin: cannot register the SA class\n");
		return 1;
	}
	sa_wire_bits_set(r.port_gid, 0, 64, c.prefix);
	sa_wire_bits_set(r.port_gid, 64, 64, have_guid ? guid : c.guid);
	q.hdr.attr_id = SA_ATTR_MCMEMBER_RECORD;

	if (!strcmp(cmd, "get")) {
		unsigned n = 0;

		q.hdr.method = SA_METHOD_GET_TABLE;
		q.comp_mask = have_mask
				  ? mask
				  : (have_mgid ? C(MGID) : 0) | (have_guid ? C(PORT_GID) : 0) |
					(extra & (C(MLID) | C(JOIN_STATE)));
		sa_wire_mcm_rec_encode(&r, q.data, sizeof(q.data));
		if (client_query(&c, &q, &a) < 0) {
			printf("{\"op\":\"get\",\"status\":\"none\"}\n");
			return 1;
		}
		/* one MAD (ibsim has no RMPP): records up to the answer's PayloadLength */
		size_t payload = a.rmpp_data2 >= 20 ? a.rmpp_data2 - 20 : 0;

		for (size_t off = 0; !a.hdr.status && a.attr_offset && off + 56 <= payload &&
				     off + 56 <= sizeof(a.data);
		     off += a.attr_offset * 8u, n++) {
			printf("{\"op\":\"record\",");
			print_rec(a.data + off);
			printf("}\n");
		}
		printf("{\"op\":\"get\",\"status\":\"0x%04x\",\"records\":%u}\n", a.hdr.status, n);
		return a.hdr.status ? 3 : 0;
	}
	if (!have_mgid && strcmp(cmd, "cycle")) {
		fprintf(stderr, "mcjoin: %s needs --mgid\n", cmd);
		return 2;
	}
	if (!strcmp(cmd, "join") || !strcmp(cmd, "leave")) {
		bool join = !strcmp(cmd, "join");

		q.hdr.method = join ? SA_METHOD_SET : SA_METHOD_DELETE;
		q.comp_mask = have_mask ? mask : (join ? CREATE_MASK : JOIN_MASK) | extra;
		sa_wire_mcm_rec_encode(&r, q.data, sizeof(q.data));
		rc = print_answer(cmd, client_query(&c, &q, &a), &a);
		return rc < 0 ? 1 : rc ? 3 : 0;
	}

	/* cycle: join, then leave what the answer named */
	{
		long joined = 0, left = 0, failed = 0, none = 0;
		unsigned mlids = 0;
		static uint8_t seen[65536 / 8];
		double t0 = now_ms();

		for (long i = 0; i < count; i++) {
			struct sa_wire_mad l = {0};

			q.hdr.method = SA_METHOD_SET;
			q.comp_mask = have_mask ? mask : CREATE_MASK | extra;
			sa_wire_mcm_rec_encode(&r, q.data, sizeof(q.data));
			if (client_query(&c, &q, &a) < 0) {
				none++;
				continue;
			}
			if (a.hdr.status) {
				failed++;
				continue;
			}
			joined++;
			{
				uint16_t mlid = (uint16_t)sa_wire_comp_get(&sa_wire_mcmember_record,
									   SA_MCM_MLID, a.data);
				if (!(seen[mlid / 8] & (1u << (mlid % 8)))) {
					seen[mlid / 8] |= (uint8_t)(1u << (mlid % 8));
					mlids++;
				}
			}
			l.hdr.attr_id = SA_ATTR_MCMEMBER_RECORD;
			l.hdr.method = SA_METHOD_DELETE;
			l.comp_mask = JOIN_MASK;
			memcpy(l.data, a.data, SA_MCM_SIZE); /* the MGID the SA answered with */
			sa_wire_comp_set(&sa_wire_mcmember_record, SA_MCM_JOIN_STATE, l.data,
					 r.join_state);
			if (client_query(&c, &l, &a) < 0)
				none++;
			else if (a.hdr.status)
				failed++;
			else
				left++;
		}
		printf("{\"op\":\"cycle\",\"count\":%ld,\"joined\":%ld,\"left\":%ld,\"failed\":%ld,"
		       "\"no_answer\":%ld,\"mlids\":%u,\"ms\":%.0f}\n",
		       count, joined, left, failed, none, mlids, now_ms() - t0);
		rc = joined == count && left == count ? 0 : 3;
	}
	umad_close_port(c.portid);
	return rc;
usage:
	fprintf(stderr, "usage: see tests/mcjoin.c\n");
	return 2;
}

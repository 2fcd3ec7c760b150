/*
 * saclient: a tiny SA client for the integration tests (tests/it_service.sh):
 * registers, reads and deletes ServiceRecords, subscribes to traps with
 * InformInfo and waits for the Reports they bring, answering each with a
 * ReportResp.  Runs under umad2sim like any diag tool; the SA codec is
 * mad/sa_wire.c.
 *
 *   saclient [--dlid LID] sr-set --id ID [--guid G] [--pkey P] [--lease S] [--name N]
 *   saclient [--dlid LID] sr-delete --id ID [--guid G] [--pkey P]
 *   saclient [--dlid LID] sr-get [--id ID] [--name N]
 *   saclient [--dlid LID] inform --trap N [--lid-begin B] [--lid-end E] [--guid G]
 *                         [--unsubscribe] [--wait S] [--count N] [--no-ack] [--linger S]
 *   saclient [--dlid LID] iir
 *
 * --dlid defaults to the port's SM LID, --guid (the ServiceGID) to the
 * port's own GUID; for inform --guid is the InformInfo GID, none by default
 * (a LID range then, all LIDs by default).  Every
 * command prints "status 0xSSSS" for the SA's answer; sr-get and iir print
 * one line per record; inform --wait S keeps the port open for S seconds
 * (it sets IsSM so that ibsim delivers requests to it), prints "subscribed"
 * and then "report trap N gid 0xGUID tid 0xTID" per Report, answered unless
 * --no-ack, until --count Reports came (exit 0; then --linger S seconds more
 * for any other) or the time is up (exit 1).
 */
#include <errno.h>
#include <endian.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "mad/sa_wire.h"

struct client {
	int portid, agent;
	uint16_t sm_lid;
	uint64_t guid, prefix;
	uint64_t tid;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int client_send(struct client *c, const struct sa_wire_mad *m, uint16_t dlid, uint32_t qpn)
{
	uint8_t umad[512];
	int r;

	memset(umad, 0, sizeof(umad));
	if (sa_wire_encode(m, umad_get_mad(umad), 256) < 0)
		return -EINVAL;
	umad_set_addr(umad, dlid, qpn, 0, 0x80010000);
	r = umad_send(c->portid, c->agent, umad, 256, 100, 0);
	return r < 0 ? r : 0;
}

/* Receive one SA MAD within timeout_ms: 0 and *ret, its source LID and QP, or -ETIMEDOUT. */
static int client_recv(struct client *c, int timeout_ms, struct sa_wire_mad *ret, uint16_t *slid,
		       uint32_t *qpn)
{
	uint8_t umad[512];
	int len = 256, r;

	memset(umad, 0, sizeof(umad));
	r = umad_recv(c->portid, umad, &len, timeout_ms);
	if (r < 0)
		return r;
	if (r != c->agent)
		return -EAGAIN; /* an SM's SMInfo Get for our IsSM port: not for us */
	if (umad_status(umad))
		return -EAGAIN; /* one of our sends came back */
	*slid = be16toh(umad_get_mad_addr(umad)->lid);
	*qpn = be32toh(umad_get_mad_addr(umad)->qpn);
	return sa_wire_decode(umad_get_mad(umad), len > 256 ? 256 : (size_t)len, ret);
}

/* Answer a Report with its ReportResp (13.4.8.2: the same TID and Notice). */
static void client_report_resp(struct client *c, const struct sa_wire_mad *rep, uint16_t slid,
			       uint32_t qpn)
{
	struct sa_wire_mad m = *rep;

	m.hdr.method = SA_METHOD_REPORT_RESP;
	m.hdr.status = 0;
	if (client_send(c, &m, slid, qpn) < 0)
		fprintf(stderr, "saclient: cannot send the ReportResp\n");
}

/* A request and its answer (Reports arriving meanwhile are answered). */
static int client_query(struct client *c, uint16_t dlid, struct sa_wire_mad *q,
			struct sa_wire_mad *ret)
{
	double end = now_s() + 3;

	q->hdr.tid = ++c->tid;
	if (client_send(c, q, dlid, 1) < 0)
		return -EIO;
	while (now_s() < end) {
		uint16_t slid;
		uint32_t qpn;
		int r = client_recv(c, 200, ret, &slid, &qpn);

		if (r < 0)
			continue;
		if (ret->hdr.method == SA_METHOD_REPORT)
			client_report_resp(c, ret, slid, qpn);
		else if ((uint32_t)ret->hdr.tid == (uint32_t)c->tid)
			return 0;
	}
	return -ETIMEDOUT;
}

static void gid_put(uint8_t *at, uint64_t prefix, uint64_t guid)
{
	sa_wire_bits_set(at, 0, 64, prefix);
	sa_wire_bits_set(at, 64, 64, guid);
}

static void print_service(const uint8_t *r)
{
	const struct sa_wire_rec *sr = &sa_wire_service_record;
	char name[SA_SR_NAME_LEN + 1] = {0};

	memcpy(name, r + SA_SR_NAME_OFFS, SA_SR_NAME_LEN);
	printf("service id 0x%016llx guid 0x%016llx pkey 0x%04x lease %llu name %s\n",
	       (unsigned long long)sa_wire_comp_get(sr, SA_SR_ID, r),
	       (unsigned long long)sa_wire_bits_get(r + SA_SR_GID_OFFS, 64, 64),
	       (unsigned)sa_wire_comp_get(sr, SA_SR_PKEY, r),
	       (unsigned long long)sa_wire_comp_get(sr, SA_SR_LEASE, r), name);
}

static void print_records(const struct sa_wire_mad *a, unsigned size, void (*fn)(const uint8_t *))
{
	unsigned stride = a->attr_offset * 8u;

	if (a->hdr.method != SA_METHOD_GET_TABLE_RESP) {
		fn(a->data);
		return;
	}
	for (unsigned off = 0; stride && off + size <= sizeof(a->data); off += stride) {
		static const uint8_t zero[SA_WIRE_DATA_SIZE];

		if (!memcmp(a->data + off, zero, size))
			break; /* past the last record (no RMPP: one MAD) */
		fn(a->data + off);
	}
}

static void print_iir(const uint8_t *r)
{
	const struct sa_wire_rec *iir = &sa_wire_inform_info_record;

	printf("subscription guid 0x%016llx enum %u trap %u\n",
	       (unsigned long long)sa_wire_bits_get(r, 64, 64),
	       (unsigned)sa_wire_comp_get(iir, SA_IIR_ENUM, r),
	       (unsigned)sa_wire_comp_get(iir, SA_IIR_II + SA_II_TRAP, r));
}

/*
 * Wait for count Reports within wait_s seconds, then linger_s seconds more
 * for any other; answer them unless no_ack.  0 when count came.
 */
static int client_wait_reports(struct client *c, double wait_s, unsigned count, bool no_ack,
			       double linger_s)
{
	double end = now_s() + wait_s;
	unsigned got = 0;

	while (now_s() < end) {
		struct sa_wire_mad m;
		struct sa_wire_notice n;
		uint16_t slid;
		uint32_t qpn;

		if (client_recv(c, 200, &m, &slid, &qpn) < 0 || m.hdr.method != SA_METHOD_REPORT ||
		    m.hdr.attr_id != SA_ATTR_NOTICE ||
		    sa_wire_notice_decode(m.data, sizeof(m.data), &n) < 0)
			continue;
		printf(
		    "report trap %u gid 0x%016llx tid 0x%08x\n", n.trap_num,
		    (unsigned long long)sa_wire_bits_get(n.data + SA_WIRE_NOTICE_GID_OFFS, 64, 64),
		    (unsigned)m.hdr.tid);
		fflush(stdout);
		if (!no_ack)
			client_report_resp(c, &m, slid, qpn);
		if (++got == count)
			end = now_s() + linger_s;
	}
	return got >= count ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dlid", required_argument, NULL, 'd'},
	    {"id", required_argument, NULL, 'i'},
	    {"guid", required_argument, NULL, 'g'},
	    {"pkey", required_argument, NULL, 'p'},
	    {"lease", required_argument, NULL, 'l'},
	    {"name", required_argument, NULL, 'n'},
	    {"trap", required_argument, NULL, 't'},
	    {"lid-begin", required_argument, NULL, 'b'},
	    {"lid-end", required_argument, NULL, 'e'},
	    {"unsubscribe", no_argument, NULL, 'u'},
	    {"wait", required_argument, NULL, 'w'},
	    {"count", required_argument, NULL, 'c'},
	    {"no-ack", no_argument, NULL, 'A'},
	    {"linger", required_argument, NULL, 'L'},
	    {0},
	};
	const struct sa_wire_rec *sr = &sa_wire_service_record, *ii = &sa_wire_inform_info;
	struct client c = {0};
	struct sa_wire_mad q = {0}, a;
	long long id = -1, guid = -1, pkey = -1, lease = -1, trap = 0xffff, begin = 0xffff, end = 0;
	const char *name = NULL, *cmd;
	double wait_s = 0, linger_s = 0;
	unsigned count = 1;
	bool unsubscribe = false, no_ack = false;
	int dlid = 0, opt, issm_fd = -1, rc;
	bool want_issm;
	char issm_path[256];
	umad_port_t port;

	/* getopt puts the command after the options, wherever it was */
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dlid = (int)strtol(optarg, NULL, 0);
			break;
		case 'i':
			id = strtoll(optarg, NULL, 0);
			break;
		case 'g':
			guid = (long long)strtoull(optarg, NULL, 0);
			break;
		case 'p':
			pkey = strtoll(optarg, NULL, 0);
			break;
		case 'l':
			lease = strtoll(optarg, NULL, 0);
			break;
		case 'n':
			name = optarg;
			break;
		case 't':
			trap = strtoll(optarg, NULL, 0);
			break;
		case 'b':
			begin = strtoll(optarg, NULL, 0);
			break;
		case 'e':
			end = strtoll(optarg, NULL, 0);
			break;
		case 'u':
			unsubscribe = true;
			break;
		case 'w':
			wait_s = strtod(optarg, NULL);
			break;
		case 'c':
			count = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'A':
			no_ack = true;
			break;
		case 'L':
			linger_s = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: see tests/saclient.c\n");
			return 2;
		}
	}
	cmd = optind < argc ? argv[optind] : "";
	if (strcmp(cmd, "sr-set") && strcmp(cmd, "sr-delete") && strcmp(cmd, "sr-get") &&
	    strcmp(cmd, "inform") && strcmp(cmd, "iir")) {
		fprintf(stderr, "saclient: no command (sr-set, sr-delete, sr-get, inform, iir)\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
	    (c.portid = umad_open_port(port.ca_name, port.portnum)) < 0) {
		fprintf(stderr, "saclient: cannot open a umad port\n");
		return 1;
	}
	c.sm_lid = (uint16_t)port.sm_lid;
	c.guid = be64toh(port.port_guid);
	c.prefix = be64toh(port.gid_prefix);
	c.tid = (uint64_t)getpid() << 16;
	/* ibsim hands requests (a Report) only to a port's IsSM client */
	want_issm = !strcmp(cmd, "inform") && wait_s > 0;
	if (want_issm &&
	    umad_get_issm_path(port.ca_name, port.portnum, issm_path, sizeof(issm_path)) < 0) {
		fprintf(stderr, "saclient: cannot set IsSM\n");
		return 1;
	}
	umad_release_port(&port);
	{
		/* a server for Report (0x06), so that the kernel hands them to us */
		long methods[16 / sizeof(long)] = {0};

		methods[SA_METHOD_REPORT / (8 * sizeof(long))] |=
		    1L << (SA_METHOD_REPORT % (8 * sizeof(long)));
		c.agent = umad_register(c.portid, 0x03, 2, 0, methods);
	}
	if (c.agent < 0) {
		fprintf(stderr, "saclient: cannot register the SA class\n");
		return 1;
	}
	if (want_issm) {
		/*
		 * An IsSM port gets the SMs' SMInfo Gets (DECIDE asks every one):
		 * a MAD of a class without an agent would crash us in umad2sim,
		 * so the agents come before IsSM.  The Gets stay unanswered; the
		 * SM times out and carries on.
		 */
		long methods[16 / sizeof(long)] = {0};

		methods[0] |= 1L << 0x01 | 1L << 0x02; /* Get, Set */
		if (umad_register(c.portid, 0x01, 1, 0, methods) < 0 ||
		    umad_register(c.portid, 0x81, 1, 0, methods) < 0) {
			fprintf(stderr, "saclient: cannot register the SMI classes\n");
			return 1;
		}
		if ((issm_fd = open(issm_path, O_RDWR)) < 0) {
			fprintf(stderr, "saclient: cannot set IsSM\n");
			return 1;
		}
	}
	if (!dlid)
		dlid = c.sm_lid;
	if (guid < 0)
		guid = strcmp(cmd, "inform") ? (long long)c.guid : 0;

	if (!strncmp(cmd, "sr-", 3)) {
		q.hdr.attr_id = SA_ATTR_SERVICE_RECORD;
		if (id >= 0) {
			sa_wire_comp_set(sr, SA_SR_ID, q.data, (uint64_t)id);
			q.comp_mask |= 1u << SA_SR_ID;
		}
		if (strcmp(cmd, "sr-get")) {
			gid_put(q.data + SA_SR_GID_OFFS, c.prefix, (uint64_t)guid);
			q.comp_mask |= 1u << SA_SR_GID;
		}
		if (pkey >= 0) {
			sa_wire_comp_set(sr, SA_SR_PKEY, q.data, (uint64_t)pkey);
			q.comp_mask |= 1u << SA_SR_PKEY;
		}
		if (lease >= 0) {
			sa_wire_comp_set(sr, SA_SR_LEASE, q.data, (uint64_t)lease);
			q.comp_mask |= 1u << SA_SR_LEASE;
		}
		if (name) {
			strncpy((char *)q.data + SA_SR_NAME_OFFS, name, SA_SR_NAME_LEN);
			q.comp_mask |= 1u << SA_SR_NAME;
		}
		q.hdr.method = !strcmp(cmd, "sr-set")	   ? SA_METHOD_SET
			       : !strcmp(cmd, "sr-delete") ? SA_METHOD_DELETE
							   : SA_METHOD_GET_TABLE;
	} else if (!strcmp(cmd, "iir")) {
		q.hdr.attr_id = SA_ATTR_INFORM_INFO_RECORD;
		q.hdr.method = SA_METHOD_GET_TABLE;
	} else {
		q.hdr.attr_id = SA_ATTR_INFORM_INFO;
		q.hdr.method = SA_METHOD_SET;
		if (guid)
			gid_put(q.data, c.prefix, (uint64_t)guid);
		sa_wire_comp_set(ii, SA_II_LID_BEGIN, q.data, (uint64_t)begin);
		sa_wire_comp_set(ii, SA_II_LID_END, q.data, (uint64_t)end);
		sa_wire_comp_set(ii, SA_II_IS_GENERIC, q.data, 1);
		sa_wire_comp_set(ii, SA_II_SUBSCRIBE, q.data, !unsubscribe);
		sa_wire_comp_set(ii, SA_II_TYPE, q.data, 0xffff);
		sa_wire_comp_set(ii, SA_II_TRAP, q.data, (uint64_t)trap);
		sa_wire_comp_set(ii, SA_II_PRODUCER, q.data, 0xffffff);
		sa_wire_comp_set(ii, SA_II_RESP_TIME, q.data, 18);
	}
	if (client_query(&c, (uint16_t)dlid, &q, &a) < 0) {
		printf("saclient: no answer\n");
		return 1;
	}
	printf("status 0x%04x\n", a.hdr.status);
	fflush(stdout);
	rc = a.hdr.status ? 3 : 0;
	if (!a.hdr.status && !strncmp(cmd, "sr-", 3))
		print_records(&a, SA_SR_SIZE, print_service);
	if (!a.hdr.status && !strcmp(cmd, "iir"))
		print_records(&a, SA_IIR_SIZE, print_iir);
	if (!a.hdr.status && !strcmp(cmd, "inform") && wait_s > 0) {
		printf("subscribed\n");
		fflush(stdout);
		rc = client_wait_reports(&c, wait_s, count, no_ack, linger_s);
	}
	if (issm_fd >= 0)
		close(issm_fd);
	umad_close_port(c.portid);
	return rc;
}

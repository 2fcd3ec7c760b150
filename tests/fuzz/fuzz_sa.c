/*
 * Fuzz target for the SA: mad/sa_wire.c's decoder and sa/sa.c's server,
 * which take bytes from any host on the fabric.
 *
 * Properties (abort on violation):
 *  - sa_wire_decode never reads past the length it is given (an exactly-sized
 *    heap copy) and rejects what is shorter than the SA header;
 *  - decode -> encode -> decode gives the same MAD;
 *  - the server answers every query it decodes as a request (never silence,
 *    at most one answer), from a fixed snapshot, and each answer is itself a
 *    well-formed SA response with the query's TID;
 *  - the component-mask matcher never reads past a record image (the largest,
 *    ServiceRecord, included);
 *  - the PathRecord and MultiPathRecord decoders read only the bytes they
 *    are given (the data after the SA header, exactly sized) and refuse a
 *    short image; decode -> encode keeps every component and GID.
 * The PathRecord and MultiPathRecord seeds (pr_*, mpr_*) reach sa/pathrec.c
 * and sa/path.c through the server.
 *  - a Notice decodes from any 80 bytes and encodes back to them;
 *  - the MCMemberRecord decoder reads only the bytes it is given and refuses
 *    a short image; decode -> encode keeps every component;
 *  - Sets of ServiceRecords and InformInfo (kept across inputs, bounded by the
 *    SA's limits), MCMemberRecord joins and leaves (a group database with the
 *    IPoIB broadcast group, kept across inputs, bounded by the MLIDs) and
 *    ReportResps change nothing of the above; the Reports of traps 66/67 a
 *    join or leave causes are Notices, not answers.
 * The mcm_* seeds reach sa/mcmember.c and sa/mcast.c: creates, MGID 0,
 * joins of the broadcast group, proxies with and without the SA key (0x1
 * here), leaves, queries, refused ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/snapshot.h"
#include "fabric/topo.h"
#include "mad/rmpp.h"
#include "mad/sa_wire.h"
#include "routing/routing.h"
#include "sa/mcast.h"
#include "sa/sa.h"
#include "tests/fuzz/fuzz.h"

static const char net[] = "Switch 8 \"S1\"\nswitchguid=0x100\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n\n"
			  "Hca 1 \"H1\"\ncaguid=0x200\n[1] \"S1\"[1]\n\n"
			  "Hca 2 \"H2\"\ncaguid=0x300\n[1] \"S1\"[2]\n";

struct answers {
	unsigned n;
	uint64_t tid;
};

static int fuzz_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct answers *a = ctx;
	struct sa_wire_mad m;

	FUZZ_CHECK(len >= SA_WIRE_HDR_SIZE && len <= 256);
	FUZZ_CHECK(sa_wire_decode(mad, len, &m) == 0);
	if (m.hdr.method == SA_METHOD_REPORT) {
		/* trap 66/67 of a group a join created or a leave deleted */
		FUZZ_CHECK(m.hdr.attr_id == SA_ATTR_NOTICE);
		return 0;
	}
	FUZZ_CHECK(m.hdr.method & WIRE_METHOD_RESP);
	FUZZ_CHECK(m.hdr.tid == a->tid);
	a->n++;
	return 0;
}

static void fuzz_sm_info(void *ctx, struct sa_sm_info *ret)
{
	*ret = (struct sa_sm_info){.port_guid = 0x201, .sa_key = 0x1, .state = 3};
}

static struct sa *fuzz_sa(struct answers *a)
{
	static struct sa *sa;
	static struct snapshot *snap;
	static struct mcast_db *db;
	const struct mcast_group *g;

	if (!sa) {
		struct fabric *f = NULL;
		struct routes *r = NULL;
		char err[128];
		uint16_t lid = 1;

		FUZZ_CHECK(topo_parse(net, strlen(net), &f, err, sizeof(err)) == 0);
		for (uint32_t i = 0; i < f->n_nodes; i++)
			for (unsigned p = node_first_lid_port(&f->nodes[i]);
			     p <= node_last_lid_port(&f->nodes[i]); p++)
				f->nodes[i].ports[p].lid = lid++;
		FUZZ_CHECK(minhop_compute(f, NULL, &r, err, sizeof(err)) == 0);
		FUZZ_CHECK(snapshot_new(f, r, 1, &snap) == 0);
		sa = sa_new(NULL, &(struct sa_ops){fuzz_send, fuzz_sm_info, a});
		FUZZ_CHECK(sa != NULL);
		sa_publish(sa, snap);
		db = mcast_db_new();
		FUZZ_CHECK(db != NULL && mcast_add_ipoib_broadcast(db, 3, 0, &g) == 0);
		FUZZ_CHECK(sa_set_mcast(sa, db) == 0);
	}
	return sa;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct answers ans;
	struct sa *sa = fuzz_sa(&ans);
	struct madio_addr from = {.slid = 2, .qpn = 1, .qkey = 0x80010000};
	uint8_t *copy = malloc(size ? size : 1);
	struct sa_wire_mad m, m2;
	struct wire_mad_hdr h;
	uint8_t buf[256];
	int r;

	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	r = sa_wire_decode(copy, size, &m);
	if (size < SA_WIRE_HDR_SIZE)
		FUZZ_CHECK(r == -EBADMSG);
	if (r == 0) {
		FUZZ_CHECK(sa_wire_encode(&m, buf, sizeof(buf)) == 256);
		FUZZ_CHECK(sa_wire_decode(buf, sizeof(buf), &m2) == 0);
		FUZZ_CHECK(m.hdr.tid == m2.hdr.tid && m.comp_mask == m2.comp_mask &&
			   m.sm_key == m2.sm_key && !memcmp(m.data, m2.data, sizeof(m.data)));
		/* a record image is as long as its record: match it against the MAD's data */
		sa_wire_match(&sa_wire_portinfo_record, m.data, m.data + 100, m.comp_mask);
		sa_wire_match(&sa_wire_service_record, m.data,
			      m.data + SA_WIRE_DATA_SIZE - sa_wire_service_record.size,
			      m.comp_mask);
		sa_wire_match(&sa_wire_inform_info_record, m.data, m.data + 100, m.comp_mask);
		struct sa_wire_notice n;
		uint8_t img[SA_WIRE_NOTICE_SIZE];
		FUZZ_CHECK(sa_wire_notice_decode(m.data, sizeof(m.data), &n) == 0);
		FUZZ_CHECK(sa_wire_notice_encode(&n, img, sizeof(img)) == SA_WIRE_NOTICE_SIZE);
		FUZZ_CHECK(!memcmp(img, m.data, sizeof(img)));
	}
	if (size >= SA_WIRE_HDR_SIZE) {
		const uint8_t *rec = copy + SA_WIRE_HDR_SIZE;
		size_t rlen = size - SA_WIRE_HDR_SIZE;
		struct sa_wire_path_rec pr;
		struct sa_wire_mpath_rec mpr;
		struct sa_wire_mcm_rec mcm;
		uint8_t img[SA_WIRE_DATA_SIZE];
		int rr; /* r stays the MAD's: the server's answer depends on it */

		/* decode -> encode keeps every component (the reserved bits are zeroed) */
		rr = sa_wire_path_rec_decode(rec, rlen, &pr);
		FUZZ_CHECK(rr == (rlen < SA_WIRE_PR_SIZE ? -EBADMSG : 0));
		if (rr == 0) {
			FUZZ_CHECK(sa_wire_path_rec_encode(&pr, img, sizeof(img)) ==
				   SA_WIRE_PR_SIZE);
			FUZZ_CHECK(sa_wire_match(&sa_wire_path_record, rec, img, ~0ULL));
		}
		rr = sa_wire_mcm_rec_decode(rec, rlen, &mcm);
		FUZZ_CHECK(rr == (rlen < SA_MCM_SIZE ? -EBADMSG : 0));
		if (rr == 0) {
			FUZZ_CHECK(sa_wire_mcm_rec_encode(&mcm, img, sizeof(img)) == SA_MCM_SIZE);
			FUZZ_CHECK(sa_wire_match(&sa_wire_mcmember_record, rec, img, ~0ULL));
		}
		rr = sa_wire_mpath_rec_decode(rec, rlen, &mpr);
		FUZZ_CHECK(rr == (rlen < SA_WIRE_MPR_HDR_SIZE ? -EBADMSG : 0));
		if (rr == 0 && rlen >= SA_WIRE_DATA_SIZE) {
			FUZZ_CHECK(sa_wire_mpath_rec_encode(&mpr, img, sizeof(img)) ==
				   SA_WIRE_DATA_SIZE);
			FUZZ_CHECK(sa_wire_match(&sa_wire_multipath_record, rec, img, ~0ULL));
			FUZZ_CHECK(!memcmp(rec + SA_WIRE_MPR_HDR_SIZE, img + SA_WIRE_MPR_HDR_SIZE,
					   SA_WIRE_DATA_SIZE - SA_WIRE_MPR_HDR_SIZE));
		}
	}
	if (size >= WIRE_MAD_HDR_SIZE && wire_mad_hdr_decode(copy, size, &h) == 0) {
		ans.n = 0;
		ans.tid = h.tid;
		sa_recv(sa, &from, &h, copy, size);
		/* a request is answered; an RMPP ACK, STOP or ABORT is not (no transfer here) */
		if (r == 0 && !(m.hdr.method & WIRE_METHOD_RESP) &&
		    !(rmpp_is_active(copy, size) && m.rmpp_type != SA_RMPP_DATA &&
		      m.rmpp_type != SA_RMPP_NONE))
			FUZZ_CHECK(ans.n == 1);
		else
			FUZZ_CHECK(ans.n == 0);
	}
	free(copy);
	return 0;
}

/*
 * Fuzz target for rmpp_input (mad/rmpp.c), which reads RMPP MADs from the
 * fabric, and for the RMPP header codec.
 *
 * The input is a stream of MADs: WIRE_MAD_SIZE chunks (the last one may be
 * short), fed in turn to one context that is sending a 5-segment answer
 * (TID ANSWER_TID) to the peer the input speaks for (LID 2, QPN 1) and takes
 * the transfers that peer starts (window 4, 4 KB at most, 4 transfers).  The
 * loop never runs: timers do not fire, only input moves things.
 *
 * Properties (abort on violation):
 *  - the header codec decodes exactly from RMPP_HDR_END bytes on, encoding
 *    the result back changes no byte, decode -> encode -> decode is equal;
 *  - rmpp_input returns 0, -ENOENT or -EBADMSG; -EBADMSG for every MAD that
 *    is malformed on its face (read here with plain offsets: short, base
 *    version, class, not active, RMPP version, type, a DATA with a status or
 *    with First and SegmentNumber apart); an ACK is consumed or refused only
 *    by the answer, refused only for a status, a window below its segment or
 *    a segment never sent; a STOP or ABORT is refused only for its status;
 *    the malformed and unmatched counters move by what it returns;
 *  - what the context sends is a whole SA MAD, RMPP active, version 1, a
 *    known type with a status that type allows; DATA only for the answer, to
 *    its peer, never beyond segment 5; nothing in answer to a STOP or ABORT;
 *  - at most max_transfers held, at most max_bytes of data; a receive ends
 *    with a payload within max_payload, or with an error and no payload;
 *    the answer's done runs once at most, and once for sure by rmpp_free.
 */
#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "mad/rmpp.h"
#include "mad/wire.h"
#include "tests/fuzz/fuzz.h"

#define ANSWER_TID 0x1234
#define ANSWER_LEN 1000 /* 5 segments */
#define MAX_CHUNKS 64

static const struct rmpp_opts opts = {
    .timeout_ms = 60000,
    .retries = 1,
    .window = 4,
    .max_transfers = 4,
    .max_payload = 4096,
    .max_bytes = 8192,
};
static const struct madio_addr peer = {.slid = 2, .qpn = 1, .qkey = MADIO_GSI_QKEY};

static unsigned sends;	     /* during the current input */
static uint32_t answer_sent; /* highest segment of the answer sent */
static unsigned done_calls;

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t tid_of(const uint8_t *p)
{
	return (uint64_t)be32(p + 8) << 32 | be32(p + 12);
}

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *m, size_t len)
{
	uint8_t type = m[25], status = m[27];

	FUZZ_CHECK(len == WIRE_MAD_SIZE);
	FUZZ_CHECK(m[0] == 1 && m[1] == WIRE_CLASS_SA && m[24] == RMPP_VERSION && (m[26] & 1));
	FUZZ_CHECK(to->dlid == peer.slid && to->qpn == peer.qpn);
	switch (type) {
	case RMPP_TYPE_DATA:
		FUZZ_CHECK(tid_of(m) == ANSWER_TID && status == 0);
		FUZZ_CHECK(be32(m + 28) >= 1 && be32(m + 28) <= 5);
		if (be32(m + 28) > answer_sent)
			answer_sent = be32(m + 28);
		break;
	case RMPP_TYPE_ACK:
		FUZZ_CHECK(status == 0 && be32(m + 32) >= be32(m + 28));
		break;
	case RMPP_TYPE_STOP:
		FUZZ_CHECK(status == RMPP_STATUS_RESX);
		break;
	case RMPP_TYPE_ABORT:
		FUZZ_CHECK(status >= RMPP_STATUS_ABORT_MIN && status <= RMPP_STATUS_ABORT_MAX);
		break;
	default:
		FUZZ_CHECK(!"a known type");
	}
	sends++;
	return 0;
}

static void on_done(void *arg, int status)
{
	FUZZ_CHECK(++done_calls == 1);
}

static void on_recv(void *arg, int status, const struct madio_addr *from, const uint8_t *hdr,
		    const uint8_t *payload, size_t len)
{
	FUZZ_CHECK(hdr && from && from->slid == peer.slid);
	if (status == 0)
		FUZZ_CHECK(payload && len <= opts.max_payload);
	else
		FUZZ_CHECK(!payload && len == 0);
}

static void fuzz_codec(const uint8_t *d, size_t len)
{
	struct rmpp_hdr h, h2;
	uint8_t img[RMPP_HDR_END];
	int r = rmpp_hdr_decode(d, len, &h);

	FUZZ_CHECK((r == 0) == (len >= RMPP_HDR_END));
	if (r)
		return;
	memcpy(img, d, sizeof(img));
	FUZZ_CHECK(rmpp_hdr_encode(&h, img, sizeof(img)) == 0);
	FUZZ_CHECK(!memcmp(img, d, sizeof(img)));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(rmpp_hdr_encode(&h, img, sizeof(img)) == 0);
	FUZZ_CHECK(rmpp_hdr_decode(img, sizeof(img), &h2) == 0);
	FUZZ_CHECK(h.version == h2.version && h.type == h2.type && h.resp_time == h2.resp_time &&
		   h.flags == h2.flags && h.status == h2.status && h.data1 == h2.data1 &&
		   h.data2 == h2.data2);
}

/* Malformed whatever the context holds. */
static bool facially_bad(const uint8_t *d, size_t len)
{
	uint32_t seg;

	if (len < WIRE_MAD_SIZE || d[0] != 1 || d[1] != WIRE_CLASS_SA || !(d[26] & 1) ||
	    d[24] != RMPP_VERSION || d[25] < RMPP_TYPE_DATA || d[25] > RMPP_TYPE_ABORT)
		return true;
	if (d[25] != RMPP_TYPE_DATA)
		return false;
	seg = be32(d + 28);
	return d[27] != 0 || seg == 0 || (seg == 1) != ((d[26] & 2) != 0);
}

static bool status_ok(uint8_t type, uint8_t status)
{
	if (type == RMPP_TYPE_STOP)
		return status == RMPP_STATUS_RESX;
	return status >= RMPP_STATUS_ABORT_MIN && status <= RMPP_STATUS_ABORT_MAX;
}

static void fuzz_one(struct rmpp *r, const uint8_t *d, size_t len)
{
	struct rmpp_stats before, after;
	bool bad = facially_bad(d, len), ours = len >= 16 && tid_of(d) == ANSWER_TID;
	uint32_t sent_before = answer_sent;
	int rc;

	rmpp_get_stats(r, &before);
	sends = 0;
	rc = rmpp_input(r, &peer, d, len);
	rmpp_get_stats(r, &after);
	FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -EBADMSG);
	if (bad)
		FUZZ_CHECK(rc == -EBADMSG);
	FUZZ_CHECK(after.malformed - before.malformed == (uint64_t)(rc == -EBADMSG));
	FUZZ_CHECK(after.unmatched - before.unmatched == (uint64_t)(rc == -ENOENT));
	FUZZ_CHECK(after.active <= opts.max_transfers && after.bytes <= opts.max_bytes);
	if (len >= 26 && (d[25] == RMPP_TYPE_STOP || d[25] == RMPP_TYPE_ABORT))
		FUZZ_CHECK(sends == 0);
	if (bad || len < WIRE_MAD_SIZE)
		return;
	if (d[25] == RMPP_TYPE_ACK) {
		uint32_t seg = be32(d + 28), nwl = be32(d + 32);
		if (rc != -ENOENT)
			FUZZ_CHECK(ours && done_calls <= 1);
		if (rc == -EBADMSG)
			FUZZ_CHECK(d[27] != 0 || nwl < seg || seg > sent_before);
	} else if (d[25] != RMPP_TYPE_DATA) {
		if (rc == 0)
			FUZZ_CHECK(status_ok(d[25], d[27]));
		if (rc == -EBADMSG)
			FUZZ_CHECK(!status_ok(d[25], d[27]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct event_base *base;
	static uint8_t payload[ANSWER_LEN];
	const struct madio_dest to = {.dlid = peer.slid, .qpn = peer.qpn};
	struct wire_mad_hdr h = {
	    .base_version = 1,
	    .mgmt_class = WIRE_CLASS_SA,
	    .class_version = 2,
	    .method = 0x92,
	    .tid = ANSWER_TID,
	    .attr_id = 0x0011,
	};
	uint8_t hdr[RMPP_SA_HDR_SIZE] = {0};
	struct rmpp *r;

	if (!base && !(base = event_base_new()))
		abort();
	r = rmpp_new(base, &opts, fake_send, NULL);
	if (!r)
		abort();
	rmpp_set_receiver(r, on_recv, NULL);
	FUZZ_CHECK(wire_mad_hdr_encode(&h, hdr, sizeof(hdr)) == 0);
	answer_sent = 0;
	done_calls = 0;
	FUZZ_CHECK(rmpp_send(r, &to, hdr, payload, sizeof(payload), on_done, NULL) == 0);
	FUZZ_CHECK(answer_sent == 1 && done_calls == 0);
	for (size_t off = 0, n = 0; n < MAX_CHUNKS && (off < size || n == 0); n++) {
		size_t len = size - off < WIRE_MAD_SIZE ? size - off : WIRE_MAD_SIZE;
		uint8_t *p = malloc(len ? len : 1); /* exactly sized: ASan sees overreads */

		if (!p)
			abort();
		memcpy(p, data + off, len);
		fuzz_codec(p, len);
		fuzz_one(r, p, len);
		free(p);
		off += len;
	}
	rmpp_free(r);
	FUZZ_CHECK(done_calls == 1);
	return 0;
}

/*
 * Fuzz target for what reads any received MAD before its class's codec does:
 * the common header codec (wire_mad_hdr_decode/encode), the dispatch table
 * (mad/dispatch.c) wired as the SM wires it, and the transaction engine's
 * input (xact_input) with an SMP and a GSI request outstanding.
 *
 * Properties (abort on violation):
 *  - the header decodes exactly when the input holds one (each run on an
 *    exactly-sized heap copy), agrees with wire_mad_peek and, for SMPs,
 *    with wire_smp_decode; encoding it back over the image changes nothing,
 *    and decode -> encode -> decode gives equal structs;
 *  - dispatch_input calls exactly one handler, the one a plain reference
 *    lookup picks, or (short input) none, and its counters add up;
 *  - xact_input returns 0, -ENOENT or -EBADMSG, -EBADMSG exactly for
 *    malformed input, and completes a request only with a response of its
 *    class and attribute.
 */
#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "mad/dispatch.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "tests/fuzz/fuzz.h"

static bool hdr_eq(const struct wire_mad_hdr *a, const struct wire_mad_hdr *b)
{
	return a->base_version == b->base_version && a->mgmt_class == b->mgmt_class &&
	       a->class_version == b->class_version && a->method == b->method &&
	       a->status == b->status && a->class_specific == b->class_specific &&
	       a->tid == b->tid && a->attr_id == b->attr_id && a->attr_mod == b->attr_mod;
}

static void fuzz_hdr(const uint8_t *d, size_t len)
{
	struct wire_mad_hdr h, h2;
	struct wire_smp s;
	uint8_t img[WIRE_MAD_HDR_SIZE], cls, method;
	uint64_t tid;
	int r = wire_mad_hdr_decode(d, len, &h);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (len >= WIRE_MAD_HDR_SIZE));
	FUZZ_CHECK((wire_mad_peek(d, len, &cls, &method, &tid) == 0) == (r == 0));
	if (r)
		return;
	FUZZ_CHECK(cls == h.mgmt_class && method == h.method && tid == h.tid);
	memcpy(img, d, sizeof(img));
	FUZZ_CHECK(wire_mad_hdr_encode(&h, img, sizeof(img)) == 0);
	FUZZ_CHECK(!memcmp(img, d, sizeof(img)));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_mad_hdr_encode(&h, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_mad_hdr_decode(img, sizeof(img), &h2) == 0);
	FUZZ_CHECK(hdr_eq(&h, &h2));
	FUZZ_CHECK(wire_mad_hdr_encode(&h, img, sizeof(img) - 1) == -ENOSPC);
	if (wire_smp_decode(d, len, &s) == 0) {
		FUZZ_CHECK(s.mgmt_class == h.mgmt_class && s.method == h.method && s.tid == h.tid &&
			   s.attr_id == h.attr_id && s.attr_mod == h.attr_mod);
		if (s.mgmt_class == WIRE_CLASS_SMI_DR)
			FUZZ_CHECK(h.status == (s.status | (s.direction ? 0x8000 : 0)) &&
				   h.class_specific == (s.hop_ptr << 8 | s.hop_cnt));
		else
			FUZZ_CHECK(h.status == s.status);
	}
}

/* ---- dispatch ------------------------------------------------------------ */

enum { H_RESP, H_SMINFO, H_TRAP, H_PERF_GETRESP, H_PERF_ANY, H_DEFAULT, H_N };

static int ids[H_N]; /* handler contexts: &ids[H_...] */
static unsigned calls[H_N];

static void on_mad(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
		   const uint8_t *buf, size_t len)
{
	FUZZ_CHECK(len >= WIRE_MAD_HDR_SIZE && buf && hdr && from);
	calls[(int *)ctx - ids]++;
}

/* The handler a plain reading of the SM's table picks. */
static int reference(const struct wire_mad_hdr *h)
{
	bool smi = h->mgmt_class == WIRE_CLASS_SMI, dr = h->mgmt_class == WIRE_CLASS_SMI_DR;

	if ((smi || dr) && h->method == WIRE_GET && h->attr_id == WIRE_ATTR_SM_INFO)
		return H_SMINFO;
	if (smi && h->method == WIRE_TRAP)
		return H_TRAP;
	if (h->mgmt_class == WIRE_CLASS_PERF && h->attr_id == WIRE_ATTR_PERF_PORT_COUNTERS &&
	    h->method == WIRE_GET_RESP)
		return H_PERF_GETRESP;
	if ((smi || dr || h->mgmt_class == WIRE_CLASS_SA || h->mgmt_class == WIRE_CLASS_PERF) &&
	    (h->method & WIRE_METHOD_RESP))
		return H_RESP;
	if (h->mgmt_class == WIRE_CLASS_PERF && h->attr_id == WIRE_ATTR_PERF_PORT_COUNTERS)
		return H_PERF_ANY;
	return H_DEFAULT;
}

#define CTX(h) ((void *)&ids[h])

static void fuzz_dispatch(const uint8_t *d, size_t len)
{
	static const struct madio_addr from = {1, 1, 0, 0};
	struct dispatch *t = dispatch_new(on_mad, CTX(H_DEFAULT));
	struct dispatch_stats st;
	struct wire_mad_hdr h;
	int r, want = -1;

	if (!t)
		abort();
	/* the SM's keys, and two overlapping ones registered least specific first */
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_PERF, DISPATCH_ANY_METHOD,
				     WIRE_ATTR_PERF_PORT_COUNTERS, on_mad, CTX(H_PERF_ANY)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_PERF, WIRE_GET_RESP,
				     WIRE_ATTR_PERF_PORT_COUNTERS, on_mad,
				     CTX(H_PERF_GETRESP)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SMI, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR,
				     on_mad, CTX(H_RESP)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SMI_DR, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR,
				     on_mad, CTX(H_RESP)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SA, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR,
				     on_mad, CTX(H_RESP)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_PERF, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR,
				     on_mad, CTX(H_RESP)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, on_mad,
				     CTX(H_SMINFO)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SMI_DR, WIRE_GET, WIRE_ATTR_SM_INFO, on_mad,
				     CTX(H_SMINFO)) == 0);
	FUZZ_CHECK(dispatch_register(t, WIRE_CLASS_SMI, WIRE_TRAP, DISPATCH_ANY_ATTR, on_mad,
				     CTX(H_TRAP)) == 0);
	memset(calls, 0, sizeof(calls));
	if (wire_mad_hdr_decode(d, len, &h) == 0)
		want = reference(&h);
	r = dispatch_input(t, &from, d, len);
	FUZZ_CHECK(r == (want < 0 ? -EBADMSG : want == H_DEFAULT ? -ENOENT : 0));
	for (int i = 0; i < H_N; i++)
		FUZZ_CHECK(calls[i] == (i == want ? 1u : 0u));
	dispatch_get_stats(t, &st);
	FUZZ_CHECK(st.dispatched + st.unmatched + st.malformed == 1);
	FUZZ_CHECK((st.malformed == 1) == (want < 0));
	dispatch_free(t);
}

/* ---- xact_input ------------------------------------------------------------ */

static int sent_kind[2]; /* class and attribute of what completed */
static int completions;

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	return 0;
}

static void smp_done(void *arg, int status, const struct wire_smp *req, const struct wire_smp *resp)
{
	if (status == -ECANCELED)
		return;
	FUZZ_CHECK(resp && resp->mgmt_class == req->mgmt_class && resp->attr_id == req->attr_id);
	FUZZ_CHECK((resp->method & WIRE_METHOD_RESP) && (status == 0) == (resp->status == 0));
	completions++;
}

static void mad_done(void *arg, int status, const uint8_t *req, const struct wire_mad_hdr *hdr,
		     const uint8_t *resp, size_t len)
{
	if (status == -ECANCELED)
		return;
	FUZZ_CHECK(hdr && resp && len >= WIRE_MAD_HDR_SIZE);
	FUZZ_CHECK(hdr->mgmt_class == sent_kind[0] && hdr->attr_id == sent_kind[1]);
	FUZZ_CHECK((hdr->method & WIRE_METHOD_RESP) && (status == 0) == (hdr->status == 0));
	completions++;
}

static void fuzz_xact(const uint8_t *d, size_t len)
{
	static struct event_base *base;
	const struct xact_opts o = {.window = 1, .timeout_ms = 60000, .retries = 0};
	const struct madio_dest to = {.dlid = 2, .qpn = 1};
	struct wire_mad_hdr h = {.base_version = 1,
				 .mgmt_class = WIRE_CLASS_PERF,
				 .class_version = 1,
				 .method = WIRE_GET,
				 .attr_id = WIRE_ATTR_PERF_PORT_COUNTERS};
	uint8_t mad[WIRE_MAD_SIZE] = {0};
	const uint8_t path[2] = {0, 1};
	struct xact_engine *xe;
	struct wire_smp s;
	bool bad;
	int r;

	if (!base && !(base = event_base_new()))
		abort();
	xe = xact_new(base, &o, fake_send, NULL);
	if (!xe)
		abort();
	/* TIDs are predictable in their low 32 bits: slot 0 seq 1, slot 1 seq 2 */
	FUZZ_CHECK(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0, path, 1) == 0);
	FUZZ_CHECK(xact_submit(xe, &(struct xact_request){.smp = &s, .done = smp_done}) == 0);
	FUZZ_CHECK(wire_mad_hdr_encode(&h, mad, sizeof(mad)) == 0);
	FUZZ_CHECK(xact_submit(xe, &(struct xact_request){.lane = XACT_CONTROL,
							  .mad = mad,
							  .len = sizeof(mad),
							  .to = &to,
							  .mad_done = mad_done}) == 0);
	sent_kind[0] = WIRE_CLASS_PERF;
	sent_kind[1] = WIRE_ATTR_PERF_PORT_COUNTERS;
	completions = 0;

	bad = wire_mad_hdr_decode(d, len, &h) < 0 || h.base_version != 1;
	if (!bad && (h.mgmt_class == WIRE_CLASS_SMI || h.mgmt_class == WIRE_CLASS_SMI_DR))
		bad = wire_smp_decode(d, len, &s) < 0;
	r = xact_input(xe, d, len);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EBADMSG);
	FUZZ_CHECK((r == -EBADMSG) == bad);
	FUZZ_CHECK((r == 0) == (completions == 1));
	FUZZ_CHECK(xact_pending(xe) == (r == 0 ? 1u : 2u));
	xact_free(xe);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t cuts[] = {0, 1, 23, 24, 25, 63, 64, 255, 256};
	uint8_t *p;

	for (size_t i = 0; i <= sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t n = i < sizeof(cuts) / sizeof(cuts[0]) ? cuts[i] : size;
		if (n > size)
			continue;
		p = malloc(n ? n : 1);
		if (!p)
			abort();
		memcpy(p, data, n);
		fuzz_hdr(p, n);
		fuzz_dispatch(p, n);
		fuzz_xact(p, n);
		free(p);
	}
	return 0;
}

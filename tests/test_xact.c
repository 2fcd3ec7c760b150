/*
 * Unit tests for mad/xact.c, the SMP transaction engine, driven on a real
 * libevent loop through a fake transport.  The transport records every send
 * and, depending on the test, answers it (a GetResp built from the sent
 * bytes), drops it, delays it or holds it for the test to answer; answers
 * arrive through zero-delay events so they are asynchronous as on a fabric.
 * Every loop run is bounded by event_base_loopexit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <event2/event.h>

#include "mad/wire.h"
#include "mad/xact.h"
#include "tests/testutil.h"

#define MAX_SENDS 4096
#define MAX_REQS 2048
#define DROP_ALL 0xffffffffu

/* ---- the fake transport -------------------------------------------------- */

enum fake_mode {
	FAKE_ANSWER, /* answer every send after delay_ms */
	FAKE_HOLD,   /* record only; the test answers */
};

struct fake {
	struct event_base *base;
	struct xact_engine *xe;
	enum fake_mode mode;
	unsigned delay_ms;
	uint32_t drop_mod;   /* sends whose attr_mod is this are dropped (DROP_ALL: all) */
	unsigned drop_first; /* drop this many sends of drop_mod, then answer (0 = always) */
	uint16_t resp_status;
	int send_ret;
	bool fail_first; /* report the first attempt of each TID as failed */

	unsigned sends;
	unsigned sends_mod[MAX_REQS];
	unsigned outstanding, max_outstanding; /* answered TIDs leave */
	uint8_t sent[MAX_SENDS][WIRE_MAD_SIZE];
	struct madio_dest sent_to[MAX_SENDS];
	void (*on_send)(struct fake *fk, const struct wire_mad_hdr *h); /* after recording */

	unsigned input_ok, input_enoent, input_ebadmsg, input_other;
};

struct delivery {
	struct fake *fk;
	uint8_t buf[WIRE_MAD_SIZE];
	size_t len;
	bool send_failed;
	uint64_t tid;
};

static void deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	struct delivery *d = arg;
	struct fake *fk = d->fk;
	int rc;

	if (d->send_failed) {
		xact_send_failed(fk->xe, d->tid);
		free(d);
		return;
	}
	if (fk->outstanding)
		fk->outstanding--;
	rc = xact_input(fk->xe, d->buf, d->len);
	if (rc == 0)
		fk->input_ok++;
	else if (rc == -ENOENT)
		fk->input_enoent++;
	else if (rc == -EBADMSG)
		fk->input_ebadmsg++;
	else
		fk->input_other++;
	free(d);
}

static void schedule(struct fake *fk, struct delivery *d, unsigned delay_ms)
{
	struct timeval tv = {delay_ms / 1000, (delay_ms % 1000) * 1000};

	d->fk = fk;
	CU_ASSERT_FATAL(event_base_once(fk->base, -1, EV_TIMEOUT, deliver_cb, d, &tv) == 0);
}

/*
 * The GetResp a well-behaved agent would send for the request in mad, with
 * the request's attr_mod echoed in data[0..3] (byte 64 on: the SMP data, and
 * the PerfMgt data after its reserved bytes).
 */
static void make_response(const uint8_t *mad, uint16_t status, uint8_t *out)
{
	struct wire_mad_hdr h;
	struct wire_smp s;

	CU_ASSERT_FATAL(wire_mad_hdr_decode(mad, WIRE_MAD_SIZE, &h) == 0);
	if (h.mgmt_class != WIRE_CLASS_SMI && h.mgmt_class != WIRE_CLASS_SMI_DR) {
		memcpy(out, mad, WIRE_MAD_SIZE);
		h.method = WIRE_GET_RESP;
		h.status = status;
		CU_ASSERT_FATAL(wire_mad_hdr_encode(&h, out, WIRE_MAD_SIZE) == 0);
		out[64] = (uint8_t)(h.attr_mod >> 24);
		out[65] = (uint8_t)(h.attr_mod >> 16);
		out[66] = (uint8_t)(h.attr_mod >> 8);
		out[67] = (uint8_t)h.attr_mod;
		return;
	}
	CU_ASSERT_FATAL(wire_smp_decode(mad, WIRE_MAD_SIZE, &s) == 0);
	s.method = WIRE_GET_RESP;
	s.status = status;
	if (s.mgmt_class == WIRE_CLASS_SMI_DR) {
		s.direction = true;
		s.hop_ptr = s.hop_cnt;
	}
	/* echo attr_mod in the data so the callback can tell answers apart */
	s.data[0] = (uint8_t)(s.attr_mod >> 24);
	s.data[1] = (uint8_t)(s.attr_mod >> 16);
	s.data[2] = (uint8_t)(s.attr_mod >> 8);
	s.data[3] = (uint8_t)s.attr_mod;
	CU_ASSERT_FATAL(wire_smp_encode(&s, out, WIRE_MAD_SIZE) == WIRE_MAD_SIZE);
}

static void answer(struct fake *fk, const uint8_t *mad, uint16_t status, unsigned delay_ms)
{
	struct delivery *d = calloc(1, sizeof(*d));

	CU_ASSERT_FATAL(d != NULL);
	make_response(mad, status, d->buf);
	d->len = WIRE_MAD_SIZE;
	schedule(fk, d, delay_ms);
}

static void report_send_failed(struct fake *fk, uint64_t tid)
{
	struct delivery *d = calloc(1, sizeof(*d));

	CU_ASSERT_FATAL(d != NULL);
	d->send_failed = true;
	d->tid = tid;
	schedule(fk, d, 0);
}

static bool tid_sent_before(const struct fake *fk, uint64_t tid)
{
	for (unsigned i = 0; i + 1 < fk->sends; i++) {
		struct wire_mad_hdr h;
		if (wire_mad_hdr_decode(fk->sent[i], WIRE_MAD_SIZE, &h) == 0 && h.tid == tid)
			return true;
	}
	return false;
}

static int fake_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		     unsigned timeout_ms)
{
	struct fake *fk = ctx;
	struct wire_mad_hdr h;
	struct wire_smp s;
	bool first;

	CU_ASSERT_EQUAL(len, WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(fk->sends < MAX_SENDS);
	memcpy(fk->sent[fk->sends], mad, WIRE_MAD_SIZE);
	fk->sent_to[fk->sends++] = *to;
	CU_ASSERT_FATAL(wire_mad_hdr_decode(mad, len, &h) == 0);
	if (h.mgmt_class == WIRE_CLASS_SMI || h.mgmt_class == WIRE_CLASS_SMI_DR)
		CU_ASSERT_FATAL(wire_smp_decode(mad, len, &s) == 0);
	CU_ASSERT(!(h.method & 0x80)); /* requests only */
	if (h.attr_mod < MAX_REQS)
		fk->sends_mod[h.attr_mod]++;
	first = !tid_sent_before(fk, h.tid);
	if (first && ++fk->outstanding > fk->max_outstanding)
		fk->max_outstanding = fk->outstanding;
	if (fk->on_send)
		fk->on_send(fk, &h);
	if (fk->send_ret)
		return fk->send_ret;
	if (fk->fail_first && first) {
		report_send_failed(fk, h.tid);
		return 0;
	}
	if (fk->mode == FAKE_HOLD)
		return 0;
	if (fk->drop_mod == DROP_ALL || h.attr_mod == fk->drop_mod) {
		if (!fk->drop_first || fk->sends_mod[h.attr_mod] <= fk->drop_first)
			return 0;
	}
	answer(fk, mad, fk->resp_status, fk->delay_ms);
	return 0;
}

static struct fake *fake_new(const struct xact_opts *opts)
{
	struct fake *fk = calloc(1, sizeof(*fk));

	CU_ASSERT_FATAL(fk != NULL);
	fk->base = event_base_new();
	CU_ASSERT_FATAL(fk->base != NULL);
	fk->drop_mod = DROP_ALL - 1; /* no drops */
	fk->xe = xact_new(fk->base, opts, fake_send, fk);
	CU_ASSERT_FATAL(fk->xe != NULL);
	return fk;
}

static void fake_free(struct fake *fk)
{
	xact_free(fk->xe);
	event_base_free(fk->base);
	free(fk);
}

/* A witness timer's callback: it sets the bool it was given. */
static void witness_cb(evutil_socket_t fd, short what, void *arg)
{
	*(bool *)arg = true;
}

/* Run the loop until it has nothing left or ms pass. */
static void run(struct fake *fk, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_base_loopexit(fk->base, &tv);
	event_base_dispatch(fk->base);
}

/* ---- submitting: the five calls of old, as requests ------------------------ */

/* retries < 0: the engine's (tries 0), else retries + 1 attempts. */
static unsigned tries_of(int retries)
{
	return retries < 0 ? 0 : (unsigned)retries + 1;
}

static int t_submit_timed(struct xact_engine *xe, enum xact_lane lane, const struct wire_smp *s,
			  unsigned timeout_ms, int retries, xact_done_fn done, void *arg)
{
	return xact_submit(xe, &(struct xact_request){.lane = lane,
						      .smp = s,
						      .done = done,
						      .arg = arg,
						      .timeout_ms = timeout_ms,
						      .tries = tries_of(retries)});
}

static int t_submit_lane(struct xact_engine *xe, enum xact_lane lane, const struct wire_smp *s,
			 xact_done_fn done, void *arg)
{
	return t_submit_timed(xe, lane, s, 0, -1, done, arg);
}

static int t_submit(struct xact_engine *xe, const struct wire_smp *s, xact_done_fn done, void *arg)
{
	return t_submit_lane(xe, XACT_BULK, s, done, arg);
}

static int t_submit_mad_timed(struct xact_engine *xe, enum xact_lane lane,
			      const struct madio_dest *to, const uint8_t *mad, size_t len,
			      unsigned timeout_ms, int retries, xact_mad_done_fn done, void *arg)
{
	return xact_submit(xe, &(struct xact_request){.lane = lane,
						      .mad = mad,
						      .len = len,
						      .to = to,
						      .mad_done = done,
						      .arg = arg,
						      .timeout_ms = timeout_ms,
						      .tries = tries_of(retries)});
}

static int t_submit_mad(struct xact_engine *xe, enum xact_lane lane, const struct madio_dest *to,
			const uint8_t *mad, size_t len, xact_mad_done_fn done, void *arg)
{
	return t_submit_mad_timed(xe, lane, to, mad, len, 0, -1, done, arg);
}

/* ---- completions -------------------------------------------------------- */

struct done_rec {
	unsigned calls;
	int status;
	bool had_resp;
	uint16_t resp_status;
	uint32_t resp_tag; /* data[0..3] of the response */
	uint32_t req_mod;
	uint64_t req_tid, resp_tid;
	unsigned order; /* completion order */
	/* addressed requests (on_mad_done) */
	uint8_t resp_class;
	uint16_t resp_attr;
	size_t resp_len;
	bool req_null;
};

struct done_log {
	struct fake *fk;
	struct done_rec rec[MAX_REQS];
	unsigned completed;
	unsigned stop_at; /* loopbreak when completed reaches this */
};

struct done_arg {
	struct done_log *log;
	unsigned idx;
};

static struct done_arg args[MAX_REQS];

static void on_done(void *arg, int status, const struct wire_smp *req, const struct wire_smp *resp)
{
	struct done_arg *a = arg;
	struct done_log *log = a->log;
	struct done_rec *r = &log->rec[a->idx];

	r->calls++;
	r->status = status;
	r->had_resp = resp != NULL;
	r->req_mod = req->attr_mod;
	r->req_tid = req->tid;
	if (resp) {
		r->resp_status = resp->status;
		r->resp_tid = resp->tid;
		r->resp_tag = (uint32_t)resp->data[0] << 24 | (uint32_t)resp->data[1] << 16 |
			      (uint32_t)resp->data[2] << 8 | resp->data[3];
	}
	r->order = log->completed++;
	if (log->stop_at && log->completed >= log->stop_at)
		event_base_loopbreak(log->fk->base);
}

static void on_mad_done(void *arg, int status, const uint8_t *req, const struct wire_mad_hdr *hdr,
			const uint8_t *resp, size_t len)
{
	struct done_arg *a = arg;
	struct done_log *log = a->log;
	struct done_rec *r = &log->rec[a->idx];
	struct wire_mad_hdr rh;

	r->calls++;
	r->status = status;
	r->had_resp = resp != NULL;
	r->req_null = req == NULL;
	if (req) {
		CU_ASSERT_FATAL(wire_mad_hdr_decode(req, WIRE_MAD_SIZE, &rh) == 0);
		r->req_mod = rh.attr_mod;
		r->req_tid = rh.tid;
	}
	CU_ASSERT_EQUAL(hdr == NULL, resp == NULL);
	if (resp && hdr) {
		CU_ASSERT_FATAL(len >= WIRE_MAD_HDR_SIZE);
		r->resp_status = hdr->status;
		r->resp_tid = hdr->tid;
		r->resp_class = hdr->mgmt_class;
		r->resp_attr = hdr->attr_id;
		r->resp_len = len;
		if (len >= 68)
			r->resp_tag = (uint32_t)resp[64] << 24 | (uint32_t)resp[65] << 16 |
				      (uint32_t)resp[66] << 8 | resp[67];
	} else {
		CU_ASSERT_EQUAL(len, 0);
	}
	r->order = log->completed++;
	if (log->stop_at && log->completed >= log->stop_at)
		event_base_loopbreak(log->fk->base);
}

static struct done_log *log_new(struct fake *fk, unsigned stop_at)
{
	struct done_log *log = calloc(1, sizeof(*log));

	CU_ASSERT_FATAL(log != NULL);
	log->fk = fk;
	log->stop_at = stop_at;
	return log;
}

/* Submit request i: attr_mod i tells it apart; DR on odd i when mixed. */
static void submit(struct fake *fk, struct done_log *log, unsigned i, bool dr)
{
	struct wire_smp s;
	const uint8_t path[4] = {0, 1, 2, 3};

	if (dr) {
		CU_ASSERT_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, i, path, 3) ==
				0);
	} else {
		wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, i);
	}
	args[i].log = log;
	args[i].idx = i;
	CU_ASSERT_EQUAL_FATAL(t_submit(fk->xe, &s, on_done, &args[i]), 0);
}

/* Submit request i as a DR Get(NodeInfo) on a lane. */
static void submit_lane(struct fake *fk, struct done_log *log, unsigned i, enum xact_lane lane)
{
	struct wire_smp s;
	const uint8_t path[3] = {0, 1, 2};

	CU_ASSERT_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, i, path, 2) == 0);
	args[i].log = log;
	args[i].idx = i;
	CU_ASSERT_EQUAL_FATAL(t_submit_lane(fk->xe, lane, &s, on_done, &args[i]), 0);
}

/* A GSI request: PerfMgt Get(PortCounters), or an SA Get; attr_mod i tells it apart. */
static void make_gsi(uint8_t *mad, uint8_t mgmt_class, uint16_t attr_id, uint32_t i)
{
	struct wire_mad_hdr h = {
	    .base_version = 1,
	    .mgmt_class = mgmt_class,
	    .class_version = mgmt_class == WIRE_CLASS_SA ? 2 : 1,
	    .method = WIRE_GET,
	    .tid = 0xdeadbeef, /* the engine's to replace */
	    .attr_id = attr_id,
	    .attr_mod = i,
	};

	memset(mad, 0, WIRE_MAD_SIZE);
	CU_ASSERT_FATAL(wire_mad_hdr_encode(&h, mad, WIRE_MAD_SIZE) == 0);
	mad[64 + 2] = 0xab; /* PortCounters.PortSelect etc.: must go out as given */
	mad[255] = 0xcd;
}

static void submit_gsi(struct fake *fk, struct done_log *log, unsigned i, enum xact_lane lane,
		       const struct madio_dest *to)
{
	uint8_t mad[WIRE_MAD_SIZE];

	make_gsi(mad, WIRE_CLASS_PERF, WIRE_ATTR_PERF_PORT_COUNTERS, i);
	args[i].log = log;
	args[i].idx = i;
	CU_ASSERT_EQUAL_FATAL(
	    t_submit_mad(fk->xe, lane, to, mad, sizeof(mad), on_mad_done, &args[i]), 0);
}

/* A LID-routed Get(PortInfo) as raw bytes (xact_request.mad). */
static void submit_lid_smp(struct fake *fk, struct done_log *log, unsigned i, uint16_t dlid)
{
	const struct madio_dest to = {.dlid = dlid};
	uint8_t mad[WIRE_MAD_SIZE];
	struct wire_smp s;

	wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, i);
	CU_ASSERT_FATAL(wire_smp_encode(&s, mad, sizeof(mad)) == WIRE_MAD_SIZE);
	args[i].log = log;
	args[i].idx = i;
	CU_ASSERT_EQUAL_FATAL(
	    t_submit_mad(fk->xe, XACT_BULK, &to, mad, sizeof(mad), on_mad_done, &args[i]), 0);
}

/* Index of the send that carried attr_mod i first, or -1. */
static int send_of(const struct fake *fk, uint32_t i)
{
	for (unsigned k = 0; k < fk->sends; k++) {
		struct wire_mad_hdr h;
		if (wire_mad_hdr_decode(fk->sent[k], WIRE_MAD_SIZE, &h) == 0 && h.attr_mod == i)
			return (int)k;
	}
	return -1;
}

/* attr_mod of send k. */
static uint32_t mod_of(const struct fake *fk, unsigned k)
{
	struct wire_mad_hdr h;

	CU_ASSERT_FATAL(k < fk->sends);
	CU_ASSERT_FATAL(wire_mad_hdr_decode(fk->sent[k], WIRE_MAD_SIZE, &h) == 0);
	return h.attr_mod;
}

/* Answer send k now (synchronously); returns xact_input's code. */
static int answer_now(struct fake *fk, unsigned k, uint16_t status)
{
	uint8_t resp[WIRE_MAD_SIZE];

	CU_ASSERT_FATAL(k < fk->sends);
	make_response(fk->sent[k], status, resp);
	return xact_input(fk->xe, resp, sizeof(resp));
}

/* ---- tests -------------------------------------------------------------- */

static void test_new_bad_opts(void)
{
	struct event_base *base = event_base_new();
	struct xact_opts o = {.window = 0, .timeout_ms = 10, .retries = 1};
	struct fake dummy;

	CU_ASSERT_FATAL(base != NULL);
	CU_ASSERT_PTR_NULL(xact_new(base, &o, fake_send, &dummy));
	o.window = 1025;
	CU_ASSERT_PTR_NULL(xact_new(base, &o, fake_send, &dummy));
	o.window = 4;
	CU_ASSERT_PTR_NULL(xact_new(NULL, &o, fake_send, &dummy));
	CU_ASSERT_PTR_NULL(xact_new(base, NULL, fake_send, &dummy));
	CU_ASSERT_PTR_NULL(xact_new(base, &o, NULL, &dummy));
	o.window = 1024;
	struct xact_engine *xe = xact_new(base, &o, fake_send, &dummy);
	CU_ASSERT_PTR_NOT_NULL(xe);
	xact_free(xe);
	xact_free(NULL);
	event_base_free(base);
}

static void test_submit_invalid(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 1000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct wire_smp s;

	wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0);
	s.mgmt_class = WIRE_CLASS_SA;
	args[0].log = log;
	CU_ASSERT_EQUAL(t_submit(fk->xe, &s, on_done, &args[0]), -EINVAL);
	CU_ASSERT_EQUAL(t_submit(fk->xe, NULL, on_done, &args[0]), -EINVAL);
	CU_ASSERT_EQUAL(t_submit(NULL, &s, on_done, &args[0]), -EINVAL);
	CU_ASSERT_EQUAL(fk->sends, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	fake_free(fk);
	CU_ASSERT_EQUAL(log->rec[0].calls, 0);
	free(log);
}

/* Held requests answered in reverse order complete their own callbacks. */
static void test_out_of_order(void)
{
	struct xact_opts o = {.window = 16, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 10);
	struct xact_stats st;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 10; i++)
		submit(fk, log, i, i % 2);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 10);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 10);
	/* TIDs are distinct */
	for (unsigned i = 0; i < 10; i++)
		for (unsigned j = i + 1; j < 10; j++)
			CU_ASSERT(memcmp(fk->sent[i] + 8, fk->sent[j] + 8, 8) != 0);
	for (unsigned i = 10; i-- > 0;)
		answer(fk, fk->sent[i], 0, 2 * (9 - i));
	run(fk, 2000);
	CU_ASSERT_EQUAL(log->completed, 10);
	for (unsigned i = 0; i < 10; i++) {
		struct done_rec *r = &log->rec[i];
		CU_ASSERT_EQUAL(r->calls, 1);
		CU_ASSERT_EQUAL(r->status, 0);
		CU_ASSERT(r->had_resp);
		CU_ASSERT_EQUAL(r->req_mod, i);
		CU_ASSERT_EQUAL(r->resp_tag, i);
		CU_ASSERT_EQUAL(r->resp_tid, r->req_tid);
		CU_ASSERT_EQUAL(r->resp_status, 0); /* the DR D bit is not a status */
		CU_ASSERT_EQUAL(r->order, 9 - i);
	}
	CU_ASSERT_EQUAL(fk->input_ok, 10);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.submitted, 10);
	CU_ASSERT_EQUAL(st.sent, 10);
	CU_ASSERT_EQUAL(st.completed, 10);
	CU_ASSERT_EQUAL(st.received, 10);
	CU_ASSERT_EQUAL(st.remote_errors, 0);
	CU_ASSERT_EQUAL(st.outstanding, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	fake_free(fk);
	free(log);
}

/* The TID's high bits may be rewritten by the kernel; the low 32 match. */
static void test_tid_high_rewritten(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	uint8_t resp[WIRE_MAD_SIZE];

	fk->mode = FAKE_HOLD;
	submit(fk, log, 0, false);
	make_response(fk->sent[0], 0, resp);
	resp[8] ^= 0x5a; /* TID bytes 8..11 */
	resp[11] ^= 0x01;
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, sizeof(resp)), 0);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	fake_free(fk);
	free(log);
}

/* 1000 requests through a window of 16. */
static void test_window(void)
{
	struct xact_opts o = {.window = 16, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1000);
	struct xact_stats st;
	size_t full;

	for (unsigned i = 0; i < 1000; i++)
		submit(fk, log, i, i % 3 == 0);
	CU_ASSERT_EQUAL(fk->sends, 16); /* the rest waits */
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.outstanding, 16);
	CU_ASSERT_EQUAL(st.queued, 1000 - 16);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 1000);
	full = xact_mem(fk->xe); /* 984 waiting, in chunks */
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 1000);
	/* the chunks go back as the queue drains: one spare is kept */
	CU_ASSERT(xact_mem(fk->xe) < full / 4);
	CU_ASSERT_EQUAL(fk->sends, 1000);
	CU_ASSERT(fk->max_outstanding <= 16);
	CU_ASSERT_EQUAL(fk->max_outstanding, 16);
	for (unsigned i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT(st.max_outstanding <= 16);
	CU_ASSERT_EQUAL(st.submitted, 1000);
	CU_ASSERT_EQUAL(st.sent, 1000);
	CU_ASSERT_EQUAL(st.completed, 1000);
	CU_ASSERT_EQUAL(st.received, 1000);
	CU_ASSERT_EQUAL(st.retries, 0);
	CU_ASSERT_EQUAL(st.queued, 0);
	CU_ASSERT_EQUAL(st.outstanding, 0);
	fake_free(fk);
	free(log);
}

/* A request that is never answered: 1 + retries sends, then -ETIMEDOUT. */
static void test_timeout_retries(void)
{
	struct xact_opts o = {.window = 1, .timeout_ms = 20, .retries = 3};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 3);
	struct xact_stats st;
	double t0;

	fk->drop_mod = 0;
	submit(fk, log, 0, true);
	submit(fk, log, 1, false); /* waits behind the dropped one */
	submit(fk, log, 2, true);
	CU_ASSERT_EQUAL(fk->sends, 1);
	t0 = testutil_now_ms();
	run(fk, 3000);
	CU_ASSERT_EQUAL(log->completed, 3);
	CU_ASSERT_EQUAL(fk->sends_mod[0], 4);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, -ETIMEDOUT);
	CU_ASSERT_FALSE(log->rec[0].had_resp);
	CU_ASSERT_EQUAL(log->rec[0].order, 0);
	/* each attempt waited its timeout (a lower bound: a busy machine only lengthens it) */
	CU_ASSERT(testutil_now_ms() - t0 >= 4 * 20 - 5);
	/* later requests still go out, once each */
	for (unsigned i = 1; i < 3; i++) {
		CU_ASSERT_EQUAL(fk->sends_mod[i], 1);
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	}
	/* every attempt carries the same TID */
	for (unsigned i = 1; i < 4; i++)
		CU_ASSERT(memcmp(fk->sent[0], fk->sent[i], WIRE_MAD_SIZE) == 0);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	CU_ASSERT_EQUAL(st.retries, 3);
	CU_ASSERT_EQUAL(st.sent, 6);
	CU_ASSERT_EQUAL(st.completed, 3);

	/* retries changed at run time apply to new requests */
	xact_set_opts(fk->xe, 10, 1);
	memset(fk->sends_mod, 0, sizeof(fk->sends_mod));
	fk->drop_mod = 5;
	log->stop_at = 4;
	submit(fk, log, 5, false);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[5], 2);
	CU_ASSERT_EQUAL(log->rec[5].calls, 1);
	CU_ASSERT_EQUAL(log->rec[5].status, -ETIMEDOUT);

	/* retries 0: one send only */
	xact_set_opts(fk->xe, 10, 0);
	fk->drop_mod = 6;
	log->stop_at = 5;
	submit(fk, log, 6, true);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[6], 1);
	CU_ASSERT_EQUAL(log->rec[6].status, -ETIMEDOUT);
	fake_free(fk);
	free(log);
}

/*
 * A request with its own timeout and retries (an SMInfo poll): it fails
 * after its one attempt of 30 ms while the engine's are 500 ms x 3, and the
 * engine's stay in force for the others; out-of-range values are refused.
 * That it was its own 30 ms and not the engine's 500 is shown by a witness
 * timer of 250 ms armed after it, not by a clock: the loop runs timers in
 * the order they are due, however late it gets to them.
 */
static void test_timed_submit(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 500, .retries = 3};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	const uint8_t path[2] = {0, 1};
	struct timeval quarter = {0, 250 * 1000};
	bool witnessed = false;
	struct event *witness = evtimer_new(fk->base, witness_cb, &witnessed);
	struct wire_smp s;
	double t0;

	CU_ASSERT_FATAL(witness != NULL);

	CU_ASSERT_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_SM_INFO, 7, path, 1) == 0);
	CU_ASSERT_EQUAL(
	    t_submit_timed(fk->xe, XACT_CONTROL, &s, XACT_TIMEOUT_MAX_MS + 1, 0, on_done, NULL),
	    -EINVAL);
	CU_ASSERT_EQUAL(
	    t_submit_timed(fk->xe, XACT_CONTROL, &s, 30, XACT_RETRIES_MAX + 1, on_done, NULL),
	    -EINVAL);
	fk->drop_mod = 7;
	args[7].log = log;
	args[7].idx = 7;
	t0 = testutil_now_ms();
	CU_ASSERT_EQUAL_FATAL(t_submit_timed(fk->xe, XACT_CONTROL, &s, 30, 0, on_done, &args[7]),
			      0);
	CU_ASSERT_FATAL(evtimer_add(witness, &quarter) == 0);
	run(fk, 3000);
	CU_ASSERT_EQUAL(log->rec[7].calls, 1);
	CU_ASSERT_EQUAL(log->rec[7].status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(fk->sends_mod[7], 1);
	CU_ASSERT_FALSE(witnessed); /* done before the 250 ms witness: not the engine's 500 */
	CU_ASSERT(testutil_now_ms() - t0 >= 25); /* a lower bound: load only lengthens it */
	event_free(witness);
	/* one retry of its own: two sends */
	s.attr_mod = 8;
	fk->drop_mod = 8;
	args[8].log = log;
	args[8].idx = 8;
	log->stop_at = 2;
	CU_ASSERT_EQUAL_FATAL(t_submit_timed(fk->xe, XACT_BULK, &s, 20, 1, on_done, &args[8]), 0);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[8], 2);
	CU_ASSERT_EQUAL(log->rec[8].status, -ETIMEDOUT);
	/* defaults (0, -1) are the engine's: answered requests are unaffected */
	fk->drop_mod = DROP_ALL - 1;
	s.attr_mod = 9;
	args[9].log = log;
	args[9].idx = 9;
	log->stop_at = 3;
	CU_ASSERT_EQUAL_FATAL(t_submit_timed(fk->xe, XACT_BULK, &s, 0, -1, on_done, &args[9]), 0);
	run(fk, 3000);
	CU_ASSERT_EQUAL(log->rec[9].status, 0);
	fake_free(fk);
	free(log);
}

/* A request answered on its retry completes with status 0. */
static void test_answered_on_retry(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 20, .retries = 3};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	struct xact_stats st;

	fk->drop_mod = 0;
	fk->drop_first = 2;
	submit(fk, log, 0, true);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[0], 3);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.retries, 2);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	fake_free(fk);
	free(log);
}

/* Answers slower than the timeout: the first completes, the second is late. */
static void test_late_duplicate(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 20, .retries = 3};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct xact_stats st;

	fk->delay_ms = 30;
	submit(fk, log, 0, false);
	run(fk, 300);
	CU_ASSERT(fk->sends >= 2);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	CU_ASSERT_EQUAL(fk->input_ok, 1);
	CU_ASSERT_EQUAL(fk->input_enoent, fk->sends - 1);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.completed, 1);
	CU_ASSERT_EQUAL(st.unmatched, fk->sends - 1);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	fake_free(fk);
	free(log);
}

/* A stale answer for a slot's previous request does not complete the next. */
static void test_stale_answer_reused_slot(void)
{
	struct xact_opts o = {.window = 1, .timeout_ms = 10, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	uint8_t stale[WIRE_MAD_SIZE];

	fk->mode = FAKE_HOLD;
	submit(fk, log, 0, false);
	run(fk, 2000);
	CU_ASSERT_EQUAL(log->rec[0].status, -ETIMEDOUT);
	submit(fk, log, 1, false); /* takes the same slot */
	CU_ASSERT_EQUAL_FATAL(fk->sends, 2);
	make_response(fk->sent[0], 0, stale);
	CU_ASSERT_EQUAL(xact_input(fk->xe, stale, sizeof(stale)), -ENOENT);
	CU_ASSERT_EQUAL(log->rec[1].calls, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 1);
	make_response(fk->sent[1], 0, stale);
	CU_ASSERT_EQUAL(xact_input(fk->xe, stale, sizeof(stale)), 0);
	CU_ASSERT_EQUAL(log->rec[1].calls, 1);
	CU_ASSERT_EQUAL(log->rec[1].status, 0);
	CU_ASSERT_EQUAL(log->rec[1].resp_tag, 1);
	fake_free(fk);
	free(log);
}

/* xact_send_failed retries at once instead of waiting for the timer. */
static void test_send_failed(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 2};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 2);
	struct xact_stats st;

	/* done within run's 3 s, below the 5 s timeout: the retry did not wait for the timer */
	fk->fail_first = true;
	submit(fk, log, 0, true);
	submit(fk, log, 1, false);
	run(fk, 3000);
	CU_ASSERT_EQUAL(log->completed, 2);
	for (unsigned i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(fk->sends_mod[i], 2);
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.retries, 2);
	CU_ASSERT_EQUAL(st.sent, 4);
	CU_ASSERT_EQUAL(xact_send_failed(fk->xe, 0x12345), -ENOENT);
	CU_ASSERT_EQUAL(xact_send_failed(fk->xe, 0), -ENOENT);

	/* with no retries left, a send failure ends the request now */
	xact_set_opts(fk->xe, 5000, 0);
	log->stop_at = 3;
	submit(fk, log, 2, false);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[2], 1);
	CU_ASSERT_EQUAL(log->rec[2].calls, 1);
	CU_ASSERT_EQUAL(log->rec[2].status, -ETIMEDOUT);
	fake_free(fk);
	free(log);
}

/* The transport refusing a send counts, and the timer still retries it. */
static void test_send_error(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 10, .retries = 2};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	struct xact_stats st;

	fk->send_ret = -EIO;
	submit(fk, log, 0, false);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends, 3);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, -ETIMEDOUT);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.send_errors, 3);
	fake_free(fk);
	free(log);
}

static void test_remote_error(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 2};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 2);
	struct xact_stats st;

	fk->resp_status = 0x000c; /* unsupported method/attribute */
	submit(fk, log, 0, false);
	submit(fk, log, 1, true);
	run(fk, 3000);
	for (unsigned i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -EREMOTEIO);
		CU_ASSERT(log->rec[i].had_resp);
		CU_ASSERT_EQUAL(log->rec[i].resp_status, 0x000c);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
		CU_ASSERT_EQUAL(fk->sends_mod[i], 1); /* an error answer is not retried */
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.remote_errors, 2);
	CU_ASSERT_EQUAL(st.completed, 2);
	fake_free(fk);
	free(log);
}

static void test_bad_input(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct xact_stats st;
	uint8_t resp[WIRE_MAD_SIZE], bad[WIRE_MAD_SIZE];

	fk->mode = FAKE_HOLD;
	submit(fk, log, 0, false);
	submit(fk, log, 1, true);
	make_response(fk->sent[0], 0, resp);

	/* truncated at a few lengths, and empty */
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, 0), -EBADMSG);
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, 24), -EBADMSG);
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, WIRE_MAD_SIZE - 1), -EBADMSG);
	CU_ASSERT_EQUAL(xact_input(fk->xe, NULL, WIRE_MAD_SIZE), -EBADMSG);
	/* bad base version */
	memcpy(bad, resp, sizeof(bad));
	bad[0] = 2;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -EBADMSG);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.malformed, 5);
	CU_ASSERT_EQUAL(st.received, 0);

	/* right TID, a GSI class (SA, PerfMgt) for an SMP request */
	memcpy(bad, resp, sizeof(bad));
	bad[1] = WIRE_CLASS_SA;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	bad[1] = WIRE_CLASS_PERF;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);

	/* an unknown TID */
	memcpy(bad, resp, sizeof(bad));
	bad[15] ^= 0xff;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* the request itself echoed back (no R bit) */
	CU_ASSERT_EQUAL(xact_input(fk->xe, fk->sent[0], WIRE_MAD_SIZE), -ENOENT);
	/* right TID, other attribute */
	memcpy(bad, resp, sizeof(bad));
	bad[17] = (uint8_t)WIRE_ATTR_SM_INFO;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* right TID, DR class for a LID-routed request */
	memcpy(bad, resp, sizeof(bad));
	bad[1] = WIRE_CLASS_SMI_DR;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.unmatched, 6);
	CU_ASSERT_EQUAL(st.malformed, 5);
	CU_ASSERT_EQUAL(st.completed, 0);
	CU_ASSERT_EQUAL(log->rec[0].calls, 0);
	CU_ASSERT_EQUAL(log->rec[1].calls, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 2);

	/* the real answers still complete */
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, sizeof(resp)), 0);
	make_response(fk->sent[1], 0, resp);
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, sizeof(resp)), 0);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	CU_ASSERT_EQUAL(log->rec[1].status, 0);
	/* and a second copy is unmatched */
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, sizeof(resp)), -ENOENT);
	CU_ASSERT_EQUAL(log->rec[1].calls, 1);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.unmatched, 7);
	fake_free(fk);
	free(log);
}

/* Completions that submit more requests. */
static struct {
	struct fake *fk;
	struct done_log *log;
	unsigned next;
	unsigned limit;
} chain;

static void on_done_chain(void *arg, int status, const struct wire_smp *req,
			  const struct wire_smp *resp)
{
	on_done(arg, status, req, resp);
	for (int k = 0; k < 2 && chain.next < chain.limit; k++) {
		struct wire_smp s;
		unsigned i = chain.next++;
		wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, i);
		args[i].log = chain.log;
		args[i].idx = i;
		CU_ASSERT_EQUAL(t_submit(chain.fk->xe, &s, on_done_chain, &args[i]), 0);
	}
}

static void test_reentrant_submit(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 500);
	struct xact_stats st;
	struct wire_smp s;

	chain.fk = fk;
	chain.log = log;
	chain.next = 1;
	chain.limit = 500;
	wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, 0);
	args[0].log = log;
	args[0].idx = 0;
	CU_ASSERT_EQUAL_FATAL(t_submit(fk->xe, &s, on_done_chain, &args[0]), 0);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 500);
	CU_ASSERT_EQUAL(fk->sends, 500);
	for (unsigned i = 0; i < 500; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT(st.max_outstanding <= 4);
	CU_ASSERT(fk->max_outstanding <= 4);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	fake_free(fk);
	free(log);
}

/* xact_free cancels outstanding and queued requests, each exactly once. */
static void test_free_cancels(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 20, .retries = 5};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct event_base *base = fk->base;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 10; i++)
		submit(fk, log, i, i % 2);
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 10);
	xact_free(fk->xe);
	fk->xe = NULL;
	CU_ASSERT_EQUAL(log->completed, 10);
	for (unsigned i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
		CU_ASSERT_FALSE(log->rec[i].had_resp);
		CU_ASSERT_EQUAL(log->rec[i].req_mod, i);
	}
	CU_ASSERT_EQUAL(fk->sends, 4); /* the queued ones never went out */
	/* no timer of the engine is left on the loop */
	CU_ASSERT_EQUAL(event_base_get_num_events(base, EVENT_BASE_COUNT_ADDED), 0);
	run(fk, 50);
	CU_ASSERT_EQUAL(log->completed, 10);
	fake_free(fk);
	free(log);
}

/* xact_cancel_all leaves a working engine. */
static void test_cancel_all(void)
{
	struct xact_opts o = {.window = 2, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 5; i++)
		submit(fk, log, i, false);
	xact_cancel_all(fk->xe);
	CU_ASSERT_EQUAL(log->completed, 5);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	CU_ASSERT_EQUAL(fk->sends, 2);
	for (unsigned i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
	}
	/* a late answer to a cancelled request is unmatched */
	uint8_t resp[WIRE_MAD_SIZE];
	make_response(fk->sent[0], 0, resp);
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, sizeof(resp)), -ENOENT);
	/* and new work still flows */
	fk->mode = FAKE_ANSWER;
	log->stop_at = 6;
	submit(fk, log, 5, true);
	run(fk, 3000);
	CU_ASSERT_EQUAL(log->rec[5].calls, 1);
	CU_ASSERT_EQUAL(log->rec[5].status, 0);
	fake_free(fk);
	CU_ASSERT_EQUAL(log->rec[5].calls, 1);
	free(log);
}

/* A -ECANCELED callback that submits again (a sweep moving to its next phase). */
static struct {
	struct fake *fk;
	struct done_log *log;
	unsigned next;
	unsigned resubmits;
} again;

static void on_done_again(void *arg, int status, const struct wire_smp *req,
			  const struct wire_smp *resp)
{
	on_done(arg, status, req, resp);
	if (again.resubmits == 0)
		return;
	again.resubmits--;
	unsigned i = again.next++;
	struct wire_smp s;
	wire_smp_init_lid(&s, WIRE_SET, WIRE_ATTR_LFT, i);
	args[i].log = again.log;
	args[i].idx = i;
	CU_ASSERT_EQUAL(t_submit(again.fk->xe, &s, on_done_again, &args[i]), 0);
}

/*
 * n requests through a window, cancelled while callbacks submit `resubmits`
 * more; every one of them ends with -ECANCELED and none is sent.
 */
static void check_cancel_resubmit(bool use_free, unsigned window, unsigned n, unsigned resubmits)
{
	struct xact_opts o = {.window = window, .timeout_ms = 5000, .retries = 0};
	unsigned total = n + resubmits, sent = n < window ? n : window;
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct wire_smp s;

	fk->mode = FAKE_HOLD;
	again.fk = fk;
	again.log = log;
	again.next = n;
	again.resubmits = resubmits;
	for (unsigned i = 0; i < n; i++) {
		wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, i);
		args[i].log = log;
		args[i].idx = i;
		CU_ASSERT_EQUAL_FATAL(t_submit(fk->xe, &s, on_done_again, &args[i]), 0);
	}
	CU_ASSERT_EQUAL(fk->sends, sent);
	if (use_free) {
		xact_free(fk->xe);
		fk->xe = NULL;
	} else {
		xact_cancel_all(fk->xe);
		CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	}
	CU_ASSERT_EQUAL(again.next, total);
	CU_ASSERT_EQUAL(log->completed, total);
	for (unsigned i = 0; i < total; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
	}
	CU_ASSERT_EQUAL(fk->sends, sent); /* nothing went out while cancelling */
	if (!use_free) {
		/* the engine still works afterwards */
		fk->mode = FAKE_ANSWER;
		log->stop_at = total + 1;
		submit(fk, log, total, false);
		run(fk, 3000);
		CU_ASSERT_EQUAL(log->rec[total].calls, 1);
		CU_ASSERT_EQUAL(log->rec[total].status, 0);
		CU_ASSERT_EQUAL(fk->sends, sent + 1);
	}
	fake_free(fk);
	free(log);
}

static void test_free_cancel_resubmit(void)
{
	check_cancel_resubmit(true, 4, 2, 3); /* outstanding callbacks submit */
	check_cancel_resubmit(true, 2, 3, 4); /* queued ones too */
}

static void test_cancel_all_resubmit(void)
{
	check_cancel_resubmit(false, 4, 2, 3);
	check_cancel_resubmit(false, 2, 3, 4);
}

/* ---- addressed requests ---------------------------------------------------- */

/* Each kind of request reaches the transport with its address, bytes intact but the TID. */
static void test_addressed_send(void)
{
	struct xact_opts o = {.window = 8, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 4);
	const struct madio_dest perf = {.dlid = 0x34, .qpn = 1, .qkey = 0, .sl = 2};
	const struct madio_dest sa = {.dlid = 0x01, .qpn = 1, .qkey = MADIO_GSI_QKEY, .sl = 0};
	uint8_t mad[WIRE_MAD_SIZE];
	int k;

	fk->mode = FAKE_HOLD;
	submit(fk, log, 0, true);
	submit_lid_smp(fk, log, 1, 0x12);
	submit_gsi(fk, log, 2, XACT_BULK, &perf);
	make_gsi(mad, WIRE_CLASS_SA, 0x0035, 3);
	args[3].log = log;
	args[3].idx = 3;
	CU_ASSERT_EQUAL_FATAL(
	    t_submit_mad(fk->xe, XACT_CONTROL, &sa, mad, sizeof(mad), on_mad_done, &args[3]), 0);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 4);

	/* DR: the permissive LID on QP0 */
	k = send_of(fk, 0);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(fk->sent_to[k].dlid, WIRE_PERMISSIVE_LID);
	CU_ASSERT_EQUAL(fk->sent_to[k].qpn, 0);
	CU_ASSERT_EQUAL(fk->sent[k][1], WIRE_CLASS_SMI_DR);
	/* LID-routed SMP: its DLID, QP0 */
	k = send_of(fk, 1);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(fk->sent_to[k].dlid, 0x12);
	CU_ASSERT_EQUAL(fk->sent_to[k].qpn, 0);
	CU_ASSERT_EQUAL(fk->sent[k][1], WIRE_CLASS_SMI);
	/* GSI: DLID, QPN, Q_Key, SL as given */
	k = send_of(fk, 2);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(fk->sent_to[k].dlid, 0x34);
	CU_ASSERT_EQUAL(fk->sent_to[k].qpn, 1);
	CU_ASSERT_EQUAL(fk->sent_to[k].qkey, 0);
	CU_ASSERT_EQUAL(fk->sent_to[k].sl, 2);
	make_gsi(mad, WIRE_CLASS_PERF, WIRE_ATTR_PERF_PORT_COUNTERS, 2);
	CU_ASSERT(memcmp(fk->sent[k], mad, 8) == 0); /* up to the TID */
	CU_ASSERT(memcmp(fk->sent[k] + 16, mad + 16, WIRE_MAD_SIZE - 16) == 0);
	CU_ASSERT(memcmp(fk->sent[k] + 8, mad + 8, 8) != 0); /* the engine's TID */
	k = send_of(fk, 3);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(fk->sent_to[k].dlid, 0x01);
	CU_ASSERT_EQUAL(fk->sent_to[k].qkey, MADIO_GSI_QKEY);
	CU_ASSERT_EQUAL(fk->sent[k][1], WIRE_CLASS_SA);
	CU_ASSERT_EQUAL(fk->sent[k][2], 2);
	/* TIDs are distinct */
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = i + 1; j < 4; j++)
			CU_ASSERT(memcmp(fk->sent[i] + 8, fk->sent[j] + 8, 8) != 0);

	/* every one completes with its own answer */
	for (unsigned i = 0; i < 4; i++)
		answer(fk, fk->sent[i], 0, 1);
	run(fk, 2000);
	CU_ASSERT_EQUAL(log->completed, 4);
	for (unsigned i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
		CU_ASSERT(log->rec[i].had_resp);
		CU_ASSERT_EQUAL(log->rec[i].req_mod, i);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
		CU_ASSERT_EQUAL(log->rec[i].resp_tid, log->rec[i].req_tid);
	}
	CU_ASSERT_EQUAL(log->rec[1].resp_class, WIRE_CLASS_SMI);
	CU_ASSERT_EQUAL(log->rec[1].resp_attr, WIRE_ATTR_PORT_INFO);
	CU_ASSERT_EQUAL(log->rec[2].resp_class, WIRE_CLASS_PERF);
	CU_ASSERT_EQUAL(log->rec[2].resp_attr, WIRE_ATTR_PERF_PORT_COUNTERS);
	CU_ASSERT_EQUAL(log->rec[2].resp_len, WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(log->rec[3].resp_class, WIRE_CLASS_SA);
	fake_free(fk);
	free(log);
}

static void test_submit_mad_invalid(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 1000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	const struct madio_dest gsi = {.dlid = 5, .qpn = 1};
	const struct madio_dest qp0 = {.dlid = 5, .qpn = 0};
	struct madio_dest to;
	uint8_t mad[WIRE_MAD_SIZE];
	struct wire_smp s;
	void *a = &args[0];
	const uint8_t path[2] = {0, 1};

	args[0].log = log;
	make_gsi(mad, WIRE_CLASS_PERF, WIRE_ATTR_PERF_PORT_COUNTERS, 0);
	/* the good one first, then each thing wrong with it */
	CU_ASSERT_EQUAL(t_submit_mad(NULL, XACT_BULK, &gsi, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, NULL, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, NULL, sizeof(mad), on_mad_done, a),
			-EINVAL);
	CU_ASSERT_EQUAL(
	    t_submit_mad(fk->xe, (enum xact_lane)7, &gsi, mad, sizeof(mad), on_mad_done, a),
	    -EINVAL);
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, mad, sizeof(mad) - 1, on_mad_done, a),
			-EINVAL);
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, mad, 24, on_mad_done, a), -EINVAL);
	/* GSI to QP0, to DLID 0, to a QPN beyond 24 bits */
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &qp0, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	to = gsi;
	to.dlid = 0;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &to, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	to = gsi;
	to.qpn = 0x1000000;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &to, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	/* a response, a bad base version */
	mad[3] |= 0x80;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	mad[3] &= 0x7f;
	mad[0] = 2;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	/* a LID-routed SMP to QP1, or one that does not decode (class version 2) */
	wire_smp_init_lid(&s, WIRE_GET, WIRE_ATTR_PORT_INFO, 0);
	CU_ASSERT_FATAL(wire_smp_encode(&s, mad, sizeof(mad)) == WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &gsi, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	mad[2] = 2;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &qp0, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	/* directed route goes as xact_request.smp */
	CU_ASSERT_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, 0, path, 1) == 0);
	CU_ASSERT_FATAL(wire_smp_encode(&s, mad, sizeof(mad)) == WIRE_MAD_SIZE);
	to = qp0;
	to.dlid = WIRE_PERMISSIVE_LID;
	CU_ASSERT_EQUAL(t_submit_mad(fk->xe, XACT_BULK, &to, mad, sizeof(mad), on_mad_done, a),
			-EINVAL);
	/* nor is a lane that is not one taken */
	CU_ASSERT_EQUAL(t_submit_lane(fk->xe, (enum xact_lane)2, &s, on_done, a), -EINVAL);
	CU_ASSERT_EQUAL(fk->sends, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	fake_free(fk);
	CU_ASSERT_EQUAL(log->rec[0].calls, 0);
	free(log);
}

/*
 * A GSI response completes its own request, found by TID, and only when it
 * is a response of the request's class and attribute.
 */
static void test_gsi_matching(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	const struct madio_dest to = {.dlid = 9, .qpn = 1};
	uint8_t resp[WIRE_MAD_SIZE], bad[WIRE_MAD_SIZE];
	struct xact_stats st;
	struct wire_mad_hdr h;
	struct wire_smp s;

	fk->mode = FAKE_HOLD;
	submit_gsi(fk, log, 0, XACT_BULK, &to);
	submit_gsi(fk, log, 1, XACT_CONTROL, &to);
	submit(fk, log, 2, true);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 3);
	make_response(fk->sent[0], 0, resp);

	/* right TID, another class (SA; a DR SMP) */
	memcpy(bad, resp, sizeof(bad));
	bad[1] = WIRE_CLASS_SA;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	CU_ASSERT_FATAL(wire_smp_decode(fk->sent[2], WIRE_MAD_SIZE, &s) == 0);
	CU_ASSERT_FATAL(wire_mad_hdr_decode(resp, sizeof(resp), &h) == 0);
	s.tid = h.tid;
	s.method = WIRE_GET_RESP;
	s.attr_id = WIRE_ATTR_PERF_PORT_COUNTERS;
	CU_ASSERT_FATAL(wire_smp_encode(&s, bad, sizeof(bad)) == WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* right TID, another attribute */
	memcpy(bad, resp, sizeof(bad));
	bad[17] = 0x13;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* the request echoed back (no R bit) */
	CU_ASSERT_EQUAL(xact_input(fk->xe, fk->sent[0], WIRE_MAD_SIZE), -ENOENT);
	/* a TID of no request */
	memcpy(bad, resp, sizeof(bad));
	bad[15] ^= 0x40;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* a GSI response to the DR request's TID */
	make_response(fk->sent[2], 0, bad);
	bad[1] = WIRE_CLASS_PERF;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -ENOENT);
	/* malformed: short of a header, base version 2 */
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, WIRE_MAD_HDR_SIZE - 1), -EBADMSG);
	memcpy(bad, resp, sizeof(bad));
	bad[0] = 2;
	CU_ASSERT_EQUAL(xact_input(fk->xe, bad, sizeof(bad)), -EBADMSG);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.unmatched, 6);
	CU_ASSERT_EQUAL(st.malformed, 2);
	CU_ASSERT_EQUAL(log->completed, 0);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 3);

	/* the second request's answer completes the second only */
	CU_ASSERT_EQUAL(answer_now(fk, 1, 0), 0);
	CU_ASSERT_EQUAL(log->rec[1].calls, 1);
	CU_ASSERT_EQUAL(log->rec[1].status, 0);
	CU_ASSERT_EQUAL(log->rec[1].resp_tag, 1);
	CU_ASSERT_EQUAL(log->rec[0].calls, 0);
	/* the first's, with an error status: -EREMOTEIO with the response */
	CU_ASSERT_EQUAL(answer_now(fk, 0, 0x000c), 0);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, -EREMOTEIO);
	CU_ASSERT(log->rec[0].had_resp);
	CU_ASSERT_EQUAL(log->rec[0].resp_status, 0x000c);
	CU_ASSERT_EQUAL(log->rec[0].resp_tag, 0);
	/* a header-only answer is enough to match; the body is the callback's */
	CU_ASSERT_EQUAL(answer_now(fk, 0, 0), -ENOENT); /* done already */
	submit_gsi(fk, log, 3, XACT_BULK, &to);
	make_response(fk->sent[fk->sends - 1], 0, resp);
	CU_ASSERT_EQUAL(xact_input(fk->xe, resp, WIRE_MAD_HDR_SIZE), 0);
	CU_ASSERT_EQUAL(log->rec[3].status, 0);
	CU_ASSERT_EQUAL(log->rec[3].resp_len, WIRE_MAD_HDR_SIZE);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.remote_errors, 1);
	CU_ASSERT_EQUAL(st.completed, 3);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 1);
	fake_free(fk);
	free(log);
}

/* Addressed requests time out, retry and cancel like the others. */
static void test_addressed_timeout_cancel(void)
{
	struct xact_opts o = {.window = 1, .timeout_ms = 10, .retries = 2};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 1);
	const struct madio_dest to = {.dlid = 9, .qpn = 1};

	fk->drop_mod = DROP_ALL;
	submit_gsi(fk, log, 0, XACT_BULK, &to);
	run(fk, 3000);
	CU_ASSERT_EQUAL(fk->sends_mod[0], 3);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(log->rec[0].status, -ETIMEDOUT);
	CU_ASSERT_FALSE(log->rec[0].had_resp);
	CU_ASSERT_FALSE(log->rec[0].req_null);
	CU_ASSERT(memcmp(fk->sent[0], fk->sent[2], WIRE_MAD_SIZE) == 0); /* same TID */

	/* one in flight, two queued: all cancelled once, the queued with their bytes */
	fk->mode = FAKE_HOLD;
	for (unsigned i = 1; i <= 3; i++)
		submit_gsi(fk, log, i, XACT_BULK, &to);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 3);
	xact_free(fk->xe);
	fk->xe = NULL;
	for (unsigned i = 1; i <= 3; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
		CU_ASSERT_FALSE(log->rec[i].req_null);
		CU_ASSERT_EQUAL(log->rec[i].req_mod, i);
	}
	fake_free(fk);
	free(log);
}

/* ---- lanes ------------------------------------------------------------------ */

/*
 * A full bulk window with 100 more queued: control requests go out at once
 * in their reserved slots, never more than XACT_CONTROL_SLOTS of them, the
 * rest ahead of nothing but each other; bulk keeps its whole window and its
 * order.
 */
static void test_control_lane(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 112);
	struct xact_stats st;
	const unsigned nbulk = 100, nctl = 12;
	uint32_t next_bulk = 0;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < nbulk; i++)
		submit_lane(fk, log, i, XACT_BULK);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 4);
	for (unsigned i = nbulk; i < nbulk + nctl; i++)
		submit_lane(fk, log, i, XACT_CONTROL);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 4 + XACT_CONTROL_SLOTS);
	for (unsigned k = 4; k < fk->sends; k++)
		CU_ASSERT_EQUAL(mod_of(fk, k), nbulk + k - 4);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.outstanding, 4 + XACT_CONTROL_SLOTS);
	CU_ASSERT_EQUAL(st.ctl_outstanding, XACT_CONTROL_SLOTS);
	CU_ASSERT_EQUAL(st.ctl_queued, nctl - XACT_CONTROL_SLOTS);
	CU_ASSERT_EQUAL(st.queued, nbulk - 4 + nctl - XACT_CONTROL_SLOTS);
	CU_ASSERT_EQUAL(st.window, 4);

	/* a control answer lets the next control request out, not a bulk one */
	CU_ASSERT_EQUAL(answer_now(fk, 4, 0), 0);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 13);
	CU_ASSERT_EQUAL(mod_of(fk, 12), nbulk + XACT_CONTROL_SLOTS);
	/* a bulk answer lets the next bulk one out: the window stays 4 */
	CU_ASSERT_EQUAL(answer_now(fk, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 14);
	CU_ASSERT_EQUAL(mod_of(fk, 13), 4);

	/* then everything, answered as it goes */
	fk->mode = FAKE_ANSWER;
	for (unsigned k = 0; k < fk->sends; k++)
		if (k != 0 && k != 4)
			answer(fk, fk->sent[k], 0, 0);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, nbulk + nctl);
	for (unsigned i = 0; i < nbulk + nctl; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	}
	/* bulk went out in the order submitted; control before the queued bulk */
	for (unsigned k = 0; k < fk->sends; k++) {
		uint32_t m = mod_of(fk, k);
		if (m < nbulk)
			CU_ASSERT_EQUAL(m, next_bulk++);
	}
	CU_ASSERT_EQUAL(next_bulk, nbulk);
	CU_ASSERT(send_of(fk, nbulk + nctl - 1) < send_of(fk, 10));
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.max_outstanding, 4 + XACT_CONTROL_SLOTS);
	CU_ASSERT_EQUAL(st.outstanding, 0);
	CU_ASSERT_EQUAL(st.ctl_outstanding, 0);
	CU_ASSERT_EQUAL(st.queued, 0);
	fake_free(fk);
	free(log);
}

/*
 * When both lanes have work and room, the pump serves control first: here
 * both queue up while the first send is in progress (its send callback
 * submits more), and go out control first once it returns.
 */
static struct done_log *both_log;

static void both_on_send(struct fake *fk, const struct wire_mad_hdr *h)
{
	if (h->attr_mod != 0)
		return;
	fk->on_send = NULL;
	submit_lane(fk, both_log, 1, XACT_BULK);
	submit_lane(fk, both_log, 2, XACT_BULK);
	submit_lane(fk, both_log, 3, XACT_CONTROL);
	submit_lane(fk, both_log, 4, XACT_CONTROL);
	CU_ASSERT_EQUAL(fk->sends, 1); /* held while this send runs */
}

static void test_control_first(void)
{
	struct xact_opts o = {.window = 2, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);

	fk->mode = FAKE_HOLD;
	both_log = log;
	fk->on_send = both_on_send;
	submit_lane(fk, log, 0, XACT_BULK);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 4);
	CU_ASSERT_EQUAL(mod_of(fk, 0), 0);
	CU_ASSERT_EQUAL(mod_of(fk, 1), 3);
	CU_ASSERT_EQUAL(mod_of(fk, 2), 4);
	CU_ASSERT_EQUAL(mod_of(fk, 3), 1);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 5); /* 2 waits for the window */
	fake_free(fk);
	free(log);
}

/* ---- the window at run time ------------------------------------------------ */

/* ---- the adaptive window ----------------------------------------------------- */

/*
 * A whole window lost at once (every first attempt dropped) cuts the
 * window once, not once per loss; the retries are answered, and every
 * request completes.
 */
static void test_adaptive_cut_once_per_burst(void)
{
	struct xact_opts o = {.window = 16, .timeout_ms = 20, .retries = 2, .adaptive = true};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 16);
	struct xact_stats st;

	fk->drop_mod = DROP_ALL;
	fk->drop_first = 1;
	for (unsigned i = 0; i < 16; i++)
		submit(fk, log, i, i % 2);
	CU_ASSERT_EQUAL(fk->sends, 16);
	run(fk, 5000);
	CU_ASSERT_EQUAL(log->completed, 16);
	for (unsigned i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.window_cuts, 1);
	CU_ASSERT_EQUAL(st.min_cwnd, 8);
	CU_ASSERT(st.cwnd >= 8 && st.cwnd <= 16);
	CU_ASSERT_EQUAL(st.window, 16);
	fake_free(fk);
	free(log);
}

/*
 * A transport that loses every first attempt: the window shrinks (never
 * below 1, never above the configured one) and every request still
 * completes; once losses stop, answers grow it back to the configured
 * window.  A non-adaptive engine keeps its window.
 */
static void test_adaptive_slows_not_stalls(void)
{
	struct xact_opts o = {.window = 16, .timeout_ms = 10, .retries = 3, .adaptive = true};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 600);
	struct xact_stats st;

	fk->drop_mod = DROP_ALL;
	fk->drop_first = 1;
	for (unsigned i = 0; i < 600; i++)
		submit(fk, log, i, i % 2);
	run(fk, 60000);
	CU_ASSERT_EQUAL_FATAL(log->completed, 600);
	for (unsigned i = 0; i < 600; i++)
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	CU_ASSERT(fk->max_outstanding <= 16);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT(st.window_cuts >= 2);
	CU_ASSERT(st.min_cwnd >= 1 && st.min_cwnd < 8);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	/* no more losses: back to the whole window */
	fk->drop_mod = DROP_ALL - 1;
	log->stop_at = 1200;
	for (unsigned i = 600; i < 1200; i++)
		submit(fk, log, i, i % 2);
	run(fk, 60000);
	CU_ASSERT_EQUAL_FATAL(log->completed, 1200);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.cwnd, 16);
	/* set_window starts again from the new window */
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, 4), 0);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.cwnd, 4);
	CU_ASSERT_EQUAL(st.min_cwnd, 4);
	fake_free(fk);
	free(log);

	o.adaptive = false;
	fk = fake_new(&o);
	log = log_new(fk, 64);
	fk->drop_mod = DROP_ALL;
	fk->drop_first = 1;
	for (unsigned i = 0; i < 64; i++)
		submit(fk, log, i, i % 2);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 64);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.window_cuts, 0);
	CU_ASSERT_EQUAL(st.cwnd, 16);
	CU_ASSERT_EQUAL(fk->max_outstanding, 16);
	fake_free(fk);
	free(log);
}

static void test_set_window_grow(void)
{
	struct xact_opts o = {.window = 2, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 200);
	struct xact_stats st;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 200; i++)
		submit(fk, log, i, i % 2);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 2);
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, 0), -EINVAL);
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, XACT_WINDOW_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(xact_set_window(NULL, 8), -EINVAL);
	CU_ASSERT_EQUAL(fk->sends, 2);
	/* more go out at once, in order */
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, 8), 0);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 8);
	for (unsigned k = 0; k < 8; k++)
		CU_ASSERT_EQUAL(mod_of(fk, k), k);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.window, 8);
	CU_ASSERT_EQUAL(st.outstanding, 8);
	/* the two sent before the change still complete by their TIDs */
	CU_ASSERT_EQUAL(answer_now(fk, 1, 0), 0);
	CU_ASSERT_EQUAL(answer_now(fk, 0, 0), 0);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	CU_ASSERT_EQUAL(log->rec[1].status, 0);
	CU_ASSERT_EQUAL(fk->sends, 10);
	/* and to the largest window */
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, XACT_WINDOW_MAX), 0);
	CU_ASSERT_EQUAL(fk->sends, 200);
	fk->mode = FAKE_ANSWER;
	for (unsigned k = 2; k < fk->sends; k++)
		answer(fk, fk->sent[k], 0, 0);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 200);
	for (unsigned i = 0; i < 200; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.max_outstanding, 198);
	fake_free(fk);
	free(log);
}

/*
 * Shrinking from 16 to 3 with 16 in flight: no new request until fewer than
 * 3 are outstanding; the 16 complete by their TIDs; from then on at most 3
 * are outstanding.  Control keeps its slots throughout.
 */
static void test_set_window_shrink(void)
{
	struct xact_opts o = {.window = 16, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 101);
	struct xact_stats st;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 100; i++)
		submit(fk, log, i, i % 2);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 16);
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, 3), 0);
	CU_ASSERT_EQUAL(fk->sends, 16);
	/* a control request still goes out at once */
	submit_lane(fk, log, 100, XACT_CONTROL);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 17);
	CU_ASSERT_EQUAL(answer_now(fk, 16, 0), 0);
	CU_ASSERT_EQUAL(log->rec[100].status, 0);
	for (unsigned k = 0; k < 16; k++) {
		CU_ASSERT_EQUAL(answer_now(fk, k, 0), 0);
		CU_ASSERT_EQUAL(log->rec[k].calls, 1);
		CU_ASSERT_EQUAL(log->rec[k].status, 0);
		CU_ASSERT_EQUAL(log->rec[k].resp_tag, k);
		/* 16 - (k + 1) left of the old ones; refilled only below 3 */
		unsigned left = 16 - (k + 1);
		CU_ASSERT_EQUAL(fk->sends, 17 + (left < 3 ? 3 - left : 0));
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.outstanding, 3);
	CU_ASSERT_EQUAL(st.window, 3);
	/* the rest: never more than 3 outstanding */
	fk->mode = FAKE_ANSWER;
	fk->outstanding = 3;
	fk->max_outstanding = 0;
	for (unsigned k = 17; k < fk->sends; k++)
		answer(fk, fk->sent[k], 0, 0);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 101);
	for (unsigned i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
		CU_ASSERT_EQUAL(log->rec[i].resp_tag, i);
	}
	CU_ASSERT(fk->max_outstanding <= 3);
	CU_ASSERT_EQUAL(fk->max_outstanding, 3);
	/* and it grows back */
	CU_ASSERT_EQUAL(xact_set_window(fk->xe, 16), 0);
	fk->max_outstanding = 0;
	log->stop_at = 101 + 50;
	for (unsigned i = 101; i < 151; i++)
		submit(fk, log, i, false);
	run(fk, 10000);
	CU_ASSERT_EQUAL(log->completed, 151);
	CU_ASSERT_EQUAL(fk->max_outstanding, 16);
	fake_free(fk);
	free(log);
}

/* ---- batches and producers ----------------------------------------------- */

/* A batch under test: its on_empty calls, and a producer of requests next..limit-1. */
struct bt {
	struct fake *fk;
	struct done_log *log;
	struct xact_batch *b;
	unsigned empties;	     /* on_empty calls */
	unsigned completed_at_empty; /* log->completed when on_empty last ran */
	unsigned depth, max_depth;   /* on_empty nesting */
	bool free_in_empty;
	unsigned refill_in_empty; /* raise limit by this in the first on_empty (and wake) */
	unsigned next, limit, produced;
	unsigned max_queued; /* the engine's queue, seen from inside the producer */
	enum xact_lane lane;
	int resubmit_rc; /* on_done_into_batch: what a submit from the callback got */
};

static void bt_empty(void *arg)
{
	struct bt *t = arg;

	t->empties++;
	if (++t->depth > t->max_depth)
		t->max_depth = t->depth;
	t->completed_at_empty = t->log->completed;
	if (t->refill_in_empty) {
		t->limit += t->refill_in_empty;
		t->refill_in_empty = 0;
		xact_batch_wake(t->b);
	}
	if (t->free_in_empty) {
		xact_batch_free(t->b);
		t->b = NULL;
	}
	t->depth--;
}

static int bt_submit_cb(struct bt *t, unsigned i, xact_done_fn done)
{
	struct wire_smp s;
	const uint8_t path[3] = {0, 1, 2};

	CU_ASSERT_FATAL(wire_smp_init_dr(&s, WIRE_GET, WIRE_ATTR_NODE_INFO, i, path, 2) == 0);
	args[i].log = t->log;
	args[i].idx = i;
	return xact_submit(
	    t->fk->xe,
	    &(struct xact_request){
		.lane = t->lane, .batch = t->b, .smp = &s, .done = done, .arg = &args[i]});
}

static void bt_submit(struct bt *t, unsigned i)
{
	CU_ASSERT_EQUAL_FATAL(bt_submit_cb(t, i, on_done), 0);
}

static bool bt_produce(void *ctx)
{
	struct bt *t = ctx;
	struct xact_stats st;

	if (t->next >= t->limit)
		return false;
	xact_get_stats(t->fk->xe, &st);
	if (st.queued > t->max_queued)
		t->max_queued = st.queued;
	bt_submit(t, t->next++);
	t->produced++;
	return true;
}

static struct bt *bt_new(struct fake *fk, struct done_log *log)
{
	struct bt *t = calloc(1, sizeof(*t));

	CU_ASSERT_FATAL(t != NULL);
	t->fk = fk;
	t->log = log;
	t->b = xact_batch_new(fk->xe, bt_empty, t);
	CU_ASSERT_FATAL(t->b != NULL);
	return t;
}

/* Answer send k with status (the transport's answer, at once). */
static void answer_k(struct fake *fk, unsigned k, uint16_t status)
{
	CU_ASSERT_EQUAL(answer_now(fk, k, status), 0);
}

/*
 * on_empty runs once, after the callback of the batch's last request, each
 * time the batch empties; the counts add up; a batch never given work never
 * runs it; it may free the batch.
 */
static void test_batch_empty_once(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 20, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct bt *t = bt_new(fk, log), *idle = bt_new(fk, log);
	struct xact_batch_stats bs;

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 7; i++)
		bt_submit(t, i);
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(xact_batch_pending(t->b), 7);
	for (unsigned k = 0; k < 4; k++)
		answer_k(fk, k, 0);
	CU_ASSERT_EQUAL(fk->sends, 7);
	answer_k(fk, 4, 0);
	answer_k(fk, 5, 0x0004); /* an error status */
	CU_ASSERT_EQUAL(t->empties, 0);
	run(fk, 500); /* the last one times out */
	CU_ASSERT_EQUAL(log->completed, 7);
	CU_ASSERT_EQUAL(log->rec[6].status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(t->empties, 1);
	CU_ASSERT_EQUAL(t->completed_at_empty, 7);
	xact_batch_get_stats(t->b, &bs);
	CU_ASSERT_EQUAL(bs.submitted, 7);
	CU_ASSERT_EQUAL(bs.sent, 7);
	CU_ASSERT_EQUAL(bs.ok, 5);
	CU_ASSERT_EQUAL(bs.failed, 1);
	CU_ASSERT_EQUAL(bs.timed_out, 1);
	CU_ASSERT_EQUAL(bs.cancelled, 0);
	CU_ASSERT_EQUAL(bs.queued + bs.outstanding, 0);
	/* more work, another emptying: once more */
	bt_submit(t, 7);
	bt_submit(t, 8);
	answer_k(fk, 7, 0);
	CU_ASSERT_EQUAL(t->empties, 1);
	answer_k(fk, 8, 0);
	CU_ASSERT_EQUAL(t->empties, 2);
	CU_ASSERT_EQUAL(t->completed_at_empty, 9);
	/* freed by its own on_empty */
	t->free_in_empty = true;
	bt_submit(t, 9);
	answer_k(fk, 9, 0);
	CU_ASSERT_EQUAL(t->empties, 3);
	CU_ASSERT_PTR_NULL(t->b);
	CU_ASSERT_EQUAL(t->max_depth, 1);
	CU_ASSERT_EQUAL(idle->empties, 0);
	for (unsigned i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
	xact_batch_free(idle->b);
	fake_free(fk);
	free(t);
	free(idle);
	free(log);
}

/* A callback that tries to submit into its own batch again. */
static struct bt *into_batch;

static void on_done_into_batch(void *arg, int status, const struct wire_smp *req,
			       const struct wire_smp *resp)
{
	struct done_arg *a = arg;

	on_done(arg, status, req, resp);
	if (a->idx == 0)
		into_batch->resubmit_rc = bt_submit_cb(into_batch, 50, on_done);
}

/*
 * Cancelling a batch mid-flight: each of its requests, queued or sent,
 * completes at once with -ECANCELED and never again; other requests go
 * on; a sent one keeps its slot until its answer (no callback), so the
 * window holds; on_empty does not run; the batch stays usable.
 */
static void test_batch_cancel_mid_flight(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct bt *t = bt_new(fk, log), *other = bt_new(fk, log);
	struct xact_batch_stats bs;
	struct xact_stats st;

	fk->mode = FAKE_HOLD;
	into_batch = t;
	t->resubmit_rc = 1;
	CU_ASSERT_EQUAL_FATAL(bt_submit_cb(t, 0, on_done_into_batch), 0);
	for (unsigned i = 1; i < 10; i++)
		bt_submit(t, i);
	submit(fk, log, 10, false); /* no batch */
	bt_submit(other, 11);
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 12);
	xact_batch_cancel(t->b);
	for (unsigned i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
		CU_ASSERT_FALSE(log->rec[i].had_resp);
	}
	CU_ASSERT_EQUAL(t->resubmit_rc, -ECANCELED);
	CU_ASSERT_EQUAL(log->rec[50].calls, 0);
	CU_ASSERT_EQUAL(log->rec[10].calls, 0);
	CU_ASSERT_EQUAL(log->rec[11].calls, 0);
	CU_ASSERT_EQUAL(xact_batch_pending(t->b), 0);
	xact_batch_get_stats(t->b, &bs);
	CU_ASSERT_EQUAL(bs.cancelled, 10);
	CU_ASSERT_EQUAL(bs.sent, 4);
	CU_ASSERT_EQUAL(t->empties, 0);
	/* the 4 sent hold their slots: nothing else went out */
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 6);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.queued, 2);
	/* an answer to a cancelled one frees its slot, silently */
	answer_k(fk, 0, 0);
	CU_ASSERT_EQUAL(log->rec[0].calls, 1);
	CU_ASSERT_EQUAL(fk->sends, 5);
	CU_ASSERT_EQUAL(mod_of(fk, 4), 10);
	/* the batch works again */
	bt_submit(t, 12);
	for (unsigned k = 1; k < 4; k++)
		answer_k(fk, k, 0);
	CU_ASSERT_EQUAL(fk->sends, 7);
	for (unsigned k = 4; k < 7; k++)
		answer_k(fk, k, 0);
	for (unsigned i = 10; i <= 12; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	}
	for (unsigned i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
	CU_ASSERT_EQUAL(t->empties, 1);
	CU_ASSERT_EQUAL(other->empties, 1);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	/* a cancelled request whose send fails frees its slot without a retry */
	xact_set_opts(fk->xe, 5000, 3);
	bt_submit(t, 13);
	CU_ASSERT_EQUAL_FATAL(fk->sends, 8);
	xact_batch_cancel(t->b);
	CU_ASSERT_EQUAL(log->rec[13].status, -ECANCELED);
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 1);
	{
		struct wire_mad_hdr h;

		CU_ASSERT_FATAL(wire_mad_hdr_decode(fk->sent[7], WIRE_MAD_SIZE, &h) == 0);
		CU_ASSERT_EQUAL(xact_send_failed(fk->xe, h.tid), 0);
	}
	CU_ASSERT_EQUAL(xact_pending(fk->xe), 0);
	CU_ASSERT_EQUAL(fk->sends, 8);
	CU_ASSERT_EQUAL(log->rec[13].calls, 1);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.retries, 0);
	CU_ASSERT_EQUAL(st.timeouts, 0);
	xact_batch_free(t->b);
	xact_batch_free(other->b);
	fake_free(fk);
	free(t);
	free(other);
	free(log);
}

/*
 * A producer is asked only when the window has room and nothing is queued
 * ahead of it: the window is respected, the engine's queue stays empty, the
 * order is kept.  It runs dry (on_empty once its requests are done), is
 * refilled and woken, and goes on; a refill before the batch empties
 * delays on_empty to the end; a refill from inside on_empty is served
 * and empties again, never nested.
 */
static void test_producer_dry_refill(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct bt *t = bt_new(fk, log);
	struct xact_stats st;
	unsigned k = 0;

	fk->mode = FAKE_HOLD;
	xact_batch_set_producer(t->b, XACT_BULK, bt_produce, t);
	t->limit = 10;
	CU_ASSERT_EQUAL(fk->sends, 0); /* a producer starts dry */
	xact_batch_wake(t->b);
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(t->produced, 4);
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.queued, 0);
	/* one answer, one more asked for */
	for (; k < 10; k++) {
		answer_k(fk, k, 0);
		CU_ASSERT_EQUAL(fk->sends, k + 5 < 10 ? k + 5 : 10);
	}
	CU_ASSERT_EQUAL(t->produced, 10);
	CU_ASSERT_EQUAL(t->empties, 1);
	CU_ASSERT_EQUAL(t->completed_at_empty, 10);
	/* refilled: on again */
	t->limit = 15;
	xact_batch_wake(t->b);
	CU_ASSERT_EQUAL(fk->sends, 14);
	/* refilled again before it empties: one on_empty, at the very end */
	t->limit = 18;
	xact_batch_wake(t->b);
	for (; k < 18; k++)
		answer_k(fk, k, 0);
	CU_ASSERT_EQUAL(t->empties, 2);
	CU_ASSERT_EQUAL(t->completed_at_empty, 18);
	/* refilled from inside on_empty (discovery's second stage) */
	t->refill_in_empty = 3;
	t->limit = 20;
	xact_batch_wake(t->b);
	for (; k < 20; k++)
		answer_k(fk, k, 0);
	CU_ASSERT_EQUAL(t->empties, 3);
	CU_ASSERT_EQUAL(fk->sends, 23);
	for (; k < 23; k++)
		answer_k(fk, k, 0);
	CU_ASSERT_EQUAL(t->empties, 4);
	CU_ASSERT_EQUAL(t->max_depth, 1);
	/* the order kept, the window respected, nothing queued in the engine */
	for (unsigned i = 0; i < 23; i++) {
		CU_ASSERT_EQUAL(mod_of(fk, i), i);
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, 0);
	}
	xact_get_stats(fk->xe, &st);
	CU_ASSERT_EQUAL(st.max_bulk, 4);
	CU_ASSERT(st.max_outstanding <= 4);
	CU_ASSERT_EQUAL(t->max_queued, 0);
	xact_batch_free(t->b);
	fake_free(fk);
	free(t);
	free(log);
}

/*
 * Producers come after queued requests of their lane, in batch order; a
 * batch whose last request ends while others fill the window still learns
 * its producer is dry (on_empty at once); a producer on the control lane
 * is served before bulk.
 */
static void test_producer_after_queue(void)
{
	struct xact_opts o = {.window = 2, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct bt *a = bt_new(fk, log), *c = bt_new(fk, log);

	fk->mode = FAKE_HOLD;
	for (unsigned i = 0; i < 4; i++)
		submit(fk, log, i, false); /* 0, 1 sent; 2, 3 queued */
	xact_batch_set_producer(a->b, XACT_BULK, bt_produce, a);
	a->next = 10;
	a->limit = 11;
	xact_batch_wake(a->b);
	CU_ASSERT_EQUAL(a->produced, 0); /* the queue first */
	answer_k(fk, 0, 0);
	answer_k(fk, 1, 0);
	CU_ASSERT_EQUAL(fk->sends, 4);
	CU_ASSERT_EQUAL(a->produced, 0);
	answer_k(fk, 2, 0);
	CU_ASSERT_EQUAL(a->produced, 1);
	CU_ASSERT_EQUAL(mod_of(fk, 4), 10);
	/* the window full of others (5, 6 queued behind 3): a's last ends, a is done */
	submit(fk, log, 5, false);
	submit(fk, log, 6, false);
	answer_k(fk, 4, 0);
	CU_ASSERT_EQUAL(a->empties, 1);
	CU_ASSERT_EQUAL(mod_of(fk, 5), 5);
	/* a control producer goes out in the control lane's slots */
	c->lane = XACT_CONTROL;
	xact_batch_set_producer(c->b, XACT_CONTROL, bt_produce, c);
	c->next = 20;
	c->limit = 22;
	xact_batch_wake(c->b);
	CU_ASSERT_EQUAL(c->produced, 2);
	CU_ASSERT_EQUAL(fk->sends, 8);
	CU_ASSERT_EQUAL(mod_of(fk, 6), 20);
	CU_ASSERT_EQUAL(mod_of(fk, 7), 21);
	answer_k(fk, 6, 0);
	answer_k(fk, 7, 0);
	CU_ASSERT_EQUAL(c->empties, 1);
	xact_batch_free(a->b);
	xact_batch_free(c->b);
	fake_free(fk);
	free(a);
	free(c);
	free(log);
}

/* A callback that frees its batch. */
static struct bt *free_from_cb;

static void on_done_free_batch(void *arg, int status, const struct wire_smp *req,
			       const struct wire_smp *resp)
{
	on_done(arg, status, req, resp);
	if (free_from_cb->b) {
		xact_batch_free(free_from_cb->b);
		free_from_cb->b = NULL;
	}
}

/*
 * A batch freed from one of its own callbacks: the rest are cancelled,
 * each once.  A batch still open when its engine goes: its requests are
 * cancelled, and freeing it afterwards is fine.
 */
static void test_batch_free_inside_and_after_engine(void)
{
	struct xact_opts o = {.window = 4, .timeout_ms = 5000, .retries = 0};
	struct fake *fk = fake_new(&o);
	struct done_log *log = log_new(fk, 0);
	struct bt *t = bt_new(fk, log), *left = bt_new(fk, log);

	fk->mode = FAKE_HOLD;
	free_from_cb = t;
	for (unsigned i = 0; i < 6; i++)
		CU_ASSERT_EQUAL_FATAL(bt_submit_cb(t, i, on_done_free_batch), 0);
	answer_k(fk, 0, 0);
	CU_ASSERT_PTR_NULL(t->b);
	CU_ASSERT_EQUAL(log->rec[0].status, 0);
	for (unsigned i = 1; i < 6; i++) {
		CU_ASSERT_EQUAL(log->rec[i].calls, 1);
		CU_ASSERT_EQUAL(log->rec[i].status, -ECANCELED);
	}
	CU_ASSERT_EQUAL(t->empties, 0);
	bt_submit(left, 7);
	bt_submit(left, 8);
	xact_batch_set_producer(left->b, XACT_BULK, bt_produce, left);
	xact_free(fk->xe);
	fk->xe = NULL;
	CU_ASSERT_EQUAL(log->rec[7].status, -ECANCELED);
	CU_ASSERT_EQUAL(log->rec[8].status, -ECANCELED);
	CU_ASSERT_EQUAL(xact_batch_pending(left->b), 0);
	xact_batch_wake(left->b); /* no engine: nothing */
	CU_ASSERT_EQUAL(left->produced, 0);
	xact_batch_free(left->b);
	CU_ASSERT_PTR_NULL(xact_batch_new(NULL, NULL, NULL));
	fake_free(fk);
	free(t);
	free(left);
	free(log);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"bad options", test_new_bad_opts},
	    {"invalid submit", test_submit_invalid},
	    {"answers out of order", test_out_of_order},
	    {"TID high bits rewritten", test_tid_high_rewritten},
	    {"window of 16, 1000 requests", test_window},
	    {"timeout after retries", test_timeout_retries},
	    {"answered on a retry", test_answered_on_retry},
	    {"a request's own timeout and retries", test_timed_submit},
	    {"late duplicate answer", test_late_duplicate},
	    {"stale answer, reused slot", test_stale_answer_reused_slot},
	    {"send failed -> retry now", test_send_failed},
	    {"send error counted", test_send_error},
	    {"remote error status", test_remote_error},
	    {"malformed and unmatched input", test_bad_input},
	    {"re-entrant submit", test_reentrant_submit},
	    {"free cancels once", test_free_cancels},
	    {"cancel all", test_cancel_all},
	    {"free: callback submits", test_free_cancel_resubmit},
	    {"cancel all: callback submits", test_cancel_all_resubmit},
	    {"addressed requests reach the transport", test_addressed_send},
	    {"invalid addressed submit", test_submit_mad_invalid},
	    {"GSI responses match class, attribute, TID", test_gsi_matching},
	    {"addressed: timeout, retries, cancel", test_addressed_timeout_cancel},
	    {"control lane beside a full bulk window", test_control_lane},
	    {"control served first", test_control_first},
	    {"window grows at run time", test_set_window_grow},
	    {"adaptive window: one cut per burst of losses", test_adaptive_cut_once_per_burst},
	    {"adaptive window: lossy transport slows, never stalls",
	     test_adaptive_slows_not_stalls},
	    {"window shrinks with requests in flight", test_set_window_shrink},
	    {"batch: on_empty once per emptying, counts", test_batch_empty_once},
	    {"batch: cancel mid-flight", test_batch_cancel_mid_flight},
	    {"producer: window, order, dry then refilled", test_producer_dry_refill},
	    {"producer: after the queue, in batch order", test_producer_after_queue},
	    {"batch: freed inside a callback, after the engine",
	     test_batch_free_inside_and_after_engine},
	    {NULL, NULL},
	};

	return testutil_run("xact", cases);
}

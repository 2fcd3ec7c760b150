/*
 * Unit tests for mad/rmpp.c on a real libevent loop.  Two sides, A (the SA,
 * sending) and B (a client, receiving), each an rmpp context whose send
 * callback records every MAD and, when the side has a peer, delivers it to
 * the peer's rmpp_input through a zero-delay event, losing the segments or
 * ACKs a test asks it to lose.  Without a peer the test is the peer: it reads
 * what was sent and answers by hand, or through a model of the Linux
 * kernel's RMPP receiver.
 *
 * The kernel models here (kernel_segment, kernel_ack, kernel_abort, struct
 * kmodel) transcribe drivers/infiniband/core/mad.c (get_pad_size,
 * alloc_send_rmpp_list) and mad_rmpp.c (send_next_seg, format_ack,
 * nack_recv, start_rmpp/continue_rmpp with a 512-entry receive queue: a
 * window of 64) byte by byte, with plain offsets, independently of the
 * libibmad fields rmpp.c uses.  Every loop run is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <event2/event.h>

#include "mad/rmpp.h"
#include "mad/wire.h"
#include "tests/testutil.h"

#define LID_A 1
#define LID_B 7
#define QPN_B 1
#define KERNEL_WINDOW 64 /* max(512 >> 3, 1) */
#define MAX_DONE 1024

/* ---- byte helpers and the kernel's layout ---------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t mad_tid(const uint8_t *mad)
{
	return (uint64_t)get32(mad + 8) << 32 | get32(mad + 12);
}

/*
 * A GetTableResp(NodeRecord) header template: RRespTime 1, SM_Key,
 * AttributeOffset, ComponentMask; garbage where the RMPP layer writes.
 */
static void make_hdr(uint64_t tid, uint8_t *out)
{
	struct wire_mad_hdr h = {
	    .base_version = 1,
	    .mgmt_class = WIRE_CLASS_SA,
	    .class_version = 2,
	    .method = 0x92,
	    .tid = tid,
	    .attr_id = 0x0011,
	};

	memset(out, 0, RMPP_SA_HDR_SIZE);
	CU_ASSERT_FATAL(wire_mad_hdr_encode(&h, out, RMPP_SA_HDR_SIZE) == 0);
	out[24] = 0x55;
	out[25] = 0x55;
	out[26] = 1 << 3;
	memset(out + 28, 0xaa, 8);
	for (int i = 36; i < 44; i++)
		out[i] = (uint8_t)(0x10 + i); /* SM_Key */
	out[44] = 0;
	out[45] = 14; /* AttributeOffset: 112 bytes */
	for (int i = 48; i < 56; i++)
		out[i] = (uint8_t)(0xc0 + i); /* ComponentMask */
}

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 131 + seed + (i >> 8) * 7);
}

/* get_pad_size() and the segment loop of alloc_send_rmpp_list(), SA: hdr_len 56. */
static uint32_t kernel_seg_count(size_t len, unsigned *ret_pad)
{
	const int seg_size = 256 - 56;
	int pad, left;
	uint32_t count = 0;

	if (len) {
		pad = seg_size - (int)(len % seg_size);
		if (pad == seg_size)
			pad = 0;
	} else {
		pad = seg_size;
	}
	for (left = (int)len + pad; left > 0; left -= seg_size)
		count++;
	*ret_pad = (unsigned)pad;
	return count;
}

/* Segment s as the kernel sends it (send_next_seg, seg_rmpp_size 220). */
static void kernel_segment(const uint8_t *hdr, const uint8_t *payload, size_t len, uint32_t s,
			   uint8_t *out)
{
	unsigned pad;
	uint32_t count = kernel_seg_count(len, &pad), paylen = 0;
	size_t off = (size_t)(s - 1) * 200, n = 0;

	memset(out, 0, 256);
	memcpy(out, hdr, 56);
	out[24] = 1; /* the agent's rmpp_version */
	out[25] = 1; /* DATA */
	out[26] = (uint8_t)((out[26] & 0xf8) | 1);
	put32(out + 28, s);
	if (s == 1) {
		out[26] |= 2;
		paylen = count * 220 - pad;
	}
	if (s == count) {
		out[26] |= 4;
		paylen = 220 - pad;
	}
	put32(out + 32, paylen);
	if (off < len)
		n = len - off < 200 ? len - off : 200;
	memcpy(out + 56, payload + off, n);
}

/* format_ack(): the data MAD's 56 bytes, R flipped, ACK, Active, seg, newwin. */
static void kernel_ack(const uint8_t *data, uint32_t seg, uint32_t newwin, uint8_t *out)
{
	memset(out, 0, 256);
	memcpy(out, data, 56);
	out[3] ^= 0x80;
	out[25] = 2;
	out[26] = (uint8_t)((out[26] & 0xf8) | 1);
	put32(out + 28, seg);
	put32(out + 32, newwin);
}

/* nack_recv(): an ABORT for the MAD received. */
static void kernel_abort(const uint8_t *mad, uint8_t status, uint8_t *out)
{
	memset(out, 0, 256);
	memcpy(out, mad, 56);
	out[3] ^= 0x80;
	out[24] = 1;
	out[25] = 4;
	out[26] = (uint8_t)((out[26] & 0xf8) | 1);
	out[27] = status;
	put32(out + 28, 0);
	put32(out + 32, 0);
}

/* The kernel's receiver, for transfers without loss. */
struct kmodel {
	bool started, complete;
	uint32_t newwin, seg_num;
	uint8_t first[256];
};

/* Take one DATA MAD; true with the ACK the kernel sends for it in ack. */
static bool kmodel_input(struct kmodel *k, const uint8_t *mad, uint8_t *ack)
{
	uint32_t seg = get32(mad + 28);
	bool last = mad[26] & 4;

	if (!k->started) {
		CU_ASSERT_FATAL(seg == 1 && (mad[26] & 2));
		k->started = true;
		memcpy(k->first, mad, 256);
		k->newwin = 1;
		k->seg_num = 1;
		if (last) {
			k->complete = true;
		} else {
			k->newwin += KERNEL_WINDOW;
		}
		kernel_ack(mad, k->seg_num, k->newwin, ack);
		return true;
	}
	CU_ASSERT(seg <= k->newwin); /* a sender never goes beyond the window */
	CU_ASSERT_EQUAL(seg, k->seg_num + 1);
	k->seg_num = seg;
	if (last) {
		k->complete = true;
		kernel_ack(k->first, k->seg_num, k->newwin, ack);
		return true;
	}
	if (k->seg_num == k->newwin) {
		k->newwin += KERNEL_WINDOW;
		kernel_ack(mad, k->seg_num, k->newwin, ack);
		return true;
	}
	return false;
}

/* An RMPP control MAD by hand: the given header's 56 bytes, R flipped. */
static void make_ctl(const uint8_t *hdr, uint8_t type, uint8_t status, uint32_t d1, uint32_t d2,
		     uint8_t *out)
{
	memset(out, 0, 256);
	memcpy(out, hdr, 56);
	out[3] ^= 0x80;
	out[24] = 1;
	out[25] = type;
	out[26] = 1;
	out[27] = status;
	put32(out + 28, d1);
	put32(out + 32, d2);
}

/* ---- the two sides ----------------------------------------------------------------- */

struct rec {
	uint8_t mad[256];
	struct madio_dest to;
};

struct net;

struct side {
	struct net *net;
	struct rmpp *r;
	struct madio_addr addr; /* what the peer sees as `from` */
	struct side *peer;	/* NULL: MADs are only recorded */
	struct rec *sent;
	unsigned nsent, cap;
	int send_ret;
	/* loss */
	uint32_t drop_seg;	 /* lose DATA segment drop_seg ... */
	unsigned drop_seg_times; /* ... this many times */
	unsigned drop_ack;	 /* lose this side's ACK number drop_ack (1-based) */
	unsigned nacks, dropped;
	/* what rmpp_input said to MADs delivered to this side */
	unsigned in_ok, in_enoent, in_ebadmsg, in_other;
	/* transfers this side received */
	unsigned nrecv;
	int recv_status;
	uint8_t recv_hdr[RMPP_SA_HDR_SIZE];
	uint8_t *recv_data;
	size_t recv_len;
	struct madio_addr recv_from;
};

struct done_slot {
	struct net *net;
	unsigned calls;
	int status;
	unsigned order;
	int resend_rc; /* what rmpp_send said from inside the callback, when asked */
	bool resend;
};

struct net {
	struct event_base *base;
	struct side a, b;
	unsigned ndone;	    /* done callbacks so far */
	unsigned want_done; /* break the loop when ndone and b.nrecv reach these */
	unsigned want_recv;
	unsigned stop_nsent; /* break the loop when A has sent this many */
	struct done_slot slot[MAX_DONE];
};

struct delivery {
	struct side *to;
	struct madio_addr from;
	uint8_t mad[256];
};

static void check_break(struct net *n)
{
	if ((n->want_done || n->want_recv) && n->ndone >= n->want_done &&
	    n->b.nrecv >= n->want_recv)
		event_base_loopbreak(n->base);
}

static void deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	struct delivery *d = arg;
	int rc;

	if (!d->to->r) { /* the test is over */
		free(d);
		return;
	}
	rc = rmpp_input(d->to->r, &d->from, d->mad, sizeof(d->mad));
	if (rc == 0)
		d->to->in_ok++;
	else if (rc == -ENOENT)
		d->to->in_enoent++;
	else if (rc == -EBADMSG)
		d->to->in_ebadmsg++;
	else
		d->to->in_other++;
	free(d);
}

static int side_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct side *s = ctx;
	struct timeval now = {0, 0};
	struct delivery *d;

	CU_ASSERT_EQUAL_FATAL(len, 256);
	if (s->nsent == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->sent = realloc(s->sent, s->cap * sizeof(*s->sent));
		CU_ASSERT_FATAL(s->sent != NULL);
	}
	memcpy(s->sent[s->nsent].mad, mad, 256);
	s->sent[s->nsent++].to = *to;
	if (s == &s->net->a && s->nsent == s->net->stop_nsent)
		event_base_loopbreak(s->net->base);
	if (s->send_ret)
		return s->send_ret;
	if (!s->peer)
		return 0;
	CU_ASSERT_EQUAL(to->dlid, s->peer->addr.slid);
	CU_ASSERT_EQUAL(to->qpn, s->peer->addr.qpn);
	if (mad[25] == RMPP_TYPE_DATA && s->drop_seg == get32(mad + 28) && s->drop_seg_times) {
		s->drop_seg_times--;
		s->dropped++;
		return 0;
	}
	if (mad[25] == RMPP_TYPE_ACK && ++s->nacks == s->drop_ack) {
		s->dropped++;
		return 0;
	}
	d = calloc(1, sizeof(*d));
	CU_ASSERT_FATAL(d != NULL);
	d->to = s->peer;
	d->from = s->addr;
	memcpy(d->mad, mad, 256);
	CU_ASSERT_FATAL(event_base_once(s->net->base, -1, EV_TIMEOUT, deliver_cb, d, &now) == 0);
	return 0;
}

static void on_recv(void *arg, int status, const struct madio_addr *from, const uint8_t *hdr,
		    const uint8_t *payload, size_t len)
{
	struct side *s = arg;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(from);
	s->nrecv++;
	s->recv_status = status;
	s->recv_from = *from;
	memcpy(s->recv_hdr, hdr, sizeof(s->recv_hdr));
	free(s->recv_data);
	s->recv_data = NULL;
	s->recv_len = len;
	if (status == 0) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(payload);
		s->recv_data = malloc(len ? len : 1);
		CU_ASSERT_FATAL(s->recv_data != NULL);
		memcpy(s->recv_data, payload, len);
	} else {
		CU_ASSERT_PTR_NULL(payload);
		CU_ASSERT_EQUAL(len, 0);
	}
	check_break(s->net);
}

static void on_done(void *arg, int status)
{
	struct done_slot *d = arg;
	struct net *n = d->net;

	d->calls++;
	d->status = status;
	d->order = n->ndone++;
	if (d->resend) {
		uint8_t hdr[RMPP_SA_HDR_SIZE];
		const struct madio_dest to = {.dlid = LID_B, .qpn = QPN_B};

		make_hdr(0x5000 + d->order, hdr);
		d->resend_rc =
		    rmpp_send(n->a.r, &to, hdr, NULL, 0, on_done, &n->slot[MAX_DONE - 1]);
	}
	check_break(n);
}

static const struct rmpp_opts opts_fast = {.timeout_ms = 30, .retries = 3};

/* A and B; B takes transfers.  linked: each side delivers to the other. */
static struct net *net_new(const struct rmpp_opts *oa, const struct rmpp_opts *ob, bool linked)
{
	struct net *n = calloc(1, sizeof(*n));

	CU_ASSERT_FATAL(n != NULL);
	n->base = event_base_new();
	CU_ASSERT_FATAL(n->base != NULL);
	n->a.net = n->b.net = n;
	n->a.addr = (struct madio_addr){.slid = LID_A, .qpn = 1, .qkey = MADIO_GSI_QKEY};
	n->b.addr = (struct madio_addr){.slid = LID_B, .qpn = QPN_B, .qkey = MADIO_GSI_QKEY};
	if (linked) {
		n->a.peer = &n->b;
		n->b.peer = &n->a;
	}
	n->a.r = rmpp_new(n->base, oa, side_send, &n->a);
	n->b.r = rmpp_new(n->base, ob, side_send, &n->b);
	CU_ASSERT_FATAL(n->a.r && n->b.r);
	rmpp_set_receiver(n->b.r, on_recv, &n->b);
	for (unsigned i = 0; i < MAX_DONE; i++)
		n->slot[i].net = n;
	return n;
}

static void run(struct net *n, unsigned ms);

static void net_free(struct net *n)
{
	rmpp_free(n->a.r);
	rmpp_free(n->b.r);
	n->a.r = n->b.r = NULL;
	n->want_done = n->want_recv = n->stop_nsent = 0;
	run(n, 5); /* deliveries still queued free themselves */
	event_base_free(n->base);
	free(n->a.sent);
	free(n->b.sent);
	free(n->a.recv_data);
	free(n->b.recv_data);
	free(n);
}

static void run(struct net *n, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_base_loopexit(n->base, &tv);
	event_base_dispatch(n->base);
}

static const struct madio_dest to_b = {.dlid = LID_B, .qpn = QPN_B};

/* A sends len bytes (pattern seed) with template TID tid; done into slot i. */
static int send_i(struct net *n, unsigned i, uint64_t tid, const uint8_t *payload, size_t len)
{
	uint8_t hdr[RMPP_SA_HDR_SIZE];

	make_hdr(tid, hdr);
	return rmpp_send(n->a.r, &to_b, hdr, payload, len, on_done, &n->slot[i]);
}

static struct rmpp_stats stats(struct side *s)
{
	struct rmpp_stats st;

	rmpp_get_stats(s->r, &st);
	return st;
}

/* Feed a MAD to a side as if from the other one; returns rmpp_input's code. */
static int input_from(struct side *to, const struct side *from, const uint8_t *mad)
{
	return rmpp_input(to->r, &from->addr, mad, 256);
}

/* ---- the header codec -------------------------------------------------------------- */

static bool hdr_eq(const struct rmpp_hdr *a, const struct rmpp_hdr *b)
{
	return a->version == b->version && a->type == b->type && a->resp_time == b->resp_time &&
	       a->flags == b->flags && a->status == b->status && a->data1 == b->data1 &&
	       a->data2 == b->data2;
}

static void test_codec(void)
{
	const struct rmpp_hdr g = {1, RMPP_TYPE_ACK, 0x1f, 5, 0x7c, 0x01020304, 0xa0b0c0d0};
	const uint8_t golden[12] = {0x01, 0x02, 0xfd, 0x7c, 0x01, 0x02,
				    0x03, 0x04, 0xa0, 0xb0, 0xc0, 0xd0};
	uint8_t img[256];
	struct rmpp_hdr h, keep;

	memset(img, 0xee, sizeof(img));
	CU_ASSERT_EQUAL(rmpp_hdr_encode(&g, img, sizeof(img)), 0);
	CU_ASSERT(memcmp(img + 24, golden, sizeof(golden)) == 0);
	for (int i = 0; i < 256; i++)
		if (i < 24 || i >= 36)
			CU_ASSERT_EQUAL(img[i], 0xee);
	CU_ASSERT_EQUAL(rmpp_hdr_decode(img, RMPP_HDR_END, &h), 0);
	CU_ASSERT(hdr_eq(&h, &g));
	CU_ASSERT(rmpp_is_active(img, RMPP_HDR_END));

	/* decode -> encode -> decode over every flag and type */
	for (unsigned f = 0; f < 8; f++) {
		struct rmpp_hdr a = {1,		 (uint8_t)(f % 5), (uint8_t)(f * 4),
				     (uint8_t)f, (uint8_t)f,	   f * 1000003u,
				     ~f};
		uint8_t b[RMPP_HDR_END] = {0};
		CU_ASSERT_EQUAL(rmpp_hdr_encode(&a, b, sizeof(b)), 0);
		CU_ASSERT_EQUAL(rmpp_hdr_decode(b, sizeof(b), &h), 0);
		CU_ASSERT(hdr_eq(&h, &a));
		CU_ASSERT_EQUAL(rmpp_is_active(b, sizeof(b)), (f & 1) != 0);
	}

	/* truncation at every length */
	memset(&keep, 0x5a, sizeof(keep));
	for (size_t len = 0; len < RMPP_HDR_END; len++) {
		h = keep;
		CU_ASSERT_EQUAL(rmpp_hdr_decode(img, len, &h), -EBADMSG);
		CU_ASSERT(memcmp(&h, &keep, sizeof(h)) == 0);
		CU_ASSERT(!rmpp_is_active(img, len));
		CU_ASSERT_EQUAL(rmpp_hdr_encode(&g, img, len), -ENOSPC);
	}
	CU_ASSERT_EQUAL(rmpp_hdr_decode(NULL, 256, &h), -EBADMSG);
	h = g;
	h.resp_time = 32;
	CU_ASSERT_EQUAL(rmpp_hdr_encode(&h, img, sizeof(img)), -EINVAL);
	h = g;
	h.flags = 8;
	CU_ASSERT_EQUAL(rmpp_hdr_encode(&h, img, sizeof(img)), -EINVAL);
}

/* ---- set-up and refusals --------------------------------------------------------- */

static int null_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	return 0;
}

static void test_new_bad(void)
{
	struct event_base *base = event_base_new();
	struct rmpp_opts o = {0};
	struct rmpp *r;

	CU_ASSERT_FATAL(base != NULL);
	CU_ASSERT_PTR_NULL(rmpp_new(NULL, &o, null_send, NULL));
	CU_ASSERT_PTR_NULL(rmpp_new(base, &o, NULL, NULL));
	o.window = 1u << 20;
	CU_ASSERT_PTR_NULL(rmpp_new(base, &o, null_send, NULL));
	o = (struct rmpp_opts){.max_payload = RMPP_PAYLOAD_LIMIT + 1};
	CU_ASSERT_PTR_NULL(rmpp_new(base, &o, null_send, NULL));
	r = rmpp_new(base, NULL, null_send, NULL);
	CU_ASSERT_PTR_NOT_NULL(r);
	rmpp_free(r);
	rmpp_free(NULL);
	event_base_free(base);
}

static void test_send_refused(void)
{
	struct rmpp_opts o = opts_fast;
	struct net *n;
	uint8_t hdr[RMPP_SA_HDR_SIZE], big[2001], bad[RMPP_SA_HDR_SIZE];
	struct madio_dest to = to_b;
	struct rmpp_stats st;

	o.max_transfers = 3;
	o.max_payload = 2000;
	o.max_bytes = 3000;
	n = net_new(&o, NULL, false);
	make_hdr(1, hdr);
	fill(big, sizeof(big), 1);
	CU_ASSERT_EQUAL(rmpp_send(NULL, &to, hdr, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, NULL, hdr, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, NULL, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, NULL, 5, on_done, &n->slot[0]), -EINVAL);
	memcpy(bad, hdr, sizeof(bad));
	bad[1] = WIRE_CLASS_PERF;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, bad, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	memcpy(bad, hdr, sizeof(bad));
	bad[0] = 2;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, bad, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	to.dlid = 0;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	to = to_b;
	to.qpn = 0;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, NULL, 0, on_done, &n->slot[0]), -EINVAL);
	to = to_b;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, big, 2001, on_done, &n->slot[0]), -EMSGSIZE);
	CU_ASSERT_EQUAL(n->a.nsent, 0);

	/* one TID per peer at a time; the same TID to another peer is another transfer */
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, big, 2000, on_done, &n->slot[0]), 0);
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, big, 10, on_done, &n->slot[1]), -EEXIST);
	to.qpn = 2;
	/* 2000 + 1001 bytes would pass max_bytes */
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, big, 1001, on_done, &n->slot[1]), -ENOBUFS);
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, big, 1000, on_done, &n->slot[1]), 0);
	to.dlid = 9;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, NULL, 0, on_done, &n->slot[2]), 0);
	to.dlid = 10;
	CU_ASSERT_EQUAL(rmpp_send(n->a.r, &to, hdr, NULL, 0, on_done, &n->slot[3]), -ENOBUFS);
	st = stats(&n->a);
	CU_ASSERT_EQUAL(st.active, 3);
	CU_ASSERT_EQUAL(st.bytes, 3000);
	CU_ASSERT_EQUAL(st.started, 3);
	CU_ASSERT_EQUAL(n->ndone, 0); /* never from inside rmpp_send */
	net_free(n);
}

/* ---- what goes out ------------------------------------------------------------------ */

/* One segment: the kernel's bytes, Active|First|Last, complete once sent. */
static void test_single_segment(void)
{
	static const size_t sizes[] = {0, 1, 112, 199, 200};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		uint8_t payload[200], hdr[RMPP_SA_HDR_SIZE], want[256], ack[256];
		size_t len = sizes[k];
		struct rmpp_stats st;

		fill(payload, sizeof(payload), (unsigned)k);
		make_hdr(0x1234567800000000ull + k, hdr);
		CU_ASSERT_EQUAL_FATAL(send_i(n, 0, mad_tid(hdr), payload, len), 0);
		CU_ASSERT_EQUAL(n->slot[0].calls, 0);
		CU_ASSERT_EQUAL_FATAL(n->a.nsent, 1);
		kernel_segment(hdr, payload, len, 1, want);
		CU_ASSERT(memcmp(n->a.sent[0].mad, want, 256) == 0);
		CU_ASSERT_EQUAL(n->a.sent[0].mad[26], (1 << 3) | 7); /* RRespTime kept, A|F|L */
		CU_ASSERT_EQUAL(get32(n->a.sent[0].mad + 28), 1);
		CU_ASSERT_EQUAL(get32(n->a.sent[0].mad + 32), 20 + len);
		CU_ASSERT_EQUAL(n->a.sent[0].to.dlid, LID_B);
		CU_ASSERT_EQUAL(n->a.sent[0].to.qpn, QPN_B);

		/* no ACK needed; nothing more is sent, not even after the retries' time */
		run(n, 10);
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);
		CU_ASSERT_EQUAL(n->slot[0].status, 0);
		run(n, 5 * opts_fast.timeout_ms);
		CU_ASSERT_EQUAL(n->a.nsent, 1);
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);

		/* the ACK a kernel receiver sends for it arrives late: not ours any more */
		kernel_ack(want, 1, 1, ack);
		CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), -ENOENT);
		st = stats(&n->a);
		CU_ASSERT_EQUAL(st.started, 1);
		CU_ASSERT_EQUAL(st.completed, 1);
		CU_ASSERT_EQUAL(st.segs_sent, 1);
		CU_ASSERT_EQUAL(st.segs_resent, 0);
		CU_ASSERT_EQUAL(st.unmatched, 1);
		CU_ASSERT_EQUAL(st.active, 0);
		CU_ASSERT_EQUAL(st.bytes, 0);
		net_free(n);
	}
}

/* A single segment acknowledged before its completion runs completes once. */
static void test_single_segment_acked(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t ack[256];

	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 77, NULL, 0), 0);
	kernel_ack(n->a.sent[0].mad, 1, 1, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL(n->slot[0].calls, 1);
	CU_ASSERT_EQUAL(n->slot[0].status, 0);
	run(n, 20);
	CU_ASSERT_EQUAL(n->slot[0].calls, 1);
	CU_ASSERT_EQUAL(stats(&n->a).completed, 1);
	net_free(n);
}

/*
 * Many segments against the kernel's receiver: every segment the kernel's
 * bytes, never beyond the window, done on the last ACK.
 */
static void test_kernel_receiver(void)
{
	static const size_t sizes[] = {201,   400,	401,	      450,	2600,
				       10000, 64 * 200, 65 * 200 + 1, 200 * 200};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		size_t len = sizes[k];
		uint8_t *payload = malloc(len), hdr[RMPP_SA_HDR_SIZE], want[256], ack[256];
		struct kmodel km = {0};
		unsigned pos = 0, pad, nacks = 0;
		uint32_t count = kernel_seg_count(len, &pad);
		struct rmpp_stats st;

		CU_ASSERT_FATAL(payload != NULL);
		fill(payload, len, (unsigned)k + 3);
		make_hdr(0xfeed0000 + k, hdr);
		CU_ASSERT_EQUAL_FATAL(send_i(n, 0, mad_tid(hdr), payload, len), 0);
		CU_ASSERT_EQUAL(n->a.nsent, 1); /* the window starts at 1 */
		while (pos < n->a.nsent) {
			const uint8_t *mad = n->a.sent[pos++].mad;
			uint32_t s = get32(mad + 28);

			kernel_segment(hdr, payload, len, s, want);
			CU_ASSERT(memcmp(mad, want, 256) == 0);
			if (kmodel_input(&km, mad, ack)) {
				nacks++;
				CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
			}
		}
		CU_ASSERT(km.complete);
		CU_ASSERT_EQUAL(n->a.nsent, count);
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);
		CU_ASSERT_EQUAL(n->slot[0].status, 0);
		st = stats(&n->a);
		CU_ASSERT_EQUAL(st.segs_sent, count);
		CU_ASSERT_EQUAL(st.acks_received, nacks);
		CU_ASSERT_EQUAL(st.completed, 1);
		CU_ASSERT_EQUAL(st.active, 0);
		net_free(n);
		free(payload);
	}
}

/* PayloadLength by hand: 450 bytes are 3 segments, 510 in the first, 70 in the last. */
static void test_payload_length(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t payload[450], ack[256];
	static const uint8_t first[4] = {0, 0, 0x01, 0xfe}, last[4] = {0, 0, 0, 0x46};

	fill(payload, sizeof(payload), 9);
	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 5, payload, sizeof(payload)), 0);
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, 0, 1, 10, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 3);
	CU_ASSERT(memcmp(n->a.sent[0].mad + 32, first, 4) == 0);
	CU_ASSERT_EQUAL(n->a.sent[0].mad[26] & 7, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST);
	CU_ASSERT_EQUAL(get32(n->a.sent[1].mad + 32), 0);
	CU_ASSERT_EQUAL(n->a.sent[1].mad[26] & 7, RMPP_FLAG_ACTIVE);
	CU_ASSERT(memcmp(n->a.sent[2].mad + 32, last, 4) == 0);
	CU_ASSERT_EQUAL(n->a.sent[2].mad[26] & 7, RMPP_FLAG_ACTIVE | RMPP_FLAG_LAST);
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(get32(n->a.sent[i].mad + 28), i + 1);
		/* the SA header is in every segment */
		CU_ASSERT(memcmp(n->a.sent[i].mad + 36, n->a.sent[0].mad + 36, 20) == 0);
		CU_ASSERT(memcmp(n->a.sent[i].mad, n->a.sent[0].mad, 24) == 0);
	}
	CU_ASSERT(memcmp(n->a.sent[2].mad + 56, payload + 400, 50) == 0);
	for (int i = 56 + 50; i < 256; i++)
		CU_ASSERT_EQUAL(n->a.sent[2].mad[i], 0);
	net_free(n);
}

/* The window follows the receiver's ACKs and nothing goes beyond it. */
static void test_window_growth(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t payload[4000], ack[256], h[256];
	struct rmpp_stats st;

	fill(payload, sizeof(payload), 4);
	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 6, payload, sizeof(payload)), 0); /* 20 segments */
	memcpy(h, n->a.sent[0].mad, 256);
	CU_ASSERT_EQUAL(n->a.nsent, 1);
	make_ctl(h, RMPP_TYPE_ACK, 0, 1, 3, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 3);
	CU_ASSERT_EQUAL(get32(n->a.sent[1].mad + 28), 2);
	CU_ASSERT_EQUAL(get32(n->a.sent[2].mad + 28), 3);
	make_ctl(h, RMPP_TYPE_ACK, 0, 2, 3, ack); /* progress, the same window */
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	make_ctl(h, RMPP_TYPE_ACK, 0, 3, 3, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL(n->a.nsent, 3);
	make_ctl(h, RMPP_TYPE_ACK, 0, 3, 7, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 7);
	for (unsigned i = 3; i < 7; i++)
		CU_ASSERT_EQUAL(get32(n->a.sent[i].mad + 28), i + 1);
	make_ctl(h, RMPP_TYPE_ACK, 0, 2, 7, ack); /* older than what was taken */
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	make_ctl(h, RMPP_TYPE_ACK, 0, 3, 5, ack); /* a smaller window */
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL(n->a.nsent, 7);
	make_ctl(h, RMPP_TYPE_ACK, 0, 7, 1000, ack); /* beyond the last: up to the last */
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 20);
	CU_ASSERT_EQUAL(n->a.sent[19].mad[26] & 7, RMPP_FLAG_ACTIVE | RMPP_FLAG_LAST);
	CU_ASSERT_EQUAL(get32(n->a.sent[19].mad + 32), 220); /* a full last segment */
	CU_ASSERT_EQUAL(n->slot[0].calls, 0);
	make_ctl(h, RMPP_TYPE_ACK, 0, 20, 1000, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL(n->slot[0].calls, 1);
	CU_ASSERT_EQUAL(n->slot[0].status, 0);
	st = stats(&n->a);
	CU_ASSERT_EQUAL(st.acks_received, 8);
	CU_ASSERT_EQUAL(st.acks_stale, 2);
	CU_ASSERT_EQUAL(st.segs_sent, 20);
	CU_ASSERT_EQUAL(st.segs_resent, 0);
	net_free(n);
}

/* ---- loss, timeouts, the peer ending it ------------------------------------------- */

/* A to B and back through our own receiver; the payload comes back whole. */
static void loopback(struct net *n, size_t len, unsigned seed)
{
	uint8_t *payload = malloc(len ? len : 1);
	uint8_t hdr[RMPP_SA_HDR_SIZE];

	CU_ASSERT_FATAL(payload != NULL);
	fill(payload, len, seed);
	make_hdr(0xabc00000 + seed, hdr);
	n->want_done = n->ndone + 1;
	n->want_recv = n->b.nrecv + 1;
	CU_ASSERT_EQUAL_FATAL(rmpp_send(n->a.r, &to_b, hdr, payload, len, on_done, &n->slot[seed]),
			      0);
	run(n, 20000);
	CU_ASSERT_EQUAL(n->slot[seed].calls, 1);
	CU_ASSERT_EQUAL(n->slot[seed].status, 0);
	CU_ASSERT_EQUAL_FATAL(n->b.nrecv, n->want_recv);
	CU_ASSERT_EQUAL(n->b.recv_status, 0);
	CU_ASSERT_EQUAL_FATAL(n->b.recv_len, len);
	CU_ASSERT(memcmp(n->b.recv_data, payload, len) == 0);
	/* the header comes back as segment 1 carried it */
	CU_ASSERT(memcmp(n->b.recv_hdr, hdr, 24) == 0);
	CU_ASSERT(memcmp(n->b.recv_hdr + 36, hdr + 36, 20) == 0);
	CU_ASSERT_EQUAL(n->b.recv_from.slid, LID_A);
	free(payload);
}

static void test_reassembly(void)
{
	static const size_t sizes[] = {0,   1,	  199,	 200,	   201,	     399,	 400,
				       401, 4400, 13000, 64 * 200, 65 * 200, 47824 * 112};
	struct net *n = net_new(&opts_fast, &opts_fast, true);
	struct rmpp_stats sa, sb;

	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		loopback(n, sizes[k], k);
	sa = stats(&n->a);
	sb = stats(&n->b);
	CU_ASSERT_EQUAL(sa.completed, sizeof(sizes) / sizeof(sizes[0]));
	CU_ASSERT_EQUAL(sa.segs_resent, 0);
	CU_ASSERT_EQUAL(sa.timeouts + sa.aborted + sa.malformed, 0);
	CU_ASSERT_EQUAL(sb.recv_completed, sizeof(sizes) / sizeof(sizes[0]));
	CU_ASSERT_EQUAL(sb.segs_received, sa.segs_sent);
	CU_ASSERT_EQUAL(sb.malformed + sb.segs_out_of_order + sb.recv_aborted, 0);
	CU_ASSERT_EQUAL(sa.bytes, 0);
	CU_ASSERT_EQUAL(sb.bytes, 0);
	net_free(n);
}

/* Our receiver's ACKs are the kernel's, window 64, for segments the kernel made. */
static void test_receiver_acks(void)
{
	static const uint32_t nsegs[] = {1, 30, 64, 65, 70, 130};

	for (unsigned k = 0; k < sizeof(nsegs) / sizeof(nsegs[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		size_t len = nsegs[k] * 200 - 17;
		uint8_t *payload = malloc(len), hdr[RMPP_SA_HDR_SIZE], mad[256], want[256];
		struct kmodel km = {0};
		unsigned nacks = 0;

		CU_ASSERT_FATAL(payload != NULL);
		fill(payload, len, k);
		make_hdr(0x99000 + k, hdr);
		for (uint32_t s = 1; s <= nsegs[k]; s++) {
			kernel_segment(hdr, payload, len, s, mad);
			CU_ASSERT_EQUAL(input_from(&n->b, &n->a, mad), 0);
			if (kmodel_input(&km, mad, want)) {
				CU_ASSERT_EQUAL_FATAL(n->b.nsent, nacks + 1);
				CU_ASSERT(memcmp(n->b.sent[nacks].mad, want, 256) == 0);
				CU_ASSERT_EQUAL(n->b.sent[nacks].to.dlid, LID_A);
				nacks++;
			}
			CU_ASSERT_EQUAL(n->b.nsent, nacks);
		}
		CU_ASSERT_EQUAL(n->b.nrecv, 1);
		CU_ASSERT_EQUAL(n->b.recv_status, 0);
		CU_ASSERT_EQUAL_FATAL(n->b.recv_len, len);
		CU_ASSERT(memcmp(n->b.recv_data, payload, len) == 0);
		CU_ASSERT(memcmp(n->b.recv_hdr, km.first, RMPP_SA_HDR_SIZE) == 0);
		/* a duplicate of the last is ACKed again while the transfer lingers */
		CU_ASSERT_EQUAL(input_from(&n->b, &n->a, mad), 0);
		CU_ASSERT_EQUAL_FATAL(n->b.nsent, nacks + 1);
		CU_ASSERT(memcmp(n->b.sent[nacks].mad, n->b.sent[nacks - 1].mad, 256) == 0);
		CU_ASSERT_EQUAL(stats(&n->b).segs_duplicate, 1);
		CU_ASSERT_EQUAL(n->b.nrecv, 1);
		/* and forgotten after the linger */
		run(n, (opts_fast.retries + 3) * opts_fast.timeout_ms);
		CU_ASSERT_EQUAL(stats(&n->b).active, 0);
		CU_ASSERT_EQUAL(n->b.nrecv, 1);
		net_free(n);
		free(payload);
	}
}

static void test_lost_segment(void)
{
	struct rmpp_opts ob = opts_fast;
	struct net *n;
	struct rmpp_stats sa, sb;

	ob.window = 8;
	n = net_new(&opts_fast, &ob, true);
	n->a.drop_seg = 5;
	n->a.drop_seg_times = 1;
	loopback(n, 50 * 200 - 3, 1);
	CU_ASSERT_EQUAL(n->a.dropped, 1);
	sa = stats(&n->a);
	sb = stats(&n->b);
	CU_ASSERT(sa.segs_resent >= 1);
	CU_ASSERT_EQUAL(sa.segs_sent, 50);
	CU_ASSERT(sb.segs_out_of_order >= 1); /* 6..9 came before 5 */
	CU_ASSERT_EQUAL(sb.segs_received, 50);
	CU_ASSERT_EQUAL(sa.timeouts, 0);

	/* the first segment lost twice: resent from 1 */
	n->a.drop_seg = 1;
	n->a.drop_seg_times = 2;
	loopback(n, 1000, 2);
	CU_ASSERT_EQUAL(n->a.dropped, 3);
	net_free(n);
}

static void test_lost_ack(void)
{
	struct rmpp_opts ob = opts_fast;
	struct net *n;
	struct rmpp_stats sa, sb;

	ob.window = 4;
	n = net_new(&opts_fast, &ob, true);
	n->b.drop_ack = 2; /* the ACK of segment 5, the end of the first full window */
	loopback(n, 12 * 200, 1);
	CU_ASSERT_EQUAL(n->b.dropped, 1);
	sa = stats(&n->a);
	sb = stats(&n->b);
	CU_ASSERT(sa.segs_resent >= 1);
	CU_ASSERT(sb.segs_duplicate >= 1);
	CU_ASSERT_EQUAL(sb.recv_completed, 1);

	/* the final ACK lost: the lingering receiver ACKs the resent last segment */
	n->b.nacks = 0;
	n->b.drop_ack = 4; /* ACKs of 1, 5, 9, then the last (12) */
	loopback(n, 12 * 200, 2);
	CU_ASSERT_EQUAL(n->b.dropped, 2);
	CU_ASSERT_EQUAL(stats(&n->b).recv_completed, 2);
	CU_ASSERT_EQUAL(n->b.nrecv, 2); /* once per transfer, the duplicate is not delivered */
	net_free(n);
}

static void test_abort_after_retries(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t payload[600], want[256];
	struct rmpp_stats st;

	fill(payload, sizeof(payload), 1);
	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 0x77, payload, sizeof(payload)), 0);
	n->want_done = 1;
	run(n, 20 * opts_fast.timeout_ms);
	CU_ASSERT_EQUAL(n->slot[0].calls, 1);
	CU_ASSERT_EQUAL(n->slot[0].status, -ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 1 + opts_fast.retries + 1);
	for (unsigned i = 0; i <= opts_fast.retries; i++)
		CU_ASSERT_EQUAL(get32(n->a.sent[i].mad + 28), 1);
	/* the ABORT: the sender's own method, too many retries */
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ABORT, RMPP_STATUS_TMR, 0, 0, want);
	want[3] ^= 0x80;
	want[26] = (1 << 3) | 1;
	CU_ASSERT(memcmp(n->a.sent[opts_fast.retries + 1].mad, want, 256) == 0);
	CU_ASSERT_EQUAL(n->a.sent[opts_fast.retries + 1].mad[3], 0x92);
	st = stats(&n->a);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	CU_ASSERT_EQUAL(st.segs_resent, opts_fast.retries);
	CU_ASSERT_EQUAL(st.aborts_sent, 1);
	CU_ASSERT_EQUAL(st.active, 0);

	/* a single segment the transport keeps refusing */
	n->a.send_ret = -EIO;
	n->want_done = 2;
	CU_ASSERT_EQUAL_FATAL(send_i(n, 1, 0x78, NULL, 0), 0);
	run(n, 20 * opts_fast.timeout_ms);
	CU_ASSERT_EQUAL(n->slot[1].calls, 1);
	CU_ASSERT_EQUAL(n->slot[1].status, -ETIMEDOUT);
	st = stats(&n->a);
	CU_ASSERT_EQUAL(st.send_errors, opts_fast.retries + 2); /* the attempts and the ABORT */
	CU_ASSERT_EQUAL(st.timeouts, 2);
	net_free(n);
}

/* A window resent after a timeout starts after the last segment ACKed. */
static void test_resend_from_last_ack(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t payload[2000], ack[256];

	fill(payload, sizeof(payload), 2);
	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 0x79, payload, sizeof(payload)), 0); /* 10 segments */
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, 0, 1, 4, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, 0, 2, 4, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 4);
	n->stop_nsent = 6;
	run(n, 5000);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 6);
	CU_ASSERT_EQUAL(get32(n->a.sent[4].mad + 28), 3);
	CU_ASSERT_EQUAL(get32(n->a.sent[5].mad + 28), 4);
	CU_ASSERT(memcmp(n->a.sent[4].mad, n->a.sent[2].mad, 256) == 0);
	CU_ASSERT_EQUAL(stats(&n->a).segs_resent, 2);
	/*
	 * Everything in the window ACKed, the window not opened: a timeout
	 * resends the last one ACKed, which a receiver ACKs again with its
	 * window.  Progress gave the retries back: as many probes as retries,
	 * no abort (with two tries left it would abort after two).
	 */
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, 0, 4, 4, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL(n->a.nsent, 6);
	n->stop_nsent = 6 + opts_fast.retries;
	run(n, 5000);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 6 + opts_fast.retries);
	for (unsigned i = 6; i < n->a.nsent; i++) {
		CU_ASSERT_EQUAL(n->a.sent[i].mad[25], RMPP_TYPE_DATA);
		CU_ASSERT_EQUAL(get32(n->a.sent[i].mad + 28), 4);
	}
	CU_ASSERT_EQUAL(n->slot[0].calls, 0);
	/* the probe's answer opens the window */
	make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, 0, 4, 10, ack);
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, ack), 0);
	CU_ASSERT_EQUAL_FATAL(n->a.nsent, 6 + opts_fast.retries + 6);
	CU_ASSERT_EQUAL(get32(n->a.sent[n->a.nsent - 1].mad + 28), 10);
	net_free(n);
}

static void test_peer_stop_abort(void)
{
	static const struct {
		uint8_t type, status;
		int rc, done;
	} cases[] = {
	    {RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, -ENOBUFS},
	    {RMPP_TYPE_ABORT, RMPP_STATUS_T2L, 0, -ECONNABORTED},
	    {RMPP_TYPE_ABORT, RMPP_STATUS_UNSPECIFIED, 0, -ECONNABORTED},
	    {RMPP_TYPE_ABORT, 5, -EBADMSG, -ECONNABORTED}, /* a bad status still ends it */
	    {RMPP_TYPE_STOP, 0, -EBADMSG, -ENOBUFS},
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		uint8_t payload[600], m[256];
		struct rmpp_stats st;

		fill(payload, sizeof(payload), k);
		CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 0x100 + k, payload, sizeof(payload)), 0);
		make_ctl(n->a.sent[0].mad, cases[k].type, cases[k].status, 0, 0, m);
		CU_ASSERT_EQUAL(input_from(&n->a, &n->b, m), cases[k].rc);
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);
		CU_ASSERT_EQUAL(n->slot[0].status, cases[k].done);
		run(n, 3 * opts_fast.timeout_ms);
		CU_ASSERT_EQUAL(n->a.nsent, 1); /* no resend, no ABORT back */
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);
		/* for a transfer no longer there */
		CU_ASSERT_EQUAL(input_from(&n->a, &n->b, m), -ENOENT);
		st = stats(&n->a);
		CU_ASSERT_EQUAL(st.aborted, 1);
		CU_ASSERT_EQUAL(st.stops_received + st.aborts_received, 1);
		CU_ASSERT_EQUAL(st.malformed, cases[k].rc ? 1u : 0u);
		CU_ASSERT_EQUAL(st.unmatched, 1);
		net_free(n);
	}
}

/* ACKs that break the protocol: an ABORT back, the transfer ends. */
static void test_bad_acks(void)
{
	static const struct {
		uint8_t status;
		uint32_t seg, nwl;
		uint8_t abort;
	} cases[] = {
	    {3, 1, 5, RMPP_STATUS_BAD_STATUS},
	    {0, 1, 0, RMPP_STATUS_W2S},
	    {0, 2, 5, RMPP_STATUS_S2B}, /* only segment 1 was sent */
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		uint8_t payload[600], m[256], want[256];

		fill(payload, sizeof(payload), k);
		CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 0x200 + k, payload, sizeof(payload)), 0);
		make_ctl(n->a.sent[0].mad, RMPP_TYPE_ACK, cases[k].status, cases[k].seg,
			 cases[k].nwl, m);
		CU_ASSERT_EQUAL(input_from(&n->a, &n->b, m), -EBADMSG);
		CU_ASSERT_EQUAL(n->slot[0].calls, 1);
		CU_ASSERT_EQUAL(n->slot[0].status, -EPROTO);
		CU_ASSERT_EQUAL_FATAL(n->a.nsent, 2);
		kernel_abort(m, cases[k].abort, want);
		CU_ASSERT(memcmp(n->a.sent[1].mad, want, 256) == 0);
		CU_ASSERT_EQUAL(n->a.sent[1].to.dlid, LID_B);
		CU_ASSERT_EQUAL(n->a.sent[1].to.qpn, QPN_B);
		CU_ASSERT_EQUAL(stats(&n->a).malformed, 1);
		CU_ASSERT_EQUAL(stats(&n->a).aborts_sent, 1);
		net_free(n);
	}
}

/* ---- the receiver's checks ------------------------------------------------------- */

/* DATA segment s of a transfer of nsegs (total declared when `total`), by hand. */
static void data_seg(uint64_t tid, uint32_t s, uint8_t flags, uint32_t paylen, uint8_t *out)
{
	uint8_t hdr[RMPP_SA_HDR_SIZE];

	make_hdr(tid, hdr);
	memset(out, 0, 256);
	memcpy(out, hdr, 56);
	out[24] = 1;
	out[25] = RMPP_TYPE_DATA;
	out[26] = (uint8_t)((1 << 3) | flags);
	out[27] = 0;
	put32(out + 28, s);
	put32(out + 32, paylen);
	fill(out + 56, 200, s);
}

/* B's last MAD sent is an RMPP MAD of that type/status/segment/window. */
static void assert_last_sent(struct side *s, uint8_t type, uint8_t status, uint32_t seg,
			     uint32_t nwl)
{
	const uint8_t *m;

	CU_ASSERT_FATAL(s->nsent > 0);
	m = s->sent[s->nsent - 1].mad;
	CU_ASSERT_EQUAL(m[25], type);
	CU_ASSERT_EQUAL(m[27], status);
	CU_ASSERT_EQUAL(get32(m + 28), seg);
	CU_ASSERT_EQUAL(get32(m + 32), nwl);
	CU_ASSERT_EQUAL(m[3], 0x12); /* the receiver's side: GetTable */
}

static void test_bad_segments(void)
{
	struct rmpp_opts ob = opts_fast;
	struct net *n;
	uint8_t m[256], c[256];
	const uint8_t A = RMPP_FLAG_ACTIVE, F = RMPP_FLAG_FIRST;
	struct rmpp_stats st;
	unsigned sent;

	ob.window = 4;
	n = net_new(&opts_fast, &ob, false);
	/* First and SegmentNumber disagree; a segment 0 */
	data_seg(1, 1, A, 1100, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_SEG, 0, 0);
	data_seg(1, 2, A | F, 1100, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_SEG, 0, 0);
	data_seg(1, 0, A, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_SEG, 0, 0);
	/* DATA with a status */
	data_seg(1, 1, A | F, 1100, m);
	m[27] = 3;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_STATUS, 0, 0);
	/* a middle segment of a transfer we never saw start */
	sent = n->b.nsent;
	data_seg(1, 3, A, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -ENOENT);
	CU_ASSERT_EQUAL(n->b.nsent, sent);
	CU_ASSERT_EQUAL(stats(&n->b).active, 0);

	/* a transfer of 5 segments, window 4: segment 1 opens 1..5 */
	data_seg(2, 1, A | F, 1100, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	assert_last_sent(&n->b, RMPP_TYPE_ACK, 0, 1, 5);
	data_seg(2, 3, A, 0, m); /* 2 was lost: dropped, the last in order ACKed */
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	assert_last_sent(&n->b, RMPP_TYPE_ACK, 0, 1, 5);
	data_seg(2, 1, A | F, 1100, m); /* a duplicate */
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	assert_last_sent(&n->b, RMPP_TYPE_ACK, 0, 1, 5);
	sent = n->b.nsent;
	data_seg(2, 9, A, 0, m); /* beyond the window: dropped, no answer */
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	CU_ASSERT_EQUAL(n->b.nsent, sent);
	data_seg(2, 2, A, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	CU_ASSERT_EQUAL(n->b.nsent, sent); /* no ACK before the window's end */
	st = stats(&n->b);
	CU_ASSERT_EQUAL(st.segs_received, 2);
	CU_ASSERT_EQUAL(st.segs_out_of_order, 1);
	CU_ASSERT_EQUAL(st.segs_duplicate, 1);
	CU_ASSERT_EQUAL(st.active, 1);
	/* First on segment 3 of it: ABORT, the transfer ends */
	data_seg(2, 3, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_SEG, 0, 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 1);
	CU_ASSERT_EQUAL(n->b.recv_status, -EPROTO);
	CU_ASSERT_EQUAL(stats(&n->b).active, 0);

	/* versions and types */
	data_seg(3, 1, A | F, 0, m);
	m[24] = 2;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_UNV, 0, 0);
	data_seg(3, 1, A | F, 0, m);
	m[25] = 7;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BADT, 0, 0);
	data_seg(3, 1, A | F, 0, m);
	m[25] = 0;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BADT, 0, 0);
	/* a STOP or ABORT is never answered, not even one of another version */
	sent = n->b.nsent;
	make_ctl(m, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0, c);
	c[24] = 2;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, c), -EBADMSG);
	CU_ASSERT_EQUAL(n->b.nsent, sent);
	st = stats(&n->b);
	CU_ASSERT_EQUAL(st.malformed, 10);
	CU_ASSERT_EQUAL(st.unmatched, 1);
	CU_ASSERT_EQUAL(st.aborts_sent, 8);
	CU_ASSERT_EQUAL(st.recv_aborted, 1);
	net_free(n);
}

static void test_bad_lengths(void)
{
	static const struct {
		uint32_t total; /* segment 1's PayloadLength */
		uint32_t nsegs; /* Last on this one */
		uint32_t last;	/* its PayloadLength */
		int rc_first;	/* what segment 1 gets */
	} cases[] = {
	    {0, 1, 19, -EBADMSG},   /* Last with less than the SA header */
	    {0, 1, 221, -EBADMSG},  /* more than a segment holds */
	    {230, 2, 10, -EBADMSG}, /* a total no segments add up to */
	    {660, 2, 120, 0},	    /* 3 declared, Last on 2 */
	    {440, 3, 20, 0},	    /* 2 declared, no Last on 2 */
	    {0, 4, 10, 0},	    /* unknown total, a short Last */
	};
	const uint8_t A = RMPP_FLAG_ACTIVE, F = RMPP_FLAG_FIRST, L = RMPP_FLAG_LAST;

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct net *n = net_new(&opts_fast, &opts_fast, false);
		uint8_t m[256];
		uint32_t s;
		int rc = 0;

		for (s = 1; s <= cases[k].nsegs; s++) {
			uint8_t flags = A | (s == 1 ? F : 0) | (s == cases[k].nsegs ? L : 0);
			uint32_t pl = s == cases[k].nsegs ? cases[k].last
				      : s == 1		  ? cases[k].total
							  : 0;

			data_seg(9, s, flags, pl, m);
			rc = input_from(&n->b, &n->a, m);
			if (s == 1)
				CU_ASSERT_EQUAL(rc, cases[k].rc_first);
			if (rc)
				break;
		}
		CU_ASSERT_EQUAL(rc, -EBADMSG);
		assert_last_sent(&n->b, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_LEN, 0, 0);
		CU_ASSERT_EQUAL(stats(&n->b).active, 0);
		CU_ASSERT(n->b.nrecv == 0 || n->b.recv_status == -EPROTO);
		net_free(n);
	}
}

static void test_truncated(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t m[256], *p;
	struct rmpp_stats st;

	data_seg(4, 1, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST, 120, m);
	for (size_t len = 0; len < 256; len++) {
		p = malloc(len ? len : 1); /* exactly sized: ASan sees an overread */
		CU_ASSERT_FATAL(p != NULL);
		memcpy(p, m, len);
		CU_ASSERT_EQUAL(rmpp_input(n->b.r, &n->a.addr, p, len), -EBADMSG);
		free(p);
	}
	CU_ASSERT_EQUAL(rmpp_input(n->b.r, &n->a.addr, NULL, 256), -EBADMSG);
	m[1] = WIRE_CLASS_PERF;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	m[1] = WIRE_CLASS_SA;
	m[0] = 2;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	m[0] = 1;
	m[26] &= ~RMPP_FLAG_ACTIVE;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), -EBADMSG);
	CU_ASSERT_EQUAL(rmpp_input(n->b.r, NULL, m, 256), -EINVAL);
	st = stats(&n->b);
	CU_ASSERT_EQUAL(st.malformed, 256 + 4);
	CU_ASSERT_EQUAL(n->b.nsent, 0); /* nothing answers what is not an RMPP MAD */
	CU_ASSERT_EQUAL(st.active, 0);
	m[26] |= RMPP_FLAG_ACTIVE;
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 1);
	CU_ASSERT_EQUAL(n->b.recv_len, 100);
	/* A takes no transfers: a DATA is not its */
	CU_ASSERT_EQUAL(input_from(&n->a, &n->b, m), -ENOENT);
	net_free(n);
}

static void test_receiver_limits(void)
{
	struct rmpp_opts ob = opts_fast;
	const uint8_t A = RMPP_FLAG_ACTIVE, F = RMPP_FLAG_FIRST;
	struct net *n;
	uint8_t m[256];
	struct rmpp_stats st;

	ob.max_payload = 1000;
	ob.max_transfers = 2;
	n = net_new(&opts_fast, &ob, false);
	/* declared 10 segments, 2000 bytes: STOP at once */
	data_seg(1, 1, A | F, 2200, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	assert_last_sent(&n->b, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
	CU_ASSERT_EQUAL(stats(&n->b).active, 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 0);
	/* a total not known: STOP when it grows beyond max_payload */
	for (uint32_t s = 1; s <= 6; s++) {
		data_seg(2, s, A | (s == 1 ? F : 0), 0, m);
		CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	}
	assert_last_sent(&n->b, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 1);
	CU_ASSERT_EQUAL(n->b.recv_status, -ENOBUFS);
	/* max_transfers */
	data_seg(3, 1, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	data_seg(4, 1, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	data_seg(5, 1, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	assert_last_sent(&n->b, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
	st = stats(&n->b);
	CU_ASSERT_EQUAL(st.active, 2);
	CU_ASSERT_EQUAL(st.recv_refused, 3);
	CU_ASSERT_EQUAL(st.stops_sent, 3);
	net_free(n);
}

/* The sender goes quiet: ABORT "total time too long", the receive fails. */
static void test_receiver_timeout(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t m[256], want[256];

	data_seg(1, 1, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST, 1100, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	n->want_recv = 1;
	run(n, 20 * opts_fast.timeout_ms);
	CU_ASSERT_EQUAL(n->b.nrecv, 1);
	CU_ASSERT_EQUAL(n->b.recv_status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(n->b.recv_from.slid, LID_A);
	kernel_abort(m, RMPP_STATUS_T2L, want);
	CU_ASSERT_EQUAL_FATAL(n->b.nsent, 2); /* the ACK of 1, the ABORT */
	CU_ASSERT(memcmp(n->b.sent[1].mad, want, 256) == 0);
	CU_ASSERT_EQUAL(n->b.sent[1].to.dlid, LID_A);
	CU_ASSERT_EQUAL(stats(&n->b).recv_timeouts, 1);
	CU_ASSERT_EQUAL(stats(&n->b).active, 0);

	/* an ABORT from the sender ends a receive too */
	data_seg(2, 1, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST, 1100, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	make_ctl(m, RMPP_TYPE_ABORT, RMPP_STATUS_UNSPECIFIED, 0, 0, want);
	want[3] ^= 0x80; /* the sender's own method */
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, want), 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 2);
	CU_ASSERT_EQUAL(n->b.recv_status, -ECONNABORTED);
	CU_ASSERT_EQUAL(stats(&n->b).active, 0);
	net_free(n);
}

/* ---- many at once, and the end ---------------------------------------------------- */

static void test_many_transfers(void)
{
	enum { N = 300 };
	struct rmpp_opts o = opts_fast;
	struct net *n;
	uint8_t payload[600], ack[256], first[N][256];
	struct madio_dest dest[N];
	unsigned order[N];

	o.timeout_ms = 10000; /* no timeouts in this test */
	o.max_transfers = N;
	n = net_new(&o, NULL, false);
	fill(payload, sizeof(payload), 3);
	for (unsigned i = 0; i < N; i++) {
		uint8_t hdr[RMPP_SA_HDR_SIZE];
		/* TIDs shared across peers, peers shared across TIDs */
		dest[i] = (struct madio_dest){.dlid = (uint16_t)(2 + i % 10), .qpn = 1 + i % 3};
		make_hdr(0x4200000000ull + i / 30, hdr);
		CU_ASSERT_EQUAL_FATAL(
		    rmpp_send(n->a.r, &dest[i], hdr, payload, 401 + i % 199, on_done, &n->slot[i]),
		    0);
		memcpy(first[i], n->a.sent[n->a.nsent - 1].mad, 256);
		order[i] = i;
	}
	CU_ASSERT_EQUAL(n->a.nsent, N);
	CU_ASSERT_EQUAL(stats(&n->a).active, N);
	srand(7);
	for (unsigned i = N - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	/* window ACKs in a shuffled order: each opens its own transfer only */
	for (unsigned k = 0; k < N; k++) {
		unsigned i = order[k], before = n->a.nsent;
		struct madio_addr from = {.slid = dest[i].dlid, .qpn = dest[i].qpn};

		make_ctl(first[i], RMPP_TYPE_ACK, 0, 1, 3, ack);
		CU_ASSERT_EQUAL(rmpp_input(n->a.r, &from, ack, 256), 0);
		CU_ASSERT_EQUAL_FATAL(n->a.nsent, before + 2);
		for (unsigned s = before; s < n->a.nsent; s++) {
			CU_ASSERT_EQUAL(mad_tid(n->a.sent[s].mad), mad_tid(first[i]));
			CU_ASSERT_EQUAL(n->a.sent[s].to.dlid, dest[i].dlid);
			CU_ASSERT_EQUAL(n->a.sent[s].to.qpn, dest[i].qpn);
			CU_ASSERT_EQUAL(get32(n->a.sent[s].mad + 28), s - before + 2);
		}
		/* the right TID from a peer it was not sent to matches nothing */
		from.slid = 100;
		CU_ASSERT_EQUAL(rmpp_input(n->a.r, &from, ack, 256), -ENOENT);
	}
	for (unsigned k = 0; k < N; k++) {
		unsigned i = order[N - 1 - k];
		struct madio_addr from = {.slid = dest[i].dlid, .qpn = dest[i].qpn};

		make_ctl(first[i], RMPP_TYPE_ACK, 0, 3, 3, ack);
		CU_ASSERT_EQUAL(rmpp_input(n->a.r, &from, ack, 256), 0);
		CU_ASSERT_EQUAL(n->slot[i].calls, 1);
		CU_ASSERT_EQUAL(n->slot[i].status, 0);
		CU_ASSERT_EQUAL(n->slot[i].order, k);
	}
	CU_ASSERT_EQUAL(stats(&n->a).completed, N);
	CU_ASSERT_EQUAL(stats(&n->a).unmatched, N);
	CU_ASSERT_EQUAL(stats(&n->a).active, 0);
	net_free(n);
}

static void test_free_cancels(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);
	uint8_t payload[600], m[256];
	const uint8_t A = RMPP_FLAG_ACTIVE, F = RMPP_FLAG_FIRST, L = RMPP_FLAG_LAST;

	fill(payload, sizeof(payload), 1);
	for (unsigned i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL_FATAL(send_i(n, i, 0x300 + i, payload, sizeof(payload)), 0);
		n->slot[i].resend = true;
	}
	/* B: two receives under way, one complete and lingering */
	data_seg(1, 1, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	data_seg(2, 1, A | F, 0, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	data_seg(3, 1, A | F | L, 30, m);
	CU_ASSERT_EQUAL(input_from(&n->b, &n->a, m), 0);
	CU_ASSERT_EQUAL(n->b.nrecv, 1);
	CU_ASSERT_EQUAL(stats(&n->b).active, 3);

	rmpp_free(n->a.r);
	n->a.r = NULL;
	for (unsigned i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(n->slot[i].calls, 1);
		CU_ASSERT_EQUAL(n->slot[i].status, -ECANCELED);
		CU_ASSERT_EQUAL(n->slot[i].resend_rc, -ESHUTDOWN);
	}
	CU_ASSERT_EQUAL(n->slot[MAX_DONE - 1].calls, 0);
	rmpp_free(n->b.r);
	n->b.r = NULL;
	CU_ASSERT_EQUAL(n->b.nrecv, 3); /* the two under way; not the lingering one */
	CU_ASSERT_EQUAL(n->b.recv_status, -ECANCELED);
	run(n, 3 * opts_fast.timeout_ms); /* no timer left behind */
	CU_ASSERT_EQUAL(n->ndone, 5);
	net_free(n);
}

/* A completion may start the next transfer. */
static void test_done_resends(void)
{
	struct net *n = net_new(&opts_fast, &opts_fast, false);

	n->slot[0].resend = true;
	CU_ASSERT_EQUAL_FATAL(send_i(n, 0, 0x400, NULL, 0), 0);
	n->want_done = 2;
	run(n, 500);
	CU_ASSERT_EQUAL(n->slot[0].calls, 1);
	CU_ASSERT_EQUAL(n->slot[0].resend_rc, 0);
	CU_ASSERT_EQUAL(n->slot[MAX_DONE - 1].calls, 1);
	CU_ASSERT_EQUAL(n->slot[MAX_DONE - 1].status, 0);
	CU_ASSERT_EQUAL(n->a.nsent, 2);
	net_free(n);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"RMPP header codec", test_codec},
	    {"bad options", test_new_bad},
	    {"sends refused", test_send_refused},
	    {"single segment: kernel bytes, done when sent", test_single_segment},
	    {"single segment acknowledged", test_single_segment_acked},
	    {"many segments against the kernel's receiver", test_kernel_receiver},
	    {"PayloadLength in first and last", test_payload_length},
	    {"window growth from ACKs", test_window_growth},
	    {"reassembly gives the payload back", test_reassembly},
	    {"receiver ACKs are the kernel's", test_receiver_acks},
	    {"lost segment resent", test_lost_segment},
	    {"lost ACK", test_lost_ack},
	    {"abort after the retries", test_abort_after_retries},
	    {"resend from the last ACK", test_resend_from_last_ack},
	    {"STOP and ABORT from the receiver", test_peer_stop_abort},
	    {"bad ACKs answered by ABORT", test_bad_acks},
	    {"bad segment numbers", test_bad_segments},
	    {"bad payload lengths", test_bad_lengths},
	    {"truncated and foreign MADs", test_truncated},
	    {"receiver limits: STOP", test_receiver_limits},
	    {"receiver timeout, sender ABORT", test_receiver_timeout},
	    {"many transfers matched", test_many_transfers},
	    {"free cancels", test_free_cancels},
	    {"done starts the next", test_done_resends},
	    {NULL, NULL},
	};

	return testutil_run("rmpp", cases);
}

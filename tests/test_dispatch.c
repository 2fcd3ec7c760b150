/*
 * Unit tests for mad/dispatch.c, received MADs to handlers by {class,
 * method, attribute}: exact keys, the three wildcards, the most specific
 * match winning whatever the registration order, the default handler,
 * malformed input, the counters, and registration errors.  MADs are built
 * with the header codec (wire_mad_hdr_encode), as the fabric would send them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "mad/dispatch.h"
#include "mad/rmpp.h"
#include "mad/wire.h"
#include "tests/testutil.h"

/* ---- a recording handler --------------------------------------------------- */

struct hit {
	const char *who; /* the registered ctx */
	unsigned calls;
	struct madio_addr from;
	struct wire_mad_hdr hdr;
	const uint8_t *buf;
	size_t len;
};

static struct hit last;

static void record(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
		   const uint8_t *buf, size_t len)
{
	last.who = ctx;
	last.calls++;
	last.from = *from;
	last.hdr = *hdr;
	last.buf = buf;
	last.len = len;
}

static const struct madio_addr from = {.slid = 0x0042, .qpn = 1, .qkey = 0x80010000, .sl = 3};

/* A whole MAD with that header; data bytes set so the handler can tell it got the raw MAD. */
static void make_mad(uint8_t *buf, uint8_t mgmt_class, uint8_t method, uint16_t attr_id)
{
	struct wire_mad_hdr h = {
	    .base_version = 1,
	    .mgmt_class = mgmt_class,
	    .class_version = mgmt_class == WIRE_CLASS_SA ? 2 : 1,
	    .method = method,
	    .tid = 0x1122334455667788ULL,
	    .attr_id = attr_id,
	    .attr_mod = 0x0a0b0c0d,
	};

	memset(buf, 0, WIRE_MAD_SIZE);
	CU_ASSERT_EQUAL_FATAL(wire_mad_hdr_encode(&h, buf, WIRE_MAD_SIZE), 0);
	for (int i = WIRE_MAD_HDR_SIZE; i < WIRE_MAD_SIZE; i++)
		buf[i] = (uint8_t)i;
}

/* Dispatch one MAD; return who got it ("default", a ctx, or "nobody"). */
static const char *route(struct dispatch *d, uint8_t mgmt_class, uint8_t method, uint16_t attr_id,
			 int want_rc)
{
	uint8_t buf[WIRE_MAD_SIZE];
	unsigned before = last.calls;

	make_mad(buf, mgmt_class, method, attr_id);
	last.who = NULL;
	CU_ASSERT_EQUAL(dispatch_input(d, &from, buf, sizeof(buf)), want_rc);
	if (last.calls == before)
		return "nobody";
	CU_ASSERT_EQUAL(last.calls, before + 1); /* one handler, once */
	CU_ASSERT_EQUAL(last.hdr.mgmt_class, mgmt_class);
	CU_ASSERT_EQUAL(last.hdr.method, method);
	CU_ASSERT_EQUAL(last.hdr.attr_id, attr_id);
	return last.who;
}

static struct dispatch *new_table(void)
{
	struct dispatch *d = dispatch_new(record, "default");

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memset(&last, 0, sizeof(last));
	return d;
}

static int reg(struct dispatch *d, uint8_t mgmt_class, unsigned method, unsigned attr_id,
	       const char *who)
{
	return dispatch_register(d, mgmt_class, method, attr_id, record, (void *)who);
}

/* ---- tests -------------------------------------------------------------- */

/* An exact key gets its MAD, with its ctx, the source, the header and the raw bytes. */
static void test_exact(void)
{
	struct dispatch *d = new_table();
	uint8_t buf[WIRE_MAD_SIZE];

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, "sminfo"), 0);
	make_mad(buf, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO);
	CU_ASSERT_EQUAL(dispatch_input(d, &from, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(last.calls, 1);
	CU_ASSERT_STRING_EQUAL(last.who, "sminfo");
	CU_ASSERT_EQUAL(last.from.slid, 0x0042);
	CU_ASSERT_EQUAL(last.from.sl, 3);
	CU_ASSERT_EQUAL(last.hdr.base_version, 1);
	CU_ASSERT_EQUAL(last.hdr.tid, 0x1122334455667788ULL);
	CU_ASSERT_EQUAL(last.hdr.attr_mod, 0x0a0b0c0d);
	CU_ASSERT_PTR_EQUAL(last.buf, buf);
	CU_ASSERT_EQUAL(last.len, sizeof(buf));

	/* each part of the key counts */
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI_DR, WIRE_GET, WIRE_ATTR_SM_INFO, -ENOENT),
			       "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_SET, WIRE_ATTR_SM_INFO, -ENOENT),
			       "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_NODE_INFO, -ENOENT),
			       "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_GET_RESP, WIRE_ATTR_SM_INFO, -ENOENT),
			       "default");
	dispatch_free(d);
}

static void test_any_attr(void)
{
	struct dispatch *d = new_table();

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_TRAP, DISPATCH_ANY_ATTR, "trap"), 0);
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_TRAP, WIRE_ATTR_NOTICE, 0), "trap");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_TRAP, 0xffff, 0), "trap");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_TRAP, 0x0000, 0), "trap");
	CU_ASSERT_STRING_EQUAL(
	    route(d, WIRE_CLASS_SMI, WIRE_TRAP_REPRESS, WIRE_ATTR_NOTICE, -ENOENT), "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI_DR, WIRE_TRAP, WIRE_ATTR_NOTICE, -ENOENT),
			       "default");
	dispatch_free(d);
}

static void test_any_method(void)
{
	struct dispatch *d = new_table();

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_PERF, DISPATCH_ANY_METHOD, WIRE_ATTR_PERF_PORT_COUNTERS,
			    "perf-counters"),
			0);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, DISPATCH_ANY_METHOD, DISPATCH_ANY_ATTR, "sa"), 0);
	const uint8_t methods[] = {WIRE_GET, WIRE_SET, WIRE_GET_RESP, WIRE_TRAP, 0x12, 0x92, 0xff};
	for (size_t i = 0; i < sizeof(methods); i++) {
		CU_ASSERT_STRING_EQUAL(
		    route(d, WIRE_CLASS_PERF, methods[i], WIRE_ATTR_PERF_PORT_COUNTERS, 0),
		    "perf-counters");
		CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SA, methods[i], 0x0035, 0), "sa");
		CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_PERF, methods[i], 0x0001, -ENOENT),
				       "default");
	}
	dispatch_free(d);
}

/* DISPATCH_ANY_RESPONSE: every method with the R bit, none without. */
static void test_any_response(void)
{
	struct dispatch *d = new_table();

	CU_ASSERT_EQUAL(
	    reg(d, WIRE_CLASS_SMI_DR, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, "responses"), 0);
	for (unsigned m = 0; m <= 0xff; m++) {
		const char *who = route(d, WIRE_CLASS_SMI_DR, (uint8_t)m, WIRE_ATTR_NODE_INFO,
					(m & 0x80) ? 0 : -ENOENT);
		CU_ASSERT_STRING_EQUAL(who, (m & 0x80) ? "responses" : "default");
	}
	dispatch_free(d);
}

/*
 * Overlapping keys: the most specific wins, in whichever order they were
 * registered.  The method counts before the attribute.
 */
static void test_most_specific(void)
{
	static const struct {
		unsigned method, attr_id;
		const char *who;
	} keys[] = {
	    {DISPATCH_ANY_METHOD, DISPATCH_ANY_ATTR, "any/any"},
	    {DISPATCH_ANY_METHOD, WIRE_ATTR_SM_INFO, "any/sminfo"},
	    {DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, "resp/any"},
	    {DISPATCH_ANY_RESPONSE, WIRE_ATTR_SM_INFO, "resp/sminfo"},
	    {WIRE_GET_RESP, DISPATCH_ANY_ATTR, "getresp/any"},
	    {WIRE_GET_RESP, WIRE_ATTR_SM_INFO, "getresp/sminfo"},
	    {WIRE_GET, DISPATCH_ANY_ATTR, "get/any"},
	};
	const size_t n = sizeof(keys) / sizeof(keys[0]);

	for (int order = 0; order < 3; order++) {
		struct dispatch *d = new_table();

		for (size_t k = 0; k < n; k++) {
			/* forwards, backwards, and interleaved */
			size_t i = order == 0 ? k : order == 1 ? n - 1 - k : (k * 3) % n;
			CU_ASSERT_EQUAL(
			    reg(d, WIRE_CLASS_SMI, keys[i].method, keys[i].attr_id, keys[i].who),
			    0);
		}
		const uint8_t smi = WIRE_CLASS_SMI;
		CU_ASSERT_STRING_EQUAL(route(d, smi, WIRE_GET_RESP, WIRE_ATTR_SM_INFO, 0),
				       "getresp/sminfo");
		CU_ASSERT_STRING_EQUAL(route(d, smi, WIRE_GET_RESP, WIRE_ATTR_NODE_INFO, 0),
				       "getresp/any");
		CU_ASSERT_STRING_EQUAL(route(d, smi, 0x94, WIRE_ATTR_SM_INFO, 0), "resp/sminfo");
		CU_ASSERT_STRING_EQUAL(route(d, smi, 0x94, WIRE_ATTR_NODE_INFO, 0), "resp/any");
		/* an exact method beats an exact attribute */
		CU_ASSERT_STRING_EQUAL(route(d, smi, WIRE_GET, WIRE_ATTR_SM_INFO, 0), "get/any");
		CU_ASSERT_STRING_EQUAL(route(d, smi, WIRE_SET, WIRE_ATTR_SM_INFO, 0), "any/sminfo");
		CU_ASSERT_STRING_EQUAL(route(d, smi, WIRE_SET, WIRE_ATTR_NODE_INFO, 0), "any/any");
		/* another class: nothing */
		CU_ASSERT_STRING_EQUAL(
		    route(d, WIRE_CLASS_SA, WIRE_GET, WIRE_ATTR_SM_INFO, -ENOENT), "default");
		dispatch_free(d);
	}
}

/* Unmatched MADs go to the default handler, or nowhere without one; both are counted. */
static void test_unmatched(void)
{
	struct dispatch *d = new_table();
	struct dispatch_stats st;

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_TRAP, DISPATCH_ANY_ATTR, "trap"), 0);
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SA, WIRE_GET, 0x0035, -ENOENT), "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_PERF, WIRE_GET, 0x0012, -ENOENT), "default");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_TRAP, WIRE_ATTR_NOTICE, 0), "trap");
	dispatch_get_stats(d, &st);
	CU_ASSERT_EQUAL(st.dispatched, 1);
	CU_ASSERT_EQUAL(st.unmatched, 2);
	CU_ASSERT_EQUAL(st.malformed, 0);
	dispatch_free(d);

	d = dispatch_new(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memset(&last, 0, sizeof(last));
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SA, WIRE_GET, 0x0035, -ENOENT), "nobody");
	dispatch_get_stats(d, &st);
	CU_ASSERT_EQUAL(st.unmatched, 1);
	dispatch_free(d);
	dispatch_free(NULL);
}

/* Shorter than a MAD header, at every length: -EBADMSG, counted, nobody called. */
static void test_malformed(void)
{
	struct dispatch *d = new_table();
	struct dispatch_stats st;
	uint8_t buf[WIRE_MAD_SIZE];

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, DISPATCH_ANY_METHOD, DISPATCH_ANY_ATTR, "smi"), 0);
	make_mad(buf, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO);
	for (size_t len = 0; len < WIRE_MAD_HDR_SIZE; len++)
		CU_ASSERT_EQUAL(dispatch_input(d, &from, buf, len), -EBADMSG);
	CU_ASSERT_EQUAL(dispatch_input(d, &from, NULL, WIRE_MAD_SIZE), -EBADMSG);
	CU_ASSERT_EQUAL(last.calls, 0);
	dispatch_get_stats(d, &st);
	CU_ASSERT_EQUAL(st.malformed, WIRE_MAD_HDR_SIZE + 1);
	CU_ASSERT_EQUAL(st.dispatched, 0);
	CU_ASSERT_EQUAL(st.unmatched, 0);
	/* a bare header is enough; the body is the handler's to check */
	CU_ASSERT_EQUAL(dispatch_input(d, &from, buf, WIRE_MAD_HDR_SIZE), 0);
	CU_ASSERT_EQUAL(last.len, WIRE_MAD_HDR_SIZE);
	/* and so are versions: base version 7 still reaches the handler */
	buf[0] = 7;
	CU_ASSERT_EQUAL(dispatch_input(d, &from, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(last.hdr.base_version, 7);
	dispatch_get_stats(d, &st);
	CU_ASSERT_EQUAL(st.dispatched, 2);
	dispatch_free(d);
}

static void test_register_errors(void)
{
	struct dispatch *d = new_table();

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, "a"), 0);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, "b"), -EEXIST);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, "c"), 0);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, "d"),
			-EEXIST);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, 0x100 + 1, WIRE_ATTR_SM_INFO, "e"), -EINVAL);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SMI, WIRE_GET, 0x10001, "f"), -EINVAL);
	CU_ASSERT_EQUAL(dispatch_register(d, WIRE_CLASS_SMI, WIRE_SET, 0, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dispatch_register(NULL, WIRE_CLASS_SMI, WIRE_SET, 0, record, NULL),
			-EINVAL);
	/* the first registration still stands */
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, 0), "a");
	/* many entries: the table grows */
	for (unsigned a = 0x100; a < 0x140; a++)
		CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, WIRE_GET, a, "many"), 0);
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SA, WIRE_GET, 0x13f, 0), "many");
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_GET_RESP, 0x13f, 0), "c");
	dispatch_free(d);
}

/* An SA MAD with an RMPP header of that type (flags: Active unless !active). */
static const char *route_rmpp(struct dispatch *d, uint8_t method, uint8_t type, bool active)
{
	struct rmpp_hdr rh = {.version = 1, .type = type, .flags = active ? RMPP_FLAG_ACTIVE : 0};
	uint8_t buf[WIRE_MAD_SIZE];

	make_mad(buf, WIRE_CLASS_SA, method, 0x0038);
	CU_ASSERT_EQUAL_FATAL(rmpp_hdr_encode(&rh, buf, sizeof(buf)), 0);
	last.who = NULL;
	dispatch_input(d, &from, buf, sizeof(buf));
	return last.who ? last.who : "nobody";
}

/*
 * The SM's SA keys (sm/sm.c): responses to its own requests to the
 * transaction engine, everything else to the SA.  A client's ACK (or STOP,
 * ABORT) of a GetTableResp we send in segments reaches the SA whichever way
 * its R bit is: with the R bit kept (0x92) it used to go to the engine as a
 * response, which drops it as unmatched, and the transfer stalled.  DATA
 * responses still go to the engine.
 */
static void test_rmpp_ctl(void)
{
	struct dispatch *d = new_table();

	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, "xact"), 0);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, DISPATCH_ANY_METHOD, DISPATCH_ANY_ATTR, "sa"), 0);
	/* before: an R-bit ACK is taken for a response */
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_ACK, true), "xact");
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, DISPATCH_RMPP_CTL, DISPATCH_ANY_ATTR, "sa-rmpp"), 0);
	CU_ASSERT_EQUAL(reg(d, WIRE_CLASS_SA, DISPATCH_RMPP_CTL, DISPATCH_ANY_ATTR, "again"),
			-EEXIST);
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_ACK, true), "sa-rmpp");
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x12, RMPP_TYPE_ACK, true), "sa-rmpp"); /* flipped */
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_STOP, true), "sa-rmpp");
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_ABORT, true), "sa-rmpp");
	/* DATA, a type out of range, or not Active: by method as before */
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_DATA, true), "xact");
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x12, RMPP_TYPE_DATA, true), "sa");
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, 5, true), "xact");
	CU_ASSERT_STRING_EQUAL(route_rmpp(d, 0x92, RMPP_TYPE_ACK, false), "xact");
	/* another class's bytes are not taken for an RMPP header */
	CU_ASSERT_STRING_EQUAL(route(d, WIRE_CLASS_SMI, WIRE_GET_RESP, 0x11, -ENOENT), "default");
	dispatch_free(d);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"exact key", test_exact},
	    {"any attribute", test_any_attr},
	    {"any method", test_any_method},
	    {"any response method", test_any_response},
	    {"most specific wins", test_most_specific},
	    {"unmatched -> default", test_unmatched},
	    {"malformed -> -EBADMSG, counted", test_malformed},
	    {"registration errors", test_register_errors},
	    {"RMPP ACK/STOP/ABORT to the SA whatever the R bit", test_rmpp_ctl},
	    {NULL, NULL},
	};

	return testutil_run("dispatch", cases);
}

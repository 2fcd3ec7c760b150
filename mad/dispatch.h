/*
 * Received MADs to handlers: a table keyed by {management class, method,
 * attribute} (IBA 1.4 vol 1, 13.4.2 common MAD header), filled at start-up.
 *
 * A key's method is exact, DISPATCH_ANY_METHOD, or DISPATCH_ANY_RESPONSE (any
 * method with the R bit, 0x80); its attribute is exact or DISPATCH_ANY_ATTR.
 * The most specific match wins: the method counts before the attribute
 * (exact > any response > any), so at most one entry wins.  A MAD no entry
 * matches goes to the default handler.  The header is decoded once here; the
 * handler gets it and the raw bytes to decode the body itself (versions
 * included).  No logging: counters tell what happened.
 */
#ifndef IBSMD_DISPATCH_H
#define IBSMD_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "mad/madio.h"
#include "mad/wire.h"

#define DISPATCH_ANY_METHOD 0x100
#define DISPATCH_ANY_RESPONSE 0x180
#define DISPATCH_ANY_ATTR 0x10000
/*
 * An RMPP control MAD (RMPP-active, type ACK, STOP or ABORT; IBA 13.6.2) of
 * the class, whatever its method: the peer's side of a transfer we send.
 * A receiver flips the R bit of the DATA it acknowledges (the kernel does),
 * but nothing in 13.6 makes it, and an ACK of our GetTableResp that kept
 * the R bit must not go where responses to our own requests go (the
 * transaction engine, which drops it as unmatched: the transfer stalls
 * until its retries run out).  Wins over every other key.  For classes
 * with an RMPP header only (SA).
 */
#define DISPATCH_RMPP_CTL 0x200

struct dispatch;

/*
 * ctx is what the entry was registered with; from is where the MAD came
 * from; buf/len the whole MAD as received (len >= WIRE_MAD_HDR_SIZE).  The
 * pointers are valid during the call only.
 */
typedef void (*dispatch_fn)(void *ctx, const struct madio_addr *from,
			    const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len);

struct dispatch_stats {
	uint64_t dispatched; /* to a registered handler */
	uint64_t unmatched;  /* to the default handler (or dropped without one) */
	uint64_t malformed;  /* no MAD header */
};

/* A table whose unmatched MADs go to dflt(dflt_ctx, ...) (NULL: dropped). NULL on ENOMEM. */
struct dispatch *dispatch_new(dispatch_fn dflt, void *dflt_ctx);
/* NULL ok. */
void dispatch_free(struct dispatch *d);

/*
 * Register fn(ctx, ...) for MADs of mgmt_class with that method (0..0xff,
 * DISPATCH_ANY_METHOD, DISPATCH_ANY_RESPONSE, DISPATCH_RMPP_CTL) and attribute (0..0xffff,
 * DISPATCH_ANY_ATTR).  0, -EINVAL (a key out of range, fn NULL), -EEXIST
 * (the key is taken), -ENOMEM.  Not from inside a handler.
 */
int dispatch_register(struct dispatch *d, uint8_t mgmt_class, unsigned method, unsigned attr_id,
		      dispatch_fn fn, void *ctx);

/*
 * Decode buf's header and call the handler of the best match.  0 when a
 * registered handler took it, -ENOENT when it went to the default handler,
 * -EBADMSG (counted, nobody called) when buf is shorter than a MAD header.
 */
int dispatch_input(struct dispatch *d, const struct madio_addr *from, const uint8_t *buf,
		   size_t len);

void dispatch_get_stats(const struct dispatch *d, struct dispatch_stats *ret);

#endif

/*
 * Received-MAD dispatch (see dispatch.h).  IBA 1.4 vol 1, 13.4.2 (the common
 * header: class, method with its R bit, attribute ID).
 *
 * The table is a handful of entries kept sorted by specificity, most
 * specific first, so the first entry that matches is the best; a lookup is a
 * scan of that short array.  Two entries that match one MAD with the same
 * specificity would have the same key, which dispatch_register refuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/dispatch.h"
#include "mad/rmpp.h"

struct dispatch_entry {
	uint8_t mgmt_class;
	unsigned method;
	unsigned attr_id;
	unsigned rank;
	dispatch_fn fn;
	void *ctx;
};

struct dispatch {
	struct dispatch_entry *entries; /* by rank, highest first */
	size_t n, cap;
	dispatch_fn dflt;
	void *dflt_ctx;
	struct dispatch_stats st;
};

/* RMPP control 6, exact method 4, any response 2, any method 0; plus 1 for an exact attribute */
static unsigned dispatch_rank(unsigned method, unsigned attr_id)
{
	unsigned r = method == DISPATCH_RMPP_CTL       ? 6
		     : method == DISPATCH_ANY_METHOD   ? 0
		     : method == DISPATCH_ANY_RESPONSE ? 2
						       : 4;

	return r + (attr_id == DISPATCH_ANY_ATTR ? 0 : 1);
}

/* An RMPP-active ACK, STOP or ABORT. */
static bool dispatch_is_rmpp_ctl(const uint8_t *buf, size_t len)
{
	struct rmpp_hdr rh;

	return rmpp_hdr_decode(buf, len, &rh) == 0 && (rh.flags & RMPP_FLAG_ACTIVE) &&
	       rh.type >= RMPP_TYPE_ACK && rh.type <= RMPP_TYPE_ABORT;
}

static bool dispatch_matches(const struct dispatch_entry *e, const struct wire_mad_hdr *h,
			     const uint8_t *buf, size_t len)
{
	if (e->mgmt_class != h->mgmt_class)
		return false;
	if (e->attr_id != DISPATCH_ANY_ATTR && e->attr_id != h->attr_id)
		return false;
	if (e->method == DISPATCH_RMPP_CTL)
		return dispatch_is_rmpp_ctl(buf, len);
	if (e->method == DISPATCH_ANY_METHOD)
		return true;
	if (e->method == DISPATCH_ANY_RESPONSE)
		return (h->method & WIRE_METHOD_RESP) != 0;
	return e->method == h->method;
}

struct dispatch *dispatch_new(dispatch_fn dflt, void *dflt_ctx)
{
	struct dispatch *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->dflt = dflt;
	d->dflt_ctx = dflt_ctx;
	return d;
}

void dispatch_free(struct dispatch *d)
{
	if (!d)
		return;
	free(d->entries);
	free(d);
}

int dispatch_register(struct dispatch *d, uint8_t mgmt_class, unsigned method, unsigned attr_id,
		      dispatch_fn fn, void *ctx)
{
	struct dispatch_entry e = {mgmt_class, method, attr_id, dispatch_rank(method, attr_id),
				   fn,	       ctx};
	size_t at;

	if (!d || !fn ||
	    (method > 0xff && method != DISPATCH_ANY_METHOD && method != DISPATCH_ANY_RESPONSE &&
	     method != DISPATCH_RMPP_CTL) ||
	    (attr_id > 0xffff && attr_id != DISPATCH_ANY_ATTR))
		return -EINVAL;
	for (size_t i = 0; i < d->n; i++)
		if (d->entries[i].mgmt_class == mgmt_class && d->entries[i].method == method &&
		    d->entries[i].attr_id == attr_id)
			return -EEXIST;
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 8;
		struct dispatch_entry *ne = realloc(d->entries, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		d->entries = ne;
		d->cap = ncap;
	}
	/* after the entries of a higher or equal rank: stable, registration order */
	for (at = 0; at < d->n && d->entries[at].rank >= e.rank; at++)
		;
	memmove(d->entries + at + 1, d->entries + at, (d->n - at) * sizeof(e));
	d->entries[at] = e;
	d->n++;
	return 0;
}

int dispatch_input(struct dispatch *d, const struct madio_addr *from, const uint8_t *buf,
		   size_t len)
{
	struct wire_mad_hdr h;

	if (wire_mad_hdr_decode(buf, len, &h) < 0) {
		d->st.malformed++;
		return -EBADMSG;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct dispatch_entry *e = &d->entries[i];
		if (dispatch_matches(e, &h, buf, len)) {
			d->st.dispatched++;
			e->fn(e->ctx, from, &h, buf, len);
			return 0;
		}
	}
	d->st.unmatched++;
	if (d->dflt)
		d->dflt(d->dflt_ctx, from, &h, buf, len);
	return -ENOENT;
}

void dispatch_get_stats(const struct dispatch *d, struct dispatch_stats *ret)
{
	*ret = d->st;
}

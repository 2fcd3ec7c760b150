/*
 * The SA object (struct sa, sa_int.h) as the files of sa/ share it: its
 * state read by the record handlers (event loop, snapshot, databases, the
 * SM's info), the answer being collected (sa_result_add, sa_query_offer),
 * the trust of a query (15.4.1) and sending a MAD of their own (Reports).
 * The server (sa.c) sits above: it owns the object's life and dispatches
 * to the handlers, which call down into this file, never up into sa.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/pkeyview.h"
#include "policy/partition.h"
#include "sa/inform.h"
#include "sa/sa_int.h"
#include "sa/service.h"

struct sa_mcmember *sa_mcmember(struct sa *sa)
{
	return &sa->mcm;
}

const struct mft_set *sa_mfts(const struct sa *sa)
{
	return sa->mfts ? *sa->mfts : NULL;
}

const struct qos_policy *sa_qos(const struct sa *sa)
{
	return sa ? sa->qos : NULL;
}

const struct partition_config *sa_parts(const struct sa *sa)
{
	return sa ? sa->parts : NULL;
}

struct event_base *sa_event_base(const struct sa *sa)
{
	return sa->base;
}

const struct snapshot *sa_snapshot(const struct sa *sa)
{
	return sa->snap;
}

struct sa_service_db *sa_services(const struct sa *sa)
{
	return sa->services;
}

struct sa_inform_db *sa_informs(const struct sa *sa)
{
	return sa->informs;
}

bool sa_query_trusted(const struct sa_query *q)
{
	struct sa_sm_info si;

	sa_sm_info(q->sa, &si);
	return si.sa_key && q->mad->sm_key == si.sa_key;
}

void sa_count_pkey(struct sa *sa, enum sa_pkey_kind kind)
{
	if (!sa)
		return;
	if (kind == SA_PKEY_PATH)
		sa->st.pkey_paths++;
	else if (kind == SA_PKEY_SERVICE)
		sa->st.pkey_services++;
	else
		sa->st.pkey_informs++;
}

void sa_port_pkeys(const struct sa_query *q, uint32_t node, uint8_t port, const uint16_t **t,
		   size_t *n)
{
	static const uint16_t dflt[1] = {0xffff};
	uint8_t known;

	pkeyview_port(q->sa ? q->sa->pkv : NULL, q->snap->fabric, node, port, t, &known);
	*n = FABRIC_PKEY_BLOCKS * 32;
	if (!known) {
		*t = dflt;
		*n = 1;
	}
}

bool sa_port_has_pkey(const struct sa_query *q, uint32_t node, uint8_t port, uint16_t pkey)
{
	const uint16_t *t;
	size_t n;

	if (!(pkey & 0x7fff))
		return false;
	sa_port_pkeys(q, node, port, &t, &n);
	return partition_table_find(t, n, pkey) != 0;
}

uint64_t sa_subnet_prefix(const struct snapshot *snap)
{
	return snap && snap->fabric->subnet_prefix ? snap->fabric->subnet_prefix
						   : 0xfe80000000000000ULL;
}

void sa_sm_info(const struct sa *sa, struct sa_sm_info *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (sa->ops.sm_info)
		sa->ops.sm_info(sa->ops.ctx, ret);
}

int sa_result_add(struct sa_result *res, const uint8_t *rec, uint16_t size)
{
	if (res->n >= res->limit)
		return -ENOSPC;
	if (res->len + res->stride > res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 8u * res->stride;
		uint8_t *b = realloc(res->buf, cap);

		if (!b)
			return -ENOMEM;
		res->buf = b;
		res->cap = cap;
	}
	memset(res->buf + res->len, 0, res->stride);
	memcpy(res->buf + res->len, rec, size < res->stride ? size : res->stride);
	res->len += res->stride;
	res->n++;
	return 0;
}

bool sa_query_offer(const struct sa_query *q, struct sa_result *res, const uint8_t *rec)
{
	if (!sa_wire_match(q->rec, q->qrec, rec, q->mask))
		return false;
	return sa_result_add(res, rec, q->rec->size) == 0;
}

int sa_send_mad(struct sa *sa, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	int r = sa->ops.send ? sa->ops.send(sa->ops.ctx, to, mad, len) : -ENOTCONN;

	if (r < 0)
		sa->st.send_errors++;
	return r < 0 ? r : 0;
}

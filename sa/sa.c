/*
 * The SA server (see sa.h, sa_int.h).  IBA 1.4 vol 1, 15.2 (SA MADs,
 * methods, statuses, component masks), 15.4 (the SA's behaviour).
 *
 * A query is decoded, checked (class version, method, attribute, component
 * mask, a published snapshot), handed to its attribute's handler, and
 * answered at once: Get and Set with GetResp and exactly one record, GetTable
 * with GetTableResp and every matching record, GetMulti (MultiPathRecord)
 * with GetMultiResp and a table like GetTable's, Delete with DeleteResp.  A
 * query the SA cannot answer gets an error status, never silence.  A table
 * answer that fits one MAD is sent as one (short: it ends with its last
 * record, as a receiver without RMPP counts records by length); a larger one
 * is an RMPP transfer (mad/rmpp.c), whose ACKs come back here as RMPP-active
 * MADs of the query's method.  Without an event loop (unit tests) there is
 * no RMPP and large answers are cut to one MAD, counted as truncated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/rmpp.h"
#include "sa/inform.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "sa/sa.h"
#include "sa/sa_int.h"
#include "sa/service.h"

#define SA_GSI_QKEY 0x80010000u
#define SA_TABLE_MAX 100000 /* records in one GetTable answer at most */

static int sa_rmpp_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct sa *sa = ctx;

	return sa->ops.send ? sa->ops.send(sa->ops.ctx, to, mad, len) : -ENOTCONN;
}

/* Every attribute the SA serves, table by table from each file of the SA. */
static const struct {
	const struct sa_attr *attrs;
	const unsigned *n;
} sa_attr_tables[] = {
    {sa_records_attrs, &sa_records_n_attrs}, {sa_tables_attrs, &sa_tables_n_attrs},
    {sa_pathrec_attrs, &sa_pathrec_n_attrs}, {sa_service_attrs, &sa_service_n_attrs},
    {sa_inform_attrs, &sa_inform_n_attrs},   {sa_mcmember_attrs, &sa_mcmember_n_attrs},
};

static const struct sa_attr *sa_find_attr(uint16_t id)
{
	for (size_t t = 0; t < sizeof(sa_attr_tables) / sizeof(sa_attr_tables[0]); t++)
		for (unsigned i = 0; i < *sa_attr_tables[t].n; i++)
			if (sa_attr_tables[t].attrs[i].attr_id == id)
				return &sa_attr_tables[t].attrs[i];
	return NULL;
}

struct sa *sa_new(struct event_base *base, const struct sa_ops *ops)
{
	struct sa *sa = calloc(1, sizeof(*sa));

	if (!sa)
		return NULL;
	sa->base = base;
	sa->ops = *ops;
	if (base) {
		sa->rmpp = rmpp_new(base, NULL, sa_rmpp_send, sa);
		if (!sa->rmpp) {
			free(sa);
			return NULL;
		}
	}
	sa->services = sa_service_db_new(sa);
	sa->informs = sa_inform_db_new(sa);
	if (!sa->services || !sa->informs) {
		sa_free(sa);
		return NULL;
	}
	return sa;
}

void sa_free(struct sa *sa)
{
	if (!sa)
		return;
	sa_set_mcast(sa, NULL);
	sa_inform_db_free(sa->informs);
	sa_service_db_free(sa->services);
	rmpp_free(sa->rmpp);
	qos_policy_free(sa->qos);
	partition_config_free(sa->parts);
	free(sa);
}

/*
 * A fabric with no node is a sweep that found nothing (the local port is
 * down): it says nothing about which ports left, so it neither removes
 * services and subscriptions nor makes ports appear or disappear.
 */
static bool sa_snapshot_known(const struct snapshot *s)
{
	return s && s->fabric && s->fabric->n_nodes;
}

void sa_publish(struct sa *sa, const struct snapshot *snap)
{
	if (sa_snapshot_known(snap))
		sa_service_publish(sa->services, snap);
	if (sa_snapshot_known(snap) && sa_snapshot_known(sa->snap))
		sa_inform_publish(sa->informs, sa->snap, snap);
	sa->snap = snap;
}

void sa_get_stats(const struct sa *sa, struct sa_stats *ret)
{
	struct rmpp_stats rs;

	*ret = sa->st;
	if (sa->rmpp) {
		rmpp_get_stats(sa->rmpp, &rs);
		ret->rmpp_transfers = rs.started;
		ret->rmpp_aborted = rs.aborted + rs.timeouts;
	}
	sa_service_get_stats(sa->services, ret);
	sa_inform_get_stats(sa->informs, ret);
	ret->mcast_joins = sa->mcm.joins;
	ret->mcast_leaves = sa->mcm.leaves;
	ret->mcast_refused = sa->mcm.refused;
	ret->pkey_joins = sa->mcm.pkey_refused;
}

int sa_set_mcast(struct sa *sa, struct mcast_db *db)
{
	struct sa_mcmember next = sa->mcm;
	int r;

	if (db == sa->mcm.db)
		return 0;
	next.db = db;
	r = sa_mcmember_hook(sa, &next, true);
	if (r < 0)
		return r;
	sa_mcmember_hook(sa, &sa->mcm, false);
	sa->mcm.db = db;
	return 0;
}

void sa_set_mfts(struct sa *sa, struct mft_set *const *mfts)
{
	sa->mfts = mfts;
}

void sa_set_vlt(struct sa *sa, const struct vlt_set *vlt)
{
	sa->vlt = vlt;
}

void sa_set_pkeyview(struct sa *sa, const struct pkeyview *v)
{
	if (sa)
		sa->pkv = v;
}

void sa_set_policies(struct sa *sa, struct qos_policy *qos, struct partition_config *parts)
{
	qos = qos_policy_ref(qos);
	parts = partition_config_ref(parts);
	qos_policy_free(sa->qos);
	partition_config_free(sa->parts);
	sa->qos = qos;
	sa->parts = parts;
}

/* ---- answers --------------------------------------------------------------- */

static const char *sa_method_str(uint8_t m)
{
	switch (m) {
	case SA_METHOD_GET:
		return "Get";
	case SA_METHOD_SET:
		return "Set";
	case SA_METHOD_GET_TABLE:
		return "GetTable";
	case SA_METHOD_GET_MULTI:
		return "GetMulti";
	case SA_METHOD_DELETE:
		return "Delete";
	case SA_METHOD_REPORT:
		return "Report";
	default:
		return "method";
	}
}

static uint8_t sa_resp_method(uint8_t m)
{
	switch (m) {
	case SA_METHOD_GET_TABLE:
		return SA_METHOD_GET_TABLE_RESP;
	case SA_METHOD_GET_MULTI:
		return SA_METHOD_GET_MULTI_RESP;
	case SA_METHOD_DELETE:
		return SA_METHOD_DELETE_RESP;
	case SA_METHOD_REPORT:
		return SA_METHOD_REPORT_RESP;
	default:
		return SA_METHOD_GET_RESP; /* Get and Set (C15-0.1.x: SetResp is GetResp) */
	}
}

/*
 * Send resp; len bytes of it (a GetTable answer ends with its last record: a
 * receiver without RMPP, like ibsim's clients, counts records by length; the
 * kernel pads a short MAD to 256 bytes on the wire).
 */
static void sa_send(struct sa *sa, const struct madio_addr *from, const struct sa_wire_mad *resp,
		    size_t len)
{
	struct madio_dest to = {from->slid, from->qpn, SA_GSI_QKEY, from->sl};
	uint8_t buf[WIRE_MAD_SIZE];

	if (sa_wire_encode(resp, buf, sizeof(buf)) < 0)
		sa->st.send_errors++;
	else
		sa_send_mad(sa, &to, buf, len);
}

/* Whether method's answer is a table (GetTableResp, GetMultiResp). */
static bool sa_method_is_table(uint8_t method)
{
	return method == SA_METHOD_GET_TABLE || method == SA_METHOD_GET_MULTI;
}

static void sa_rmpp_done(void *arg, int status)
{
	/* a lost transfer is the client's to retry; rmpp counts it */
}

/* A GetTable answer larger than one MAD: an RMPP transfer of every record. */
static void sa_answer_rmpp(struct sa *sa, const struct madio_addr *from, struct sa_wire_mad *resp,
			   const struct sa_result *res)
{
	struct madio_dest to = {from->slid, from->qpn, SA_GSI_QKEY, from->sl};
	uint8_t hdr[WIRE_MAD_SIZE];
	int r;

	resp->attr_offset = (uint16_t)(res->stride / 8);
	if (res->attr_id)
		resp->hdr.attr_id = res->attr_id;
	memset(resp->data, 0, sizeof(resp->data));
	sa_wire_encode(resp, hdr, sizeof(hdr));
	r = rmpp_send(sa->rmpp, &to, hdr, res->buf, (size_t)res->n * res->stride, sa_rmpp_done, sa);
	if (r == 0 || r == -EEXIST) {
		/* -EEXIST: the client asked again while we still answer it */
		sa->st.answered++;
		return;
	}
	log_ratelimited(LOG_CAT_SA, LOG_WARNING, "SA: cannot send %u records to LID %u QP %u: %s",
			res->n, from->slid, from->qpn, strerror(-r));
	resp->hdr.status = SA_STATUS_NO_RESOURCES;
	resp->attr_offset = 0;
	resp->rmpp_version = resp->rmpp_type = resp->rmpp_flags = 0;
	sa->st.errors++;
	sa_send(sa, from, resp, WIRE_MAD_SIZE);
}

/*
 * The answer to req: status, and records (n of them at stride, or none).  A
 * GetTable or GetMulti answer is one RMPP DATA segment, first and last
 * (13.6.2).
 */
static void sa_answer(struct sa *sa, const struct madio_addr *from, const struct sa_wire_mad *req,
		      uint16_t status, const struct sa_result *res)
{
	struct sa_wire_mad resp = *req;
	uint8_t method = req->hdr.method;
	size_t len = WIRE_MAD_SIZE;

	resp.hdr.method = sa_resp_method(method);
	resp.hdr.status = status;
	resp.sm_key = 0; /* C15-0.1.5: the SA never returns an SM_Key */
	resp.rmpp_version = resp.rmpp_type = resp.rmpp_flags = resp.rmpp_status = 0;
	resp.rmpp_resp_time = 0;
	resp.rmpp_data1 = resp.rmpp_data2 = 0;
	if (status == SA_STATUS_OK && res && sa_method_is_table(method) && sa->rmpp &&
	    res->n * res->stride > SA_WIRE_DATA_SIZE) {
		sa_answer_rmpp(sa, from, &resp, res);
		return;
	}
	if (status == SA_STATUS_OK && res) {
		size_t fit = res->stride ? SA_WIRE_DATA_SIZE / res->stride : 0;
		size_t n = res->n;

		if (n > fit) {
			n = fit;
			sa->st.truncated++;
		}
		memset(resp.data, 0, sizeof(resp.data));
		if (n)
			memcpy(resp.data, res->buf, n * res->stride);
		resp.attr_offset = n ? (uint16_t)(res->stride / 8) : 0;
		if (res->attr_id)
			resp.hdr.attr_id = res->attr_id;
		if (sa_method_is_table(method)) {
			resp.rmpp_version = 1;
			resp.rmpp_type = SA_RMPP_DATA;
			resp.rmpp_flags =
			    SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_FIRST | SA_RMPP_FLAG_LAST;
			resp.rmpp_data1 = 1; /* SegmentNumber */
			/* PayloadLength: the SA header after the RMPP one, and the records */
			resp.rmpp_data2 = (uint32_t)(SA_WIRE_HDR_SIZE - 36 + n * res->stride);
			len = SA_WIRE_HDR_SIZE + n * res->stride;
		}
		sa->st.answered++;
	} else {
		sa->st.errors++;
	}
	sa_send(sa, from, &resp, len);
}

/* A query the client got wrong: answered with status, logged rate-limited. */
static void sa_refuse(struct sa *sa, const struct madio_addr *from, const struct sa_wire_mad *req,
		      uint16_t status, const char *why)
{
	log_ratelimited(
	    LOG_CAT_SA, LOG_WARNING, "SA: %s(0x%04x) from LID %u QP %u refused (status 0x%04x): %s",
	    sa_method_str(req->hdr.method), req->hdr.attr_id, from->slid, from->qpn, status, why);
	sa_answer(sa, from, req, status, NULL);
}

void sa_recv(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
	     const uint8_t *buf, size_t len)
{
	struct sa *sa = ctx;
	struct sa_wire_mad req;
	const struct sa_attr *attr;
	struct sa_result res = {0};
	struct sa_query q;
	uint16_t (*fn)(struct sa_query *, struct sa_result *) = NULL;
	uint16_t status;

	sa->st.queries++;
	if (sa_wire_decode(buf, len, &req) < 0) {
		sa->st.malformed++;
		log_ratelimited(LOG_CAT_SA, LOG_WARNING,
				"SA: dropped a malformed MAD (%zu bytes) from LID %u", len,
				from->slid);
		return;
	}
	if (rmpp_is_active(buf, len) && req.rmpp_type != SA_RMPP_DATA &&
	    req.rmpp_type != SA_RMPP_NONE) {
		/* an ACK, STOP or ABORT of one of our answers */
		if (!sa->rmpp || rmpp_input(sa->rmpp, from, buf, len) == -EBADMSG)
			sa->st.malformed++;
		return;
	}
	/* a response (other than a ReportResp to our Report) answers nothing of ours: never
	 * answered */
	if ((req.hdr.method & WIRE_METHOD_RESP) && req.hdr.method != SA_METHOD_REPORT_RESP) {
		sa->st.malformed++;
		log_ratelimited(LOG_CAT_SA, LOG_NOTICE,
				"SA: dropped a response (method 0x%02x) from LID %u: not ours",
				req.hdr.method, from->slid);
		return;
	}
	/*
	 * A request flagged RMPP-active is taken as one MAD (clients like
	 * osmtest flag GetMulti so without a segment header); one that starts
	 * or continues a transfer of several segments is refused.  A ReportResp
	 * so flagged is never answered (a response is not refused).
	 */
	if (!(req.hdr.method & WIRE_METHOD_RESP) && rmpp_is_active(buf, len) &&
	    req.rmpp_type == SA_RMPP_DATA &&
	    (req.rmpp_data1 > 1 ||
	     ((req.rmpp_flags & SA_RMPP_FLAG_FIRST) && !(req.rmpp_flags & SA_RMPP_FLAG_LAST) &&
	      req.rmpp_data2 > SA_WIRE_DATA_SIZE + 20))) {
		sa_refuse(sa, from, &req, SA_STATUS_REQ_INVALID,
			  "multi-segment requests are not served");
		return;
	}
	if (req.hdr.method == SA_METHOD_REPORT_RESP) {
		sa_inform_report_resp(sa->informs, from, &req);
		return;
	}
	if (req.hdr.method & WIRE_METHOD_RESP) {
		/* a response to nothing we asked (RMPP ACKs come with RMPP) */
		sa->st.malformed++;
		return;
	}
	if (req.hdr.class_version != SA_WIRE_CLASS_VERSION) {
		sa_refuse(sa, from, &req, SA_STATUS_BAD_VERSION, "class version not 2");
		return;
	}
	switch (req.hdr.method) {
	case SA_METHOD_GET:
	case SA_METHOD_GET_TABLE:
	case SA_METHOD_GET_MULTI:
	case SA_METHOD_SET:
	case SA_METHOD_DELETE:
		break;
	default: {
		sa_refuse(sa, from, &req, SA_STATUS_BAD_METHOD, "method not supported");
		return;
	}
	}
	attr = sa_find_attr(req.hdr.attr_id);
	if (attr) {
		if (req.hdr.method == SA_METHOD_GET ||
		    (req.hdr.method == SA_METHOD_GET_TABLE && !attr->no_table))
			fn = attr->get;
		else if (req.hdr.method == SA_METHOD_SET)
			fn = attr->set;
		else if (req.hdr.method == SA_METHOD_DELETE)
			fn = attr->delete;
		else if (req.hdr.method == SA_METHOD_GET_MULTI &&
			 attr->attr_id == SA_ATTR_MULTIPATH_RECORD)
			fn = attr->get; /* GetMulti is MultiPathRecord's only method */
	}
	if (!fn) {
		sa_refuse(sa, from, &req, SA_STATUS_BAD_METHOD_ATTR,
			  attr ? "method not allowed on this attribute" : "attribute not served");
		return;
	}
	if (attr->rec && !sa_wire_mask_valid(attr->rec, req.comp_mask)) {
		sa_refuse(sa, from, &req, SA_STATUS_REQ_INVALID,
			  "component mask names components the record does not have");
		return;
	}
	if (!sa->snap) {
		sa->st.errors++;
		sa_answer(sa, from, &req, SA_STATUS_NO_RESOURCES, NULL);
		return;
	}
	q = (struct sa_query){.sa = sa,
			      .snap = sa->snap,
			      .from = from,
			      .mad = &req,
			      .rec = attr->rec,
			      .qrec = req.data,
			      .mask = req.comp_mask,
			      .req_node = FABRIC_NO_NODE};
	snapshot_find_lid(sa->snap, from->slid, &q.req_node, &q.req_port);
	res.stride = attr->rec ? sa_wire_rec_stride(attr->rec) : 8;
	res.limit = sa_method_is_table(req.hdr.method) ? SA_TABLE_MAX : 2;
	status = fn(&q, &res);
	if (status == SA_STATUS_OK && !sa_method_is_table(req.hdr.method)) {
		/* C15-0.1.30: Get (and Set, Delete) answer exactly one record */
		if (res.n == 0)
			status = SA_STATUS_NO_RECORDS;
		else if (res.n > 1)
			status = SA_STATUS_TOO_MANY_RECORDS;
	}
	if (status == SA_STATUS_OK || status == SA_STATUS_NO_RECORDS) {
		log_msg(
		    LOG_CAT_SA, LOG_DEBUG, "SA: %s(%s) mask 0x%016llx from LID %u: %u records%s",
		    sa_method_str(req.hdr.method), attr->rec ? attr->rec->name : "attribute",
		    (unsigned long long)req.comp_mask, from->slid, res.n, status ? " (none)" : "");
		sa_answer(sa, from, &req, status, &res);
	} else if (status == SA_STATUS_TOO_MANY_RECORDS) {
		sa_answer(sa, from, &req, status, NULL);
	} else {
		/* the handler's image of a refused request, if it made one (o13-13.1.1) */
		if (res.n)
			memcpy(req.data, res.buf,
			       res.stride < sizeof(req.data) ? res.stride : sizeof(req.data));
		sa_refuse(sa, from, &req, status, res.why ? res.why : "invalid query");
	}
	free(res.buf);
}

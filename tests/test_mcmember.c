/*
 * Unit tests of MCMemberRecord: the codec (mad/sa_wire.c) against OpenSM's
 * ib_member_rec_t layout and libibmad's IB_SA_MCM_* fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <infiniband/mad.h>

#include "mad/sa_wire.h"
#include "tests/testutil.h"

/* ---- the codec ------------------------------------------------------------------- */

/* A record with every field distinct. */
static void mcm_sample(struct sa_wire_mcm_rec *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 16; i++) {
		m->mgid[i] = (uint8_t)(0xf0 + i);
		m->port_gid[i] = (uint8_t)(0x10 + i);
	}
	m->mgid[0] = 0xff;
	m->qkey = 0x80010203;
	m->mlid = 0xc00d;
	m->mtu_sel = 2;
	m->mtu = 5;
	m->tclass = 0x5a;
	m->pkey = 0xfffe;
	m->rate_sel = 1;
	m->rate = 7;
	m->pkt_life_sel = 3;
	m->pkt_life = 0x12;
	m->sl = 0xa;
	m->flow_label = 0xbcdef;
	m->hop_limit = 0x3c;
	m->scope = 0x5;
	m->join_state = 0x6;
	m->proxy_join = true;
}

static void test_codec(void)
{
	const struct sa_wire_rec *r = &sa_wire_mcmember_record;
	struct sa_wire_mcm_rec m, d;
	uint8_t img[64], gold[64] = {0}, q[64];

	/* OpenSM's IB_MCR_COMPMASK_*: 18 components and a reserved one; 53 bytes, 56 apart */
	CU_ASSERT_EQUAL(r->n_comps, 19);
	CU_ASSERT_EQUAL(r->size, IB_SA_MCM_RECSZ);
	CU_ASSERT_EQUAL(sa_wire_rec_stride(r), 56);
	CU_ASSERT(sa_wire_mask_valid(r, 1ULL << 18));
	CU_ASSERT(!sa_wire_mask_valid(r, 1ULL << 19));
	CU_ASSERT_STRING_EQUAL(r->comps[SA_MCM_PROXY_JOIN].name, "ProxyJoin");
	CU_ASSERT(r->comps[SA_MCM_RESV].reserved);

	/* golden bytes, at ib_member_rec_t's offsets */
	mcm_sample(&m);
	memset(img, 0xee, sizeof(img));
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, img, sizeof(img)), 53);
	memcpy(gold, m.mgid, 16);
	memcpy(gold + 16, m.port_gid, 16);
	gold[32] = 0x80, gold[33] = 0x01, gold[34] = 0x02, gold[35] = 0x03; /* qkey */
	gold[36] = 0xc0, gold[37] = 0x0d;				    /* mlid */
	gold[38] = 2 << 6 | 5;						    /* mtu */
	gold[39] = 0x5a;						    /* tclass */
	gold[40] = 0xff, gold[41] = 0xfe;				    /* pkey */
	gold[42] = 1 << 6 | 7;						    /* rate */
	gold[43] = 3 << 6 | 0x12;					    /* pkt_life */
	/* sl_flow_hop: ib_member_set_sl_flow_hop(0xa, 0xbcdef, 0x3c) */
	uint32_t sfh = 0xau << 28 | 0xbcdefu << 8 | 0x3c;
	gold[44] = (uint8_t)(sfh >> 24), gold[45] = (uint8_t)(sfh >> 16);
	gold[46] = (uint8_t)(sfh >> 8), gold[47] = (uint8_t)sfh;
	gold[48] = 0x5 << 4 | 0x6; /* scope_state */
	gold[49] = 0x80;	   /* ProxyJoin: bit 392, the IBA's and libibmad's */
	CU_ASSERT_EQUAL(memcmp(img, gold, 53), 0);
	CU_ASSERT_EQUAL(img[53], 0xee); /* nothing past the record */

	/* libibmad's fields read the same values */
	uint8_t gid[16];
	mad_get_array(img, 0, IB_SA_MCM_MGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, m.mgid, 16), 0);
	mad_get_array(img, 0, IB_SA_MCM_PORTGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, m.port_gid, 16), 0);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_QKEY_F), m.qkey);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_MLID_F), m.mlid);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_MTU_F), m.mtu);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_TCLASS_F), m.tclass);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_PKEY_F), m.pkey);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_RATE_F), m.rate);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_SL_F), m.sl);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_JOIN_STATE_F), m.join_state);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
	CU_ASSERT_EQUAL(mad_get_field(img, 0, IB_SA_MCM_FLOW_LABEL_F), m.flow_label);
	/* but it writes a value wider than 20 bits over the SL: our component does not */
	memcpy(q, img, 53);
	mad_set_field(q, 0, IB_SA_MCM_FLOW_LABEL_F, 0xffffffu);
	CU_ASSERT_EQUAL(mad_get_field(q, 0, IB_SA_MCM_SL_F), 0xf);
	memcpy(q, img, 53);
	sa_wire_comp_set(r, SA_MCM_FLOW_LABEL, q, 0xffffffu);
	CU_ASSERT_EQUAL(mad_get_field(q, 0, IB_SA_MCM_SL_F), m.sl);

	/* decode -> the same values; encode of the decoded -> the same bytes */
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(img, 53, &d), 0);
	CU_ASSERT_EQUAL(memcmp(d.mgid, m.mgid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.port_gid, m.port_gid, 16), 0);
	CU_ASSERT(
	    d.qkey == m.qkey && d.mlid == m.mlid && d.mtu_sel == m.mtu_sel && d.mtu == m.mtu &&
	    d.tclass == m.tclass && d.pkey == m.pkey && d.rate_sel == m.rate_sel &&
	    d.rate == m.rate && d.pkt_life_sel == m.pkt_life_sel && d.pkt_life == m.pkt_life &&
	    d.sl == m.sl && d.flow_label == m.flow_label && d.hop_limit == m.hop_limit &&
	    d.scope == m.scope && d.join_state == m.join_state && d.proxy_join == m.proxy_join);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&d, q, sizeof(q)), 53);
	CU_ASSERT_EQUAL(memcmp(q, img, 53), 0);

	/* components: each one's value through the table */
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_QKEY, img), m.qkey);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_MTU_SEL, img), 2);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_FLOW_LABEL, img), 0xbcdef);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_HOP_LIMIT, img), 0x3c);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_SCOPE, img), 5);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_PKT_LIFE_SEL, img), 3);
	CU_ASSERT_EQUAL(sa_wire_comp_get(r, SA_MCM_PKT_LIFE, img), 0x12);
	/* one component changed: only that bit of the mask refuses the match */
	for (unsigned c = 0; c < SA_MCM_RESV; c++) {
		memcpy(q, img, 53);
		if (c <= SA_MCM_PORT_GID)
			q[16 * c + 15] ^= 1;
		else
			sa_wire_comp_set(r, c, q, sa_wire_comp_get(r, c, img) ^ 1);
		CU_ASSERT(!sa_wire_match(r, q, img, 1ULL << c));
		CU_ASSERT(sa_wire_match(r, q, img, ~(1ULL << c) & ((1ULL << 19) - 1)));
	}
	memcpy(q, img, 53);
	q[52] ^= 0x01; /* the reserved bits never decide */
	CU_ASSERT(sa_wire_match(r, q, img, (1ULL << 19) - 1));

	/* truncation at every length; encode needs the room */
	for (size_t len = 0; len < 53; len++)
		CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(img, len, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(NULL, 53, &d), -EBADMSG);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, q, 52), -ENOSPC);
	/* out-of-range values are cut to their widths */
	m.sl = 0x1f;
	m.flow_label = 0xfffffff;
	m.join_state = 0xff;
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_encode(&m, q, sizeof(q)), 53);
	CU_ASSERT_EQUAL(sa_wire_mcm_rec_decode(q, 53, &d), 0);
	CU_ASSERT(d.sl == 0xf && d.flow_label == 0xfffff && d.join_state == 0xf);
	CU_ASSERT_EQUAL(d.scope, 5);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"codec: OpenSM's layout, libibmad's fields", test_codec},
	    {NULL, NULL},
	};

	return testutil_run("mcmember", cases);
}

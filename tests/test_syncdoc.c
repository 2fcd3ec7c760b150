/*
 * Unit tests of the state document of a master/standby pair (failover/syncdoc.c)
 * and of the restore functions it uses (mcast_restore, sa_service_restore,
 * sa_inform_restore): encode -> decode -> encode is the same text; the
 * document of a master applied to an empty standby gives the same groups
 * (MGID, MLID, parameters, members), services (lease) and subscriptions;
 * the merge rules (a well-known group both have gains members, a MGID or
 * MLID taken otherwise is not carried and its members are listed, a known
 * service or subscription is kept); hostile documents (not JSON, truncated
 * at every length, wrong version, wrong types, bad hex, out-of-range
 * values, counts over the bounds, too large) refused with a message and no
 * document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <infiniband/mad.h>

#include "mad/sa_wire.h"
#include "sa/inform.h"
#include "sa/mcast.h"
#include "sa/sa.h"
#include "sa/service.h"
#include "failover/syncdoc.h"
#include "tests/testutil.h"

#define SM_GUID 0x0002c90300000001ULL

static int no_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	(void)ctx;
	(void)to;
	(void)mad;
	(void)len;
	return 0;
}

static void no_sm_info(void *ctx, struct sa_sm_info *ret)
{
	(void)ctx;
	*ret = (struct sa_sm_info){.port_guid = SM_GUID, .state = 3};
}

struct side {
	struct sa *sa;
	struct mcast_db *mc;
};

static void side_new(struct side *s)
{
	const struct mcast_group *g;

	s->sa = sa_new(NULL, &(struct sa_ops){no_send, no_sm_info, NULL});
	s->mc = mcast_db_new();
	CU_ASSERT_FATAL(s->sa && s->mc);
	CU_ASSERT_EQUAL(mcast_add_ipoib_broadcast(s->mc, 3, 0, &g), 0);
}

static void side_free(struct side *s)
{
	sa_free(s->sa);
	mcast_db_free(s->mc);
}

static void gid_of(uint64_t guid, uint8_t gid[16])
{
	sa_wire_bits_set(gid, 0, 64, 0xfe80000000000000ULL);
	sa_wire_bits_set(gid, 64, 64, guid);
}

/* The master: 3 members in IPoIB broadcast, a group at 0xc005 with 2, a service, an inform. */
static void master_fill(struct side *m)
{
	static const uint8_t mgid[16] = {0xff, 0x12, 0xa0, 0x1b, 0, 0, 0, 0,
					 0,    0,    0,	   0,	 0, 0, 0, 7};
	struct mcast_member mem[3];
	struct mcast_params p = {.qkey = 0x1234, .pkey = 0xffff, .mtu = 4, .rate = 3, .sl = 0};
	uint8_t rec[SA_SR_SIZE] = {0};
	struct sa_inform_image im = {.port_guid = 0x101, .qpn = 1, .sl = 0};

	for (int i = 0; i < 3; i++) {
		gid_of(0x100 + i, mem[i].port_gid);
		mem[i].join_state = MCAST_FULL;
		mem[i].proxy = false;
	}
	CU_ASSERT_EQUAL(mcast_restore(m->mc, mcast_ipoib_broadcast_mgid, MCAST_MLID_FIRST,
				      &mcast_find(m->mc, mcast_ipoib_broadcast_mgid)->p, true, mem,
				      3),
			0);
	mem[1].join_state = MCAST_NON;
	mem[1].proxy = true;
	CU_ASSERT_EQUAL(mcast_restore(m->mc, mgid, 0xc005, &p, false, mem, 2), 0);
	/* the MGID is another MLID's; a non-well-known group with no full member cannot exist */
	CU_ASSERT_EQUAL(mcast_restore(m->mc, mgid, 0xc006, &p, false, mem, 1), -EEXIST);
	{
		uint8_t other[16];

		memcpy(other, mgid, 16);
		other[15] = 8;
		CU_ASSERT_EQUAL(mcast_restore(m->mc, other, 0xc006, &p, false, mem + 1, 1),
				-EINVAL);
		CU_ASSERT_EQUAL(mcast_restore(m->mc, other, 0xc005, &p, false, mem, 1), -EEXIST);
	}
	mad_set_field64(rec, 0, IB_SA_SR_ID_F, 0x1000117ULL);
	gid_of(0x102, rec + SA_SR_GID_OFFS);
	mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0xffff);
	mad_set_field(rec, 0, IB_SA_SR_LEASE_F, 3600);
	memcpy(rec + 48, "test service", 12);
	CU_ASSERT_EQUAL(sa_service_restore(sa_services(m->sa), rec, 3600 * 1000), 0);
	CU_ASSERT_EQUAL(sa_service_restore(sa_services(m->sa), rec, 1000), -EEXIST);
	sa_wire_comp_set(&sa_wire_inform_info, SA_II_LID_BEGIN, im.ii, 0xffff);
	sa_wire_comp_set(&sa_wire_inform_info, SA_II_IS_GENERIC, im.ii, 1);
	sa_wire_comp_set(&sa_wire_inform_info, SA_II_TRAP, im.ii, 64);
	CU_ASSERT_EQUAL(sa_inform_restore(sa_informs(m->sa), &im), 0);
	CU_ASSERT_EQUAL(sa_inform_restore(sa_informs(m->sa), &im), -EEXIST);
}

static char *encode_text(struct side *m, uint64_t gen)
{
	struct syncdoc_lid lids[2] = {{0x100, 5, 0}, {0x101, 6, 0}};
	json_t *doc =
	    syncdoc_encode(SM_GUID, gen, m->mc, sa_services(m->sa), sa_informs(m->sa), lids, 2);
	char *s;

	CU_ASSERT_FATAL(doc != NULL);
	s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(doc);
	CU_ASSERT_FATAL(s != NULL);
	return s;
}

static void test_round_trip_and_apply(void)
{
	struct side m, s;
	struct syncdoc *d = NULL;
	struct syncdoc_apply_stats st;
	char err[200], *text, *again;
	const struct mcast_group *g;
	static const uint8_t mgid[16] = {0xff, 0x12, 0xa0, 0x1b, 0, 0, 0, 0,
					 0,    0,    0,	   0,	 0, 0, 0, 7};
	uint8_t rec[SA_SR_SIZE];
	uint64_t left;
	struct sa_inform_image im;

	side_new(&m);
	side_new(&s);
	master_fill(&m);
	text = encode_text(&m, 42);
	CU_ASSERT_EQUAL(syncdoc_decode(text, strlen(text), &d, err, sizeof(err)), 0);
	CU_ASSERT_FATAL(d != NULL);
	CU_ASSERT_EQUAL(d->sm_guid, SM_GUID);
	CU_ASSERT_EQUAL(d->generation, 42);
	CU_ASSERT_EQUAL(d->n_groups, 2);
	CU_ASSERT_EQUAL(d->n_services, 1);
	CU_ASSERT_EQUAL(d->n_informs, 1);
	CU_ASSERT_EQUAL(d->n_lids, 2);

	/* the standby has the IPoIB group too (same MLID): it gains the members */
	CU_ASSERT_EQUAL(syncdoc_apply(d, s.mc, sa_services(s.sa), sa_informs(s.sa), &st), 0);
	CU_ASSERT_EQUAL(st.groups, 2);
	CU_ASSERT_EQUAL(st.members, 5);
	CU_ASSERT_EQUAL(st.groups_failed, 0);
	CU_ASSERT_EQUAL(st.services, 1);
	CU_ASSERT_EQUAL(st.informs, 1);
	CU_ASSERT_EQUAL(st.n_not_carried, 0);
	free(st.not_carried);
	g = mcast_find(s.mc, mgid);
	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_EQUAL(g->mlid, 0xc005);
	CU_ASSERT_EQUAL(g->p.qkey, 0x1234);
	CU_ASSERT_EQUAL(g->n_members, 2);
	CU_ASSERT_EQUAL(g->full_members, 1);
	CU_ASSERT(mcast_group_member(g, 0x101)->proxy);
	CU_ASSERT_EQUAL(mcast_group_member(g, 0x101)->join_state, MCAST_NON);
	g = mcast_find(s.mc, mcast_ipoib_broadcast_mgid);
	CU_ASSERT_EQUAL(g->mlid, MCAST_MLID_FIRST);
	CU_ASSERT_EQUAL(g->n_members, 3);
	CU_ASSERT(g->well_known);
	CU_ASSERT_EQUAL(sa_service_count(sa_services(s.sa)), 1);
	CU_ASSERT(sa_service_export(sa_services(s.sa), 0, rec, &left));
	CU_ASSERT(left > 3599 * 1000 && left <= 3600 * 1000);
	CU_ASSERT_EQUAL(memcmp(rec + 48, "test service", 12), 0);
	sa_inform_export(sa_informs(s.sa), 0, &im);
	CU_ASSERT_EQUAL(im.port_guid, 0x101);

	/* the standby's document now says what the master's did (lease aside) */
	again = encode_text(&s, 42);
	CU_ASSERT_EQUAL(strlen(again), strlen(text));
	free(again);

	/* applied twice: nothing new, nothing refused */
	CU_ASSERT_EQUAL(syncdoc_apply(d, s.mc, sa_services(s.sa), sa_informs(s.sa), &st), 0);
	CU_ASSERT_EQUAL(st.groups, 2); /* merged, members OR'ed */
	CU_ASSERT_EQUAL(st.services + st.informs + st.n_not_carried, 0);
	CU_ASSERT_EQUAL(mcast_member_count(s.mc), 5);
	free(st.not_carried);
	syncdoc_free(d);
	free(text);
	side_free(&m);
	side_free(&s);
}

static void test_merge_conflicts(void)
{
	struct side m, s;
	struct syncdoc *d = NULL;
	struct syncdoc_apply_stats st;
	char err[200], *text;
	const struct mcast_group *g;
	struct mcast_params p = {.qkey = 1, .pkey = 0xffff, .mtu = 4, .rate = 3};
	static const uint8_t other[16] = {0xff, 0x12, 0xa0, 0x1b, 0, 0, 0, 0,
					  0,	0,    0,    0,	  0, 0, 0, 9};
	struct mcast_member mem = {.join_state = MCAST_FULL};

	side_new(&m);
	side_new(&s);
	master_fill(&m);
	/* the standby already has another group at MLID 0xc005 */
	gid_of(0x200, mem.port_gid);
	CU_ASSERT_EQUAL(mcast_restore(s.mc, other, 0xc005, &p, false, &mem, 1), 0);
	text = encode_text(&m, 1);
	CU_ASSERT_EQUAL(syncdoc_decode(text, strlen(text), &d, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(syncdoc_apply(d, s.mc, sa_services(s.sa), sa_informs(s.sa), &st), 0);
	CU_ASSERT_EQUAL(st.groups, 1);
	CU_ASSERT_EQUAL(st.groups_failed, 1);
	/* the members of the group not carried must register again */
	CU_ASSERT_EQUAL(st.n_not_carried, 2);
	CU_ASSERT(syncdoc_guid_listed(st.not_carried, st.n_not_carried, 0x100));
	CU_ASSERT(syncdoc_guid_listed(st.not_carried, st.n_not_carried, 0x101));
	CU_ASSERT(!syncdoc_guid_listed(st.not_carried, st.n_not_carried, 0x102));
	/* what the standby had is untouched */
	g = mcast_find_mlid(s.mc, 0xc005);
	CU_ASSERT_EQUAL(memcmp(g->mgid, other, 16), 0);
	CU_ASSERT_EQUAL(g->n_members, 1);
	free(st.not_carried);
	syncdoc_free(d);
	free(text);
	side_free(&m);
	side_free(&s);
}

/* Refused with a message, *ret untouched. */
static void refused(const char *text, int want_rc, const char *want_msg)
{
	struct syncdoc *d = (struct syncdoc *)0x1;
	char err[200] = "";
	int rc = syncdoc_decode(text, strlen(text), &d, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, want_rc);
	CU_ASSERT(d == (struct syncdoc *)0x1);
	CU_ASSERT(err[0] != 0);
	if (want_msg && !strstr(err, want_msg)) {
		printf("\n  '%s': got '%s', want '%s'\n", text, err, want_msg);
		CU_FAIL("message");
	}
}

#define HEAD "{\"version\":1,\"sm_guid\":\"0x0002c90300000001\",\"generation\":1,"
#define EMPTY "\"groups\":[],\"services\":[],\"informs\":[],\"lids\":[]}"
#define G0                                                                                         \
	"{\"mgid\":\"ff12a01b000000000000000000000007\",\"mlid\":49157,\"qkey\":1,\"pkey\":65535," \
	"\"mtu\":4,\"rate\":3,\"pkt_life\":18,\"sl\":0,\"tclass\":0,\"flow_label\":0,"             \
	"\"hop_limit\":0,\"well_known\":false,\"members\":"

static void test_hostile(void)
{
	struct side m;
	struct syncdoc *d = NULL;
	char err[200], *text, *big;
	size_t n;

	refused("", -EBADMSG, "not JSON");
	refused("garbage\x01\x02", -EBADMSG, "not JSON");
	refused("[1,2]", -EBADMSG, "not a JSON object");
	refused("{\"version\":2}", -EBADMSG, "version 2");
	refused("{\"version\":\"1\"}", -EBADMSG, "version");
	refused("{\"version\":1,\"version\":1}", -EBADMSG, "not JSON");
	refused("{\"version\":1,\"sm_guid\":\"0x1\",\"generation\":1," EMPTY, -EBADMSG, "sm_guid");
	refused("{\"version\":1,\"sm_guid\":\"0x0002c9030000000g\",\"generation\":1," EMPTY,
		-EBADMSG, "sm_guid");
	refused("{\"version\":1,\"sm_guid\":\"0x0002c90300000001\",\"generation\":-1," EMPTY,
		-EBADMSG, "generation");
	refused(HEAD "\"groups\":{},\"services\":[],\"informs\":[],\"lids\":[]}", -EBADMSG,
		"groups: not an array");
	refused(HEAD "\"services\":[],\"informs\":[],\"lids\":[]}", -EBADMSG, "groups: missing");
	{
		const char *ok =
		    HEAD "\"groups\":[" G0 "[]}],\"services\":[],\"informs\":[],\"lids\":[]}";

		/* a group with no member decodes (mcast_restore refuses it unless well-known) */
		CU_ASSERT_EQUAL(syncdoc_decode(ok, strlen(ok), &d, err, sizeof(err)), 0);
		syncdoc_free(d);
	}
	refused(HEAD "\"groups\":[" G0 "[{\"gid\":\"fe80\",\"join_state\":1,\"proxy\":false}]}],"
		     "\"services\":[],\"informs\":[],\"lids\":[]}",
		-EBADMSG, "groups[0].members[0].gid: 4 hex digits");
	refused(HEAD
		"\"groups\":[" G0 "[{\"gid\":\"fe800000000000000000000000000001\","
		"\"join_state\":16,\"proxy\":false}]}],\"services\":[],\"informs\":[],\"lids\":[]}",
		-EBADMSG, "join_state");
	refused(HEAD "\"groups\":[" G0 "[]}],\"services\":[{\"rec\":\"00\",\"lease_left_ms\":0}],"
		     "\"informs\":[],\"lids\":[]}",
		-EBADMSG, "services[0].rec");
	refused(HEAD "\"groups\":[],\"services\":[],\"informs\":[{\"port_guid\":"
		     "\"0x0000000000000000\",\"qpn\":1,\"sl\":0,\"ii\":\"00\"}],\"lids\":[]}",
		-EBADMSG, "informs[0]");
	refused(HEAD "\"groups\":[],\"services\":[],\"informs\":[],\"lids\":[{\"guid\":"
		     "\"0x0000000000000005\",\"lid\":49152,\"lmc\":0}]}",
		-EBADMSG, "lids[0].lid");
	refused(HEAD "\"groups\":[{\"mgid\":\"fe80000000000000000000000000000a\",\"mlid\":49157}],"
		     "\"services\":[],\"informs\":[],\"lids\":[]}",
		-EBADMSG, "groups[0].qkey: missing");
	/* truncated at every length: refused, never accepted half */
	side_new(&m);
	master_fill(&m);
	text = encode_text(&m, 7);
	n = strlen(text);
	for (size_t len = 0; len < n; len++) {
		d = NULL;
		CU_ASSERT_NOT_EQUAL(syncdoc_decode(text, len, &d, err, sizeof(err)), 0);
		CU_ASSERT(d == NULL);
	}
	CU_ASSERT_EQUAL(syncdoc_decode(text, n, &d, err, sizeof(err)), 0);
	syncdoc_free(d);
	free(text);
	side_free(&m);

	/* too large, unread */
	big = malloc(SYNCDOC_MAX_BYTES + 2);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, ' ', SYNCDOC_MAX_BYTES + 1);
	big[SYNCDOC_MAX_BYTES + 1] = 0;
	d = NULL;
	CU_ASSERT_EQUAL(syncdoc_decode(big, SYNCDOC_MAX_BYTES + 1, &d, err, sizeof(err)),
			-EMSGSIZE);
	CU_ASSERT(d == NULL);
	free(big);
}

/* Counts over the bounds: refused before anything is allocated for them. */
static void test_bounds(void)
{
	size_t n = SYNCDOC_MAX_SERVICES + 1, len = 0;
	char *t = malloc(64 + n * 3), err[200];
	struct syncdoc *d = NULL;

	CU_ASSERT_FATAL(t != NULL);
	len += (size_t)sprintf(t, HEAD "\"groups\":[],\"services\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, i ? ",0" : "0");
	strcpy(t + len, "],\"informs\":[],\"lids\":[]}");
	CU_ASSERT_EQUAL(syncdoc_decode(t, strlen(t), &d, err, sizeof(err)), -EMSGSIZE);
	CU_ASSERT(strstr(err, "services: 4097 entries") != NULL);
	CU_ASSERT(d == NULL);
	free(t);
}

/* The runtime partitions (issue 23): optional, decoded whole, a bad one refuses the document. */
static void test_runtime_partitions(void)
{
	static const char base[] = HEAD "\"groups\":[],\"services\":[],\"informs\":[],\"lids\":[]";
	char t[1024], err[256];
	struct syncdoc *d = NULL;

	snprintf(t, sizeof(t), "%s}", base);
	CU_ASSERT_EQUAL_FATAL(syncdoc_decode(t, strlen(t), &d, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(d->pkeys); /* an older master: none */
	syncdoc_free(d);
	d = NULL;
	snprintf(t, sizeof(t),
		 "%s,\"runtime_partitions\":{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1234\","
		 "\"name\":\"job\",\"ip_over_ib\":true,\"mtu\":0,\"rate\":0,\"sl\":0,"
		 "\"guids\":[\"0002c90300000001:full\",\"0002c90300000002:limited\"]}]}}",
		 base);
	CU_ASSERT_EQUAL_FATAL(syncdoc_decode(t, strlen(t), &d, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->pkeys);
	CU_ASSERT_EQUAL(d->pkeys->n, 1);
	CU_ASSERT_EQUAL(d->pkeys->members, 2);
	syncdoc_free(d);
	d = NULL;
	snprintf(t, sizeof(t),
		 "%s,\"runtime_partitions\":{\"version\":1,\"pkeys\":[{\"pkey\":\"0x1234\"}]}}",
		 base);
	CU_ASSERT_EQUAL(syncdoc_decode(t, strlen(t), &d, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runtime_partitions: pkeys[0].name"));
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"round trip and apply", test_round_trip_and_apply},
	    {"merge conflicts", test_merge_conflicts},
	    {"hostile documents", test_hostile},
	    {"bounds", test_bounds},
	    {"runtime partitions", test_runtime_partitions},
	    {NULL, NULL},
	};

	return testutil_run("syncdoc", cases);
}

/*
 * The runtime partitions as the SM holds them (tenants/tenants.c), on an SM
 * object with a published snapshot and no MAD port: a request is checked
 * against the ports of the fabric (PartitionCap: refused naming the port,
 * nothing taken), a GUID not in the fabric is kept, readiness counts the
 * present members whose tables hold the key, a standby refuses, the set is
 * written to the state directory and read back by the next SM, a file that
 * does not read is put aside, and a P_Key the file comes to define is left
 * out of the policy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/snapshot.h"
#include "policy/partition.h"
#include "policy/pkeyset.h"
#include "sm/sm.h"
#include "tenants/tenants.h"
#include "tests/testutil.h"

/* ca-0..ca-3 behind one switch: port GUIDs 0x...0101, 0x...0201, ... */
static const char topo[] = "switchguid=0x0002c90200001000\n"
			   "Switch 4 \"sw\"\n"
			   "[1] \"ca-0\"[1]\n[2] \"ca-1\"[1]\n[3] \"ca-2\"[1]\n[4] \"ca-3\"[1]\n"
			   "caguid=0x0002c90200000100\nHca 1 \"ca-0\"\n[1] \"sw\"[1]\n"
			   "caguid=0x0002c90200000200\nHca 1 \"ca-1\"\n[1] \"sw\"[2]\n"
			   "caguid=0x0002c90200000300\nHca 1 \"ca-2\"\n[1] \"sw\"[3]\n"
			   "caguid=0x0002c90200000400\nHca 1 \"ca-3\"\n[1] \"sw\"[4]\n";
#define CA(i) (0x0002c90200000101ull + 0x100ull * (i))

static char state_dir[64];

/* An SM of the test: MASTER, the file's policy, a snapshot whose CAs hold 3 keys at most. */
static void sm_up(struct sm *sm, const char *file_text)
{
	struct fabric *f = testutil_load_lids(topo);
	struct partition_config *c = NULL;
	char err[512];

	memset(sm, 0, sizeof(*sm));
	conf_defaults(&sm->conf);
	snprintf(sm->conf.state_dir, sizeof(sm->conf.state_dir), "%s", state_dir);
	sm->state = SM_MASTER;
	sm->port_guid = CA(0);
	for (uint32_t i = 0; i < f->n_nodes; i++)
		f->nodes[i].partition_cap = 3;
	CU_ASSERT_EQUAL_FATAL(snapshot_new(f, routes_new(f, 8), 1, &sm->snap), 0);
	CU_ASSERT_EQUAL_FATAL(
	    partition_parse("p.conf", file_text, strlen(file_text), &c, err, sizeof(err)), 0);
	sm->policy.file_parts = c;
	sm->policy.parts = partition_config_ref(c);
	CU_ASSERT_EQUAL_FATAL(tenants_attach(sm, err, sizeof(err)), 0);
}

static void sm_down(struct sm *sm)
{
	sm_parts_free(sm);
	sm_policy_clear(&sm->policy);
	snapshot_free(sm->snap);
	hook_list_clear(&sm->hooks.sweep_begin);
	hook_list_clear(&sm->hooks.published);
	hook_list_clear(&sm->hooks.configure);
	hook_list_clear(&sm->hooks.state_changed);
	hook_list_clear(&sm->hooks.partitions);
}

/* A request of op on pkey for n GUIDs; its return code, err and the delta (cleared). */
static int req(struct sm *sm, enum pkeyset_op op, uint16_t pkey, const uint64_t *g, size_t n,
	       char *err, size_t len, struct pkeyset_delta *d)
{
	struct pkeyset_req r;
	int rc;

	pkeyset_req_init(&r);
	r.op = op;
	r.pkey = pkey;
	if (n) {
		r.guids = malloc(n * sizeof(*g));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r.guids);
		memcpy(r.guids, g, n * sizeof(*g));
		r.n_guids = n;
	}
	rc = tenants_request(sm, &r, "the test", d, err, len);
	pkeyset_req_clear(&r);
	return rc;
}

static void test_requests(void)
{
	static const char file[] = "Default=0x7fff : ALL=full ;\nStorage=0x0010 : ALL_CAS=full ;\n";
	struct sm sm;
	struct pkeyset_delta d;
	struct tenants_ready rd;
	uint64_t g[3] = {CA(1), CA(2), 0x0002c9030000beefull};
	char err[512], path[128];
	struct tenants_status st;

	sm_up(&sm, file);
	/* the file's P_Key: refused, nothing made */
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_ADD, 0x10, g, 2, err, sizeof(err), &d), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Storage"));
	/* two present hosts and a GUID not in the fabric: taken */
	CU_ASSERT_EQUAL_FATAL(req(&sm, PKEYSET_ADD, 0x1234, g, 3, err, sizeof(err), &d), 0);
	CU_ASSERT_TRUE(d.created);
	pkeyset_delta_clear(&d);
	CU_ASSERT_PTR_NOT_NULL(partition_find(sm.policy.parts, 0x1234));
	CU_ASSERT_TRUE(partition_find(sm.policy.parts, 0x1234)->runtime);
	/* no MAD port: nothing written, the present ports do not hold it yet */
	CU_ASSERT_TRUE(tenants_ready(&sm, 0x1234, &rd));
	CU_ASSERT_EQUAL(rd.members, 3);
	CU_ASSERT_EQUAL(rd.present, 2);
	CU_ASSERT_EQUAL(rd.holding, 0);
	CU_ASSERT_FALSE(rd.ready);
	CU_ASSERT_FALSE(tenants_ready(&sm, 0x4321, &rd));
	/* the same again: nothing */
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_ADD, 0x1234, g, 3, err, sizeof(err), &d), 0);
	CU_ASSERT_FALSE(d.changed);
	/* ca-1 now holds 0x7fff, 0x0010, 0x1234: a fourth key overflows its table (3) */
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_ADD, 0x2000, g, 1, err, sizeof(err), &d), -EOVERFLOW);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port 0x0002c90200000201"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"ca-1\""));
	CU_ASSERT_PTR_NULL(pkeyset_find(tenants_set(&sm), 0x2000)); /* nothing of it */
	CU_ASSERT_PTR_NULL(partition_find(sm.policy.parts, 0x2000));
	/* the GUID not in the fabric takes any number */
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_ADD, 0x2000, &g[2], 1, err, sizeof(err), &d), 0);
	pkeyset_delta_clear(&d);
	/* a standby refuses */
	sm.state = SM_STANDBY;
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_DELETE, 0x2000, NULL, 0, err, sizeof(err), &d), -EAGAIN);
	sm.state = SM_MASTER;
	CU_ASSERT_TRUE(tenants_status_get(&sm, &st));
	CU_ASSERT_EQUAL(st.pkeys, 2);
	CU_ASSERT_EQUAL(st.members, 4);
	CU_ASSERT_EQUAL(st.refused, 3);
	CU_ASSERT_EQUAL(st.changes, 2);
	CU_ASSERT_EQUAL(st.noops, 1);
	CU_ASSERT_FALSE(st.save_owed);
	sm_down(&sm);

	/* the next SM reads the set back */
	sm_up(&sm, file);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tenants_set(&sm));
	CU_ASSERT_EQUAL(tenants_set(&sm)->n, 2);
	CU_ASSERT_EQUAL(pkeyset_find(tenants_set(&sm), 0x1234)->n, 3);
	CU_ASSERT_PTR_NOT_NULL(partition_find(sm.policy.parts, 0x2000));
	/* the file comes to define 0x2000: left out of the policy, kept in the set */
	partition_config_free(sm.policy.file_parts);
	sm.policy.file_parts = NULL;
	CU_ASSERT_EQUAL(partition_parse("p.conf", "Default=0x7fff:ALL=full;\nX=0x2000:ALL=full;\n",
					strlen("Default=0x7fff:ALL=full;\nX=0x2000:ALL=full;\n"),
					&sm.policy.file_parts, err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(tenants_merge(&sm), 0);
	CU_ASSERT_FALSE(partition_find(sm.policy.parts, 0x2000)->runtime);
	CU_ASSERT_TRUE(tenants_status_get(&sm, &st));
	CU_ASSERT_EQUAL(st.shadowed, 1);
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_ADD, 0x2000, g, 1, err, sizeof(err), &d), -EEXIST);
	/* ... but may be deleted: the set loses it, the file's stays */
	CU_ASSERT_EQUAL(req(&sm, PKEYSET_DELETE, 0x2000, NULL, 0, err, sizeof(err), &d), 0);
	CU_ASSERT_TRUE(d.deleted);
	pkeyset_delta_clear(&d);
	CU_ASSERT_PTR_NULL(pkeyset_find(tenants_set(&sm), 0x2000));
	CU_ASSERT_FALSE(partition_find(sm.policy.parts, 0x2000)->runtime);
	sm_down(&sm);

	/* a file that does not read: put aside, the SM starts without */
	snprintf(path, sizeof(path), "%s/%s", state_dir, TENANTS_FILE);
	{
		FILE *fp = fopen(path, "w");

		CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
		fputs("{\"version\": 1, \"pkeys\": [{\"pkey\": \"0x1\"}]}\n", fp);
		fclose(fp);
	}
	sm_up(&sm, file);
	CU_ASSERT_EQUAL(tenants_set(&sm)->n, 0);
	snprintf(path, sizeof(path), "%s/%s.bad", state_dir, TENANTS_FILE);
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	unlink(path);
	sm_down(&sm);
	snprintf(path, sizeof(path), "%s/%s", state_dir, TENANTS_FILE);
	unlink(path);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"requests against the fabric, the file, a restart", test_requests},
	    {NULL, NULL},
	};
	int r;

	snprintf(state_dir, sizeof(state_dir), "/tmp/ibsmd-test-tenants.XXXXXX");
	if (!mkdtemp(state_dir))
		return 1;
	r = testutil_run("tenants", cases);
	rmdir(state_dir);
	return r;
}

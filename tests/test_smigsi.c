/*
 * Unit tests of mad/smigsi.c: SMI/GSI device pairing on fake sysfs trees
 * (a temporary directory as the root), laid out as the kernel does: a
 * classic one-device host; a split host (ConnectX-8 on Linux 6.11+: "smi0"
 * beside "mlx5_0", the same port GUID, IsSMDisabled on the GSI device)
 * found by either name or by GUID; a host whose first port is Ethernet; a
 * GSI device with no SMI device (a clear error); port choice by state; no
 * devices at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "mad/smigsi.h"
#include "mad/wire.h"
#include "tests/testutil.h"

static char root[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "mkdir -p '%s'", path);
	CU_ASSERT_EQUAL_FATAL(system(buf), 0);
}

/* One port of device dev in the tree, as the kernel writes its files (link NULL: no file). */
static void port(const char *dev, int pn, uint32_t capmask, uint64_t guid, const char *link,
		 int state, int phys)
{
	static const char *const states[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
	char dir[256], path[320], text[128];

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s", root, dev);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/node_type", dir);
	put(path, "1: CA\n");
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/gids", root, dev, pn);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/0", dir);
	snprintf(text, sizeof(text), "fe80:0000:0000:0000:%04x:%04x:%04x:%04x\n",
		 (unsigned)(guid >> 48) & 0xffff, (unsigned)(guid >> 32) & 0xffff,
		 (unsigned)(guid >> 16) & 0xffff, (unsigned)guid & 0xffff);
	put(path, text);
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d", root, dev, pn);
	snprintf(path, sizeof(path), "%s/cap_mask", dir);
	snprintf(text, sizeof(text), "0x%08x\n", capmask);
	put(path, text);
	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(text, sizeof(text), "%d: %s\n", state, states[state]);
	put(path, text);
	snprintf(path, sizeof(path), "%s/phys_state", dir);
	snprintf(text, sizeof(text), "%d: %s\n", phys, phys == 5 ? "LinkUp" : "Polling");
	put(path, text);
	if (link) {
		snprintf(path, sizeof(path), "%s/link_layer", dir);
		snprintf(text, sizeof(text), "%s\n", link);
		put(path, text);
	}
}

static void fresh(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	snprintf(root, sizeof(root), "/tmp/test_smigsi.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

#define CAP 0x2651e84au /* a ConnectX's CapabilityMask: not IsSMDisabled */
#define GUID_A 0x0002c9030001a001ull
#define GUID_B 0x0002c9030001b001ull

static void test_classic(void)
{
	struct smigsi_port p;
	char why[512], notes[256];

	fresh();
	port("mlx5_0", 1, CAP, GUID_A, "InfiniBand", 4, 5);
	CU_ASSERT_EQUAL_FATAL(
	    smigsi_find(root, "", 0, 0, &p, why, sizeof(why), notes, sizeof(notes)), 0);
	CU_ASSERT_STRING_EQUAL(p.smi_ca, "mlx5_0");
	CU_ASSERT_STRING_EQUAL(p.gsi_ca, "mlx5_0");
	CU_ASSERT_EQUAL(p.smi_port, 1);
	CU_ASSERT_EQUAL(p.gsi_port, 1);
	CU_ASSERT_EQUAL(p.port_guid, GUID_A);
	CU_ASSERT_FALSE(p.split);
	CU_ASSERT_STRING_EQUAL(notes, "");
	/* by name, by port, by GUID; a wrong one lists what there is */
	CU_ASSERT_EQUAL(smigsi_find(root, "mlx5_0", 1, 0, &p, why, sizeof(why), NULL, 0), 0);
	CU_ASSERT_EQUAL(smigsi_find(root, NULL, 0, GUID_A, &p, why, sizeof(why), NULL, 0), 0);
	CU_ASSERT_EQUAL(smigsi_find(root, "mlx5_0", 2, 0, &p, why, sizeof(why), NULL, 0), -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no usable InfiniBand port 2 on mlx5_0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "mlx5_0/1 0x0002c9030001a001"));
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, GUID_B, &p, why, sizeof(why), NULL, 0), -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no InfiniBand port with GUID 0x0002c9030001b001"));
	/* no link_layer file: InfiniBand (older kernels, umad2sim) */
	fresh();
	port("ibsim0", 1, CAP, GUID_A, NULL, 4, 5);
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(p.smi_ca, "ibsim0");
}

static void test_split(void)
{
	struct smigsi_port p, all[4];
	char why[512], notes[256];

	fresh();
	port("mlx5_0", 1, CAP | WIRE_CAP_SM_DISABLED, GUID_B, "InfiniBand", 4, 5);
	port("smi0", 1, CAP, GUID_B, "InfiniBand", 4, 5);
	CU_ASSERT_EQUAL(smigsi_scan(root, all, 4, notes, sizeof(notes)), 1);
	CU_ASSERT_STRING_EQUAL(notes, "");
	/* any, the GSI's name, the SMI's name, the GUID: the one pair */
	for (int how = 0; how < 4; how++) {
		memset(&p, 0, sizeof(p));
		CU_ASSERT_EQUAL_FATAL(smigsi_find(root,
						  how == 1   ? "mlx5_0"
						  : how == 2 ? "smi0"
							     : "",
						  how == 1 || how == 2 ? 1 : 0,
						  how == 3 ? GUID_B : 0, &p, why, sizeof(why), NULL,
						  0),
				      0);
		CU_ASSERT_STRING_EQUAL(p.smi_ca, "smi0");
		CU_ASSERT_STRING_EQUAL(p.gsi_ca, "mlx5_0");
		CU_ASSERT_EQUAL(p.smi_port, 1);
		CU_ASSERT_EQUAL(p.gsi_port, 1);
		CU_ASSERT_EQUAL(p.port_guid, GUID_B);
		CU_ASSERT_TRUE(p.split);
	}
	/* a classic device beside it: two pairs, in name order of their first device */
	port("mlx5_1", 1, CAP, GUID_A, "InfiniBand", 1, 2);
	CU_ASSERT_EQUAL(smigsi_scan(root, all, 4, NULL, 0), 2);
	CU_ASSERT_STRING_EQUAL(all[0].smi_ca, "smi0");
	CU_ASSERT_STRING_EQUAL(all[1].smi_ca, "mlx5_1");
	CU_ASSERT_FALSE(all[1].split);
	/* the ACTIVE one is picked over the one polling */
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(p.smi_ca, "smi0");
}

static void test_ethernet_first(void)
{
	struct smigsi_port p;
	char why[512], notes[256];

	fresh();
	port("mlx5_0", 1, CAP, 0x0202c9fffe000001ull, "Ethernet", 4, 5);
	port("mlx5_1", 1, CAP, GUID_A, "InfiniBand", 4, 5);
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), notes, sizeof(notes)), 0);
	CU_ASSERT_STRING_EQUAL(p.smi_ca, "mlx5_1");
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "mlx5_0/1: link layer Ethernet, not InfiniBand"));
	/* naming the Ethernet port: refused, and said why */
	CU_ASSERT_EQUAL(
	    smigsi_find(root, "mlx5_0", 1, 0, &p, why, sizeof(why), notes, sizeof(notes)), -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "Ethernet"));
}

static void test_missing_pair(void)
{
	struct smigsi_port p;
	char why[512], notes[256];

	fresh();
	port("mlx5_0", 1, CAP | WIRE_CAP_SM_DISABLED, GUID_B, "InfiniBand", 4, 5);
	CU_ASSERT_EQUAL(smigsi_scan(root, &p, 1, notes, sizeof(notes)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "mlx5_0/1: SMI disabled (IsSMDisabled) and no SMI "
					     "device shows its port GUID 0x0002c9030001b001"));
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), notes, sizeof(notes)),
			-ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no usable InfiniBand port"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "SMI disabled"));
	CU_ASSERT_EQUAL(smigsi_find(root, "mlx5_0", 1, GUID_B, &p, why, sizeof(why), NULL, 0),
			-ENODEV);
	/* with a classic device beside it, that one is used and the orphan noted */
	port("mlx5_1", 1, CAP, GUID_A, "InfiniBand", 4, 5);
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), notes, sizeof(notes)), 0);
	CU_ASSERT_STRING_EQUAL(p.smi_ca, "mlx5_1");
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "mlx5_0/1: SMI disabled"));
}

static void test_none(void)
{
	struct smigsi_port p;
	char why[512];

	fresh();
	CU_ASSERT_EQUAL(smigsi_scan(root, &p, 1, NULL, 0), -ENOENT);
	CU_ASSERT_EQUAL(smigsi_find(root, "", 0, 0, &p, why, sizeof(why), NULL, 0), -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "none found"));
	CU_ASSERT_EQUAL(smigsi_scan("/nonexistent/root", &p, 1, NULL, 0), -ENOENT);
}

static void test_cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"a classic one-device host", test_classic},
	    {"a split host: SMI and GSI devices paired by port GUID", test_split},
	    {"an Ethernet port first", test_ethernet_first},
	    {"a GSI device without its SMI: a clear error", test_missing_pair},
	    {"no RDMA devices", test_none},
	    {"clean up", test_cleanup},
	    {NULL, NULL},
	};

	return testutil_run("smigsi", cases);
}

/*
 * Unit tests for fabric/lid.c: the guid->LID database, its file (load of good,
 * corrupt and unreadable files; atomic save) and LID assignment on generated
 * fabrics (persistence across a fabric reset, LIDs on ports honoured,
 * conflicts, LMC alignment, reservations for absent nodes, exhaustion).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "fabric/fabric.h"
#include "fabric/lid.h"
#include "tests/testutil.h"

#define SW_GUID(i) (0x0002c90300100000ULL + (uint64_t)(i))
#define CA_GUID(i) (0x0002c90300200000ULL + (uint64_t)(i)*4)
#define SW_PORTS 36

static char tmpdir[256];

/* ---- helpers ----------------------------------------------------------- */

static uint32_t add_ca(struct fabric *f, uint32_t i, uint8_t nports)
{
	uint32_t idx;
	unsigned int p;

	CU_ASSERT_FATAL(fabric_add_node(f, CA_GUID(i), NODE_CA, nports, &idx) == 0);
	for (p = 1; p <= nports; p++) {
		f->nodes[idx].ports[p].guid = CA_GUID(i) + p;
		f->nodes[idx].ports[p].valid = true;
	}
	return idx;
}

static uint32_t add_sw(struct fabric *f, uint32_t i)
{
	uint32_t idx;

	CU_ASSERT_FATAL(fabric_add_node(f, SW_GUID(i), NODE_SWITCH, SW_PORTS, &idx) == 0);
	f->nodes[idx].ports[0].guid = SW_GUID(i);
	f->nodes[idx].ports[0].valid = true;
	return idx;
}

/*
 * n_sw switches then n_ca CAs of ca_ports ports (reverse: the same nodes in
 * the opposite order), CA skip left out (UINT32_MAX: none).  CAs hang off
 * the switches while switch ports last; links do not matter to LIDs.
 */
static struct fabric *build(uint32_t n_sw, uint32_t n_ca, uint8_t ca_ports, bool reverse,
			    uint32_t skip)
{
	struct fabric *f = fabric_new();
	uint32_t k, total = n_sw + n_ca;

	CU_ASSERT_FATAL(f != NULL);
	for (k = 0; k < total; k++) {
		uint32_t j = reverse ? total - 1 - k : k;

		if (j < n_sw) {
			add_sw(f, j);
		} else if (j - n_sw != skip) {
			uint32_t ca = j - n_sw, idx = add_ca(f, ca, ca_ports);
			uint32_t sw = fabric_find_guid(f, SW_GUID(ca % n_sw));

			if (sw != FABRIC_NO_NODE && ca / n_sw < SW_PORTS)
				fabric_link(f, idx, 1, sw, (uint8_t)(ca / n_sw + 1));
		}
	}
	return f;
}

static struct port *ca_port(struct fabric *f, uint32_t ca, uint8_t p)
{
	uint32_t idx = fabric_find_guid(f, CA_GUID(ca));

	CU_ASSERT_FATAL(idx != FABRIC_NO_NODE);
	return &f->nodes[idx].ports[p];
}

static struct port *sw_port0(struct fabric *f, uint32_t sw)
{
	uint32_t idx = fabric_find_guid(f, SW_GUID(sw));

	CU_ASSERT_FATAL(idx != FABRIC_NO_NODE);
	return &f->nodes[idx].ports[0];
}

/*
 * Every LID-carrying port has a LID in range, aligned to its LMC, and no two
 * ranges overlap.  Returns the number of such ports; *ret_zero counts ports
 * left without a LID.
 */
static uint32_t check_lids(const struct fabric *f, uint32_t *ret_zero)
{
	static uint8_t owner[0xC000];
	uint32_t i, n = 0, zero = 0, l;
	unsigned int p;
	bool ok = true;

	memset(owner, 0, sizeof(owner));
	for (i = 0; i < f->n_nodes; i++) {
		const struct node *nd = &f->nodes[i];

		for (p = node_first_lid_port(nd); p <= node_last_lid_port(nd); p++) {
			const struct port *pt = &nd->ports[p];
			uint32_t size = 1u << pt->lmc;

			if (!node_is_switch(nd) && (!pt->valid || !pt->guid))
				continue;
			n++;
			if (!pt->lid) {
				zero++;
				continue;
			}
			if (pt->lid + size - 1 > FABRIC_MAX_UCAST_LID || (pt->lid & (size - 1)))
				ok = false;
			for (l = pt->lid; l < pt->lid + size && l < 0xC000; l++) {
				if (owner[l])
					ok = false;
				owner[l] = 1;
			}
		}
	}
	CU_ASSERT(ok);
	if (ret_zero)
		*ret_zero = zero;
	return n;
}

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	CU_ASSERT_FATAL(fp != NULL);
	CU_ASSERT(fwrite(data, 1, len, fp) == len);
	CU_ASSERT(fclose(fp) == 0);
}

/* Number of directory entries other than . and .., and whether any is a temp file. */
static int count_dir(const char *dir, bool *ret_tmp)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	*ret_tmp = false;
	CU_ASSERT_FATAL(d != NULL);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strstr(de->d_name, ".tmp."))
			*ret_tmp = true;
		n++;
	}
	closedir(d);
	return n;
}

/* ---- tests ------------------------------------------------------------- */

static void test_db_basics(void)
{
	struct lid_db *db = lid_db_new();
	uint32_t i;

	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_db_count(db) == 0);
	CU_ASSERT(lid_db_get(db, 1) == 0);
	CU_ASSERT(lid_db_set(db, 0, 1, 0) == -EINVAL);
	CU_ASSERT(lid_db_set(db, 1, 0, 0) == -EINVAL);
	CU_ASSERT(lid_db_set(db, 1, 0xC000, 0) == -EINVAL);
	CU_ASSERT(lid_db_set(db, 1, 0xBFFF, 1) == -EINVAL);
	CU_ASSERT(lid_db_set(db, 1, 8, 8) == -EINVAL);
	CU_ASSERT(lid_db_set(db, 1, 0xBFFF, 0) == 0);
	CU_ASSERT(lid_db_get(db, 1) == 0xBFFF);
	CU_ASSERT(lid_db_set(db, 1, 4, 2) == 0);
	CU_ASSERT(lid_db_get(db, 1) == 4);
	CU_ASSERT(lid_db_count(db) == 1);
	for (i = 0; i < 10000; i++)
		CU_ASSERT(lid_db_set(db, 0x1000 + i, (uint16_t)(100 + i), 0) == 0);
	CU_ASSERT(lid_db_count(db) == 10001);
	for (i = 0; i < 10000; i++)
		if (lid_db_get(db, 0x1000 + i) != 100 + i)
			CU_FAIL("lookup after growth");
	lid_db_free(db);
	lid_db_free(NULL);
	CU_ASSERT(lid_db_count(NULL) == 0);
}

static void test_assign_small(void)
{
	struct fabric *f = build(4, 16, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t n, zero, i;

	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	n = check_lids(f, &zero);
	CU_ASSERT(n == 4 + 16 * 2);
	CU_ASSERT(zero == 0);
	CU_ASSERT(st.new_lids == n);
	CU_ASSERT(st.from_db == 0 && st.from_port == 0 && st.conflicts == 0);
	CU_ASSERT(st.max_lid == n); /* packed from LID 1 */
	CU_ASSERT(lid_db_count(db) == n);
	for (i = 0; i < 4; i++) {
		CU_ASSERT(sw_port0(f, i)->lmc == 0);
		CU_ASSERT(lid_db_get(db, SW_GUID(i)) == sw_port0(f, i)->lid);
	}
	for (i = 0; i < 16; i++)
		CU_ASSERT(lid_db_get(db, CA_GUID(i) + 2) == ca_port(f, i, 2)->lid);

	/* running again changes nothing */
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	CU_ASSERT(st.from_db == n && st.new_lids == 0);
	CU_ASSERT(lid_db_count(db) == n);

	/* an invalid CA port gets no LID */
	fabric_free(f);
	f = build(1, 2, 2, false, UINT32_MAX);
	ca_port(f, 1, 2)->valid = false;
	lid_db_free(db);
	db = lid_db_new();
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	CU_ASSERT(st.new_lids == 4);
	CU_ASSERT(ca_port(f, 1, 2)->lid == 0);
	CU_ASSERT(lid_db_get(db, CA_GUID(1) + 2) == 0);
	CU_ASSERT(lid_assign(NULL, f, 0, &st) == -EINVAL);
	CU_ASSERT(lid_assign(db, f, 8, &st) == -EINVAL);
	fabric_free(f);
	lid_db_free(db);
}

static void test_persistence(void)
{
	struct fabric *f = build(3, 20, 2, false, UINT32_MAX);
	struct fabric *g = build(3, 20, 2, true, UINT32_MAX);
	struct lid_db *db = lid_db_new(), *db2 = NULL;
	struct lid_assign_stats st;
	char path[512], err[256];
	uint32_t n, i, diff = 0;
	unsigned int p;

	CU_ASSERT_FATAL(db != NULL);
	path_in_tmp(path, sizeof(path), "persist.guid2lid");
	CU_ASSERT(lid_assign(db, f, 1, &st) == 0);
	n = check_lids(f, NULL);
	CU_ASSERT(lid_db_save(db, path) == 0);
	CU_ASSERT(lid_db_load(path, &db2, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(db2 != NULL);
	CU_ASSERT(lid_db_count(db2) == n);

	/* a fabric reset: same nodes, found in another order, no LIDs on ports */
	CU_ASSERT(lid_assign(db2, g, 1, &st) == 0);
	CU_ASSERT(st.from_db == n && st.new_lids == 0 && st.from_port == 0);
	for (i = 0; i < 3; i++)
		diff += sw_port0(f, i)->lid != sw_port0(g, i)->lid;
	for (i = 0; i < 20; i++)
		for (p = 1; p <= 2; p++)
			diff += ca_port(f, i, p)->lid != ca_port(g, i, p)->lid ||
				ca_port(g, i, p)->lmc != 1;
	CU_ASSERT(diff == 0);
	unlink(path);
	fabric_free(f);
	fabric_free(g);
	lid_db_free(db);
	lid_db_free(db2);
}

static void test_port_lids_honoured(void)
{
	struct fabric *f = build(2, 10, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t i, n, bad = 0;

	CU_ASSERT_FATAL(db != NULL);
	sw_port0(f, 0)->lid = 0x100;
	sw_port0(f, 1)->lid = 0x2;
	for (i = 0; i < 10; i++) {
		ca_port(f, i, 1)->lid = (uint16_t)(0x200 + 7 * i);
		ca_port(f, i, 2)->lid = (uint16_t)(0xBFFF - i);
	}
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	n = check_lids(f, NULL);
	CU_ASSERT(st.from_port == n && st.new_lids == 0 && st.conflicts == 0);
	CU_ASSERT(st.max_lid == 0xBFFF);
	CU_ASSERT(sw_port0(f, 0)->lid == 0x100 && sw_port0(f, 1)->lid == 0x2);
	for (i = 0; i < 10; i++)
		bad +=
		    ca_port(f, i, 1)->lid != 0x200 + 7 * i || ca_port(f, i, 2)->lid != 0xBFFF - i;
	CU_ASSERT(bad == 0);
	CU_ASSERT(lid_db_get(db, CA_GUID(3) + 1) == 0x200 + 21);

	/* the database beats the port: a port that moved keeps its file LID */
	ca_port(f, 0, 1)->lid = 0x300;
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	CU_ASSERT(ca_port(f, 0, 1)->lid == 0x200);
	CU_ASSERT(st.from_db == n);
	fabric_free(f);
	lid_db_free(db);
}

static void test_conflicts(void)
{
	struct fabric *f = build(2, 4, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t n;

	CU_ASSERT_FATAL(db != NULL);
	sw_port0(f, 1)->lid = 5;	/* first in index order: keeps it */
	ca_port(f, 0, 1)->lid = 5;	/* same LID as an earlier port */
	ca_port(f, 2, 2)->lid = 5;	/* and a third */
	ca_port(f, 3, 1)->lid = 0xC000; /* out of range */
	ca_port(f, 3, 2)->lid = 9;	/* fine */
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	n = check_lids(f, NULL);
	CU_ASSERT(sw_port0(f, 1)->lid == 5);
	CU_ASSERT(ca_port(f, 0, 1)->lid != 5 && ca_port(f, 0, 1)->lid != 0);
	CU_ASSERT(ca_port(f, 2, 2)->lid != 5 && ca_port(f, 2, 2)->lid != 0);
	CU_ASSERT(ca_port(f, 3, 1)->lid != 0 && ca_port(f, 3, 1)->lid <= FABRIC_MAX_UCAST_LID);
	CU_ASSERT(ca_port(f, 3, 2)->lid == 9);
	CU_ASSERT(st.conflicts == 3);
	CU_ASSERT(st.from_port == 2);
	CU_ASSERT(st.new_lids == n - 2);

	/* two GUIDs whose file ranges overlap: the first port in index order wins */
	lid_db_free(db);
	fabric_free(f);
	f = build(1, 2, 1, false, UINT32_MAX);
	db = lid_db_new();
	CU_ASSERT(lid_db_set(db, CA_GUID(0) + 1, 8, 2) == 0);
	CU_ASSERT(lid_db_set(db, CA_GUID(1) + 1, 10, 0) == 0);
	CU_ASSERT(lid_assign(db, f, 2, &st) == 0);
	check_lids(f, NULL);
	CU_ASSERT(ca_port(f, 0, 1)->lid == 8);
	CU_ASSERT(ca_port(f, 1, 1)->lid != 8 && ca_port(f, 1, 1)->lid % 4 == 0);
	CU_ASSERT(st.from_db == 1);
	CU_ASSERT(lid_db_get(db, CA_GUID(1) + 1) == ca_port(f, 1, 1)->lid);
	fabric_free(f);
	lid_db_free(db);
}

static void test_lmc(void)
{
	struct fabric *f = build(3, 12, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t i, bad = 0, n;
	unsigned int p;

	CU_ASSERT_FATAL(db != NULL);
	/* port LIDs that fit LMC 0 but not LMC 2 */
	ca_port(f, 0, 1)->lid = 5;
	ca_port(f, 1, 1)->lid = 16; /* aligned: kept */
	f->nodes[fabric_find_guid(f, SW_GUID(2))].enhanced_port0 = true;
	CU_ASSERT(lid_assign(db, f, 2, &st) == 0);
	n = check_lids(f, NULL);
	CU_ASSERT(n == 3 + 24);
	for (i = 0; i < 12; i++)
		for (p = 1; p <= 2; p++)
			bad += ca_port(f, i, p)->lid % 4 != 0 || ca_port(f, i, p)->lmc != 2;
	CU_ASSERT(bad == 0);
	CU_ASSERT(sw_port0(f, 0)->lmc == 0 && sw_port0(f, 1)->lmc == 0);
	CU_ASSERT(sw_port0(f, 2)->lmc == 2 && sw_port0(f, 2)->lid % 4 == 0);
	CU_ASSERT(ca_port(f, 1, 1)->lid == 16);
	CU_ASSERT(st.conflicts == 1 && st.from_port == 1);

	/* the file says LMC 0; asking for LMC 2 re-aligns */
	fabric_free(f);
	lid_db_free(db);
	f = build(1, 3, 1, false, UINT32_MAX);
	db = lid_db_new();
	CU_ASSERT(lid_db_set(db, CA_GUID(0) + 1, 5, 0) == 0);  /* unaligned: moves */
	CU_ASSERT(lid_db_set(db, CA_GUID(1) + 1, 8, 0) == 0);  /* aligned, 8..11 free: kept */
	CU_ASSERT(lid_db_set(db, CA_GUID(2) + 1, 32, 3) == 0); /* shrinks to 32..35 */
	CU_ASSERT(lid_assign(db, f, 2, &st) == 0);
	check_lids(f, NULL);
	CU_ASSERT(ca_port(f, 0, 1)->lid % 4 == 0 && ca_port(f, 0, 1)->lid != 0);
	CU_ASSERT(ca_port(f, 1, 1)->lid == 8);
	CU_ASSERT(ca_port(f, 2, 1)->lid == 32);
	CU_ASSERT(st.from_db == 2);
	CU_ASSERT(lid_db_get(db, CA_GUID(0) + 1) == ca_port(f, 0, 1)->lid);
	fabric_free(f);
	lid_db_free(db);
}

static void test_absent_node_reserved(void)
{
	struct fabric *f = build(2, 8, 2, false, UINT32_MAX);
	struct fabric *g = build(2, 8, 2, false, 3); /* CA 3 gone */
	struct fabric *h = build(2, 8, 2, true, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint16_t l1, l2;
	uint32_t idx;

	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	l1 = ca_port(f, 3, 1)->lid;
	l2 = ca_port(f, 3, 2)->lid;

	/* CA 3 leaves, a new CA 100 arrives: it must not get CA 3's LIDs */
	idx = add_ca(g, 100, 2);
	CU_ASSERT(lid_assign(db, g, 0, &st) == 0);
	check_lids(g, NULL);
	CU_ASSERT(st.new_lids == 2);
	CU_ASSERT(g->nodes[idx].ports[1].lid != l1 && g->nodes[idx].ports[1].lid != l2);
	CU_ASSERT(g->nodes[idx].ports[2].lid != l1 && g->nodes[idx].ports[2].lid != l2);
	CU_ASSERT(lid_db_get(db, CA_GUID(3) + 1) == l1);

	/* CA 3 comes back (fabric reset, no LIDs on ports) and gets them again */
	CU_ASSERT(lid_assign(db, h, 0, &st) == 0);
	check_lids(h, NULL);
	CU_ASSERT(ca_port(h, 3, 1)->lid == l1);
	CU_ASSERT(ca_port(h, 3, 2)->lid == l2);
	CU_ASSERT(st.new_lids == 0);
	fabric_free(f);
	fabric_free(g);
	fabric_free(h);
	lid_db_free(db);
}

static void test_reclaim_when_full(void)
{
	struct fabric *f = build(1, 2, 1, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t l;

	CU_ASSERT_FATAL(db != NULL);
	/* every LID is reserved for GUIDs that are not in the fabric */
	for (l = 1; l <= FABRIC_MAX_UCAST_LID; l++)
		CU_ASSERT(lid_db_set(db, 0x7000000000000000ULL + l, (uint16_t)l, 0) == 0);
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	check_lids(f, NULL);
	CU_ASSERT(sw_port0(f, 0)->lid == 1);
	CU_ASSERT(ca_port(f, 0, 1)->lid == 2 && ca_port(f, 1, 1)->lid == 3);
	CU_ASSERT(st.new_lids == 3);
	/* the absent GUIDs that lost their LIDs are gone from the file */
	CU_ASSERT(lid_db_get(db, 0x7000000000000000ULL + 1) == 0);
	CU_ASSERT(lid_db_get(db, 0x7000000000000000ULL + 3) == 0);
	CU_ASSERT(lid_db_get(db, 0x7000000000000000ULL + 4) == 4);
	CU_ASSERT(lid_db_count(db) == FABRIC_MAX_UCAST_LID);
	fabric_free(f);
	lid_db_free(db);
}

static void test_corrupt_file(void)
{
	static const char data[] = "# guid2lid\n"			    /* 1 */
				   "0x0000000000000011 0x0001 0x0001\n"	    /* 2 good */
				   "\xff\xfe\x01garbage\x7f\n"		    /* 3 garbage bytes */
				   "  0x0000000000000012 0x0002 0x0002  \n" /* 4 good */
				   "0x00000000000000zz 0x0003 0x0003\n"	    /* 5 bad hex */
				   "0x0000000000000013 0x0004\0 0x0004\n"   /* 6 NUL */
				   "%s\n"				    /* 7 overlong */
				   "0x0000000000000014 0xc000 0xc000\n"	    /* 8 out of range */
				   "0x0000000000000015 0x0010 0x0012\n" /* 9 not a power of two */
				   "0x0000000000000016 0x0001 0x0001\n" /* 10 overlaps line 2 */
				   "\n"					/* 11 */
				   "0x0000000000000017 0x0020 0x0023\n" /* 12 good, LMC 2 */
				   "0x0000000000000018 0x0000 0x0000\n" /* 13 LID 0 */
				   "0x0000000000000011 0x0040 0x0040\n" /* 14 GUID twice */
				   "0x0000000000000019 0x0030 0x0030";	/* 15 good, no newline */
	char buf[2048], path[512], err[256], longline[400];
	struct lid_db *db = NULL;
	const char *nul_at, *fmt_at;
	size_t len, pre;

	memset(longline, 'a', 300);
	longline[300] = '\0';
	/* data holds a NUL; splice the long line in by hand */
	fmt_at = memmem(data, sizeof(data) - 1, "%s", 2);
	CU_ASSERT_FATAL(fmt_at != NULL);
	pre = (size_t)(fmt_at - data);
	memcpy(buf, data, pre);
	memcpy(buf + pre, longline, 300);
	memcpy(buf + pre + 300, fmt_at + 2, sizeof(data) - 1 - pre - 2);
	len = sizeof(data) - 1 - 2 + 300;
	nul_at = memchr(buf, '\0', len);
	CU_ASSERT_FATAL(nul_at != NULL);

	path_in_tmp(path, sizeof(path), "corrupt.guid2lid");
	write_file(path, buf, len);
	CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == -EBADMSG);
	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(strstr(err, path) == err);
	CU_ASSERT(strstr(err, ":3:") != NULL);
	CU_ASSERT(lid_db_count(db) == 4);
	CU_ASSERT(lid_db_get(db, 0x11) == 1);
	CU_ASSERT(lid_db_get(db, 0x12) == 2);
	CU_ASSERT(lid_db_get(db, 0x17) == 0x20);
	CU_ASSERT(lid_db_get(db, 0x19) == 0x30);
	CU_ASSERT(lid_db_get(db, 0x13) == 0);
	CU_ASSERT(lid_db_get(db, 0x14) == 0);
	CU_ASSERT(lid_db_get(db, 0x15) == 0);
	CU_ASSERT(lid_db_get(db, 0x16) == 0);
	CU_ASSERT(lid_db_get(db, 0x18) == 0);
	lid_db_free(db);
	unlink(path);
}

/* Each kind of bad line on its own, after one good line: reported as line 2. */
static void test_each_bad_line(void)
{
	static const struct {
		const char *text;
		size_t len;
	} bad[] = {
#define B(s) {s, sizeof(s) - 1}
	    B("\xff\xfe\x01\x02\n"),
	    B("0x00000000000000zz 0x0003 0x0003\n"),
	    B("0x0000000000000013 0x00\0004 0x0004\n"),
	    B("0x0000000000000014 0xc000 0xc000\n"),
	    B("0x0000000000000014 0xbfff 0xc000\n"),
	    B("0x0000000000000015 0x0010 0x0012\n"),
	    B("0x0000000000000015 0x0100 0x0200\n"), /* 257 LIDs */
	    B("0x0000000000000016 0x0001 0x0001\n"), /* overlap */
	    B("0x0000000000000016 0x0000 0x0000\n"),
	    B("0x0000000000000000 0x0005 0x0005\n"),
	    B("0x0000000000000016 0x0008 0x0004\n"),
	    B("0x0000000000000016 0x0005\n"),
	    B("0x0000000000000016 0x0005 0x0005 0x0005\n"),
	    B("0x10000000000000016 0x0005 0x0005\n"),
	    B("-0x16 0x0005 0x0005\n"),
	    B("0x16 0x0005 0x0005junk\n"),
	    B("\0\n"),
#undef B
	};
	char buf[512], path[512], err[256];
	const char good[] = "0x0000000000000011 0x0001 0x0001\n";
	struct lid_db *db;
	size_t i;
	int r;

	path_in_tmp(path, sizeof(path), "bad.guid2lid");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(buf, good, sizeof(good) - 1);
		memcpy(buf + sizeof(good) - 1, bad[i].text, bad[i].len);
		write_file(path, buf, sizeof(good) - 1 + bad[i].len);
		db = NULL;
		err[0] = '\0';
		r = lid_db_load(path, &db, err, sizeof(err));
		CU_ASSERT(r == -EBADMSG);
		CU_ASSERT_FATAL(db != NULL);
		CU_ASSERT(lid_db_count(db) == 1);
		CU_ASSERT(lid_db_get(db, 0x11) == 1);
		CU_ASSERT(strstr(err, ":2: ") != NULL);
		if (r != -EBADMSG || !strstr(err, ":2: "))
			fprintf(stderr, "\ncase %zu: r=%d err='%s'\n", i, r, err);
		lid_db_free(db);
	}
	unlink(path);
}

static void test_garbage_file(void)
{
	static char buf[1 << 16];
	char path[512], err[256];
	struct lid_db *db;
	uint32_t x = 12345;
	size_t i;
	int round, r;

	path_in_tmp(path, sizeof(path), "garbage.guid2lid");
	for (round = 0; round < 20; round++) {
		for (i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245 + 12345;
			buf[i] = (char)(x >> 16);
			/* some rounds look more like the format */
			if (round & 1 && (x >> 8) % 3 == 0)
				buf[i] = "0x1 \n#"[(x >> 20) % 6];
		}
		write_file(path, buf, sizeof(buf));
		db = NULL;
		r = lid_db_load(path, &db, err, sizeof(err));
		CU_ASSERT(r == 0 || r == -EBADMSG);
		CU_ASSERT(db != NULL);
		lid_db_free(db);
	}
	/* an empty file and a comment-only file are fine */
	write_file(path, "", 0);
	CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == 0);
	CU_ASSERT(db && lid_db_count(db) == 0);
	lid_db_free(db);
	write_file(path, "# nothing\n\n   \t\n", 16);
	CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == 0);
	CU_ASSERT(db && lid_db_count(db) == 0);
	lid_db_free(db);
	/* a tiny err buffer is fine, and so is none */
	write_file(path, "zz\n", 3);
	CU_ASSERT(lid_db_load(path, &db, err, 4) == -EBADMSG);
	CU_ASSERT(strlen(err) == 3);
	lid_db_free(db);
	CU_ASSERT(lid_db_load(path, &db, NULL, 0) == -EBADMSG);
	lid_db_free(db);
	unlink(path);
}

static void test_unreadable(void)
{
	char path[512], err[256];
	struct lid_db *db = NULL;
	int r;

	/* a directory */
	r = lid_db_load(tmpdir, &db, err, sizeof(err));
	CU_ASSERT(r < 0 && r != -EBADMSG && r != -ENOMEM);
	CU_ASSERT(r == -EISDIR);
	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_db_count(db) == 0);
	CU_ASSERT(strstr(err, tmpdir) == err);
	lid_db_free(db);

	/* missing: empty and fine */
	path_in_tmp(path, sizeof(path), "missing.guid2lid");
	db = NULL;
	strcpy(err, "x");
	CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_db_count(db) == 0);
	CU_ASSERT(err[0] == '\0');
	lid_db_free(db);

	/* a path through a regular file */
	path_in_tmp(path, sizeof(path), "plain");
	write_file(path, "x", 1);
	strcat(path, "/guid2lid");
	db = NULL;
	CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == -ENOTDIR);
	CU_ASSERT(db && lid_db_count(db) == 0);
	lid_db_free(db);
	path_in_tmp(path, sizeof(path), "plain");
	unlink(path);

	/* unreadable, when not running as root */
	if (geteuid() != 0) {
		path_in_tmp(path, sizeof(path), "noperm.guid2lid");
		write_file(path, "0x11 0x1 0x1\n", 13);
		chmod(path, 0);
		db = NULL;
		CU_ASSERT(lid_db_load(path, &db, err, sizeof(err)) == -EACCES);
		CU_ASSERT(db && lid_db_count(db) == 0);
		lid_db_free(db);
		unlink(path);
	}
}

static void test_atomic_save(void)
{
	struct fabric *f = build(2, 6, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new(), *db2 = NULL;
	char dir[512], path[600], err[256], line[128];
	struct lid_assign_stats st;
	bool has_tmp;
	FILE *fp;
	unsigned prev = 0, lid, max;
	int i;

	CU_ASSERT_FATAL(db != NULL);
	path_in_tmp(dir, sizeof(dir), "save");
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof(path), "%s/guid2lid", dir);
	CU_ASSERT(lid_assign(db, f, 1, &st) == 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT(lid_db_save(db, path) == 0);
	CU_ASSERT(count_dir(dir, &has_tmp) == 1);
	CU_ASSERT(!has_tmp);

	/* sorted by LID, in OpenSM's format: no comment, a blank line after each entry */
	fp = fopen(path, "r");
	CU_ASSERT_FATAL(fp != NULL);
	for (unsigned n = 0; fgets(line, sizeof(line), fp); n++) {
		if (n % 2) {
			CU_ASSERT_STRING_EQUAL(line, "\n");
			continue;
		}
		CU_ASSERT(line[0] != '#');
		CU_ASSERT(sscanf(line, "%*x %x %x", &lid, &max) == 2);
		CU_ASSERT(lid > prev && (max == lid || max == lid + 1)); /* LMC 0 or 1 */
		prev = lid;
	}
	fclose(fp);
	CU_ASSERT(lid_db_load(path, &db2, err, sizeof(err)) == 0);
	CU_ASSERT(lid_db_count(db2) == lid_db_count(db));
	lid_db_free(db2);

	/* a failed save leaves neither a temp file nor a changed target */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	CU_ASSERT(lid_db_save(db, path) < 0); /* rename over a directory */
	CU_ASSERT(count_dir(dir, &has_tmp) == 2);
	CU_ASSERT(!has_tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/nodir/guid2lid", dir);
	CU_ASSERT(lid_db_save(db, path) == -ENOENT);
	CU_ASSERT(count_dir(dir, &has_tmp) == 1);
	CU_ASSERT(!has_tmp);

	/* an empty database saves and loads */
	lid_db_free(db);
	db = lid_db_new();
	snprintf(path, sizeof(path), "%s/guid2lid", dir);
	CU_ASSERT(lid_db_save(db, path) == 0);
	CU_ASSERT(lid_db_load(path, &db2, err, sizeof(err)) == 0);
	CU_ASSERT(db2 && lid_db_count(db2) == 0);
	lid_db_free(db2);
	unlink(path);
	rmdir(dir);
	fabric_free(f);
	lid_db_free(db);
}

static void test_enospc(void)
{
	/* LMC 7: 383 blocks of 128 fit in 1..0xBFFF; 400 CA ports do not */
	struct fabric *f = build(2, 200, 2, false, UINT32_MAX);
	struct lid_db *db = lid_db_new();
	struct lid_assign_stats st;
	uint32_t n, zero;

	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_assign(db, f, 7, &st) == -ENOSPC);
	n = check_lids(f, &zero);
	CU_ASSERT(n == 402);
	CU_ASSERT(zero == 400 - 383);
	CU_ASSERT(st.new_lids == 383 + 2);
	CU_ASSERT(sw_port0(f, 0)->lid != 0 && sw_port0(f, 1)->lid != 0);
	CU_ASSERT(st.max_lid == FABRIC_MAX_UCAST_LID);
	CU_ASSERT(lid_db_count(db) == 385);
	fabric_free(f);

	/* 383 fit exactly */
	f = build(1, 383, 1, false, UINT32_MAX);
	lid_db_free(db);
	db = lid_db_new();
	CU_ASSERT(lid_assign(db, f, 7, &st) == 0);
	check_lids(f, &zero);
	CU_ASSERT(zero == 0);
	fabric_free(f);
	lid_db_free(db);
}

/*
 * 1000 switches + 24000 dual-port CAs = 49000 LID-carrying ports: every one
 * gets a LID, and from the saved file the same LIDs again (how fast:
 * bench/ibsmd-micro lid).
 */
static void test_large(void)
{
	struct fabric *f = build(1000, 24000, 2, false, UINT32_MAX);
	struct fabric *g = build(1000, 24000, 2, true, UINT32_MAX);
	struct lid_db *db = lid_db_new(), *db2 = NULL;
	struct lid_assign_stats st;
	char path[512], err[256];
	uint32_t n, zero;

	CU_ASSERT_FATAL(db != NULL);
	CU_ASSERT(lid_assign(db, f, 0, &st) == 0);
	n = check_lids(f, &zero);
	CU_ASSERT(n == 49000 && zero == 0);
	CU_ASSERT(st.new_lids == 49000 && st.max_lid == 49000);
	path_in_tmp(path, sizeof(path), "large.guid2lid");
	CU_ASSERT(lid_db_save(db, path) == 0);
	CU_ASSERT(lid_db_load(path, &db2, err, sizeof(err)) == 0);
	CU_ASSERT(lid_assign(db2, g, 0, &st) == 0);
	CU_ASSERT(st.from_db == 49000);
	n = check_lids(g, &zero);
	CU_ASSERT(n == 49000 && zero == 0);
	CU_ASSERT(sw_port0(g, 999)->lid == sw_port0(f, 999)->lid);
	CU_ASSERT(ca_port(g, 12345, 2)->lid == ca_port(f, 12345, 2)->lid);
	unlink(path);
	fabric_free(f);
	fabric_free(g);
	lid_db_free(db);
	lid_db_free(db2);
}

int main(void)
{
	static const struct testutil_case cases[] = {
	    {"db basics", test_db_basics},
	    {"assign a small fabric", test_assign_small},
	    {"persistence across a fabric reset", test_persistence},
	    {"LIDs on ports honoured", test_port_lids_honoured},
	    {"conflicting port LIDs", test_conflicts},
	    {"LMC alignment", test_lmc},
	    {"absent node keeps its LIDs", test_absent_node_reserved},
	    {"reserved LIDs reused when full", test_reclaim_when_full},
	    {"corrupt file", test_corrupt_file},
	    {"each bad line", test_each_bad_line},
	    {"garbage file", test_garbage_file},
	    {"unreadable path", test_unreadable},
	    {"atomic save", test_atomic_save},
	    {"ENOSPC", test_enospc},
	    {"48k ports", test_large},
	    {NULL, NULL},
	};
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_lid.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = testutil_run("lid", cases);
	rmdir(tmpdir);
	return rc;
}

/*
 * Partitions: OpenSM's partitions.conf (its PARTITION CONFIGURATION) parsed
 * into a policy, and the policy turned into the P_Key table each end port
 * should hold (IBA 1.4 vol 1, 10.9 partitioning; 14.2.5.7 P_KeyTable).
 *
 * Pure: no I/O but partition_load()'s read of its file, no logging, no
 * globals.  Errors come back as text, "FILE:LINE: what is wrong", one per
 * line.  The SA reads the same policy (IPoIB groups) and the tables the SM
 * programmed (struct port's pkeys), so this sits below both.
 */
#ifndef IBSMD_PARTITION_H
#define IBSMD_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

#define PARTITION_DEFAULT_PKEY 0x7fff
#define PARTITION_FULL 0x8000 /* the membership bit of a P_Key */
#define PARTITION_FILE_MAX (1u << 20)
#define PARTITION_MAX 4096 /* partitions in one file */

/* A member's membership: limited, full, or both (two table entries). */
enum partition_membership {
	PARTITION_M_LIMITED = 1,
	PARTITION_M_FULL = 2,
	PARTITION_M_BOTH = 3,
};

/* Who a member entry names. */
enum partition_who {
	PARTITION_GUID,		/* the end port with this port GUID */
	PARTITION_ALL,		/* every end port (CA, router, switch port 0) */
	PARTITION_ALL_CAS,	/* every CA port */
	PARTITION_ALL_SWITCHES, /* every switch's port 0 */
	PARTITION_ALL_ROUTERS,	/* every router port */
	PARTITION_SELF,		/* the SM's own port */
};

struct partition_member {
	uint64_t guid; /* PARTITION_GUID only */
	uint8_t who;   /* enum partition_who */
	uint8_t membership;
	unsigned line;
	uint8_t flags; /* PARTITION_MF_* */
};

/* A member's flags (runtime partitions, policy/pkeyset.h). */
#define PARTITION_MF_INDEX0 0x01 /* the key goes at index 0 of this port's table */

struct partition {
	char name[64];
	uint16_t pkey; /* low 15 bits */
	bool ipoib;    /* create the IPoIB broadcast group */
	bool indx0;    /* at index 0 of block 0 */
	uint8_t mtu;   /* IBA encoding, for the broadcast group (default 4: 2048) */
	uint8_t rate;  /* IBA encoding (default 3: 10 Gb/s) */
	uint8_t sl;
	uint16_t scopes; /* bit per MGID scope nibble; default link-local (bit 2) */
	uint32_t qkey;	 /* default 0x0B1B */
	unsigned line;	 /* where it was first defined */
	bool runtime;	 /* made through the API (policy/pkeyset.h), not read from the file */
	/* a runtime partition's mtu_limit, rate_limit: PathRecords in it at most (0: none) */
	uint8_t path_mtu, path_rate;
	struct partition_member *members;
	size_t n_members, cap_members;
};

/* A member of the index partition_config_index() builds (partition_port_table). */
struct partition_ix {
	uint64_t guid; /* PARTITION_GUID members; 0 for the others */
	uint32_t part; /* the partition's index in parts */
	uint8_t who;   /* enum partition_who */
	uint8_t membership;
	uint8_t flags; /* PARTITION_MF_* */
};

struct partition_config {
	struct partition *parts; /* in file order; the default partition among them */
	size_t n;
	bool from_file; /* false: no file, the built-in Default=0x7fff,ipoib:ALL=full */
	/*
	 * OpenSM's allow_both_pkeys: a `both` member holds the key twice, full
	 * and limited.  false (the default, parsers leave it so): full only.
	 */
	bool allow_both;
	unsigned refs; /* references beyond the first (partition_config_ref) */
	/*
	 * The members indexed (partition_config_index): the GUID members
	 * sorted by (guid, part), the others (ALL, SELF, ...) by part; the
	 * default partition's index.  Every config the functions below return
	 * is indexed, so a port's table costs its own memberships, not the
	 * whole policy.
	 */
	struct partition_ix *ix, *wild;
	size_t n_ix, n_wild;
	uint32_t default_part;
	bool indexed;
};

/*
 * Parse text (len bytes; name stands for FILE in messages).  0 with *ret a
 * new policy (always holding the default partition, 0x7fff: without a rule
 * for it, as OpenSM, ALL=limited and SELF=full), or -EINVAL with err
 * holding every error (as many as fit, then "... and N more"), or -ENOMEM.
 */
int partition_parse(const char *name, const char *text, size_t len, struct partition_config **ret,
		    char *err, size_t err_len);

/*
 * partition_parse() of the file at path.  "" means no file: the built-in
 * policy (Default=0x7fff,ipoib : ALL=full).  -errno with "FILE: why" when it
 * cannot be read.
 */
int partition_load(const char *path, struct partition_config **ret, char *err, size_t err_len);

/* The built-in policy; NULL on ENOMEM. */
struct partition_config *partition_default(void);

/*
 * A configuration is immutable once loaded and may be shared (the SM's, the
 * SA's): ref takes one more reference (c returned, NULL fine); free drops
 * one and frees with the last (NULL fine).
 */
struct partition_config *partition_config_ref(struct partition_config *c);
void partition_config_free(struct partition_config *c);

/*
 * Building a policy from another (policy/pkeyset.h merges the runtime
 * partitions into the file's): a deep copy of c, without its index (NULL on
 * ENOMEM); a partition appended (name, P_Key's low 15 bits; the defaults of
 * a partitions.conf definition), NULL on ENOMEM or past PARTITION_MAX +
 * 32767; a GUID member appended (0 or -ENOMEM); the index built once the
 * policy is complete (0 or -ENOMEM).  Not for a policy that is shared.
 */
struct partition_config *partition_config_dup(const struct partition_config *c);
struct partition *partition_config_add(struct partition_config *c, const char *name, uint16_t pkey);
int partition_add_guid(struct partition *p, uint64_t guid, uint8_t membership, uint8_t flags);
int partition_config_index(struct partition_config *c);

/* The partition with this P_Key (membership bit ignored), or NULL. */
const struct partition *partition_find(const struct partition_config *c, uint16_t pkey);

/*
 * The P_Key table end port (node, port) of f should hold (a switch: port 0),
 * in index order: the first runtime partition that asks index0 for this
 * port, else the indx0 partition (else the default) first, then the others
 * in policy order (the file's, then the runtime ones); full members carry
 * bit 15; a `both` member holds the key twice.  sm_guid is the SM's port
 * GUID (SELF; always a full member of the default partition).  At most cap
 * keys are written (the rest is counted in the return value: returns how
 * many the port should hold).  O(the port's memberships + the policy's
 * ALL/SELF-style members) on an indexed policy.
 */
size_t partition_port_table(const struct partition_config *c, const struct fabric *f, uint32_t node,
			    uint8_t port, uint64_t sm_guid, uint16_t *keys, size_t cap);

/*
 * Whether two P_Key tables (n entries each, 0 = empty) share a partition in
 * which at least one is a full member; the key found is a's (membership bit
 * included) for the first such entry of a in index order, or the one asked
 * for (want != 0, compared on the low 15 bits).
 */
bool partition_common(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, uint16_t want,
		      uint16_t *ret_key);

/* The entry of table t (n entries) for pkey's partition, 0 when none. */
uint16_t partition_table_find(const uint16_t *t, size_t n, uint16_t pkey);

#endif

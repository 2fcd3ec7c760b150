/*
 * Inside the multicast group database: its layout and the store's
 * operations (sa/mcast.c) the join and leave rules (sa/mcast_join.c) are
 * built from.  Only those two files include this; everyone else goes
 * through mcast.h.
 */
#ifndef IBSMD_MCAST_INT_H
#define IBSMD_MCAST_INT_H

#include "sa/mcast.h"

#define MLID_WORDS ((MCAST_N_MLIDS + 1 + 63) / 64) /* 256: bit 16383 (0xFFFF) stays used */

struct mcast_db {
	struct mcast_group **groups; /* dense */
	uint32_t n_groups, groups_cap;
	struct u64map by_mgid; /* the MGID folded (mcast.c) -> group slot */
	struct mcast_group *by_mlid[MCAST_N_MLIDS];
	uint64_t mlid_free[MLID_WORDS];		/* bit set: free */
	uint64_t mlid_summary[MLID_WORDS / 64]; /* bit w: mlid_free[w] != 0 */
	uint32_t n_mlids;
	size_t n_members;
	uint32_t next_mgid_id;
	struct mcast_hooks hooks;
};

/* Whether mlid is a multicast LID no group holds. */
bool mcast_mlid_is_free(const struct mcast_db *db, uint16_t mlid);
/* The lowest free MLID, or 0. */
uint16_t mcast_mlid_lowest(const struct mcast_db *db);

/* The group with that MGID, or NULL. */
struct mcast_group *mcast_mgid_lookup(const struct mcast_db *db, const uint8_t mgid[16]);

/* A new group at mlid (taken) with mgid and p, no member, no hook run; NULL on ENOMEM. */
struct mcast_group *mcast_group_new(struct mcast_db *db, const uint8_t mgid[16], uint16_t mlid,
				    const struct mcast_params *p);
/* Run the deleted hooks, then free the group, its members and its MLID. */
void mcast_group_delete(struct mcast_db *db, struct mcast_group *g);

/* The members[] index of port guid in g, or -1. */
long mcast_member_lookup(const struct mcast_group *g, uint64_t guid);
/* A new member (the port must not be one yet), no hook run.  0 or -ENOMEM (g unchanged). */
int mcast_member_add(struct mcast_db *db, struct mcast_group *g, const uint8_t gid[16],
		     uint8_t join_state, bool proxy);
/*
 * Clear bits of members[i]; the member goes with its last bit, the group
 * with its last full member (a well-known one keeps no member but stays).
 * Runs the hooks.  Returns true when the group was deleted.
 */
bool mcast_member_clear(struct mcast_db *db, struct mcast_group *g, uint32_t i, uint8_t bits);

#endif

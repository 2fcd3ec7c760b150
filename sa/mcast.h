/*
 * The multicast group database: every group by MGID and by MLID, its
 * parameters and its members, and the join/leave rules of the SA (IBA 1.4
 * vol 1, 15.2.5.17 MCMemberRecord; o15-0.1.x and o15-0.2.x in 15.4.2).  One
 * object owns it (struct sm) and it outlives sweeps; the SA server turns
 * MCMemberRecord Set/Delete into mcast_join/mcast_leave and a refusal into
 * an SA status (mcast_why_sa_status).  Pure: no I/O, no logging; observers
 * hear of changes through hook lists.
 *
 * What the SA checks, not this file: the requester's identity (it sets
 * req->proxy when the requester is not the port), that the port exists and
 * shares the group's partition, the PortGID prefix, and the port's MTU and
 * rate (req->port_mtu, req->port_rate).
 */
#ifndef IBSMD_MCAST_H
#define IBSMD_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/snapshot.h"
#include "lib/hook.h"
#include "lib/u64map.h"

#define MCAST_MLID_FIRST 0xC000
#define MCAST_MLID_LAST 0xFFFE /* 0xFFFF is the permissive LID */
#define MCAST_N_MLIDS (MCAST_MLID_LAST - MCAST_MLID_FIRST + 1)

/* MCMemberRecord:JoinState; a member's state is the OR of its joins. */
#define MCAST_FULL 0x1
#define MCAST_NON 0x2
#define MCAST_SEND_ONLY 0x4
/*
 * SendOnlyFullMember (IBA 1.2.1, 15.2.5.17): a sender that may create the
 * group, as a FullMember may, and is not delivered to (IPoIB's send-only
 * joins).  As in OpenSM, full_members counts FullMembers alone: the group
 * goes when the last FullMember leaves, or when its last member leaves (a
 * group a SendOnlyFullMember created and no FullMember joined).  The SA
 * advertises it (ClassPortInfo CapabilityMask2 bit 12).
 */
#define MCAST_SEND_ONLY_FULL 0x8
#define MCAST_JOIN_MASK 0xf
/* The bits that may create a group. */
#define MCAST_ANY_FULL (MCAST_FULL | MCAST_SEND_ONLY_FULL)

/* MCMemberRecord component mask bits (15.2.5.17, Table 195): as on the wire. */
#define MCAST_C_MGID (1ULL << 0)
#define MCAST_C_PORT_GID (1ULL << 1)
#define MCAST_C_QKEY (1ULL << 2)
#define MCAST_C_MLID (1ULL << 3)
#define MCAST_C_MTU_SEL (1ULL << 4)
#define MCAST_C_MTU (1ULL << 5)
#define MCAST_C_TCLASS (1ULL << 6)
#define MCAST_C_PKEY (1ULL << 7)
#define MCAST_C_RATE_SEL (1ULL << 8)
#define MCAST_C_RATE (1ULL << 9)
#define MCAST_C_LIFE_SEL (1ULL << 10)
#define MCAST_C_LIFE (1ULL << 11)
#define MCAST_C_SL (1ULL << 12)
#define MCAST_C_FLOW (1ULL << 13)
#define MCAST_C_HOP (1ULL << 14)
#define MCAST_C_SCOPE (1ULL << 15)
#define MCAST_C_JOIN_STATE (1ULL << 16)
#define MCAST_C_PROXY (1ULL << 17)

/* MTU and rate selectors (as in PathRecord, 15.2.5.16). */
enum mcast_sel {
	MCAST_SEL_GT = 0,      /* greater than the value */
	MCAST_SEL_LT = 1,      /* less than */
	MCAST_SEL_EQ = 2,      /* exactly */
	MCAST_SEL_LARGEST = 3, /* the largest available */
};

#define MCAST_DEFAULT_MTU 4  /* 2048 bytes, when a create names none */
#define MCAST_DEFAULT_RATE 3 /* 10 Gb/s, likewise (OpenSM's defaults too) */
#define MCAST_DEFAULT_PKT_LIFE 18
#define MCAST_SCOPE_LINK_LOCAL 0x2

/* A group's parameters (the MCMemberRecord fields every member shares). */
struct mcast_params {
	uint32_t qkey;
	uint16_t pkey;
	uint8_t mtu;  /* MTU code, 1 = 256 .. 5 = 4096 (selector "exactly") */
	uint8_t rate; /* rate code, 2 = 2.5 Gb/s, 3 = 10, 6 = 20, 7 = 40, ... */
	uint8_t pkt_life;
	uint8_t sl;
	uint8_t tclass;
	uint32_t flow_label; /* 20 bits */
	uint8_t hop_limit;
	uint8_t scope; /* the MGID's scope (low nibble of byte 1) */
};

struct mcast_member {
	uint8_t port_gid[16]; /* as first joined; the port GUID is bytes 8..15 */
	uint8_t join_state;   /* MCAST_FULL | MCAST_NON | MCAST_SEND_ONLY | .._FULL, never 0 */
	bool proxy;	      /* joined by another port on its behalf (o15-0.1.2) */
};

/* Read through the const pointers the lookups return; changed only by this file. */
struct mcast_group {
	uint8_t mgid[16];
	uint16_t mlid;
	struct mcast_params p;
	bool well_known;       /* created by the SM, never deleted */
	uint32_t full_members; /* members whose state has MCAST_FULL */
	uint32_t n_members;
	struct mcast_member *members; /* [0, n_members), in no particular order */
	/* private */
	uint32_t members_cap;
	struct u64map index; /* port GUID -> members[] index */
	uint32_t slot;	     /* place in the database's group array */
};

/* Why a join or leave was refused. */
enum mcast_why {
	MCAST_OK = 0,
	MCAST_NO_GROUP,	    /* no group with that MGID (a leave, or a join that cannot create) */
	MCAST_INSUF_COMPS,  /* MGID, PortGID, JoinState; on a create also Q_Key, P_Key, SL,
			       FlowLabel, TClass (o15-0.1.8) */
	MCAST_BAD_MGID,	    /* not a valid multicast GID for a create (o15-0.1.5) */
	MCAST_BAD_GID,	    /* PortGID with GUID 0 */
	MCAST_BAD_JOIN,	    /* JoinState 0, or a bit past SendOnlyFullMember */
	MCAST_BAD_PKEY,	    /* a P_Key whose low 15 bits are 0 */
	MCAST_QKEY,	    /* differs from the group's */
	MCAST_PKEY,	    /* another partition, or both limited */
	MCAST_MTU,	    /* the MTU selector excludes the group's MTU */
	MCAST_RATE,	    /* the rate selector excludes the group's rate */
	MCAST_SL,	    /* differs from the group's */
	MCAST_TCLASS,	    /* differs from the group's */
	MCAST_FLOW,	    /* differs from the group's */
	MCAST_HOP,	    /* differs from the group's */
	MCAST_PORT_CAPS,    /* the port's MTU or rate is below the group's */
	MCAST_UNREALIZABLE, /* a create whose MTU or rate selector allows no value */
	MCAST_PROXY,	    /* a proxy request for a member that joined by itself (o15-0.2.1) */
	MCAST_NOT_MEMBER,   /* a leave for a port that is not a member */
	MCAST_NOT_HELD,	    /* a leave of no bit, or of a bit, the member does not hold */
	MCAST_NO_MLID,	    /* every MLID is in use, or the one asked for is */
	MCAST_NO_MGID,	    /* no free MGID to assign */
	MCAST_NOMEM,	    /* out of memory */
};

/* One line, for logs and SA error replies. */
const char *mcast_why_str(enum mcast_why w);
/*
 * The SA MAD status for a refusal (15.2.1.1: the class-specific code in
 * bits 15..8): 0x0100 ERR_NO_RESOURCES for NO_MLID/NO_MGID/NOMEM, 0x0600
 * ERR_REQ_INSUFFICIENT_COMPONENTS, 0x0500 ERR_REQ_INVALID_GID for BAD_GID,
 * 0x0200 ERR_REQ_INVALID for the rest; 0 for MCAST_OK.
 */
uint16_t mcast_why_sa_status(enum mcast_why w);

/* A join: the components of an MCMemberRecord SubnAdmSet(), host order. */
struct mcast_join_req {
	uint64_t comp;	  /* MCAST_C_*: which components were given */
	uint8_t mgid[16]; /* all zeros on a create: the SA assigns one */
	uint8_t port_gid[16];
	uint8_t join_state;
	bool proxy;		   /* the requester is not the port */
	uint16_t mlid;		   /* with MCAST_C_MLID on a create: the MLID wanted (if free) */
	struct mcast_params p;	   /* the components given, per comp (scope: MCAST_C_SCOPE) */
	uint8_t mtu_sel, rate_sel; /* enum mcast_sel, with MCAST_C_MTU_SEL / _RATE_SEL */
	uint8_t port_mtu;	   /* the joining port's (neighbour) MTU code; 0 = unknown */
	uint8_t port_rate;	   /* the joining port's rate code; 0 = unknown */
	uint64_t subnet_prefix;	   /* for an MGID the SA assigns (IBA 4.1.1 item 14) */
};

struct mcast_result {
	enum mcast_why why;
	/* the group (valid until the database changes); NULL when it was deleted */
	const struct mcast_group *g;
	uint8_t join_state; /* the member's state now, 0 when it left */
	bool created;	    /* the join created the group */
	bool deleted;	    /* the leave deleted it */
};

/*
 * Observers (lib/hook.h), run inside the call that changed the database.
 *  changed: const struct mcast_group *: a group was created, or the set of
 *           its ports that receive (full and non members) or only send
 *           changed: its spanning tree must be computed again;
 *  deleted: const struct mcast_group *: the group is going (its last full
 *           member left or its port left the fabric); its MLID is free once
 *           the hooks return.
 * A hook must not change the database.
 */
struct mcast_hooks {
	struct hook_list changed;
	struct hook_list deleted;
};

struct mcast_db;

/* An empty database (no group, every MLID free); NULL on ENOMEM.  NULL-safe free. */
struct mcast_db *mcast_db_new(void);
void mcast_db_free(struct mcast_db *db);
struct mcast_hooks *mcast_db_hooks(struct mcast_db *db);

/*
 * Join (15.4.2, o15-0.2.4) or create (o15-0.2.3).  An MGID with no group
 * creates one when the join is a full-member join with the components a
 * create needs; an all-zero MGID asks for one (ff1S:a01b:<subnet
 * prefix>:<id>, S the requested scope or link-local).  A create takes the
 * MLID asked for if free, else the lowest free one.  The member's state
 * becomes the OR of its joins; a join of an existing group must agree with
 * every component it names.  Returns 0, -EINVAL (refused, ret->why says
 * why), -ENOSPC (no MLID or MGID left) or -ENOMEM; ret is always filled.
 */
int mcast_join(struct mcast_db *db, const struct mcast_join_req *req, struct mcast_result *ret);

/*
 * Leave (o15-0.1.14): clear join_state's bits of the port's membership.
 * Every bit must be held and proxy may not leave for a port that joined by
 * itself.  A member with no bit left goes; a group whose last full member
 * leaves goes with the members it had left (a well-known group stays,
 * empty).  0 or -EINVAL (ret->why); ret is always filled.
 */
int mcast_leave(struct mcast_db *db, const uint8_t mgid[16], const uint8_t port_gid[16],
		uint8_t join_state, bool proxy, struct mcast_result *ret);

/*
 * The port left the fabric: it leaves every group with every bit (groups
 * that lose their last full member go, with their other members).  Returns
 * how many groups the port was a member of.
 */
size_t mcast_port_gone(struct mcast_db *db, uint64_t port_guid);
/*
 * A snapshot was published: every member whose port is not in it, or is a
 * CA/router port without a link, is gone (as mcast_port_gone), and so is a
 * membership whose port's P_Key table (as programmed: a partitions file
 * changed) no longer holds the group's partition.  Returns how many
 * memberships were dropped.
 */
size_t mcast_reconcile(struct mcast_db *db, const struct snapshot *s);

/* ---- well-known groups --------------------------------------------------- */

/* ff12:401b:ffff:0000:0000:0000:ffff:ffff: IPv4 broadcast, default partition, link-local. */
extern const uint8_t mcast_ipoib_broadcast_mgid[16];

/*
 * A group the SM creates and keeps while it runs (well_known): it has an
 * MLID from the start and is never deleted, even without members.
 * -EEXIST (*ret the group) when the MGID is taken, -ENOSPC, -ENOMEM.
 */
int mcast_add_well_known(struct mcast_db *db, const uint8_t mgid[16], const struct mcast_params *p,
			 const struct mcast_group **ret);
/*
 * The IPoIB broadcast group of the default partition: Q_Key 0x0B1B, P_Key
 * 0xFFFF, MTU 2048 (code 4), link-local scope, and the rate and SL given
 * (ones every member supports).  As mcast_add_well_known.
 */
int mcast_add_ipoib_broadcast(struct mcast_db *db, uint8_t rate, uint8_t sl,
			      const struct mcast_group **ret);

/*
 * The group goes whole (a well-known one too: a runtime partition's IPoIB
 * group when its P_Key is deleted): its members with it, the deleted hooks
 * run.  0 or -ENOENT.
 */
int mcast_drop_group(struct mcast_db *db, const uint8_t mgid[16]);
/*
 * The port leaves, with every bit, each group of pkey's partition (low 15
 * bits): it left the partition.  Returns how many groups it left.
 */
size_t mcast_port_drop_pkey(struct mcast_db *db, uint64_t port_guid, uint16_t pkey);

/* ---- state sync (failover/syncdoc.c) ---------------------------------------------- */

/*
 * A group carried from another SM, with its MGID, MLID, parameters and
 * members as they were there (no join rule is checked again: the other SM
 * checked them).  When no group has the MGID, it is created at exactly
 * that MLID (which must be free); when one has and its MLID is mlid (a
 * well-known group both SMs made), the members it lacks are added and the
 * JoinState of those it has is OR'ed with theirs.  A non-well-known group
 * needs a full member.  The changed hooks run once.  0; -EEXIST when the
 * MGID is another MLID's here or the MLID another group's; -EINVAL (an
 * MLID out of range, a member with GUID 0 or no JoinState bit, a
 * non-well-known group with no full member); -ENOMEM (the database is
 * left as before only for a new group).
 */
int mcast_restore(struct mcast_db *db, const uint8_t mgid[16], uint16_t mlid,
		  const struct mcast_params *p, bool well_known, const struct mcast_member *members,
		  size_t n_members);

/* ---- lookups --------------------------------------------------------------- */

const struct mcast_group *mcast_find(const struct mcast_db *db, const uint8_t mgid[16]);
const struct mcast_group *mcast_find_mlid(const struct mcast_db *db, uint16_t mlid);
const struct mcast_member *mcast_group_member(const struct mcast_group *g, uint64_t port_guid);
/* Groups i = 0 .. mcast_group_count() - 1, in no particular order. */
size_t mcast_group_count(const struct mcast_db *db);
const struct mcast_group *mcast_group_at(const struct mcast_db *db, size_t i);
/* Memberships over all groups, and MLIDs allocated (one per group). */
size_t mcast_member_count(const struct mcast_db *db);
size_t mcast_mlid_count(const struct mcast_db *db);
/* The highest MLID allocated, 0 when none. */
uint16_t mcast_mlid_top(const struct mcast_db *db);

/* Whether a join state receives the group's traffic (full and non members do). */
static inline bool mcast_receives(uint8_t join_state)
{
	return join_state & (MCAST_FULL | MCAST_NON);
}

/* Whether a join state may create a group: FullMember or SendOnlyFullMember. */
static inline bool mcast_is_full(uint8_t join_state)
{
	return join_state & MCAST_ANY_FULL;
}

static inline uint64_t mcast_gid_guid(const uint8_t gid[16])
{
	uint64_t g = 0;

	for (int i = 8; i < 16; i++)
		g = g << 8 | gid[i];
	return g;
}

#endif

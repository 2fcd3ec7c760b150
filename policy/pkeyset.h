/*
 * The runtime partitions: the P_Keys an orchestrator makes, grows, shrinks
 * and deletes through the API (ui/api_pkeys.c, the UFM-shaped HTTP routes),
 * beside the file's partitions.conf, which the API only reads (IBA 1.4 vol
 * 1, 10.9 partitioning).
 *
 * A set is immutable once made: a change (pkeyset_apply) makes a new set
 * that shares the P_Keys it did not touch (reference-counted, copy on
 * write), so a request is checked whole against the new set before anything
 * is replaced, and is never half applied.  The file's policy and the set
 * merge into one policy (pkeyset_merge: the file's partitions, then the
 * runtime ones, GUID members only) which the SM programs and the SA reads.
 *
 * The rules: a P_Key the file defines cannot be changed (-EEXIST: 409; a
 * runtime P_Key the file came to define after it was made may only be
 * deleted); a runtime P_Key is created by its first add, and may be added
 * to, shrunk, deleted; adding a GUID that is there with the same membership, removing
 * one that is not there, deleting a P_Key that is not there change nothing
 * and succeed.  A member's membership is full or limited, and index0 asks
 * for the key at index 0 of that port's table (UFM's fields).
 *
 * The set is kept on disk and carried to the standby as JSON
 * (pkeyset_to_json / pkeyset_from_json):
 *
 *   {"version": 1, "pkeys": [{"pkey": "0x1234", "name": "job-17", "ip_over_ib": true,
 *     "mtu": 4, "rate": 3, "sl": 0,
 *     "guids": ["0002c903000a1b2c:full", "0002c903000a1b2d:limited:index0"]}]}
 *
 * mtu, rate and sl are the IBA codes (0: not set, the defaults of a
 * partitions.conf partition).  The decoder takes bytes from the network and
 * the disk: every field is checked (types, ranges, counts under
 * PKEYSET_MAX_*, no P_Key or GUID twice) and a bad field refuses the whole
 * document with the first problem in err.  Pure: no I/O, no logging.
 */
#ifndef IBSMD_PKEYSET_H
#define IBSMD_PKEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "policy/partition.h"

#define PKEYSET_VERSION 1
#define PKEYSET_MAX_PKEYS 0x7fff   /* every P_Key there is (0x0001..0x7fff) */
#define PKEYSET_MAX_MEMBERS 262144 /* GUID memberships over every runtime P_Key */
#define PKEYSET_NAME_MAX 64

struct pkeyset_member {
	uint64_t guid;
	uint8_t membership; /* PARTITION_M_FULL or PARTITION_M_LIMITED */
	bool index0;
};

struct pkeyset_pkey {
	unsigned refs; /* sets sharing it beyond the first */
	uint16_t pkey; /* low 15 bits */
	char name[PKEYSET_NAME_MAX];
	bool ipoib;		  /* its IPoIB broadcast group exists */
	uint8_t mtu, rate, sl;	  /* IBA codes for the group and PathRecords; 0: not set */
	struct pkeyset_member *m; /* sorted by GUID, each once */
	size_t n;
};

struct pkeyset {
	struct pkeyset_pkey **v; /* sorted by P_Key */
	size_t n;
	size_t members; /* the sum of the P_Keys' n */
};

/* An empty set; NULL on ENOMEM.  free: NULL-safe. */
struct pkeyset *pkeyset_new(void);
void pkeyset_free(struct pkeyset *s);
/* The P_Key (low 15 bits) in s, or NULL. */
const struct pkeyset_pkey *pkeyset_find(const struct pkeyset *s, uint16_t pkey);
/* The member of p with guid, or NULL. */
const struct pkeyset_member *pkeyset_member_find(const struct pkeyset_pkey *p, uint64_t guid);

enum pkeyset_op {
	PKEYSET_ADD,	/* create the P_Key if needed, add (or update) the GUIDs */
	PKEYSET_REMOVE, /* remove the GUIDs */
	PKEYSET_DELETE, /* delete the P_Key */
	PKEYSET_QOS,	/* set the P_Key's mtu, rate, sl (it must exist) */
};

/* A request (what ui/api_pkeys.c reads from a JSON body). */
struct pkeyset_req {
	enum pkeyset_op op;
	uint16_t pkey;	  /* 0x0001..0x7ffe (the low 15 bits) */
	uint64_t *guids;  /* n_guids, malloc'd: pkeyset_req_clear frees */
	uint8_t *members; /* a membership per GUID, or NULL: membership for each */
	size_t n_guids;
	uint8_t membership; /* PARTITION_M_FULL (UFM's default) or PARTITION_M_LIMITED */
	bool index0;
	int ipoib;		     /* -1: not said (a new P_Key: true, UFM's default) */
	int mtu, rate, sl;	     /* -1: not said */
	char name[PKEYSET_NAME_MAX]; /* "": not said */
};

void pkeyset_req_init(struct pkeyset_req *r);
void pkeyset_req_clear(struct pkeyset_req *r);

struct pkeyset_limits {
	size_t max_guids; /* per request */
	size_t max_pkeys; /* runtime P_Keys in all */
};

/* What a change did. */
struct pkeyset_delta {
	bool changed;			/* the new set differs */
	bool created;			/* the P_Key is new */
	bool deleted;			/* the P_Key went */
	bool group_changed;		/* its IPoIB group's parameters or existence */
	size_t added, removed, updated; /* GUIDs */
	/* the GUIDs whose tables change, sorted, each once (caller frees) */
	uint64_t *guids;
	size_t n_guids;
};

void pkeyset_delta_clear(struct pkeyset_delta *d);

/*
 * Apply req to s against the file's policy: 0 with *ret the new set (NULL
 * when nothing changes; s is never touched) and *delta what changed
 * (cleared first), or -EEXIST (the file defines the P_Key), -E2BIG (over
 * lim->max_guids), -ENOSPC (over lim->max_pkeys or PKEYSET_MAX_MEMBERS),
 * -ENOENT (PKEYSET_QOS of a P_Key not there), -EINVAL (a bad P_Key, GUID
 * 0, a GUID twice with two memberships), -ENOMEM; err says why.
 */
int pkeyset_apply(const struct pkeyset *s, const struct pkeyset_req *req,
		  const struct partition_config *file, const struct pkeyset_limits *lim,
		  struct pkeyset **ret, struct pkeyset_delta *delta, char *err, size_t err_len);

/*
 * The policy the SM programs: file's partitions, then s's P_Keys the file
 * does not define (marked runtime, GUID members with their flags, the
 * group's parameters), indexed.  *ret_shadowed (may be NULL): runtime P_Keys
 * left out because the file defines them now.  0 or -ENOMEM.
 */
int pkeyset_merge(const struct partition_config *file, const struct pkeyset *s,
		  struct partition_config **ret, size_t *ret_shadowed);

/* The document above; NULL on ENOMEM. */
json_t *pkeyset_to_json(const struct pkeyset *s);
/*
 * Decode a document (v, borrowed).  0 with *ret, or -EBADMSG / -EMSGSIZE
 * (over a bound) / -ENOMEM with err ("pkeys[3].guids[7]: not a GUID").
 */
int pkeyset_from_json(const json_t *v, struct pkeyset **ret, char *err, size_t err_len);

/*
 * A GUID as the API takes it: 16 hex digits, with or without "0x", or
 * eight bytes in hex separated by ':'; not 0.  false otherwise.
 */
bool pkeyset_parse_guid(const char *s, uint64_t *ret);
/*
 * A P_Key: "0x" and 1..4 hex digits, its low 15 bits not 0 (bit 15 is
 * ignored, as UFM does; 0x7fff, the default partition's, is one).  false
 * otherwise.
 */
bool pkeyset_parse_pkey(const char *s, uint16_t *ret);

/* The IBA rate code of a UFM rate_limit in Gb/s (2.5, 10, 100, ...); -1 when none. */
int pkeyset_rate_code(double gbps);
/* The Gb/s of an IBA rate code; 0 when unknown. */
double pkeyset_rate_gbps(int code);

#endif

/*
 * The LID manager: gives every CA/router port and every switch port 0 a
 * unique unicast LID (IBA 1.4 vol 1, 14.2.5.6 PortInfo:LID/LMC; 4.1.3 LID
 * ranges) and keeps the choice in a guid->LID file so LIDs survive SM restarts
 * and fabric resets.
 *
 * Order of preference for a port: the LID recorded for its GUID in the file;
 * else the LID already on the port, when it is in range, aligned to the LMC
 * and not claimed by another port; else the lowest free aligned block.
 * The file is OpenSM's guid2lid format ("0xGUID 0xMINLID 0xMAXLID" a line,
 * each followed by a blank line; '#' comments are read but never written,
 * as OpenSM refuses them), written atomically (temp file, fsync, rename).
 */
#ifndef IBSMD_LID_H
#define IBSMD_LID_H

#include "fabric/fabric.h"

struct lid_db;

/* Empty database; NULL on ENOMEM.  lid_db_free(NULL) is a no-op. */
struct lid_db *lid_db_new(void);
void lid_db_free(struct lid_db *db);

/*
 * Load path into a new database.  A missing file gives an empty database and
 * 0.  An unreadable or corrupt file also gives an empty (or partial: the good
 * lines) database in *ret, returns -EBADMSG / -errno, and describes the first
 * problem in err ("FILE:LINE: ...") so the caller can warn and carry on.
 * *ret is NULL only on -ENOMEM.
 */
int lid_db_load(const char *path, struct lid_db **ret, char *err, size_t err_len);

/* Write atomically.  0 or -errno. */
int lid_db_save(const struct lid_db *db, const char *path);

/* Base LID recorded for a port GUID, 0 if none. */
uint16_t lid_db_get(const struct lid_db *db, uint64_t guid);
/* Record (replacing any earlier entry for guid).  0, -EINVAL, -ENOMEM. */
int lid_db_set(struct lid_db *db, uint64_t guid, uint16_t base_lid, uint8_t lmc);
uint32_t lid_db_count(const struct lid_db *db);
/* Every entry, in no particular order (NULL: none). */
void lid_db_foreach(const struct lid_db *db,
		    void (*fn)(void *ctx, uint64_t guid, uint16_t lid, uint8_t lmc), void *ctx);

struct lid_assign_stats {
	uint32_t from_db;   /* kept the LID the file recorded */
	uint32_t from_port; /* kept the LID found on the port */
	uint32_t new_lids;  /* freshly allocated */
	uint32_t conflicts; /* a port's own LID clashed and was replaced */
	uint16_t max_lid;   /* highest LID in use (incl. LMC range) */
};

/*
 * Assign f's LID-carrying ports (CA/router ports with a valid PortInfo and
 * switch port 0) a base LID and the given LMC (switch port 0 keeps LMC 0
 * unless enhanced).  Writes port->lid and port->lmc in f and records every
 * assignment in db.  0, -ENOSPC (LID space exhausted; ports left 0), -ENOMEM.
 */
int lid_assign(struct lid_db *db, struct fabric *f, uint8_t lmc, struct lid_assign_stats *ret);

/* Where a port's LID came from, for lid_assign_traced's callback. */
enum lid_source {
	LID_FROM_DB,	  /* the guid2lid file's */
	LID_FROM_PORT,	  /* the one the port had */
	LID_NEW,	  /* freshly allocated (the port had none) */
	LID_NEW_CONFLICT, /* freshly allocated: the port's own clashed (was) */
	LID_NONE,	  /* none left: the LID space is exhausted */
};
typedef void lid_trace_fn(void *ctx, const struct port *p, uint64_t port_guid, uint16_t lid,
			  uint8_t lmc, enum lid_source src, uint16_t was);
/* lid_assign, telling fn (when not NULL) every port's decision, in port order. */
int lid_assign_traced(struct lid_db *db, struct fabric *f, uint8_t lmc,
		      struct lid_assign_stats *ret, lid_trace_fn *fn, void *ctx);

#endif

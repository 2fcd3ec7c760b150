/*
 * The service database (IBA 1.4 vol 1, 15.2.5.14 ServiceRecord, 15.4.4
 * services): what hosts register with the SA so that others can find them.
 * It is SA state that outlives sweeps, owned by sa/service.c and made and
 * freed with the SA object; sa.c tells it of every published snapshot.
 */
#ifndef IBSMD_SA_SERVICE_H
#define IBSMD_SA_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/snapshot.h"
#include "mad/sa_wire.h"
#include "sa/sa_types.h"

struct sa;

#define SERVICE_MAX 4096     /* registered services at most (ERR_NO_RESOURCES beyond) */
#define SERVICE_TICK_MS 500  /* the lease timer's period */
#define SERVICE_SCAN_MAX 512 /* services the timer looks at per tick */

struct sa_service_db;

/* NULL on ENOMEM.  The timer runs on sa's event loop (none without one). */
struct sa_service_db *sa_service_db_new(struct sa *sa);
/* NULL is fine. */
void sa_service_db_free(struct sa_service_db *db);
/* snap is published: the services of ports it no longer has are removed.  NULL: nothing. */
void sa_service_publish(struct sa_service_db *db, const struct snapshot *snap);
/* Fills ret->services. */
void sa_service_get_stats(const struct sa_service_db *db, struct sa_stats *ret);

/* The SA's database (sa.c). */
struct sa_service_db *sa_services(const struct sa *sa);

/*
 * State sync (failover/syncdoc.c).  Services i = 0 .. count - 1 (NULL: 0);
 * export gives the record as registered and the lease left in ms (0:
 * infinite), false when it has expired.  restore adds a service carried
 * from another SM: 0, -EEXIST (its RID is registered), -ENOSPC
 * (SERVICE_MAX), -EINVAL (a ServiceGID with GUID 0), -ENOMEM.
 */
size_t sa_service_count(const struct sa_service_db *db);
bool sa_service_export(const struct sa_service_db *db, size_t i, uint8_t rec[SA_SR_SIZE],
		       uint64_t *ret_left_ms);
int sa_service_restore(struct sa_service_db *db, const uint8_t rec[SA_SR_SIZE], uint64_t left_ms);

#endif

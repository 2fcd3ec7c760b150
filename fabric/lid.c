/*
 * The LID manager: the guid->LID database, its file, and the assignment of
 * unicast LIDs to a fabric's LID-carrying ports (IBA 1.4 vol 1, 14.2.5.6
 * PortInfo:LID/LMC; 4.1.3 LID ranges: unicast LIDs are 0x0001-0xBFFF, a port
 * with LMC n answers to the 2^n LIDs from its base, which is aligned to 2^n).
 *
 * The database is an array of port GUID -> (base LID, LMC) entries with a
 * u64map index by GUID (lib/u64map.h).  The file is
 * OpenSM's guid2lid format, "0xGUID 0xMINLID 0xMAXLID" a line.  Like OpenSM
 * we let an entry for a GUID that is not in the fabric keep its range, so a
 * node that leaves and comes back gets its LIDs again; unlike OpenSM we give
 * those ranges up, lowest first, when the LID space runs out, and a port's own
 * LID loses to a range the file reserves for another GUID.
 *
 * Library code: nothing here logs; problems come back as -errno and, for the
 * file, a "FILE:LINE: reason" string.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hex.h"
#include "lib/atomic_file.h"
#include "lib/lines.h"
#include "lib/u64map.h"
#include "fabric/lid.h"

#define LID_SPACE 0xC000u /* LIDs 0..0xBFFF; bit 0 is never handed out */
#define LID_BM_WORDS (LID_SPACE / 64)
#define LID_MAX_LMC 7
#define LID_LINE_MAX 256	 /* longest accepted line, newline excluded */
#define LID_FILE_MAX (64u << 20) /* 49,151 ranges take under 2 MB */

struct lid_db_entry {
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
	uint8_t flags; /* LID_F_*, meaningful inside lid_assign() only */
};

#define LID_F_PRESENT 0x1  /* a port of the fabric being assigned has this GUID */
#define LID_F_RECORDED 0x2 /* lid_assign() wrote this entry */

struct lid_db {
	struct lid_db_entry *v; /* [0, count), in no particular order */
	uint32_t count, cap;
	struct u64map index; /* port GUID -> v[] index */
};

/* ---- the entries and their index ---------------------------------------- */

static struct lid_db_entry *lid_db_find(const struct lid_db *db, uint64_t guid)
{
	uint32_t i = guid ? u64map_get(&db->index, guid) : U64MAP_NONE;

	return i == U64MAP_NONE ? NULL : &db->v[i];
}

/* Make room for `want` entries: lid_db_put cannot fail up to there. */
static int lid_db_reserve(struct lid_db *db, uint32_t want)
{
	uint32_t cap = db->cap ? db->cap : 64;

	while (cap < want) {
		if (cap > UINT32_MAX / 4)
			return -ENOMEM;
		cap *= 2;
	}
	if (cap != db->cap) {
		struct lid_db_entry *v = realloc(db->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		db->v = v;
		db->cap = cap;
	}
	return u64map_reserve(&db->index, want);
}

/* Insert or replace; the caller has reserved room. */
static struct lid_db_entry *lid_db_put(struct lid_db *db, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	struct lid_db_entry *e = lid_db_find(db, guid);

	if (!e) {
		u64map_add(&db->index, guid, db->count);
		e = &db->v[db->count++];
		e->guid = guid;
		e->flags = 0;
	}
	e->lid = lid;
	e->lmc = lmc;
	return e;
}

/* Remove entry i: the last entry takes its place (so a scan re-examines i). */
static void lid_db_del(struct lid_db *db, uint32_t i)
{
	uint32_t last = db->count - 1;

	u64map_del(&db->index, db->v[i].guid, i);
	if (i != last) {
		db->v[i] = db->v[last];
		u64map_set(&db->index, db->v[i].guid, last, i);
	}
	db->count--;
}

static bool lid_range_ok(uint32_t base, uint8_t lmc)
{
	return base >= 1 && lmc <= LID_MAX_LMC && base + (1u << lmc) - 1 <= FABRIC_MAX_UCAST_LID;
}

static bool lid_aligned(uint32_t base, uint8_t lmc)
{
	return (base & ((1u << lmc) - 1)) == 0;
}

struct lid_db *lid_db_new(void)
{
	return calloc(1, sizeof(struct lid_db));
}

void lid_db_free(struct lid_db *db)
{
	if (!db)
		return;
	free(db->v);
	u64map_free(&db->index);
	free(db);
}

uint16_t lid_db_get(const struct lid_db *db, uint64_t guid)
{
	const struct lid_db_entry *e;

	if (!db)
		return 0;
	e = lid_db_find(db, guid);
	return e ? e->lid : 0;
}

void lid_db_foreach(const struct lid_db *db,
		    void (*fn)(void *ctx, uint64_t guid, uint16_t lid, uint8_t lmc), void *ctx)
{
	if (!db)
		return;
	for (uint32_t i = 0; i < db->count; i++)
		fn(ctx, db->v[i].guid, db->v[i].lid, db->v[i].lmc);
}

int lid_db_set(struct lid_db *db, uint64_t guid, uint16_t base_lid, uint8_t lmc)
{
	int r;

	if (!db || !guid || !lid_range_ok(base_lid, lmc))
		return -EINVAL;
	r = lid_db_reserve(db, db->count + 1);
	if (r < 0)
		return r;
	lid_db_put(db, guid, base_lid, lmc);
	return 0;
}

uint32_t lid_db_count(const struct lid_db *db)
{
	return db ? db->count : 0;
}

/* ---- the used-LID bitmap ----------------------------------------------- */

static bool lid_bm_range_free(const uint64_t *bm, uint32_t base, uint32_t n)
{
	uint32_t l;

	for (l = base; l < base + n; l++)
		if (bm[l / 64] & (1ULL << (l % 64)))
			return false;
	return true;
}

static void lid_bm_set_range(uint64_t *bm, uint32_t base, uint32_t n)
{
	uint32_t l;

	for (l = base; l < base + n; l++)
		bm[l / 64] |= 1ULL << (l % 64);
}

/*
 * Lowest free range of 2^lmc LIDs aligned to 2^lmc, searching from *cursor.
 * Bits are only ever set while a cursor is in use, so every candidate below
 * it stays taken and the search resumes there: one pass over the space per
 * (bitmap, LMC) however many ports are allocated.  0 if none is left.
 */
static uint32_t lid_bm_find(const uint64_t *bm, uint8_t lmc, uint32_t *cursor)
{
	uint32_t n = 1u << lmc;
	uint32_t base = *cursor;

	/* base 0 is never valid, so the first candidate is n itself */
	if (base < n)
		base = n;
	while (base + n - 1 <= FABRIC_MAX_UCAST_LID) {
		if (n < 64 && bm[base / 64] == UINT64_MAX) {
			base = (base / 64 + 1) * 64;
			continue;
		}
		if (lid_bm_range_free(bm, base, n)) {
			*cursor = base;
			return base;
		}
		base += n;
	}
	*cursor = base;
	return 0;
}

/* ---- the file ---------------------------------------------------------- */

struct lid_load {
	const char *path;
	char *err;
	size_t err_len;
	bool bad; /* a bad line was seen; err describes the first */
	struct lid_db *db;
	uint64_t used[LID_BM_WORDS];
};

static void lid_errf(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void lid_errf(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !err_len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

static bool lid_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* One hex number ("0x" optional, at most 16 digits) ending at a blank or NUL. */
static bool lid_parse_hex(const char **pp, uint64_t *ret)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0, d;

	while (lid_is_blank(*p))
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; (d = hex_digit(*p)) >= 0; p++) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || (*p && !lid_is_blank(*p)))
		return false;
	*pp = p;
	*ret = v;
	return true;
}

/*
 * Parse one NUL-free, NUL-terminated line.  Returns NULL for an entry (in
 * *ret_*) or a blank/comment line (*ret_guid 0), else the reason it is bad.
 */
static const char *lid_parse_line(const char *p, uint64_t *ret_guid, uint16_t *ret_lid,
				  uint8_t *ret_lmc)
{
	uint64_t guid, min, max, n;
	uint8_t lmc;

	*ret_guid = 0;
	while (lid_is_blank(*p))
		p++;
	if (!*p || *p == '#')
		return NULL;
	if (!lid_parse_hex(&p, &guid))
		return "bad port GUID";
	if (!lid_parse_hex(&p, &min) || !lid_parse_hex(&p, &max))
		return "bad LID (expected \"0xGUID 0xMINLID 0xMAXLID\")";
	while (lid_is_blank(*p))
		p++;
	if (*p && *p != '#')
		return "trailing garbage";
	if (!guid)
		return "port GUID 0";
	if (min < 1 || min > FABRIC_MAX_UCAST_LID || max < min || max > FABRIC_MAX_UCAST_LID)
		return "LID range outside 0x0001-0xbfff";
	n = max - min + 1;
	if (n & (n - 1))
		return "LID range size not a power of two";
	for (lmc = 0; (1ULL << lmc) < n; lmc++)
		;
	if (lmc > LID_MAX_LMC)
		return "LID range larger than LMC 7 allows";
	*ret_guid = guid;
	*ret_lid = (uint16_t)min;
	*ret_lmc = lmc;
	return NULL;
}

static void lid_load_bad(struct lid_load *st, unsigned long lineno, const char *reason)
{
	if (st->bad)
		return;
	st->bad = true;
	lid_errf(st->err, st->err_len, "%s:%lu: %s", st->path, lineno, reason);
}

/* One line as lines_next gave it (rc: 1, -E2BIG or -EBADMSG). */
static int lid_load_line(struct lid_load *st, unsigned long lineno, const char *line, int rc)
{
	const char *reason;
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
	int r;

	if (rc == -E2BIG) {
		lid_load_bad(st, lineno, "line longer than 256 characters");
		return 0;
	}
	if (rc == -EBADMSG) {
		lid_load_bad(st, lineno, "NUL byte in line");
		return 0;
	}
	reason = lid_parse_line(line, &guid, &lid, &lmc);
	if (reason) {
		lid_load_bad(st, lineno, reason);
		return 0;
	}
	if (!guid)
		return 0;
	if (lid_db_find(st->db, guid)) {
		lid_load_bad(st, lineno, "port GUID listed twice; later line dropped");
		return 0;
	}
	if (!lid_bm_range_free(st->used, lid, 1u << lmc)) {
		lid_load_bad(st, lineno, "LIDs overlap an earlier line; later line dropped");
		return 0;
	}
	r = lid_db_set(st->db, guid, lid, lmc);
	if (r < 0)
		return r;
	lid_bm_set_range(st->used, lid, 1u << lmc);
	return 0;
}

/* Every line of the file's text; the bytes are untrusted.  0 or -ENOMEM. */
static int lid_load_text(struct lid_load *st, char *text, size_t len)
{
	struct lines l;
	char *line;
	size_t n;
	int rc, r;

	lines_init(&l, text, len, LID_LINE_MAX);
	while ((rc = lines_next(&l, &line, &n)) != 0) {
		r = lid_load_line(st, l.no, line, rc);
		if (r < 0)
			return r;
	}
	return 0;
}

int lid_db_load(const char *path, struct lid_db **ret, char *err, size_t err_len)
{
	struct lid_load *st;
	char *text;
	size_t len;
	int r;

	if (err && err_len)
		err[0] = '\0';
	if (!path || !ret)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto fail_nomem;
	st->db = lid_db_new();
	if (!st->db)
		goto fail_nomem;
	st->path = path;
	st->err = err;
	st->err_len = err_len;

	/* a directory, a FIFO or a device is refused, and a FIFO cannot hang us */
	r = lines_read_file(path, LID_FILE_MAX, LINES_REGULAR, &text, &len, err, err_len);
	if (r == -ENOENT) {
		if (err && err_len)
			err[0] = '\0';
		r = 0; /* no file yet: an empty database */
		goto out;
	}
	if (r == 0) {
		r = lid_load_text(st, text, len);
		free(text);
	}
	if (r == -ENOMEM) {
		lid_db_free(st->db);
		goto fail_nomem;
	}
	if (r == 0 && st->bad)
		r = -EBADMSG;
out:
	*ret = st->db;
	free(st);
	return r;

fail_nomem:
	free(st);
	*ret = NULL;
	lid_errf(err, err_len, "%s: %s", path ? path : "(null)", strerror(ENOMEM));
	return -ENOMEM;
}

static int lid_entry_cmp(const void *a, const void *b)
{
	const struct lid_db_entry *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

int lid_db_save(const struct lid_db *db, const char *path)
{
	struct lid_db_entry *sorted;
	struct atomic_file af;
	uint32_t i, n = 0;
	int r;

	if (!db || !path || !*path)
		return -EINVAL;
	sorted = malloc((db->count ? db->count : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < db->count; i++)
		sorted[n++] = db->v[i];
	qsort(sorted, n, sizeof(*sorted), lid_entry_cmp);

	r = atomic_file_open(&af, path, 0644);
	if (r < 0)
		goto free_sorted;
	/*
	 * OpenSM's format exactly (osm_db_files.c): "GUID FIRST LAST", each
	 * entry followed by a blank line, no comments (OpenSM refuses '#' as
	 * a key), so that OpenSM reads our file and keeps every LID.
	 */
	for (i = 0; i < n; i++)
		fprintf(af.fp, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", sorted[i].guid, sorted[i].lid,
			sorted[i].lid + (1u << sorted[i].lmc) - 1);
	r = atomic_file_commit(&af, true);

free_sorted:
	free(sorted);
	return r;
}

/* ---- assignment -------------------------------------------------------- */

struct lid_port {
	struct port *port;
	uint64_t guid;
	uint16_t db_lid; /* 0: no usable database entry */
	uint8_t db_lmc;
	uint8_t lmc;  /* the LMC this port gets */
	uint16_t lid; /* chosen base, 0 while undecided */
	enum lid_source src;
};

/* Port GUID of a LID-carrying port, 0 if port p of n carries no LID. */
static uint64_t lid_port_guid(const struct node *n, unsigned int p)
{
	const struct port *port = &n->ports[p];

	if (node_is_switch(n))
		return p == 0 ? (port->guid ? port->guid : n->guid) : 0;
	return p >= 1 && port->valid ? port->guid : 0;
}

static uint32_t lid_collect(struct fabric *f, uint8_t lmc, struct lid_port *lp)
{
	struct fabric_port_iter it;
	uint32_t n = 0;

	fabric_for_each_lid_port (f, &it) {
		struct node *nd = &f->nodes[it.node];
		uint64_t guid;

		if (!nd->ports)
			continue;
		guid = lid_port_guid(nd, it.port);
		if (!guid)
			continue;
		if (lp) {
			memset(&lp[n], 0, sizeof(lp[n]));
			lp[n].port = &nd->ports[it.port];
			lp[n].guid = guid;
			lp[n].lmc = node_is_switch(nd) && !nd->enhanced_port0 ? 0 : lmc;
		}
		n++;
	}
	return n;
}

/* Can lp keep the base LID its database entry names, under its LMC? */
static bool lid_db_fits(const struct lid_port *lp, const uint64_t *used, const uint64_t *stale)
{
	uint32_t n = 1u << lp->lmc;

	if (lp->db_lmc == lp->lmc)
		return lid_bm_range_free(used, lp->db_lid, n);
	return lid_aligned(lp->db_lid, lp->lmc) && lid_range_ok(lp->db_lid, lp->lmc) &&
	       lid_bm_range_free(used, lp->db_lid, n) && lid_bm_range_free(stale, lp->db_lid, n);
}

/* Drop entries for absent GUIDs whose range was handed to a present port. */
static void lid_drop_reclaimed(struct lid_db *db, const uint64_t *reclaimed)
{
	uint32_t i = 0;

	while (i < db->count) {
		struct lid_db_entry *e = &db->v[i];

		if (!(e->flags & LID_F_PRESENT) &&
		    !lid_bm_range_free(reclaimed, e->lid, 1u << e->lmc))
			lid_db_del(db, i); /* entry i is now another one */
		else
			i++;
	}
}

/*
 * Three passes over the ports in index order: the database, then the LID on
 * the port, then the lowest free aligned range.  On -ENOSPC every port that
 * fits is still assigned and recorded, the rest are left at LID 0, and *ret
 * is filled; on -EINVAL/-ENOMEM nothing (f, db, *ret) is changed.
 */
int lid_assign(struct lid_db *db, struct fabric *f, uint8_t lmc, struct lid_assign_stats *ret)
{
	return lid_assign_traced(db, f, lmc, ret, NULL, NULL);
}

int lid_assign_traced(struct lid_db *db, struct fabric *f, uint8_t lmc,
		      struct lid_assign_stats *ret, lid_trace_fn *fn, void *ctx)
{
	/* used: LIDs of fabric ports; blocked: used + ranges kept for absent GUIDs */
	uint64_t used[LID_BM_WORDS] = {0}, stale[LID_BM_WORDS] = {0};
	uint64_t blocked[LID_BM_WORDS], reclaimed[LID_BM_WORDS] = {0};
	uint32_t cursor_blocked[LID_MAX_LMC + 1] = {0}, cursor_used[LID_MAX_LMC + 1] = {0};
	struct lid_assign_stats st = {0};
	struct lid_db_entry *e;
	struct lid_port *lp;
	bool any_reclaimed = false, nospc = false;
	uint32_t i, n, w;
	int r;

	if (!db || !f || lmc > LID_MAX_LMC)
		return -EINVAL;
	n = lid_collect(f, lmc, NULL);
	lp = calloc(n ? n : 1, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	/* room for every record up front: nothing below can fail */
	r = lid_db_reserve(db, db->count + n);
	if (r < 0)
		goto free_lp;
	lid_collect(f, lmc, lp);

	for (i = 0; i < db->count; i++)
		db->v[i].flags = 0;
	/* a GUID seen twice in the fabric: only its first port uses the entry */
	for (i = 0; i < n; i++) {
		e = lid_db_find(db, lp[i].guid);
		if (!e || (e->flags & LID_F_PRESENT))
			continue;
		e->flags |= LID_F_PRESENT;
		lp[i].db_lid = e->lid;
		lp[i].db_lmc = e->lmc;
	}
	for (i = 0; i < db->count; i++) {
		e = &db->v[i];
		if (!(e->flags & LID_F_PRESENT))
			lid_bm_set_range(stale, e->lid, 1u << e->lmc);
	}

	/* 1: the database, first port in index order wins an overlap */
	for (i = 0; i < n; i++) {
		if (!lp[i].db_lid || !lid_db_fits(&lp[i], used, stale))
			continue;
		lp[i].lid = lp[i].db_lid;
		lp[i].src = LID_FROM_DB;
		lid_bm_set_range(used, lp[i].lid, 1u << lp[i].lmc);
		st.from_db++;
	}
	/* 2: the LID already on the port, if consistent */
	for (i = 0; i < n; i++) {
		uint32_t own = lp[i].port->lid, size = 1u << lp[i].lmc;

		if (lp[i].lid || !own)
			continue;
		if (lid_range_ok(own, lp[i].lmc) && lid_aligned(own, lp[i].lmc) &&
		    lid_bm_range_free(used, own, size) && lid_bm_range_free(stale, own, size)) {
			lp[i].lid = (uint16_t)own;
			lp[i].src = LID_FROM_PORT;
			lid_bm_set_range(used, own, size);
			st.from_port++;
		} else {
			lp[i].src = LID_NEW_CONFLICT;
			st.conflicts++;
		}
	}
	/* 3: the lowest free aligned range; absent GUIDs' ranges as a last resort */
	for (w = 0; w < LID_BM_WORDS; w++)
		blocked[w] = used[w] | stale[w];
	for (i = 0; i < n; i++) {
		uint8_t m = lp[i].lmc;
		uint32_t base;

		if (lp[i].lid)
			continue;
		base = lid_bm_find(blocked, m, &cursor_blocked[m]);
		if (!base) {
			base = lid_bm_find(used, m, &cursor_used[m]);
			if (base) {
				lid_bm_set_range(reclaimed, base, 1u << m);
				any_reclaimed = true;
			}
		}
		if (!base) {
			nospc = true;
			continue;
		}
		lp[i].lid = (uint16_t)base;
		if (lp[i].src != LID_NEW_CONFLICT)
			lp[i].src = LID_NEW;
		lid_bm_set_range(used, base, 1u << m);
		lid_bm_set_range(blocked, base, 1u << m);
		st.new_lids++;
	}

	if (any_reclaimed)
		lid_drop_reclaimed(db, reclaimed);
	for (i = 0; i < n; i++) {
		struct port *port = lp[i].port;

		if (fn)
			fn(ctx, port, lp[i].guid, lp[i].lid, lp[i].lmc,
			   lp[i].lid ? lp[i].src : LID_NONE, (uint16_t)port->lid);
		port->lid = lp[i].lid;
		port->lmc = lp[i].lmc;
		if (!lp[i].lid)
			continue;
		if (lp[i].lid + (1u << lp[i].lmc) - 1 > st.max_lid)
			st.max_lid = (uint16_t)(lp[i].lid + (1u << lp[i].lmc) - 1);
		e = lid_db_find(db, lp[i].guid);
		if (e && (e->flags & LID_F_RECORDED))
			continue; /* duplicate port GUID: the first port keeps the entry */
		e = lid_db_put(db, lp[i].guid, lp[i].lid, lp[i].lmc);
		e->flags |= LID_F_RECORDED;
	}
	if (ret)
		*ret = st;
	r = nospc ? -ENOSPC : 0;
free_lp:
	free(lp);
	return r;
}

/*
 * OpenSM's node name map (node_name_map_name; the file infiniband-diags
 * read with --node-name-map): one node a line, `GUID "name"`, the GUID in
 * hex with 0x or decimal, the name quoted (or one word), `#` comments and
 * blank lines ignored.  Maps a node GUID to the name operators call it
 * (the scheduler export, fabric/slurm.h).  Read with lib/lines.c; bad lines
 * are reported as FILE:LINE.  Pure but for nodemap_load's read; no logging.
 */
#ifndef IBSMD_NODEMAP_H
#define IBSMD_NODEMAP_H

#include <stddef.h>
#include <stdint.h>

struct nodemap;

/*
 * Read a map from text (need not be NUL-terminated) or a file.  0 and
 * *ret (nodemap_free); -EBADMSG with err "LINE: ..." (nodemap_load:
 * "FILE:LINE: ..."), -errno of the read with "FILE: ...", -ENOMEM.  A
 * GUID given twice is an error (the line of the second).
 */
int nodemap_parse(const char *text, size_t len, struct nodemap **ret, char *err, size_t err_len);
int nodemap_load(const char *path, struct nodemap **ret, char *err, size_t err_len);
void nodemap_free(struct nodemap *m);

/* The name of the node GUID, or NULL; NULL map: NULL. */
const char *nodemap_name(const struct nodemap *m, uint64_t guid);
/* Entries held; 0 for NULL. */
size_t nodemap_count(const struct nodemap *m);

#endif

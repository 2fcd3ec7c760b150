/*
 * The topology file reader: ibnetdiscover's text format, which is also what
 * ibsim reads ("net" files), into a struct fabric.
 *
 * A file is a list of node records: optional GUID lines (switchguid=,
 * caguid=, rtguid=, sysimgguid=, vendid=, devid=), a header
 * `Switch|Hca|Ca|Rt NPORTS "NAME" [# "DESC" ... lid N lmc M]`, then one line
 * per connected port `[P](PORTGUID) "REMOTE"[RP](GUID) [opts] [# comment]`
 * (the parenthesised GUIDs are optional).  Either side of a link, or both, may
 * list it.  LIDs found in ibnetdiscover's comments are kept on the ports,
 * and so are the width and speed a port line's comment ends with ("4xHDR",
 * as ibsim reads them; a link runs the narrower width and slower speed its
 * two lines give; without, 4x SDR).
 */
#ifndef IBSMD_TOPO_H
#define IBSMD_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"

/*
 * Parse len bytes of text (need not be NUL-terminated) into a new fabric.
 * Node GUIDs come from the GUID lines, else from a hash of the node's name
 * (deterministic, independent of the order of the file).  The first node is
 * the SM's (port 0 of a switch, port 1 otherwise).  Every port is valid;
 * linked ports are ACTIVE/LinkUp, others DOWN/Polling; switch port 0 ACTIVE.
 *
 * Returns 0 and *ret (owned by the caller, fabric_free()); -EBADMSG with err
 * set to "LINE: what is wrong"; -ENOMEM.  *ret is untouched on failure.
 */
int topo_parse(const char *text, size_t len, struct fabric **ret, char *err, size_t err_len);

/* topo_parse() of a file; err is "FILE:LINE: ..." (or "FILE: strerror"). */
int topo_load(const char *path, struct fabric **ret, char *err, size_t err_len);
/*
 * The same, and with ret_has_guid (may be NULL) which nodes had a GUID line
 * (a cabling plan matches those by GUID, the others by description): a new
 * array of n_nodes bools, by node index, the caller frees it.
 */
int topo_parse_ex(const char *text, size_t len, struct fabric **ret, bool **ret_has_guid, char *err,
		  size_t err_len);
int topo_load_ex(const char *path, struct fabric **ret, bool **ret_has_guid, char *err,
		 size_t err_len);

/*
 * Discovery order as libibnetdisc (ibnetdiscover, dump_fts) sees it: BFS from
 * the SM's port; only switches forward, a CA start node only through the SM's
 * port; nodes out of reach follow, each unreached one starting a BFS of its
 * own.  order[] lists every node; parent[] is the BFS parent (FABRIC_NO_NODE
 * for a root), via[] the parent's port it was reached by, from_sm[] whether
 * the SM's port reaches it.
 */
struct topo_order {
	uint32_t *order;
	uint32_t *parent;
	uint8_t *via;
	bool *from_sm;
};
/* 0 or -ENOMEM (nothing to clear then). */
int topo_order_build(const struct fabric *f, struct topo_order *ret);
/* Free the arrays; a zeroed or cleared order is fine. */
void topo_order_clear(struct topo_order *o);

/* ibnetdiscover's clean_nodedesc: control characters become spaces. */
void topo_clean_desc(const char *in, char *out, size_t len);

/* Write f in ibnetdiscover's format.  0, -ENOMEM or -EIO (a write failed). */
int topo_write(const struct fabric *f, FILE *out);

#endif

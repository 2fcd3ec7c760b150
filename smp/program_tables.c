/*
 * Programming the table blocks (see program.h, program_int.h): P_KeyTable
 * (14.2.5.7) for partitions and their enforcement at switch ports facing a
 * CA, SwitchInfo LinearFDBTop and LinearForwardingTable blocks (14.2.5.4,
 * 14.2.5.10), SLtoVLMappingTable and VLArbitrationTable (14.2.5.8,
 * 14.2.5.9), MulticastForwardingTable blocks (14.2.5.11).  Each is diffed
 * against what the node holds or was last given; what differs becomes Sets
 * of the batch (program_send), or an LFT job the batch makes blocks of as
 * the engine asks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/lft.h"
#include "fabric/mft.h"
#include "lib/log.h"
#include "lib/sorted.h"
#include "mad/wire.h"
#include "policy/partition.h"
#include "policy/qos.h"
#include "smp/program_int.h"

/* ---- P_Key tables (partitions) --------------------------------------------- */

/*
 * The end port's P_KeyTable as the policy wants it, block by block against
 * what the port holds (read by discovery): only blocks that differ, or that
 * were not read, are written.  The blocks past the port's PartitionCap (or
 * the model's FABRIC_PKEY_BLOCKS) are not; keys that do not fit are counted
 * and logged.
 */
void program_pkeys(struct program *pg, const struct program_params *pp, uint32_t ni, uint8_t pn)
{
	struct node *n = &pg->f->nodes[ni];
	struct port *p = &n->ports[pn];
	unsigned cap = n->partition_cap ? n->partition_cap : 1;
	uint16_t want[FABRIC_PKEY_BLOCKS * 32] = {0};
	size_t nk, room;

	if (cap > FABRIC_PKEY_BLOCKS * 32)
		cap = FABRIC_PKEY_BLOCKS * 32;
	room = cap;
	nk = partition_port_table(pp->parts, pg->f, ni, pn, pp->sm_guid, want, room);
	if (nk > room) {
		pg->st.pkey_dropped += (uint32_t)(nk - room);
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, pn,
				     "node 0x%016llx \"%s\" port %u: %zu P_Keys, room for %zu "
				     "(PartitionCap %u): the last %zu left out",
				     (unsigned long long)n->guid, n->desc, pn, nk, room,
				     n->partition_cap, nk - room);
	}
	/* the runtime partitions wrote it since the model was copied: the model may be stale */
	if (pp->n_pkey_rewrite && sorted_u64_has(pp->pkey_rewrite, pp->n_pkey_rewrite, p->guid))
		p->pkey_known = 0;
	for (unsigned b = 0; b * 32 < cap; b++) {
		uint8_t data[64];

		if ((p->pkey_known & (1u << b)) &&
		    !memcmp(&p->pkeys[b * 32], &want[b * 32], 32 * sizeof(want[0])))
			continue;
		wire_pkey_encode(&want[b * 32], data, sizeof(data));
		if (program_send(pg, OP_PKEY, ni, pn, WIRE_ATTR_PKEY_TABLE, b, data) == 0)
			pg->st.pkey_blocks++;
	}
}

/* ---- partition enforcement (part_enforce) ---------------------------------- */

size_t program_peer_pkeys(const uint16_t *ca, size_t n, uint16_t *out, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint16_t key = ca[i];

		if (!(key & 0x7fff))
			continue;
		if (!(key & PARTITION_FULL) && (partition_table_find(ca, n, key) & PARTITION_FULL))
			continue; /* the full key stands for both */
		if (k < cap)
			out[k] = key;
		k++;
	}
	return k;
}

/* The switch's P_KeyTable entries per external port (SwitchInfo:PartitionEnforcementCap). */
unsigned program_enforce_cap(const struct node *n)
{
	struct wire_switchinfo si;

	if (wire_switchinfo_decode(n->si, sizeof(n->si), &si) < 0)
		return 0;
	return si.partition_enf_cap;
}

/* Whether switch port (ni, pn) is linked to a CA (or router) port whose PortInfo was read. */
bool program_faces_ca(const struct fabric *f, uint32_t ni, uint8_t pn)
{
	const struct port *p = &f->nodes[ni].ports[pn];

	return port_is_linked(p) && !node_is_switch(&f->nodes[p->remote_node]) &&
	       f->nodes[p->remote_node].ports[p->remote_port].valid;
}

/*
 * Switch port pn of node ni faces a CA port: its P_KeyTable becomes the CA
 * port's (program_peer_pkeys), block by block against what discovery read,
 * within PartitionEnforcementCap.  Returns whether the table fits (else
 * enforcement stays off on the port: OpenSM's ERR 0507).
 */
bool program_enforce_pkeys(struct program *pg, const struct program_params *pp, uint32_t ni,
			   uint8_t pn)
{
	struct node *n = &pg->f->nodes[ni];
	struct port *p = &n->ports[pn];
	const struct node *cn = &pg->f->nodes[p->remote_node];
	unsigned cap = program_enforce_cap(n), ca_cap = cn->partition_cap ? cn->partition_cap : 1;
	uint16_t ca[FABRIC_PKEY_BLOCKS * 32] = {0}, want[FABRIC_PKEY_BLOCKS * 32] = {0};
	size_t nk;

	if (ca_cap > FABRIC_PKEY_BLOCKS * 32)
		ca_cap = FABRIC_PKEY_BLOCKS * 32;
	if (cap > FABRIC_PKEY_BLOCKS * 32)
		cap = FABRIC_PKEY_BLOCKS * 32;
	partition_port_table(pp->parts, pg->f, p->remote_node, p->remote_port, pp->sm_guid, ca,
			     ca_cap);
	nk = program_peer_pkeys(ca, ca_cap, want, cap);
	if (pp->n_pkey_rewrite &&
	    sorted_u64_has(pp->pkey_rewrite, pp->n_pkey_rewrite, cn->ports[p->remote_port].guid))
		p->pkey_known = 0; /* rewritten at run time since the model was copied */
	for (unsigned b = 0; b * 32 < cap; b++) {
		uint8_t data[64];

		if ((p->pkey_known & (1u << b)) &&
		    !memcmp(&p->pkeys[b * 32], &want[b * 32], 32 * sizeof(want[0])))
			continue;
		if (b * 32 >= nk && !(p->pkey_known & (1u << b)) && b > 0)
			continue; /* an unread block past the keys: nothing to clear that we know of
				   */
		wire_pkey_encode(&want[b * 32], data, sizeof(data));
		if (program_send(pg, OP_PKEY, ni, pn, WIRE_ATTR_PKEY_TABLE, (uint32_t)pn << 16 | b,
				 data) == 0) {
			pg->st.pkey_blocks++;
			pg->st.enforce_blocks++;
		}
	}
	if (nk <= cap)
		return true;
	pg->st.enforce_unfit++;
	log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, pn,
			     "switch 0x%016llx \"%s\" port %u: the CA port behind it holds %zu "
			     "P_Keys, PartitionEnforcementCap %u: partition enforcement left off",
			     (unsigned long long)n->guid, n->desc, pn, nk, cap);
	return false;
}

/*
 * The enforcement bits PortInfo of switch port (ni, pn) should carry: -1
 * to leave them alone, else bit 1 Inbound, bit 0 Outbound.  Facing a CA:
 * what part_enforce asks, where the switch says it can (SwitchInfo
 * Inbound/OutboundEnforcementCap; OpenSM does not look), nothing when the
 * table does not fit; facing a switch: nothing (OpenSM clears it there).
 */
int program_enforce_bits(const struct program *pg, const struct program_params *pp, uint32_t ni,
			 uint8_t pn, bool fits)
{
	const struct node *n = &pg->f->nodes[ni];
	const struct port *p = &n->ports[pn];
	struct wire_switchinfo si;
	int want = 0;

	if (!pp->parts || !node_is_switch(n) || pn == 0 || !port_is_linked(p) ||
	    wire_switchinfo_decode(n->si, sizeof(n->si), &si) < 0)
		return -1;
	if (program_faces_ca(pg->f, ni, pn) && si.partition_enf_cap && fits) {
		if (pp->part_enforce == PROGRAM_ENFORCE_IN ||
		    pp->part_enforce == PROGRAM_ENFORCE_BOTH)
			want |= si.enf_in_cap ? 2 : 0;
		if (pp->part_enforce == PROGRAM_ENFORCE_OUT ||
		    pp->part_enforce == PROGRAM_ENFORCE_BOTH)
			want |= si.enf_out_cap ? 1 : 0;
	}
	return want;
}

/* ---- linear forwarding tables, VL tables ------------------------------------ */

const uint8_t *program_old_lft(const struct fabric *old_f, const struct routes *old_r,
			       const struct node *n, int *ret_top)
{
	uint32_t oi;

	if (!old_f || !old_r)
		return NULL;
	oi = fabric_find_guid(old_f, n->guid);
	if (oi == FABRIC_NO_NODE || oi >= old_r->n_nodes || !old_r->lft[oi] ||
	    old_f->nodes[oi].lft_top != n->lft_top)
		return NULL;
	*ret_top = old_r->max_lid;
	return old_r->lft[oi];
}

void program_held_free(struct program_held *h)
{
	if (!h)
		return;
	routes_free(h->r);
	free(h->top);
	free(h);
}

void program_switch(struct program *pg, const struct routes *r, uint32_t ni,
		    const struct fabric *old_f, const struct routes *old_r, bool force,
		    const struct program_held *held)
{
	struct node *n = &pg->f->nodes[ni];
	const uint8_t *lft = r->lft[ni];
	const uint8_t *old = NULL;
	int old_top = -1;
	int top = r->max_lid;
	uint32_t *blocks;
	size_t nb;
	struct wire_switchinfo si;
	uint8_t data[64];

	if (!lft)
		return;
	if (top >= n->lft_cap && n->lft_cap)
		top = n->lft_cap - 1;
	if (wire_switchinfo_decode(n->si, sizeof(n->si), &si) == 0 &&
	    (si.lft_top != top || si.port_state_change ||
	     (pg->switch_life >= 0 && si.lifetime != pg->switch_life))) {
		si.lft_top = top;
		if (pg->switch_life >= 0)
			si.lifetime = (uint8_t)pg->switch_life;
		si.port_state_change = 1; /* writing 1 clears it */
		memcpy(data, n->si, sizeof(data));
		wire_switchinfo_encode(&si, data, sizeof(data));
		program_send(pg, OP_SWITCHINFO, ni, 0, WIRE_ATTR_SWITCH_INFO, 0, data);
	}
	if (!force)
		old = program_old_lft(old_f, old_r, n, &old_top);
	if (!old && !force && held && ni < held->n_nodes && held->top[ni] >= 0) {
		old = held->r->lft[ni];
		old_top = held->top[ni];
	}
	blocks = malloc((top / LFT_BLOCK + 1) * sizeof(*blocks));
	if (!blocks)
		return;
	nb = lft_diff(old, old_top, lft, top, blocks);
	if (nb && pg->n_jobs == pg->cap_jobs) {
		size_t cap = pg->cap_jobs ? 2 * pg->cap_jobs : 64;
		struct program_lft_job *nj = realloc(pg->jobs, cap * sizeof(*nj));
		if (!nj) {
			/* out of memory: the switch is rewritten next time */
			free(blocks);
			pg->st.errors++;
			n->lft_top = 0xffff;
			return;
		}
		pg->jobs = nj;
		pg->cap_jobs = cap;
	}
	if (!nb) {
		free(blocks);
	} else {
		pg->lft_r = r;
		pg->jobs[pg->n_jobs++] = (struct program_lft_job){ni, top, blocks, nb};
		pg->by_kind[OP_LFT] += nb; /* for the trace: made by program_produce */
	}
	n->lft_top = top;
}

/*
 * SL2VL and VLArb (IBA 14.2.5.8, 14.2.5.9) as policy/qos.h's qos_want_*
 * say: the QoS policy's tables of each port's class merged with the
 * engine's SL-to-VL layers, or without QoS the engine's layers alone where
 * it uses more than one VL.  Switch tables depend only on the output port,
 * so every input port gets the same row.  A port is skipped when its
 * tables equal what this SM programmed last time (old_r under the policy
 * it was programmed with, pp->qos_old); force rewrites them.  The SLs
 * where the engine overrode the policy are counted whether or not sent.
 */
void program_vls(struct program *pg, const struct routes *r, uint32_t ni,
		 const struct fabric *old_f, const struct routes *old_r,
		 const struct program_params *pp, uint16_t eng_sls, uint16_t old_eng_sls)
{
	struct node *n = &pg->f->nodes[ni];
	const struct qos_policy *q = pp->qos, *oq = pp->qos_old;
	uint32_t oi = FABRIC_NO_NODE;
	uint8_t data[64];

	if (old_f && old_r && oq && !pp->force) {
		oi = fabric_find_guid(old_f, n->guid);
		if (oi != FABRIC_NO_NODE && old_f->nodes[oi].nports != n->nports)
			oi = FABRIC_NO_NODE;
	}
	for (unsigned out = 1; out <= n->nports; out++) {
		struct port *op = &n->ports[out];
		uint8_t vl[16], old_vl[16], arb_vl[32], arb_w[32], o_vl[32], o_w[32];
		uint16_t conflicts = 0;
		bool old_has;

		if (!program_port_is_up(op) || !port_is_linked(op))
			continue;
		if (!qos_want_sl2vl(q, pg->f, r, eng_sls, ni, (uint8_t)out, vl, &conflicts))
			continue;
		if (conflicts) {
			pg->st.qos_conflict_sls |= conflicts;
			pg->st.qos_conflict_ports++;
		}
		old_has = oi != FABRIC_NO_NODE && qos_want_sl2vl(oq, old_f, old_r, old_eng_sls, oi,
								 (uint8_t)out, old_vl, NULL);
		/* a switch input port linked since: its (in, out) rows were never written */
		for (unsigned in = 1; old_has && node_is_switch(n) && in <= n->nports; in++)
			if (port_is_linked(&n->ports[in]) &&
			    !port_is_linked(&old_f->nodes[oi].ports[in]))
				old_has = false;
		if (!old_has || memcmp(vl, old_vl, sizeof(vl))) {
			memset(data, 0, sizeof(data));
			wire_sl2vl_encode(vl, data, sizeof(data));
			if (node_is_switch(n)) {
				for (unsigned in = 0; in <= n->nports; in++) {
					if (in == out || (in && !port_is_linked(&n->ports[in])))
						continue;
					if (program_send(pg, OP_SL2VL, ni, 0, WIRE_ATTR_SL2VL,
							 in << 8 | out, data) == 0)
						pg->st.sl2vl_blocks++;
				}
			} else if (program_send(pg, OP_SL2VL, ni, (uint8_t)out, WIRE_ATTR_SL2VL, 0,
						data) == 0) {
				pg->st.sl2vl_blocks++;
			}
		}
		/* blocks 1, 2: low priority entries 0-31, 32-63; 3, 4: high; port in 15:0 */
		for (unsigned b = 1; b <= 4; b++) {
			if (!qos_want_vlarb(q, pg->f, r, ni, (uint8_t)out, b, arb_vl, arb_w))
				continue;
			if (old_has &&
			    qos_want_vlarb(oq, old_f, old_r, oi, (uint8_t)out, b, o_vl, o_w) &&
			    !memcmp(arb_vl, o_vl, 32) && !memcmp(arb_w, o_w, 32))
				continue;
			memset(data, 0, sizeof(data));
			wire_vlarb_encode(arb_vl, arb_w, data, sizeof(data));
			if (program_send(pg, OP_VLARB, ni, node_is_switch(n) ? 0 : (uint8_t)out,
					 WIRE_ATTR_VL_ARB, b << 16 | (node_is_switch(n) ? out : 0),
					 data) == 0)
				pg->st.vlarb_blocks++;
		}
	}
}

/* ---- multicast forwarding tables ----------------------------------------- */

/*
 * SwitchInfo:MulticastFDBTop, when the switch has it and it changes.  The
 * image is what discovery read with LinearFDBTop as the configure batch set
 * it; PortStateChange is written 0 (no change).  1 when queued, 0 when
 * nothing is to be sent, -1 when it should be but was not (LinearFDBTop
 * unknown, or the SMP could not be queued).
 */
static int program_mft_top(struct program *pg, uint32_t ni, const struct mft *want,
			   const struct mft *known)
{
	struct node *n = &pg->f->nodes[ni];
	struct wire_portinfo pi;
	struct wire_switchinfo si;
	uint16_t top = mft_fdb_top(want);
	uint8_t data[64];

	if (wire_portinfo_decode(n->ports[0].pi, sizeof(n->ports[0].pi), &pi) < 0 ||
	    !(pi.capmask & PROGRAM_CAP_MCAST_FDB_TOP) ||
	    wire_switchinfo_decode(n->si, sizeof(n->si), &si) < 0)
		return 0;
	if (known ? mft_fdb_top(known) == top : si.mft_top == top)
		return 0;
	if (n->lft_top == 0xffff)
		return -1;
	si.mft_top = top;
	si.lft_top = n->lft_top;
	si.port_state_change = 0;
	memcpy(data, n->si, sizeof(data));
	wire_switchinfo_encode(&si, data, sizeof(data));
	return program_send(pg, OP_MFT, ni, 0, WIRE_ATTR_SWITCH_INFO, 0, data) == 0 ? 1 : -1;
}

static int program_mft_guid(struct program *pg, uint64_t guid)
{
	if (pg->n_mft_guids == pg->cap_mft_guids) {
		size_t cap = pg->cap_mft_guids ? 2 * pg->cap_mft_guids : 16;
		uint64_t *v = realloc(pg->mft_guids, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pg->mft_guids = v;
		pg->cap_mft_guids = cap;
	}
	pg->mft_guids[pg->n_mft_guids++] = guid;
	return 0;
}

/* One switch: the blocks that differ, then known takes want's table. */
static int program_mft_switch(struct program *pg, uint32_t ni, const struct mft *want,
			      struct mft_set *known, bool force)
{
	struct node *n = &pg->f->nodes[ni];
	const struct mft *old = force ? NULL : mft_set_get(known, n->guid);
	unsigned cap_blocks = n->mft_cap ? (n->mft_cap + MFT_BLOCK - 1) / MFT_BLOCK : 0;
	struct mft_ref *refs;
	struct mft *copy;
	size_t nr;
	bool all_sent = true;
	uint32_t sent = 0;
	int top;

	if (want->nports != n->nports)
		return 0; /* a table for another switch of that GUID: nothing sensible to
			     send */
	refs = malloc((mft_diff_room(old, want) + 1) * sizeof(*refs));
	copy = mft_dup(want);
	if (!refs || !copy) {
		free(refs);
		mft_free(copy);
		mft_set_remove(known, n->guid);
		pg->st.errors++;
		return -ENOMEM;
	}
	nr = mft_diff(old, want, refs);
	top = program_mft_top(pg, ni, want, old);
	for (size_t i = 0; i < nr; i++) {
		uint16_t masks[MFT_BLOCK];
		uint8_t data[64] = {0};

		if (refs[i].block >= cap_blocks)
			continue; /* the switch holds no such MLIDs */
		mft_block(want, refs[i].block, refs[i].position, masks);
		wire_mft_encode(masks, data, sizeof(data));
		if (program_send(pg, OP_MFT, ni, 0, WIRE_ATTR_MFT,
				 mft_attr_mod(refs[i].position, refs[i].block), data) == 0)
			sent++;
		else
			all_sent = false;
	}
	free(refs);
	pg->st.mft_blocks += sent;
	pg->st.mft_switches += sent > 0;
	/* an abandoned batch forgets the switches it sent to: keep their GUIDs */
	if (top < 0 || ((sent || top > 0) && program_mft_guid(pg, n->guid) < 0))
		all_sent = false;
	/* what the switch will hold; unknown when something could not be queued */
	if (!all_sent || mft_set_put(known, n->guid, copy) < 0) {
		mft_free(copy);
		mft_set_remove(known, n->guid);
	}
	return 0;
}

int program_mft(struct program *pg, const struct mft_set *want, struct mft_set *known, bool force)
{
	struct fabric *f = pg->f;
	int rc = 0;

	pg->mft_known = known;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct mft *t;

		if (!node_is_switch(&f->nodes[i]) || !f->nodes[i].mft_cap)
			continue;
		t = mft_set_get(want, f->nodes[i].guid);
		if (t && program_mft_switch(pg, i, t, known, force) < 0)
			rc = -ENOMEM;
	}
	return rc;
}

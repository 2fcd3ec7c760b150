/*
 * Inside programming (smp/program*.c): the batch the two files share and the
 * helpers each calls in the other.  Not for other rooms: they see
 * smp/program.h only.
 *
 *   program.c         the batch: Sets decided, produced for the engine,
 *                     answered; PortInfo (addresses, MTU, VLs, states),
 *                     a failed PortInfo Set read back; configure and the
 *                     port state batches
 *   program_tables.c  the table blocks: P_KeyTable (partitions and their
 *                     enforcement), SwitchInfo LinearFDBTop and the LFT
 *                     blocks, SL2VL and VLArb, the MFT blocks
 */
#ifndef IBSMD_PROGRAM_INT_H
#define IBSMD_PROGRAM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routes.h"
#include "mad/wire.h"
#include "mad/xact.h"
#include "smp/program.h"

enum program_op {
	OP_PORTINFO,
	OP_PKEY,
	OP_SWITCHINFO,
	OP_LFT,
	OP_SL2VL,
	OP_VLARB,
	OP_PORT_STATE,
	OP_MFT,
	OP_READBACK, /* PortInfo Get after a PortInfo Set failed */
	OP_OTHER
};

struct program {
	struct xact_engine *xe;
	struct xact_batch *batch; /* the SMPs; produced by program_produce */
	struct fabric *f;
	program_done_fn *done;
	void *arg;
	bool started;
	bool *lft_failed; /* per node, allocated on the first failed LFT block */
	enum xact_lane lane;
	struct mft_set *mft_known; /* program_mft's: switches dropped when a block fails */
	uint64_t *mft_guids;	   /* switches given MFT blocks (dropped from known on abort) */
	size_t n_mft_guids, cap_mft_guids;
	struct program_stats st;
	program_pkey_fn *pkey_sink; /* program_set_pkey_sink: P_KeyTable answers go there */
	void *pkey_arg;
	struct mkey_offenders *offenders; /* program_params' */
	uint64_t mkey;			  /* the M_Key this batch writes */
	int switch_life;		  /* SwitchInfo:LifeTimeValue to write, -1: leave it */
	unsigned by_kind[OP_OTHER + 1];	  /* sent per kind, for the debug trace of a node */
	/* issue 15: LFT blocks are made as the engine asks (program_produce) */
	const struct routes *lft_r;
	struct program_lft_job *jobs;
	size_t n_jobs, cap_jobs, job_next, block_next;
	/* program_port_states: the nodes from ps_next on are still to be queued */
	uint32_t ps_next, ps_end;
	uint8_t ps_from, ps_to;
	/*
	 * Sets decided and not yet asked for by the engine (a configure batch
	 * decides every port's at once): kept here in order, 76 bytes each,
	 * instead of whole requests in the engine (program_produce).
	 */
	struct program_decided {
		uint32_t node, mod;
		uint16_t attr;
		uint8_t kind, port;
		uint8_t data[64];
	} * decided;
	size_t n_decided, cap_decided, decided_next;
};

/*
 * A switch's LFT blocks still to send: decided (diffed) by program_switch,
 * made one at a time as the engine asks (program_produce), so a fabric's
 * millions of blocks never sit in the transaction queue at once.
 */
struct program_lft_job {
	uint32_t node;
	int top;
	uint32_t *blocks;
	size_t n;
};

/* ---- program.c ------------------------------------------------------------ */

/*
 * Decide a Set of attr/mod with data to (node, port): it joins pg->decided
 * and goes when the engine asks.  0, or -errno (counted as an error).
 */
int program_send(struct program *pg, enum program_op kind, uint32_t node, uint8_t port,
		 uint16_t attr, uint32_t mod, const uint8_t data[64]);
/* The port was read and its link is up (INIT or beyond). */
bool program_port_is_up(const struct port *p);

/* The model of an end port takes the P_KeyTable block it answered with (program.c). */
void program_pkey_took(struct port *p, const struct wire_smp *req, const struct wire_smp *resp);
/* At debug: what a pass decided for node ni (program.c). */
void program_trace_node(struct program *pg, uint32_t ni, const char *what);

/* ---- program_tables.c ----------------------------------------------------- */
/* End port (ni, pn): the P_KeyTable blocks the partition policy wants that differ. */
void program_pkeys(struct program *pg, const struct program_params *pp, uint32_t ni, uint8_t pn);
/* The switch's P_KeyTable entries per external port (PartitionEnforcementCap). */
unsigned program_enforce_cap(const struct node *n);
/* Switch port (ni, pn) is linked to a CA (or router) port whose PortInfo was read. */
bool program_faces_ca(const struct fabric *f, uint32_t ni, uint8_t pn);
/* Switch port (ni, pn) facing a CA gets the CA port's table; whether it fits. */
bool program_enforce_pkeys(struct program *pg, const struct program_params *pp, uint32_t ni,
			   uint8_t pn);
/* The enforcement bits PortInfo of (ni, pn) should carry: -1 leave, bit 1 in, bit 0 out. */
int program_enforce_bits(const struct program *pg, const struct program_params *pp, uint32_t ni,
			 uint8_t pn, bool fits);
/* Switch ni: SwitchInfo LinearFDBTop, and its LFT blocks that differ as a job. */
void program_switch(struct program *pg, const struct routes *r, uint32_t ni,
		    const struct fabric *old_f, const struct routes *old_r, bool force,
		    const struct program_held *held);
/* Node ni: the SL2VL and VLArb tables that changed. */
void program_vls(struct program *pg, const struct routes *r, uint32_t ni,
		 const struct fabric *old_f, const struct routes *old_r,
		 const struct program_params *pp, uint16_t eng_sls, uint16_t old_eng_sls);

#endif

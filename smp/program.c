/*
 * Programming the subnet (see program.h).  Every Set is diffed against what
 * the node holds (PortInfo field by field against what discovery read) or was
 * last given (LFT blocks and VL tables against the published routes, MFT
 * blocks against the tables kept by switch GUID), so a sweep of a healthy
 * fabric sends only Gets.
 *
 * This file, the bottom of the three: the batch (Sets decided in order,
 * handed to the engine as it asks, their answers; a failed PortInfo Set
 * read back) and the port state batches (IBA 7.2).  program_tables.c
 * decides the table blocks, program_ports.c the PortInfo of every port
 * (14.2.5.6) and the configure pass; both call down here, never the other
 * way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/lft.h"
#include "fabric/mft.h"
#include "policy/qos.h"
#include "lib/log.h"
#include "mad/wire.h"
#include "smp/discover.h"
#include "smp/portinfo.h"
#include "smp/program.h"
#include "lib/sorted.h"
#include "smp/program_int.h"

struct program_req {
	struct program *pg;
	enum program_op kind;
	uint32_t node;
	uint8_t port;
	/* OP_READBACK: what the failed Set asked for */
	uint16_t want_lid;
	uint8_t want_state;
};

static int program_readback(struct program *pg, uint32_t node, uint8_t port,
			    const struct wire_smp *set);
static void program_req_done(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp);

static void program_on_empty(void *arg);
static bool program_produce(void *ctx);

struct program *program_new(struct xact_engine *xe, struct fabric *f, program_done_fn *done,
			    void *arg)
{
	struct program *pg = calloc(1, sizeof(*pg));

	if (!pg)
		return NULL;
	*pg = (struct program){.xe = xe, .f = f, .done = done, .arg = arg, .switch_life = -1};
	pg->batch = xact_batch_new(xe, program_on_empty, pg);
	if (!pg->batch) {
		free(pg);
		return NULL;
	}
	xact_batch_set_producer(pg->batch, XACT_BULK, program_produce, pg);
	return pg;
}

/* Frees; what is still in flight is cancelled (the callbacks free their ops). */
static void program_free(struct program *pg)
{
	xact_batch_free(pg->batch);
	for (size_t i = 0; i < pg->n_jobs; i++)
		free(pg->jobs[i].blocks);
	free(pg->jobs);
	free(pg->decided);
	free(pg->lft_failed);
	free(pg->mft_guids);
	free(pg);
}

static void program_port_states_node(struct program *pg, uint32_t i);

static int program_submit(struct program *pg, enum program_op kind, uint32_t node, uint8_t port,
			  uint16_t attr, uint32_t mod, const uint8_t data[64], bool counted);

/*
 * The batch's producer: the engine's next request when it has room.  The
 * Sets decided, in order; once started (program_start), LFT blocks of the
 * jobs, then the port state Sets of the nodes left.  False when nothing is
 * left for now.
 */
static bool program_produce(void *ctx)
{
	struct program *pg = ctx;

	for (;;) {
		if (pg->decided_next < pg->n_decided) {
			const struct program_decided *l = &pg->decided[pg->decided_next++];

			if (program_submit(pg, (enum program_op)l->kind, l->node, l->port, l->attr,
					   l->mod, l->data, true) == 0)
				return true;
			pg->st.sets--; /* counted when it was decided; an error now */
			continue;
		}
		if (pg->n_decided) {
			free(pg->decided);
			pg->decided = NULL;
			pg->n_decided = pg->cap_decided = pg->decided_next = 0;
		}
		if (!pg->started)
			return false;
		if (pg->job_next < pg->n_jobs) {
			struct program_lft_job *j = &pg->jobs[pg->job_next];
			uint8_t ports[LFT_BLOCK], data[64];
			uint32_t block;

			if (pg->block_next < j->n && pg->lft_failed && pg->lft_failed[j->node]) {
				/*
				 * A block of this switch failed (most often it
				 * timed out: the switch is gone or its path is):
				 * the rest would wait out the same timeouts,
				 * holding the window from every other switch.
				 * Not sent, failed; the switch gets every block
				 * next time (program_finish).
				 */
				pg->st.errors += j->n - pg->block_next;
				pg->st.lft_skipped += j->n - pg->block_next;
				pg->block_next = j->n;
			}
			if (pg->block_next == j->n) {
				free(j->blocks);
				j->blocks = NULL;
				pg->job_next++;
				pg->block_next = 0;
				continue;
			}
			block = j->blocks[pg->block_next++];
			lft_block(pg->lft_r->lft[j->node], j->top, block, ports);
			wire_lft_encode(ports, data, sizeof(data));
			if (program_submit(pg, OP_LFT, j->node, 0, WIRE_ATTR_LFT, block, data,
					   false) == 0) {
				pg->st.lft_blocks++;
				return true;
			}
			continue;
		}
		if (pg->ps_next < pg->ps_end) {
			program_port_states_node(pg, pg->ps_next++); /* into pg->decided */
			continue;
		}
		return false;
	}
}

static bool program_filled(const struct program *pg)
{
	return pg->decided_next >= pg->n_decided && pg->job_next >= pg->n_jobs &&
	       pg->ps_next >= pg->ps_end;
}

/* Every SMP done and no more to come: report, then free. */
static void program_finish(struct program *pg)
{
	/* a switch whose LFT programming failed must be rewritten next time */
	for (uint32_t i = 0; pg->lft_failed && i < pg->f->n_nodes; i++)
		if (pg->lft_failed[i])
			pg->f->nodes[i].lft_top = 0xffff;
	if (pg->done)
		pg->done(pg->arg, &pg->st);
	program_free(pg);
}

/* The batch is empty: once started, every SMP is done and none is to come. */
static void program_on_empty(void *arg)
{
	struct program *pg = arg;

	if (pg->started && program_filled(pg))
		program_finish(pg);
}

/* The model of a port takes what it answered. */
static void program_port_took(struct port *p, const struct wire_smp *resp)
{
	struct wire_portinfo pi;

	if (wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) == 0) {
		memcpy(p->pi, resp->data, sizeof(p->pi));
		p->state = pi.state;
		p->neighbor_mtu = pi.neighbor_mtu;
		p->oper_vls = pi.oper_vls;
	}
}

/* A Set to (node, port) failed: note the switch it belongs to (a CA's: its neighbour). */
static void program_note_failed(struct program *pg, uint32_t node, uint8_t port)
{
	const struct node *n = &pg->f->nodes[node];

	if (!node_is_switch(n)) {
		if (port > n->nports || !port_is_linked(&n->ports[port]))
			return;
		n = &pg->f->nodes[n->ports[port].remote_node];
		if (!node_is_switch(n))
			return;
	}
	u64_set_add(pg->st.failed_sw, &pg->st.n_failed_sw, PROGRAM_FAILED_MAX, n->guid);
}

/* After a failed PortInfo Set: what does the port hold?  Did the Set take effect? */
static void program_readback_done(struct program *pg, struct program_req *op, int status,
				  const struct wire_smp *resp)
{
	struct node *n = &pg->f->nodes[op->node];
	struct port *p = &n->ports[op->port];
	struct wire_portinfo pi;
	bool lid_port = op->port == 0 || !node_is_switch(n);

	if (status < 0 || wire_portinfo_decode(resp->data, sizeof(resp->data), &pi) < 0) {
		pg->st.errors++;
		program_note_failed(pg, op->node, op->port);
		if (status == -ETIMEDOUT)
			pg->st.timeouts++;
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, op->port,
				     "node 0x%016llx \"%s\" port %u: PortInfo Set failed and the "
				     "port could not be read back: %s",
				     (unsigned long long)n->guid, n->desc, op->port,
				     strerror(status < 0 ? -status : EBADMSG));
		return;
	}
	program_port_took(p, resp);
	if ((!lid_port || pi.lid == op->want_lid) &&
	    (op->want_state == PORT_NOP || pi.state == op->want_state)) {
		pg->st.recovered++;
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG,
			"node 0x%016llx \"%s\" port %u: a PortInfo Set's answer was lost; read "
			"back, the port holds what was set",
			(unsigned long long)n->guid, n->desc, op->port);
		return;
	}
	pg->st.errors++;
	log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, op->port,
			     "node 0x%016llx \"%s\" port %u: PortInfo Set failed; read back: "
			     "LID %u state %u (wanted LID %u state %u)",
			     (unsigned long long)n->guid, n->desc, op->port, pi.lid, pi.state,
			     op->want_lid, op->want_state);
}

/* Queue a PortInfo Get of (node, port) after set failed.  0, or -errno (nothing queued). */
static int program_readback(struct program *pg, uint32_t node, uint8_t port,
			    const struct wire_smp *set)
{
	struct wire_portinfo want;
	struct program_req *op;
	struct wire_smp smp;
	uint8_t path[FABRIC_DR_MAX_HOPS + 1];
	uint8_t hops;
	int r;

	if (!set || wire_portinfo_decode(set->data, sizeof(set->data), &want) < 0 ||
	    discover_port_path(pg->f, node, port, path, &hops) < 0 ||
	    wire_smp_init_dr(&smp, WIRE_GET, WIRE_ATTR_PORT_INFO,
			     portinfo_set_mod(&pg->f->nodes[node].ports[port], port), path,
			     hops) < 0)
		return -EINVAL;
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	*op = (struct program_req){pg, OP_READBACK, node, port, want.lid, want.state};
	r = xact_submit(pg->xe, &(struct xact_request){.lane = pg->lane,
						       .batch = pg->batch,
						       .smp = &smp,
						       .done = program_req_done,
						       .arg = op});
	if (r < 0) {
		free(op);
		return r;
	}
	pg->st.readbacks++;
	return 0;
}

/*
 * A PortInfo Set went unanswered.  An SMA drops an SMP that fails its M_Key
 * check without a word (14.2.4.2), so when what discovery read says the
 * port's key may not be ours, count it against the port.
 */
static void program_mkey_unanswered(struct program *pg, uint32_t node, uint8_t port)
{
	const struct node *n = &pg->f->nodes[node];
	const struct port *p = &n->ports[node_is_switch(n) ? 0 : port];
	struct mkey_offender *o;
	struct wire_portinfo pi;
	enum mkey_port_state ms;

	if (wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
		return;
	ms = mkey_port_classify(&pi, pg->mkey);
	if (ms != MKEY_PORT_UNKNOWN && ms != MKEY_PORT_FOREIGN)
		return;
	pg->st.mkey_unanswered++;
	o = pg->offenders ? mkey_offender_get(pg->offenders, p->guid, p->lid) : NULL;
	if (o)
		o->refused++;
	log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, port,
			     "node 0x%016llx \"%s\" port %u: PortInfo Set unanswered; the port's "
			     "M_Key is %s (protect bits %u): check m_key",
			     (unsigned long long)n->guid, n->desc, port, mkey_port_state_name(ms),
			     pi.mkey_protect);
}

/* The model of an end port takes the P_KeyTable block it answered with. */
void program_pkey_took(struct port *p, const struct wire_smp *req, const struct wire_smp *resp)
{
	unsigned b = req->attr_mod & 0xffff;

	if (b < FABRIC_PKEY_BLOCKS && port_pkeys_alloc(p) &&
	    wire_pkey_decode(resp->data, sizeof(resp->data), &p->pkeys[b * 32]) == 0)
		p->pkey_known |= (uint8_t)(1u << b);
}

static void program_req_done(void *arg, int status, const struct wire_smp *req,
			     const struct wire_smp *resp)
{
	struct program_req *op = arg;
	struct program *pg = op->pg;
	struct node *n;

	if (status == -ECANCELED) {
		free(op); /* program_abort: done is not called */
		return;
	}
	n = &pg->f->nodes[op->node];
	/*
	 * A PortInfo Set that failed may have taken effect: its answer was lost
	 * and the retry refused (an ARMED port refuses to be armed again), or
	 * every answer was lost.  Read the port back rather than keep the
	 * discovery copy, which the next state change would be built from.
	 */
	if (status == -ETIMEDOUT && (op->kind == OP_PORTINFO || op->kind == OP_PORT_STATE))
		program_mkey_unanswered(pg, op->node, op->port);
	if (status < 0 && (op->kind == OP_PORTINFO || op->kind == OP_PORT_STATE) &&
	    program_readback(pg, op->node, op->port, req) == 0) {
		free(op);
		return;
	}
	if (op->kind == OP_READBACK) {
		program_readback_done(pg, op, status, resp);
		free(op);
		return;
	}
	if (status < 0) {
		pg->st.errors++;
		program_note_failed(pg, op->node, op->port);
		if (status == -ETIMEDOUT)
			pg->st.timeouts++;
		if (op->kind == OP_PKEY && pg->pkey_sink)
			pg->pkey_sink(pg->pkey_arg, op->node, op->port, req->attr_mod, status,
				      NULL);
		log_port_ratelimited(LOG_CAT_SWEEP, LOG_WARNING, n->guid, op->port,
				     "node 0x%016llx \"%s\" port %u: Set attr 0x%04x mod 0x%x "
				     "failed: %s",
				     (unsigned long long)n->guid, n->desc, op->port, req->attr_id,
				     req->attr_mod, strerror(-status));
		if (op->kind == OP_SL2VL || op->kind == OP_VLARB)
			pg->st.vl_errors++; /* the next batch rewrites every VL table */
		if (op->kind == OP_MFT && pg->mft_known)
			mft_set_remove(pg->mft_known, n->guid); /* rewrite it whole next time */
		if (op->kind == OP_LFT) {
			if (!pg->lft_failed)
				pg->lft_failed = calloc(pg->f->n_nodes, sizeof(*pg->lft_failed));
			if (pg->lft_failed)
				pg->lft_failed[op->node] = true;
			else
				n->lft_top = 0xffff; /* out of memory: mark it now */
		}
	} else if (op->kind == OP_PORTINFO || op->kind == OP_PORT_STATE) {
		program_port_took(&n->ports[op->port], resp);
	} else if (op->kind == OP_SWITCHINFO && resp) {
		/* the model holds what the switch now holds: the next diff starts there */
		memcpy(n->si, resp->data, sizeof(n->si));
	} else if (op->kind == OP_PKEY && pg->pkey_sink) {
		uint16_t keys[32];

		if (resp && wire_pkey_decode(resp->data, sizeof(resp->data), keys) == 0)
			pg->pkey_sink(pg->pkey_arg, op->node, op->port, req->attr_mod, 0, keys);
		else
			pg->pkey_sink(pg->pkey_arg, op->node, op->port, req->attr_mod, -EBADMSG,
				      NULL);
	} else if (op->kind == OP_PKEY) {
		program_pkey_took(&n->ports[op->port], req, resp);
	}
	free(op); /* the last one finishes the batch (program_on_empty) */
}

/* Hand a Set to the engine now (counted: already in st.sets and by_kind).  0 or -errno. */
static int program_submit(struct program *pg, enum program_op kind, uint32_t node, uint8_t port,
			  uint16_t attr, uint32_t mod, const uint8_t data[64], bool counted)
{
	struct program_req *op;
	struct wire_smp smp;
	uint8_t path[FABRIC_DR_MAX_HOPS + 1];
	uint8_t hops;
	int r;

	if (discover_port_path(pg->f, node, port, path, &hops) < 0 ||
	    wire_smp_init_dr(&smp, WIRE_SET, attr, mod, path, hops) < 0) {
		pg->st.errors++;
		return -EINVAL;
	}
	memcpy(smp.data, data, sizeof(smp.data));
	op = calloc(1, sizeof(*op));
	if (!op) {
		pg->st.errors++;
		return -ENOMEM;
	}
	*op = (struct program_req){pg, kind, node, port, 0, 0};
	r = xact_submit(pg->xe, &(struct xact_request){.lane = pg->lane,
						       .batch = pg->batch,
						       .smp = &smp,
						       .done = program_req_done,
						       .arg = op});
	if (r < 0) {
		free(op);
		pg->st.errors++;
		return r;
	}
	if (!counted) {
		pg->st.sets++;
		pg->by_kind[kind]++;
	}
	return 0;
}

/*
 * Decide a Set: it joins pg->decided, behind the others (the order is
 * kept), and goes when the engine asks for it (program_produce).  0 when
 * kept, -errno when it cannot go (no route to the port, no memory).
 */
int program_send(struct program *pg, enum program_op kind, uint32_t node, uint8_t port,
		 uint16_t attr, uint32_t mod, const uint8_t data[64])
{
	uint8_t path[FABRIC_DR_MAX_HOPS + 1];
	uint8_t hops;

	if (discover_port_path(pg->f, node, port, path, &hops) < 0) {
		pg->st.errors++;
		return -EINVAL;
	}
	if (pg->n_decided == pg->cap_decided) {
		size_t cap = pg->cap_decided ? 2 * pg->cap_decided : 256;
		struct program_decided *v = realloc(pg->decided, cap * sizeof(*v));

		if (!v) {
			pg->st.errors++;
			return -ENOMEM;
		}
		pg->decided = v;
		pg->cap_decided = cap;
	}
	pg->decided[pg->n_decided] =
	    (struct program_decided){node, mod, attr, (uint8_t)kind, port, {0}};
	memcpy(pg->decided[pg->n_decided].data, data, sizeof(pg->decided[0].data));
	pg->n_decided++;
	pg->st.sets++;
	pg->by_kind[kind]++;
	xact_batch_wake(pg->batch);
	return 0;
}

/* At debug: what was just queued for node ni ("PortInfo x4, LFT x3"), then reset. */
void program_trace_node(struct program *pg, uint32_t ni, const char *what)
{
	static const char *const names[] = {
	    [OP_PORTINFO] = "PortInfo",
	    [OP_PKEY] = "P_KeyTable",
	    [OP_SWITCHINFO] = "SwitchInfo",
	    [OP_LFT] = "LFT block",
	    [OP_SL2VL] = "SL2VL",
	    [OP_VLARB] = "VLArb",
	    [OP_PORT_STATE] = "PortInfo state",
	    [OP_MFT] = "MFT block",
	    [OP_READBACK] = "PortInfo read back",
	    [OP_OTHER] = "other",
	};
	const struct node *n = &pg->f->nodes[ni];
	char line[256];
	size_t off = 0;

	for (int k = 0; k <= OP_OTHER; k++) {
		if (pg->by_kind[k] && off < sizeof(line))
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s x%u",
						off ? ", " : "", names[k], pg->by_kind[k]);
		pg->by_kind[k] = 0;
	}
	if (off)
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "%s %s 0x%016llx \"%s\": %s", what,
			node_is_switch(n) ? "switch" : "CA", (unsigned long long)n->guid, n->desc,
			line);
}

int program_set(struct program *pg, uint32_t node, uint8_t port, uint16_t attr, uint32_t mod,
		const uint8_t data[64])
{
	if (node >= pg->f->n_nodes)
		return -EINVAL;
	/* the model is left alone: the batch may run on a published fabric */
	return program_send(pg, OP_OTHER, node, port, attr, mod, data);
}

void program_start(struct program *pg)
{
	pg->started = true;
	if (!xact_batch_pending(pg->batch) && program_filled(pg)) {
		program_finish(pg);
		return;
	}
	/* LFT blocks and port states may go now; the last answer finishes (maybe at once) */
	xact_batch_wake(pg->batch);
}

void program_abort(struct program *pg)
{
	if (!pg)
		return;
	/* some MFT blocks may not have arrived: those switches are unknown again */
	for (size_t i = 0; pg->mft_known && i < pg->n_mft_guids; i++)
		mft_set_remove(pg->mft_known, pg->mft_guids[i]);
	program_free(pg); /* its SMPs are cancelled */
}

void program_set_pkey_sink(struct program *pg, program_pkey_fn *fn, void *arg)
{
	pg->pkey_sink = fn;
	pg->pkey_arg = arg;
}

int program_pkey_block(struct program *pg, uint32_t node, uint8_t port, uint32_t mod,
		       const uint16_t keys[32])
{
	uint8_t data[64];
	int r;

	if (node >= pg->f->n_nodes)
		return -EINVAL;
	wire_pkey_encode(keys, data, sizeof(data));
	r = program_send(pg, OP_PKEY, node, port, WIRE_ATTR_PKEY_TABLE, mod, data);
	if (r == 0) {
		pg->st.pkey_blocks++;
		if (node_is_switch(&pg->f->nodes[node]) && port)
			pg->st.enforce_blocks++;
	}
	return r;
}

void program_set_lane(struct program *pg, enum xact_lane lane)
{
	pg->lane = lane;
	xact_batch_set_producer(pg->batch, lane, program_produce, pg);
}

bool program_port_is_up(const struct port *p)
{
	return p->valid && p->phys_state == PHYS_LINKUP && p->state >= PORT_INIT;
}

static void program_port_states_node(struct program *pg, uint32_t i)
{
	static const char *const verbs[] = {"", "down", "init", "arm", "activate"};
	struct fabric *f = pg->f;
	uint16_t sm_lid = f->n_nodes ? f->nodes[f->sm_node].ports[f->sm_port].lid : 0;
	struct node *n = &f->nodes[i];
	uint8_t from = pg->ps_from, to = pg->ps_to;

	for (unsigned pn = 1; pn <= n->nports; pn++) {
		struct port *p = &n->ports[pn];
		struct wire_portinfo pi;
		uint8_t data[64];
		if (!program_port_is_up(p) || p->state != from || !port_is_linked(p))
			continue;
		if (wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
			continue;
		/*
		 * A CA port's addresses as programmed, whatever the copy says:
		 * a state change must never write back a LID the port had.
		 */
		if (!node_is_switch(n)) {
			pi.lid = p->lid;
			pi.lmc = p->lmc;
			pi.sm_lid = sm_lid;
		}
		pi.state = to;
		pi.phys_state = 0;
		portinfo_set_image(p, data);
		wire_portinfo_encode(&pi, data, sizeof(data));
		program_send(pg, OP_PORT_STATE, i, pn, WIRE_ATTR_PORT_INFO,
			     portinfo_set_mod(p, (uint8_t)pn), data);
	}
	if (log_enabled(LOG_CAT_SWEEP, LOG_DEBUG))
		program_trace_node(pg, i, to < 5 ? verbs[to] : "state");
}

/* Decided node by node as the engine asks (program_produce), like LFT blocks. */
void program_port_states(struct program *pg, uint8_t from, uint8_t to)
{
	memset(pg->by_kind, 0, sizeof(pg->by_kind));
	pg->ps_from = from;
	pg->ps_to = to;
	pg->ps_next = 0;
	pg->ps_end = pg->f->n_nodes;
}

/* Every port's SL2VL and VLArb tables read into a vlt set (see vlread.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/wire.h"
#include "smp/discover.h"
#include "smp/vlread.h"

/* One node being read: its ports, what was asked, what came back. */
struct vlread_job {
	uint32_t node;
	uint8_t n_ports;    /* ports read: port[0..n_ports) */
	uint8_t port[256];  /* switch: 0 and the linked ports; CA: the linked ports */
	uint8_t caps[256];  /* per port[i]: VLArb blocks to read, bit b - 1 for block b */
	uint32_t n_reqs;    /* Gets in all */
	uint32_t next;	    /* the next to send */
	uint32_t in_flight; /* sent, not completed */
	bool failed;
	struct vlt_read r;
};

struct vlread {
	struct xact_engine *xe;
	const struct fabric *f;
	struct vlt_set *set;
	vlread_done_fn *done;
	void *arg;
	struct xact_batch *batch;
	uint32_t *todo; /* node indices to read */
	uint32_t n_todo, todo_next;
	struct vlread_job **jobs; /* by todo index, while being read */
	struct vlread_stats st;
};

struct vlread_op {
	struct vlread *vr;
	uint32_t job;  /* todo index */
	uint16_t slot; /* SL2VL: in * (nports + 1) + out; VLArb: port * 4 + block - 1 */
	bool vlarb;
};

/*
 * The ports to read of n: a switch's 0 and every port whose PortInfo was
 * read (linked or not: OpenSM's records cover every port it knows), a CA's
 * linked ones.
 */
static uint8_t vlread_ports(const struct node *n, uint8_t *ret)
{
	uint8_t k = 0;

	for (unsigned p = 0; p <= n->nports; p++) {
		const struct port *pt = &n->ports[p];

		if (node_is_switch(n) ? (p == 0 || pt->valid)
				      : (p && pt->valid && port_is_linked(pt)))
			ret[k++] = (uint8_t)p;
	}
	return k;
}

bool vlread_wanted(const struct vlt_set *set, const struct fabric *f, uint32_t ni)
{
	const struct node *n = &f->nodes[ni];
	const struct vlt_node *v = vlt_set_get(set, n->guid);
	uint8_t ports[256];
	uint8_t k = vlread_ports(n, ports);

	if (!k)
		return false;
	if (!v || v->nports != n->nports || v->is_switch != node_is_switch(n))
		return true;
	for (uint8_t i = 0; i < k; i++)
		if (!vlt_port_read(v, ports[i]))
			return true;
	return false;
}

/* VLArb blocks a port has entries in (VLArbLowCap: 1, 2; VLArbHighCap: 3, 4). */
static uint8_t vlread_caps(const struct port *pt)
{
	struct wire_portinfo pi;
	uint8_t b = 0;

	if (!pt->valid || wire_portinfo_decode(pt->pi, sizeof(pt->pi), &pi) < 0)
		return 0;
	b |= pi.vl_arb_low_cap ? 1 : 0;
	b |= pi.vl_arb_low_cap > 32 ? 2 : 0;
	b |= pi.vl_arb_high_cap ? 4 : 0;
	b |= pi.vl_arb_high_cap > 32 ? 8 : 0;
	return b;
}

static void vlread_job_free(struct vlread_job *j)
{
	if (j) {
		vlt_read_clear(&j->r);
		free(j);
	}
}

static struct vlread_job *vlread_job_new(const struct vlread *vr, uint32_t ni)
{
	const struct node *n = &vr->f->nodes[ni];
	bool sw = node_is_switch(n);
	struct vlread_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	if (vlt_read_init(&j->r, n->nports, sw) < 0) {
		free(j);
		return NULL;
	}
	j->node = ni;
	j->n_ports = vlread_ports(n, j->port);
	for (uint8_t i = 0; i < j->n_ports; i++) {
		uint8_t p = j->port[i];

		j->r.ports[p / 64] |= 1ULL << (p % 64);
		j->caps[i] = sw && p == 0 ? 0 : vlread_caps(&n->ports[p]);
	}
	/* a switch: every pair; a CA: a row a port; then the VLArb blocks */
	j->n_reqs = sw ? (uint32_t)j->n_ports * j->n_ports : j->n_ports;
	for (uint8_t i = 0; i < j->n_ports; i++)
		j->n_reqs += (uint32_t)__builtin_popcount(j->caps[i]);
	return j;
}

/* Keep a node read whole; free its job. */
static void vlread_job_done(struct vlread *vr, uint32_t k)
{
	struct vlread_job *j = vr->jobs[k];

	if (!j->failed && vlt_set_put(vr->set, vr->f->nodes[j->node].guid, &j->r) == 0)
		vr->st.read++;
	vlread_job_free(j);
	vr->jobs[k] = NULL;
}

static void vlread_get_done(void *arg, int status, const struct wire_smp *req,
			    const struct wire_smp *resp)
{
	struct vlread_op *op = arg;
	struct vlread *vr = op->vr;
	struct vlread_job *j = vr->jobs[op->job];

	(void)req;
	if (status == -ECANCELED || !j) {
		free(op);
		return;
	}
	if (status < 0) {
		j->failed = true;
		vr->st.errors++;
	} else if (op->vlarb) {
		memcpy(j->r.vlarb[op->slot], resp->data, VLT_VLARB_SIZE);
		j->r.vlarb_has[op->slot] = true;
	} else {
		memcpy(j->r.sl2vl[op->slot], resp->data, VLT_SL2VL_SIZE);
		j->r.sl2vl_has[op->slot] = true;
	}
	j->in_flight--;
	if (!j->in_flight && j->next == j->n_reqs)
		vlread_job_done(vr, op->job);
	free(op);
}

/* Request q of job j: its attribute, modifier, port to address, slot. */
static void vlread_req(const struct vlread *vr, const struct vlread_job *j, uint32_t q,
		       uint16_t *attr, uint32_t *mod, uint8_t *port, uint16_t *slot, bool *vlarb)
{
	const struct node *n = &vr->f->nodes[j->node];
	bool sw = node_is_switch(n);
	uint32_t n_sl = sw ? (uint32_t)j->n_ports * j->n_ports : j->n_ports;
	unsigned np = (unsigned)n->nports + 1;

	if (q < n_sl) {
		uint8_t in = sw ? j->port[q / j->n_ports] : 0;
		uint8_t out = sw ? j->port[q % j->n_ports] : j->port[q];

		*attr = WIRE_ATTR_SL2VL;
		*mod = sw ? (uint32_t)in << 8 | out : 0;
		*port = sw ? 0 : out;
		*slot = (uint16_t)(in * np + out);
		*vlarb = false;
		return;
	}
	q -= n_sl;
	for (uint8_t i = 0; i < j->n_ports; i++) {
		for (unsigned b = 1; b <= VLT_VLARB_BLOCKS; b++) {
			if (!(j->caps[i] >> (b - 1) & 1))
				continue;
			if (q--)
				continue;
			*attr = WIRE_ATTR_VL_ARB;
			*mod = (uint32_t)b << 16 | (sw ? j->port[i] : 0);
			*port = sw ? 0 : j->port[i];
			*slot = (uint16_t)(j->port[i] * VLT_VLARB_BLOCKS + b - 1);
			*vlarb = true;
			return;
		}
	}
}

/* Send the next Get of job k; false when it could not be (the job then fails). */
static bool vlread_send(struct vlread *vr, uint32_t k)
{
	struct vlread_job *j = vr->jobs[k];
	struct vlread_op *op = calloc(1, sizeof(*op));
	uint8_t path[FABRIC_DR_MAX_HOPS + 1], hops, port = 0;
	struct wire_smp smp;
	uint16_t attr = 0;
	uint32_t mod = 0;
	int rc = -ENOMEM;

	if (op) {
		*op = (struct vlread_op){.vr = vr, .job = k};
		vlread_req(vr, j, j->next, &attr, &mod, &port, &op->slot, &op->vlarb);
		rc = discover_port_path(vr->f, j->node, port, path, &hops);
		if (rc == 0)
			rc = wire_smp_init_dr(&smp, WIRE_GET, attr, mod, path, hops);
		if (rc == 0)
			rc = xact_submit(vr->xe, &(struct xact_request){.lane = XACT_BULK,
									.batch = vr->batch,
									.smp = &smp,
									.done = vlread_get_done,
									.arg = op});
	}
	j->next++;
	if (rc < 0) {
		free(op);
		j->failed = true;
		vr->st.errors++;
		return false;
	}
	j->in_flight++;
	if (op->vlarb)
		vr->st.vlarb++;
	else
		vr->st.sl2vl++;
	return true;
}

/* The producer: the next Get of the node being read, or of the next node. */
static bool vlread_produce(void *ctx)
{
	struct vlread *vr = ctx;

	while (vr->todo_next < vr->n_todo) {
		uint32_t k = vr->todo_next;
		struct vlread_job *j = vr->jobs[k];

		if (!j) {
			j = vr->jobs[k] = vlread_job_new(vr, vr->todo[k]);
			if (!j) {
				vr->st.errors++; /* out of memory: the node is read next time */
				vr->todo_next++;
				continue;
			}
		}
		if (j->next < j->n_reqs) {
			bool sent = vlread_send(vr, k);

			if (j->next == j->n_reqs) {
				vr->todo_next++;
				if (!j->in_flight)
					vlread_job_done(vr, k);
			}
			if (sent)
				return true;
			continue;
		}
		vr->todo_next++;
		if (!j->in_flight)
			vlread_job_done(vr, k);
	}
	return false;
}

static void vlread_destroy(struct vlread *vr)
{
	xact_batch_free(vr->batch); /* the Gets in flight are cancelled */
	for (uint32_t k = 0; k < vr->n_todo; k++)
		vlread_job_free(vr->jobs[k]);
	free(vr->jobs);
	free(vr->todo);
	free(vr);
}

/* Every Get answered or not, the producer dry. */
static void vlread_on_empty(void *arg)
{
	struct vlread *vr = arg;

	if (vr->todo_next < vr->n_todo)
		return; /* not yet: the producer will be asked again */
	vr->done(vr->arg, &vr->st);
}

int vlread_start(struct xact_engine *xe, const struct fabric *f, struct vlt_set *set,
		 vlread_done_fn *done, void *arg, struct vlread **ret)
{
	struct vlread *vr = calloc(1, sizeof(*vr));

	*ret = NULL;
	if (!vr)
		return -ENOMEM;
	*vr = (struct vlread){.xe = xe, .f = f, .set = set, .done = done, .arg = arg};
	vr->todo = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*vr->todo));
	if (!vr->todo)
		goto nomem;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (vlread_wanted(set, f, i))
			vr->todo[vr->n_todo++] = i;
	if (!vr->n_todo) {
		vlread_destroy(vr);
		return 0;
	}
	vr->st.nodes = vr->n_todo;
	vr->jobs = calloc(vr->n_todo, sizeof(*vr->jobs));
	vr->batch = xact_batch_new(xe, vlread_on_empty, vr);
	if (!vr->jobs || !vr->batch)
		goto nomem;
	xact_batch_set_producer(vr->batch, XACT_BULK, vlread_produce, vr);
	*ret = vr;
	xact_batch_wake(vr->batch);
	return 0;
nomem:
	vlread_destroy(vr);
	return -ENOMEM;
}

void vlread_get_stats(const struct vlread *vr, struct vlread_stats *ret)
{
	*ret = vr->st;
}

void vlread_free(struct vlread *vr)
{
	if (vr)
		vlread_destroy(vr);
}

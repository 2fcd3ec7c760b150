/*
 * The SM object (see sm.h): opens the MAD port, wires received MADs through
 * the dispatch table to the transaction engine and the SM's handlers, owns
 * the LID database.  IBA 1.4 vol 1, 14.4.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mad/dispatch.h"
#include "mad/wire.h"
#include "lib/log.h"
#include "sm/offline.h"
#include "sm/sm.h"

/* SubnGet(SMInfo) from another SM or a diagnostic tool (IBA 14.4.1): answer it. */
static void sm_answer_sminfo(struct sm *sm, const struct madio_addr *from, const uint8_t *buf,
			     size_t len)
{
	struct wire_smp req, resp;
	struct wire_sminfo si = {0};
	uint8_t out[WIRE_MAD_SIZE];

	if (wire_smp_decode(buf, len, &req) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING,
				"dropped a malformed SMInfo request from LID %u", from->slid);
		return;
	}
	resp = req;
	resp.method = WIRE_GET_RESP;
	resp.status = 0;
	if (req.mgmt_class == WIRE_CLASS_SMI_DR)
		resp.direction = true;
	si.guid = sm->port_guid;
	si.priority = sm->opts.priority;
	si.act_count = (uint32_t)sm->sweeps;
	si.state = sm->state == SM_MASTER	 ? 3
		   : sm->state == SM_STANDBY	 ? 2
		   : sm->state == SM_DISCOVERING ? 1
						 : 0;
	memset(resp.data, 0, sizeof(resp.data));
	wire_sminfo_encode(&si, resp.data, sizeof(resp.data));
	if (wire_smp_encode(&resp, out, sizeof(out)) < 0)
		return;
	if (madio_send_lid(sm->io, req.mgmt_class, out, sizeof(out), from->slid, 0, 0) < 0)
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "cannot answer SMInfo from LID %u",
				from->slid);
}

/*
 * A trap (IBA 14.2.5.1 Notice; 13.4.9 TrapRepress): repress it, and since
 * most SM traps mean the topology changed (128: link state change, 64/65:
 * GID in/out of service), start a sweep; one in progress runs again after.
 */
static void sm_handle_trap(struct sm *sm, const struct madio_addr *from, const uint8_t *buf,
			   size_t len)
{
	struct wire_smp req, rep;
	uint8_t out[WIRE_MAD_SIZE];
	unsigned trap_num;

	if (wire_smp_decode(buf, len, &req) < 0) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "dropped a malformed trap from LID %u",
				from->slid);
		return;
	}
	sm->traps++;
	/* Notice: IsGeneric(1) Type(7) ProducerType/VendorID(24) TrapNumber(16) */
	trap_num = req.data[4] << 8 | req.data[5];
	log_msg(LOG_CAT_SWEEP, LOG_INFO, "trap %u from LID %u: sweeping", trap_num, from->slid);
	rep = req;
	rep.method = WIRE_TRAP_REPRESS;
	rep.status = 0;
	if (wire_smp_encode(&rep, out, sizeof(out)) == WIRE_MAD_SIZE)
		madio_send_lid(sm->io, WIRE_CLASS_SMI, out, sizeof(out), from->slid, 0, 0);
	if (sm->state == SM_MASTER || sm->state == SM_DISCOVERING) {
		char why[64];
		snprintf(why, sizeof(why), "trap %u from LID %u", trap_num, from->slid);
		sweep_start_why(sm, why);
	}
}

/*
 * Received MADs, wired by the dispatch table (sm_dispatch_new).  Handlers
 * take the header dispatch decoded; the ones above still decode their body.
 */
static void sm_recv_response(void *ctx, const struct madio_addr *from,
			     const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	bool smp = hdr->mgmt_class == WIRE_CLASS_SMI || hdr->mgmt_class == WIRE_CLASS_SMI_DR;
	int r = xact_input(sm->xe, buf, len);

	if (r == -EBADMSG) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING,
				"dropped a malformed %s response (class 0x%02x, %zu bytes) "
				"from LID %u",
				smp ? "SMP" : "GSI", hdr->mgmt_class, len, from->slid);
	} else if (r == -ENOENT) {
		log_msg(LOG_CAT_MAD, LOG_DEBUG, "late or unknown response TID 0x%016llx",
			(unsigned long long)hdr->tid);
	}
}

static void sm_recv_sminfo(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
			   const uint8_t *buf, size_t len)
{
	sm_answer_sminfo(ctx, from, buf, len);
}

static void sm_recv_trap(void *ctx, const struct madio_addr *from, const struct wire_mad_hdr *hdr,
			 const uint8_t *buf, size_t len)
{
	sm_handle_trap(ctx, from, buf, len);
}

static void sm_recv_unserved(void *ctx, const struct madio_addr *from,
			     const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;

	sm->mad_unexpected++;
	log_ratelimited(LOG_CAT_MAD, LOG_NOTICE,
			"ignored a MAD of class 0x%02x method 0x%02x attr 0x%04x from LID %u: "
			"not served yet",
			hdr->mgmt_class, hdr->method, hdr->attr_id, from->slid);
}

static struct dispatch *sm_dispatch_new(struct sm *sm)
{
	static const struct {
		uint8_t mgmt_class;
		unsigned method, attr_id;
		dispatch_fn fn;
	} table[] = {
	    /* responses to our requests: SMPs, and GSI for PerfMgt and SA queries */
	    {WIRE_CLASS_SMI, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SMI_DR, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SA, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_PERF, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SMI, WIRE_GET, WIRE_ATTR_SM_INFO, sm_recv_sminfo},
	    {WIRE_CLASS_SMI_DR, WIRE_GET, WIRE_ATTR_SM_INFO, sm_recv_sminfo},
	    {WIRE_CLASS_SMI, WIRE_TRAP, DISPATCH_ANY_ATTR, sm_recv_trap},
	};
	struct dispatch *d = dispatch_new(sm_recv_unserved, sm);

	if (!d)
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (dispatch_register(d, table[i].mgmt_class, table[i].method, table[i].attr_id,
				      table[i].fn, sm) < 0) {
			dispatch_free(d);
			return NULL;
		}
	}
	return d;
}

static void sm_recv(void *ctx, int mgmt_class, int status, const struct madio_addr *from,
		    const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_mad_hdr hdr;

	if (status) {
		/* a send that failed (umad2sim: the simulator dropped it) */
		if (wire_mad_hdr_decode(buf, len, &hdr) == 0) {
			xact_send_failed(sm->xe, hdr.tid);
			return;
		}
	} else if (dispatch_input(sm->disp, from, buf, len) != -EBADMSG) {
		return;
	}
	sm->mad_malformed++;
	log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "dropped a truncated MAD (%zu bytes) from LID %u",
			len, from->slid);
}

static int sm_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		   unsigned timeout_ms)
{
	struct sm *sm = ctx;
	return madio_send(sm->io, to, mad, len, timeout_ms);
}

int sm_init(struct sm *sm, struct event_base *base, const struct sm_opts *o, char *err,
	    size_t err_len)
{
	struct xact_opts xo = {o->window, o->timeout_ms, o->retries};
	char lerr[512];
	int r;

	memset(sm, 0, sizeof(*sm));
	sm->base = base;
	sm->opts = *o;
	sm->state = SM_NOTACTIVE;
	if (mkdir(o->state_dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, err_len, "cannot create state directory %s: %s", o->state_dir,
			 strerror(errno));
		return -errno;
	}
	snprintf(sm->lid_path, sizeof(sm->lid_path), "%s/guid2lid", o->state_dir);
	r = lid_db_load(sm->lid_path, &sm->lids, lerr, sizeof(lerr));
	if (!sm->lids) {
		snprintf(err, err_len, "out of memory loading %s", sm->lid_path);
		return -ENOMEM;
	}
	if (r < 0)
		log_warn("%s; rebuilding the LID map from the fabric", lerr);
	else
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "%u LIDs loaded from %s", lid_db_count(sm->lids),
			sm->lid_path);
	r = sm_load_roots(sm, err, err_len);
	if (r < 0)
		goto fail;
	sm->disp = sm_dispatch_new(sm);
	if (!sm->disp) {
		snprintf(err, err_len, "out of memory setting up MAD dispatch");
		r = -ENOMEM;
		goto fail;
	}
	r = madio_open(base, o->ca_name, o->port_num, sm_recv, sm, &sm->io, err, err_len);
	if (r < 0)
		goto fail;
	struct madio_port_info mpi;
	if (madio_port_info(sm->io, &mpi) == 0)
		sm->port_guid = mpi.port_guid;
	sm->xe = xact_new(base, &xo, sm_send, sm);
	if (!sm->xe) {
		snprintf(err, err_len, "cannot create the transaction engine (window %u)",
			 o->window);
		r = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	sm_fini(sm);
	return r;
}

int sm_load_roots(struct sm *sm, char *err, size_t err_len)
{
	uint64_t *roots;
	size_t n;
	int r = offline_load_roots(sm->opts.roots_file, &roots, &n, err, err_len);

	if (r < 0)
		return r;
	free(sm->roots);
	sm->roots = roots;
	sm->n_roots = n;
	if (n)
		log_info("updn: %zu root switches from %s", n, sm->opts.roots_file);
	return 0;
}

struct port_op {
	struct sm *sm;
	void (*done)(void *arg, int status);
	void *arg;
	uint64_t guid;
	uint8_t port;
	bool enable;
};

static void port_op_resweep(evutil_socket_t fd, short what, void *arg)
{
	sweep_start_why(arg, "port enabled a second ago");
}

static void port_op_done(void *arg, int status, const struct wire_smp *req,
			 const struct wire_smp *resp)
{
	struct port_op *op = arg;

	if (status == 0)
		log_port(LOG_CAT_SWEEP, LOG_INFO, op->guid, op->port, "port 0x%016llx/%u %s",
			 (unsigned long long)op->guid, op->port,
			 op->enable ? "enabled (polling)" : "disabled");
	else if (status != -ECANCELED)
		log_port(LOG_CAT_SWEEP, LOG_WARNING, op->guid, op->port,
			 "port 0x%016llx/%u: cannot %s it: %s", (unsigned long long)op->guid,
			 op->port, op->enable ? "enable" : "disable", strerror(-status));
	if (op->done)
		op->done(op->arg, status);
	if (status == 0) {
		sweep_start_why(op->sm, op->enable ? "port enabled" : "port disabled");
		/* an enabled link needs a moment to train: look again in a second */
		if (op->enable) {
			struct timeval tv = {1, 0};
			event_base_once(op->sm->base, -1, EV_TIMEOUT, port_op_resweep, op->sm, &tv);
		}
	}
	free(op);
}

int sm_port_set_enabled(struct sm *sm, uint64_t node_guid, uint8_t port, bool enable,
			void (*done)(void *arg, int status), void *arg)
{
	const struct fabric *f = sm->fabric;
	uint8_t path[FABRIC_DR_MAX_HOPS + 1], hops;
	struct wire_portinfo pi;
	struct wire_smp smp;
	struct port_op *op;
	const struct node *n;
	const struct port *p;
	uint32_t ni;
	int r;

	if (!f || (ni = fabric_find_guid(f, node_guid)) == FABRIC_NO_NODE)
		return -ENOENT;
	n = &f->nodes[ni];
	if (port == 0 || port > n->nports || !n->ports[port].valid)
		return -ENOENT;
	p = &n->ports[port];
	/* our own link: disabling it would cut the SM off its subnet */
	if ((ni == f->sm_node && port == f->sm_port) ||
	    (p->remote_node == f->sm_node && p->remote_port == f->sm_port))
		return -EPERM;
	/* through the node's own path, so the SMP does not cross the port itself */
	r = node_is_switch(n) ? discover_port_path(f, ni, 0, path, &hops)
			      : discover_port_path(f, ni, port, path, &hops);
	if (r < 0)
		return r;
	if (wire_portinfo_decode(p->pi, sizeof(p->pi), &pi) < 0)
		return -EIO;
	pi.state = PORT_NOP;
	pi.phys_state = enable ? PHYS_POLLING : 3 /* Disabled */;
	if (wire_smp_init_dr(&smp, WIRE_SET, WIRE_ATTR_PORT_INFO, port, path, hops) < 0)
		return -EINVAL;
	memcpy(smp.data, p->pi, sizeof(smp.data));
	wire_portinfo_encode(&pi, smp.data, sizeof(smp.data));
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	*op = (struct port_op){sm, done, arg, node_guid, port, enable};
	r = xact_submit(sm->xe, &smp, port_op_done, op);
	if (r < 0)
		free(op);
	return r;
}

void sm_fini(struct sm *sm)
{
	sm->on_sweep = NULL;
	sweep_abort(sm);
	/* let the dump writer finish: the files are renamed into place whole */
	sweep_dump_reap(sm, true);
	xact_free(sm->xe);
	sm->xe = NULL;
	madio_close(sm->io);
	sm->io = NULL;
	dispatch_free(sm->disp);
	sm->disp = NULL;
	if (sm->sweep_timer)
		event_free(sm->sweep_timer);
	sm->sweep_timer = NULL;
	fabric_free(sm->fabric);
	routes_free(sm->routes);
	lid_db_free(sm->lids);
	free(sm->roots);
	sm->roots = NULL;
	sm->fabric = NULL;
	sm->routes = NULL;
	sm->lids = NULL;
}

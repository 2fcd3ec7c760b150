/*
 * MAD port I/O (see madio.h).  IBA 1.4 vol 1, 13.5 (QP0 on VL15); the
 * user_mad ABI through libibumad (umad_open_port, umad_register,
 * umad_get_issm_path, umad_send, umad_recv).  A port whose SMI and GSI are
 * separate devices (mad/smigsi.h) is opened twice: the SMI agents on the
 * SMI device, SA and PerfMgt on the GSI device, a receiver thread each.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/eventfd.h>
#include <infiniband/umad.h>

#include "mad/madio.h"
#include "mad/smigsi.h"
#include "mad/wire.h"

#define RECV_TIMEOUT_MS 50
#define QUEUE_MAX 65536
#define RX_BATCH 64	 /* MADs handed over in one lock at most */
#define RX_CACHE 64	 /* free items the thread keeps */
#define RX_POOL_MAX 4096 /* free items kept for reuse */
#define DRAIN_ROUNDS 16	 /* queue takes per loop callback before other events run */

struct rx_item {
	struct rx_item *next;
	int mgmt_class; /* of the agent it arrived on */
	int status;
	struct madio_addr from;
	size_t len;
	uint8_t mad[WIRE_MAD_SIZE];
};

/* A umad port and its receiver thread. */
struct madio_rx {
	struct madio *io;
	int portid;
	bool gsi; /* the GSI device of a split port: its agents are SA and PerfMgt */
	pthread_t thread;
	bool started;
};

struct madio {
	struct event_base *base;
	madio_recv_fn recv;
	void *ctx;
	char ca_name[UMAD_CA_NAME_LEN]; /* the SMI's device and port */
	int port_num;
	int portid;
	char gsi_ca_name[UMAD_CA_NAME_LEN]; /* the GSI's: the same unless split */
	int gsi_port_num;
	int gsi_portid; /* -1 unless split */
	bool split;
	char notes[512]; /* ports skipped when the port was chosen */
	int issm_fd;
	int agent_smi, agent_dr, agent_sa, agent_perf;
	int efd;
	struct event *ev;
	struct madio_rx rx[2]; /* the SMI's port; the GSI's when split */
	atomic_bool stop;
	pthread_mutex_t lock;
	struct rx_item *head, *tail;
	size_t q_len;
	struct rx_item *pool; /* free items, under lock */
	size_t pool_len;
	struct madio_stats st;
	atomic_bool asleep; /* the loop waits for the eventfd: the next hand-off writes it */
	atomic_ulong received, recv_errors, dropped, batches, wakeups;
};

/* The class of an agent of rx's port (agent IDs are per umad port). */
static int agent_class(const struct madio_rx *rx, int agent)
{
	const struct madio *io = rx->io;
	bool smi = !rx->gsi, gsi = rx->gsi || !io->split;

	if (smi && agent == io->agent_smi)
		return WIRE_CLASS_SMI;
	if (smi && agent == io->agent_dr)
		return WIRE_CLASS_SMI_DR;
	if (gsi && agent == io->agent_sa)
		return WIRE_CLASS_SA;
	if (gsi && agent == io->agent_perf)
		return WIRE_CLASS_PERF;
	return -1;
}

/* Items the thread may fill without the lock; refilled from the pool by batch. */
struct rx_cache {
	struct rx_item *free;
	unsigned n;
};

static struct rx_item *rx_take(struct rx_cache *c)
{
	struct rx_item *it = c->free;

	if (!it)
		return malloc(sizeof(*it));
	c->free = it->next;
	c->n--;
	return it;
}

/*
 * Hand a batch to the loop: one lock, and one eventfd write only when the
 * loop said it was going to sleep (madio_drain takes the queue until it
 * finds it empty, so while it runs, hand-offs need no wake-up).  Refill the
 * thread's cache from the pool under the same lock.
 */
static void rx_flush(struct madio *io, struct rx_item *head, struct rx_item *tail, unsigned n,
		     struct rx_cache *c)
{
	bool dropped = false;

	pthread_mutex_lock(&io->lock);
	if (io->q_len + n > QUEUE_MAX) {
		dropped = true;
	} else {
		if (io->tail)
			io->tail->next = head;
		else
			io->head = head;
		io->tail = tail;
		io->q_len += n;
	}
	while (c->n < RX_CACHE && io->pool) {
		struct rx_item *it = io->pool;
		io->pool = it->next;
		io->pool_len--;
		it->next = c->free;
		c->free = it;
		c->n++;
	}
	pthread_mutex_unlock(&io->lock);
	if (dropped) {
		while (head) {
			struct rx_item *next = head->next;
			free(head);
			head = next;
		}
		atomic_fetch_add(&io->dropped, n);
		return;
	}
	atomic_fetch_add(&io->received, n);
	atomic_fetch_add(&io->batches, 1);
	if (atomic_exchange(&io->asleep, false)) {
		uint64_t one = 1;
		atomic_fetch_add(&io->wakeups, 1);
		if (write(io->efd, &one, sizeof(one)) < 0) {
			/* counter saturated: the loop will drain anyway */
		}
	}
}

static void *madio_thread(void *arg)
{
	struct madio_rx *rx = arg;
	struct madio *io = rx->io;
	size_t usz = umad_size() + WIRE_MAD_SIZE;
	void *umad = calloc(1, usz);
	struct rx_cache cache = {0};
	struct rx_item *head = NULL, *tail = NULL;
	unsigned n = 0;

	if (!umad)
		return NULL;
	while (!atomic_load(&io->stop)) {
		int len = WIRE_MAD_SIZE;
		/* with a batch begun, only take what is already there */
		int agent = umad_recv(rx->portid, umad, &len, n ? 0 : RECV_TIMEOUT_MS);
		if (agent < 0) {
			if (n) {
				rx_flush(io, head, tail, n, &cache);
				head = tail = NULL;
				n = 0;
			}
			if (agent != -ETIMEDOUT && agent != -EINTR && agent != -EAGAIN) {
				atomic_fetch_add(&io->recv_errors, 1);
				usleep(10000);
			}
			continue;
		}
		struct rx_item *it = rx_take(&cache);
		if (!it) {
			atomic_fetch_add(&io->dropped, 1);
			continue;
		}
		it->next = NULL;
		it->mgmt_class = agent_class(rx, agent);
		it->status = umad_status(umad);
		ib_mad_addr_t *a = umad_get_mad_addr(umad);
		it->from.slid = be16toh(a->lid);
		it->from.qpn = be32toh(a->qpn);
		it->from.qkey = be32toh(a->qkey);
		it->from.sl = a->sl;
		it->len = len > WIRE_MAD_SIZE ? WIRE_MAD_SIZE : (len < 0 ? 0 : (size_t)len);
		memcpy(it->mad, umad_get_mad(umad), it->len);
		if (tail)
			tail->next = it;
		else
			head = it;
		tail = it;
		if (++n >= RX_BATCH) {
			rx_flush(io, head, tail, n, &cache);
			head = tail = NULL;
			n = 0;
		}
	}
	if (n)
		rx_flush(io, head, tail, n, &cache);
	while (cache.free) {
		struct rx_item *next = cache.free->next;
		free(cache.free);
		cache.free = next;
	}
	free(umad);
	return NULL;
}

/* Under io->lock: items done with go back to the pool, past its size to *ret_free. */
static void rx_recycle(struct madio *io, struct rx_item *done, struct rx_item *done_tail,
		       unsigned n_done, struct rx_item **ret_free)
{
	if (!done)
		return;
	if (io->pool_len + n_done <= RX_POOL_MAX) {
		done_tail->next = io->pool;
		io->pool = done;
		io->pool_len += n_done;
	} else {
		done_tail->next = *ret_free;
		*ret_free = done;
	}
}

/* Under io->lock: the whole queue. */
static struct rx_item *rx_take_all(struct madio *io)
{
	struct rx_item *list = io->head;

	io->head = io->tail = NULL;
	io->q_len = 0;
	return list;
}

/*
 * The loop's side: take the queue, run the handlers, and take it again
 * until it is empty (one lock per round, the processed items recycled under
 * the same lock), so hand-offs made meanwhile cost no wake-up.  After
 * DRAIN_ROUNDS rounds other events (timers) run first.
 */
static void madio_drain(evutil_socket_t fd, short what, void *arg)
{
	struct madio *io = arg;
	uint64_t n;
	struct rx_item *list, *done = NULL, *done_tail = NULL, *to_free = NULL;
	unsigned n_done = 0, rounds = 0;

	if (read(io->efd, &n, sizeof(n)) < 0) {
		/* spurious wake-up, or a round continued by event_active */
	}
	for (;;) {
		pthread_mutex_lock(&io->lock);
		rx_recycle(io, done, done_tail, n_done, &to_free);
		done = done_tail = NULL;
		n_done = 0;
		list = rounds++ < DRAIN_ROUNDS ? rx_take_all(io) : NULL;
		if (!list && rounds <= DRAIN_ROUNDS) {
			/*
			 * Going to sleep: from now on a hand-off writes the
			 * eventfd.  A batch queued before the store found the
			 * flag clear: look once more after setting it.
			 */
			pthread_mutex_unlock(&io->lock);
			atomic_store(&io->asleep, true);
			pthread_mutex_lock(&io->lock);
			list = rx_take_all(io);
			if (list)
				atomic_store(&io->asleep, false); /* at most one idle wake-up */
		}
		pthread_mutex_unlock(&io->lock);
		while (to_free) {
			struct rx_item *next = to_free->next;
			free(to_free);
			to_free = next;
		}
		if (!list) {
			if (rounds > DRAIN_ROUNDS)
				/* let timers and other events run; come back without a write */
				event_active(io->ev, EV_READ, 0);
			return;
		}
		while (list) {
			struct rx_item *next = list->next;
			io->recv(io->ctx, list->mgmt_class, list->status, &list->from, list->mad,
				 list->len);
			list->next = done;
			done = list;
			if (!done_tail)
				done_tail = list;
			n_done++;
			list = next;
		}
	}
}

static int reg(struct madio *io, int portid, int mgmt_class, bool server, char *err, size_t err_len)
{
	unsigned long methods[16 / sizeof(unsigned long)];
	int agent;

	memset(methods, 0, sizeof(methods));
	if (server) {
		/* Get, Set, Trap, TrapRepress, GetTable, ... : everything but responses */
		for (int m = 1; m < 0x80; m++)
			methods[m / (8 * sizeof(unsigned long))] |=
			    1UL << (m % (8 * sizeof(unsigned long)));
	}
	agent = umad_register(portid, mgmt_class, mgmt_class == WIRE_CLASS_SA ? 2 : 1, 0,
			      server ? (long *)methods : NULL);
	if (agent < 0)
		snprintf(err, err_len, "cannot register MAD class 0x%02x on %s/%d: %s", mgmt_class,
			 portid == io->portid ? io->ca_name : io->gsi_ca_name,
			 portid == io->portid ? io->port_num : io->gsi_port_num, strerror(-agent));
	return agent;
}

static const char *port_state_name(int state)
{
	static const char *const names[] = {"NoChange", "Down", "Initializing", "Armed", "Active"};

	return state >= 0 && state < 5 ? names[state] : "unknown";
}

/*
 * The RDMA devices there are.  libibumad names a default device ("mthca0")
 * when it finds none: only the names it can also read count.
 */
static int madio_cas(char names[][UMAD_CA_NAME_LEN])
{
	int n = umad_get_cas_names(names, UMAD_MAX_DEVICES), m = 0;

	for (int i = 0; i < n; i++) {
		umad_ca_t ca;

		if (umad_get_ca(names[i], &ca) < 0)
			continue;
		umad_release_ca(&ca);
		if (m != i)
			memcpy(names[m], names[i], UMAD_CA_NAME_LEN);
		m++;
	}
	return m;
}

/* "CA/PORT GUID STATE" for every port found, '; '-separated, or "none". */
static void madio_list(char *buf, size_t len)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	size_t used = 0;
	int n = madio_cas(names);

	snprintf(buf, len, "none");
	for (int i = 0; i < n; i++) {
		umad_ca_t ca;

		if (umad_get_ca(names[i], &ca) < 0)
			continue;
		for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
			umad_port_t *port = ca.ports[p];

			if (!port || used + 1 >= len)
				continue;
			used += (size_t)snprintf(buf + used, len - used, "%s%s/%d 0x%016llx %s",
						 used ? "; " : "", names[i], p,
						 (unsigned long long)be64toh(port->port_guid),
						 port_state_name(port->state));
			if (used >= len)
				used = len - 1;
		}
		umad_release_ca(&ca);
	}
}

#ifdef HAVE_UMAD_GET_SMI_GSI_PAIR_BY_CA_NAME
/*
 * Which port to run on: the one with port_guid when it is non-zero, else
 * ca_name/port_num as libibumad picks them (empty/0: the first active).  An
 * error lists every port found.
 */
static int madio_pick(const char *ca_name, int port_num, uint64_t port_guid, char *ret_ca,
		      int *ret_port, char *err, size_t err_len)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN], found[1024];
	int n = madio_cas(names), r;
	umad_port_t port;

	if (port_guid) {
		for (int i = 0; i < n; i++) {
			__be64 guids[UMAD_CA_MAX_PORTS];
			int np = umad_get_ca_portguids(names[i], guids, UMAD_CA_MAX_PORTS);

			for (int p = 1; p < np; p++) {
				if (be64toh(guids[p]) != port_guid)
					continue;
				if ((ca_name && *ca_name && strcmp(ca_name, names[i])) ||
				    (port_num && port_num != p)) {
					snprintf(err, err_len,
						 "port GUID 0x%016llx is %s/%d, not the %s/%d "
						 "also configured",
						 (unsigned long long)port_guid, names[i], p,
						 ca_name && *ca_name ? ca_name : "(any)", port_num);
					return -EINVAL;
				}
				memcpy(ret_ca, names[i], UMAD_CA_NAME_LEN);
				ret_ca[UMAD_CA_NAME_LEN - 1] = '\0';
				*ret_port = p;
				return 0;
			}
		}
		madio_list(found, sizeof(found));
		snprintf(err, err_len, "no port with GUID 0x%016llx; ports found: %s",
			 (unsigned long long)port_guid, found);
		return -ENODEV;
	}
	r = umad_get_port(ca_name && *ca_name ? ca_name : NULL, port_num, &port);
	if (r < 0) {
		madio_list(found, sizeof(found));
		if (ca_name && *ca_name)
			snprintf(err, err_len, "no port %d on RDMA device %s (%s); ports found: %s",
				 port_num, ca_name, strerror(-r), found);
		else if (port_num)
			snprintf(err, err_len,
				 "no port %d on any RDMA device (%s); ports found: %s", port_num,
				 strerror(-r), found);
		else
			snprintf(err, err_len, "no usable InfiniBand port (%s); ports found: %s",
				 strerror(-r), found);
		return r;
	}
	snprintf(ret_ca, UMAD_CA_NAME_LEN, "%s", port.ca_name);
	*ret_port = port.portnum;
	umad_release_port(&port);
	return 0;
}
#endif

/*
 * The SMI and GSI devices of the port to run on (mad/smigsi.h): the one with
 * port_guid when it is non-zero, else ca_name/port_num (either device's
 * name; empty/0: the first active).  libibumad's pairing where it has one
 * (rdma-core 50 and later: a configure check), else the sysfs files it
 * reads.  An error lists the ports found and, with no device at all, names
 * the ib_umad module; notes gets the ports skipped.
 */
static int madio_pair(const char *ca_name, int port_num, uint64_t port_guid,
		      struct smigsi_port *ret, char *err, size_t err_len, char *notes,
		      size_t notes_len)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];

	notes[0] = '\0';
	if (madio_cas(names) <= 0) {
		snprintf(err, err_len,
			 "no RDMA devices found: is the ib_umad kernel module loaded "
			 "(modprobe ib_umad), and /dev/infiniband/umad* readable?");
		return -ENODEV;
	}
#ifdef HAVE_UMAD_GET_SMI_GSI_PAIR_BY_CA_NAME
	{
		struct umad_ca_pair cp;
		char ca[UMAD_CA_NAME_LEN];
		int port, r = madio_pick(ca_name, port_num, port_guid, ca, &port, err, err_len);

		if (r < 0)
			return r;
		memset(&cp, 0, sizeof(cp));
		r = umad_get_smi_gsi_pair_by_ca_name(ca, (uint8_t)port, &cp, 1);
		if (r < 0 || !cp.smi_name[0]) {
			snprintf(err, err_len,
				 "%s/%d: no SMI device pairs with it (its SMI disabled, no other "
				 "device shows its port GUID)",
				 ca, port);
			return -ENODEV;
		}
		memset(ret, 0, sizeof(*ret));
		snprintf(ret->smi_ca, sizeof(ret->smi_ca), "%s", cp.smi_name);
		snprintf(ret->gsi_ca, sizeof(ret->gsi_ca), "%s", cp.gsi_name);
		ret->smi_port = (int)cp.smi_preferred_port;
		ret->gsi_port = (int)cp.gsi_preferred_port;
		ret->split = strcmp(cp.smi_name, cp.gsi_name) != 0;
		return 0;
	}
#else
	return smigsi_find("/sys", ca_name, port_num, port_guid, ret, err, err_len, notes,
			   notes_len);
#endif
}

int madio_check_port(const char *ca_name, int port_num, uint64_t port_guid, char *why,
		     size_t why_len)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN], found[1024];
	bool ca_seen = !(ca_name && *ca_name), port_seen = !port_num, guid_seen = !port_guid;
	int n;

	if (umad_init() < 0 || (n = madio_cas(names)) <= 0)
		return 1;
	for (int i = 0; i < n; i++) {
		bool this_ca = !(ca_name && *ca_name) || !strcmp(ca_name, names[i]);
		umad_ca_t ca;

		if (!this_ca || umad_get_ca(names[i], &ca) < 0)
			continue;
		ca_seen = true;
		for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
			if (!ca.ports[p] || (port_num && port_num != p))
				continue;
			port_seen = true;
			if (port_guid && be64toh(ca.ports[p]->port_guid) == port_guid)
				guid_seen = true;
		}
		umad_release_ca(&ca);
	}
	if (ca_seen && port_seen && guid_seen)
		return 0;
	madio_list(found, sizeof(found));
	if (!ca_seen)
		snprintf(why, why_len, "no RDMA device '%s'; ports found: %s", ca_name, found);
	else if (!port_seen)
		snprintf(why, why_len, "no port %d on %s; ports found: %s", port_num,
			 ca_name && *ca_name ? ca_name : "any RDMA device", found);
	else
		snprintf(why, why_len, "no port with GUID 0x%016llx%s%s; ports found: %s",
			 (unsigned long long)port_guid, ca_name && *ca_name ? " on " : "",
			 ca_name && *ca_name ? ca_name : "", found);
	return -ENODEV;
}

/*
 * Stop the receivers and free.  close_ports: close the umad ports too.  Once
 * SMPs are out their responses keep coming after we stop reading, and a MAD
 * for an agent unregistered meanwhile kills the process in umad2sim's
 * receiver thread (it locks the queue of the class's agent, which is gone:
 * seen at SIGTERM during a heavy sweep of 11k nodes).  So the daemon leaves
 * the ports to the process exit, which closes them as the kernel does for
 * any umad file; the IsSM capability (issm_fd) is given up here all the same.
 */
static void madio_free(struct madio *io, bool close_ports)
{
	if (!io)
		return;
	atomic_store(&io->stop, true);
	for (int i = 0; i < 2; i++)
		if (io->rx[i].started)
			pthread_join(io->rx[i].thread, NULL);
	if (io->ev)
		event_free(io->ev);
	if (io->efd >= 0)
		close(io->efd);
	if (io->issm_fd >= 0)
		close(io->issm_fd);
	if (close_ports && io->portid >= 0)
		umad_close_port(io->portid);
	if (close_ports && io->gsi_portid >= 0)
		umad_close_port(io->gsi_portid);
	while (io->head) {
		struct rx_item *n = io->head->next;
		free(io->head);
		io->head = n;
	}
	while (io->pool) {
		struct rx_item *n = io->pool->next;
		free(io->pool);
		io->pool = n;
	}
	pthread_mutex_destroy(&io->lock);
	free(io);
}

int madio_open(struct event_base *base, const char *ca_name, int port_num, uint64_t port_guid,
	       madio_recv_fn recv, void *ctx, struct madio **ret, char *err, size_t err_len)
{
	struct madio *io;
	struct smigsi_port pair;
	char path[256];
	int r, gsi;

	if (umad_init() < 0) {
		snprintf(err, err_len,
			 "umad_init failed: is ib_umad loaded (or umad2sim preloaded)?");
		return -ENODEV;
	}
	io = calloc(1, sizeof(*io));
	if (!io)
		return -ENOMEM;
	io->base = base;
	io->recv = recv;
	io->ctx = ctx;
	io->issm_fd = -1;
	io->efd = -1;
	io->portid = -1;
	io->gsi_portid = -1;
	atomic_init(&io->asleep, true);
	pthread_mutex_init(&io->lock, NULL);

	r = madio_pair(ca_name, port_num, port_guid, &pair, err, err_len, io->notes,
		       sizeof(io->notes));
	if (r < 0)
		goto fail;
	if ((size_t)snprintf(io->ca_name, sizeof(io->ca_name), "%s", pair.smi_ca) >=
		sizeof(io->ca_name) ||
	    (size_t)snprintf(io->gsi_ca_name, sizeof(io->gsi_ca_name), "%s", pair.gsi_ca) >=
		sizeof(io->gsi_ca_name)) {
		snprintf(err, err_len, "RDMA device name %s or %s too long", pair.smi_ca,
			 pair.gsi_ca);
		r = -ENAMETOOLONG;
		goto fail;
	}
	io->port_num = pair.smi_port;
	io->gsi_port_num = pair.gsi_port;
	io->split = pair.split;

#ifdef HAVE_UMAD_OPEN_SMI_PORT
	io->portid = umad_open_smi_port(io->ca_name, io->port_num);
#else
	io->portid = umad_open_port(io->ca_name, io->port_num);
#endif
	if (io->portid < 0) {
		r = io->portid;
		snprintf(err, err_len, "cannot open %s/%d: %s", io->ca_name, io->port_num,
			 strerror(-r));
		goto fail;
	}
	if (io->split) {
		io->gsi_portid = umad_open_port(io->gsi_ca_name, io->gsi_port_num);
		if (io->gsi_portid < 0) {
			r = io->gsi_portid;
			snprintf(err, err_len, "cannot open the GSI device %s/%d of %s/%d: %s",
				 io->gsi_ca_name, io->gsi_port_num, io->ca_name, io->port_num,
				 strerror(-r));
			goto fail;
		}
	}
	gsi = io->split ? io->gsi_portid : io->portid;
	/* DR first: the SM's own traffic; then LID-routed SMI (traps, SMInfo),
	 * SA and PerfMgt as servers so any MAD that arrives has an agent. */
	if ((r = io->agent_dr = reg(io, io->portid, WIRE_CLASS_SMI_DR, true, err, err_len)) < 0 ||
	    (r = io->agent_smi = reg(io, io->portid, WIRE_CLASS_SMI, true, err, err_len)) < 0 ||
	    (r = io->agent_sa = reg(io, gsi, WIRE_CLASS_SA, true, err, err_len)) < 0 ||
	    (r = io->agent_perf = reg(io, gsi, WIRE_CLASS_PERF, true, err, err_len)) < 0)
		goto fail;
	r = umad_get_issm_path(io->ca_name, io->port_num, path, sizeof(path));
	if (r < 0 || (io->issm_fd = open(path, O_RDWR)) < 0) {
		r = r < 0 ? r : -errno;
		snprintf(err, err_len, "cannot set IsSM on %s/%d (%s): %s", io->ca_name,
			 io->port_num, path, strerror(-r));
		goto fail;
	}
	io->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (io->efd < 0) {
		r = -errno;
		snprintf(err, err_len, "eventfd: %s", strerror(errno));
		goto fail;
	}
	io->ev = event_new(base, io->efd, EV_READ | EV_PERSIST, madio_drain, io);
	if (!io->ev || event_add(io->ev, NULL) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < (io->split ? 2 : 1); i++) {
		struct madio_rx *rx = &io->rx[i];

		*rx = (struct madio_rx){io, i ? io->gsi_portid : io->portid, i == 1, 0, false};
		r = -pthread_create(&rx->thread, NULL, madio_thread, rx);
		if (r < 0) {
			snprintf(err, err_len, "cannot start the MAD receiver: %s", strerror(-r));
			goto fail;
		}
		rx->started = true;
	}
	*ret = io;
	return 0;
fail:
	madio_free(io, true); /* nothing was sent: nothing can still come */
	return r < 0 ? r : -EIO;
}

void madio_close(struct madio *io)
{
	madio_free(io, false);
}

static int do_send(struct madio *io, int portid, int agent, const uint8_t *mad, size_t len,
		   const struct madio_dest *to, unsigned timeout_ms)
{
	uint8_t umad[512];
	size_t usz = umad_size();
	int r;

	if (len > WIRE_MAD_SIZE || usz + len > sizeof(umad))
		return -EINVAL;
	/* all of it: umad2sim reads past the MAD length */
	memset(umad, 0, sizeof(umad));
	memcpy(umad_get_mad(umad), mad, len);
	if (to->qpn == 0)
		umad_set_addr(umad, to->dlid ? to->dlid : WIRE_PERMISSIVE_LID, 0, to->sl, 0);
	else
		umad_set_addr(umad, to->dlid, to->qpn, to->sl,
			      to->qkey ? to->qkey : MADIO_GSI_QKEY);
	r = umad_send(portid, agent, umad, len, timeout_ms, 0);
	if (r < 0) {
		io->st.send_errors++;
		return r;
	}
	io->st.sent++;
	/* LID-routed SMPs (dr_only counts on these): requests, and answers to such */
	if (mad[1] == WIRE_CLASS_SMI) {
		if (mad[3] & WIRE_METHOD_RESP)
			io->st.smp_lid_replies++;
		else
			io->st.smp_lid_requests++;
	}
	return 0;
}

/* The agent of a class, and the umad port it is on. */
static int class_agent(struct madio *io, int mgmt_class, int *ret_portid)
{
	*ret_portid = io->split && (mgmt_class == WIRE_CLASS_SA || mgmt_class == WIRE_CLASS_PERF)
			  ? io->gsi_portid
			  : io->portid;
	switch (mgmt_class) {
	case WIRE_CLASS_SMI:
		return io->agent_smi;
	case WIRE_CLASS_SMI_DR:
		return io->agent_dr;
	case WIRE_CLASS_SA:
		return io->agent_sa;
	case WIRE_CLASS_PERF:
		return io->agent_perf;
	default:
		return -1;
	}
}

int madio_send(struct madio *io, const struct madio_dest *to, const uint8_t *mad, size_t len,
	       unsigned timeout_ms)
{
	struct wire_mad_hdr h;
	bool smp;
	int agent, portid;

	if (!to || wire_mad_hdr_decode(mad, len, &h) < 0)
		return -EINVAL;
	agent = class_agent(io, h.mgmt_class, &portid);
	smp = h.mgmt_class == WIRE_CLASS_SMI || h.mgmt_class == WIRE_CLASS_SMI_DR;
	if (agent < 0 || to->dlid == 0 || smp != (to->qpn == 0))
		return -EINVAL;
	return do_send(io, portid, agent, mad, len, to, timeout_ms);
}

int madio_send_lid(struct madio *io, int mgmt_class, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t qp, unsigned timeout_ms)
{
	struct madio_dest to = {dlid, qp, MADIO_GSI_QKEY, 0};
	int portid, agent = class_agent(io, mgmt_class, &portid);

	if (agent < 0 || len < WIRE_MAD_HDR_SIZE)
		return -EINVAL;
	return do_send(io, portid, agent, mad, len, &to, timeout_ms);
}

int madio_reassert_issm(struct madio *io)
{
	char path[256];
	int fd, r;

	r = umad_get_issm_path(io->ca_name, io->port_num, path, sizeof(path));
	if (r < 0)
		return r;
	if (io->issm_fd >= 0)
		close(io->issm_fd);
	io->issm_fd = -1;
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	io->issm_fd = fd;
	return 0;
}

int madio_port_info(struct madio *io, struct madio_port_info *ret)
{
	umad_port_t port;
	int r = umad_get_port(io->ca_name, io->port_num, &port);

	if (r < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->ca_name, sizeof(ret->ca_name), "%s", port.ca_name);
	ret->port_num = port.portnum;
	ret->port_guid = be64toh(port.port_guid);
	ret->lid = port.base_lid;
	ret->sm_lid = port.sm_lid;
	ret->state = port.state;
	umad_release_port(&port);
	snprintf(ret->gsi_ca_name, sizeof(ret->gsi_ca_name), "%s", io->gsi_ca_name);
	ret->gsi_port_num = io->gsi_port_num;
	ret->split = io->split;
	return 0;
}

const char *madio_notes(const struct madio *io)
{
	return io->notes;
}

void madio_get_stats(struct madio *io, struct madio_stats *ret)
{
	*ret = io->st;
	ret->received = atomic_load(&io->received);
	ret->recv_errors = atomic_load(&io->recv_errors);
	ret->dropped = atomic_load(&io->dropped);
	ret->batches = atomic_load(&io->batches);
	ret->wakeups = atomic_load(&io->wakeups);
}

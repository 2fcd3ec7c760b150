/*
 * The MAD port: libibumad open/register/IsSM, a receiver thread, and the
 * hand-off of received MADs to the event loop.
 *
 * The umad descriptor never joins the loop's poll set: under ibsim's umad2sim
 * it is a fake descriptor that epoll rejects and whose poll wrapper ignores
 * every other fd.  One thread blocks in umad_recv (short timeout so it can be
 * stopped) and queues what it reads; an eventfd wakes the loop, which drains
 * the queue and calls the owner's callback.  Sending happens on the loop.
 */
#ifndef IBSMD_MADIO_H
#define IBSMD_MADIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <event2/event.h>

struct madio;

struct madio_port_info {
	char ca_name[32]; /* the SMI's device and port */
	int port_num;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	int state;
	char gsi_ca_name[32]; /* the GSI's: the same unless split */
	int gsi_port_num;
	bool split; /* SMI and GSI are separate devices (mad/smigsi.h) */
};

/* Where a received MAD came from (for replies). */
struct madio_addr {
	uint16_t slid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
};

#define MADIO_GSI_QKEY 0x80010000u /* the well-known Q_Key of QP1 */

/*
 * Where a MAD goes.  Directed-route SMPs: the permissive DLID 0xffff, QP0;
 * LID-routed SMPs: the port's DLID, QP0; GSI MADs (any other class): DLID,
 * the remote QPN (QP1 for a port's class agents), Q_Key (0 means
 * MADIO_GSI_QKEY) and SL.
 */
struct madio_dest {
	uint16_t dlid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
};

/*
 * A received MAD: agent is the class it arrived on (0x01, 0x81, 0x03, 0x04);
 * status is umad's (0, or ETIMEDOUT etc. for a send that failed, in which case
 * buf is the request that was sent).
 */
typedef void (*madio_recv_fn)(void *ctx, int mgmt_class, int status, const struct madio_addr *from,
			      const uint8_t *buf, size_t len);

/*
 * Open the port with port_guid (0: by name) or ca_name/port_num (NULL/0:
 * first usable; an error lists the ports found), register the agents (SMI and
 * directed SMI with Get/Set/Trap methods, SA and PerfMgt so nothing arriving
 * can crash umad2sim), set IsSM, start the receiver.  0 or -errno with err.
 * A port whose SMI and GSI are separate devices (mad/smigsi.h; either
 * device's name or the GUID names it) is opened on both: the SMI agents and
 * IsSM on the SMI device, SA and PerfMgt on the GSI device.
 */
int madio_open(struct event_base *base, const char *ca_name, int port_num, uint64_t port_guid,
	       madio_recv_fn recv, void *ctx, struct madio **ret, char *err, size_t err_len);
/*
 * Whether the ports named exist (ca_name, port_num, port_guid as for
 * madio_open; ""/0 = any): 0, 1 when it cannot tell (no RDMA devices at all,
 * as on a host that only checks configurations), or -ENODEV with why listing
 * the ports found.  Opens nothing.
 */
int madio_check_port(const char *ca_name, int port_num, uint64_t port_guid, char *why,
		     size_t why_len);
/*
 * Stop the receivers, give up IsSM, free.  NULL ok.  The umad ports stay
 * open until the process exits (responses to SMPs still out must find their
 * agents: see madio_free): call it once, on the way out.
 */
void madio_close(struct madio *io);

/*
 * Send one MAD request on the agent of its class (read from the MAD) to `to`.
 * -EINVAL when the MAD has no header, its class has no agent, or `to` does not
 * fit the class (SMPs go to QP0, GSI MADs to a non-zero QPN, DLID non-zero);
 * else 0 or umad's -errno.
 */
int madio_send(struct madio *io, const struct madio_dest *to, const uint8_t *mad, size_t len,
	       unsigned timeout_ms);
/*
 * Send a reply (or a trap repress) on the agent of mgmt_class to LID dlid
 * (0: permissive), QP qp (0 for SMPs; else with MADIO_GSI_QKEY).  0 or -errno.
 */
int madio_send_lid(struct madio *io, int mgmt_class, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t qp, unsigned timeout_ms);

/*
 * Set IsSM again (close and reopen the issm device): ibsim clears the bit
 * when it relinks the port while the SM still holds it.  0 or -errno (IsSM
 * may then be clear).
 */
int madio_reassert_issm(struct madio *io);

/* Re-read the local port (LID, state) through sysfs/umad. */
int madio_port_info(struct madio *io, struct madio_port_info *ret);
/*
 * The ports left aside when the port was chosen ("mlx5_1/1: link layer
 * Ethernet, not InfiniBand; ..."), "" for none: for the caller to log.
 */
const char *madio_notes(const struct madio *io);

struct madio_stats {
	uint64_t sent, send_errors, received, recv_errors, dropped;
	uint64_t smp_lid_requests; /* LID-routed SMPs sent, answers excluded (dr_only: 0) */
	uint64_t smp_lid_replies;  /* answers to LID-routed requests (they go as they came) */
	uint64_t batches; /* hand-offs from the receiver thread (received / batches = batch size) */
	uint64_t wakeups; /* eventfd writes: hand-offs that found the loop asleep */
};
void madio_get_stats(struct madio *io, struct madio_stats *ret);

#endif

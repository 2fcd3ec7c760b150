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

#include <stdint.h>
#include <stddef.h>
#include <event2/event.h>

struct madio;

struct madio_port_info {
	char ca_name[32];
	int port_num;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	int state;
};

/* Where a received MAD came from (for replies). */
struct madio_addr {
	uint16_t slid;
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
 * Open ca_name/port_num (NULL/0: first usable), register the agents (SMI and
 * directed SMI with Get/Set/Trap methods, SA and PerfMgt so nothing arriving
 * can crash umad2sim), set IsSM, start the receiver.  0 or -errno with err.
 */
int madio_open(struct event_base *base, const char *ca_name, int port_num, madio_recv_fn recv,
	       void *ctx, struct madio **ret, char *err, size_t err_len);
/* Stop the receiver, close the port, free.  NULL ok. */
void madio_close(struct madio *io);

/* Send one MAD on the agent of its class.  LID-routed SMPs need dlid. 0 or -errno. */
int madio_send(struct madio *io, const uint8_t *mad, size_t len, unsigned timeout_ms);
int madio_send_lid(struct madio *io, int mgmt_class, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t qp, unsigned timeout_ms);

/* Re-read the local port (LID, state) through sysfs/umad. */
int madio_port_info(struct madio *io, struct madio_port_info *ret);

struct madio_stats {
	uint64_t sent, send_errors, received, recv_errors, dropped;
};
void madio_get_stats(struct madio *io, struct madio_stats *ret);

#endif

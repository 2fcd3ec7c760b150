/*
 * The Performance Management codec (IBA 1.4 vol 1, 16.1): the PerfMgt MAD
 * (class 0x04: the common header, 40 reserved bytes, 192 bytes of attribute
 * data at WIRE_PERF_DATA_OFFSET), PortCounters (16.1.3.5) and
 * PortCountersExtended (16.1.4.11) between wire bytes and host-order structs.
 *
 * Bit layouts come from libibmad's field tables (IB_PC_*, IB_PC_EXT_*);
 * nothing here casts a struct over a buffer.  Decoders check the length
 * first and return -EBADMSG on anything short; encoders -ENOSPC.  No logging.
 */
#ifndef IBSMD_PERF_WIRE_H
#define IBSMD_PERF_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_PERF_DATA_OFFSET 64 /* = libibmad's IB_PC_DATA_OFFS */
#define WIRE_PERF_DATA_SIZE 192
#define WIRE_PERF_PC_SIZE 44  /* PortCounters: through PortXmitWait */
#define WIRE_PERF_PCX_SIZE 72 /* PortCountersExtended: through PortMulticastRcvPkts */
#define WIRE_PERF_ALL_PORTS 0xFF

enum wire_perf_attr {
	WIRE_ATTR_PERF_CLASS_PORT_INFO = 0x0001,
	WIRE_ATTR_PERF_PC = 0x0012,  /* PortCounters */
	WIRE_ATTR_PERF_PCX = 0x001D, /* PortCountersExtended */
};

/* PortCounters, each counter as wide as on the wire (see the field comments). */
struct wire_port_counters {
	uint8_t port_select;
	uint16_t counter_select;
	uint16_t symbol_errors;		  /* 16 bits */
	uint8_t link_error_recovery;	  /* 8 */
	uint8_t link_downed;		  /* 8 */
	uint16_t rcv_errors;		  /* 16 */
	uint16_t rcv_remote_phys_errors;  /* 16 */
	uint16_t rcv_switch_relay_errors; /* 16 */
	uint16_t xmit_discards;		  /* 16 */
	uint8_t xmit_constraint_errors;	  /* 8 */
	uint8_t rcv_constraint_errors;	  /* 8 */
	uint8_t counter_select2;
	uint8_t local_link_integrity_errors; /* 4 */
	uint8_t excessive_buffer_overrun;    /* 4 */
	uint16_t vl15_dropped;		     /* 16 */
	uint32_t xmit_data;		     /* 32, in units of 4 octets */
	uint32_t rcv_data;		     /* 32, in units of 4 octets */
	uint32_t xmit_pkts;		     /* 32 */
	uint32_t rcv_pkts;		     /* 32 */
	uint32_t xmit_wait;		     /* 32 */
};

/* PortCountersExtended: 64-bit counters. */
struct wire_port_counters_ext {
	uint8_t port_select;
	uint16_t counter_select;
	uint64_t xmit_data; /* units of 4 octets */
	uint64_t rcv_data;
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t unicast_xmit_pkts;
	uint64_t unicast_rcv_pkts;
	uint64_t multicast_xmit_pkts;
	uint64_t multicast_rcv_pkts;
};

/*
 * A whole PerfMgt request into mad (len >= WIRE_MAD_SIZE): base version 1,
 * class 0x04 version 1, method, attr_id, attribute modifier 0, TID 0 (the
 * transaction engine sets it), and PortSelect/CounterSelect in the data
 * (the two lead every PerfMgt port attribute).  Returns WIRE_MAD_SIZE or
 * -ENOSPC.
 */
int wire_perf_request(uint8_t *mad, size_t len, uint8_t method, uint16_t attr_id,
		      uint8_t port_select, uint16_t counter_select);

/* data is the attribute data (mad + WIRE_PERF_DATA_OFFSET). */
int wire_port_counters_decode(const uint8_t *data, size_t len, struct wire_port_counters *ret);
int wire_port_counters_encode(const struct wire_port_counters *pc, uint8_t *data, size_t len);
int wire_port_counters_ext_decode(const uint8_t *data, size_t len,
				  struct wire_port_counters_ext *ret);
int wire_port_counters_ext_encode(const struct wire_port_counters_ext *pc, uint8_t *data,
				  size_t len);

#endif

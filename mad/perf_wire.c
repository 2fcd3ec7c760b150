/*
 * PerfMgt codec (see perf_wire.h).  IBA 1.4 vol 1, 16.1.1 (the PerfMgt MAD),
 * 16.1.3.5 (PortCounters, table 247), 16.1.4.11 (PortCountersExtended).
 * Every field goes through libibmad's field tables; this file owns the
 * length checks and the host-order structs.
 */
#include <errno.h>
#include <string.h>
#include <infiniband/mad.h>

#include "mad/perf_wire.h"
#include "mad/wire.h"

static uint32_t perf_get(const uint8_t *d, enum MAD_FIELDS f)
{
	return mad_get_field((void *)d, 0, f);
}

static uint64_t perf_get64(const uint8_t *d, enum MAD_FIELDS f)
{
	return mad_get_field64((void *)d, 0, f);
}

int wire_perf_request(uint8_t *mad, size_t len, uint8_t method, uint16_t attr_id,
		      uint8_t port_select, uint16_t counter_select)
{
	if (!mad || len < WIRE_MAD_SIZE)
		return -ENOSPC;
	memset(mad, 0, WIRE_MAD_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, WIRE_CLASS_PERF);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method & 0x7f);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr_id);
	mad_set_field(mad + WIRE_PERF_DATA_OFFSET, 0, IB_PC_PORT_SELECT_F, port_select);
	mad_set_field(mad + WIRE_PERF_DATA_OFFSET, 0, IB_PC_COUNTER_SELECT_F, counter_select);
	return WIRE_MAD_SIZE;
}

int wire_port_counters_decode(const uint8_t *d, size_t len, struct wire_port_counters *ret)
{
	struct wire_port_counters pc;

	if (!d || len < WIRE_PERF_PC_SIZE)
		return -EBADMSG;
	memset(&pc, 0, sizeof(pc)); /* padding too: callers may memcmp */
	pc.port_select = (uint8_t)perf_get(d, IB_PC_PORT_SELECT_F);
	pc.counter_select = (uint16_t)perf_get(d, IB_PC_COUNTER_SELECT_F);
	pc.symbol_errors = (uint16_t)perf_get(d, IB_PC_ERR_SYM_F);
	pc.link_error_recovery = (uint8_t)perf_get(d, IB_PC_LINK_RECOVERS_F);
	pc.link_downed = (uint8_t)perf_get(d, IB_PC_LINK_DOWNED_F);
	pc.rcv_errors = (uint16_t)perf_get(d, IB_PC_ERR_RCV_F);
	pc.rcv_remote_phys_errors = (uint16_t)perf_get(d, IB_PC_ERR_PHYSRCV_F);
	pc.rcv_switch_relay_errors = (uint16_t)perf_get(d, IB_PC_ERR_SWITCH_REL_F);
	pc.xmit_discards = (uint16_t)perf_get(d, IB_PC_XMT_DISCARDS_F);
	pc.xmit_constraint_errors = (uint8_t)perf_get(d, IB_PC_ERR_XMTCONSTR_F);
	pc.rcv_constraint_errors = (uint8_t)perf_get(d, IB_PC_ERR_RCVCONSTR_F);
	pc.counter_select2 = (uint8_t)perf_get(d, IB_PC_COUNTER_SELECT2_F);
	pc.local_link_integrity_errors = (uint8_t)perf_get(d, IB_PC_ERR_LOCALINTEG_F);
	pc.excessive_buffer_overrun = (uint8_t)perf_get(d, IB_PC_ERR_EXCESS_OVR_F);
	pc.vl15_dropped = (uint16_t)perf_get(d, IB_PC_VL15_DROPPED_F);
	pc.xmit_data = perf_get(d, IB_PC_XMT_BYTES_F);
	pc.rcv_data = perf_get(d, IB_PC_RCV_BYTES_F);
	pc.xmit_pkts = perf_get(d, IB_PC_XMT_PKTS_F);
	pc.rcv_pkts = perf_get(d, IB_PC_RCV_PKTS_F);
	pc.xmit_wait = perf_get(d, IB_PC_XMT_WAIT_F);
	*ret = pc;
	return 0;
}

int wire_port_counters_encode(const struct wire_port_counters *pc, uint8_t *d, size_t len)
{
	if (!d || len < WIRE_PERF_PC_SIZE)
		return -ENOSPC;
	if (pc->local_link_integrity_errors > 15 || pc->excessive_buffer_overrun > 15)
		return -EINVAL;
	mad_set_field(d, 0, IB_PC_PORT_SELECT_F, pc->port_select);
	mad_set_field(d, 0, IB_PC_COUNTER_SELECT_F, pc->counter_select);
	mad_set_field(d, 0, IB_PC_ERR_SYM_F, pc->symbol_errors);
	mad_set_field(d, 0, IB_PC_LINK_RECOVERS_F, pc->link_error_recovery);
	mad_set_field(d, 0, IB_PC_LINK_DOWNED_F, pc->link_downed);
	mad_set_field(d, 0, IB_PC_ERR_RCV_F, pc->rcv_errors);
	mad_set_field(d, 0, IB_PC_ERR_PHYSRCV_F, pc->rcv_remote_phys_errors);
	mad_set_field(d, 0, IB_PC_ERR_SWITCH_REL_F, pc->rcv_switch_relay_errors);
	mad_set_field(d, 0, IB_PC_XMT_DISCARDS_F, pc->xmit_discards);
	mad_set_field(d, 0, IB_PC_ERR_XMTCONSTR_F, pc->xmit_constraint_errors);
	mad_set_field(d, 0, IB_PC_ERR_RCVCONSTR_F, pc->rcv_constraint_errors);
	mad_set_field(d, 0, IB_PC_COUNTER_SELECT2_F, pc->counter_select2);
	mad_set_field(d, 0, IB_PC_ERR_LOCALINTEG_F, pc->local_link_integrity_errors);
	mad_set_field(d, 0, IB_PC_ERR_EXCESS_OVR_F, pc->excessive_buffer_overrun);
	mad_set_field(d, 0, IB_PC_VL15_DROPPED_F, pc->vl15_dropped);
	mad_set_field(d, 0, IB_PC_XMT_BYTES_F, pc->xmit_data);
	mad_set_field(d, 0, IB_PC_RCV_BYTES_F, pc->rcv_data);
	mad_set_field(d, 0, IB_PC_XMT_PKTS_F, pc->xmit_pkts);
	mad_set_field(d, 0, IB_PC_RCV_PKTS_F, pc->rcv_pkts);
	mad_set_field(d, 0, IB_PC_XMT_WAIT_F, pc->xmit_wait);
	return 0;
}

int wire_port_counters_ext_decode(const uint8_t *d, size_t len, struct wire_port_counters_ext *ret)
{
	struct wire_port_counters_ext pc;

	if (!d || len < WIRE_PERF_PCX_SIZE)
		return -EBADMSG;
	memset(&pc, 0, sizeof(pc));
	pc.port_select = (uint8_t)perf_get(d, IB_PC_EXT_PORT_SELECT_F);
	pc.counter_select = (uint16_t)perf_get(d, IB_PC_EXT_COUNTER_SELECT_F);
	pc.xmit_data = perf_get64(d, IB_PC_EXT_XMT_BYTES_F);
	pc.rcv_data = perf_get64(d, IB_PC_EXT_RCV_BYTES_F);
	pc.xmit_pkts = perf_get64(d, IB_PC_EXT_XMT_PKTS_F);
	pc.rcv_pkts = perf_get64(d, IB_PC_EXT_RCV_PKTS_F);
	pc.unicast_xmit_pkts = perf_get64(d, IB_PC_EXT_XMT_UPKTS_F);
	pc.unicast_rcv_pkts = perf_get64(d, IB_PC_EXT_RCV_UPKTS_F);
	pc.multicast_xmit_pkts = perf_get64(d, IB_PC_EXT_XMT_MPKTS_F);
	pc.multicast_rcv_pkts = perf_get64(d, IB_PC_EXT_RCV_MPKTS_F);
	*ret = pc;
	return 0;
}

int wire_port_counters_ext_encode(const struct wire_port_counters_ext *pc, uint8_t *d, size_t len)
{
	if (!d || len < WIRE_PERF_PCX_SIZE)
		return -ENOSPC;
	mad_set_field(d, 0, IB_PC_EXT_PORT_SELECT_F, pc->port_select);
	mad_set_field(d, 0, IB_PC_EXT_COUNTER_SELECT_F, pc->counter_select);
	mad_set_field64(d, 0, IB_PC_EXT_XMT_BYTES_F, pc->xmit_data);
	mad_set_field64(d, 0, IB_PC_EXT_RCV_BYTES_F, pc->rcv_data);
	mad_set_field64(d, 0, IB_PC_EXT_XMT_PKTS_F, pc->xmit_pkts);
	mad_set_field64(d, 0, IB_PC_EXT_RCV_PKTS_F, pc->rcv_pkts);
	mad_set_field64(d, 0, IB_PC_EXT_XMT_UPKTS_F, pc->unicast_xmit_pkts);
	mad_set_field64(d, 0, IB_PC_EXT_RCV_UPKTS_F, pc->unicast_rcv_pkts);
	mad_set_field64(d, 0, IB_PC_EXT_XMT_MPKTS_F, pc->multicast_xmit_pkts);
	mad_set_field64(d, 0, IB_PC_EXT_RCV_MPKTS_F, pc->multicast_rcv_pkts);
	return 0;
}

/*
 * Which RDMA devices carry an InfiniBand port's SMI (QP0, the SMPs) and GSI
 * (QP1: SA, PerfMgt).  A classic HCA serves both on one device.  On
 * ConnectX-8 with Linux 6.11 and later they are two devices ("smi0" beside
 * "mlx5_0"): both show the same port, with the same port GUID, and the GSI
 * device's CapabilityMask says IsSMDisabled.  rdma-core pairs them so
 * (umad_get_smi_gsi_pairs, libibumad 50+; its diag tools since January
 * 2025, which call such a port planarized); this reads the same sysfs
 * files, under a root that is "/sys" for the daemon and a temporary tree
 * for the tests (tests/test_smigsi.c):
 *
 *	ROOT/class/infiniband/DEV/node_type		"1: CA", "2: SWITCH"
 *	ROOT/class/infiniband/DEV/ports/N/cap_mask	"0x2651e84a"
 *	ROOT/class/infiniband/DEV/ports/N/gids/0	the port GID (its GUID: the low 64 bits)
 *	ROOT/class/infiniband/DEV/ports/N/link_layer	"InfiniBand", "Ethernet" (none: IB)
 *	ROOT/class/infiniband/DEV/ports/N/state		"4: ACTIVE"
 *	ROOT/class/infiniband/DEV/ports/N/phys_state	"5: LinkUp"
 *
 * Files are read with open/read and directories with opendir (what
 * umad2sim redirects to its own tree).  No logging: ports skipped (an
 * Ethernet port, a GSI device no SMI device pairs with) come back as notes
 * for the caller to log.
 */
#ifndef IBSMD_SMIGSI_H
#define IBSMD_SMIGSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMIGSI_NAME_MAX 64
#define SMIGSI_MAX_PORTS 64 /* InfiniBand ports of a host looked at, at most */

/* One InfiniBand port: the device and port number of its SMI and of its GSI. */
struct smigsi_port {
	char smi_ca[SMIGSI_NAME_MAX];
	int smi_port;
	char gsi_ca[SMIGSI_NAME_MAX];
	int gsi_port;
	uint64_t port_guid;
	int state;	/* PortState (4 ACTIVE) of the SMI port */
	int phys_state; /* PortPhysicalState (5 LinkUp, 3 Disabled) */
	bool split;	/* two devices */
};

/*
 * Every InfiniBand port under root, in device name then port order, paired
 * by port GUID: the device whose port is not IsSMDisabled is the SMI, the
 * one that is the GSI (the same device when alone).  Up to max into ret;
 * the number found, or -ENOENT when root has no RDMA devices at all.
 * Ethernet ports and GSI ports with no SMI are left out, a line each in
 * notes ("mlx5_1/1: Ethernet (RoCE), not InfiniBand"; "; "-separated).
 */
int smigsi_scan(const char *root, struct smigsi_port *ret, size_t max, char *notes,
		size_t notes_len);

/*
 * The port to run on: the one with port_guid when it is not 0, else the one
 * on device ca_name (the SMI's or the GSI's name; "" any) and port_num (0
 * any): the first ACTIVE, else the first LinkUp, else the first not
 * disabled, as libibumad picks.  0 and *ret; -ENODEV with why (the ports
 * found listed; a GSI device named whose SMI device is missing said so).
 * notes as smigsi_scan.
 */
int smigsi_find(const char *root, const char *ca_name, int port_num, uint64_t port_guid,
		struct smigsi_port *ret, char *why, size_t why_len, char *notes, size_t notes_len);

#endif

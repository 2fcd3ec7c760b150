/*
 * Topology generator for tests, benchmarks and ibsim: writes fabrics in
 * ibsim's net format (ibnetdiscover's), which topo_parse() reads too.
 *
 * Every record carries a switchguid=/caguid= line, so GUIDs are stable
 * whatever the order of the records.  The first record is always a host CA
 * (ibsim and umad2sim attach the SM there by default).  Names: "ca-N" for
 * hosts, "sw-L1-N" (leaves), "sw-L2-N", "sw-L3-N" for fat tree levels,
 * "sw-X-Y" for meshes and tori, "sw-N" for random graphs.
 *
 * All functions return a malloc'd NUL-terminated text the caller frees, or
 * NULL with errno set (EINVAL for impossible parameters, ENOMEM).
 */
#ifndef IBSMD_TOPOGEN_H
#define IBSMD_TOPOGEN_H

#define TOPOGEN_PARALLEL (1u << 0)  /* double every switch-switch link */
#define TOPOGEN_DUAL (1u << 1)	    /* 2-port CAs, ports on two different leaves */
#define TOPOGEN_DUAL_SAME (1u << 2) /* 2-port CAs, both ports on the same leaf */
#define TOPOGEN_TORUS (1u << 3)	    /* topogen_mesh(): wrap around (dims >= 3) */

/*
 * k-ary fat tree of radix-k switches (k even, >= 2).
 *  levels 2: k leaves ("sw-L1-i", k/2 hosts each) and k/2 spines ("sw-L2-i");
 *            full population k*k/2 hosts.
 *  levels 3: k pods of k/2 edge ("sw-L1") and k/2 aggregation ("sw-L2")
 *            switches, (k/2)^2 cores ("sw-L3"); full population k^3/4 hosts.
 * hosts <= 0 means full population, fewer fills leaves in order (partial).
 * With TOPOGEN_DUAL a pair of leaves shares its hosts (full: half as many
 * hosts), with TOPOGEN_DUAL_SAME each host takes two ports of one leaf.
 * TOPOGEN_PARALLEL doubles every uplink (switches then have more than k ports).
 */
char *topogen_fat_tree(int levels, int k, int hosts, unsigned int flags);

/*
 * x by y grid of switches ("sw-X-Y"), each with hosts_per_switch hosts;
 * TOPOGEN_TORUS adds the wrap-around links of every dimension of size >= 3.
 * TOPOGEN_PARALLEL doubles every switch-switch link.
 */
char *topogen_mesh(int x, int y, int hosts_per_switch, unsigned int flags);

/*
 * The same in three dimensions when z > 1 ("sw-X-Y-Z", z links after the x
 * and y ones); z = 1 is topogen_mesh().
 */
char *topogen_grid(int x, int y, int z, int hosts_per_switch, unsigned int flags);

/*
 * A connected irregular graph of switches ("sw-N"): a random spanning tree
 * plus extra_links random links (parallel links allowed), hosts_per_switch
 * hosts on each switch, at most 36 ports a switch.  Same seed, same text.
 */
char *topogen_random(int switches, int extra_links, int hosts_per_switch, unsigned int seed);

/*
 * topogen_random() with the last `empty` switches without hosts, and with
 * TOPOGEN_PARALLEL every spanning-tree link doubled.  empty 0, flags 0 is
 * topogen_random().
 */
char *topogen_random_ex(int switches, int extra_links, int hosts_per_switch, int empty,
			unsigned int flags, unsigned int seed);

/*
 * The same records as text (records are separated by blank lines) in an
 * order shuffled by seed.
 */
char *topogen_shuffle(const char *text, unsigned int seed);

/*
 * The same text with the width and speed of every link at the end of both
 * of its port lines, as ibnetdiscover writes them and ibsim reads them
 * (`[1]	"sw-L1-0"[1]		# "sw-L1-0" lid 0 4xHDR`).  spec is a comma list of
 * NAME=WxSPEED ("ca-3=1xHDR", "*=4xEDR"): a link takes its first end's
 * entry, else its other end's, else "*"'s; a link none names is left as it
 * is.  EINVAL for a spec that is not such a list.
 */
char *topogen_speeds(const char *text, const char *spec);

#endif

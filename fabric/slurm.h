/*
 * Where every host sits, for job schedulers: Slurm's topology.conf
 * (topology/tree: one `SwitchName=LEAF Nodes=HOSTS` line per leaf, one
 * `SwitchName=S Switches=BELOW` line per upper switch), its topology.yaml
 * (Slurm 25.05: a tree topology and a block topology of one block per
 * leaf), and the model they are written from (hosts -> leaf, leaf -> the
 * switches above it), which the control API renders as JSON.
 *
 * A leaf is a switch with a CA on it; levels go up from the leaves by
 * switch links (a switch one hop from a leaf is level 1, ...), and an upper
 * switch lists the switches one level below it.  A host is named by the
 * node name map (fabric/nodemap.h) or else by the first word of its
 * NodeDescription ("h12 mlx5_0": h12), so the HCAs of one host are one
 * host; a switch likewise (the whole first word).  Names keep letters,
 * digits, '.', '_' and '-' (anything else becomes '_'); a switch whose
 * name is taken by another is "sw-GUID".  A host with ports on several
 * leaves (two ports, two HCAs) is listed once, under the leaf of lowest
 * node GUID among them (Slurm's tree wants each node under one leaf; a
 * second plane is another subnet, with its own SM and its own file); the
 * JSON lists every leaf it has a port on.  Host lists are Slurm's
 * compressed hostlist form ("h[0-5,7]").  Pure; no logging.
 */
#ifndef IBSMD_SLURM_H
#define IBSMD_SLURM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"

struct nodemap;

#define SLURM_NAME_MAX 72

struct slurm_switch {
	uint32_t node; /* fabric node index */
	char name[SLURM_NAME_MAX];
	unsigned level;	 /* 0: a leaf */
	uint32_t *hosts; /* leaves: indexes into hosts[], the hosts listed under it */
	uint32_t n_hosts;
	uint32_t *below; /* upper switches: the switches one level below (sw[] indexes) */
	uint32_t n_below;
	uint32_t *above; /* the switches one level above (sw[] indexes) */
	uint32_t n_above;
};

struct slurm_host {
	char name[SLURM_NAME_MAX];
	uint32_t leaf;	  /* sw[] index of the leaf it is listed under */
	uint32_t *leaves; /* every leaf it has a port on (sw[] indexes), leaf first */
	uint32_t n_leaves;
};

struct slurm_topo {
	struct slurm_switch *sw; /* leaves first, then by level; by name within a level */
	uint32_t n_sw, n_leaves;
	struct slurm_host *hosts; /* by name */
	uint32_t n_hosts;
};

/* Build the model of f with names (may be NULL).  0 and *ret (slurm_free), or -ENOMEM. */
int slurm_build(const struct fabric *f, const struct nodemap *names, struct slurm_topo **ret);
void slurm_free(struct slurm_topo *t);

/*
 * Slurm's compressed hostlist of names[0..n) (any order, duplicates
 * dropped): "h[0-5,7],gpu[01-02],login".  A new string in *ret, or
 * -ENOMEM.
 */
int slurm_hostlist(const char *const *names, size_t n, char **ret);

/* topology.conf, topology.yaml.  0, -ENOMEM or -EIO. */
int slurm_write_conf(const struct slurm_topo *t, FILE *out);
int slurm_write_yaml(const struct slurm_topo *t, FILE *out);

#endif

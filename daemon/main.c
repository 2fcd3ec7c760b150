/*
 * ibsmd: the daemon's entry point: parse the command line (or import an
 * opensm.conf), check the configuration, then route a topology offline
 * (--offline), write the configuration (--create-config) or run (daemon.h).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/offline.h"
#include "lib/log.h"

int main(int argc, char **argv)
{
	struct daemon d = {.exit_code = 1};
	char err[4096];
	int r;

	/*
	 * A fixed mmap threshold (issue 15): blocks of 128 KiB and more are
	 * mapped and go back to the kernel when freed.  glibc's moving
	 * threshold would serve the next sweep's large tables from the heap
	 * after the first free, where they stay resident, fragmented.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	log_init("ibsmd", getenv("JOURNAL_STREAM") != NULL && getenv("INVOCATION_ID") != NULL);
	r = daemon_parse(&d, argc, argv);
	if (r >= 0)
		return r;
	if (d.import_path)
		return daemon_import_opensm(d.import_path);
	r = daemon_check(&d);
	if (r >= 0)
		return r;
	if (d.create_path)
		return daemon_create_config(&d);
	if (d.verbose)
		d.conf.log_level = LOG_DEBUG;
	log_set_level(-1, d.conf.log_level);
	if (d.dump_dir && !d.offline_topo) {
		fprintf(stderr, "ibsmd: --dump-dir needs --offline\n");
		return 2;
	}
	for (int i = 0; d.offline_topo && i < d.n_overrides; i++) {
		if (strcmp(d.overrides[i].key, "expected_topology_file"))
			continue;
		/* --offline TOPO --expected-topology PLAN: validate, do not route */
		r = offline_validate(d.offline_topo, d.conf.expected_topology_file, stdout, err,
				     sizeof(err));
		if (r < 0)
			fprintf(stderr, "ibsmd: %s\n", err);
		return r < 0 ? offline_exit_code(r) : r > 0;
	}
	if (d.offline_topo) {
		r = offline_run(d.offline_topo, d.conf.routing_engine, d.conf.routing_chain,
				d.conf.updn_roots_file, d.dump_dir, d.conf.lmc,
				(uint8_t)d.conf.max_vls, stdout, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "ibsmd: %s\n", err);
		return offline_exit_code(r);
	}
	return daemon_run(&d);
}

/*
 * Fuzz target for the files fabric validation reads from outside ibsmd:
 * the cabling plan (validate/plan.c over fabric/topo.c) and OpenSM's node
 * name map (fabric/nodemap.c); the bytes go to both.
 *
 * Properties: plan_parse returns 0 with a plan, or -EBADMSG with a "LINE:
 * what" message, or -ENOMEM; a plan checks against its own fabric without
 * a finding but those that need no plan, and against a fixed fat tree
 * without crashing, every finding of a known kind with a key and a line;
 * nodemap_parse returns 0 or -EBADMSG ("LINE: ...") or -ENOMEM, and every
 * name it holds is found again.  The Slurm export of the plan's fabric
 * builds and writes.  Everything is freed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabric/nodemap.h"
#include "fabric/slurm.h"
#include "fabric/topo.h"
#include "tests/fuzz/fuzz.h"
#include "validate/plan.h"

static const char fixed[] =
    "Switch 4 \"s0\"\n[1] \"h0\"[1]\n[2] \"h1\"[1]\n[3] \"s1\"[3]\n"
    "Switch 4 \"s1\"\n[1] \"h2\"[1]\nHca 1 \"h0\"\nHca 1 \"h1\"\nHca 1 \"h2\"\n";

static void check_result(const struct plan_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		char line[700];

		FUZZ_CHECK(r->v[i].kind < PLAN_NKINDS);
		plan_finding_str(&r->v[i], line, sizeof(line));
		FUZZ_CHECK(line[0]);
		(void)plan_finding_key(&r->v[i]);
	}
}

static void fuzz_plan(const uint8_t *data, size_t size, const struct fabric *tree)
{
	struct plan_result r = {0};
	struct plan *p = NULL;
	char err[256];
	int rc = plan_parse((const char *)data, size, &p, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOMEM);
	if (rc) {
		FUZZ_CHECK(p == NULL);
		if (rc == -EBADMSG)
			FUZZ_CHECK(err[0] && strchr(err, ':'));
		return;
	}
	rc = plan_check(p, p->f, NULL, &r);
	FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
	/* a fabric as planned: only what needs no plan */
	FUZZ_CHECK(rc || (!r.n_kind[PLAN_MISSING_LINK] && !r.n_kind[PLAN_MISWIRED] &&
			  !r.n_kind[PLAN_MISSING_NODE]));
	check_result(&r);
	plan_result_clear(&r);
	if (tree) {
		rc = plan_check(p, tree, NULL, &r);
		FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
		check_result(&r);
		plan_result_clear(&r);
	}
	{
		struct slurm_topo *t = NULL;
		FILE *dev = fopen("/dev/null", "w");

		if (dev && slurm_build(p->f, NULL, &t) == 0) {
			FUZZ_CHECK(slurm_write_conf(t, dev) == 0 || ferror(dev));
			FUZZ_CHECK(slurm_write_yaml(t, dev) == 0 || ferror(dev));
		}
		slurm_free(t);
		if (dev)
			fclose(dev);
	}
	plan_free(p);
}

static void fuzz_nodemap(const uint8_t *data, size_t size)
{
	struct nodemap *m = NULL;
	char err[256];
	int rc = nodemap_parse((const char *)data, size, &m, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOMEM);
	if (rc) {
		FUZZ_CHECK(m == NULL);
		if (rc == -EBADMSG)
			FUZZ_CHECK(err[0] && strchr(err, ':'));
		return;
	}
	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(!nodemap_name(m, 0));
	nodemap_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric *tree = NULL;
	char err[128];

	if (size > 1 << 20) /* text; keep each run fast */
		return 0;
	if (topo_parse(fixed, sizeof(fixed) - 1, &tree, err, sizeof(err)) < 0)
		tree = NULL;
	fuzz_plan(data, size, tree);
	fuzz_nodemap(data, size);
	fabric_free(tree);
	return 0;
}

/*
 * Fuzz target for the PerfMgt codec (mad/perf_wire.c) and the counter
 * arithmetic that folds its output (perf/perfmgr.c): a PerfMgt response's
 * attribute data is outside bytes.
 *
 * Properties (abort on violation):
 *  - PortCounters and PortCountersExtended decode exactly when the input
 *    (an exactly-sized heap copy) holds them; encoding the struct back over
 *    the image changes nothing; decode -> encode -> decode gives equal structs;
 *  - folding two readings made of the input into a port: every total only
 *    grows, by the delta perfmgr_delta gives, and the health change returned
 *    agrees with the port's state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/perf_wire.h"
#include "perf/perfmgr.h"
#include "tests/fuzz/fuzz.h"

static void fuzz_pc(const uint8_t *d, size_t len, struct wire_port_counters *ret, bool *ok)
{
	struct wire_port_counters pc, back;
	uint8_t img[WIRE_PERF_DATA_SIZE];
	int r = wire_port_counters_decode(d, len, &pc);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (len >= WIRE_PERF_PC_SIZE));
	*ok = r == 0;
	if (r)
		return;
	memcpy(img, d, WIRE_PERF_PC_SIZE);
	FUZZ_CHECK(wire_port_counters_encode(&pc, img, WIRE_PERF_PC_SIZE) == 0);
	FUZZ_CHECK(!memcmp(img, d, WIRE_PERF_PC_SIZE));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_port_counters_encode(&pc, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_port_counters_decode(img, sizeof(img), &back) == 0);
	FUZZ_CHECK(!memcmp(&pc, &back, sizeof(pc)));
	*ret = pc;
}

static void fuzz_pcx(const uint8_t *d, size_t len, struct wire_port_counters_ext *ret, bool *ok)
{
	struct wire_port_counters_ext x, back;
	uint8_t img[WIRE_PERF_DATA_SIZE];
	int r = wire_port_counters_ext_decode(d, len, &x);

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (len >= WIRE_PERF_PCX_SIZE));
	*ok = r == 0;
	if (r)
		return;
	memcpy(img, d, WIRE_PERF_PCX_SIZE);
	FUZZ_CHECK(wire_port_counters_ext_encode(&x, img, WIRE_PERF_PCX_SIZE) == 0);
	/* bytes 4-7 are reserved: not written */
	FUZZ_CHECK(!memcmp(img, d, 4) && !memcmp(img + 8, d + 8, WIRE_PERF_PCX_SIZE - 8));
	memset(img, 0, sizeof(img));
	FUZZ_CHECK(wire_port_counters_ext_encode(&x, img, sizeof(img)) == 0);
	FUZZ_CHECK(wire_port_counters_ext_decode(img, sizeof(img), &back) == 0);
	FUZZ_CHECK(!memcmp(&x, &back, sizeof(x)));
	*ret = x;
}

/* Fold a into a fresh port, then b; check totals and health. */
static void fuzz_fold(const struct perfmgr_reading *a, const struct perfmgr_reading *b,
		      const struct perfmgr_thresholds *t)
{
	struct perfmgr_port p;
	uint64_t before[PERFMGR_NCOUNTERS];
	int changed;

	memset(&p, 0, sizeof(p));
	FUZZ_CHECK(perfmgr_port_update(&p, a, 1.0, t) == 0);
	memcpy(before, p.total, sizeof(before));
	changed = perfmgr_port_update(&p, b, 2.0, t);
	FUZZ_CHECK(changed >= 0 && changed == (p.unhealthy ? 1 : 0));
	for (int c = 0; c < PERFMGR_NCOUNTERS; c++) {
		uint64_t d =
		    a->ext == b->ext
			? perfmgr_delta(a->v[c], b->v[c], perfmgr_width((enum perfmgr_counter)c, b),
					NULL, NULL)
			: 0;

		FUZZ_CHECK(p.total[c] == before[c] + d);
		FUZZ_CHECK(p.delta[c] == d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_port_counters pc = {0}, pc2 = {0};
	struct wire_port_counters_ext x = {0}, x2 = {0};
	struct perfmgr_reading a, b;
	struct perfmgr_thresholds t = {1, 1, 1, 1};
	bool ok_pc, ok_pcx, ok_pc2 = false, ok_pcx2 = false;
	uint8_t *copy;

	if (size > 4096)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_pc(copy, size, &pc, &ok_pc);
	fuzz_pcx(copy, size, &x, &ok_pcx);
	if (size >= 2 * WIRE_PERF_PCX_SIZE) {
		fuzz_pc(copy + WIRE_PERF_PCX_SIZE, size - WIRE_PERF_PCX_SIZE, &pc2, &ok_pc2);
		fuzz_pcx(copy + WIRE_PERF_PCX_SIZE, size - WIRE_PERF_PCX_SIZE, &x2, &ok_pcx2);
	}
	if (ok_pc) {
		perfmgr_reading_from_wire(&pc, ok_pcx ? &x : NULL, &a);
		perfmgr_reading_from_wire(ok_pc2 ? &pc2 : &pc, ok_pcx2 ? &x2 : NULL, &b);
		fuzz_fold(&a, &b, &t);
		t = (struct perfmgr_thresholds){0};
		fuzz_fold(&b, &a, &t);
		(void)perfmgr_needs_clear(&a);
	}
	free(copy);
	return 0;
}

/*
 * Fuzz target for policy/qos.c: the qos-policy.conf parser (the file is
 * written by hand and may come from an OpenSM installation) and the qos_
 * VLArb and SL2VL values of ibsmd.conf, whose bytes are untrusted.
 *
 * Properties: qos_policy_parse gives 0 or -EINVAL (every error naming
 * "FILE:LINE", the text bounded by the buffer); every rule has ranges with
 * lo <= hi and an SL 0..15, at most QOS_RULES_MAX rules; matching a path
 * terminates with an SL 0..15.  The value parsers give 0 or -EINVAL, at
 * most 64 VLArb entries, VLs 0..14 (VLArb) and 0..15 (SL2VL).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/qos.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qos_policy *q = NULL;
	struct qos_vlarb t;
	uint8_t s2v[16];
	char err[2048], why[160], *str;
	int r;

	if (size > 65536)
		return 0;
	memset(err, 'x', sizeof(err));
	r = qos_policy_parse("fuzz", (const char *)data, size, &q, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (r < 0) {
		FUZZ_CHECK(q == NULL);
		FUZZ_CHECK(!strncmp(err, "fuzz:", 5));
	} else {
		struct qos_path_query pq = {true, size, (uint16_t)size, 0x1234, size};
		uint8_t sl = 0;

		FUZZ_CHECK(q->n_rules <= QOS_RULES_MAX);
		FUZZ_CHECK(q->default_sl <= 15);
		for (size_t i = 0; i < q->n_rules; i++) {
			FUZZ_CHECK(q->rules[i].sl <= 15);
			FUZZ_CHECK(q->rules[i].n_ranges >= 1);
			for (size_t k = 0; k < q->rules[i].n_ranges; k++)
				FUZZ_CHECK(q->rules[i].ranges[k].lo <= q->rules[i].ranges[k].hi);
		}
		if (qos_rule_sl(q, &pq, &sl, NULL))
			FUZZ_CHECK(sl <= 15);
		qos_policy_free(q);
	}
	/* the same bytes as a conf value (NUL-terminated) */
	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	if (qos_parse_vlarb(str, &t, why, sizeof(why)) == 0) {
		FUZZ_CHECK(t.n >= 1 && t.n <= QOS_VLARB_MAX);
		for (unsigned i = 0; i < t.n; i++)
			FUZZ_CHECK(t.vl[i] <= 14);
	}
	if (qos_parse_sl2vl(str, s2v, why, sizeof(why)) == 0)
		for (unsigned i = 0; i < 16; i++)
			FUZZ_CHECK(s2v[i] <= 15);
	free(str);
	return 0;
}

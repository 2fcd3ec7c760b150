/*
 * Fuzz target for policy/partition.c's partitions.conf parser: the file is
 * written by hand and may come from an OpenSM installation, so its bytes
 * are untrusted.
 *
 * Properties: partition_parse gives 0 or -EINVAL (every error naming
 * "FILE:LINE", the text bounded by the buffer); a policy always holds the
 * default partition 0x7fff, no P_Key twice, every P_Key 0x0001..0x7fff;
 * the P_Key table of a port of a small fabric is bounded and every key in
 * it belongs to a partition of the policy.
 */
#include <errno.h>
#include <string.h>

#include "policy/partition.h"
#include "tests/fuzz/fuzz.h"

static struct fabric *fabric_small(void)
{
	static struct fabric *f;
	uint32_t sw, ca;

	if (f)
		return f;
	f = fabric_new();
	if (!f || fabric_add_node(f, 0x1000, NODE_SWITCH, 2, &sw) < 0 ||
	    fabric_add_node(f, 0x2000, NODE_CA, 1, &ca) < 0 || fabric_link(f, sw, 1, ca, 1) < 0)
		abort();
	f->nodes[sw].ports[0].guid = 0x1000;
	f->nodes[ca].ports[1].guid = 0x2001;
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct partition_config *c = NULL;
	char err[2048];
	uint16_t keys[64];
	struct fabric *f = fabric_small();
	int r;

	if (size > 65536)
		return 0;
	memset(err, 'x', sizeof(err));
	r = partition_parse("fuzz", (const char *)data, size, &c, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (r < 0) {
		FUZZ_CHECK(c == NULL);
		FUZZ_CHECK(!strncmp(err, "fuzz:", 5));
		return 0;
	}
	FUZZ_CHECK(partition_find(c, PARTITION_DEFAULT_PKEY) != NULL);
	for (size_t i = 0; i < c->n; i++) {
		FUZZ_CHECK(c->parts[i].pkey >= 1 && c->parts[i].pkey <= 0x7fff);
		for (size_t j = i + 1; j < c->n; j++)
			FUZZ_CHECK(c->parts[i].pkey != c->parts[j].pkey);
	}
	for (uint32_t n = 0; n < f->n_nodes; n++) {
		uint8_t port = node_is_switch(&f->nodes[n]) ? 0 : 1;
		size_t nk = partition_port_table(c, f, n, port, 0x2001, keys, 64);

		FUZZ_CHECK(nk <= 2 * c->n);
		for (size_t k = 0; k < nk && k < 64; k++)
			FUZZ_CHECK(partition_find(c, keys[k]) != NULL);
	}
	partition_config_free(c);
	return 0;
}

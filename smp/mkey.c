/*
 * M_Key (see mkey.h).  IBA 1.4 vol 1, 14.2.4.1-3: M_Key, the protection
 * levels of table 150 and the lease.  OpenSM sets one M_Key per subnet (or
 * one per port by a lookup file) the same way; we keep one key.
 */
#include <stddef.h>

#include "smp/mkey.h"

enum mkey_verdict mkey_sma_check(uint64_t port_key, unsigned protect, uint64_t smp_key,
				 uint8_t method)
{
	if (method & WIRE_METHOD_RESP || method == WIRE_TRAP)
		return MKEY_PASS;
	if (port_key == 0 || smp_key == port_key)
		return MKEY_PASS;
	if (method == WIRE_GET) {
		if (protect == 0)
			return MKEY_PASS;
		if (protect == 1)
			return MKEY_PASS_HIDDEN;
	}
	return MKEY_FAIL;
}

enum mkey_verdict mkey_sma_process(struct mkey_sma *s, uint64_t smp_key, uint8_t method,
				   uint64_t now_ms)
{
	enum mkey_verdict v;

	if (s->lease_running && now_ms >= s->lease_end_ms) {
		s->lease_running = false;
		s->protect = 0;
	}
	v = mkey_sma_check(s->key, s->protect, smp_key, method);
	if (v == MKEY_FAIL) {
		if (s->violations < UINT16_MAX)
			s->violations++;
		if (s->lease_s && !s->lease_running) {
			s->lease_running = true;
			s->lease_end_ms = now_ms + (uint64_t)s->lease_s * 1000;
		}
	} else if (s->key && smp_key == s->key) {
		s->lease_running = false;
	}
	return v;
}

enum mkey_port_state mkey_port_classify(const struct wire_portinfo *pi, uint64_t our_key)
{
	if (pi->mkey == 0)
		return pi->mkey_protect ? MKEY_PORT_UNKNOWN : MKEY_PORT_OPEN;
	return pi->mkey == our_key ? MKEY_PORT_OURS : MKEY_PORT_FOREIGN;
}

const char *mkey_port_state_name(enum mkey_port_state s)
{
	switch (s) {
	case MKEY_PORT_OPEN:
		return "open";
	case MKEY_PORT_OURS:
		return "ours";
	case MKEY_PORT_FOREIGN:
		return "foreign";
	case MKEY_PORT_UNKNOWN:
		return "unknown";
	}
	return "?";
}

bool mkey_set_may_pass(enum mkey_port_state s)
{
	return s != MKEY_PORT_FOREIGN;
}

void mkey_apply(const struct mkey_policy *p, struct wire_portinfo *want)
{
	want->mkey = p->key;
	/*
	 * Without a key the protect bits and the lease protect nothing (a port
	 * holding M_Key 0 takes anything): they are left as the port has them,
	 * so no PortInfo Set is sent for them alone.
	 */
	if (p->key) {
		want->mkey_protect = p->protect;
		want->mkey_lease = p->lease_s;
	}
}

bool mkey_differs(const struct wire_portinfo *cur, const struct wire_portinfo *want)
{
	return cur->mkey != want->mkey || cur->mkey_protect != want->mkey_protect ||
	       cur->mkey_lease != want->mkey_lease;
}

struct mkey_offender *mkey_offender_get(struct mkey_offenders *t, uint64_t guid, uint16_t lid)
{
	for (unsigned i = 0; i < t->n; i++)
		if (guid ? t->e[i].guid == guid : !t->e[i].guid && t->e[i].lid == lid) {
			t->e[i].lid = lid;
			return &t->e[i];
		}
	if (t->n == MKEY_OFFENDERS_MAX) {
		t->others++;
		return NULL;
	}
	t->e[t->n] = (struct mkey_offender){.guid = guid, .lid = lid};
	return &t->e[t->n++];
}

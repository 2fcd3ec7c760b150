/*
 * M_Key: the SM's protection of ports against other managers.  IBA 1.4 vol 1,
 * 14.2.4 (M_Key, protection levels, lease) and 14.2.5.1 (trap 256).
 *
 * Pure: the SMA's check as the spec states it (so the SM can predict what a
 * port will do with an SMP and tell "refused" from "lost"), what the SM makes
 * of a PortInfo it read, and a bounded table of offenders (trap 256 senders'
 * victims and ports that refused us).  No I/O, no logging.
 */
#ifndef IBSMD_SM_MKEY_H
#define IBSMD_SM_MKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/wire.h"

/* What this SM writes into every port (m_key, m_key_protect_bits, m_key_lease_period). */
struct mkey_policy {
	uint64_t key;	  /* 0: no protection, and no M_Key in our SMPs */
	uint8_t protect;  /* PortInfo:M_KeyProtectBits, 0..3 */
	uint16_t lease_s; /* PortInfo:M_KeyLeasePeriod, seconds, 0 = never expires */
};

enum mkey_verdict {
	MKEY_PASS,	  /* the SMA processes the SMP */
	MKEY_PASS_HIDDEN, /* a Get processed, PortInfo:M_Key read back as 0 */
	MKEY_FAIL,	  /* dropped without an answer, M_KeyViolations++, trap 256 */
};

/*
 * The SMA's check (14.2.4.2, table 150): a port holding M_Key 0 takes
 * everything; a matching key passes; otherwise Set and TrapRepress fail at
 * every level, and Get passes at level 0, passes with the M_Key hidden at 1,
 * and fails at 2 and 3.  Responses (GetResp, Trap) are not checked.
 */
enum mkey_verdict mkey_sma_check(uint64_t port_key, unsigned protect, uint64_t smp_key,
				 uint8_t method);

/*
 * A port as the SMA keeps it, with the lease (14.2.4.3): a failed check
 * starts the lease timer if the lease is not 0 and the timer is not running;
 * a check that passes stops it; when it expires the protect bits go to 0.
 */
struct mkey_sma {
	uint64_t key;
	uint8_t protect;
	uint16_t lease_s;
	bool lease_running;
	uint64_t lease_end_ms;
	uint16_t violations; /* PortInfo:M_KeyViolations, saturating */
};

/* One SMP at now_ms; a PortInfo Set that passes is the caller's to apply. */
enum mkey_verdict mkey_sma_process(struct mkey_sma *s, uint64_t smp_key, uint8_t method,
				   uint64_t now_ms);

/* What a PortInfo this SM read (with its own key in the SMP) says about the port. */
enum mkey_port_state {
	MKEY_PORT_OPEN,	   /* M_Key 0, protect 0: takes anything */
	MKEY_PORT_OURS,	   /* holds our key */
	MKEY_PORT_FOREIGN, /* shows another non-zero key: our Sets will be dropped */
	MKEY_PORT_UNKNOWN, /* reads 0 with protect bits set: unprotected, or a hidden key */
};

enum mkey_port_state mkey_port_classify(const struct wire_portinfo *pi, uint64_t our_key);
const char *mkey_port_state_name(enum mkey_port_state s);

/* Whether a Set from this SM can pass on a port in that state (UNKNOWN: it may). */
bool mkey_set_may_pass(enum mkey_port_state s);

/* Put the policy's M_Key, protect bits and lease into the PortInfo to write (key 0: the M_Key
 * only). */
void mkey_apply(const struct mkey_policy *p, struct wire_portinfo *want);

/* Whether the PortInfo the port holds differs from want in its M_Key fields. */
bool mkey_differs(const struct wire_portinfo *cur, const struct wire_portinfo *want);

/*
 * Offenders, by port GUID (or by LID when the GUID is not known): a fixed
 * table, so a flood of forged traps cannot grow memory; past MKEY_OFFENDERS_MAX
 * ports the rest are counted in "others".
 */
#define MKEY_OFFENDERS_MAX 64

struct mkey_offender {
	uint64_t guid; /* 0: unknown, keyed by LID */
	uint16_t lid;
	uint64_t traps;	   /* trap 256 naming this port as the one whose key was wrong */
	uint64_t refused;  /* our SMPs this port refused or left unanswered for its M_Key */
	uint64_t last_key; /* the M_Key the last trap reported */
};

struct mkey_offenders {
	struct mkey_offender e[MKEY_OFFENDERS_MAX];
	unsigned n;
	uint64_t others;
};

/* The entry for (guid, lid), added if there is room; NULL when the table is full. */
struct mkey_offender *mkey_offender_get(struct mkey_offenders *t, uint64_t guid, uint16_t lid);

#endif

/*
 * Fuzz target for the runtime partition requests and documents (issue 23):
 * the bytes as a JSON request body read by ui/api_pkeys.c's
 * api_pkeys_parse for each operation, the request applied to a set
 * (policy/pkeyset.c), and the bytes as a runtime set document
 * (pkeyset_from_json: the state file and the standby's copy).
 *
 * Properties (abort on violation):
 *  - api_pkeys_parse returns 0 or -EINVAL (-ENOMEM), an error with a code
 *    and a message; on 0 the P_Key is 0x0001..0x7fff, at most 64 GUIDs, none
 *    0, memberships full or limited, mtu/rate/sl unset or IBA codes;
 *  - a parsed request applied to an empty set (the default partition in
 *    the file) returns one of its documented codes, never changes the old
 *    set, and the new set holds every GUID an add asked for;
 *  - a document that decodes encodes and decodes again to the same counts;
 *  - the same input always gives the same answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy/pkeyset.h"
#include "tests/fuzz/fuzz.h"
#include "ui/api_pkeys.h"

#define FUZZ_MAX_GUIDS 64

static void one_op(const json_t *body, enum pkeyset_op op, const struct partition_config *file)
{
	const struct pkeyset_limits lim = {FUZZ_MAX_GUIDS, 100};
	struct pkeyset_req req, again;
	struct ctl_error e = {"", ""}, e2 = {"", ""};
	struct pkeyset *s = pkeyset_new(), *ns = NULL;
	struct pkeyset_delta d;
	char err[256];
	int r = api_pkeys_parse(body, op, 0, FUZZ_MAX_GUIDS, &req, &e);
	int r2 = api_pkeys_parse(body, op, 0, FUZZ_MAX_GUIDS, &again, &e2);

	FUZZ_CHECK(s != NULL);
	FUZZ_CHECK(r == r2);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(r == 0 || r == -ENOMEM || (e.code[0] && e.message[0]));
	pkeyset_req_clear(&again);
	if (r == 0) {
		FUZZ_CHECK(req.pkey >= 1 && req.pkey <= 0x7fff);
		FUZZ_CHECK(req.n_guids <= FUZZ_MAX_GUIDS);
		FUZZ_CHECK(req.membership == PARTITION_M_FULL ||
			   req.membership == PARTITION_M_LIMITED);
		FUZZ_CHECK(req.mtu == -1 || (req.mtu >= 3 && req.mtu <= 5));
		FUZZ_CHECK(req.rate == -1 || pkeyset_rate_gbps(req.rate) > 0);
		FUZZ_CHECK(req.sl >= -1 && req.sl <= 15);
		for (size_t i = 0; i < req.n_guids; i++) {
			FUZZ_CHECK(req.guids[i] != 0);
			FUZZ_CHECK(!req.members || req.members[i] == PARTITION_M_FULL ||
				   req.members[i] == PARTITION_M_LIMITED);
		}
		r = pkeyset_apply(s, &req, file, &lim, &ns, &d, err, sizeof(err));
		FUZZ_CHECK(r == 0 || r == -EEXIST || r == -E2BIG || r == -ENOSPC || r == -ENOENT ||
			   r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(s->n == 0 && s->members == 0);
		FUZZ_CHECK(r == 0 || !ns);
		if (r == 0 && ns && op == PKEYSET_ADD) {
			const struct pkeyset_pkey *p = pkeyset_find(ns, req.pkey);

			FUZZ_CHECK(p != NULL);
			for (size_t i = 0; i < req.n_guids; i++)
				FUZZ_CHECK(pkeyset_member_find(p, req.guids[i]) != NULL);
		}
		pkeyset_delta_clear(&d);
		pkeyset_free(ns);
	}
	pkeyset_req_clear(&req);
	pkeyset_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct partition_config *file;
	json_t *v;
	struct pkeyset *s = NULL, *back = NULL;
	char err[256];

	if (!file)
		file = partition_default();
	FUZZ_CHECK(file != NULL);
	if (size > (1u << 20))
		return 0;
	v = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (!v)
		return 0;
	for (int op = PKEYSET_ADD; op <= PKEYSET_QOS; op++)
		one_op(v, (enum pkeyset_op)op, file);
	if (pkeyset_from_json(v, &s, err, sizeof(err)) == 0) {
		json_t *doc = pkeyset_to_json(s);

		FUZZ_CHECK(doc != NULL);
		FUZZ_CHECK(pkeyset_from_json(doc, &back, err, sizeof(err)) == 0);
		FUZZ_CHECK(back->n == s->n && back->members == s->members);
		json_decref(doc);
		pkeyset_free(back);
		pkeyset_free(s);
	}
	json_decref(v);
	return 0;
}

/*
 * Fuzz target for failover/syncdoc.c's decoder: the state document comes over TCP
 * from the other SM of a pair (or from whoever reaches the sync port), so
 * its bytes are untrusted.
 *
 * Properties: syncdoc_decode gives 0 with a document, or -EBADMSG,
 * -EMSGSIZE, -ENOMEM with a message and no document; a document merges into
 * empty databases (syncdoc_apply: 0 or -ENOMEM, every group counted as
 * carried or not); the databases encode to a document that decodes again
 * with no more groups, services and subscriptions than were carried.
 */
#include <errno.h>
#include <string.h>

#include "sa/sa.h"
#include "failover/syncdoc.h"
#include "tests/fuzz/fuzz.h"

static int no_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	(void)ctx;
	(void)to;
	(void)mad;
	(void)len;
	return 0;
}

static void no_sm_info(void *ctx, struct sa_sm_info *ret)
{
	(void)ctx;
	*ret = (struct sa_sm_info){.port_guid = 1, .state = 3};
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct syncdoc *d = NULL, *d2 = NULL;
	struct syncdoc_apply_stats st;
	struct mcast_db *mc;
	struct sa *sa;
	char err[256], *text;
	json_t *j;
	int r;

	r = syncdoc_decode((const char *)data, size, &d, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EMSGSIZE || r == -ENOMEM);
	FUZZ_CHECK((r == 0) == (d != NULL));
	if (r)
		FUZZ_CHECK(err[0] != 0);
	if (!d)
		return 0;
	mc = mcast_db_new();
	sa = sa_new(NULL, &(struct sa_ops){no_send, no_sm_info, NULL});
	FUZZ_CHECK(mc && sa);
	r = syncdoc_apply(d, mc, sa_services(sa), sa_informs(sa), &st);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	if (r == 0)
		FUZZ_CHECK(st.groups + st.groups_failed == d->n_groups);
	free(st.not_carried);
	j = syncdoc_encode(d->sm_guid, d->generation, mc, sa_services(sa), sa_informs(sa), d->lids,
			   d->n_lids);
	FUZZ_CHECK(j != NULL);
	text = json_dumps(j, JSON_COMPACT);
	FUZZ_CHECK(text != NULL);
	r = syncdoc_decode(text, strlen(text), &d2, err, sizeof(err));
	if (r)
		fprintf(stderr, "re-decode: %s\n", err);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(d2->n_groups == mcast_group_count(mc) && d2->n_services <= d->n_services &&
		   d2->n_informs <= d->n_informs && d2->n_lids == d->n_lids);
	free(text);
	json_decref(j);
	syncdoc_free(d2);
	syncdoc_free(d);
	sa_free(sa);
	mcast_db_free(mc);
	return 0;
}

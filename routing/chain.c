/*
 * The routing fallback chain: the configured engines in order until one
 * routes the fabric (by default ftree, dor, dfsp, updn, minhop: a fat tree
 * gets ftree, a mesh or torus dor, anything else dfsp, deadlock-free over
 * VLs, and updn when the VLs are not enough).  Every engine gets the
 * same options; each refusal comes back as data (engine, error, reason) for
 * sm/ to log and publish, so online and offline routing share one chain and
 * nobody parses text.  Pure: no I/O, no globals, no logging.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "routing/chain.h"

#define CHAIN_SEP ", \t"

/* A name in a list, not NUL-terminated. */
struct chain_name {
	const char *s;
	size_t len;
};

static bool chain_tried(const struct chain_name *tried, unsigned int n, const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (tried[i].len == len && !memcmp(tried[i].s, s, len))
			return true;
	return false;
}

static void chain_refuse(struct chain_result *ret, const char *name, size_t len, int rc,
			 const char *reason)
{
	struct chain_refusal *x = &ret->refusals[ret->n_refusals++];

	snprintf(x->engine, sizeof(x->engine), "%.*s", (int)len, name);
	x->rc = rc;
	snprintf(x->reason, sizeof(x->reason), "%s", reason);
}

/* Route with the engine named s[0..len): 0, or its error with a refusal added. */
static int chain_try(const struct fabric *f, const struct routing_opts *o, const char *s,
		     size_t len, struct chain_result *ret)
{
	const struct routing_engine *e = NULL;
	struct routes *r = NULL;
	char name[32], why[256] = "";
	int rc;

	if (len < sizeof(name)) {
		memcpy(name, s, len);
		name[len] = '\0';
		e = routing_find(name);
	}
	if (!e) {
		chain_refuse(ret, s, len, -EINVAL, "unknown routing engine");
		return -EINVAL;
	}
	rc = e->compute(f, o, &r, why, sizeof(why));
	if (rc == 0) {
		ret->routes = r;
		ret->engine = e;
		return 0;
	}
	routes_free(r);
	chain_refuse(ret, e->name, strlen(e->name), rc, why[0] ? why : strerror(-rc));
	return rc;
}

int chain_run(const struct fabric *f, const struct routing_opts *o, const char *first,
	      const char *chain, struct chain_result *ret)
{
	const char *lists[2] = {first, chain};
	struct chain_name tried[CHAIN_MAX];
	unsigned int n_tried = 0, i;
	int rc = -ENOTSUP;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < 2; i++) {
		const char *s = lists[i];
		size_t len;

		while (s && *(s += strspn(s, CHAIN_SEP))) {
			len = strcspn(s, CHAIN_SEP);
			if (!chain_tried(tried, n_tried, s, len)) {
				if (n_tried == CHAIN_MAX)
					return rc;
				tried[n_tried++] = (struct chain_name){s, len};
				rc = chain_try(f, o, s, len, ret);
				if (rc == 0)
					return 0;
			}
			s += len;
		}
	}
	return rc;
}

void chain_result_clear(struct chain_result *r)
{
	if (!r)
		return;
	routes_free(r->routes);
	memset(r, 0, sizeof(*r));
}

bool chain_has_refusal(const struct chain_refusal *list, unsigned int n,
		       const struct chain_refusal *x)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (list[i].rc == x->rc && !strcmp(list[i].engine, x->engine) &&
		    !strcmp(list[i].reason, x->reason))
			return true;
	return false;
}

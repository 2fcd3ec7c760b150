/* placeholder until the engine lands: refuses every topology */
#include <errno.h>
#include <stdio.h>
#include "routing/routing.h"

int updn_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len)
{
	snprintf(why, why_len, "updn is not implemented yet");
	return -ENOTSUP;
}
int dnup_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len) { return updn_compute(f, ret, why, why_len); }

/* placeholder until the engine lands: refuses every topology */
#include <errno.h>
#include <stdio.h>
#include "routing/routing.h"

int dor_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len)
{
	snprintf(why, why_len, "dor is not implemented yet");
	return -ENOTSUP;
}

/* placeholder until the engine lands: refuses every topology */
#include <errno.h>
#include <stdio.h>
#include "routing/routing.h"

int ftree_compute(const struct fabric *f, struct routes **ret, char *why, size_t why_len)
{
	snprintf(why, why_len, "ftree is not implemented yet");
	return -ENOTSUP;
}

/*
 * Helpers every part of the control API uses: GUIDs as JSON, argument
 * checks, the not-ready answer, texts built in memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/api_int.h"

json_t *api_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_string(buf);
}

double api_uptime(const struct api *api)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - api->started.tv_sec) + (ts.tv_nsec - api->started.tv_nsec) / 1e9;
}

double api_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int api_check_args(json_t *args, const char *const *names, struct ctl_error *err)
{
	const char *key;
	json_t *v;

	if (!args)
		return 0;
	json_object_foreach (args, key, v) {
		bool known = false;

		for (size_t i = 0; names && names[i]; i++)
			if (!strcmp(key, names[i]))
				known = true;
		if (!known)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT, "unknown argument '%.64s'",
					     key);
	}
	return 0;
}

int api_need_fabric(const struct api *api, struct ctl_error *err)
{
	if (!api->sm->snap)
		return ctl_error_set(err, CTL_ERR_NOT_READY,
				     "no fabric discovered yet: wait for the first sweep");
	return 0;
}

int api_text_begin(struct api_text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->fp = open_memstream(&t->buf, &t->len);
	return t->fp ? 0 : -ENOMEM;
}

char *api_text_end(struct api_text *t)
{
	bool failed = ferror(t->fp);

	if (fclose(t->fp) != 0 || failed) {
		free(t->buf);
		t->buf = NULL;
	}
	t->fp = NULL;
	return t->buf;
}

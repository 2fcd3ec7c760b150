/*
 * Fuzz target for sm/conf.c: the configuration file text (an operator's file,
 * outside bytes as far as the parser is concerned) through conf_load_string.
 *
 * Properties: the result is 0, or -EINVAL with a "NAME:LINE: what" message;
 * a loaded configuration can be shown (conf_to_json), and setting every key
 * back from that view (conf_set, as command-line overrides do) reproduces it
 * exactly (conf_diff finds nothing but the secret keys the view leaves out).
 */
#include <errno.h>
#include <string.h>

#include "sm/conf.h"
#include "tests/fuzz/fuzz.h"

static void check_view(const struct sm_conf *c)
{
	struct sm_conf c2;
	const char *key, *diff[32];
	json_t *o, *v;
	char err[512], num[32];
	const char *s;
	size_t n;

	o = conf_to_json(c);
	FUZZ_CHECK(o != NULL);
	conf_defaults(&c2);
	json_object_foreach (o, key, v) {
		if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			s = num;
		} else if (json_is_boolean(v)) {
			s = json_is_true(v) ? "true" : "false";
		} else {
			FUZZ_CHECK(json_is_string(v));
			s = json_string_value(v);
		}
		if (conf_set(&c2, key, s, err, sizeof(err)) != 0) {
			fprintf(stderr, "conf_set %s=%s: %s\n", key, s, err);
			FUZZ_CHECK(!"a shown value is accepted back");
		}
	}
	/* only the keys the view hides may differ */
	n = conf_diff(c, &c2, diff, 32);
	FUZZ_CHECK(n <= 32);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(conf_key_is_secret(diff[i]));
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sm_conf c;
	char *text, err[512];
	int r;

	if (size > 1 << 20)
		return 0;
	text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	conf_defaults(&c);
	err[0] = '\0';
	r = conf_load_string(&c, "fuzz.conf", text, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == -EINVAL)
		FUZZ_CHECK(!strncmp(err, "fuzz.conf:", 10) && strchr(err + 10, ':'));
	else
		check_view(&c);
	free(text);
	return 0;
}

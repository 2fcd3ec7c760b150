/*
 * Shared by the fuzz targets in tests/fuzz/: the libFuzzer entry point and a
 * check that aborts with context, so both libFuzzer and the gcc replayer
 * report a broken property as a crash.
 */
#ifndef IBSMD_FUZZ_H
#define IBSMD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__,      \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif

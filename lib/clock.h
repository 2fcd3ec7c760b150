/*
 * The two clocks of the daemon: CLOCK_MONOTONIC for every interval, timer
 * and timestamp the SM compares (milliseconds or seconds), CLOCK_REALTIME
 * for what is shown to people and peers (seconds since the epoch).
 */
#ifndef IBSMD_CLOCK_H
#define IBSMD_CLOCK_H

#include <time.h>

static inline double clock_mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline double clock_mono_s(void)
{
	return clock_mono_ms() / 1e3;
}

static inline double clock_wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

#endif

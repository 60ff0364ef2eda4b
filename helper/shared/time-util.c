/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clocks in microseconds. (util.h) */
#include <time.h>

#include "util.h"

unsigned long long timespec_usec(const struct timespec *ts) {
        return (unsigned long long) ts->tv_sec * 1000000ULL + (unsigned long long) ts->tv_nsec / 1000ULL;
}

struct timespec usec_timespec(unsigned long long usec) {
        return (struct timespec) { .tv_sec = (time_t) (usec / 1000000ULL), .tv_nsec = (long) (usec % 1000000ULL) * 1000L };
}

static unsigned long long clock_usec(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return timespec_usec(&ts);
}

unsigned long long now_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

unsigned long long realtime_usec(void) {
        return clock_usec(CLOCK_REALTIME);
}

unsigned long long realtime_coarse_usec(void) {
        return clock_usec(CLOCK_REALTIME_COARSE);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clocks in microseconds. (util.h) */
#include <stdio.h>
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

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), after Howard Hinnant's civil_from_days. */
static void civil_from_days(long long z, long long *ret_y, unsigned *ret_m, unsigned *ret_d) {
        long long era, y;
        unsigned doe, yoe, doy, mp;

        z += 719468;
        era = (z >= 0 ? z : z - 146096) / 146097;
        doe = (unsigned) (z - era * 146097);
        yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        y = (long long) yoe + era * 400;
        doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        mp = (5 * doy + 2) / 153;
        *ret_d = doy - (153 * mp + 2) / 5 + 1;
        *ret_m = mp < 10 ? mp + 3 : mp - 9;
        *ret_y = y + (*ret_m <= 2);
}

char *utc_time_format(unsigned long long usec, bool millis, char ret[static UTC_TIME_MAX]) {
        unsigned long long s = usec / 1000000ULL, sod = s % 86400ULL;
        long long y;
        unsigned m, d;

        civil_from_days((long long) (s / 86400ULL), &y, &m, &d);
        if (millis)
                snprintf(ret, UTC_TIME_MAX, "%04lld-%02u-%02uT%02u:%02u:%02u.%03lluZ", y % 10000, m % 100u, d % 100u,
                         (unsigned) (sod / 3600), (unsigned) (sod / 60 % 60), (unsigned) (sod % 60),
                         usec / 1000ULL % 1000ULL);
        else
                snprintf(ret, UTC_TIME_MAX, "%04lld-%02u-%02uT%02u:%02u:%02uZ", y % 10000, m % 100u, d % 100u,
                         (unsigned) (sod / 3600), (unsigned) (sod / 60 % 60), (unsigned) (sod % 60));
        return ret;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * utc_time_format() (util.h): the UTC stamps of the journal, the lease and
 * status, made without the C library's time zone machinery. Known dates
 * (the epoch, a leap day, the turn of a century that is a leap year and
 * of one that is not), milliseconds, and 20,000 instants from 1970 to 2400
 * against gmtime_r() and strftime().
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"

#include "util.h"

static int same_as_libc(unsigned long long s) {
        char want[64], got[UTC_TIME_MAX];
        time_t t = (time_t) s;
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return 0;
        utc_time_format(s * 1000000ULL, false, got);
        if (!streq(want, got)) {
                printf("# %llu: %s, libc %s\n", s, got, want);
                return 0;
        }
        return 1;
}

int main(void) {
        char buf[UTC_TIME_MAX];
        unsigned long long x = 88172645463325252ULL;
        int all = 1;

        TAP_EQ_STR(utc_time_format(0, false, buf), "1970-01-01T00:00:00Z", "the epoch");
        TAP_EQ_STR(utc_time_format(0, true, buf), "1970-01-01T00:00:00.000Z", "the epoch, with milliseconds");
        TAP_EQ_STR(utc_time_format(1709210096789123ULL, true, buf), "2024-02-29T12:34:56.789Z",
                   "a leap day, milliseconds truncated, not rounded");
        TAP_EQ_STR(utc_time_format(951782400ULL * 1000000ULL, false, buf), "2000-02-29T00:00:00Z",
                   "2000 is a leap year");
        TAP_EQ_STR(utc_time_format(4107542400ULL * 1000000ULL, false, buf), "2100-03-01T00:00:00Z",
                   "2100 is not: 28 February is followed by 1 March");
        TAP_EQ_STR(utc_time_format(946684799ULL * 1000000ULL + 999999ULL, true, buf), "1999-12-31T23:59:59.999Z",
                   "the last millisecond of 1999");
        for (int i = 0; i < 20000; i++) {
                /* xorshift64: a spread of instants, the same every run. */
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                all &= same_as_libc(x % 13569465600ULL);   /* up to 2400-01-01 */
        }
        tap_ok(all, "20,000 instants from 1970 to 2400 read as gmtime_r() and strftime() write them");
        return tap_done();
}

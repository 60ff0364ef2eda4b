/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Numbers from text, strictly: no sign, no space, no junk, within a maximum. (util.h) */
#include <limits.h>

#include "util.h"

int parse_uint(const char *s, unsigned long long max, unsigned long long *ret) {
        unsigned long long v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                if (v > (ULLONG_MAX - (unsigned) (*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (unsigned) (*p - '0');
        }
        if (v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_int(const char *s, long long max, long long *ret) {
        bool negative = s && s[0] == '-';
        unsigned long long v;
        int r;

        if (max < 0)
                return -EINVAL;
        r = parse_uint(s ? s + negative : NULL, (unsigned long long) max, &v);
        if (r < 0)
                return r;
        *ret = negative ? -(long long) v : (long long) v;
        return 0;
}

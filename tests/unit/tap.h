/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A minimal TAP producer for meson's `protocol: 'tap'`. Each check prints
 * "ok N - name" or "not ok N - name" plus a diagnostic; tap_done() prints the
 * plan and returns the exit status.
 */

#undef NDEBUG
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_n, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int cond, const char *fmt, ...) {
        va_list ap;
        tap_n++;
        if (!cond)
                tap_failed++;
        printf("%s %u - ", cond ? "ok" : "not ok", tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
        return cond;
}

#define TAP_EQ_INT(got, want, ...)                                                     \
        do {                                                                           \
                long long _g = (long long) (got), _w = (long long) (want);             \
                if (!tap_ok(_g == _w, __VA_ARGS__))                                    \
                        printf("#   got %lld, want %lld (%s)\n", _g, _w, #got);        \
        } while (0)

#define TAP_EQ_STR(got, want, ...)                                                      \
        do {                                                                            \
                const char *_g = (got), *_w = (want);                                   \
                if (!tap_ok(_g && _w ? strcmp(_g, _w) == 0 : _g == _w, __VA_ARGS__))    \
                        printf("#   got \"%s\", want \"%s\"\n", _g ? _g : "(null)",     \
                               _w ? _w : "(null)");                                     \
        } while (0)

__attribute__((unused))
static int tap_done(void) {
        printf("1..%u\n", tap_n);
        return tap_failed ? 1 : 0;
}

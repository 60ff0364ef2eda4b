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
#include <stdlib.h>
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

/* CI installs everything a test needs (scripts/install-deps.sh --tests), so
 * there a check that cannot run for want of something is a failure. */
static inline int tap_under_ci(void) {
        const char *ci = getenv("CI");
        return ci && strcmp(ci, "true") == 0;
}

/*
 * tap_skip("what # SKIP why", ...): a check that cannot run here, for a
 * reason CI could have removed (a missing package, a missing build
 * artefact). Under CI=true it fails. tap_skip_host() is for reasons no
 * machine of this kind can remove (root reads any file, say): it skips
 * everywhere; each use says why.
 */
__attribute__((format(printf, 1, 2), unused))
static void tap_skip(const char *fmt, ...) {
        char line[512];
        char *mark;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        tap_n++;
        if (!tap_under_ci()) {
                printf("ok %u - %s\n", tap_n, line);
        } else {
                tap_failed++;
                mark = strstr(line, " # SKIP ");
                if (mark)
                        *mark = 0;
                printf("not ok %u - %s\n# skipped (%s), which CI=true does not allow: "
                       "scripts/install-deps.sh --tests must provide it\n",
                       tap_n, line, mark ? mark + 8 : "no reason given");
        }
        fflush(stdout);
}

__attribute__((format(printf, 1, 2), unused))
static void tap_skip_host(const char *fmt, ...) {
        va_list ap;

        tap_n++;
        printf("ok %u - ", tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
}

/* The whole test cannot run (see tap_skip); returns the exit status. */
__attribute__((unused))
static int tap_skip_all(const char *reason) {
        if (tap_under_ci()) {
                printf("not ok 1 - the test runs\n# skipped (%s), which CI=true does not allow: "
                       "scripts/install-deps.sh --tests must provide it\n1..1\n", reason);
                return 1;
        }
        printf("1..0 # SKIP %s\n", reason);
        return 0;
}

__attribute__((unused))
static int tap_done(void) {
        printf("1..%u\n", tap_n);
        return tap_failed ? 1 : 0;
}

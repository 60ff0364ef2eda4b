/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * When settle_wait() (settle.h) wakes next, without an X event: the end of
 * the quiet time, the cap, or, while damage waits for its read-back, that
 * read-back. Damage not yet read holds the quiet time open past its end,
 * so then the read-back alone wakes it. Never before now: the time left is
 * what poll() waits, and a time already past must not wrap into hours.
 * All CLOCK_MONOTONIC usec. Pure, for its unit test.
 */
static inline unsigned long long settle_wake_at(unsigned long long now, unsigned long long quiet_end,
                                                unsigned long long cap, bool pending, unsigned long long next_read) {
        unsigned long long until = quiet_end < cap ? quiet_end : cap;

        if (pending && (next_read < until || until <= now))
                until = next_read < cap ? next_read : cap;
        return until > now ? until : now;
}

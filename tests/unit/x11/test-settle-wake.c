/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * settle_wake_at() (settle-wake.h): the wait of settle_wait() between X
 * events ends at the quiet time's end, the cap, or the read-back of damage
 * not yet read; past the quiet time with damage pending it is the
 * read-back, never a time already past (whose poll() timeout wrapped into
 * a minute's wait, until the panel clock drew).
 */
#include "tap.h"

#include "settle-wake.h"

int main(void) {
        /* Times in usec from an arbitrary start. */
        TAP_EQ_INT(settle_wake_at(1000, 60000, 2000000, false, 0) == 60000, 1, "nothing pending: the quiet time's end");
        TAP_EQ_INT(settle_wake_at(1000, 60000, 30000, false, 0) == 30000, 1, "... or the cap, when it comes first");
        TAP_EQ_INT(settle_wake_at(1000, 60000, 2000000, true, 40000) == 40000, 1,
                   "damage pending, read back before the quiet time ends: the read-back");
        TAP_EQ_INT(settle_wake_at(1000, 60000, 2000000, true, 90000) == 60000, 1,
                   "damage pending, read back after the quiet time's end, still ahead: the quiet time's end");
        TAP_EQ_INT(settle_wake_at(65000, 60000, 2000000, true, 90000) == 90000, 1,
                   "past the quiet time with damage pending: its read-back, not a time already past");
        TAP_EQ_INT(settle_wake_at(65000, 60000, 80000, true, 90000) == 80000, 1, "... within the cap");
        TAP_EQ_INT(settle_wake_at(95000, 60000, 2000000, true, 90000) == 95000, 1,
                   "a read-back already due: now, never before");
        TAP_EQ_INT(settle_wake_at(3000000, 60000, 2000000, false, 0) == 3000000, 1, "past the cap: now");
        return tap_done();
}

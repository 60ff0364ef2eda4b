/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include "util.h"

int main(void) {
        char buf[8];

        memset(buf, 'x', sizeof buf);
        TAP_EQ_INT(strscpy(buf, sizeof buf, "abc"), 3, "a string that fits: its length is returned");
        TAP_EQ_STR(buf, "abc", "a string that fits is copied whole");

        TAP_EQ_INT(strscpy(buf, sizeof buf, "1234567"), 7, "a string that fills the buffer with its NUL fits");
        TAP_EQ_STR(buf, "1234567", "the full-size copy is whole");

        memset(buf, 'x', sizeof buf);
        TAP_EQ_INT(strscpy(buf, sizeof buf, "12345678"), -ENOBUFS, "one byte too long: -ENOBUFS");
        TAP_EQ_STR(buf, "1234567", "a cut copy is still NUL-terminated within the buffer");

        TAP_EQ_INT(strscpy(buf, sizeof buf, ""), 0, "the empty string is a copy of length 0");
        TAP_EQ_STR(buf, "", "the empty string is copied");

        buf[0] = 'x';
        TAP_EQ_INT(strscpy(buf, 0, "a"), -ENOBUFS, "a buffer of size 0 takes nothing: -ENOBUFS");
        tap_ok(buf[0] == 'x', "a buffer of size 0 is not written");

        TAP_EQ_INT(strscpy(buf, 1, "a"), -ENOBUFS, "a buffer of size 1 holds only the NUL");
        TAP_EQ_STR(buf, "", "a buffer of size 1 is left the empty string");
        return tap_done();
}

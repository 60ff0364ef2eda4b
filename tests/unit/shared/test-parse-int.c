/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parse_int(): a decimal number with an optional '-', strict, within [-max, max]. */
#include "tap.h"

#include "util.h"

int main(void) {
        long long v = 7;

        TAP_EQ_INT(parse_int("42", 1000, &v), 0, "a positive number parses");
        TAP_EQ_INT(v, 42, "its value");
        TAP_EQ_INT(parse_int("-3", 1000, &v), 0, "a negative number parses");
        TAP_EQ_INT(v, -3, "its value is negative");
        TAP_EQ_INT(parse_int("-0", 1000, &v), 0, "minus zero parses");
        TAP_EQ_INT(v, 0, "as zero");
        TAP_EQ_INT(parse_int("1000", 1000, &v), 0, "max itself is in range");
        TAP_EQ_INT(parse_int("-1000", 1000, &v), 0, "minus max is in range");
        TAP_EQ_INT(v, -1000, "its value");

        v = 7;
        TAP_EQ_INT(parse_int("1001", 1000, &v), -ERANGE, "above max: -ERANGE");
        TAP_EQ_INT(parse_int("-1001", 1000, &v), -ERANGE, "below minus max: -ERANGE");
        TAP_EQ_INT(parse_int("-", 1000, &v), -EINVAL, "a dash alone is no number");
        TAP_EQ_INT(parse_int("", 1000, &v), -EINVAL, "the empty string is no number");
        TAP_EQ_INT(parse_int("+3", 1000, &v), -EINVAL, "no plus sign");
        TAP_EQ_INT(parse_int("--3", 1000, &v), -EINVAL, "one minus at most");
        TAP_EQ_INT(parse_int(" 3", 1000, &v), -EINVAL, "no leading space");
        TAP_EQ_INT(parse_int("3x", 1000, &v), -EINVAL, "no junk after the digits");
        TAP_EQ_INT(parse_int(NULL, 1000, &v), -EINVAL, "NULL is no number");
        TAP_EQ_INT(parse_int("3", -1, &v), -EINVAL, "a negative max is refused");
        TAP_EQ_INT(v, 7, "a refused word leaves the result alone");
        return tap_done();
}

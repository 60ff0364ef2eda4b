/* SPDX-License-Identifier: LGPL-2.1-or-later */
#undef NDEBUG
#include <stdlib.h>

#include "tap.h"
#include "util.h"

/* ARRAY_GROW: the first allocation, the doubling, and every element kept across them. */
static void test_grow(void) {
        _cleanup_free_ unsigned *v = NULL;
        size_t n = 0, cap = 0;
        bool kept = true;

        tap_ok(ARRAY_GROW(v, n, cap, 4) == 0 && v && cap == 4, "an empty array gets the first allocation");
        tap_ok(ARRAY_GROW(v, n, cap, 4) == 0 && cap == 4, "an array with room is left as it is");
        for (unsigned i = 0; i < 100; i++) {
                if (ARRAY_GROW(v, n, cap, 4) < 0)
                        break;
                v[n++] = i;
        }
        TAP_EQ_INT(n, 100, "a hundred elements appended one at a time");
        TAP_EQ_INT(cap, 128, "the allocation doubled each time it was full: 4, 8, ..., 128");
        for (size_t i = 0; i < n; i++)
                kept = kept && v[i] == i;
        tap_ok(kept, "every element is where it was put, across the reallocations");
}

int main(void) {
        test_grow();
        return tap_done();
}

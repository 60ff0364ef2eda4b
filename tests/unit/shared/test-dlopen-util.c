/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen_symbols() (dlopen-util.h): every symbol found, or none kept; a
 * library that is not there is -ELIBACC. Against the C library itself.
 */
#include <errno.h>
#include <string.h>

#include "tap.h"

#include "dlopen-util.h"
#include "util.h"

int main(void) {
        size_t (*my_strlen)(const char *) = NULL;
        int (*my_strcmp)(const char *, const char *) = NULL;
        void *missing = NULL;
        const struct dlopen_symbol both[] = { DLOPEN_SYMBOL(strlen, my_strlen), DLOPEN_SYMBOL(strcmp, my_strcmp) };
        const struct dlopen_symbol one_missing[] = {
                DLOPEN_SYMBOL(strlen, my_strlen),
                { "botdesk_no_such_symbol", &missing },
        };

        TAP_EQ_INT(dlopen_symbols("libc.so.6", both, ELEMENTSOF(both)), 0, "two symbols of the C library are found");
        tap_ok(my_strlen && my_strlen("botdesk") == 7 && my_strcmp && my_strcmp("a", "a") == 0,
               "... and called through the pointers their rows name");
        TAP_EQ_INT(dlopen_symbols("libc.so.6", one_missing, ELEMENTSOF(one_missing)), -ELIBACC,
                   "one symbol missing: -ELIBACC");
        tap_ok(!my_strlen && !missing, "... and no pointer is kept, the one found before it neither");
        TAP_EQ_INT(dlopen_symbols("libbotdesk-no-such-library.so.0", both, ELEMENTSOF(both)), -ELIBACC,
                   "a library that is not there: -ELIBACC");
        return tap_done();
}

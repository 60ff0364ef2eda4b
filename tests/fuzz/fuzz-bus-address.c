/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A D-Bus address comes from a file the desktop can write or from an
 * application's answer: arbitrary bytes. What bus_address_sanitize()
 * accepts is one Unix socket, and what it hands back is accepted again and
 * written back the same (the address sd-bus parses is the one checked).
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-address.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *text = strndup((const char *) data, size), *out = NULL, *again = NULL;
        int r;

        if (!text)
                return 0;
        r = bus_address_sanitize(text, &out);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                if (r != -EINVAL && r != -EPROTONOSUPPORT)
                        abort();
                return 0;
        }
        if (!startswith(text, "unix:") || strchr(text, ';'))
                abort();
        if (!startswith(out, "unix:path=/") && !startswith(out, "unix:abstract="))
                abort();
        if (strchr(out, ';'))
                abort();
        r = bus_address_sanitize(out, &again);
        if (r == -ENOMEM)
                return 0;
        if (r < 0 || !streq(out, again))
                abort();
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(const char *text, bool is_user_file, FILE *sink) {
        struct config_errors errs = {};
        struct bd_config c = {};

        (void) config_load_string(&c, "work", text, "fuzz.ini", is_user_file, &errs);
        if (sink) {
                config_dump(&c, sink);
                config_errors_print(&errs, sink);
        }
        config_done(&c);
        config_errors_done(&errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* Opened once: the printers are exercised without paying an open()
         * per input. */
        static FILE *sink;
        char *text;

        if (!sink)
                sink = fopen("/dev/null", "we");

        /* config_load_string takes a C string; a NUL inside the input just
         * ends it early, as it would for any caller. */
        text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';

        run(text, false, sink);
        run(text, true, sink);

        free(text);
        return 0;
}

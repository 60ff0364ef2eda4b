/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* The input as the system file, NUL bytes and all, read as a file is read:
 * config_load_string() takes a C string, so only a file brings a NUL to the
 * reader. */
static void run_file(int memfd, const uint8_t *data, size_t size, FILE *sink) {
        struct config_errors errs = {};
        struct bd_config c = {};
        char path[64];

        if (memfd < 0 || ftruncate(memfd, 0) < 0 || pwrite(memfd, data, size, 0) != (ssize_t) size)
                return;
        (void) snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
        (void) config_load(&c, "work", &(const struct config_sources) { .system_path = path, .user_path = "" }, &errs);
        if (sink)
                config_errors_print(&errs, sink);
        config_done(&c);
        config_errors_done(&errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* Opened once: the printers are exercised without paying an open()
         * per input. */
        static FILE *sink;
        static int memfd = -2;
        char *text;

        if (!sink)
                sink = fopen("/dev/null", "we");
        if (memfd == -2)
                memfd = memfd_create("fuzz-config", MFD_CLOEXEC);
        run_file(memfd, data, size, sink);

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

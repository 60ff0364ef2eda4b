/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the configuration tests share (test-config.c: values and errors of
 * one text; test-config-files.c: files, contexts, the environment, the
 * shipped file, dump and print): the loaded configuration and its errors,
 * loading a text or files into them, the checks of errors, and files in a
 * scratch dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"
#include "util.h"

_unused_ static struct bd_config cfg;
_unused_ static struct config_errors errs;
_unused_ static char tmpdir[] = "/tmp/test-config.XXXXXX";

_unused_ static void print_errors(void) {
        for (size_t i = 0; i < errs.n; i++)
                printf("#   error: %s:%u: %s\n", errs.items[i].file, errs.items[i].line, errs.items[i].message);
}

_unused_ static void reset(void) {
        config_done(&cfg);
        config_errors_done(&errs);
}

_unused_ static int load(const char *profile, const char *text, bool user_file) {
        reset();
        return config_load_string(&cfg, profile, text, "test.ini", user_file, &errs);
}

_unused_ static int load_files(const char *profile, const char *system_path, const char *user_path, bool root_context) {
        struct config_sources src = {
                .system_path = system_path,
                .user_path = user_path,
                .root_context = root_context,
        };

        reset();
        return config_load(&cfg, profile, &src, &errs);
}

_unused_ static const struct config_error *find_error(const char *file, unsigned line, const char *needle) {
        for (size_t i = 0; i < errs.n; i++)
                if ((!file || strcmp(errs.items[i].file, file) == 0) && errs.items[i].line == line &&
                    strstr(errs.items[i].message, needle))
                        return &errs.items[i];
        return NULL;
}

/* The one error of text is on line and its message contains needle. */
_unused_ static void expect_error(const char *name, const char *text, bool user_file, unsigned line, const char *needle) {
        int r = load(NULL, text, user_file);

        if (!tap_ok(r == -EINVAL && errs.n == 1 && find_error("test.ini", line, needle), "%s", name)) {
                printf("#   r=%d, want exactly one error on line %u containing \"%s\"\n", r, line, needle);
                print_errors();
        }
}

_unused_ static void expect_clean(const char *name, int r) {
        if (!tap_ok(r == 0 && errs.n == 0, "%s", name)) {
                printf("#   r=%d, %zu errors\n", r, errs.n);
                print_errors();
        }
}

_unused_ static char *tmp_path(const char *name) {
        char *p;

        if (asprintf(&p, "%s/%s", tmpdir, name) < 0)
                abort();
        return p;
}

_unused_ static char *write_tmp(const char *name, const char *data, size_t size, mode_t mode) {
        char *p = tmp_path(name);
        FILE *f;

        if (size == SIZE_MAX)
                size = strlen(data);
        (void) unlink(p);
        f = fopen(p, "we");
        if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0 || chmod(p, mode) < 0)
                abort();
        return p;
}

_unused_ static char *repeat(char ch, size_t n) {
        char *s = malloc(n + 1);

        if (!s)
                abort();
        memset(s, ch, n);
        s[n] = '\0';
        return s;
}

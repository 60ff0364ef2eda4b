/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bad (and good) configuration files and what botdesk makes of them, byte
 * for byte: the return code, every error with its line, and the effective
 * values as `botdesk config show` prints them, for the globals and for a
 * profile, read as the system file and as the user file. Each
 * config-cases/NAME.ini has its NAME.expected; the expected texts were
 * recorded from the parser that used libinih, so a change of syntax
 * owner, or of any message, shows here.
 *
 *   test-config-cases             run every case (TAP)
 *   test-config-cases --print F   print what the loader makes of file F
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"
#include "util.h"

static void describe_one(FILE *out, const char *name, const char *profile, bool as_user_file) {
        struct config_sources src = {
                .system_path = as_user_file ? "/nonexistent/botdesk.ini" : name,
                .user_path = as_user_file ? name : "",
        };
        struct config_errors errs = {};
        struct bd_config c = {};
        int r;

        r = config_load(&c, profile, &src, &errs);
        fprintf(out, "-- %s file, profile %s: r=%d, %zu error(s)\n", as_user_file ? "user" : "system",
                profile ?: "(none)", r, errs.n);
        config_errors_print(&errs, out);
        config_dump(&c, out);
        config_done(&c);
        config_errors_done(&errs);
}

static void describe(FILE *out, const char *name) {
        describe_one(out, name, NULL, false);
        describe_one(out, name, "work", false);
        describe_one(out, name, "work", true);
}

static char *describe_text(const char *name) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        describe(f, name);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

static void show_first_difference(const char *got, const char *want) {
        unsigned line = 1;
        size_t i = 0, start = 0;

        for (; got[i] && got[i] == want[i]; i++)
                if (got[i] == '\n') {
                        line++;
                        start = i + 1;
                }
        printf("#   first difference on line %u\n#   got:  %.*s\n#   want: %.*s\n", line,
               (int) strcspn(got + start, "\n"), got + start, (int) strcspn(want + start, "\n"), want + start);
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int main(int argc, char **argv) {
        _cleanup_strv_free_ char **cases = NULL;
        _cleanup_free_ char *dir = NULL;
        const char *src = getenv("BOTDESK_SOURCE_DIR");
        DIR *d;
        struct dirent *de;

        if (argc == 3 && streq(argv[1], "--print")) {
                describe(stdout, argv[2]);
                return 0;
        }

        dir = strdup_printf("%s/tests/unit/shared/config-cases", src ?: ".");
        if (!dir || chdir(dir) < 0) {
                printf("Bail out! cannot enter %s (is BOTDESK_SOURCE_DIR set?)\n", dir ?: "config-cases");
                return 1;
        }
        d = opendir(".");
        if (!d) {
                printf("Bail out! cannot list %s\n", dir);
                return 1;
        }
        while ((de = readdir(d)))
                if (strlen(de->d_name) > 4 && streq(de->d_name + strlen(de->d_name) - 4, ".ini"))
                        if (strv_push(&cases, strdup(de->d_name)) < 0) {
                                closedir(d);
                                printf("Bail out! out of memory\n");
                                return 1;
                        }
        closedir(d);
        tap_ok(strv_length(cases) >= 10, "the cases were found (%zu in %s)", strv_length(cases), dir);
        if (cases)
                qsort(cases, strv_length(cases), sizeof(char *), cmp_names);

        for (char **c = cases; c && *c; c++) {
                _cleanup_free_ char *expected_name = NULL, *expected = NULL, *got = NULL;
                size_t size = 0;
                int r;

                expected_name = strdup_printf("%.*s.expected", (int) (strlen(*c) - 4), *c);
                if (!expected_name) {
                        printf("Bail out! out of memory\n");
                        return 1;
                }
                r = read_full_file(expected_name, &expected, &size, 1024 * 1024);
                if (!tap_ok(r >= 0, "%s has its expected text %s", *c, expected_name))
                        continue;
                got = describe_text(*c);
                if (!tap_ok(got && streq(got, expected),
                            "%s: every error, return code and effective value as recorded", *c) && got)
                        show_first_difference(got, expected);
        }
        return tap_done();
}

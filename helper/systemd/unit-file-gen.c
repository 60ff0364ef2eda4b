/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Build time only: writes conf/botdesk@.service from its template, putting
 * the lines of unit-properties.c where the template says "@Unit@" and
 * "@Service@".
 *   unit-file-gen TEMPLATE OUTPUT HELPER_PATH
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "unit-properties.h"
#include "util.h"

static void write_comment(FILE *f, const char *comment) {
        while (comment && *comment) {
                size_t len = strcspn(comment, "\n");

                fprintf(f, "# %.*s\n", (int) len, comment);
                comment += len;
                if (*comment == '\n')
                        comment++;
        }
}

/* A time span as systemd.time(7) writes it, in the largest unit that is exact. */
static void write_usec(FILE *f, uint64_t usec) {
        if (usec % 1000000 == 0)
                fprintf(f, "%" PRIu64 "s", usec / 1000000);
        else if (usec % 1000 == 0)
                fprintf(f, "%" PRIu64 "ms", usec / 1000);
        else
                fprintf(f, "%" PRIu64 "us", usec);
}

static void write_property(FILE *f, const struct unit_property *p, const char *helper_path) {
        write_comment(f, p->comment);
        fprintf(f, "%s=", p->key);
        switch (p->type) {
        case UNIT_VALUE_STRING:
                fputs(p->string, f);
                break;
        case UNIT_VALUE_STRV:
                for (const char *const *s = p->strv; *s; s++)
                        fprintf(f, "%s%s", s == p->strv ? "" : " ", *s);
                break;
        case UNIT_VALUE_BOOL:
                fputs(p->boolean ? "yes" : "no", f);
                break;
        case UNIT_VALUE_USEC:
                write_usec(f, p->usec);
                break;
        case UNIT_VALUE_EXIT_STATUS:
                for (size_t i = 0; i < UNIT_EXIT_STATUS_MAX && p->exit_status[i]; i++)
                        fprintf(f, "%s%d", i ? " " : "", p->exit_status[i]);
                break;
        case UNIT_VALUE_EXEC:
                fprintf(f, "%s %%i", helper_path);
                break;
        }
        fputc('\n', f);
}

static void write_section(FILE *f, const char *section, const char *helper_path) {
        for (size_t i = 0; i < unit_properties_count; i++) {
                const struct unit_property *p = &unit_properties[i];

                if (p->key && streq(p->section, section))
                        write_property(f, p, helper_path);
        }
}

int main(int argc, char *argv[]) {
        _cleanup_free_ char *template = NULL;
        _cleanup_fclose_ FILE *out = NULL;
        const char *line;
        size_t size;
        int r;

        if (argc != 4) {
                fprintf(stderr, "usage: unit-file-gen TEMPLATE OUTPUT HELPER_PATH\n");
                return 2;
        }
        r = read_full_file(argv[1], &template, &size, 1 << 20);
        if (r < 0) {
                fprintf(stderr, "unit-file-gen: %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        out = fopen(argv[2], "we");
        if (!out) {
                fprintf(stderr, "unit-file-gen: %s: %m\n", argv[2]);
                return 1;
        }
        for (line = template; *line;) {
                size_t len = strcspn(line, "\n");

                if (len == strlen("@Unit@") && strncmp(line, "@Unit@", len) == 0)
                        write_section(out, "Unit", argv[3]);
                else if (len == strlen("@Service@") && strncmp(line, "@Service@", len) == 0)
                        write_section(out, "Service", argv[3]);
                else
                        fprintf(out, "%.*s\n", (int) len, line);
                line += len;
                if (*line == '\n')
                        line++;
        }
        if (fflush(out) != 0 || ferror(out)) {
                fprintf(stderr, "unit-file-gen: %s: write error\n", argv[2]);
                return 1;
        }
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <ini.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "reader.h"

/*
 * libinih splits "key = value", trims, cuts comments and finds the lines
 * without '='. It stops being precise exactly where hostile input starts:
 * it truncates a long line and feeds the rest back as a new line, ends a
 * line at a NUL byte, turns an indented line into a continuation of the
 * previous value, takes "[name" and "[name] text" as headers, calls the
 * handler without a line number (Debian's shared library is built without
 * INI_HANDLER_LINENO) and returns only the first line it refused.
 *
 * So inih reads through read_line() below, which hands it one line at a
 * time, counts them, and refuses those lines itself, handing inih an empty
 * line in their place so that its count stays ours. inih calls the handler
 * for a line before it asks for the next, so the handler's line is the
 * reader's. inih's settings are process-wide globals in Debian's build; in
 * a PAM module they belong to the host process, so they are never changed
 * here: every rule below is judged against inih's defaults.
 */

struct reader {
        const char *pos, *end;
        unsigned line;           /* the line handed to inih last */
        char first;              /* its first character */
        bool want_entry;         /* it is neither blank, a comment nor a header */
        bool got_entry;          /* the handler was called for it */
        bool pad;                /* inih's pass has not had its empty first line */
        const struct config_reader_ops *ops;
        void *userdata;
        int r;                   /* the first failure of a callback */
};

/* C-locale isspace(): botdesk never calls setlocale(), and a config file
 * must not read differently under another locale. */
static bool is_space(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Where a section name ends: at ']', or at an inline ';' comment, which
 * needs whitespace before it. inih's rule, so that a header is refused here
 * exactly when inih would take it otherwise. */
static const char *find_bracket_or_comment(const char *s) {
        bool was_space = false;

        for (; *s; s++) {
                if (*s == ']' || (was_space && *s == ';'))
                        break;
                was_space = is_space(*s);
        }
        return s;
}

/* A "[...]" line, NUL-terminated: the header is reported here because inih
 * tells its handler of a section only with the section's first key, and
 * not at all of an empty one or of one it could not read. */
static int judge_header(struct reader *rd, const char *s) {
        char name[CONFIG_MAX_LINE + 1];
        const char *e;
        int r;

        e = find_bracket_or_comment(s + 1);
        if (*e != ']') {
                /* The keys below belong to a section we cannot name:
                 * report the header, not each of them. */
                r = rd->ops->bad_section(rd->userdata, rd->line);
                if (r < 0)
                        return r;
                return rd->ops->error(rd->userdata, rd->line, "expected 'key = value' or '[section]'");
        }
        memcpy(name, s + 1, (size_t) (e - s - 1));
        name[e - s - 1] = '\0';
        r = rd->ops->section(rd->userdata, rd->line, name);
        if (r < 0)
                return r;
        e++;
        e += strspn(e, " \t\v\f\r");
        if (*e != '\0' && *e != ';')
                return rd->ops->error(rd->userdata, rd->line,
                                      "unexpected text after ']' (only a ';' comment may follow)");
        return 0;
}

/* Judges one physical line l (len bytes, without its line ending) and
 * fills str with what inih is to read for it: the line, or an empty line
 * in place of one refused here. */
static int judge_line(struct reader *rd, const char *l, size_t len, char *str, size_t size) {
        const char *s;
        int r;

        str[0] = '\0';
        if (len > CONFIG_MAX_LINE || len >= size) {
                char message[sizeof("line too long (max 18446744073709551615 characters)")];

                (void) snprintf(message, sizeof(message), "line too long (max %u characters)",
                               (unsigned) CONFIG_MAX_LINE);
                return rd->ops->error(rd->userdata, rd->line, message);
        }
        if (memchr(l, '\0', len))
                return rd->ops->error(rd->userdata, rd->line, "unexpected NUL byte");

        memcpy(str, l, len);
        str[len] = '\0';
        s = str + strspn(str, " \t\v\f\r");
        if (*s == '\0' || *s == ';' || *s == '#')
                return 0;
        if (s != str) {
                /* An indented line continues the previous value in inih and in
                 * Python's configparser; a stray indent silently changing a
                 * value is worse than an error. */
                str[0] = '\0';
                return rd->ops->error(rd->userdata, rd->line,
                                      "continuation lines are not supported (remove the indentation)");
        }
        if (*s == '[') {
                r = judge_header(rd, s);
                if (r < 0)
                        return r;
                /* inih reads a header that was not refused for itself; one
                 * that was is not handed on, so that inih does not report it
                 * a second time. */
                if (find_bracket_or_comment(s + 1)[0] != ']')
                        str[0] = '\0';
                return 0;
        }
        rd->first = *s;
        rd->want_entry = true;
        return 0;
}

/* inih's ini_reader: the next line, or NULL to end inih's pass. */
static char *read_line(char *str, int num, void *stream) {
        struct reader *rd = stream;
        const char *l, *nl, *e;
        int r;

        if (rd->r < 0)
                return NULL;
        /* inih skips a BOM on the first line of every pass, and a pass after
         * the first starts on a later line of the file: every pass starts
         * with an empty line of ours, and the file's own BOM is taken below,
         * once, on the file's first line. */
        if (rd->pad) {
                rd->pad = false;
                if (num < 1)
                        return NULL;
                str[0] = '\0';
                return str;
        }
        /* A line that should have reached the handler and did not is one
         * inih refused: the pass ends after it, so that inih's return, which
         * names only the first line it refused, names it, and the next pass
         * starts on the line below. */
        if (rd->want_entry && !rd->got_entry)
                return NULL;
        if (rd->pos >= rd->end || num < 1)
                return NULL;

        l = rd->pos;
        nl = memchr(l, '\n', (size_t) (rd->end - l));
        e = nl ?: rd->end;
        rd->pos = nl ? nl + 1 : rd->end;
        rd->line++;
        rd->want_entry = rd->got_entry = false;

        if (rd->line == 1 && e - l >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
                l += 3;
        if (e > l && e[-1] == '\r')
                e--;

        r = judge_line(rd, l, (size_t) (e - l), str, (size_t) num);
        if (r < 0) {
                rd->r = r;
                return NULL;
        }
        return str;
}

/* inih's handler: nonzero goes on, zero is an error line to inih. */
static int on_pair(void *user, const char *section, const char *name, const char *value) {
        struct reader *rd = user;
        int r;

        (void) section; /* judge_header() reported it */
        rd->got_entry = true;
        if (rd->r < 0)
                return 0;

        if (!value)
                /* Only when the host process turned on ini_allow_no_value. */
                r = rd->ops->error(rd->userdata, rd->line, "expected 'key = value' or '[section]'");
        else if (name[0] == '\0') {
                /* The line starts with the separator: it is not indented. */
                char message[sizeof("missing key name before '='")];

                (void) snprintf(message, sizeof(message), "missing key name before '%c'", rd->first);
                r = rd->ops->error(rd->userdata, rd->line, message);
        } else
                r = rd->ops->entry(rd->userdata, rd->line, name, value);
        if (r < 0) {
                rd->r = r;
                return 0;
        }
        return 1;
}

int config_read(const char *text, size_t size, const struct config_reader_ops *ops, void *userdata) {
        struct reader rd = {
                .pos = text,
                .end = text + size,
                .ops = ops,
                .userdata = userdata,
        };

        while (rd.pos < rd.end) {
                unsigned base = rd.line;
                int r;

                rd.pad = true;

                r = ini_parse_stream(read_line, &rd, on_pair, &rd);
                if (rd.r < 0)
                        return rd.r;
                if (r < 0)
                        /* -2: inih could not allocate its line buffer. */
                        return -ENOMEM;
                /* inih's line 1 is the empty one read_line() pads with. */
                if (r > 1) {
                        r = ops->error(userdata, base + (unsigned) r - 1, "expected 'key = value' or '[section]'");
                        if (r < 0)
                                return r;
                }
                rd.want_entry = false;
        }
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lexer.h"

/*
 * The whole syntax lives here; libinih is not used. inih stops being precise
 * exactly where hostile input starts: it truncates long lines and feeds the
 * rest back as a new line, turns indented lines into continuations, and
 * returns only the first error line. Keeping it meant judging every line
 * here first anyway and handing it only lines that could not fail, so that
 * all it still did was split "key = value" and cut a comment: a dozen lines,
 * written below with inih's rules (a ';' starts an inline comment only after
 * whitespace; names and values are trimmed), so every value reads as before.
 */

/* C-locale isspace(): botdesk never calls setlocale(), and a config file
 * must not read differently under another locale. */
static bool is_space(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Where a name (chars "=:") or a section name (chars "]") ends: at one of
 * chars, or at an inline ';' comment, which needs whitespace before it. */
static char *find_chars_or_comment(char *s, const char *chars) {
        bool was_space = false;

        for (; *s; s++) {
                if (chars && strchr(chars, *s))
                        break;
                if (was_space && *s == ';')
                        break;
                was_space = is_space(*s);
        }
        return s;
}

static char *skip_space(char *s) {
        while (is_space(*s))
                s++;
        return s;
}

static void strip_trailing_space(char *s) {
        size_t n = strlen(s);

        while (n > 0 && is_space(s[n - 1]))
                s[--n] = '\0';
}

static bool is_comment_start(char ch) {
        return ch == ';' || ch == '#';
}

/* One physical line, NUL-terminated, without its line ending. */
static int lex_line(char *line, unsigned lineno, const struct config_lexer_ops *ops, void *userdata) {
        char *s = line, *e, *value;
        int r;

        s += strspn(s, " \t\v\f\r");
        if (*s == '\0' || is_comment_start(*s))
                return 0;

        if (s != line)
                /* An indented line continues the previous value in inih and in
                 * Python's configparser; a stray indent silently changing a
                 * value is worse than an error. */
                return ops->error(userdata, lineno, "continuation lines are not supported (remove the indentation)");

        if (*s == '[') {
                e = find_chars_or_comment(s + 1, "]");
                if (*e != ']') {
                        /* The keys below belong to a section we cannot name:
                         * report the header, not each of them. */
                        r = ops->bad_section(userdata, lineno);
                        if (r < 0)
                                return r;
                        return ops->error(userdata, lineno, "expected 'key = value' or '[section]'");
                }
                *e++ = '\0';
                r = ops->section(userdata, lineno, s + 1);
                if (r < 0)
                        return r;
                e += strspn(e, " \t\v\f\r");
                if (*e != '\0' && *e != ';')
                        return ops->error(userdata, lineno, "unexpected text after ']' (only a ';' comment may follow)");
                return 0;
        }

        e = find_chars_or_comment(s, "=:");
        if (*e != '=' && *e != ':')
                return ops->error(userdata, lineno, "expected 'key = value' or '[section]'");
        if (e == s) {
                char message[sizeof("missing key name before '='")];

                (void) snprintf(message, sizeof(message), "missing key name before '%c'", *e);
                return ops->error(userdata, lineno, message);
        }

        *e = '\0';
        strip_trailing_space(s);
        value = e + 1;
        *find_chars_or_comment(value, NULL) = '\0';
        value = skip_space(value);
        strip_trailing_space(value);
        return ops->entry(userdata, lineno, s, value);
}

int config_lex(const char *text, size_t size, const struct config_lexer_ops *ops, void *userdata) {
        const char *pos = text, *end = text + size;
        char buf[CONFIG_MAX_LINE + 1];
        unsigned lineno = 0;
        int r;

        while (pos < end) {
                const char *l = pos, *nl, *e;
                size_t len;

                nl = memchr(l, '\n', (size_t) (end - l));
                e = nl ?: end;
                pos = nl ? nl + 1 : end;
                lineno++;

                if (lineno == 1 && e - l >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
                        l += 3;
                if (e > l && e[-1] == '\r')
                        e--;
                len = (size_t) (e - l);

                if (len > CONFIG_MAX_LINE) {
                        char message[sizeof("line too long (max 18446744073709551615 characters)")];

                        (void) snprintf(message, sizeof(message), "line too long (max %u characters)",
                                       (unsigned) CONFIG_MAX_LINE);
                        r = ops->error(userdata, lineno, message);
                } else if (memchr(l, '\0', len))
                        r = ops->error(userdata, lineno, "unexpected NUL byte");
                else {
                        memcpy(buf, l, len);
                        buf[len] = '\0';
                        r = lex_line(buf, lineno, ops, userdata);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

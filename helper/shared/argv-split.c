/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "argv-split.h"
#include "envfile.h"
#include "util.h"

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t';
}

int argv_split(const char *line, char ***ret) {
        _cleanup_strv_free_ char **words = NULL;
        _cleanup_free_ char *word = NULL;
        const char *s = line;
        size_t n;
        int r;

        /* No word is longer than the line, so one buffer of its size holds any of them. */
        word = malloc(strlen(line) + 1);
        if (!word)
                return -ENOMEM;

        for (;;) {
                bool have_word = false;

                s += strspn(s, " \t");
                if (*s == '\0')
                        break;
                n = 0;
                while (*s && !is_blank(*s)) {
                        have_word = true;
                        if (*s == '\'') {
                                const char *end = strchr(s + 1, '\'');

                                if (!end)
                                        return -EBADMSG;
                                memcpy(word + n, s + 1, (size_t) (end - s - 1));
                                n += (size_t) (end - s - 1);
                                s = end + 1;
                        } else if (*s == '"') {
                                for (s++; *s != '"'; s++) {
                                        if (*s == '\0')
                                                return -EBADMSG;
                                        /* As in a POSIX shell, but without $ and `: nothing expands here. */
                                        if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
                                                s++;
                                        word[n++] = *s;
                                }
                                s++;
                        } else if (*s == '\\') {
                                if (s[1] == '\0')
                                        return -EINVAL;
                                word[n++] = s[1];
                                s += 2;
                        } else
                                word[n++] = *s++;
                }
                if (!have_word)
                        continue;
                word[n] = '\0';
                r = strv_push(&words, strdup(word));
                if (r < 0)
                        return r;
        }
        if (!words)
                return -ENODATA;
        *ret = TAKE_PTR(words);
        return 0;
}

/* Words a shell reads back unchanged: shown without quotes, for readability. */
static bool word_plain(const char *w) {
        return w[0] && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") == strlen(w);
}

char *argv_join_quoted(char *const *argv) {
        char *ret = strdup("");

        for (char *const *a = argv; a && *a && ret; a++) {
                _cleanup_free_ char *q = word_plain(*a) ? strdup(*a) : shell_quote(*a), *old = ret;

                ret = q ? strdup_printf("%s%s%s", old, old[0] ? " " : "", q) : NULL;
        }
        return ret;
}

int argv_without(char *const *args, char *const *drop, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        bool options = true;

        for (size_t i = 0; args[i]; i++) {
                bool dropped = false;

                options = options && !streq(args[i], "--");
                for (size_t k = 0; options && drop[k] && !dropped; k++)
                        dropped = streq(args[i], drop[k]);
                if (!dropped && strv_push(&l, strdup(args[i])) < 0)
                        return -ENOMEM;
        }
        if (!l && !(l = calloc(1, sizeof *l)))
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

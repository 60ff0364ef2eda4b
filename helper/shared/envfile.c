/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "envfile.h"
#include "util.h"

/* The published file holds a handful of paths; anything larger is not ours. */
#define ENVFILE_MAX (64 * 1024)

static bool key_char(char c, bool first) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
               (!first && c >= '0' && c <= '9');
}

static bool key_valid_n(const char *key, size_t n) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!key_char(key[i], i == 0))
                        return false;
        return true;
}

bool env_key_valid(const char *key) {
        return key && key_valid_n(key, strlen(key));
}

/* Replace an entry with the same key, or append. Takes ownership of entry. */
static bool line_blank(const char *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (p[i] != ' ' && p[i] != '\t')
                        return false;
        return true;
}

int envfile_parse(const char *text, size_t size, char ***ret, unsigned *ret_line) {
        _cleanup_strv_free_ char **env = NULL;
        const char *p = text, *end = text + size;
        unsigned line = 0;
        int r;

        if (ret_line)
                *ret_line = 0;
        if (!text && size > 0)
                return -EINVAL;

        /* Editors on other systems like to start files with a BOM. */
        if (size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3;

        while (p < end) {
                const char *eol = memchr(p, '\n', (size_t) (end - p)) ?: end;
                const char *eq;
                size_t n = (size_t) (eol - p);

                line++;
                if (n > 0 && p[n - 1] == '\r')
                        n--;

                /* A NUL would cut the value short for every C reader, and a
                 * stray CR could not be written back: refuse both. */
                if (memchr(p, 0, n) || memchr(p, '\r', n))
                        goto bad;

                if (line_blank(p, n) || p[0] == '#')
                        goto next;

                eq = memchr(p, '=', n);
                if (!eq || !key_valid_n(p, (size_t) (eq - p)))
                        goto bad;

                r = strv_env_put(&env, strndup(p, n));
                if (r < 0)
                        return r;
        next:
                p = eol < end ? eol + 1 : end;
        }

        if (!env) {
                env = calloc(1, sizeof(char *));
                if (!env)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(env);
        return 0;

bad:
        if (ret_line)
                *ret_line = line;
        return -EBADMSG;
}

int envfile_read(const char *path, char ***ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size;
        int r;

        r = read_full_file(path, &buf, &size, ENVFILE_MAX);
        if (r < 0)
                return r;
        return envfile_parse(buf, size, ret, NULL);
}

int envfile_read_at(int dirfd, const char *name, char ***ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size;
        int r;

        r = read_full_file_at(dirfd, name, &buf, &size, ENVFILE_MAX);
        if (r < 0)
                return r;
        return envfile_parse(buf, size, ret, NULL);
}

int envfile_format(char *const *env, char **ret) {
        size_t total = 1;
        char *s, *w;

        for (char *const *i = env; i && *i; i++) {
                const char *eq = strchr(*i, '=');

                if (!eq || !key_valid_n(*i, (size_t) (eq - *i)))
                        return -EINVAL;
                /* One line per variable is the whole format: a CR would be
                 * eaten as part of a CRLF line end on the way back. */
                if (strpbrk(eq + 1, "\n\r"))
                        return -EINVAL;
                total += strlen(*i) + 1;
        }

        s = w = malloc(total);
        if (!s)
                return -ENOMEM;
        for (char *const *i = env; i && *i; i++) {
                w = stpcpy(w, *i);
                *w++ = '\n';
        }
        *w = 0;
        *ret = s;
        return 0;
}

int envfile_write_at(int dirfd, const char *name, char *const *env) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = envfile_format(env, &text);
        if (r < 0)
                return r;
        return write_file_atomic_at(dirfd, name, text, strlen(text), 0600);
}

char *shell_quote(const char *value) {
        size_t n = 3;
        char *s, *w;

        if (!value)
                return NULL;
        for (const char *p = value; *p; p++)
                n += *p == '\'' ? 4 : 1;

        s = w = malloc(n);
        if (!s)
                return NULL;
        *w++ = '\'';
        for (const char *p = value; *p; p++) {
                /* Nothing is special inside single quotes except the quote
                 * itself: close, emit an escaped quote, reopen. */
                if (*p == '\'')
                        w = stpcpy(w, "'\\''");
                else
                        *w++ = *p;
        }
        *w++ = '\'';
        *w = 0;
        return s;
}

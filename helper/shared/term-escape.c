/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "term-escape.h"
#include "util.h"

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when there is none. */
static size_t utf8_len(const unsigned char *s, size_t n) {
        unsigned char lo = 0x80, hi = 0xBF;
        size_t l;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xC2 && s[0] <= 0xDF)
                l = 2;
        else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
                l = 3;
                /* no overlong forms, no surrogates */
                if (s[0] == 0xE0)
                        lo = 0xA0;
                else if (s[0] == 0xED)
                        hi = 0x9F;
        } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
                l = 4;
                if (s[0] == 0xF0)
                        lo = 0x90;
                else if (s[0] == 0xF4)
                        hi = 0x8F;
        } else
                return 0;
        if (n < l || s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < l; i++)
                if (s[i] < 0x80 || s[i] > 0xBF)
                        return 0;
        return l;
}

char *term_escape(const char *s, size_t n, bool keep_lines) {
        const unsigned char *p = (const unsigned char *) s;
        char *out, *o;
        size_t i = 0;

        /* Each byte grows to at most 4 ("\xNN"), a C1's two bytes to 6 ("\u00NN"). */
        if (n > (SIZE_MAX - 1) / 4)
                return NULL;
        out = o = malloc(n * 4 + 1);
        if (!out)
                return NULL;
        while (i < n) {
                size_t l = utf8_len(p + i, n - i);

                if (l == 1 && (p[i] >= 0x20 && p[i] != 0x7F))
                        *o++ = (char) p[i];
                else if (l == 1 && keep_lines && (p[i] == '\n' || p[i] == '\t'))
                        *o++ = (char) p[i];
                else if (l == 1 || l == 0) {
                        o += sprintf(o, "\\x%02x", p[i]);
                        l = 1;
                } else if (l == 2 && p[i] == 0xC2 && p[i + 1] <= 0x9F)
                        o += sprintf(o, "\\u00%02x", p[i + 1]);
                else {
                        memcpy(o, p + i, l);
                        o += l;
                }
                i += l;
        }
        *o = 0;
        return out;
}

bool term_is_tty(FILE *f) {
        int fd = fileno(f);

        return fd >= 0 && isatty(fd);
}

const char *term_field(FILE *f, const char *s, char **buf) {
        *buf = NULL;
        if (!s || !term_is_tty(f))
                return s;
        *buf = term_escape(s, strlen(s), false);
        /* Out of memory: nothing of it rather than all of it raw. */
        return *buf ?: "?";
}

int term_write(FILE *f, const char *s, size_t n) {
        _cleanup_free_ char *e = NULL;

        if (!term_is_tty(f))
                return fwrite(s, 1, n, f) == n ? 0 : -EIO;
        e = term_escape(s, n, true);
        if (!e)
                return -ENOMEM;
        return fputs(e, f) >= 0 ? 0 : -EIO;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strings: formatted copies, bounded copies, a problem's words, hex. (util.h) */
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

char *strdup_vprintf(const char *fmt, va_list ap) {
        char *s;

        return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

ssize_t strscpy(char *dst, size_t size, const char *src) {
        size_t l;

        if (size == 0)
                return -ENOBUFS;
        l = strnlen(src, size);
        if (l == size) {
                memcpy(dst, src, size - 1);
                dst[size - 1] = 0;
                return -ENOBUFS;
        }
        memcpy(dst, src, l + 1);
        return (ssize_t) l;
}

int problemf(char **ret, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        *ret = strdup_vprintf(fmt, ap);
        va_end(ap);
        return *ret ? -EINVAL : -ENOMEM;
}

char *strdup_printf(const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = strdup_vprintf(fmt, ap);
        va_end(ap);
        return s;
}

void hex_encode(const void *data, size_t n, char *ret) {
        static const char digits[] = "0123456789abcdef";
        const uint8_t *d = data;

        for (size_t i = 0; i < n; i++) {
                ret[2 * i] = digits[d[i] >> 4];
                ret[2 * i + 1] = digits[d[i] & 15];
        }
        ret[2 * n] = 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "utf8.h"

size_t utf8_decode(const uint8_t *p, const uint8_t *end, uint32_t *ret_cp) {
        uint32_t cp, min;
        size_t n;

        if (p[0] < 0x80) {
                n = 1, cp = p[0];
                goto done;
        }
        if ((p[0] & 0xe0) == 0xc0)
                n = 2, cp = p[0] & 0x1f, min = 0x80;
        else if ((p[0] & 0xf0) == 0xe0)
                n = 3, cp = p[0] & 0x0f, min = 0x800;
        else if ((p[0] & 0xf8) == 0xf0)
                n = 4, cp = p[0] & 0x07, min = 0x10000;
        else
                return 0;
        if ((size_t) (end - p) < n)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
done:
        if (ret_cp)
                *ret_cp = cp;
        return n;
}

bool utf8_valid(const uint8_t *s, size_t n) {
        for (size_t i = 0, k; i < n; i += k) {
                k = utf8_decode(s + i, s + n, NULL);
                if (k == 0)
                        return false;
        }
        return true;
}

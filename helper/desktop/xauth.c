/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/random.h>

#include "util.h"
#include "xauth.h"

/* libXau's families (Xauth.h): FamilyWild, "any address", and FamilyLocal. */
#define XAUTH_FAMILY_WILD 0xffff
#define XAUTH_FAMILY_LOCAL 256

int xauth_cookie_new(uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        ssize_t n = getrandom(cookie, XAUTH_COOKIE_SIZE, 0);

        if (n < 0)
                return negative_errno();
        return n == XAUTH_COOKIE_SIZE ? 0 : -EIO;
}

static size_t put_counted(uint8_t *p, const void *data, size_t size) {
        /* Xauthority fields are a 16-bit big-endian length and the bytes. */
        p[0] = (uint8_t) (size >> 8);
        p[1] = (uint8_t) size;
        memcpy(p + 2, data, size);
        return size + 2;
}

int xauth_write_at(int dirfd, const char *name, unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        return xauth_write_displays_at(dirfd, name, &display, 1, cookie);
}

int xauth_write_displays_at(int dirfd, const char *name, const unsigned *displays, size_t n_displays,
                            const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        uint8_t buf[256];
        size_t n = 0;

        if (n_displays == 0 || n_displays > 2)
                return -EINVAL;
        for (size_t i = 0; i < n_displays; i++) {
                char number[16];

                snprintf(number, sizeof number, "%u", displays[i]);
                buf[n++] = (uint8_t) (XAUTH_FAMILY_WILD >> 8);
                buf[n++] = (uint8_t) XAUTH_FAMILY_WILD;
                n += put_counted(buf + n, "", 0);
                n += put_counted(buf + n, number, strlen(number));
                n += put_counted(buf + n, XAUTH_PROTOCOL, strlen(XAUTH_PROTOCOL));
                n += put_counted(buf + n, cookie, XAUTH_COOKIE_SIZE);
        }
        return write_file_atomic_at(dirfd, name, buf, n, 0600);
}

static int get_counted(const uint8_t *data, size_t size, size_t *pos, const uint8_t **ret, size_t *ret_len) {
        size_t l;

        if (size - *pos < 2)
                return -EBADMSG;
        l = (size_t) data[*pos] << 8 | data[*pos + 1];
        *pos += 2;
        if (size - *pos < l)
                return -EBADMSG;
        *ret = data + *pos;
        *ret_len = l;
        *pos += l;
        return 0;
}

int xauth_lookup(const uint8_t *data, size_t size, unsigned display, struct xauth_cookie *ret) {
        char number[16];
        size_t pos = 0;

        snprintf(number, sizeof number, "%u", display);
        while (pos < size) {
                const uint8_t *addr, *num, *name, *cookie;
                size_t addr_len, num_len, name_len, cookie_len;
                unsigned family;

                if (size - pos < 2)
                        return -EBADMSG;
                family = (unsigned) data[pos] << 8 | data[pos + 1];
                pos += 2;
                if (get_counted(data, size, &pos, &addr, &addr_len) < 0 ||
                    get_counted(data, size, &pos, &num, &num_len) < 0 ||
                    get_counted(data, size, &pos, &name, &name_len) < 0 ||
                    get_counted(data, size, &pos, &cookie, &cookie_len) < 0)
                        return -EBADMSG;
                /* An empty display number matches every display, as in libXau. */
                if ((family == XAUTH_FAMILY_WILD || family == XAUTH_FAMILY_LOCAL) &&
                    (num_len == 0 || (num_len == strlen(number) && memcmp(num, number, num_len) == 0)) &&
                    name_len == strlen(XAUTH_PROTOCOL) && memcmp(name, XAUTH_PROTOCOL, name_len) == 0) {
                        *ret = (struct xauth_cookie) {
                                .name = (const char *) name,
                                .name_len = name_len,
                                .data = cookie,
                                .data_len = cookie_len,
                        };
                        return 0;
                }
        }
        return -ENOENT;
}

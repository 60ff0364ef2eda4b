/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"
#include "xauth.h"

static void test_xauth(void) {
        char dir[] = "/tmp/test-xauth.XXXXXX";
        const uint8_t cookie[XAUTH_COOKIE_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct xauth_cookie c = {};
        size_t size = 0;

        if (!mkdtemp(dir))
                abort();
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        /* The file exactly as the helper writes it. */
        TAP_EQ_INT(xauth_write_at(fd, "Xauthority", 23, cookie), 0, "xauth_write_at writes an Xauthority file");
        TAP_EQ_INT(read_full_file_at(fd, "Xauthority", &text, &size, 4096), 0, "the Xauthority file reads back");
        (void) unlinkat(fd, "Xauthority", 0);
        (void) rmdir(dir);

        TAP_EQ_INT(xauth_lookup((const uint8_t *) text, size, 23, &c), 0,
                   "the cookie the helper wrote is found for its display");
        tap_ok(c.name_len == 18 && memcmp(c.name, "MIT-MAGIC-COOKIE-1", 18) == 0, "the cookie is a MIT-MAGIC-COOKIE-1");
        tap_ok(c.data_len == XAUTH_COOKIE_SIZE && memcmp(c.data, cookie, XAUTH_COOKIE_SIZE) == 0,
               "the cookie's 16 bytes are the ones written");
        TAP_EQ_INT(xauth_lookup((const uint8_t *) text, size, 24, &c), -ENOENT,
                   "another display's number finds no cookie");
        TAP_EQ_INT(xauth_lookup((const uint8_t *) text, size - 1, 23, &c), -EBADMSG,
                   "a truncated Xauthority file is refused");
        TAP_EQ_INT(xauth_lookup((const uint8_t *) text, 0, 23, &c), -ENOENT, "an empty Xauthority file has no cookie");
}

int main(void) {
        test_xauth();
        return tap_done();
}

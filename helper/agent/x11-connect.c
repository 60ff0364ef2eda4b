/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>

#include "util.h"
#include "x11-connect.h"
#include "xauth.h"

int x11_connect_with_cookie(const char *display, const char *xauthority, xcb_connection_t **ret, int *ret_screen) {
        _cleanup_free_ char *host = NULL, *text = NULL;
        struct xauth_cookie cookie;
        xcb_auth_info_t auth;
        xcb_connection_t *c;
        size_t size;
        int number, screen, r;

        if (!display || !xcb_parse_display(display, &host, &number, &screen) || number < 0)
                return -EINVAL;
        r = read_full_file(xauthority, &text, &size, 64 * 1024);
        if (r < 0)
                return r;
        r = xauth_lookup((const uint8_t *) text, size, (unsigned) number, &cookie);
        if (r < 0)
                return r;

        /* Our own cookie, never XAUTHORITY or ~/.Xauthority of the caller. */
        auth = (xcb_auth_info_t) {
                .namelen = (int) cookie.name_len,
                .name = (char *) (uintptr_t) cookie.name,
                .datalen = (int) cookie.data_len,
                .data = (char *) (uintptr_t) cookie.data,
        };
        c = xcb_connect_to_display_with_auth_info(display, &auth, &screen);
        if (xcb_connection_has_error(c)) {
                xcb_disconnect(c);
                return -ECONNREFUSED;
        }
        *ret = c;
        *ret_screen = screen;
        return 0;
}

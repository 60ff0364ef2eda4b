/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "util.h"
#include "x11.h"

xcb_connection_t *x11_connect_plain(unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE], int *ret_screen) {
        char name[32], proto[] = XAUTH_PROTOCOL;
        xcb_auth_info_t auth = {
                .namelen = (int) strlen(proto),
                .name = proto,
                .datalen = XAUTH_COOKIE_SIZE,
                .data = (char *) cookie,
        };
        xcb_connection_t *c;
        int screen = 0;

        snprintf(name, sizeof name, ":%u", display);
        c = xcb_connect_to_display_with_auth_info(name, &auth, &screen);
        if (!c || xcb_connection_has_error(c)) {
                if (c)
                        xcb_disconnect(c);
                return NULL;
        }
        if (ret_screen)
                *ret_screen = screen;
        return c;
}

int x11_connect(struct x11 *x, unsigned display, const uint8_t cookie[XAUTH_COOKIE_SIZE]) {
        static const char atom_name[] = "_NET_SUPPORTING_WM_CHECK";
        xcb_intern_atom_reply_t *atom;
        const xcb_setup_t *setup;
        uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        xcb_void_cookie_t ck;
        xcb_generic_error_t *err;

        *x = (struct x11) {};
        x->conn = x11_connect_plain(display, cookie, NULL);
        if (!x->conn)
                return -ECONNREFUSED;
        setup = xcb_get_setup(x->conn);
        x->root = xcb_setup_roots_iterator(setup).data->root;

        atom = xcb_intern_atom_reply(x->conn, xcb_intern_atom(x->conn, 0, sizeof atom_name - 1, atom_name), NULL);
        if (!atom) {
                x11_disconnect(x);
                return -EPROTO;
        }
        x->wm_check = atom->atom;
        free(atom);

        /* Select before the first look, so that a WM arriving in between is seen. */
        ck = xcb_change_window_attributes_checked(x->conn, x->root, XCB_CW_EVENT_MASK, &mask);
        err = xcb_request_check(x->conn, ck);
        if (err) {
                free(err);
                x11_disconnect(x);
                return -EPROTO;
        }
        return 0;
}

void x11_disconnect(struct x11 *x) {
        if (x->conn)
                xcb_disconnect(x->conn);
        x->conn = NULL;
}

int x11_fd(const struct x11 *x) {
        return xcb_get_file_descriptor(x->conn);
}

static xcb_window_t window_property(struct x11 *x, xcb_window_t w) {
        xcb_get_property_reply_t *reply;
        xcb_window_t v = XCB_NONE;

        reply = xcb_get_property_reply(
                x->conn, xcb_get_property(x->conn, 0, w, x->wm_check, XCB_ATOM_WINDOW, 0, 1), NULL);
        if (!reply)
                return XCB_NONE;
        if (reply->type == XCB_ATOM_WINDOW && reply->format == 32 && xcb_get_property_value_length(reply) == 4)
                v = *(xcb_window_t *) xcb_get_property_value(reply);
        free(reply);
        return v;
}

int x11_wm_present(struct x11 *x) {
        xcb_window_t w = window_property(x, x->root);

        if (w == XCB_NONE)
                return 0;
        /* EWMH: the check window carries the same property naming itself; a
         * stale value left by a dead WM names a window that no longer exists. */
        return window_property(x, w) == w;
}

int x11_process_events(struct x11 *x) {
        xcb_generic_event_t *ev;
        int changed = 0;

        while ((ev = xcb_poll_for_event(x->conn))) {
                if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
                        xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *) ev;
                        if (pn->window == x->root && pn->atom == x->wm_check)
                                changed = 1;
                }
                free(ev);
        }
        if (xcb_connection_has_error(x->conn))
                return -EPIPE;
        return changed;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <xcb/xtest.h>

#include "held-input.h"

/* QueryPointer's mask knows buttons 1-5, from Button1Mask (1 << 8) on. */
#define CORE_BUTTONS 5

int held_input_release(xcb_connection_t *c, xcb_window_t root) {
        const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xcb_test_id);
        xcb_query_pointer_reply_t *p;
        xcb_query_keymap_reply_t *k;
        xcb_get_input_focus_reply_t *sync;
        int n = 0;

        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        p = xcb_query_pointer_reply(c, xcb_query_pointer(c, root), NULL);
        k = xcb_query_keymap_reply(c, xcb_query_keymap(c), NULL);
        if (!p || !k) {
                free(p);
                free(k);
                return -EIO;
        }
        for (unsigned b = 1; b <= CORE_BUTTONS; b++)
                if (p->mask & (XCB_BUTTON_MASK_1 << (b - 1))) {
                        xcb_test_fake_input(c, XCB_BUTTON_RELEASE, (uint8_t) b, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
                        n++;
                }
        /* Keycodes 8-255. Control was someone else's until now: what is
         * down is theirs, pressed through XTEST if it was the agent's. */
        for (unsigned code = 8; code < 256; code++)
                if (k->keys[code / 8] & (1u << (code % 8))) {
                        xcb_test_fake_input(c, XCB_KEY_RELEASE, (uint8_t) code, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
                        n++;
                }
        free(p);
        free(k);
        /* The round trip: every release above is in the server's queue. */
        sync = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
        if (!sync)
                return -EIO;
        free(sync);
        return n;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <xcb/xtest.h>

#include "held-input.h"

/* QueryPointer's mask knows buttons 1-5, from Button1Mask (1 << 8) on. */
#define CORE_BUTTONS 5

int held_input_release(xcb_connection_t *c, xcb_window_t root) {
        const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xcb_test_id);
        xcb_get_pointer_mapping_reply_t *m;
        xcb_query_pointer_reply_t *p;
        xcb_query_keymap_reply_t *k;
        unsigned buttons;
        xcb_get_input_focus_reply_t *sync;
        int n = 0;

        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        m = xcb_get_pointer_mapping_reply(c, xcb_get_pointer_mapping(c), NULL);
        p = xcb_query_pointer_reply(c, xcb_query_pointer(c, root), NULL);
        k = xcb_query_keymap_reply(c, xcb_query_keymap(c), NULL);
        if (!m || !p || !k) {
                free(m);
                free(p);
                free(k);
                return -EIO;
        }
        /* The core pointer's buttons: XTEST refuses a number beyond them. */
        buttons = m->map_len;
        free(m);
        for (unsigned b = 1; b <= CORE_BUTTONS; b++)
                if (p->mask & (XCB_BUTTON_MASK_1 << (b - 1))) {
                        xcb_test_fake_input(c, XCB_BUTTON_RELEASE, (uint8_t) b, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
                        n++;
                }
        /* The buttons beyond, which no core request shows (back, forward,
         * `input down button9`): each released blindly. The server drops
         * the release of a button its device does not hold down, so
         * nobody sees a release without its press. */
        for (unsigned b = CORE_BUTTONS + 1; b <= buttons; b++)
                xcb_test_fake_input(c, XCB_BUTTON_RELEASE, (uint8_t) b, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
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

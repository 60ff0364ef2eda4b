/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * held-input-state: what the X server of $DISPLAY (with $XAUTHORITY) holds
 * down, as the core protocol says it: one line, "down:" followed by
 * "buttonN" for each of QueryPointer's buttons 1-5 and "keyN" for each
 * keycode QueryKeymap reports pressed ("down:" alone when nothing is).
 * Exit 1 when the server cannot be reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <xcb/xcb.h>

int main(void) {
        int screen = 0;
        xcb_connection_t *c = xcb_connect(NULL, &screen);
        xcb_screen_iterator_t it;
        xcb_query_pointer_reply_t *p;
        xcb_query_keymap_reply_t *k;

        if (xcb_connection_has_error(c)) {
                fprintf(stderr, "held-input-state: cannot connect to the X server\n");
                return 1;
        }
        it = xcb_setup_roots_iterator(xcb_get_setup(c));
        for (int i = 0; i < screen && it.rem; i++)
                xcb_screen_next(&it);
        p = xcb_query_pointer_reply(c, xcb_query_pointer(c, it.data->root), NULL);
        k = xcb_query_keymap_reply(c, xcb_query_keymap(c), NULL);
        if (!p || !k) {
                fprintf(stderr, "held-input-state: the server did not answer\n");
                return 1;
        }
        printf("down:");
        for (unsigned b = 1; b <= 5; b++)
                if (p->mask & (XCB_BUTTON_MASK_1 << (b - 1)))
                        printf(" button%u", b);
        for (unsigned code = 8; code < 256; code++)
                if (k->keys[code / 8] & (1u << (code % 8)))
                        printf(" key%u", code);
        printf("\n");
        free(p);
        free(k);
        xcb_disconnect(c);
        return 0;
}

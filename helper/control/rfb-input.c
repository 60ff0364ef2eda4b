/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "rfb-input.h"

size_t rfb_key_event(uint32_t keysym, bool down, uint8_t out[static RFB_KEY_EVENT_SIZE]) {
        out[0] = 4;
        out[1] = down;
        out[2] = out[3] = 0;
        out[4] = (uint8_t) (keysym >> 24);
        out[5] = (uint8_t) (keysym >> 16);
        out[6] = (uint8_t) (keysym >> 8);
        out[7] = (uint8_t) keysym;
        return RFB_KEY_EVENT_SIZE;
}

bool rfb_keysym_shifted(uint32_t keysym) {
        return (keysym >= 'A' && keysym <= 'Z') || (keysym < 0x80 && keysym > 0x20 && strchr("~!@#$%^&*()_+{}|:\"<>?", (int) keysym));
}

static size_t pointer_event(const struct rfb_pointer *p, uint8_t out[static RFB_POINTER_EVENT_SIZE]) {
        out[0] = 5;
        out[1] = p->mask;
        out[2] = (uint8_t) (p->x >> 8);
        out[3] = (uint8_t) p->x;
        out[4] = (uint8_t) (p->y >> 8);
        out[5] = (uint8_t) p->y;
        return RFB_POINTER_EVENT_SIZE;
}

size_t rfb_pointer_move(struct rfb_pointer *p, uint16_t x, uint16_t y, uint8_t out[static RFB_POINTER_EVENT_SIZE]) {
        p->x = x;
        p->y = y;
        return pointer_event(p, out);
}

size_t rfb_pointer_button(struct rfb_pointer *p, unsigned button, bool down, uint8_t out[static RFB_POINTER_EVENT_SIZE]) {
        uint8_t bit;

        if (button == 0 || button > RFB_BUTTON_MAX)
                return 0;
        bit = (uint8_t) (1u << (button - 1));
        p->mask = down ? p->mask | bit : p->mask & (uint8_t) ~bit;
        return pointer_event(p, out);
}

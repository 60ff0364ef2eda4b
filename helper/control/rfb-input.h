/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The agent's input as RFB messages (RFC 6143 7.5.4 KeyEvent, 7.5.5
 * PointerEvent), for a VNC server botdesk did not start. RFB carries
 * keysyms, not keycodes: the server maps them, Unicode keysyms
 * (0x01000000 | code point) included, so text needs no keyboard map here.
 * The pointer's state (where it is, which buttons are down) rides along in
 * every pointer message, so it is kept here.
 */

/* Buttons 1-8: one bit each in a PointerEvent's mask. 4/5 scroll up/down, 6/7 left/right. */
#define RFB_BUTTON_MAX 8u

struct rfb_pointer {
        uint16_t x, y;
        uint8_t mask;                   /* the buttons down */
};

#define RFB_KEY_EVENT_SIZE 8u
#define RFB_POINTER_EVENT_SIZE 6u

size_t rfb_key_event(uint32_t keysym, bool down, uint8_t out[static RFB_KEY_EVENT_SIZE]);

#define RFB_KEYSYM_SHIFT_L 0xffe1u

/*
 * Whether a character's keysym is typed with Shift on a US keyboard (A-Z
 * and ~!@#$%^&*()_+{}|:"<>?). A viewer sends the Shift its user pressed;
 * some servers (QEMU's) map a keysym to its key alone and type '_' as
 * '-' without it, while others (TigerVNC) take it either way: so botdesk
 * sends Shift around these, as a keyboard would.
 */
bool rfb_keysym_shifted(uint32_t keysym);

/* The pointer moved to x, y: its message. */
size_t rfb_pointer_move(struct rfb_pointer *p, uint16_t x, uint16_t y, uint8_t out[static RFB_POINTER_EVENT_SIZE]);

/* A button (1-RFB_BUTTON_MAX) pressed or released where the pointer is: its message, or 0 for another button. */
size_t rfb_pointer_button(struct rfb_pointer *p, unsigned button, bool down, uint8_t out[static RFB_POINTER_EVENT_SIZE]);

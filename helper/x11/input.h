/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

#include "keymap.h"

/*
 * Agent input over the desktop's own X connection: XTEST fake events for the
 * pointer and the keyboard, and typing through the server's core keyboard
 * map (keymap.h), with characters the map lacks bound to spare keycodes for
 * the time they are typed and the map restored afterwards.
 *
 * Requests are only queued here; xcb writes them in large chunks and the
 * single round trip is input_sync(). Errors of the queued requests arrive
 * as events and are counted there.
 */

/* How long a client may take to read the events of one round of spare
 * bindings before they are rebound or restored: clients look a changed map
 * up only when they meet a key that needs it, so rebinding earlier could
 * make a slow reader see the next character instead. 25 ms lost characters
 * of 300 distinct CJK ones on a loaded two-core machine (the integration
 * tier running beside builds); 60 ms did not. X offers no event for "the
 * client has read it", so this stays a bound, paid once per round. */
#define INPUT_REMAP_SETTLE_MS 60

/* Characters queued between two checks of the control lease while typing,
 * each check after a round trip to the server: after a take, at most this
 * many characters still reach the screen (SECURITY.md). */
#define INPUT_TYPE_BATCH 64

struct input {
        xcb_connection_t *conn;
        xcb_window_t root;
        unsigned width, height;
        struct keymap map;
        xcb_get_keyboard_mapping_reply_t *map_reply;  /* owns map.syms */
        uint8_t shift;                                /* a Shift keycode, 0 if the map has none */
        bool remapped;                                /* spares are bound: restore before closing */
        bool dirty[256];                              /* keycodes bound since the map was read */
        /* The other events input_sync() meets on the shared connection
         * (DAMAGE's, for settle.h), handed on instead of lost; may be NULL. */
        void (*on_event)(void *userdata, const xcb_generic_event_t *ev);
        void *event_userdata;
};

/* Use connection c (not owned) on screen: XTEST present (-EOPNOTSUPP), keyboard map read. */
int input_open(struct input *in, xcb_connection_t *c, int screen);
/* Restores a remapped map (best effort), frees the map. Does not close the connection. */
void input_done(struct input *in);

void input_motion(struct input *in, unsigned x, unsigned y);
void input_button(struct input *in, unsigned button, bool press);
void input_keycode(struct input *in, uint8_t keycode, bool press);
/* Press (and release) a stroke, with Shift around it when it needs it. */
void input_stroke(struct input *in, const struct stroke *s, bool press);

/* One round trip: every request before it has been processed. -EIO when one of them failed. */
int input_sync(struct input *in);

/* Bind the spares of t's current round (the keysyms the map lacks). */
int input_bind_round(struct input *in, const struct typer *t);
/* Put the spare keycodes back as they were (after a settle); 0 or -EIO. */
int input_restore(struct input *in);

/*
 * Type keysyms[0..n): one round of spare bindings after another, checking
 * still_ours(userdata) before every INPUT_TYPE_BATCH characters and
 * stopping (-ESTALE) as soon as it says no. *ret_sent: characters queued.
 * Returns 0, -ESTALE, -ENOENT (a keysym could neither be found nor bound:
 * checked before anything is sent), -EIO.
 */
int input_type(struct input *in, const uint32_t *keysyms, size_t n, bool (*still_ours)(void *userdata),
               void *userdata, size_t *ret_sent);

/* Motion events between two points of a drag, so that applications see a drag, not a jump. */
#define INPUT_DRAG_STEPS 8

/* drag_walk() (drag-walk.h) on this X server: INPUT_DRAG_STEPS motions between each two points; with pace,
 * the requests flushed before each call. pace waits for the screen to settle; it may not send input. */
void input_drag(struct input *in, unsigned button, const unsigned (*path)[2], size_t n,
                void (*pace)(void *userdata), void *userdata);

/* Wheel steps: dy > 0 down, dy < 0 up, dx > 0 right, dx < 0 left (the core
 * protocol's buttons 4/5 and 6/7). */
void input_scroll(struct input *in, long long dx, long long dy);

/* Combos in one key action: a shortcut or a short walk through a dialog
 * ("ctrl+a ctrl+c", "Down Down Return"). Each combo is at most COMBO_MAX
 * keys, so one action is at most INPUT_COMBOS_MAX * COMBO_MAX strokes sent
 * without a look at the lease, as many combos as type sends characters
 * between two looks (INPUT_TYPE_BATCH); text goes through type, which
 * looks again after every batch. */
#define INPUT_COMBOS_MAX INPUT_TYPE_BATCH

/*
 * Press each combo in order (its keys down in order, then up in reverse),
 * binding spare keycodes for keys the map lacks. -E2BIG for more than
 * INPUT_COMBOS_MAX combos, -ENOENT when a key can neither be found nor
 * bound (both checked before anything is sent), -ENOMEM.
 */
int input_combos(struct input *in, const struct combo *combos, size_t n);

/* Whether every keysym can be typed on this map (spares included). */
bool input_can_type(const struct input *in, const uint32_t *keysyms, size_t n);

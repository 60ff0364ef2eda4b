/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <poll.h>
#include <xcb/xtest.h>

#include "drag-walk.h"
#include "input.h"
#include "util.h"

static const xcb_screen_t *screen_of(const xcb_setup_t *setup, int n) {
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        return it.data;
        return NULL;
}

int input_open(struct input *in, xcb_connection_t *c, int screen) {
        const xcb_setup_t *setup = xcb_get_setup(c);
        const xcb_query_extension_reply_t *ext;
        const xcb_screen_t *s = screen_of(setup, screen);
        xcb_get_keyboard_mapping_cookie_t ck;
        unsigned count;

        *in = (struct input) { .conn = c };
        if (!s)
                return -ENXIO;
        ext = xcb_get_extension_data(c, &xcb_test_id);
        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        in->root = s->root;
        in->width = s->width_in_pixels;
        in->height = s->height_in_pixels;

        count = setup->max_keycode - setup->min_keycode + 1u;
        ck = xcb_get_keyboard_mapping(c, setup->min_keycode, (uint8_t) count);
        in->map_reply = xcb_get_keyboard_mapping_reply(c, ck, NULL);
        if (!in->map_reply || in->map_reply->keysyms_per_keycode == 0 ||
            (unsigned) xcb_get_keyboard_mapping_keysyms_length(in->map_reply) <
                    count * in->map_reply->keysyms_per_keycode) {
                free(in->map_reply);
                in->map_reply = NULL;
                return -EIO;
        }
        in->map = (struct keymap) {
                .min_keycode = setup->min_keycode,
                .max_keycode = setup->max_keycode,
                .per_keycode = in->map_reply->keysyms_per_keycode,
                .syms = xcb_get_keyboard_mapping_keysyms(in->map_reply),
        };
        if (keymap_find_any(&in->map, KEYSYM_SHIFT_L, &in->shift) < 0)
                in->shift = 0;
        return 0;
}

void input_done(struct input *in) {
        if (in->remapped)
                (void) input_restore(in);
        free(in->map_reply);
        in->map_reply = NULL;
        in->map = (struct keymap) {};
}

static void fake(struct input *in, uint8_t type, uint8_t detail, int16_t x, int16_t y) {
        xcb_test_fake_input(in->conn, type, detail, XCB_CURRENT_TIME, type == XCB_MOTION_NOTIFY ? in->root : XCB_NONE,
                            x, y, 0);
}

void input_motion(struct input *in, unsigned x, unsigned y) {
        /* detail 0: absolute coordinates on the root window. */
        fake(in, XCB_MOTION_NOTIFY, 0, (int16_t) x, (int16_t) y);
}

void input_button(struct input *in, unsigned button, bool press) {
        fake(in, press ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE, (uint8_t) button, 0, 0);
}

void input_keycode(struct input *in, uint8_t keycode, bool press) {
        fake(in, press ? XCB_KEY_PRESS : XCB_KEY_RELEASE, keycode, 0, 0);
}

void input_stroke(struct input *in, const struct stroke *s, bool press) {
        if (press && s->shift && in->shift)
                input_keycode(in, in->shift, true);
        input_keycode(in, s->keycode, press);
        if (!press && s->shift && in->shift)
                input_keycode(in, in->shift, false);
}

int input_sync(struct input *in) {
        xcb_get_input_focus_reply_t *reply;
        xcb_generic_event_t *ev;
        int r = 0;

        reply = xcb_get_input_focus_reply(in->conn, xcb_get_input_focus(in->conn), NULL);
        if (!reply)
                return -EIO;
        free(reply);
        /* Our requests are all unchecked: their errors are queued as events. */
        while ((ev = xcb_poll_for_event(in->conn))) {
                if (ev->response_type == 0)
                        r = -EIO;
                else if (in->on_event)
                        in->on_event(in->event_userdata, ev);
                free(ev);
        }
        return xcb_connection_has_error(in->conn) ? -EIO : r;
}

/*
 * The spare keycodes bound this round, one ChangeKeyboardMapping each. Only
 * spares are ever written: writing back another key's core row would
 * flatten what XKB knows of it beyond the core protocol (groups, types).
 */
int input_bind_round(struct input *in, const struct typer *t) {
        unsigned per = in->map.per_keycode;
        _cleanup_free_ uint32_t *row = calloc(per, sizeof *row);

        if (!row)
                return -ENOMEM;
        for (size_t s = 0; s < t->n_spares; s++) {
                uint32_t lo = t->bound[s][0], hi = t->bound[s][1];

                if (lo == KEYSYM_NONE)
                        continue;
                /* One symbol alone would be case-expanded by the server (a lone "Д"
                 * becomes д/Д): both levels get it, as in a one-level key. */
                row[0] = lo;
                if (per > 1)
                        row[1] = hi != KEYSYM_NONE ? hi : lo;
                xcb_change_keyboard_mapping(in->conn, 1, t->spares[s], (uint8_t) per, row);
                in->dirty[t->spares[s]] = true;
                in->remapped = true;
        }
        return 0;
}

/* Wait until the events already sent have had time to be read (see INPUT_REMAP_SETTLE_MS). */
static int settle(struct input *in) {
        int r = input_sync(in);

        if (r < 0)
                return r;
        (void) poll(NULL, 0, INPUT_REMAP_SETTLE_MS);
        return 0;
}

int input_restore(struct input *in) {
        unsigned per = in->map.per_keycode;
        int r;

        if (!in->remapped)
                return 0;
        r = settle(in);
        for (unsigned k = in->map.min_keycode; r >= 0 && k <= in->map.max_keycode; k++)
                if (in->dirty[k]) {
                        xcb_change_keyboard_mapping(in->conn, 1, (xcb_keycode_t) k, (uint8_t) per,
                                                    in->map.syms + (size_t) (k - in->map.min_keycode) * per);
                        in->dirty[k] = false;
                }
        if (r >= 0)
                r = input_sync(in);
        in->remapped = false;
        return r;
}

bool input_can_type(const struct input *in, const uint32_t *keysyms, size_t n) {
        struct typer t;
        struct stroke st;

        typer_init(&t, &in->map);
        for (size_t i = 0; i < n;) {
                size_t end;

                (void) typer_round(&t, keysyms, n, i, &end);
                for (; i < end; i++)
                        if (typer_stroke(&t, keysyms[i], &st) < 0)
                                return false;
        }
        return true;
}

int input_type(struct input *in, const uint32_t *keysyms, size_t n, bool (*still_ours)(void *userdata),
               void *userdata, size_t *ret_sent) {
        struct typer t;
        size_t i = 0, batch = 0;
        int r;

        *ret_sent = 0;
        if (!input_can_type(in, keysyms, n))
                return -ENOENT;
        typer_init(&t, &in->map);
        while (i < n) {
                size_t end;

                /* A rebinding waits until the last round's keys were read. */
                if (t.rounds > 0 && in->remapped) {
                        r = settle(in);
                        if (r < 0)
                                return r;
                }
                (void) typer_round(&t, keysyms, n, i, &end);
                r = input_bind_round(in, &t);
                if (r < 0)
                        return r;
                for (; i < end; i++) {
                        struct stroke st;

                        if (batch++ % INPUT_TYPE_BATCH == 0) {
                                /* A round trip first: the server has taken every
                                 * character before this batch, so at most one
                                 * batch is in flight when the lease moves. */
                                r = input_sync(in);
                                if (r < 0)
                                        return r;
                                if (still_ours && !still_ours(userdata))
                                        return -ESTALE;
                        }
                        if (typer_stroke(&t, keysyms[i], &st) < 0)
                                return -ENOENT;
                        input_stroke(in, &st, true);
                        input_stroke(in, &st, false);
                        *ret_sent = i + 1;
                }
        }
        return input_sync(in);
}

/* The X server's side of drag_walk(). */
struct x_drag {
        struct input *in;
        unsigned button;
        void (*pace)(void *userdata);
        void *userdata;
};

static void x_drag_move(void *userdata, unsigned x, unsigned y) {
        struct x_drag *d = userdata;

        input_motion(d->in, x, y);
}

static void x_drag_button(void *userdata, bool down) {
        struct x_drag *d = userdata;

        input_button(d->in, d->button, down);
}

static void x_drag_pace(void *userdata) {
        struct x_drag *d = userdata;

        xcb_flush(d->in->conn);
        d->pace(d->userdata);
}

void input_drag(struct input *in, unsigned button, const unsigned (*path)[2], size_t n,
                void (*pace)(void *userdata), void *userdata) {
        const struct drag_ops ops = { x_drag_move, x_drag_button, pace ? x_drag_pace : NULL };
        struct x_drag d = { in, button, pace, userdata };

        drag_walk(path, n, INPUT_DRAG_STEPS, &ops, &d);
}

static void wheel(struct input *in, long long steps, unsigned plus, unsigned minus) {
        unsigned b = steps > 0 ? plus : minus;

        for (long long i = 0; i < (steps > 0 ? steps : -steps); i++) {
                input_button(in, b, true);
                input_button(in, b, false);
        }
}

void input_scroll(struct input *in, long long dx, long long dy) {
        wheel(in, dy, 5, 4);
        wheel(in, dx, 7, 6);
}

int input_combos(struct input *in, const struct combo *combos, size_t n_combos) {
        _cleanup_free_ uint32_t *all = NULL;
        struct typer t;
        size_t n = 0, end;

        if (n_combos > INPUT_COMBOS_MAX)
                return -E2BIG;
        for (size_t i = 0; i < n_combos; i++)
                n += combos[i].n;
        all = malloc((n ?: 1) * sizeof *all);
        if (!all)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; i < n_combos; i++)
                for (size_t k = 0; k < combos[i].n; k++)
                        all[n++] = combos[i].keysyms[k];
        /* Every key of every combo in one round of spares: a combo's keys are down together. */
        typer_init(&t, &in->map);
        (void) typer_round(&t, all, n, 0, &end);
        if (end < n)
                return -ENOENT;
        for (size_t i = 0; i < n; i++) {
                struct stroke st;
                if (typer_stroke(&t, all[i], &st) < 0)
                        return -ENOENT;
        }
        if (input_bind_round(in, &t) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n_combos; i++) {
                const struct combo *c = &combos[i];
                struct stroke st[COMBO_MAX];

                for (size_t k = 0; k < c->n; k++) {
                        (void) typer_stroke(&t, c->keysyms[k], &st[k]);
                        input_stroke(in, &st[k], true);
                }
                for (size_t k = c->n; k > 0; k--)
                        input_stroke(in, &st[k - 1], false);
        }
        return 0;
}

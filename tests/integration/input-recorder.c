/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input-recorder TEXT_FILE LOG_FILE [KEY_DELAY_US]: the tests' own X client, run as a
 * desktop's `command`. It maps one window (16,24 900x700), focuses it,
 * publishes itself on the root as a window manager would (_NET_CLIENT_LIST,
 * _NET_ACTIVE_WINDOW) with a UTF-8 title and a WM_CLASS, and records what
 * reaches it:
 *   TEXT_FILE  the UTF-8 of every key press that yields a character, as a
 *              text widget would insert it (Return as \n, Tab as \t);
 *   LOG_FILE   one line per event: "ready", "key-press NAME STATE",
 *              "button-press N X Y", "button-release N X Y",
 *              "drag-motion X Y" (motion with a button held), and "mark"
 *              when a client sets the root's _BOTDESK_TEST_MARK: a point in
 *              the server's order of events, whatever this client's pace.
 * KEY_DELAY_US makes it a slow reader: it waits that long after each key
 * press, as a busy application would.
 *
 * input-recorder --mark: connects first, then, for each line written to
 * its stdin, sets the root's _BOTDESK_TEST_MARK and waits until the server has
 * taken it. Connected ahead, its request reaches a server that was stopped
 * as soon as the server runs again, beside whatever another client had
 * queued meanwhile.
 * Keysyms come from the core keyboard map, fetched again at every
 * MappingNotify as soon as it is read, like any client that follows the
 * map.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>
#include <xkbcommon/xkbcommon.h>

static const char title[] = "botdesk recorder \xe2\x80\x94 \xd1\x82\xd0\xb5\xd1\x81\xd1\x82"; /* — тест */
static const char wm_class[] = "recorder\0BotdeskRecorder"; /* with both NULs: sizeof */

static xcb_get_keyboard_mapping_reply_t *map;
static unsigned min_keycode;

static void load_map(xcb_connection_t *c) {
        const xcb_setup_t *s = xcb_get_setup(c);

        free(map);
        min_keycode = s->min_keycode;
        map = xcb_get_keyboard_mapping_reply(
                c, xcb_get_keyboard_mapping(c, s->min_keycode, (uint8_t) (s->max_keycode - s->min_keycode + 1)), NULL);
}

static uint32_t keysym_of(unsigned keycode, unsigned state) {
        const xcb_keysym_t *syms;
        unsigned per;
        uint32_t lo, hi;

        if (!map)
                return 0;
        per = map->keysyms_per_keycode;
        syms = xcb_get_keyboard_mapping_keysyms(map) + (keycode - min_keycode) * per;
        lo = syms[0];
        hi = per > 1 ? syms[1] : 0;
        if (hi == 0) {
                /* A one-symbol key: Shift gives its upper case (the core protocol's rule). */
                hi = xkb_keysym_to_upper(lo);
        }
        return (state & XCB_MOD_MASK_SHIFT) ? hi : lo;
}

static void out(int fd, const char *s, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, s, n);
                if (k <= 0)
                        exit(1);
                s += k;
                n -= (size_t) k;
        }
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t) strlen(name), name), NULL);
        xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
        free(r);
        return a;
}

/* path, with a trailing ".DISPLAY" made the display's name (".:N"): each
 * desktop its own files, where a warm spare runs this command too. */
static int open_for_display(const char *path) {
        const char *display = getenv("DISPLAY");
        size_t n = strlen(path);
        char buf[4096];

        if (n > 8 && strcmp(path + n - 8, ".DISPLAY") == 0 && display) {
                snprintf(buf, sizeof buf, "%.*s.%s", (int) (n - 8), path, display);
                path = buf;
        }
        return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
}

static int mark_on_each_line(void) {
        xcb_connection_t *c = xcb_connect(NULL, NULL);
        xcb_window_t root;
        xcb_atom_t mark;
        char buf[64];
        ssize_t n;

        if (xcb_connection_has_error(c))
                return 1;
        root = xcb_setup_roots_iterator(xcb_get_setup(c)).data->root;
        mark = atom(c, "_BOTDESK_TEST_MARK");
        printf("connected\n");
        fflush(stdout);
        /* A mark for each read: the tests write one line at a time. */
        while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0) {
                xcb_change_property(c, XCB_PROP_MODE_REPLACE, root, mark, XCB_ATOM_STRING, 8, 1, "1");
                free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
                printf("marked\n");
                fflush(stdout);
        }
        xcb_disconnect(c);
        return 0;
}

int main(int argc, char **argv) {
        xcb_connection_t *c;
        xcb_screen_t *screen;
        xcb_window_t w;
        xcb_generic_event_t *ev;
        int text_fd, log_fd;
        char line[256];
        uint32_t values[2];
        bool ready = false;
        struct timespec key_delay = {};
        xcb_atom_t mark;

        if (argc == 2 && strcmp(argv[1], "--mark") == 0)
                return mark_on_each_line();
        if (argc != 3 && argc != 4) {
                fprintf(stderr, "usage: input-recorder TEXT_FILE LOG_FILE [KEY_DELAY_US]\n");
                return 2;
        }
        if (argc == 4) {
                char *end;
                long us;

                errno = 0;
                us = strtol(argv[3], &end, 10);
                if (errno != 0 || end == argv[3] || *end || us < 0 || us > 999999) {
                        fprintf(stderr, "input-recorder: KEY_DELAY_US out of range\n");
                        return 2;
                }
                key_delay.tv_nsec = us * 1000;
        }
        text_fd = open_for_display(argv[1]);
        log_fd = open_for_display(argv[2]);
        if (text_fd < 0 || log_fd < 0)
                return 1;
        c = xcb_connect(NULL, NULL);
        if (xcb_connection_has_error(c))
                return 1;
        screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        w = xcb_generate_id(c);
        values[0] = screen->white_pixel;
        values[1] = XCB_EVENT_MASK_KEY_PRESS | XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_BUTTON_RELEASE |
                    XCB_EVENT_MASK_BUTTON_MOTION | XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY;
        xcb_create_window(c, XCB_COPY_FROM_PARENT, w, screen->root, 16, 24, 900, 700, 0,
                          XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK,
                          values);
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, atom(c, "_NET_WM_NAME"), atom(c, "UTF8_STRING"), 8,
                            sizeof title - 1, title);
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 8, "recorder");
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, sizeof wm_class,
                            wm_class);
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, screen->root, atom(c, "_NET_CLIENT_LIST"), XCB_ATOM_WINDOW, 32,
                            1, &w);
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, screen->root, atom(c, "_NET_ACTIVE_WINDOW"), XCB_ATOM_WINDOW,
                            32, 1, &w);
        /* The marks: property changes on the root. */
        mark = atom(c, "_BOTDESK_TEST_MARK");
        values[0] = XCB_EVENT_MASK_PROPERTY_CHANGE;
        xcb_change_window_attributes(c, screen->root, XCB_CW_EVENT_MASK, values);
        xcb_map_window(c, w);
        load_map(c);
        xcb_flush(c);

        while ((ev = xcb_wait_for_event(c))) {
                switch (ev->response_type & 0x7f) {
                case XCB_MAP_NOTIFY:
                        if (!ready) {
                                xcb_set_input_focus(c, XCB_INPUT_FOCUS_POINTER_ROOT, w, XCB_CURRENT_TIME);
                                free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
                                ready = true;
                                out(log_fd, "ready\n", 6);
                        }
                        break;
                case XCB_MAPPING_NOTIFY: {
                        xcb_mapping_notify_event_t *m = (xcb_mapping_notify_event_t *) ev;
                        if (m->request == XCB_MAPPING_KEYBOARD)
                                load_map(c);
                        break;
                }
                case XCB_KEY_PRESS: {
                        xcb_key_press_event_t *k = (xcb_key_press_event_t *) ev;
                        uint32_t ks = keysym_of(k->detail, k->state);
                        char name[64], utf8[8];
                        int n;

                        if (xkb_keysym_get_name(ks, name, sizeof name) < 0)
                                strcpy(name, "?");
                        n = snprintf(line, sizeof line, "key-press %s %#x\n", name, k->state);
                        out(log_fd, line, (size_t) n);
                        if (key_delay.tv_nsec)
                                nanosleep(&key_delay, NULL);
                        if (ks == XKB_KEY_Return)
                                out(text_fd, "\n", 1);
                        else if (ks == XKB_KEY_Tab)
                                out(text_fd, "\t", 1);
                        else if (!(k->state & XCB_MOD_MASK_CONTROL) && (n = xkb_keysym_to_utf8(ks, utf8, sizeof utf8)) > 1)
                                out(text_fd, utf8, (size_t) n - 1);
                        break;
                }
                case XCB_BUTTON_PRESS:
                case XCB_BUTTON_RELEASE: {
                        xcb_button_press_event_t *b = (xcb_button_press_event_t *) ev;
                        int n = snprintf(line, sizeof line, "button-%s %u %d %d\n",
                                         (ev->response_type & 0x7f) == XCB_BUTTON_PRESS ? "press" : "release",
                                         b->detail, b->root_x, b->root_y);
                        out(log_fd, line, (size_t) n);
                        break;
                }
                case XCB_PROPERTY_NOTIFY:
                        if (((xcb_property_notify_event_t *) ev)->atom == mark)
                                out(log_fd, "mark\n", 5);
                        break;
                case XCB_MOTION_NOTIFY: {
                        xcb_motion_notify_event_t *m = (xcb_motion_notify_event_t *) ev;
                        int n = snprintf(line, sizeof line, "drag-motion %d %d\n", m->root_x, m->root_y);
                        out(log_fd, line, (size_t) n);
                        break;
                }
                }
                free(ev);
        }
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk input PROFILE ACTION ...: pointer and keyboard through XTEST on the
 * desktop's own X connection. Everything is parsed and checked (syntax, key
 * names, text, then coordinates against the screen) before the first event
 * is sent, so a command that does not parse sends nothing.
 */
#include <xcb/xcb.h>

#include "cli.h"
#include "cli-desktop.h"
#include "verbs.h"
#include "input.h"
#include "journal-hook.h"
#include "journal.h"
#include "json.h"
#include "keymap.h"
#include "lease.h"
#include "log.h"
#include "input-request.h"
#include "settle.h"
#include "util.h"

#define BUTTON_MAX 32u
/* type --stdin: more than argv allows (128 KiB an argument), bounded all the same. */
#define TEXT_STDIN_MAX (4u << 20)

static const char *const action_names[] = {
        [ACT_MOVE] = "move", [ACT_CLICK] = "click", [ACT_DRAG] = "drag", [ACT_SCROLL] = "scroll",
        [ACT_KEY] = "key",   [ACT_TYPE] = "type",   [ACT_DOWN] = "down", [ACT_UP] = "up",
};

static void request_done(struct input_request *r) {
        free(r->combos);
        free(r->keysyms);
        free(r->text);
}


static int parse_xy(const char *x, const char *y, unsigned long long *rx, unsigned long long *ry) {
        if (parse_uint(x, 65535, rx) < 0)
                return usage_error("Invalid coordinate \"%s\": give whole pixels from 0.", x);
        if (parse_uint(y, 65535, ry) < 0)
                return usage_error("Invalid coordinate \"%s\": give whole pixels from 0.", y);
        return EXIT_OK;
}

/* "buttonN": 1 with *ret = N; 0 when not a button name; -EINVAL for a bad N. */
static int parse_button_name(const char *s, unsigned *ret) {
        const char *n = startswith(s, "button");
        unsigned long long v;

        if (!n)
                return 0;
        if (parse_uint(n, BUTTON_MAX, &v) < 0 || v == 0)
                return -EINVAL;
        *ret = (unsigned) v;
        return 1;
}

static int parse_text(const char *text, struct input_request *req) {
        uint32_t bad = 0;
        int r;

        if (!*text)
                return usage_error("Empty text for type: give the text to type.");
        req->text = strdup(text);
        if (!req->text)
                return log_oom(), EXIT_FAILED;
        r = keysyms_from_text(text, &req->keysyms, &req->n_keysyms, &bad);
        if (r == -ENOMEM)
                return log_oom(), EXIT_FAILED;
        if (r == -EILSEQ)
                return usage_error("The text for type is not valid UTF-8.");
        if (r < 0)
                return usage_error("The text for type holds control character U+%04X, which no key types; use key for keys.",
                                   (unsigned) bad);
        return EXIT_OK;
}

static int parse_args(struct input_request *req, const char *name, const char *const *pos, size_t n);

/*
 * Its words as main.c's parser left them (verb-table.c: its row and usage):
 * PROFILE ACTION [ARGS...] in operands, a negative number, "-" and every
 * word after "--" among them; --settle=MS judged there, --button and
 * --window here, once the action is known.
 */
static int parse_request(const struct cli_args *a, struct input_request *req) {
        const char *const *pos = a->operands;
        const char *button = a->button, *window = a->window, *name;
        size_t n = a->n_operands;

        *req = (struct input_request) {
                .button = 1,
                .json = a->json,
                .dbl = a->double_click,
                .from_stdin = a->from_stdin,
                .start = a->start,
                .settle_ms = !a->settle ? 0 : a->settle_ms > 0 ? a->settle_ms : SETTLE_QUIET_MS_DEFAULT,
        };
        req->profile = pos[0];
        if (n < 2)
                return usage_error("Missing ACTION for input.");
        name = pos[1];
        for (size_t i = 0; i < ELEMENTSOF(action_names); i++)
                if (streq(name, action_names[i])) {
                        req->action = (enum input_action) i;
                        goto found;
                }
        return usage_error("Unknown input action \"%s\".", name);
found:
        if (button) {
                unsigned long long v;

                if (req->action != ACT_CLICK && req->action != ACT_DRAG)
                        return usage_error("--button applies to click and drag, not %s.", name);
                if (parse_uint(button, BUTTON_MAX, &v) < 0 || v == 0)
                        return usage_error("Invalid --button \"%s\": give 1-32 (1 left, 2 middle, 3 right).", button);
                req->button = (unsigned) v;
        }
        if (req->dbl && req->action != ACT_CLICK)
                return usage_error("--double applies to click, not %s.", name);
        if (window) {
                unsigned long long v;
                const char *hex = startswith(window, "0x");
                char *end;

                if (req->action != ACT_MOVE && req->action != ACT_CLICK && req->action != ACT_DRAG)
                        return usage_error("--window applies to move, click and drag, not %s.", name);
                errno = 0;
                v = hex ? strtoull(hex, &end, 16) : 0;
                if (hex ? (errno != 0 || end == hex || *end || v == 0 || v > UINT32_MAX)
                        : (parse_uint(window, UINT32_MAX, &v) < 0 || v == 0))
                        return usage_error("Invalid --window \"%s\": give a window id (decimal or 0x hex) from botdesk windows.",
                                           window);
                req->window = (uint32_t) v;
        }
        if (req->from_stdin && req->action != ACT_TYPE)
                return usage_error("--stdin applies to type, not %s.", name);

        return parse_args(req, name, pos + 2, n - 2);
}

static int parse_args(struct input_request *req, const char *name, const char *const *pos, size_t n) {
        int r;

        switch (req->action) {
        case ACT_MOVE:
                if (n != 2)
                        return usage_error("move takes X Y.");
                req->have_xy = true;
                return parse_xy(pos[0], pos[1], &req->x[0], &req->y[0]);
        case ACT_CLICK:
                if (n != 0 && n != 2)
                        return usage_error("click takes no position or X Y.");
                req->have_xy = n == 2;
                return n == 2 ? parse_xy(pos[0], pos[1], &req->x[0], &req->y[0]) : EXIT_OK;
        case ACT_DRAG:
                if (n != 4)
                        return usage_error("drag takes X1 Y1 X2 Y2.");
                req->have_xy = true;
                r = parse_xy(pos[0], pos[1], &req->x[0], &req->y[0]);
                return r != EXIT_OK ? r : parse_xy(pos[2], pos[3], &req->x[1], &req->y[1]);
        case ACT_SCROLL:
                if (n != 2)
                        return usage_error("scroll takes DX DY.");
                if (parse_int(pos[0], SCROLL_MAX, &req->dx) < 0 || parse_int(pos[1], SCROLL_MAX, &req->dy) < 0)
                        return usage_error("Invalid scroll steps: give whole numbers from -1000 to 1000.");
                if (req->dx == 0 && req->dy == 0)
                        return usage_error("scroll 0 0 scrolls nothing.");
                return EXIT_OK;
        case ACT_KEY:
                if (n == 0)
                        return usage_error("key takes one or more COMBOs.");
                if (n > INPUT_COMBOS_MAX)
                        return usage_error("key takes at most %d COMBOs; type text with type.", INPUT_COMBOS_MAX);
                req->combos = calloc(n, sizeof *req->combos);
                if (!req->combos)
                        return log_oom(), EXIT_FAILED;
                for (size_t i = 0; i < n; i++)
                        if (combo_parse(pos[i], &req->combos[i]) < 0)
                                return usage_error("Unknown key or combo \"%s\".", pos[i]);
                req->n_combos = n;
                return EXIT_OK;
        case ACT_TYPE:
                if (req->from_stdin) {
                        _cleanup_free_ char *text = NULL;
                        size_t size;

                        if (n != 0)
                                return usage_error("type --stdin takes no TEXT argument.");
                        r = read_full_file("/dev/stdin", &text, &size, TEXT_STDIN_MAX);
                        if (r < 0)
                                return log_error_errno(r, "Cannot read the text from standard input (at most %u bytes): %m",
                                                       TEXT_STDIN_MAX), EXIT_USAGE;
                        if (strlen(text) != size)
                                return usage_error("The text for type holds a NUL byte.");
                        return parse_text(text, req);
                }
                if (n != 1)
                        return usage_error("type takes one TEXT argument (quote it; -- before text that starts with -).");
                return parse_text(pos[0], req);
        case ACT_DOWN:
        case ACT_UP:
                if (n != 1)
                        return usage_error("%s takes one KEY or buttonN.", name);
                r = parse_button_name(pos[0], &req->button);
                if (r < 0)
                        return usage_error("Invalid button \"%s\": give button1 to button32.", pos[0]);
                if (r == 0 && keyname_to_keysym(pos[0], &req->keysym) < 0)
                        return usage_error("Unknown key \"%s\".", pos[0]);
                return EXIT_OK;
        }
        return EXIT_USAGE;
}

static int check_xy(unsigned width, unsigned height, unsigned long long x, unsigned long long y) {
        if (x < width && y < height)
                return EXIT_OK;
        log_error("Position %llu,%llu is outside the screen (%ux%u): X 0-%u, Y 0-%u.", x, y, width, height, width - 1,
                  height - 1);
        cli_verb_usage_to(stderr, "input");
        return EXIT_USAGE;
}

/* Every position of the request on a screen of width x height: EXIT_OK, or EXIT_USAGE said. */
int input_check_positions(const struct input_request *req, unsigned width, unsigned height) {
        for (unsigned i = 0; req->have_xy && i < (req->action == ACT_DRAG ? 2u : 1u); i++) {
                int r = check_xy(width, height, req->x[i], req->y[i]);

                if (r != EXIT_OK)
                        return r;
        }
        return EXIT_OK;
}


/* Coordinates relative to req->window made root coordinates; EXIT_USAGE (said) for an unknown window or a position outside it. */
static int window_to_root(struct input *in, struct input_request *req) {
        xcb_get_geometry_reply_t *g;
        xcb_translate_coordinates_reply_t *t;
        int r = EXIT_OK;

        if (!req->window || !req->have_xy)
                return EXIT_OK;
        g = xcb_get_geometry_reply(in->conn, xcb_get_geometry(in->conn, req->window), NULL);
        t = xcb_translate_coordinates_reply(in->conn, xcb_translate_coordinates(in->conn, req->window, in->root, 0, 0), NULL);
        if (!g || !t) {
                r = usage_error("Unknown window id 0x%08x: take one from botdesk windows %s.", (unsigned) req->window,
                                req->profile);
                goto done;
        }
        for (unsigned i = 0; i < (req->action == ACT_DRAG ? 2u : 1u); i++) {
                if (req->x[i] >= g->width || req->y[i] >= g->height) {
                        r = usage_error("Position %llu,%llu is outside window 0x%08x (%ux%u).", req->x[i], req->y[i],
                                        (unsigned) req->window, g->width, g->height);
                        goto done;
                }
                if ((long long) req->x[i] + t->dst_x < 0 || (long long) req->y[i] + t->dst_y < 0) {
                        r = usage_error("Position %llu,%llu of window 0x%08x is off the screen.", req->x[i], req->y[i],
                                        (unsigned) req->window);
                        goto done;
                }
                req->x[i] = (unsigned long long) ((long long) req->x[i] + t->dst_x);
                req->y[i] = (unsigned long long) ((long long) req->y[i] + t->dst_y);
        }
done:
        free(g);
        free(t);
        return r;
}

/* A drag's pace (input_drag()): the screen settled on the settle the connection feeds. */
struct drag_pacer {
        struct settle *settle;
        unsigned quiet_ms;
};

static void drag_settle(void *userdata) {
        struct drag_pacer *p = userdata;
        enum settle_state state;
        unsigned ms;

        settle_begin(p->settle);
        (void) settle_wait(p->settle, p->quiet_ms, SETTLE_CAP_MS_DEFAULT, &state, &ms);
}

/* What the action did: nothing sent yet when it returns EXIT_USAGE. */
static int act(struct input *in, struct input_request *req, int dirfd, const struct lease *admitted, size_t *ret_sent) {
        struct cli_admitted ctx = { .runtime_fd = dirfd, .lease = admitted };
        struct stroke st;
        int r;

        r = window_to_root(in, req);
        if (r != EXIT_OK)
                return r;
        r = input_check_positions(req, in->width, in->height);
        if (r != EXIT_OK)
                return r;
        switch (req->action) {
        case ACT_MOVE:
                input_motion(in, (unsigned) req->x[0], (unsigned) req->y[0]);
                break;
        case ACT_CLICK:
                if (req->have_xy)
                        input_motion(in, (unsigned) req->x[0], (unsigned) req->y[0]);
                for (unsigned i = 0; i < (req->dbl ? 2u : 1u); i++) {
                        input_button(in, req->button, true);
                        input_button(in, req->button, false);
                }
                break;
        case ACT_DRAG: {
                const unsigned path[2][2] = { { (unsigned) req->x[0], (unsigned) req->y[0] },
                                              { (unsigned) req->x[1], (unsigned) req->y[1] } };
                struct drag_pacer pacer = { in->event_userdata, req->settle_ms ?: SETTLE_QUIET_MS_DEFAULT };

                /* Paced whenever the screen can be watched (run_x11() opens a settle for a drag). */
                input_drag(in, req->button, path, 2, in->on_event ? drag_settle : NULL, &pacer);
                break;
        }
        case ACT_SCROLL:
                input_scroll(in, req->dx, req->dy);
                break;
        case ACT_KEY:
                r = input_combos(in, req->combos, req->n_combos);
                if (r == -ENOENT) {
                        log_error("The keys cannot all be pressed: the keyboard map lacks some and has too few spare keycodes.");
                        return EXIT_FAILED;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot press the keys: %m"), EXIT_FAILED;
                break;
        case ACT_TYPE:
                r = input_type(in, req->keysyms, req->n_keysyms, cli_still_admitted, &ctx, ret_sent);
                if (r == -ESTALE)
                        return EXIT_REFUSED; /* cli_action_done() says why */
                if (r == -ENOENT) {
                        log_error("The text cannot be typed: the keyboard map has no spare keycode for characters it lacks.");
                        return EXIT_FAILED;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot type the text: %m"), EXIT_FAILED;
                return EXIT_OK;
        case ACT_DOWN:
        case ACT_UP:
                if (!req->keysym) {
                        input_button(in, req->button, req->action == ACT_DOWN);
                        break;
                }
                /* A held key must keep its meaning: only keys the map has. */
                if (keymap_find(&in->map, req->keysym, &st) < 0) {
                        log_error("That key is not on the keyboard map of this desktop; %s needs a key it has.",
                                  action_names[req->action]);
                        return EXIT_FAILED;
                }
                st.shift = false;
                input_stroke(in, &st, req->action == ACT_DOWN);
                break;
        }
        r = input_sync(in);
        if (r < 0)
                return log_error_errno(r, "The X server refused the input: %m"), EXIT_FAILED;
        /* A press that reached the server after a take may have come after
         * the helper let go of what was down (lease-settled.h): let go of
         * it here, now that the server has it (cli_action_done() says why). */
        if (req->action == ACT_DOWN && !cli_action_still_valid(dirfd, admitted)) {
                if (req->keysym)
                        input_stroke(in, &st, false);
                else
                        input_button(in, req->button, false);
                (void) input_sync(in);
        }
        return EXIT_OK;
}

static void print_result(const struct input_request *req, const struct lease *admitted, size_t sent, int settled,
                         unsigned settle_ms) {
        struct json j;

        if (!req->json) {
                if (settled >= 0)
                        printf("%s %u\n", settle_state_name((enum settle_state) settled), settle_ms);
                return;
        }
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "profile", req->profile);
        json_kv_string(&j, "action", action_names[req->action]);
        if (req->window)
                json_kv_int(&j, "window", req->window);
        if (req->have_xy) {
                json_kv_int(&j, "x", (long long) req->x[req->action == ACT_DRAG]);
                json_kv_int(&j, "y", (long long) req->y[req->action == ACT_DRAG]);
        }
        if (req->action == ACT_CLICK || req->action == ACT_DRAG || ((req->action == ACT_DOWN || req->action == ACT_UP) && !req->keysym))
                json_kv_int(&j, "button", req->button);
        if (req->action == ACT_TYPE)
                json_kv_int(&j, "characters", (long long) sent);
        if (settled >= 0) {
                json_kv_string(&j, "settle", settle_state_name((enum settle_state) settled));
                json_kv_int(&j, "settle_ms", settle_ms);
        }
        json_kv_int(&j, "epoch", (long long) admitted->epoch);
        json_object_end(&j);
        putchar('\n');
}

/* The journal's "args": what the action was, in screen pixels, and the words that replay it. */
static void journal_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct input_request *req = userdata;

        json_kv_string(j, "verb", action_names[req->action]);
        if (req->have_xy && !req->window) {
                json_kv_int(j, "x", (long long) req->x[0]);
                json_kv_int(j, "y", (long long) req->y[0]);
                if (req->action == ACT_DRAG) {
                        json_kv_int(j, "x2", (long long) req->x[1]);
                        json_kv_int(j, "y2", (long long) req->y[1]);
                }
        }
        if (req->window)
                json_kv_int(j, "window", req->window);
        if (req->action == ACT_SCROLL) {
                json_kv_int(j, "dx", req->dx);
                json_kv_int(j, "dy", req->dy);
        }
        if (req->text)
                journal_text_fields(j, "text", req->text, redact);
        if (req->screen_w) {
                json_key(j, "screen");
                json_array_begin(j);
                json_int(j, req->screen_w);
                json_int(j, req->screen_h);
                json_array_end(j);
        }
        if (req->text && (redact || req->from_stdin))
                return;
        cli_journal_words(j, req->words);
}

static void on_event(void *userdata, const xcb_generic_event_t *ev) {
        settle_event(userdata, ev);
}

/*
 * The action on the desktop's X server: connected with its cookie, XTEST,
 * settle on the same connection. Returns EXIT_OK with the action's own
 * result in *ret_acted, or the exit code of a setup that failed (said,
 * nothing sent).
 */
static int run_x11(struct input_request *req, const char *display, const char *xauthority, int dirfd,
                   const struct lease *admitted, size_t *sent, enum settle_state *settled, unsigned *settle_ms,
                   int *ret_acted) {
        struct input in = {};
        struct settle st = {};
        xcb_connection_t *c = NULL;
        int screen, r;

        r = cli_connect_desktop(req->profile, display, xauthority, &c, &screen);
        if (r != EXIT_OK)
                return r;
        {
                xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));

                for (int i = 0; i < screen && it.rem > 0; i++)
                        xcb_screen_next(&it);
                if (it.data) {
                        req->screen_w = it.data->width_in_pixels;
                        req->screen_h = it.data->height_in_pixels;
                }
        }
        r = input_open(&in, c, screen);
        if (r == -EOPNOTSUPP) {
                log_error("The X server of desktop %s has no XTEST extension; botdesk cannot send input to it.",
                          req->profile);
                xcb_disconnect(c);
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read the keyboard map of desktop %s: %m", req->profile);
                xcb_disconnect(c);
                return EXIT_FAILED;
        }
        /* Settle watches the same connection: the damage the action causes is never missed. A drag is paced by
         * it even when no settle was asked for its end. */
        if ((req->settle_ms > 0 || req->action == ACT_DRAG) && settle_open(&st, c, in.root) >= 0) {
                in.on_event = on_event;
                in.event_userdata = &st;
                settle_begin(&st);
        }
        *ret_acted = act(&in, req, dirfd, admitted, sent);
        if (*ret_acted == EXIT_OK && req->settle_ms > 0 && st.damage &&
            settle_wait(&st, req->settle_ms, SETTLE_CAP_MS_DEFAULT, settled, settle_ms) < 0)
                *settled = SETTLE_UNSUPPORTED;
        settle_close(&st);
        input_done(&in);
        xcb_disconnect(c);
        return EXIT_OK;
}

int verb_input(const struct cli_args *a) {
        _cleanup_(request_done) struct input_request req = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(config_done) struct bd_config storage = {};
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        enum settle_state settled = SETTLE_UNSUPPORTED;
        const struct bd_config *cfg;
        unsigned settle_ms = 0;
        struct lease admitted;
        size_t sent = 0;
        char what[16];
        int r, ret = EXIT_FAILED;

        r = parse_request(a, &req);
        if (r != EXIT_OK)
                return r;
        /* The profile is one of the words: those after it replay the action. */
        for (size_t i = 0; a->words[i]; i++)
                if (a->words[i] == req.profile) {
                        req.words = a->words + i + 1;
                        break;
                }
        cfg = cli_config(a->config, req.profile, &storage);
        if (!cfg)
                return EXIT_USAGE;
        if (cfg->remote) {
                /* A VNC server botdesk did not start: nothing to start, its lease here. */
                if (cli_open_profile(req.profile, &p, &dirfd) < 0)
                        return EXIT_FAILED;
        } else {
                /* Only once the request parsed: a bad command starts nothing either. */
                r = cli_start_on_demand(req.profile, req.start);
                if (r != EXIT_OK)
                        return r;
                r = cli_running_display(req.profile, &dirfd, &display, &xauthority);
                if (r != EXIT_OK)
                        return r;
        }
        snprintf(what, sizeof what, "input %s", action_names[req.action]);
        r = cli_action_admit(dirfd, req.profile, what, req.json, &admitted);
        if (r != EXIT_OK)
                return r;
        r = cfg->remote ? input_run_remote(&req, cfg, dirfd, &admitted, &sent, &settled, &settle_ms, &ret)
                        : run_x11(&req, display, xauthority, dirfd, &admitted, &sent, &settled, &settle_ms, &ret);
        if (r != EXIT_OK)
                return r;
        if (ret == EXIT_USAGE)
                return ret;
        r = ret;
        if (r != EXIT_FAILED) {
                activity_stamp(dirfd);
                r = cli_action_done(dirfd, req.profile, what, &admitted, req.json);
        }
        cli_journal_record(req.profile, &(const struct cli_journal_action) {
                .action = what, .admitted = &admitted, .config = a->config,
                .result = r == EXIT_REFUSED ? "suppressed" : cli_journal_result(r),
                .message = r == EXIT_FAILED ? "the action failed" : NULL,
                .settle = req.settle_ms > 0 && settled != SETTLE_UNSUPPORTED ? settle_state_name(settled) : NULL,
                .settle_ms = settle_ms, .args = journal_args, .userdata = &req,
        });
        if (r != EXIT_OK)
                return r;
        print_result(&req, &admitted, sent, req.settle_ms > 0 ? (int) settled : -1, settle_ms);
        return EXIT_OK;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "config.h"
#include "keymap.h"
#include "lease.h"
#include "log.h"
#include "settle.h"
#include "verbs.h"

/*
 * botdesk input's request, parsed and checked before anything is sent
 * (verb-input.c), and its other way out: a profile that fronts a VNC
 * server botdesk did not start (input-remote.c).
 */

/* Says what is wrong, then the accepted forms (its row's usage); the exit code of a usage error. */
#define usage_error(...) (log_error(__VA_ARGS__), cli_verb_usage_to(stderr, "input"), EXIT_USAGE)

#define SCROLL_MAX 1000

enum input_action {
        ACT_MOVE,
        ACT_CLICK,
        ACT_DRAG,
        ACT_SCROLL,
        ACT_KEY,
        ACT_TYPE,
        ACT_DOWN,
        ACT_UP,
};

struct input_request {
        const char *profile;
        enum input_action action;
        bool json, dbl, have_xy, from_stdin, start;
        unsigned settle_ms;             /* --settle[=MS]: quiet time to wait for after the action; 0 none */
        uint32_t window;                /* --window: X Y relative to it; 0 none */
        unsigned button;
        unsigned long long x[2], y[2];
        long long dx, dy;
        struct combo *combos;           /* key */
        size_t n_combos;
        uint32_t *keysyms;              /* type */
        size_t n_keysyms;
        uint32_t keysym;                /* down/up of a key (0: a button) */
        char *text;                     /* type: the text, for the journal */
        char **words;                   /* the words after PROFILE, for the journal (borrowed) */
        unsigned screen_w, screen_h;
};

/* Every position of the request on a screen of width x height: EXIT_OK, or EXIT_USAGE said. */
int input_check_positions(const struct input_request *req, unsigned width, unsigned height);

/*
 * The action on a remote profile's VNC server (remote-screen.h), under the
 * lease admitted: EXIT_OK with the action's own result in *ret_acted
 * (EXIT_USAGE said and nothing sent, EXIT_REFUSED when control moved while
 * typing, ...) and, with --settle, how the server's updates settled; or
 * the exit code of a session that could not be opened.
 */
int input_run_remote(struct input_request *req, const struct bd_config *cfg, int dirfd, const struct lease *admitted,
                     size_t *sent, enum settle_state *settled, unsigned *settle_ms, int *ret_acted);

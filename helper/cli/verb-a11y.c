/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk a11y PROFILE [--json] [--window ID] [--find EXPR] [--max-nodes N]
 * botdesk a11y PROFILE do ID ACTION [TEXT] [--json]
 * The accessibility tree of the desktop (a11y-agent.h), gated by the lease
 * like every agent action.
 */
#include <errno.h>
#include <stdlib.h>

#include "a11y-agent.h"
#include "cli.h"
#include "cli-desktop.h"
#include "config.h"
#include "journal-hook.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "term-escape.h"
#include "util.h"
#include "verb-table.h"

struct a11y_args {
        const char *profile;
        bool json;
        const char *window, *find;
        unsigned max_nodes;
        bool act;
        const char *id, *action, *text;
};

/* Its words as main.c's parser left them (verb-table.c: its row and usage):
 * PROFILE alone, or PROFILE do ID ACTION [TEXT]. */
static int parse(const struct cli_args *args, struct a11y_args *a) {
        const char *const *words = args->operands;
        size_t n_words = args->n_operands;

        *a = (struct a11y_args) {
                .profile = args->operand,
                .json = args->json,
                .window = args->window,
                .find = args->find,
                .max_nodes = args->max_nodes ?: A11Y_MAX_NODES_DEFAULT,
        };
        if (n_words == 1)
                return EXIT_OK;
        if (!streq(words[1], "do") || n_words < 4 || n_words > 5) {
                log_error("Use botdesk a11y PROFILE do ID ACTION [TEXT].\n%s", A11Y_USAGE);
                return EXIT_USAGE;
        }
        if (a->window || a->find) {
                log_error("do takes an element id; --window and --find are for reading the tree.");
                return EXIT_USAGE;
        }
        a->act = true;
        a->id = words[2];
        a->action = words[3];
        a->text = n_words == 5 ? words[4] : NULL;
        if (a->text && !streq(a->action, "set-text")) {
                log_error("Only set-text takes a TEXT.\n%s", A11Y_USAGE);
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int run(const struct a11y_args *a, struct a11y_desktop *d, int dirfd) {
        _cleanup_(a11y_result_done) struct a11y_result res = {};
        _cleanup_free_ char *error = NULL;
        struct lease admitted;
        int r;

        r = cli_action_admit(dirfd, a->profile, "a11y", a->json, &admitted);
        if (r != EXIT_OK)
                return r;
        r = a->act ? a11y_agent_do(d, a->id, a->action, a->text, &error)
                   : a11y_agent_read(d, a->window, a->find, a->max_nodes, &res, &error);
        if (a->act)
                cli_journal_a11y_do(a->profile, &admitted, a->id, a->action, a->text, r, error);
        if (r != EXIT_OK) {
                log_error("%s", error ?: "Out of memory.");
                return r;
        }
        r = cli_action_done(dirfd, a->profile, "a11y", &admitted, a->json);
        if (r != EXIT_OK)
                return r;
        activity_stamp(dirfd);
        if (a->act) {
                if (a->json) {
                        struct json j;

                        json_init(&j, stdout);
                        json_object_begin(&j);
                        json_kv_bool(&j, "ok", true);
                        json_kv_string(&j, "id", a->id);
                        json_kv_string(&j, "action", a->action);
                        json_kv_int(&j, "epoch", (long long) admitted.epoch);
                        json_object_end(&j);
                        fputc('\n', stdout);
                }
                return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
        }
        if (a->json) {
                struct json j;

                json_init(&j, stdout);
                a11y_result_json(&j, d, &res);
                fputc('\n', stdout);
        } else {
                /* Names and text are the applications' words: no control reaches a terminal. */
                _cleanup_free_ char *text = NULL;
                size_t size = 0;
                FILE *m = open_memstream(&text, &size);

                if (!m)
                        return EXIT_FAILED;
                a11y_result_text(m, d, &res);
                if (fclose(m) != 0 || term_write(stdout, text, size) < 0)
                        return EXIT_FAILED;
        }
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

int verb_a11y(const struct cli_args *args) {
        _cleanup_(a11y_source_done) struct a11y_source src = {};
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        struct a11y_args a;
        xcb_connection_t *conn = NULL;
        int screen, r;

        r = parse(args, &a);
        if (r != EXIT_OK)
                return r;
        r = cli_running_display(a.profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = a11y_source_load(a.profile, dirfd, &src);
        if (r != EXIT_OK)
                return r;
        r = cli_connect_desktop(a.profile, display, xauthority, &conn, &screen);
        if (r != EXIT_OK)
                return r;
        {
                xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn));
                struct mcp_space space;
                struct a11y_desktop d;

                for (; it.rem && screen > 0; xcb_screen_next(&it), screen--)
                        ;
                mcp_space_fit(it.data->width_in_pixels, it.data->height_in_pixels, src.cfg.screenshot_max_edge,
                              src.cfg.screenshot_max_pixels, &space);
                a11y_source_desktop(&src, a.profile, conn, it.data->root, &space, &d);
                r = run(&a, &d, dirfd);
        }
        xcb_disconnect(conn);
        return r;
}

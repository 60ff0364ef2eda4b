/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk settle PROFILE [--quiet-ms MS] [--timeout-ms MS] [--json]: wait until the
 * screen has been quiet MS ms, or the timeout, on DAMAGE events
 * (x11/settle.h), and say which: settled, still_changing, no_change.
 * For a gateway that sends its input some other way and must know when to
 * look.
 */
#include <xcb/xcb.h>

#include "cli.h"
#include "cli-desktop.h"
#include "json.h"
#include "lease.h"
#include "log.h"
#include "settle.h"
#include "util.h"
#include "verbs.h"

/* PROFILE [--quiet-ms MS] [--timeout-ms MS] [--json], read by main.c's parser
 * (verb-table.c: its row, its usage, and the milliseconds judged). */
int verb_settle(const struct cli_args *args) {
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        const char *profile = args->operand;
        unsigned quiet = args->quiet_ms ?: SETTLE_QUIET_MS_DEFAULT, cap = args->timeout_ms ?: SETTLE_CAP_MS_DEFAULT, ms = 0;
        enum settle_state state;
        struct settle st;
        struct lease admitted;
        xcb_connection_t *c;
        xcb_screen_t *screen = NULL;
        bool json = args->json;
        int n, r;

        r = cli_running_display(profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = cli_action_admit(dirfd, profile, "settle", json, &admitted);
        if (r != EXIT_OK)
                return r;
        r = cli_connect_desktop(profile, display, xauthority, &c, &n);
        if (r != EXIT_OK)
                return r;
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c)); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        screen = it.data;
        if (!screen || settle_open(&st, c, screen->root) < 0) {
                xcb_disconnect(c);
                log_error("Display %s offers no DAMAGE extension (or this botdesk was built without xcb-damage): "
                          "nothing to wait on.", display);
                return EXIT_FAILED;
        }
        settle_begin(&st);
        r = settle_wait(&st, quiet, cap, &state, &ms);
        settle_close(&st);
        xcb_disconnect(c);
        if (r < 0) {
                log_error_errno(r, "The X connection to desktop %s broke: %m", profile);
                return EXIT_FAILED;
        }
        r = cli_action_done(dirfd, profile, "settle", &admitted, json);
        if (r != EXIT_OK)
                return r;
        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_string(&j, "settle", settle_state_name(state));
                json_kv_int(&j, "ms", ms);
                json_kv_int(&j, "epoch", (long long) admitted.epoch);
                json_object_end(&j);
                putchar('\n');
        } else
                printf("%s %u\n", settle_state_name(state), ms);
        return EXIT_OK;
}

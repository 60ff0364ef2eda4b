/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk settle PROFILE [--quiet MS] [--timeout MS] [--json]: wait until the
 * screen has been quiet MS ms, or the timeout, on DAMAGE events
 * (control/settle.h), and say which: settled, still_changing, no_change.
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

#define SETTLE_MS_MAX 600000ull

static void settle_usage(FILE *f) {
        fputs("Usage: botdesk settle PROFILE [--quiet MS] [--timeout MS] [--json]\n"
              "\n"
              "Wait until the screen has been quiet MS ms (default 150), at most the timeout (default 2000 ms);\n"
              "prints settled, still_changing or no_change and the ms it took. A caret's blink or the clock\n"
              "(changes under 40x40 pixels) do not count.\n",
              f);
}

static int ms_option(const char *name, const char *value, unsigned *ret) {
        unsigned long long v;

        if (!value || parse_uint(value, SETTLE_MS_MAX, &v) < 0 || v == 0) {
                log_error("Invalid %s \"%s\": give milliseconds, 1-600000.", name, strnull(value));
                return EXIT_USAGE;
        }
        *ret = (unsigned) v;
        return EXIT_OK;
}

int verb_settle(int argc, char **argv) {
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        const char *profile = NULL;
        unsigned quiet = SETTLE_QUIET_MS_DEFAULT, cap = SETTLE_CAP_MS_DEFAULT, ms = 0;
        enum settle_state state;
        struct settle st;
        struct lease admitted;
        xcb_connection_t *c;
        xcb_screen_t *screen = NULL;
        bool json = false;
        int n, r;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (streq(a, "-h") || streq(a, "--help")) {
                        settle_usage(stdout);
                        return EXIT_OK;
                } else if (streq(a, "--json"))
                        json = true;
                else if (streq(a, "--quiet") || streq(a, "--timeout")) {
                        r = ms_option(a, i + 1 < argc ? argv[++i] : NULL, streq(a, "--quiet") ? &quiet : &cap);
                        if (r != EXIT_OK)
                                return r;
                } else if (startswith(a, "--quiet=") || startswith(a, "--timeout=")) {
                        r = ms_option(a, strchr(a, '=') + 1, startswith(a, "--quiet=") ? &quiet : &cap);
                        if (r != EXIT_OK)
                                return r;
                } else if (a[0] == '-' || profile) {
                        log_error("Unexpected argument \"%s\" for settle.", a);
                        settle_usage(stderr);
                        return EXIT_USAGE;
                } else
                        profile = a;
        }
        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk wait PROFILE --for COND [--timeout S] [--json]: until the
 * condition holds (wait-until.h says which there are and what wakes each),
 * on the X server's events and the accessibility tree, never polled. An
 * agent action like the others: refused while a human holds control, and
 * a take while it waits (the lease watched through inotify on the runtime
 * dir) ends it as suppressed.
 */
#include <sys/inotify.h>
#include <xcb/xcb.h>

#include "a11y-agent.h"
#include "cli.h"
#include "cli-desktop.h"
#include "json.h"
#include "lease.h"
#include "lease-watch.h"
#include "log.h"
#include "term-escape.h"
#include "util.h"
#include "verb-table.h"
#include "verbs.h"
#include "wait-until.h"

/* The valid form, after the message of a usage error: EXIT_USAGE. */
static int usage(void) {
        cli_verb_usage_to(stderr, "wait");
        return EXIT_USAGE;
}

/* --for COND and --timeout S judged: EXIT_OK, or EXIT_USAGE said with the valid form. */
static int parse_condition(const struct cli_args *a, struct wait_condition *ret, unsigned *ret_timeout) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (!a->wait_for || !*a->wait_for) {
                log_error("Nothing to wait for: give --for " WAIT_CONDITIONS ".");
                return usage();
        }
        r = wait_condition_parse(a->wait_for, ret, &error);
        if (r == -ENOMEM)
                return log_oom(), EXIT_FAILED;
        if (r < 0) {
                log_error("%s", error);
                return usage();
        }
        if (a->timeout > WAIT_TIMEOUT_MAX) {
                wait_condition_done(ret);
                log_error("--timeout %u is too long: give whole seconds, 1-%u.", a->timeout, WAIT_TIMEOUT_MAX);
                return usage();
        }
        *ret_timeout = a->timeout ?: WAIT_TIMEOUT_DEFAULT;
        return EXIT_OK;
}

static void print_match(const char *profile, const struct wait_condition *c, const struct wait_match *m,
                        unsigned long long epoch, bool json) {
        _cleanup_free_ char *buf = NULL, *buf2 = NULL;

        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                wait_match_fields(&j, c, m);
                json_kv_int(&j, "epoch", (long long) epoch);
                json_object_end(&j);
                putchar('\n');
                return;
        }
        switch (c->kind) {
        case WAIT_WINDOW:
                printf("window 0x%08x \"%s\"\n", (unsigned) m->id, term_field(stdout, m->title, &buf) ?: "");
                break;
        case WAIT_GONE:
                printf("gone \"%s\"\n", term_field(stdout, c->value, &buf) ?: "");
                break;
        case WAIT_A11Y:
        case WAIT_TEXT:
                printf("%s %s %s \"%s\"\n", wait_kind_name(c->kind), m->node_id,
                       term_field(stdout, m->role ?: "", &buf2) ?: "", term_field(stdout, m->name ?: "", &buf) ?: "");
                break;
        case WAIT_QUIET:
                printf("quiet %u ms after %u ms\n", c->quiet_ms, m->ms);
                break;
        case WAIT_CHANGED:
                printf("changed after %u ms\n", m->ms);
                break;
        }
}

static void print_timeout(const char *profile, const struct wait_condition *c, unsigned timeout, bool json) {
        _cleanup_free_ char *buf = NULL;
        const char *v = term_field(stderr, c->value ?: "", &buf) ?: "";

        switch (c->kind) {
        case WAIT_WINDOW:
                log_error("Timed out after %u s on desktop %s waiting for a window whose title contains \"%s\".",
                          timeout, profile, v);
                break;
        case WAIT_GONE:
                log_error("Timed out after %u s on desktop %s waiting until no window's title contains \"%s\".",
                          timeout, profile, v);
                break;
        case WAIT_A11Y:
                log_error("Timed out after %u s on desktop %s waiting for an element a11y=%s.", timeout, profile, v);
                break;
        case WAIT_TEXT:
                log_error("Timed out after %u s on desktop %s waiting for an element that shows \"%s\".", timeout,
                          profile, v);
                break;
        case WAIT_QUIET:
                log_error("Timed out after %u s on desktop %s: the screen never stayed quiet for %u ms.", timeout,
                          profile, c->quiet_ms);
                break;
        case WAIT_CHANGED:
                log_error("Timed out after %u s on desktop %s: the screen did not change.", timeout, profile);
                break;
        }
        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_bool(&j, "timed_out", true);
                json_kv_string(&j, "for", wait_kind_name(c->kind));
                if (c->kind <= WAIT_GONE)
                        json_kv_string(&j, "title", c->value);
                else if (c->value)
                        json_kv_string(&j, "value", c->value);
                json_kv_int(&j, "timeout", timeout);
                json_object_end(&j);
                putchar('\n');
        }
}

int verb_wait(const struct cli_args *a) {
        _cleanup_(a11y_source_done) struct a11y_source src = {};
        _cleanup_(wait_condition_done) struct wait_condition cond = {};
        _cleanup_(wait_match_done) struct wait_match m = {};
        _cleanup_free_ char *display = NULL, *xauthority = NULL, *error = NULL;
        _cleanup_close_ int dirfd = -EBADF, ino = -EBADF;
        const char *profile = a->operand;
        struct settle settle = {};
        struct a11y_desktop d;
        struct mcp_space space;
        struct lease admitted;
        xcb_screen_t *screen = NULL;
        xcb_connection_t *conn = NULL;
        enum wait_outcome outcome = WAIT_TIMED_OUT;
        unsigned timeout = 0;
        bool json = a->json, tree, have_settle = false;
        int n, r;

        r = parse_condition(a, &cond, &timeout);
        if (r != EXIT_OK)
                return r;
        tree = cond.kind == WAIT_A11Y || cond.kind == WAIT_TEXT;
        r = cli_running_display(profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        if (tree) {
                r = a11y_source_load(profile, dirfd, &src);
                if (r != EXIT_OK)
                        return r;
        }
        r = cli_action_admit(dirfd, profile, "wait", json, &admitted);
        if (r != EXIT_OK)
                return r;
        /* The lease watched before the wait's first look: a take in between is not missed. */
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0 || lease_watch_add(ino, dirfd) < 0)
                return log_error("Cannot watch the lease of desktop %s.", profile), EXIT_FAILED;
        r = cli_connect_desktop(profile, display, xauthority, &conn, &n);
        if (r != EXIT_OK)
                return r;
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn)); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        screen = it.data;
        if (!screen) {
                xcb_disconnect(conn);
                return log_error("Display %s has no such screen.", display), EXIT_FAILED;
        }
        if (cond.kind >= WAIT_A11Y)
                have_settle = settle_open(&settle, conn, screen->root) >= 0;
        if (tree) {
                mcp_space_fit(screen->width_in_pixels, screen->height_in_pixels, src.cfg.screenshot_max_edge,
                              src.cfg.screenshot_max_pixels, &space);
                a11y_source_desktop(&src, profile, conn, screen->root, &space, &d);
        }
        r = wait_until(&(struct wait_target) {
                        .conn = conn,
                        .root = screen->root,
                        .settle = have_settle ? &settle : NULL,
                        .a11y = tree ? &d : NULL,
                        .dirfd = dirfd,
                        .lease_watch = ino,
                        .admitted = &admitted,
                }, &cond, now_usec() + (unsigned long long) timeout * 1000000ull, &outcome, &m, &error);
        if (have_settle)
                settle_close(&settle);
        xcb_disconnect(conn);
        if (r == -EOPNOTSUPP) {
                log_error("Desktop %s cannot be waited on for %s: its X server or this build has no DAMAGE.", profile,
                          wait_kind_name(cond.kind));
                return EXIT_FAILED;
        }
        if (r == -ENODATA) {
                log_error("%s", error);
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot watch desktop %s: %m", profile);
                return EXIT_FAILED;
        }
        if (outcome == WAIT_TIMED_OUT) {
                print_timeout(profile, &cond, timeout, json);
                return EXIT_FAILED;
        }
        /* A match or a take: the gate says which counts (suppressed, said, when the lease moved). */
        r = cli_action_done(dirfd, profile, "wait", &admitted, json);
        if (r == EXIT_OK && outcome == WAIT_MATCHED) {
                activity_stamp(dirfd);
                print_match(profile, &cond, &m, admitted.epoch, json);
        }
        return r;
}

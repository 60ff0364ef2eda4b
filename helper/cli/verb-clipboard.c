/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk clipboard PROFILE get|set [--type text/plain|image/png]: the
 * agent's clipboard, under the lease like every agent action (refused, 3,
 * while a human holds control), capped by [agent] clipboard_max_bytes,
 * never logged. get prints the content on stdout; set reads it from stdin.
 */
#include <unistd.h>

#include "cli.h"
#include "cli-desktop.h"
#include "clipboard.h"
#include "journal-hook.h"
#include "lease.h"
#include "lease-settled.h"
#include "log.h"
#include "util.h"
#include "verbs.h"

/* Standard input, whatever it is (a pipe, a socket: /dev/stdin cannot be opened for a socket), at most max bytes. */
static int read_stdin(size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = malloc(max + 1);
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(STDIN_FILENO, buf + n, max + 1 - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }
        buf[n] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

struct clip_info {
        bool png;
        size_t size;
};

static void journal_clipboard_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct clip_info *ci = userdata;

        json_kv_string(j, "type", ci->png ? "image/png" : "text/plain");
        json_kv_int(j, "length", (long long) ci->size);
}

static void record_get(const char *profile, const struct bd_config *cfg, const struct lease *admitted,
                       const char *result, bool png, size_t size) {
        cli_journal_record(profile, &(const struct cli_journal_action) {
                .action = "clipboard get", .admitted = admitted, .config = cfg, .result = result,
                .no_frame = true,
                .args = journal_clipboard_args, .userdata = &(struct clip_info) { png, size },
        });
}

/* PROFILE get|set [--type T], read by main.c's parser (verb-table.c: its row and usage). */
int verb_clipboard(const struct cli_args *args) {
        _cleanup_free_ char *display = NULL, *xauthority = NULL, *in = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        const char *profile = args->operand, *action = args->action;
        _cleanup_(config_done) struct bd_config storage = {};
        const struct bd_config *cfg;
        struct lease admitted;
        xcb_connection_t *c;
        size_t size = 0, max;
        bool png;
        int n, r;

        if (!action || (!streq(action, "get") && !streq(action, "set"))) {
                log_error("clipboard needs get or set.");
                cli_verb_usage_to(stderr, "clipboard");
                return EXIT_USAGE;
        }
        png = args->clipboard_png;
        cfg = cli_config(args->config, profile, &storage);
        if (!cfg)
                return EXIT_USAGE;
        max = cfg->clipboard_max_bytes;

        if (streq(action, "set")) {
                /* Read (bounded) before the gate: a refused set then has consumed its input like any other. */
                r = read_stdin(max, &in, &size);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the clipboard content from standard input (at most %zu bytes: "
                                                  "[agent] clipboard_max_bytes): %m", max), EXIT_USAGE;
        }
        r = cli_running_display(profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = cli_action_admit(dirfd, profile, streq(action, "get") ? "clipboard get" : "clipboard set", false, &admitted);
        if (r != EXIT_OK)
                return r;
        /* What a human copied during a hold is emptied at the hand-back: not read before, nor emptying a set after. */
        if (clipboard_wait_handback(dirfd, admitted.epoch) < 0) {
                log_error("The helper of desktop %s has not emptied the clipboard since the hand-back within %u ms; "
                          "restart the desktop.", profile, LEASE_SETTLED_WAIT_MS);
                return EXIT_FAILED;
        }
        if (streq(action, "set")) {
                r = clipboard_set(dirfd, png, in, size);
                if (in)
                        explicit_bzero(in, size);
                if (r == -ETIME) {
                        log_error("The helper of desktop %s did not take the clipboard within %u ms; restart the desktop.",
                                  profile, CLIPBOARD_ANSWER_MS);
                        return EXIT_FAILED;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot hand the clipboard to desktop %s: %m", profile), EXIT_FAILED;
                r = cli_action_done(dirfd, profile, "clipboard set", &admitted, false);
                /* The type and the length, never the content. */
                cli_journal_record(profile, &(const struct cli_journal_action) {
                        .action = "clipboard set", .admitted = &admitted, .config = cfg,
                        .result = r == EXIT_OK ? "ok" : "suppressed",
                        .args = journal_clipboard_args, .userdata = &(struct clip_info) { png, size },
                });
                if (r == EXIT_OK)
                        activity_stamp(dirfd);
                return r;
        }

        r = cli_connect_desktop(profile, display, xauthority, &c, &n);
        if (r != EXIT_OK)
                return r;
        r = clipboard_get(c, xcb_setup_roots_iterator(xcb_get_setup(c)).data->root, png, max, NULL, NULL, &data, &size);
        xcb_disconnect(c);
        /* Read or not, the agent asked: the type and the length, never the content. */
        if (r < 0)
                record_get(profile, cfg, &admitted, "error", png, 0);
        if (r == -ENODATA) {
                log_error("The clipboard of desktop %s holds no %s.", profile, png ? "PNG image" : "text");
                return EXIT_FAILED;
        }
        if (r == -EFBIG) {
                log_error("The clipboard of desktop %s holds more than %zu bytes ([agent] clipboard_max_bytes).", profile, max);
                return EXIT_FAILED;
        }
        if (r == -ETIME) {
                log_error("The owner of the clipboard of desktop %s did not answer within %u ms.", profile, CLIPBOARD_ANSWER_MS);
                return EXIT_FAILED;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot read the clipboard of desktop %s: %m", profile), EXIT_FAILED;
        /* What a human did meanwhile is not the agent's to read. */
        r = cli_action_done(dirfd, profile, "clipboard get", &admitted, false);
        record_get(profile, cfg, &admitted, r == EXIT_OK ? "ok" : "suppressed", png, size);
        if (r != EXIT_OK)
                return r;
        if (write_all(STDOUT_FILENO, data, size) < 0)
                return log_error_errno(negative_errno(), "Cannot write the clipboard to standard output: %m"), EXIT_FAILED;
        activity_stamp(dirfd);
        return EXIT_OK;
}

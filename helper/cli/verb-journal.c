/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk journal PROFILE [--json] [--since SEQ|TIME] [--follow]
 * botdesk journal PROFILE export DIR | export --video FILE.mp4
 * botdesk journal PROFILE replay [--from N] [--to M] [--dry-run] [--scale]
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "journal-export.h"
#include "journal-replay.h"
#include "frame-diff.h"
#include "journal.h"
#include "json.h"
#include "log.h"
#include "profile.h"
#include "term-escape.h"
#include "util.h"
#include "verb-table.h"

struct print_ctx {
        bool json;
        const char *since_time;
};

static const char *member_string(const struct json_value *v, const char *key) {
        const struct json_value *m = json_get(v, key);
        return m && m->type == JSON_STRING ? m->string : NULL;
}

static int print_entry(unsigned long long seq, const char *line, size_t len, void *userdata) {
        const struct print_ctx *ctx = userdata;
        struct json_value *v = NULL;
        const char *t;
        int r;

        r = json_parse(line, len, &v);
        if (r < 0)
                return 0;
        t = member_string(v, "time");
        if (ctx->since_time && (!t || strcmp(t, ctx->since_time) < 0)) {
                json_value_free(v);
                return 0;
        }
        if (ctx->json)
                printf("%.*s\n", (int) len, line);
        else {
                const struct json_value *args = json_get(v, "args");
                const char *settle = member_string(v, "settle"), *msg = member_string(v, "message"),
                           *event = member_string(v, "event");
                _cleanup_free_ char *safe = NULL;
                struct json j;

                printf("%llu %s %s %s", seq, t ?: "?", member_string(v, "action") ?: "?",
                       event ?: member_string(v, "result") ?: "?");
                if (settle)
                        printf(" %s", settle);
                if (args && args->type == JSON_OBJECT && args->n > 0) {
                        putchar(' ');
                        json_init(&j, stdout);
                        json_value_write(&j, args);
                }
                if (msg)
                        printf(" (%s)", term_field(stdout, msg, &safe));
                putchar('\n');
        }
        json_value_free(v);
        return fflush(stdout) == 0 ? 0 : -EPIPE;
}

/* A watch on the journal dir, set before the first read so that nothing written meanwhile is missed. */
static int watch_journal(struct journal *j) {
        _cleanup_close_ int ifd = inotify_init1(IN_CLOEXEC);
        int r;

        if (ifd < 0)
                return negative_errno();
        r = inotify_add_watch_fd(ifd, j->fd, IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF);
        if (r < 0)
                return r;
        return TAKE_FD(ifd);
}

/* Read on as entries come: inotify on the journal dir, no polling. */
static int follow(struct journal *j, int ifd, unsigned long long next, struct print_ctx *ctx) {
        int r;

        for (;;) {
                char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                struct pollfd pfd = { .fd = ifd, .events = POLLIN };
                ssize_t n;

                if (poll(&pfd, 1, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return EXIT_FAILED;
                }
                n = read(ifd, buf, sizeof buf);
                if (n < 0 && errno != EAGAIN && errno != EINTR)
                        return EXIT_FAILED;
                r = journal_read(j, next, print_entry, ctx, &next, NULL);
                if (r == -EPIPE)
                        return EXIT_OK;
                if (r < 0)
                        return log_error_errno(r, "Cannot read the journal: %m"), EXIT_FAILED;
        }
}

/* Its words as main.c's parser left them (verb-table.c: its row, its usage,
 * and --from, --to and --tolerance judged). */
int verb_journal(const struct cli_args *args) {
        _cleanup_(paths_done) struct bd_paths p = {};
        struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        struct print_ctx ctx = { .json = args->json };
        struct replay_options ro = {
                .from = args->from,
                .to = args->to,
                .dry_run = args->dry_run,
                .scale = args->scale,
                .tolerance = args->tolerance_given ? (double) args->tolerance : FRAME_DIFF_TOLERANCE_DEFAULT,
        };
        const char *since = args->since, *video = args->video, *profile = args->operand;
        const char *sub = args->n_operands > 1 ? args->operands[1] : NULL;
        const char *dir = args->n_operands > 2 ? args->operands[2] : NULL;
        unsigned long long since_seq = 0, next = 0;
        bool do_follow = args->follow;
        _cleanup_close_ int ifd = -EBADF;
        int r, ret;

        if (args->n_operands > 3) {
                log_error("Too many arguments; see botdesk journal --help.");
                return EXIT_USAGE;
        }
        if (sub && !streq(sub, "export") && !streq(sub, "replay")) {
                log_error("Unknown journal command \"%s\"; see botdesk journal --help.", sub);
                return EXIT_USAGE;
        }
        if (sub && streq(sub, "export") && !dir == !video) {
                log_error("export takes a DIR, or --video FILE.mp4; see botdesk journal --help.");
                return EXIT_USAGE;
        }
        if (since) {
                if (parse_uint(since, 999999999999ull, &since_seq) < 0) {
                        since_seq = 0;
                        ctx.since_time = since;
                }
        }
        r = paths_for_profile(profile, &p);
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of profile %s: %m", profile), EXIT_FAILED;
        r = journal_open(p.state, 0, &j);
        if (r == -ENOENT) {
                log_error("Profile %s has no journal (%s/" JOURNAL_DIR "): no agent action was recorded.", profile, p.state);
                return EXIT_FAILED;
        }
        if (r == -EPERM) {
                log_error("%s/" JOURNAL_DIR " is not a private directory (0700) of uid %u; remove it or fix its owner and mode.",
                          p.state, (unsigned) getuid());
                return EXIT_FAILED;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot open the journal of %s: %m", profile), EXIT_FAILED;

        if (sub && streq(sub, "replay")) {
                ret = dir ? EXIT_USAGE : journal_replay(&j, profile, &ro);
                journal_close(&j);
                return ret;
        }
        if (sub) {
                ret = video ? journal_export_video(&j, video) : journal_export_html(&j, profile, dir);
                journal_close(&j);
                return ret;
        }
        /* A reader that went away ends us quietly. */
        signal(SIGPIPE, SIG_IGN);
        if (do_follow) {
                ifd = watch_journal(&j);
                if (ifd < 0) {
                        journal_close(&j);
                        return log_error_errno(ifd, "Cannot watch the journal: %m"), EXIT_FAILED;
                }
        }
        r = journal_read(&j, since_seq, print_entry, &ctx, &next, NULL);
        if (r < 0 && r != -EPIPE) {
                journal_close(&j);
                return log_error_errno(r, "Cannot read the journal: %m"), EXIT_FAILED;
        }
        ret = EXIT_OK;
        if (do_follow && r >= 0)
                ret = follow(&j, ifd, next, &ctx);
        journal_close(&j);
        return ret;
}

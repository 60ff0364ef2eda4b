/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "journal-frame-request.h"
#include "journal-hook.h"
#include "journal.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "util.h"

const char *cli_journal_result(int exit_code) {
        return exit_code == EXIT_OK ? "ok" : exit_code == EXIT_REFUSED ? "refused" : "error";
}

static void on_alarm(int sig) {
        (void) sig;
}

/*
 * flock(LOCK_EX) for at most timeout_ms: a one-shot timer whose signal
 * (handled, without SA_RESTART) interrupts the wait. 0, -ETIMEDOUT or -errno.
 */
static int flock_deadline(int fd, unsigned timeout_ms) {
        struct sigaction sa = { .sa_handler = on_alarm }, old;
        struct itimerval it = { .it_value = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 } },
                         zero = {};
        int r = 0;

        if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                return 0;
        if (errno != EWOULDBLOCK)
                return negative_errno();
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGALRM, &sa, &old) < 0)
                return negative_errno();
        (void) setitimer(ITIMER_REAL, &it, NULL);
        if (flock(fd, LOCK_EX) < 0)
                r = errno == EINTR ? -ETIMEDOUT : negative_errno();
        (void) setitimer(ITIMER_REAL, &zero, NULL);
        (void) sigaction(SIGALRM, &old, NULL);
        return r;
}

/* Read-only: flock and the owner's futimens need no more, and closing it
 * then wakes none of the helper's watches on the runtime dir (IN_CLOSE_WRITE). */
static int frame_lock_open(int runtime_fd) {
        int fd = openat(runtime_fd, CLI_JOURNAL_FRAME_LOCK,
                        O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        return fd < 0 ? negative_errno() : fd;
}

/*
 * Ask the desktop's helper for the frame of entry seq (journal-frame-request.h),
 * the frame lock taken first and handed over with the request: the helper
 * lets it go once it has read the screen. Without a helper that listens
 * the entry has no frame.
 */
static void request_frame(int runtime_fd, const struct journal *j, unsigned long long seq, bool before) {
        _cleanup_close_ int lock = frame_lock_open(runtime_fd);
        int r;

        if (lock < 0 || flock_deadline(lock, CLI_JOURNAL_FRAME_WAIT_MS) < 0)
                return;
        r = journal_frame_request_send(runtime_fd, JOURNAL_FRAME_SOCKET,
                                       &(const struct journal_frame_request) {
                                               .seq = seq,
                                               .width = j->frame_width,
                                               .before = before,
                                               .lock_fd = lock,
                                               .journal_fd = j->fd,
                                               .frames_fd = j->frames_fd,
                                       });
        if (r < 0)
                log_debug_errno(r, "No frame for entry %llu of the journal: the desktop's helper did not take the request (%m).",
                                seq);
}

static int open_journal(const char *profile, const struct bd_config *given, struct bd_config *c, struct bd_paths *p,
                        struct journal *j);

/* The entry whose frame before this process took (the first action after a gap), or 0. */
static unsigned long long before_seq;

/* The profile of a runtime dir, from its name (the gate knows only the dir). */
static int runtime_profile(int runtime_fd, char *buf, size_t size) {
        _cleanup_free_ char *target = NULL;
        const char *slash;

        if (fd_get_path(runtime_fd, &target) < 0)
                return -EIO;
        slash = strrchr(target, '/');
        if (!slash || !profile_name_valid(slash + 1) || strlen(slash + 1) >= size)
                return -EINVAL;
        memcpy(buf, slash + 1, strlen(slash + 1) + 1);
        return 0;
}

/* The screen before the first action after a gap: read now, by the helper, before the action runs. */
static void frame_before(int runtime_fd) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int fd = -EBADF;
        struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        char profile[64];
        unsigned long long seq;
        int r;

        if (runtime_profile(runtime_fd, profile, sizeof profile) < 0)
                return;
        r = open_journal(profile, NULL, &c, &p, &j);
        if (r == -ENODATA) {
                /* No journal: stamped as if a frame was taken, so the next JOURNAL_GAP_S of actions do not look. */
                fd = frame_lock_open(runtime_fd);
                if (fd >= 0)
                        (void) futimens(fd, NULL);
        }
        if (r < 0)
                return;
        if (journal_next_seq(&j, &seq) >= 0) {
                request_frame(runtime_fd, &j, seq, true);
                /* Until it has read the screen: then the action may change it. */
                fd = frame_lock_open(runtime_fd);
                if (fd >= 0 && flock_deadline(fd, CLI_JOURNAL_FRAME_WAIT_MS) >= 0)
                        before_seq = seq;
        }
        journal_close(&j);
}

void cli_journal_frame_barrier(int runtime_fd) {
        _cleanup_close_ int fd = openat(runtime_fd, CLI_JOURNAL_FRAME_LOCK, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        struct stat st;
        bool gap;

        /* No frame yet, or none for JOURNAL_GAP_S (the helper stamps the lock's mtime). */
        gap = fd < 0 ? errno == ENOENT
                     : fstat(fd, &st) == 0 && realtime_usec() / 1000000 >= (unsigned long long) st.st_mtim.tv_sec + JOURNAL_GAP_S;
        /* Taken and let go at once: only the wait for the last frame's grab matters. */
        if (fd >= 0 && flock_deadline(fd, CLI_JOURNAL_FRAME_WAIT_MS) == -ETIMEDOUT)
                log_debug("The previous action's frame is still being taken; going on.");
        fd = safe_close(fd);
        if (gap)
                frame_before(runtime_fd);
}

/* The journal of profile, with [journal] of given, or of the configuration read now into *c. */
static int open_journal(const char *profile, const struct bd_config *given, struct bd_config *c, struct bd_paths *p,
                        struct journal *j) {
        int r;

        given = cli_config(given, profile, c);
        if (!given)
                return -EINVAL;
        if (!given->journal_enabled)
                return -ENODATA;
        r = paths_for_profile(profile, p);
        if (r < 0)
                return r;
        r = journal_open(p->state, JOURNAL_OPEN_CREATE | (given->journal_redact_text ? JOURNAL_OPEN_REDACT_KEY : 0), j);
        if (r < 0) {
                log_warning_errno(r, "The journal in %s/" JOURNAL_DIR " is not a private directory of uid %u (%m); "
                                  "nothing is recorded until it is fixed or removed.", p->state, (unsigned) getuid());
                return r;
        }
        j->max_bytes = (unsigned long long) given->journal_max_mb << 20;
        j->redact_text = given->journal_redact_text;
        j->frame_width = given->journal_frame_width;
        return 0;
}

static void append_after(const char *profile, struct journal *j, journal_prelude_fn prelude, void *userdata,
                         const struct journal_entry *e, unsigned long long *seq) {
        int r = journal_append_after(j, prelude, userdata, e, seq);

        if (r == -ENOSPC || r == -EDQUOT)
                log_warning("The disk of %s's journal is full: recording stopped (botdesk status says so).", profile);
        else if (r < 0 && r != -ESHUTDOWN)
                log_debug_errno(r, "Cannot write to the journal: %m");
        if (r < 0)
                *seq = 0;
}

static void append(const char *profile, struct journal *j, const struct journal_entry *e, unsigned long long *seq) {
        append_after(profile, j, NULL, NULL, e, seq);
}

/*
 * Control moved where the journal did not see it (botdesk web, rfb, stop
 * --force): the agent's epoch grew past the last entry's, so a human held
 * control meanwhile. Said once, as its return, just before the action. (A
 * lower epoch is a new desktop's lease, not a change of control.)
 */
struct returned {
        const struct lease *lease;
        char *extra;
};

static int returned_prelude(long long last_epoch, struct journal_entry *ret, void *userdata) {
        struct returned *rt = userdata;

        if (last_epoch < 0 || rt->lease->epoch <= (unsigned long long) last_epoch)
                return 0;
        rt->extra = strdup_printf("\"event\": \"returned\", \"since\": \"%s\", \"from_epoch\": %lld, "
                                  "\"note\": \"control changed outside botdesk lease\"", rt->lease->since, last_epoch);
        if (!rt->extra)
                return 0;
        *ret = (struct journal_entry) {
                .action = "lease", .agent = true, .epoch = rt->lease->epoch, .result = "ok", .extra_json = rt->extra,
        };
        return 1;
}

/* A frame taken already, as entry seq's; stamped on the lock as the helper does (a gap, JOURNAL_GAP_S). */
static void write_frame(int runtime_fd, struct journal *j, unsigned long long seq, const void *data, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        int r = journal_write_frame(j, seq, false, data, size);

        if (r < 0) {
                log_debug_errno(r, "Cannot write frame %llu of the journal: %m", seq);
                return;
        }
        fd = frame_lock_open(runtime_fd);
        if (fd >= 0)
                (void) futimens(fd, NULL);
}

void cli_journal_record(const char *profile, const struct cli_journal_action *a) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int runtime_fd = -EBADF;
        _cleanup_free_ char *args = NULL, *before = NULL;
        struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        struct returned rt = {};
        struct lease now;
        unsigned long long seq = 0;
        const struct lease *l;

        if (open_journal(profile, a->config, &c, &p, &j) < 0)
                return;
        runtime_fd = paths_open_runtime(&p, NULL);
        if (runtime_fd < 0)
                goto out;
        l = a->admitted;
        if (!l) {
                (void) lease_read_at(runtime_fd, &now);
                l = &now;
        }
        /* Nothing of the human's time: an action refused because a human holds control is not the agent's. */
        if (l->holder == LEASE_HUMAN)
                goto out;
        rt.lease = l;
        /* The frame before, when this process took one: named after the seq
         * the action's entry was to get (a "returned" entry may come first). */
        if (before_seq > 0) {
                char name[64];

                journal_frame_name(before_seq, true, name, sizeof name);
                before = strdup_printf("\"frame_before\": \"%s\"", name);
        }
        before_seq = 0;
        seq = 0;
        if (a->args) {
                size_t size = 0;
                FILE *f = open_memstream(&args, &size);
                struct json js;

                if (!f)
                        goto out;
                json_init(&js, f);
                json_object_begin(&js);
                a->args(&js, j.redact_text ? &j.redact : NULL, a->userdata);
                json_object_end(&js);
                if (fclose(f) != 0)
                        goto out;
        }
        append_after(profile, &j, returned_prelude, &rt,
               &(const struct journal_entry) {
                       .action = a->action,
                       .args_json = args,
                       .agent = true,
                       .epoch = l->epoch,
                       .result = a->result,
                       .message = a->message,
                       .settle = a->settle,
                       .settle_ms = a->settle_ms,
                       .frame = !a->no_frame,
                       .extra_json = before,
               },
               &seq);
        if (seq > 0 && !a->no_frame && a->frame)
                write_frame(runtime_fd, &j, seq, a->frame, a->frame_size);
        else if (seq > 0 && !a->no_frame)
                request_frame(runtime_fd, &j, seq, false);
out:
        free(rt.extra);
        journal_close(&j);
}

void cli_journal_words(struct json *j, char *const *words) {
        json_key(j, "words");
        json_array_begin(j);
        for (size_t i = 0; words && words[i]; i++)
                if (!streq(words[i], "--json") && !streq(words[i], "--start"))
                        json_string(j, words[i]);
        json_array_end(j);
}

void cli_journal_lease(const char *profile, const struct lease *l) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        _cleanup_free_ char *extra = NULL;
        char hash[LEASE_HASH_LEN + 1];
        unsigned long long seq;

        if (open_journal(profile, NULL, &c, &p, &j) < 0)
                return;
        if (l->holder == LEASE_HUMAN) {
                lease_viewer_hash(l->viewer, hash);
                extra = strdup_printf("\"event\": \"human_took\", \"viewer_hash\": \"%s\", \"since\": \"%s\"", hash,
                                      l->since);
        } else
                extra = strdup_printf("\"event\": \"returned\", \"since\": \"%s\"", l->since);
        if (extra)
                append(profile, &j,
                       &(const struct journal_entry) {
                               .action = "lease",
                               .agent = l->holder == LEASE_AGENT,
                               .epoch = l->epoch,
                               .result = "ok",
                               .extra_json = extra,
                       },
                       &seq);
        journal_close(&j);
}

void cli_journal_fork(const char *profile, const char *parent, const char *snapshot, unsigned long long snapshot_usec) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        char when[UTC_TIME_MAX];
        unsigned long long seq;
        struct json js;
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (open_journal(profile, NULL, &c, &p, &j) < 0)
                return;
        /* Names are a profile's and a snapshot's (no quote, no escape); written as JSON all the same. */
        f = open_memstream(&text, &size);
        if (f) {
                json_init(&js, f);
                json_object_begin(&js);
                json_kv_string(&js, "from", parent);
                json_kv_string(&js, "snapshot", snapshot);
                json_kv_string(&js, "snapshot_time", utc_time_format(snapshot_usec, true, when));
                json_object_end(&js);
                fclose(f);
        }
        if (text)
                append(profile, &j,
                       &(const struct journal_entry) {
                               .action = "fork",
                               .args_json = text,
                               .agent = true,
                               .result = "ok",
                       },
                       &seq);
        free(text);
        journal_close(&j);
}

/* What an a11y action was: the element, the action, and set-text's text as typed text is kept. */
static void a11y_do_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const char *const *w = userdata;

        json_kv_string(j, "id", w[0]);
        json_kv_string(j, "action", w[1]);
        if (w[2])
                journal_text_fields(j, "text", w[2], redact);
}

void cli_journal_a11y_do(const char *profile, const struct lease *admitted, const char *id, const char *action,
                         const char *text, int exit_code, const char *message) {
        const char *w[3] = { id, action, text };

        cli_journal_record(profile, &(const struct cli_journal_action) {
                .action = "a11y do",
                .admitted = admitted,
                .result = cli_journal_result(exit_code),
                .message = exit_code == EXIT_OK ? NULL : message,
                .args = a11y_do_args,
                .userdata = w,
        });
}

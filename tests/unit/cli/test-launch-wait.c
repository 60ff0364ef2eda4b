/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wait of a start that finds its desktop already starting, with inotify
 * and without it (EMFILE: the user's fs.inotify.max_user_instances used
 * up). A fixture runtime directory stands in for the profile's; a forked
 * child plays the helper: it takes helper.lock, records itself in helper,
 * and after a delay publishes env, fails with a reason in last-error, is
 * killed, or stays starting. Each case runs both ways and must end the same.
 */
#include <fcntl.h>
#include <time.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "record.h"
#include "launch.h"
#include "tap.h"
#include "util.h"

#define REASON "Xvnc exited with status 1 before the desktop on :99 was ready"

enum act {
        PUBLISH,      /* env renamed into place */
        FAIL,         /* last-error written, then exit 1 */
        KILLED,       /* SIGKILL: no word left */
        STAY,         /* starting until the deadline */
        RECORD_LATE,  /* holds the lock only, records itself later, then publishes */
};

static char root[] = "/tmp/botdesk-startwait.XXXXXX";

static int record_self(int dfd) {
        struct helper_record rec = { .pid = getpid(), .placement = (char *) "standalone", .display = -1 };

        if (pid_starttime(rec.pid, &rec.starttime) < 0)
                return -EIO;
        return helper_record_write_at(dfd, &rec);
}

static void put(int dfd, const char *name, const char *text) {
        if (write_file_atomic_at(dfd, name, text, strlen(text), 0600) < 0)
                _exit(91);
}

_noreturn_ static void play_helper(int dfd, enum act act, int after_ms, int ready_fd) {
        int lock = helper_lock_take(dfd);

        if (lock < 0 || (act != RECORD_LATE && record_self(dfd) < 0))
                _exit(90);
        if (write(ready_fd, "r", 1) != 1)
                _exit(92);
        (void) poll(NULL, 0, after_ms);
        switch (act) {
        case RECORD_LATE:
                if (record_self(dfd) < 0)
                        _exit(90);
                (void) poll(NULL, 0, after_ms);
                put(dfd, "env", "DISPLAY=:99\n");
                break;
        case PUBLISH:
                put(dfd, "env", "DISPLAY=:99\n");
                break;
        case FAIL:
                put(dfd, "last-error", REASON "\n");
                _exit(1);
        case KILLED:
                (void) raise(SIGKILL);
                break;
        case STAY:
                break;
        }
        for (;;)
                pause();
}

/* The helper, set up (lock held, record written unless RECORD_LATE) when this returns. */
static pid_t fake_helper(int dfd, enum act act, int after_ms) {
        int ready[2];
        struct pollfd pfd;
        char c;
        pid_t pid;

        if (pipe2(ready, O_CLOEXEC) < 0) {
                printf("Bail out! pipe2: %s\n", strerror(errno));
                exit(1);
        }
        pid = fork();
        if (pid == 0) {
                close(ready[0]);
                play_helper(dfd, act, after_ms, ready[1]);
        }
        close(ready[1]);
        pfd = (struct pollfd) { .fd = ready[0], .events = POLLIN };
        if (pid < 0 || poll(&pfd, 1, 5000) <= 0 || read(ready[0], &c, 1) != 1) {
                printf("Bail out! the fake helper did not set itself up within 5 s\n");
                exit(1);
        }
        close(ready[0]);
        return pid;
}

static void end(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

static void reset(int dfd) {
        (void) unlinkat(dfd, "env", 0);
        (void) unlinkat(dfd, HELPER_RECORD_FILE, 0);
        (void) unlinkat(dfd, "last-error", 0);
}

struct outcome {
        int r;
        char *error;
        unsigned long long ms;
        bool lock_released;
};

/* One wait: with the real inotify, or with inotify_init1() "failing" with EMFILE. */
static struct outcome wait_once(const struct bd_paths *p, int dfd, bool inotify, unsigned timeout_sec) {
        struct outcome o = {};
        unsigned long long t0 = now_usec(), deadline = t0 + (unsigned long long) timeout_sec * 1000000ULL;
        int lock = profile_lock(dfd);

        if (lock < 0) {
                printf("Bail out! cannot take the profile lock: %s\n", strerror(-lock));
                exit(1);
        }
        o.r = inotify ? standalone_wait_starting("fixture", p, dfd, &lock, deadline, timeout_sec, false, &o.error)
                      : standalone_wait_starting_with("fixture", p, dfd, &lock, deadline, timeout_sec, false, -EMFILE,
                                                      &o.error);
        o.ms = (now_usec() - t0) / 1000;
        o.lock_released = lock == -EBADF;
        safe_close(lock);
        return o;
}

/* A helper that does act at_ms into the wait: the wait ends with want_r and want_error, at once. */
static void ends_when(const struct bd_paths *p, int dfd, bool inotify, enum act act, int after_ms,
                      unsigned long long at_ms, int want_r, const char *want_error, const char *what) {
        const char *how = inotify ? "with inotify" : "without inotify (EMFILE)";
        pid_t h = fake_helper(dfd, act, after_ms);
        struct outcome o = wait_once(p, dfd, inotify, 10);

        TAP_EQ_INT(o.r, want_r, "%s: %s", how, what);
        TAP_EQ_STR(o.error, want_error, "%s: %s: %s", how, what, want_error ? "the helper's reason" : "no reason made up");
        /* The helper's clock starts as it says it is set up, a little
         * before the wait's own (a loaded machine: a few ms, seen 2 under
         * ASan): not before, is what the lower bound means. */
        tap_ok(o.ms + 50 >= at_ms && o.ms < at_ms + 2000, "%s: %s: as soon as it happened (after %llu ms; at %llu)",
               how, what, o.ms, at_ms);
        tap_ok(o.lock_released, "%s: %s: the profile lock was released for the wait", how, what);
        free(o.error);
        end(h);
        reset(dfd);
}

static void cases(const struct bd_paths *p, int dfd, bool inotify) {
        const char *how = inotify ? "with inotify" : "without inotify (EMFILE)";
        static const char want_start[] = "Desktop fixture was still starting after 1 s (waited 1.";
        static const char want_end[] = "s for the start already under way); botdesk stop fixture ends it";
        struct outcome o;
        pid_t h;

        ends_when(p, dfd, inotify, PUBLISH, 300, 300, 0, NULL, "the env file appears: the desktop is ready");
        ends_when(p, dfd, inotify, RECORD_LATE, 200, 400, 0, NULL,
                  "a helper that records itself only later, then publishes: ready");
        ends_when(p, dfd, inotify, FAIL, 300, 300, -EIO, REASON, "the helper exits with a reason: the wait fails");
        ends_when(p, dfd, inotify, KILLED, 300, 300, -ESRCH, NULL, "the helper is killed: it ended without a reason");

        h = fake_helper(dfd, STAY, 0);
        o = wait_once(p, dfd, inotify, 1);
        TAP_EQ_INT(o.r, -ETIMEDOUT, "%s: a helper that stays starting: the wait times out", how);
        tap_ok(o.error && startswith(o.error, want_start) && strlen(o.error) > strlen(want_end) &&
                       streq(o.error + strlen(o.error) - strlen(want_end), want_end),
               "%s: with the timeout message: %s", how, o.error ?: "(null)");
        tap_ok(o.ms >= 1000 && o.ms < 3000, "%s: at its deadline (after %llu ms; timeout 1 s)", how, o.ms);
        tap_ok(kill(h, 0) == 0, "%s: and the starting helper is left alone (its own start_timeout ends it)", how);
        free(o.error);
        end(h);
        reset(dfd);

        o = wait_once(p, dfd, inotify, 10);
        TAP_EQ_INT(o.r, -ESRCH, "%s: no helper at all: nothing to wait for", how);
        tap_ok(o.ms < 1000, "%s: said at once (%llu ms)", how, o.ms);
        free(o.error);
}

/* A reason is a start's own only when written since that start began. */
static void last_error_since(int dfd) {
        _cleanup_free_ char *now_text = NULL, *old_text = NULL, *any = NULL;
        unsigned long long before = realtime_coarse_usec(), after;

        if (write_file_atomic_at(dfd, "last-error", "The X server died.\n", 19, 0600) < 0) {
                printf("Bail out! cannot write last-error\n");
                exit(1);
        }
        now_text = standalone_last_error_since(dfd, before);
        TAP_EQ_STR(now_text, "The X server died.", "a reason written since the start is the start's");
        after = before + 10 * 1000000ULL;
        old_text = standalone_last_error_since(dfd, after);
        tap_ok(old_text == NULL, "a reason written before the start is not");
        any = standalone_last_error(dfd);
        TAP_EQ_STR(any, "The X server died.", "without a start time any reason counts");
        (void) unlinkat(dfd, "last-error", 0);
}

int main(void) {
        _cleanup_close_ int dfd = -EBADF;
        struct bd_paths p = {};

        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                return 1;
        }
        dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                printf("Bail out! open %s: %s\n", root, strerror(errno));
                return 1;
        }
        p.runtime = root;

        cases(&p, dfd, true);
        cases(&p, dfd, false);
        last_error_since(dfd);

        reset(dfd);
        (void) unlinkat(dfd, HELPER_LOCK_FILE, 0);
        (void) unlinkat(dfd, START_LOCK_FILE, 0);
        (void) rmdir(root);
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "lease.h"
#include "lease-watch.h"
#include "util.h"

static char tmpdir[PATH_MAX];
static int dirfd_ = -1;

struct seen {
        unsigned events, lease_changes;
        unsigned stop_after;            /* 0: never stop */
};

static int count(const struct inotify_event *ev, void *userdata) {
        struct seen *s = userdata;

        s->events++;
        if (lease_event_changes(ev))
                s->lease_changes++;
        return s->stop_after && s->events == s->stop_after ? 42 : 0;
}

static void write_file(const char *name, const char *text) {
        if (write_file_atomic_at(dirfd_, name, text, strlen(text), 0600) < 0)
                abort();
}

static void test_events(void) {
        _cleanup_close_ int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        struct seen s = {};
        struct lease l;
        int wd;

        wd = lease_watch_add(ino, dirfd_);
        tap_ok(wd >= 0, "a runtime dir is watched through its fd (wd=%d)", wd);
        TAP_EQ_INT(inotify_drain(ino, count, &s), 0, "an empty queue drains at once");
        TAP_EQ_INT(s.events, 0, "and hands over no event");

        write_file("env", "DISPLAY=:5\n");
        (void) inotify_drain(ino, count, &s);
        tap_ok(s.events > 0 && s.lease_changes == 0,
               "another file replaced is an event but no lease change (%u events, %u changes)", s.events, s.lease_changes);

        s = (struct seen) {};
        TAP_EQ_INT(lease_take_at(dirfd_, "alice", NULL, &l), 1, "alice takes control");
        TAP_EQ_INT(inotify_drain(ino, count, &s), 0, "the take drains");
        tap_ok(s.lease_changes > 0, "and it is a lease change (%u of %u events)", s.lease_changes, s.events);
        s = (struct seen) {};
        TAP_EQ_INT(inotify_drain(ino, count, &s), 0, "a drained queue stays empty");
        TAP_EQ_INT(s.events, 0, "no event is handed over twice");

        /* Three files replaced: several events queued; the callback stops the drain at the first. */
        write_file("a", "1");
        write_file("b", "2");
        write_file("c", "3");
        s = (struct seen) { .stop_after = 1 };
        TAP_EQ_INT(inotify_drain(ino, count, &s), 42, "a callback's non-zero ends the drain and is returned");
        TAP_EQ_INT(s.events, 1, "no event is handed over after it");

        TAP_EQ_INT(inotify_drain(ino, NULL, NULL), 0, "a drain without a callback empties the queue");
        TAP_EQ_INT(inotify_drain(-1, count, &s), -EBADF, "a read that fails is an error, not an empty queue");
        (void) lease_release_at(dirfd_, "alice", NULL);
}

static void test_event_kinds(void) {
        union {
                struct inotify_event ev;
                char raw[sizeof(struct inotify_event) + 16];
        } e = {};

        e.ev.mask = IN_Q_OVERFLOW;
        e.ev.wd = -1;
        tap_ok(lease_event_changes(&e.ev), "an overflowed queue may have lost a lease change");
        e.ev = (struct inotify_event) { .mask = IN_IGNORED };
        tap_ok(lease_event_changes(&e.ev), "a watch gone (the dir removed) is one");
        e.ev = (struct inotify_event) { .mask = IN_DELETE_SELF };
        tap_ok(lease_event_changes(&e.ev), "so is the dir deleted");
        e.ev = (struct inotify_event) { .mask = IN_MOVED_TO, .len = 16 };
        strcpy(e.ev.name, LEASE_FILE);
        tap_ok(lease_event_changes(&e.ev), "the lease file renamed into place is one");
        e.ev = (struct inotify_event) { .mask = IN_DELETE, .len = 16 };
        strcpy(e.ev.name, LEASE_FILE);
        tap_ok(lease_event_changes(&e.ev), "the lease file removed is one");
        e.ev = (struct inotify_event) { .mask = IN_MOVED_TO, .len = 16 };
        strcpy(e.ev.name, LEASE_LOCK_FILE);
        tap_ok(!lease_event_changes(&e.ev), "the lease's lock file is not");
        e.ev = (struct inotify_event) { .mask = IN_CLOSE_WRITE, .len = 16 };
        strcpy(e.ev.name, "leases");
        tap_ok(!lease_event_changes(&e.ev), "nor a file whose name only starts like it");
        e.ev = (struct inotify_event) { .mask = IN_MODIFY };
        tap_ok(!lease_event_changes(&e.ev), "nor the dir's own change without a name");
}

/* lease_wait_at() runs on the same watch and drain: a release in another process wakes it. */
static void test_wait(void) {
        struct lease l;
        pid_t pid;
        int status, r;

        TAP_EQ_INT(lease_take_at(dirfd_, "bob", NULL, &l), 1, "bob takes control");
        r = lease_wait_agent_at(dirfd_, 50, &l);
        tap_ok(r == -ETIME && l.holder == LEASE_HUMAN, "waiting for the agent times out while bob holds it (r=%d)", r);

        pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                struct timespec t = { .tv_nsec = 100 * 1000 * 1000 };

                /* After the parent is (most likely) inside its wait. */
                (void) nanosleep(&t, NULL);
                _exit(lease_release_at(dirfd_, "bob", NULL) == 1 ? 0 : 1);
        }
        r = lease_wait_agent_at(dirfd_, 10 * 1000, &l);
        tap_ok(r == 0 && l.holder == LEASE_AGENT, "a release by another process ends the wait within 10 s (r=%d)", r);
        tap_ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "the other process released bob's control");
}

int main(void) {
        scratch_dir_make(tmpdir, sizeof tmpdir, "botdesk-test-lease-watch");
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd_ < 0)
                die("open");

        test_events();
        test_event_kinds();
        test_wait();

        close(dirfd_);
        scratch_dir_remove(tmpdir);
        return tap_done();
}

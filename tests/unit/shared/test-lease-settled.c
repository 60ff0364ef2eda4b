/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/wait.h>
#include <time.h>

#include "lease.h"
#include "lease-settled.h"
#include "lease-watch.h"
#include "util.h"

static char tmpdir[PATH_MAX];
static int dirfd_ = -1;

static void put(const char *text) {
        if (write_file_atomic_at(dirfd_, LEASE_SETTLED_FILE, text, strlen(text), 0600) < 0)
                abort();
}

static void test_file(void) {
        unsigned long long e = 0;

        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -ENOENT, "no file reads as -ENOENT");
        tap_ok(lease_settled_for(dirfd_, 7), "no file: nothing settles, nothing to wait for (an older helper)");
        TAP_EQ_INT(lease_settled_write_at(dirfd_, 6), 0, "epoch 6 is recorded");
        tap_ok(lease_settled_read_at(dirfd_, &e) == 0 && e == 6, "and read back (%llu)", e);
        tap_ok(lease_settled_for(dirfd_, 6) && lease_settled_for(dirfd_, 5), "epoch 6 and those before are settled");
        tap_ok(!lease_settled_for(dirfd_, 7), "epoch 7 is not");

        put("");
        tap_ok(!lease_settled_for(dirfd_, 0), "an empty file settles nothing, not even epoch 0");
        put("7");
        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -EBADMSG, "a line without its newline is refused");
        put("7\n8\n");
        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -EBADMSG, "two lines are refused");
        put("-1\n");
        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -EBADMSG, "a sign is refused");
        put("9007199254740992\n");
        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -EBADMSG, "an epoch beyond LEASE_EPOCH_MAX is refused");
        put("99999999999999999999999999999999999999999\n");
        TAP_EQ_INT(lease_settled_read_at(dirfd_, &e), -EBADMSG, "a file too long for an epoch is refused");
        tap_ok(!lease_settled_for(dirfd_, 0), "a damaged file settles nothing");
}

static int note(const struct inotify_event *ev, void *userdata) {
        bool *seen = userdata;

        *seen = *seen || (ev->len > 0 && streq(ev->name, LEASE_SETTLED_FILE) && lease_event_changes(ev));
        return 0;
}

static void test_events(void) {
        _cleanup_close_ int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        bool seen = false;

        if (lease_watch_add(ino, dirfd_) < 0)
                die("lease_watch_add");
        TAP_EQ_INT(lease_settled_write_at(dirfd_, 9), 0, "epoch 9 is recorded");
        TAP_EQ_INT(inotify_drain(ino, note, &seen), 0, "the watch drains");
        tap_ok(seen, "its write is a lease event: a relay holding a viewer's input looks again");
}

static void test_wait(void) {
        pid_t pid;
        int status, r;

        TAP_EQ_INT(lease_settled_write_at(dirfd_, 10), 0, "epoch 10 is recorded");
        TAP_EQ_INT(lease_settled_wait_at(dirfd_, 10, 1000), 0, "a wait for a settled epoch returns at once");
        TAP_EQ_INT(lease_settled_wait_at(dirfd_, 11, 50), -ETIME, "a wait for one that does not come ends with -ETIME");
        pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                struct timespec t = { .tv_nsec = 100 * 1000 * 1000 };

                (void) nanosleep(&t, NULL);
                _exit(lease_settled_write_at(dirfd_, 11) == 0 ? 0 : 1);
        }
        r = lease_settled_wait_at(dirfd_, 11, 10 * 1000);
        TAP_EQ_INT(r, 0, "a record by another process ends the wait within 10 s");
        tap_ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "the other process recorded epoch 11");
}

int main(void) {
        scratch_dir_make(tmpdir, sizeof tmpdir, "botdesk-test-lease-settled");
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd_ < 0)
                die("open");

        test_file();
        test_events();
        test_wait();

        close(dirfd_);
        scratch_dir_remove(tmpdir);
        return tap_done();
}

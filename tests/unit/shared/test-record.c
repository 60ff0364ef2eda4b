/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The helper record and lock (who owns a desktop), in a scratch runtime dir. */
#include <fcntl.h>
#include <limits.h>

#include "fixture.h"
#include "record.h"
#include "procfs.h"
#include "tap.h"
#include "util.h"

static char base[PATH_MAX];

static void write_record(int dirfd, const char *text);

static void test_record_round_trip(int dirfd) {
        struct helper_record w = {
                .pid = 4242, .starttime = 123456789ULL, .cgroup = (char *) "/sys/fs/cgroup/x",
                .token = (char *) "0123abcd", .placement = (char *) "standalone", .unit = NULL,
                .display = 17, .started_at = 1700000000000000ULL,
        }, r = {};

        TAP_EQ_INT(helper_record_write_at(dirfd, &w), 0, "the helper record is written");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), 0, "... and read back");
        tap_ok(r.pid == 4242 && r.starttime == 123456789ULL && r.display == 17 &&
               r.started_at == 1700000000000000ULL, "pid, start time, display and start date survive the round trip");
        TAP_EQ_STR(r.cgroup, "/sys/fs/cgroup/x", "the cgroup survives the round trip");
        TAP_EQ_STR(r.token, "0123abcd", "the token survives the round trip");
        TAP_EQ_STR(r.placement, "standalone", "the placement survives the round trip");
        tap_ok(r.unit == NULL, "an absent unit reads back as none, not as an empty string");
        tap_ok(r.alias == NULL, "a desktop started cold names no spare");
        helper_record_done(&r);
        tap_ok(!r.cgroup && !r.token && r.display == -1, "helper_record_done leaves an empty record");

        w.alias = (char *) "_spare-0123abcd";
        TAP_EQ_INT(helper_record_write_at(dirfd, &w), 0, "the record of an adopted desktop is written");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), 0, "... and read back");
        TAP_EQ_STR(r.alias, "_spare-0123abcd", "the spare it was adopted from survives the round trip");
        helper_record_done(&r);
        write_record(dirfd, "PID=12\nSTARTTIME=5\nALIAS=../x\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), 0, "a record with an alias that is no spare's name still reads");
        tap_ok(r.alias == NULL, "... without it: nothing outside a spare's dirs is ever removed for it");
        helper_record_done(&r);
}

static void write_record(int dirfd, const char *text) {
        int fd = openat(dirfd, HELPER_RECORD_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
                die(HELPER_RECORD_FILE);
        close(fd);
}

static void test_record_refused(int dirfd) {
        struct helper_record r = {};

        write_record(dirfd, "STARTTIME=5\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), -EBADMSG, "a record without a pid is refused");
        write_record(dirfd, "PID=0\nSTARTTIME=5\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), -EBADMSG, "a record of pid 0 is refused");
        write_record(dirfd, "PID=12x\nSTARTTIME=5\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), -EBADMSG, "a pid with junk after it is refused");
        write_record(dirfd, "PID=12\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), -EBADMSG, "a record without a start time is refused");
        write_record(dirfd, "PID=12\nSTARTTIME=5\nDISPLAY=99999\n");
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), 0, "a record with a display out of range still reads");
        TAP_EQ_INT(r.display, -1, "... with no display");
        helper_record_done(&r);
        (void) unlinkat(dirfd, HELPER_RECORD_FILE, 0);
        TAP_EQ_INT(helper_record_read_at(dirfd, &r), -ENOENT, "no record is -ENOENT");
}

static void test_lock_and_alive(int dirfd) {
        struct helper_record r = { .pid = getpid() };
        int lock, again;

        TAP_EQ_INT(helper_lock_held(dirfd), 0, "before any helper, nobody holds the lock");
        tap_ok(pid_starttime(getpid(), &r.starttime) >= 0, "our own start time is read");
        TAP_EQ_INT(helper_alive(dirfd, &r), 0, "a live pid without the lock is no live helper");
        lock = helper_lock_take(dirfd);
        tap_ok(lock >= 0, "the helper lock is taken");
        TAP_EQ_INT(helper_lock_held(dirfd), 1, "... and then it is held");
        again = helper_lock_take(dirfd);
        TAP_EQ_INT(again, -EBUSY, "a second helper does not get the lock");
        safe_close(again);
        TAP_EQ_INT(helper_alive(dirfd, &r), 1, "the lock held and the recorded pid and start time: a live helper");
        r.starttime++;
        TAP_EQ_INT(helper_alive(dirfd, &r), 0, "a recycled pid (another start time) is no live helper");
        safe_close(lock);
        TAP_EQ_INT(helper_lock_held(dirfd), 0, "the lock is free again once its fd is closed");
}

int main(void) {
        int dirfd;

        scratch_dir_make(base, sizeof base, "test-record");
        dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                die(base);
        test_record_round_trip(dirfd);
        test_record_refused(dirfd);
        test_lock_and_alive(dirfd);
        close(dirfd);
        scratch_dir_remove(base);
        return tap_done();
}

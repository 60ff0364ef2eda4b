/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "lease-deadline.h"
#include "util.h"

static char tmpdir[] = "/tmp/botdesk-test-lease-deadline.XXXXXX";
static int dirfd_ = -1;

static int rm_entry(const char *path, _unused_ const struct stat *st, _unused_ int flag, _unused_ struct FTW *ftw) {
        return remove(path);
}

static bool recorded(void) {
        return faccessat(dirfd_, LEASE_DEADLINE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static struct lease_deadline orphan(const char *viewer, unsigned long long epoch, unsigned long long at) {
        struct lease_deadline d = { .epoch = epoch, .deadline = at };

        snprintf(d.viewer, sizeof d.viewer, "%s", viewer);
        snprintf(d.reason, sizeof d.reason, "%s", LEASE_REASON_VIEWER_GONE);
        return d;
}

int main(void) {
        struct lease_deadline d, got;
        unsigned long long next;
        struct lease l;
        int r;

        if (!mkdtemp(tmpdir))
                abort();
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd_ < 0)
                abort();

        TAP_EQ_INT(lease_deadline_read_at(dirfd_, &got), -ENOENT, "no deadline recorded: -ENOENT");
        TAP_EQ_INT(lease_deadline_expire_at(dirfd_, 1000, &next), 0, "nothing to expire without one");

        TAP_EQ_INT(lease_take_at(dirfd_, "alice", NULL, &l), 1, "alice takes control");
        d = orphan("alice", l.epoch, 5000000);
        TAP_EQ_INT(lease_deadline_set_at(dirfd_, &d), 0, "a deadline is recorded");
        r = lease_deadline_read_at(dirfd_, &got);
        tap_ok(r == 0 && streq(got.viewer, "alice") && got.epoch == l.epoch && got.deadline == 5000000 &&
               streq(got.reason, "viewer gone"), "and reads back whole, a reason with a blank included (r=%d)", r);

        r = lease_deadline_expire_at(dirfd_, 4999999, &next);
        tap_ok(r == 0 && next == 5000000 && recorded(), "before the deadline nothing ends; it is still pending");
        TAP_EQ_INT(lease_deadline_clear_at(dirfd_, "bob"), 0, "another viewer's stream does not clear it");
        TAP_EQ_INT(lease_deadline_clear_at(dirfd_, "alice"), 1, "a stream of alice clears it");
        tap_ok(!recorded(), "and it is gone");

        (void) lease_deadline_set_at(dirfd_, &d);
        r = lease_deadline_expire_at(dirfd_, 5000000, &next);
        (void) lease_read_at(dirfd_, &l);
        tap_ok(r == 1 && next == 0 && l.holder == LEASE_AGENT && streq(l.reason, "viewer gone") && !recorded(),
               "at the deadline control returns to the agent, with the reason, and the record goes (r=%d)", r);

        /* A hold that moved on (released and taken again) is not the one orphaned. */
        TAP_EQ_INT(lease_take_at(dirfd_, "alice", NULL, &l), 1, "alice takes control again");
        d = orphan("alice", l.epoch - 1, 1);
        (void) lease_deadline_set_at(dirfd_, &d);
        r = lease_deadline_expire_at(dirfd_, 2, &next);
        (void) lease_read_at(dirfd_, &l);
        tap_ok(r == 0 && l.holder == LEASE_HUMAN && !recorded(), "a deadline of an earlier hold ends nothing, and goes");

        if (write_file_atomic_at(dirfd_, LEASE_DEADLINE_FILE, "VIEWER=alice\n", 13, 0600) < 0)
                abort();
        TAP_EQ_INT(lease_deadline_read_at(dirfd_, &got), -EBADMSG, "a damaged record reads as -EBADMSG");
        r = lease_deadline_expire_at(dirfd_, 2, &next);
        (void) lease_read_at(dirfd_, &l);
        tap_ok(r == 0 && l.holder == LEASE_HUMAN && !recorded(), "and is removed, ending nothing");

        TAP_EQ_INT(lease_release_epoch_at(dirfd_, "alice", l.epoch + 1, NULL, NULL), 0,
                   "lease_release_epoch_at of another epoch changes nothing");
        TAP_EQ_INT(lease_release_epoch_at(dirfd_, "alice", l.epoch, "viewer left", &l), 1, "of its epoch it releases");
        TAP_EQ_STR(l.reason, "viewer left", "recording its reason");

        close(dirfd_);
        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The helper's part of each change of control, done (lease-settled.h): a
 * one-line file beside the lease, and the wait for it on inotify.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>

#include "lease.h"
#include "lease-settled.h"
#include "lease-watch.h"
#include "util.h"

int lease_settled_read_at(int dirfd, unsigned long long *ret) {
        _cleanup_free_ char *s = NULL;
        size_t size = 0;
        int r;

        r = read_full_file_at(dirfd, LEASE_SETTLED_FILE, &s, &size, 32);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        if (size < 2 || s[size - 1] != '\n')
                return -EBADMSG;
        s[size - 1] = 0;
        return parse_uint(s, LEASE_EPOCH_MAX, ret) < 0 ? -EBADMSG : 0;
}

int lease_settled_write_at(int dirfd, unsigned long long epoch) {
        char line[32];
        int n = snprintf(line, sizeof line, "%llu\n", epoch);

        return write_file_atomic_at(dirfd, LEASE_SETTLED_FILE, line, (size_t) n, 0600);
}

bool lease_settled_for(int dirfd, unsigned long long epoch) {
        unsigned long long settled;
        int r = lease_settled_read_at(dirfd, &settled);

        if (r == -ENOENT)
                return true;
        return r >= 0 && settled >= epoch;
}

int lease_settled_wait_at(int dirfd, unsigned long long epoch, unsigned long long timeout_ms) {
        _cleanup_close_ int ino = -EBADF;
        unsigned long long deadline = now_usec() + timeout_ms * 1000ULL;
        int r;

        /* The watch before the first read: a write in between is not missed. */
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        r = lease_watch_add(ino, dirfd);
        if (r < 0)
                return r;
        for (;;) {
                struct pollfd pfd = { .fd = ino, .events = POLLIN };
                unsigned long long now;

                if (lease_settled_for(dirfd, epoch))
                        return 0;
                now = now_usec();
                if (now >= deadline)
                        return -ETIME;
                if (poll(&pfd, 1, (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
                (void) inotify_drain(ino, NULL, NULL);
        }
}

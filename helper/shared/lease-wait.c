/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting on the lease (lease.h): woken by inotify on the runtime dir, whose
 * watch exists before the first read, so that a change between the read and
 * the wait is never missed. No polling of the file.
 */
#include <errno.h>
#include <poll.h>

#include "lease.h"
#include "lease-watch.h"
#include "util.h"

int lease_wait_at(int dirfd, unsigned long long timeout_ms, bool (*until)(const struct lease *l, void *userdata),
                  void *userdata, struct lease *ret) {
        _cleanup_close_ int ino = -EBADF;
        unsigned long long deadline = timeout_ms ? now_usec() + timeout_ms * 1000ULL : 0;
        int r;

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        r = lease_watch_add(ino, dirfd);
        if (r < 0)
                return r;
        for (;;) {
                struct pollfd pfd = { .fd = ino, .events = POLLIN };
                int ms = -1;

                (void) lease_read_at(dirfd, ret);
                if (until(ret, userdata))
                        return 0;
                if (deadline) {
                        unsigned long long now = now_usec();
                        if (now >= deadline)
                                return -ETIME;
                        ms = (int) ((deadline - now + 999) / 1000);
                }
                r = poll(&pfd, 1, ms);
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                /* Any change in the directory means read the lease again. */
                (void) inotify_drain(ino, NULL, NULL);
        }
}

static bool agent_holds(const struct lease *l, void *userdata) {
        return l->holder == LEASE_AGENT && !l->failed;
}

int lease_wait_agent_at(int dirfd, unsigned long long timeout_ms, struct lease *ret) {
        return lease_wait_at(dirfd, timeout_ms, agent_holds, NULL, ret);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting on the lease (lease.h): woken by inotify on the runtime dir, whose
 * watch exists before the first read, so that a change between the read and
 * the wait is never missed. No polling of the file.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "lease.h"
#include "util.h"

/* The events that replace, create or remove the lease file in the runtime dir. */
#define LEASE_WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR)

int lease_wait_at(int dirfd, unsigned long long timeout_ms, bool (*until)(const struct lease *l, void *userdata),
                  void *userdata, struct lease *ret) {
        _cleanup_close_ int ino = -EBADF;
        unsigned long long deadline = timeout_ms ? now_usec() + timeout_ms * 1000ULL : 0;
        char self[64];

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        /* The directory the caller verified, by its fd, not by a path that could be swapped since. */
        snprintf(self, sizeof self, "/proc/self/fd/%d", dirfd);
        if (inotify_add_watch(ino, self, LEASE_WATCH_MASK) < 0)
                return negative_errno();
        for (;;) {
                char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                struct pollfd pfd = { .fd = ino, .events = POLLIN };
                int ms = -1, r;

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
                /* Drain: any change in the directory means read the lease again. */
                while (read(ino, buf, sizeof buf) > 0)
                        ;
        }
}

static bool agent_holds(const struct lease *l, void *userdata) {
        return l->holder == LEASE_AGENT && !l->failed;
}

int lease_wait_agent_at(int dirfd, unsigned long long timeout_ms, struct lease *ret) {
        return lease_wait_at(dirfd, timeout_ms, agent_holds, NULL, ret);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lease changes through inotify (lease-watch.h): one drain for every
 * watcher, so that none reads a partial event or spins on a full queue.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "lease.h"
#include "lease-settled.h"
#include "lease-watch.h"
#include "util.h"

int lease_watch_add(int ino, int dirfd) {
        return inotify_add_watch_fd(ino, dirfd, LEASE_WATCH_MASK);
}

bool lease_event_changes(const struct inotify_event *ev) {
        return (ev->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF)) ||
               (ev->len > 0 && (streq(ev->name, LEASE_FILE) || streq(ev->name, LEASE_SETTLED_FILE)));
}

int inotify_drain(int ino, int (*on_event)(const struct inotify_event *ev, void *userdata), void *userdata) {
        /* Room for a few events with the longest name: a read takes whole events only. */
        union {
                struct inotify_event ev;
                uint8_t raw[4096];
        } buf;

        for (;;) {
                ssize_t n = read(ino, &buf, sizeof buf);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == EAGAIN ? 0 : negative_errno();
                }
                if (n == 0)
                        return -EIO; /* no event fits the buffer: cannot happen with NAME_MAX names */
                for (const uint8_t *q = buf.raw; q < buf.raw + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) q;
                        int r;

                        q += sizeof *ev + ev->len;
                        if (!on_event)
                                continue;
                        r = on_event(ev, userdata);
                        if (r != 0)
                                return r;
                }
        }
}

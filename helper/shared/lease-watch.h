/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/inotify.h>

/*
 * Lease changes through inotify (lease.h): the watch on a runtime dir, which
 * of its events may change the lease, and the one drain of a non-blocking
 * inotify descriptor that every watcher of the lease runs (`botdesk rfb`,
 * `botdesk web`, `botdesk watch`, lease_wait_at()).
 */

/* Whatever replaces, creates, rewrites or removes a file in a runtime dir, and the dir itself going away. */
#define LEASE_WATCH_MASK                                                                                    \
        (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY | IN_DELETE_SELF | \
         IN_MOVE_SELF | IN_ONLYDIR)

/*
 * Watch the runtime dir open at dirfd on the inotify descriptor ino: by the
 * fd (/proc/self/fd/N), so that the dir the caller verified is the one
 * watched, whatever happens to its name since. Add the watch before the
 * first read of the lease, and no change falls in between. The watch
 * descriptor, or -errno.
 */
int lease_watch_add(int ino, int dirfd);

/*
 * Whether ev (on a runtime dir's watch) may have changed the lease: the
 * lease file itself or what the helper settled of it (lease-settled.h: a
 * human's input waits for it), the dir gone (its watch with it), or a queue that
 * overflowed and so may have lost one.
 */
bool lease_event_changes(const struct inotify_event *ev);

/*
 * Read every event queued on the non-blocking ino and hand each to on_event
 * (NULL: drop them), until the queue is empty. on_event returns 0 to go on;
 * anything else ends the drain and is returned (the caller is done with the
 * queue: the rest of that read is dropped). 0 once drained, -errno when a
 * read fails.
 */
int inotify_drain(int ino, int (*on_event)(const struct inotify_event *ev, void *userdata), void *userdata);

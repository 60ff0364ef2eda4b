/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "alloc.h"
#include "start-queue.h"
#include "util.h"

#define TICKET_PREFIX "start-"

/* A ticket's place: its arrival and pid, from its name. 0, or -EINVAL for a name that is not a ticket's. */
static int ticket_parse(const char *name, unsigned long long *ret_usec, unsigned long long *ret_pid) {
        const char *p = startswith(name, TICKET_PREFIX), *dash;
        char usec[24];

        if (!p || !(dash = strchr(p, '-')) || (size_t) (dash - p) >= sizeof usec)
                return -EINVAL;
        memcpy(usec, p, (size_t) (dash - p));
        usec[dash - p] = 0;
        if (parse_uint(usec, UINT64_MAX, ret_usec) < 0 || parse_uint(dash + 1, INT32_MAX, ret_pid) < 0)
                return -EINVAL;
        return 0;
}

int start_queue_join(const char *claim_dir, struct start_ticket *ret) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char tmp[NAME_MAX + 1], name[64];

        dfd = alloc_claim_dir_open(claim_dir);
        if (dfd < 0)
                return dfd;
        snprintf(name, sizeof name, TICKET_PREFIX "%llu-%d", now_usec(), (int) getpid());
        /* Locked before its name appears: a ticket under its name unlocked is always a dead start's. */
        fd = open_temporary_at(dfd, name, O_WRONLY, 0600, tmp);
        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0 || renameat(dfd, tmp, dfd, name) < 0) {
                int r = negative_errno();

                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        *ret = (struct start_ticket) { .dfd = TAKE_FD(dfd), .fd = TAKE_FD(fd) };
        snprintf(ret->name, sizeof ret->name, "%s", name);
        return 0;
}

void start_queue_leave(struct start_ticket *t) {
        if (t->fd >= 0)
                (void) unlinkat(t->dfd, t->name, 0);
        t->fd = safe_close(t->fd);
        t->dfd = safe_close(t->dfd);
}

/* Whether the ticket called name is held; one that is not is removed. 1 live, 0 dead (removed or gone). */
static int ticket_live(int dfd, const char *name) {
        /* Read-only: its close is no IN_CLOSE_WRITE, so looking wakes no other waiter. */
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

        if (fd < 0)
                return 0;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? 1 : 0;
        /* Ours now, so its start is gone: no live start can hold this name again (it has a new arrival). */
        (void) unlinkat(dfd, name, 0);
        return 0;
}

int start_queue_ahead(const struct start_ticket *t, unsigned limit, unsigned *ret_position) {
        _cleanup_closedir_ DIR *d = NULL;
        unsigned long long mine_usec, mine_pid;
        unsigned live = 0, position = 0;
        int fd;

        if (ticket_parse(t->name, &mine_usec, &mine_pid) < 0)
                return -EINVAL;
        fd = openat(t->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return negative_errno();
        }
        for (struct dirent *de; (de = readdir(d));) {
                unsigned long long usec, pid;

                if (ticket_parse(de->d_name, &usec, &pid) < 0 || streq(de->d_name, t->name))
                        continue;
                if (usec > mine_usec || (usec == mine_usec && pid > mine_pid))
                        continue;
                /* Past the first limit live ones, names are counted, not opened: a hundred waiters
                 * looking at a hundred tickets each, at every departure, would cost more than the wait. */
                if (live >= limit)
                        position++;
                else if (ticket_live(t->dfd, de->d_name)) {
                        live++;
                        position++;
                }
        }
        if (ret_position)
                *ret_position = position;
        return (int) live;
}

int start_queue_wait(const struct start_ticket *t, unsigned slots, uint64_t idle_usec, const sigset_t *cancel,
                     void (*on_wait)(unsigned ahead, void *userdata), void *userdata) {
        _cleanup_close_ int ino = -EBADF, sfd = -EBADF;
        unsigned long long deadline = now_usec() + idle_usec;
        unsigned last = UINT_MAX;

        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0)
                return negative_errno();
        /* A ticket leaves by its unlink, or by its start's end (the close of a file open for writing). */
        if (inotify_add_watch_fd(ino, t->dfd, IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_FROM) < 0)
                return negative_errno();
        if (cancel) {
                sfd = signalfd(-1, cancel, SFD_CLOEXEC | SFD_NONBLOCK);
                if (sfd < 0)
                        return negative_errno();
        }
        for (;;) {
                struct pollfd pfd[2] = { { .fd = ino, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
                unsigned long long now;
                unsigned position;
                char buf[4096];
                int live;

                live = start_queue_ahead(t, slots, &position);
                if (live < 0)
                        return live;
                if ((unsigned) live < slots)
                        return 0;
                now = now_usec();
                /* The queue moved, or this is the first look: the wait starts again from here. */
                if (position < last) {
                        deadline = now + idle_usec;
                        if (on_wait)
                                on_wait(position, userdata);
                }
                last = position;
                if (now >= deadline)
                        return -ETIMEDOUT;
                if (poll(pfd, sfd >= 0 ? 2 : 1, (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
                if (sfd >= 0 && (pfd[1].revents & POLLIN))
                        return -ECANCELED;
                while (read(ino, buf, sizeof buf) > 0)
                        ; /* drained: the next wake-up is a new departure */
        }
}

unsigned start_queue_default_slots(void) {
        cpu_set_t set;
        int n = 0;

        if (sched_getaffinity(0, sizeof set, &set) == 0)
                n = CPU_COUNT(&set);
        if (n <= 0)
                n = (int) sysconf(_SC_NPROCESSORS_ONLN);
        return n >= 1 ? 2 * (unsigned) n : 2;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <signal.h>
#include <stdint.h>

/*
 * The start queue: at most `slots` starts of one uid bring up their X
 * server and session at once; the others wait their turn in the order
 * they came. On a small machine a hundred desktops started together then
 * each get the CPU they need to be ready within start_timeout, instead of
 * all sharing it until every one is late.
 *
 * A start's ticket is a file in the claim dir (alloc.h), named
 * "start-USEC-PID" (CLOCK_MONOTONIC at its arrival, so the names sort as
 * the starts came), which the start holds flock()ed from before its name
 * appears until it leaves the queue. A ticket nobody holds locked is a
 * dead start's: whoever finds it removes it. Its turn comes when fewer than
 * slots live tickets are ahead of it. Every ticket leaving (unlinked, or
 * closed by its process's end) is an inotify event in the dir: the wait
 * is woken by those, never by a timer of its own.
 */

struct start_ticket {
        int dfd;                        /* the claim dir */
        int fd;                         /* the ticket, locked */
        char name[64];
};

#define START_TICKET_NULL ((struct start_ticket) { .dfd = -EBADF, .fd = -EBADF })

/* Join the queue of the starts sharing claim_dir: 0 with *ret held, or -errno (-EPERM: not a dir of ours). */
int start_queue_join(const char *claim_dir, struct start_ticket *ret);

/* Leave it: the ticket removed and released (nothing when not held). */
void start_queue_leave(struct start_ticket *t);

/*
 * How many live tickets are ahead of t, counted up to limit (the first
 * ones are opened to see that they are held; dead ones are removed on the
 * way), and in *ret_position (may be NULL) how many tickets are ahead in
 * all. >= 0, or -errno.
 */
int start_queue_ahead(const struct start_ticket *t, unsigned limit, unsigned *ret_position);

/*
 * Wait until fewer than slots live tickets are ahead of t. A wait in which
 * no ticket ahead leaves for idle_usec ends with -ETIMEDOUT; one of the
 * signals in cancel (blocked by the caller) pending ends it with
 * -ECANCELED, the signal left pending. Each time the queue moves (and once
 * at first when t must wait), on_wait(tickets ahead, userdata) says so. 0
 * when its turn came.
 */
int start_queue_wait(const struct start_ticket *t, unsigned slots, uint64_t idle_usec, const sigset_t *cancel,
                     void (*on_wait)(unsigned ahead, void *userdata), void *userdata);

/* The slots when the config says 0: twice the CPUs this process may run on, at least 2. */
unsigned start_queue_default_slots(void);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "procfs.h"

#include <stdbool.h>
#include <sys/types.h>

/*
 * Who owns a profile's desktop right now. The helper holds an exclusive
 * flock on RUNTIME/helper.lock for its whole life (the kernel drops it when
 * the helper dies, however it dies) and records itself in RUNTIME/helper:
 * pid, the process start time (so a recycled pid never matches), its cgroup,
 * and a random token that every process of the desktop carries in its
 * environment (the last-resort identity where no cgroup is available).
 */

#define HELPER_LOCK_FILE "helper.lock"
/* Held by a `botdesk` that starts or stops the desktop (one at a time). */
#define START_LOCK_FILE "start.lock"
#define HELPER_RECORD_FILE "helper"

struct helper_record {
        pid_t pid;
        unsigned long long starttime;   /* /proc/PID/stat field 22 */
        char *cgroup;                   /* absolute cgroup dir of the desktop, or NULL */
        char *token;                    /* BOTDESK_TOKEN of its processes */
        char *placement;                /* user-unit | session | standalone */
        char *unit;                     /* systemd unit, or NULL */
        char *alias;                    /* the warm spare it was adopted from, or NULL */
        int display;                    /* -1 until the X server has its number */
        unsigned long long started_at;  /* CLOCK_REALTIME usec */
};

void helper_record_done(struct helper_record *r);
int helper_record_write_at(int dirfd, const struct helper_record *r);
int helper_record_read_at(int dirfd, struct helper_record *r);


/* Take the profile's helper lock without blocking: fd, or -EBUSY when another helper holds it. */
int helper_lock_take(int dirfd);

/* 1 when some helper holds the lock, 0 when none, -errno. */
int helper_lock_held(int dirfd);

/*
 * 1 when r names a live helper: the lock is held, the pid exists, is not a
 * zombie and has the recorded start time. 0 otherwise.
 */
int helper_alive(int dirfd, const struct helper_record *r);

/*
 * Kill what a dead helper left behind: its cgroup (cgroup.kill, wait until
 * empty, remove), else every process of this uid carrying its token; and
 * the links of the spare it was adopted from.
 */
int helper_reap_leftovers(const struct helper_record *r);

/*
 * The same for what a stop (or a prune of dead spares) finds once the
 * helper is gone: a unit's cgroup is systemd's to kill (it may already
 * host the next generation), so only the token is used there; r->cgroup
 * is dropped for that. 0 when r names no helper.
 */
int helper_reap_after_stop(struct helper_record *r);

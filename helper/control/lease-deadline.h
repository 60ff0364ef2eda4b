/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "lease.h"

/*
 * A human's hold with no viewer left: when the last stream of the viewer in
 * control closes (cleanly: it left the page; or not: the browser died, the
 * network dropped, botdesk web stopped), control is to return to the agent
 * at a deadline unless a stream of that viewer opens again first. The
 * deadline is recorded beside the lease, in RUNTIME/lease-deadline, 0600,
 * replaced by rename:
 *
 *   VIEWER=<id>                 the viewer whose hold it ends
 *   EPOCH=<n>                   the lease epoch of that hold
 *   DEADLINE=<CLOCK_REALTIME usec>
 *   REASON=<text>               recorded in the lease at the release, or empty
 *
 * so that it outlives the process that wrote it: botdesk web arms a timer
 * for it, and the desktop's helper (which runs as long as the desktop does)
 * arms one too, so a web server stopped meanwhile strands nobody. Whoever
 * fires first releases, through lease_release_epoch_at(): only the very
 * hold that was orphaned ends, never a later one.
 */

#define LEASE_DEADLINE_FILE "lease-deadline"
#define LEASE_REASON_VIEWER_GONE "viewer gone"
#define LEASE_REASON_VIEWER_LEFT "viewer left"

struct lease_deadline {
        char viewer[LEASE_VIEWER_MAX + 1];
        unsigned long long epoch;
        unsigned long long deadline;    /* CLOCK_REALTIME usec */
        char reason[LEASE_REASON_MAX + 1];
};

/* Record d (replacing any earlier deadline). 0 or -errno. */
int lease_deadline_set_at(int dirfd, const struct lease_deadline *d);

/* 0 with *ret, -ENOENT when none is recorded, -EBADMSG for a damaged file, other -errno. */
int lease_deadline_read_at(int dirfd, struct lease_deadline *ret);

/* A stream of viewer opened: remove its deadline. 1 removed, 0 none (or another viewer's), -errno. */
int lease_deadline_clear_at(int dirfd, const char *viewer);

/*
 * At now (CLOCK_REALTIME usec): when the recorded deadline has passed, end
 * the hold it names (lease_release_epoch_at) and remove the record; a
 * damaged record, or one whose hold already ended, is removed too. Returns
 * 1 when control returned to the agent, 0 when nothing was due (the
 * deadline, if one is still pending, in *ret_next; else 0), -errno.
 */
int lease_deadline_expire_at(int dirfd, unsigned long long now, unsigned long long *ret_next);

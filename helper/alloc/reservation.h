/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The logind tier's display reservations: RESDIR/N (N the display number),
 * written by pam_botdesk under the host-wide allocation lock:
 *
 *     4242            the pid that opened the session (the unit's main process)
 *     profile=work
 *     uid=1000
 *
 * The content is deliberately not a bare pid: alloc.c holds any file there
 * that is not one as "in use" for as long as it exists, so the number stays
 * taken while the session's scope lives on after its main process died. It
 * is removed at close (when close runs as root), by the next open of the same
 * profile, or by any open once it is stale (see reservation_stale).
 */

struct reservation {
        unsigned display;
        pid_t pid;           /* 0 when the file names none */
        uid_t uid;           /* (uid_t) -1 when the file names none */
        char *profile;       /* NULL: not a logind-tier reservation (a bare pid, garbage) */
};

void reservation_done(struct reservation *r);
void reservations_free(struct reservation *l, size_t n);

/* Create RESDIR/N with O_EXCL (0644). -EEXIST when the number is reserved. */
int reservation_create(const char *dir, unsigned n, pid_t pid, uid_t uid, const char *profile);

/* Read RESDIR/N. -ENOENT when absent; a file that is not ours gives profile NULL. */
int reservation_read(const char *dir, unsigned n, struct reservation *ret);

/* Every reservation in dir, ordered by number. A missing dir is an empty list. */
int reservation_list(const char *dir, struct reservation **ret, size_t *ret_n);

/*
 * Remove RESDIR/N only while it still says what r says (same profile, pid and
 * uid): a reservation somebody else made meanwhile is never touched.
 * 1 removed, 0 absent or not the same, -errno (-EACCES when not permitted).
 */
int reservation_remove(const char *dir, const struct reservation *r);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * Display allocation: which X display numbers are in use, which one a profile
 * gets, and the host-wide lock that serialises picking a number until the X
 * server has claimed it.
 *
 * A number N is in use when
 *  - its lock file (LOCKDIR/.XN-lock) names a live process (a zombie is dead),
 *  - or the X socket for exactly N is bound, abstract "@/tmp/.X11-unix/XN" or
 *    the path "/tmp/.X11-unix/XN", as listed in /proc/net/unix (":200" is
 *    not ":20"),
 *  - or a reservation holds it (a file RESDIR/N whose content is a live pid,
 *    or any file there for the logind tier: reservation.h),
 *  - or, where env->claim_dir is given, a claim holds it (CLAIMDIR/N naming
 *    a live pid: display_claim()).
 * A lock file whose pid is dead (or that is unreadable garbage) is stale and
 * removed; a live one is never touched.
 */

struct alloc_env {
        const char *lock_dir;        /* "/tmp" in production */
        const char *proc_net_unix;   /* "/proc/net/unix" in production */
        const char *reservation_dir; /* NULL = none; "/run/botdesk/reservations" in production */
        const char *proc_root;       /* "/proc": where liveness of a pid is looked up */
        const char *claim_dir;       /* NULL = none; the claims of the starts that share a lock (alloc_claim_dir()) */
};

extern const struct alloc_env alloc_env_default;

/*
 * Write display n's X lock for an X server in another PID namespace, with
 * pid, our pid of it: every reader judges the server's life by that pid
 * (the server's own would be its pid in the namespace, whose 2 is our
 * kthreadd), and with -displayfd it writes none. With expected >= 0 the lock
 * must name expected (else 0: it is someone else's now; -ENOENT: there is
 * none); with -1 there must be none. Written atomically. 1 done, 0, or -errno.
 */
int display_lock_set_pid(const struct alloc_env *env, unsigned n, pid_t expected, pid_t pid);

/* Is display n in use? Returns 1 in use, 0 free, -errno on failure to check. */
int display_in_use(const struct alloc_env *env, unsigned n);

/* Does a reservation (and only that) hold display n? 1, 0, -errno. An
 * allocator without root's lock asks this after its server claimed n: the
 * logind tier reserves first and checks X's lock after, so one of the two
 * always sees the other. */
int display_reserved(const struct alloc_env *env, unsigned n);

/* Remove the lock file of n if its pid is dead. Returns 1 removed, 0 nothing to do (absent or live). */
int display_remove_stale_lock(const struct alloc_env *env, unsigned n);

/*
 * Pick a free display in [min, max]: preferred first (when inside the band
 * and free), then the lowest free number, skipping every number in skip[]
 * (numbers the caller already tried). Stale locks on the way are removed.
 * Returns the number, or -EBUSY when the band is full.
 */
int display_pick(const struct alloc_env *env, unsigned min, unsigned max, int preferred,
                 const unsigned *skip, size_t n_skip);


/*
 * The allocation lock, which serialises picking a number until the X server
 * (or a reservation) has claimed it, among processes of one uid: for root,
 * /run/botdesk/alloc.lock when /run/botdesk is root's and only root may
 * write it (the file is made 0600: nobody else can open, so hold, it); for
 * everyone else their own runtime_base/alloc.lock. Between uids no lock
 * arbitrates: the X server's own lock file (created atomically; a refused
 * number is retried) and reservations (O_EXCL) do.
 * Waits at most timeout_usec (-ETIMEDOUT), and no longer than one of the
 * signals in cancel (NULL: none; they must be blocked) is pending
 * (-ECANCELED, the signal still pending). Returns an fd (O_CLOEXEC, above
 * stdio) holding the lock; closing it releases it.
 */
#define ALLOC_LOCK_TIMEOUT_USEC (10 * 1000 * 1000ULL)
int alloc_lock_take(const char *runtime_base, unsigned long long timeout_usec, const sigset_t *cancel);
const char *alloc_lock_path(const char *runtime_base, char *buf, size_t size);

/*
 * Claims, so that the lock is held for a pick and no longer: under the
 * lock, display_pick() (its env's claim_dir set) chooses N, display_claim()
 * writes CLAIMDIR/N naming the claiming process, and the lock is released;
 * the X server starts unlocked. Every start sharing the lock skips N while
 * the claim's pid lives, so none picks it before the X server's own lock
 * file and socket hold it; then (or when it fails) the start drops the
 * claim, and a claim whose pid died is dropped by the next pick.
 *
 * The claim dir is beside the lock (alloc_lock_path()): "display-claims".
 */
const char *alloc_claim_dir(const char *runtime_base, char *buf, size_t size);

/* The claim dir, made when missing (0700): an fd (O_RDONLY, O_CLOEXEC) of a directory of this uid's alone,
 * or -EPERM. */
int alloc_claim_dir_open(const char *path);

/* Write CLAIMDIR/N naming pid, made whole at once (the dir made 0700 if missing, and refused when it is not
 * this uid's alone). 0, -EEXIST when a claim is there, -errno. */
int display_claim(const struct alloc_env *env, unsigned n, pid_t pid);

/* Remove CLAIMDIR/N while it names pid. 1 removed, 0 absent or another's, -errno. */
int display_unclaim(const struct alloc_env *env, unsigned n, pid_t pid);


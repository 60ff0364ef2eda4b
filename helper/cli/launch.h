/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

struct net_policy;

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "profile.h"

/*
 * The CLI's side of a desktop without a service manager: spawn the helper,
 * be its NOTIFY_SOCKET, show its progress, and wait for READY=1 or its death.
 * Also the stop path that works for every placement: signal the verified
 * helper through a pidfd and wait until it and its processes are gone.
 */

/* Serialise starts and stops of one profile (blocking flock). Returns the fd. */
int profile_lock(int runtime_fd);

struct bd_config;

/* Configuration, paths, runtime dir and the profile's lock, which
 * serialises starts and stops: a second start waits, then adopts. Returns
 * a CLI exit code, said; on EXIT_OK the caller owns *ret_dirfd and *ret_lock. */
int launch_open_profile(const char *profile, struct bd_config *c, struct bd_paths *p, int *ret_dirfd, int *ret_lock);

/* BOTDESK_PLACEMENT=standalone: never ask a user manager, even where one answers. */
bool launch_standalone_forced(void);

struct helper_record;

enum helper_phase {
        HELPER_NONE,     /* no helper: a start spawns one */
        HELPER_STARTING, /* a helper holds the profile, nothing published yet (or no longer) */
        HELPER_READY,    /* a verified helper has published its env */
};

/* Where the profile's desktop is; *rec is filled when a live helper is recorded. */
enum helper_phase helper_phase_at(int runtime_fd, struct helper_record *rec);

/*
 * Start the desktop of profile, or wait for the start already under way,
 * for up to timeout_sec, or, when extendable, for as long as the helper asks
 * (EXTEND_TIMEOUT_USEC=, sent when its X server starts: the start is timed
 * from there). *lock is the profile lock held by the caller: it is
 * released (and set to -EBADF) as soon as the helper has recorded itself,
 * so that a stop need not wait for the start. 0: ready; 1: it was already
 * running; -errno on failure with *ret_error saying why (the helper's
 * last-error, or how the helper ended). *ret_exit_status gets the helper's
 * exit status when it died (3 = refused).
 */
int standalone_start(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock, unsigned timeout_sec,
                     bool extendable, bool progress, char **ret_error, int *ret_exit_status);

/*
 * Wait until the helper that is starting profile publishes or ends, or
 * deadline. Releases *lock once the watch is set. 0: ready; -EIO with the
 * helper's reason in *ret_error; -ESRCH: it ended without a reason (killed);
 * -ETIMEDOUT.
 */
int standalone_wait_starting(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock,
                             unsigned long long deadline, unsigned timeout_sec, bool progress, char **ret_error);

/*
 * The same with the inotify instance given: inotify_fd is one to watch the
 * runtime directory with (taken over and closed), or the negative errno
 * that inotify_init1() failed with. Then the wait holds a pidfd on the
 * helper and reads the runtime directory again at a short fixed period,
 * still bounded by deadline, with the same results.
 */
int standalone_wait_starting_with(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock,
                                  unsigned long long deadline, unsigned timeout_sec, bool progress, int inotify_fd,
                                  char **ret_error);

/* The one line of RUNTIME/last-error, or NULL. */
char *standalone_last_error(int runtime_fd);
/* The same when last-error was written at since_usec (CLOCK_REALTIME) or
 * later: a reason older than a start is not that start's. */
char *standalone_last_error_since(int runtime_fd, unsigned long long since_usec);

/*
 * Start the unit of the desktop name through the user manager (bus), or
 * join the start under way, for up to timeout seconds (0: the unit's own
 * start timeout). *lock is released once the job is queued. 0 when it is
 * ready; -errno, said on stderr: -EPERM when the helper refused (its exit
 * status 3: memory, network policy), -EINVAL for its configuration error (2).
 * network: the unit's IP firewall (unit-network.h), in place before it starts.
 */
int launch_unit_start(unsigned timeout, bool progress, sd_bus *bus, const char *name, int dirfd, int *lock,
                      const struct net_policy *network);

/*
 * Stop the desktop of p: 0 stopped, 1 was not running (leftovers reaped),
 * -errno. With a user manager (bus not NULL) its unit is stopped through
 * it; systemd then owns the killing of the unit's cgroup.
 */
int desktop_stop(const struct bd_paths *p, int runtime_fd, unsigned timeout_sec, sd_bus *bus, const char *profile);

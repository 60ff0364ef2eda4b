/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "profile.h"

/*
 * The CLI's side of a desktop without a service manager: spawn the helper,
 * be its NOTIFY_SOCKET, show its progress, and wait for READY=1 or its death.
 * Also the stop path that works for every placement: signal the verified
 * helper through a pidfd and wait until it and its processes are gone.
 */

#define START_LOCK_FILE "start.lock"

/* Serialise starts and stops of one profile (blocking flock). Returns the fd. */
int profile_lock(int runtime_fd);

/*
 * Start the helper of profile and wait up to timeout_sec for readiness.
 * 0: ready; 1: it was already running; -errno on failure with *ret_error
 * set to the helper's reason (last-error) where there is one.
 * exit_status gets the helper's exit status when it died (3 = refused).
 */
int standalone_start(const char *profile, const struct bd_paths *p, int runtime_fd, unsigned timeout_sec,
                     bool progress, char **ret_error, int *ret_exit_status);

/*
 * Stop the desktop of p: 0 stopped, 1 was not running (leftovers reaped),
 * -errno. With a user manager (bus not NULL) its unit is stopped through
 * it; systemd then owns the killing of the unit's cgroup.
 */
int desktop_stop(const struct bd_paths *p, int runtime_fd, unsigned timeout_sec, sd_bus *bus, const char *profile);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "record.h"
#include "profile.h"

/*
 * The one way a verb finds the running desktop of a profile: its runtime
 * dir opened, its helper alive (the record's pid and start time are a live
 * process's), and what it published. Each returns a CLI exit code
 * (EXIT_NOT_RUNNING for a desktop that does not run, or has not published
 * yet) and has said why on stderr.
 */

/*
 * The runtime dir of profile, opened into *ret_fd (O_DIRECTORY, O_CLOEXEC),
 * p filled. Creates nothing: without a runtime dir the desktop is simply
 * not running. A dir that is not the caller's alone is refused.
 */
int running_desktop_open(const char *profile, struct bd_paths *p, int *ret_fd);

/* The helper recorded in the runtime dir dirfd, alive, into *ret_rec. */
int running_desktop_helper(const char *profile, int dirfd, struct helper_record *ret_rec);

/* Both: the runtime dir opened into *ret_fd and its helper found alive (its record not kept). */
int running_desktop_live(const char *profile, struct bd_paths *p, int *ret_fd);

/* The environment the desktop published in dirfd (p->env_file, for messages), into *ret_env. */
int running_desktop_env(const char *profile, int dirfd, const struct bd_paths *p, char ***ret_env);

/*
 * For env and exec: the runtime dir as cli_open_profile() opens it (created
 * where missing, verified private) into *ret_fd, then its live helper into
 * *ret_rec and its published env into *ret_env.
 */
int running_desktop_published(const char *profile, struct bd_paths *p, int *ret_fd, char ***ret_env,
                              struct helper_record *ret_rec);

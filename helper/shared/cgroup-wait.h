/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Waiting until a cgroup sub-tree is empty, with or without inotify.
 * cgroup_wait_empty() (cgroup.h) is this with a fresh inotify instance.
 */

/*
 * Block until cg and its descendants hold no process, or timeout_usec
 * passes (-ETIMEDOUT). inotify_fd is an inotify instance to watch
 * cgroup.events with (taken over and closed), or the negative errno that
 * inotify_init1() failed with: then a pidfd is held on every remaining
 * process and cgroup.events is read again whenever one of them exits.
 * A cg that does not exist is empty.
 */
int cgroup_wait_empty_with(const char *cg, unsigned long long timeout_usec, int inotify_fd);

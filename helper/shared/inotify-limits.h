/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * The per-user inotify limits against what desktops need. Every Xfce
 * desktop holds inotify instances of its own (dbus-daemon, xfsettingsd,
 * xfdesktop, xfce4-panel: 4 measured; a headed browser and panel plugins
 * add more), and fs.inotify.max_user_instances (128 by default) counts
 * them all for the one user that runs the desktops.
 */

/* Budgeted per desktop: twice the 4 an idle Xfce desktop holds. */
#define INOTIFY_PER_DESKTOP 8
/* What the user's own programs get by default, kept for them. */
#define INOTIFY_USER_MARGIN 128

struct inotify_limits {
        long long max_user_instances;   /* fs.inotify.max_user_instances, -1 unknown */
        long long max_user_watches;     /* fs.inotify.max_user_watches, -1 unknown */
        long long instances_used;       /* held by uid's processes that can be seen, -1 unknown */
};

/* Read the limits from PROC/sys/fs/inotify and count uid's instances in PROC/PID/fd. */
int inotify_limits_read(const char *proc_root, uid_t uid, struct inotify_limits *ret);

/* The instances that n desktops need, with the user's margin. */
long long inotify_instances_needed(unsigned desktops);

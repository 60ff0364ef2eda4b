/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A directory tree copied as `cp -a --reflink=auto` copies it (modes,
 * owners, times, links kept; blocks shared where the file system can),
 * from from to to, which must not exist: a named snapshot's session files
 * (supervisor/snapshot-files.c) and a fork's (cli/verb-fork.c). cp's
 * messages go to our stderr. 0, -EIO when cp failed, -ETIME past 5
 * minutes, or -errno.
 */
int copy_tree(const char *from, const char *to);

/* Each of the dirs (or files) names (NULL-terminated) of from that exists copied into to the same way,
 * unless to has one by that name already; 0, or the first failure (said on stderr). */
int copy_dirs(const char *from, const char *to, const char *const *names);

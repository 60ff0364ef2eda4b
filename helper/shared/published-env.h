/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * RUNTIME/env, what a desktop's helper publishes once the desktop is ready
 * (DISPLAY, XAUTHORITY, the session bus, the XDG dirs, the dock's
 * browser), read back by the CLI. The runtime dir is writable by the
 * desktop's own programs, so the file is data that may have been forged:
 * `botdesk exec` hands it to the command it runs, `botdesk env` prints it
 * for a shell, and the accessibility reader connects to its bus. Read back,
 * it may hold only the keys the helper writes, each in the form the helper
 * writes it: a forged LD_PRELOAD, or a bus address that runs a program
 * (unixexec:) or leaves the machine (tcp:), is refused, never passed on.
 */

#define PUBLISHED_ENV_FILE "env"
/* RUNTIME/tree-env: the same keys as a checkpointable desktop restored in a mount namespace of its own (a
 * fork) sees them from inside (its display number, its parent's paths), for botdesk exec into that tree
 * (cli/exec-tree.h). Only while such a tree runs. */
#define PUBLISHED_TREE_ENV_FILE "tree-env"

/*
 * Check env (KEY=VALUE strings): every key one the helper publishes,
 * DISPLAY ":N", DBUS_SESSION_BUS_ADDRESS one Unix socket
 * (bus-address.h), the proxy variables the desktop's own proxy
 * (http://127.66.A.B:PORT, net-policy.h), every other value an absolute path. 0, or -EBADMSG with
 * the offending entry's key in *ret_key (borrowed from env; NULL allowed).
 */
int published_env_check(char *const *env, const char **ret_key);

/*
 * Read dirfd/env and check it. 0; -ENOENT when there is none (a desktop
 * still starting); -EBADMSG when a line does not parse or fails the check
 * (*ret_bad, when not NULL, is then a new string naming the key, or NULL
 * for a line that does not parse); another error of reading.
 */
int published_env_read_at(int dirfd, char ***ret, char **ret_bad);
/* The same of the file name in dirfd (PUBLISHED_TREE_ENV_FILE). */
int published_env_read_file_at(int dirfd, const char *name, char ***ret, char **ret_bad);

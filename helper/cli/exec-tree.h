/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * botdesk exec into a checkpointable desktop (doc/snapshots.md). Its tree
 * lives in namespaces of its own under botdesk-ns-init, and a dump keeps
 * only what descends from that init: a command started beside the tree
 * would keep every hibernate and snapshot from being made, and die with
 * its X connection if botdesk ended it. So the command joins the tree: we
 * enter the init's PID and IPC namespaces, fork, and the child
 * starts the command in a grandchild and leaves; the orphan is the init's
 * then, which reaps it, and it goes with the tree into every dump.
 *
 * A terminal or a pipe from outside would stop a dump as surely, so the
 * command reads /dev/null and writes to /dev/null, and we cannot wait for
 * it (it is not our child): we return once it runs.
 */

/* The tree's init: the child of helper (the desktop's helper) that is pid 1 of a PID namespace of its own.
 * 1 and *ret_init; 0 when the desktop runs no such tree (not checkpointable), or one in a mount namespace
 * of its own (a fork's: its paths and display number are not the ones we have), or -errno. */
int exec_tree_init(pid_t helper, pid_t *ret_init);

/* cmd with env inside init's tree: EXIT_OK once it runs (said), or the CLI's exit code for why not (said). */
int exec_tree_run(pid_t init, const char *profile, char **cmd, char **env);

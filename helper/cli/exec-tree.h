/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * botdesk exec into a checkpointable desktop (doc/snapshots.md). Its tree
 * lives in namespaces of its own under botdesk-ns-init, and a dump keeps
 * only what descends from that init: a command started beside the tree
 * would keep every hibernate and snapshot from being made, and die with
 * its X connection if botdesk ended it. So the command joins the tree: we
 * enter every namespace of the init's that is not ours (PID, IPC, the
 * time namespace of a restored tree, a fork's mount namespace: CRIU
 * restores no process whose namespaces are not its parent's), fork, and
 * the child starts the command in a grandchild and leaves; the orphan is
 * the init's then, which reaps it, and it goes with the tree into every
 * dump. In a fork it gets the fork's view of the desktop (its display
 * number, its parent's paths), which the fork's helper publishes.
 *
 * A terminal or a pipe from outside would stop a dump as surely, so the
 * command reads /dev/null and writes to /dev/null, and we cannot wait for
 * it (it is not our child): we return once it runs.
 */

/* The tree's init: the child of helper (the desktop's helper) that is pid 1 of a PID namespace of its own,
 * and whether the tree has a mount namespace of its own too (a fork's, or one resumed on another display:
 * it sees its own display number and its parent's paths). 1 and *ret_init, *ret_moved; 0 when the
 * desktop runs no such tree (not checkpointable); or -errno. */
int exec_tree_init(pid_t helper, pid_t *ret_init, bool *ret_moved);

/* cmd with *env inside init's tree (for a moved one, with its view of the desktop, RUNTIME/tree-env in
 * dirfd, set in *env): EXIT_OK once it runs (said), or the CLI's exit code for why not (said). */
int exec_tree_run(pid_t init, bool moved, int dirfd, const char *profile, char **cmd, char ***env);

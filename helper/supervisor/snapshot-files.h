/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * botdesk-helper as CRIU's action script for a named snapshot: CRIU runs
 * the program --action-script names with no argument, the action in
 * CRTOOLS_SCRIPT_ACTION. At "post-dump", while the dumped tree still
 * stands still (CRIU lets it go only after the script), the session files
 * of the state dir BOTDESK_FILES_FROM (snapshot_state_dirs, snapshot.h)
 * are copied into BOTDESK_FILES_TO, made 0700, and so are the tree's own
 * dirs of the runtime dir BOTDESK_FILES_RUNTIME (snapshot_runtime_dirs): the files the dumped
 * processes had open, as they had them, which a fork of the snapshot
 * starts with. Every other action: nothing. A failure exits 1 with a line
 * on stderr (CRIU's log keeps it), and CRIU then fails the dump, the tree
 * running on.
 */

/* Run as that script when this process is one: true, with the exit status in *ret_status. */
bool snapshot_files_script(int argc, int *ret_status);

/* Our own program, for --action-script: a new string in *ret, or -errno. */
int snapshot_files_script_path(char **ret);

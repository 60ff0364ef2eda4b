/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>

#include "snapshot.h"
#include "spawn.h"
#include "supervisor.h"

/*
 * A checkpointable desktop ([session] checkpointable = yes): its children
 * start inside PID and IPC namespaces of its own, through their pid 1,
 * botdesk-ns-init (ns-spawn.h), which reaps them and reports their ends;
 * this feeds those as the children's own.
 */

/* Starts the init (before the X server). -EPERM without CAP_SYS_ADMIN. */
int namespace_start(struct supervisor *s);

/* The child c started inside: its pid as we see it in c->pid, the
 * namespace's in c->ns_pid. */
int namespace_spawn(struct supervisor *s, struct child *c, const struct spawn_opts *o);

/* Before a checkpoint: the init closes its ends of our sockets and lives on
 * alone (its tree untouched); ours are closed. */
int namespace_detach(struct supervisor *s);
/* After one (failed, or restored): new sockets handed to the init through
 * RUNTIME/ns-init.sock; the ends it reaped meanwhile come as events. */
int namespace_reattach(struct supervisor *s);

/* The init was reaped: its namespaces' processes died with it. */
void namespace_init_exited(struct supervisor *s, const siginfo_t *si);

/*
 * The tree's own XDG_RUNTIME_DIR and TMPDIR: RUNTIME/xdg-runtime and
 * RUNTIME/tmp of the runtime dir it knows (runtime: ours, or a fork's
 * parent's), set in env. What its programs keep there (the accessibility
 * bus's socket, named by the display number; Chromium's singleton socket
 * and files deleted while open, which a restore makes again at their paths)
 * is then the profile's, which a fork's mount namespace shows it as its own
 * (tree-mounts.h), instead of the user's runtime dir and the host's /tmp,
 * which a fork would share with its parent and race its siblings for. The
 * dirs are made in ours (0700) when make. TMPDIR only where Chromium's
 * socket below it fits in a socket's address (NAMESPACE_TMP_SOCKET_ROOM).
 */
#define NAMESPACE_TMP_SOCKET_ROOM sizeof "/.org.chromium.Chromium.XXXXXX/SingletonSocket"
int namespace_runtime_env(struct supervisor *s, const char *runtime, bool make, char ***env);

/* Closes the sockets: the init then kills what is left and ends. */
void namespace_done(struct supervisor *s);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "supervisor.h"

/*
 * botdesk hibernate: a ready checkpointable desktop's tree dumped into
 * STATE/snapshot/ (snapshot.h) and so ended, after every connection of ours
 * into it is closed (CRIU dumps no connection to the outside): our X
 * connections, and the init's sockets (detached, not closed). If the dump
 * fails, all of them come back and the desktop runs on.
 */

struct snapshot_manifest;

/*
 * Hibernate a ready checkpointable desktop now: 0 when its tree was dumped
 * (and so ended; the caller feeds DESKTOP_EVENT_HIBERNATED), or -errno and
 * *ret_error: the desktop runs on, or, when what was let go could not be
 * taken back, has failed.
 */
int hibernate_now(struct supervisor *s, struct snapshot_manifest *m, char **ret_error);

/* Serve RUNTIME/hibernate.sock (a ready checkpointable desktop). */
int hibernate_listen(struct supervisor *s);
void hibernate_done(struct supervisor *s);

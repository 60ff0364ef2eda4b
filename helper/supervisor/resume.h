/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "supervisor.h"

/*
 * The start of a hibernated checkpointable desktop: its tree restored from
 * STATE/snapshot/ (snapshot.h) in place of a cold start, its init
 * reattached, its children known again by the manifest's names, our X
 * connection back. Returns 1 when the desktop was restored (the snapshot is
 * then spent, and removed), 0 when there is nothing to restore or the
 * restore failed: then nothing of it runs, the images are kept aside in
 * STATE/snapshot.failed and the warning says why; the caller starts cold.
 * A profile that is not checkpointable (any more) resumes only a fork's
 * first snapshot (botdesk fork): any other is set aside the same way, so
 * that a later start never resumes a state older than this start's. A
 * snapshot whose processes know other paths (a fork's) or a display taken
 * meanwhile is restored in a mount namespace of its own (tree-mounts.h).
 */
int resume_run(struct supervisor *s);

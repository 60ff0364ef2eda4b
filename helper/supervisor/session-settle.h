/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "supervisor.h"

/*
 * An Xfce session goes on writing its settings for a few seconds after the
 * desktop is ready: xfconfd saves the channels that xfwm4, xfsettingsd and
 * xfdesktop filled in at their start (displays, keyboard shortcuts, the
 * window manager's defaults) about 5 s after they did, measured 4.7 to 6 s
 * after ready on a loaded two-core machine. The session has settled once
 * its xfconf dir has had no write for SESSION_SETTLE_QUIET_USEC after one,
 * or SESSION_SETTLE_CAP_USEC after ready with none at all; inotify says
 * when, nothing is polled. Then, when the session state was a fresh
 * session's at the start (s->state_fresh), its manifest is written
 * (adopt-state.h), so that the next start can tell that nothing changed.
 * A desktop = command session writes no settings of Xfce's: nothing to do.
 */

#define SESSION_SETTLE_QUIET_USEC (1000 * 1000ULL)
#define SESSION_SETTLE_CAP_USEC (30 * 1000 * 1000ULL)

/* Start watching (at ready). */
int session_settle_watch(struct supervisor *s);
void session_settle_done(struct supervisor *s);
/* The state is still fresh and settled: (re)write its manifest now (after an adoption's own writes). */
void session_settle_record(struct supervisor *s);

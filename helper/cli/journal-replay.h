/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "journal.h"

struct replay_options {
        unsigned long long from, to;    /* entries from..to (0: to the end) */
        bool dry_run;                   /* print what would run, run nothing */
        bool scale;                     /* map the coordinates of a journal of another screen size */
        double tolerance;               /* per cent of pixels that may differ for a match */
};

/*
 * botdesk journal PROFILE replay: every successful action of entries
 * from..to run again on the profile's desktop, each through the agent verb
 * it maps to (botdesk input, exec) in a process of its own, so that it is
 * gated by the lease like any agent action; the first refusal stops the
 * replay (exit 3). After each step, once the screen is quiet, the screen
 * is compared with the recorded frame (frame-diff.h) and the step said to
 * match or differ. A journal recorded on another screen size is refused
 * unless scale. A CLI exit code, said.
 */
int journal_replay(struct journal *j, const char *profile, const struct replay_options *o);

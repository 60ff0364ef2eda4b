/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * botdesk lookup PROFILE [--json]: the calling user's logind session of a
 * profile (the logind tier, botdesk-session@PROFILE.service). Prints its id,
 * display, state, scope, leader and the desktop's published environment.
 * Returns the CLI exit code: 0 found, 1 failed, 2 usage, 4 no such session.
 */
int verb_lookup(const char *profile, bool json);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "exit-status.h"
#include "supervisor.h"

/*
 * Everything before the checks: the profile's paths and private runtime
 * dir, the configuration, the helper lock (one helper per profile), the
 * leftovers of a SIGKILLed predecessor, the session's dirs and the browser,
 * the placement, the token and cookie, and our record. On failure *ret_kind
 * says whether a restart could help.
 */
int supervisor_setup(struct supervisor *s, enum helper_failure *ret_kind);

/* The browser's profile dir and DevTools socket for the paths s holds now
 * (again after an adoption), and the dock launcher's argv; *ret_cmd is
 * NULL without a browser. */
int setup_browser(struct supervisor *s, char ***ret_cmd);

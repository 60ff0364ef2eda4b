/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How `botdesk start PROFILE` hands a ready warm spare to PROFILE. The
 * spare's helper listens on RUNTIME/adopt.sock (SOCK_SEQPACKET, in the
 * spare's 0700 runtime dir, peers of another uid refused). The CLI, holding
 * PROFILE's start lock, sends one message "ADOPT PROFILE"; the helper moves
 * the desktop over (supervisor/adopt.c) and answers with one message:
 * "OK", or "NO ERRNO REASON" when it did not take PROFILE (the desktop is
 * then still the spare, untouched, unless REASON says it failed). The
 * spare's name then leads to PROFILE's dirs until the desktop stops.
 */

#define ADOPT_SOCKET "adopt.sock"
/* A spare's settings, as `config show` prints them: a spare whose settings
 * are no longer the configuration's is retired by the next fill. */
#define SPARE_SETTINGS_FILE "settings"
#define ADOPT_REQUEST "ADOPT "
#define ADOPT_OK "OK"
#define ADOPT_NO "NO "
#define ADOPT_MESSAGE_MAX 512

/* A standalone spare that dies once ready is replaced by the botdesk
 * named in POOL_CLI_ENV, run as `pool fill --quiet` with POOL_AFTER_DEATH_ENV
 * set: the death counts as a failure of the pool, so that the replacement
 * backs off as a failed fill does. (Under the user manager its unit's
 * Restart= does the same.) */
#define POOL_CLI_ENV "BOTDESK_CLI"
/* In the runtime base: what the last filler said. */
#define POOL_LOG_FILE "pool.log"
#define POOL_LOG_OPEN_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
#define POOL_AFTER_DEATH_ENV "BOTDESK_POOL_AFTER_DEATH"

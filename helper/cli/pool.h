/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "adoption.h"
#include "launch.h"
#include "profile.h"

/*
 * Warm spares ([pool] spares = N): desktops started ahead of need under
 * neutral names (SPARE_PREFIX, profile.h), as units of the user manager
 * where one answers, else as standalone helpers. `botdesk start P` hands a
 * ready one to P (shared/adoption.h; the helper decides whether P may
 * have it), then tops the pool up in the background.
 */

/* Where the pool's one filler holds its lock, in the runtime base. */
#define POOL_LOCK_FILE "pool.lock"
/* After a spare failed to start: "FAILURES UNTIL_USEC" (CLOCK_REALTIME). */
#define POOL_BACKOFF_FILE "pool-backoff"
/* Counts the drains: a filler spawned before the last drain (it passes
 * the count it saw in POOL_SINCE_ENV) starts nothing after it. */
#define POOL_GENERATION_FILE "pool-generation"
#define POOL_SINCE_ENV "BOTDESK_POOL_SINCE"
/* The longest wait after failures: 2^n seconds up to this. */
#define POOL_BACKOFF_MAX_SEC 600u

struct pool_spare {
        char name[SPARE_NAME_SIZE];
        enum helper_phase phase;
        bool stale;             /* started with settings the configuration no longer has */
        int display;
        pid_t pid;
};

/* The spares whose helper lives, in *ret (malloc'd), their number in
 * *ret_n; stale is judged against settings (config_dump_text() of the
 * globals), never when it is NULL. */
int pool_list(const char *settings, struct pool_spare **ret, size_t *ret_n);

/*
 * Hand profile a ready spare. 0: adopted; -ENOENT: no ready spare took it
 * (none ready, each taken meanwhile); other -errno with *ret_why when the
 * spare refused profile (settings or session state of its own): start
 * cold then.
 */
int pool_adopt(const char *profile, char **ret_why);

/*
 * Stop the stale spares, then start spares until c->spares of them live
 * (c: the globals), each waited for until ready;
 * one filler at a time (POOL_LOCK_FILE), none while a back-off from
 * earlier failures lasts. 0, or the first failure, said on stderr unless
 * quiet.
 */
struct bd_config;
int pool_fill(const struct bd_config *c, bool progress, bool quiet);

/* pool_fill() in a process of its own, which outlives the caller: the
 * replacement after an adoption. */
void pool_fill_background(void);

/* Stop every spare, after a filler under way has finished. */
int pool_drain(bool quiet);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "json.h"
#include "lease.h"

/*
 * What `botdesk watch` reports of one profile: its status and its lease,
 * read from the runtime dir (the files the helper and the lease writers
 * replace, which is what inotify sees), and how such a state becomes one
 * line of JSON. The runtime-dir reading is watch_snapshot_at(); the rest is
 * pure, for the unit tests.
 *
 * Status, from the helper record, its lock and the published env:
 *   started   a live helper, env not yet published
 *   ready     a live helper and its env
 *   stopping  a live helper that withdrew its env after being ready
 *   stopped   no helper
 *   failed    no helper and a last-error (reason: its line), or a helper
 *             record whose helper is gone (killed without tearing down)
 */

enum watch_status {
        WATCH_STARTED,
        WATCH_READY,
        WATCH_STOPPING,
        WATCH_STOPPED,
        WATCH_FAILED,
};

#define WATCH_REASON_MAX 512

struct watch_state {
        enum watch_status status;
        char reason[WATCH_REASON_MAX];  /* failed: why; "" otherwise */
        int display;                    /* -1: none */
        int helper_pid;                 /* the live helper, 0: none */
        struct lease lease;
        double idle_seconds;            /* < 0: unknown (no activity stamp) */
};

/* What changed between two states: a bit set of these. */
enum {
        WATCH_CHANGED_STATUS = 1 << 0,
        WATCH_CHANGED_LEASE = 1 << 1,
};

/* What --until waits for. */
enum watch_until {
        WATCH_UNTIL_NONE,
        WATCH_UNTIL_READY,
        WATCH_UNTIL_STOPPED,
        WATCH_UNTIL_AGENT,
};

const char *watch_status_to_string(enum watch_status s);

/* "ready", "stopped", "agent": an enum watch_until, or -EINVAL. */
int watch_until_from_string(const char *s);
/* Its name ("ready"), or NULL for WATCH_UNTIL_NONE. */
const char *watch_until_name(enum watch_until u);

/*
 * The state of the profile whose runtime dir is dirfd. prev (may be NULL)
 * is the state reported last: a helper without env is "stopping" only after
 * it was ready.
 */
int watch_snapshot_at(int dirfd, const struct watch_state *prev, struct watch_state *ret);

/* The WATCH_CHANGED_* bits that tell prev from cur. The idle time never counts. */
unsigned watch_diff(const struct watch_state *prev, const struct watch_state *cur);

/* Whether cur is ready (or past it) where prev had no desktop: the start
 * between them went unseen, and is reported as "started" first, so that
 * every start reads started, then ready. */
bool watch_start_unseen(const struct watch_state *prev, const struct watch_state *cur);

/* Whether cur is what --until waits for. */
bool watch_until_reached(enum watch_until u, const struct watch_state *cur);

/*
 * One event as one JSON object: profile, event ("state" for the first line
 * of a profile, else "status" or "lease"), time (RFC 3339 UTC, given),
 * status, reason, display (":N" or null), lease (lease_json), idle_seconds.
 */
void watch_json(struct json *j, const char *profile, const char *event, const char *time,
                const struct watch_state *s);

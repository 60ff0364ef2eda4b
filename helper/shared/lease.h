/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/*
 * The control lease: who controls a profile's screen, the agent (default) or
 * a human viewer. The file RUNTIME/lease is the single authority. It holds
 * exactly five KEY=VALUE lines, each ending in '\n', in any order, an empty
 * value meaning null:
 *
 *   HOLDER=agent|human
 *   VIEWER=<id>                 empty for the agent, non-empty for a human
 *   SINCE=YYYY-MM-DDTHH:MM:SSZ  when the holder got control (UTC), or empty
 *   REASON=<text>               or empty
 *   EPOCH=<n>                   grows by one on every change of control
 *
 * or seven, while a viewer's request for control is pending:
 *
 *   PENDING=<id>                the viewer asking for control
 *   PENDING_REASON=<text>       why, or empty
 *
 * A request changes the file but not the epoch: it changes nobody's
 * control, so it voids no agent action. Every change of holder clears it.
 *
 * No file means the agent holds control, epoch 0. Writers hold an exclusive
 * flock on RUNTIME/lease.lock across read-decide-write and replace the file
 * by rename (0600), so readers need no lock and never see a torn file from
 * us. Anything else (empty, torn, a line too many or too few, an unknown
 * key or holder, a bad number or time, a human without a viewer, not a
 * regular file, unreadable) fails CLOSED: holder human with no viewer, so
 * no viewer's input passes and agents are refused.
 *
 * Viewer ids are never printed: lease_json() and the CLI show
 * lease_viewer_hash(), the first 12 hex digits of SHA-256(id), which a
 * gateway can compute itself (printf %s ID | sha256sum | cut -c1-12).
 */

#define LEASE_FILE "lease"
#define LEASE_LOCK_FILE "lease.lock"

#define LEASE_VIEWER_MAX 128    /* bytes; no control characters */
#define LEASE_REASON_MAX 256    /* bytes; no control characters */
#define LEASE_TIME_LEN 20       /* "2026-11-29T10:00:00Z" */
#define LEASE_HASH_LEN 12       /* hex digits of lease_viewer_hash() */
/* Epochs stay exact in every JSON reader (2^53 - 1). */
#define LEASE_EPOCH_MAX 9007199254740991ULL

enum lease_holder {
        LEASE_AGENT,
        LEASE_HUMAN,
};

struct lease {
        enum lease_holder holder;
        char viewer[LEASE_VIEWER_MAX + 1];      /* "" = null (always for the agent) */
        char since[LEASE_TIME_LEN + 1];         /* "" = null */
        char reason[LEASE_REASON_MAX + 1];      /* "" = null */
        unsigned long long epoch;
        char pending[LEASE_VIEWER_MAX + 1];     /* "" = no request pending */
        char pending_reason[LEASE_REASON_MAX + 1];
        /* The file could not be trusted and this is the fail-closed lease;
         * the negative errno that lease_read_at() returned. 0 otherwise. */
        int failed;
};

const char *lease_holder_to_string(enum lease_holder h);

/* 1-LEASE_VIEWER_MAX bytes, no control characters (NULL is not valid). */
bool lease_viewer_valid(const char *viewer);

/*
 * Read dirfd/lease into *ret, without locking. Returns 0 when the file was
 * absent (agent, epoch 0) or valid. Otherwise returns a negative errno
 * (-EBADMSG for bad content, the I/O error otherwise) and STILL fills *ret with
 * the fail-closed lease: human, no viewer, ret->failed set, and the epoch
 * the file names if one can be made out (else 0), so that the next real
 * change keeps counting upwards where it can.
 */
int lease_read_at(int dirfd, struct lease *ret);

/*
 * Give control to the human viewer (reason may be NULL). Taking over from
 * another viewer, from the agent or from an unreadable file is a change;
 * taking by the current holder changes nothing (same epoch, the reason is
 * not updated). Returns 1 when the file changed, 0 for a no-op, -EINVAL for
 * an invalid viewer or reason, other -errno on I/O failure. *ret (may be
 * NULL) receives the lease in force afterwards.
 */
int lease_take_at(int dirfd, const char *viewer, const char *reason, struct lease *ret);

/*
 * Give control back to the agent, if viewer holds it. Returns 1 when the
 * file changed, 0 when viewer does not hold the lease (ignored: nothing is
 * written; an unreadable file stays unreadable and closed), -EINVAL for an
 * invalid viewer, other -errno. *ret (may be NULL) as for lease_take_at().
 */
int lease_release_at(int dirfd, const char *viewer, struct lease *ret);

/*
 * As lease_release_at(), only while viewer still holds the control it held
 * at epoch (a take and release in between voids the release), recording
 * reason (may be NULL) as the agent's. Returns 1 when the file changed, 0
 * when control moved on, -errno as lease_release_at().
 */
int lease_release_epoch_at(int dirfd, const char *viewer, unsigned long long epoch, const char *reason,
                           struct lease *ret);

/*
 * Record viewer's request for control (reason may be NULL), replacing an
 * earlier request. Returns 1 when the file changed, 0 when viewer already
 * holds control or asked for it for the same reason, -EINVAL for an invalid
 * viewer or reason, the read error of a damaged file (nothing recorded).
 */
int lease_request_at(int dirfd, const char *viewer, const char *reason, struct lease *ret);

/*
 * Withdraw viewer's request for control, if it is the one pending (the
 * epoch stays: nobody's control changes). 1 when the file changed, 0 when
 * no request of viewer's was pending, -EINVAL for an invalid viewer, the
 * read error of a damaged file.
 */
int lease_withdraw_at(int dirfd, const char *viewer, struct lease *ret);

/*
 * Until until(lease, userdata) holds, reading the lease again at every
 * change of the runtime dir dirfd (inotify, lease-wait.c), or timeout_ms
 * (0: no limit). 0 with the lease in *ret, or -ETIME (*ret the last read).
 */
int lease_wait_at(int dirfd, unsigned long long timeout_ms, bool (*until)(const struct lease *l, void *userdata),
                  void *userdata, struct lease *ret);
/* Until the agent holds control (a readable lease of the agent's). */
int lease_wait_agent_at(int dirfd, unsigned long long timeout_ms, struct lease *ret);

/*
 * End whatever human lease is in force, damaged files included, recording
 * reason: the agent holds control afterwards (`stop --force`). Returns 1
 * when the file changed, 0 when the agent held control already.
 */
int lease_end_at(int dirfd, const char *reason, struct lease *ret);

/*
 * The rule for agent actions: an action admitted under lease `admitted` (the
 * agent's) keeps its result only when `now` is still the agent's, readable,
 * and of the same epoch. Anything else, even a take and release in between,
 * voids it.
 */
bool lease_action_valid(const struct lease *admitted, const struct lease *now);

/* Whether input from viewer (NULL: a viewer without an id) may reach the
 * screen: a human holds the lease and it is exactly this viewer. */
bool lease_allows_input(const struct lease *l, const char *viewer);

/* The first LEASE_HASH_LEN hex digits of SHA-256(viewer), NUL-terminated. */
void lease_viewer_hash(const char *viewer, char ret[static LEASE_HASH_LEN + 1]);

/* SHA-256 of data (exposed for tests). */
void lease_sha256(const void *data, size_t size, unsigned char ret[static 32]);

/* The lease as one JSON object: holder, viewer_hash, since, epoch, reason,
 * pending ({viewer_hash, reason} or null); never a raw id. */
void lease_json(struct json *j, const struct lease *l);

struct json_value;
/* Such an object, parsed (json_parse()), back into *ret: holder, since,
 * epoch and reason (the viewer is not in it), and the holder's viewer hash
 * into ret_hash unless NULL ("" for the agent). 0, or -EBADMSG. */
int lease_from_json(const struct json_value *o, struct lease *ret, char ret_hash[]);

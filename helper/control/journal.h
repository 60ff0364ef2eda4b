/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "journal-redact.h"
#include "json.h"

/*
 * The journal of a profile's agent actions: STATE/journal/ (0700, the
 * user's, refused otherwise as the runtime dirs are), every file in it 0600.
 *
 *   seg-SSSSSSSSSSSS.jsonl   entries, one JSON object a line, each ending
 *                            in '\n'; SSS… is the seq of its first entry
 *                            (12 digits). A new segment starts past
 *                            JOURNAL_SEGMENT_MAX bytes, or after a segment
 *                            whose last line is torn.
 *   frames/SSSSSSSSSSSS.jpg  the screen after entry SSS…, [journal] frame_width
 *                            wide, written (temp name, rename) by the
 *                            desktop's helper (journal-frame-request.h) once
 *                            the action has returned, or by the action
 *                            itself from its own screenshot.
 *   frames/SSS…-before.jpg   the screen before entry SSS…, for the first action
 *                            after a gap (JOURNAL_GAP_S without a frame); the
 *                            frame before any other is the previous entry's.
 *   lock                     flock of writers (append, cap)
 *   stopped                  recording stopped: why ("disk full"); shown
 *                            by status until the file is removed
 *
 * An entry: {"seq", "time" (RFC 3339 UTC, ms), "action", "args" (object),
 * "holder" (agent|human), "epoch", "result" (ok|refused|suppressed|error),
 * "message" (or null; with args, cut as control/journal-trim.h says, then
 * "truncated": true), "settle" (settled|still_changing|no_change or
 * null), "settle_ms", "frame" ("frames/….jpg" or null)}; lease changes are
 * entries whose action is "lease" with "event" (human_took|returned) and
 * the viewer's hash. (The frame lock, held until a frame's screen is
 * read so that no frame shows a later action, is the runtime dir's:
 * client/journal-hook.h.) The cap drops whole segments, oldest first, with
 * their frames. A reader takes each segment up to its last whole line
 * and reports the rest.
 */

#define JOURNAL_DIR "journal"
#define JOURNAL_FRAMES_DIR "frames"
#define JOURNAL_STOPPED_FILE "stopped"
#define JOURNAL_SEGMENT_MAX (256u * 1024u)
#define JOURNAL_LINE_MAX (1024u * 1024u)
#define JOURNAL_SEQ_DIGITS 12
#define JOURNAL_GAP_S 60

struct journal {
        int fd;                         /* journal/ */
        int frames_fd;                  /* journal/frames/ */
        unsigned long long max_bytes;
        bool redact_text;
        struct journal_redact redact;   /* its key: loaded with JOURNAL_OPEN_REDACT_KEY */
        unsigned frame_width;
};

/*
 * Open STATE/journal of state_dir, verified: a directory of the calling
 * uid, mode 0700, not through a symlink; with JOURNAL_OPEN_CREATE made
 * when missing, with JOURNAL_OPEN_REDACT_KEY the key of redact_text loaded
 * (made when missing). -ENOENT (none and not created), -EPERM (not the
 * user's, or a wrong mode).
 */
enum {
        JOURNAL_OPEN_CREATE = 1u << 0,
        /* Only a writer that redacts hashes: the others need not read the key (4 system calls an action). */
        JOURNAL_OPEN_REDACT_KEY = 1u << 1,
};
int journal_open(const char *state_dir, unsigned flags, struct journal *ret);
void journal_close(struct journal *j);

/* What one action was, for journal_append(). */
struct journal_entry {
        const char *action;             /* "input click", "exec", "mcp", "lease", ... */
        const char *args_json;          /* an object's JSON text, or NULL */
        bool agent;                     /* the lease's holder at admission */
        unsigned long long epoch;
        const char *result;             /* ok, refused, suppressed, error */
        const char *message;            /* or NULL */
        const char *settle;             /* or NULL */
        unsigned settle_ms;
        bool frame;                     /* a frame follows (frames/SEQ.jpg) */
        const char *extra_json;         /* members to add ("\"k\": v, ..."), or NULL */
};

/*
 * Append e under the journal's lock, with the time now and the next seq
 * (in *ret_seq), then drop the oldest segments past the cap. On ENOSPC or
 * EDQUOT recording stops (journal_stopped() then says "disk full").
 * Returns 0, -ESHUTDOWN when recording is stopped, or -errno.
 */
int journal_append(struct journal *j, const struct journal_entry *e, unsigned long long *ret_seq);

/*
 * The same, with an entry that depends on the last one written first, in
 * the same hold of the lock: prelude gets the last whole entry's epoch (-1
 * when there is none, or it has none) and returns 1 with *ret filled to
 * have it appended before e (its strings the caller's until this returns),
 * 0 for none. *ret_seq is e's.
 */
typedef int (*journal_prelude_fn)(long long last_epoch, struct journal_entry *ret, void *userdata);
int journal_append_after(struct journal *j, journal_prelude_fn prelude, void *userdata, const struct journal_entry *e,
                         unsigned long long *ret_seq);

/* The seq the next entry will get (a guess: another writer may take it first). */
int journal_next_seq(struct journal *j, unsigned long long *ret);

/* The first seq still kept and the next to come, without the writers'
 * lock (a reader's guess, for a page's links): reads the directory and
 * the last segment's last line, nothing more. */
int journal_bounds(struct journal *j, unsigned long long *ret_first, unsigned long long *ret_next);

/* Why recording stopped, into buf ("disk full"), or false when it did not. */
bool journal_stopped(const char *state_dir, char *buf, size_t size);

/* Mark recording stopped because of error r (ENOSPC, EDQUOT: "disk full"). */
void journal_stop(struct journal *j, int r);

/* The path of entry seq's frame (before: the one before it) relative to journal/, into buf (at least 40 bytes). */
void journal_frame_name(unsigned long long seq, bool before, char *buf, size_t size);

/* Whether name is a frame's as journal_frame_name() gives it ("frames/" + 12
 * digits + ".jpg" or "-before.jpg"): every reader of an entry's "frame" or
 * "frame_before" checks it, since an entry is text anyone who can write the
 * journal's files can make name any path. */
bool journal_frame_name_valid(const char *name);

/* Write frame seq, or the frame before it (temp name, rename, 0600). */
int journal_write_frame(struct journal *j, unsigned long long seq, bool before, const void *data, size_t size);

/* The bytes the journal takes (segments and frames). */
int journal_size(struct journal *j, unsigned long long *ret);

/*
 * Every whole entry, oldest first, with seq >= since_seq, as its line
 * (NUL-terminated, without '\n'), to fn; a negative return stops. What
 * could not be read (a torn or unparsable line and what follows it in its
 * segment) is counted in *ret_bad_bytes and said on stderr once per
 * segment. *ret_last gets the last seq read + 1 (the next to come). A
 * positive return of fn stops the reading there (returned then): segments
 * before since_seq's and after the stop are never read.
 */
typedef int (*journal_entry_fn)(unsigned long long seq, const char *line, size_t len, void *userdata);
int journal_read(struct journal *j, unsigned long long since_seq, journal_entry_fn fn, void *userdata,
                 unsigned long long *ret_next, unsigned long long *ret_bad_bytes);

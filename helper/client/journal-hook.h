/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "json.h"

/*
 * How the agent's verbs put what they did in the profile's journal
 * (control/journal.h): one call after the action, whatever its result.
 * The frame of the screen after it is taken by the desktop's own helper
 * (supervisor/journal-frames.h), asked with the runtime dir's
 * journal-frame.lock held and handed over (control/journal-frame-request.h):
 * the action returns without waiting for the screen or the encoder, and
 * the next action
 * waits (bounded) only until the helper has read the screen, so that a
 * frame never shows a later action. The configuration and the journal are
 * read once: the verb's configuration is passed in, and an entry is
 * appended after reading only the journal's last line.
 *
 * Nothing is recorded while a human holds control (the lease entries say
 * when it moved), with [journal] enabled = no, or once recording stopped;
 * a journal that cannot be written never fails the action.
 */

struct journal_redact;
struct lease;

struct bd_config;

struct cli_journal_action {
        const char *action;                     /* "input click", "exec", "clipboard set", ... */
        const struct bd_config *config;         /* the profile's, read for this action already; NULL: read now */
        const struct lease *admitted;           /* the lease it ran under (NULL: read now) */
        const char *result;                     /* ok | refused | suppressed | error */
        const char *message;                    /* or NULL */
        const char *settle;                     /* or NULL */
        unsigned settle_ms;
        bool no_frame;                          /* the screen cannot have changed and no X is at hand */
        /* The frame after it, taken already (JPEG, frame_width wide: the
         * agent's own screenshot after the action), written as it is
         * instead of by a frame process reading the screen again; or NULL. */
        const void *frame;
        size_t frame_size;
        /* The "args" object's members; redact: with [journal] redact_text, the
         * journal's key for journal_text_fields() and journal_argv_fields(), else NULL. */
        void (*args)(struct json *j, const struct journal_redact *redact, const void *userdata);
        const void *userdata;
};

void cli_journal_record(const char *profile, const struct cli_journal_action *a);

/* The "words" member of an "args" object: the words given after PROFILE,
 * which `botdesk journal replay` runs again, but for --json and --start:
 * how the verb answered, not what it did. */
void cli_journal_words(struct json *j, char *const *words);

/* An action on an accessible element (botdesk a11y P do, the MCP tool
 * a11y_do), whatever its result: exit_code a CLI exit code, message why not. */
void cli_journal_a11y_do(const char *profile, const struct lease *admitted, const char *id, const char *action,
                         const char *text, int exit_code, const char *message);

/* The first entry of a fork's journal (botdesk fork): where it came from, and when that snapshot was taken. */
void cli_journal_fork(const char *profile, const char *parent, const char *snapshot, unsigned long long snapshot_usec);

/* A lease change by `botdesk lease`: "human_took" (with the viewer's hash) or "returned". */
void cli_journal_lease(const char *profile, const struct lease *l);

/*
 * Before an agent action: wait (at most CLI_JOURNAL_FRAME_WAIT_MS) until
 * the process taking the previous action's frame has read the screen.
 */
#define CLI_JOURNAL_FRAME_WAIT_MS 2000u
#define CLI_JOURNAL_FRAME_LOCK "journal-frame.lock"
void cli_journal_frame_barrier(int runtime_fd);

/* The text of a result for the journal: "ok", "refused" (exit 3), "error". */
const char *cli_journal_result(int exit_code);

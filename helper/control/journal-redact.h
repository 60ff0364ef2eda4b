/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

/*
 * What the journal keeps of secrets the agent typed or ran ([journal]
 * redact_text, on by default): the length, and an HMAC-SHA256 under the
 * journal's own key, so that the user who holds the key can tell whether
 * two entries typed the same thing, or whether one typed a given string,
 * and nobody who reads only the journal (a viewer of its page, an export)
 * can try guesses against it: a 6-digit code or a short password does not
 * survive a bare hash.
 *
 * The key: STATE/journal.key, beside journal/ and never in it (journal/ is
 * what botdesk web serves and export copies), 32 random bytes, 0600, the
 * user's, created once (temp name, then link: two first writers agree).
 * Without a usable key a redacted value keeps its length alone.
 */

#define JOURNAL_KEY_FILE "journal.key"
#define JOURNAL_KEY_SIZE 32
#define JOURNAL_HMAC_HEX 32             /* the 128-bit prefix kept, in hex digits */

struct journal_redact {
        bool have_key;
        uint8_t key[JOURNAL_KEY_SIZE];
};

/*
 * Load the key of the journal in the state dir state_fd, creating it
 * when missing. 0, or -EPERM (not a private regular file of 32 bytes
 * of ours: then it is never used) or -errno.
 */
int journal_redact_load(int state_fd, struct journal_redact *ret);

/* Forget the key (explicit_bzero). */
void journal_redact_done(struct journal_redact *r);

/* The HMAC of data[0..size) under the key as hex, JOURNAL_HMAC_HEX digits, into hex[JOURNAL_HMAC_HEX + 1]. */
void journal_redact_hmac(const struct journal_redact *r, const void *data, size_t size, char *hex);

/* Typed text as the journal keeps it: with redact NULL the text, else
 * KEY_length and (with a key) KEY_hmac, as members of j. */
void journal_text_fields(struct json *j, const char *key, const char *text, const struct journal_redact *redact);

/* A command's argv: with redact NULL "argv" in full; else "argv0" (the
 * program: what ran, not with what), "argc" and "argv_hmac" over the
 * arguments after it, each ended by a NUL. */
void journal_argv_fields(struct json *j, char *const *argv, const struct journal_redact *redact);

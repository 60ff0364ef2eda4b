/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * One journal entry stays small whatever the agent sent: a string of its
 * args or its message past JOURNAL_FIELD_MAX bytes is cut there (on a
 * UTF-8 boundary), args past JOURNAL_ARGS_MAX as a whole are replaced by
 * their size, and the entry says "truncated": true. A reader (the journal's
 * page, botdesk web) then reads a page of entries, not megabytes of echoed
 * keys; replay skips what was cut.
 */

#define JOURNAL_FIELD_MAX 4096u
#define JOURNAL_ARGS_MAX (16u * 1024u)

/* The length of s cut to at most max bytes, not inside a UTF-8 sequence. */
size_t journal_trim_utf8(const char *s, size_t max);

/*
 * args_json (an object's JSON text) as the journal keeps it: into *ret a
 * new text when it had to be cut (and *ret_truncated set), else NULL.
 * 0 or -ENOMEM.
 */
int journal_trim_args(const char *args_json, char **ret, bool *ret_truncated);

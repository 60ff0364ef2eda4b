/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A screen's revision: what an agent passes back as since_revision to
 * learn that nothing changed without paying for a picture. Content-
 * addressed, so that every process (each botdesk mcp, act and thumbnail is
 * its own) computes the same one with no daemon keeping state:
 *
 *   RUN.HASH   RUN: 12 hex digits naming this run of the desktop (from the
 *              helper record's token: a restart, or another profile, is
 *              another RUN); HASH: 16 hex digits, a 64-bit hash of the
 *              screen's pixels as the X server gave them, before scaling.
 *
 * Equal pixels give equal revisions whatever the picture's size or
 * format; a screen that changed and changed back is "unchanged", which is
 * true of what the agent would see. Pure: no X, no files.
 */

#define SCREEN_RUN_ID_LEN 12
#define SCREEN_HASH_LEN 16
#define SCREEN_REVISION_LEN (SCREEN_RUN_ID_LEN + 1 + SCREEN_HASH_LEN)
/* The valid form, for the messages that refuse another. */
#define SCREEN_REVISION_FORM                                                                                   \
        "RUN.HASH, 12 and 16 lowercase hex digits (the \"revision\" a screenshot carried, e.g. "              \
        "\"3f9a1c2b4d5e.0123456789abcdef\")"

/*
 * A 64-bit hash of size bytes at data, chained through seed: xxHash's
 * XXH64 (libxxhash), several GB/s, so that hashing a screen costs a
 * fraction of reading it. Not for secrets.
 */
uint64_t screen_hash64(const void *data, size_t size, uint64_t seed);

/* The seed of a screen's hash: its size and bytes per pixel, so that a resize is a change. */
uint64_t screen_hash_begin(unsigned width, unsigned height, unsigned bytes_per_pixel);

/*
 * The run id of a desktop from its helper record: a hash of its token
 * (which stays private: the id does not reveal it), else of its pid and
 * start time. 12 hex digits and a NUL in ret.
 */
void screen_run_id(const char *token, pid_t pid, unsigned long long starttime, char ret[static SCREEN_RUN_ID_LEN + 1]);

/* "RUN.HASH" and a NUL in ret. */
void screen_revision_format(const char *run_id, uint64_t hash, char ret[static SCREEN_REVISION_LEN + 1]);

/* A revision of the form above: 0 with its run id and hash, or -EINVAL for anything else. */
int screen_revision_parse(const char *s, char ret_run_id[static SCREEN_RUN_ID_LEN + 1], uint64_t *ret_hash);

/* A since_revision, parsed: what a screenshot request compares the screen with. */
struct screen_since {
        bool given;
        char run_id[SCREEN_RUN_ID_LEN + 1];
        uint64_t hash;
};

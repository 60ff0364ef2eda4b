/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

#include "journal.h"

/*
 * The journal as one HTML page: `botdesk journal PROFILE export DIR` writes
 * it with its frames copied beside it, `botdesk web` serves it at
 * /PROFILE/journal/ with the frames where they are. A timeline of the
 * entries, each action drawn on its frame (a click as a ring at its point,
 * a drag as an arrow, typed text as a caption), the lease's changes as
 * bands, each frame a link to frames/NAME.jpg. No script, nothing from
 * elsewhere. A page of it (botdesk web) links the pages around it.
 */

struct json_value;

struct journal_item {
        unsigned long long seq;
        struct json_value *v;
        size_t len;                     /* its line's */
};

struct journal_items {
        struct journal_item *v;
        size_t n, cap;
        unsigned long long to;
        /* A page: at most max_n entries and max_bytes of their lines (0: no
         * bound); older and newer, the links to the pages around it (seqs,
         * 0: none). */
        size_t max_n, max_bytes, bytes;
        bool paged, more, keep_newest;
        unsigned long long older, newer;
};

/* The whole entries from seq from to seq to (0: the last), parsed, oldest
 * first; a line that is no JSON is left out. 0 or -errno. */
int journal_items_read(struct journal *j, unsigned long long from, unsigned long long to, struct journal_items *ret);

/*
 * One page of the journal, for botdesk web (whose one loop serves every
 * viewer): JOURNAL_PAGE_ENTRIES entries at most and JOURNAL_PAGE_BYTES of
 * their lines, from seq from on, or else those before seq before (both 0:
 * the newest), reading only the segments they lie in. Its links reach
 * every entry: older (?before=) and newer (?from=).
 */
#define JOURNAL_PAGE_ENTRIES 200u
#define JOURNAL_PAGE_BYTES (1024u * 1024u)
int journal_items_read_page(struct journal *j, unsigned long long from, unsigned long long before,
                            struct journal_items *ret);
void journal_items_done(struct journal_items *it);

/* The frame named by an entry's member key ("frame", "frame_before"), if it
 * was taken and not dropped since: its name under journal/ ("frames/..."). */
const char *journal_item_frame(struct journal *j, const struct json_value *v, const char *key);

/* The page into f. With copy_frames_fd >= 0 each frame is copied there
 * first (an entry whose copy fails shows none); else linked where it is. */
void journal_page_write(FILE *f, struct journal *j, const char *profile, const struct journal_items *it,
                        int copy_frames_fd);

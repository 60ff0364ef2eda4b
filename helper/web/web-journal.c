/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /PROFILE/journal/: the journal's page (control/journal-page.h), a page of it at a time (?from=SEQ,
 * ?before=SEQ), and its frames, for a viewer with a session. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "journal-page.h"
#include "profile.h"
#include "util.h"
#include "web.h"


/* A seq in the query (?from=SEQ, ?before=SEQ): 0 when absent, -EINVAL when no seq. */
static int query_seq(const char *query, const char *key, unsigned long long *ret) {
        char buf[24];
        int r;

        *ret = 0;
        r = query ? http_query_get(query, key, buf, sizeof buf) : 0;
        if (r <= 0)
                return r == 0 ? 0 : -EINVAL;
        return parse_uint(buf, 999999999999ull, ret) < 0 ? -EINVAL : 0;
}

int web_journal_get(const char *profile, const char *rel, const char *query, char **ret_body, size_t *ret_size,
                    const char **ret_type) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(journal_close) struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        const char *frame = startswith(rel, "/" JOURNAL_FRAMES_DIR "/");
        int r;

        if (!streq(rel, "/") && (!frame || !journal_frame_name_valid(rel + 1)))
                return -ENOENT;
        r = paths_for_profile(profile, &p);
        if (r < 0)
                return r;
        /* Never created here: a profile without a journal has no page. */
        r = journal_open(p.state, 0, &j);
        if (r < 0)
                return r;
        if (streq(rel, "/")) {
                _cleanup_(journal_items_done) struct journal_items it = {};
                _cleanup_free_ char *page = NULL;
                unsigned long long from, before;
                size_t size = 0;
                FILE *f;

                if (query_seq(query, "from", &from) < 0 || query_seq(query, "before", &before) < 0)
                        return -EINVAL;
                /* A page, never the whole: this runs on the loop that carries every viewer's stream. */
                r = journal_items_read_page(&j, from, before, &it);
                if (r < 0)
                        return r;
                f = open_memstream(&page, &size);
                if (!f)
                        return -ENOMEM;
                journal_page_write(f, &j, profile, &it, -EBADF);
                if (fclose(f) != 0)
                        return -ENOMEM;
                *ret_type = "text/html; charset=utf-8";
                *ret_size = size;
                *ret_body = TAKE_PTR(page);
                return 0;
        }
        if (!frame)
                return -ENOENT;
        *ret_type = "image/jpeg";
        return read_full_file_at(j.frames_fd, frame, ret_body, ret_size, 64u << 20);
}

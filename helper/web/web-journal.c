/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /PROFILE/journal/: the journal's page (control/journal-page.h) and its frames, for a viewer with a session. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal-page.h"
#include "profile.h"
#include "util.h"
#include "web.h"

/* A frame's name as journal.c gives it: SEQ.jpg or SEQ-before.jpg, digits only before. */
static bool frame_name_valid(const char *name) {
        size_t digits = strspn(name, "0123456789");

        return digits > 0 && (streq(name + digits, ".jpg") || streq(name + digits, "-before.jpg"));
}

int web_journal_get(const char *profile, const char *rel, char **ret_body, size_t *ret_size, const char **ret_type) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(journal_close) struct journal j = { .fd = -EBADF, .frames_fd = -EBADF };
        const char *frame = startswith(rel, "/" JOURNAL_FRAMES_DIR "/");
        int r;

        if (!streq(rel, "/") && (!frame || !frame_name_valid(frame)))
                return -ENOENT;
        r = paths_for_profile(profile, &p);
        if (r < 0)
                return r;
        /* Never created here: a profile without a journal has no page. */
        r = journal_open(p.state, false, &j);
        if (r < 0)
                return r;
        if (streq(rel, "/")) {
                _cleanup_(journal_items_done) struct journal_items it = {};
                _cleanup_free_ char *page = NULL;
                size_t size = 0;
                FILE *f;

                r = journal_items_read(&j, 0, 0, &it);
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

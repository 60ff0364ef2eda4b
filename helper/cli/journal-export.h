/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "journal.h"

/*
 * What `botdesk journal PROFILE export` writes. A CLI exit code each, said.
 *
 * html: DIR/index.html, one page with no script from elsewhere and no
 * server: a timeline of the entries, each action drawn on its frame (a
 * click as a ring at its point, a drag as an arrow, typed text as a
 * caption), the lease's changes as bands, each frame a link to
 * DIR/frames/SEQ.jpg (copied there).
 *
 * video: the frames as an MP4 (H.264) through ffmpeg, each shown until the
 * next entry's time; without ffmpeg, says the package to install (exit 1).
 */
int journal_export_html(struct journal *j, const char *profile, const char *dir);
int journal_export_video(struct journal *j, const char *out);

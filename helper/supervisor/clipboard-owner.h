/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "clipboard-files.h"
#include "x11.h"
#include "xauth.h"

/*
 * The agent's clipboard: a CLI process exits, so the helper owns the
 * CLIPBOARD selection for the agent. `botdesk clipboard P set` (and MCP's
 * clipboard_write) leave the content in the runtime dir (0600) as
 * CLIPBOARD_FILE_TEXT or CLIPBOARD_FILE_PNG (clipboard-files.h); the helper, woken by inotify,
 * reads it, removes it (the removal is how the writer knows it was taken),
 * owns CLIPBOARD and serves it until another client takes the selection.
 * The content is never logged. A viewer's clipboard stays with the RFB
 * filter.
 *
 * When a human hands control back, the helper takes back CLIPBOARD and
 * PRIMARY from whoever owns them and serves them empty
 * (clipboard_owner_take_back()): what the human copied or selected during
 * the hold (a password pasted for the agent's ask_human) is not the
 * agent's to read afterwards. A selection the helper still owns holds
 * nothing of the human's (the agent's own content, or nothing) and is kept.
 */


struct clipboard_owner {
        sd_event_source *inotify, *io;
        int runtime_fd;                 /* borrowed */
        struct x11 x;                   /* a connection of its own */
        xcb_window_t window;
        xcb_atom_t clipboard, targets, utf8, text, text_plain, text_plain_utf8, png;
        uint8_t *data;                  /* what is served, NULL when nothing */
        size_t size, max;
        bool png_data;
        bool empty_clipboard, empty_primary;    /* owned, serving empty text (clipboard_owner_take_back) */
};

int clipboard_owner_start(struct clipboard_owner *c, sd_event *e, int runtime_fd, unsigned display,
                          const uint8_t cookie[XAUTH_COOKIE_SIZE], size_t max_bytes);
void clipboard_owner_done(struct clipboard_owner *c);

/* Own CLIPBOARD and PRIMARY, each empty unless it was the helper's already:
 * 0 once the server says both are ours; -ENOTCONN without a connection,
 * -EBUSY, -EIO. */
int clipboard_owner_take_back(struct clipboard_owner *c);

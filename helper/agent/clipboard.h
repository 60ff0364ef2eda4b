/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

/*
 * The agent's clipboard, from the CLI's side (botdesk clipboard, MCP's
 * clipboard_read and clipboard_write). Reading asks whoever owns CLIPBOARD
 * (ConvertSelection, answered by SelectionNotify); writing hands the content
 * to the helper, which owns the selection because a CLI process exits
 * (supervisor/clipboard-owner.h). The content is never logged.
 */

/* How long the selection's owner, or the helper, may take to answer. */
#define CLIPBOARD_ANSWER_MS 3000u

/*
 * CLIPBOARD as text (UTF8_STRING) or PNG, over connection c, into a new
 * buffer (NUL-terminated beyond *ret_size), in one piece or, as owners send
 * content beyond a part of a request's room, in pieces (INCR, ICCCM 2.7.2).
 * Events other than the answer are handed to other (may be NULL). -ENODATA: nothing of that type; -EFBIG:
 * more than max bytes; -ETIME: the owner did not answer; -EIO.
 */
int clipboard_get(xcb_connection_t *c, xcb_window_t root, bool png, size_t max,
                  void (*other)(void *userdata, const xcb_generic_event_t *ev), void *userdata, uint8_t **ret,
                  size_t *ret_size);

/*
 * Before the agent's clipboard is touched under the lease admitted at
 * epoch: wait (inotify, LEASE_SETTLED_WAIT_MS at most) until the helper has
 * emptied CLIPBOARD and PRIMARY after a human's hold (lease-settled.h), so
 * that what the human copied is never read, nor empties the agent's own
 * content afterwards. 0, -ETIME when the helper did not (refuse then).
 */
int clipboard_wait_handback(int runtime_fd, unsigned long long epoch);

/*
 * Hand data to the helper of the desktop whose runtime dir is runtime_fd,
 * and wait until it took it (inotify). -ETIME when it did not (no helper
 * serving the clipboard): nothing is left behind.
 */
int clipboard_set(int runtime_fd, bool png, const void *data, size_t size);

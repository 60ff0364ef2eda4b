/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * What the desktop's helper has done about a change of control (lease.h),
 * so that what must come after it waits for it. For each new epoch of the
 * lease the helper does its part, then writes the epoch into
 * RUNTIME/LEASE_SETTLED_FILE ("EPOCH\n", replaced by rename, 0600):
 *
 *   - a human's epoch: every button and key still held down on the
 *     server (an agent's left_mouse_down without its up, a hold_key cut
 *     short) is released, and the server has taken the releases;
 *   - an agent's epoch after a human's: CLIPBOARD and PRIMARY are the
 *     helper's, empty unless the helper held them all along (the agent's
 *     own content), so the agent does not read what the human copied.
 *
 * A human's input passes the RFB relay only once its epoch is settled,
 * and the agent's clipboard waits for its own. No file: a helper that
 * settles nothing (an older one), and nothing to wait for.
 */

#define LEASE_SETTLED_FILE "lease.settled"

/* How long the agent's clipboard waits for the helper's part of a hand-back. */
#define LEASE_SETTLED_WAIT_MS 5000u

/* The epoch last settled into *ret: 0, -ENOENT without a file, -EBADMSG for bad content, -errno. */
int lease_settled_read_at(int dirfd, unsigned long long *ret);

/* Record that the helper's part of epoch is done. */
int lease_settled_write_at(int dirfd, unsigned long long epoch);

/* Whether epoch's part is done: the file says epoch or later, or there is
 * no file (nothing settles). A damaged file is not settled. */
bool lease_settled_for(int dirfd, unsigned long long epoch);

/* Until lease_settled_for(dirfd, epoch), woken by inotify on the dir, at
 * most timeout_ms: 0, -ETIME, -errno. */
int lease_settled_wait_at(int dirfd, unsigned long long epoch, unsigned long long timeout_ms);

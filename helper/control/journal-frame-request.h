/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>

/*
 * How an agent's action asks the desktop's helper for a journal frame
 * (supervisor/journal-frames.h takes it): one datagram on the runtime dir's
 * JOURNAL_FRAME_SOCKET (0600), sent without waiting, that carries the
 * entry's seq, whether it is the frame before the entry, the frame's width
 * and three fds:
 *
 *   lock     the runtime dir's frame lock, held (LOCK_EX) by the sender:
 *            the helper stamps its mtime and closes it once it has read the
 *            screen, which lets the next action go on (journal-hook.h);
 *   journal  journal/ and journal/frames/, opened and verified by the
 *   frames   sender (journal_open): the frame goes where the sender's
 *            entry went, whatever the helper's own paths are.
 *
 * The action does not wait for the frame, and starts no process for it.
 */

#define JOURNAL_FRAME_SOCKET "journal-frame.sock"
/* A bound on the wire; [journal] frame_width's own range is narrower. */
#define JOURNAL_FRAME_REQUEST_WIDTH_MAX 8192u

struct journal_frame_request {
        unsigned long long seq;         /* 1 .. 10^12 - 1 (JOURNAL_SEQ_DIGITS) */
        unsigned width;                 /* the frame's width, 1 .. JOURNAL_FRAME_REQUEST_WIDTH_MAX */
        bool before;                    /* the frame before entry seq, not after it */
        int lock_fd, journal_fd, frames_fd;
};

#define JOURNAL_FRAME_REQUEST_NULL                                                                 \
        ((struct journal_frame_request) { .lock_fd = -EBADF, .journal_fd = -EBADF, .frames_fd = -EBADF })

/*
 * Send r on the socket name in the directory dirfd (socket_connect_at): 0,
 * -ENOENT or -ECONNREFUSED when no helper listens there, -EAGAIN when its
 * queue is full, -EINVAL for a request out of range. The fds stay the
 * caller's (the helper gets its own copies).
 */
int journal_frame_request_send(int dirfd, const char *name, const struct journal_frame_request *r);

/*
 * Take one request off the datagram socket fd (non-blocking): 0 with *ret
 * filled (its fds the caller's, close with journal_frame_request_done),
 * -EAGAIN when none is queued, -EBADMSG for a datagram that is not a whole
 * request (its size, its version, its values, its three fds of the right
 * kinds), whose fds are closed. Never blocks, never keeps an fd it refused.
 */
int journal_frame_request_receive(int fd, struct journal_frame_request *ret);

void journal_frame_request_done(struct journal_frame_request *r);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A byte queue of fixed storage between a read and a write that take what
 * they can: what came in is appended at end, what went out leaves from
 * start. The relays of a remote profile's session (its front, its TLS
 * pump) and `botdesk cdp` carry their bytes each way through one.
 */
struct byte_buf {
        uint8_t *data;
        size_t size, start, end;
};

/* A queue over an array (not a pointer: its size is the array's). */
#define BYTE_BUF(array) ((struct byte_buf) { .data = (array), .size = sizeof(array) })

static inline size_t byte_buf_len(const struct byte_buf *b) {
        return b->end - b->start;
}

/* The room at the end, what is pending moved to the front once the end reached the size. */
size_t byte_buf_room(struct byte_buf *b);

/* Send what b holds to fd, a socket (or a pipe: at most PIPE_BUF, which a pipe said writable takes whole),
 * without blocking: 0, or -errno (the peer is gone). */
int byte_buf_send(int fd, struct byte_buf *b);

/* Read what fd has into b's room, without blocking on a socket: the count, 0 at its end, -EAGAIN, or -errno. */
ssize_t byte_buf_recv(int fd, struct byte_buf *b);

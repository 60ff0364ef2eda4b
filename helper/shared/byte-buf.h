/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * A byte queue of fixed storage between a read and a write that take what
 * they can: what came in is appended at end, what went out leaves from
 * start. The relays of a remote profile's session (its front, its TLS
 * pump) carry their bytes each way through one.
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The one byte buffer: what came in is appended at end, what went out
 * leaves from start, and the bytes between are pending. Every relay and
 * every queued answer of botdesk holds its bytes in one.
 *
 * Its storage is fixed (an array of the caller's, for a relay, whose
 * back-pressure is exactly a full buffer) or growable: allocated here, up
 * to a cap (an answer, an encoded picture, a message queue), never past it,
 * so that a peer that does not read costs at most the cap.
 *
 * The pending bytes are moved to the front only when the room at the end is
 * short of what the caller wants to put there (buffer_reserve()): a relay
 * that asks for a whole read's room does not move a few bytes at every read.
 */
struct buffer {
        uint8_t *data;
        size_t size;            /* of data */
        size_t cap;             /* the most data may grow to (a fixed buffer's: its size) */
        size_t start, end;
        bool growable;          /* data is allocated here, grown up to cap, freed by buffer_done() */
};

/* A buffer of fixed storage over an array (not a pointer: its size is the array's). */
#define BUFFER_FIXED(array) \
        ((struct buffer) { .data = (array), .size = sizeof(array), .cap = sizeof(array) })
/* A buffer allocated as it fills, never beyond max bytes. */
#define BUFFER_GROWABLE(max) ((struct buffer) { .cap = (max), .growable = true })

static inline size_t buffer_len(const struct buffer *b) {
        return b->end - b->start;
}

/* The first pending byte. */
static inline uint8_t *buffer_data(const struct buffer *b) {
        return b->data + b->start;
}

/* How many more bytes the buffer takes in all (up to its cap), wherever they would go. */
static inline size_t buffer_room(const struct buffer *b) {
        return b->cap - buffer_len(b);
}

/* Whether it takes nothing more: the sign for a relay to stop reading the side that fills it. */
static inline bool buffer_full(const struct buffer *b) {
        return buffer_room(b) == 0;
}

/* The pending bytes moved to the front of the storage; the contiguous room at the end. */
size_t buffer_compact(struct buffer *b);

/*
 * Make want bytes writable at the end if the cap allows, at the least cost:
 * nothing when there is room, else the pending bytes moved to the front,
 * else (growable) the storage grown, doubling, up to the cap. Returns the
 * contiguous room at the end now (less than want when the cap or memory
 * says so; a write goes to buffer_tail(), then buffer_advance()).
 */
size_t buffer_reserve(struct buffer *b, size_t want);

static inline uint8_t *buffer_tail(const struct buffer *b) {
        return b->data + b->end;
}

/* n bytes were written at buffer_tail() (within what buffer_reserve() returned). */
static inline void buffer_advance(struct buffer *b, size_t n) {
        b->end += n;
}

/* All n bytes appended, or none: 0, -ENOBUFS past the cap, -ENOMEM. */
int buffer_append(struct buffer *b, const void *data, size_t n);

/* n pending bytes went out (n at most buffer_len()); an emptied buffer starts again at the front. */
void buffer_consume(struct buffer *b, size_t n);

/* Nothing pending any more. */
static inline void buffer_clear(struct buffer *b) {
        b->start = b->end = 0;
}

/* The storage of a growable buffer freed (a fixed one's is the caller's); the buffer is empty. */
void buffer_done(struct buffer *b);

/*
 * The pending bytes handed out in storage of their own, for free() (NULL
 * when none are pending); the buffer is left empty.
 */
uint8_t *buffer_steal(struct buffer *b, size_t *ret_size);

/*
 * Send what the n buffers hold, in order, to fd without blocking, with one
 * writev() a round, until fd takes no more: a socket (MSG_NOSIGNAL: a gone
 * peer is -EPIPE, not a signal), a non-blocking pipe. A blocking fd (a
 * shared stdout) gets one write of at most PIPE_BUF, which a pipe said
 * writable takes whole. What went out is consumed. Returns the bytes sent
 * (0: the fd took none now), or -errno.
 */
ssize_t buffer_flush(int fd, struct buffer *const *bufs, size_t n);

static inline ssize_t buffer_send(int fd, struct buffer *b) {
        return buffer_flush(fd, &b, 1);
}

/* Read what fd has into b's room, without blocking on a socket: the count, 0 at its end, -EAGAIN, or -errno. */
ssize_t buffer_recv(int fd, struct buffer *b);

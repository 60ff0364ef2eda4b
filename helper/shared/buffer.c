/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "buffer.h"

/* A growable buffer's first allocation: most answers fit, and doubling from here reaches any cap quickly. */
#define BUFFER_GROW_MIN 4096

/* One writev() takes this many buffers at most; a flush goes round again for the rest. */
#define BUFFER_FLUSH_IOV 8

size_t buffer_compact(struct buffer *b) {
        if (b->start == b->end)
                b->start = b->end = 0;
        else if (b->start > 0) {
                memmove(b->data, b->data + b->start, b->end - b->start);
                b->end -= b->start;
                b->start = 0;
        }
        return b->size - b->end;
}

static int buffer_grow(struct buffer *b, size_t want) {
        size_t need = b->end + want, size = MAX(b->size, (size_t) BUFFER_GROW_MIN);
        uint8_t *d;

        while (size < need && size <= b->cap / 2)
                size *= 2;
        size = MIN(MAX(size, need), b->cap);
        if (size <= b->size)
                return 0;
        d = realloc(b->data, size);
        if (!d)
                return -ENOMEM;
        b->data = d;
        b->size = size;
        return 0;
}

size_t buffer_reserve(struct buffer *b, size_t want) {
        if (b->start == b->end)
                b->start = b->end = 0;
        if (b->size - b->end >= want)
                return b->size - b->end;
        /* Moving the pending bytes is cheaper than growing, and all a fixed buffer can do. */
        if (b->start > 0)
                (void) buffer_compact(b);
        if (b->growable && b->size - b->end < want)
                (void) buffer_grow(b, MIN(want, b->cap - b->end));
        return b->size - b->end;
}

int buffer_append(struct buffer *b, const void *data, size_t n) {
        if (n == 0)
                return 0;
        if (n > buffer_room(b))
                return -ENOBUFS;
        if (buffer_reserve(b, n) < n)
                return -ENOMEM;
        memcpy(buffer_tail(b), data, n);
        b->end += n;
        return 0;
}

void buffer_consume(struct buffer *b, size_t n) {
        b->start += MIN(n, buffer_len(b));
        if (b->start == b->end)
                b->start = b->end = 0;
}

void buffer_done(struct buffer *b) {
        if (b->growable) {
                free(b->data);
                b->data = NULL;
                b->size = 0;
        }
        b->start = b->end = 0;
}

uint8_t *buffer_steal(struct buffer *b, size_t *ret_size) {
        size_t n = buffer_len(b);
        uint8_t *d;

        *ret_size = 0;
        if (n == 0)
                return NULL;
        if (b->growable) {
                /* The storage itself, the pending bytes at its front: no copy. */
                (void) buffer_compact(b);
                d = b->data;
                b->data = NULL;
                b->size = 0;
        } else {
                d = malloc(n);
                if (!d)
                        return NULL;
                memcpy(d, buffer_data(b), n);
        }
        buffer_clear(b);
        *ret_size = n;
        return d;
}

/* One round: an iovec for each buffer with bytes (at most max of them in all), one writev. */
static ssize_t flush_once(int fd, struct buffer *const *bufs, size_t n, size_t max, bool sock) {
        struct iovec iov[BUFFER_FLUSH_IOV];
        size_t k = 0, total = 0;
        ssize_t sent;

        for (size_t i = 0; i < n && k < BUFFER_FLUSH_IOV && total < max; i++) {
                size_t len = MIN(buffer_len(bufs[i]), max - total);

                if (len == 0)
                        continue;
                iov[k++] = (struct iovec) { .iov_base = buffer_data(bufs[i]), .iov_len = len };
                total += len;
        }
        if (k == 0)
                return 0;
        if (sock)
                sent = sendmsg(fd, &(struct msghdr) { .msg_iov = iov, .msg_iovlen = k }, MSG_NOSIGNAL | MSG_DONTWAIT);
        else
                sent = writev(fd, iov, (int) k);
        if (sent < 0)
                return -errno;
        /* What went out leaves the buffers in order: the first ones whole, the last one perhaps in part. */
        for (size_t i = 0, left = (size_t) sent; i < n && left > 0; i++) {
                size_t take = MIN(buffer_len(bufs[i]), left);

                buffer_consume(bufs[i], take);
                left -= take;
        }
        return sent;
}

ssize_t buffer_flush(int fd, struct buffer *const *bufs, size_t n) {
        size_t total = 0, max = SIZE_MAX;
        bool sock = true, once = false;

        for (;;) {
                ssize_t k = flush_once(fd, bufs, n, max, sock);

                if (k == -ENOTSOCK && sock) {
                        int flags = fcntl(fd, F_GETFL);

                        /* A blocking pipe (a shared stdout) said writable takes PIPE_BUF whole, and
                         * perhaps nothing more without blocking: one write, poll says when it takes more. */
                        sock = false;
                        if (flags < 0 || !(flags & O_NONBLOCK)) {
                                max = PIPE_BUF;
                                once = true;
                        }
                        continue;
                }
                if (k == -EINTR)
                        continue;
                if (k == -EAGAIN || k == 0)
                        return (ssize_t) total;
                if (k < 0)
                        return k;
                total += (size_t) k;
                if (once)
                        return (ssize_t) total;
        }
}

ssize_t buffer_recv(int fd, struct buffer *b) {
        size_t room = buffer_reserve(b, 1);
        ssize_t n;

        if (room == 0)
                return -ENOBUFS;
        n = recv(fd, buffer_tail(b), room, MSG_DONTWAIT);
        if (n < 0 && errno == ENOTSOCK)
                n = read(fd, buffer_tail(b), room);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? -EAGAIN : -errno;
        b->end += (size_t) n;
        return n;
}

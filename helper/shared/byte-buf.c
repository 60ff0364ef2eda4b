/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <unistd.h>

#include "byte-buf.h"

size_t byte_buf_room(struct byte_buf *b) {
        if (b->start == b->end)
                b->start = b->end = 0;
        else if (b->start > 0 && b->end == b->size) {
                memmove(b->data, b->data + b->start, b->end - b->start);
                b->end -= b->start;
                b->start = 0;
        }
        return b->size - b->end;
}

int byte_buf_send(int fd, struct byte_buf *b) {
        ssize_t n = send(fd, b->data + b->start, byte_buf_len(b), MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0 && errno == ENOTSOCK)
                n = write(fd, b->data + b->start, MIN(byte_buf_len(b), (size_t) PIPE_BUF));
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        b->start += (size_t) n;
        return 0;
}

ssize_t byte_buf_recv(int fd, struct byte_buf *b) {
        ssize_t n = recv(fd, b->data + b->end, byte_buf_room(b), MSG_DONTWAIT);

        if (n < 0 && errno == ENOTSOCK)
                n = read(fd, b->data + b->end, byte_buf_room(b));
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? -EAGAIN : -errno;
        b->end += (size_t) n;
        return n;
}

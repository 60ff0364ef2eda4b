/* SPDX-License-Identifier: LGPL-2.1-or-later */
#undef NDEBUG
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buffer.h"
#include "tap.h"
#include "util.h"

/* A byte that says where it was in a stream: a lost, doubled or reordered byte shows. */
static uint8_t pattern(size_t i) {
        return (uint8_t) (i * 7 + i / 251);
}

static void fill(uint8_t *p, size_t n, size_t from) {
        for (size_t i = 0; i < n; i++)
                p[i] = pattern(from + i);
}

static bool follows(const uint8_t *p, size_t n, size_t from) {
        for (size_t i = 0; i < n; i++)
                if (p[i] != pattern(from + i))
                        return false;
        return true;
}

/* A fixed buffer: appended bytes come out first in, all or nothing past its size. */
static void test_fixed(void) {
        uint8_t storage[16], in[16];
        struct buffer b = BUFFER_FIXED(storage);

        fill(in, sizeof in, 0);
        TAP_EQ_INT(buffer_room(&b), 16, "an empty fixed buffer has its array's size as room");
        TAP_EQ_INT(buffer_append(&b, in, 12), 0, "12 bytes go into 16");
        TAP_EQ_INT(buffer_len(&b), 12, "and are pending");
        TAP_EQ_INT(buffer_room(&b), 4, "which leaves room for 4");
        TAP_EQ_INT(buffer_append(&b, in + 12, 5), -ENOBUFS, "5 more do not fit: refused");
        TAP_EQ_INT(buffer_len(&b), 12, "and nothing of them was taken");
        buffer_consume(&b, 8);
        tap_ok(buffer_len(&b) == 4 && follows(buffer_data(&b), 4, 8), "what was consumed left from the front");
        TAP_EQ_INT(buffer_room(&b), 12, "consumed bytes are room again");
        buffer_consume(&b, 4);
        tap_ok(b.start == 0 && b.end == 0, "an emptied buffer starts again at the front");
        TAP_EQ_INT(buffer_append(&b, in, 16), 0, "so it takes its whole size again");
        tap_ok(buffer_full(&b), "and is then full: the sign to stop reading");
}

/* The pending bytes move to the front only when the room at the end is short of what is wanted. */
static void test_compact(void) {
        uint8_t storage[16], in[16];
        struct buffer b = BUFFER_FIXED(storage);

        fill(in, sizeof in, 0);
        (void) buffer_append(&b, in, 12);
        buffer_consume(&b, 8);
        TAP_EQ_INT(buffer_reserve(&b, 4), 4, "4 bytes wanted, 4 at the end: the room as it is");
        TAP_EQ_INT(b.start, 8, "nothing was moved for them");
        TAP_EQ_INT(buffer_reserve(&b, 8), 12, "8 wanted: the pending bytes move to the front, 12 at the end");
        tap_ok(b.start == 0 && follows(buffer_data(&b), 4, 8), "the pending bytes are intact at the front");
        memcpy(buffer_tail(&b), in + 12, 4);
        buffer_advance(&b, 4);
        tap_ok(buffer_len(&b) == 8 && follows(buffer_data(&b), 8, 8), "bytes written at the tail follow them");
        buffer_consume(&b, 2);
        TAP_EQ_INT(buffer_compact(&b), 10, "an explicit compaction leaves all the room at the end");
        tap_ok(b.start == 0 && follows(buffer_data(&b), 6, 10), "the bytes moved with it");
}

/* A growable buffer allocates as it fills, doubling, and never past its cap. */
static void test_growable_cap(void) {
        _cleanup_(buffer_done) struct buffer b = BUFFER_GROWABLE(10000);
        _cleanup_free_ uint8_t *in = malloc(10000), *out = NULL;
        size_t n = 0;

        assert(in);
        fill(in, 10000, 0);
        tap_ok(!b.data && buffer_room(&b) == 10000, "an empty growable buffer holds no memory, its cap as room");
        TAP_EQ_INT(buffer_append(&b, in, 3000), 0, "3000 bytes appended");
        TAP_EQ_INT(b.size, 4096, "the first allocation is 4 KiB");
        TAP_EQ_INT(buffer_append(&b, in + 3000, 5000), 0, "5000 more appended");
        TAP_EQ_INT(b.size, 8192, "the storage doubled to hold them");
        TAP_EQ_INT(buffer_append(&b, in + 8000, 2001), -ENOBUFS, "2001 more would pass the cap: refused");
        tap_ok(buffer_len(&b) == 8000 && follows(buffer_data(&b), 8000, 0), "and the buffer is as it was");
        TAP_EQ_INT(buffer_append(&b, in + 8000, 2000), 0, "2000 more fill it to the cap exactly");
        TAP_EQ_INT(b.size, 10000, "the storage grew to the cap, not to the next power of two");
        tap_ok(buffer_full(&b), "a buffer at its cap is full");
        buffer_consume(&b, 1000);
        TAP_EQ_INT(buffer_reserve(&b, 1000), 1000, "consumed bytes are room at the end again, within the cap");
        TAP_EQ_INT(b.size, 10000, "without growing past it");
        out = buffer_steal(&b, &n);
        tap_ok(out && n == 9000 && follows(out, 9000, 1000), "the pending bytes are handed out whole");
        tap_ok(!b.data && buffer_len(&b) == 0, "and the buffer is left empty, owning nothing");
}

/* Two buffers flushed in order through a socket that takes less than they hold. */
static void test_flush_partial(void) {
        enum { HALF = 256 * 1024 };
        _cleanup_close_ int a = -EBADF, z = -EBADF;
        _cleanup_free_ uint8_t *s1 = malloc(HALF), *s2 = malloc(HALF), *got = malloc(2 * HALF);
        struct buffer b1, b2, *bufs[2] = { &b1, &b2 };
        int sv[2], small = 4096;
        size_t received = 0, rounds = 0;
        bool ok = true;
        ssize_t k;

        assert(s1 && s2 && got);
        assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) >= 0);
        a = sv[0];
        z = sv[1];
        assert(setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) >= 0);
        b1 = (struct buffer) { .data = s1, .size = HALF, .cap = HALF };
        b2 = (struct buffer) { .data = s2, .size = HALF, .cap = HALF };
        fill(s1, HALF, 0);
        fill(s2, HALF, HALF);
        b1.end = b2.end = HALF;

        k = buffer_flush(a, bufs, 2);
        tap_ok(k > 0 && k < 2 * HALF, "a small send buffer takes part of the two buffers (%zd bytes)", k);
        TAP_EQ_INT(buffer_len(&b1) + buffer_len(&b2), 2 * HALF - k, "exactly what went out was consumed");
        tap_ok(k >= HALF || buffer_len(&b2) == HALF, "the second buffer waits until the first is out");

        /* The reader takes what came; each flush then sends more, until nothing is left. (A flush that
         * sent nothing left the socket full: there is always something to read.) */
        while (ok && received < 2 * HALF && rounds++ < 100000) {
                ssize_t n = read(z, got + received, 2 * HALF - received);

                if (n <= 0)
                        ok = false;
                else
                        received += (size_t) n;
                if (buffer_flush(a, bufs, 2) < 0)
                        ok = false;
        }
        tap_ok(ok && received == 2 * HALF, "every byte arrived (%zu of %d)", received, 2 * HALF);
        tap_ok(follows(got, received, 0), "in order, the first buffer's then the second's");

        z = safe_close(z);
        (void) buffer_append(&b1, "x", 1);
        TAP_EQ_INT(buffer_send(a, &b1), -EPIPE, "a gone peer is -EPIPE, and no SIGPIPE ends the test");
}

/* A write that ends inside the second buffer empties the first and consumes the second in part. */
static void test_flush_spanning(void) {
        enum { BIG = 256 * 1024 };
        _cleanup_close_ int a = -EBADF, z = -EBADF;
        _cleanup_free_ uint8_t *big = malloc(BIG);
        uint8_t small[100];
        struct buffer b1 = BUFFER_FIXED(small), b2, *bufs[2] = { &b1, &b2 };
        int sv[2], sndbuf = 4096;
        ssize_t k;

        assert(big);
        assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) >= 0);
        a = sv[0];
        z = sv[1];
        assert(setsockopt(a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) >= 0);
        fill(small, sizeof small, 0);
        fill(big, BIG, sizeof small);
        b1.end = sizeof small;
        b2 = (struct buffer) { .data = big, .size = BIG, .cap = BIG, .end = BIG };
        k = buffer_flush(a, bufs, 2);
        tap_ok(k > (ssize_t) sizeof small && k < (ssize_t) sizeof small + BIG,
               "one flush sends the first buffer and part of the second (%zd bytes)", k);
        TAP_EQ_INT(buffer_len(&b1), 0, "the first buffer is empty");
        TAP_EQ_INT(buffer_len(&b2), BIG - (k - (ssize_t) sizeof small), "the second lost exactly its part");
        tap_ok(follows(buffer_data(&b2), buffer_len(&b2), (size_t) k), "its first pending byte is the next in the stream");
}

/* A blocking pipe gets one write of at most PIPE_BUF (a shared stdout said writable never blocks); a
 * non-blocking one all it takes. */
static void test_flush_pipe(void) {
        _cleanup_close_ int r = -EBADF, w = -EBADF;
        _cleanup_(buffer_done) struct buffer b = BUFFER_GROWABLE(4 * PIPE_BUF);
        _cleanup_free_ uint8_t *in = malloc(4 * PIPE_BUF);
        int p[2];

        assert(in);
        assert(pipe2(p, O_CLOEXEC) >= 0);
        r = p[0];
        w = p[1];
        fill(in, 4 * PIPE_BUF, 0);
        (void) buffer_append(&b, in, 4 * PIPE_BUF);
        TAP_EQ_INT(buffer_send(w, &b), PIPE_BUF, "a blocking pipe takes PIPE_BUF bytes a flush");
        TAP_EQ_INT(buffer_len(&b), 3 * PIPE_BUF, "the rest waits");
        assert(fcntl(w, F_SETFL, O_NONBLOCK) >= 0);
        TAP_EQ_INT(buffer_send(w, &b), 3 * PIPE_BUF, "a non-blocking pipe takes all it has room for");
        TAP_EQ_INT(buffer_len(&b), 0, "nothing waits");
}

/* A read lands in the room; the end of the peer and an empty socket are told apart. */
static void test_recv(void) {
        _cleanup_close_ int a = -EBADF, z = -EBADF;
        uint8_t storage[8];
        struct buffer b = BUFFER_FIXED(storage);
        int sv[2];

        assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) >= 0);
        a = sv[0];
        z = sv[1];
        TAP_EQ_INT(buffer_recv(a, &b), -EAGAIN, "nothing to read yet: -EAGAIN, without blocking");
        assert(write(z, "0123456789", 10) == 10);
        TAP_EQ_INT(buffer_recv(a, &b), 8, "a read takes what the room holds");
        TAP_EQ_INT(buffer_recv(a, &b), -ENOBUFS, "a full buffer reads nothing (no end of stream misread)");
        buffer_consume(&b, 6);
        TAP_EQ_INT(buffer_recv(a, &b), 2, "room made by consuming takes the rest");
        tap_ok(buffer_len(&b) == 4 && memcmp(buffer_data(&b), "6789", 4) == 0, "in order");
        z = safe_close(z);
        TAP_EQ_INT(buffer_recv(a, &b), 0, "the peer's end reads as 0");
}

int main(void) {
        test_fixed();
        test_compact();
        test_growable_cap();
        test_flush_partial();
        test_flush_spanning();
        test_flush_pipe();
        test_recv();
        return tap_done();
}

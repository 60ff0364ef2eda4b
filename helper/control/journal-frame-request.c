/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "journal-frame-request.h"
#include "socket-util.h"
#include "util.h"

/* The datagram: a version, then the values; the fds ride along as SCM_RIGHTS. */
#define WIRE_VERSION 1u
#define WIRE_FDS 3
#define WIRE_FLAG_BEFORE 1u
#define WIRE_SEQ_MAX 999999999999ull

struct wire {
        uint32_t version;
        uint32_t flags;
        uint64_t seq;
        uint32_t width;
        uint32_t reserved;              /* 0 */
};

static bool values_valid(unsigned long long seq, unsigned width) {
        return seq >= 1 && seq <= WIRE_SEQ_MAX && width >= 1 && width <= JOURNAL_FRAME_REQUEST_WIDTH_MAX;
}

int journal_frame_request_send(int dirfd, const char *name, const struct journal_frame_request *r) {
        _cleanup_close_ int fd = -EBADF;
        struct wire w = {
                .version = WIRE_VERSION,
                .flags = r->before ? WIRE_FLAG_BEFORE : 0,
                .seq = r->seq,
                .width = r->width,
        };
        struct iovec iov = { .iov_base = &w, .iov_len = sizeof w };
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * WIRE_FDS)];
        } control = {};
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof control,
        };
        int fds[WIRE_FDS] = { r->lock_fd, r->journal_fd, r->frames_fd };
        struct cmsghdr *c;

        if (!values_valid(r->seq, r->width) || r->lock_fd < 0 || r->journal_fd < 0 || r->frames_fd < 0)
                return -EINVAL;
        c = CMSG_FIRSTHDR(&mh);
        if (!c)
                return -EINVAL;
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof fds);
        memcpy(CMSG_DATA(c), fds, sizeof fds);
        fd = socket_connect_at(dirfd, name, SOCK_DGRAM | SOCK_NONBLOCK);
        if (fd < 0)
                return fd;
        if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        return 0;
}

static bool fd_is(int fd, mode_t type) {
        struct stat st;

        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

int journal_frame_request_receive(int fd, struct journal_frame_request *ret) {
        _cleanup_(journal_frame_request_done) struct journal_frame_request r = JOURNAL_FRAME_REQUEST_NULL;
        struct wire w;
        struct iovec iov = { .iov_base = &w, .iov_len = sizeof w };
        /* Room for more fds than a request has: a datagram with too many is refused whole, none kept. */
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * (WIRE_FDS + 5))];
        } control;
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof control,
        };
        int got[WIRE_FDS] = { -EBADF, -EBADF, -EBADF };
        size_t n_got = 0;
        bool extra = false;
        ssize_t n;

        n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                size_t k;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
                        extra = true;
                        continue;
                }
                k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                        int one;

                        memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
                        if (n_got < WIRE_FDS)
                                got[n_got++] = one;
                        else {
                                safe_close(one);
                                extra = true;
                        }
                }
        }
        r.lock_fd = got[0];
        r.journal_fd = got[1];
        r.frames_fd = got[2];
        if (extra || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t) n != sizeof w || n_got != WIRE_FDS)
                return -EBADMSG;
        if (w.version != WIRE_VERSION || (w.flags & ~WIRE_FLAG_BEFORE) || w.reserved != 0 ||
            !values_valid(w.seq, w.width))
                return -EBADMSG;
        if (!fd_is(r.lock_fd, S_IFREG) || !fd_is(r.journal_fd, S_IFDIR) || !fd_is(r.frames_fd, S_IFDIR))
                return -EBADMSG;
        r.seq = w.seq;
        r.width = w.width;
        r.before = w.flags & WIRE_FLAG_BEFORE;
        *ret = r;
        r = JOURNAL_FRAME_REQUEST_NULL;
        return 0;
}

void journal_frame_request_done(struct journal_frame_request *r) {
        r->lock_fd = safe_close(r->lock_fd);
        r->journal_fd = safe_close(r->journal_fd);
        r->frames_fd = safe_close(r->frames_fd);
}

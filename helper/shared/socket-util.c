/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/stat.h>

#include "socket-util.h"
#include "util.h"

int sockaddr_un_set_path(struct sockaddr_un *ret, const char *path) {
        size_t l = strlen(path);

        *ret = (struct sockaddr_un) { .sun_family = AF_UNIX };
        if (l == 0 || (path[0] == '@' && l == 1))
                return -EINVAL;
        if (path[0] == '@') {
                /* Abstract: a leading NUL, then exactly the name's bytes. */
                if (l > sizeof ret->sun_path)
                        return -ENAMETOOLONG;
                memcpy(ret->sun_path + 1, path + 1, l - 1);
                return (int) (offsetof(struct sockaddr_un, sun_path) + l);
        }
        /* A path keeps its NUL: Linux would accept 108 bytes without one, others not. */
        if (l >= sizeof ret->sun_path)
                return -ENAMETOOLONG;
        memcpy(ret->sun_path, path, l + 1);
        return (int) (offsetof(struct sockaddr_un, sun_path) + l + 1);
}

int socket_bind_private(const char *path, int type) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_un sa;
        mode_t old;
        int len, r = 0;

        len = sockaddr_un_set_path(&sa, path);
        if (len < 0)
                return len;
        fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        /* The file's mode is decided at bind, from the umask: fchmod() of a
         * socket fd does not reach the file, and chmod() afterwards leaves a
         * window. */
        old = umask(0177);
        if (bind(fd, (struct sockaddr *) &sa, (socklen_t) len) < 0)
                r = negative_errno();
        umask(old);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int socket_listen_private(const char *path, int type, int backlog) {
        _cleanup_close_ int fd = socket_bind_private(path, type);

        if (fd < 0)
                return fd;
        if (listen(fd, backlog) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

int socket_connect_at(int dirfd, const char *name, int type) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *path = NULL;
        struct sockaddr_un sa;
        int len;

        if (dirfd != AT_FDCWD && name[0] != '/' && name[0] != '@') {
                if (dirfd < 0)
                        return -EBADF;
                path = strdup_printf("/proc/self/fd/%d/%s", dirfd, name);
                if (!path)
                        return -ENOMEM;
                name = path;
        }
        len = sockaddr_un_set_path(&sa, name);
        if (len < 0)
                return len;
        fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (connect(fd, (struct sockaddr *) &sa, (socklen_t) len) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

int fd_wait_until(int fd, short events, unsigned long long deadline) {
        for (;;) {
                unsigned long long now = now_usec();
                int r;

                if (now >= deadline)
                        return -ETIMEDOUT;
                r = poll(&(struct pollfd) { .fd = fd, .events = events }, 1, (int) ((deadline - now + 999) / 1000));
                if (r > 0)
                        return 0;
                if (r < 0 && errno != EINTR)
                        return negative_errno();
        }
}

int socket_send_fd(int sock, int fd) {
        char byte = 'F';
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        union {
                struct cmsghdr header;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
        for (;;) {
                if (sendmsg(sock, &mh, MSG_NOSIGNAL) == 1)
                        return 0;
                if (errno != EINTR)
                        return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        }
}

int socket_recv_fd(int sock) {
        char byte;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        union {
                struct cmsghdr header;
                char buf[CMSG_SPACE(2 * sizeof(int))];  /* room to see (and close) one too many */
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };
        int got = -EBADMSG;
        size_t n_fds = 0;
        ssize_t n;

        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                size_t k = c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS ?
                                   (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;

                for (size_t i = 0; i < k; i++, n_fds++) {
                        int one;

                        memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
                        if (n_fds == 0)
                                got = one;
                        else
                                safe_close(one);
                }
        }
        if (n == 0 && n_fds == 0)
                return -EPIPE;
        if (n_fds != 1 || (mh.msg_flags & MSG_CTRUNC)) {
                safe_close(got);
                return -EBADMSG;
        }
        return got;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
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

#define SOCKET_FDS_MAX 8

int socket_send_message(int sock, const void *data, size_t size, const int *fds, size_t n_fds) {
        struct iovec iov = { .iov_base = (void *) (uintptr_t) data, .iov_len = size };
        union {
                struct cmsghdr header;
                char buf[CMSG_SPACE(SOCKET_FDS_MAX * sizeof(int))];
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        ssize_t n;

        if (size == 0 || n_fds > SOCKET_FDS_MAX)
                return -EINVAL;
        if (n_fds > 0) {
                struct cmsghdr *c;

                mh.msg_control = &control;
                mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
                memcpy(CMSG_DATA(c), fds, n_fds * sizeof(int));
        }
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        return (size_t) n == size ? 0 : -EIO;
}

ssize_t socket_recv_message(int sock, void *buf, size_t size, int *fds, size_t max_fds, size_t *ret_n_fds) {
        struct iovec iov = { .iov_base = buf, .iov_len = size };
        union {
                struct cmsghdr header;
                char buf[CMSG_SPACE((SOCKET_FDS_MAX + 1) * sizeof(int))]; /* room to see (and close) one too many */
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };
        size_t n_fds = 0;
        bool excess = false;
        ssize_t n;

        assert(max_fds <= SOCKET_FDS_MAX);
        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                size_t k = c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS ?
                                   (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;

                for (size_t i = 0; i < k; i++) {
                        int one;

                        memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
                        if (n_fds < max_fds)
                                fds[n_fds++] = one;
                        else {
                                safe_close(one);
                                excess = true;
                        }
                }
        }
        if (n == 0 && n_fds == 0 && !excess)
                return -EPIPE;
        if (excess || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
                for (size_t i = 0; i < n_fds; i++)
                        safe_close(fds[i]);
                return (mh.msg_flags & MSG_TRUNC) ? -EMSGSIZE : -EBADMSG;
        }
        *ret_n_fds = n_fds;
        return n;
}

int socket_send_fd(int sock, int fd) {
        return socket_send_message(sock, "F", 1, &fd, 1);
}

int socket_recv_fd(int sock) {
        char byte;
        size_t n_fds = 0;
        int fd = -EBADF;
        ssize_t n = socket_recv_message(sock, &byte, 1, &fd, 1, &n_fds);

        if (n < 0)
                return (int) n == -EMSGSIZE ? -EBADMSG : (int) n;
        if (n_fds != 1) {
                safe_close(fd);
                return -EBADMSG;
        }
        return fd;
}

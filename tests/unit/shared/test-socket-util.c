/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>

#include "fixture.h"
#include "socket-util.h"
#include "util.h"

#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *) NULL)->sun_path)

/* A string of n copies of c (n < size of the caller's buffer). */
static char *repeat(char *buf, char c, size_t n) {
        memset(buf, c, n);
        buf[n] = 0;
        return buf;
}

static void test_set_path(void) {
        struct sockaddr_un sa;
        char name[256];

        TAP_EQ_INT(sockaddr_un_set_path(&sa, "/run/x.sock"), offsetof(struct sockaddr_un, sun_path) + 12,
                   "a path's address length counts its NUL");
        tap_ok(sa.sun_family == AF_UNIX && streq(sa.sun_path, "/run/x.sock"), "the path is copied as given");

        repeat(name, 'p', SUN_PATH_SIZE - 1);
        TAP_EQ_INT(sockaddr_un_set_path(&sa, name), sizeof sa, "a path that fills sun_path with its NUL fits");
        repeat(name, 'p', SUN_PATH_SIZE);
        TAP_EQ_INT(sockaddr_un_set_path(&sa, name), -ENAMETOOLONG,
                   "a path one byte too long for sun_path is refused, not truncated");

        TAP_EQ_INT(sockaddr_un_set_path(&sa, "@abs"), offsetof(struct sockaddr_un, sun_path) + 4,
                   "an abstract name's length is its bytes and the leading NUL, no trailing NUL");
        tap_ok(sa.sun_path[0] == 0 && memcmp(sa.sun_path + 1, "abs", 3) == 0, "an abstract name starts with a NUL");
        name[0] = '@';
        repeat(name + 1, 'a', SUN_PATH_SIZE - 1);
        TAP_EQ_INT(sockaddr_un_set_path(&sa, name), sizeof sa, "an abstract name may fill sun_path");
        repeat(name + 1, 'a', SUN_PATH_SIZE);
        TAP_EQ_INT(sockaddr_un_set_path(&sa, name), -ENAMETOOLONG, "an abstract name too long is refused");

        TAP_EQ_INT(sockaddr_un_set_path(&sa, ""), -EINVAL, "an empty path is refused");
        TAP_EQ_INT(sockaddr_un_set_path(&sa, "@"), -EINVAL, "an empty abstract name is refused");
}

static void test_listen_private(const char *dir) {
        _cleanup_free_ char *path = path_at(dir, "private.sock");
        _cleanup_close_ int fd = -EBADF, c = -EBADF;
        struct stat st;
        mode_t old;

        /* The widest umask a caller could have: the file is 0600 all the same. */
        old = umask(0);
        fd = socket_listen_private(path, SOCK_STREAM, 4);
        tap_ok(umask(old) == 0, "the caller's umask is given back");
        if (!tap_ok(fd >= 0, "a private listening socket is made")) {
                printf("#   socket_listen_private: %s\n", strerror(-fd));
                return;
        }
        tap_ok((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "the listening socket is O_CLOEXEC");
        if (!tap_ok(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode), "the socket file exists"))
                return;
        TAP_EQ_INT(st.st_mode & 07777, 0600, "the listening socket's file is 0600 under umask 0");
        c = socket_connect_at(AT_FDCWD, path, SOCK_STREAM);
        tap_ok(c >= 0, "the listening socket accepts a connection");
        TAP_EQ_INT(socket_listen_private(path, SOCK_STREAM, 4), -EADDRINUSE,
                   "a second listen on a taken path fails with -EADDRINUSE");
}

static void test_connect_at(const char *scratch) {
        _cleanup_free_ char *deep = NULL, *sock = NULL;
        _cleanup_close_ int dirfd = -EBADF, l = -EBADF, c = -EBADF;
        char seg[64], name[256];
        struct sockaddr_un sa;

        /* A directory whose path alone overflows sun_path: only the dir fd reaches it. */
        deep = strdup(scratch);
        if (!deep)
                die("strdup");
        repeat(seg, 'd', 60);
        while (strlen(deep) < SUN_PATH_SIZE + 10) {
                char *next = path_at(deep, seg);

                if (mkdir(next, 0700) < 0)
                        die("mkdir");
                free(deep);
                deep = next;
        }
        dirfd = open(deep, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                die("open");
        sock = path_at(deep, "s.sock");
        tap_ok(sockaddr_un_set_path(&sa, sock) == -ENAMETOOLONG, "the fixture's socket path is too long for sun_path");
        /* bind() resolves /proc/self/fd/N/ like connect(): made the same way. */
        {
                _cleanup_free_ char *via = strdup_printf("/proc/self/fd/%d/s.sock", dirfd);

                if (!via)
                        die("strdup_printf");
                l = socket_listen_private(via, SOCK_STREAM, 4);
        }
        if (!tap_ok(l >= 0, "a socket is bound in the deep directory"))
                return;

        c = socket_connect_at(dirfd, "s.sock", SOCK_STREAM);
        if (!tap_ok(c >= 0, "connect-at reaches a socket in a dir by its fd"))
                printf("#   socket_connect_at: %s\n", strerror(-c));
        tap_ok(c >= 0 && (fcntl(c, F_GETFD) & FD_CLOEXEC) != 0, "the connected socket is O_CLOEXEC");
        c = safe_close(c);

        c = socket_connect_at(dirfd, "s.sock", SOCK_STREAM | SOCK_NONBLOCK);
        tap_ok(c >= 0 && (fcntl(c, F_GETFL) & O_NONBLOCK) != 0, "connect-at keeps the type's SOCK_NONBLOCK");
        c = safe_close(c);

        TAP_EQ_INT(socket_connect_at(dirfd, "none.sock", SOCK_STREAM), -ENOENT,
                   "connect-at to a missing name fails with -ENOENT");
        repeat(name, 'n', SUN_PATH_SIZE);
        TAP_EQ_INT(socket_connect_at(dirfd, name, SOCK_STREAM), -ENAMETOOLONG,
                   "connect-at with a name that does not fit fails with -ENAMETOOLONG, not a shorter name");
}

/* Whether a and b are open on one inode (the fd handed over is the fd sent). */
static bool same_inode(int a, int b) {
        struct stat sa, sb;

        return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void test_fd_passing(void) {
        int sv[2], pair[2], got, two[2];
        char byte = 'x';

        if (!tap_ok(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0 &&
                            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0,
                    "a SOCK_SEQPACKET pair to hand fds over, and a stream pair to hand"))
                return;
        TAP_EQ_INT(socket_send_fd(sv[0], pair[1]), 0, "send-fd hands an fd over");
        got = socket_recv_fd(sv[1]);
        tap_ok(got >= 0 && got != pair[1] && same_inode(got, pair[1]), "recv-fd gets a new fd on the same socket");
        tap_ok(got >= 0 && (fcntl(got, F_GETFD) & FD_CLOEXEC) != 0, "... O_CLOEXEC");
        safe_close(got);

        /* A message that carries no fd, and one that carries two: refused, nothing left open of them. */
        TAP_EQ_INT((int) send(sv[0], &byte, 1, 0), 1, "a message without an fd is sent");
        TAP_EQ_INT(socket_recv_fd(sv[1]), -EBADMSG, "recv-fd of a message that carries no fd: -EBADMSG");
        {
                union {
                        struct cmsghdr h;
                        char buf[CMSG_SPACE(2 * sizeof(int))];
                } control = {};
                struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                                     .msg_controllen = sizeof control };
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                struct stat st;
                int before;

                two[0] = pair[0];
                two[1] = pair[1];
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof two);
                memcpy(CMSG_DATA(c), two, sizeof two);
                TAP_EQ_INT((int) sendmsg(sv[0], &mh, 0), 1, "a message with two fds is sent");
                before = fcntl(0, F_DUPFD_CLOEXEC, 0);  /* the lowest free fd now */
                safe_close(before);
                TAP_EQ_INT(socket_recv_fd(sv[1]), -EBADMSG, "recv-fd of a message with two fds: -EBADMSG");
                tap_ok(before >= 0 && fstat(before, &st) < 0 && errno == EBADF, "... and neither is left open");
        }

        safe_close(sv[0]);
        TAP_EQ_INT(socket_recv_fd(sv[1]), -EPIPE, "recv-fd once the sender's end is closed: -EPIPE");
        safe_close(sv[1]);
        safe_close(pair[0]);
        safe_close(pair[1]);
}

int main(void) {
        char scratch[256];

        scratch_dir_make(scratch, sizeof scratch, "test-socket-util");
        test_set_path();
        test_listen_private(scratch);
        test_connect_at(scratch);
        test_fd_passing();
        scratch_dir_remove(scratch);
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "journal-frame-request.h"
#include "socket-util.h"
#include "util.h"

static char tmpdir[] = "/tmp/botdesk-test-jfr.XXXXXX";
static int dirfd_ = -EBADF, lock_fd = -EBADF, journal_fd = -EBADF, frames_fd = -EBADF;

/* How many fds this process has open: a refused request keeps none. */
static int open_fds(void) {
        _cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        while (d && (de = readdir(d)))
                n += de->d_name[0] != '.';
        return n;
}

static struct journal_frame_request good(void) {
        return (struct journal_frame_request) {
                .seq = 42, .width = 640, .lock_fd = lock_fd, .journal_fd = journal_fd, .frames_fd = frames_fd,
        };
}

/* A raw datagram with these bytes and fds, as a confused or hostile sender would send it. */
static int send_raw(int sock, const void *data, size_t size, const int *fds, size_t n_fds) {
        struct iovec iov = { .iov_base = (void *) data, .iov_len = size };
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * 8)];
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (n_fds > 0) {
                struct cmsghdr *c;

                mh.msg_control = &control;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                c = CMSG_FIRSTHDR(&mh);
                if (!c)
                        return -EINVAL;
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        return sendmsg(sock, &mh, 0) < 0 ? -errno : 0;
}

int main(void) {
        _cleanup_close_ int sock = -EBADF, raw = -EBADF;
        struct journal_frame_request req = JOURNAL_FRAME_REQUEST_NULL, bad, ok_req;
        char path[256];
        struct stat st, st_req;
        int before, r;

        if (!mkdtemp(tmpdir))
                abort();
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        snprintf(path, sizeof path, "%s/%s", tmpdir, JOURNAL_FRAME_SOCKET);
        mkdirat(dirfd_, "journal", 0700);
        mkdirat(dirfd_, "journal/frames", 0700);
        lock_fd = openat(dirfd_, "lock", O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
        journal_fd = openat(dirfd_, "journal", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        frames_fd = openat(dirfd_, "journal/frames", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok_req = good();

        r = journal_frame_request_send(dirfd_, JOURNAL_FRAME_SOCKET, &ok_req);
        TAP_EQ_INT(r, -ENOENT, "no helper listening: -ENOENT, nothing sent");

        sock = socket_bind_private(path, SOCK_DGRAM | SOCK_NONBLOCK);
        tap_ok(sock >= 0, "the helper's end binds");
        tap_ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "... at mode 0600");
        TAP_EQ_INT(journal_frame_request_receive(sock, &req), -EAGAIN, "nothing queued: -EAGAIN");

        /* The lock held by the sender, handed over with the request. */
        tap_ok(flock(lock_fd, LOCK_EX | LOCK_NB) == 0, "the sender holds the frame lock");
        TAP_EQ_INT(journal_frame_request_send(dirfd_, JOURNAL_FRAME_SOCKET, &ok_req),
                   0, "a request is sent");
        TAP_EQ_INT(journal_frame_request_receive(sock, &req), 0, "... and received");
        tap_ok(req.seq == 42 && req.width == 640 && !req.before, "... with its values");
        tap_ok(fstat(req.lock_fd, &st_req) == 0 && fstat(lock_fd, &st) == 0 && st.st_ino == st_req.st_ino,
               "... and the sender's lock");
        tap_ok(fcntl(req.lock_fd, F_GETFD) == FD_CLOEXEC, "... its fds close-on-exec");
        safe_close(lock_fd);
        lock_fd = openat(dirfd_, "lock", O_RDONLY | O_CLOEXEC);
        ok_req = good();
        tap_ok(flock(lock_fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
               "the lock stays held while the receiver keeps it, the sender's fd closed");
        journal_frame_request_done(&req);
        tap_ok(flock(lock_fd, LOCK_EX | LOCK_NB) == 0, "... and is free once the receiver is done");
        (void) flock(lock_fd, LOCK_UN);

        /* The frame before. */
        bad = good();
        bad.before = true;
        TAP_EQ_INT(journal_frame_request_send(dirfd_, JOURNAL_FRAME_SOCKET, &bad), 0, "a request for the frame before");
        TAP_EQ_INT(journal_frame_request_receive(sock, &req), 0, "... is received");
        tap_ok(req.before && req.seq == 42, "... as the frame before entry 42");
        journal_frame_request_done(&req);

        /* Values out of range are refused before anything is sent. */
        bad = good();
        bad.seq = 0;
        TAP_EQ_INT(journal_frame_request_send(dirfd_, JOURNAL_FRAME_SOCKET, &bad), -EINVAL, "seq 0 is not sent");
        bad = good();
        bad.width = JOURNAL_FRAME_REQUEST_WIDTH_MAX + 1;
        TAP_EQ_INT(journal_frame_request_send(dirfd_, JOURNAL_FRAME_SOCKET, &bad), -EINVAL, "a width past the bound is not sent");

        /* What a receiver refuses, keeping no fd. */
        raw = socket_connect_at(dirfd_, JOURNAL_FRAME_SOCKET, SOCK_DGRAM);
        {
                struct {
                        uint32_t version, flags;
                        uint64_t seq;
                        uint32_t width, reserved;
                } w = { 1, 0, 7, 320, 0 };
                int three[3] = { lock_fd, journal_fd, frames_fd };
                int four[4] = { lock_fd, journal_fd, frames_fd, lock_fd };
                int swapped[3] = { journal_fd, lock_fd, frames_fd };
                const struct {
                        const char *name;
                        const void *data;
                        size_t size;
                        const int *fds;
                        size_t n_fds;
                        uint32_t version, flags, width;
                        uint64_t seq;
                } cases[] = {
                        { "a datagram without fds", &w, sizeof w, NULL, 0, 1, 0, 320, 7 },
                        { "a short datagram", &w, sizeof w - 4, three, 3, 1, 0, 320, 7 },
                        { "another version", &w, sizeof w, three, 3, 2, 0, 320, 7 },
                        { "an unknown flag", &w, sizeof w, three, 3, 1, 2, 320, 7 },
                        { "width 0", &w, sizeof w, three, 3, 1, 0, 0, 7 },
                        { "seq 0", &w, sizeof w, three, 3, 1, 0, 320, 0 },
                        { "two fds", &w, sizeof w, three, 2, 1, 0, 320, 7 },
                        { "four fds", &w, sizeof w, four, 4, 1, 0, 320, 7 },
                        { "a directory where the lock goes", &w, sizeof w, swapped, 3, 1, 0, 320, 7 },
                };

                for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                        w.version = cases[i].version;
                        w.flags = cases[i].flags;
                        w.width = cases[i].width;
                        w.seq = cases[i].seq;
                        before = open_fds();
                        r = send_raw(raw, cases[i].data, cases[i].size, cases[i].fds, cases[i].n_fds);
                        bad = JOURNAL_FRAME_REQUEST_NULL;
                        tap_ok(r == 0 && journal_frame_request_receive(sock, &bad) == -EBADMSG, "%s is refused",
                               cases[i].name);
                        TAP_EQ_INT(open_fds(), before, "... and leaves no fd open");
                }
        }
        TAP_EQ_INT(journal_frame_request_receive(sock, &req), -EAGAIN, "nothing else was queued");

        safe_close(lock_fd);
        safe_close(journal_fd);
        safe_close(frames_fd);
        (void) unlinkat(dirfd_, JOURNAL_FRAME_SOCKET, 0);
        (void) unlinkat(dirfd_, "lock", 0);
        (void) unlinkat(dirfd_, "journal/frames", AT_REMOVEDIR);
        (void) unlinkat(dirfd_, "journal", AT_REMOVEDIR);
        safe_close(dirfd_);
        (void) rmdir(tmpdir);
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The install's progress file (install-progress.h): written by botdesk
 * install record by record, followed by botdesk watch through inotify.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "install-progress.h"
#include "profile.h"
#include "util.h"

int install_progress_begin(void) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char tmp[NAME_MAX + 1];
        int r;

        dfd = paths_runtime_base_open(true, NULL);
        if (dfd < 0)
                return dfd;
        fd = open_temporary_at(dfd, INSTALL_PROGRESS_FILE, O_WRONLY | O_APPEND | O_NOCTTY, 0600, tmp);
        if (fd < 0)
                return fd;
        /* Locked before it has its name: no reader ever sees this install's
         * file unlocked while it runs, and takes it for a finished one. */
        if (flock(fd, LOCK_EX | LOCK_NB) < 0 || renameat(dfd, tmp, dfd, INSTALL_PROGRESS_FILE) < 0) {
                r = negative_errno();
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        return TAKE_FD(fd);
}

int install_progress_line(int fd, const char *s, size_t n) {
        char rec[INSTALL_PROGRESS_LINE_MAX + 3];

        if (n > INSTALL_PROGRESS_LINE_MAX)
                n = INSTALL_PROGRESS_LINE_MAX;
        /* One write a record: O_APPEND puts it whole after the last one. */
        rec[0] = '|';
        rec[1] = ' ';
        memcpy(rec + 2, s, n);
        rec[n + 2] = '\n';
        return write_all(fd, rec, n + 3);
}

int install_progress_done(int fd, int status) {
        char rec[32];
        int n = snprintf(rec, sizeof rec, "= %d\n", status);

        return write_all(fd, rec, (size_t) n);
}

void install_follow_init(struct install_follow *f, install_record_fn on_record, void *userdata) {
        *f = (struct install_follow) { .fd = -EBADF, .on_record = on_record, .userdata = userdata };
}

void install_follow_done(struct install_follow *f) {
        f->fd = safe_close(f->fd);
}

static void record(struct install_follow *f, char *rec) {
        const char *s;
        long long v;

        if ((s = startswith(rec, "| ")))
                f->on_record(s, false, 0, f->userdata);
        else if ((s = startswith(rec, "= ")) && parse_int(s, INT_MAX, &v) >= 0) {
                f->ended = true;
                f->on_record(NULL, true, (int) v, f->userdata);
        }
}

/* Every whole record appended since the last read; a partial one waits in buf for its end. */
static int follow_read(struct install_follow *f) {
        for (;;) {
                ssize_t n = read(f->fd, f->buf + f->len, sizeof f->buf - 1 - f->len);
                char *start = f->buf, *end, *nl;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? 0 : negative_errno();
                if (n == 0)
                        return 0;
                f->len += (size_t) n;
                end = f->buf + f->len;
                while ((nl = memchr(start, '\n', (size_t) (end - start)))) {
                        *nl = 0;
                        if (!f->skipping)
                                record(f, start);
                        f->skipping = false;
                        start = nl + 1;
                }
                f->len = (size_t) (end - start);
                memmove(f->buf, start, f->len);
                /* No record of ours is this long: the file was written by
                 * something else. What fits is taken, the rest dropped. */
                if (f->len == sizeof f->buf - 1) {
                        f->buf[f->len] = 0;
                        if (!f->skipping)
                                record(f, f->buf);
                        f->skipping = true;
                        f->len = 0;
                }
        }
}

/* Whether nobody holds fd's file locked: its install has ended, one way or another. */
static bool writer_gone(int fd) {
        if (flock(fd, LOCK_SH | LOCK_NB) < 0)
                return false;
        (void) flock(fd, LOCK_UN);
        return true;
}

/* Switch to the file under the name if it is another than the one followed. 1 when it did. */
static int follow_open(struct install_follow *f, int dirfd, bool at_start) {
        bool ended;
        struct stat st;
        int fd = open_regular_at(dirfd, INSTALL_PROGRESS_FILE, O_RDONLY, 0, &st);

        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        if (f->fd >= 0 && st.st_dev == f->dev && st.st_ino == f->ino) {
                safe_close(fd);
                return 0;
        }
        /* At the start, an install nobody holds ended (or died) before we
         * came: none of it is news. */
        ended = at_start && writer_gone(fd);
        if (ended && lseek(fd, 0, SEEK_END) < 0) {
                int r = negative_errno();
                safe_close(fd);
                return r;
        }
        safe_close(f->fd);
        f->fd = fd;
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->len = 0;
        f->skipping = false;
        f->ended = ended;
        return 1;
}

int install_follow_start(struct install_follow *f, int dirfd) {
        int r = follow_open(f, dirfd, true);

        return r <= 0 ? r : follow_read(f);
}

int install_follow_update(struct install_follow *f, int dirfd, bool look) {
        bool gone;
        int r;

        if (f->fd >= 0) {
                /* Asked before the read: an end record written just before
                 * the writer let go is read first, never taken for none. */
                gone = !f->ended && writer_gone(f->fd);
                r = follow_read(f);
                if (r < 0)
                        return r;
                if (gone && !f->ended) {
                        f->ended = true;
                        f->on_record(NULL, true, INSTALL_EXIT_UNKNOWN, f->userdata);
                }
        }
        if (!look)
                return 0;
        r = follow_open(f, dirfd, false);
        return r <= 0 ? r : follow_read(f);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reservation files of the logind tier (see reservation.h). Readers never
 * follow symlinks nor block on a FIFO planted in the directory.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "profile.h"
#include "reservation.h"
#include "util.h"

#define RESERVATION_MAX 256

void reservation_done(struct reservation *r) {
        if (!r)
                return;
        free(r->profile);
        *r = (struct reservation) { .uid = (uid_t) -1 };
}

void reservations_free(struct reservation *l, size_t n) {
        for (size_t i = 0; l && i < n; i++)
                reservation_done(&l[i]);
        free(l);
}

int reservation_create(const char *dir, unsigned n, pid_t pid, uid_t uid, const char *profile) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        char name[16];
        int r;

        if (!dir || pid <= 0 || !profile_name_valid(profile))
                return -EINVAL;

        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();

        text = strdup_printf("%d\nprofile=%s\nuid=%u\n", (int) pid, profile, (unsigned) uid);
        if (!text)
                return -ENOMEM;

        snprintf(name, sizeof name, "%u", n);
        fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0)
                return negative_errno();
        r = write_all(fd, text, strlen(text));
        if (r < 0) {
                /* A torn file would read as garbage, which alloc.c holds forever. */
                (void) unlinkat(dfd, name, 0);
                return r;
        }
        return 0;
}

static void parse_text(char *text, struct reservation *r) {
        unsigned long long v;
        char *line, *save = NULL;
        bool first = true;

        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), first = false) {
                const char *value;

                if (first) {
                        if (parse_uint(line, INT_MAX, &v) >= 0 && v > 0)
                                r->pid = (pid_t) v;
                } else if ((value = startswith(line, "profile="))) {
                        if (profile_name_valid(value) && !r->profile)
                                r->profile = strdup(value);
                } else if ((value = startswith(line, "uid="))) {
                        if (parse_uint(value, UINT_MAX - 1, &v) >= 0)
                                r->uid = (uid_t) v;
                }
        }
}

static int read_at(int dfd, const char *name, struct reservation *ret, struct stat *ret_st) {
        _cleanup_close_ int fd = -EBADF;
        char buf[RESERVATION_MAX + 1];
        struct stat st;
        ssize_t len;

        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;

        len = read_small(fd, buf, RESERVATION_MAX);
        if (len == -EFBIG)
                len = 0; /* longer than any reservation: not ours */
        else if (len < 0)
                return (int) len;
        buf[len] = '\0';
        if (memchr(buf, '\0', (size_t) len))
                len = 0, buf[0] = '\0'; /* not text: not ours */

        *ret = (struct reservation) { .uid = (uid_t) -1 };
        parse_text(buf, ret);
        if (ret_st)
                *ret_st = st;
        return 0;
}

static int display_from_name(const char *name, unsigned *ret) {
        unsigned long long v;

        /* Only the canonical spelling alloc.c writes: "20", never "020". */
        if (name[0] == '0' && name[1])
                return -EINVAL;
        if (parse_uint(name, 65535, &v) < 0)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

int reservation_read(const char *dir, unsigned n, struct reservation *ret) {
        _cleanup_close_ int dfd = -EBADF;
        char name[16];
        int r;

        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        snprintf(name, sizeof name, "%u", n);
        r = read_at(dfd, name, ret, NULL);
        if (r < 0)
                return r;
        ret->display = n;
        return 0;
}

static int compare_display(const void *a, const void *b) {
        const struct reservation *x = a, *y = b;

        return x->display < y->display ? -1 : x->display > y->display;
}

int reservation_list(const char *dir, struct reservation **ret, size_t *ret_n) {
        _cleanup_closedir_ DIR *d = NULL;
        struct reservation *l = NULL;
        size_t n = 0;
        struct dirent *de;

        *ret = NULL;
        *ret_n = 0;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();

        while ((errno = 0, de = readdir(d))) {
                struct reservation r;
                unsigned display;
                struct reservation *grown;

                if (display_from_name(de->d_name, &display) < 0)
                        continue;
                if (read_at(dirfd(d), de->d_name, &r, NULL) < 0)
                        continue; /* vanished, or not a file: alloc.c holds it, we leave it */
                r.display = display;

                grown = reallocarray(l, n + 1, sizeof *l);
                if (!grown) {
                        reservation_done(&r);
                        reservations_free(l, n);
                        return -ENOMEM;
                }
                l = grown;
                l[n++] = r;
        }
        if (errno > 0) {
                int k = -errno;

                reservations_free(l, n);
                return k;
        }
        if (n > 1)
                qsort(l, n, sizeof *l, compare_display);
        *ret = l;
        *ret_n = n;
        return 0;
}

int reservation_remove(const char *dir, const struct reservation *r) {
        _cleanup_close_ int dfd = -EBADF;
        struct reservation now = { .uid = (uid_t) -1 };
        struct stat st, again;
        char name[16];
        bool same;
        int k;

        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        snprintf(name, sizeof name, "%u", r->display);
        k = read_at(dfd, name, &now, &st);
        if (k == -ENOENT)
                return 0;
        if (k < 0)
                return k;
        same = streq_ptr(now.profile, r->profile) && now.pid == r->pid && now.uid == r->uid;
        reservation_done(&now);
        if (!same)
                return 0;

        /* Unlink only the file we read, not one that replaced it meanwhile. */
        if (fstatat(dfd, name, &again, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
                return 0;
        if (unlinkat(dfd, name, 0) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        return 1;
}

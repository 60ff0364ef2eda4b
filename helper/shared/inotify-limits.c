/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "inotify-limits.h"
#include "util.h"

static long long read_number(const char *proc_root, const char *name) {
        _cleanup_free_ char *path = strdup_printf("%s/sys/fs/inotify/%s", proc_root, name), *text = NULL;
        unsigned long long v;

        if (!path || read_full_file(path, &text, NULL, 64) < 0)
                return -1;
        text[strcspn(text, "\n")] = 0;
        return parse_uint(text, LLONG_MAX, &v) >= 0 ? (long long) v : -1;
}

static long long count_in(int proc_fd, const char *pid) {
        _cleanup_free_ char *fddir = strdup_printf("%s/fd", pid);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        long long n = 0;

        if (!fddir || dir_open_at(proc_fd, fddir, &d) < 0)
                return 0;
        while ((de = readdir(d))) {
                char target[64];
                ssize_t l;

                if (de->d_name[0] == '.')
                        continue;
                l = readlinkat(dirfd(d), de->d_name, target, sizeof target - 1);
                if (l <= 0)
                        continue;
                target[l] = 0;
                n += streq(target, "anon_inode:inotify");
        }
        return n;
}

int inotify_limits_read(const char *proc_root, uid_t uid, struct inotify_limits *ret) {
        _cleanup_close_ int proc_fd = -EBADF;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        long long used = 0;

        *ret = (struct inotify_limits) {
                .max_user_instances = read_number(proc_root, "max_user_instances"),
                .max_user_watches = read_number(proc_root, "max_user_watches"),
                .instances_used = -1,
        };
        proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (proc_fd < 0)
                return negative_errno();
        d = opendir(proc_root);
        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                unsigned long long v;
                struct stat st;

                if (parse_uint(de->d_name, INT32_MAX, &v) < 0)
                        continue;
                /* The limit counts instances by the owner of the process. */
                if (fstatat(proc_fd, de->d_name, &st, 0) < 0 || st.st_uid != uid)
                        continue;
                used += count_in(proc_fd, de->d_name);
        }
        ret->instances_used = used;
        return 0;
}

long long inotify_instances_needed(unsigned desktops) {
        return (long long) desktops * INOTIFY_PER_DESKTOP + INOTIFY_USER_MARGIN;
}

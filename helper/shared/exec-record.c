/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk exec's records (exec-record.h): a directory of empty files named
 * PID.STARTTIME, made O_EXCL, read back with the start time checked
 * through a pidfd before the signal (pid-signal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec-record.h"
#include "pid-signal.h"
#include "procfs.h"
#include "util.h"

int exec_record_add(int runtime_fd, pid_t pid) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        unsigned long long start;
        char name[64];
        int r;

        r = pid_starttime(pid, &start);
        if (r < 0)
                return r;
        if (mkdirat(runtime_fd, EXEC_RECORD_DIR, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        dirfd = openat(runtime_fd, EXEC_RECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dirfd < 0)
                return negative_errno();
        snprintf(name, sizeof name, "%d.%llu", (int) pid, start);
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        return fd < 0 && errno != EEXIST ? negative_errno() : 0;
}

static bool same_start(pid_t pid, void *userdata) {
        unsigned long long start;

        return pid_starttime(pid, &start) >= 0 && start == *(const unsigned long long *) userdata;
}

int exec_record_kill_all(int runtime_fd) {
        _cleanup_close_ int fd = -EBADF;
        struct dirent *de;
        int n = 0;
        DIR *d;

        fd = openat(runtime_fd, EXEC_RECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        fd = -EBADF;            /* the stream's now */
        while ((de = readdir(d))) {
                unsigned long long pid, start;
                char *dot = strchr(de->d_name, '.');

                if (de->d_name[0] == '.')
                        continue;
                (void) unlinkat(dirfd(d), de->d_name, 0);
                if (!dot)
                        continue;
                *dot = '\0';
                if (parse_uint(de->d_name, INT32_MAX, &pid) < 0 || pid < 2 || parse_uint(dot + 1, UINT64_MAX, &start) < 0)
                        continue;
                /* The group it leads, leader included, while the leader still proves whose the group is;
                 * else the process alone, through a pidfd. */
                if (getpgid((pid_t) pid) == (pid_t) pid && same_start((pid_t) pid, &start) &&
                    kill(-(pid_t) pid, SIGKILL) == 0)
                        n++;
                else if (pid_signal_checked((pid_t) pid, SIGKILL, same_start, &start) > 0)
                        n++;
        }
        closedir(d);
        (void) unlinkat(runtime_fd, EXEC_RECORD_DIR, AT_REMOVEDIR);
        return n;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <sys/pidfd.h>

#include "cgroup.h"
#include "pid-signal.h"
#include "util.h"

int pid_signal_checked(pid_t pid, int sig, pid_check_t check, void *userdata) {
        _cleanup_close_ int fd = -EBADF;

        if (pid <= 0 || !check)
                return -EINVAL;
        fd = pidfd_open(pid, 0);
        if (fd < 0 && errno == ENOSYS) {
                /* No pidfds (a kernel before 5.3, or valgrind, which does
                 * not know the call): check and kill() as before, racy. */
                if (!check(pid, userdata))
                        return 0;
                if (kill(pid, sig) < 0)
                        return errno == ESRCH ? 0 : negative_errno();
                return 1;
        }
        if (fd < 0)
                return errno == ESRCH ? 0 : negative_errno();
        /* pidfd_open sets O_CLOEXEC itself; the check runs only now, on
         * whatever /proc/PID is once the process is pinned. */
        if (!check(pid, userdata))
                return 0;
        if (pidfd_send_signal(fd, sig, NULL, 0) < 0)
                return errno == ESRCH ? 0 : negative_errno();
        return 1;
}

bool pid_check_in_cgroup(pid_t pid, void *userdata) {
        const char *cg = userdata;
        _cleanup_free_ char *mount = NULL, *own = NULL;
        const char *rel;
        size_t l;

        if (!cg || cgroup_v2_mount(&mount) < 0 || cgroup_path_of(pid, &own) < 0)
                return false;
        rel = startswith(cg, mount);
        if (!rel || rel[0] != '/')
                return false;
        l = strlen(rel);
        return strncmp(own, rel, l) == 0 && (own[l] == '\0' || own[l] == '/');
}

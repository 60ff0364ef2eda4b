/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "procfs.h"
#include "util.h"

bool pid_alive(const char *proc_root, pid_t pid) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char buf[4096];
        const char *p;
        ssize_t len;

        if (pid <= 0)
                return false;
        if (!proc_root)
                proc_root = "/proc";

        path = strdup_printf("%s/%d/stat", proc_root, (int) pid);
        if (!path)
                return true; /* cannot tell: assume alive */

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno != ENOENT && errno != ESRCH)
                        return true;
                /* With hidepid= another user's processes vanish from /proc;
                 * the real pid space still knows them (EPERM = exists). */
                if (streq(proc_root, "/proc"))
                        return kill(pid, 0) == 0 || errno == EPERM;
                return false;
        }

        len = read_small(fd, buf, sizeof(buf) - 1);
        if (len == -EFBIG)
                len = sizeof(buf) - 1;
        if (len < 0)
                return len == -ESRCH ? false : true;
        buf[len] = '\0';

        /* comm may contain spaces and ')' itself, so the state is found after
         * the last ')'. Nothing after comm can contain one. */
        p = strrchr(buf, ')');
        if (!p || p[1] != ' ')
                return true;
        return p[2] != 'Z' && p[2] != 'X' && p[2] != 'x';
}

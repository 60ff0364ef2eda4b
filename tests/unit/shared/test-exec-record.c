/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk exec's records (exec-record.h): a recorded process is killed by
 * the desktop's stop, and its group with it; a record whose start time is
 * not the process's (its pid reused since) signals nothing; the records
 * are gone afterwards.
 */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec-record.h"
#include "util.h"

/* A child that waits to be killed, in group (0: its parent's; else that group, -1: its own). */
static pid_t child(pid_t group) {
        pid_t pid = fork();

        if (pid == 0) {
                for (;;)
                        pause();
        }
        /* From the parent: the group is set before anything looks at it. */
        if (pid > 0 && group != 0)
                (void) setpgid(pid, group < 0 ? pid : group);
        return pid;
}

/* How pid ended (its signal), waited for at most 5 s: -1 when it still runs (then killed). */
static int end_of(pid_t pid) {
        int status = 0;

        for (int i = 0; i < 500; i++) {
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
                if (r < 0)
                        return -1;
                usleep(10 * 1000);
        }
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
        return -1;
}

int main(void) {
        char tmpl[] = "/tmp/test-exec-record.XXXXXX";
        _cleanup_close_ int dirfd = -EBADF;
        pid_t a, b, grandchild;
        char name[64];
        int fd;

        if (!mkdtemp(tmpl))
                return 1;
        dirfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        TAP_EQ_INT(exec_record_kill_all(dirfd), -ENOENT, "nothing recorded: -ENOENT, nothing signalled");

        a = child(-1);
        TAP_EQ_INT(exec_record_add(dirfd, a), 0, "a process is recorded");
        TAP_EQ_INT(exec_record_add(dirfd, a), 0, "... twice is the same record");
        /* A member of a's group that is not recorded itself. */
        grandchild = child(a);
        b = child(0);
        /* b's record with a start time that is not its own: as if b's pid had been reused. */
        if (mkdirat(dirfd, EXEC_RECORD_DIR, 0700) < 0 && errno != EEXIST)
                return 1;
        snprintf(name, sizeof name, EXEC_RECORD_DIR "/%d.%d", (int) b, 1);
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
                close(fd);

        TAP_EQ_INT(exec_record_kill_all(dirfd), 1, "the stop signals the one process that is still the one recorded");
        TAP_EQ_INT(end_of(a), SIGKILL, "... which dies of SIGKILL");
        TAP_EQ_INT(end_of(grandchild), SIGKILL, "... and so does the group it leads");
        tap_ok(kill(b, 0) == 0, "the process whose record names another start time is left alone");
        tap_ok(faccessat(dirfd, EXEC_RECORD_DIR, F_OK, 0) < 0 && errno == ENOENT, "the records are gone");
        (void) kill(b, SIGKILL);
        (void) end_of(b);
        (void) rmdir(tmpl);
        return tap_done();
}

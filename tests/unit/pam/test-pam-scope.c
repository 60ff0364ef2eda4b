/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wait for a scope to empty, on a fixture cgroup dir of live children. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pam-botdesk.h"
#include "tap.h"
#include "util.h"

#define N_CHILDREN (SCOPE_WAIT_PIDFDS_MAX + 40)

static pid_t children[N_CHILDREN];

static void write_procs(const char *dir, size_t first, size_t n) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        f = fopen(path, "we");
        if (!f) {
                printf("Bail out! cannot write %s\n", path);
                exit(1);
        }
        for (size_t i = first; i < first + n; i++)
                fprintf(f, "%d\n", (int) children[i]);
        fclose(f);
}

int main(void) {
        char dir[] = "/tmp/botdesk-scope-test.XXXXXX";
        char path[4096];
        pid_t killer;
        int r;

        if (!mkdtemp(dir)) {
                printf("Bail out! mkdtemp\n");
                return 1;
        }
        for (size_t i = 0; i < N_CHILDREN; i++) {
                children[i] = fork();
                if (children[i] == 0) {
                        pause();
                        _exit(0);
                }
        }

        write_procs(dir, 0, N_CHILDREN);
        /* The first SCOPE_WAIT_PIDFDS_MAX exit while the wait runs; the rest live on. */
        killer = fork();
        if (killer == 0) {
                usleep(200 * 1000);
                for (size_t i = 0; i < SCOPE_WAIT_PIDFDS_MAX; i++)
                        kill(children[i], SIGKILL);
                _exit(0);
        }
        r = scope_wait_others(dir, 1500 * 1000ULL);
        TAP_EQ_INT(r, -ETIMEDOUT, "with more processes than it watches at once, the wait does not call the scope "
                                  "empty while the unwatched ones live");
        (void) waitpid(killer, NULL, 0);
        for (size_t i = 0; i < SCOPE_WAIT_PIDFDS_MAX; i++)
                (void) waitpid(children[i], NULL, 0);

        /* Only the survivors listed now; they exit during the wait. */
        write_procs(dir, SCOPE_WAIT_PIDFDS_MAX, N_CHILDREN - SCOPE_WAIT_PIDFDS_MAX);
        killer = fork();
        if (killer == 0) {
                usleep(100 * 1000);
                for (size_t i = SCOPE_WAIT_PIDFDS_MAX; i < N_CHILDREN; i++)
                        kill(children[i], SIGKILL);
                _exit(0);
        }
        r = scope_wait_others(dir, 5 * 1000 * 1000ULL);
        int probe = pidfd_open(getpid(), 0);
        if (probe < 0 && errno == ENOSYS)
                /* valgrind 3.19 (the unit tier's valgrind stage) does not know
                 * pidfd_open, and without it every process counts as alive. */
                tap_skip_host("once every listed process has exited, the wait returns 0 # SKIP no pidfd_open here");
        else
                TAP_EQ_INT(r, 0, "once every listed process has exited, the wait returns 0");
        if (probe >= 0)
                close(probe);
        (void) waitpid(killer, NULL, 0);
        for (size_t i = SCOPE_WAIT_PIDFDS_MAX; i < N_CHILDREN; i++)
                (void) waitpid(children[i], NULL, 0);

        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        (void) !write(fd, "12x\n", 4);
        close(fd);
        TAP_EQ_INT(scope_wait_others(dir, 1000), -EBADMSG, "a cgroup.procs line that is not a pid is refused");

        unlink(path);
        rmdir(dir);
        return tap_done();
}

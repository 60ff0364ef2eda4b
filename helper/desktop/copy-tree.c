/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child-deadline.h"
#include "copy-tree.h"
#include "find-executable.h"
#include "spawn.h"
#include "util.h"

#define COPY_TIMEOUT_USEC (300 * 1000000ULL)
#define COPY_GRACE_USEC (2 * 1000000ULL)

static int spawn_cp(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata) {
        struct spawn_opts o = SPAWN_OPTS_INIT;
        extern char **environ;

        o.argv = userdata;
        o.envp = environ;
        o.stdout_fd = stdout_fd;
        o.stderr_fd = stderr_fd;
        o.new_session = true;
        o.pdeathsig = true;
        return spawn(&o, ret_pid);
}

static void on_output(enum child_stream stream, const char *buf, size_t n, void *userdata) {
        fprintf(stderr, "%.*s", (int) n, buf);
}

int copy_dirs(const char *from, const char *to, const char *const *names) {
        for (const char *const *n = names; *n; n++) {
                _cleanup_free_ char *src = strdup_printf("%s/%s", from, *n), *dst = strdup_printf("%s/%s", to, *n);
                int r;

                if (!src || !dst)
                        return -ENOMEM;
                if (access(src, F_OK) < 0 || access(dst, F_OK) >= 0)
                        continue;
                r = copy_tree(src, dst);
                if (r < 0) {
                        fprintf(stderr, "Cannot copy %s to %s: %s\n", src, dst, strerror(-r));
                        return r;
                }
        }
        return 0;
}

int copy_tree(const char *from, const char *to) {
        const struct child_deadline d = CHILD_DEADLINE_MERGED(COPY_TIMEOUT_USEC, COPY_GRACE_USEC, on_output, NULL);
        _cleanup_free_ char *cp = NULL;
        struct child_deadline_result res;
        int r;

        r = find_executable("cp", getenv("PATH") ?: "/usr/bin:/bin", &cp);
        if (r < 0)
                return r;
        char *argv[] = { cp, (char *) "-a", (char *) "--reflink=auto", (char *) "--no-target-directory", (char *) "--",
                         (char *) from, (char *) to, NULL };
        r = child_deadline_run(&d, spawn_cp, argv, &res);
        if (r < 0)
                return r;
        return res.status == 0 ? 0 : -EIO;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "exec-tree.h"
#include "log.h"
#include "procfs.h"
#include "published-env.h"
#include "util.h"

/* Whether pid is pid 1 of its own PID namespace: the last NSpid field of its status is 1. */
static bool ns_init(pid_t pid) {
        _cleanup_free_ char *status = NULL;
        char path[64];
        const char *l;

        (void) snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        if (read_full_file_at(AT_FDCWD, path, &status, NULL, 64 * 1024) < 0 || !(l = strstr(status, "\nNSpid:")))
                return false;
        l += strlen("\nNSpid:");
        l += strcspn(l, "\n");
        while (l > status && (l[-1] == ' ' || l[-1] == '\t'))
                l--;
        return l - status >= 2 && l[-1] == '1' && (l[-2] == ' ' || l[-2] == '\t');
}

int exec_tree_init(pid_t helper, pid_t *ret_init, bool *ret_moved) {
        _cleanup_closedir_ DIR *d = NULL;
        char path[64];
        ino_t ours;
        int r;

        r = pid_namespace(getpid(), "pid", &ours);
        if (r < 0)
                return r;
        (void) snprintf(path, sizeof path, "/proc/%d/task", (int) helper);
        d = opendir(path);
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_free_ char *children = NULL, *name = NULL;
                const char *p;

                if (de->d_name[0] == '.')
                        continue;
                name = strdup_printf("/proc/%d/task/%s/children", (int) helper, de->d_name);
                if (!name)
                        return -ENOMEM;
                if (read_full_file_at(AT_FDCWD, name, &children, NULL, 64 * 1024) < 0)
                        continue;
                for (p = children; *p;) {
                        unsigned long long pid;
                        size_t n = strcspn(p, " \n");
                        char word[24];
                        ino_t ns;

                        if (n > 0 && n < sizeof word) {
                                memcpy(word, p, n);
                                word[n] = 0;
                                if (parse_uint(word, INT_MAX, &pid) >= 0 &&
                                    pid_namespace((pid_t) pid, "pid", &ns) >= 0 && ns != ours && ns_init((pid_t) pid)) {
                                        ino_t our_mnt, their_mnt;

                                        r = pid_namespace(getpid(), "mnt", &our_mnt);
                                        if (r >= 0)
                                                r = pid_namespace((pid_t) pid, "mnt", &their_mnt);
                                        if (r < 0)
                                                return r;
                                        *ret_init = (pid_t) pid;
                                        *ret_moved = our_mnt != their_mnt;
                                        return 1;
                                }
                        }
                        p += n;
                        p += strspn(p, " \n");
                }
        }
        return 0;
}

/* A child's failure: errno on the report pipe for our process to say, and out with code. */
_noreturn_ static void report_exit(int report, int code) {
        int e = errno;

        (void) !write(report, &e, sizeof e);
        _exit(code);
}

/* In the grandchild: stdio /dev/null, a session of its own, then cmd; errno to report on failure. */
_noreturn_ static void run(char **cmd, char **env, int report) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);

        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
            dup2(null, STDERR_FILENO) < 0 || setsid() < 0)
                report_exit(report, EXIT_FAILED);
        execvpe(cmd[0], cmd, env);
        report_exit(report, EXIT_CANNOT_EXECUTE);
}

/* The CLONE_NEW* flags of init's namespaces that are not ours (but PID, which is never). */
static int namespaces_apart(pid_t init) {
        static const struct {
                const char *kind;
                int flag;
        } kinds[] = {
                { "ipc", CLONE_NEWIPC },   { "mnt", CLONE_NEWNS },   { "time", CLONE_NEWTIME },
                { "uts", CLONE_NEWUTS },   { "net", CLONE_NEWNET },  { "cgroup", CLONE_NEWCGROUP },
        };
        int flags = 0;

        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                ino_t ours, theirs;

                if (pid_namespace(getpid(), kinds[i].kind, &ours) >= 0 &&
                    pid_namespace(init, kinds[i].kind, &theirs) >= 0 && ours != theirs)
                        flags |= kinds[i].flag;
        }
        return flags;
}

/* A moved tree's view of the desktop (published-env.h) over env: what the command sees there. */
static int tree_view(int dirfd, const char *profile, char ***env) {
        _cleanup_strv_free_ char **view = NULL;
        _cleanup_free_ char *bad = NULL;
        int r;

        r = published_env_read_file_at(dirfd, PUBLISHED_TREE_ENV_FILE, &view, &bad);
        if (r == -EBADMSG)
                return log_error("Desktop %s's %s has a value its helper does not write (%s); not used.", profile,
                                 PUBLISHED_TREE_ENV_FILE, bad ? bad : "a line that does not parse"), EXIT_FAILED;
        if (r < 0)
                return log_error_errno(r, "Cannot read the environment of desktop %s's restored tree: %m", profile),
                       EXIT_FAILED;
        for (char **e = view; e && *e; e++) {
                size_t k = strcspn(*e, "=");
                _cleanup_free_ char *key = strndup(*e, k);

                if (!key || env_set(env, key, *e + k + 1) < 0)
                        return log_oom(), EXIT_FAILED;
        }
        return EXIT_OK;
}

/* Our child: every namespace of the tree's that is not ours entered at once (CRIU restores no process whose
 * namespaces are not its parent's): its PID namespace (for our children, as its time namespace, which a
 * restored tree has of its own), its IPC namespace, and a moved tree's mount namespace, whose root and
 * directory become ours ("/" then: ours may be none of its). Then the child that starts cmd and leaves
 * it, an orphan of the tree's PID namespace, to its init. */
_noreturn_ static void enter_and_start(int pidfd, pid_t init, bool moved, char **cmd, char **env, int report) {
        pid_t middle;
        int status;

        if (setns(pidfd, CLONE_NEWPID | namespaces_apart(init)) < 0 || (moved && chdir("/") < 0))
                report_exit(report, EXIT_FAILED);
        middle = fork();
        if (middle < 0)
                report_exit(report, EXIT_FAILED);
        if (middle == 0) {
                pid_t g = fork();

                if (g < 0)
                        report_exit(report, EXIT_FAILED);
                if (g == 0)
                        run(cmd, env, report);
                _exit(EXIT_OK);
        }
        while (waitpid(middle, &status, 0) < 0 && errno == EINTR)
                ;
        _exit(EXIT_OK);
}

int exec_tree_run(pid_t init, bool moved, int dirfd, const char *profile, char **cmd, char ***env) {
        _cleanup_close_ int pidfd = pidfd_open(init, 0);
        _cleanup_close_ int report_r = -EBADF, report_w = -EBADF;
        int report[2], status = 0, e = 0;
        ssize_t n;
        pid_t child;

        if (pidfd < 0)
                return log_error_errno(errno, "Cannot reach the tree of desktop %s: %m", profile), EXIT_FAILED;
        if (pipe2(report, O_CLOEXEC) < 0)
                return log_error_errno(errno, "Cannot make a pipe: %m"), EXIT_FAILED;
        report_r = report[0];
        report_w = report[1];
        if (moved) {
                int k = tree_view(dirfd, profile, env);

                if (k != EXIT_OK)
                        return k;
        }
        /* A child of ours enters the tree's namespaces, not we: what runs at our exit (a sanitizer's leak
         * check clones a tracer) would be born there. */
        child = fork();
        if (child < 0)
                return log_error_errno(errno, "Cannot fork: %m"), EXIT_FAILED;
        if (child == 0)
                enter_and_start(pidfd, init, moved, cmd, *env, report_w);
        report_w = safe_close(report_w);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        /* Its end of the pipe closes on exec: nothing read is a command that runs. */
        do
                n = read(report_r, &e, sizeof e);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t) sizeof e) {
                errno = e;
                log_error_errno(e, "Cannot start %s in desktop %s: %m", cmd[0], profile);
                return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
        }
        log_info("%s runs in desktop %s, inside its tree (it goes with the desktop into a hibernate or snapshot; "
                 "its output is not kept).", cmd[0], profile);
        return EXIT_OK;
}

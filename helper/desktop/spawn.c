/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "spawn.h"
#include "util.h"

static _noreturn_ void child_fail(int pipe_fd, int error) {
        /* Tell the parent why; it reads a single int. */
        (void) !write(pipe_fd, &error, sizeof error);
        _exit(127);
}

static int child_dup_stdio(int fd, int target) {
        if (fd < 0 || fd == target)
                return 0;
        return dup2(fd, target) < 0 ? negative_errno() : 0;
}

static _noreturn_ void child_run(const struct spawn_opts *o, int pipe_fd, pid_t parent) {
        sigset_t all;
        int r;

        /* The parent blocks signals for its signalfd/sd-event; exec keeps the
         * mask and ignored dispositions, so reset both for the child. */
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        for (int sig = 1; sig < _NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        if (o->ignore_sigusr1)
                (void) signal(SIGUSR1, SIG_IGN);

        if (o->pdeathsig) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        child_fail(pipe_fd, errno);
                /* The parent may have died before the prctl. */
                if (getppid() != parent)
                        _exit(1);
        }
        if (o->new_session && setsid() < 0)
                child_fail(pipe_fd, errno);
        if (o->cgroup) {
                char procs[4096];

                snprintf(procs, sizeof procs, "%s/cgroup.procs", o->cgroup);
                int fd = open(procs, O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                        child_fail(pipe_fd, errno);
                close(fd);
        }

        if (o->stdin_fd < 0) {
                int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        child_fail(pipe_fd, errno);
                if (dup2(fd, 0) < 0)
                        child_fail(pipe_fd, errno);
        } else if ((r = child_dup_stdio(o->stdin_fd, 0)) < 0)
                child_fail(pipe_fd, -r);
        if ((r = child_dup_stdio(o->stdout_fd, 1)) < 0 || (r = child_dup_stdio(o->stderr_fd, 2)) < 0)
                child_fail(pipe_fd, -r);

        /* Everything above stdio closes at exec (the error pipe too, which
         * is how the parent learns that exec succeeded), except keep_fd. */
        (void) syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
        if (o->keep_fd >= 0) {
                int flags = fcntl(o->keep_fd, F_GETFD);
                if (flags < 0 || fcntl(o->keep_fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                        child_fail(pipe_fd, errno);
        }
        if (o->pipe_fds[0] >= 0 && o->pipe_fds[1] >= 0) {
                /* Out of the way of 3 and 4 first: either may already be one
                 * of the targets, and so may the error pipe. */
                int a = fcntl(o->pipe_fds[0], F_DUPFD_CLOEXEC, 5);
                int b = fcntl(o->pipe_fds[1], F_DUPFD_CLOEXEC, 5);
                int e = fcntl(pipe_fd, F_DUPFD_CLOEXEC, 5);

                if (a < 0 || b < 0 || e < 0)
                        child_fail(pipe_fd, errno);
                pipe_fd = e;
                if (dup2(a, 3) < 0 || dup2(b, 4) < 0)
                        child_fail(pipe_fd, errno);
        }
        if (o->cwd && chdir(o->cwd) < 0)
                child_fail(pipe_fd, errno);

        execve(o->argv[0], o->argv, o->envp);
        child_fail(pipe_fd, errno);
}

int spawn(const struct spawn_opts *o, pid_t *ret_pid) {
        int pipefd[2];
        pid_t parent = getpid(), pid;
        int error = 0;
        ssize_t n;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        /* The error pipe must not collide with the fd we keep. */
        if (pipefd[1] == o->keep_fd) {
                int copy = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 3);
                close(pipefd[1]);
                pipefd[1] = copy;
        }
        pid = fork();
        if (pid < 0) {
                int e = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                return e;
        }
        if (pid == 0) {
                close(pipefd[0]);
                child_run(o, pipefd[1], parent);
        }
        close(pipefd[1]);
        do
                n = read(pipefd[0], &error, sizeof error);
        while (n < 0 && errno == EINTR);
        close(pipefd[0]);
        if (n == sizeof error) {
                /* The child failed before exec: reap it here. */
                (void) waitpid(pid, NULL, 0);
                return -error;
        }
        *ret_pid = pid;
        return 0;
}

int env_set(char ***env, const char *key, const char *value) {
        size_t kl = strlen(key);
        char *entry = strdup_printf("%s=%s", key, value);

        if (!entry)
                return -ENOMEM;
        for (char **i = *env; i && *i; i++)
                if (strncmp(*i, key, kl) == 0 && (*i)[kl] == '=') {
                        free(*i);
                        *i = entry;
                        return 0;
                }
        return strv_push(env, entry);
}

static bool env_passes(const char *entry) {
        static const char *const keep[] = {
                "PATH=", "HOME=", "USER=", "LOGNAME=", "SHELL=", "LANG=", "LANGUAGE=", "TZ=", "XDG_RUNTIME_DIR=",
        };

        for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                if (startswith(entry, keep[i]))
                        return true;
        return startswith(entry, "LC_") != NULL;
}

int env_build_clean(char *const *caller, char *const *extra, char ***ret) {
        _cleanup_strv_free_ char **env = NULL;
        int r;

        for (char *const *i = caller; i && *i; i++) {
                if (!env_passes(*i))
                        continue;
                r = strv_push(&env, strdup(*i));
                if (r < 0)
                        return r;
        }
        if (!strv_env_get(env, "PATH")) {
                r = strv_push(&env, strdup("PATH=/usr/local/bin:/usr/bin:/bin"));
                if (r < 0)
                        return r;
        }
        for (char *const *i = extra; i && *i; i++) {
                _cleanup_free_ char *key = strndup(*i, strcspn(*i, "="));
                const char *eq = strchr(*i, '=');

                if (!key)
                        return -ENOMEM;
                if (!eq)
                        return -EINVAL;
                r = env_set(&env, key, eq + 1);
                if (r < 0)
                        return r;
        }
        if (!env) {
                env = calloc(1, sizeof(char *));
                if (!env)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(env);
        return 0;
}

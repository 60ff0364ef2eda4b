/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
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

/* fd onto target, inherited across exec. An fd that already is its target
 * (the caller's stdin left in place, or /dev/null opened onto a closed fd 0)
 * keeps its O_CLOEXEC through dup2, so that flag is cleared by hand. */
static int child_dup_stdio(int fd, int target) {
        if (fd < 0)
                return 0;
        if (fd == target) {
                int flags = fcntl(fd, F_GETFD);
                if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                        return negative_errno();
                return 0;
        }
        return dup2(fd, target) < 0 ? negative_errno() : 0;
}

int fds_cloexec_listed(int first) {
        /* getdents64 into a stack buffer: this runs between fork and exec,
         * where malloc is best avoided. */
        char buf[4096];
        int dfd;
        long n;

        dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
                for (long off = 0; off < n;) {
                        struct { unsigned long long ino; long long off; unsigned short reclen;
                                 unsigned char type; char name[]; } *d = (void *) (buf + off);
                        unsigned long long v;

                        off += d->reclen;
                        if (parse_uint(d->name, INT_MAX, &v) < 0 || (int) v < first || (int) v == dfd)
                                continue;
                        int flags = fcntl((int) v, F_GETFD);
                        if (flags >= 0)
                                (void) fcntl((int) v, F_SETFD, flags | FD_CLOEXEC);
                }
        }
        close(dfd);
        return n < 0 ? -EIO : 0;
}

int fds_cloexec_from(int first) {
        /* close_range(CLOSE_RANGE_CLOEXEC) needs Linux 5.11: a failure there
         * must not leave the parent's fds open in the child. */
        if (syscall(SYS_close_range, (unsigned) first, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
                return 0;
        return fds_cloexec_listed(first);
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
        /* The helper runs as SCHED_BATCH (supervisor/main.c); the desktop does not. */
        (void) sched_setscheduler(0, SCHED_OTHER, &(struct sched_param) {});

        if (o->pdeathsig) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        child_fail(pipe_fd, errno);
                /* The parent may have died before the prctl. (The pid 1 of a
                 * new PID namespace sees no parent at all: getppid() is 0.) */
                if (!(o->clone_flags & CLONE_NEWPID) && getppid() != parent)
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
        if (o->child_setup && (r = o->child_setup(o->child_setup_userdata)) < 0)
                child_fail(pipe_fd, -r);

        if (o->stdin_fd < 0) {
                int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        child_fail(pipe_fd, errno);
                if ((r = child_dup_stdio(fd, 0)) < 0)
                        child_fail(pipe_fd, -r);
        } else if ((r = child_dup_stdio(o->stdin_fd, 0)) < 0)
                child_fail(pipe_fd, -r);
        if ((r = child_dup_stdio(o->stdout_fd, 1)) < 0 || (r = child_dup_stdio(o->stderr_fd, 2)) < 0)
                child_fail(pipe_fd, -r);

        /* Everything above stdio closes at exec (the error pipe too, which
         * is how the parent learns that exec succeeded), except keep_fd. */
        if ((r = fds_cloexec_from(3)) < 0)
                child_fail(pipe_fd, -r);
        if (o->keep_fd >= 0 && (o->keep_fd_target < 0 || o->keep_fd_target == o->keep_fd)) {
                int flags = fcntl(o->keep_fd, F_GETFD);
                if (flags < 0 || fcntl(o->keep_fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                        child_fail(pipe_fd, errno);
        }
        if ((o->pipe_fds[0] >= 0 && o->pipe_fds[1] >= 0) || (o->keep_fd >= 0 && o->keep_fd_target >= 0)) {
                /* Every source (and the error pipe) out of the way of every
                 * target first: any may be one of them. dup2 then clears the
                 * placed copies' O_CLOEXEC. */
                int above = (o->keep_fd_target > 5 ? o->keep_fd_target : 5) + 1;
                int a = -1, b = -1, k = -1, e = fcntl(pipe_fd, F_DUPFD_CLOEXEC, above);

                if (e < 0)
                        child_fail(pipe_fd, errno);
                pipe_fd = e;
                if (o->pipe_fds[0] >= 0 && o->pipe_fds[1] >= 0 &&
                    ((a = fcntl(o->pipe_fds[0], F_DUPFD_CLOEXEC, above)) < 0 ||
                     (b = fcntl(o->pipe_fds[1], F_DUPFD_CLOEXEC, above)) < 0))
                        child_fail(pipe_fd, errno);
                if (o->keep_fd >= 0 && o->keep_fd_target >= 0 && (k = fcntl(o->keep_fd, F_DUPFD_CLOEXEC, above)) < 0)
                        child_fail(pipe_fd, errno);
                if ((a >= 0 && (dup2(a, 3) < 0 || dup2(b, 4) < 0)) || (k >= 0 && dup2(k, o->keep_fd_target) < 0))
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
        /* A new namespace needs clone(); called raw, like fork() it runs the
         * child on a copy of our stack. glibc's caches of the pid are not
         * updated in that child, which only execs (systemd's raw_clone()). */
        pid = o->clone_flags ? (pid_t) syscall(SYS_clone, o->clone_flags | SIGCHLD, NULL, NULL, NULL, NULL) : fork();
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

static bool env_passes(const char *entry) {
        static const char *const keep[] = {
                "PATH=", "HOME=", "USER=", "LOGNAME=", "SHELL=", "LANG=", "LANGUAGE=", "TZ=", "XDG_RUNTIME_DIR=",
        };

        for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                if (startswith(entry, keep[i]))
                        return true;
        return startswith(entry, "LC_") != NULL;
}

const char *const env_x11_session[] = {
        "XDG_SESSION_TYPE=x11",
        "XDG_CURRENT_DESKTOP=XFCE",
        "GDK_BACKEND=x11",
        /* A Qt built to try Wayland first connects to wayland-0 in
         * XDG_RUNTIME_DIR, the caller's, where the compositor of a Wayland
         * login listens: its windows would open on the user's own screen,
         * not on this one. */
        "QT_QPA_PLATFORM=xcb",
        NULL,
};

const char *env_lang(const char *caller_lang) {
        /* Without LANG (a service manager's environment has none) programs
         * run in the C locale's ASCII, where text that is not ASCII turns to
         * '?'; a LANG of the caller's is kept as it is. */
        return caller_lang && *caller_lang ? caller_lang : "C.UTF-8";
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

int spawn_detached(char *const *argv, char *const *envp, int log_fd, pid_t *ret_pid) {
        _cleanup_close_ int null_fd = -EBADF;
        struct spawn_opts o = SPAWN_OPTS_INIT;

        if (log_fd < 0) {
                null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null_fd < 0)
                        return negative_errno();
                log_fd = null_fd;
        }
        o.argv = argv;
        o.envp = envp;
        o.new_session = true;
        o.stdout_fd = log_fd;
        o.stderr_fd = log_fd;
        o.cwd = "/";
        return spawn(&o, ret_pid);
}

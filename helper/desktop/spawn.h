/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * Start a child the way every botdesk child is started: an environment built
 * on purpose (never the caller's), a reset signal mask and dispositions,
 * every fd above stdio closed except the one asked for, and its own cgroup
 * (or, without cgroups, its own process group and a parent-death signal).
 * Exec failures are reported to the caller through a CLOEXEC pipe, so a
 * missing binary is an error of spawn(), not a mysterious early exit.
 */

struct spawn_opts {
        char *const *argv;
        char *const *envp;
        const char *cgroup;      /* absolute cgroup dir to enter before exec, or NULL */
        bool new_session;        /* setsid(): own process group for the fallback kill */
        bool pdeathsig;          /* PR_SET_PDEATHSIG(SIGKILL) */
        bool ignore_sigusr1;     /* X servers then signal their parent when ready */
        int stdin_fd;            /* < 0: /dev/null */
        int stdout_fd;           /* < 0: inherit */
        int stderr_fd;           /* < 0: inherit */
        int keep_fd;             /* passed on at the same number, or -1 */
        int pipe_fds[2];         /* passed on as fds 3 and 4 (Chromium's
                                  * --remote-debugging-pipe), or -1 -1 */
        int keep_fd_target;      /* keep_fd passed on at this number instead, or -1 */
        const char *cwd;         /* NULL: inherit */
        /* CLONE_NEW* flags: the child starts in namespaces of its own (a
         * new PID namespace makes it their pid 1), 0: a plain fork. */
        unsigned long clone_flags;
        /* Run in the child after its cgroup and before its stdio: what a
         * caller must set up there (the mount namespace a desktop's tree is
         * restored in, supervisor/tree-mounts.h). 0, or -errno, which
         * spawn() returns. Between fork and exec: system calls only. */
        int (*child_setup)(void *userdata);
        void *child_setup_userdata;
};

#define SPAWN_OPTS_INIT                                                                                        \
        { .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .keep_fd = -1, .keep_fd_target = -1,            \
          .pipe_fds = { -1, -1 } }

/* Mark every fd from first up close-on-exec: close_range where the kernel
 * has CLOSE_RANGE_CLOEXEC, else fds_cloexec_listed(). */
int fds_cloexec_from(int first);
/* The same for each fd /proc/self/fd lists. */
int fds_cloexec_listed(int first);

/* Returns 0 and the child's pid, or -errno (exec or setup failure in the child). */
int spawn(const struct spawn_opts *o, pid_t *ret_pid);

/* argv in a process of its own that may outlive us: its own session, cwd
 * /, stdin /dev/null, stdout and stderr to log_fd (< 0: /dev/null). */
int spawn_detached(char *const *argv, char *const *envp, int log_fd, pid_t *ret_pid);

/*
 * What every program of a desktop is told, whoever starts it (the session,
 * botdesk exec): that it runs in an X11 session of Xfce, whatever the
 * caller's session is. NULL-terminated "KEY=VALUE".
 */
extern const char *const env_x11_session[];

/* The LANG of a program started on a desktop: the caller's (caller_lang, may be NULL), else C.UTF-8. */
const char *env_lang(const char *caller_lang);

/* Build a desktop environment: base entries "KEY=VALUE" plus the caller's
 * values of the harmless variables (PATH, HOME, USER, LOGNAME, SHELL, LANG,
 * LC_*, TZ, XDG_RUNTIME_DIR). Nothing else of the caller passes. */
int env_build_clean(char *const *caller, char *const *extra, char ***ret);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk install: the distribution's install command for what is missing,
 * run the one way an operator would want it run:
 *  - one install at a time (a lock; a second one is refused, exit 3);
 *  - sudo and the package manager found on a fixed system PATH, never the
 *    caller's, where any directory (a virtualenv, node_modules/.bin) could
 *    hold a "sudo" that collects the password; [install] system_path, a
 *    host-wide key, moves it (the tests point it at fakes);
 *  - a deadline, after which the package manager's process group is killed;
 *  - a password, when sudo needs one, read from stdin and fed to sudo -S once;
 *  - the command shown first, then its output line by line as it comes,
 *    published as well for `botdesk watch` (install-progress.h), --quiet
 *    or not, with the exit status at the end.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "child-deadline.h"
#include "cli.h"
#include "find-executable.h"
#include "install-lock.h"
#include "install-progress.h"
#include "verbs.h"
#include "config.h"
#include "log.h"
#include "packages.h"
#include "profile.h"
#include "spawn.h"
#include "util.h"

#define SYSTEM_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define INSTALL_TIMEOUT_DEFAULT 900U
#define PRECHECK_TIMEOUT_USEC (30 * 1000000ULL)
/* After SIGTERM, then after SIGKILL: how long the group gets to go away. */
#define KILL_GRACE_USEC (5 * 1000000ULL)
#define PASSWORD_MAX 1024

#define STRV_MAKE(...) ((char *const[]) { __VA_ARGS__, NULL })

/* ---- running a command with a deadline ---------------------------------------------------- */

struct run {
        bool stream;            /* copy the output to stdout, line by line */
        int progress_fd;        /* publish the lines there too (install-progress.h); -EBADF: not */
        bool cutting;           /* the rest of a line already published cut is not */
        char buf[INSTALL_PROGRESS_LINE_MAX];
        size_t len;
        bool timed_out;
        int status;             /* exit code, 128 + signal; -1 when it outlived the deadline's kills */
        char *const *argv, *const *envp;
        int stdin_fd;
};

/* A line, or a piece of one that does not fit the buffer (piece), for watch:
 * the first piece stands for the whole line, cut. A file that cannot be
 * written does not stop the install. */
static void publish(struct run *r, const char *s, size_t n, bool piece) {
        if (r->progress_fd >= 0 && !r->cutting)
                (void) install_progress_line(r->progress_fd, s, n);
        r->cutting = piece;
}

/* Whole lines to stdout as they complete; all: the rest too (end of output). */
static void emit(struct run *r, bool all) {
        char *start = r->buf, *end = r->buf + r->len, *nl;
        size_t rest;

        while ((nl = memchr(start, '\n', (size_t) (end - start)))) {
                if (r->stream)
                        fwrite(start, 1, (size_t) (nl - start + 1), stdout);
                publish(r, start, (size_t) (nl - start), false);
                start = nl + 1;
        }
        rest = (size_t) (end - start);
        /* A line longer than the buffer goes out in pieces. */
        if (rest > 0 && (all || rest == sizeof r->buf)) {
                if (r->stream) {
                        fwrite(start, 1, rest, stdout);
                        if (all)
                                fputc('\n', stdout);
                }
                publish(r, start, rest, !all);
                rest = 0;
        }
        memmove(r->buf, end - rest, rest);
        r->len = rest;
        if (r->stream)
                fflush(stdout);
}

static void on_output(_unused_ enum child_stream stream, const char *buf, size_t n, void *userdata) {
        struct run *r = userdata;

        while (n > 0) {
                size_t k = n < sizeof r->buf - r->len ? n : sizeof r->buf - r->len;

                memcpy(r->buf + r->len, buf, k);
                r->len += k;
                buf += k;
                n -= k;
                emit(r, false);
        }
}

static int spawn_command(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata) {
        const struct run *r = userdata;
        struct spawn_opts o = SPAWN_OPTS_INIT;

        o.argv = r->argv;
        o.envp = r->envp;
        o.new_session = true;   /* the group the deadline kills */
        o.stdin_fd = r->stdin_fd;
        o.stdout_fd = stdout_fd;
        o.stderr_fd = stderr_fd;
        return spawn(&o, ret_pid);
}

/*
 * Run argv (its own process group) with stdin from stdin_fd (< 0:
 * /dev/null), its stdout and stderr merged into one pipe (streamed when
 * stream is set, published to progress_fd when it is one), until it exits or the deadline passes: then SIGTERM to
 * the group (sudo relays it to the package manager it runs as root), SIGKILL
 * a grace later, and a grace after that we stop waiting for what is left,
 * which runs as root out of our reach. Returns 0 with r->status /
 * r->timed_out filled, -errno.
 */
static int run_command(char *const *argv, char *const *envp, int stdin_fd, bool stream, int progress_fd,
                       unsigned long long timeout_usec, struct run *r) {
        const struct child_deadline d = CHILD_DEADLINE_MERGED(timeout_usec, KILL_GRACE_USEC, on_output, r);
        struct child_deadline_result cr;
        int ret;

        *r = (struct run) { .stream = stream, .progress_fd = progress_fd, .argv = argv, .envp = envp, .stdin_fd = stdin_fd };
        ret = child_deadline_run(&d, spawn_command, r, &cr);
        if (ret < 0 && ret != -ETIME)
                return ret;
        emit(r, true);
        r->timed_out = cr.timed_out;
        r->status = cr.status;
        return 0;
}

/* ---- the password ------------------------------------------------------------------------- */

static void password_erase(char (*p)[PASSWORD_MAX + 1]) {
        explicit_bzero(*p, sizeof *p);
}

/* One line from stdin, without its newline, at most PASSWORD_MAX bytes:
 * a read per byte, so that nothing after the line is consumed. On an
 * error, what was read is wiped. */
static int read_password(char *buf, size_t size) {
        size_t n = 0;
        char c = 0;

        for (;;) {
                ssize_t k = read(STDIN_FILENO, &c, 1);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = negative_errno();
                        explicit_bzero(buf, size);
                        return r;
                }
                if (k == 0 || c == '\n')
                        break;
                if (n + 1 >= size) {
                        explicit_bzero(buf, size);
                        explicit_bzero(&c, sizeof c);
                        return -E2BIG;
                }
                buf[n++] = c;
        }
        explicit_bzero(&c, sizeof c);
        if (n > 0 && buf[n - 1] == '\r')
                n--;
        buf[n] = 0;
        return (int) n;
}

/* A pipe holding the password and a newline, its write end closed: sudo -S
 * reads it once; a wrong one leaves sudo nothing more to read. */
static int password_pipe(const char *password) {
        _cleanup_close_ int rd = -EBADF, wr = -EBADF;
        size_t l = strlen(password);
        int r = pipe_cloexec(&rd, &wr);

        if (r < 0)
                return r;
        /* Far below the pipe's capacity: these writes cannot block. */
        if (write(wr, password, l) != (ssize_t) l || write(wr, "\n", 1) != 1)
                return -EIO;
        return TAKE_FD(rd);
}

/* ---- the verb ----------------------------------------------------------------------------- */

static char *join_argv(char *const *argv) {
        size_t size = 1;
        char *s, *p;

        for (char *const *a = argv; *a; a++)
                size += strlen(*a) + 1;
        s = p = malloc(size);
        if (!s)
                return NULL;
        /* Each word and its separator: the size counted above. */
        for (char *const *a = argv; *a; a++) {
                size_t l = strlen(*a);

                if (a != argv)
                        *p++ = ' ';
                memcpy(p, *a, l);
                p += l;
        }
        *p = 0;
        return s;
}

static int strv_prepend(char ***l, char *const *words) {
        _cleanup_strv_free_ char **n = NULL;
        int r;

        for (char *const *w = words; *w; w++)
                if ((r = strv_push(&n, strdup(*w))) < 0)
                        return r;
        for (char **w = *l; w && *w; w++)
                if ((r = strv_push(&n, strdup(*w))) < 0)
                        return r;
        strv_free(*l);
        *l = TAKE_PTR(n);
        return 0;
}

int verb_install(const struct cli_args *a) {
        bool yes = a->yes, quiet = a->quiet, password_stdin = a->password_stdin;
        unsigned timeout = a->timeout;
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_strv_free_ char **missing = NULL, **pkgs = NULL, **cmd = NULL, **env = NULL;
        _cleanup_free_ char *manager = NULL, *sudo = NULL, *shown = NULL, *bare = NULL, *lock_path = NULL;
        _cleanup_close_ int lock = -EBADF, stdin_fd = -EBADF, progress = -EBADF;
        const char *system_path;
        bool root = geteuid() == 0, tty = isatty(STDIN_FILENO);
        /* Wiped on every way out, whichever return is taken. */
        _cleanup_(password_erase) char password[PASSWORD_MAX + 1] = {};
        enum pkg_manager m;
        struct run run;
        extern char **environ;
        int r;

        if (a->operand) {
                log_error("install takes no argument.");
                return EXIT_USAGE;
        }
        r = cli_load_config(NULL, &c);
        if (r < 0)
                return EXIT_USAGE;
        if (password_stdin && !yes) {
                log_error("--password-stdin needs --yes: stdin carries the password, not an answer.");
                return EXIT_USAGE;
        }
        system_path = c.install_system_path ?: SYSTEM_PATH;

        r = packages_missing_all(NULL, &missing);
        if (r < 0)
                return log_error_errno(r, "Cannot check the required programs: %m"), EXIT_FAILED;
        if (strv_length(missing) == 0) {
                if (!quiet)
                        puts("Everything botdesk needs is installed.");
                return EXIT_OK;
        }
        m = pkg_manager_detect(system_path);
        if (m == PKG_NONE) {
                _cleanup_free_ char *msg = packages_install_message(PKG_NONE, root, false, missing, NULL);
                log_error("%s", msg ?: "No supported package manager found.");
                return EXIT_FAILED;
        }
        if (find_executable(pkg_manager_name(m), system_path, &manager) < 0 || packages_for(m, missing, &pkgs) < 0 ||
            packages_install_argv(m, manager, pkgs, &cmd) < 0 ||
            !(bare = join_argv(cmd)))
                return log_oom(), EXIT_FAILED;
        if (!root) {
                if (find_executable("sudo", system_path, &sudo) < 0) {
                        log_error("No sudo on this host; run as root: %s", bare);
                        return EXIT_REFUSED;
                }
        }

        /* How sudo gets a password, if it needs one: the line on stdin
         * (--password-stdin, decided once it is read), else its own prompt
         * on the terminal; with neither, only a sudo that needs none will
         * do (-n). */
        if (!root && !password_stdin) {
                if (tty)
                        r = strv_prepend(&cmd, STRV_MAKE(sudo, "--"));
                else
                        r = strv_prepend(&cmd, STRV_MAKE(sudo, "-n", "--"));
                if (r < 0)
                        return log_oom(), EXIT_FAILED;
        }
        shown = join_argv(cmd);
        if (!shown)
                return log_oom(), EXIT_FAILED;
        if (!yes) {
                int ch;

                if (!tty) {
                        log_error("Would run: %s. Add --yes to run it without asking.", shown);
                        return EXIT_USAGE;
                }
                fprintf(stderr, "Run %s? [y/N] ", shown);
                ch = getchar();
                if (ch != 'y' && ch != 'Y') {
                        fprintf(stderr, "Nothing installed.\n");
                        return EXIT_FAILED;
                }
        }

        lock = install_lock_take(INSTALL_LOCK_RUN_DIR, &lock_path);
        if (lock == -EBUSY) {
                log_error("An install is already running (it holds %s); wait for it to finish.", lock_path);
                return EXIT_REFUSED;
        }
        if (lock < 0)
                return log_error_errno(lock, "Cannot take the install lock %s: %m", strnull(lock_path)), EXIT_FAILED;

        if (!root && password_stdin) {
                char *check[] = { sudo, (char *) "-n", (char *) "true", NULL };

                r = read_password(password, sizeof password);
                if (r == 0) {
                        log_error("Cancelled: no password (--password-stdin read an empty line).");
                        return EXIT_FAILED;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot read the password from stdin: %m"), EXIT_FAILED;
                /*
                 * A sudo that needs no password never reads the line: left in
                 * sudo's stdin, it would be the package manager's stdin. So
                 * the password goes to sudo only when sudo needs it, and then
                 * sudo reads it all; else the password is dropped here and the
                 * package manager's stdin is /dev/null.
                 */
                r = run_command(check, environ, -1, false, -EBADF, PRECHECK_TIMEOUT_USEC, &run);
                if (r < 0)
                        return log_error_errno(r, "Cannot run %s: %m", sudo), EXIT_FAILED;
                if (!run.timed_out && run.status == 0)
                        r = strv_prepend(&cmd, STRV_MAKE(sudo, "-n", "--"));
                else {
                        stdin_fd = password_pipe(password);
                        if (stdin_fd < 0)
                                return log_error_errno(stdin_fd, "Cannot pass the password to sudo: %m"), EXIT_FAILED;
                        r = strv_prepend(&cmd, STRV_MAKE(sudo, "-S", "-p", "", "--"));
                }
                explicit_bzero(password, sizeof password);
                free(shown);
                if (r < 0 || !(shown = join_argv(cmd)))
                        return log_oom(), EXIT_FAILED;
        } else if (!root && !tty) {
                char *check[] = { sudo, (char *) "-n", (char *) "true", NULL };

                /* Asked first, so that "no password" is not mistaken for the package manager failing. */
                r = run_command(check, environ, -1, false, -EBADF, PRECHECK_TIMEOUT_USEC, &run);
                if (r < 0)
                        return log_error_errno(r, "Cannot run %s: %m", sudo), EXIT_FAILED;
                if (run.timed_out || run.status != 0) {
                        log_error("Cancelled: no password. sudo needs one and there is no terminal to ask on; "
                                  "give it on stdin with --password-stdin, or run as root: %s", bare);
                        return EXIT_FAILED;
                }
        }

        /* The package manager's environment is built, not inherited: the
         * system PATH, one locale whatever the caller's (its lines go to
         * every watch as UTF-8 text, and the caller's locale may not exist
         * on this host, which perl in dpkg's scripts warns about on each
         * package), and no prompt it could wait on without a terminal. */
        if (env_build_clean(environ, NULL, &env) < 0 || env_set(&env, "PATH", system_path) < 0 ||
            env_set(&env, "LC_ALL", "C.UTF-8") < 0 ||
            (!tty && m == PKG_APT && env_set(&env, "DEBIAN_FRONTEND", "noninteractive") < 0))
                return log_oom(), EXIT_FAILED;
        if (!quiet) {
                printf("+ %s\n", shown);
                fflush(stdout);
        }
        if (timeout == 0)
                timeout = INSTALL_TIMEOUT_DEFAULT;
        /* Under the install lock: one writer of the file at a time. */
        progress = install_progress_begin();
        if (progress < 0)
                log_warning_errno(progress, "Cannot publish the install's progress for botdesk watch: %m, ignoring.");
        r = run_command(cmd, env, stdin_fd >= 0 ? stdin_fd : tty ? STDIN_FILENO : -1, !quiet, progress,
                        (unsigned long long) timeout * 1000000ULL, &run);
        if (progress >= 0)
                (void) install_progress_done(progress, r < 0 ? INSTALL_EXIT_UNKNOWN : run.status);
        if (r < 0)
                return log_error_errno(r, "Cannot run %s: %m", cmd[0]), EXIT_FAILED;
        if (run.timed_out) {
                log_error("%s did not finish within %u s (--timeout); its process group was killed. "
                          "The package manager may still hold its lock: check that no %s runs before trying again.",
                          pkg_manager_name(m), timeout, pkg_manager_name(m));
                return EXIT_FAILED;
        }
        if (run.status != 0) {
                log_error("%s failed (exit %d)%s; see its output above.", pkg_manager_name(m), run.status,
                          password_stdin ? ", or sudo did not accept the password" : "");
                return EXIT_FAILED;
        }
        if (!quiet) {
                _cleanup_free_ char *list = join_argv(pkgs);
                printf("Installed: %s\n", strnull(list));
        }
        return EXIT_OK;
}

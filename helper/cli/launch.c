/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "alloc.h"
#include "botdesk-config.h"
#include "cli.h"
#include "config.h"
#include "record.h"
#include "log.h"
#include "spawn.h"
#include "launch.h"
#include "unit.h"
#include "util.h"

/* How long a helper that missed its deadline gets to tear down after SIGTERM. */
#define STOP_GRACE_USEC (10 * 1000 * 1000ULL)

static int pidfd_open_checked(pid_t pid) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);

        return fd < 0 ? negative_errno() : fd;
}

static int pidfd_signal(int pidfd, int sig) {
        return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 ? negative_errno() : 0;
}

int profile_lock(int runtime_fd) {
        return lock_file_at(runtime_fd, START_LOCK_FILE, true);
}

/* An autobound abstract socket: a name nobody else holds, and no file that
 * a killed CLI would leave behind or a later start could lose to our unlink. */
static int notify_socket_open(char **ret_name) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t len = sizeof sa;
        size_t name_len;
        int one = 1;

        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa.sun_family)) < 0)
                return negative_errno();
        if (getsockname(fd, (struct sockaddr *) &sa, &len) < 0)
                return negative_errno();
        if (len <= offsetof(struct sockaddr_un, sun_path) + 1 || sa.sun_path[0] != 0)
                return -EADDRNOTAVAIL;
        name_len = len - offsetof(struct sockaddr_un, sun_path) - 1;
        /* Only the helper's own datagrams count. */
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
                return negative_errno();
        *ret_name = strdup_printf("@%.*s", (int) name_len, sa.sun_path + 1);
        if (!*ret_name)
                return -ENOMEM;
        return TAKE_FD(fd);
}

struct notify_state {
        bool ready;
        bool owns;              /* BOTDESK_RECORDED=1 came: the helper has recorded itself */
        unsigned long long extended_to; /* CLOCK_MONOTONIC usec an EXTEND_TIMEOUT_USEC= allows until, 0: none */
        int errno_value;
        char status[512];
};

static void notify_receive(int fd, pid_t helper, struct notify_state *st, bool progress, unsigned long long t0) {
        for (;;) {
                char buf[4096];
                union {
                        struct cmsghdr h;
                        uint8_t buf[CMSG_SPACE(sizeof(struct ucred))];
                } control;
                struct iovec iov = { buf, sizeof buf - 1 };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                                     .msg_controllen = sizeof control };
                struct ucred *cred = NULL;
                ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

                if (n < 0)
                        return;
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
                                cred = (struct ucred *) CMSG_DATA(c);
                if (!cred || cred->pid != helper)
                        continue;
                buf[n] = 0;
                for (char *line = buf, *next; line && *line; line = next) {
                        unsigned long long v;
                        const char *val;

                        next = strchr(line, '\n');
                        if (next)
                                *next++ = 0;
                        if (streq(line, "READY=1"))
                                st->ready = true;
                        else if (streq(line, "BOTDESK_RECORDED=1"))
                                st->owns = true;
                        else if ((val = startswith(line, "ERRNO=")) && parse_uint(val, 4095, &v) >= 0)
                                st->errno_value = (int) v;
                        else if ((val = startswith(line, "EXTEND_TIMEOUT_USEC=")) &&
                                 parse_uint(val, UINT64_MAX / 2, &v) >= 0) {
                                /* As a service manager takes it: from receipt, and never shortening. */
                                if (now_usec() + v > st->extended_to)
                                        st->extended_to = now_usec() + v;
                        } else if ((val = startswith(line, "STATUS="))) {
                                snprintf(st->status, sizeof st->status, "%s", val);
                                if (progress)
                                        fprintf(stderr, "[%6.2fs] %s\n", (double) (now_usec() - t0) / 1e6, val);
                        }
                }
        }
}

char *standalone_last_error(int runtime_fd) {
        return standalone_last_error_since(runtime_fd, 0);
}

char *standalone_last_error_since(int runtime_fd, unsigned long long since_usec) {
        char *text = NULL;
        struct stat st;

        if (since_usec > 0 &&
            (fstatat(runtime_fd, "last-error", &st, AT_SYMLINK_NOFOLLOW) < 0 || timespec_usec(&st.st_mtim) < since_usec))
                return NULL;
        if (read_full_file_at(runtime_fd, "last-error", &text, NULL, 4096) < 0)
                return NULL;
        text[strcspn(text, "\n")] = 0;
        return text;
}

static const char *helper_path(void) {
        const char *e = getenv("BOTDESK_HELPER");

        return e && *e ? e : BOTDESK_HELPER_PATH;
}

/* The helper is our child: when it left no reason, its wait status tells
 * how it ended, and its last STATUS how far it got. */
static char *describe_helper_end(pid_t pid, int status, const struct notify_state *st, const char *runtime) {
        char how[64];

        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                /* A SIGTERM before readiness ends the helper cleanly. */
                return strdup("stopped while starting: the desktop was told to stop before it was ready");
        if (WIFSIGNALED(status))
                snprintf(how, sizeof how, "was killed by signal %s", sigabbrev_np(WTERMSIG(status)) ?: "?");
        else
                snprintf(how, sizeof how, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return strdup_printf("botdesk-helper (pid %d) %s before the desktop was ready%s%s%s; see %s/helper.log",
                             (int) pid, how, st->status[0] ? " (its last step: " : "", st->status,
                             st->status[0] ? ")" : "", runtime);
}

static int spawn_and_wait(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock,
                          unsigned long long deadline, unsigned timeout_sec, bool extendable, bool progress,
                          char **ret_error, int *ret_exit_status) {
        _cleanup_close_ int notify_fd = -EBADF, log_fd = -EBADF, pidfd = -EBADF;
        _cleanup_free_ char *notify_name = NULL;
        _cleanup_strv_free_ char **env = NULL;
        struct notify_state st = {};
        unsigned long long t0 = now_usec(), spawned_at;
        char *argv[] = { (char *) helper_path(), (char *) profile, NULL };
        extern char **environ;
        pid_t pid;
        int r;

        notify_fd = notify_socket_open(&notify_name);
        if (notify_fd < 0)
                return notify_fd;
        log_fd = openat(runtime_fd, "helper.log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (log_fd < 0)
                return negative_errno();
        /* A reason written from now on is this start's own. It is not
         * removed here: a start waiting for the last helper reads it once
         * that one is gone, until ours has taken the lock (and removes it). */
        spawned_at = realtime_coarse_usec();

        /* The helper belongs to the desktop: it gets the same clean
         * environment, plus what decides where the desktop's files are and
         * botdesk's own settings. The caller's credentials stay behind. */
        {
                _cleanup_strv_free_ char **extra = NULL;
                static const char *const pass[] = {
                        "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "AGENT_BROWSER_EXECUTABLE_PATH=", "AGENT_BROWSER_PROFILE=",
                };

                for (char **e = environ; *e; e++) {
                        bool keep = startswith(*e, "BOTDESK_") != NULL;
                        for (size_t i = 0; !keep && i < ELEMENTSOF(pass); i++)
                                keep = startswith(*e, pass[i]) != NULL;
                        if (keep && (r = strv_push(&extra, strdup(*e))) < 0)
                                return r;
                }
                r = env_build_clean(environ, extra, &env);
                if (r < 0)
                        return r;
        }
        r = env_set(&env, "NOTIFY_SOCKET", notify_name);
        if (r < 0)
                return r;

        r = spawn_detached(argv, env, log_fd, &pid);
        if (r < 0) {
                *ret_error = strdup_printf("Cannot run %s: %s", argv[0], strerror(-r));
                return r;
        }
        pidfd = pidfd_open_checked(pid);
        if (pidfd < 0)
                return pidfd;

        for (;;) {
                struct pollfd pfd[2] = { { .fd = notify_fd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
                unsigned long long now = now_usec();

                /* The helper times its start from its own X server and says so; a deadline the
                 * caller set itself (--timeout) stays. */
                if (extendable && st.extended_to > deadline)
                        deadline = st.extended_to;
                if (now >= deadline) {
                        struct pollfd gone = { .fd = pidfd, .events = POLLIN };

                        /* The helper tears down on SIGTERM; wait for that to
                         * finish, but not for ever: one stuck before its
                         * event loop (SIGTERM is masked there) is killed. */
                        (void) pidfd_signal(pidfd, SIGTERM);
                        while ((r = poll(&gone, 1, (int) (STOP_GRACE_USEC / 1000))) < 0 && errno == EINTR)
                                ;
                        if (r <= 0)
                                (void) pidfd_signal(pidfd, SIGKILL);
                        (void) waitpid(pid, NULL, 0);
                        if (extendable && st.extended_to > 0)
                                *ret_error = strdup_printf("Desktop %s was not ready within start_timeout of its X "
                                                           "server's start; stopped it. %s", profile, st.status);
                        else
                                *ret_error = strdup_printf("Desktop %s was not ready within %u s; stopped it. %s",
                                                           profile, timeout_sec, st.status);
                        return -ETIMEDOUT;
                }
                if (poll(pfd, 2, (int) ((deadline - now + 999) / 1000)) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (pfd[0].revents)
                        notify_receive(notify_fd, pid, &st, progress, t0);
                if (st.owns && *lock >= 0)
                        /* The helper holds its own lock and has recorded
                         * itself, so another start finds it and waits for
                         * it, and a stop need not wait for this start. */
                        *lock = safe_close(*lock);
                if (st.ready)
                        return 0;
                if (pfd[1].revents) {
                        int status = 0;

                        /* Datagrams sent just before exit are still queued. */
                        notify_receive(notify_fd, pid, &st, progress, t0);
                        (void) waitpid(pid, &status, 0);
                        *ret_exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
                        *ret_error = standalone_last_error_since(runtime_fd, spawned_at);
                        if (!*ret_error)
                                *ret_error = describe_helper_end(pid, status, &st, p->runtime);
                        return -EIO;
                }
        }
}

int standalone_start(const char *profile, const struct bd_paths *p, int runtime_fd, int *lock, unsigned timeout_sec,
                     bool extendable, bool progress, char **ret_error, int *ret_exit_status) {
        unsigned long long deadline = now_usec() + (unsigned long long) timeout_sec * 1000000ULL;
        int r;

        *ret_error = NULL;
        *ret_exit_status = 0;
        for (unsigned attempt = 0;; attempt++) {
                struct helper_record rec = {};
                enum helper_phase phase;

                if (*lock < 0) {
                        *lock = profile_lock(runtime_fd);
                        if (*lock < 0)
                                return *lock;
                }
                phase = helper_phase_at(runtime_fd, &rec);
                helper_record_done(&rec);
                if (phase == HELPER_READY)
                        return 1;
                if (phase == HELPER_NONE)
                        return spawn_and_wait(profile, p, runtime_fd, lock, deadline, timeout_sec, extendable,
                                              progress, ret_error, ret_exit_status);
                /* Alive, not ready: another start is under way (its CLI
                 * perhaps killed since). Wait for that one, as systemctl
                 * start waits for a unit that is activating. */
                r = standalone_wait_starting(profile, p, runtime_fd, lock, deadline, timeout_sec, progress, ret_error);
                if (r != -ESRCH)
                        return r;
                if (attempt > 0) {
                        *ret_error = strdup_printf("botdesk-helper of %s ended before the desktop was ready, twice, "
                                                   "without a reason (killed?); see %s/helper.log", profile, p->runtime);
                        return -EIO;
                }
                /* It ended without a reason: killed, as only SIGKILL leaves
                 * no word. Its leftovers go with the next helper: start
                 * afresh, once. */
                if (progress)
                        fprintf(stderr, "The helper of the starting desktop ended without a reason; starting afresh.\n");
        }
}

int desktop_stop(const struct bd_paths *p, int runtime_fd, unsigned timeout_sec, sd_bus *bus, const char *profile) {
        struct helper_record rec = {};
        _cleanup_close_ int pidfd = -EBADF;
        unsigned long long st;
        bool unit_placed;
        int r, ret = 1;

        r = helper_record_read_at(runtime_fd, &rec);
        if (r < 0 && r != -ENOENT)
                return r;
        unit_placed = rec.placement && streq(rec.placement, "user-unit");

        if (bus) {
                /* An adopted spare runs on in the spare's unit, which its record names. */
                _cleanup_free_ char *unit = unit_placed && rec.unit ? strdup(rec.unit) : unit_name_for(profile);
                _cleanup_free_ char *state = NULL, *result = NULL;

                if (!unit)
                        return -ENOMEM;
                if (unit_active_state(bus, unit, &state) >= 0 && !streq(state, "inactive")) {
                        r = unit_stop(bus, unit, &result);
                        if (r < 0) {
                                helper_record_done(&rec);
                                return r;
                        }
                        ret = 0;
                }
        }

        if (!unit_placed && rec.pid > 0 && helper_alive(runtime_fd, &rec) > 0) {
                pidfd = pidfd_open_checked(rec.pid);
                /* Verified again after the pidfd pins the process: a pid that
                 * was recycled in between is never signalled. */
                if (pidfd >= 0 && pid_starttime(rec.pid, &st) >= 0 && st == rec.starttime) {
                        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

                        r = pidfd_signal(pidfd, SIGTERM);
                        if (r >= 0) {
                                do
                                        r = poll(&pfd, 1, (int) timeout_sec * 1000);
                                while (r < 0 && errno == EINTR);
                                if (r == 0)
                                        (void) pidfd_signal(pidfd, SIGKILL);
                        }
                        ret = 0;
                }
        }

        /* Whatever the helper did or could not do: nothing of the desktop may remain. */
        r = helper_reap_after_stop(&rec);
        /* A killed helper could not remove its server's lock and socket;
         * other allocators look only at the lock. Removed only when the
         * process it names is gone. */
        if (r >= 0 && rec.display >= 0)
                (void) display_remove_stale_lock(&alloc_env_default, (unsigned) rec.display);
        helper_record_done(&rec);
        if (r < 0)
                return r;
        (void) unlinkat(runtime_fd, "env", 0);
        (void) unlinkat(runtime_fd, RFB_SOCKET, 0);
        (void) unlinkat(runtime_fd, HELPER_RECORD_FILE, 0);
        return ret;
}

bool launch_standalone_forced(void) {
        const char *e = getenv("BOTDESK_PLACEMENT");
        return e && streq(e, "standalone");
}

int launch_open_profile(const char *profile, struct bd_config *c, struct bd_paths *p, int *ret_dirfd, int *ret_lock) {
        if (cli_check_profile(profile) < 0 || cli_load_config(profile, c) < 0)
                return EXIT_USAGE;
        if (cli_open_profile(profile, p, ret_dirfd) < 0)
                return EXIT_FAILED;
        *ret_lock = profile_lock(*ret_dirfd);
        if (*ret_lock < 0) {
                log_error_errno(*ret_lock, "Cannot lock profile %s: %m", profile);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

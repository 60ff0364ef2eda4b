/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "alloc.h"
#include "botdesk-config.h"
#include "identity.h"
#include "spawn.h"
#include "standalone.h"
#include "unit.h"
#include "util.h"

#define NOTIFY_SOCKET_FILE "notify.sock"
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
        _cleanup_close_ int fd = openat(runtime_fd, START_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

        if (fd < 0)
                return negative_errno();
        while (flock(fd, LOCK_EX) < 0)
                if (errno != EINTR)
                        return negative_errno();
        return TAKE_FD(fd);
}

static int notify_socket_open(const struct bd_paths *p, char **ret_path) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *path = strdup_printf("%s/%s", p->runtime, NOTIFY_SOCKET_FILE);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int one = 1;

        if (!path)
                return -ENOMEM;
        if (strlen(path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        (void) unlink(path);
        if (bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                return negative_errno();
        /* Only the helper's own datagrams count. */
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
                return negative_errno();
        *ret_path = TAKE_PTR(path);
        return TAKE_FD(fd);
}

struct notify_state {
        bool ready;
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
                        const char *v;

                        next = strchr(line, '\n');
                        if (next)
                                *next++ = 0;
                        if (streq(line, "READY=1"))
                                st->ready = true;
                        else if ((v = startswith(line, "ERRNO=")))
                                st->errno_value = atoi(v);
                        else if ((v = startswith(line, "STATUS="))) {
                                snprintf(st->status, sizeof st->status, "%s", v);
                                if (progress)
                                        fprintf(stderr, "[%6.2fs] %s\n", (double) (now_usec() - t0) / 1e6, v);
                        }
                }
        }
}

static char *read_last_error(int runtime_fd) {
        char *text = NULL;

        if (read_full_file_at(runtime_fd, "last-error", &text, NULL, 4096) < 0)
                return NULL;
        text[strcspn(text, "\n")] = 0;
        return text;
}

static const char *helper_path(void) {
        const char *e = getenv("BOTDESK_HELPER");

        return e && *e ? e : BOTDESK_HELPER_PATH;
}

int standalone_start(const char *profile, const struct bd_paths *p, int runtime_fd, unsigned timeout_sec,
                     bool progress, char **ret_error, int *ret_exit_status) {
        _cleanup_close_ int notify_fd = -EBADF, log_fd = -EBADF, pidfd = -EBADF;
        _cleanup_free_ char *notify_path = NULL;
        _cleanup_strv_free_ char **env = NULL;
        struct helper_record rec = {};
        struct notify_state st = {};
        struct spawn_opts o = SPAWN_OPTS_INIT;
        unsigned long long t0 = now_usec(), deadline = t0 + (unsigned long long) timeout_sec * 1000000ULL;
        char *argv[] = { (char *) helper_path(), (char *) profile, NULL };
        extern char **environ;
        pid_t pid;
        int r;

        *ret_error = NULL;
        *ret_exit_status = 0;
        if (helper_record_read_at(runtime_fd, &rec) >= 0) {
                r = helper_alive(runtime_fd, &rec);
                helper_record_done(&rec);
                if (r > 0)
                        return 1;
        }

        notify_fd = notify_socket_open(p, &notify_path);
        if (notify_fd < 0)
                return notify_fd;
        log_fd = openat(runtime_fd, "helper.log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (log_fd < 0)
                return negative_errno();

        /* The helper belongs to the desktop: it gets the same clean
         * environment, plus what decides where the desktop's files are and
         * botdesk's own settings. The caller's credentials stay behind. */
        {
                _cleanup_strv_free_ char **extra = NULL;
                static const char *const pass[] = {
                        "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "AGENT_BROWSER_EXECUTABLE_PATH=",
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
        r = env_set(&env, "NOTIFY_SOCKET", notify_path);
        if (r < 0)
                return r;

        o.argv = argv;
        o.envp = env;
        o.new_session = true;
        o.stdout_fd = log_fd;
        o.stderr_fd = log_fd;
        o.cwd = "/";
        r = spawn(&o, &pid);
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
                        *ret_error = strdup_printf("Desktop %s was not ready within %u s; stopped it. %s", profile,
                                                   timeout_sec, st.status);
                        r = -ETIMEDOUT;
                        break;
                }
                if (poll(pfd, 2, (int) ((deadline - now + 999) / 1000)) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = negative_errno();
                        break;
                }
                if (pfd[0].revents)
                        notify_receive(notify_fd, pid, &st, progress, t0);
                if (st.ready) {
                        r = 0;
                        break;
                }
                if (pfd[1].revents) {
                        int status = 0;

                        /* Datagrams sent just before exit are still queued. */
                        notify_receive(notify_fd, pid, &st, progress, t0);
                        (void) waitpid(pid, &status, 0);
                        *ret_exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
                        *ret_error = read_last_error(runtime_fd);
                        if (!*ret_error)
                                *ret_error = strdup_printf("botdesk-helper %s exited before the desktop was ready; see %s/helper.log",
                                                           st.status[0] ? st.status : "", p->runtime);
                        r = -EIO;
                        break;
                }
        }
        (void) unlink(notify_path);
        return r;
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
                _cleanup_free_ char *unit = unit_name_for(profile), *state = NULL, *result = NULL;

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

        /* Whatever the helper did or could not do: nothing of the desktop may
         * remain. A unit's cgroup is systemd's to kill (it may already host
         * the next generation), so only the token is used there. */
        if (unit_placed) {
                free(rec.cgroup);
                rec.cgroup = NULL;
        }
        r = rec.pid > 0 ? helper_reap_leftovers(&rec) : 0;
        /* A killed helper could not remove its server's lock and socket;
         * other allocators look only at the lock. Removed only when the
         * process it names is gone. */
        if (r >= 0 && rec.display >= 0)
                (void) display_remove_stale_lock(&alloc_env_default, (unsigned) rec.display);
        helper_record_done(&rec);
        if (r < 0)
                return r;
        (void) unlinkat(runtime_fd, "env", 0);
        (void) unlinkat(runtime_fd, "rfb.sock", 0);
        (void) unlinkat(runtime_fd, HELPER_RECORD_FILE, 0);
        return ret;
}

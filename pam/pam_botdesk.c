/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_botdesk: the session module of botdesk's logind tier.
 *
 * Stack order: pam_loginuid, pam_limits, pam_botdesk, pam_systemd. In a
 * botdesk session (BOTDESK_PROFILE in the PAM environment, put there by
 * botdesk-session@.service's Environment=) open validates the profile and
 * /etc/botdesk.ini, kills a leftover session of the same profile, reserves a
 * display number in the band under the host-wide allocation lock, and tells
 * pam_systemd what session this is (PAM_XDISPLAY, XDG_SESSION_TYPE/CLASS/
 * DESKTOP), and the helper which number is its own (BOTDESK_DISPLAY).
 *
 * Close empties the session's scope (SIGTERM, a grace of a second watched
 * through cgroup.events, SIGKILL) and drops the reservation. A SIGKILLed main
 * process leaves the session "closing" with its other processes alive, and
 * logind's TerminateSession does not touch a closing session (measured), so
 * this is where the reaping happens. systemd runs the close hook in its
 * "(sd-pam)" process, which has dropped privileges to the session's user:
 * everything at close therefore also works unprivileged (signals to the
 * user's own processes, logind's KillSession which the owner may call), and
 * a reservation that only root may remove is left to the next open, which
 * drops reservations whose opener and session are both gone.
 *
 * Arguments: debug, config=PATH (default /etc/botdesk.ini), rundir=PATH
 * (default /run/botdesk). No exit(), no setenv(), no static mutable state,
 * no fd or bus connection outlives a call.
 */
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-login.h>

#include "alloc.h"
#include "cgroup.h"
#include "config.h"
#include "profile.h"
#include "reservation.h"
#include "util.h"

#define DEFAULT_RUNDIR "/run/botdesk"
#define DATA_NAME "pam_botdesk.session"
#define SYSTEM_BUS_SOCKET "/run/dbus/system_bus_socket"
#define SESSION_SERVICE "botdesk"
/* How long a session gets between SIGTERM and SIGKILL, and after SIGKILL. */
#define GRACE_USEC (1000 * 1000ULL)
#define KILL_WAIT_USEC (1000 * 1000ULL)
#define SESSION_ID_MAX 64

struct args {
        bool debug;
        const char *config;
        const char *rundir;
};

/* What open hands to close (pam_set_data). Plain memory, freed by libpam. */
struct session_data {
        unsigned display;
        pid_t pid;
        uid_t uid;
        char profile[PROFILE_NAME_MAX + 1];
};

#define log_debug_pam(a, pamh, ...)                                     \
        do {                                                            \
                if ((a)->debug)                                         \
                        pam_syslog((pamh), LOG_DEBUG, __VA_ARGS__);     \
        } while (0)

/* pam_syslog with %m naming error (a negative errno). */
#define log_errno_pam(pamh, level, error, ...)                          \
        ({                                                              \
                int _e_ = (error);                                      \
                errno = _e_ < 0 ? -_e_ : _e_;                           \
                pam_syslog((pamh), (level), __VA_ARGS__);               \
                _e_ < 0 ? _e_ : -_e_;                                   \
        })

static void parse_args(pam_handle_t *pamh, int argc, const char **argv, struct args *a) {
        *a = (struct args) {
                .config = CONFIG_SYSTEM_PATH,
                .rundir = DEFAULT_RUNDIR,
        };

        for (int i = 0; i < argc; i++) {
                const char *v;

                if (streq(argv[i], "debug"))
                        a->debug = true;
                else if ((v = startswith(argv[i], "config=")) && v[0] == '/')
                        a->config = v;
                else if ((v = startswith(argv[i], "rundir=")) && v[0] == '/')
                        a->rundir = v;
                else
                        pam_syslog(pamh, LOG_WARNING, "Unknown or invalid module argument '%s', ignoring.", argv[i]);
        }
}

/* A copy of untrusted text that is safe to log: printable ASCII, bounded. */
static void sanitize(const char *s, char *buf, size_t size) {
        size_t i;

        for (i = 0; s[i] && i + 1 < size; i++)
                buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        buf[i] = '\0';
}

static bool session_id_valid(const char *id) {
        size_t i;

        if (!id || !id[0])
                return false;
        for (i = 0; id[i]; i++)
                if (i >= SESSION_ID_MAX ||
                    !((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9')))
                        return false;
        return true;
}

/*
 * The run directory and its reservations/ must belong to us (root in
 * production) and be writable by nobody else: whoever can write there can
 * plant or remove reservations. tmpfiles.d creates both; a missing one is
 * created here.
 */
static int dir_ensure_private(const char *path) {
        struct stat st;

        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        if (lstat(path, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
                return -EPERM;
        return 0;
}

/* ---- logind ------------------------------------------------------------------------------- */

static bool logind_running(void) {
        /* What sd-login itself checks: systemd is PID 1 and logind made its seats dir. */
        return sd_booted() > 0 && access("/run/systemd/seats/", F_OK) >= 0;
}

/*
 * A private connection to the system bus whose socket is above fd 2 (a PAM
 * application may call us with stdio closed, and a bus on fd 1 would get the
 * application's output). The caller closes it with sd_bus_flush_close_unref.
 */
static int bus_open_system(sd_bus **ret) {
        static const struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SYSTEM_BUS_SOCKET };
        _cleanup_close_ int fd = -EBADF;
        sd_bus *bus = NULL;
        int r;

        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        r = fd_move_above_stdio(fd);
        if (r < 0)
                return r;
        fd = r;
        if (connect(fd, (const struct sockaddr *) &sa,
                    offsetof(struct sockaddr_un, sun_path) + sizeof(SYSTEM_BUS_SOCKET)) < 0)
                return negative_errno();

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_fd(bus, fd, fd);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        TAKE_FD(fd); /* the bus closes it from now on */
        r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

/* logind's KillSession(id, "all", sig): permitted to root and to the session's owner. */
static int logind_kill_session(pam_handle_t *pamh, const struct args *a, const char *id, int sig) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int r;

        r = bus_open_system(&bus);
        if (r < 0) {
                errno = -r;
                log_debug_pam(a, pamh, "Cannot connect to the system bus: %m");
                return r;
        }
        r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                               "org.freedesktop.login1.Manager", "KillSession", &error, NULL,
                               "ssi", id, "all", (int32_t) sig);
        if (r < 0)
                log_debug_pam(a, pamh, "KillSession(%s, all, %s) failed: %s", id, sigabbrev_np(sig) ?: "?",
                              error.message ?: strerrordesc_np(-r) ?: "unknown error");
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return r;
}

/* The botdesk session on display :n: 1 (id and uid set), 0 none, -errno. */
static int session_by_display(unsigned n, char **ret_id, uid_t *ret_uid) {
        _cleanup_strv_free_ char **ids = NULL;
        char want[16];
        int r;

        snprintf(want, sizeof want, ":%u", n);
        r = sd_get_sessions(&ids);
        if (r < 0)
                return r;
        for (char **i = ids; i && *i; i++) {
                _cleanup_free_ char *service = NULL, *display = NULL;
                uid_t uid;

                if (sd_session_get_service(*i, &service) < 0 || !streq(service, SESSION_SERVICE))
                        continue;
                if (sd_session_get_display(*i, &display) < 0 || !streq(display, want))
                        continue;
                if (sd_session_get_uid(*i, &uid) < 0)
                        continue;
                if (ret_id) {
                        *ret_id = strdup(*i);
                        if (!*ret_id)
                                return -ENOMEM;
                }
                if (ret_uid)
                        *ret_uid = uid;
                return 1;
        }
        return 0;
}

/* ---- emptying a session's scope ----------------------------------------------------------- */

/* The scope's cgroup path below the v2 mount ("/user.slice/user-UID.slice/session-ID.scope"). */
static char *scope_path(const char *id, uid_t uid) {
        return strdup_printf("/user.slice/user-%u.slice/session-%s.scope", (unsigned) uid, id);
}

/* Append every pid of cg and below, never ourselves, to *pids. */
static int cgroup_pids(const char *cg, pid_t **pids, size_t *n) {
        _cleanup_free_ char *procs = NULL, *text = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        procs = strdup_printf("%s/cgroup.procs", cg);
        if (!procs)
                return -ENOMEM;
        r = read_full_file(procs, &text, NULL, 1 << 20);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (char *s = text, *e; *s; s = e) {
                long pid = strtol(s, &e, 10);

                if (e == s)
                        break;
                if (pid > 0 && (pid_t) pid != getpid()) {
                        pid_t *grown = reallocarray(*pids, *n + 1, sizeof(pid_t));

                        if (!grown)
                                return -ENOMEM;
                        *pids = grown;
                        (*pids)[(*n)++] = (pid_t) pid;
                }
                while (*e == '\n')
                        e++;
        }
        d = opendir(cg);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        while ((de = readdir(d))) {
                _cleanup_free_ char *sub = NULL;

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                sub = strdup_printf("%s/%s", cg, de->d_name);
                if (!sub)
                        return -ENOMEM;
                r = cgroup_pids(sub, pids, n);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Signal every process of cg and below, never ourselves. Returns how many were signalled. */
static int cgroup_signal_tree(const char *cg, int sig) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int k = 0, r;

        r = cgroup_pids(cg, &pids, &n);
        for (size_t i = 0; i < n; i++)
                if (kill(pids[i], sig) >= 0)
                        k++;
        return r < 0 ? r : k;
}

#define WAIT_PIDFDS_MAX 256

/*
 * Wait until every process of cg but us has exited, up to timeout_usec. For
 * when we are inside cg ourselves, so that cgroup.events never says empty:
 * one pidfd per process, and a fresh look at the cgroup each time one exits.
 * 0 when none is left, -ETIMEDOUT.
 */
static int cgroup_wait_others(const char *cg, unsigned long long timeout_usec) {
        unsigned long long deadline = now_usec() + timeout_usec;

        for (;;) {
                _cleanup_free_ pid_t *pids = NULL;
                struct pollfd pfd[WAIT_PIDFDS_MAX];
                size_t n = 0, k = 0, alive = 0;
                unsigned long long now;
                int r;

                r = cgroup_pids(cg, &pids, &n);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n && k < WAIT_PIDFDS_MAX; i++) {
                        int fd = pidfd_open(pids[i], 0);

                        if (fd >= 0)
                                pfd[k++] = (struct pollfd) { .fd = fd, .events = POLLIN };
                        else if (errno != ESRCH)
                                alive++; /* cannot watch it: count it as alive */
                }
                if (k == 0 && alive == 0)
                        return 0;

                now = now_usec();
                r = now < deadline ? poll(pfd, k, (int) ((deadline - now + 999) / 1000)) : 0;
                for (size_t i = 0; i < k; i++) {
                        if (!(pfd[i].revents & POLLIN))
                                alive++;
                        safe_close(pfd[i].fd);
                }
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                /* Everyone we saw has exited (even if still listed as a zombie). */
                if (alive == 0)
                        return 0;
                if (now_usec() >= deadline)
                        return -ETIMEDOUT;
        }
}

/*
 * SIGKILL to the whole scope at once (root only). Not the library's
 * cgroup_kill(), which kills only cgroups named as botdesk's own: this scope
 * is ours to kill because logind and the PAM handle say whose session it is.
 */
static int scope_kill(const char *cg) {
        _cleanup_free_ char *p = strdup_printf("%s/cgroup.kill", cg);
        _cleanup_close_ int fd = -EBADF;

        if (!p)
                return -ENOMEM;
        fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (write(fd, "1", 1) != 1)
                return negative_errno();
        return 0;
}

/*
 * Empty the scope of logind session id (owned by uid). graceful: SIGTERM and
 * up to GRACE_USEC to exit first. Then SIGKILL through the scope's
 * cgroup.kill (root only), else logind's KillSession (root or the owner),
 * else a signal to each process (the owner), and wait until the cgroup is
 * empty. Returns 0 when empty (or nothing is left to watch), -errno.
 * (cgroup_wait_empty() may also try cgroup_kill() on it, which the library
 * refuses for a scope: harmless, the wait stays a wait.)
 */
static int session_reap(pam_handle_t *pamh, const struct args *a, const char *id, uid_t uid, bool graceful) {
        _cleanup_free_ char *mount = NULL, *rel = NULL, *cg = NULL, *self = NULL;
        struct stat st;
        bool inside;
        int r;

        if (!session_id_valid(id))
                return -EINVAL;
        rel = scope_path(id, uid);
        if (!rel)
                return -ENOMEM;
        r = cgroup_v2_mount(&mount);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                cg = strdup_printf("%s%s", mount, rel);
                if (!cg)
                        return -ENOMEM;
                if (stat(cg, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        log_debug_pam(a, pamh, "No cgroup %s for session %s; relying on logind.", cg, id);
                        free(cg);
                        cg = NULL;
                }
        } else
                log_debug_pam(a, pamh, "No cgroup v2 hierarchy; relying on logind to kill session %s.", id);

        /* A PAM application that pam_systemd moved into the scope itself (login,
         * sshd) must not kill itself: then only the others are signalled. */
        inside = cgroup_path_of(0, &self) >= 0 &&
                 startswith(self, rel) && (self[strlen(rel)] == '\0' || self[strlen(rel)] == '/');
        if (inside) {
                /* systemd's sd-pam, which runs close, lives in the scope too. */
                log_debug_pam(a, pamh, "Running inside session %s's scope: signalling its other processes.", id);
                if (!cg)
                        return 0;
                if (graceful) {
                        (void) cgroup_signal_tree(cg, SIGTERM);
                        if (cgroup_wait_others(cg, GRACE_USEC) >= 0)
                                return 0;
                }
                /* A pid walk races with forks: a few rounds. */
                for (unsigned round = 0; round < 3; round++) {
                        (void) cgroup_signal_tree(cg, SIGKILL);
                        r = cgroup_wait_others(cg, KILL_WAIT_USEC / 3);
                        if (r >= 0)
                                return 0;
                }
                return log_errno_pam(pamh, LOG_WARNING, r, "Session %s still has processes in %s: %m", id, cg);
        }

        if (graceful) {
                log_debug_pam(a, pamh, "Sending SIGTERM to session %s.", id);
                if (logind_kill_session(pamh, a, id, SIGTERM) < 0 && cg)
                        (void) cgroup_signal_tree(cg, SIGTERM);
                /* Without a cgroup to watch, logind's SIGKILL below ends it at once. */
                if (cg && cgroup_wait_empty(cg, GRACE_USEC) >= 0)
                        return 0;
        }

        log_debug_pam(a, pamh, "Sending SIGKILL to session %s.", id);
        r = cg ? scope_kill(cg) : -ENOENT;
        if (r < 0 && cg) {
                errno = -r;
                log_debug_pam(a, pamh, "Cannot write %s/cgroup.kill (%m); asking logind.", cg);
        }
        if (r < 0 && logind_kill_session(pamh, a, id, SIGKILL) < 0 && cg)
                (void) cgroup_signal_tree(cg, SIGKILL);
        if (!cg)
                return 0;
        r = cgroup_wait_empty(cg, KILL_WAIT_USEC);
        if (r == -ETIMEDOUT) {
                /* Unprivileged and without logind: the pid walk races with forks; once more. */
                (void) cgroup_signal_tree(cg, SIGKILL);
                r = cgroup_wait_empty(cg, KILL_WAIT_USEC);
        }
        if (r < 0)
                return log_errno_pam(pamh, LOG_WARNING, r, "Session %s still has processes in %s: %m", id, cg);
        return 0;
}

/* ---- open --------------------------------------------------------------------------------- */

/*
 * Kill leftovers of this profile: each reservation naming it belongs to an
 * earlier session (a unit instance runs once; a new open means the old main
 * process is gone). Its logind session, if any, is killed; a session of
 * another user holding this profile's number refuses the open instead.
 * *preferred is set to the leftover's number, so the profile keeps its display.
 */
static int reap_leftovers(pam_handle_t *pamh, const struct args *a, const char *resdir, const char *profile,
                          uid_t uid, bool logind, int *preferred) {
        struct reservation *l = NULL;
        size_t n = 0;
        int r, ret = 0;

        r = reservation_list(resdir, &l, &n);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r, "Cannot read the reservations in %s: %m", resdir);

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *id = NULL;
                uid_t owner = (uid_t) -1;

                if (!streq_ptr(l[i].profile, profile))
                        continue;

                if (logind) {
                        r = session_by_display(l[i].display, &id, &owner);
                        if (r == -ENOMEM) {
                                ret = r;
                                break;
                        }
                        if (r > 0 && owner != uid) {
                                pam_syslog(pamh, LOG_ERR,
                                           "Display :%u of profile %s is held by session %s of uid %u, refusing a second session.",
                                           l[i].display, profile, id, (unsigned) owner);
                                ret = -EBUSY;
                                break;
                        }
                        if (r > 0) {
                                pam_syslog(pamh, LOG_NOTICE, "Killing the leftover session %s (display :%u) of profile %s.",
                                           id, l[i].display, profile);
                                (void) session_reap(pamh, a, id, owner, false);
                        }
                }

                r = reservation_remove(resdir, &l[i]);
                if (r < 0) {
                        ret = log_errno_pam(pamh, LOG_ERR, r, "Cannot remove the leftover reservation %s/%u: %m",
                                            resdir, l[i].display);
                        break;
                }
                log_debug_pam(a, pamh, "Removed the leftover reservation of display :%u (profile %s).",
                              l[i].display, profile);
                if (*preferred < 0)
                        *preferred = (int) l[i].display;
        }

        reservations_free(l, n);
        return ret;
}

/*
 * Drop reservations of other profiles whose opener is dead and whose session
 * is gone: left behind when close ran unprivileged (systemd's sd-pam) or not
 * at all. Runs under the allocation lock, so no open is half-way.
 */
static void sweep_stale(pam_handle_t *pamh, const struct args *a, const char *resdir, bool logind) {
        struct reservation *l = NULL;
        size_t n = 0;

        if (reservation_list(resdir, &l, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                if (!l[i].profile)
                        continue; /* alloc_reserve's, or not ours: alloc.c decides */
                if (l[i].pid > 0 && pid_alive("/proc", l[i].pid))
                        continue;
                if (logind && session_by_display(l[i].display, NULL, NULL) != 0)
                        continue; /* still there (closing), or cannot tell */
                if (reservation_remove(resdir, &l[i]) > 0)
                        log_debug_pam(a, pamh, "Removed the stale reservation of display :%u (profile %s).",
                                      l[i].display, l[i].profile);
        }
        reservations_free(l, n);
}

static void data_free(pam_handle_t *pamh, void *data, int error_status) {
        free(data);
}

static int open_session(pam_handle_t *pamh, const struct args *a, const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_free_ char *resdir = NULL;
        _cleanup_free_ struct session_data *data = NULL;
        _cleanup_close_ int lock_fd = -EBADF;
        struct config_errors errs = {};
        const struct config_sources src = {
                .system_path = a->config,
                .user_path = "", /* host-wide decisions: no user file */
                .root_context = true,
        };
        struct reservation mine = {};
        const struct passwd *pw;
        const void *item = NULL;
        const char *user;
        char buf[64], xdisplay[16], number[32];
        int preferred = -1, n, r;
        bool logind;

        if (!profile_name_valid(profile)) {
                sanitize(profile, buf, sizeof buf);
                pam_syslog(pamh, LOG_ERR,
                           "Invalid profile name \"%s\" in BOTDESK_PROFILE (allowed: 1-%u characters of A-Z a-z 0-9 _ -, starting with a letter or digit).",
                           buf, PROFILE_NAME_MAX);
                return -EINVAL;
        }

        r = pam_get_item(pamh, PAM_USER, &item);
        if (r != PAM_SUCCESS || !item || !*(const char *) item) {
                pam_syslog(pamh, LOG_ERR, "No user for botdesk session %s.", profile);
                return -EINVAL;
        }
        user = item;
        pw = pam_modutil_getpwnam(pamh, user);
        if (!pw) {
                sanitize(user, buf, sizeof buf);
                pam_syslog(pamh, LOG_ERR, "Unknown user \"%s\" for botdesk session %s.", buf, profile);
                return -ESRCH;
        }

        r = config_load(&c, profile, &src, &errs);
        if (r < 0) {
                for (size_t i = 0; i < errs.n; i++) {
                        if (errs.items[i].line > 0)
                                pam_syslog(pamh, LOG_ERR, "%s:%u: %s", errs.items[i].file, errs.items[i].line,
                                           errs.items[i].message);
                        else
                                pam_syslog(pamh, LOG_ERR, "%s: %s", errs.items[i].file, errs.items[i].message);
                }
                if (errs.n == 0)
                        log_errno_pam(pamh, LOG_ERR, r, "Cannot load %s: %m", a->config);
                pam_syslog(pamh, LOG_ERR, "Refusing botdesk session %s: the configuration has errors.", profile);
                config_errors_done(&errs);
                return r == -ENOMEM ? r : -EINVAL;
        }
        config_errors_done(&errs);

        if (c.user && !streq(c.user, user) && !streq(c.user, pw->pw_name)) {
                pam_syslog(pamh, LOG_ERR, "Profile %s belongs to user %s (user = in [profile.%s] of %s), refusing a session for %s.",
                           profile, c.user, profile, a->config, pw->pw_name);
                return -EPERM;
        }
        if (!c.user && pw->pw_uid == 0) {
                pam_syslog(pamh, LOG_ERR, "Refusing a botdesk session as root: set user = in [profile.%s] of %s.",
                           profile, a->config);
                return -EPERM;
        }

        resdir = strdup_printf("%s/reservations", a->rundir);
        if (!resdir)
                return -ENOMEM;
        r = dir_ensure_private(a->rundir);
        if (r >= 0)
                r = dir_ensure_private(resdir);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r,
                                     "%s (and its reservations/) must be a directory of uid %u that only it can write: %m",
                                     a->rundir, (unsigned) geteuid());

        logind = logind_running();
        if (!logind)
                log_debug_pam(a, pamh, "logind is not running: no leftover sessions to look for.");

        r = reap_leftovers(pamh, a, resdir, profile, pw->pw_uid, logind, &preferred);
        if (r < 0)
                return r;

        /* Held from the pick until the reservation is written, no longer. */
        lock_fd = alloc_lock_take(a->rundir);
        if (lock_fd < 0)
                return log_errno_pam(pamh, LOG_ERR, lock_fd, "Cannot take the display allocation lock: %m");

        sweep_stale(pamh, a, resdir, logind);

        const struct alloc_env env = {
                .lock_dir = "/tmp",
                .proc_net_unix = "/proc/net/unix",
                .reservation_dir = resdir,
                .proc_root = "/proc",
        };
        n = display_pick(&env, c.band_min, c.band_max, preferred, NULL, 0);
        if (n == -EBUSY) {
                pam_syslog(pamh, LOG_ERR,
                           "No free X display for profile %s in the band %u-%u ([display] band in %s): stop a desktop or widen the band.",
                           profile, c.band_min, c.band_max, a->config);
                return -EBUSY;
        }
        if (n < 0)
                return log_errno_pam(pamh, LOG_ERR, n, "Cannot pick a display for profile %s: %m", profile);

        r = reservation_create(resdir, (unsigned) n, getpid(), pw->pw_uid, profile);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r, "Cannot reserve display :%d in %s: %m", n, resdir);
        lock_fd = safe_close(lock_fd);

        mine = (struct reservation) { .display = (unsigned) n, .pid = getpid(), .uid = pw->pw_uid, .profile = (char *) profile };
        data = calloc(1, sizeof *data);
        if (!data) {
                r = -ENOMEM;
                goto fail;
        }
        *data = (struct session_data) { .display = (unsigned) n, .pid = mine.pid, .uid = mine.uid };
        strcpy(data->profile, profile); /* profile_name_valid: fits */

        snprintf(xdisplay, sizeof xdisplay, ":%d", n);
        snprintf(number, sizeof number, "BOTDESK_DISPLAY=%d", n);
        /* pam_systemd reads these to register an x11 session of class user
         * (without the class the session would be "background"). */
        if (pam_set_item(pamh, PAM_XDISPLAY, xdisplay) != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_TYPE=x11") != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_CLASS=user") != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_DESKTOP=botdesk") != PAM_SUCCESS ||
            pam_putenv(pamh, number) != PAM_SUCCESS) {
                pam_syslog(pamh, LOG_ERR, "Cannot set the PAM items and environment of botdesk session %s.", profile);
                r = -ENOMEM;
                goto fail;
        }
        if (pam_set_data(pamh, DATA_NAME, data, data_free) != PAM_SUCCESS) {
                pam_syslog(pamh, LOG_ERR, "Cannot store the state of botdesk session %s.", profile);
                r = -ENOMEM;
                goto fail;
        }
        TAKE_PTR(data);

        log_debug_pam(a, pamh, "Reserved display :%d for profile %s of %s.", n, profile, pw->pw_name);
        return 0;

fail:
        (void) reservation_remove(resdir, &mine);
        return r;
}

/* ---- close -------------------------------------------------------------------------------- */

static int close_session(pam_handle_t *pamh, const struct args *a, const struct session_data *data) {
        _cleanup_free_ char *resdir = NULL, *found = NULL;
        const struct reservation mine = {
                .display = data->display,
                .pid = data->pid,
                .uid = data->uid,
                .profile = (char *) data->profile,
        };
        const char *id;
        int r, ret = 0;

        /* pam_systemd put the id of the session it registered into the PAM environment. */
        id = pam_getenv(pamh, "XDG_SESSION_ID");
        if (logind_running()) {
                if (!session_id_valid(id)) {
                        uid_t owner = (uid_t) -1;

                        id = NULL;
                        if (session_by_display(data->display, &found, &owner) > 0 && owner == data->uid)
                                id = found;
                }
                if (id) {
                        r = session_reap(pamh, a, id, data->uid, true);
                        if (r < 0)
                                ret = r;
                } else
                        log_debug_pam(a, pamh, "No logind session for display :%u.", data->display);
        } else
                log_debug_pam(a, pamh, "logind is not running: no session scope to empty.");

        resdir = strdup_printf("%s/reservations", a->rundir);
        if (!resdir)
                return -ENOMEM;
        r = reservation_remove(resdir, &mine);
        if (r == -EACCES || r == -EPERM)
                /* systemd's sd-pam runs close as the user: the next open drops it once stale. */
                log_debug_pam(a, pamh, "Cannot remove the reservation of display :%u as uid %u; the next open drops it.",
                              data->display, (unsigned) geteuid());
        else if (r < 0)
                ret = log_errno_pam(pamh, LOG_WARNING, r, "Cannot remove the reservation %s/%u: %m", resdir, data->display);
        else
                log_debug_pam(a, pamh, "Released display :%u of profile %s.", data->display, data->profile);
        return ret;
}

/* ---- entry points ------------------------------------------------------------------------- */

static int pam_code(int r) {
        if (r >= 0)
                return PAM_SUCCESS;
        return r == -ENOMEM ? PAM_BUF_ERR : PAM_SESSION_ERR;
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct args a;
        const char *profile;

        parse_args(pamh, argc, argv, &a);
        profile = pam_getenv(pamh, "BOTDESK_PROFILE");
        if (!profile) {
                log_debug_pam(&a, pamh, "No BOTDESK_PROFILE in the PAM environment: not a botdesk session.");
                return PAM_IGNORE;
        }
        return pam_code(open_session(pamh, &a, profile));
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct session_data fallback = {};
        const void *data = NULL;
        const char *profile, *display;
        unsigned long long v;
        struct args a;
        int r;

        parse_args(pamh, argc, argv, &a);
        if (pam_get_data(pamh, DATA_NAME, &data) != PAM_SUCCESS || !data) {
                _cleanup_free_ char *resdir = NULL;
                struct reservation res = {};

                /* A handle other than the one that opened (a PAM application that
                 * closes from a fresh handle): the environment says which
                 * number, the reservation file must agree on the profile. */
                profile = pam_getenv(pamh, "BOTDESK_PROFILE");
                display = pam_getenv(pamh, "BOTDESK_DISPLAY");
                if (!profile || !display || parse_uint(display, 65535, &v) < 0) {
                        log_debug_pam(&a, pamh, "Not a botdesk session, or nothing was reserved.");
                        return PAM_IGNORE;
                }
                resdir = strdup_printf("%s/reservations", a.rundir);
                if (!resdir)
                        return PAM_BUF_ERR;
                r = reservation_read(resdir, (unsigned) v, &res);
                if (r < 0 || !streq_ptr(res.profile, profile)) {
                        reservation_done(&res);
                        log_debug_pam(&a, pamh, "No reservation of display :%llu for this profile.", v);
                        return PAM_IGNORE;
                }
                fallback = (struct session_data) { .display = (unsigned) v, .pid = res.pid, .uid = res.uid };
                strcpy(fallback.profile, res.profile);
                reservation_done(&res);
                data = &fallback;
        }

        r = close_session(pamh, &a, data);
        if (data != &fallback)
                /* Closed: a second close must not reap again. Frees the data. */
                (void) pam_set_data(pamh, DATA_NAME, NULL, NULL);
        return pam_code(r);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "adopt.h"
#include "adopt-state.h"
#include "adoption.h"
#include "bus-address.h"
#include "exit-status.h"
#include "launchers.h"
#include "log.h"
#include "placement.h"
#include "record.h"
#include "setup.h"
#include "journal-frame-request.h"
#include "lease-settled.h"
#include "socket-util.h"
#include "session-settle.h"
#include "spawn.h"
#include "start.h"
#include "util.h"
#include "xsecurity.h"

/* What of a runtime dir belongs to the desktop and moves with it. The lease
 * and the start lock stay: they are the profile's, not the desktop's. */
static const char *const runtime_moved[] = {
        HELPER_LOCK_FILE, RFB_SOCKET, "bus", "display", "helper.log", "cdp.sock", "activity",
};
/* What a spare's runtime dir holds besides: removed with it. */
static const char *const runtime_dropped[] = {
        HELPER_RECORD_FILE, "env", "Xauthority", "last-error", START_LOCK_FILE, ADOPT_SOCKET, SPARE_SETTINGS_FILE,
        JOURNAL_FRAME_SOCKET,   /* bound again in the profile's dir (start_watch_ready) */
        LEASE_SETTLED_FILE,     /* the spare's lease settled; the profile's is written again (start_watch_ready) */
};


/* Whether profile's effective settings are the spare's, compared as
 * `config show` prints them: the one table decides what a setting is. */
static int config_same(const struct bd_config *spare, const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        struct config_errors errs = {};
        _cleanup_free_ char *a = NULL, *b = NULL;
        int r;

        r = config_load(&c, profile, &(const struct config_sources) {}, &errs);
        config_errors_done(&errs);
        if (r < 0)
                return r;
        a = config_dump_text(spare);
        b = config_dump_text(&c);
        if (!a || !b)
                return -ENOMEM;
        return streq(a, b);
}

static const char *last_component(const char *path) {
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

struct target {
        const char *profile;
        struct bd_paths paths;
        struct session_dirs dirs;
        int runtime_fd;
        bool replace_state;     /* its session state is a fresh session's: the spare's replaces it */
};

static void target_done(struct target *t) {
        paths_done(&t->paths);
        session_dirs_done(&t->dirs);
        safe_close(t->runtime_fd);
}

/* Whether the profile's xdg/ is what the spare's fresh session made. */
static int state_is_fresh(struct supervisor *s, const struct target *t, int state_fd) {
        _cleanup_close_ int mine = -EBADF, spare = -EBADF;
        _cleanup_free_ char *pr = strdup_printf("%s/", t->paths.runtime), *sr = strdup_printf("%s/", s->paths.runtime);
        _cleanup_free_ char *ps = strdup_printf("%s/", t->paths.state), *ss = strdup_printf("%s/", s->paths.state);
        _cleanup_free_ char *spare_xdg = strdup_printf("%s/" SESSION_STATE_DIR, s->paths.state);

        if (!pr || !sr || !ps || !ss || !spare_xdg)
                return -ENOMEM;
        mine = openat(state_fd, SESSION_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        spare = open(spare_xdg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (mine < 0 || spare < 0)
                return errno == ENOTDIR || errno == ELOOP ? 0 : negative_errno();
        return session_state_same(mine, spare, &(const struct state_names) {
                .profile_runtime = pr, .spare_runtime = sr, .profile_state = ps, .spare_state = ss,
        });
}

/* Whether the profile's xdg/ is what its own manifest recorded (adopt-state.h). */
static int own_manifest_matches(int state_fd) {
        _cleanup_close_ int fd = openat(state_fd, SESSION_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0)
                return errno == ENOTDIR || errno == ELOOP ? 0 : negative_errno();
        return session_state_manifest_matches(fd);
}

/* Everything that can refuse, before anything moves. */
static int adopt_check(struct supervisor *s, const char *profile, struct target *t, char **ret_why) {
        _cleanup_close_ int state_fd = -EBADF;
        int r;

        if (!s->spare || s->state != DESKTOP_READY)
                return *ret_why = strdup("this desktop is no longer a ready spare"), -EBUSY;
        if (!profile_name_valid(profile))
                return *ret_why = strdup("invalid profile name"), -EINVAL;
        r = config_same(&s->cfg, profile);
        if (r < 0)
                return *ret_why = strdup_printf("cannot load the configuration of %s", profile), r;
        if (r == 0)
                return *ret_why = strdup_printf("%s has settings of its own", profile), -EXDEV;
        t->profile = profile;
        r = paths_for_profile(profile, &t->paths);
        if (r >= 0)
                r = paths_ensure(&t->paths);
        if (r < 0)
                return *ret_why = strdup_printf("cannot make the dirs of %s", profile), r;
        t->runtime_fd = open(t->paths.runtime, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (t->runtime_fd < 0)
                return *ret_why = strdup_printf("cannot open %s", t->paths.runtime), negative_errno();
        r = helper_lock_held(t->runtime_fd);
        if (r != 0)
                return *ret_why = strdup_printf("%s already has a desktop", profile), r < 0 ? r : -EALREADY;
        state_fd = open(t->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (state_fd < 0)
                return *ret_why = strdup_printf("cannot open %s", t->paths.state), negative_errno();
        if (faccessat(state_fd, SESSION_STATE_DIR, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
                r = state_is_fresh(s, t, state_fd);
                if (r == 0)
                        r = own_manifest_matches(state_fd);
                if (r < 0)
                        return *ret_why = strdup_printf("cannot compare the session state of %s", profile), r;
                if (r == 0)
                        return *ret_why = strdup_printf("%s has session state of its own", profile), -EEXIST;
                t->replace_state = true;
        }
        r = session_dirs_for(&t->paths, &t->dirs);
        if (r < 0)
                return *ret_why = strdup("out of memory"), r;
        return 0;
}

/* The session state: moved under the profile's state dir, and a link left
 * where the session's processes look for it. */
static int move_state(struct supervisor *s, struct target *t) {
        _cleanup_close_ int from = -EBADF, to = -EBADF;
        _cleanup_free_ char *target = strdup_printf("%s/" SESSION_STATE_DIR, t->paths.state);

        if (!target)
                return -ENOMEM;
        from = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        to = open(t->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (from < 0 || to < 0)
                return negative_errno();
        if (!t->replace_state) {
                if (renameat(from, SESSION_STATE_DIR, to, SESSION_STATE_DIR) < 0)
                        return negative_errno();
        } else {
                /* One step, so that the profile is never without its state;
                 * what comes back is the same as what goes in, and goes. */
                if (renameat2(from, SESSION_STATE_DIR, to, SESSION_STATE_DIR, RENAME_EXCHANGE) < 0)
                        return negative_errno();
                if (remove_tree_at(from, SESSION_STATE_DIR) < 0)
                        log_warning("Cannot remove the profile's former session state, moved to %s/%s.",
                                    s->paths.state, SESSION_STATE_DIR);
        }
        if (symlinkat(target, from, SESSION_STATE_DIR) < 0)
                log_warning_errno(errno, "Cannot link %s/%s to %s (%m); programs started from the dock will not "
                                  "find their settings.", s->paths.state, SESSION_STATE_DIR, target);
        return 0;
}

/* The spare's runtime dir (old, after the swap) becomes a link to the profile's. */
static void leave_runtime_link(const struct target *old, const char *profile, const char *runtime) {
        _cleanup_close_ int base = dir_open_parent(old->paths.runtime);
        const char *name = last_component(old->paths.runtime);

        for (size_t i = 0; i < ELEMENTSOF(runtime_dropped); i++)
                (void) unlinkat(old->runtime_fd, runtime_dropped[i], 0);
        if (base < 0 || unlinkat(base, name, AT_REMOVEDIR) < 0 || symlinkat(profile, base, name) < 0)
                log_warning_errno(base < 0 ? base : -errno, "Cannot leave %s as a link to %s (%m); programs "
                                  "started from the dock will not reach the display.", old->paths.runtime, runtime);
}

static void adopt_stop_listening(struct supervisor *s);

static int adopt(struct supervisor *s, const char *profile, char **ret_why) {
        _cleanup_(target_done) struct target t = { .runtime_fd = -EBADF };
        _cleanup_close_ int spare_lock = -EBADF;
        _cleanup_strv_free_ char **browser_cmd = NULL;
        _cleanup_free_ char *new_bus_socket = NULL, *new_address = NULL;
        unsigned long long t0 = now_usec();
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        int r;

        /* The spare's start lock, without waiting: a `botdesk` that holds
         * it is stopping the spare (pool drain, a fill retiring it), which
         * must not end a profile's desktop instead. Held to the end. */
        spare_lock = lock_file_at(s->runtime_fd, START_LOCK_FILE, false);
        if (spare_lock < 0)
                return *ret_why = strdup("the spare is being stopped"), spare_lock == -EBUSY ? -EBUSY : spare_lock;
        r = adopt_check(s, profile, &t, ret_why);
        if (r < 0)
                return r;
        r = xsecurity_new_cookie(s->x.conn, cookie, NULL);
        if (r < 0)
                return *ret_why = strdup("the X server cannot make a cookie (SECURITY)"), r;
        r = xauth_write_at(t.runtime_fd, "Xauthority", (unsigned) s->display, cookie);
        if (r < 0)
                return *ret_why = strdup_printf("cannot write %s", t.paths.xauthority), r;
        new_bus_socket = strdup_printf("%s/bus", t.paths.runtime);
        new_address = new_bus_socket ? bus_address_moved(s->bus_address, s->bus_socket, new_bus_socket) : NULL;
        if (!new_address) {
                (void) unlinkat(t.runtime_fd, "Xauthority", 0);
                return *ret_why = strdup("out of memory"), -ENOMEM;
        }
        r = move_state(s, &t);
        if (r < 0) {
                (void) unlinkat(t.runtime_fd, "Xauthority", 0);
                return *ret_why = strdup_printf("cannot move the session state to %s", t.paths.state), r;
        }

        /* From here on the desktop is the profile's: nothing is undone, a
         * failure ends it. The helper lock goes first, so that the
         * profile's dir is never without an owner once it has a record. */
        for (size_t i = 0; i < ELEMENTSOF(runtime_moved); i++)
                if (renameat(s->runtime_fd, runtime_moved[i], t.runtime_fd, runtime_moved[i]) < 0 && errno != ENOENT) {
                        r = negative_errno();
                        *ret_why = strdup_printf("cannot move %s/%s: %s", s->paths.runtime, runtime_moved[i], strerror(-r));
                        supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot become the desktop of %s: %s", profile, *ret_why);
                        return r;
                }

        adopt_stop_listening(s);
        s->alias = strdup(s->profile);
        s->adopted_profile = strdup(profile);
        if (!s->alias || !s->adopted_profile) {
                *ret_why = strdup("out of memory");
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot become the desktop of %s: out of memory", profile);
                return -ENOMEM;
        }
        s->profile = s->adopted_profile;
        s->spare = false;
        /* Swapped: s holds the profile's paths, t the spare's, which go at the end. */
        {
                struct bd_paths p = s->paths;
                struct session_dirs d = s->dirs;
                int fd = s->runtime_fd;

                s->paths = t.paths;
                s->dirs = t.dirs;
                s->runtime_fd = t.runtime_fd;
                t.paths = p;
                t.dirs = d;
                t.runtime_fd = fd;
        }
        free(s->bus_socket);
        s->bus_socket = TAKE_PTR(new_bus_socket);
        free(s->bus_address);
        s->bus_address = TAKE_PTR(new_address);

        /* A component restarted from now on gets the profile's paths. */
        strv_free(s->env);
        s->env = NULL;
        r = session_env(s->profile, (unsigned) s->display, &s->paths, &s->dirs, s->token, s->cfg.accessibility, &s->env);
        if (r >= 0)
                r = env_set(&s->env, "DBUS_SESSION_BUS_ADDRESS", s->bus_address);
        /* The record first: from now on nothing of the desktop is without one. */
        if (r >= 0)
                r = placement_write_record(s);
        if (r >= 0)
                leave_runtime_link(&t, profile, s->paths.runtime);
        if (r >= 0)
                r = setup_browser(s, &browser_cmd);
        if (r >= 0 && browser_cmd)
                /* The dock's browser launcher names the spare's dirs. */
                r = launchers_refresh_browser(s->dirs.config_home, browser_cmd);
        if (r >= 0)
                r = start_write_published(s);
        if (r < 0) {
                *ret_why = strdup_printf("cannot publish the desktop of %s: %s", profile, strerror(-r));
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot become the desktop of %s: %s", profile, strerror(-r));
                return r;
        }
        /* Still a fresh session's state, but for the launcher just written. */
        session_settle_record(s);
        start_watch_ready(s);
        log_info("Desktop :%d adopted as %s in %.1f ms.", s->display, profile, (double) (now_usec() - t0) / 1000.0);
        (void) sd_notifyf(false, "STATUS=Desktop :%d of %s ready (adopted spare %s)", s->display, profile, s->alias);
        return 0;
}

/* ---- the socket --------------------------------------------------------------------------- */

static void reply(int fd, int error, const char *why) {
        char msg[ADOPT_MESSAGE_MAX];
        int n;

        if (error == 0)
                n = snprintf(msg, sizeof msg, ADOPT_OK);
        else
                n = snprintf(msg, sizeof msg, ADOPT_NO "%d %s", -error, why ?: strerror(-error));
        (void) send(fd, msg, (size_t) n < sizeof msg ? (size_t) n : sizeof msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static int on_request(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        char msg[ADOPT_MESSAGE_MAX];
        _cleanup_free_ char *why = NULL;
        const char *profile;
        ssize_t n;
        int r;

        n = recv(fd, msg, sizeof msg - 1, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n > 0) {
                msg[n] = 0;
                profile = startswith(msg, ADOPT_REQUEST);
                if (!profile)
                        reply(fd, -EBADMSG, "expected " ADOPT_REQUEST "PROFILE");
                else {
                        r = adopt(s, profile, &why);
                        if (r < 0)
                                log_info("Not adopted as %s: %s.", profile, why ?: strerror(-r));
                        reply(fd, r, why);
                }
        }
        /* One request a connection; adopt() may have closed it already. */
        if (s->adopt_conn_source == source)
                s->adopt_conn_source = sd_event_source_disable_unref(s->adopt_conn_source);
        return 0;
}

static int on_connection(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        struct ucred cred;
        socklen_t len = sizeof cred;
        int conn, r;

        conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (conn < 0)
                return 0;
        /* The dir is 0700 already; a peer of another uid is refused all the same. */
        if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != getuid() ||
            s->adopt_conn_source) {
                close(conn);
                return 0;
        }
        r = sd_event_add_io(s->event, &s->adopt_conn_source, conn, EPOLLIN, on_request, s);
        if (r < 0) {
                close(conn);
                return 0;
        }
        (void) sd_event_source_set_io_fd_own(s->adopt_conn_source, true);
        return 0;
}

int adopt_listen(struct supervisor *s) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *path = NULL;
        struct sockaddr_un sa;
        int r;

        path = strdup_printf("%s/" ADOPT_SOCKET, s->paths.runtime);
        if (!path)
                return -ENOMEM;
        r = sockaddr_un_set_path(&sa, path);
        if (r < 0)
                return r;
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        (void) unlinkat(s->runtime_fd, ADOPT_SOCKET, 0);
        if (bind(fd, (struct sockaddr *) &sa, (socklen_t) r) < 0 || listen(fd, 4) < 0)
                return negative_errno();
        r = sd_event_add_io(s->event, &s->adopt_source, fd, EPOLLIN, on_connection, s);
        if (r < 0)
                return r;
        s->adopt_fd = TAKE_FD(fd);
        return 0;
}

static void adopt_stop_listening(struct supervisor *s) {
        s->adopt_source = sd_event_source_disable_unref(s->adopt_source);
        if (s->adopt_fd >= 0) {
                (void) unlinkat(s->runtime_fd, ADOPT_SOCKET, 0);
                s->adopt_fd = safe_close(s->adopt_fd);
        }
}

void adopt_done(struct supervisor *s) {
        s->adopt_conn_source = sd_event_source_disable_unref(s->adopt_conn_source);
        adopt_stop_listening(s);
}

/* ---- the spare's paths -------------------------------------------------------------------- */

void adopt_remove_spare_paths(struct supervisor *s, bool failed) {
        if (s->alias)
                paths_remove_spare_alias(s->alias);
        else if (s->spare)
                /* A spare's name is never used again: nothing of it is kept,
                 * but for the reason and log of one that failed. */
                paths_remove_spare(s->profile, !failed);
}

void adopt_spawn_replacement(struct supervisor *s) {
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_close_ int base = -EBADF, log_fd = -EBADF;
        const char *cli = getenv(POOL_CLI_ENV);
        char *argv[] = { (char *) cli, (char *) "pool", (char *) "fill", (char *) "--quiet", NULL };
        extern char **environ;
        pid_t pid;
        int r;

        if (!cli || cli[0] != '/' || env_copy_set(environ, POOL_AFTER_DEATH_ENV, "1", &env) < 0)
                return;
        base = open(s->paths.runtime_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (base >= 0)
                log_fd = openat(base, POOL_LOG_FILE, POOL_LOG_OPEN_FLAGS, 0600);
        r = spawn_detached(argv, env, log_fd, &pid);
        if (r < 0)
                log_warning_errno(r, "Cannot run %s for a replacement (%m); the pool is one short until the next start.", cli);
        else
                log_info("Asked %s (pid %d) for a replacement spare.", cli, (int) pid);
}

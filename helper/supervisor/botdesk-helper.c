/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-helper PROFILE: the supervisor of one desktop.
 *
 * One sd-event loop owns everything: the X server's SIGUSR1 (it listens),
 * child exits (SIGCHLD, reaped here, also for orphans when we are a child
 * subreaper), the session bus's address on a pipe, the window manager's
 * arrival on the root window (PropertyNotify over xcb), the start timeout and
 * SIGTERM. Readiness goes out through sd_notify, to systemd or to the
 * `botdesk start` that spawned us.
 */
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-login.h>

#include "alloc.h"
#include <stdarg.h>

#include "botdesk-config.h"
#include "browser.h"
#include "cgroup.h"
#include "config.h"
#include "envfile.h"
#include "identity.h"
#include "handback.h"
#include "lease.h"
#include "log.h"
#include "memory.h"
#include "packages.h"
#include "procfs.h"
#include "profile.h"
#include "session.h"
#include "spawn.h"
#include "util.h"
#include "x11.h"
#include "xauth.h"
#include "xserver.h"

/* The design's exit code for a refusal (the CLI's EXIT_REFUSED). */
#define EXIT_REFUSED 3
#define MAX_DISPLAY_ATTEMPTS 8
#define STOP_TIMEOUT_USEC (5 * 1000000ULL)
#define RESTART_MAX_DELAY_USEC (30 * 1000000ULL)
#define RESTART_STABLE_USEC (60 * 1000000ULL)

enum phase {
        PHASE_XSERVER,  /* waiting for the X server's SIGUSR1 */
        PHASE_SESSION,  /* bus and session starting, waiting for the WM (or the settle time) */
        PHASE_READY,
        PHASE_STOPPING,
};

struct desktop;

struct child {
        struct desktop *desktop;
        const char *name;
        char **argv;
        pid_t pid;              /* 0 when not running */
        bool essential;         /* its death ends the desktop */
        const struct component_spec *spec;
        unsigned restarts;
        unsigned long long started;
        sd_event_source *restart_timer;
};

struct desktop {
        const char *profile;
        struct bd_config cfg;
        struct bd_paths paths;
        struct session_dirs dirs;
        int runtime_fd;
        int helper_lock_fd;
        int alloc_lock_fd;
        sd_event *event;
        enum phase phase;
        unsigned long long t0;

        /* placement */
        const char *placement;
        char *unit;
        char *cg_parent;        /* where we were started (standalone: we return there to clean up) */
        char *cg_base;          /* the desktop's cgroup, or NULL: process groups + subreaper */
        char *cg_supervisor, *cg_x11, *cg_session, *cg_apps;
        bool own_base;          /* standalone: we created cg_base and remove it */
        bool left_base;         /* and moved ourselves back to cg_parent */
        char token[33];
        unsigned long long started_at;

        /* X */
        char *xserver_path;
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        int display;
        int reserved_display;   /* logind tier: the number pam_botdesk reserved, else -1 */
        unsigned tried[MAX_DISPLAY_ATTEMPTS];
        size_t n_tried;
        pid_t xserver_pid_last; /* for its lock file, after it was reaped */
        struct x11 x;
        sd_event_source *x_source;
        bool wm_up;
        struct handback handback;  /* restores the geometry when control returns to the agent */

        /* the shared browser, published with the env when there is one */
        char *browser;
        char *browser_profile;
        char *cdp_socket;

        /* session */
        char **env;
        char *bus_socket;
        char *bus_address;
        int bus_pipe;
        size_t bus_len;
        char bus_buf[512];
        sd_event_source *bus_source;
        sd_event_source *timeout_source, *settle_source, *idle_source;

        struct child xserver, bus;
        struct child components[8];
        size_t n_components;

        int exit_status;
        char *failure;          /* why the start failed, for last-error */
};

static void desktop_fail(struct desktop *d, int status, const char *fmt, ...) _printf_(3, 4);
static int desktop_start_session(struct desktop *d);
static int child_start(struct desktop *d, struct child *c, const char *cgroup, int keep_fd);

static unsigned long long elapsed_ms(const struct desktop *d) {
        return (now_usec() - d->t0) / 1000;
}

static void notify_status(struct desktop *d, const char *fmt, ...) _printf_(2, 3);
static void notify_status(struct desktop *d, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (!msg)
                return;
        log_info("%s (%llu ms)", msg, elapsed_ms(d));
        (void) sd_notifyf(false, "STATUS=%s", msg);
}

static uint32_t fnv1a32(const char *s) {
        uint32_t h = 2166136261u;

        for (; *s; s++)
                h = (h ^ (uint8_t) *s) * 16777619u;
        return h;
}

/* ---- placement: whose cgroup, which guarantee ---------------------------------------------- */

static int setup_placement(struct desktop *d) {
        _cleanup_free_ char *mount = NULL, *self = NULL, *unit = NULL;
        int r;

        if (sd_pid_get_user_unit(0, &unit) >= 0 && startswith(unit, "botdesk@")) {
                d->placement = "user-unit";
                d->unit = TAKE_PTR(unit);
        } else if (d->reserved_display >= 0) {
                d->placement = "session";
        } else
                d->placement = "standalone";

        r = cgroup_v2_mount(&mount);
        if (r >= 0)
                r = cgroup_path_of(0, &self);
        if (r < 0) {
                log_warning_errno(r, "No cgroup v2 hierarchy usable (%m); falling back to process groups.");
                return 0;
        }
        d->cg_parent = strdup_printf("%s%s", mount, streq(self, "/") ? "" : self);
        if (!d->cg_parent)
                return -ENOMEM;

        if (streq(d->placement, "user-unit") && cgroup_is_unit_of(self, d->unit)) {
                /* A unit with Delegate=yes: the unit's cgroup is ours to divide. */
                d->cg_base = strdup(d->cg_parent);
        } else {
                /* Anywhere else (standalone, a logind scope) only a sub-tree
                 * of our own below the cgroup we were started in, never
                 * moving anyone but us and ours. */
                /* Named after the runtime dir too: one uid may run the
                 * same profile name under two runtime dirs (tests do). */
                d->cg_base = strdup_printf("%s/botdesk-%u-%s-%08x", d->cg_parent, (unsigned) getuid(), d->profile,
                                           fnv1a32(d->paths.runtime));
                d->own_base = true;
        }
        d->cg_supervisor = strdup_printf("%s/supervisor", d->cg_base);
        d->cg_x11 = strdup_printf("%s/x11", d->cg_base);
        d->cg_session = strdup_printf("%s/session", d->cg_base);
        d->cg_apps = strdup_printf("%s/apps", d->cg_base);
        if (!d->cg_supervisor || !d->cg_x11 || !d->cg_session || !d->cg_apps)
                return -ENOMEM;

        if (d->own_base) {
                r = cgroup_create(d->cg_base);
                if (r < 0)
                        goto fallback;
        }
        r = cgroup_create(d->cg_supervisor);
        if (r >= 0)
                r = cgroup_attach(d->cg_supervisor, 0);
        if (r >= 0)
                r = cgroup_create(d->cg_x11);
        if (r >= 0)
                r = cgroup_create(d->cg_session);
        if (r >= 0)
                r = cgroup_create(d->cg_apps);
        if (r >= 0)
                return 0;

fallback:
        log_info("Cannot manage cgroups below %s (%s); using process groups and a child subreaper, which are weaker.",
                 d->cg_parent, strerror(-r));
        if (d->own_base) {
                (void) cgroup_attach(d->cg_parent, 0);
                (void) cgroup_remove(d->cg_base);
        }
        /* Without a base there are no sub-groups either: nothing may name them. */
        free(d->cg_base);
        free(d->cg_supervisor);
        free(d->cg_x11);
        free(d->cg_session);
        free(d->cg_apps);
        d->cg_base = d->cg_supervisor = d->cg_x11 = d->cg_session = d->cg_apps = NULL;
        return 0;
}

/* ---- children ----------------------------------------------------------------------------- */

static struct child *child_by_pid(struct desktop *d, pid_t pid) {
        if (d->xserver.pid == pid)
                return &d->xserver;
        if (d->bus.pid == pid)
                return &d->bus;
        for (size_t i = 0; i < d->n_components; i++)
                if (d->components[i].pid == pid)
                        return &d->components[i];
        return NULL;
}

static const char *child_cgroup(const struct desktop *d, const struct child *c) {
        if (!d->cg_base)
                return NULL;
        return c == &d->xserver ? d->cg_x11 : d->cg_session;
}

static int child_start(struct desktop *d, struct child *c, const char *cgroup, int keep_fd) {
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int r;

        o.argv = c->argv;
        o.envp = d->env;
        o.cgroup = cgroup;
        o.keep_fd = keep_fd;
        /* Without a cgroup, the process group and the parent-death signal are
         * what lets us (or the kernel, if we are SIGKILLed) take it down. */
        o.new_session = true;
        o.pdeathsig = !cgroup;
        o.ignore_sigusr1 = c == &d->xserver;
        r = spawn(&o, &c->pid);
        if (r < 0)
                return r;
        c->started = now_usec();
        log_debug("Started %s as pid %d.", c->name, (int) c->pid);
        return 0;
}

static int on_restart_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct child *c = userdata;
        struct desktop *d = c->desktop;
        int r;

        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        if (d->phase == PHASE_STOPPING)
                return 0;
        r = child_start(d, c, child_cgroup(d, c), -1);
        if (r < 0)
                log_warning_errno(r, "Could not restart %s: %m, leaving it down.", c->name);
        else
                log_notice("Restarted %s (restart %u).", c->name, c->restarts);
        return 0;
}

/* A component that crashes after the desktop is ready comes back, with a
 * back-off that doubles up to 30 s and resets once it stayed up a minute. */
static void child_schedule_restart(struct desktop *d, struct child *c) {
        unsigned long long delay;
        int r;

        if (now_usec() - c->started > RESTART_STABLE_USEC)
                c->restarts = 0;
        delay = 1000000ULL << (c->restarts < 5 ? c->restarts : 5);
        if (delay > RESTART_MAX_DELAY_USEC)
                delay = RESTART_MAX_DELAY_USEC;
        c->restarts++;
        r = sd_event_add_time_relative(d->event, &c->restart_timer, CLOCK_MONOTONIC, delay, 0,
                                       on_restart_timer, c);
        if (r < 0)
                log_warning_errno(r, "Cannot schedule a restart of %s: %m", c->name);
}

static void describe_exit(const siginfo_t *si, char *buf, size_t size) {
        if (si->si_code == CLD_EXITED)
                snprintf(buf, size, "exited with status %d", si->si_status);
        else
                snprintf(buf, size, "was killed by signal %s", sigabbrev_np(si->si_status) ?: "?");
}

/* ---- teardown ----------------------------------------------------------------------------- */

static void kill_children_fallback(struct desktop *d) {
        struct child *all[ELEMENTSOF(d->components) + 2];
        size_t n = 0;

        all[n++] = &d->xserver;
        all[n++] = &d->bus;
        for (size_t i = 0; i < d->n_components; i++)
                all[n++] = &d->components[i];
        /* Each child leads its own process group. */
        for (size_t i = 0; i < n; i++)
                if (all[i]->pid > 0)
                        (void) kill(-all[i]->pid, SIGKILL);
        /* What the bus activated, or what a launcher double-forked, left its
         * group: it still carries our token. */
        (void) kill_by_token(d->token, getuid());
        /* SIGKILL is delivered asynchronously: wait for our own children so
         * that none outlives us, not even as a zombie. */
        for (size_t i = 0; i < n; i++)
                if (all[i]->pid > 0 && waitpid(all[i]->pid, NULL, 0) >= 0)
                        all[i]->pid = 0;
}

static void reap_all(void) {
        /* Everything is SIGKILLed by now; collect the zombies (ours, and the
         * orphans the subreaper adopted) without waiting on anything alive. */
        for (;;) {
                siginfo_t si = {};
                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
                        break;
        }
}

static void remove_x_leftovers(struct desktop *d) {
        char path[64], *text = NULL;
        unsigned long long pid;

        if (d->display < 0 || d->xserver.argv == NULL)
                return;
        /* Only what our server created: its lock names its pid. */
        snprintf(path, sizeof path, "/tmp/.X%d-lock", d->display);
        if (read_full_file(path, &text, NULL, 64) >= 0) {
                char *s = text + strspn(text, " ");
                s[strcspn(s, "\n")] = 0;
                if (parse_uint(s, INT32_MAX, &pid) >= 0 && (pid_t) pid == d->xserver_pid_last) {
                        (void) unlink(path);
                        snprintf(path, sizeof path, "/tmp/.X11-unix/X%d", d->display);
                        (void) unlink(path);
                }
        }
        free(text);
}

static void write_last_error(struct desktop *d, const char *msg) {
        _cleanup_free_ char *line = strdup_printf("%s\n", msg);

        if (line)
                (void) write_file_atomic_at(d->runtime_fd, "last-error", line, strlen(line), 0600);
}

/*
 * Take the desktop down: nothing published first (so nobody picks up a dying
 * display), then every process killed through its cgroup (or group and
 * token), then our files. Returns once nothing of the desktop runs.
 */
static void desktop_teardown(struct desktop *d, bool failed) {
        d->phase = PHASE_STOPPING;
        (void) unlinkat(d->runtime_fd, "env", 0);
        d->idle_source = sd_event_source_disable_unref(d->idle_source);
        d->x_source = sd_event_source_disable_unref(d->x_source);
        handback_done(&d->handback);
        x11_disconnect(&d->x);

        if (d->cg_base) {
                const char *groups[] = { d->cg_apps, d->cg_session, d->cg_x11 };
                for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                        (void) cgroup_kill(groups[i]);
                /* Moving ourselves out costs the kernel an RCU grace period
                 * (about 9 ms here): spent while the killed processes exit,
                 * not after. */
                if (d->own_base)
                        d->left_base = cgroup_attach(d->cg_parent, 0) >= 0;
                for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                        int r = cgroup_wait_empty(groups[i], STOP_TIMEOUT_USEC);
                        if (r < 0)
                                log_error_errno(r, "Processes of %s did not go away: %m", groups[i]);
                }
        } else
                kill_children_fallback(d);
        reap_all();
        remove_x_leftovers(d);

        (void) unlinkat(d->runtime_fd, "rfb.sock", 0);
        (void) unlinkat(d->runtime_fd, "bus", 0);
        (void) unlinkat(d->runtime_fd, "activity", 0);
        (void) unlinkat(d->runtime_fd, "Xauthority", 0);
        (void) unlinkat(d->runtime_fd, HELPER_RECORD_FILE, 0);
        if (failed) {
                /* A failed start forgets its number: the next one picks afresh. */
                (void) unlinkat(d->runtime_fd, "display", 0);
                if (d->failure)
                        write_last_error(d, d->failure);
        } else
                (void) unlinkat(d->runtime_fd, "last-error", 0);

        if (d->cg_base && d->own_base) {
                /* Out of our own sub-tree so it can be removed (a write
                 * to cgroup.procs costs the grace period even when we are
                 * there already). */
                if (!d->left_base)
                        (void) cgroup_attach(d->cg_parent, 0);
                (void) cgroup_remove(d->cg_base);
        }
}

static void desktop_fail(struct desktop *d, int status, const char *fmt, ...) {
        va_list ap;

        if (d->phase == PHASE_STOPPING)
                return;
        free(d->failure);
        va_start(ap, fmt);
        if (vasprintf(&d->failure, fmt, ap) < 0)
                d->failure = NULL;
        va_end(ap);
        log_error("%s", d->failure ?: "Desktop failed.");
        (void) sd_notifyf(false, "STATUS=%s\nERRNO=%d", d->failure ?: "failed", status == EXIT_REFUSED ? EPERM : EIO);
        desktop_teardown(d, true);
        d->exit_status = status;
        (void) sd_event_exit(d->event, status);
}

/* ---- idle stop ---------------------------------------------------------------------------- */

static int arm_idle_timer(struct desktop *d, uint64_t delay_usec);

/* Every use stamps `activity` (its mtime); the timer fires when the limit
 * would be reached had nothing happened since, and re-arms for the rest. */
static int on_idle_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct desktop *d = userdata;
        uint64_t limit = (uint64_t) d->cfg.idle_stop_minutes * 60 * 1000000ULL, idle;
        struct lease lease;
        struct stat st;

        if (d->phase != PHASE_READY)
                return 0;
        if (fstatat(d->runtime_fd, "activity", &st, 0) < 0)
                idle = limit;
        else {
                uint64_t now = realtime_usec();
                uint64_t stamp = (uint64_t) st.st_mtim.tv_sec * 1000000ULL + (uint64_t) st.st_mtim.tv_nsec / 1000;
                idle = now > stamp ? now - stamp : 0;
        }
        if (idle < limit)
                return arm_idle_timer(d, limit - idle);
        (void) lease_read_at(d->runtime_fd, &lease);
        if (lease.holder == LEASE_HUMAN)
                /* A human is at the screen, perhaps just reading: not idle. */
                return arm_idle_timer(d, limit);
        log_info("Idle for %u minutes (idle_stop_minutes), stopping desktop :%d.", d->cfg.idle_stop_minutes, d->display);
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping: idle");
        desktop_teardown(d, false);
        /* Exit 0: Restart=on-failure must not bring an idle desktop back. */
        d->exit_status = EXIT_SUCCESS;
        return sd_event_exit(d->event, EXIT_SUCCESS);
}

static int arm_idle_timer(struct desktop *d, uint64_t delay_usec) {
        d->idle_source = sd_event_source_disable_unref(d->idle_source);
        /* Accuracy of a second: the kernel may batch the wake-up with others. */
        return sd_event_add_time_relative(d->event, &d->idle_source, CLOCK_MONOTONIC, delay_usec, 1000000ULL,
                                          on_idle_timer, d);
}

/* ---- ready -------------------------------------------------------------------------------- */

static int write_record(struct desktop *d) {
        struct helper_record rec = {
                .pid = getpid(),
                .cgroup = d->cg_base,
                .token = d->token,
                .placement = (char *) d->placement,
                .unit = d->unit,
                .display = d->display,
                .started_at = d->started_at,
        };

        (void) pid_starttime(rec.pid, &rec.starttime);
        return helper_record_write_at(d->runtime_fd, &rec);
}

static void desktop_publish(struct desktop *d) {
        _cleanup_strv_free_ char **env = NULL;
        int r;

        r = session_published_env((unsigned) d->display, &d->paths, &d->dirs, d->bus_address, &env);
        /* One browser identity for agent and human: the dock's launcher
         * uses the same executable and user-data-dir. */
        if (r >= 0 && d->browser)
                r = env_set(&env, "AGENT_BROWSER_EXECUTABLE_PATH", d->browser);
        if (r >= 0 && d->browser)
                r = env_set(&env, "AGENT_BROWSER_USER_DATA_DIR", d->browser_profile);
        /* The same directory under the name an agent's browser tool reads. */
        if (r >= 0 && d->browser)
                r = env_set(&env, "AGENT_BROWSER_PROFILE", d->browser_profile);
        /* Where the dock's browser serves DevTools once it runs. */
        if (r >= 0 && d->browser)
                r = env_set(&env, "BOTDESK_CDP_SOCKET", d->cdp_socket);
        if (r >= 0)
                r = envfile_write_at(d->runtime_fd, "env", env);
        if (r < 0)
                return desktop_fail(d, EXIT_FAILURE, "Cannot publish %s: %s", d->paths.env_file, strerror(-r));

        (void) write_file_atomic_at(d->runtime_fd, "activity", "", 0, 0600);

        d->settle_source = sd_event_source_disable_unref(d->settle_source);
        d->timeout_source = sd_event_source_disable_unref(d->timeout_source);
        d->phase = PHASE_READY;
        r = handback_watch(&d->handback, d->event, d->runtime_fd, (unsigned) d->display, d->cookie, d->cfg.width,
                           d->cfg.height, d->cfg.dpi);
        if (r < 0)
                log_warning_errno(r, "Cannot watch the lease (%m); a viewer's resize will outlast the hand-back.");
        if (d->cfg.idle_stop_minutes > 0) {
                r = arm_idle_timer(d, (uint64_t) d->cfg.idle_stop_minutes * 60 * 1000000ULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot arm the idle timer (%m); this desktop will not stop when idle.");
        }
        log_info("Desktop :%d ready (%ux%u) in %llu ms.", d->display, d->cfg.width, d->cfg.height, elapsed_ms(d));
        (void) sd_notifyf(false, "READY=1\nSTATUS=Desktop :%d ready (%ux%u)", d->display, d->cfg.width,
                          d->cfg.height);
}

static int start_after_wm(struct desktop *d) {
        for (size_t i = 0; i < d->n_components; i++) {
                struct child *c = &d->components[i];
                int r;

                if (!c->spec || c->spec->stage != STAGE_AFTER_WM || c->pid > 0)
                        continue;
                r = child_start(d, c, child_cgroup(d, c), -1);
                if (r < 0) {
                        desktop_fail(d, EXIT_FAILURE, "Cannot start %s: %s", c->name, strerror(-r));
                        return r;
                }
        }
        return 0;
}

static void check_wm(struct desktop *d) {
        if (d->wm_up || d->phase != PHASE_SESSION || x11_wm_present(&d->x) <= 0)
                return;
        d->wm_up = true;
        notify_status(d, "Window manager up on :%d", d->display);
        if (start_after_wm(d) < 0)
                return;
        desktop_publish(d);
}

static int on_x_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct desktop *d = userdata;
        int r = x11_process_events(&d->x);

        if (r < 0) {
                /* The server went away; its exit is handled as a child exit. */
                d->x_source = sd_event_source_disable_unref(d->x_source);
                return 0;
        }
        if (r > 0)
                check_wm(d);
        return 0;
}

static int on_settle(sd_event_source *s, uint64_t usec, void *userdata) {
        struct desktop *d = userdata;

        if (d->phase != PHASE_SESSION)
                return 0;
        notify_status(d, "Session command up for %u ms", d->cfg.command_settle_ms);
        desktop_publish(d);
        return 0;
}

/* ---- the session: bus, then Xfce or the command ------------------------------------------- */

static int add_component(struct desktop *d, const char *name, char **argv, const struct component_spec *spec) {
        struct child *c;

        if (d->n_components >= ELEMENTSOF(d->components)) {
                strv_free(argv);
                return -E2BIG;
        }
        c = &d->components[d->n_components++];
        *c = (struct child) { .desktop = d, .name = name, .argv = argv, .spec = spec };
        return 0;
}

static int desktop_start_session(struct desktop *d) {
        int r;

        if (d->cfg.desktop == DESKTOP_COMMAND) {
                char **argv = NULL;

                r = command_argv(d->cfg.command, &argv);
                if (r < 0)
                        return r;
                r = add_component(d, "session command", argv, NULL);
                if (r < 0)
                        return r;
                r = child_start(d, &d->components[0], child_cgroup(d, &d->components[0]), -1);
                if (r < 0)
                        return r;
                /* Ready once the command stayed up a while, or a WM appeared. */
                return sd_event_add_time_relative(d->event, &d->settle_source, CLOCK_MONOTONIC,
                                                  (uint64_t) d->cfg.command_settle_ms * 1000ULL, 0, on_settle, d);
        }

        for (unsigned i = 0; i < n_xfce_components; i++) {
                char **argv = NULL;

                r = component_argv(&xfce_components[i], &argv);
                if (r < 0)
                        return r;
                r = add_component(d, xfce_components[i].name, argv, &xfce_components[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < d->n_components; i++) {
                struct child *c = &d->components[i];
                if (c->spec->stage != STAGE_WITH_WM)
                        continue;
                r = child_start(d, c, child_cgroup(d, c), -1);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int on_bus_address(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct desktop *d = userdata;
        char *nl;
        ssize_t n;
        int r;

        n = read(fd, d->bus_buf + d->bus_len, sizeof d->bus_buf - 1 - d->bus_len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n <= 0) {
                d->bus_source = sd_event_source_disable_unref(d->bus_source);
                if (!d->bus_address)
                        desktop_fail(d, EXIT_FAILURE, "The session bus closed its address pipe without an address.");
                return 0;
        }
        d->bus_len += (size_t) n;
        d->bus_buf[d->bus_len] = 0;
        nl = strchr(d->bus_buf, '\n');
        if (!nl) {
                if (d->bus_len >= sizeof d->bus_buf - 1)
                        desktop_fail(d, EXIT_FAILURE, "The session bus printed an over-long address.");
                return 0;
        }
        *nl = 0;
        d->bus_source = sd_event_source_disable_unref(d->bus_source);
        d->bus_pipe = safe_close(d->bus_pipe);
        d->bus_address = strdup(d->bus_buf);
        if (!d->bus_address)
                return -ENOMEM;
        notify_status(d, "Session bus up");

        r = env_set(&d->env, "DBUS_SESSION_BUS_ADDRESS", d->bus_address);
        if (r >= 0)
                r = desktop_start_session(d);
        if (r < 0)
                desktop_fail(d, EXIT_FAILURE, "Cannot start the session on :%d: %s", d->display, strerror(-r));
        return 0;
}

static int desktop_start_bus(struct desktop *d) {
        int pipefd[2], r;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        d->bus_pipe = pipefd[0];
        r = session_bus_argv(d->bus_socket, pipefd[1], &d->bus.argv);
        if (r >= 0)
                r = child_start(d, &d->bus, child_cgroup(d, &d->bus), pipefd[1]);
        close(pipefd[1]);
        if (r < 0)
                return r;
        (void) fcntl(d->bus_pipe, F_SETFL, O_NONBLOCK);
        return sd_event_add_io(d->event, &d->bus_source, d->bus_pipe, EPOLLIN, on_bus_address, d);
}

/* ---- the X server ------------------------------------------------------------------------- */

static int desktop_start_xserver(struct desktop *d) {
        _cleanup_free_ char *recorded = NULL;
        unsigned long long v;
        int preferred = -1, n, r;

        if (d->reserved_display >= 0) {
                /* pam_botdesk picked the number under the host-wide lock and
                 * holds it with a reservation for this session's life. */
                n = d->reserved_display;
                goto picked;
        }
        if (read_full_file_at(d->runtime_fd, "display", &recorded, NULL, 32) >= 0) {
                recorded[strcspn(recorded, "\n")] = 0;
                if (parse_uint(recorded, 65535, &v) >= 0)
                        preferred = (int) v;
        }

        /* Held from the pick until the server has claimed the number; only
         * this user's own starts can hold it, and never past start_timeout. */
        if (d->alloc_lock_fd < 0) {
                uint64_t deadline = 0, now = now_usec();

                sigset_t stop;

                /* A stop while we wait ends the wait; the signal stays pending for the loop. */
                sigemptyset(&stop);
                sigaddset(&stop, SIGTERM); /* main's stop signals */
                sigaddset(&stop, SIGINT);
                sigaddset(&stop, SIGHUP);
                (void) sd_event_source_get_time(d->timeout_source, &deadline);
                d->alloc_lock_fd = alloc_lock_take(d->paths.runtime_base, deadline > now ? deadline - now : 0, &stop);
                if (d->alloc_lock_fd < 0)
                        return d->alloc_lock_fd;
        }
        n = display_pick(&alloc_env_default, d->cfg.band_min, d->cfg.band_max, preferred, d->tried, d->n_tried);
        if (n < 0)
                return n;
picked:
        d->display = n;
        d->tried[d->n_tried++] = (unsigned) n;

        r = xauth_write_at(d->runtime_fd, "Xauthority", (unsigned) n, d->cookie);
        if (r < 0)
                return r;
        strv_free(d->xserver.argv);
        d->xserver.argv = NULL;
        r = xserver_argv(d->xserver_path, &d->cfg, (unsigned) n, d->profile, d->paths.rfb_socket,
                         d->paths.xauthority, &d->xserver.argv);
        if (r < 0)
                return r;
        r = child_start(d, &d->xserver, child_cgroup(d, &d->xserver), -1);
        if (r < 0)
                return r;
        d->xserver_pid_last = d->xserver.pid;
        notify_status(d, "Starting X server on :%d", n);
        return 0;
}

static void on_xserver_ready(struct desktop *d) {
        char num[16];
        int r;

        d->alloc_lock_fd = safe_close(d->alloc_lock_fd);
        /* The logind tier reserved this number while our server claimed it
         * (no lock is shared across uids): theirs it is. on_child_exit
         * then sees the reservation and tries the next number. */
        if (d->reserved_display < 0 && d->n_tried < MAX_DISPLAY_ATTEMPTS &&
            display_reserved(&alloc_env_default, (unsigned) d->display) > 0) {
                log_notice("Display :%d was reserved by a logind session meanwhile, trying another.", d->display);
                (void) kill(d->xserver.pid, SIGTERM); /* our unreaped child: its pid cannot be reused */
                return;
        }
        snprintf(num, sizeof num, "%d\n", d->display);
        (void) write_file_atomic_at(d->runtime_fd, "display", num, strlen(num), 0600);
        /* From now on whoever reaps us knows which server's lock to clear. */
        r = write_record(d);
        if (r < 0)
                log_warning_errno(r, "Cannot update %s/%s: %m", d->paths.runtime, HELPER_RECORD_FILE);
        notify_status(d, "X server listening on :%d", d->display);

        r = x11_connect(&d->x, (unsigned) d->display, d->cookie);
        if (r < 0)
                return desktop_fail(d, EXIT_FAILURE, "The X server on :%d refused our own cookie: %s",
                                    d->display, strerror(-r));
        r = sd_event_add_io(d->event, &d->x_source, x11_fd(&d->x), EPOLLIN, on_x_event, d);
        if (r < 0)
                return desktop_fail(d, EXIT_FAILURE, "Cannot watch the X connection: %s", strerror(-r));

        strv_free(d->env);
        d->env = NULL;
        r = session_env(d->profile, (unsigned) d->display, &d->paths, &d->dirs, d->token, &d->env);
        if (r >= 0)
                r = desktop_start_bus(d);
        if (r < 0)
                return desktop_fail(d, EXIT_FAILURE, "Cannot start the session bus: %s", strerror(-r));
        d->phase = PHASE_SESSION;
        /* A window manager may already be there (a command that starts one). */
        check_wm(d);
}

static int on_sigusr1(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct desktop *d = userdata;

        /* Only our server's signal means "listening". */
        if (d->phase != PHASE_XSERVER || (pid_t) si->ssi_pid != d->xserver.pid)
                return 0;
        on_xserver_ready(d);
        return 0;
}

/* ---- child exits -------------------------------------------------------------------------- */

/* Has c begun to exit (PF_EXITING in /proc/PID/stat's flags), or is it a
 * zombie? A process that dies closes its sockets before its exit is
 * reported, so a client can notice, exit and be reaped before the server
 * it lost: this is how the first to die is told from its victims. */
static bool child_exiting(const struct child *c) {
        _cleanup_free_ char *text = NULL;
        struct proc_stat st;
        char path[64];

        if (c->pid <= 0)
                return false;
        snprintf(path, sizeof path, "/proc/%d/stat", (int) c->pid);
        if (read_full_file(path, &text, NULL, 4096) < 0)
                return true;
        if (proc_stat_parse(text, &st) < 0)
                return false;
        return st.state == 'Z' || st.state == 'X' || (st.flags & 0x4 /* PF_EXITING */);
}

static void on_child_exit(struct desktop *d, struct child *c, const siginfo_t *si) {
        char how[64];
        int r;

        c->pid = 0;
        if (d->phase == PHASE_STOPPING)
                return;
        describe_exit(si, how, sizeof how);

        if (c == &d->xserver && d->phase == PHASE_XSERVER) {
                /* The lock our own server wrote before it died is no sign
                 * of someone else, and must not outlive it. */
                remove_x_leftovers(d);
                /* Refused before it listened (an exit, not a kill): taken by
                 * someone we could not see? Try the next. */
                if (si->si_code == CLD_EXITED && d->reserved_display < 0 &&
                    display_in_use(&alloc_env_default, (unsigned) d->display) > 0 &&
                    d->n_tried < MAX_DISPLAY_ATTEMPTS) {
                        log_notice("Display :%d was taken meanwhile, trying another.", d->display);
                        r = desktop_start_xserver(d);
                        if (r < 0)
                                desktop_fail(d, EXIT_FAILURE, "Cannot start the X server: %s", strerror(-r));
                        return;
                }
                return desktop_fail(d, EXIT_FAILURE, "The X server for :%d %s before it accepted connections; see %s",
                                    d->display, how, getenv("JOURNAL_STREAM") ? "the journal" : "helper.log");
        }
        if (c != &d->xserver) {
                /* Died with the X server, or with the bus: blame the first
                 * to die, whose own exit follows at once. */
                struct child *first = child_exiting(&d->xserver) ? &d->xserver
                                      : c != &d->bus && child_exiting(&d->bus) ? &d->bus
                                                                                : NULL;
                if (first) {
                        log_info("%s %s while %s was exiting.", c->name, how, first->name);
                        return;
                }
        }
        if (c->essential)
                return desktop_fail(d, EXIT_FAILURE, "The %s of :%d %s%s.", c->name, d->display, how,
                                    d->phase == PHASE_READY ? "" : " before the desktop was ready");
        if (d->phase != PHASE_READY)
                return desktop_fail(d, EXIT_FAILURE, "%s %s before the desktop on :%d was ready.", c->name, how,
                                    d->display);
        log_warning("%s %s; restarting it.", c->name, how);
        child_schedule_restart(d, c);
}

static int on_sigchld(sd_event_source *s, const struct signalfd_siginfo *ssi, void *userdata) {
        struct desktop *d = userdata;

        /* The X server and the bus first: when they die, their clients
         * follow, and the first death is the one to report. */
        struct child *first[] = { &d->xserver, &d->bus };

        for (size_t i = 0; i < ELEMENTSOF(first); i++) {
                siginfo_t si = {};

                if (first[i]->pid > 0 && waitid(P_PID, (id_t) first[i]->pid, &si, WEXITED | WNOHANG) >= 0 &&
                    si.si_pid == first[i]->pid)
                        on_child_exit(d, first[i], &si);
        }
        for (;;) {
                siginfo_t si = {};
                struct child *c;

                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
                        break;
                c = child_by_pid(d, si.si_pid);
                if (c)
                        on_child_exit(d, c, &si);
                /* Anything else is an orphan we adopted as subreaper: reaped, done. */
        }
        return 0;
}

static int on_stop_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct desktop *d = userdata;
        bool was_ready = d->phase == PHASE_READY;

        if (d->phase == PHASE_STOPPING)
                return 0;
        if (!was_ready) {
                free(d->failure);
                /* `botdesk start` repeats this: the start did not fail, it was stopped. */
                d->failure = strdup_printf("stopped while starting: %s came before the desktop was ready",
                                           si->ssi_signo == SIGTERM ? "a stop (SIGTERM)" : sigabbrev_np((int) si->ssi_signo) ?: "a signal");
        }
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
        log_info("Stopping desktop :%d.", d->display);
        desktop_teardown(d, !was_ready);
        d->exit_status = EXIT_SUCCESS;
        return sd_event_exit(d->event, EXIT_SUCCESS);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        struct desktop *d = userdata;
        const char *what = d->phase == PHASE_XSERVER ? "the X server to listen"
                           : !d->bus_address        ? "the session bus"
                           : d->cfg.desktop == DESKTOP_COMMAND ? "the session command"
                                                               : "a window manager";

        desktop_fail(d, EXIT_FAILURE, "Desktop not ready within start_timeout=%us (waited for %s on :%d).",
                     d->cfg.start_timeout, what, d->display);
        return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };

static void desktop_done(struct desktop *d) {
        struct child *all[] = { &d->xserver, &d->bus };

        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                strv_free(all[i]->argv);
                sd_event_source_disable_unref(all[i]->restart_timer);
        }
        for (size_t i = 0; i < d->n_components; i++) {
                strv_free(d->components[i].argv);
                sd_event_source_disable_unref(d->components[i].restart_timer);
        }
        sd_event_source_disable_unref(d->x_source);
        sd_event_source_disable_unref(d->bus_source);
        sd_event_source_disable_unref(d->timeout_source);
        sd_event_source_disable_unref(d->settle_source);
        sd_event_source_disable_unref(d->idle_source);
        handback_done(&d->handback);
        x11_disconnect(&d->x);
        sd_event_unref(d->event);
        strv_free(d->env);
        free(d->bus_socket);
        free(d->bus_address);
        free(d->xserver_path);
        free(d->browser);
        free(d->browser_profile);
        free(d->cdp_socket);
        free(d->unit);
        free(d->cg_parent);
        free(d->cg_base);
        free(d->cg_supervisor);
        free(d->cg_x11);
        free(d->cg_session);
        free(d->cg_apps);
        free(d->failure);
        safe_close(d->bus_pipe);
        safe_close(d->alloc_lock_fd);
        safe_close(d->helper_lock_fd);
        safe_close(d->runtime_fd);
        session_dirs_done(&d->dirs);
        paths_done(&d->paths);
        config_done(&d->cfg);
}

static void reap_previous(struct desktop *d) {
        struct helper_record old;

        /* We hold the helper lock, so whatever the record names is dead: a
         * SIGKILLed helper's desktop may still run, and goes now. */
        if (helper_record_read_at(d->runtime_fd, &old) >= 0) {
                int r = helper_reap_leftovers(&old);
                if (r < 0)
                        log_warning_errno(r, "Could not fully reap the leftovers of helper %d: %m", (int) old.pid);
                else
                        log_info("Reaped the leftovers of a previous helper (pid %d).", (int) old.pid);
                helper_record_done(&old);
        }
        (void) unlinkat(d->runtime_fd, "env", 0);
        (void) unlinkat(d->runtime_fd, "rfb.sock", 0);
        (void) unlinkat(d->runtime_fd, "bus", 0);
        (void) unlinkat(d->runtime_fd, HELPER_RECORD_FILE, 0);
}

static int check_binaries(struct desktop *d) {
        _cleanup_strv_free_ char **missing = NULL;
        _cleanup_strv_free_ char **needed = NULL;
        _cleanup_free_ char *rejected = NULL, *msg = NULL;
        int r;

        r = xserver_find(NULL, &d->xserver_path, &rejected);
        if (r == -EPROTONOSUPPORT) {
                desktop_fail(d, EXIT_FAILURE,
                             "%s is not TigerVNC's X server (no -rfbunixpath); install tigervnc-standalone-server.",
                             rejected);
                return r;
        }
        r = packages_missing(NULL, &missing);
        if (r < 0)
                return r;
        for (char **m = missing; m && *m; m++) {
                /* `desktop = command` needs only the X server and the bus. */
                if (d->cfg.desktop == DESKTOP_COMMAND && !streq(*m, "Xtigervnc") && !streq(*m, "Xvnc") &&
                    !streq(*m, "dbus-daemon"))
                        continue;
                r = strv_push(&needed, strdup(*m));
                if (r < 0)
                        return r;
        }
        if (!needed)
                return 0;
        msg = packages_install_message(pkg_manager_detect(NULL), geteuid() == 0,
                                       executable_in_path("sudo", NULL), needed, NULL);
        desktop_fail(d, EXIT_FAILURE, "%s", msg ?: "Required programs are missing.");
        return -ENOENT;
}

static int check_memory(struct desktop *d) {
        struct memory_info m;
        const struct memory_env env = {};
        int r;

        if (d->cfg.min_free_memory_mb == 0)
                return 0;
        r = memory_read(&env, &m);
        if (r < 0) {
                log_warning_errno(r, "Cannot read available memory (%m), not gating the start.");
                return 0;
        }
        switch (memory_judge(m.available_mb, d->cfg.min_free_memory_mb)) {
        case MEMORY_BLOCKED: {
                _cleanup_free_ char *msg = memory_blocker_message(&m, d->cfg.min_free_memory_mb);
                desktop_fail(d, EXIT_REFUSED, "%s", msg ?: "Not enough free memory for a desktop.");
                return -ENOMEM;
        }
        case MEMORY_LOW:
                log_warning("Memory is low: %llu MB available, %u MB is the floor; starting anyway.",
                            (unsigned long long) m.available_mb, d->cfg.min_free_memory_mb);
                return 0;
        default:
                return 0;
        }
}

static int make_token(char token[33]) {
        uint8_t raw[16];
        int r = xauth_cookie_new(raw);

        if (r < 0)
                return r;
        for (size_t i = 0; i < sizeof raw; i++)
                snprintf(token + 2 * i, 3, "%02x", raw[i]);
        return 0;
}

static int desktop_init(struct desktop *d) {
        struct config_errors errs = {};
        const struct config_sources src = {};
        const char *skel;
        _cleanup_strv_free_ char **browser_cmd = NULL;
        int r;

        r = paths_for_profile(d->profile, &d->paths);
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of profile %s: %m", d->profile);
        r = paths_ensure(&d->paths);
        if (r < 0)
                return log_error_errno(r, "Runtime directory %s is not private to uid %u (%m); remove it or fix its owner and mode.",
                                       d->paths.runtime, (unsigned) getuid());
        d->runtime_fd = open(d->paths.runtime, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (d->runtime_fd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", d->paths.runtime);

        r = config_load(&d->cfg, d->profile, &src, &errs);
        if (r < 0) {
                for (size_t i = 0; i < errs.n; i++) {
                        _cleanup_free_ char *t = config_error_text(&errs.items[i]);

                        log_error("%s", t ?: errs.items[i].message);
                        if (i == 0 && t)
                                write_last_error(d, t);
                }
                config_errors_done(&errs);
                (void) sd_notifyf(false, "STATUS=Invalid configuration\nERRNO=%d", EINVAL);
                return -EINVAL;
        }
        config_errors_done(&errs);

        d->helper_lock_fd = helper_lock_take(d->runtime_fd);
        if (d->helper_lock_fd == -EBUSY)
                return log_error_errno(EBUSY, "Another botdesk-helper already runs profile %s.", d->profile);
        if (d->helper_lock_fd < 0)
                return log_error_errno(d->helper_lock_fd, "Cannot lock %s/%s: %m", d->paths.runtime, HELPER_LOCK_FILE);
        reap_previous(d);
        (void) unlinkat(d->runtime_fd, "last-error", 0);

        d->bus_socket = strdup_printf("%s/bus", d->paths.runtime);
        if (!d->bus_socket)
                return -ENOMEM;
        r = session_dirs_for(&d->paths, &d->dirs);
        if (r < 0)
                return r;
        skel = getenv("BOTDESK_SKEL_DIR") ?: BOTDESK_SKEL_DIR;
        d->browser = browser_find(&d->cfg);
        if (d->browser) {
                _cleanup_free_ char *home = NULL;

                (void) paths_home(&home);
                r = browser_profile_dir(&d->cfg, d->paths.state, home, &d->browser_profile);
                if (r < 0)
                        return log_error_errno(r, "Cannot resolve [browser] profile_dir \"%s\": %m", d->cfg.browser_profile_dir);
                d->cdp_socket = browser_cdp_socket(d->paths.runtime);
                if (!d->cdp_socket)
                        return -ENOMEM;
                r = browser_argv(getenv("BOTDESK_BROWSER_LAUNCHER") ?: BOTDESK_BROWSER_PATH, d->cdp_socket,
                                 d->browser, d->browser_profile, d->cfg.disk_cache_mb, geteuid() == 0, &browser_cmd);
                if (r < 0)
                        return r;
        }
        r = session_prepare_dirs(&d->dirs, skel, browser_cmd);
        if (r < 0)
                return log_error_errno(r, "Cannot prepare %s: %m", d->dirs.config_home);

        r = setup_placement(d);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the desktop's cgroups: %m");
        if (!d->cg_base && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                log_warning_errno(errno, "Cannot become a child subreaper (%m); orphans of the desktop escape to PID 1.");

        r = make_token(d->token);
        if (r >= 0)
                r = xauth_cookie_new(d->cookie);
        if (r < 0)
                return log_error_errno(r, "Cannot get random bytes: %m");
        /* The X server's environment: clean, and carrying the token like
         * every other process of the desktop. The session's follows once
         * the display number is known. */
        {
                _cleanup_free_ char *pv = strdup_printf("BOTDESK_PROFILE=%s", d->profile);
                _cleanup_free_ char *tv = strdup_printf("BOTDESK_TOKEN=%s", d->token);
                char *extra[] = { pv, tv, NULL };
                extern char **environ;

                if (!pv || !tv)
                        return -ENOMEM;
                r = env_build_clean(environ, extra, &d->env);
                if (r < 0)
                        return r;
        }
        d->started_at = realtime_usec();

        r = write_record(d);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s/%s: %m", d->paths.runtime, HELPER_RECORD_FILE);
        /* Recorded: from now on a start finds this helper and waits for it,
         * and a stop finds it to stop. The `botdesk start` that spawned us
         * lets go of the profile's lock on this. */
        (void) sd_notify(false, "BOTDESK_RECORDED=1");
        return 0;
}

static int desktop_run(struct desktop *d) {
        int r;

        r = sd_event_default(&d->event);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++) {
                r = sd_event_add_signal(d->event, NULL, stop_signals[i], on_stop_signal, d);
                if (r < 0)
                        return r;
        }
        r = sd_event_add_signal(d->event, NULL, SIGCHLD, on_sigchld, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, NULL, SIGUSR1, on_sigusr1, d);
        if (r >= 0)
                r = sd_event_add_time_relative(d->event, &d->timeout_source, CLOCK_MONOTONIC,
                                               (uint64_t) d->cfg.start_timeout * 1000000ULL, 0, on_timeout, d);
        if (r < 0)
                return r;

        /* Checks before anything starts. */
        if (check_binaries(d) < 0 || check_memory(d) < 0)
                return d->exit_status;

        r = desktop_start_xserver(d);
        if (r == -EBUSY) {
                desktop_fail(d, EXIT_FAILURE, "No free X display in the band %u-%u ([display] band).",
                             d->cfg.band_min, d->cfg.band_max);
                return d->exit_status;
        }
        if (r == -ECANCELED) {
                desktop_fail(d, EXIT_FAILURE, "Stopped while waiting for the display allocation lock in %s.",
                             d->paths.runtime_base);
                return d->exit_status;
        }
        if (r == -ETIMEDOUT) {
                desktop_fail(d, EXIT_FAILURE,
                             "The display allocation lock in %s stayed held by another start for start_timeout=%us.",
                             d->paths.runtime_base, d->cfg.start_timeout);
                return d->exit_status;
        }
        if (r < 0) {
                desktop_fail(d, EXIT_FAILURE, "Cannot start the X server: %s", strerror(-r));
                return d->exit_status;
        }
        r = sd_event_loop(d->event);
        return r < 0 ? EXIT_FAILURE : d->exit_status;
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: botdesk-helper PROFILE\n"
                "Run and supervise the desktop of PROFILE until SIGTERM.\n"
                "Started by `botdesk start` or the botdesk@PROFILE.service unit; not meant to be run by hand.\n");
}

int main(int argc, char **argv) {
        struct desktop d = {
                .runtime_fd = -EBADF,
                .helper_lock_fd = -EBADF,
                .alloc_lock_fd = -EBADF,
                .bus_pipe = -EBADF,
                .display = -1,
        };
        int r;

        log_setup("botdesk-helper");
        d.t0 = now_usec();
        d.xserver = (struct child) { .desktop = &d, .name = "X server", .essential = true };
        d.bus = (struct child) { .desktop = &d, .name = "session bus", .essential = true };

        if (argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
                usage(stdout);
                return EXIT_SUCCESS;
        }
        if (argc == 2 && streq(argv[1], "--version")) {
                puts("botdesk-helper " BOTDESK_VERSION);
                return EXIT_SUCCESS;
        }
        if (argc != 2) {
                usage(stderr);
                return 2;
        }
        d.profile = argv[1];
        d.reserved_display = -1;
        {
                const char *e = getenv("BOTDESK_DISPLAY");
                unsigned long long v;

                if (e && (parse_uint(e, 65535, &v) < 0)) {
                        log_error("Invalid BOTDESK_DISPLAY=\"%s\": expected the display number pam_botdesk reserved.", e);
                        return 2;
                }
                if (e)
                        d.reserved_display = (int) v;
        }
        if (!profile_name_valid(d.profile)) {
                log_error("Invalid profile name \"%s\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.",
                          d.profile);
                return 2;
        }

        /* Blocked from the start (sd-event takes them over in desktop_run):
         * a stop that comes while we set up is handled as a stop, with the
         * teardown and the reason, not as a silent death. */
        {
                sigset_t mask;

                sigemptyset(&mask);
                for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                        sigaddset(&mask, stop_signals[i]);
                sigaddset(&mask, SIGCHLD);
                sigaddset(&mask, SIGUSR1);
                if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                        return log_error_errno(errno, "Cannot block signals: %m"), EXIT_FAILURE;
        }
        r = desktop_init(&d);
        if (r < 0) {
                desktop_done(&d);
                return r == -EINVAL ? 2 : EXIT_FAILURE;
        }
        r = desktop_run(&d);
        desktop_done(&d);
        return r;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "adopt.h"
#include "alloc.h"
#include "child.h"
#include "envfile.h"
#include "exit-status.h"
#include "record.h"
#include "idle.h"
#include "log.h"
#include "namespace.h"
#include "placement.h"
#include "session.h"
#include "spawn.h"
#include "session-settle.h"
#include "hibernate.h"
#include "snapshot.h"
#include "start.h"
#include "start-extension.h"
#include "start-queue.h"
#include "util.h"
#include "xserver.h"

/* ---- the X server ------------------------------------------------------------------------- */

/* What picks see: the host's X servers and reservations, and the claims of the starts that share our lock. */
static int alloc_env_claims(const struct supervisor *s, struct alloc_env *ret, char *buf, size_t size) {
        *ret = alloc_env_default;
        ret->claim_dir = alloc_claim_dir(s->paths.runtime_base, buf, size);
        return ret->claim_dir ? 0 : -ENAMETOOLONG;
}

void start_unclaim(struct supervisor *s) {
        struct alloc_env env;
        char dir[PATH_MAX];

        if (s->claimed_display < 0)
                return;
        if (alloc_env_claims(s, &env, dir, sizeof dir) >= 0)
                (void) display_unclaim(&env, (unsigned) s->claimed_display, getpid());
        s->claimed_display = -1;
}

/*
 * A number picked and claimed under the allocation lock, which is held for
 * that alone (milliseconds), never across an X server's start: the claim
 * keeps this user's other starts off the number until our server holds it
 * (alloc.h). Waits for the lock no longer than start_timeout.
 */
int start_pick_and_claim(struct supervisor *s, int preferred) {
        const int stop_signals[] = { SUPERVISOR_STOP_SIGNALS };
        _cleanup_close_ int lock = -EBADF;
        uint64_t deadline = 0, now = now_usec();
        struct alloc_env env;
        char dir[PATH_MAX];
        sigset_t stop;
        int n, r;

        r = alloc_env_claims(s, &env, dir, sizeof dir);
        if (r < 0)
                return r;
        /* A stop while we wait ends the wait; the signal stays pending for the loop. */
        sigemptyset(&stop);
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                sigaddset(&stop, stop_signals[i]);
        (void) sd_event_source_get_time(s->timeout_source, &deadline);
        lock = alloc_lock_take(s->paths.runtime_base, deadline > now ? deadline - now : 0, &stop);
        if (lock < 0)
                return lock;
        n = display_pick(&env, s->cfg.band_min, s->cfg.band_max, preferred, s->tried, s->n_tried);
        if (n < 0)
                return n;
        r = display_claim(&env, (unsigned) n, getpid());
        if (r < 0)
                return log_error_errno(r, "Cannot claim display :%d in %s: %m", n, dir);
        s->claimed_display = n;
        return n;
}

struct queue_wait {
        struct supervisor *s;
        unsigned slots;
        uint64_t idle_usec;
        bool waited;
};

static void on_queue_wait(unsigned ahead, void *userdata) {
        struct queue_wait *w = userdata;

        w->waited = true;
        supervisor_status(w->s, "Waiting for its turn: %u start%s ahead, %u at a time ([resources] concurrent_starts)",
                          ahead, ahead == 1 ? "" : "s", w->slots);
        /* Whoever waits on us (the manager, botdesk start) waits as long as the queue moves. */
        (void) sd_notifyf(false, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long) (w->idle_usec + START_TEARDOWN_USEC));
}

/*
 * This start's turn among its uid's (start-queue.h), before it picks a
 * number: while it waits it holds nothing another start needs. The wait is
 * not charged to start_timeout: it ends only when nothing ahead moved for
 * twice that (a start ahead that hangs is ended by its own start_timeout
 * well before). -ETIME then, -EINTR when a stop came.
 */
static int start_queue_turn(struct supervisor *s) {
        const int stop_signals[] = { SUPERVISOR_STOP_SIGNALS };
        uint64_t start_usec = (uint64_t) s->cfg.start_timeout * 1000000ULL;
        struct queue_wait w = {
                .s = s,
                .slots = s->cfg.concurrent_starts ?: start_queue_default_slots(),
                .idle_usec = 2 * start_usec,
        };
        struct alloc_env env;
        char dir[PATH_MAX];
        sigset_t stop;
        int r;

        r = alloc_env_claims(s, &env, dir, sizeof dir);
        if (r < 0)
                return r;
        r = start_queue_join(dir, &s->ticket);
        if (r < 0)
                return log_error_errno(r, "Cannot join the start queue in %s: %m", dir);
        sigemptyset(&stop);
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                sigaddset(&stop, stop_signals[i]);
        r = start_queue_wait(&s->ticket, w.slots, w.idle_usec, &stop, on_queue_wait, &w);
        if (r == -ETIMEDOUT)
                return -ETIME;
        if (r == -ECANCELED)
                return -EINTR;
        if (r < 0)
                return r;
        /* Its turn: the allocation lock's wait and what follows get the time a start has. */
        if (w.waited)
                (void) start_clock_restart(s->timeout_source, start_usec, START_TEARDOWN_USEC);
        return 0;
}

/*
 * An X server tells the parent that started it that it listens with a
 * SIGUSR1, unless that parent is a pid 1: inside a checkpointable desktop's
 * namespaces it is, so the server writes its number to -displayfd instead.
 */
static int on_displayfd(sd_event_source *source, int fd, uint32_t revents, void *userdata);

static int start_server_displayfd(struct supervisor *s) {
        _cleanup_close_ int theirs = -EBADF;
        _cleanup_close_ int ours = -EBADF;
        int pipefd[2], r;

        if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0)
                return negative_errno();
        ours = pipefd[0];
        theirs = pipefd[1];
        r = strv_push(&s->xserver.argv, strdup("-displayfd"));
        if (r >= 0)
                r = strv_push(&s->xserver.argv, strdup_printf("%d", theirs));
        if (r < 0)
                return r;
        r = child_start(s, &s->xserver, theirs);
        if (r < 0)
                return r;
        s->displayfd_source = sd_event_source_disable_unref(s->displayfd_source);
        r = sd_event_add_io(s->event, &s->displayfd_source, ours, EPOLLIN, on_displayfd, s);
        if (r < 0)
                return r;
        (void) sd_event_source_set_io_fd_own(s->displayfd_source, true);
        TAKE_FD(ours);
        return 0;
}

int start_server(struct supervisor *s) {
        _cleanup_free_ char *recorded = NULL;
        unsigned long long v;
        int preferred = -1, n, r;

        if (s->n_tried == 0) {
                r = start_queue_turn(s);
                if (r < 0)
                        return r;
        }

        /* Another attempt: the number tried before is no longer ours to hold. */
        start_unclaim(s);
        if (s->reserved_display >= 0) {
                /* pam_botdesk picked the number under the host-wide lock and
                 * holds it with a reservation for this session's life. */
                n = s->reserved_display;
                goto picked;
        }
        if (read_full_file_at(s->runtime_fd, "display", &recorded, NULL, 32) >= 0) {
                recorded[strcspn(recorded, "\n")] = 0;
                if (parse_uint(recorded, 65535, &v) >= 0)
                        preferred = (int) v;
        }

        n = start_pick_and_claim(s, preferred);
        if (n < 0)
                return n;
picked:
        s->display = n;
        s->tried[s->n_tried++] = (unsigned) n;

        r = xauth_write_at(s->runtime_fd, "Xauthority", (unsigned) n, s->cookie);
        if (r < 0)
                return r;
        strv_free(s->xserver.argv);
        s->xserver.argv = NULL;
        r = xserver_argv(s->xserver_path, &s->cfg, (unsigned) n, s->profile, s->paths.rfb_socket,
                         s->paths.xauthority, &s->xserver.argv);
        if (r < 0)
                return r;
        r = s->ns_init_pid > 0 ? start_server_displayfd(s) : child_start(s, &s->xserver, -1);
        if (r < 0)
                return r;
        s->xserver_pid_last = s->xserver.pid;
        /* The start is timed from its own X server: the checks and the wait for the allocation lock
         * before it are other starts' time, which a start must never fail for. Another display's
         * attempt keeps the clock of the first (MAX_DISPLAY_ATTEMPTS bounds them). */
        if (s->n_tried == 1) {
                r = start_clock_restart(s->timeout_source, (uint64_t) s->cfg.start_timeout * 1000000ULL,
                                        START_TEARDOWN_USEC);
                if (r < 0)
                        log_warning_errno(r, "Cannot time the start from its X server (%m); it keeps the helper's clock.");
        }
        supervisor_status(s, "Starting X server on :%d", n);
        return 0;
}

static int on_x_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        int r = x11_process_events(&s->x);

        if (r < 0) {
                /* The server went away; its exit is handled as a child exit. */
                s->x_source = sd_event_source_disable_unref(s->x_source);
                return 0;
        }
        if (r > 0)
                supervisor_check_wm(s);
        return 0;
}

static int on_settle(sd_event_source *source, uint64_t usec, void *userdata) {
        struct supervisor *s = userdata;

        if (s->state != DESKTOP_SESSION_STARTING)
                return 0;
        supervisor_status(s, "Session command up for %u ms", s->cfg.command_settle_ms);
        supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_SETTLED });
        return 0;
}

/* ---- the session bus ---------------------------------------------------------------------- */

static int on_bus_address(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        char *nl;
        ssize_t n;

        n = read(fd, s->bus_buf + s->bus_len, sizeof s->bus_buf - 1 - s->bus_len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n <= 0) {
                s->bus_source = sd_event_source_disable_unref(s->bus_source);
                if (!s->bus_address)
                        supervisor_fail_unless_exits(s, &s->bus,
                                                     "The session bus closed its address pipe without an address.");
                return 0;
        }
        s->bus_len += (size_t) n;
        s->bus_buf[s->bus_len] = 0;
        nl = strchr(s->bus_buf, '\n');
        if (!nl) {
                if (s->bus_len >= sizeof s->bus_buf - 1)
                        supervisor_fail(s, HELPER_EXIT_FAILED, "The session bus printed an over-long address.");
                return 0;
        }
        *nl = 0;
        s->bus_source = sd_event_source_disable_unref(s->bus_source);
        s->bus_pipe = safe_close(s->bus_pipe);
        /* Failures end the start here, with their reason: returned, they
         * would only disable this source and leave the start to time out. */
        s->bus_address = strdup(s->bus_buf);
        if (!s->bus_address) {
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot start the session on :%d: %s", s->display,
                                strerror(ENOMEM));
                return 0;
        }
        supervisor_status(s, "Session bus up");
        supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_BUS_ADDRESS });
        return 0;
}

static int bus_spawn(struct supervisor *s) {
        int pipefd[2], r;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        s->bus_pipe = pipefd[0];
        r = session_bus_argv(s->bus_socket, pipefd[1], &s->bus.argv);
        if (r >= 0)
                r = child_start(s, &s->bus, pipefd[1]);
        close(pipefd[1]);
        if (r < 0)
                return r;
        (void) fcntl(s->bus_pipe, F_SETFL, O_NONBLOCK);
        return sd_event_add_io(s->event, &s->bus_source, s->bus_pipe, EPOLLIN, on_bus_address, s);
}

void start_reject_display(struct supervisor *s) {
        start_unclaim(s);
        (void) kill(s->xserver.pid, SIGTERM); /* our unreaped child: its pid cannot be reused */
}

int start_watch_x(struct supervisor *s) {
        s->x_source = sd_event_source_disable_unref(s->x_source);
        return sd_event_add_io(s->event, &s->x_source, x11_fd(&s->x), EPOLLIN, on_x_event, s);
}

void start_bus(struct supervisor *s) {
        char num[16];
        int r;

        /* The server's lock file and socket hold the number now. */
        start_unclaim(s);
        snprintf(num, sizeof num, "%d\n", s->display);
        (void) write_file_atomic_at(s->runtime_fd, "display", num, strlen(num), 0600);
        /* From now on whoever reaps us knows which server's lock to clear. */
        r = placement_write_record(s);
        if (r < 0)
                log_warning_errno(r, "Cannot update %s/%s: %m", s->paths.runtime, HELPER_RECORD_FILE);
        supervisor_status(s, "X server listening on :%d", s->display);

        r = x11_connect(&s->x, (unsigned) s->display, s->cookie);
        if (r < 0)
                return supervisor_fail_unless_exits(s, &s->xserver, "The X server on :%d refused our own cookie: %s",
                                                    s->display, strerror(-r));
        r = start_watch_x(s);
        if (r < 0)
                return supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot watch the X connection: %s", strerror(-r));

        strv_free(s->env);
        s->env = NULL;
        r = session_env(s->profile, (unsigned) s->display, &s->paths, &s->dirs, s->token, s->cfg.accessibility, &s->env);
        if (r >= 0 && s->ns_init_pid > 0)
                r = namespace_runtime_env(s, s->paths.runtime, true, &s->env);
        if (r >= 0)
                r = bus_spawn(s);
        if (r < 0)
                return supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot start the session bus: %s", strerror(-r));
}

static void server_listening(struct supervisor *s) {
        struct desktop_event ev = { .type = DESKTOP_EVENT_SERVER_READY };

        /* The logind tier reserves numbers under no lock we share (it runs
         * as root): a reservation made while our server claimed the number
         * wins. */
        ev.reserved_meanwhile = s->reserved_display < 0 && s->n_tried < MAX_DISPLAY_ATTEMPTS &&
                                display_reserved(&alloc_env_default, (unsigned) s->display) > 0;
        supervisor_feed(s, &ev);
}

int start_on_sigusr1(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        struct supervisor *s = userdata;

        /* Only our server's signal means "listening". */
        if (s->state == DESKTOP_SERVER_STARTING && (pid_t) si->ssi_pid == s->xserver.pid)
                server_listening(s);
        return 0;
}

static int on_displayfd(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;
        char buf[16];
        ssize_t n = read(fd, buf, sizeof buf);
        int r;

        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        s->displayfd_source = sd_event_source_disable_unref(s->displayfd_source);
        /* Its number, once it listens; nothing (EOF) when it died first, which its exit reports. */
        if (n <= 0 || s->state != DESKTOP_SERVER_STARTING)
                return 0;
        /* With -displayfd the server writes no lock (and one it wrote would name its pid in the namespace, which
         * every other reader takes for ours): the lock that holds the number, and that our teardown removes with
         * the socket file, is written here with our pid of it. */
        r = display_lock_set_pid(&alloc_env_default, (unsigned) s->display, s->xserver.ns_pid, s->xserver.pid);
        if (r == -ENOENT)
                r = display_lock_set_pid(&alloc_env_default, (unsigned) s->display, -1, s->xserver.pid);
        if (r < 0)
                log_warning_errno(r, "Cannot point the lock of :%d at the X server's pid %d (%m); it may outlive it.",
                                  s->display, (int) s->xserver.pid);
        server_listening(s);
        return 0;
}

/* ---- the session: Xfce or the command ----------------------------------------------------- */

static int add_component(struct supervisor *s, const char *name, char **argv, const struct component_spec *spec) {
        struct child *c;

        if (s->n_components >= ELEMENTSOF(s->components)) {
                strv_free(argv);
                return -E2BIG;
        }
        c = &s->components[s->n_components++];
        child_init(c, s, name, DESKTOP_CHILD_COMPONENT);
        c->argv = argv;
        c->spec = spec;
        return 0;
}

int start_session_components(struct supervisor *s) {
        int r;

        if (s->cfg.desktop == DESKTOP_COMMAND) {
                char **argv = NULL;

                r = command_argv(s->cfg.command, &argv);
                if (r < 0)
                        return r;
                return add_component(s, "session command", argv, NULL);
        }
        for (unsigned i = 0; i < n_xfce_components; i++) {
                char **argv = NULL;

                r = component_argv(&xfce_components[i], &argv);
                if (r < 0)
                        return r;
                r = add_component(s, xfce_components[i].name, argv, &xfce_components[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int session_spawn(struct supervisor *s) {
        int r;

        r = start_session_components(s);
        if (r < 0)
                return r;
        if (s->cfg.desktop == DESKTOP_COMMAND) {
                r = child_start(s, &s->components[0], -1);
                if (r < 0)
                        return r;
                /* Ready once the command stayed up a while, or a WM appeared. */
                return sd_event_add_time_relative(s->event, &s->settle_source, CLOCK_MONOTONIC,
                                                  (uint64_t) s->cfg.command_settle_ms * 1000ULL, 0, on_settle, s);
        }
        for (size_t i = 0; i < s->n_components; i++) {
                struct child *c = &s->components[i];
                if (c->spec->stage != STAGE_WITH_WM)
                        continue;
                r = child_start(s, c, -1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The desktop's proxy under every name programs read it by (curl and most tools the lower-case ones,
 * Chromium on Xfce either); none bypasses it: the firewall lets nothing else through. */
static const char *const proxy_variables[] = { "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY" };

static int env_set_proxy(char ***env, const char *url) {
        int r = 0;

        for (size_t i = 0; url && r >= 0 && i < ELEMENTSOF(proxy_variables); i++)
                r = env_set(env, proxy_variables[i], url);
        return r;
}

void start_session(struct supervisor *s) {
        int r = env_set(&s->env, "DBUS_SESSION_BUS_ADDRESS", s->bus_address);

        if (r >= 0)
                r = env_set_proxy(&s->env, s->proxy_url);
        if (r >= 0)
                r = session_spawn(s);
        if (r < 0)
                return supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot start the session on :%d: %s", s->display,
                                       strerror(-r));
        /* A window manager may already be there (a command that starts one). */
        supervisor_check_wm(s);
}

/* ---- ready -------------------------------------------------------------------------------- */

int start_write_published(struct supervisor *s) {
        _cleanup_strv_free_ char **env = NULL;
        int r;

        r = session_published_env((unsigned) s->display, &s->paths, &s->dirs, s->bus_address, &env);
        /* One browser identity for agent and human: the dock's launcher
         * uses the same executable and user-data-dir. */
        if (r >= 0 && s->browser)
                r = env_set(&env, "AGENT_BROWSER_EXECUTABLE_PATH", s->browser);
        if (r >= 0 && s->browser)
                r = env_set(&env, "AGENT_BROWSER_USER_DATA_DIR", s->browser_profile);
        /* The same directory under the name an agent's browser tool reads. */
        if (r >= 0 && s->browser)
                r = env_set(&env, "AGENT_BROWSER_PROFILE", s->browser_profile);
        /* Where the dock's browser serves DevTools once it runs. */
        if (r >= 0 && s->browser)
                r = env_set(&env, "BOTDESK_CDP_SOCKET", s->cdp_socket);
        /* What botdesk exec runs reaches names as the desktop's own programs do. */
        if (r >= 0)
                r = env_set_proxy(&env, s->proxy_url);
        if (r >= 0)
                r = envfile_write_at(s->runtime_fd, "env", env);
        if (r < 0)
                return r;
        (void) write_file_atomic_at(s->runtime_fd, "activity", "", 0, 0600);
        return 0;
}

void start_watch_ready(struct supervisor *s) {
        int r;

        r = session_settle_watch(s);
        if (r < 0)
                log_warning_errno(r, "Cannot watch the session write its settings (%m); the next start will not adopt a spare.");
        handback_done(&s->handback);
        r = handback_watch(&s->handback, s->event, s->runtime_fd, (unsigned) s->display, s->cookie, s->cfg.width,
                           s->cfg.height, s->cfg.dpi, &s->clipboard);
        if (r < 0)
                log_warning_errno(r, "Cannot watch the lease (%m); a viewer's resize will outlast the hand-back.");
        viewer_gone_done(&s->viewer_gone);
        r = viewer_gone_watch(&s->viewer_gone, s->event, s->runtime_fd);
        if (r < 0)
                log_warning_errno(r, "Cannot watch the lease's deadline (%m); a viewerless hold ends only with botdesk web.");
        clipboard_owner_done(&s->clipboard);
        r = clipboard_owner_start(&s->clipboard, s->event, s->runtime_fd, (unsigned) s->display, s->cookie,
                                  s->cfg.clipboard_max_bytes);
        if (r < 0) {
                log_warning_errno(r, "Cannot serve the agent's clipboard (%m); botdesk clipboard set will fail.");
                clipboard_owner_done(&s->clipboard);
        }
        journal_frames_done(&s->frames);
        r = journal_frames_start(&s->frames, s->event, s->runtime_fd, s->paths.runtime, (unsigned) s->display,
                                 s->cookie);
        if (r < 0) {
                log_warning_errno(r, "Cannot take the journal's frames (%m); its entries will have none.");
                journal_frames_done(&s->frames);
        }
        if (s->ns_init_pid > 0) {
                r = hibernate_listen(s);
                if (r < 0)
                        log_warning_errno(r, "Cannot serve %s/" HIBERNATE_SOCKET " (%m); botdesk hibernate will fail.",
                                          s->paths.runtime);
        }
        if (s->spare) {
                /* Kept for a profile: never idle, and waiting to be adopted. */
                r = adopt_listen(s);
                if (r < 0)
                        log_warning_errno(r, "Cannot listen for adoption (%m); this spare serves nobody.");
                return;
        }
        if (s->cfg.idle_stop_minutes > 0) {
                r = idle_arm(s, (uint64_t) s->cfg.idle_stop_minutes * 60 * 1000000ULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot arm the idle timer (%m); this desktop will not stop when idle.");
        }
}

int start_publish_env(struct supervisor *s) {
        int r = start_write_published(s);

        if (r < 0) {
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot publish %s: %s", s->paths.env_file, strerror(-r));
                return r;
        }
        s->settle_source = sd_event_source_disable_unref(s->settle_source);
        s->timeout_source = sd_event_source_disable_unref(s->timeout_source);
        s->extend_source = sd_event_source_disable_unref(s->extend_source);
        start_watch_ready(s);
        s->was_ready = true;
        /* Ready: the next start in the queue may go. */
        start_queue_leave(&s->ticket);
        log_info("Desktop :%d ready (%ux%u) in %llu ms.", s->display, s->cfg.width, s->cfg.height, supervisor_elapsed_ms(s));
        (void) sd_notifyf(false, "READY=1\nSTATUS=%s :%d ready (%ux%u)", s->spare ? "Spare" : "Desktop", s->display,
                          s->cfg.width, s->cfg.height);
        return 0;
}

static int start_after_wm(struct supervisor *s) {
        for (size_t i = 0; i < s->n_components; i++) {
                struct child *c = &s->components[i];
                int r;

                if (!c->spec || c->spec->stage != STAGE_AFTER_WM || c->pid > 0)
                        continue;
                r = child_start(s, c, -1);
                if (r < 0) {
                        supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot start %s: %s", c->name, strerror(-r));
                        return r;
                }
        }
        return 0;
}

void start_publish(struct supervisor *s) {
        if (start_after_wm(s) < 0)
                return;
        (void) start_publish_env(s);
}

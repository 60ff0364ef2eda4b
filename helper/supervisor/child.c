/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "alloc.h"
#include "child.h"
#include "log.h"
#include "namespace.h"
#include "procfs.h"
#include "spawn.h"
#include "teardown.h"
#include "util.h"

#define RESTART_MAX_DELAY_USEC (30 * 1000000ULL)
#define RESTART_STABLE_USEC (60 * 1000000ULL)

void child_init(struct child *c, struct supervisor *s, const char *name, enum desktop_child which) {
        *c = (struct child) { .sup = s, .name = name, .which = which };
}

void child_done(struct child *c) {
        strv_free(c->argv);
        c->argv = NULL;
        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
}

static const char *child_cgroup(const struct supervisor *s, const struct child *c) {
        if (!s->cg_base)
                return NULL;
        return c->which == DESKTOP_CHILD_SERVER ? s->cg_x11 : s->cg_session;
}

int child_start(struct supervisor *s, struct child *c, int keep_fd) {
        struct spawn_opts o = SPAWN_OPTS_INIT;
        const char *cgroup = child_cgroup(s, c), *home = strv_env_get(s->env, "HOME");
        int r;

        /* The session's programs start where a login puts them (a terminal opens in ~, a Save As there), not in
         * the helper's "/"; the X server stays there, holding no directory of the user's. */
        if (c->which != DESKTOP_CHILD_SERVER && home && home[0] == '/' && access(home, X_OK) >= 0)
                o.cwd = home;
        o.argv = c->argv;
        o.envp = s->env;
        o.cgroup = cgroup;
        o.keep_fd = keep_fd;
        /* Without a cgroup, the process group and the parent-death signal are
         * what lets us (or the kernel, if we are SIGKILLed) take it down. */
        o.new_session = true;
        o.pdeathsig = !cgroup;
        o.ignore_sigusr1 = c->which == DESKTOP_CHILD_SERVER;
        /* A checkpointable desktop's children start inside its namespaces, through their init. */
        r = s->ns_init_pid > 0 ? namespace_spawn(s, c, &o) : spawn(&o, &c->pid);
        if (r < 0)
                return r;
        c->started = now_usec();
        log_debug("Started %s as pid %d.", c->name, (int) c->pid);
        return 0;
}

size_t child_all(struct supervisor *s, struct child **all) {
        size_t n = 0;

        all[n++] = &s->xserver;
        all[n++] = &s->bus;
        for (size_t i = 0; i < s->n_components; i++)
                all[n++] = &s->components[i];
        return n;
}

static int on_restart_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        struct child *c = userdata;
        struct supervisor *s = c->sup;
        int r;

        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        if (s->state != DESKTOP_READY)
                return 0;
        r = child_start(s, c, -1);
        if (r < 0)
                log_warning_errno(r, "Could not restart %s: %m, leaving it down.", c->name);
        else
                log_notice("Restarted %s (restart %u).", c->name, c->restarts);
        return 0;
}

/* The back-off doubles up to 30 s and resets once the child stayed up a minute. */
void child_schedule_restart(struct supervisor *s, struct child *c) {
        unsigned long long delay;
        int r;

        if (now_usec() - c->started > RESTART_STABLE_USEC)
                c->restarts = 0;
        delay = 1000000ULL << (c->restarts < 5 ? c->restarts : 5);
        if (delay > RESTART_MAX_DELAY_USEC)
                delay = RESTART_MAX_DELAY_USEC;
        c->restarts++;
        r = sd_event_add_time_relative(s->event, &c->restart_timer, CLOCK_MONOTONIC, delay, 0, on_restart_timer, c);
        if (r < 0)
                log_warning_errno(r, "Cannot schedule a restart of %s: %m", c->name);
}

static struct child *child_by_pid(struct supervisor *s, pid_t pid) {
        if (s->xserver.pid == pid)
                return &s->xserver;
        if (s->bus.pid == pid)
                return &s->bus;
        for (size_t i = 0; i < s->n_components; i++)
                if (s->components[i].pid == pid)
                        return &s->components[i];
        return NULL;
}

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

void child_reaped(struct supervisor *s, struct child *c, int code, int status) {
        struct desktop_event ev = {
                .type = DESKTOP_EVENT_CHILD_EXITED,
                .exit = {
                        .which = c->which,
                        .name = c->name,
                        .code = code,
                        .status = status,
                        .child = c,
                },
        };

        c->pid = 0;
        c->ns_pid = 0;
        if (s->state >= DESKTOP_STOPPING)
                return;

        if (c->which == DESKTOP_CHILD_SERVER && s->state == DESKTOP_SERVER_STARTING) {
                /* The lock our own server wrote before it died is no sign
                 * of someone else, and must not outlive it. */
                remove_x_leftovers(s);
                ev.exit.display_taken = code == CLD_EXITED && s->reserved_display < 0 &&
                                        s->n_tried < MAX_DISPLAY_ATTEMPTS &&
                                        display_in_use(&alloc_env_default, (unsigned) s->display) > 0;
        }
        if (c->which != DESKTOP_CHILD_SERVER) {
                const struct child *first = child_exiting(&s->xserver) ? &s->xserver
                                            : c->which != DESKTOP_CHILD_BUS && child_exiting(&s->bus) ? &s->bus
                                                                                                      : NULL;
                ev.exit.first_dying = first ? first->name : NULL;
        }
        supervisor_feed(s, &ev);
}

int child_on_sigchld(sd_event_source *source, const struct signalfd_siginfo *ssi, void *userdata) {
        struct supervisor *s = userdata;
        /* The X server and the bus first: when they die, their clients
         * follow, and the first death is the one to report. */
        struct child *first[] = { &s->xserver, &s->bus };

        for (size_t i = 0; i < ELEMENTSOF(first); i++) {
                siginfo_t si = {};

                if (first[i]->pid > 0 && waitid(P_PID, (id_t) first[i]->pid, &si, WEXITED | WNOHANG) >= 0 &&
                    si.si_pid == first[i]->pid)
                        child_reaped(s, first[i], si.si_code, si.si_status);
        }
        for (;;) {
                siginfo_t si = {};
                struct child *c;

                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
                        break;
                c = child_by_pid(s, si.si_pid);
                if (c)
                        child_reaped(s, c, si.si_code, si.si_status);
                else if (si.si_pid == s->ns_init_pid)
                        namespace_init_exited(s, &si);
                /* Anything else is an orphan we adopted as subreaper: reaped, done. */
        }
        return 0;
}

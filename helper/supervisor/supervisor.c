/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "adopt.h"
#include "child.h"
#include "exit-status.h"
#include "log.h"
#include "start.h"
#include "hibernate.h"
#include "namespace.h"
#include "resume.h"
#include "session-settle.h"
#include "supervisor.h"
#include "teardown.h"
#include "util.h"

void supervisor_init(struct supervisor *s, const char *profile) {
        *s = (struct supervisor) {
                .profile = profile,
                .runtime_fd = -EBADF,
                .helper_lock_fd = -EBADF,
                .bus_pipe = -EBADF,
                .adopt_fd = -EBADF,
                .ns_request_fd = -EBADF,
                .ns_event_fd = -EBADF,
                .spare = spare_name_valid(profile),
                .display = -1,
                .reserved_display = -1,
                .claimed_display = -1,
                .tree_display = -1,
                .ticket = START_TICKET_NULL,
                .state = DESKTOP_CHECKING,
                .t0 = now_usec(),
        };
        child_init(&s->xserver, s, "X server", DESKTOP_CHILD_SERVER);
        child_init(&s->bus, s, "session bus", DESKTOP_CHILD_BUS);
}

void supervisor_done(struct supervisor *s) {
        child_done(&s->xserver);
        child_done(&s->bus);
        for (size_t i = 0; i < s->n_components; i++)
                child_done(&s->components[i]);
        sd_event_source_disable_unref(s->x_source);
        sd_event_source_disable_unref(s->displayfd_source);
        sd_event_source_disable_unref(s->bus_source);
        sd_event_source_disable_unref(s->timeout_source);
        sd_event_source_disable_unref(s->settle_source);
        sd_event_source_disable_unref(s->idle_source);
        sd_event_source_disable_unref(s->extend_source);
        sd_event_source_disable_unref(s->grace_source);
        free(s->grace_reason);
        adopt_done(s);
        namespace_done(s);
        hibernate_done(s);
        session_settle_done(s);
        free(s->alias);
        free(s->adopted_profile);
        start_unclaim(s);
        start_queue_leave(&s->ticket);
        handback_done(&s->handback);
        viewer_gone_done(&s->viewer_gone);
        clipboard_owner_done(&s->clipboard);
        journal_frames_done(&s->frames);
        x11_disconnect(&s->x);
        sd_event_unref(s->event);
        strv_free(s->env);
        free(s->bus_socket);
        free(s->bus_address);
        free(s->tree_runtime);
        free(s->tree_state);
        free(s->fork_of);
        free(s->xserver_path);
        free(s->browser);
        free(s->browser_profile);
        free(s->cdp_socket);
        free(s->proxy_url);
        free(s->unit);
        free(s->cg_parent);
        free(s->cg_base);
        free(s->cg_supervisor);
        free(s->cg_x11);
        free(s->cg_session);
        free(s->cg_apps);
        safe_close(s->bus_pipe);
        safe_close(s->helper_lock_fd);
        safe_close(s->runtime_fd);
        session_dirs_done(&s->dirs);
        paths_done(&s->paths);
        config_done(&s->cfg);
}

unsigned long long supervisor_elapsed_ms(const struct supervisor *s) {
        return (now_usec() - s->t0) / 1000;
}

void supervisor_status(struct supervisor *s, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        msg = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (!msg)
                return;
        log_info("%s (%llu ms)", msg, supervisor_elapsed_ms(s));
        (void) sd_notifyf(false, "STATUS=%s", msg);
}

/* reason NULL (out of memory): the machine says what it can. */
static void feed_failure(struct supervisor *s, int exit_status, const char *reason) {
        supervisor_feed(s, &(struct desktop_event) {
                .type = DESKTOP_EVENT_FAILED,
                .failure = { .exit_status = exit_status, .reason = reason },
        });
}

void supervisor_fail(struct supervisor *s, int exit_status, const char *fmt, ...) {
        _cleanup_free_ char *reason = NULL;
        va_list ap;

        va_start(ap, fmt);
        reason = strdup_vprintf(fmt, ap);
        va_end(ap);
        feed_failure(s, exit_status, reason);
}

/* How long a component whose pipe or connection broke may take to exit. */
#define EXIT_GRACE_USEC (1000 * 1000ULL)

static int on_grace_over(sd_event_source *source, uint64_t usec, void *userdata) {
        struct supervisor *s = userdata;
        _cleanup_free_ char *reason = TAKE_PTR(s->grace_reason);

        /* After a stop or another failure, the machine ignores this one. */
        feed_failure(s, HELPER_EXIT_FAILED, reason);
        return 0;
}

void supervisor_fail_unless_exits(struct supervisor *s, struct child *c, const char *fmt, ...) {
        _cleanup_free_ char *reason = NULL;
        va_list ap;

        va_start(ap, fmt);
        reason = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (c->pid == 0 || s->grace_source ||
            sd_event_add_time_relative(s->event, &s->grace_source, CLOCK_MONOTONIC, EXIT_GRACE_USEC, 0,
                                       on_grace_over, s) < 0)
                return feed_failure(s, HELPER_EXIT_FAILED, reason);
        free(s->grace_reason);
        s->grace_reason = TAKE_PTR(reason);
}

void supervisor_check_wm(struct supervisor *s) {
        /* Only a session's window manager makes the desktop ready. */
        if (s->state != DESKTOP_SESSION_STARTING || x11_wm_present(&s->x) <= 0)
                return;
        supervisor_status(s, "Window manager up on :%d", s->display);
        supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_WM_UP });
}

static void supervisor_context(const struct supervisor *s, struct desktop_context *ret) {
        *ret = (struct desktop_context) {
                .display = s->display,
                .start_timeout = s->cfg.start_timeout,
                .idle_stop_minutes = s->cfg.idle_stop_minutes,
                .command = s->cfg.desktop == DESKTOP_COMMAND,
                .may_try_another_display = s->reserved_display < 0 && s->n_tried < MAX_DISPLAY_ATTEMPTS,
                .server_log = getenv("JOURNAL_STREAM") ? "the journal" : "helper.log",
        };
}

/* The end of the desktop: torn down, the loop told to exit with status. */
static void supervisor_end(struct supervisor *s, const struct desktop_step *step) {
        switch (step->action) {
        case DESKTOP_ACTION_FAIL:
                log_error("%s", step->reason ?: "Desktop failed.");
                (void) sd_notifyf(false, "STATUS=%s\nERRNO=%d", step->reason ?: "failed",
                                  step->exit_status == HELPER_EXIT_REFUSED ? EPERM : EIO);
                break;
        case DESKTOP_ACTION_IDLE_STOP:
                log_info("%s", step->reason ?: "Idle, stopping.");
                (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping: idle");
                break;
        default:
                (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
                log_info("Stopping desktop :%d.", s->display);
                break;
        }
        teardown(s, step->forget, step->reason);
        s->state = step->next;
        s->exit_status = step->exit_status;
        if (s->event)
                (void) sd_event_exit(s->event, step->exit_status);
}

static void supervisor_start_server(struct supervisor *s) {
        int r;

        if (s->ns_init_pid <= 0 && s->n_tried == 0 && !s->resume_tried) {
                /* A hibernated desktop or a fork comes back instead, when it can (else it starts cold, warned). */
                s->resume_tried = true;
                if (resume_run(s) > 0)
                        return supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_RESTORED });
        }
        if (s->cfg.checkpointable && s->ns_init_pid <= 0) {
                r = namespace_start(s);
                if (r < 0)
                        return supervisor_fail(s, HELPER_EXIT_FAILED,
                                               "Cannot start the desktop in namespaces of its own ([session] "
                                               "checkpointable = yes): %s%s", strerror(-r),
                                               r == -EPERM ? " (a new PID namespace needs CAP_SYS_ADMIN: start it "
                                                             "as root, or set checkpointable = no)" : "");
        }
        r = start_server(s);

        if (r == -EBUSY)
                supervisor_fail(s, HELPER_EXIT_FAILED, "No free X display in the band %u-%u ([display] band).",
                                s->cfg.band_min, s->cfg.band_max);
        else if (r == -ECANCELED)
                supervisor_fail(s, HELPER_EXIT_FAILED, "Stopped while waiting for the display allocation lock in %s.",
                                s->paths.runtime_base);
        else if (r == -EINTR)
                supervisor_fail(s, HELPER_EXIT_FAILED, "Stopped while waiting for its turn among the starts in %s.",
                                s->paths.runtime_base);
        else if (r == -ETIME)
                supervisor_fail(s, HELPER_EXIT_FAILED,
                                "No start ahead of this one finished within twice start_timeout=%us; it waited for its "
                                "turn ([resources] concurrent_starts) and never started.", s->cfg.start_timeout);
        else if (r == -ETIMEDOUT)
                supervisor_fail(s, HELPER_EXIT_FAILED,
                                "The display allocation lock in %s stayed held by another start for start_timeout=%us.",
                                s->paths.runtime_base, s->cfg.start_timeout);
        else if (r < 0)
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot start the X server: %s", strerror(-r));
}

void supervisor_feed(struct supervisor *s, const struct desktop_event *ev) {
        _cleanup_(desktop_step_done) struct desktop_step step = {};
        struct desktop_context ctx;
        enum desktop_state from = s->state;

        supervisor_context(s, &ctx);
        if (desktop_transition(from, &ctx, ev, &step) == 0) {
                log_debug("State %s: %s ignored.", desktop_state_to_string(from), desktop_event_to_string(ev->type));
                return;
        }
        log_debug("State %s -> %s on %s (%s).", desktop_state_to_string(from), desktop_state_to_string(step.next),
                  desktop_event_to_string(ev->type), desktop_action_to_string(step.action));

        switch (step.action) {
        case DESKTOP_ACTION_STOP:
        case DESKTOP_ACTION_IDLE_STOP:
        case DESKTOP_ACTION_FAIL:
                return supervisor_end(s, &step);
        default:
                break;
        }

        if (step.reason)
                (void) log_full_errno(step.log_level, 0, "%s", step.reason);
        s->state = step.next;
        /* A step that fails feeds FAILED itself, ending the desktop there. */
        switch (step.action) {
        case DESKTOP_ACTION_START_SERVER:
                return supervisor_start_server(s);
        case DESKTOP_ACTION_REJECT_DISPLAY:
                return start_reject_display(s);
        case DESKTOP_ACTION_START_BUS:
                return start_bus(s);
        case DESKTOP_ACTION_START_SESSION:
                return start_session(s);
        case DESKTOP_ACTION_PUBLISH:
                return start_publish(s);
        case DESKTOP_ACTION_PUBLISH_RESTORED:
                (void) start_publish_env(s);
                return;
        case DESKTOP_ACTION_RESTART_CHILD:
                return child_schedule_restart(s, ev->exit.child);
        default:
                return;
        }
}

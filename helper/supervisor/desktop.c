/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "desktop.h"
#include "util.h"

static const char *const state_names[_DESKTOP_STATE_MAX] = {
        [DESKTOP_CHECKING] = "checking",
        [DESKTOP_SERVER_STARTING] = "server-starting",
        [DESKTOP_BUS_STARTING] = "bus-starting",
        [DESKTOP_SESSION_STARTING] = "session-starting",
        [DESKTOP_READY] = "ready",
        [DESKTOP_STOPPING] = "stopping",
        [DESKTOP_STOPPED] = "stopped",
        [DESKTOP_FAILED] = "failed",
};

static const char *const event_names[_DESKTOP_EVENT_MAX] = {
        [DESKTOP_EVENT_CHECKS_PASSED] = "checks-passed",
        [DESKTOP_EVENT_SERVER_READY] = "server-ready",
        [DESKTOP_EVENT_BUS_ADDRESS] = "bus-address",
        [DESKTOP_EVENT_WM_UP] = "wm-up",
        [DESKTOP_EVENT_SETTLED] = "settled",
        [DESKTOP_EVENT_CHILD_EXITED] = "child-exited",
        [DESKTOP_EVENT_STOP_REQUESTED] = "stop-requested",
        [DESKTOP_EVENT_IDLE] = "idle",
        [DESKTOP_EVENT_TIMEOUT] = "timeout",
        [DESKTOP_EVENT_FAILED] = "failed",
        [DESKTOP_EVENT_HIBERNATED] = "hibernated",
        [DESKTOP_EVENT_RESTORED] = "restored",
};

const char *desktop_state_to_string(enum desktop_state state) {
        return (unsigned) state < _DESKTOP_STATE_MAX ? state_names[state] : "?";
}

const char *desktop_event_to_string(enum desktop_event_type type) {
        return (unsigned) type < _DESKTOP_EVENT_MAX ? event_names[type] : "?";
}

const char *desktop_action_to_string(enum desktop_action action) {
        switch (action) {
        case DESKTOP_ACTION_NONE: return "none";
        case DESKTOP_ACTION_START_SERVER: return "start-server";
        case DESKTOP_ACTION_REJECT_DISPLAY: return "reject-display";
        case DESKTOP_ACTION_START_BUS: return "start-bus";
        case DESKTOP_ACTION_START_SESSION: return "start-session";
        case DESKTOP_ACTION_PUBLISH: return "publish";
        case DESKTOP_ACTION_PUBLISH_RESTORED: return "publish-restored";
        case DESKTOP_ACTION_RESTART_CHILD: return "restart-child";
        case DESKTOP_ACTION_STOP: return "stop";
        case DESKTOP_ACTION_IDLE_STOP: return "idle-stop";
        case DESKTOP_ACTION_FAIL: return "fail";
        }
        return "?";
}

bool desktop_state_is_starting(enum desktop_state state) {
        return state >= DESKTOP_CHECKING && state < DESKTOP_READY;
}

void desktop_describe_exit(int code, int status, char *buf, size_t size) {
        if (code == CLD_EXITED)
                snprintf(buf, size, "exited with status %d", status);
        else
                snprintf(buf, size, "was killed by signal %s", sigabbrev_np(status) ?: "?");
}

void desktop_step_done(struct desktop_step *step) {
        free(step->reason);
        step->reason = NULL;
}

static int step(struct desktop_step *ret, enum desktop_state next, enum desktop_action action) {
        *ret = (struct desktop_step) { .next = next, .action = action, .log_level = LOG_INFO };
        return 1;
}

static int fail(struct desktop_step *ret, int exit_status, char *reason) {
        *ret = (struct desktop_step) {
                .next = DESKTOP_FAILED,
                .action = DESKTOP_ACTION_FAIL,
                .exit_status = exit_status,
                .forget = true,
                .log_level = LOG_ERR,
                .reason = reason,
        };
        return 1;
}

static int ignore(enum desktop_state state, struct desktop_step *ret) {
        *ret = (struct desktop_step) { .next = state, .action = DESKTOP_ACTION_NONE, .log_level = LOG_DEBUG };
        return 0;
}

static const char *awaited(enum desktop_state state, const struct desktop_context *ctx) {
        switch (state) {
        case DESKTOP_BUS_STARTING:
                return "the session bus";
        case DESKTOP_SESSION_STARTING:
                return ctx->command ? "the session command" : "a window manager";
        default:
                return "the X server to listen";
        }
}

static int on_child_exited(enum desktop_state state, const struct desktop_context *ctx, const struct desktop_exit *e,
                           struct desktop_step *ret) {
        bool ready = state == DESKTOP_READY;
        char how[64];

        desktop_describe_exit(e->code, e->status, how, sizeof how);

        if (e->which == DESKTOP_CHILD_SERVER && state == DESKTOP_SERVER_STARTING) {
                /* Refused before it listened (an exit, not a kill): taken
                 * by someone we could not see? Try the next. */
                if (e->code == CLD_EXITED && e->display_taken && ctx->may_try_another_display) {
                        step(ret, DESKTOP_SERVER_STARTING, DESKTOP_ACTION_START_SERVER);
                        ret->log_level = LOG_NOTICE;
                        ret->reason = strdup_printf("Display :%d was taken meanwhile, trying another.", ctx->display);
                        return 1;
                }
                return fail(ret, EXIT_FAILURE,
                            strdup_printf("The X server for :%d %s before it accepted connections; see %s",
                                          ctx->display, how, ctx->server_log));
        }
        if (e->which != DESKTOP_CHILD_SERVER && e->first_dying) {
                /* Died with the X server, or with the bus: the first to die
                 * is the one to blame, and its own exit follows at once. */
                ignore(state, ret);
                ret->log_level = LOG_INFO;
                ret->reason = strdup_printf("%s %s while %s was exiting.", e->name, how, e->first_dying);
                return 1;
        }
        if (e->which != DESKTOP_CHILD_COMPONENT)
                return fail(ret, EXIT_FAILURE,
                            strdup_printf("The %s of :%d %s%s.", e->name, ctx->display, how,
                                          ready ? "" : " before the desktop was ready"));
        if (!ready)
                return fail(ret, EXIT_FAILURE,
                            strdup_printf("%s %s before the desktop on :%d was ready.", e->name, how, ctx->display));
        step(ret, DESKTOP_READY, DESKTOP_ACTION_RESTART_CHILD);
        ret->log_level = LOG_WARNING;
        ret->reason = strdup_printf("%s %s; restarting it.", e->name, how);
        return 1;
}

static int on_stop_requested(enum desktop_state state, int signo, struct desktop_step *ret) {
        step(ret, DESKTOP_STOPPED, DESKTOP_ACTION_STOP);
        ret->exit_status = EXIT_SUCCESS;
        if (state == DESKTOP_READY)
                return 1;
        /* `botdesk start` repeats this: the start did not fail, it was stopped. */
        ret->forget = true;
        ret->reason = strdup_printf("stopped while starting: %s came before the desktop was ready",
                                    signo == SIGTERM ? "a stop (SIGTERM)" : sigabbrev_np(signo) ?: "a signal");
        return 1;
}

int desktop_transition(enum desktop_state state, const struct desktop_context *ctx, const struct desktop_event *ev,
                       struct desktop_step *ret) {
        /* Once the teardown began, nothing changes its course. */
        if (state >= DESKTOP_STOPPING || (unsigned) state >= _DESKTOP_STATE_MAX)
                return ignore(state, ret);

        switch (ev->type) {
        case DESKTOP_EVENT_CHECKS_PASSED:
                if (state != DESKTOP_CHECKING)
                        break;
                return step(ret, DESKTOP_SERVER_STARTING, DESKTOP_ACTION_START_SERVER);

        case DESKTOP_EVENT_SERVER_READY:
                if (state != DESKTOP_SERVER_STARTING)
                        break;
                if (ev->reserved_meanwhile) {
                        /* The logind tier reserved this number while our
                         * server claimed it (no lock is shared across uids):
                         * theirs it is; the server's exit tries the next. */
                        step(ret, DESKTOP_SERVER_STARTING, DESKTOP_ACTION_REJECT_DISPLAY);
                        ret->log_level = LOG_NOTICE;
                        ret->reason = strdup_printf("Display :%d was reserved by a logind session meanwhile, trying another.",
                                                    ctx->display);
                        return 1;
                }
                return step(ret, DESKTOP_BUS_STARTING, DESKTOP_ACTION_START_BUS);

        case DESKTOP_EVENT_BUS_ADDRESS:
                if (state != DESKTOP_BUS_STARTING)
                        break;
                return step(ret, DESKTOP_SESSION_STARTING, DESKTOP_ACTION_START_SESSION);

        case DESKTOP_EVENT_WM_UP:
        case DESKTOP_EVENT_SETTLED:
                /* Before the session runs, a WM is not the session's (and
                 * nothing could be published without the bus's address). */
                if (state != DESKTOP_SESSION_STARTING)
                        break;
                if (ev->type == DESKTOP_EVENT_SETTLED && !ctx->command)
                        break;
                return step(ret, DESKTOP_READY, DESKTOP_ACTION_PUBLISH);

        case DESKTOP_EVENT_CHILD_EXITED:
                if (state == DESKTOP_CHECKING)
                        break;
                return on_child_exited(state, ctx, &ev->exit, ret);

        case DESKTOP_EVENT_STOP_REQUESTED:
                return on_stop_requested(state, ev->signo, ret);

        case DESKTOP_EVENT_IDLE:
                if (state != DESKTOP_READY)
                        break;
                step(ret, DESKTOP_STOPPED, DESKTOP_ACTION_IDLE_STOP);
                /* Exit 0: Restart=on-failure must not bring an idle desktop back. */
                ret->exit_status = EXIT_SUCCESS;
                ret->reason = strdup_printf("Idle for %u minutes (idle_stop_minutes), stopping desktop :%d.",
                                            ctx->idle_stop_minutes, ctx->display);
                return 1;

        case DESKTOP_EVENT_TIMEOUT:
                if (!desktop_state_is_starting(state))
                        break;
                return fail(ret, EXIT_FAILURE,
                            strdup_printf("Desktop not ready within start_timeout=%us (waited for %s on :%d).",
                                          ctx->start_timeout, awaited(state, ctx), ctx->display));

        case DESKTOP_EVENT_FAILED:
                return fail(ret, ev->failure.exit_status, ev->failure.reason ? strdup(ev->failure.reason) : NULL);

        case DESKTOP_EVENT_HIBERNATED:
                /* Only a ready desktop is dumped; the dump ended its tree. Exit 0: nothing failed. */
                if (state != DESKTOP_READY)
                        break;
                step(ret, DESKTOP_STOPPED, DESKTOP_ACTION_STOP);
                ret->exit_status = EXIT_SUCCESS;
                ret->reason = strdup_printf("Hibernated desktop :%d.", ctx->display);
                return 1;

        case DESKTOP_EVENT_RESTORED:
                /* A restore takes the place of the X server's start. */
                if (state != DESKTOP_SERVER_STARTING)
                        break;
                return step(ret, DESKTOP_READY, DESKTOP_ACTION_PUBLISH_RESTORED);

        default:
                break;
        }
        return ignore(state, ret);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * One desktop's life as a state machine. desktop_transition() is the whole
 * of it: the current state and one event in, the next state and what to do
 * out. It does nothing itself (no process, no file, no X), so a unit test
 * drives it with made-up events; supervisor.c carries out its steps.
 *
 *   CHECKING --checks passed--> SERVER_STARTING --server ready--> BUS_STARTING
 *     --bus address--> SESSION_STARTING --WM up / settled--> READY
 *
 * A stop, a failure, a start timeout or an essential child's death lead
 * from any of the starting states to STOPPING (the teardown, synchronous)
 * and then STOPPED (exit 0) or FAILED (exit non-zero); from READY an idle
 * stop or a stop lead to STOPPED. Nothing leaves STOPPING, STOPPED or FAILED.
 */

enum desktop_state {
        DESKTOP_CHECKING,               /* binaries and memory, before anything starts */
        DESKTOP_SERVER_STARTING,        /* the X server runs; waiting for its SIGUSR1 */
        DESKTOP_BUS_STARTING,           /* X listens; waiting for the session bus's address */
        DESKTOP_SESSION_STARTING,       /* the session runs; waiting for a WM (or the settle time) */
        DESKTOP_READY,                  /* env published, READY=1 sent */
        DESKTOP_STOPPING,               /* the teardown is under way: every event is ignored */
        DESKTOP_STOPPED,                /* torn down on a stop: exit 0 */
        DESKTOP_FAILED,                 /* torn down on a failure: exit non-zero */
        _DESKTOP_STATE_MAX,
};

enum desktop_event_type {
        DESKTOP_EVENT_CHECKS_PASSED,
        DESKTOP_EVENT_SERVER_READY,     /* our X server's SIGUSR1: it accepts connections */
        DESKTOP_EVENT_BUS_ADDRESS,      /* the session bus printed its address */
        DESKTOP_EVENT_WM_UP,            /* _NET_SUPPORTING_WM_CHECK names a live window */
        DESKTOP_EVENT_SETTLED,          /* desktop = command: up for command_settle_ms */
        DESKTOP_EVENT_CHILD_EXITED,
        DESKTOP_EVENT_STOP_REQUESTED,   /* SIGTERM, SIGINT or SIGHUP */
        DESKTOP_EVENT_IDLE,             /* idle for idle_stop_minutes, no human at the screen */
        DESKTOP_EVENT_TIMEOUT,          /* start_timeout passed */
        DESKTOP_EVENT_FAILED,           /* a step could not be carried out (its reason given) */
        DESKTOP_EVENT_HIBERNATED,       /* its tree was dumped (and so ended): stop, exit 0 */
        DESKTOP_EVENT_RESTORED,         /* its tree was restored from a snapshot: publish as ready */
        _DESKTOP_EVENT_MAX,
};

enum desktop_child {
        DESKTOP_CHILD_SERVER,           /* the X server: essential */
        DESKTOP_CHILD_BUS,              /* the session bus: essential */
        DESKTOP_CHILD_COMPONENT,        /* a session component, or the session command */
};

struct desktop_exit {
        enum desktop_child which;
        const char *name;               /* "X server", "session bus", "xfwm4", ... */
        int code;                       /* siginfo's si_code: CLD_EXITED, CLD_KILLED, CLD_DUMPED */
        int status;                     /* the exit status, or the signal */
        /* The X server or the bus when it was already exiting as this child
         * was reaped: this death is a consequence of that one, which is
         * reported when its own exit comes (at once). */
        const char *first_dying;
        /* The server exited before it listened and its number turns out
         * taken by someone we could not see: the next number may do. */
        bool display_taken;
        void *child;                    /* the caller's handle of it: never read here */
};

struct desktop_event {
        enum desktop_event_type type;
        union {
                struct desktop_exit exit;       /* CHILD_EXITED */
                int signo;                      /* STOP_REQUESTED */
                /* SERVER_READY: a logind session reserved the number meanwhile. */
                bool reserved_meanwhile;
                struct {
                        int exit_status;        /* EXIT_FAILURE, or EXIT_REFUSED for a refusal */
                        const char *reason;
                } failure;                      /* FAILED */
        };
};

/* What the transitions read beyond the state and the event. */
struct desktop_context {
        int display;                    /* -1 before one is picked */
        unsigned start_timeout;         /* seconds */
        unsigned idle_stop_minutes;
        bool command;                   /* desktop = command (else Xfce) */
        bool may_try_another_display;   /* no logind reservation, attempts left */
        const char *server_log;         /* where the X server's output went */
};

enum desktop_action {
        DESKTOP_ACTION_NONE,            /* nothing (the step may still carry a line to log) */
        DESKTOP_ACTION_START_SERVER,    /* pick a display, start the X server on it */
        DESKTOP_ACTION_REJECT_DISPLAY,  /* end our server: its number is a logind session's */
        DESKTOP_ACTION_START_BUS,       /* connect to X, start the session bus */
        DESKTOP_ACTION_START_SESSION,   /* the bus is up: start Xfce or the command */
        DESKTOP_ACTION_PUBLISH,         /* start what waits for the WM, publish env, READY=1 */
        DESKTOP_ACTION_PUBLISH_RESTORED, /* publish env, READY=1: everything already runs */
        DESKTOP_ACTION_RESTART_CHILD,   /* a component died after READY: back-off restart */
        DESKTOP_ACTION_STOP,            /* a stop: tear down, exit 0 */
        DESKTOP_ACTION_IDLE_STOP,       /* idle: tear down, exit 0 */
        DESKTOP_ACTION_FAIL,            /* tear down, report the reason, exit non-zero */
};

struct desktop_step {
        enum desktop_state next;
        enum desktop_action action;
        int exit_status;                /* for STOP, IDLE_STOP and FAIL */
        /* The teardown of a start that did not finish forgets the display
         * number and writes the reason to last-error. */
        bool forget;
        int log_level;                  /* of reason, when the action is not FAIL */
        char *reason;                   /* owned; NULL when there is nothing to say (or no memory) */
};

/*
 * Returns 1 when the event applies in this state (*ret filled, ret->next may
 * equal the state), 0 when the state ignores it (a late or foreign event:
 * *ret says stay and do nothing). Never fails: without memory for the
 * reason, ret->reason is NULL and the caller says something generic.
 */
int desktop_transition(enum desktop_state state, const struct desktop_context *ctx, const struct desktop_event *ev,
                       struct desktop_step *ret);
void desktop_step_done(struct desktop_step *step);

bool desktop_state_is_starting(enum desktop_state state);
const char *desktop_state_to_string(enum desktop_state state);
const char *desktop_event_to_string(enum desktop_event_type type);
const char *desktop_action_to_string(enum desktop_action action);

/* "exited with status 1", "was killed by signal KILL" */
void desktop_describe_exit(int code, int status, char *buf, size_t size);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor's state machine (helper/supervisor/desktop.c), driven with
 * made-up events: no X server, no child, no file.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>

#include "desktop.h"
#include "tap.h"
#include "util.h"

static const struct desktop_context xfce = {
        .display = 21,
        .start_timeout = 15,
        .idle_stop_minutes = 30,
        .command = false,
        .may_try_another_display = true,
        .server_log = "helper.log",
};

static struct desktop_context command_ctx(void) {
        struct desktop_context c = xfce;

        c.command = true;
        return c;
}

static const enum desktop_state starting[] = {
        DESKTOP_SERVER_STARTING, DESKTOP_BUS_STARTING, DESKTOP_SESSION_STARTING,
};

static const char *name_of(enum desktop_state s) {
        return desktop_state_to_string(s);
}

static struct desktop_event simple(enum desktop_event_type type) {
        return (struct desktop_event) { .type = type };
}

static struct desktop_event died(enum desktop_child which, const char *name, int code, int status,
                                 const char *first_dying) {
        return (struct desktop_event) {
                .type = DESKTOP_EVENT_CHILD_EXITED,
                .exit = { .which = which, .name = name, .code = code, .status = status, .first_dying = first_dying },
        };
}

/* One transition: its result, next state, action and reason as expected. */
static void expect(enum desktop_state from, const struct desktop_context *ctx, struct desktop_event ev, int applies,
                   enum desktop_state next, enum desktop_action action, const char *reason, const char *what) {
        struct desktop_step step = {};
        int r = desktop_transition(from, ctx, &ev, &step);
        int good = r == applies && step.next == next && step.action == action &&
                   (reason ? step.reason && strcmp(step.reason, reason) == 0 : !step.reason);

        if (!tap_ok(good, "%s: %s on %s -> %s (%s)", what, desktop_event_to_string(ev.type), name_of(from),
                    name_of(next), desktop_action_to_string(action)))
                printf("#   got %d, %s (%s), reason \"%s\"\n", r, name_of(step.next),
                       desktop_action_to_string(step.action), step.reason ?: "(none)");
        desktop_step_done(&step);
}

static void expect_ignored(enum desktop_state from, const struct desktop_context *ctx, struct desktop_event ev,
                           const char *what) {
        expect(from, ctx, ev, 0, from, DESKTOP_ACTION_NONE, NULL, what);
}

static void test_normal_path(void) {
        struct desktop_context cmd = command_ctx();

        expect(DESKTOP_CHECKING, &xfce, simple(DESKTOP_EVENT_CHECKS_PASSED), 1, DESKTOP_SERVER_STARTING,
               DESKTOP_ACTION_START_SERVER, NULL, "the checks passed: the X server starts");
        expect(DESKTOP_SERVER_STARTING, &xfce, simple(DESKTOP_EVENT_SERVER_READY), 1, DESKTOP_BUS_STARTING,
               DESKTOP_ACTION_START_BUS, NULL, "the server listens: the bus starts");
        expect(DESKTOP_BUS_STARTING, &xfce, simple(DESKTOP_EVENT_BUS_ADDRESS), 1, DESKTOP_SESSION_STARTING,
               DESKTOP_ACTION_START_SESSION, NULL, "the bus has an address: the session starts");
        expect(DESKTOP_SESSION_STARTING, &xfce, simple(DESKTOP_EVENT_WM_UP), 1, DESKTOP_READY,
               DESKTOP_ACTION_PUBLISH, NULL, "a window manager is up: the desktop is published");
        expect(DESKTOP_SESSION_STARTING, &cmd, simple(DESKTOP_EVENT_SETTLED), 1, DESKTOP_READY,
               DESKTOP_ACTION_PUBLISH, NULL, "desktop = command: settled is ready");
        expect(DESKTOP_SESSION_STARTING, &cmd, simple(DESKTOP_EVENT_WM_UP), 1, DESKTOP_READY,
               DESKTOP_ACTION_PUBLISH, NULL, "desktop = command: a WM before the settle time is ready too");
        expect_ignored(DESKTOP_SESSION_STARTING, &xfce, simple(DESKTOP_EVENT_SETTLED),
                       "Xfce waits for its WM, not for a settle time");
}

static void test_server_refused_its_number(void) {
        struct desktop_context no_more = xfce;
        struct desktop_event taken = died(DESKTOP_CHILD_SERVER, "X server", CLD_EXITED, 1, NULL);
        struct desktop_event reserved = simple(DESKTOP_EVENT_SERVER_READY);

        taken.exit.display_taken = true;
        expect(DESKTOP_SERVER_STARTING, &xfce, taken, 1, DESKTOP_SERVER_STARTING, DESKTOP_ACTION_START_SERVER,
               "Display :21 was taken meanwhile, trying another.", "a number taken meanwhile: the next one");
        no_more.may_try_another_display = false;
        expect(DESKTOP_SERVER_STARTING, &no_more, taken, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "The X server for :21 exited with status 1 before it accepted connections; see helper.log",
               "a number taken, no attempt left (or reserved by logind): the start fails");
        taken.exit.code = CLD_KILLED;
        taken.exit.status = SIGKILL;
        expect(DESKTOP_SERVER_STARTING, &xfce, taken, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "The X server for :21 was killed by signal KILL before it accepted connections; see helper.log",
               "a server killed is no taken number: the start fails naming the signal");
        reserved.reserved_meanwhile = true;
        expect(DESKTOP_SERVER_STARTING, &xfce, reserved, 1, DESKTOP_SERVER_STARTING, DESKTOP_ACTION_REJECT_DISPLAY,
               "Display :21 was reserved by a logind session meanwhile, trying another.",
               "a number a logind session reserved meanwhile is given up");
}

/* Every child dying in every state: which state, which reason. */
static void test_deaths(void) {
        static const struct {
                enum desktop_child which;
                const char *name;
        } children[] = {
                { DESKTOP_CHILD_SERVER, "X server" },
                { DESKTOP_CHILD_BUS, "session bus" },
                { DESKTOP_CHILD_COMPONENT, "xfwm4" },
        };
        static const enum desktop_state states[] = {
                DESKTOP_SERVER_STARTING, DESKTOP_BUS_STARTING, DESKTOP_SESSION_STARTING, DESKTOP_READY,
        };

        for (size_t c = 0; c < ELEMENTSOF(children); c++)
                for (size_t i = 0; i < ELEMENTSOF(states); i++) {
                        enum desktop_state s = states[i];
                        bool ready = s == DESKTOP_READY;
                        char want[256], what[128];
                        struct desktop_event ev = died(children[c].which, children[c].name, CLD_KILLED, SIGSEGV, NULL);

                        snprintf(what, sizeof what, "%s killed by SEGV in %s", children[c].name, name_of(s));
                        if (children[c].which == DESKTOP_CHILD_SERVER && s == DESKTOP_SERVER_STARTING)
                                snprintf(want, sizeof want,
                                         "The X server for :21 was killed by signal SEGV before it accepted connections; see helper.log");
                        else if (children[c].which != DESKTOP_CHILD_COMPONENT)
                                snprintf(want, sizeof want, "The %s of :21 was killed by signal SEGV%s.", children[c].name,
                                         ready ? "" : " before the desktop was ready");
                        else if (!ready)
                                snprintf(want, sizeof want, "xfwm4 was killed by signal SEGV before the desktop on :21 was ready.");
                        else {
                                expect(s, &xfce, ev, 1, DESKTOP_READY, DESKTOP_ACTION_RESTART_CHILD,
                                       "xfwm4 was killed by signal SEGV; restarting it.", what);
                                continue;
                        }
                        expect(s, &xfce, ev, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL, want, what);
                }

        expect(DESKTOP_SESSION_STARTING, &xfce, died(DESKTOP_CHILD_COMPONENT, "xfwm4", CLD_EXITED, 1, NULL), 1,
               DESKTOP_FAILED, DESKTOP_ACTION_FAIL, "xfwm4 exited with status 1 before the desktop on :21 was ready.",
               "an exit status is named as such");
}

/* The first to die is blamed, not its victims (a SIGKILLed Xvnc makes the
 * WM exit with status 1, and that exit may be reaped first). */
static void test_first_to_die(void) {
        struct desktop_step step = {};
        struct desktop_event victim = died(DESKTOP_CHILD_COMPONENT, "xfwm4", CLD_EXITED, 1, "X server");
        struct desktop_event bus_victim = died(DESKTOP_CHILD_BUS, "session bus", CLD_EXITED, 1, "X server");
        struct desktop_event server = died(DESKTOP_CHILD_SERVER, "X server", CLD_KILLED, SIGKILL, NULL);
        enum desktop_state s = DESKTOP_SESSION_STARTING;

        expect(s, &xfce, victim, 1, s, DESKTOP_ACTION_NONE, "xfwm4 exited with status 1 while X server was exiting.",
               "the WM dying with the X server is not blamed");
        expect(DESKTOP_READY, &xfce, victim, 1, DESKTOP_READY, DESKTOP_ACTION_NONE,
               "xfwm4 exited with status 1 while X server was exiting.",
               "nor restarted after READY: the server's own exit ends the desktop");
        expect(s, &xfce, bus_victim, 1, s, DESKTOP_ACTION_NONE,
               "session bus exited with status 1 while X server was exiting.",
               "the bus dying with the X server is not blamed");
        desktop_transition(s, &xfce, &victim, &step);
        s = step.next;
        desktop_step_done(&step);
        expect(s, &xfce, server, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "The X server of :21 was killed by signal KILL before the desktop was ready.",
               "then the X server's own exit names it and its signal");
}

static void test_stop(void) {
        struct desktop_event term = { .type = DESKTOP_EVENT_STOP_REQUESTED, .signo = SIGTERM };
        struct desktop_event intr = { .type = DESKTOP_EVENT_STOP_REQUESTED, .signo = SIGINT };
        struct desktop_step step = {};
        static const enum desktop_state before_ready[] = {
                DESKTOP_CHECKING, DESKTOP_SERVER_STARTING, DESKTOP_BUS_STARTING, DESKTOP_SESSION_STARTING,
        };

        for (size_t i = 0; i < ELEMENTSOF(before_ready); i++) {
                char what[96];

                snprintf(what, sizeof what, "a stop in %s ends the start, saying so", name_of(before_ready[i]));
                expect(before_ready[i], &xfce, term, 1, DESKTOP_STOPPED, DESKTOP_ACTION_STOP,
                       "stopped while starting: a stop (SIGTERM) came before the desktop was ready", what);
        }
        expect(DESKTOP_BUS_STARTING, &xfce, intr, 1, DESKTOP_STOPPED, DESKTOP_ACTION_STOP,
               "stopped while starting: INT came before the desktop was ready", "another stop signal is named");

        desktop_transition(DESKTOP_SESSION_STARTING, &xfce, &term, &step);
        TAP_EQ_INT(step.exit_status, EXIT_SUCCESS, "a stop while starting exits 0 (not restarted)");
        tap_ok(step.forget, "a stop while starting forgets the display and leaves its reason in last-error");
        desktop_step_done(&step);

        expect(DESKTOP_READY, &xfce, term, 1, DESKTOP_STOPPED, DESKTOP_ACTION_STOP, NULL,
               "a stop of a ready desktop has nothing to explain");
        desktop_transition(DESKTOP_READY, &xfce, &term, &step);
        tap_ok(!step.forget && step.exit_status == EXIT_SUCCESS, "and keeps the display number, exit 0");
        desktop_step_done(&step);

        expect(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_IDLE), 1, DESKTOP_STOPPED, DESKTOP_ACTION_IDLE_STOP,
               "Idle for 30 minutes (idle_stop_minutes), stopping desktop :21.", "idle when ready: the idle stop");
        desktop_transition(DESKTOP_READY, &xfce, &(struct desktop_event) { .type = DESKTOP_EVENT_IDLE }, &step);
        tap_ok(!step.forget && step.exit_status == EXIT_SUCCESS, "the idle stop exits 0 (Restart=on-failure stays away)");
        desktop_step_done(&step);
}

static void test_hibernate_and_restore(void) {
        struct desktop_step step = {};
        const enum desktop_state not_ready[] = { DESKTOP_CHECKING, DESKTOP_SERVER_STARTING, DESKTOP_BUS_STARTING,
                                                 DESKTOP_SESSION_STARTING };
        const enum desktop_state not_starting[] = { DESKTOP_CHECKING, DESKTOP_BUS_STARTING, DESKTOP_SESSION_STARTING,
                                                    DESKTOP_READY };

        expect(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_HIBERNATED), 1, DESKTOP_STOPPED, DESKTOP_ACTION_STOP,
               "Hibernated desktop :21.", "hibernated when ready: a stop");
        desktop_transition(DESKTOP_READY, &xfce, &(struct desktop_event) { .type = DESKTOP_EVENT_HIBERNATED }, &step);
        tap_ok(!step.forget && step.exit_status == EXIT_SUCCESS, "a hibernation keeps the display number and exits 0");
        desktop_step_done(&step);
        for (size_t i = 0; i < ELEMENTSOF(not_ready); i++) {
                char what[64];

                snprintf(what, sizeof what, "hibernated in %s", name_of(not_ready[i]));
                expect_ignored(not_ready[i], &xfce, simple(DESKTOP_EVENT_HIBERNATED), what);
        }
        expect(DESKTOP_SERVER_STARTING, &xfce, simple(DESKTOP_EVENT_RESTORED), 1, DESKTOP_READY,
               DESKTOP_ACTION_PUBLISH_RESTORED, NULL, "restored in place of the X server's start: published as ready");
        for (size_t i = 0; i < ELEMENTSOF(not_starting); i++) {
                char what[64];

                snprintf(what, sizeof what, "restored in %s", name_of(not_starting[i]));
                expect_ignored(not_starting[i], &xfce, simple(DESKTOP_EVENT_RESTORED), what);
        }
}

static void test_timeout(void) {
        struct desktop_context cmd = command_ctx();

        expect(DESKTOP_SERVER_STARTING, &xfce, simple(DESKTOP_EVENT_TIMEOUT), 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "Desktop not ready within start_timeout=15s (waited for the X server to listen on :21).",
               "a timeout names the X server when it did not listen");
        expect(DESKTOP_BUS_STARTING, &xfce, simple(DESKTOP_EVENT_TIMEOUT), 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "Desktop not ready within start_timeout=15s (waited for the session bus on :21).",
               "a timeout names the bus when it gave no address");
        expect(DESKTOP_SESSION_STARTING, &xfce, simple(DESKTOP_EVENT_TIMEOUT), 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "Desktop not ready within start_timeout=15s (waited for a window manager on :21).",
               "a timeout names the window manager");
        expect(DESKTOP_SESSION_STARTING, &cmd, simple(DESKTOP_EVENT_TIMEOUT), 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
               "Desktop not ready within start_timeout=15s (waited for the session command on :21).",
               "a timeout names the session command");
        expect_ignored(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_TIMEOUT), "a ready desktop has no start to time out");
}

/* A step that fails (an -ENOMEM after the bus printed its address, say)
 * ends the start at once with its own reason: not later, not as a timeout. */
static void test_failures(void) {
        struct desktop_event nomem = {
                .type = DESKTOP_EVENT_FAILED,
                .failure = { .exit_status = EXIT_FAILURE, .reason = "Cannot start the session on :21: Cannot allocate memory" },
        };
        struct desktop_event refused = {
                .type = DESKTOP_EVENT_FAILED,
                .failure = { .exit_status = 3, .reason = "Not enough free memory for a desktop" },
        };
        struct desktop_step step = {};

        for (size_t i = 0; i < ELEMENTSOF(starting); i++) {
                char what[96];

                snprintf(what, sizeof what, "a failed step in %s fails the start at once", name_of(starting[i]));
                expect(starting[i], &xfce, nomem, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL,
                       "Cannot start the session on :21: Cannot allocate memory", what);
        }
        desktop_transition(DESKTOP_BUS_STARTING, &xfce, &nomem, &step);
        TAP_EQ_INT(step.exit_status, EXIT_FAILURE, "a failed step exits 1, which is restarted");
        tap_ok(step.forget, "a failed start forgets its display and leaves its reason in last-error");
        expect_ignored(step.next, &xfce, simple(DESKTOP_EVENT_TIMEOUT), "and no timeout comes after to blame the bus");
        desktop_step_done(&step);

        desktop_transition(DESKTOP_CHECKING, &xfce, &refused, &step);
        tap_ok(step.next == DESKTOP_FAILED && step.exit_status == 3, "a refusal of the checks exits 3 (not restarted)");
        desktop_step_done(&step);

        nomem.failure.reason = NULL;
        expect(DESKTOP_SESSION_STARTING, &xfce, nomem, 1, DESKTOP_FAILED, DESKTOP_ACTION_FAIL, NULL,
               "a failure without a reason (no memory to say it) still fails");
}

static void test_ignored(void) {
        static const enum desktop_state ended[] = { DESKTOP_STOPPING, DESKTOP_STOPPED, DESKTOP_FAILED };
        struct desktop_event all[] = {
                simple(DESKTOP_EVENT_CHECKS_PASSED), simple(DESKTOP_EVENT_SERVER_READY),
                simple(DESKTOP_EVENT_BUS_ADDRESS), simple(DESKTOP_EVENT_WM_UP), simple(DESKTOP_EVENT_SETTLED),
                died(DESKTOP_CHILD_SERVER, "X server", CLD_KILLED, SIGKILL, NULL),
                { .type = DESKTOP_EVENT_STOP_REQUESTED, .signo = SIGTERM }, simple(DESKTOP_EVENT_IDLE),
                simple(DESKTOP_EVENT_TIMEOUT), { .type = DESKTOP_EVENT_FAILED, .failure = { 1, "late" } },
                simple(DESKTOP_EVENT_HIBERNATED), simple(DESKTOP_EVENT_RESTORED),
        };
        struct desktop_context cmd = command_ctx();
        unsigned wrong = 0;

        /* Once the teardown began, nothing changes its course. */
        for (size_t s = 0; s < ELEMENTSOF(ended); s++)
                for (size_t e = 0; e < ELEMENTSOF(all); e++) {
                        struct desktop_step step = {};

                        if (desktop_transition(ended[s], &xfce, &all[e], &step) != 0 || step.next != ended[s] ||
                            step.action != DESKTOP_ACTION_NONE) {
                                wrong++;
                                printf("#   %s acted on %s\n", name_of(ended[s]), desktop_event_to_string(all[e].type));
                        }
                        desktop_step_done(&step);
                }
        tap_ok(wrong == 0, "stopping, stopped and failed ignore every event");

        expect_ignored(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_CHECKS_PASSED), "checks passing twice");
        expect_ignored(DESKTOP_BUS_STARTING, &xfce, simple(DESKTOP_EVENT_SERVER_READY), "a second SIGUSR1");
        expect_ignored(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_SERVER_READY), "a SIGUSR1 once ready");
        expect_ignored(DESKTOP_SERVER_STARTING, &xfce, simple(DESKTOP_EVENT_BUS_ADDRESS), "a bus address before the bus");
        expect_ignored(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_BUS_ADDRESS), "a bus address once ready");
        expect_ignored(DESKTOP_SERVER_STARTING, &xfce, simple(DESKTOP_EVENT_WM_UP), "a WM before the server listens");
        expect_ignored(DESKTOP_BUS_STARTING, &xfce, simple(DESKTOP_EVENT_WM_UP),
                       "a WM before the bus's address (nothing could be published)");
        expect_ignored(DESKTOP_READY, &xfce, simple(DESKTOP_EVENT_WM_UP), "a WM (restarted) once ready");
        expect_ignored(DESKTOP_READY, &cmd, simple(DESKTOP_EVENT_SETTLED), "a late settle timer");
        expect_ignored(DESKTOP_CHECKING, &xfce, died(DESKTOP_CHILD_COMPONENT, "orphan", CLD_EXITED, 0, NULL),
                       "a child exit before any child runs");
        for (size_t i = 0; i < ELEMENTSOF(starting); i++) {
                char what[64];

                snprintf(what, sizeof what, "idle in %s", name_of(starting[i]));
                expect_ignored(starting[i], &xfce, simple(DESKTOP_EVENT_IDLE), what);
        }
        expect_ignored(_DESKTOP_STATE_MAX, &xfce, simple(DESKTOP_EVENT_WM_UP), "a state out of range");
}

static void test_names(void) {
        unsigned missing = 0;

        for (int s = 0; s < _DESKTOP_STATE_MAX; s++)
                missing += !desktop_state_to_string(s) || strcmp(desktop_state_to_string(s), "?") == 0;
        for (int e = 0; e < _DESKTOP_EVENT_MAX; e++)
                missing += !desktop_event_to_string(e) || strcmp(desktop_event_to_string(e), "?") == 0;
        tap_ok(missing == 0, "every state and event has a name for the debug log");
}

int main(void) {
        test_normal_path();
        test_server_refused_its_number();
        test_deaths();
        test_first_to_die();
        test_stop();
        test_hibernate_and_restore();
        test_timeout();
        test_failures();
        test_ignored();
        test_names();
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-helper PROFILE: the supervisor of one desktop.
 *
 * One sd-event loop owns everything: the X server's SIGUSR1 (it listens),
 * child exits (SIGCHLD, reaped here, also for orphans when we are a child
 * subreaper), the session bus's address on a pipe, the window manager's
 * arrival on the root window (PropertyNotify over xcb), the start timeout and
 * SIGTERM. Each of them is an event of the state machine (desktop.h).
 * Readiness goes out through sd_notify, to systemd or to the `botdesk start`
 * that spawned us.
 *
 * Exit statuses (exit-status.h), the one list of them:
 *   0  stopped: SIGTERM/SIGINT/SIGHUP (also while starting: last-error then
 *      says "stopped while starting"), or the idle stop. Not restarted.
 *   1  failed: the desktop did not start (its reason in last-error) or a
 *      part of it died, or a runtime error of any kind, whatever its errno.
 *      Restart=on-failure tries again.
 *   2  usage or configuration: wrong arguments, an invalid profile name or
 *      BOTDESK_DISPLAY, an invalid botdesk.ini (its errors in last-error).
 *      A restart cannot help: RestartPreventExitStatus= lists it.
 *   3  refused by policy: too little free memory (the memory gate). Also
 *      in RestartPreventExitStatus=.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "adopt.h"
#include "botdesk-config.h"
#include "checks.h"
#include "child.h"
#include "exit-status.h"
#include "log.h"
#include "profile.h"
#include "setup.h"
#include "snapshot-files.h"
#include "start.h"
#include "start-extension.h"
#include "supervisor.h"
#include "util.h"

static const int stop_signals[] = { SUPERVISOR_STOP_SIGNALS };

static int on_stop_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        supervisor_feed(userdata, &(struct desktop_event) {
                .type = DESKTOP_EVENT_STOP_REQUESTED,
                .signo = (int) si->ssi_signo,
        });
        return 0;
}

static int on_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        supervisor_feed(userdata, &(struct desktop_event) { .type = DESKTOP_EVENT_TIMEOUT });
        return 0;
}

static int loop_setup(struct supervisor *s) {
        uint64_t start_usec = (uint64_t) s->cfg.start_timeout * 1000000ULL;
        int r;

        r = sd_event_default(&s->event);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++) {
                r = sd_event_add_signal(s->event, NULL, stop_signals[i], on_stop_signal, s);
                if (r < 0)
                        return r;
        }
        r = sd_event_add_signal(s->event, NULL, SIGCHLD, child_on_sigchld, s);
        if (r >= 0)
                r = sd_event_add_signal(s->event, NULL, SIGUSR1, start_on_sigusr1, s);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &s->timeout_source, CLOCK_MONOTONIC, start_usec, 0,
                                               on_timeout, s);
        if (r < 0)
                return r;
        /* Under a service manager (not the standalone `botdesk start`, which
         * waits for as long as it was told), a start longer than the unit's
         * TimeoutStartSec= asks for the time the config allows. */
        if (s->placement && !streq(s->placement, "standalone")) {
                start_extension_plan(start_usec, START_TEARDOWN_USEC, UNIT_TIMEOUT_START_USEC, &s->extension);
                r = start_extension_arm(s->event, &s->extension, s->t0, &s->extend_source);
                if (r < 0)
                        log_warning_errno(r, "Cannot arm the start's extension (%m); the service manager may end a long start.");
        }
        return 0;
}

static int run(struct supervisor *s) {
        int r = loop_setup(s);

        if (r < 0)
                return log_error_errno(r, "Cannot set up the event loop: %m"), HELPER_EXIT_FAILED;
        if (checks_run(s) >= 0)
                supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_CHECKS_PASSED });
        /* Failed before the loop ran (a check, or the X server's start). */
        if (s->state >= DESKTOP_STOPPING)
                return s->exit_status;
        r = sd_event_loop(s->event);
        return r < 0 ? HELPER_EXIT_FAILED : s->exit_status;
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: botdesk-helper PROFILE\n"
                "Run and supervise the desktop of PROFILE until SIGTERM.\n"
                "Started by `botdesk start` or the botdesk@PROFILE.service unit; not meant to be run by hand.\n");
}

int main(int argc, char **argv) {
        struct supervisor s;
        enum helper_failure kind;
        const char *reserved;
        sigset_t mask;
        int r;

        log_setup("botdesk-helper");
        /* CRIU runs us, with no argument, as a named snapshot's action script. */
        if (snapshot_files_script(argc, &r))
                return r;
        if (argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
                usage(stdout);
                return HELPER_EXIT_STOPPED;
        }
        if (argc == 2 && streq(argv[1], "--version")) {
                puts("botdesk-helper " BOTDESK_VERSION);
                return HELPER_EXIT_STOPPED;
        }
        if (argc != 2) {
                usage(stderr);
                return HELPER_EXIT_CONFIG;
        }
        supervisor_init(&s, argv[1]);
        reserved = getenv("BOTDESK_DISPLAY");
        if (reserved) {
                unsigned long long v;

                if (parse_uint(reserved, 65535, &v) < 0) {
                        log_error("Invalid BOTDESK_DISPLAY=\"%s\": expected the display number pam_botdesk reserved.",
                                  reserved);
                        return HELPER_EXIT_CONFIG;
                }
                s.reserved_display = (int) v;
        }
        if (!desktop_name_valid(s.profile)) {
                log_error("Invalid profile name \"%s\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.",
                          s.profile);
                return HELPER_EXIT_CONFIG;
        }

        /* The helper's work (reaping, the lease's watches, the journal's
         * frames) waits for milliseconds without harm; the agent's actions
         * do not. SCHED_BATCH: its wake-ups never preempt the action whose
         * files or requests woke it. Its children (desktop/spawn.c) go back
         * to the normal policy: the X server and the session are the agent's. */
        if (sched_setscheduler(0, SCHED_BATCH, &(struct sched_param) {}) < 0)
                log_debug_errno(errno, "Cannot run the helper as SCHED_BATCH (%m); it runs as it is.");

        /* Blocked from the start (sd-event takes them over in loop_setup):
         * a stop that comes while we set up is handled as a stop, with the
         * teardown and the reason, not as a silent death. */
        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                sigaddset(&mask, stop_signals[i]);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGUSR1);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(errno, "Cannot block signals: %m"), HELPER_EXIT_FAILED;

        r = supervisor_setup(&s, &kind);
        if (r < 0) {
                supervisor_done(&s);
                return helper_setup_exit_status(r, kind);
        }
        r = run(&s);
        /* A spare that served its time as one and failed: under the user
         * manager Restart= brings it back, standalone the pool is asked. */
        if (s.spare && s.was_ready && r == HELPER_EXIT_FAILED && s.placement && streq(s.placement, "standalone"))
                adopt_spawn_replacement(&s);
        supervisor_done(&s);
        return r;
}

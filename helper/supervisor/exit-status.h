/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * botdesk-helper's exit statuses, as main.c's header comment documents them
 * (conf/botdesk@.service.in lists the ones a restart cannot cure in
 * RestartPreventExitStatus=).
 */
enum {
        HELPER_EXIT_STOPPED = 0,        /* a stop, an idle stop, a stop while starting */
        HELPER_EXIT_FAILED = 1,         /* the desktop failed or died: a restart may help */
        HELPER_EXIT_CONFIG = 2,         /* usage or configuration: a restart cannot help */
        HELPER_EXIT_REFUSED = 3,        /* refused by policy (the memory gate): nor can it */
};

/* What kind of failure ended the set-up: decided where it is found, never
 * guessed from the errno (an -EINVAL of a runtime call is no config error). */
enum helper_failure {
        HELPER_FAILURE_RUNTIME,
        HELPER_FAILURE_CONFIG,
};

/* The exit status of a set-up that failed with r (< 0) of that kind. */
int helper_setup_exit_status(int r, enum helper_failure kind);

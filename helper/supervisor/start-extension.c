/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "start-extension.h"

void start_extension_plan(uint64_t start_timeout_usec, uint64_t teardown_usec, uint64_t manager_timeout_usec,
                          struct start_extension *ret) {
        uint64_t needed = start_timeout_usec + teardown_usec;

        *ret = (struct start_extension) {};
        if (manager_timeout_usec == 0 || needed <= manager_timeout_usec)
                return;
        /* A third of the manager's time as margin: the timer may fire late
         * on a loaded host, and the message must arrive before the deadline. */
        ret->needed = true;
        ret->send_after_usec = manager_timeout_usec - manager_timeout_usec / 3;
        ret->extend_usec = needed - ret->send_after_usec;
}

static int on_extend(sd_event_source *s, uint64_t usec, void *userdata) {
        const struct start_extension *plan = userdata;
        int r;

        r = sd_notifyf(false, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long) plan->extend_usec);
        if (r < 0)
                log_warning_errno(r, "Cannot ask the service manager for more start time (%m); it may end a long start.");
        else
                log_debug("Asked the service manager for %llu ms more start time.",
                          (unsigned long long) plan->extend_usec / 1000);
        /* Handled here: a negative return would only disable the source. */
        return 0;
}

int start_extension_arm(sd_event *event, const struct start_extension *plan, uint64_t started_usec,
                        sd_event_source **ret) {
        if (!plan->needed) {
                *ret = NULL;
                return 0;
        }
        return sd_event_add_time(event, ret, CLOCK_MONOTONIC, started_usec + plan->send_after_usec, 0, on_extend,
                                 (void *) plan);
}

int start_clock_restart(sd_event_source *timeout, uint64_t start_timeout_usec, uint64_t teardown_usec) {
        int r = sd_event_source_set_time_relative(timeout, start_timeout_usec);

        if (r < 0)
                return r;
        r = sd_notifyf(false, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long) (start_timeout_usec + teardown_usec));
        return r < 0 ? r : 0;
}

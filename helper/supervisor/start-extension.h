/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "unit-properties.h"

/*
 * The unit's TimeoutStartSec= is fixed (UNIT_TIMEOUT_START_USEC, for the
 * unit file and the transient unit; conf/botdesk-session@.service.in says
 * the same)
 * while start_timeout may be up to an hour. When the start the config allows
 * would outlast the manager's deadline, the helper tells the manager so,
 * with EXTEND_TIMEOUT_USEC= (sd_notify(3)), well before that deadline.
 */
struct start_extension {
        bool needed;
        uint64_t send_after_usec;       /* from the helper's start */
        uint64_t extend_usec;           /* EXTEND_TIMEOUT_USEC=: counted by the manager from receipt */
};

/*
 * The plan for a start allowed start_timeout_usec, whose failure then takes
 * up to teardown_usec to report, under a manager that gives up after
 * manager_timeout_usec (0: never). Not needed when both fit in the
 * manager's time; else sent a third of that time before its deadline,
 * extending to the end of our own.
 */
void start_extension_plan(uint64_t start_timeout_usec, uint64_t teardown_usec, uint64_t manager_timeout_usec,
                          struct start_extension *ret);

/* Arms a timer that sends the extension at its time after started_usec
 * (CLOCK_MONOTONIC); nothing when not needed. plan must outlive the timer. */
int start_extension_arm(sd_event *event, const struct start_extension *plan, uint64_t started_usec,
                        sd_event_source **ret);

/*
 * The start's clock set back to zero: timeout (the start's own deadline)
 * fires start_timeout_usec from now, and whoever waits on NOTIFY_SOCKET
 * (the service manager, or a standalone `botdesk start`) is told with
 * EXTEND_TIMEOUT_USEC= that the start, with its teardown, may take that
 * long from now. A manager only ever extends its deadline with it
 * (sd_notify(3)), so sending it early costs nothing.
 */
int start_clock_restart(sd_event_source *timeout, uint64_t start_timeout_usec, uint64_t teardown_usec);

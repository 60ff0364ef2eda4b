/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-event.h>

/*
 * A human's hold without a viewer ends even when no botdesk web is left to
 * end it: while the desktop runs, the helper watches RUNTIME/lease-deadline
 * (inotify on the runtime dir) and keeps a CLOCK_REALTIME timer at the
 * deadline it records; when it fires, control returns to the agent unless
 * the viewer came back or control moved on (lease-deadline.h).
 */

struct viewer_gone {
        sd_event_source *watch;
        sd_event_source *timer;
        int runtime_fd;         /* borrowed */
};

int viewer_gone_watch(struct viewer_gone *v, sd_event *e, int runtime_fd);
void viewer_gone_done(struct viewer_gone *v);

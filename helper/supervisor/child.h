/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>
#include <systemd/sd-event.h>

#include "supervisor.h"

/* The desktop's children: the X server, the session bus, the session's
 * components. Started with a clean environment in their sub-cgroup, reaped
 * here (orphans too, when we are the subreaper), their deaths fed to the
 * state machine with the first to die named. */

void child_init(struct child *c, struct supervisor *s, const char *name, enum desktop_child which);
void child_done(struct child *c);

/* keep_fd: one fd the child inherits (the bus's address pipe), or -1. */
int child_start(struct supervisor *s, struct child *c, int keep_fd);

/* Every child slot of the desktop, the X server and the bus first, into all (room for
 * ELEMENTSOF(s->components) + 2); their count. */
size_t child_all(struct supervisor *s, struct child **all);

/* c ended (si_code, si_status): fed to the state machine, the first to die named. */
void child_reaped(struct supervisor *s, struct child *c, int code, int status);

/* A component that crashed after READY comes back, with back-off. */
void child_schedule_restart(struct supervisor *s, struct child *c);

/* The SIGCHLD handler (sd_event_add_signal). */
int child_on_sigchld(sd_event_source *source, const struct signalfd_siginfo *ssi, void *userdata);

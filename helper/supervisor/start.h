/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>
#include <systemd/sd-event.h>

#include "supervisor.h"

/*
 * The steps of the start, as the state machine orders them: the X server on
 * a display number, then (it listens) our X connection and the session
 * bus, then (the bus has an address) Xfce or the command, then (a WM is up,
 * or the command settled) the published env and READY=1. The events that
 * move the start on come from here too: the server's SIGUSR1, the bus's
 * address pipe, the root window's PropertyNotify, the settle timer.
 */

/* Picks a display and starts the X server on it. */
int start_server(struct supervisor *s);
/* A free display of the band picked (preferred first, when free) and claimed under the allocation lock: the
 * number, or -errno. */
int start_pick_and_claim(struct supervisor *s, int preferred);
/* Drop our claim on a display number, if we hold one (alloc.h): our server holds it, or never will. */
void start_unclaim(struct supervisor *s);
/* Our server listens on a number a logind session reserved meanwhile: end it. */
void start_reject_display(struct supervisor *s);
/* The X server listens: record the number, connect, start the bus. */
void start_bus(struct supervisor *s);
/* The bus printed its address: start the session. */
void start_session(struct supervisor *s);
/* A WM is up (or the command settled): the rest of the session, then publish. */
void start_publish(struct supervisor *s);

/* The SIGUSR1 handler (sd_event_add_signal). */
int start_on_sigusr1(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata);

/* The env file and the activity stamp, from the paths s holds now. */
int start_write_published(struct supervisor *s);
/* What a ready desktop watches, on the runtime dir s holds now: the lease
 * (the hand-back), and the idle timer; a spare listens for its adoption. */
void start_watch_ready(struct supervisor *s);

/* The session's components (Xfce's, or the command) as children not yet
 * started: what a restore then finds running. */
int start_session_components(struct supervisor *s);

/* Our X connection (s->x, connected) watched for its events and hang-up. */
int start_watch_x(struct supervisor *s);
/* env published, what watches a ready desktop started, READY=1 (a restored
 * desktop's publishing: its session already runs). Fails the desktop itself. */
int start_publish_env(struct supervisor *s);

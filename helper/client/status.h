/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "config.h"
#include "json.h"
#include "lease.h"
#include "network.h"

/*
 * Everything `botdesk status` says about one profile. "Running" is decided
 * by the owner: a live helper that holds the profile's lock and matches its
 * recorded start time (a recycled pid never does), with its env published.
 */

struct bd_status {
        char *profile;
        bool supported;
        bool installed;
        char **missing;
        bool running;
        bool starting;              /* helper alive, not yet ready */
        pid_t pid;                  /* 0 = none */
        int display;                /* -1 = none */
        char *socket;
        char *geometry;
        char *install_command;
        char *browser;
        char *blocker;
        char *warning;              /* the tight-memory warning, NULL outside its band */
        char *journal;              /* "stopped: disk full" once the journal stopped recording, else NULL */
        long long memory_available_mb;  /* -1 = unknown */
        long long memory_limit_mb;
        char *placement;
        char *unit;
        char *session;
        double idle_seconds;        /* < 0 = unknown */
        unsigned long long started_at;  /* realtime usec, 0 = unknown */
        char *last_error;
        bool hibernated;            /* not running, and its snapshot waits for the next start (snapshot.h) */
        unsigned long long hibernated_at;   /* realtime usec */
        unsigned long long hibernated_size; /* bytes of its images */
        char *remote;               /* a profile that fronts a VNC server botdesk did not start: what remote = says */
        char *remote_warning;       /* ... at a public address: RFB crosses the network in clear */
        char *unverified;           /* a runtime dir not ours: read as not running */
        struct lease lease;         /* agent unless a human holds it; fails closed */
        struct network_texts network;   /* the policy in force (network.h) */
};

void status_done(struct bd_status *s);

/* Collect the status of profile under configuration c. */
int status_collect(const char *profile, const struct bd_config *c, struct bd_status *ret);

void status_json(struct json *j, const struct bd_status *s);
/* Its members, into an object the caller opened (botdesk watch --full adds the event's). */
void status_json_fields(struct json *j, const struct bd_status *s);
void status_print(FILE *f, const struct bd_status *s);

/* One status on stdout: as JSON (and a newline) with json, else as text. */
void status_emit(const struct bd_status *s, bool json);

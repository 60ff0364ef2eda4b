/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "desktop.h"
#include "clipboard-owner.h"
#include "handback.h"
#include "journal-frames.h"
#include "viewer-gone.h"
#include "profile.h"
#include "session.h"
#include "start-extension.h"
#include "start-queue.h"
#include "util.h"
#include "x11.h"
#include "xauth.h"

/*
 * What the helper holds for its one desktop: the state (desktop.h) and
 * everything its steps act on. supervisor_feed() is the one way an event
 * reaches the state machine; the other files of supervisor/ produce events
 * (child exits, the bus's address, X events, signals, timers) and carry out
 * the steps.
 */

#define MAX_DISPLAY_ATTEMPTS 8
/* What ends the helper (sd-event takes them over; blocked from the start). */
#define SUPERVISOR_STOP_SIGNALS SIGTERM, SIGINT, SIGHUP
#define STOP_TIMEOUT_USEC (5 * 1000000ULL)
/* How long a failed start may take to say so: the teardown stops three groups (session, bus, X server). */
#define START_TEARDOWN_USEC (3 * STOP_TIMEOUT_USEC)

struct supervisor;

struct child {
        struct supervisor *sup;
        const char *name;
        char **argv;
        pid_t pid;              /* 0 when not running */
        pid_t ns_pid;           /* its pid in the desktop's namespaces (namespace.h), else 0 */
        enum desktop_child which;
        const struct component_spec *spec;
        unsigned restarts;
        unsigned long long started;
        sd_event_source *restart_timer;
};

struct supervisor {
        const char *profile;    /* the spare's name until an adoption gives the profile's */
        char *adopted_profile;  /* owns profile after an adoption */
        bool spare;             /* a warm spare (SPARE_PREFIX), not yet adopted */
        bool was_ready;         /* READY=1 was sent */
        char *alias;            /* after an adoption: the spare's name, whose paths now lead to ours */
        int adopt_fd;           /* a ready spare's listening RUNTIME/adopt.sock */
        sd_event_source *adopt_source, *adopt_conn_source;
        bool state_fresh;       /* the session state was a fresh session's at the start (adopt-state.h) */
        bool state_settled;     /* and the session has written its settings since (session-settle.h) */
        sd_event_source *settle_state_io, *settle_state_timer;
        struct bd_config cfg;
        struct bd_paths paths;
        struct session_dirs dirs;
        int runtime_fd;
        int helper_lock_fd;
        sd_event *event;
        enum desktop_state state;
        unsigned long long t0;

        /* placement */
        const char *placement;
        char *unit;
        char *cg_parent;        /* where we were started (standalone: we return there to clean up) */
        char *cg_base;          /* the desktop's cgroup, or NULL: process groups + subreaper */
        char *cg_supervisor, *cg_x11, *cg_session, *cg_apps;
        bool own_base;          /* standalone: we created cg_base and remove it */
        bool left_base;         /* and moved ourselves back to cg_parent */
        char token[33];
        unsigned long long started_at;

        /* X */
        char *xserver_path;
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        int display;
        int reserved_display;   /* logind tier: the number pam_botdesk reserved, else -1 */
        int claimed_display;    /* the number our claim holds until our server does (alloc.h), else -1 */
        struct start_ticket ticket; /* our place among the starts (start-queue.h), held until ready */
        unsigned tried[MAX_DISPLAY_ATTEMPTS];
        size_t n_tried;
        pid_t xserver_pid_last; /* for its lock file, after it was reaped */
        struct x11 x;
        sd_event_source *x_source;
        struct handback handback;  /* restores the geometry when control returns to the agent */
        struct viewer_gone viewer_gone; /* ends a human's hold left without a viewer (lease-deadline.h) */
        struct clipboard_owner clipboard; /* owns CLIPBOARD for the agent */
        struct journal_frames frames;   /* takes the journal's frames for the agent's actions */

        /* the shared browser, published with the env when there is one */
        char *browser;
        char *browser_profile;
        char *cdp_socket;
        char *proxy_url;                /* [network] allow's names: http://ADDRESS:PORT of the desktop's proxy */

        /* session */
        char **env;
        char *bus_socket;
        char *bus_address;
        int bus_pipe;
        size_t bus_len;
        char bus_buf[512];
        sd_event_source *bus_source;
        sd_event_source *timeout_source, *settle_source, *idle_source, *extend_source;
        sd_event_source *grace_source;  /* supervisor_fail_unless_exits() */
        char *grace_reason;
        struct start_extension extension;

        /* [session] checkpointable: the init of the desktop's namespaces (namespace.h) */
        pid_t ns_init_pid;
        int ns_request_fd, ns_event_fd;
        sd_event_source *ns_event_source;
        sd_event_source *displayfd_source; /* its X server's -displayfd: it listens */
        sd_event_source *hibernate_source; /* RUNTIME/hibernate.sock (hibernate.h) */
        bool resume_tried;                 /* the snapshot was tried (resume.h): a retry starts cold */
        /* Restored where its processes' paths are not ours (tree-mounts.h): the runtime and state dirs and
         * the display they know; NULL, NULL, -1 when they are ours. */
        char *tree_runtime, *tree_state;
        int tree_display;
        char *fork_of;                     /* "PROFILE/NAME" its snapshot was forked from, or NULL */

        struct child xserver, bus;
        struct child components[8];
        size_t n_components;

        int exit_status;
};

/* Initialises what main.c's set-up and supervisor_done() rely on. */
void supervisor_init(struct supervisor *s, const char *profile);
void supervisor_done(struct supervisor *s);

/* Feeds one event to the state machine and carries out the step it gives. */
void supervisor_feed(struct supervisor *s, const struct desktop_event *ev);

/* A step could not be carried out: the desktop fails with this reason. */
void supervisor_fail(struct supervisor *s, int exit_status, const char *fmt, ...) _printf_(3, 4);
/*
 * The same, unless child c exits within a second. A component killed while
 * it starts breaks what we do with it (its pipe, our connection) before its
 * exit reaches us; that exit, which names the signal or status, is then the
 * reason. A component that lives on is blamed for what broke.
 */
void supervisor_fail_unless_exits(struct supervisor *s, struct child *c, const char *fmt, ...) _printf_(3, 4);

/* STATUS= for the manager, and the log line with the time since our start. */
void supervisor_status(struct supervisor *s, const char *fmt, ...) _printf_(2, 3);

unsigned long long supervisor_elapsed_ms(const struct supervisor *s);

/* Asks the X connection whether a window manager is up, feeding WM_UP if so. */
void supervisor_check_wm(struct supervisor *s);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <xcb/xcb.h>

#include "a11y-agent.h"
#include "a11y-find.h"
#include "json.h"
#include "lease.h"
#include "settle.h"

/*
 * A server-side wait, whatever carries it (botdesk wait, the MCP tool
 * wait_until): one condition, watched on the X server's events, never by
 * polling faster than the screen changes.
 *
 *   window=TITLE     a client window whose title contains TITLE exists
 *   gone=TITLE       no client window's title contains TITLE any more
 *   a11y=ROLE:NAME   an element of that role (whole, any case; empty: any)
 *                    whose name contains NAME (any case) is on the screen
 *   text=STRING      an element whose name or text contains STRING
 *   quiet[=MS]       the screen has been quiet MS ms (default 150)
 *   changed          the screen changed (what settle.h counts as a change)
 *
 * window= and gone= read the window manager's list on PropertyNotify of
 * _NET_CLIENT_LIST and of each client's title. a11y= and text= read the
 * accessibility tree at the start and again whenever the screen changed
 * (DAMAGE read back as settle.h does, so a blinking caret wakes nothing),
 * the window list changed, or the screen went quiet after a change: an
 * element that appears is drawn, and a toolkit registers it with AT-SPI by
 * the time its window stops repainting. quiet and changed are settle.h's.
 */

/* wait's --timeout S (and the MCP tool's timeout): at most this many seconds, and the default. */
#define WAIT_TIMEOUT_MAX 600u
#define WAIT_TIMEOUT_DEFAULT 30u
#define WAIT_CONDITIONS "window=TITLE|gone=TITLE|a11y=ROLE:NAME|text=STRING|quiet[=MS]|changed"
#define WAIT_QUIET_MS_MAX 60000u

/* In this order: the window list's (up to WAIT_GONE), then those that read the screen (from WAIT_A11Y on),
 * the first two of them through the accessibility tree; wait-until.c compares kinds by it. */
enum wait_kind {
        WAIT_WINDOW,
        WAIT_GONE,
        WAIT_A11Y,
        WAIT_TEXT,
        WAIT_QUIET,
        WAIT_CHANGED,
};

struct wait_condition {
        enum wait_kind kind;
        const char *value;              /* window=, gone=, text=: the text; a11y=: ROLE:NAME as given (borrowed) */
        struct a11y_query query;        /* a11y= */
        unsigned quiet_ms;              /* quiet */
};

/* "window=TITLE", ...: 0, or -EINVAL with what is wrong in *ret_error (new), or -ENOMEM. value is borrowed. */
int wait_condition_parse(const char *spec, struct wait_condition *ret, char **ret_error);
void wait_condition_done(struct wait_condition *c);
const char *wait_kind_name(enum wait_kind k);

/* What the wait watches: an open connection, and what it needs for the lease and the accessibility tree. */
struct wait_target {
        xcb_connection_t *conn;         /* not owned */
        xcb_window_t root;
        struct settle *settle;          /* open on conn; NULL, or unsupported: quiet and changed cannot be waited */
        const struct a11y_desktop *a11y; /* a11y= and text=; NULL: refused */
        int dirfd;                      /* the runtime dir: the lease */
        int lease_watch;                /* inotify on it (lease-watch.h), added before the admission */
        const struct lease *admitted;
};

enum wait_outcome {
        WAIT_MATCHED,
        WAIT_TIMED_OUT,
        WAIT_SUPPRESSED,                /* the lease moved: the action is void */
};

/* What held. */
struct wait_match {
        xcb_window_t id;                /* window=: the window */
        char *title;                    /* window=: its whole title */
        char *node_id, *role, *name;    /* a11y=, text=: the element (a11y_agent_read()'s id) */
        bool have_bounds;
        int x, y, width, height;        /* its bounds, screen pixels */
        unsigned ms;                    /* from the start of the wait */
};

void wait_match_done(struct wait_match *m);

/*
 * Wait for c on t until deadline (CLOCK_MONOTONIC usec). 0 with *ret and,
 * when matched, *m; -EOPNOTSUPP for a condition t cannot watch (quiet,
 * changed, a11y= and text= without DAMAGE, the last two without a11y);
 * -ENODATA when the accessibility tree cannot be read (why in *ret_error);
 * -EIO when the connection broke; -errno.
 */
int wait_until(const struct wait_target *t, const struct wait_condition *c, unsigned long long deadline,
               enum wait_outcome *ret, struct wait_match *m, char **ret_error);

/* The match's members ("matched", and the window's or the element's), into an object the caller opened. */
void wait_match_fields(struct json *j, const struct wait_condition *c, const struct wait_match *m);

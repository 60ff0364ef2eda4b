/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk wait PROFILE --for window=TITLE|gone=TITLE [--timeout S] [--json]:
 * until a client window whose title contains TITLE exists (window=), or
 * none does any more (gone=), on the X server's events: PropertyNotify of
 * _NET_CLIENT_LIST on the root window and of _NET_WM_NAME and WM_NAME on
 * each client, the list read as `botdesk windows` reads it
 * (cli_windows_titles()). Nothing is polled. An agent action like the
 * others: refused while a human holds control, and a take while it waits
 * (the lease watched through inotify on the runtime dir) ends it as
 * suppressed.
 */
#include <poll.h>
#include <sys/inotify.h>
#include <xcb/xcb.h>

#include "cli.h"
#include "cli-desktop.h"
#include "json.h"
#include "lease.h"
#include "lease-watch.h"
#include "log.h"
#include "term-escape.h"
#include "util.h"
#include "verb-table.h"
#include "verbs.h"

enum wait_kind {
        WAIT_WINDOW,
        WAIT_GONE,
};

static const char *const wait_kind_name[] = {
        [WAIT_WINDOW] = "window",
        [WAIT_GONE] = "gone",
};

struct waiter {
        xcb_connection_t *c;
        xcb_window_t root;
        xcb_atom_t client_list, net_wm_name;
        xcb_window_t *watched;  /* the clients whose title changes are selected */
        size_t n_watched;
};

/* What held: the window that matched (window=), its title. */
struct wait_match {
        xcb_window_t id;
        char *title;
};

/* The valid form, after the message of a usage error: EXIT_USAGE. */
static int usage(void) {
        cli_verb_usage_to(stderr, "wait");
        return EXIT_USAGE;
}

/* --for COND and --timeout S judged: EXIT_OK, or EXIT_USAGE said with the valid form. */
static int parse_condition(const struct cli_args *a, enum wait_kind *ret_kind, const char **ret_title,
                           unsigned *ret_timeout) {
        const char *v;

        if (!a->wait_for) {
                log_error("Nothing to wait for: give --for window=TITLE or --for gone=TITLE.");
                return usage();
        }
        if ((v = startswith(a->wait_for, "window=")))
                *ret_kind = WAIT_WINDOW;
        else if ((v = startswith(a->wait_for, "gone=")))
                *ret_kind = WAIT_GONE;
        else {
                log_error("Unknown condition \"%s\": give --for window=TITLE or --for gone=TITLE.", a->wait_for);
                return usage();
        }
        if (!*v) {
                log_error("Empty title in --for %s: give the text the window's title contains.", a->wait_for);
                return usage();
        }
        if (a->timeout > WAIT_TIMEOUT_MAX) {
                log_error("--timeout %u is too long: give whole seconds, 1-%u.", a->timeout, WAIT_TIMEOUT_MAX);
                return usage();
        }
        *ret_title = v;
        *ret_timeout = a->timeout ?: WAIT_TIMEOUT_DEFAULT;
        return EXIT_OK;
}

static xcb_atom_t intern(xcb_connection_t *c, const char *name) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, false, (uint16_t) strlen(name), name),
                                                           NULL);
        xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;

        free(r);
        return a;
}

static bool watched(const struct waiter *w, xcb_window_t id) {
        for (size_t i = 0; i < w->n_watched; i++)
                if (w->watched[i] == id)
                        return true;
        return false;
}

/* Select the title changes of the clients not yet selected: how many were new, or -ENOMEM. */
static ssize_t watch_clients(struct waiter *w, const struct cli_window_title *t, size_t n) {
        static const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        ssize_t added = 0;

        for (size_t i = 0; i < n; i++) {
                xcb_window_t *grown;

                if (watched(w, t[i].id))
                        continue;
                grown = realloc(w->watched, (w->n_watched + 1) * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                w->watched = grown;
                w->watched[w->n_watched++] = t[i].id;
                /* A window gone meanwhile answers BadWindow, an error event, ignored. */
                xcb_change_window_attributes(w->c, t[i].id, XCB_CW_EVENT_MASK, &mask);
                added++;
        }
        return added;
}

/* Whether the condition holds now: 1 (a window= match into *m), 0, or -errno. */
static int evaluate(struct waiter *w, enum wait_kind kind, const char *title, struct wait_match *m) {
        for (;;) {
                struct cli_window_title *t = NULL;
                size_t n = 0;
                ssize_t added;
                bool wm;
                int r;

                r = cli_windows_titles(w->c, w->root, &t, &n, &wm);
                if (r < 0)
                        return r;
                added = watch_clients(w, t, n);
                if (added < 0) {
                        cli_window_titles_free(t, n);
                        return (int) added;
                }
                /* A title set between the read and the selection is missed
                 * by both: read again once every listed client is selected. */
                if (added > 0) {
                        cli_window_titles_free(t, n);
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        if (t[i].title && strstr(t[i].title, title)) {
                                if (kind == WAIT_WINDOW) {
                                        m->id = t[i].id;
                                        m->title = TAKE_PTR(t[i].title);
                                }
                                cli_window_titles_free(t, n);
                                return kind == WAIT_WINDOW;
                        }
                cli_window_titles_free(t, n);
                return kind == WAIT_GONE;
        }
}

/* Whether ev may change what evaluate() finds. */
static bool event_matters(const struct waiter *w, const xcb_generic_event_t *ev) {
        const xcb_property_notify_event_t *p;

        if ((ev->response_type & 0x7f) != XCB_PROPERTY_NOTIFY)
                return false;
        p = (const xcb_property_notify_event_t *) ev;
        if (p->window == w->root)
                return p->atom == w->client_list;
        return p->atom == w->net_wm_name || p->atom == XCB_ATOM_WM_NAME;
}

enum wake {
        WAKE_X,         /* something changed: evaluate again */
        WAKE_TIMEOUT,
        WAKE_LEASE,     /* the action lost its control */
};

/* Until an event that matters, the deadline, or the lease moved: a wake, or -errno. */
static int wait_event(struct waiter *w, int ino, int dirfd, const struct lease *admitted, unsigned long long deadline) {
        for (;;) {
                struct pollfd p[2] = {
                        { .fd = xcb_get_file_descriptor(w->c), .events = POLLIN },
                        { .fd = ino, .events = POLLIN },
                };
                xcb_generic_event_t *ev;
                unsigned long long now;
                bool matters = false;

                while ((ev = xcb_poll_for_event(w->c))) {
                        matters = matters || event_matters(w, ev);
                        free(ev);
                }
                if (xcb_connection_has_error(w->c))
                        return -EIO;
                (void) inotify_drain(ino, NULL, NULL);
                if (!cli_action_still_valid(dirfd, admitted))
                        return WAKE_LEASE;
                if (matters)
                        return WAKE_X;
                now = now_usec();
                if (now >= deadline)
                        return WAKE_TIMEOUT;
                if (poll(p, ELEMENTSOF(p), (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return negative_errno();
        }
}

static void print_match(const char *profile, enum wait_kind kind, const char *title, const struct wait_match *m,
                        unsigned long long ms, unsigned long long epoch, bool json) {
        _cleanup_free_ char *buf = NULL;
        const char *shown = kind == WAIT_WINDOW ? m->title : title;

        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_string(&j, "matched", wait_kind_name[kind]);
                json_kv_string(&j, "title", shown);
                if (kind == WAIT_WINDOW)
                        json_kv_int(&j, "id", m->id);
                else
                        json_kv_null(&j, "id");
                json_kv_int(&j, "ms", (long long) ms);
                json_kv_int(&j, "epoch", (long long) epoch);
                json_object_end(&j);
                putchar('\n');
        } else if (kind == WAIT_WINDOW)
                printf("window 0x%08x \"%s\"\n", (unsigned) m->id, term_field(stdout, shown, &buf) ?: "");
        else
                printf("gone \"%s\"\n", term_field(stdout, shown, &buf) ?: "");
}

static void print_timeout(const char *profile, enum wait_kind kind, const char *title, unsigned timeout, bool json) {
        _cleanup_free_ char *buf = NULL;

        log_error(kind == WAIT_WINDOW ? "Timed out after %u s on desktop %s waiting for a window whose title contains \"%s\"."
                                      : "Timed out after %u s on desktop %s waiting until no window's title contains \"%s\".",
                  timeout, profile, term_field(stderr, title, &buf) ?: "");
        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_bool(&j, "timed_out", true);
                json_kv_string(&j, "for", wait_kind_name[kind]);
                json_kv_string(&j, "title", title);
                json_kv_int(&j, "timeout", timeout);
                json_object_end(&j);
                putchar('\n');
        }
}

int verb_wait(const struct cli_args *a) {
        static const uint32_t root_mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF, ino = -EBADF;
        const char *profile = a->operand, *title = NULL;
        struct wait_match m = {};
        struct waiter w = {};
        struct lease admitted;
        unsigned long long start, deadline;
        xcb_screen_t *screen = NULL;
        enum wait_kind kind = WAIT_WINDOW;
        unsigned timeout = 0;
        bool json = a->json;
        bool matched = false;
        int n, r, wake = WAKE_X;

        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
        r = parse_condition(a, &kind, &title, &timeout);
        if (r != EXIT_OK)
                return r;
        r = cli_running_display(profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = cli_action_admit(dirfd, profile, "wait", json, &admitted);
        if (r != EXIT_OK)
                return r;
        /* The lease watched before the wait's first look: a take in between is not missed. */
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0 || lease_watch_add(ino, dirfd) < 0)
                return log_error("Cannot watch the lease of desktop %s.", profile), EXIT_FAILED;
        r = cli_connect_desktop(profile, display, xauthority, &w.c, &n);
        if (r != EXIT_OK)
                return r;
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(w.c)); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        screen = it.data;
        if (!screen) {
                xcb_disconnect(w.c);
                return log_error("Display %s has no such screen.", display), EXIT_FAILED;
        }
        w.root = screen->root;
        start = now_usec();
        deadline = start + (unsigned long long) timeout * 1000000ull;
        /* Selected before the first read, as each client's is (evaluate()). */
        xcb_change_window_attributes(w.c, w.root, XCB_CW_EVENT_MASK, &root_mask);
        w.client_list = intern(w.c, "_NET_CLIENT_LIST");
        w.net_wm_name = intern(w.c, "_NET_WM_NAME");
        for (;;) {
                r = evaluate(&w, kind, title, &m);
                matched = r > 0;
                if (r != 0)
                        break;
                wake = wait_event(&w, ino, dirfd, &admitted, deadline);
                if (wake < 0 || wake != WAKE_X) {
                        r = wake < 0 ? wake : 0;
                        break;
                }
        }
        free(w.watched);
        xcb_disconnect(w.c);
        if (r < 0) {
                free(m.title);
                log_error_errno(r, "Cannot read the windows of desktop %s: %m", profile);
                return EXIT_FAILED;
        }
        if (wake == WAKE_TIMEOUT) {
                print_timeout(profile, kind, title, timeout, json);
                return EXIT_FAILED;
        }
        /* A match or a take: the gate says which counts (suppressed, said, when the lease moved). */
        r = cli_action_done(dirfd, profile, "wait", &admitted, json);
        if (r == EXIT_OK && matched) {
                activity_stamp(dirfd);
                print_match(profile, kind, title, &m, (now_usec() - start) / 1000, admitted.epoch, json);
        }
        free(m.title);
        return r;
}

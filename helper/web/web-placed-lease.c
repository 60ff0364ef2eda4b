/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: the lease routes of a placed profile (GET lease, POST take
 * and release), answered once the far side's `botdesk lease P ... --json`
 * has (web-placed.c runs it); GET lease from the lease followed there while
 * the profile has streams. The connection waits meanwhile; a connection
 * that goes first cancels the child. Each answer also updates the profile's
 * lease as this server knows it, which decides its streams' input and
 * evicts the other viewers of a human's take. The GETs of one profile
 * share one child.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"
#include "web-conn.h"

#define PLACED_LEASE_TIMEOUT_USEC (60ULL * 1000000ULL)

/* The far side's answer to `botdesk lease P ACTION --json`, for c. */
static void placed_lease_answer(struct web_conn *c, int status, const char *out, const char *err) {
        char hash[LEASE_HASH_LEN + 1];
        struct web_profile *p;
        struct lease l;

        if (status != 0) {
                /* The prefix's own words: a pod gone, a container stopped, a host unreachable. */
                log_info("The lease of %s through its exec prefix failed (exit %d): %s", c->profile, status, err);
                web_respond_text(c, status == 4 ? 503 : status == 3 ? 409 : 502, NULL, "botdesk web: %s: %s\n", c->profile,
                                 err[0] ? err : "the exec prefix failed");
                return;
        }
        p = web_profile_get(c->server, c->profile, NULL);
        if (web_placed_lease_parse(out, p, c->viewer[0] ? c->viewer : NULL, &l, hash) < 0) {
                web_profile_put(p);
                web_respond_text(c, 502, NULL, "botdesk web: %s: the far side's lease does not read as one.\n", c->profile);
                return;
        }
        if (p)
                web_profile_placed_lease(p, &l, hash);
        web_profile_put(p);
        web_respond_lease(c, &l, c->viewer[0] ? c->viewer : NULL, c->session);
}

static void on_placed_lease(int status, const char *out, const char *err, void *userdata) {
        struct web_conn *c = userdata;

        c->job = NULL;
        placed_lease_answer(c, status, out, err);
}

/*
 * GET lease needs no session over the Unix socket, as a local profile's
 * (web-http.c), but here each answer costs a child and a trip through the
 * prefix (ssh, kubectl) from the server's pool of WEB_JOBS_MAX: every GET
 * of a profile's lease waits on the one `botdesk lease P show --json`
 * running, and gets its answer. A flood of requests starts one child.
 */
struct web_lease_ask {
        struct web_server *server;
        char profile[PROFILE_NAME_MAX + 1];
        struct web_job *job;
        unsigned n_waiting;             /* connections whose ask this is */
        struct web_lease_ask *next;
};

static void lease_ask_free(struct web_lease_ask *a) {
        for (struct web_lease_ask **i = &a->server->lease_asks; *i; i = &(*i)->next)
                if (*i == a) {
                        *i = a->next;
                        break;
                }
        web_job_cancel(a->job);
        free(a);
}

static struct web_conn *lease_ask_waiter(struct web_server *s, const struct web_lease_ask *a) {
        for (struct web_conn *c = s->conns; c; c = c->next)
                if (c->ask == a)
                        return c;
        return NULL;
}

static void on_lease_ask_done(int status, const char *out, const char *err, void *userdata) {
        struct web_lease_ask *a = userdata;
        struct web_conn *c;

        a->job = NULL;
        /* An answer may free its connection, and the list with it: look anew each time. */
        while ((c = lease_ask_waiter(a->server, a))) {
                c->ask = NULL;
                a->n_waiting--;
                placed_lease_answer(c, status, out, err);
        }
        lease_ask_free(a);
}

static int lease_ask_join(struct web_conn *c, const char *profile) {
        struct web_server *s = c->server;
        struct web_lease_ask *a;
        int r;

        for (a = s->lease_asks; a; a = a->next)
                if (streq(a->profile, profile))
                        break;
        if (!a) {
                char *args[] = { (char *) "lease", (char *) profile, (char *) "show", (char *) "--json", NULL };

                a = calloc(1, sizeof *a);
                if (!a)
                        return -ENOMEM;
                a->server = s;
                (void) strscpy(a->profile, sizeof a->profile, profile);
                r = web_job_start(s, args, -1, on_lease_ask_done, a, &a->job);
                if (r < 0) {
                        free(a);
                        return r;
                }
                a->next = s->lease_asks;
                s->lease_asks = a;
        }
        c->ask = a;
        a->n_waiting++;
        return 0;
}

void web_placed_lease_conn_gone(struct web_conn *c) {
        struct web_lease_ask *a = c->ask;

        if (!a)
                return;
        c->ask = NULL;
        /* The last one gone: nobody waits for the answer. */
        if (--a->n_waiting == 0)
                lease_ask_free(a);
}

void web_serve_placed_lease(struct web_conn *c, struct web_profile *p, struct web_session *session,
                            const char *action) {
        char *args[] = { (char *) "lease", p->name, (char *) (action ?: "show"), (char *) "--json",
                         action ? (char *) "--viewer" : NULL, session ? session->viewer : NULL, NULL };
        struct lease l;
        int r;

        /* The lease followed there answers what the page polls for, without a child each time. */
        if (!action && p->watch_live) {
                web_placed_lease_for(&p->lease, p->lease_hash, session ? session->viewer : NULL, &l);
                web_respond_lease(c, &l, session ? session->viewer : NULL, session != NULL);
                return;
        }
        /* Both fit: they are a profile's name and a session's viewer. */
        (void) strscpy(c->profile, sizeof c->profile, p->name);
        (void) strscpy(c->viewer, sizeof c->viewer, session ? session->viewer : "");
        c->session = session != NULL;
        /* The far side may take a while: the answer's deadline, not the head's. */
        (void) sd_event_source_set_time_relative(c->timer, PLACED_LEASE_TIMEOUT_USEC);
        r = action ? web_job_start(c->server, args, -1, on_placed_lease, c, &c->job) : lease_ask_join(c, p->name);
        if (r < 0)
                web_respond_text(c, 503, NULL, "botdesk web: cannot ask the far side of %s: %s\n", p->name, strerror(-r));
}

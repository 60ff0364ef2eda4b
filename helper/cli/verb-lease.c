/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk lease PROFILE [show|take|release|request|wait] [--viewer ID] [--reason TEXT] [--timeout S] [--json]
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "cli.h"
#include "verbs.h"
#include "json.h"
#include "journal-hook.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "record.h"
#include "running.h"
#include "util.h"

/* lease wait: a gateway's wait for a human ends, whatever it forgot to say. */
#define LEASE_WAIT_DEFAULT_S 600u
#define LEASE_WAIT_MAX_S 1800u

static void print_lease(const char *profile, const struct lease *l, bool json) {
        char hash[LEASE_HASH_LEN + 1];

        if (json) {
                struct json j;

                json_init(&j, stdout);
                lease_json(&j, l);
                putchar('\n');
                return;
        }
        if (l->failed) {
                printf("%s: the lease file is unreadable (%s); failing closed: no viewer's input reaches the screen "
                       "and agents are refused (epoch %llu). Repair it: botdesk lease %s take --viewer ID, then release.\n",
                       profile, strerror(-l->failed), l->epoch, profile);
                return;
        }
        if (l->holder == LEASE_AGENT)
                printf("%s: the agent holds control%s%s (epoch %llu)%s%s\n", profile, l->since[0] ? " since " : "",
                       l->since, l->epoch, l->reason[0] ? "; " : "", l->reason);
        else {
                lease_viewer_hash(l->viewer, hash);
                printf("%s: a human holds control, viewer %s%s%s (epoch %llu)%s%s\n", profile, hash,
                       l->since[0] ? " since " : "", l->since, l->epoch, l->reason[0] ? "; " : "", l->reason);
        }
        if (l->pending[0]) {
                lease_viewer_hash(l->pending, hash);
                printf("%s: viewer %s asks for control%s%s\n", profile, hash, l->pending_reason[0] ? ": " : "",
                       l->pending_reason);
        }
}

/* What one run of the verb has: the profile, its open dir, the viewer, the options. */
struct lease_run {
        const char *profile;
        int dirfd;
        const struct cli_args *a;
        unsigned timeout;               /* s, wait's */
};

static int run_show(const struct lease_run *r) {
        struct lease l;

        /* A damaged file is a state to show, not a failure of show. */
        (void) lease_read_at(r->dirfd, &l);
        activity_stamp(r->dirfd);
        print_lease(r->profile, &l, r->a->json);
        return EXIT_OK;
}

static int run_wait(const struct lease_run *r) {
        struct lease l;
        int k = lease_wait_agent_at(r->dirfd, (unsigned long long) r->timeout * 1000ULL, &l);

        if (k == -ETIME) {
                log_error("A human still has control of %s after %u s; tell the user what you need.", r->profile,
                          r->timeout);
                if (r->a->json)
                        print_lease(r->profile, &l, true);
                return EXIT_REFUSED;
        }
        if (k < 0) {
                log_error_errno(k, "Cannot watch the control lease of %s: %m", r->profile);
                return EXIT_FAILED;
        }
        print_lease(r->profile, &l, r->a->json);
        return EXIT_OK;
}

/* take, request, release: the change, then what it did (k > 0: it changed something) in words or JSON. */
static int changed(const struct lease_run *r, const char *action, int k, const struct lease *l, const char *did,
                   const char *did_not) {
        char hash[LEASE_HASH_LEN + 1];

        if (k < 0) {
                log_error_errno(k, "Cannot %s the control lease of %s: %m", action, r->profile);
                return EXIT_FAILED;
        }
        if (!streq(action, "request"))
                cli_journal_lease(r->profile, l);
        activity_stamp(r->dirfd);
        if (r->a->json) {
                print_lease(r->profile, l, true);
                return EXIT_OK;
        }
        lease_viewer_hash(r->a->viewer, hash);
        printf("%s: viewer %s %s (epoch %llu)\n", r->profile, hash, k > 0 ? did : did_not, l->epoch);
        return EXIT_OK;
}

static int run_take(const struct lease_run *r) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        bool remote = cli_desktop_place(r->a->config, r->profile) == CLI_PLACE_REMOTE;
        struct lease l;
        int k;

        /* Control of a screen that is not there is no control: the
         * human would type into nothing (said: not running). A VNC
         * server botdesk did not start is there as far as it knows. */
        k = remote ? EXIT_OK : running_desktop_helper(r->profile, r->dirfd, &rec);
        if (k != EXIT_OK)
                return k;
        k = lease_take_at(r->dirfd, r->a->viewer, r->a->reason, &l);
        return changed(r, "take", k, &l, "took control", "already holds control; nothing changed");
}

static int run_request(const struct lease_run *r) {
        struct lease l;
        int k = lease_request_at(r->dirfd, r->a->viewer, r->a->reason, &l);

        if (k == -EBADMSG) {
                log_error("The control lease of %s is unreadable; no request can be recorded. Repair it: botdesk "
                          "lease %s take --viewer ID.", r->profile, r->profile);
                return EXIT_FAILED;
        }
        return changed(r, "request", k, &l, "asks for control; the request is pending",
                       "holds or has already asked for control; nothing changed");
}

static int run_release(const struct lease_run *r) {
        struct lease l;
        int k = lease_release_at(r->dirfd, r->a->viewer, &l);

        return changed(r, "release", k, &l, "released control; the agent holds it",
                       "does not hold control; nothing changed");
}

enum {
        TAKES_REASON = 1u << 0,         /* --reason */
        TAKES_TIMEOUT = 1u << 1,        /* --timeout */
        NEEDS_VIEWER = 1u << 2,         /* --viewer ID */
};

static const struct lease_action {
        const char *name;
        unsigned flags;
        int (*run)(const struct lease_run *r);
} lease_actions[] = {
        { "show", 0, run_show },
        { "take", TAKES_REASON | NEEDS_VIEWER, run_take },
        { "release", NEEDS_VIEWER, run_release },
        { "request", TAKES_REASON | NEEDS_VIEWER, run_request },
        { "wait", TAKES_TIMEOUT, run_wait },
};

/* The actions whose flags include flag, as "take and request" ("" when none). */
static char *actions_with(unsigned flag) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0, n = 0, total = 0;
        FILE *f;

        for (size_t i = 0; i < ELEMENTSOF(lease_actions); i++)
                total += (lease_actions[i].flags & flag) != 0;
        f = open_memstream(&text, &size);
        if (!f)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(lease_actions); i++)
                if (lease_actions[i].flags & flag) {
                        n++;
                        fprintf(f, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", lease_actions[i].name);
                }
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(text);
}

int verb_lease(const struct cli_args *a) {
        const char *profile = a->operand, *action = a->action ?: "show", *viewer = a->viewer, *reason = a->reason;
        const struct lease_action *act = NULL;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF;
        struct lease_run run = { .profile = profile, .a = a, .timeout = a->timeout };

        for (size_t i = 0; i < ELEMENTSOF(lease_actions); i++)
                if (streq(action, lease_actions[i].name))
                        act = &lease_actions[i];
        if (!act) {
                log_error("Unknown lease action \"%s\": use show, take, release, request or wait.", action);
                return EXIT_USAGE;
        }
        if (reason && !(act->flags & TAKES_REASON)) {
                _cleanup_free_ char *which = actions_with(TAKES_REASON);

                log_error("--reason applies to %s, not %s.", strnull(which), action);
                return EXIT_USAGE;
        }
        if (run.timeout && !(act->flags & TAKES_TIMEOUT)) {
                _cleanup_free_ char *which = actions_with(TAKES_TIMEOUT);

                log_error("--timeout applies to %s, not %s.", strnull(which), action);
                return EXIT_USAGE;
        }
        if (run.timeout > LEASE_WAIT_MAX_S) {
                log_error("Invalid --timeout %u for lease wait: at most %u s (the default is %u s).", run.timeout,
                          LEASE_WAIT_MAX_S, LEASE_WAIT_DEFAULT_S);
                return EXIT_USAGE;
        }
        if (!run.timeout)
                run.timeout = LEASE_WAIT_DEFAULT_S;
        if (reason && (strlen(reason) > LEASE_REASON_MAX || strpbrk(reason, "\n\r\t"))) {
                log_error("Invalid --reason: use at most %d bytes on one line without control characters.", LEASE_REASON_MAX);
                return EXIT_USAGE;
        }
        if (act->flags & NEEDS_VIEWER) {
                if (!viewer) {
                        log_error("botdesk lease %s %s needs --viewer ID.", profile, action);
                        return EXIT_USAGE;
                }
                if (!lease_viewer_valid(viewer)) {
                        log_error("Invalid viewer id: use 1-%d bytes without control characters.", LEASE_VIEWER_MAX);
                        return EXIT_USAGE;
                }
        }

        if (cli_open_profile(profile, &p, &dirfd) < 0)
                return EXIT_FAILED;
        run.dirfd = dirfd;
        return act->run(&run);
}

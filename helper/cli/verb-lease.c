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

int verb_lease(const struct cli_args *a) {
        const char *profile = a->operand, *action = a->action, *viewer = a->viewer, *reason = a->reason;
        unsigned timeout = a->timeout;
        bool json = a->json;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF;
        char hash[LEASE_HASH_LEN + 1];
        struct lease l;
        int r;

        if (!profile) {
                log_error("Missing PROFILE argument: botdesk lease PROFILE [show|take|release|request|wait] [--viewer ID].");
                return EXIT_USAGE;
        }
        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
        action = action ?: "show";
        if (!streq(action, "show") && !streq(action, "take") && !streq(action, "release") &&
            !streq(action, "request") && !streq(action, "wait")) {
                log_error("Unknown lease action \"%s\": use show, take, release, request or wait.", action);
                return EXIT_USAGE;
        }
        if (reason && !streq(action, "take") && !streq(action, "request")) {
                log_error("--reason applies to take and request, not %s.", action);
                return EXIT_USAGE;
        }
        if (timeout && !streq(action, "wait")) {
                log_error("--timeout applies to wait, not %s.", action);
                return EXIT_USAGE;
        }
        if (timeout > LEASE_WAIT_MAX_S) {
                log_error("Invalid --timeout %u for lease wait: at most %u s (the default is %u s).", timeout,
                          LEASE_WAIT_MAX_S, LEASE_WAIT_DEFAULT_S);
                return EXIT_USAGE;
        }
        if (!timeout)
                timeout = LEASE_WAIT_DEFAULT_S;
        if (reason && (strlen(reason) > LEASE_REASON_MAX || strpbrk(reason, "\n\r\t"))) {
                log_error("Invalid --reason: use at most %d bytes on one line without control characters.", LEASE_REASON_MAX);
                return EXIT_USAGE;
        }
        if (!streq(action, "show") && !streq(action, "wait")) {
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

        if (streq(action, "show")) {
                /* A damaged file is a state to show, not a failure of show. */
                (void) lease_read_at(dirfd, &l);
                activity_stamp(dirfd);
                print_lease(profile, &l, json);
                return EXIT_OK;
        }

        if (streq(action, "wait")) {
                r = lease_wait_agent_at(dirfd, (unsigned long long) timeout * 1000ULL, &l);
                if (r == -ETIME) {
                        log_error("A human still has control of %s after %u s; tell the user what you need.", profile,
                                  timeout);
                        if (json)
                                print_lease(profile, &l, true);
                        return EXIT_REFUSED;
                }
                if (r < 0) {
                        log_error_errno(r, "Cannot watch the control lease of %s: %m", profile);
                        return EXIT_FAILED;
                }
                print_lease(profile, &l, json);
                return EXIT_OK;
        }

        if (streq(action, "take")) {
                _cleanup_(helper_record_done) struct helper_record rec = {};
                bool remote = cli_desktop_place(a->config, profile) == CLI_PLACE_REMOTE;

                /* Control of a screen that is not there is no control: the
                 * human would type into nothing (said: not running). A VNC
                 * server botdesk did not start is there as far as it knows. */
                r = remote ? EXIT_OK : running_desktop_helper(profile, dirfd, &rec);
                if (r != EXIT_OK)
                        return r;
                r = lease_take_at(dirfd, viewer, reason, &l);
        } else if (streq(action, "request"))
                r = lease_request_at(dirfd, viewer, reason, &l);
        else
                r = lease_release_at(dirfd, viewer, &l);
        if (r == -EBADMSG && streq(action, "request")) {
                log_error("The control lease of %s is unreadable; no request can be recorded. Repair it: botdesk lease %s take --viewer ID.",
                          profile, profile);
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot %s the control lease of %s: %m", action, profile);
                return EXIT_FAILED;
        }
        if (!streq(action, "request"))
                cli_journal_lease(profile, &l);
        activity_stamp(dirfd);
        if (json) {
                print_lease(profile, &l, true);
                return EXIT_OK;
        }

        lease_viewer_hash(viewer, hash);
        if (streq(action, "request"))
                printf(r > 0 ? "%s: viewer %s asks for control; the request is pending (epoch %llu)\n"
                             : "%s: viewer %s holds or has already asked for control; nothing changed (epoch %llu)\n",
                       profile, hash, l.epoch);
        else if (streq(action, "take"))
                printf(r > 0 ? "%s: viewer %s took control (epoch %llu)\n"
                             : "%s: viewer %s already holds control; nothing changed (epoch %llu)\n",
                       profile, hash, l.epoch);
        else
                printf(r > 0 ? "%s: viewer %s released control; the agent holds it (epoch %llu)\n"
                             : "%s: viewer %s does not hold control; nothing changed (epoch %llu)\n",
                       profile, hash, l.epoch);
        return EXIT_OK;
}

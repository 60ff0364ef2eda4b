/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk network PROFILE [show] | set KEY=VALUE...: the desktop's network
 * policy (network.h), and a change of it on a running desktop through the
 * user manager (unit-network.h), kept until the desktop stops. The policy
 * is the operator's, not the agent's: a change is not gated by the lease,
 * and is journaled.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-cleanup.h"
#include "cli.h"
#include "journal-hook.h"
#include "log.h"
#include "network-proxy.h"
#include "network.h"
#include "profile.h"
#include "status.h"
#include "unit-network.h"
#include "unit.h"
#include "util.h"
#include "verbs.h"

static void print_policy(const char *profile, const struct network_texts *t, bool json) {
        struct json j;

        if (!json) {
                printf("mode = %s\nallow = %s\ndeny = %s\n", net_mode_to_string(t->mode), t->allow ?: "", t->deny ?: "");
                return;
        }
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "profile", profile);
        network_json(&j, t);
        json_object_end(&j);
        fputc('\n', stdout);
}

/* KEY=VALUE onto t: EXIT_OK, or EXIT_USAGE said. */
static int apply_word(const char *word, struct network_texts *t) {
        const char *eq = strchr(word, '=');
        _cleanup_free_ char *key = eq ? strndup(word, (size_t) (eq - word)) : NULL;
        char **field;
        int m;

        if (!eq) {
                log_error("network set takes KEY=VALUE (mode, allow, deny), not \"%s\".", word);
                return EXIT_USAGE;
        }
        if (!key)
                return log_oom(), EXIT_FAILED;
        if (streq(key, "mode")) {
                m = net_mode_from_string(eq + 1);
                if (m < 0) {
                        log_error("network set mode=%s: not open, allowlist or offline.", eq + 1);
                        return EXIT_USAGE;
                }
                t->mode = (unsigned) m;
                return EXIT_OK;
        }
        if (streq(key, "allow"))
                field = &t->allow;
        else if (streq(key, "deny"))
                field = &t->deny;
        else {
                log_error("network set: unknown key \"%s\" (mode, allow or deny).", key);
                return EXIT_USAGE;
        }
        free(*field);
        *field = eq[1] ? strdup(eq + 1) : NULL;
        if (eq[1] && !*field)
                return log_oom(), EXIT_FAILED;
        return EXIT_OK;
}

static void journal_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        network_json(j, userdata);
}

static int set_policy(const struct cli_args *a, const char *profile, const struct bd_config *cfg, struct bd_status *st) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_(paths_done) struct bd_paths paths = {};
        _cleanup_close_ int dirfd = -EBADF;
        struct network_texts *t = &st->network;
        int r;

        if (a->n_operands < 3) {
                log_error("network set needs KEY=VALUE: mode=open|allowlist|offline, allow=LIST, deny=LIST.");
                return EXIT_USAGE;
        }
        for (size_t i = 2; i < a->n_operands; i++) {
                r = apply_word(a->operands[i], t);
                if (r != EXIT_OK)
                        return r;
        }
        if (!st->running) {
                log_error("Desktop %s is not running: [network] in the configuration applies at its next start.",
                          profile);
                return EXIT_NOT_RUNNING;
        }
        if (!st->placement || !streq(st->placement, "user-unit") || !st->unit) {
                log_error("Desktop %s runs %s: only a desktop under the user manager takes a new network policy "
                          "while it runs (change [network] and restart it).", profile, st->placement ?: "elsewhere");
                return EXIT_REFUSED;
        }
        r = network_judge(profile, cfg, t, &p);
        if (r != EXIT_OK)
                return r;
        r = paths_for_profile(profile, &paths);
        if (r >= 0)
                dirfd = r = paths_open_runtime(&paths, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot open the runtime dir of %s: %m", profile), EXIT_FAILED;
        /* Its programs were told of a proxy at its start, or never: the proxy stays as long as the desktop. */
        if (p.proxy && !st->network.proxy) {
                log_error("Desktop %s started without a proxy, so its programs know of none: names in allow need "
                          "it. Put them in [network] allow and restart the desktop.", profile);
                return EXIT_REFUSED;
        }
        if (st->network.proxy) {
                p.proxy = true;
                net_proxy_address((unsigned) getuid(), profile, p.proxy_address);
        }
        r = unit_bus_open(&bus);
        if (r < 0)
                return log_error_errno(r, "Cannot reach the user manager: %m"), EXIT_FAILED;
        r = unit_network_set(bus, st->unit, &p, &error);
        if (r < 0)
                return log_error_errno(r, "Cannot set the network policy of %s: %s", st->unit,
                                       error.message ?: strerror(-r)), EXIT_FAILED;
        /* The proxy's filter follows: allow's names, everything (open), or no proxy (offline: fail closed). */
        if (p.proxy) {
                r = p.mode == NET_MODE_OFFLINE ? network_proxy_stop(bus, profile)
                                               : network_proxy_start(bus, profile, dirfd, paths.runtime, &p);
                if (r < 0)
                        return EXIT_FAILED;
        }
        /* What status says from now until the desktop stops. */
        r = network_override_write(dirfd, t);
        if (r < 0)
                log_warning_errno(r, "The policy is in force, but cannot be recorded for status: %m");
        cli_journal_record(profile, &(const struct cli_journal_action) {
                .action = "network set", .config = cfg, .result = "ok", .no_frame = true,
                .args = journal_args, .userdata = t,
        });
        print_policy(profile, t, a->json);
        return EXIT_OK;
}

int verb_network(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config storage = {};
        const char *profile = a->operand, *action = a->n_operands > 1 ? a->operands[1] : "show";
        const struct bd_config *cfg;
        struct bd_status st;
        int r;

        if (!streq(action, "show") && !streq(action, "set")) {
                log_error("Unknown network action \"%s\": give show or set.", action);
                return EXIT_USAGE;
        }
        if (streq(action, "show") && a->n_operands > 2) {
                log_error("network show takes no more words.");
                return EXIT_USAGE;
        }
        cfg = cli_config(a->config, profile, &storage);
        if (!cfg)
                return EXIT_USAGE;
        r = status_collect(profile, cfg, &st);
        if (r < 0) {
                status_done(&st);
                return log_error_errno(r, "Cannot read the status of %s: %m", profile), EXIT_FAILED;
        }
        if (streq(action, "show")) {
                print_policy(profile, &st.network, a->json);
                r = EXIT_OK;
        } else
                r = set_policy(a, profile, cfg, &st);
        status_done(&st);
        return r;
}

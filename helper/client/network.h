/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "json.h"
#include "net-policy.h"

/*
 * A profile's network policy as the CLI sees it: the configuration's
 * ([network] mode, allow, deny), or what `botdesk network P set` gave its
 * running desktop (the runtime dir's "network", KEY=VALUE lines, gone at
 * the next start).
 */

#define NETWORK_OVERRIDE "network"

/* The texts in force: the runtime dir's override (runtime_fd >= 0, when there is one), else c's. */
struct network_texts {
        unsigned mode;
        char *allow, *deny;
        /* A running desktop with a proxy (network-proxy.h): where, whether it runs, what it refused. */
        bool proxy, proxy_running;
        uint8_t proxy_address[4];
        unsigned refused;
        char *last_refused;
};
void network_texts_done(struct network_texts *t);
int network_texts_read(const char *profile, const struct bd_config *c, int runtime_fd, struct network_texts *ret);
int network_override_write(int runtime_fd, const struct network_texts *t);

/*
 * Policy t of profile parsed, said on stderr: EXIT_OK with *ret (the
 * proxy's address set when allow names domains), EXIT_USAGE for a bad
 * text, EXIT_REFUSED where botdesk cannot enforce it (placed, remote).
 */
int network_judge(const char *profile, const struct bd_config *c, const struct network_texts *t,
                  struct net_policy *ret);

/* A start without a systemd manager (standalone), where nothing enforces a policy that restricts: EXIT_OK, or
 * EXIT_REFUSED said. */
int network_standalone_check(const char *profile, const struct net_policy *p);

/* "network": {"mode", "allow": [...], "deny": [...]}, and with a proxy
 * "proxy": {"address", "running", "refused", "last_refused"} */
void network_json(struct json *j, const struct network_texts *t);

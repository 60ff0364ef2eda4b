/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_botdesk's network step: "session optional pam_botdesk.so network",
 * after pam_systemd. In the logind tier the desktop lives in the session's
 * scope, which logind creates in the system manager: only there, and only
 * as root (as PAM's open runs, before systemd drops to the user), can
 * systemd's IP firewall be attached to it. A user manager of an unprivileged
 * user cannot attach it at all, so for such users this tier is the one where
 * [network] holds.
 *
 * Nothing here decides whether the desktop may start: the helper sends its
 * probe before it starts anything and refuses (exit 3, which stops the
 * unit's restarts) when the policy is not in force. A failure here is
 * logged and the session goes on to that refusal, rather than failing in
 * PAM, which systemd would retry every RestartSec.
 */
#include <errno.h>
#include <string.h>

#include <systemd/sd-login.h>

#include "bus-cleanup.h"
#include "config.h"
#include "net-policy.h"
#include "pam-botdesk.h"
#include "unit-network.h"
#include "util.h"

/* The scope pam_systemd moved us into: "session-ID.scope" of the session it registered. */
static int session_scope(pam_handle_t *pamh, char **ret) {
        _cleanup_free_ char *unit = NULL, *session = NULL, *expected = NULL;
        const char *id = pam_getenv(pamh, "XDG_SESSION_ID");
        int r;

        r = sd_pid_get_session(0, &session);
        if (r < 0)
                return r;
        /* The application may have put anything in the PAM environment: logind's word decides. */
        if (!session_id_valid(session) || (id && !streq(id, session)))
                return -ESRCH;
        r = sd_pid_get_unit(0, &unit);
        if (r < 0)
                return r;
        expected = strdup_printf("session-%s.scope", session);
        if (!expected)
                return -ENOMEM;
        if (!streq(unit, expected))
                return -ESRCH;
        *ret = TAKE_PTR(unit);
        return 0;
}

int session_network_apply(pam_handle_t *pamh, const struct args *a, const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *problem = NULL, *scope = NULL;
        int r;

        r = pam_config_load(pamh, a, profile, &c);
        if (r < 0)
                return r;
        r = net_policy_parse(c.network_mode, c.network_allow, c.network_deny, &p, &problem);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "[network] of profile %s: %s.", profile, problem ?: "out of memory");
                return r;
        }
        if (!net_policy_restricts(&p)) {
                log_debug_pam(a, pamh, "Profile %s has no network policy to attach.", profile);
                return 0;
        }
        /* Names need botdesk's proxy, which `botdesk start` runs and this tier does not: the ranges hold
         * (nothing else gets out), and the helper refuses the start, saying so. */
        p.proxy = false;

        r = session_scope(pamh, &scope);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r,
                                     "Cannot find the session scope of profile %s (is pam_botdesk.so network after "
                                     "pam_systemd.so?): %m", profile);
        r = bus_open_system(&bus);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r, "Cannot connect to the system bus: %m");
        r = unit_network_set(bus, scope, &p, &error);
        if (r < 0) {
                pam_syslog(pamh, LOG_ERR, "Cannot set the network policy of %s (profile %s): %s", scope, profile,
                           error.message ?: strerrordesc_np(-r) ?: "unknown error");
                return r;
        }
        log_debug_pam(a, pamh, "Network policy of profile %s (mode %s) set on %s.", profile,
                      net_mode_to_string(p.mode), scope);
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "unit-properties.h"

#define USEC_PER_SEC UINT64_C(1000000)

const struct unit_property unit_properties[] = {
        { "Unit", "Description", "Description", UNIT_VALUE_STRING, .string = "botdesk desktop %i" },
        { "Unit", "Documentation", "Documentation", UNIT_VALUE_STRV,
          .strv = (const char *const[]) { "man:botdesk(1)", "man:botdesk-helper(8)", NULL } },

        { "Service", "Type", "Type", UNIT_VALUE_STRING, .string = "notify",
          .comment = "The helper sends READY=1 once the window manager manages the screen and\n"
                     "the env file is published; only the helper may say so (the session bus it\n"
                     "starts would otherwise report READY on its own)." },
        { "Service", "NotifyAccess", "NotifyAccess", UNIT_VALUE_STRING, .string = "main" },
        { "Service", "ExecStart", "ExecStart", UNIT_VALUE_EXEC },
        { "Service", "Delegate", "Delegate", UNIT_VALUE_BOOL, .boolean = true,
          .comment = "The helper divides the unit's cgroup into supervisor/, x11/, session/ and\n"
                     "apps/; stopping, failing or a SIGKILL of the helper kill the whole cgroup." },
        { "Service", "KillMode", "KillMode", UNIT_VALUE_STRING, .string = "control-group" },
        { "Service", "Restart", "Restart", UNIT_VALUE_STRING, .string = "on-failure",
          .comment = "A crash comes back; an idle stop or `botdesk stop` exits 0 and does not." },
        { "Service", "RestartSec", "RestartUSec", UNIT_VALUE_USEC, .usec = 2 * USEC_PER_SEC },
        { "Service", "RestartPreventExitStatus", "RestartPreventExitStatus", UNIT_VALUE_EXIT_STATUS,
          .exit_status = { 2, 3 },
          .comment = "A broken configuration (2) or a refusal such as too little memory (3) does\n"
                     "not get better by trying again." },
        { "Service", "TimeoutStartSec", "TimeoutStartUSec", UNIT_VALUE_USEC, .usec = UNIT_TIMEOUT_START_USEC,
          .comment = "A little above the helper's own start_timeout (15 s by default), so that\n"
                     "the helper's reason reaches last-error before systemd gives up; a longer\n"
                     "start_timeout makes the helper send EXTEND_TIMEOUT_USEC=." },
        { "Service", "TimeoutStopSec", "TimeoutStopUSec", UNIT_VALUE_USEC, .usec = 15 * USEC_PER_SEC },

        { "Service", "NoNewPrivileges", "NoNewPrivileges", UNIT_VALUE_BOOL, .boolean = true,
          .comment = "Hardening that the desktop tolerates:\n"
                     "- no privilege gain through setuid binaries launched on the desktop;" },
        { "Service", "RestrictSUIDSGID", "RestrictSUIDSGID", UNIT_VALUE_BOOL, .boolean = true },
        { "Service", "RestrictRealtime", "RestrictRealtime", UNIT_VALUE_BOOL, .boolean = true,
          .comment = "- nothing on the desktop needs realtime scheduling or other personalities;" },
        { "Service", "LockPersonality", "LockPersonality", UNIT_VALUE_BOOL, .boolean = true },
        { "Service", "SystemCallArchitectures", "SystemCallArchitectures", UNIT_VALUE_STRV,
          .strv = (const char *const[]) { "native", NULL } },

        /* A failed transient unit would block the next start of its name; an
         * installed unit keeps a failed instance for `systemctl --user status`. */
        { "Service", NULL, "CollectMode", UNIT_VALUE_STRING, .string = "inactive-or-failed" },
};

const size_t unit_properties_count = sizeof unit_properties / sizeof unit_properties[0];

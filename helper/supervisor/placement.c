/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-login.h>

#include "cgroup.h"
#include "record.h"
#include "log.h"
#include "placement.h"
#include "procfs.h"
#include "util.h"

static uint32_t fnv1a32(const char *s) {
        uint32_t h = 2166136261u;

        for (; *s; s++)
                h = (h ^ (uint8_t) *s) * 16777619u;
        return h;
}

int placement_setup(struct supervisor *s) {
        _cleanup_free_ char *mount = NULL, *self = NULL, *unit = NULL;
        int r;

        if (sd_pid_get_user_unit(0, &unit) >= 0 && startswith(unit, "botdesk@")) {
                s->placement = "user-unit";
                s->unit = TAKE_PTR(unit);
        } else if (s->reserved_display >= 0) {
                s->placement = "session";
        } else
                s->placement = "standalone";

        r = cgroup_v2_mount(&mount);
        if (r >= 0)
                r = cgroup_path_of(0, &self);
        if (r < 0) {
                log_warning_errno(r, "No cgroup v2 hierarchy usable (%m); falling back to process groups.");
                return 0;
        }
        s->cg_parent = strdup_printf("%s%s", mount, streq(self, "/") ? "" : self);
        if (!s->cg_parent)
                return -ENOMEM;

        if (streq(s->placement, "user-unit") && cgroup_is_unit_of(self, s->unit)) {
                /* A unit with Delegate=yes: the unit's cgroup is ours to divide. */
                s->cg_base = strdup(s->cg_parent);
        } else {
                /* Anywhere else (standalone, a logind scope) only a sub-tree
                 * of our own below the cgroup we were started in, never
                 * moving anyone but us and ours. */
                /* Named after the runtime dir too: one uid may run the
                 * same profile name under two runtime dirs (tests do). */
                s->cg_base = strdup_printf("%s/botdesk-%u-%s-%08x", s->cg_parent, (unsigned) getuid(), s->profile,
                                           fnv1a32(s->paths.runtime));
                s->own_base = true;
        }
        s->cg_supervisor = strdup_printf("%s/supervisor", s->cg_base);
        s->cg_x11 = strdup_printf("%s/x11", s->cg_base);
        s->cg_session = strdup_printf("%s/session", s->cg_base);
        s->cg_apps = strdup_printf("%s/apps", s->cg_base);
        if (!s->cg_supervisor || !s->cg_x11 || !s->cg_session || !s->cg_apps)
                return -ENOMEM;

        if (s->own_base) {
                r = cgroup_create(s->cg_base);
                if (r < 0)
                        goto fallback;
        }
        r = cgroup_create(s->cg_supervisor);
        if (r >= 0)
                r = cgroup_attach(s->cg_supervisor, 0);
        if (r >= 0)
                r = cgroup_create(s->cg_x11);
        if (r >= 0)
                r = cgroup_create(s->cg_session);
        if (r >= 0)
                r = cgroup_create(s->cg_apps);
        if (r >= 0)
                return 0;

fallback:
        log_info("Cannot manage cgroups below %s (%s); using process groups and a child subreaper, which are weaker.",
                 s->cg_parent, strerror(-r));
        if (s->own_base) {
                (void) cgroup_attach(s->cg_parent, 0);
                (void) cgroup_remove(s->cg_base);
        }
        /* Without a base there are no sub-groups either: nothing may name them. */
        free(s->cg_base);
        free(s->cg_supervisor);
        free(s->cg_x11);
        free(s->cg_session);
        free(s->cg_apps);
        s->cg_base = s->cg_supervisor = s->cg_x11 = s->cg_session = s->cg_apps = NULL;
        return 0;
}

int placement_write_record(struct supervisor *s) {
        struct helper_record rec = {
                .pid = getpid(),
                .cgroup = s->cg_base,
                .token = s->token,
                .placement = (char *) s->placement,
                .unit = s->unit,
                .alias = s->alias,
                .display = s->display,
                .started_at = s->started_at,
        };

        (void) pid_starttime(rec.pid, &rec.starttime);
        return helper_record_write_at(s->runtime_fd, &rec);
}

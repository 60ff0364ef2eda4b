/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "alloc.h"
#include "cgroup.h"
#include "doctor-fleet.h"
#include "fleet.h"
#include "inotify-limits.h"
#include "util.h"

static long long band_free(const struct bd_config *c) {
        long long n = 0;

        for (unsigned d = c->band_min; d <= c->band_max; d++)
                n += display_in_use(&alloc_env_default, d) == 0;
        return n;
}

static void json_limit(struct json *j, const char *name, long long more, long long used, long long max, long long each) {
        json_key(j, name);
        json_object_begin(j);
        json_kv_opt_int(j, "more", more, more >= 0);
        json_kv_opt_int(j, "used", used, used >= 0);
        json_kv_opt_int(j, "max", max, max >= 0);
        json_kv_int(j, "per_desktop", each);
        json_object_end(j);
}

static void text_more(const char *name, long long more) {
        if (more < 0)
                printf("  %-10s  unknown", name);
        else
                printf("  %-10s  %lld more", name, more);
}

void doctor_fleet(struct json *j, const struct bd_config *c, const struct memory_info *mem) {
        _cleanup_free_ char *mount = NULL, *self = NULL, *tasks_source = NULL;
        struct inotify_limits ino;
        struct fleet_capacity cap;
        struct fleet_inputs in;
        struct rlimit rl;
        long long band = (long long) c->band_max - c->band_min + 1;

        (void) inotify_limits_read("/proc", getuid(), &ino);
        in = (struct fleet_inputs) {
                .memory_available_mb = mem ? (long long) mem->available_mb : -1,
                .memory_floor_mb = c->min_free_memory_mb,
                .inotify_max = ino.max_user_instances,
                .inotify_used = ino.instances_used,
                .band_free = band_free(c),
                .tasks_max = -1,
                .tasks_used = -1,
        };
        if (cgroup_v2_mount(&mount) < 0 || cgroup_path_of(0, &self) < 0) {
                free(mount);
                free(self);
                mount = self = NULL;
        }
        (void) fleet_tasks_read("/proc", mount, self, getuid(),
                                getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long long) rl.rlim_cur
                                                                                                   : -1,
                                &in.tasks_max, &in.tasks_used, &tasks_source);
        fleet_capacity_compute(&in, &cap);

        if (j) {
                json_key(j, "fleet");
                json_object_begin(j);
                json_kv_opt_int(j, "more", cap.more_total, cap.more_total >= 0);
                json_kv_string(j, "limited_by", cap.more_total >= 0 ? fleet_limit_name(cap.first) : NULL);
                json_key(j, "limits");
                json_object_begin(j);
                json_limit(j, "memory", cap.more[FLEET_MEMORY],
                           mem ? (long long) (mem->limit_mb - mem->available_mb) : -1, mem ? (long long) mem->limit_mb : -1,
                           FLEET_DESKTOP_MB);
                json_limit(j, "inotify", cap.more[FLEET_INOTIFY], in.inotify_used, in.inotify_max, INOTIFY_PER_DESKTOP);
                json_limit(j, "band", cap.more[FLEET_BAND], band - in.band_free, band, 1);
                json_limit(j, "tasks", cap.more[FLEET_TASKS], in.tasks_used, in.tasks_max, FLEET_DESKTOP_TASKS);
                json_object_end(j);
                json_kv_string(j, "tasks_limit", tasks_source);
                json_object_end(j);
                return;
        }
        if (cap.more_total >= 0)
                printf("fleet:        %lld more desktops fit; %s is the first limit they meet\n", cap.more_total,
                       fleet_limit_name(cap.first));
        else
                printf("fleet:        no limit could be read\n");
        text_more("memory:", cap.more[FLEET_MEMORY]);
        if (mem)
                printf(" (%llu MB available, %u MB kept free, about %u MB each)", (unsigned long long) mem->available_mb,
                       c->min_free_memory_mb, FLEET_DESKTOP_MB);
        putchar('\n');
        text_more("inotify:", cap.more[FLEET_INOTIFY]);
        printf(" (%lld of %lld instances in use, %u each)\n", in.inotify_used, in.inotify_max, INOTIFY_PER_DESKTOP);
        text_more("band:", cap.more[FLEET_BAND]);
        printf(" (%lld of the %lld numbers of %u-%u free)\n", in.band_free, band, c->band_min, c->band_max);
        text_more("tasks:", cap.more[FLEET_TASKS]);
        if (tasks_source)
                printf(" (%lld of %lld, %s; about %u each)", in.tasks_used, in.tasks_max, tasks_source,
                       FLEET_DESKTOP_TASKS);
        putchar('\n');
}

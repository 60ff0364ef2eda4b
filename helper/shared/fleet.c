/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fleet.h"
#include "inotify-limits.h"
#include "util.h"

static const char *const limit_names[_FLEET_LIMIT_MAX] = {
        [FLEET_MEMORY] = "memory",
        [FLEET_INOTIFY] = "inotify",
        [FLEET_BAND] = "band",
        [FLEET_TASKS] = "tasks",
};

const char *fleet_limit_name(enum fleet_limit l) {
        return l < _FLEET_LIMIT_MAX ? limit_names[l] : NULL;
}

/* Whole desktops in room (<= 0: none); each needs cost. */
static long long fit(long long room, long long cost) {
        return room > 0 ? room / cost : 0;
}

void fleet_capacity_compute(const struct fleet_inputs *in, struct fleet_capacity *ret) {
        *ret = (struct fleet_capacity) { .more_total = -1 };

        ret->more[FLEET_MEMORY] = in->memory_available_mb < 0 ? -1
                : fit(in->memory_available_mb - in->memory_floor_mb, FLEET_DESKTOP_MB);
        ret->more[FLEET_INOTIFY] = in->inotify_max < 0 ? -1 : fit(in->inotify_max - in->inotify_used, INOTIFY_PER_DESKTOP);
        ret->more[FLEET_BAND] = in->band_free < 0 ? -1 : in->band_free;
        ret->more[FLEET_TASKS] = in->tasks_max < 0 ? -1 : fit(in->tasks_max - in->tasks_used, FLEET_DESKTOP_TASKS);
        for (enum fleet_limit l = 0; l < _FLEET_LIMIT_MAX; l++)
                if (ret->more[l] >= 0 && (ret->more_total < 0 || ret->more[l] < ret->more_total)) {
                        ret->more_total = ret->more[l];
                        ret->first = l;
                }
}

/* A number file ("max" reads as no limit: -1); -1 when absent or unparsable. */
static long long read_limit(const char *path) {
        _cleanup_free_ char *text = NULL;
        unsigned long long v;

        if (read_full_file(path, &text, NULL, 64) < 0)
                return -1;
        text[strcspn(text, "\n")] = 0;
        return parse_uint(text, LLONG_MAX, &v) >= 0 ? (long long) v : -1;
}

/* Threads of every process (uid_filter < 0) or of uid's. */
static long long threads_of(const char *proc_root, long long uid_filter) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        long long n = 0;

        d = opendir(proc_root);
        if (!d)
                return -1;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                unsigned long long v;
                struct stat st;
                const char *t;

                if (parse_uint(de->d_name, INT32_MAX, &v) < 0)
                        continue;
                if (uid_filter >= 0 && (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != (uid_t) uid_filter))
                        continue;
                path = strdup_printf("%s/%s/status", proc_root, de->d_name);
                if (!path || read_full_file(path, &text, NULL, 16384) < 0)
                        continue;
                t = strstr(text, "\nThreads:");
                if (t) {
                        char num[16] = "";
                        size_t l;

                        t += strlen("\nThreads:");
                        t += strspn(t, " \t");
                        l = strspn(t, "0123456789");
                        if (l > 0 && l < sizeof num) {
                                memcpy(num, t, l);
                                if (parse_uint(num, INT32_MAX, &v) >= 0)
                                        n += (long long) v;
                        }
                }
        }
        return n;
}

/* Take limit max against used when it leaves less room than the best so far. */
static int consider(long long max, long long used, const char *source, long long *best_max, long long *best_used,
                    char **best_source) {
        char *s;

        if (max < 0 || used < 0)
                return 0;
        if (*best_max >= 0 && max - used >= *best_max - *best_used)
                return 0;
        s = strdup(source);
        if (!s)
                return -ENOMEM;
        free(*best_source);
        *best_source = s;
        *best_max = max;
        *best_used = used;
        return 0;
}

int fleet_tasks_read(const char *proc_root, const char *cgroup_mount, const char *cgroup_path, uid_t uid,
                     long long nproc_max, long long *ret_max, long long *ret_used, char **ret_source) {
        _cleanup_free_ char *source = NULL, *p = NULL, *threads_max = NULL, *pid_max = NULL;
        long long best_max = -1, best_used = -1, all;
        int r;

        if (cgroup_mount && cgroup_path) {
                p = strdup(cgroup_path);
                if (!p)
                        return -ENOMEM;
                /* The group itself, then each ancestor up to (not) the root, which has no pids.max. */
                while (!streq(p, "/") && p[0]) {
                        _cleanup_free_ char *maxf = strdup_printf("%s%s/pids.max", cgroup_mount, p),
                                            *curf = strdup_printf("%s%s/pids.current", cgroup_mount, p),
                                            *name = strdup_printf("pids.max of %s", p);
                        char *slash;

                        if (!maxf || !curf || !name)
                                return -ENOMEM;
                        r = consider(read_limit(maxf), read_limit(curf), name, &best_max, &best_used, &source);
                        if (r < 0)
                                return r;
                        slash = strrchr(p, '/');
                        if (!slash)
                                break;
                        if (slash == p)
                                p[1] = 0;
                        else
                                *slash = 0;
                }
        }
        if (nproc_max >= 0 && uid != 0) {
                r = consider(nproc_max, threads_of(proc_root, uid), "RLIMIT_NPROC", &best_max, &best_used, &source);
                if (r < 0)
                        return r;
        }
        threads_max = strdup_printf("%s/sys/kernel/threads-max", proc_root);
        pid_max = strdup_printf("%s/sys/kernel/pid_max", proc_root);
        if (!threads_max || !pid_max)
                return -ENOMEM;
        all = threads_of(proc_root, -1);
        r = consider(read_limit(threads_max), all, "kernel.threads-max", &best_max, &best_used, &source);
        if (r < 0)
                return r;
        r = consider(read_limit(pid_max), all, "kernel.pid_max", &best_max, &best_used, &source);
        if (r < 0)
                return r;
        *ret_max = best_max;
        *ret_used = best_used;
        *ret_source = TAKE_PTR(source);
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How many more desktops fit, limit by limit; the task limits from a fixture /proc and cgroup tree. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fleet.h"
#include "inotify-limits.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

static char root[] = "/tmp/botdesk-fleet.XXXXXX";

static void compute(void) {
        struct fleet_inputs in = {
                .memory_available_mb = 2048 + 5 * FLEET_DESKTOP_MB + FLEET_DESKTOP_MB / 2,
                .memory_floor_mb = 2048,
                .inotify_max = 128,
                .inotify_used = 128 - 3 * INOTIFY_PER_DESKTOP - 1,
                .band_free = 7,
                .tasks_max = 1000,
                .tasks_used = 1000 - 9 * FLEET_DESKTOP_TASKS,
        };
        struct fleet_capacity cap;

        fleet_capacity_compute(&in, &cap);
        TAP_EQ_INT(cap.more[FLEET_MEMORY], 5, "memory: whole desktops above the floor");
        TAP_EQ_INT(cap.more[FLEET_INOTIFY], 3, "inotify: whole desktops in the instances left");
        TAP_EQ_INT(cap.more[FLEET_BAND], 7, "band: one number a desktop");
        TAP_EQ_INT(cap.more[FLEET_TASKS], 9, "tasks: whole desktops in the tasks left");
        TAP_EQ_INT(cap.more_total, 3, "the smallest of them is what fits");
        TAP_EQ_STR(fleet_limit_name(cap.first), "inotify", "...and names the limit met first");

        in.memory_available_mb = 1000;
        in.inotify_max = -1;
        fleet_capacity_compute(&in, &cap);
        TAP_EQ_INT(cap.more[FLEET_MEMORY], 0, "memory below the floor: none more");
        TAP_EQ_INT(cap.more[FLEET_INOTIFY], -1, "an unknown limit stays unknown");
        TAP_EQ_STR(fleet_limit_name(cap.first), "memory", "...and memory binds first");

        in = (struct fleet_inputs) { .memory_available_mb = -1, .inotify_max = -1, .band_free = -1, .tasks_max = -1 };
        fleet_capacity_compute(&in, &cap);
        TAP_EQ_INT(cap.more_total, -1, "no limit known: no total");
}

int main(void) {
        _cleanup_free_ char *proc = NULL, *cg = NULL, *src = NULL;
        long long max = -2, used = -2;
        int r = 0;

        compute();

        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                return 1;
        }
        proc = strdup_printf("%s/proc", root);
        cg = strdup_printf("%s/cg", root);
        /* Two processes (3 + 5 threads), kernel limits far away. */
        r |= dir_make_at(root, "proc") | dir_make_at(root, "proc/sys") | dir_make_at(root, "proc/sys/kernel") | dir_make_at(root, "proc/10") | dir_make_at(root, "proc/20");
        r |= file_put_at(root, "proc/sys/kernel/threads-max", "100000\n") | file_put_at(root, "proc/sys/kernel/pid_max", "4194304\n");
        r |= file_put_at(root, "proc/10/status", "Name:\tXvnc\nUid:\t0\nThreads:\t3\n") | file_put_at(root, "proc/20/status", "Name:\tx\nThreads:  5\n");
        /* A cgroup tree: the user's slice limits to 300 with 100 used; our group to 1000 (looser). */
        r |= dir_make_at(root, "cg") | dir_make_at(root, "cg/user.slice") | dir_make_at(root, "cg/user.slice/app");
        r |= file_put_at(root, "cg/user.slice/pids.max", "300\n") | file_put_at(root, "cg/user.slice/pids.current", "100\n");
        r |= file_put_at(root, "cg/user.slice/app/pids.max", "1000\n") | file_put_at(root, "cg/user.slice/app/pids.current", "50\n");
        if (r != 0 || !proc || !cg) {
                printf("Bail out! cannot build the fixture\n");
                return 1;
        }

        TAP_EQ_INT(fleet_tasks_read(proc, NULL, NULL, 0, -1, &max, &used, &src), 0, "a fixture /proc is read");
        TAP_EQ_INT(max, 100000, "with no other limit, kernel.threads-max binds");
        TAP_EQ_INT(used, 8, "...against every thread of the host");
        TAP_EQ_STR(src, "kernel.threads-max", "...and is named");
        free(src);
        src = NULL;

        /* RLIMIT_NPROC counts a uid's threads and does not bind root: as root, the two
         * processes become another uid's; otherwise they are the caller's. */
        if (getuid() == 0) {
                _cleanup_free_ char *p10 = strdup_printf("%s/10", proc), *p20 = strdup_printf("%s/20", proc);

                if (!p10 || !p20 || chown(p10, 4242, 4242) < 0 || chown(p20, 4242, 4242) < 0) {
                        printf("Bail out! chown in the fixture\n");
                        return 1;
                }
        }
        TAP_EQ_INT(fleet_tasks_read(proc, NULL, NULL, getuid() == 0 ? 4242 : getuid(), 20, &max, &used, &src), 0,
                   "RLIMIT_NPROC is considered");
        TAP_EQ_INT(max, 20, "a small RLIMIT_NPROC binds first");
        TAP_EQ_INT(used, 8, "...against the uid's threads");
        TAP_EQ_STR(src, "RLIMIT_NPROC", "...and is named");
        free(src);
        src = NULL;

        TAP_EQ_INT(fleet_tasks_read(proc, NULL, NULL, 0, 20, &max, &used, &src), 0, "root's view is read");
        TAP_EQ_STR(src, "kernel.threads-max", "RLIMIT_NPROC does not bind root");
        free(src);
        src = NULL;

        TAP_EQ_INT(fleet_tasks_read(proc, cg, "/user.slice/app", 0, -1, &max, &used, &src), 0, "a cgroup tree is read");
        TAP_EQ_INT(max - used, 200, "the tightest ancestor's pids.max binds (300 - 100 left, not 1000 - 50)");
        TAP_EQ_STR(src, "pids.max of /user.slice", "...and is named");
        free(src);
        src = NULL;

        (void) file_put_at(root, "cg/user.slice/pids.max", "max\n");
        TAP_EQ_INT(fleet_tasks_read(proc, cg, "/user.slice/app", 0, -1, &max, &used, &src), 0, "\"max\" is no limit");
        TAP_EQ_STR(src, "pids.max of /user.slice/app", "...so the group's own pids.max binds");
        free(src);
        src = NULL;

        scratch_dir_remove(root);
        return tap_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the cgroup hierarchies are, from fixture /proc trees. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "mountinfo.h"
#include "tap.h"
#include "util.h"

static char proc[] = "/tmp/botdesk-mountinfo.XXXXXX";

static void put(const char *rel, const char *text) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof path, "%s/%s", proc, rel);
        f = fopen(path, "we");
        if (!f) {
                printf("Bail out! cannot write %s\n", path);
                exit(1);
        }
        fputs(text, f);
        fclose(f);
}

int main(void) {
        struct cgroup_mount v2 = {}, v1 = {};
        char *path = NULL, dir[512];

        if (!mkdtemp(proc))
                return 1;
        snprintf(dir, sizeof dir, "%s/self", proc);
        mkdir(dir, 0755);
        snprintf(dir, sizeof dir, "%s/42", proc);
        mkdir(dir, 0755);

        /* A container: its cgroup root is /docker/abc, mounted at a path with a space. */
        put("self/mountinfo",
            "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
            "30 22 0:26 /docker/abc /sys/fs/cgroup\\040x/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
            "31 22 0:27 /docker/abc /sys/fs/cgroup/memory rw shared:10 - cgroup cgroup rw,memory\n");
        put("self/cgroup", "12:memory:/docker/abc/job\n0::/docker/abc/job/botdesk-1000-work\n");
        put("42/cgroup", "0::/docker/abc/other\n");

        TAP_EQ_INT(mountinfo_cgroup_mounts(proc, &v2, &v1), 0, "the fixture mountinfo is read");
        TAP_EQ_STR(v2.path, "/sys/fs/cgroup x/unified", "the v2 mount point has mountinfo's \\040 decoded");
        TAP_EQ_STR(v2.root, "/docker/abc", "the v2 mount's root is the container's cgroup");
        TAP_EQ_STR(v1.path, "/sys/fs/cgroup/memory", "the v1 memory mount is found");
        cgroup_mount_done(&v2);
        cgroup_mount_done(&v1);

        TAP_EQ_INT(cgroup_path_of_at(proc, 0, &path), 0, "our cgroup path is read");
        TAP_EQ_STR(path, "/job/botdesk-1000-work", "our cgroup path is relative to what the mount shows");
        free(path);
        path = NULL;
        TAP_EQ_INT(cgroup_path_of_at(proc, 42, &path), 0, "another pid's cgroup path is read");
        TAP_EQ_STR(path, "/other", "... relative to the mount too");
        free(path);
        path = NULL;

        /* Outside the mount (a cgroup namespace prints "/.."): the mount's own cgroup. */
        put("self/cgroup", "0::/../../elsewhere\n");
        TAP_EQ_INT(cgroup_path_of_at(proc, 0, &path), 0, "a path outside the mount is read");
        TAP_EQ_STR(path, "/", "... and is the mount's own cgroup, never a walk out of it");
        free(path);
        path = NULL;

        /* No cgroup2 line at all. */
        put("self/mountinfo", "22 1 0:21 / / rw - ext4 /dev/vda rw\n");
        TAP_EQ_INT(cgroup_v2_mount_at(proc, &v2), -ENOMEDIUM, "without a cgroup2 mount there is no v2 mount");

        for (const char *const *f = (const char *const[]) { "self/mountinfo", "self/cgroup", "42/cgroup", "self", "42",
                                                             NULL }; *f; f++) {
                snprintf(dir, sizeof dir, "%s/%s", proc, *f);
                (void) remove(dir);
        }
        (void) rmdir(proc);
        return tap_done();
}

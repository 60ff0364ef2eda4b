/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inotify limits and the instances a user holds, from a fixture /proc. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "inotify-limits.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

static char root[] = "/tmp/botdesk-inotify.XXXXXX";

static int link_to(const char *rel, const char *target) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", root, rel);

        return path && symlink(target, path) == 0 ? 0 : -EIO;
}

/* The value conf/sysctl.d/50-botdesk.conf ships, or -1. */
static long long shipped_limit(void) {
        const char *src = getenv("BOTDESK_SOURCE_DIR");
        _cleanup_free_ char *path = src ? strdup_printf("%s/conf/sysctl.d/50-botdesk.conf", src) : NULL, *text = NULL;
        unsigned long long v;
        const char *p;
        char num[24];
        size_t l;

        if (!path || read_full_file(path, &text, NULL, 1 << 16) < 0 ||
            !(p = strstr(text, "\nfs.inotify.max_user_instances = ")))
                return -1;
        p += strlen("\nfs.inotify.max_user_instances = ");
        l = strcspn(p, "\n");
        if (l == 0 || l >= sizeof num)
                return -1;
        memcpy(num, p, l);
        num[l] = 0;
        return parse_uint(num, 1 << 30, &v) >= 0 ? (long long) v : -1;
}

int main(void) {
        struct inotify_limits l;
        int r = 0;

        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                return 1;
        }
        r |= dir_make_at(root, "sys") | dir_make_at(root, "sys/fs") | dir_make_at(root, "sys/fs/inotify");
        r |= file_put_at(root, "sys/fs/inotify/max_user_instances", "128\n") | file_put_at(root, "sys/fs/inotify/max_user_watches", "65536\n");
        /* Two processes of ours: 2 + 1 inotify instances, other fds beside them. */
        r |= dir_make_at(root, "100") | dir_make_at(root, "100/fd") | dir_make_at(root, "200") | dir_make_at(root, "200/fd") | dir_make_at(root, "self");
        r |= link_to("100/fd/3", "anon_inode:inotify") | link_to("100/fd/4", "anon_inode:inotify");
        r |= link_to("100/fd/5", "/dev/null") | link_to("100/fd/6", "anon_inode:[eventfd]");
        r |= link_to("200/fd/7", "anon_inode:inotify") | link_to("200/fd/8", "socket:[123]");
        if (r != 0) {
                printf("Bail out! cannot build the fixture /proc\n");
                return 1;
        }

        TAP_EQ_INT(inotify_limits_read(root, getuid(), &l), 0, "a fixture /proc is read");
        TAP_EQ_INT(l.max_user_instances, 128, "fs.inotify.max_user_instances is read");
        TAP_EQ_INT(l.max_user_watches, 65536, "fs.inotify.max_user_watches is read");
        TAP_EQ_INT(l.instances_used, 3, "the user's instances are counted over its processes, other fds not");
        TAP_EQ_INT(inotify_limits_read(root, getuid() + 1, &l), 0, "another uid's view is read too");
        TAP_EQ_INT(l.instances_used, 0, "processes of another uid are not counted");

        (void) file_put_at(root, "sys/fs/inotify/max_user_instances", "lots\n");
        TAP_EQ_INT(inotify_limits_read(root, getuid(), &l), 0, "a garbled limit is no error");
        TAP_EQ_INT(l.max_user_instances, -1, "but unknown");

        TAP_EQ_INT(inotify_instances_needed(0), INOTIFY_USER_MARGIN, "no desktop needs only the user's margin");
        TAP_EQ_INT(inotify_instances_needed(70), 688, "the default band's 70 desktops need 688 instances");
        {
                long long shipped = shipped_limit();
                tap_ok(shipped >= inotify_instances_needed(70),
                       "the shipped 50-botdesk.conf (%lld) covers them", shipped);
        }

        scratch_dir_remove(root);
        return tap_done();
}

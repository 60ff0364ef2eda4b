/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>

#include "doctor-inotify.h"
#include "record.h"
#include "inotify-limits.h"
#include "profile.h"
#include "util.h"

static unsigned desktops_running(void) {
        _cleanup_free_ char *base = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        unsigned n = 0;
        int fd;

        /* Only directories verified ours count, as for every verb. */
        if (paths_runtime_base(&base) < 0 || (fd = dir_open_verified_at(AT_FDCWD, base, getuid())) < 0 ||
            dir_from_fd(fd, &d) < 0)
                return 0;
        while ((de = readdir(d))) {
                _cleanup_close_ int pfd = -EBADF;
                struct helper_record rec;

                /* Spares are desktops too; an adopted one's link is no dir (O_NOFOLLOW). */
                if (!desktop_name_valid(de->d_name))
                        continue;
                pfd = dir_open_verified_at(dirfd(d), de->d_name, getuid());
                if (pfd < 0 || helper_record_read_at(pfd, &rec) < 0)
                        continue;
                n += helper_alive(pfd, &rec) > 0;
                helper_record_done(&rec);
        }
        return n;
}

void doctor_inotify(struct json *j, const struct bd_config *c, uint64_t memory_limit_mb) {
        struct inotify_limits l;
        unsigned running = desktops_running(), band = c->band_max - c->band_min + 1, capacity = band;
        long long need_now, need_full;
        bool ok;

        (void) inotify_limits_read("/proc", getuid(), &l);
        if (memory_limit_mb > 0 && memory_limit_mb / FLEET_DESKTOP_MB < capacity)
                capacity = (unsigned) (memory_limit_mb / FLEET_DESKTOP_MB);
        need_now = inotify_instances_needed(running);
        need_full = inotify_instances_needed(capacity);
        ok = l.max_user_instances < 0 || l.max_user_instances >= need_full;

        if (j) {
                json_kv_int(j, "inotify_max_user_instances", l.max_user_instances);
                json_kv_int(j, "inotify_max_user_watches", l.max_user_watches);
                json_kv_int(j, "inotify_instances_used", l.instances_used);
                json_kv_int(j, "desktops_running", running);
                json_kv_int(j, "desktops_capacity", capacity);
                json_kv_int(j, "inotify_instances_needed", need_full);
                json_kv_bool(j, "inotify_ok", ok);
                return;
        }
        printf("inotify:      %lld of %lld instances in use by uid %u (fs.inotify.max_user_instances)\n",
               l.instances_used, l.max_user_instances, (unsigned) getuid());
        printf("  needed:     %lld for the desktops running now (%u), %lld for the %u this host could hold\n"
               "              (band %u-%u, about %u MB each; %u per desktop plus %u for the user's own programs)\n",
               need_now, running, need_full, capacity, c->band_min, c->band_max, FLEET_DESKTOP_MB,
               INOTIFY_PER_DESKTOP, INOTIFY_USER_MARGIN);
        if (!ok)
                printf("  raise it:   sysctl fs.inotify.max_user_instances=1024, or install botdesk's 50-botdesk.conf in /etc/sysctl.d\n");
}

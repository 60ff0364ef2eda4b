/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "mountinfo.h"
#include "pid-signal.h"
#include "util.h"

int cgroup_v2_mount_at(const char *proc_root, struct cgroup_mount *ret) {
        struct cgroup_mount v1 = {};
        int r;

        *ret = (struct cgroup_mount) {};
        r = mountinfo_cgroup_mounts(proc_root, ret, &v1);
        cgroup_mount_done(&v1);
        if (r >= 0 && !ret->path)
                r = -ENOMEDIUM;
        if (r < 0)
                cgroup_mount_done(ret);
        return r;
}

int cgroup_v2_mount(char **ret) {
        struct cgroup_mount m;
        int r = cgroup_v2_mount_at(NULL, &m);

        if (r < 0)
                return r;
        *ret = TAKE_PTR(m.path);
        free(m.root);
        return 0;
}

int cgroup_path_of_at(const char *proc_root, pid_t pid, char **ret) {
        _cleanup_free_ char *self = NULL;
        struct cgroup_mount m;
        int r;

        r = proc_cgroup_paths(proc_root, pid, &self, NULL);
        if (r < 0)
                return r;
        if (!self)
                return -ENOMEDIUM;
        /* Relative to what the v2 mount shows: mount + path must name a directory. */
        r = cgroup_v2_mount_at(proc_root, &m);
        *ret = cgroup_relative(self, r >= 0 ? m.root : "/");
        if (r >= 0)
                cgroup_mount_done(&m);
        return *ret ? 0 : -ENOMEM;
}

int cgroup_path_of(pid_t pid, char **ret) {
        return cgroup_path_of_at(NULL, pid, ret);
}

bool cgroup_is_unit_of(const char *path, const char *unit) {
        const char *slash = strrchr(path, '/');

        return slash && unit && streq(slash + 1, unit);
}

bool cgroup_is_botdesk(const char *cg) {
        _cleanup_free_ char *mount = NULL;
        const char *rest, *name;

        if (!cg || cgroup_v2_mount(&mount) < 0)
                return false;
        rest = startswith(cg, mount);
        if (!rest || rest[0] != '/' || rest[1] == 0 || strstr(rest, "/.."))
                return false;
        name = strrchr(rest, '/') + 1;
        return startswith(name, "botdesk-") || startswith(name, "botdesk@");
}

bool cgroup_contains_self(const char *cg) {
        _cleanup_free_ char *mount = NULL, *self = NULL, *full = NULL;
        size_t l = strlen(cg);

        if (cgroup_v2_mount(&mount) < 0 || cgroup_path_of(0, &self) < 0)
                return true;
        full = strdup_printf("%s%s", mount, streq(self, "/") ? "" : self);
        if (!full)
                return true;
        return strncmp(full, cg, l) == 0 && (full[l] == 0 || full[l] == '/');
}

int cgroup_create(const char *cg) {
        if (mkdir(cg, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

static int write_cgroup_file(const char *cg, const char *file, const char *value) {
        _cleanup_free_ char *p = strdup_printf("%s/%s", cg, file);
        _cleanup_close_ int fd = -EBADF;
        size_t l = strlen(value);

        if (!p)
                return -ENOMEM;
        fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        if (write(fd, value, l) != (ssize_t) l)
                return negative_errno();
        return 0;
}

int cgroup_attach(const char *cg, pid_t pid) {
        char buf[32];

        snprintf(buf, sizeof buf, "%d", (int) pid);
        return write_cgroup_file(cg, "cgroup.procs", buf);
}

int cgroup_populated(const char *cg) {
        _cleanup_free_ char *p = strdup_printf("%s/cgroup.events", cg), *text = NULL;
        const char *v;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_full_file(p, &text, NULL, 4096);
        if (r < 0)
                return r;
        v = strstr(text, "populated ");
        if (!v)
                return -EBADMSG;
        return v[10] == '1';
}

int cgroup_procs_read(const char *cg, pid_t **pids, size_t *n) {
        _cleanup_free_ char *procs = strdup_printf("%s/cgroup.procs", cg), *text = NULL;
        int r;

        if (!procs)
                return -ENOMEM;
        r = read_full_file(procs, &text, NULL, 1 << 20);
        if (r < 0)
                return r;
        for (char *line = text, *next; *line; line = next) {
                unsigned long long pid;
                pid_t *grown;

                next = strchrnul(line, '\n');
                if (*next)
                        *next++ = 0;
                /* One decimal pid a line; anything else is not a cgroup.procs. */
                if (parse_uint(line, INT_MAX, &pid) < 0 || pid == 0)
                        return -EBADMSG;
                grown = reallocarray(*pids, *n + 1, sizeof(pid_t));
                if (!grown)
                        return -ENOMEM;
                *pids = grown;
                (*pids)[(*n)++] = (pid_t) pid;
        }
        return 0;
}

int cgroup_for_each_child(const char *cg, int (*fn)(const char *sub, void *userdata), void *userdata) {
        _cleanup_closedir_ DIR *d = opendir(cg);
        struct dirent *de;

        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                _cleanup_free_ char *sub = NULL;
                int r;

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                sub = strdup_printf("%s/%s", cg, de->d_name);
                if (!sub)
                        return -ENOMEM;
                r = fn(sub, userdata);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        return 0;
}

static int kill_procs_recursive(const char *cg);

static int kill_child(const char *sub, void *userdata) {
        (void) kill_procs_recursive(sub);
        return 0;
}

static int kill_procs_recursive(const char *cg) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = cgroup_procs_read(cg, &pids, &n);
        if (r < 0)
                return r;
        /* Still in this group once pinned: a pid read from cgroup.procs
         * may have been reused by then. */
        for (size_t i = 0; i < n; i++)
                (void) pid_signal_checked(pids[i], SIGKILL, pid_check_in_cgroup, (void *) cg);
        return cgroup_for_each_child(cg, kill_child, NULL);
}

int cgroup_kill(const char *cg) {
        int r;

        /* Whatever the caller thinks: never the root, never outside the
         * hierarchy, never someone else's group. Sub-groups of ours are fine. */
        if (!cgroup_is_botdesk(cg)) {
                _cleanup_free_ char *parent = strdup(cg);
                char *slash = parent ? strrchr(parent, '/') : NULL;

                if (!slash)
                        return -EPERM;
                *slash = 0;
                if (!cgroup_is_botdesk(parent))
                        return -EPERM;
        }
        r = write_cgroup_file(cg, "cgroup.kill", "1");

        /* cgroup.kill exists since Linux 5.14; older kernels get a pid walk,
         * which can race with forks, so callers repeat it until empty. */
        if (r == -ENOENT) {
                struct stat st;

                if (stat(cg, &st) < 0)
                        return errno == ENOENT ? 0 : negative_errno();
                return kill_procs_recursive(cg);
        }
        return r;
}

static int remove_child(const char *sub, void *userdata) {
        return cgroup_remove(sub);
}

int cgroup_remove(const char *cg) {
        /* Children first: rmdir of a cgroup with children fails (-EBUSY).
         * Only cg itself can be missing (-ENOENT): a removal never says so. */
        int r = cgroup_for_each_child(cg, remove_child, NULL);

        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (rmdir(cg) < 0 && errno != ENOENT)
                return negative_errno();
        return 0;
}

int cgroup_destroy(const char *cg, unsigned long long timeout_usec) {
        int r;

        r = cgroup_kill(cg);
        if (r < 0)
                return r;
        r = cgroup_wait_empty(cg, timeout_usec);
        if (r < 0)
                return r;
        return cgroup_remove(cg);
}
